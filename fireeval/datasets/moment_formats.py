"""Moment predictions in the formats researchers have, matched against either ground truth.

Accepted formats (``fmt``; ``"auto"`` picks by extension, then by content):

* ``json`` -- this book's ``{"entries": [{"vid", "query", "moments": [[s, e, ...], ...],
  "ratings"}]}`` (or a bare list of entries; ``ratings`` optional, list order otherwise);
* ``pkl`` -- the AxIoU repository's pickles (restricted unpickler), as before;
* ``csv`` / ``tsv`` -- one predicted moment per row, columns ``vid, query, start, end,
  score`` (a header naming them, in any order; without a header, that order; ``score``
  optional: then rank = row order within a query; a ``qid`` column keys rows by
  QVHighlights qid instead of by video and query text);
* ``momentdetr`` -- Moment-DETR's JSONL (``qid, query, vid, pred_relevant_windows =
  [[s, e, score], ...]``); against QVHighlights matched by ``qid``, against Charades-STA
  by video and query text;
* ``2dtan`` -- 2D-TAN-style text: the Charades-STA annotation layout with one predicted
  moment per line, ``VIDEO START END##QUERY`` (or ``VIDEO START END SCORE##QUERY``),
  ranked in file order within a query unless scores are given. (2D-TAN's code keeps its
  predictions in memory; this is the plain-text layout its data loaders read, the one
  people write its outputs in.)

Ground truth (``gt_kind``): ``"charades"`` -- rows of
:func:`fireeval.datasets.charades.read_sta_rows` (``video, description, ...``), matched
by (video, query text); ``"qvhighlights"`` -- records of
:func:`fireeval.datasets.qvhighlights.read_ground_truth_records` (``qid, query, vid,
...``), matched by qid where the format has one, else by (vid, query text).

**Query text is matched exactly** (after removing a byte-order mark and the line end).
``info["unmatched"]`` lists up to 10 prediction keys that match no ground-truth query and
``info["unknown"]`` counts them. ``normalize=True`` (opt-in; ``--normalize-queries``)
compares query texts after :func:`normalize_query`: Unicode NFC, lower case, runs of
white space as one space, no space or full stop at either end -- which absorbs the
usual differences between a model's copy of the queries and the annotation file
("Person opens a door ." vs "person opens a door."). Two ground-truth queries of one
video that become equal are an error, since predictions could no longer be told apart.
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np

from fireeval.core.validation import ANY, BOOL, STR, Check, Instance, Int, Options, validate_params
from fireeval.datasets import FILE, check_readable, decimal_number, read_json, text_lines

__all__ = ["FORMATS", "ACCEPTED", "detect_format", "normalize_query", "read_entries", "read_predictions"]

FORMATS = ("json", "pkl", "csv", "tsv", "momentdetr", "2dtan")
ACCEPTED = ('accepted formats: .json {"entries": [{"vid", "query", "moments", "ratings"}]}; .pkl (AxIoU repository); '
            ".csv/.tsv rows vid, query, start, end[, score] (or qid, start, end[, score]); .jsonl Moment-DETR "
            "(qid, query, vid, pred_relevant_windows); .txt 2D-TAN style 'VIDEO START END[ SCORE]##QUERY' per moment "
            "(--format json|pkl|csv|tsv|momentdetr|2dtan when the extension does not say)")


def _check_format(name, fmt):
    if fmt != "auto" and fmt not in FORMATS:
        raise ValueError(f"unknown predictions format {name}={fmt!r}. Fix: {ACCEPTED}.")


_FORMAT = Check(_check_format, fix="'auto' or one of FORMATS")


@validate_params(text=STR)
def normalize_query(text: str) -> str:
    """The opt-in normalised form of a query text.

    >>> normalize_query("  Person opens a  door . ")
    'person opens a door'
    """
    text = " ".join(unicodedata.normalize("NFC", str(text)).lower().split())
    return text.strip(" .")


@validate_params(path=FILE, fmt=_FORMAT)
def detect_format(path, fmt: str = "auto") -> str:
    """The format of ``path``: ``fmt`` itself when given, else from the extension (and the first line of a .txt)."""
    path = Path(path)
    if fmt != "auto":
        return fmt
    suffix = path.suffix.lower()
    by_suffix = {".json": "json", ".pkl": "pkl", ".pickle": "pkl", ".csv": "csv", ".tsv": "tsv",
                 ".jsonl": "momentdetr"}
    if suffix in by_suffix:
        return by_suffix[suffix]
    if suffix in (".txt", ".tab", ""):
        for _, line in text_lines(path, "predictions file"):
            if "##" in line:
                return "2dtan"
            if "\t" in line:
                return "tsv"
            if line.lstrip().startswith("{"):
                return "momentdetr"
            break
    raise ValueError(f"{path}: cannot tell the predictions format from its name or first line. Fix: {ACCEPTED}.")


def _number(value, where: str, what: str) -> float:
    """A time or score of a text row: a plain decimal number (``1_0``, ``inf``, ``nan`` and ``0x1`` are refused)."""
    return decimal_number.__wrapped__(value, where, what, "give seconds and scores as plain decimal numbers, e.g. 12.5")


def _group(rows):
    """``[(key, start, end, score or None), ...]`` -> entries ``(key, moments, ratings or None)`` in first-seen order."""
    groups = {}
    for key, start, end, score in rows:
        moments, scores = groups.setdefault(key, ([], []))
        moments.append([start, end])
        scores.append(score)
    out = []
    for key, (moments, scores) in groups.items():
        given = [s is not None for s in scores]
        out.append((key, moments, scores if all(given) else None))
    return out


def _table_rows(path, delimiter: str):
    """CSV/TSV rows as ``[(lineno, {column: value})]``; a header names the columns, else vid, query, start, end, score."""
    import csv

    lines = [(n, line) for n, line in text_lines(path, "predictions file")]
    if not lines:
        raise ValueError(f"{path}: no rows. Fix: one predicted moment per row ({ACCEPTED}).")
    parsed = list(csv.reader([line for _, line in lines], delimiter=delimiter))
    header = [h.strip().lower() for h in parsed[0]]
    known = {"vid", "video", "video_id", "query", "description", "sentence", "qid", "start", "end", "score",
             "rating"}
    if {"start", "end"} <= set(header) and set(header) <= known | {""}:
        names, body = header, list(zip(lines[1:], parsed[1:]))
    else:
        names = ["vid", "query", "start", "end", "score"][: len(parsed[0])]
        body = list(zip(lines, parsed))
        if len(names) < 4:
            raise ValueError(f"{path}:{lines[0][0]}: {len(parsed[0])} columns; expected vid, query, start, end[, score] "
                             f"or a header naming them. Fix: {ACCEPTED}.")
    alias = {"video": "vid", "video_id": "vid", "description": "query", "sentence": "query", "rating": "score"}
    names = [alias.get(n, n) for n in names]
    out = []
    for (lineno, _), fields in body:
        if len(fields) != len(names):
            raise ValueError(f"{path}:{lineno}: {len(fields)} fields, the header has {len(names)}. "
                             "Fix: quote fields that contain the separator.")
        out.append((lineno, dict(zip(names, fields))))
    return out


@validate_params(path=FILE, fmt=_FORMAT)
def read_entries(path, fmt: str = "auto"):
    """``(format, entries)``: the file's predictions as entries before matching.

    Entries are ``((vid, query), moments, ratings or None)``, or ``(("qid", qid), moments,
    ratings or None)`` for rows keyed by QVHighlights qid; for ``json``/``pkl`` they are
    the raw ``(vid, query, moments, ratings)`` of the Charades-STA reader.
    """
    fmt = detect_format(path, fmt)
    path = check_readable(path, "predictions file", text=fmt != "pkl")
    reader = {"csv": _csv_entries, "tsv": _csv_entries, "2dtan": _tan_entries, "momentdetr": _momentdetr_entries}
    if fmt in reader:
        return fmt, reader[fmt](path, fmt)
    return fmt, None  # json / pkl: the Charades-STA reader parses them


def _csv_entries(path, fmt):
    rows = []
    for lineno, rec in _table_rows(path, "," if fmt == "csv" else "\t"):
        where = f"{path}:{lineno}"
        if "qid" in rec and rec["qid"] != "":
            qid = rec["qid"]
            key = ("qid", int(qid) if qid.lstrip("-").isdigit() else qid)
        elif "vid" in rec and "query" in rec:
            key = (rec["vid"], rec["query"])
        else:
            raise ValueError(f"{where}: a row needs vid and query (or qid). Fix: {ACCEPTED}.")
        score = rec.get("score")
        rows.append((key, _number(rec.get("start"), where, "start"), _number(rec.get("end"), where, "end"),
                     _number(score, where, "score") if score not in (None, "") else None))
    return _group(rows)


def _tan_entries(path, fmt):
    rows = []
    for lineno, line in text_lines(path, "predictions file"):
        where = f"{path}:{lineno}"
        head, sep, query = line.partition("##")
        parts = head.split()
        if not sep or len(parts) not in (3, 4):
            raise ValueError(f"{where}: expected 'VIDEO START END[ SCORE]##QUERY'. Fix: {ACCEPTED}.")
        if "##" in query:  # 'VIDEO START END##QUERY##SCORE' is not a layout we read: say so
            raise ValueError(f"{where}: more than one '##'. Fix: put the score before '##' ({ACCEPTED}).")
        score = _number(parts[3], where, "score") if len(parts) == 4 else None
        rows.append(((parts[0], query), _number(parts[1], where, "start"), _number(parts[2], where, "end"), score))
    return _group(rows)


def _momentdetr_entries(path, fmt):
    from fireeval.datasets import read_jsonl

    entries = []
    for lineno, rec in read_jsonl(path, "Moment-DETR predictions file"):
        where = f"{path}:{lineno}"
        if "pred_relevant_windows" not in rec:
            raise ValueError(f"{where}: no 'pred_relevant_windows'. Fix: {ACCEPTED}.")
        windows = rec["pred_relevant_windows"] or []
        arr = _windows(windows, where) if windows else np.empty((0, 2))
        ratings = arr[:, 2].tolist() if arr.shape[1] >= 3 else None
        key = ((rec["vid"], rec["query"]) if "vid" in rec and "query" in rec else None)
        entries.append((key, rec.get("qid"), arr[:, :2].tolist(), ratings, where))
    return entries


def _windows(windows, where: str) -> np.ndarray:
    """Moment-DETR's ``pred_relevant_windows`` as an (n, 2 or 3) float array; booleans and text refused."""
    from fireeval.core.ranking import real_numbers

    fix = "Fix: give pred_relevant_windows as [[start, end, score], ...] numbers"
    arr = real_numbers(windows, f"{where}: pred_relevant_windows",
                       ragged=f"{where}: pred_relevant_windows are not [[start, end, score], ...] numbers. {fix}")
    if arr.ndim != 2 or arr.shape[1] not in (2, 3):
        raise ValueError(f"{where}: pred_relevant_windows are not [[start, end, score], ...] (shape {arr.shape}). "
                         f"{fix}")
    return arr


