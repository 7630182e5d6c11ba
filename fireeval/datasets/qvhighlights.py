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

import json

import numpy as np
import pandas as pd

from fireeval.datasets import data_path

__all__ = ["SPLITS", "RUNS", "load_ground_truth", "windows_array", "load_predictions", "load_reported_metrics",
           "read_ground_truth_file", "read_predictions_file"]

FOLDER = "qvhighlights"
SPLITS = {"val": "highlight_val_release.jsonl", "test": "highlight_test_with_gt.jsonl"}
RUNS = {"ckpt": ("momentdetr_ckpt_val_preds.jsonl", "momentdetr_ckpt_val_preds_metrics.json"),
        "sample": ("momentdetr_sample_val_preds.jsonl", "momentdetr_sample_val_preds_metrics_raw.json")}


def _read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise ValueError(f"{path}:{lineno}: not a JSON object ({err.msg})") from None
    return out


def load_ground_truth(split: str = "val", root=None) -> pd.DataFrame:
    """One row per query in file order: ``qid, query, vid, duration, windows, n_windows``.

    ``windows`` is a list of [start, end] seconds; see :func:`windows_array`.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {list(SPLITS)}, got {split!r}")
    return read_ground_truth_file(data_path(f"{FOLDER}/{SPLITS[split]}", root))


def read_ground_truth_file(path) -> pd.DataFrame:
    """A QVHighlights-style JSONL ground-truth file (``qid, query, vid, duration, relevant_windows``)."""
    rows = []
    for rec in _read_jsonl(path):
        if "relevant_windows" not in rec:
            raise ValueError(f"{path}: query {rec.get('qid')} has no 'relevant_windows' (a file without ground truth?)")
        rows.append((rec["qid"], rec.get("query"), rec.get("vid"), float(rec.get("duration", np.nan)),
                     [[float(s), float(e)] for s, e in rec["relevant_windows"]]))
    gt = pd.DataFrame(rows, columns=["qid", "query", "vid", "duration", "windows"])
    gt["n_windows"] = gt["windows"].map(len)
    return gt


def windows_array(gt: pd.DataFrame) -> np.ndarray:
    """Ground-truth windows as (queries, max windows, 2), NaN-padded."""
    g = int(gt["n_windows"].max())
    out = np.full((len(gt), g, 2), np.nan)
    for i, w in enumerate(gt["windows"]):
        out[i, : len(w)] = w
    return out


def load_predictions(run: str = "ckpt", root=None, k: int = 10, split: str = "val"):
    """Moment-DETR's top-``k`` windows, (queries, k, 2) seconds, aligned to ``load_ground_truth(split)``.

    Ranked by the predicted score, descending (stable). Queries without predictions
    are all NaN (score 0).
    """
    if run not in RUNS:
        raise KeyError(f"unknown QVHighlights run {run!r}; known: {list(RUNS)}")
    return read_predictions_file(data_path(f"{FOLDER}/{RUNS[run][0]}", root), load_ground_truth(split, root), k)


def read_predictions_file(path, gt: pd.DataFrame, k: int = 10) -> np.ndarray:
    """Moment-DETR style JSONL predictions (``qid``, ``pred_relevant_windows = [[s, e, score], ...]``),
    aligned to ``gt`` by ``qid``; lists without a score column keep their order."""
    pos = {q: i for i, q in enumerate(gt["qid"])}
    out = np.full((len(gt), k, 2), np.nan)
    for lineno, rec in enumerate(_read_jsonl(path), 1):
        if "qid" not in rec or "pred_relevant_windows" not in rec:
            raise ValueError(f"{path}: record {lineno} needs 'qid' and 'pred_relevant_windows'")
        i = pos.get(rec["qid"])
        if i is None or not rec["pred_relevant_windows"]:
            continue
        w = np.asarray(rec["pred_relevant_windows"], dtype=float)
        if w.shape[1] >= 3:
            w = w[np.argsort(-w[:, 2], kind="stable")]
        w = w[:k, :2]
        out[i, : len(w)] = w
    return out


def load_reported_metrics(run: str = "ckpt", root=None) -> dict:
    """The repository's own metric file for ``run`` (``brief``, ``full``, ...; percentages)."""
    with open(data_path(f"{FOLDER}/{RUNS[run][1]}", root), encoding="utf-8") as fh:
        return json.load(fh)
