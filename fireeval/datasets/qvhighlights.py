"""QVHighlights: ground truth with several windows per query, and Moment-DETR's predictions.

Files (``qvhighlights/`` in the data registry; jayleicn/moment_detr, CC BY-NC-SA 4.0):

* ``highlight_val_release.jsonl`` (1550 queries, 530 with more than one relevant
  window) and ``highlight_test_with_gt.jsonl`` (1542): one JSON object per line with
  ``qid, query, vid, duration, relevant_windows: [[s, e], ...]`` (seconds) and
  clip-level saliency labels (not used here).
* ``momentdetr_{ckpt,sample}_val_preds.jsonl``: Moment-DETR's 10 ranked windows per
  val query, ``pred_relevant_windows = [[s, e, score], ...]``, and the repository's
  own metrics (``*_metrics*.json``).

IoU with several ground-truth windows is the largest IoU with any of them
(:func:`fireeval.core.moments.max_temporal_iou`). This is what Moment-DETR's own R1@θ
does (it picks, per query, the window that best matches the top-1 prediction, and
tests IoU >= θ), so ``R@1,0.5`` and ``R@1,0.7`` computed here reproduce the
repository's ``MR-full-R1@0.5`` / ``@0.7`` (checked in the tests).
"""
from __future__ import annotations

import numpy as np

from fireeval.core.validation import ANY, BOOL, Instance, Int, Options, validate_params
from fireeval.datasets import FILE, ROOT, data_folders, data_path, read_json, read_jsonl, text_lines

# pandas is imported only where a DataFrame is built: `fireeval evaluate-moments` starts without it.

__all__ = ["SPLITS", "RUNS", "RUN_LABELS", "load_ground_truth", "windows_array", "load_predictions", "load_reported_metrics",
           "load_runs",
           "read_ground_truth_file", "read_ground_truth_records", "read_predictions_file"]

FOLDER = "qvhighlights"
SPLITS = {"val": "highlight_val_release.jsonl", "test": "highlight_test_with_gt.jsonl"}
#: What the two prediction files are: two checkpoints of one model family, not two systems.
RUN_LABELS = {"ckpt": "Moment-DETR (released checkpoint)", "sample": "Moment-DETR (sample run)"}
RUNS = {"ckpt": ("momentdetr_ckpt_val_preds.jsonl", "momentdetr_ckpt_val_preds_metrics.json"),
        "sample": ("momentdetr_sample_val_preds.jsonl", "momentdetr_sample_val_preds_metrics_raw.json")}


@validate_params(split=Options(*SPLITS), root=ROOT)
def load_ground_truth(split: str = "val", root=None):
    """One row per query in file order: ``qid, query, vid, duration, windows, n_windows``.

    ``windows`` is a list of [start, end] seconds; see :func:`windows_array`.
    """
    return read_ground_truth_file(data_path(f"{FOLDER}/{SPLITS[split]}", root), data_dir=root)


@validate_params(path=FILE, data_dir=ROOT)
def read_ground_truth_records(path, *, data_dir=None) -> list:
    """``[(qid, query, vid, duration, windows), ...]`` from a QVHighlights-style JSONL ground-truth file.

    Refused, naming file and line: a record without ``qid`` or ``relevant_windows``, a
    qid listed twice, windows that are not finite [start, end] with start <= end, and a
    file without records. A query with an empty ``relevant_windows`` list is kept with
    no windows (the command line leaves it out of the mean and says so).
    """
    import sys

    from fireeval.core import moments
    from fireeval.core.parsed_cache import from_json_array, json_array, kept

    # kept in the user's cache (one JSON text of the records: every value comes back equal, to the bit)
    return kept("qvhighlights", [path], lambda: _ground_truth_records(path),
                lambda rows: {"records": json_array(rows)},
                lambda arrays: [tuple(row) for row in from_json_array(arrays["records"])],
                key="ground truth", readers=(sys.modules[__name__], sys.modules["fireeval.datasets"], moments),
                roots=data_folders(data_dir))


