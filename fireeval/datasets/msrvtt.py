"""MSR-VTT 1k-A (JSFusion) test split: queries, 20 captions per video, real similarity runs.

Files (registry paths under ``msrvtt/``; see ../shared/data/README.md):

- ``MSRVTT_JSFUSION_test.csv`` -- 1000 rows ``key,vid_key,video_id,sentence``: the
  standard 1k-A query set, one caption per video. Its row order is the row *and*
  column order of the similarity runs.
- ``sgn_msrvtt_official_{test,val}_captions.json`` -- ``{video_id: {sen_id: caption}}``,
  20 captions per video (official test: 2990 videos, covering all 1k-A videos; val: 497).
- ``runs/<model>_msrvtt.npy`` -- float32 (1000, 1000) text-to-video similarity; the
  diagonal is each query's original positive.

:data:`MODELS` lists the runs. **Caveat:** GRAM and VAST keep only 50 non-zeros per
row and their off-diagonal column order is unknown, so only diagonal-based metrics
(R@K of the original positive) are trustworthy for them; :func:`load_similarity`
refuses them unless ``diagonal_only_ok=True``. **None of InternVideo2, GRAM and VAST is
a full ranking:** each row keeps its top 128 (InternVideo2) or 50 (GRAM, VAST) scores and
one fill value below them (InternVideo2: 0 in 785 rows, a float32 denormal up to 8e-45 in
the others; 872 tied videos per row; the own video lies in the fill for 25 queries), so
the order of the tail, and the rank of a positive inside it, is the tie rule's:
``np.argsort(-S, axis=1, kind="stable")`` breaks ties by column index ascending (R@1/5/10
= 54.6/76.3/82.7 with that rule, 54.5/76.2/82.7 with the own video last among equal scores). :func:`load_similarity` checks every matrix it loads
(:func:`fireeval.core.tied_scores.tied_fill`) and warns once (a
:class:`~fireeval.core.tied_scores.TiedFillWarning` naming the model, the depth really
ranked and how many own videos are in the fill); report ranking numbers of such a model
as bounds over tie rules (:func:`fireeval.t2v.retrieval.tie_bounds`).

The 1k-A sentences are the captions with punctuation removed: 988 of the 1000 are
among their video's 20 captions after whitespace normalisation, the other 12 after
dropping punctuation (e.g. "t-shirts" -> "t shirts"), 2 of them only approximately.
"""
from __future__ import annotations

import json
from collections.abc import Iterable

import numpy as np
import pandas as pd

from fireeval.core.validation import BOOL, Instance, Options, validate_params
from fireeval.datasets import ROOT, data_path

__all__ = ["MODELS", "DIAGONAL_ONLY", "QUERIES", "load_queries", "load_video_captions",
           "load_similarity", "load_video_captions_1ka", "captions_outside"]

QUERIES = "msrvtt/MSRVTT_JSFUSION_test.csv"
CAPTIONS = {"test": "msrvtt/sgn_msrvtt_official_test_captions.json",
            "val": "msrvtt/sgn_msrvtt_official_val_captions.json"}
MODELS = {"clip4clip": "msrvtt/runs/clip4clip_msrvtt.npy",
          "InternVideo2": "msrvtt/runs/InternVideo2_msrvtt.npy",
          "GRAM": "msrvtt/runs/GRAM_msrvtt.npy",
          "VAST": "msrvtt/runs/VAST_msrvtt.npy"}
# Runs whose off-diagonal columns cannot be trusted (only 50 non-zeros per row, unknown order).
DIAGONAL_ONLY = frozenset({"GRAM", "VAST"})


