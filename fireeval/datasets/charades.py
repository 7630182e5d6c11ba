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

import math
import operator

import numpy as np

from fireeval.core.validation import ANY, BOOL, STR, Instance, Int, Options, validate_params
from fireeval.datasets import (
    DECIMAL, FILE, MAX_LINE_CHARS, ROOT, check_readable, data_folders, data_path, decimal_number, read_json,
    text_lines)

# pandas and the re-annotation helpers are imported inside the functions that need them,
# so that `fireeval evaluate-moments` (read_sta_rows, read_predictions_file) starts without pandas.

__all__ = ["SYSTEMS", "ALL_SYSTEMS", "PICKLES", "GROUND_TRUTH_FILES", "load_ground_truth", "load_predictions",
           "load_all_predictions", "prediction_entries", "prediction_quirks", "load_reannotations",
           "reannotation_bounds", "REANNOTATION_FILES", "DUPLICATED_QUERY", "read_sta", "read_sta_rows", "read_predictions_file",
           "align_predictions"]

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
_SOURCE = Options("json", "pickle")  # the AxIoU repository's JSON export, or its pickles


def __getattr__(name):
    # ``reannotation_bounds`` is fireeval.datasets.reannotations.bounds, imported on first use
    # (that module needs pandas, which evaluate-moments does not load).
    if name == "reannotation_bounds":
        from fireeval.datasets.reannotations import bounds

        return bounds
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@validate_params(path=FILE, allow_reversed=BOOL, data_dir=ROOT)
def read_sta_rows(path, allow_reversed: bool = False, *, data_dir=None) -> list:
    """Rows ``(video, description, start, end)`` of a Charades-STA style file ``VIDEO START END##DESCRIPTION``.

    A byte-order mark and blank lines are accepted. Refused, naming file and line: a
    line of another shape, start/end that are not finite numbers, start > end (unless
    ``allow_reversed``: the official train file has such rows, kept as annotated by
    :func:`load_ground_truth`), and a (video, description) pair listed twice
    (predictions are matched on that pair).

    A valid file is read in one pass of list operations; anything unusual is read
    again line by line by :func:`_read_sta_rows_checked`, which names the first problem.
    The rows are kept in the user's cache (:func:`fireeval.core.parsed_cache.kept`, one JSON
    text: every value comes back equal) until the file changes; ``data_dir``, the data folder
    the file is from, never holds the cache.
    """
    import sys

    from fireeval.core import moments
    from fireeval.core.parsed_cache import from_json_array, json_array, kept

    path = check_readable(path, "Charades-STA ground-truth file")
    return kept("charades_sta", [path], lambda: _read_sta_rows(path, allow_reversed),
                lambda rows: {"rows": json_array(rows)},
                lambda arrays: [tuple(row) for row in from_json_array(arrays["rows"])],
                key=["ground truth", allow_reversed],
                readers=(sys.modules[__name__], sys.modules["fireeval.datasets"], moments),
                roots=data_folders(data_dir))


def _read_sta_rows(path, allow_reversed: bool) -> list:
    """:func:`read_sta_rows` without the cache."""
    rows = _read_sta_rows_fast(path, allow_reversed)
    return rows if rows is not None else _read_sta_rows_checked(path, allow_reversed)


#: Files larger than this are streamed line by line instead of read whole.
_WHOLE_READ_BYTES = 64 << 20


def _read_sta_rows_fast(path, allow_reversed):
    """:func:`read_sta_rows` of a valid file, or None when the file needs the line-by-line reader."""
    lines = _sta_lines_whole(path)
    if lines is None:
        return None
    parts = [line.partition("##") for line in lines]
    heads = [head.split() for head, _, _ in parts]
    if not _sta_heads_ok(parts, heads):
        return None
    starts = [float(h[1]) for h in heads]
    ends = [float(h[2]) for h in heads]
    if not _sta_times_ok(starts, ends, allow_reversed):
        return None
    videos = [h[0] for h in heads]
    descriptions = [desc for _, _, desc in parts]
    if len(set(zip(videos, descriptions))) != len(lines):
        return None
    return list(zip(videos, descriptions, starts, ends))


