"""The reader's own text-to-video inputs: a similarity matrix and the id lists that give its order.

What a text-to-video model produces is a matrix of scores, one row per query (a
caption) and one column per video. To score it, fireeval needs to know which query
and which video each row and column is:

* the matrix: ``.npy`` (``numpy.save``; no pickles), 2-D, numbers, no NaN or infinity;
* ``--queries Q.txt``: one query per line, in row order: ``query_id`` or
  ``query_id<TAB>query text`` (the text is needed for the caption proxy only);
* ``--videos V.txt``: one video id per line, in column order;
* the ground truth (``--gt``): ``query_id<TAB>video_id`` lines, one per relevant video
  (several lines for one query are allowed). Without it, each query's positive is the
  video whose id equals the query id (MSR-VTT 1k-A's convention: one caption per video,
  named by the video).
* relevance labels (``--labels``): ``query_id<TAB>video_id<TAB>label`` with label 1/0
  (also relevant/not, true/false, yes/no), e.g. FIRE's human judgements re-keyed by id;
* video captions for the proxy (``--captions``): JSON ``{"video_id": ["caption", ...]}``, or
  ``{"video_id": {"sen_id": "caption", ...}}`` (MSR-VTT's metadata files).

Every reader refuses what it cannot read with a one-line error naming the file, the
line and the fix: a shape that does not match the id lists, duplicate ids, NaN or
infinite scores, ids in the ground truth or labels that are in neither list.

A matrix that reads well but is not a full ranking (a top-N cut with one fill value below,
:func:`fireeval.core.tied_scores.tied_fill`) is not refused: :func:`load_aligned` warns once
(:class:`~fireeval.core.tied_scores.TiedFillWarning`), and ``fireeval evaluate-similarity``
prints one warning line and its numbers as ranges over tie rules.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fireeval.core.validation import ARRAY, BOOL, STR, Instance, validate_params
from fireeval.datasets import FILE, check_readable, read_json, text_lines

__all__ = ["read_matrix", "read_ids", "read_pairs", "read_labels", "read_captions", "check_matrix",
           "positives_matrix", "load_aligned"]

_IDS = Instance(Sequence, np.ndarray, fix="pass the ids as a list")
_TRUE = {"1", "true", "yes", "relevant", "y", "t"}
_FALSE = {"0", "false", "no", "not", "irrelevant", "n", "f", "non-relevant", "nonrelevant"}


@validate_params(path=FILE)
def read_matrix(path) -> np.ndarray:
    """A ``.npy`` similarity matrix as a float array (queries x videos), refusing pickles, non-2-D and non-numbers.

    float32 and float64 are kept as saved (every comparison and rank is the same in either: float32 values are
    exact in float64), other numbers become float64; a float32 matrix so takes half the memory."""
    path = check_readable(path, "similarity matrix (.npy)", text=False)
    with open(path, "rb") as fh:
        magic = fh.read(6)
    if magic != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file (no NumPy header). Fix: save the matrix with "
                         "numpy.save(path, matrix) -- one row per query, one column per video.")
    try:
        arr = np.load(path, allow_pickle=False, mmap_mode="r")
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise ValueError(f"{path}: holds Python objects (a pickle), not numbers. Fix: save a numeric array "
                             "with numpy.save(path, matrix.astype('float32')).") from None
        raise ValueError(f"{path}: not a .npy array ({err}). Fix: save the matrix with numpy.save.") from None
    except (OSError, EOFError) as err:
        raise ValueError(f"{path}: not a readable .npy file ({type(err).__name__}: {err}). "
                         "Fix: save the matrix with numpy.save (a .npz or text file is not read here).") from None
    _check_npy_length(path, arr)
    if arr.ndim != 2:
        raise ValueError(f"{path}: a similarity matrix is 2-D (queries x videos); this array has shape {arr.shape}. "
                         "Fix: save one row per query, one column per video.")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"{path}: dtype {arr.dtype} is not real numbers. Fix: save a float array.")
    if arr.dtype in (np.float32, np.float64):  # read once more, into memory (no mapped copy beside it)
        del arr
        return np.load(path, allow_pickle=False)
    return _as_float(arr)


def _as_float(arr) -> np.ndarray:
    """``arr`` in memory as float32 or float64 (its own when it is one of them, else float64)."""
    return np.array(arr, dtype=arr.dtype if arr.dtype in (np.float32, np.float64) else np.float64)


def _check_npy_length(path, arr) -> None:
    """Refuse a .npy whose file holds more bytes than its header's array (data appended, or two arrays saved)."""
    import os

    expected = int(arr.offset) + int(arr.nbytes)  # arr is np.load's memory map: offset = the header's length
    size = os.path.getsize(path)
    if size != expected:
        raise ValueError(f"{path}: {size - expected} bytes after the array's data (its header says shape "
                         f"{arr.shape}, {arr.dtype}: {expected} bytes in all). Fix: save one array per file with "
                         "numpy.save(path, matrix).")


