"""Read and write TREC run and qrels files, with errors that name the file and line.

Formats (as trec_eval reads them):

* run: ``qid Q0 docno rank score tag`` -- six whitespace-separated columns. The rank
  column is ignored: trec_eval orders a topic's documents by score descending and
  breaks ties by docno *descending* (see :func:`trec_order`).
* qrels: ``qid iteration docno relevance`` -- four columns, integer relevance.

Files may be gzip-compressed (detected from the content, not the name).

The readers parse with pandas' C engine for speed and, when anything looks wrong,
re-scan the file line by line to report the *first* offending line exactly, so a
user never sees a traceback from deep inside pandas.
"""
from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "TrecFormatError",
    "read_run",
    "read_qrels",
    "write_run",
    "write_qrels",
    "trec_order",
]

RUN_COLUMNS = ["query", "q0", "docno", "rank", "score", "tag"]
QRELS_COLUMNS = ["query", "iteration", "docno", "relevance"]


class TrecFormatError(ValueError):
    """A run or qrels file that trec_eval would reject or misread.

    Attributes ``path`` and ``line`` (1-based, or None for whole-file problems)
    locate the problem; the message says how to fix it.
    """

    def __init__(self, path, line, problem, fix):
        self.path, self.line = str(path), line
        where = f"{path}, line {line}" if line else str(path)
        super().__init__(f"{where}: {problem}. Fix: {fix}")


def _open_text(path) -> io.TextIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _read_bytes(path) -> bytes:
    with open(path, "rb") as fh:
        raw = fh.read()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def _first_bad_line(path, n_fields, checks):
    """Scan ``path`` line by line; return (line, problem, fix) for the first bad line.

    ``checks`` maps a column index to (predicate, problem, fix); it runs after the
    column-count check.
    """
    seen = {}
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != n_fields:
                return (lineno, f"expected {n_fields} columns, found {len(fields)} ({line.strip()[:80]!r})",
                        f"write each line as {' '.join(RUN_COLUMNS if n_fields == 6 else QRELS_COLUMNS)}")
            for col, (ok, problem, fix) in checks.items():
                if not ok(fields[col]):
                    return lineno, problem.format(value=fields[col]), fix
            key = (fields[0], fields[2])
            if key in seen:
                return (lineno, f"document {fields[2]!r} appears twice for topic {fields[0]!r} "
                        f"(first on line {seen[key]})", "keep one line per (topic, document)")
            seen[key] = lineno
    return None


def _is_float(text):
    try:
        return np.isfinite(float(text))
    except ValueError:
        return False


def _is_int(text):
    try:
        int(text)
        return True
    except ValueError:
        return False


def _parse(path, names, dtypes):
    """Parse with pandas' C engine; None when the file needs the line-by-line scan."""
    raw = _read_bytes(path)
    if not raw.strip():
        raise TrecFormatError(path, None, "the file is empty", "check that the file was written completely")
    first = raw[: raw.find(b"\n")]
    # A single-character separator is 3x faster than the regex; fall back to any whitespace.
    for sep in (["\t"] if b"\t" in first else [" "]) + [r"\s+"]:
        try:
            frame = pd.read_csv(io.BytesIO(raw), sep=sep, header=None, names=names, dtype=dtypes,
                                engine="c", skip_blank_lines=True, keep_default_na=False, na_values=[""])
        except (pd.errors.ParserError, ValueError, TypeError):
            continue
        if not frame[names[-1]].isna().any():  # short rows: another separator, or a real error
            return frame
    return None


def _raise_first_bad_line(path, n_fields, checks, what):
    found = _first_bad_line(path, n_fields, checks)
    if found is None:  # pandas disagreed with the scan: report rather than guess
        raise TrecFormatError(path, None, f"could not be parsed as {what}", "check the file's format")
    raise TrecFormatError(path, *found)


def _has_duplicates(*columns) -> bool:
    keys = np.zeros(len(columns[0]), dtype=np.int64)
    for col in columns:
        codes, uniques = pd.factorize(col)
        keys = keys * (len(uniques) + 1) + codes
    return len(pd.unique(keys)) != len(keys)


def read_run(path, *, ordered: bool = True, check_duplicates: bool = True) -> pd.DataFrame:
    """Read a TREC run file into a DataFrame with columns query, docno, score, tag.

    Parameters
    ----------
    path : path-like
        Six-column run file, plain or gzip.
    ordered : bool, default True
        Return rows in trec_eval order within each query (score descending, ties by
        docno descending) and add a 1-based ``rank`` column in that order. The file's
        own rank column is ignored, as trec_eval ignores it.
    check_duplicates : bool, default True
        Reject a document listed twice for one topic. :meth:`RunSet.read` turns this
        off and runs the same check on integer codes, which is faster.

    Raises
    ------
    TrecFormatError
        Empty file, wrong column count, non-numeric score, or a document listed twice
        for one topic -- with the file, line and fix.
    """
    # object dtype: Python strings hash faster than pandas' string dtype downstream.
    dtypes = {"query": object, "q0": object, "docno": object, "rank": object, "score": np.float64, "tag": object}
    frame = _parse(path, RUN_COLUMNS, dtypes)
    if (frame is None or not np.isfinite(frame["score"].to_numpy()).all()
            or (check_duplicates and _has_duplicates(frame["query"], frame["docno"]))):
        raise_bad_run(path)
    frame = frame.drop(columns=["q0", "rank"])
    return trec_order(frame) if ordered else frame