def _sta_lines_whole(path):
    """The non-blank lines of a small UTF-8 file read at once (as ``text_lines`` reads them: ``\\r\\n`` and
    ``\\r`` end lines); None when it is too big, not UTF-8, empty or has a line too long."""
    if path.stat().st_size > _WHOLE_READ_BYTES:
        return None
    try:
        with open(path, encoding="utf-8-sig", newline=None) as fh:  # as text_lines reads: \r\n, \r -> \n
            lines = [line for line in fh.read().split("\n") if line.strip()]
    except UnicodeDecodeError:
        return None
    if not lines or max(map(len, lines)) > MAX_LINE_CHARS:
        return None
    return lines


def _sta_heads_ok(parts, heads) -> bool:
    """Every line has ``##`` and, before it, three fields whose second and third are plain decimals."""
    if not all(sep for _, sep, _ in parts) or any(len(h) != 3 for h in heads):
        return False
    return all(DECIMAL.fullmatch(h[1]) and DECIMAL.fullmatch(h[2]) for h in heads)  # float() reads 1_0 as 10


def _sta_times_ok(starts, ends, allow_reversed) -> bool:
    """No negative start, every time finite, and (unless ``allow_reversed``) no start after its end."""
    if min(starts) < 0:
        return False
    # A NaN or infinity makes the sum NaN or infinite (so does an overflow: the checked reader then decides).
    return math.isfinite(sum(starts) + sum(ends)) and (allow_reversed or not any(map(operator.gt, starts, ends)))


def _read_sta_rows_checked(path, allow_reversed: bool = False) -> list:
    """:func:`read_sta_rows` one line at a time, raising a ValueError that names the first bad line."""
    from fireeval.core.moments import check_moments

    rows, seen = [], {}
    for lineno, line in text_lines(path, "Charades-STA ground-truth file"):
        head, sep, desc = line.partition("##")
        parts = head.split()
        if not sep or len(parts) != 3:
            raise ValueError(f"{path}:{lineno}: expected 'VIDEO START END##DESCRIPTION', got {line[:80]!r}. "
                             "Fix: use the official charades_sta_{split}.txt file.")
        start = decimal_number.__wrapped__(parts[1], f"{path}:{lineno}", "start")  # (unchecked: called per line)
        end = decimal_number.__wrapped__(parts[2], f"{path}:{lineno}", "end")
        if start < 0 or (start > end and not allow_reversed):
            check_moments([start, end], f"{path}:{lineno}")  # raises, naming the problem
        key = (parts[0], desc)
        if key in seen:
            raise ValueError(f"{path}:{lineno}: video {parts[0]} with description {desc[:60]!r} is already on line "
                             f"{seen[key]}; predictions are matched on (video, description), so each pair must "
                             "be listed once. Fix: remove the duplicate line.")
        seen[key] = lineno
        rows.append((parts[0], desc, start, end))
    if not rows:
        raise ValueError(f"{path}: no ground-truth lines. Fix: give a file of 'VIDEO START END##DESCRIPTION' lines.")
    return rows


@validate_params(path=FILE, allow_reversed=BOOL, data_dir=ROOT)
def read_sta(path, allow_reversed: bool = False, *, data_dir=None):
    """A Charades-STA style file -> DataFrame video, description, start, end (see :func:`read_sta_rows`)."""
    import pandas as pd

    return pd.DataFrame(read_sta_rows(path, allow_reversed, data_dir=data_dir),
                        columns=["video", "description", "start", "end"])


