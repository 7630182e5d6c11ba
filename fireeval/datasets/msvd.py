"""MSVD (Chen & Dolan 2011): the 670-clip test split and its English captions.

Splits are collaborative-experts' lists (1200 / 100 / 670 clip ids); captions are the
raw MSVD corpus rows for the test and val clips (hobincar/SGN). A clip id is
``<YouTubeID>_<start>_<end>``. FIRE's MSVD queries are *every* caption of every test
clip (about 27.8k), judged against the pooled top 10 of CLIP4Clip and TeachText.

FIRE's code reads captions from CE's ``raw-captions.pkl`` (tokenised, lower-cased,
joined by spaces), so :func:`normalise_caption` maps a raw description to that form
for joining with the FIRE labels. No ranked MSVD run is available here.
"""
from __future__ import annotations

import re

import pandas as pd

from fireeval.core.validation import BOOL, STR, Options, validate_params
from fireeval.datasets import ROOT, data_path

__all__ = ["SPLITS", "CAPTIONS", "load_split", "load_captions", "normalise_caption", "FILES"]

SPLITS = {"train": "msvd/ce_train_list.txt", "val": "msvd/ce_val_list.txt", "test": "msvd/ce_test_list.txt"}
CAPTIONS = {"test": "msvd/sgn_msvd_test_descriptions.csv", "val": "msvd/sgn_msvd_val_descriptions.csv"}
FILES = [SPLITS["test"], CAPTIONS["test"]]
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@validate_params(split=Options(*SPLITS), root=ROOT)
def load_split(split: str = "test", root=None) -> list[str]:
    """Clip ids of a split, in the list's order (the row/column order of CE/CLIP4Clip matrices)."""
    with open(data_path(SPLITS[split], root)) as fh:
        return [line.strip() for line in fh if line.strip()]


@validate_params(text=STR)
def normalise_caption(text: str) -> str:
    """Lower-cased word tokens joined by one space (the form FIRE's MSVD queries take).

    >>> normalise_caption("A bird is bathing in a sink.")
    'a bird is bathing in a sink'
    """
    return " ".join(_WORD.findall(str(text).lower()))


@validate_params(split=Options(*CAPTIONS), root=ROOT, normalise=BOOL)
def load_captions(split: str = "test", root=None, normalise: bool = False) -> dict[str, list[str]]:
    """``{clip_id: [caption, ...]}`` for the English rows of ``split`` ("test" or "val"), in split order.

    Clips follow :func:`load_split`'s order; captions keep the corpus order. Rows
    marked English are kept as they are (one test row is Hindi mislabelled English).
    """
    path = data_path(CAPTIONS[split], root)
    frame = pd.read_csv(path, dtype={"VideoID": str, "Description": str}, keep_default_na=False)
    missing = {"VideoID", "Start", "End", "Language", "Description"} - set(frame.columns)
    if missing:
        raise ValueError(f"{path}: columns {sorted(missing)} missing; expected the raw MSVD corpus header")
    frame = frame[frame["Language"] == "English"]
    clip = frame["VideoID"] + "_" + frame["Start"].astype(str) + "_" + frame["End"].astype(str)
    text = frame["Description"].map(normalise_caption.__wrapped__) if normalise else frame["Description"]
    grouped = text.groupby(clip.to_numpy(), sort=False).agg(list)
    order = load_split(split, root)
    absent = [c for c in order if c not in grouped.index]
    if absent:
        raise ValueError(f"{path}: no English caption for {len(absent)} {split} clips, e.g. {absent[:3]}")
    return {c: grouped[c] for c in order}
