"""Charades-STA: ground truth, the AxIoU paper's six systems' predictions, human re-annotations.

Files (``charades_sta/`` in the data registry; see ../shared/data/README.md):

* ``charades_sta_{test,train}.txt`` -- ``video start end##description``, the official
  query order (3720 test, 12408 train queries); times in seconds.
* ``Charades_v1_{test,train}.csv`` -- the video ``length`` in seconds. The AxIoU
  reference repository's ``axiou_processed_*.csv`` is the same join (checked equal in
  the tests). In 562 of 3720 test rows the annotated end lies after the video's
  length (by 0.01 to 1.5 s, median 0.9 s); the ground truth is kept as annotated, since that is
  what every published number was computed against.
* ``predictions/*.json`` -- derived from the reference repository's pickles, same
  entries and order: ``{system, entries: [{vid, query, moments: [[s, e, length], ...],
  ratings}]}``; ``predictions/original_pickles/*.pkl`` are the pickles themselves,
  read here only through :func:`fireeval.datasets.safe_pickle.safe_load`.
* ``human_reannotations/test_0{0,1,2}.csv`` -- 1000 test queries x 5 raters,
  ``HITId,video_id,description,start,end`` with start/end in percent of the video
  length and a ``.mp4`` suffix on the video id.

Conventions of :func:`load_predictions` (each differs from, or makes explicit, the
reference code riktor/vmr-axiou ``src/toolbox/eval.py``):

* Rank order is ``ratings`` descending, ties kept in list order (stable sort). The
  reference code uses ``argsort(rating)[::-1]``, which puts tied moments in reverse
  list order; no list in this data has tied ratings, so the two agree here.
* A query with no entry (SCDM and SCDM_randomized leave out 9 test queries) or whose
  entry has no moments gets an all-NaN row, which scores 0 on every measure -- as in
  the reference code.
* SCDM and SCDM_randomized hold 10 entries for (MA6GY, "person opening a box."): one
  with moments and 9 with ``moments = None``. The entry with moments is used. (The
  reference code's ``recall`` also uses it -- it skips ``None`` lists -- but its
  ``axiou`` keys entries by query, so the last, empty entry wins and AxIoU scores this
  query 0: a 1/3720 difference for these two systems.)
* SCDM returns 9 moments per query (SCDM_randomized 4, the blind baseline 5 to 10);
  the missing ranks are NaN and AxIoU@10 still divides by 10.

>>> gt = load_ground_truth()                                  # doctest: +SKIP
>>> load_predictions("2DTAN").shape                           # doctest: +SKIP
(3720, 10, 2)
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from fireeval.datasets import data_path, reannotations
from fireeval.datasets.reannotations import bounds as reannotation_bounds

__all__ = ["SYSTEMS", "ALL_SYSTEMS", "PICKLES", "GROUND_TRUTH_FILES", "load_ground_truth", "load_predictions",
           "load_all_predictions", "prediction_entries", "prediction_quirks", "load_reannotations",
           "reannotation_bounds", "REANNOTATION_FILES", "DUPLICATED_QUERY", "read_sta", "read_predictions_file"]

FOLDER = "charades_sta"
#: The paper's six systems, in the order of its Fig. 5.
SYSTEMS = ("2DTAN", "SCDM", "2DTAN_noNMS", "2DTAN_randomized", "2DTAN_randomized_noNMS", "ActionAwareBlind")
#: The six plus SCDM on shuffled frames, which the reference repository also ships.
ALL_SYSTEMS = SYSTEMS + ("SCDM_randomized",)
#: System name -> original pickle in the reference repository.
PICKLES = {
    "2DTAN": "2DTAN_results_charadeSTA.pkl",
    "SCDM": "SCDM_results_charadeSTA.pkl",
    "2DTAN_noNMS": "2DTAN_results_charadeSTA_nonms.pkl",
    "2DTAN_randomized": "2DTAN_randomized_results_charadeSTA.pkl",
    "2DTAN_randomized_noNMS": "2DTAN_randomized_results_charadeSTA_nonms.pkl",
    "ActionAwareBlind": "predictions_045.pkl",
    "SCDM_randomized": "SCDM_randomized_results_charadeSTA.pkl",
}
GROUND_TRUTH_FILES = ("charades_sta/charades_sta_test.txt", "charades_sta/Charades_v1_test.csv")
REANNOTATION_FILES = tuple(f"{FOLDER}/human_reannotations/test_0{i}.csv" for i in range(3))
#: The query that SCDM's files list 10 times (once with moments).
DUPLICATED_QUERY = ("MA6GY", "person opening a box.")


def read_sta(path) -> pd.DataFrame:
    """A Charades-STA style file ``VIDEO START END##DESCRIPTION`` -> video, description, start, end."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            head, sep, desc = line.partition("##")
            parts = head.split()
            if not sep or len(parts) != 3:
                raise ValueError(f"{path}:{lineno}: expected 'VIDEO START END##DESCRIPTION', got {line[:80]!r}. "
                                 "Fix: use the official charades_sta_{split}.txt file.")
            try:
                rows.append((parts[0], desc, float(parts[1]), float(parts[2])))
            except ValueError:
                raise ValueError(f"{path}:{lineno}: start/end are not numbers: {head!r}") from None
    return pd.DataFrame(rows, columns=["video", "description", "start", "end"])