def _unmatched(keys, index, limit: int = 10) -> list:
    return [k for k in keys if k not in index][:limit]


@validate_params(path=FILE, gt=ANY, gt_kind=Options("charades", "qvhighlights"), fmt=_FORMAT, normalize=BOOL,
                 k=[Int(1), None], info=[Instance(dict, fix="pass a dict to fill"), None])
def read_predictions(path, gt, gt_kind: str, fmt: str = "auto", normalize: bool = False, k: int | None = None,
                     info: dict | None = None) -> np.ndarray:
    """Predictions of ``path`` (any accepted format) as ``(queries, width, 2)`` [start, end] aligned to ``gt``.

    ``gt_kind`` ``"charades"`` (rows ``(video, description, ...)``) or ``"qvhighlights"``
    (records ``(qid, query, vid, ...)``). ``info`` receives ``format``, ``entries``,
    ``unknown`` (entries matching no query), ``unmatched`` (up to 10 of their keys),
    ``missing_queries`` and ``normalized``. The rules of the existing readers apply
    (duplicate queries, NaN or reversed moments and mismatched ratings are errors).
    """
    from fireeval.datasets import charades

    fmt, entries = read_entries(path, fmt)
    info = {} if info is None else info
    qids, norm, gt_rows = _ground_truth_keys(gt, gt_kind, normalize)
    index = {key: i for i, key in enumerate(gt_rows)}
    if fmt in ("json", "pkl"):
        return _read_json_or_pickle(path, gt, gt_kind, fmt, normalize, k, info, (norm, gt_rows, index))
    if fmt == "momentdetr":
        by_qid = gt_kind == "qvhighlights" and all(e[1] is not None for e in entries)
        if by_qid and not normalize:
            from fireeval.datasets import qvhighlights

            pred = qvhighlights.read_predictions_file(path, qids, k, info=info)
            qid_set = set(qids)
            info.update(format=fmt, normalized=False,
                        unmatched=[("qid", e[1]) for e in entries if e[1] not in qid_set][:10])
            return pred
        flat = _momentdetr_rows(entries, by_qid, qids, gt_rows, norm)
    else:
        flat = _keyed_rows(path, entries, qids, gt_rows, norm)
    pred, quirks = charades.align_predictions([(kk[0], kk[1], m, r) for kk, m, r in flat], gt_rows, k, name=str(path))
    info.update(quirks, format=fmt, unmatched=_unmatched([kk for kk, _, _ in flat], index), normalized=normalize)
    return pred