def _ground_truth_records(path) -> list:
    """:func:`read_ground_truth_records` without the cache."""
    from fireeval.core.moments import check_moments

    rows, seen = [], {}
    for lineno, rec in read_jsonl(path, "QVHighlights ground-truth file"):
        where = f"{path}:{lineno}"
        if "qid" not in rec:
            raise ValueError(f"{where}: record has no 'qid'. Fix: give qid and relevant_windows on every line.")
        if "relevant_windows" not in rec:
            raise ValueError(f"{where}: query {rec['qid']} has no 'relevant_windows' (a file without ground truth?). "
                             "Fix: use a file with annotations, e.g. highlight_val_release.jsonl.")
        qid = rec["qid"]
        if not isinstance(qid, (int, str)) or isinstance(qid, bool):
            raise ValueError(f"{where}: qid {qid!r} is not an integer or string.")
        if qid in seen:
            raise ValueError(f"{where}: qid {qid} is already on line {seen[qid]}. Fix: list each query once.")
        seen[qid] = lineno
        windows = rec["relevant_windows"] or []
        arr = check_moments(windows, f"{where}: relevant_windows") if len(windows) else np.empty((0, 2))
        if arr.ndim != 2:
            raise ValueError(f"{where}: relevant_windows must be [[start, end], ...]")
        try:
            duration = float(rec.get("duration", np.nan))
        except (TypeError, ValueError):
            raise ValueError(f"{where}: duration {rec.get('duration')!r} is not a number") from None
        rows.append((qid, rec.get("query"), rec.get("vid"), duration, arr.tolist()))
    if not rows:
        raise ValueError(f"{path}: no ground-truth records. Fix: give one JSON object per line.")
    return rows


@validate_params(path=FILE, data_dir=ROOT)
def read_ground_truth_file(path, *, data_dir=None):
    """A QVHighlights-style JSONL ground-truth file as a DataFrame ``qid, query, vid, duration, windows, n_windows``."""
    import pandas as pd

    gt = pd.DataFrame(read_ground_truth_records(path, data_dir=data_dir),
                      columns=["qid", "query", "vid", "duration", "windows"])
    gt["n_windows"] = gt["windows"].map(len)
    return gt


@validate_params(gt=ANY)
def windows_array(gt) -> np.ndarray:
    """Ground-truth windows as (queries, max windows, 2), NaN-padded.

    ``gt``: a DataFrame with a ``windows`` column or a list of per-query window lists.
    """
    windows = list(gt["windows"]) if hasattr(gt, "columns") else list(gt)
    g = max(1, max((len(w) for w in windows), default=1))
    out = np.full((len(windows), g, 2), np.nan)
    for i, w in enumerate(windows):
        if len(w):
            out[i, : len(w)] = w
    return out


@validate_params(run=Options(*RUNS), root=ROOT, k=Int(1), split=Options(*SPLITS))
def load_predictions(run: str = "ckpt", root=None, k: int = 10, split: str = "val"):
    """Moment-DETR's top-``k`` windows, (queries, k, 2) seconds, aligned to ``load_ground_truth(split)``.

    Ranked by the predicted score, descending (stable). Queries without predictions
    are all NaN (score 0).
    """
    return read_predictions_file(data_path(f"{FOLDER}/{RUNS[run][0]}", root), load_ground_truth(split, root), k,
                                 data_dir=root)


@validate_params(path=FILE, gt=ANY, k=[Int(1), None], info=[Instance(dict, fix="pass a dict to fill"), None],
                 data_dir=ROOT)
def read_predictions_file(path, gt, k: int | None = None, info: dict | None = None, *, data_dir=None) -> np.ndarray:
    """Moment-DETR style JSONL predictions (``qid``, ``pred_relevant_windows = [[s, e, score], ...]``),
    aligned to ``gt`` (a DataFrame with ``qid`` or a list of qids) by ``qid``.

    Ranked by score, descending (stable); lists without a score column keep their
    order. ``k=None`` keeps every window. A qid listed twice, windows that are not
    finite [start, end, ...] with start <= end, and a NaN score are errors naming file
    and line. ``info``, if given, receives the counts ``unknown`` (qids not in ``gt``)
    and ``missing_queries``.

    Kept in the user's cache (:func:`fireeval.core.parsed_cache.kept`) per file, ``k`` and the qids aligned to:
    read and checked again when the file changes; ``data_dir``, the data folder the file is from, never holds
    the cache (nor do the shared data and ``$FIREEVAL_DATA``).
    """
    import hashlib
    import json
    import sys

    from fireeval.core import moments, ranking
    from fireeval.core.parsed_cache import kept

    qids = list(gt["qid"]) if hasattr(gt, "columns") else list(gt)
    # JSON tells 1 from "1" and True; a numpy scalar (a DataFrame's qid) becomes [type, repr], never a qid (a list)
    aligned_to = hashlib.sha256(json.dumps(qids, default=lambda q: [type(q).__name__, repr(q)]).encode()).hexdigest()
    out, counts = kept("qvhighlights", [path], lambda: _predictions(path, qids, k),
                       lambda value: {"windows": value[0], "counts": np.array(value[1], dtype=np.int64)},
                       lambda arrays: _predictions_from(arrays, len(qids), k),
                       key=["predictions", k, aligned_to],
                       readers=(sys.modules[__name__], sys.modules["fireeval.datasets"], moments, ranking),
                       roots=data_folders(data_dir))
    if info is not None:
        info.update(unknown=counts[0], missing_queries=counts[1], entries=counts[2])
    return out