@validate_params(sim=ARRAY, query_ids=_IDS, video_ids=_IDS, where=STR)
def check_matrix(sim, query_ids, video_ids, where: str = "similarity matrix") -> np.ndarray:
    """``sim`` if its shape matches the id lists and every score is finite; else a one-line ValueError."""
    sim = np.asarray(sim)
    sim = sim if sim.dtype in (np.float32, np.float64) else _as_float(sim)
    if sim.ndim != 2:
        raise ValueError(f"{where}: shape {sim.shape} is not 2-D (queries x videos). Fix: give one row per query, "
                         "one column per video")
    expected = (len(query_ids), len(video_ids))
    if sim.shape != expected:
        hint = (" (it looks transposed: rows must be queries)" if sim.shape == expected[::-1] else "")
        raise ValueError(f"{where}: shape {sim.shape} does not match {expected[0]} queries x {expected[1]} videos "
                         f"in the id lists{hint}. Fix: give the id lists in the matrix's row and column order.")
    bad = ~np.isfinite(sim)
    if bad.any():
        q, v = np.argwhere(bad)[0]
        raise ValueError(f"{where}: {int(bad.sum())} scores are NaN or infinite, the first at row {q} "
                         f"(query {query_ids[q]!r}), column {v} (video {video_ids[v]!r}). "
                         "Fix: replace them (e.g. by a very low score for videos that must rank last).")
    return sim


@validate_params(path=FILE, what=STR)
def read_ids(path, what: str = "id list") -> tuple[list, list | None]:
    """``(ids, texts or None)`` from a file with one ``id`` or ``id<TAB>text`` per line; duplicates refused."""
    ids, texts, seen = [], [], {}
    for lineno, line in text_lines(path, what):
        ident, _, text = line.partition("\t")
        ident = ident.strip()
        if not ident:
            raise ValueError(f"{path}:{lineno}: empty id. Fix: one id (optionally TAB and the text) per line.")
        if ident in seen:
            raise ValueError(f"{path}:{lineno}: id {ident!r} is already on line {seen[ident]}. "
                             "Fix: give each row or column its own id.")
        seen[ident] = lineno
        ids.append(ident)
        texts.append(text.strip() if text.strip() else None)
    if not ids:
        raise ValueError(f"{path}: no ids. Fix: one id per line, in the matrix's order.")
    has_text = [t is not None for t in texts]
    if any(has_text) and not all(has_text):
        first = has_text.index(False)
        raise ValueError(f"{path}: line with id {ids[first]!r} has no text while others do. "
                         "Fix: give 'id<TAB>text' on every line, or ids only.")
    return ids, (texts if all(has_text) else None)


def _table(path, what, columns: int):
    """``(lineno, fields)`` of a tab-separated file (or whitespace-separated when there is no tab)."""
    for lineno, line in text_lines(path, what):
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) < columns:
            raise ValueError(f"{path}:{lineno}: expected {columns} columns, got {len(fields)}. "
                             f"Fix: give a {what} with {columns} tab-separated columns.")
        yield lineno, [f.strip() for f in fields[:columns]]