@validate_params(split=Options("test", "train"), root=ROOT)
def load_ground_truth(split: str = "test", root=None):
    """Charades-STA queries in the official file order, with the video length.

    Columns: ``video``, ``description``, ``start``, ``end``, ``length`` (seconds).
    ``end > length`` in 562 test rows; kept as annotated (see module docstring).
    """
    import pandas as pd

    gt = read_sta(data_path(f"{FOLDER}/charades_sta_{split}.txt", root), allow_reversed=True, data_dir=root)
    lengths = pd.read_csv(data_path(f"{FOLDER}/Charades_v1_{split}.csv", root), usecols=["id", "length"])
    gt = gt.merge(lengths.rename(columns={"id": "video"}), on="video", how="left", validate="many_to_one")
    if gt["length"].isna().any():
        missing = gt.loc[gt["length"].isna(), "video"].unique()[:5]
        raise ValueError(f"Charades_v1_{split}.csv has no length for videos {list(missing)}")
    return gt


def _entries_from_json(system, root):
    doc = read_json(data_path(f"{FOLDER}/predictions/{system}.json", root), "predictions file")
    return [(e["vid"], e["query"], e["moments"], e["ratings"]) for e in doc["entries"]]


def _entries_from_pickle(system, root):
    from fireeval.datasets.safe_pickle import safe_load

    raw = safe_load(data_path(f"{FOLDER}/predictions/original_pickles/{PICKLES[system]}", root))
    # Entries are ((vid, query), moments, ratings[, metrics dict]).
    return [(e[0][0], e[0][1], e[1], e[2]) for e in raw]


@validate_params(system=Options(*PICKLES), root=ROOT, source=_SOURCE)
def prediction_entries(system: str, root=None, source: str = "json") -> list:
    """Raw entries ``(video, description, moments or None, ratings or None)`` in file order.

    ``source="json"`` reads the derived ``predictions/{system}.json``; ``"pickle"`` the
    original pickle through the restricted unpickler. Both give the same entries.
    """
    return (_entries_from_json if source == "json" else _entries_from_pickle)(system, root)


def _gt_keys(gt):
    if hasattr(gt, "columns"):
        keys = list(zip(gt["video"].tolist(), gt["description"].tolist()))  # (tolist: not iterating Arrow strings)
        lengths = gt["length"].to_numpy(float) if "length" in gt else np.full(len(keys), np.nan)
    else:
        keys = [(r[0], r[1]) for r in gt]
        lengths = np.full(len(keys), np.nan)
    return keys, lengths


@validate_params(entries=Instance(list, tuple, fix="pass a list of entries (video, description, moments, ratings)"),
                 gt=ANY, k=[Int(1), None], name=STR)
def align_predictions(entries, gt, k=None, name="predictions"):
    """Entries -> (n_queries, k, 2) array in ground-truth row order, plus a quirk count.

    ``gt``: a DataFrame (video, description[, length]) or a list of (video,
    description[, ...]) rows. ``k=None`` keeps every moment (width = the longest
    list). Rules: an entry whose moments are None or [] never counts; two entries
    with moments for the same query are an error; ``ratings`` must be as long as
    ``moments``; moments must be finite with start <= end.

    All entries are checked and ranked at once (one array of every moment); when
    anything is wrong, :func:`_align_checked` walks the entries one by one to name
    the first bad one.
    """
    keys, lengths = _gt_keys(gt)
    index = {key: i for i, key in enumerate(keys)}
    kept, rows, unknown, empty = [], [], 0, 0
    seen = set()
    for vid, query, moments, ratings in entries:
        i = index.get((vid, query))
        if i is None:
            unknown += 1
        elif moments is None or (hasattr(moments, "__len__") and len(moments) == 0):
            empty += 1
        elif i in seen:
            return _align_checked(entries, gt, k, name)  # duplicate: the checked path names both entries
        else:
            seen.add(i)
            kept.append((moments, ratings))
            rows.append(i)
    try:
        arr, third, counts, score = _moment_arrays(kept)
    except (TypeError, IndexError, ValueError, KeyError):
        return _align_checked(entries, gt, k, name)
    if not np.isfinite(arr).all() or (arr[:, 0] > arr[:, 1]).any() or (arr[:, 0] < 0).any() \
            or np.isnan(score).any():
        return _align_checked(entries, gt, k, name)
    n, width = len(kept), k if k is not None else int(counts.max(initial=1))
    out = np.full((len(keys), width, 2), np.nan)
    rows = np.asarray(rows, dtype=int)
    entry = np.repeat(np.arange(n), counts)
    if n and (counts == counts[0]).all():  # the usual case, lists of one length: rank within an (n, L) table
        order = np.argsort(-score.reshape(n, -1), axis=1, kind="stable")[:, :width]  # ties keep list order
        out[rows, :order.shape[1]] = arr.reshape(n, -1, 2)[np.arange(n)[:, None], order]
    else:
        position = np.arange(len(arr))
        order = np.lexsort((position, -score, entry))  # by entry, rating descending, then list order
        rank = position - np.repeat(np.cumsum(counts) - counts, counts)
        keep = rank < width
        out[rows[entry][keep], rank[keep]] = arr[order][keep]
    info = {"entries": len(entries), "unknown": unknown, "duplicate_entries": 0, "empty_entries": empty,
            "length_mismatch": 0, "missing_queries": len(keys) - n}
    if np.isfinite(lengths).any():
        expected = lengths[rows[entry]]
        off = np.isfinite(third) & np.isfinite(expected) & (np.abs(third - expected) > 1e-6)
        info["length_mismatch"] = int(np.unique(entry[off]).size)
    return out, info


