"""EPIC-KITCHENS-100 multi-instance retrieval test set: captions, classes, official relevance.

Files (registry paths under ``epic_kitchens_100/``; CC BY-NC 4.0):

- ``EPIC_100_retrieval_test.csv`` -- 9668 clips with ``narration``, ``verb_class``,
  ``all_noun_classes`` (a list such as ``[2, 10]``).
- ``EPIC_100_retrieval_test_sentence.csv`` -- the 3842 caption queries
  (``narration_id, narration``; 3835 distinct texts), each one clip's narration.
- ``EPIC_100_{verb,noun}_classes.csv`` -- class keys (97 verbs, 300 nouns).

The official semantic relevance between two items with verb classes ``v`` and noun
class sets ``N`` is ``0.5 [v_a = v_b] + 0.5 IoU(N_a, N_b)`` (:func:`fireeval.t2v.similarity.epic_relevance`).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from fireeval.core.validation import validate_params
from fireeval.datasets import ROOT, data_path

__all__ = ["CLIPS", "SENTENCES", "load_clips", "load_captions"]

CLIPS = "epic_kitchens_100/EPIC_100_retrieval_test.csv"
SENTENCES = "epic_kitchens_100/EPIC_100_retrieval_test_sentence.csv"


def _classes(text, path, row):
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}, line {row + 2}: all_noun_classes {text!r} is not a list of integers") from err
    return tuple(sorted(int(v) for v in value))


@validate_params(root=ROOT)
def load_clips(root=None) -> pd.DataFrame:
    """The 9668 test clips: ``narration_id, video_id, narration, verb_class, noun_classes`` (tuple)."""
    path = data_path(CLIPS, root=root)
    frame = pd.read_csv(path)
    need = {"narration_id", "video_id", "narration", "verb_class", "all_noun_classes"}
    if need - set(frame.columns):
        raise ValueError(f"{path}: missing column(s) {sorted(need - set(frame.columns))}")
    frame["noun_classes"] = [_classes(t, path, i) for i, t in enumerate(frame["all_noun_classes"])]
    return frame[["narration_id", "video_id", "narration", "verb_class", "noun_classes"]]


@validate_params(root=ROOT)
def load_captions(root=None) -> pd.DataFrame:
    """The 3842 caption queries in file order, with their clip's classes.

    Columns ``narration_id, narration, verb_class, noun_classes``.
    """
    path = data_path(SENTENCES, root=root)
    sentences = pd.read_csv(path, dtype={"narration_id": str, "narration": str}, keep_default_na=False)
    clips = load_clips(root).set_index("narration_id")
    absent = ~sentences["narration_id"].isin(clips.index)
    if absent.any():
        raise ValueError(f"{path}, line {int(np.flatnonzero(absent)[0]) + 2}: narration_id "
                         f"{sentences['narration_id'][absent].iloc[0]} is not in {CLIPS}")
    joined = clips.loc[sentences["narration_id"], ["verb_class", "noun_classes"]].reset_index(drop=True)
    return pd.concat([sentences.reset_index(drop=True), joined], axis=1)