@validate_params(path=FILE, query_ids=_IDS, video_ids=_IDS)
def read_pairs(path, query_ids, video_ids) -> np.ndarray:
    """Ground truth ``query_id<TAB>video_id`` lines as a bool ``(queries, videos)`` matrix.

    An id in neither list is an error (naming file and line); a header line
    (``query``/``video``) is skipped; every query must end with a positive.
    """
    qpos = {q: i for i, q in enumerate(query_ids)}
    vpos = {v: j for j, v in enumerate(video_ids)}
    out = np.zeros((len(query_ids), len(video_ids)), dtype=bool)
    for lineno, (q, v) in _table(path, "ground-truth file (query_id, video_id)", 2):
        if lineno == 1 and q not in qpos and q.lower().startswith(("query", "qid", "caption")):
            continue
        if q not in qpos:
            raise ValueError(f"{path}:{lineno}: query {q!r} is not in the query list. Fix: use the ids of --queries.")
        if v not in vpos:
            raise ValueError(f"{path}:{lineno}: video {v!r} is not in the video list. Fix: use the ids of --videos.")
        out[qpos[q], vpos[v]] = True
    _require_positive(out, query_ids, f"{path}", "add a line 'query_id<TAB>video_id' for each")
    return out


@validate_params(query_ids=_IDS, video_ids=_IDS)
def positives_matrix(query_ids, video_ids) -> np.ndarray:
    """Each query's own video (same id), the default ground truth; refused when some query has none."""
    vpos = {v: j for j, v in enumerate(video_ids)}
    out = np.zeros((len(query_ids), len(video_ids)), dtype=bool)
    for i, q in enumerate(query_ids):
        j = vpos.get(q)
        if j is not None:
            out[i, j] = True
    _require_positive(out, query_ids, "query list", "give --gt query_id<TAB>video_id (query ids are not video ids)")
    return out


def _require_positive(out, query_ids, where, fix):
    missing = np.flatnonzero(~out.any(axis=1))
    if len(missing):
        names = ", ".join(repr(query_ids[i]) for i in missing[:3])
        raise ValueError(f"{where}: {len(missing)} of {len(query_ids)} queries have no relevant video "
                         f"(e.g. {names}). Fix: {fix}.")


@validate_params(path=FILE, query_ids=_IDS, video_ids=_IDS)
def read_labels(path, query_ids, video_ids) -> tuple[np.ndarray, np.ndarray, int]:
    """Relevance labels ``query_id<TAB>video_id<TAB>label`` as ``(judged, relevant, n_unknown)`` bool matrices.

    Pairs whose ids are in neither list are counted (``n_unknown``) and left out --
    labels often cover more queries than a test split; a pair labelled twice with
    different labels, and a label that is not 1/0 (relevant/not, yes/no, true/false),
    are errors.
    """
    qpos = {q: i for i, q in enumerate(query_ids)}
    vpos = {v: j for j, v in enumerate(video_ids)}
    judged = np.zeros((len(query_ids), len(video_ids)), dtype=bool)
    relevant = np.zeros_like(judged)
    unknown = 0
    for lineno, (q, v, label) in _table(path, "labels file (query_id, video_id, label)", 3):
        value = label.lower()
        if value not in _TRUE | _FALSE:
            if lineno == 1:
                continue  # a header
            raise ValueError(f"{path}:{lineno}: label {label!r} is not 1/0 (relevant/not). Fix: give 1 or 0.")
        i, j = qpos.get(q), vpos.get(v)
        if i is None or j is None:
            unknown += 1
            continue
        rel = value in _TRUE
        if judged[i, j] and relevant[i, j] != rel:
            raise ValueError(f"{path}:{lineno}: ({q}, {v}) is labelled both relevant and not. "
                             "Fix: give one label per pair.")
        judged[i, j], relevant[i, j] = True, rel
    if not judged.any():
        raise ValueError(f"{path}: no labelled pair has a query and a video of the id lists ({unknown} pairs do not). "
                         "Fix: key the labels by the ids of --queries and --videos.")
    return judged, relevant, unknown