#: The types a time or rating may have in a predictions file (JSON numbers, a pickle's numpy scalars).
_REAL_TYPES = {int, float, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint64,
               np.uint32, np.uint16, np.uint8}


def _one_length_per_entry(third, counts) -> bool:
    """Whether the third numbers of each entry's moments (NaN: none given) are one value, the video's length.

    A third number that varies within an entry is something else (a score, say), which
    would be silently ignored: the readers refuse it.
    """
    if not len(third):
        return True
    starts = np.cumsum(counts) - counts
    with np.errstate(invalid="ignore"):
        return np.array_equal(np.fmax.reduceat(third, starts), np.fmin.reduceat(third, starts), equal_nan=True)


def _moment_arrays(kept):
    """``[(moments, ratings or None), ...]`` -> every moment's [start, end] ``(m, 2)``, its third value
    (the video length; NaN when absent) ``(m,)``, moments per entry ``(n,)`` and ratings ``(m,)``
    (0 when an entry has none, so list order stays).

    Raises TypeError/ValueError/IndexError on anything but sequences of moments that
    are lists, tuples or 1-d arrays of at least two numbers, with ratings of the same
    length: the caller then walks the entries with :func:`_align_checked` (which
    decides, and names the problem).
    Each array is built in one pass of ``np.fromiter`` over the flattened lists.
    """
    from itertools import chain

    lists = [m for m, _ in kept]
    counts = np.fromiter(map(len, lists), dtype=int, count=len(lists))
    flat = list(chain.from_iterable(lists))  # every moment, entry after entry
    if not set(map(type, flat)) <= {list, tuple, np.ndarray}:  # a string would pass as a sequence of digits
        raise TypeError("moments are not lists")
    widths = np.fromiter(map(len, flat), dtype=int, count=len(flat))
    if widths.min(initial=2) < 2 or widths.max(initial=2) > 3:  # [start, end] or [start, end, video length]
        raise IndexError("moments of another width")
    values = list(chain.from_iterable(flat))
    if not set(map(type, values)) <= _REAL_TYPES:  # True or "4" would pass np.fromiter as numbers
        raise TypeError("a time is not a number")
    values = np.fromiter(values, dtype=float, count=len(values))
    first = widths[0] if len(widths) else 2
    if (widths == first).all():  # the usual case: every moment [start, end] or [start, end, length]
        table = values.reshape(-1, first)
        arr = table[:, :2]
        third = table[:, 2] if first == 3 else np.full(len(table), np.nan)
    else:
        at = np.cumsum(widths) - widths
        arr = np.stack([values[at], values[at + 1]], axis=1)
        third = np.where(widths == 3, values[np.minimum(at + 2, len(values) - 1)], np.nan)
    if not _one_length_per_entry(third, counts):
        raise ValueError("a third number that varies within an entry")
    ratings = [r for _, r in kept]
    if any(r is None for r in ratings):  # no ratings: list order, as rating 0 for all
        ratings = [r if r is not None else [0.0] * c for r, c in zip(ratings, counts.tolist())]
    rated = np.fromiter(map(len, ratings), dtype=int, count=len(ratings))
    if not np.array_equal(rated, counts):
        raise ValueError("ratings")
    scores = list(chain.from_iterable(ratings))
    if not set(map(type, scores)) <= _REAL_TYPES:
        raise TypeError("a rating is not a number")
    score = np.fromiter(scores, dtype=float, count=len(flat))
    return arr, third, counts, score


