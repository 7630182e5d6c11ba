"""``fireeval evaluate-moments``: R@K,θ and AxIoU@K for moment-retrieval predictions."""
from __future__ import annotations

import sys

__all__ = ["add"]


def add(sub):
    p = sub.add_parser(
        "evaluate-moments", help="score moment-retrieval predictions: R@K,θ and AxIoU@K",
        description="Print 'measure<TAB>query<TAB>value' lines ('all' = mean over ground-truth queries; "
                    "missing or empty prediction lists score 0). GT: a Charades-STA style .txt "
                    "('VIDEO START END##DESCRIPTION') or a QVHighlights style .jsonl (qid, relevant_windows; "
                    "IoU = max over a query's windows). PRED for .txt ground truth: .json "
                    "({\"entries\": [{\"vid\", \"query\", \"moments\": [[s, e], ...], \"ratings\"}]}) or the "
                    "AxIoU repository's .pkl (read with a restricted unpickler); for .jsonl ground truth: "
                    "Moment-DETR .jsonl (qid, pred_relevant_windows = [[s, e, score], ...]). Seconds throughout.")
    p.add_argument("gt")
    p.add_argument("pred")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="R@K,θ, AxIoU@K, AP@K,θ or DCG@K, repeatable (default: the 12 of the AxIoU paper)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print one line per query")
    p.add_argument("--strict", action="store_true", help="R@K,θ with IoU > θ (the AxIoU reference code) "
                                                         "instead of IoU >= θ (the paper)")

    def evaluate_moments(args):
        from pathlib import Path

        import numpy as np

        from fireeval.core import moments
        from fireeval.datasets import charades, qvhighlights

        names = args.measure or moments.MEASURES
        for name in names:  # fail on a bad name before reading any file
            moments.measure_function(name)
        gt_path, pred_path = Path(args.gt), Path(args.pred)
        for path in (gt_path, pred_path):
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such file")
        if gt_path.suffix == ".jsonl":
            gt_df = qvhighlights.read_ground_truth_file(gt_path)
            gt = qvhighlights.windows_array(gt_df)
            pred = qvhighlights.read_predictions_file(pred_path, gt_df)
            ids = [str(q) for q in gt_df["qid"]]
            info = {"missing_queries": int(np.isnan(pred).all(axis=(1, 2)).sum())}
        else:
            gt_df = charades.read_sta(gt_path)
            gt = gt_df[["start", "end"]].to_numpy()
            pred, info = charades.read_predictions_file(pred_path, gt_df)
            ids = [f"{v}#{i}" for i, v in enumerate(gt_df["video"])]
        if info.get("missing_queries"):
            print(f"warning: {pred_path}: {info['missing_queries']} of {len(ids)} queries have no "
                  "predictions and score 0", file=sys.stderr)
        if info.get("unknown"):
            print(f"warning: {pred_path}: {info['unknown']} entries match no ground-truth query (ignored)",
                  file=sys.stderr)
        scores = moments.score_systems({"run": pred}, gt, names, strict=args.strict)[:, 0]
        for name, values in zip(names, scores):
            if args.per_query:
                for qid, value in zip(ids, values):
                    print(f"{name:<10}\t{qid}\t{value:.4f}")
            print(f"{name:<10}\tall\t{values.mean():.4f}")

    p.set_defaults(func=evaluate_moments)