def _ground_truth_keys(gt, gt_kind: str, normalize: bool):
    """``(qids or None, the query normaliser, [(video, query)] per ground-truth row)``; with ``normalize``, two
    rows that become equal are refused."""
    if gt_kind == "charades":
        keys = [(r[0], r[1]) for r in gt]
        qids = None
    else:
        keys = [(r[2], r[1]) for r in gt]
        qids = [r[0] for r in gt]
    norm = normalize_query.__wrapped__ if normalize else (lambda q: q)  # (unchecked: called per query)
    gt_rows = [(v, norm(q)) for v, q in keys]
    if normalize:
        seen = {}
        for i, key in enumerate(gt_rows):
            if key in seen:
                raise ValueError(f"--normalize-queries makes ground-truth queries {seen[key] + 1} and {i + 1} equal "
                                 f"({keys[seen[key]]!r}, {keys[i]!r}). Fix: match query texts exactly (drop the option).")
            seen[key] = i
    return qids, norm, gt_rows


def _read_json_or_pickle(path, gt, gt_kind, fmt, normalize, k, info, aligned):
    """:func:`read_predictions` of a .json or .pkl file (JSON lines saved as .json are read as Moment-DETR's)."""
    from fireeval.datasets import charades

    norm, gt_rows, index = aligned
    if gt_kind == "charades" and not normalize:
        try:
            pred, quirks = charades.read_predictions_file(path, gt, k)
        except ValueError as err:
            if fmt == "json" and "Extra data" in str(err):  # JSON lines saved as .json: Moment-DETR's layout
                return read_predictions(path, gt, gt_kind, "momentdetr", normalize, k, info)
            if any(word in str(err) for word in ("not valid JSON", "'entries'", " lacks ", "pickle layout")):
                raise ValueError(f"{' '.join(str(err).split())} ({ACCEPTED})") from None
            raise
        raw = _raw_json_keys(path, fmt) if quirks.get("unknown") else []
    else:
        raw_entries = _json_entries(path, fmt)
        raw = [(v, norm(q)) for v, q, _, _ in raw_entries]
        pred, quirks = charades.align_predictions([(v, norm(q), m, r) for v, q, m, r in raw_entries], gt_rows, k,
                                                  name=str(path))
    info.update(quirks, format=fmt, unmatched=_unmatched(raw, index), normalized=normalize)
    return pred


