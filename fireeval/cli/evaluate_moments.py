"""``fireeval evaluate-moments``: R@K,θ and AxIoU@K for moment-retrieval predictions."""
from __future__ import annotations

import os
import sys

from fireeval.cli import SUBPARSERS
from fireeval.core.validation import BOOL, Check, Instance, Options, ParamError, validate_params

__all__ = ["add", "MomentTruth", "read_ground_truth", "read_matched_predictions"]

#: the predictions formats ``--format`` names (``auto``: from the file's extension)
FORMATS = ("auto", "json", "pkl", "csv", "tsv", "momentdetr", "2dtan")


def _callable(name, value):
    if value is not None and not callable(value):
        raise ParamError(f"read_matched_predictions: {name}={type(value).__name__} is not callable. Fix: pass a "
                         "function of one str, or None")


@validate_params(sub=SUBPARSERS)
def add(sub):
    p = sub.add_parser(
        "evaluate-moments", help="score moment-retrieval predictions: R@K,θ and AxIoU@K",
        description="Print 'measure<TAB>query<TAB>value' lines ('all' = mean over ground-truth queries; "
                    "missing or empty prediction lists score 0). GT: a Charades-STA style .txt "
                    "('VIDEO START END##DESCRIPTION') or a QVHighlights style .jsonl (qid, relevant_windows; "
                    "IoU = max over a query's windows). PRED for .txt ground truth: .json "
                    "({\"entries\": [{\"vid\", \"query\", \"moments\": [[s, e], ...], \"ratings\"}]}) or the "
                    "AxIoU repository's .pkl (read with a restricted unpickler); for .jsonl ground truth: "
                    "Moment-DETR .jsonl (qid, pred_relevant_windows = [[s, e, score], ...]). Either ground truth also takes "
                    "CSV/TSV (vid, query, start, end, score), Moment-DETR .jsonl (matched by vid and query text for "
                    "Charades-STA) and 2D-TAN style .txt ('VIDEO START END[ SCORE]##QUERY' per moment); query text "
                    "is matched exactly unless --normalize-queries. Seconds throughout. "
                    "Every prediction is read (no cut at 10): K beyond a list's length follows the measure's "
                    "definition (R@K,θ looks at the whole list, AxIoU@K still divides by K). Duplicate queries, "
                    "NaN/infinite or reversed moments, ratings not matching moments, K < 1 and θ outside (0, 1] "
                    "are errors (exit 2).")
    p.add_argument("gt")
    p.add_argument("pred")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="R@K,θ, AxIoU@K, AP@K,θ or DCG@K, repeatable (default: the 12 of the AxIoU paper)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print one line per query")
    p.add_argument("--format", default="auto", choices=FORMATS,
                   help="predictions format (default: from the extension: .json, .pkl, .csv, .tsv, .jsonl = "
                        "Moment-DETR, .txt = 2D-TAN style 'VIDEO START END[ SCORE]##QUERY'); see "
                        "fireeval.datasets.moment_formats")
    p.add_argument("--normalize-queries", action="store_true",
                   help="match query texts after lower-casing, collapsing spaces and dropping a final full stop "
                        "(default: exact match; unmatched entries are reported)")
    p.add_argument("--strict", action="store_true", help="R@K,θ with IoU > θ (the AxIoU reference code) "
                                                         "instead of IoU >= θ (the paper)")

    def evaluate_moments(args):
        import gc

        from fireeval.cli import load_numpy_without_blas_threads

        load_numpy_without_blas_threads()  # no linear algebra here
        # One pass that builds ~50k small lists and dicts (the parsed JSON) and drops them at exit: they
        # hold no reference cycles, so the cyclic collector would only walk them (~12 ms of the command).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            _evaluate_moments(args)
        finally:
            if was_enabled:
                gc.enable()

    def _evaluate_moments(args):
        # numpy and the readers only: no pandas (start-up time; issue 13).
        from fireeval.core import moments
        from fireeval.datasets import check_readable

        names = args.measure or moments.MEASURES
        for name in names:  # fail on a bad name before reading any file
            moments.measure_function(name)
        gt_path = check_readable(args.gt, "ground-truth file")
        pred_path = check_readable(args.pred, "predictions file", text=not str(args.pred).endswith(".pkl"))
        truth = read_ground_truth(gt_path)
        for warning in truth.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        gt, ids = truth.windows, truth.ids
        pred = read_matched_predictions(pred_path, truth, args.format, args.normalize_queries)
        scores = moments.score_systems({"run": pred}, gt, names, strict=args.strict)[:, 0]
        lines = []
        for name, values in zip(names, scores):
            if args.per_query:
                lines += [f"{name:<10}\t{qid}\t{value:.4f}" for qid, value in zip(ids, values)]
            lines.append(f"{name:<10}\tall\t{values.mean():.4f}")
        sys.stdout.write("\n".join(lines) + "\n")

    p.set_defaults(func=evaluate_moments)