def load_ground_truth(split: str = "test", root=None) -> pd.DataFrame:
    """Charades-STA queries in the official file order, with the video length.

    Columns: ``video``, ``description``, ``start``, ``end``, ``length`` (seconds).
    ``end > length`` in 562 test rows; kept as annotated (see module docstring).
    """
    if split not in ("test", "train"):
        raise ValueError(f"split must be 'test' or 'train', got {split!r}")
    gt = read_sta(data_path(f"{FOLDER}/charades_sta_{split}.txt", root))
    lengths = pd.read_csv(data_path(f"{FOLDER}/Charades_v1_{split}.csv", root), usecols=["id", "length"])
    gt = gt.merge(lengths.rename(columns={"id": "video"}), on="video", how="left", validate="many_to_one")
    if gt["length"].isna().any():
        missing = gt.loc[gt["length"].isna(), "video"].unique()[:5]
        raise ValueError(f"Charades_v1_{split}.csv has no length for videos {list(missing)}")
    return gt


def _entries_from_json(system, root):
    with open(data_path(f"{FOLDER}/predictions/{system}.json", root), encoding="utf-8") as fh:
        doc = json.load(fh)
    return [(e["vid"], e["query"], e["moments"], e["ratings"]) for e in doc["entries"]]


def _entries_from_pickle(system, root):
    from fireeval.datasets.safe_pickle import safe_load

    raw = safe_load(data_path(f"{FOLDER}/predictions/original_pickles/{PICKLES[system]}", root))
    # Entries are ((vid, query), moments, ratings[, metrics dict]).
    return [(e[0][0], e[0][1], e[1], e[2]) for e in raw]


def prediction_entries(system: str, root=None, source: str = "json") -> list:
    """Raw entries ``(video, description, moments or None, ratings or None)`` in file order.

    ``source="json"`` reads the derived ``predictions/{system}.json``; ``"pickle"`` the
    original pickle through the restricted unpickler. Both give the same entries.
    """
    if system not in PICKLES:
        raise KeyError(f"unknown Charades-STA system {system!r}; known: {list(PICKLES)}")
    if source == "json":
        return _entries_from_json(system, root)
    if source == "pickle":
        return _entries_from_pickle(system, root)
    raise ValueError(f"source must be 'json' or 'pickle', got {source!r}")


def _align(entries, gt, k, name="predictions"):
    """Entries -> (n_queries, k, 2) array in ground-truth row order, plus a quirk count."""
    index = {key: i for i, key in enumerate(zip(gt["video"], gt["description"]))}
    out = np.full((len(gt), k, 2), np.nan)
    filled = np.zeros(len(gt), bool)
    info = {"entries": len(entries), "unknown": 0, "duplicate_entries": 0, "empty_entries": 0,
            "length_mismatch": 0}
    lengths = gt["length"].to_numpy()
    for vid, query, moments, ratings in entries:
        i = index.get((vid, query))
        if i is None:
            info["unknown"] += 1
            continue
        if not moments:
            info["empty_entries"] += 1
            continue
        if filled[i]:
            # A second non-empty list for the same query: keep the first (does not occur here).
            info["duplicate_entries"] += 1
            continue
        arr = np.asarray(moments, dtype=float)
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise ValueError(f"{name}: moments of ({vid}, {query!r}) are not [[start, end, ...], ...]")
        if arr.shape[1] >= 3 and np.isfinite(lengths[i]) and np.any(np.abs(arr[:, 2] - lengths[i]) > 1e-6):
            info["length_mismatch"] += 1
        order = np.argsort(-np.asarray(ratings, dtype=float), kind="stable") if ratings is not None else slice(None)
        ranked = arr[order, :2][:k]
        out[i, : len(ranked)] = ranked
        filled[i] = True
    info["missing_queries"] = int((~filled).sum())
    return out, info