def _momentdetr_rows(entries, by_qid, qids, gt_rows, norm):
    """``[((video, query), moments, ratings)]`` of Moment-DETR lines, matched by qid (as they are) or by vid and
    query."""
    if by_qid:  # normalisation does not apply to qids: match them as they are
        pos = {q: i for i, q in enumerate(qids)}
        return [(gt_rows[pos[e[1]]] if e[1] in pos else ("qid", e[1]), e[2], e[3]) for e in entries]
    if any(e[0] is None for e in entries):
        bad = next(e for e in entries if e[0] is None)
        raise ValueError(f"{bad[4]}: no 'vid' and 'query' to match Charades-STA queries by. Fix: add them "
                         "to each line (Moment-DETR's own files have both).")
    return [((e[0][0], norm(e[0][1])), e[2], e[3]) for e in entries]


def _keyed_rows(path, entries, qids, gt_rows, norm):
    """``[((video, query), moments, ratings)]`` of a table's rows, keyed by qid or by vid and query."""
    flat = []
    for key, moments, ratings in entries:
        if key[0] == "qid":
            if qids is None:
                raise ValueError(f"{path}: rows are keyed by qid, which Charades-STA does not have. Fix: give "
                                 "vid and query columns.")
            pos = {q: i for i, q in enumerate(qids)}
            key = gt_rows[pos[key[1]]] if key[1] in pos else key
        else:
            key = (key[0], norm(key[1]))
        flat.append((key, moments, ratings))
    return flat


def _json_entries(path, fmt):
    """Raw ``(vid, query, moments, ratings)`` of a .json or .pkl predictions file (the Charades-STA layouts)."""
    if fmt == "pkl":
        from fireeval.datasets.safe_pickle import safe_load

        raw = safe_load(path)
        try:
            return [(e[0][0], e[0][1], e[1], e[2]) for e in raw]
        except (TypeError, IndexError, KeyError):
            raise ValueError(f"{path}: not the AxIoU repository's pickle layout. Fix: {ACCEPTED}.") from None
    doc = read_json(path, f"predictions file ({ACCEPTED})")
    items = doc.get("entries") if isinstance(doc, dict) else doc
    if not isinstance(items, list) or not all(isinstance(e, dict) and {"vid", "query", "moments"} <= set(e)
                                              for e in items):
        raise ValueError(f"{path}: not a list of entries with vid, query and moments. Fix: {ACCEPTED}.")
    return [(e["vid"], e["query"], e["moments"], e.get("ratings")) for e in items]


def _raw_json_keys(path, fmt):
    try:
        return [(v, q) for v, q, _, _ in _json_entries(path, fmt)]
    except ValueError:
        return []
