"""ActivityNet Captions: ground truth (train / val_1 / val_2) and five-rater re-annotations.

Files (``activitynet_captions/`` in the data registry):

* ``train.json``, ``val_1.json``, ``val_2.json`` -- 2D-TAN's copies (its "val" is
  val_1, its "test" is val_2): ``{video: {duration, timestamps: [[s, e], ...],
  sentences: [...]}}``, seconds. val_1 and val_2 annotate the same videos with
  different captions. Sentences keep their upstream leading spaces.
* ``human_reannotations/test_0{0..4}.csv`` -- 1288 val_2 queries x 5 raters,
  ``HITId,video_id,description,start,end``, start/end in percent of the duration,
  video ids without the ``v_`` prefix.

Quirks, kept as annotated and counted by :func:`ground_truth_quirks`: some moments end
after the video's duration (261 train, 134 val_1, 111 val_2 rows), and two train
moments have start > end. No system predictions are released for this dataset.

Re-annotations are matched to val_2 by video and whitespace-normalised description:
1152 of the 1288 descriptions keep val_2's leading space, 136 lost it.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from fireeval.core.validation import Instance, Int, Options, validate_params
from fireeval.datasets import ROOT, data_path, read_json, reannotations
from fireeval.datasets.reannotations import bounds as reannotation_bounds

__all__ = ["label_noise_inputs", "SPLITS", "load_ground_truth", "ground_truth_quirks", "load_reannotations", "reannotation_bounds",
           "REANNOTATION_FILES"]

FOLDER = "activitynet_captions"
SPLITS = ("train", "val_1", "val_2")
REANNOTATION_FILES = tuple(f"{FOLDER}/human_reannotations/test_0{i}.csv" for i in range(5))


@validate_params(split=Options(*SPLITS), root=ROOT)
def load_ground_truth(split: str = "val_2", root=None) -> pd.DataFrame:
    """One row per (video, sentence) in file order.

    Columns: ``video`` (with ``v_``), ``description`` (as in the file, leading space
    kept), ``start``, ``end``, ``length`` (the video duration; seconds).
    """
    path = data_path(f"{FOLDER}/{split}.json", root)
    doc = read_json(path, "ActivityNet Captions JSON file ({video: {duration, timestamps, sentences}})")
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected an object {{video: {{duration, timestamps, sentences}}}}")
    rows = []
    for video, rec in doc.items():
        stamps = rec.get("timestamps") if isinstance(rec, dict) else None
        sentences = rec.get("sentences") if isinstance(rec, dict) else None
        if stamps is None or sentences is None or len(stamps) != len(sentences) or "duration" not in rec:
            raise ValueError(f"{path}: video {video} needs 'duration' and equally long 'timestamps' and "
                             "'sentences'. Fix: use 2D-TAN's train/val_1/val_2.json.")
        try:
            rows.extend((video, s, float(t[0]), float(t[1]), float(rec["duration"])) for t, s in zip(stamps, sentences))
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"{path}: video {video}: timestamps must be [[start, end], ...] seconds and "
                             "duration a number") from None
    return pd.DataFrame(rows, columns=["video", "description", "start", "end", "length"])


@validate_params(gt=Instance(pd.DataFrame, fix="pass the DataFrame of load_ground_truth"))
def ground_truth_quirks(gt: pd.DataFrame) -> dict:
    """Counts of rows with end > length, start > end, start == end."""
    return {"end_after_length": int((gt["end"] > gt["length"]).sum()),
            "start_after_end": int((gt["start"] > gt["end"]).sum()),
            "zero_length": int((gt["start"] == gt["end"]).sum())}


@validate_params(root=ROOT)
def load_reannotations(root=None) -> pd.DataFrame:
    """The five-rater re-annotations of 1288 val_2 queries, in seconds, one row per rating.

    Columns as :func:`fireeval.datasets.charades.load_reannotations` (see
    :func:`fireeval.datasets.reannotations.align`): ``query`` (row of
    ``load_ground_truth("val_2")``), ``rater`` (0-4), ``video`` (with ``v_``),
    ``description`` (val_2's text), ``start``, ``end`` (seconds), ``start_pct``,
    ``end_pct``, ``length``, ``hit_id``, ``file``. Descriptions are matched after
    collapsing whitespace.
    """
    return _aligned_reannotations(load_ground_truth("val_2", root), root)


def _aligned_reannotations(gt: pd.DataFrame, root) -> pd.DataFrame:
    """:func:`load_reannotations` aligned to ``gt``, val_2's ground truth when the caller has read it already."""
    frames = []
    for name in REANNOTATION_FILES:
        df = pd.read_csv(data_path(name, root), dtype={"HITId": str, "video_id": str, "description": str},
                         keep_default_na=False)
        frames.append(df.assign(file=name.rsplit("/", 1)[-1]))
    r = pd.concat(frames, ignore_index=True)
    r["video"] = "v_" + r["video_id"]
    return reannotations.align(r, gt, f"{FOLDER}/human_reannotations", normalise_space=True)


@validate_params(split=Options(*SPLITS), root=ROOT, max_queries=Int(0))
def label_noise_inputs(split: str = "val_2", root=None, max_queries: int = 0) -> dict:
    """Everything the label-noise protocol needs from ActivityNet Captions, as arrays.

    Ground truth of ``split`` (first ``max_queries`` rows when > 0), video durations,
    the training split's moments and durations (for the baselines), and the 5-rater
    re-annotations aligned to ground-truth rows: ``{gt, durations, train_gt,
    train_durations, rater_queries, raters (n_raters, n_rated, 2), note}``.
    """
    def frame(s):
        df = load_ground_truth(s, root=root)
        return df, df[["start", "end"]].to_numpy(float), df["length"].to_numpy(float)

    test, gt, durations = frame(split)
    _, train_gt, train_d = frame("train")
    # val_2's ground truth read once, for the re-annotations too
    rated = _aligned_reannotations(test, root) if split == "val_2" else load_reannotations(root=root)
    queries, bounds = reannotation_bounds(rated)
    if max_queries:
        gt, durations = gt[:max_queries], durations[:max_queries]
        keep = queries < max_queries
        queries, bounds = queries[keep], bounds[keep]
    return {"gt": gt, "durations": durations, "train_gt": train_gt, "train_durations": train_d,
            "rater_queries": queries, "raters": np.moveaxis(bounds, 1, 0),
            "note": f"real data: ActivityNet Captions {split} ({len(gt)} queries), baselines from train "
                    f"({len(train_gt)} moments), 5-rater re-annotations of {len(queries)} {split} queries"}