def load_predictions(system: str, root=None, k: int = 10, source: str = "json") -> np.ndarray:
    """Top-``k`` moments of ``system`` for every test query: ``(3720, k, 2)`` [start, end] seconds.

    Rows follow :func:`load_ground_truth` ("test"); ranks follow ``ratings``
    descending. Missing queries, empty lists and ranks beyond a list's length are NaN
    (they score 0). See the module docstring for the duplicated SCDM query.
    """
    gt = load_ground_truth("test", root)
    return _align(prediction_entries(system, root, source), gt, k, name=system)[0]


def load_all_predictions(systems=SYSTEMS, root=None, k: int = 10, source: str = "json") -> dict:
    """``{system: (3720, k, 2) array}`` for several systems (ground truth read once)."""
    gt = load_ground_truth("test", root)
    return {s: _align(prediction_entries(s, root, source), gt, k, name=s)[0] for s in systems}


def read_predictions_file(path, gt: pd.DataFrame, k: int = 10):
    """Predictions from a file, aligned to ``gt`` rows (columns video, description[, length]).

    ``.json``: ``{"entries": [{"vid", "query", "moments": [[s, e, ...], ...], "ratings"}]}``
    (the derived format here; ``ratings`` optional, list order otherwise); a bare list
    of such entries also works. ``.pkl``: the reference repository's pickles, through
    the restricted unpickler. Returns ``(array (n, k, 2), quirks dict)``.
    """
    from pathlib import Path

    path = Path(path)
    if path.suffix == ".pkl":
        from fireeval.datasets.safe_pickle import safe_load

        entries = [(e[0][0], e[0][1], e[1], e[2]) for e in safe_load(path)]
    else:
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{err.lineno}: not JSON ({err.msg}). Fix: give predictions as "
                             '{"entries": [{"vid", "query", "moments", "ratings"}]}') from None
        items = doc["entries"] if isinstance(doc, dict) else doc
        try:
            entries = [(e["vid"], e["query"], e["moments"], e.get("ratings")) for e in items]
        except (KeyError, TypeError):
            raise ValueError(f"{path}: each entry needs 'vid', 'query' and 'moments' ([[start, end], ...])") from None
    if "length" not in gt:
        gt = gt.assign(length=np.nan)
    return _align(entries, gt, k, name=str(path))


def prediction_quirks(system: str, root=None, source: str = "json") -> dict:
    """Counts of what :func:`load_predictions` had to handle for ``system``.

    ``entries`` in the file, ``empty_entries`` (moments None or []),
    ``duplicate_entries`` (a second non-empty list for a query), ``unknown`` (not a
    test query), ``missing_queries`` (test queries left without moments),
    ``length_mismatch`` (entries whose video length differs from Charades_v1).
    """
    gt = load_ground_truth("test", root)
    return _align(prediction_entries(system, root, source), gt, 10, name=system)[1]


def load_reannotations(root=None) -> pd.DataFrame:
    """The five-rater re-annotations of 1000 test queries, in seconds, one row per rating.

    Columns (see :func:`fireeval.datasets.reannotations.align`): ``query`` (row of
    :func:`load_ground_truth` ("test")), ``rater`` (0-4, file order within the HIT),
    ``video``, ``description``, ``start``, ``end`` (seconds = percent / 100 x video
    length), ``start_pct``, ``end_pct``, ``length``, ``hit_id``, ``file``. Sorted by
    query then rater. Video ids lose their ``.mp4`` suffix.
    """
    gt = load_ground_truth("test", root)
    frames = []
    for name in REANNOTATION_FILES:
        df = pd.read_csv(data_path(name, root), dtype={"HITId": str, "video_id": str, "description": str})
        expected = {"HITId", "video_id", "description", "start", "end"}
        if not expected <= set(df.columns):
            raise ValueError(f"{name}: columns {list(df.columns)}, expected {sorted(expected)}")
        frames.append(df.assign(file=name.rsplit("/", 1)[-1]))
    r = pd.concat(frames, ignore_index=True)
    r["video"] = r["video_id"].str.replace(r"\.mp4$", "", regex=True)
    return reannotations.align(r, gt, f"{FOLDER}/human_reannotations")