def _predictions_from(arrays, n_queries, k) -> tuple:
    """A kept entry's ``(windows, counts)``; a ValueError when it does not fit the queries and ``k``."""
    out, counts = arrays["windows"], arrays["counts"]
    if out.dtype != np.float64 or out.ndim != 3 or out.shape[0] != n_queries or out.shape[2] != 2 \
            or (k is not None and out.shape[1] != k) or counts.shape != (3,):
        raise ValueError("an inconsistent entry")
    return out, [int(c) for c in counts]


def _predictions(path, qids, k) -> tuple:
    """:func:`read_predictions_file` without the cache: the windows and ``[unknown, missing_queries, entries]``."""
    from fireeval.core.moments import check_moments
    from fireeval.core.ranking import real_numbers

    pos = {q: i for i, q in enumerate(qids)}
    lists, seen, unknown = {}, {}, 0
    for lineno, rec in read_jsonl(path, "Moment-DETR predictions file"):
        where = f"{path}:{lineno}"
        if "qid" not in rec or "pred_relevant_windows" not in rec:
            raise ValueError(f"{where}: record needs 'qid' and 'pred_relevant_windows'. Fix: give Moment-DETR "
                             "style predictions, one JSON object per line.")
        qid = rec["qid"]
        if not isinstance(qid, (int, str)) or isinstance(qid, bool):
            raise ValueError(f"{where}: qid {qid!r} is not an integer or string.")
        if qid in seen:
            raise ValueError(f"{where}: qid {qid} is already on line {seen[qid]}. Fix: one record per query.")
        seen[qid] = lineno
        i = pos.get(qid)
        if i is None:
            unknown += 1
            continue
        if not rec["pred_relevant_windows"]:
            continue
        w = real_numbers(rec["pred_relevant_windows"], f"{where}: pred_relevant_windows",
                         ragged=f"{where}: pred_relevant_windows are not [[start, end, score], ...] numbers. "
                                "Fix: give each window as [start, end, score]")
        if w.ndim != 2 or w.shape[1] not in (2, 3):
            raise ValueError(f"{where}: pred_relevant_windows are not [[start, end, score], ...] (shape {w.shape}). "
                             "Fix: give each window as [start, end, score]")
        check_moments(w[:, :2], f"{where}: pred_relevant_windows")
        if w.shape[1] >= 3:
            if np.isnan(w[:, 2]).any():
                raise ValueError(f"{where}: a window's score is NaN. Fix: give numeric scores.")
            w = w[np.argsort(-w[:, 2], kind="stable")]
        lists[i] = w[:, :2] if k is None else w[:k, :2]
    width = k if k is not None else max((len(w) for w in lists.values()), default=1)
    out = np.full((len(qids), width, 2), np.nan)
    for i, w in lists.items():
        out[i, : len(w)] = w
    return out, [unknown, len(qids) - len(lists), len(seen)]


@validate_params(run=Options(*RUNS), root=ROOT)
def load_reported_metrics(run: str = "ckpt", root=None) -> dict:
    """The repository's own metric file for ``run`` (``brief``, ``full``, ...; percentages)."""
    path = data_path(f"{FOLDER}/{RUNS[run][1]}", root)
    return read_json(path, "metrics JSON file")


@validate_params(root=ROOT, single_window=BOOL)
def load_runs(root=None, single_window: bool = False) -> dict:
    """The val split with both Moment-DETR prediction files, ready for the AxIoU chapters.

    Returns ``{"gt": (Q, G, 2) windows (or (Q, 2) with ``single_window``), "durations":
    (Q,), "predictions": {run: (Q, 10, 2)}, "reported": {run: {"R@1,0.5": share,
    "R@1,0.7": share}} (the repository's own ``MR-full-R1@θ``, as shares), "n_queries",
    "n_all"}``. ``single_window`` keeps only the queries with exactly one relevant window
    (the label-noise model perturbs one annotated moment per query).
    """
    gt = load_ground_truth("val", root)
    # the ground truth read once for both files (load_predictions reads it again for each)
    preds = {run: read_predictions_file(data_path(f"{FOLDER}/{RUNS[run][0]}", root), gt, 10, data_dir=root)
             for run in RUNS}
    keep = np.ones(len(gt), dtype=bool) if not single_window else (gt["n_windows"] == 1).to_numpy()
    windows = windows_array(gt)[keep]
    reported = {}
    for run in RUNS:
        full = load_reported_metrics(run, root).get("brief", {})
        reported[run] = {f"R@1,{t}": full[f"MR-full-R1@{t}"] / 100 for t in ("0.5", "0.7") if f"MR-full-R1@{t}" in full}
    return {"gt": windows[:, 0] if single_window else windows, "durations": gt["duration"].to_numpy(float)[keep],
            "predictions": {run: p[keep] for run, p in preds.items()}, "reported": reported,
            "n_queries": int(keep.sum()), "n_all": len(gt)}
