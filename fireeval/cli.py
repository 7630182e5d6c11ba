"""Command line: ``fireeval run`` (notebooks) and ``fireeval evaluate`` (TREC runs).

Each subcommand is a ``_add_<name>(subparsers)`` function that registers its parser
and sets ``func``; errors the user can fix are printed as one line, exit status 2.
"""
from __future__ import annotations

import argparse
import sys
import warnings

__all__ = ["main"]


def _add_run(sub):
    p = sub.add_parser("run", help="execute a book notebook with parameters (papermill)",
                       description="Execute NOTEBOOK (a path or a name such as pool_depth) and write "
                                   "DIR/<name>.ipynb and DIR/<name>.headline.json.")
    p.add_argument("notebook")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a parameter; VALUE is read as a Python literal (1, 0.5, [1, 2], 'x') or else a string")
    p.add_argument("--output", "-o", default="fireeval-output", metavar="DIR",
                   help="folder for the executed notebook and headline (default: ./fireeval-output)")
    p.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")

    def run(args):
        import json

        from .notebooks import execute, parse_value

        params = {name: parse_value(value) for name, value in args.parameter}
        result = execute(args.notebook, params, args.output, kernel_name=args.kernel, progress=True)
        print(json.dumps(result, indent=1))

    p.set_defaults(func=run)


def _add_evaluate(sub):
    p = sub.add_parser("evaluate", help="score a TREC run against qrels, trec_eval style",
                       description="Print 'measure<TAB>topic<TAB>value' lines, 'all' for the mean over topics.")
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="measure name, repeatable (default: map P_5 P_10 recall_10 ndcg ndcg_cut_10 "
                        "recip_rank correct@1 correct@5 correct@10)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print one line per topic")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over all qrels topics, missing ones scoring 0 (trec_eval -c)")

    def evaluate(args):
        from .evaluation import DEFAULT_MEASURES, evaluate as score
        from .judgements import Qrels
        from .runset import RunSet

        qrels = Qrels.read(args.qrels)
        runs = RunSet.read([args.run], names=["run"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scores = score(runs, qrels, args.measure or DEFAULT_MEASURES, complete=args.complete)
        for w in caught:
            print(f"warning: {args.run}: {w.message}", file=sys.stderr)
        for measure, values in scores.values.items():
            if args.per_query:
                for topic, value in zip(scores.topics, values[0]):
                    print(f"{measure:<16}\t{topic}\t{value:.4f}")
            print(f"{measure:<16}\tall\t{values[0].mean():.4f}")

    p.set_defaults(func=evaluate)


def _add_evaluate_moments(sub):
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

        from . import moments
        from .datasets import charades, qvhighlights

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fireeval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_run, _add_evaluate, _add_evaluate_moments):
        add(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from .datasets import DataError, DataUnavailable
    from .notebooks import ParameterError
    from .trec import TrecFormatError

    try:
        args.func(args)
    except (TrecFormatError, ParameterError, DataError, DataUnavailable, FileNotFoundError, ValueError) as err:
        print(f"fireeval {args.command}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