def _entry_moments(moments, where: str):
    """One entry's moments as ``([start, end] array (n, 2), third numbers (n,), NaN where absent)``, or a one-line
    ValueError naming the entry: a moment that is not 2 or 3 real numbers (booleans and text such as ``"4"``
    refused), a third number that varies within the entry, and what :func:`check_moments` refuses."""
    from fireeval.core.moments import check_moments
    from fireeval.core.ranking import real_numbers

    layout = "[start, end] or [start, end, video length]"
    fix = "Fix: give each moment as [start, end] seconds, and the scores in 'ratings'"
    if isinstance(moments, (str, bytes, dict)) or not hasattr(moments, "__len__"):
        raise ValueError(f"{where}: moments are {type(moments).__name__}, not a list of {layout}. {fix}")
    pairs, third, length = [], [], None
    for m, moment in enumerate(moments, 1):
        if isinstance(moment, (str, bytes, dict)) or not hasattr(moment, "__len__"):
            raise ValueError(f"{where}: moment {m} is {str(moment)[:40]!r}, not a list {layout}. {fix}")
        values = real_numbers(moment, f"{where}: moment {m}: a time")
        if values.ndim != 1 or len(values) not in (2, 3):
            raise ValueError(f"{where}: moment {m} has {values.size} numbers; a moment is {layout}. {fix}")
        pairs.append(values[:2])
        third.append(values[2] if len(values) == 3 else np.nan)
        if third[-1] == third[-1]:  # a third number given: the first one is the video's length
            length = third[-1] if length is None else length
            if third[-1] != length:
                raise ValueError(f"{where}: moment {m} has the third number {third[-1]:g} where an earlier moment "
                                 f"has {length:g}; a third number is the video's length, the same for every "
                                 f"moment. {fix}")
    arr = np.asarray(pairs, dtype=float).reshape(-1, 2)
    check_moments(arr, where)
    return arr, np.asarray(third, dtype=float)


def _align_checked(entries, gt, k=None, name="predictions"):
    """:func:`align_predictions` one entry at a time (same arguments and rules), raising a ValueError that names the first bad entry."""
    from fireeval.core.ranking import real_numbers

    keys, lengths = _gt_keys(gt)
    index = {key: i for i, key in enumerate(keys)}
    info = {"entries": len(entries), "unknown": 0, "duplicate_entries": 0, "empty_entries": 0,
            "length_mismatch": 0}
    ranked_lists, first_entry = {}, {}
    for n, (vid, query, moments, ratings) in enumerate(entries, 1):
        i = index.get((vid, query))
        if i is None:
            info["unknown"] += 1
            continue
        if moments is None or (hasattr(moments, "__len__") and len(moments) == 0):
            info["empty_entries"] += 1
            continue
        where = f"{name}: entry {n} ({vid}, {str(query)[:60]!r})"
        if i in ranked_lists:
            raise ValueError(f"{where} repeats the query of entry {first_entry[i]}, both with moments. "
                             "Fix: give one list of moments per query (entries without moments are ignored).")
        arr, third = _entry_moments(moments, where)
        if np.isfinite(lengths[i]) and np.any(np.abs(third[np.isfinite(third)] - lengths[i]) > 1e-6):
            info["length_mismatch"] += 1
        if ratings is not None:
            r = real_numbers(ratings, f"{where}: a rating",
                             ragged=f"{where}: ratings are nested lists, not one number per moment. "
                                    "Fix: give ratings as a flat list, e.g. [0.9, 0.5]")
            if r.ndim != 1:  # [[1], [2]] has as many numbers as moments, but is not a list of them
                raise ValueError(f"{where}: ratings are nested lists (shape {r.shape}), not one number per moment. "
                                 "Fix: give ratings as a flat list, e.g. [0.9, 0.5]")
            if r.shape != (len(arr),):
                raise ValueError(f"{where}: {np.size(r)} ratings for {len(arr)} moments. "
                                 "Fix: give one rating per moment (or leave 'ratings' out to keep list order).")
            if np.isnan(r).any():
                raise ValueError(f"{where}: a rating is NaN. Fix: give numeric ratings.")
            arr = arr[np.argsort(-r, kind="stable")]
        ranked_lists[i] = arr[:, :2] if k is None else arr[:k, :2]
        first_entry[i] = n
    width = k if k is not None else max((len(a) for a in ranked_lists.values()), default=1)
    out = np.full((len(keys), width, 2), np.nan)
    for i, arr in ranked_lists.items():
        out[i, : len(arr)] = arr
    info["missing_queries"] = len(keys) - len(ranked_lists)
    return out, info