class MomentTruth:
    """Ground truth read for scoring: ``windows`` (queries x 2, or x G x 2), query ``ids``, the ``records``
    the prediction readers match against, their ``kind`` ("qvhighlights" or "charades"), the ``path`` and
    the ``warnings`` (queries left out)."""

    def __init__(self, path, windows, ids, records, kind, warnings):
        self.path, self.windows, self.ids, self.records, self.kind = path, windows, ids, records, kind
        self.warnings = warnings


@validate_params(gt_path=Instance(str, os.PathLike, fix="pass the ground truth's path"))
def read_ground_truth(gt_path) -> MomentTruth:
    """A Charades-STA style ``.txt`` or QVHighlights style ``.jsonl`` ground truth (queries without a relevant
    window are left out, with a warning; none at all is an error)."""
    import numpy as np

    warnings = []
    if str(gt_path).endswith(".jsonl"):
        from fireeval.datasets import qvhighlights

        records = qvhighlights.read_ground_truth_records(gt_path)
        empty = [r[0] for r in records if not r[4]]
        if empty and len(empty) == len(records):
            raise ValueError(f"{gt_path}: no query has a relevant window; nothing to score. Fix: give a "
                             "ground-truth file with relevant_windows.")
        if empty:
            warnings.append(f"{gt_path}: {len(empty)} of {len(records)} queries have no relevant window and are "
                            f"left out of the mean (qid {', '.join(map(str, empty[:5]))}"
                            f"{' ...' if len(empty) > 5 else ''})")
            records = [r for r in records if r[4]]
        return MomentTruth(gt_path, qvhighlights.windows_array([r[4] for r in records]), [str(r[0]) for r in records],
                           records, "qvhighlights", warnings)
    from fireeval.datasets import charades

    rows = charades.read_sta_rows(gt_path)
    return MomentTruth(gt_path, np.array([(r[2], r[3]) for r in rows]), [f"{r[0]}#{i}" for i, r in enumerate(rows)],
                       rows, "charades", warnings)


@validate_params(pred_path=Instance(str, os.PathLike, fix="pass the predictions' path"),
                 truth=Instance(MomentTruth, fix="pass read_ground_truth's result"), fmt=Options(*FORMATS),
                 normalize=BOOL, warn=Check(_callable, fix="pass a function of one str, or None"))
def read_matched_predictions(pred_path, truth: MomentTruth, fmt: str = "auto", normalize: bool = False,
                             warn=None):
    """One predictions file matched to the ground truth's queries
    (:func:`fireeval.datasets.moment_formats.read_predictions`): an error when it matches no query, warnings (through ``warn``, default: printed to stderr) for queries
    without predictions and entries matching no query."""
    from fireeval.datasets import moment_formats

    warn = warn or (lambda text: print(f"warning: {text}", file=sys.stderr))
    info = {}
    pred = moment_formats.read_predictions(pred_path, truth.records, truth.kind, fmt, normalize, info=info)
    gt_path, n_queries = truth.path, len(truth.windows)
    if info["missing_queries"] == n_queries:
        raise ValueError(f"{pred_path}: none of its {info.get('entries', 0)} entries has moments for a query of "
                         f"{gt_path} ({n_queries} queries). Fix: check that the two files describe the same "
                         "queries (Charades: same video and description; QVHighlights: same qid)"
                         + (f"; e.g. {info['unmatched'][0]} matches none" if info.get("unmatched") else "")
                         + ("" if normalize else
                            "; --normalize-queries if only case, spaces or a final full stop differ") + ".")
    if info["missing_queries"]:
        warn(f"{pred_path}: {info['missing_queries']} of {n_queries} queries have no predictions and score 0")
    if info.get("unknown"):
        shown = "; ".join(map(str, info.get("unmatched", [])[:3]))
        warn(f"{pred_path}: {info['unknown']} entries match no ground-truth query (ignored)"
             + (f", e.g. {shown}" if shown else "")
             + ("" if normalize else "; query text is matched exactly (--normalize-queries "
                "compares lower-cased texts without extra spaces or final full stop)"))
    return pred