def raise_bad_run(path):
    """Raise the :class:`TrecFormatError` for the first bad line of run file ``path``."""
    checks = {4: (_is_float, "score {value!r} is not a finite number", "write a numeric score in column 5")}
    _raise_first_bad_line(path, 6, checks, "a 6-column run")


def read_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file into a DataFrame with columns query, docno, relevance (int).

    Extra columns after the fourth (as in TREC-8's annotated qrels) are rejected:
    keep the first four columns for trec_eval-style qrels.
    """
    checks = {3: (_is_int, "relevance {value!r} is not an integer",
                  "write an integer relevance grade (0 = non-relevant) in column 4")}
    frame = _parse(path, QRELS_COLUMNS, {"query": str, "iteration": str, "docno": str, "relevance": str})
    rel = None if frame is None else pd.to_numeric(frame["relevance"], errors="coerce")  # "1.0" passes, "0.5" not
    if (rel is None or rel.isna().any() or (rel != rel.round()).any()
            or _has_duplicates(frame["query"], frame["docno"])):
        _raise_first_bad_line(path, 4, checks, "4-column qrels")
    return frame.drop(columns=["iteration"]).assign(relevance=rel.to_numpy(dtype=np.int64))


def trec_order(frame: pd.DataFrame, by=("query",), score_precision: str = "single") -> pd.DataFrame:
    """Sort rows as trec_eval does and number them.

    Within each group of ``by`` columns: score descending, ties broken by docno
    descending (trec_eval compares docnos as strings). Adds ``rank`` (1-based).
    This order, not a file's rank column, reproduces TREC-8's judged pool.

    Scores are compared in single precision, because trec_eval stores them in a C
    ``float``: two scores that differ only beyond float32 precision are a tie, broken
    by docno. (This changes AP by up to ~4e-6 on some TREC-8 topics.)
    ``score_precision="double"`` compares the scores as parsed (float64) instead, to
    check what an evaluation that kept them apart would report.
    """
    if score_precision not in ("single", "double"):
        raise ValueError(f"score_precision must be 'single' (trec_eval) or 'double', not {score_precision!r}")
    by = list(by)
    group = np.zeros(len(frame), dtype=np.int64)
    for col in by:
        codes, uniques = pd.factorize(frame[col], sort=True)
        group = group * len(uniques) + codes
    score = frame["score"].to_numpy(dtype=np.float32 if score_precision == "single" else np.float64)
    order = np.lexsort((-score, group))
    # Numeric sort first; only tied (group, score) blocks need the docno comparison.
    g, s = group[order], score[order]
    tied = np.zeros(len(order), dtype=bool)
    same = (g[1:] == g[:-1]) & (s[1:] == s[:-1])
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        rows = order[tied]
        sub = pd.DataFrame({"g": g[tied], "s": s[tied], "d": frame["docno"].to_numpy()[rows], "r": rows})
        sub = sub.sort_values(["g", "s", "d"], ascending=[True, False, False], kind="mergesort")
        order[tied] = sub["r"].to_numpy()
    ordered = frame.iloc[order].reset_index(drop=True)
    starts = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    sizes = np.diff(np.r_[starts, len(g)])
    ordered["rank"] = np.arange(len(g)) - np.repeat(starts, sizes) + 1
    return ordered


def write_run(frame: pd.DataFrame, path, tag: str | None = None) -> None:
    """Write a run (columns query, docno, score[, tag]) in trec_eval order, 6 columns."""
    ordered = trec_order(frame)
    tags = ordered["tag"] if "tag" in ordered and tag is None else (tag or "fireeval")
    out = pd.DataFrame({"query": ordered["query"], "q0": "Q0", "docno": ordered["docno"],
                        "rank": ordered["rank"], "score": ordered["score"].map(repr), "tag": tags})
    _write(out, path)


def write_qrels(frame: pd.DataFrame, path) -> None:
    """Write qrels (columns query, docno, relevance) as 4-column TREC qrels."""
    out = pd.DataFrame({"query": frame["query"], "iteration": 0, "docno": frame["docno"],
                        "relevance": frame["relevance"].astype(int)})
    _write(out, path)


def _write(frame, path):
    text = frame.to_csv(sep=" ", header=False, index=False)
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.write(text)