def _gt_digest(gt) -> tuple:
    """``(number of queries, digest of their (video, description) keys and lengths)``: what an aligned entry
    depends on besides the file."""
    import hashlib
    import json

    keys, lengths = _gt_keys(gt)
    digest = hashlib.sha256(json.dumps(keys).encode())
    digest.update(np.ascontiguousarray(lengths, dtype=np.float64).tobytes())
    return len(keys), digest.hexdigest()


def _aligned(system, root, source, gt, k, gt_digest=None) -> tuple:
    """``align_predictions(prediction_entries(system, root, source), gt, k, name=system)``, kept in the user's
    cache (:func:`fireeval.core.parsed_cache.kept`) per file, ``k`` and the ground truth's queries and lengths
    (``gt_digest``: :func:`_gt_digest` of ``gt``, when already computed)."""
    import sys

    from fireeval.core import moments, ranking
    from fireeval.core.parsed_cache import kept
    from fireeval.datasets import safe_pickle

    n_queries, digest = gt_digest or _gt_digest(gt)
    path = data_path(f"{FOLDER}/predictions/{system}.json" if source == "json"
                     else f"{FOLDER}/predictions/original_pickles/{PICKLES[system]}", root)
    fields = ("entries", "unknown", "duplicate_entries", "empty_entries", "length_mismatch", "missing_queries")

    def decode(arrays):
        out, counts = arrays["windows"], arrays["counts"]
        if out.dtype != np.float64 or out.shape[0] != n_queries or out.shape[2:] != (2,) or out.shape[1] != k \
                or counts.shape != (len(fields),):
            raise ValueError("an inconsistent entry")
        return out, dict(zip(fields, counts.tolist()))

    return kept("charades_sta", [path], lambda: align_predictions(prediction_entries(system, root, source), gt, k,
                                                                  name=system),
                lambda value: {"windows": value[0], "counts": np.array([value[1][f] for f in fields], dtype=np.int64)},
                decode, key=[system, source, k, digest],
                readers=(sys.modules[__name__], sys.modules["fireeval.datasets"], safe_pickle, moments, ranking),
                roots=data_folders(root))


@validate_params(system=Options(*PICKLES), root=ROOT, k=Int(1), source=_SOURCE)
def load_predictions(system: str, root=None, k: int = 10, source: str = "json") -> np.ndarray:
    """Top-``k`` moments of ``system`` for every test query: ``(3720, k, 2)`` [start, end] seconds.

    Rows follow :func:`load_ground_truth` ("test"); ranks follow ``ratings``
    descending. Missing queries, empty lists and ranks beyond a list's length are NaN
    (they score 0). See the module docstring for the duplicated SCDM query.
    """
    return _aligned(system, root, source, load_ground_truth("test", root), k)[0]