@validate_params(path=FILE, video_ids=_IDS)
def read_captions(path, video_ids) -> list:
    """Video captions in video-list order; every video needs one.

    Two layouts: ``{"video_id": ["caption", ...]}`` (a single string is one caption) and
    the MSR-VTT metadata files' ``{"video_id": {"sen_id": "caption", ...}}`` (as
    ``sgn_msrvtt_official_test_captions.json``), whose captions are the values (the
    sentence ids are left out). Anything else for a video is refused, naming it.
    """
    layouts = '{"video_id": ["caption", ...]} or {"video_id": {"sen_id": "caption", ...}}'
    doc = read_json(path, f"captions file ({layouts})")
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected a JSON object {layouts}, got {type(doc).__name__}. "
                         "Fix: give the captions keyed by the ids of --videos.")
    out = []
    for v in video_ids:
        caps = doc.get(v)
        if isinstance(caps, str):
            caps = [caps]
        elif isinstance(caps, dict):  # {sen_id: caption}: the captions are the values
            caps = list(caps.values())
        if not isinstance(caps, list) or not caps or not all(isinstance(c, str) for c in caps) \
                or not any(c.strip() for c in caps):
            got = "missing" if v not in doc else f"{type(doc[v]).__name__} {str(doc[v])[:60]!r}"
            raise ValueError(f"{path}: video {v!r} has no list of caption strings ({got}). Fix: give every video "
                             f"of --videos at least one non-empty caption, as {layouts}.")
        out.append(list(caps))
    return out


@validate_params(path=FILE, queries=FILE, videos=FILE, query_ids=_IDS, video_ids=_IDS, name=[STR, None],
                 check_ties=BOOL)
def load_aligned(path, queries, videos, query_ids, video_ids, name: str | None = None,
                 check_ties: bool = True) -> np.ndarray:
    """The reader's matrix ``path`` (rows in the order of id file ``queries``, columns in that of ``videos``)
    reordered to a chapter's ``query_ids`` x ``video_ids`` -- what a chapter's ``similarity`` parameter needs.

    Every chapter id must be in the reader's lists (extra rows or columns are dropped); a
    missing one is an error naming it and the file. With ``check_ties``, the reordered
    matrix goes through :func:`fireeval.core.tied_scores.warn_if_tied` (the positives: a
    video whose id is the query's), which warns once, naming ``name`` (default: the file),
    when it is not a full ranking.
    """
    own_q, _ = read_ids(queries, "query list")
    own_v, _ = read_ids(videos, "video list")
    sim = check_matrix(read_matrix(path), own_q, own_v, str(path))
    qpos = {q: i for i, q in enumerate(own_q)}
    vpos = {v: j for j, v in enumerate(own_v)}
    for wanted, pos, where, what in ((query_ids, qpos, queries, "query"), (video_ids, vpos, videos, "video")):
        absent = [x for x in wanted if str(x) not in pos]
        if absent:
            raise ValueError(f"{where}: {len(absent)} of the {len(wanted)} {what} ids the chapter scores are not "
                             f"listed (e.g. {absent[0]!r}). Fix: give a matrix with a row/column for each.")
    rows = np.fromiter((qpos[str(q)] for q in query_ids), dtype=int, count=len(query_ids))
    cols = np.fromiter((vpos[str(v)] for v in video_ids), dtype=int, count=len(video_ids))
    aligned = sim[np.ix_(rows, cols)]
    if check_ties:
        from fireeval.core import tied_scores

        column = {str(v): j for j, v in enumerate(video_ids)}
        own = np.zeros(aligned.shape, dtype=bool)
        for i, q in enumerate(query_ids):
            if str(q) in column:
                own[i, column[str(q)]] = True
        tied_scores.warn_if_tied(aligned, name or str(path), own if own.any() else None, where=path)
    return aligned