@validate_params(root=ROOT)
def load_queries(root=None) -> pd.DataFrame:
    """The 1000 1k-A queries as ``DataFrame(video_id, sentence)`` in similarity-matrix row order.

    Row ``i`` is query ``i`` and its video is column ``i`` of every run.
    """
    path = data_path(QUERIES, root=root)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = {"video_id", "sentence"} - set(frame.columns)
    if missing:
        raise ValueError(f"{path}: missing column(s) {sorted(missing)}; expected key,vid_key,video_id,sentence")
    if frame["video_id"].duplicated().any():
        raise ValueError(f"{path}: video_id repeats (row {int(frame['video_id'].duplicated().idxmax()) + 2}); "
                         "the 1k-A file has one query per video")
    return frame[["video_id", "sentence"]].reset_index(drop=True)


@validate_params(split=Options(*CAPTIONS), root=ROOT)
def load_video_captions(split: str = "test", root=None) -> dict:
    """``{video_id: [caption, ...]}`` of the official ``split`` ("test" or "val"), captions in sen_id order."""
    path = data_path(CAPTIONS[split], root=root)
    with open(path) as fh:
        raw = json.load(fh)
    return {vid: [" ".join(sents[k].split()) for k in sorted(sents, key=int)] for vid, sents in raw.items()}


@validate_params(root=ROOT)
def load_video_captions_1ka(root=None) -> list:
    """The 20 captions of each 1k-A video, as a list in query (= column) order."""
    queries = load_queries(root)
    captions = load_video_captions("test", root)
    absent = [v for v in queries["video_id"] if v not in captions]
    if absent:
        raise ValueError(f"{len(absent)} 1k-A videos (e.g. {absent[0]}) have no captions in {CAPTIONS['test']}")
    return [captions[v] for v in queries["video_id"]]


@validate_params(model=Options(*MODELS), root=ROOT, diagonal_only_ok=BOOL, check_ties=BOOL)
def load_similarity(model: str, root=None, diagonal_only_ok: bool = False, check_ties: bool = True) -> np.ndarray:
    """The ``(1000 queries, 1000 videos)`` float32 similarity matrix of ``model`` (a key of :data:`MODELS`).

    Rank videos for query ``i`` with ``np.argsort(-S[i], kind="stable")``. GRAM and VAST
    raise unless ``diagonal_only_ok=True`` (their off-diagonal entries are unusable).
    With ``check_ties`` (default), a matrix that is not a full ranking (a tied fill block
    in many rows: :func:`fireeval.core.tied_scores.tied_fill`, the diagonal as the positives)
    gives one :class:`~fireeval.core.tied_scores.TiedFillWarning` naming the model, the file,
    the depth really ranked and what it means.
    """
    if model in DIAGONAL_ONLY and not diagonal_only_ok:
        raise ValueError(f"{model}: only 50 non-zeros per row and unknown off-diagonal column order, so only "
                         "diagonal-based metrics are valid; pass diagonal_only_ok=True if that is what you use")
    path = data_path(MODELS[model], root=root)
    sim = np.load(path, allow_pickle=False)
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
        raise ValueError(f"{path}: expected a square (queries, videos) matrix, got shape {sim.shape}")
    if check_ties:
        from fireeval.core import tied_scores

        # the registry path, not this machine's: the same line wherever the book is built
        tied_scores.warn_if_tied(sim, f"MSR-VTT run {model}", np.eye(*sim.shape, dtype=bool), where=MODELS[model])
    return sim


@validate_params(video_ids=Instance(Iterable, fix="pass the video ids (a list of str)"), root=ROOT)
def captions_outside(video_ids, root=None) -> tuple[list, int]:
    """Captions of the official test + val videos *not* in ``video_ids``, and how many such videos.

    The train split's captions are not in the data folder; these captions of other
    MSR-VTT videos stand in for them (e.g. in the train--test overlap analysis). Order:
    test videos in file order, then val; each video's captions in sen_id order.
    """
    allcaps = {**load_video_captions("test", root), **load_video_captions("val", root)}
    inside = set(video_ids)
    outside = [v for v in allcaps if v not in inside]
    return [c for v in outside for c in allcaps[v]], len(outside)