@validate_params(systems=Instance(list, tuple, fix="pass a list of system names"), root=ROOT, k=Int(1), source=_SOURCE)
def load_all_predictions(systems=SYSTEMS, root=None, k: int = 10, source: str = "json") -> dict:
    """``{system: (3720, k, 2) array}`` for several systems (ground truth read once)."""
    gt = load_ground_truth("test", root)
    digest = _gt_digest(gt)
    return {s: _aligned(s, root, source, gt, k, digest)[0] for s in systems}


@validate_params(path=FILE, gt=ANY, k=[Int(1), None])
def read_predictions_file(path, gt, k: int | None = None):
    """Predictions from a file, aligned to ``gt`` rows (a DataFrame with video, description[, length],
    or the rows of :func:`read_sta_rows`).

    ``.json``: ``{"entries": [{"vid", "query", "moments": [[s, e, ...], ...], "ratings"}]}``
    (the derived format here; ``ratings`` optional, list order otherwise); a bare list
    of such entries also works. ``.pkl``: the reference repository's pickles, through
    the restricted unpickler. ``k=None`` keeps every moment. Returns
    ``(array (n, width, 2), quirks dict)``; see :func:`align_predictions` for the rules.
    """
    from pathlib import Path

    from pathlib import Path as _Path

    path = check_readable(path, "predictions file", text=_Path(path).suffix != ".pkl")
    fix = 'Fix: give predictions as {"entries": [{"vid", "query", "moments", "ratings"}]}'
    if path.suffix == ".pkl":
        from fireeval.datasets.safe_pickle import safe_load

        raw = safe_load(path)
        try:
            entries = [(e[0][0], e[0][1], e[1], e[2]) for e in raw]
        except (TypeError, IndexError, KeyError):
            raise ValueError(f"{path}: not the AxIoU repository's pickle layout [((vid, query), moments, "
                             "ratings, ...), ...]. Fix: give that pickle or a .json predictions file.") from None
    else:
        doc = read_json(path, "predictions file")
        items = doc.get("entries") if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise ValueError(f"{path}: no 'entries' list. {fix}")
        try:
            entries = [(e["vid"], e["query"], e["moments"], e.get("ratings")) for e in items]
        except (KeyError, TypeError, AttributeError):
            for n, e in enumerate(items, 1):  # name the first bad entry
                if not isinstance(e, dict) or not {"vid", "query", "moments"} <= set(e):
                    missing = sorted({"vid", "query", "moments"} - set(e)) if isinstance(e, dict) else "an object"
                    raise ValueError(f"{path}: entry {n} lacks {missing}. {fix}") from None
            raise
    return align_predictions(entries, gt, k, name=str(Path(path)))


@validate_params(system=Options(*PICKLES), root=ROOT, source=_SOURCE)
def prediction_quirks(system: str, root=None, source: str = "json") -> dict:
    """Counts of what :func:`load_predictions` had to handle for ``system``.

    ``entries`` in the file, ``empty_entries`` (moments None or []),
    ``duplicate_entries`` (a second non-empty list for a query), ``unknown`` (not a
    test query), ``missing_queries`` (test queries left without moments),
    ``length_mismatch`` (entries whose video length differs from Charades_v1).
    """
    return _aligned(system, root, source, load_ground_truth("test", root), 10)[1]


@validate_params(root=ROOT)
def load_reannotations(root=None):
    """The five-rater re-annotations of 1000 test queries, in seconds, one row per rating.

    Columns (see :func:`fireeval.datasets.reannotations.align`): ``query`` (row of
    :func:`load_ground_truth` ("test")), ``rater`` (0-4, file order within the HIT),
    ``video``, ``description``, ``start``, ``end`` (seconds = percent / 100 x video
    length), ``start_pct``, ``end_pct``, ``length``, ``hit_id``, ``file``. Sorted by
    query then rater. Video ids lose their ``.mp4`` suffix.
    """
    import pandas as pd

    from fireeval.datasets import reannotations

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
