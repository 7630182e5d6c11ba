"""Five-rater moment re-annotations (Otani et al.), shared by the Charades-STA and ActivityNet loaders.

Both datasets ship CSVs ``HITId,video_id,description,start,end`` with start and end in
percent of the video's length and one row per rater, the five raters of a query in one
HIT. :func:`align` matches those rows to ground-truth rows and converts them to
seconds; :func:`bounds` turns the result into a ``(queries, raters, 2)`` array.

>>> import pandas as pd
>>> gt = pd.DataFrame({"video": ["v"], "description": ["a b"], "length": [20.0]})
>>> raw = pd.DataFrame({"HITId": ["h", "h"], "video": ["v", "v"], "description": ["a  b", "a b"],
...                     "start": [10.0, 0.0], "end": [50.0, 25.0], "file": ["f.csv", "f.csv"]})
>>> queries, b = bounds(align(raw, gt, "f.csv", normalise_space=True))
>>> queries.tolist(), b.tolist()
([0], [[[2.0, 10.0], [0.0, 5.0]]])
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from fireeval.core.validation import BOOL, STR, Instance, validate_params

__all__ = ["COLUMNS", "align", "bounds"]

_FRAME = Instance(pd.DataFrame, fix="pass a DataFrame")

COLUMNS = ["query", "rater", "video", "description", "start", "end", "start_pct", "end_pct", "length",
           "hit_id", "file"]


def _key(video: pd.Series, description: pd.Series, normalise_space: bool) -> pd.MultiIndex:
    text = description.str.split().str.join(" ") if normalise_space else description
    return pd.MultiIndex.from_arrays([video.to_numpy(), text.to_numpy()])


@validate_params(raw=_FRAME, gt=_FRAME, source=STR, normalise_space=BOOL)
def align(raw: pd.DataFrame, gt: pd.DataFrame, source: str, normalise_space: bool = False) -> pd.DataFrame:
    """Re-annotation rows matched to ground-truth rows, in seconds, one row per rating.

    Parameters
    ----------
    raw : DataFrame
        The concatenated CSVs with columns ``HITId``, ``video`` (already in the
        ground truth's spelling), ``description``, ``start``, ``end`` (percent of the
        video length) and ``file``.
    gt : DataFrame
        Ground truth with ``video``, ``description`` and ``length`` (seconds).
    source : str
        Named in errors (the files read).
    normalise_space : bool
        Match descriptions after collapsing whitespace (ActivityNet's re-annotations
        lost some leading spaces).

    Returns
    -------
    DataFrame with :data:`COLUMNS`: ``query`` (row of ``gt``), ``rater`` (0-4, file order
    within the HIT), ``description`` (the ground truth's text), ``start`` and ``end`` in
    seconds = percent / 100 x ``length``, the percents as ``start_pct``/``end_pct``.
    Sorted by query, then rater.
    """
    key = _key(gt["video"], gt["description"], normalise_space)
    if key.duplicated().any():
        raise ValueError(f"{source}: the ground truth has two queries with the same (video, description)")
    index = pd.Series(np.arange(len(gt)), index=key)
    query = index.reindex(_key(raw["video"], raw["description"].astype(str), normalise_space)).to_numpy()
    if np.isnan(query).any():
        bad = raw.loc[np.isnan(query), ["video", "description"]].iloc[0].tolist()
        raise ValueError(f"{source}: re-annotation {bad} matches no ground-truth query")
    r = raw.rename(columns={"start": "start_pct", "end": "end_pct", "HITId": "hit_id"})
    r["query"] = query.astype(int)
    r["description"] = gt["description"].to_numpy()[r["query"]]
    r["rater"] = r.groupby("hit_id").cumcount()
    r["length"] = gt["length"].to_numpy(float)[r["query"]]
    r["start_pct"] = r["start_pct"].astype(float)
    r["end_pct"] = r["end_pct"].astype(float)
    r["start"] = r["start_pct"] / 100 * r["length"]
    r["end"] = r["end_pct"] / 100 * r["length"]
    return r[COLUMNS].sort_values(["query", "rater"], ignore_index=True)


@validate_params(reannotations=_FRAME)
def bounds(reannotations: pd.DataFrame):
    """``(queries, bounds)``: ground-truth rows (n,) sorted, rater moments (n, raters, 2) in seconds.

    A rater missing for a query leaves NaN in its slot.
    """
    queries = np.unique(reannotations["query"].to_numpy())
    n_raters = int(reannotations["rater"].max()) + 1
    out = np.full((len(queries), n_raters, 2), np.nan)
    pos = np.searchsorted(queries, reannotations["query"].to_numpy())
    out[pos, reannotations["rater"].to_numpy()] = reannotations[["start", "end"]].to_numpy()
    return queries, out
