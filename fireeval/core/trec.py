"""Read and write TREC run and qrels files, with errors that name the file and line.

Formats (as trec_eval reads them):

* run: ``qid Q0 docno rank score tag`` -- six whitespace-separated columns; fields after the
  sixth are ignored, and the run's tag is the last line's, as trec_eval reads them. The rank
  column is ignored: trec_eval orders a topic's documents by score descending and
  breaks ties by docno *descending* (see :func:`trec_order`).
* qrels: ``qid iteration docno relevance`` -- four columns, integer relevance.

Files may be gzip-compressed (detected from the content, not the name).

Fields are separated by any run of spaces and tabs, as trec_eval splits them: an
empty field (two separators in a row, a leading or trailing separator) is never read
as a value, and a tab-separated file's fields cannot contain spaces. The readers of
``fireeval evaluate`` (:func:`read_run_table`, :func:`read_qrels_columns`) split files up to
64 MB with numpy alone (no pyarrow import: ~55 MB of memory and ~0.1 s of start-up);
larger files, and the DataFrame readers, parse with pyarrow's C++ CSV reader (single
separator) after normalising any other whitespace. When anything looks wrong, every reader
re-scans the file line by line to report the *first* offending line exactly, so a user
never sees a traceback from a parser.
"""
from __future__ import annotations

import io
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fireeval.core.validation import ANY, BOOL, Instance, Int, STR, validate_params

PATH = Instance(str, os.PathLike, fix="pass a file's path (str or Path)")

__all__ = [
    "TrecFormatError",
    "read_ahead",
    "map_in_workers",
    "default_jobs",
    "read_run",
    "read_qrels",
    "read_run_table",
    "read_qrels_table",
    "read_qrels_columns",
    "topic_codes",
    "as_bytes_array",
    "intern_rows",
    "RunTable",
    "fixed_bytes",
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

    Parameters
    ----------
    path : path-like
        The file.
    line : int or None
        The line, from 1.
    problem, fix : str
        What is wrong and what to do.

    Examples
    --------
    >>> str(TrecFormatError("run.txt", 3, "expected 6 columns, found 5", "write 6 columns"))
    'run.txt:3: expected 6 columns, found 5. Fix: write 6 columns'
    """

    def __init__(self, path, line, problem, fix):
        self.path, self.line = str(path), line
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {problem}. Fix: {fix}")


def _read_bytes(path) -> bytes:
    """The file's bytes, gunzipped when gzip (by content); errors name the file and the fix."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
            if head[:2] != b"\x1f\x8b":
                _refuse_binary(path, head)  # before reading a binary file whole into memory
            if fh.seekable():  # read it whole again rather than copy head + rest (a 300 MB run: 0.1 s)
                fh.seek(0)
                raw = fh.read()
            else:
                raw = head + fh.read()
    except IsADirectoryError:
        raise TrecFormatError(path, None, "is a directory, not a file", "give the path of a run or qrels file") from None
    except FileNotFoundError:
        raise TrecFormatError(path, None, "no such file", "check the path") from None
    except PermissionError:
        raise TrecFormatError(path, None, "cannot be read (permission denied)", "check the file's permissions") from None
    if raw[:2] == b"\x1f\x8b":
        reader, gunzip_error = _gzip_reader()
        try:
            raw = _gunzip_bounded(path, raw, reader)
        except (OSError, EOFError, zlib.error, gunzip_error) as err:
            raise TrecFormatError(path, None, f"is a damaged gzip file ({err})",
                                  "re-download or re-compress the file") from None
    nul = raw.find(b"\x00")  # anywhere, not only in the first block: trec_eval would cut the line there
    if nul >= 0:
        raise TrecFormatError(path, raw.count(b"\n", 0, nul) + 1, "is a binary file (it contains NUL bytes, the "
                              "first on this line), not TREC text", "give the plain-text (or gzipped) run or qrels file; if it was "
                              "damaged in transfer, copy it again")
    if raw[:3] == b"\xef\xbb\xbf":  # UTF-8 byte-order mark
        raw = raw[3:]
    return raw


#: A gzip that expands more than this many times and past _BOMB_BYTES is refused as a decompression bomb:
#: TREC text compresses 4-6 times (TREC-8's runs and qrels); 3 GB of spaces in a 3 MB gzip is 1000 times.
_BOMB_RATIO = 64
_BOMB_BYTES = 128 << 20
_GUNZIP_CHUNK = 16 << 20


def _gunzip_bounded(path, raw: bytes, reader) -> bytes:
    """Every gzip member of ``raw``, decompressed a chunk at a time so that a bomb is refused
    after at most ``_BOMB_BYTES`` (plus a chunk) of output, never expanded whole."""
    limit = max(_BOMB_BYTES, len(raw) * _BOMB_RATIO)
    parts, total = [], 0
    with reader(fileobj=io.BytesIO(raw)) as stream:
        while True:
            chunk = stream.read(_GUNZIP_CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise TrecFormatError(path, None, f"expands to more than {limit >> 20} MiB from "
                                      f"{len(raw) >> 10} KiB of gzip (over {_BOMB_RATIO} times): a decompression "
                                      "bomb, not a TREC file", "give the real run or qrels file")
            parts.append(chunk)
    return b"".join(parts)


def _gzip_reader():
    """``(reader class, its error)``: Intel ISA-L's decoder (~3x faster than zlib), imported with the first
    gzip file (a plain file's command never loads it)."""
    try:
        from isal.igzip import IGzipFile
        from isal.isal_zlib import error
    except ImportError:  # pragma: no cover - isal is a pinned dependency
        import gzip

        return gzip.GzipFile, zlib.error
    return IGzipFile, error


def _refuse_binary(path, head: bytes) -> None:
    if b"\x00" in head:
        raise TrecFormatError(path, None, "is a binary file (it contains NUL bytes), not a TREC text file",
                              "give the plain-text (or gzipped) run or qrels file")


def _first_bad_line(path, n_fields, checks, extra_fields: bool = False):
    """Scan ``path`` line by line; return (line, problem, fix) for the first bad line.

    ``checks`` maps a column index to (predicate, problem, fix); it runs after the
    column-count check. ``extra_fields``: a line may have more than ``n_fields`` fields (trec_eval
    ignores what follows a run line's sixth).
    """
    seen = {}
    for lineno, raw_line in enumerate(_read_bytes(path).split(b"\n"), 1):
        try:
            line = raw_line.decode("utf-8")
        except UnicodeDecodeError as err:  # e.g. Latin-1 docnos: name the line, not just the file
            return (lineno, f"is not UTF-8 text (byte 0x{raw_line[err.start]:02x} at column {err.start + 1})",
                    "save the file as UTF-8, e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8")
        fields = line.split()
        if not fields:
            continue
        if len(fields) != n_fields and not (extra_fields and len(fields) > n_fields):
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
        return bool(np.isfinite(float(text))) and "_" not in text
    except ValueError:
        return False


#: A qrels grade: an ASCII integer, optionally followed by ".0..." (read the same by trec_eval's atol).
#: Exponents (1e1), hex (0x1), other decimals (2.9999999999999999) and inf are refused: atol reads
#: them differently from what they say.
_GRADE = re.compile(r"[+-]?[0-9]+(?:\.0*)?")
_GRADE_LIMIT = 2**62


def _is_int(text):
    if not _GRADE.fullmatch(text):
        return False
    return abs(int(text.split(".")[0])) < _GRADE_LIMIT


def _normalise(raw: bytes):
    """``(bytes, delimiter)`` with every field boundary one delimiter byte and no empty field.

    A file that already uses one separator (a single tab or a single space between
    fields, none at either end of a line) is returned as it is; anything else is
    re-joined line by line from ``bytes.split()``, trec_eval's whitespace split.
    """
    has_tab, has_space = b"\t" in raw, b" " in raw
    odd = b"\r" in raw or b"\x0b" in raw or b"\x0c" in raw
    if has_tab != has_space and not odd:
        delim = b"\t" if has_tab else b" "
        # An empty field is a separator next to another separator or a line break, or at
        # either end (numpy: two-byte `in` searches are ~5x slower on a run file).
        data = np.frombuffer(raw, dtype=np.uint8)
        empty = bool(data[0] == ord(delim) or data[-1] == ord(delim))
        block = 1 << 22  # 4 MB blocks (overlapping by one byte) keep the temporaries small
        for start in range(0, len(data), block):
            chunk = data[start:start + block + 1]
            sep = chunk == ord(delim)
            edge = sep | (chunk == 10)
            if (sep[1:] & edge[:-1]).any() or (edge[1:] & sep[:-1]).any():
                empty = True
                break
        if not empty:
            return raw, delim.decode()
    return b"\n".join(b" ".join(line.split()) for line in raw.split(b"\n")), " "


def _arrow_table(raw: bytes, names, types, include):
    """Parse with pyarrow's CSV reader; None when the file needs the line-by-line scan."""
    import pyarrow as pa
    import pyarrow.csv as csv

    raw, delim = _normalise(raw)
    try:
        return csv.read_csv(
            io.BytesIO(raw),
            read_options=csv.ReadOptions(column_names=names, use_threads=len(raw) > 8_000_000),
            parse_options=csv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                           escape_char=False),
            convert_options=csv.ConvertOptions(column_types=types, include_columns=include,
                                               strings_can_be_null=False, null_values=[]))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


#: Files up to this size (after gunzip) are split with numpy alone: no pyarrow import (~55 MB of memory and
#: ~0.1 s of start-up, more than parsing a TREC-8 run takes). Larger files go to pyarrow's threaded reader.
_LEAN_BYTES = 64 << 20

_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[list(b" \t\n\r\x0b\x0c")] = True  # what bytes.split() splits on, as the line scan does


def _lean_fields(raw: bytes, n_fields: int, extra_fields: bool = False, path=None):
    """``(data, starts, ends)``: the file's bytes and the (lines x n_fields) start and end offsets of its
    fields (``starts`` None: each field starts one byte after the previous one ends), split on any run of
    whitespace as :func:`_first_bad_line` splits a line; None when a non-blank line has another number of
    fields (``extra_fields``: fewer; the fields after the first ``n_fields`` of a line are dropped) or the
    file is not UTF-8 (the line scan then names the line)."""
    data = np.frombuffer(raw, dtype=np.uint8)
    if not len(data):
        return None
    if data.max() >= 0x80:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    simple = _simple_fields(data, n_fields)
    if simple is not None:
        return simple
    space = data <= 32  # whitespace, unless the file holds other control bytes (then the exact table)
    if ((data < 9) | ((data > 13) & (data < 32))).any():
        space = _WHITESPACE[data]
    flips = np.flatnonzero(space[1:] != space[:-1]) + 1  # field starts and ends, alternating
    del space
    head = [0] if not _WHITESPACE[data[0]] else []
    tail = [len(data)] if not _WHITESPACE[data[-1]] else []
    if head or tail:
        flips = np.concatenate([np.array(head, np.int64), flips, np.array(tail, np.int64)])
    starts, ends = flips[0::2], flips[1::2]
    if not len(starts) or (len(starts) % n_fields and not extra_fields):
        return None
    # fields per line: the fields before each line break, differenced
    before = np.searchsorted(starts, np.flatnonzero(data == 10))
    per_line = np.diff(np.r_[0, before, len(starts)])
    wrong = (per_line != 0) & (per_line != n_fields)
    if wrong.any():
        if not extra_fields or ((per_line != 0) & (per_line < n_fields)).any():
            return None  # a line with fewer fields (or more, where they are not allowed)
        # a line's first n_fields fields are kept, the rest dropped (trec_eval ignores them), said aloud
        _warn_extra_fields(path, int(np.flatnonzero(wrong)[0]) + 1, int(wrong.sum()), int(per_line.max()))
        line_start = np.repeat(np.cumsum(per_line) - per_line, per_line)
        keep = np.arange(len(starts)) - line_start < n_fields
        starts, ends = starts[keep], ends[keep]
    return data, starts.reshape(-1, n_fields), ends.reshape(-1, n_fields)


def _warn_extra_fields(path, line, lines, most):
    import warnings

    warnings.warn(f"{path}:{line}: {lines} line(s) have more than 6 fields (up to {most}); the fields after the sixth "
                  "are ignored, as trec_eval ignores them (a docno with a space in it would be read as two fields). "
                  "Fix: check the file if a field holds spaces", stacklevel=4)


def _simple_fields(data, n_fields):
    """:func:`_lean_fields` of a file written the usual way (one space or tab between fields, every line
    ending in a line break, no blank line): every byte <= 32 is a separator, each line's last one its line
    break. None when the file is not so (the general split then runs)."""
    if data[0] <= 32 or data[-1] != 10:
        return None
    is_sep = data <= 32
    if (is_sep[1:] & is_sep[:-1]).any():  # two separators in a row: an empty field (data[0] is not one)
        return None
    seps = np.flatnonzero(is_sep)
    del is_sep
    if len(seps) % n_fields:
        return None
    seps = seps.reshape(-1, n_fields)
    kinds = data[seps]
    if not ((kinds[:, -1] == 10).all() and ((kinds[:, :-1] == 9) | (kinds[:, :-1] == 32)).all()):
        return None
    return data, None, seps  # a field ends at its separator; the next starts one byte after


#: masks[v] keeps the first v bytes of a little-endian 64-bit word (the words below are little-endian on any machine)
_WORD_MASKS = np.array([(1 << (8 * v)) - 1 for v in range(8)] + [2**64 - 1], dtype="<u8")


def _field_starts(fields, col) -> np.ndarray:
    """Offset of field ``col`` on every line."""
    _, starts, ends = fields
    if starts is not None:
        return starts[:, col]
    return ends[:, col - 1] + 1 if col else np.r_[0, ends[:-1, -1] + 1]


def _lean_column(fields, col) -> np.ndarray:
    """Field ``col`` of every line as a numpy bytes (``S``) array, zero-padded to a multiple of 8 bytes."""
    data, _, ends = fields
    start = _field_starts(fields, col)
    lengths = ends[:, col] - start
    words = -(-max(int(lengths.max()), 1) // 8)
    out = np.empty((len(start), words), dtype="<u8")
    # the last lines' fields may reach past the file's end: those few are read from a zero-padded copy
    # of the file's tail (fields start in increasing order)
    k = int(np.searchsorted(start, len(data) - 8 * words, side="right"))
    if k:
        _gather_words(data, start[:k], lengths[:k], out[:k])
    if k < len(start):
        base = int(start[k])
        tail = np.zeros(len(data) - base + 8 * words, np.uint8)
        tail[:len(data) - base] = data[base:]
        _gather_words(tail, start[k:] - base, lengths[k:], out[k:])
    return out.view(f"S{8 * words}").ravel()


def _gather_words(data, start, lengths, out) -> None:
    """``out[:, w]``: the 8 bytes of ``data`` from ``start + 8 w``, those past ``lengths`` zeroed."""
    # 8 bytes from any offset: a word view of the bytes with a stride of one byte
    at = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
    n, words = out.shape
    if words <= _NARROW_WORDS:  # the usual docno: one gather per 8 bytes, masks from a small table
        sizes = np.arange(8 * words + 1)
        for w in range(words):
            out[:, w] = at[start + 8 * w] & _WORD_MASKS[np.clip(sizes - 8 * w, 0, 8)][lengths]
        return
    # a very long field (a 1 MB docno): blocks of words at once, each row's masks from its own length, so the
    # work is linear in rows x words (a table of every width per word was quadratic in the width)
    step = max(1, _GATHER_CELLS // max(n, 1))
    for first in range(0, words, step):
        cols = np.arange(first, min(first + step, words), dtype=np.int64)
        out[:, first:first + len(cols)] = at[start[:, None] + 8 * cols] & \
            _WORD_MASKS[np.clip(lengths[:, None] - 8 * cols, 0, 8)]


#: fields up to this many 8-byte words are gathered a word at a time (fast for short docnos); wider ones in
#: blocks of about _GATHER_CELLS words
_NARROW_WORDS = 16
_GATHER_CELLS = 1 << 20


_NUMBER_BYTES = np.zeros(256, dtype=bool)
_NUMBER_BYTES[list(b"0123456789+-.eE")] = True


def _lean_scores(texts: np.ndarray, check_bytes: bool = True):
    """Scores of a bytes array as float64, or None when any is other than plain decimal or exponent notation
    (``0x1``, ``1_0``, ``nan``...: pyarrow's reader then decides, as for every file before). ``check_bytes``
    False: the file holds no ``_`` (numpy would read ``1_0`` as 10, pyarrow refuses it) and the letters
    numpy also takes (``inf``, ``nan``) are caught as non-finite after."""
    if check_bytes:
        data = texts.view(np.uint8)
        if _NUMBER_BYTES[data].sum() != (data != 0).sum():
            return None
    try:
        return _decimal_scores(texts)
    except ValueError:
        return None


#: 10**0 ... 10**22: the powers of ten a double holds exactly (made from Python's exact ints)
_EXACT_POWERS = np.array([float(10 ** k) for k in range(23)])


def _decimal_scores(texts: np.ndarray) -> np.ndarray:
    """``texts.astype(np.float64)`` of a bytes (``S``) array: the same doubles, in vectorised passes over its columns.

    numpy parses bytes to float one element at a time, a third of the CPU time of reading a TREC run (issue 38).
    A text in plain decimal notation (``-12.50``, ``+.5``, ``7.``) of at most 18 digits is read, one byte column
    at a time for all texts, as an integer mantissa M with F digits after the point; when M < 2**53, M and 10**F
    (F <= 18) are doubles exactly and ``M / 10**F`` is one correctly rounded division: the double nearest the
    text, which numpy's correctly rounded parse also gives (Clinger's fast path). Every other text (an exponent,
    more digits, anything that is not a plain number) is numpy's, which raises on a bad one.

    >>> texts = np.array([b"0.1", b"-2.5", b"1e-300", b"12345678901234567890", b"-0", b"+.5", b"7.", b"0.30000000000000004"])
    >>> _decimal_scores(texts).tolist() == texts.astype(np.float64).tolist()
    True
    """
    columns = np.ascontiguousarray(np.ascontiguousarray(texts).view(np.uint8).reshape(len(texts), -1).T)
    n = len(texts)
    mantissa, n_digits, fraction = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    point, ended, bad = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    for j, byte in enumerate(columns):  # (a text's bytes, then zero padding)
        digit = byte - np.uint8(48)
        is_digit = digit < 10
        np.multiply(mantissa, 10, out=mantissa, where=is_digit)
        np.add(mantissa, digit, out=mantissa, where=is_digit)
        n_digits += is_digit
        fraction += is_digit & point
        is_point, is_zero = byte == 46, byte == 0
        other = ~(is_digit | is_point | is_zero)
        if j == 0:
            other &= (byte != 45) & (byte != 43)  # a sign leads
        bad |= other | (is_point & point) | (ended & ~is_zero)
        point |= is_point
        ended |= is_zero
    fast = ~bad & (n_digits >= 1) & (n_digits <= 18) & (mantissa < 2**53)
    out = mantissa.astype(np.float64) / _EXACT_POWERS[np.minimum(fraction, 22)]
    if n:
        np.negative(out, out=out, where=columns[0] == 45)
    if not fast.all():
        out[~fast] = texts[~fast].astype(np.float64)
    return out


def _raise_first_bad_line(path, n_fields, checks, what, extra_fields: bool = False):
    found = _first_bad_line(path, n_fields, checks, extra_fields)
    if found is None:  # the parser disagreed with the scan: report rather than guess
        raise TrecFormatError(path, None, f"could not be parsed as {what}", "check the file's format")
    raise TrecFormatError(path, *found)


# pyarrow's to_numpy()/pa.array() import pandas (0.5 s) on first use; these two move numeric
# arrays through their buffers instead, so ``fireeval evaluate`` never loads pandas.
_NP_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint32": np.uint32,
             "uint64": np.uint64, "float": np.float32, "double": np.float64}


def to_numpy(array, fill=None) -> np.ndarray:
    """A numeric pyarrow array (chunked or not) as a numpy array; nulls become ``fill``."""
    if hasattr(array, "combine_chunks"):
        array = array.combine_chunks()
    dtype = np.dtype(_NP_TYPES[str(array.type)])
    validity, data = array.buffers()[:2]
    values = np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    if array.null_count:
        if fill is None:
            raise ValueError("to_numpy: the array has nulls; pass fill")
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        valid = bits[array.offset:array.offset + len(array)].astype(bool)
        values = np.where(valid, values, fill)
    return values


def to_arrow(values: np.ndarray):
    """A numeric numpy array as a pyarrow array (no copy when contiguous)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    kind = {np.dtype(v): k for k, v in _NP_TYPES.items()}[values.dtype]
    return pa.Array.from_buffers(pa.type_for_alias(kind), len(values), [None, pa.py_buffer(values)])


@validate_params(array=ANY, width=[Int(0), None])
def fixed_bytes(array, width: int | None = None):
    """A pyarrow string array as fixed-width bytes: ``(rows, lengths)``.

    ``rows`` is a (n, width) uint8 array, zero-padded (``width`` defaults to the longest
    string, rounded up to a multiple of 8; longer strings are cut and keep their true
    ``lengths``). No Python string is made: documents are matched against the qrels
    on these bytes.

    Parameters
    ----------
    array : pyarrow.StringArray
        The strings.
    width : int, optional
        Bytes per row (default: the longest, rounded up to 8).

    Returns
    -------
    rows : numpy.ndarray of uint8 (n, width)
        Zero-padded bytes.
    lengths : numpy.ndarray of int
        Each string's length in bytes.

    Examples
    --------
    >>> import pyarrow as pa
    >>> rows, lengths = fixed_bytes(pa.array(["ab", "c"]))
    >>> rows.shape, lengths.tolist()
    ((2, 8), [2, 1])
    """
    if isinstance(array, np.ndarray):
        return _fixed_rows(array, width)
    if hasattr(array, "combine_chunks"):
        array = array.combine_chunks()
    n = len(array)
    _, offsets_buf, data_buf = array.buffers()[:3]
    offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=n + 1, offset=array.offset * 4).astype(np.int64)
    lengths = np.diff(offsets)
    if width is None:
        width = max(int(lengths.max()) if n else 1, 1)
        width = -(-width // 8) * 8
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    if not len(data):
        return np.zeros((n, width), dtype=np.uint8), lengths
    out = np.zeros((n, width), dtype=np.uint8)
    start, last = offsets[:-1], len(data) - 1
    if width <= 8 * _NARROW_WORDS:
        for col in range(width):  # one gather per byte position: small, cache-friendly temporaries
            out[:, col] = np.where(col < lengths, data[np.minimum(start + col, last)], 0)
        return out, lengths
    step = max(1, _GATHER_CELLS // max(n, 1))  # a long docno: blocks of byte positions, linear in rows x width
    for first in range(0, width, step):
        cols = np.arange(first, min(first + step, width), dtype=np.int64)
        out[:, first:first + len(cols)] = np.where(cols < lengths[:, None],
                                                   data[np.minimum(start[:, None] + cols, last)], 0)
    return out, lengths


def _fixed_rows(texts: np.ndarray, width: int | None = None):
    """:func:`fixed_bytes` of a numpy bytes (``S``) array: its own buffer, padded or cut to ``width``."""
    texts = np.ascontiguousarray(texts)
    if texts.dtype.kind != "S":
        raise TypeError(f"fixed_bytes: expected a bytes (S) array, not {texts.dtype}")
    size = max(texts.dtype.itemsize, 1)
    rows = texts.view(np.uint8).reshape(len(texts), texts.dtype.itemsize) if texts.dtype.itemsize else \
        np.zeros((len(texts), 1), np.uint8)
    lengths = (rows != 0).sum(axis=1)  # (a TREC field holds no NUL byte: the readers refuse them)
    if width is None:
        width = -(-size // 8) * 8
    if width == rows.shape[1]:
        return rows, lengths
    out = np.zeros((len(texts), width), dtype=np.uint8)
    keep = min(width, rows.shape[1])
    out[:, :keep] = rows[:, :keep]
    return out, lengths


@validate_params(values=ANY)
def as_bytes_array(values) -> np.ndarray:
    """Texts as a numpy bytes (``S``, UTF-8) array: a bytes array as it is, a pyarrow string array through its
    buffers, anything else (strings, numbers) through ``str``.

    Parameters
    ----------
    values : array_like or pyarrow.StringArray
        Texts (or numbers, written with ``str``).

    Returns
    -------
    numpy.ndarray of bytes (``S``)
        UTF-8 encoded.

    Examples
    --------
    >>> as_bytes_array(["a", 1]).tolist()
    [b'a', b'1']
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        return values
    if hasattr(values, "buffers") or hasattr(values, "combine_chunks"):  # pyarrow (chunked) string array
        rows, _ = fixed_bytes(values)
        return rows.view(f"S{rows.shape[1]}").ravel()
    encoded = [str(v).encode("utf-8") for v in values]
    return np.array(encoded, dtype="S") if encoded else np.zeros(0, dtype="S1")


@validate_params(rows=ANY)
def intern_rows(rows: np.ndarray):
    """``(codes, firsts, hashes)`` of fixed-width byte rows: equal rows share a code, ``rows[firsts]`` are
    the distinct rows (code ``i`` is ``rows[firsts[i]]``), ``hashes`` their :func:`bytes_hash`. One sort of
    64-bit hashes, the bytes confirmed; an exact sort of the bytes only when two distinct rows share a hash.

    Parameters
    ----------
    rows : numpy.ndarray of uint8 (n, width)
        Fixed-width byte rows (:func:`fixed_bytes`).

    Returns
    -------
    codes : numpy.ndarray of int (n,)
        Each row's code.
    firsts : numpy.ndarray of int
        The first row of each code.
    hashes : numpy.ndarray of uint64
        The distinct rows' hashes.

    Examples
    --------
    >>> rows = np.array([[1, 2] + [0] * 6, [3, 4] + [0] * 6, [1, 2] + [0] * 6], dtype=np.uint8)
    >>> codes, firsts, _ = intern_rows(rows)
    >>> bool(codes[0] == codes[2] != codes[1]), sorted(firsts.tolist())
    (True, [0, 1])
    """
    n = len(rows)
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint64)
    hashes = bytes_hash(rows)
    order = np.argsort(hashes)  # (any order of equal rows: they are one code)
    ordered = hashes[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    words = rows.view(np.uint64)
    repeat = np.flatnonzero(~new)
    if len(repeat) and not (words[order[repeat]] == words[order[repeat - 1]]).all():  # a hash collision
        texts = rows.view(f"S{rows.shape[1]}").ravel()
        order = np.argsort(texts, kind="stable")
        ordered = texts[order]
        new = np.r_[True, ordered[1:] != ordered[:-1]]
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes, order[new], hashes


_HASH_MULTIPLIERS = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                              0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x94D049BB133111EB, 0xBF58476D1CE4E5B9],
                             dtype=np.uint64)


def bytes_hash(rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each fixed-width row (equal rows, equal hashes; collisions are checked by callers)."""
    words = rows.view(np.uint64)
    mult = np.resize(_HASH_MULTIPLIERS, words.shape[1]) + np.arange(words.shape[1], dtype=np.uint64) * np.uint64(2)
    with np.errstate(over="ignore"):
        h = words[:, 0] * mult[0] if words.shape[1] else np.zeros(len(words), np.uint64)
        narrow = min(words.shape[1], _NARROW_WORDS)
        for w in range(1, narrow):  # a column at a time: ~7x faster than a sum over the short axis
            h += words[:, w] * mult[w]
        step = max(1, _GATHER_CELLS // max(len(words), 1))
        for first in range(narrow, words.shape[1], step):  # a long docno: blocks of columns (the same sum mod 2^64)
            h += (words[:, first:first + step] * mult[first:first + step]).sum(axis=1, dtype=np.uint64)
        h ^= h >> np.uint64(29)
    return h


def arrow_call(name, args, options=None):
    """Call a pyarrow compute kernel without importing ``pyarrow.compute`` (0.2 s of docstrings)."""
    try:
        import pyarrow._compute as kernels
    except ImportError:  # pragma: no cover - layout of another pyarrow version
        import pyarrow.compute as kernels
    if isinstance(options, tuple):  # (options class name, arguments)
        options = getattr(kernels, options[0])(*options[1])
    return kernels.call_function(name, args, options)


def _codes(array):
    """Integer codes of a pyarrow string array (hash-interned once)."""
    encoded = arrow_call("dictionary_encode", [array])
    if hasattr(encoded, "combine_chunks"):
        encoded = encoded.combine_chunks()
    return to_numpy(encoded.indices).astype(np.int64), len(encoded.dictionary)


def _has_duplicate_pairs(query, docno) -> bool:
    q, _ = _codes(query)
    d, n_docs = _codes(docno)
    keys = np.sort(q * n_docs + d)
    return bool((keys[1:] == keys[:-1]).any())


_RUN_CHECKS = {4: (_is_float, "score {value!r} is not a finite number", "write a numeric score in column 5")}
_QRELS_CHECKS = {3: (_is_int, "relevance {value!r} is not an integer below 2^62 (trec_eval's atol would "
                        "read it as another number)",
                     "write an integer relevance grade (0 = non-relevant) in column 4")}


def raise_bad_run(path):
    """Raise the :class:`TrecFormatError` for the first bad line of run file ``path``."""
    _raise_first_bad_line(path, 6, _RUN_CHECKS, "a 6-column run", extra_fields=True)


@dataclass(frozen=True)
class RunTable:
    """A validated run in trec_eval order, as numpy arrays plus its docno dictionary (no pandas).

    ``topics`` are the run's topics sorted as strings (trec_eval's order); rows of topic
    ``topics[i]`` are ``starts[i]:starts[i + 1]``, ranked by score (compared in
    ``score_precision``) descending, ties by docno descending. Row ``j`` retrieved
    ``dictionary[doc_codes[j]]`` with ``score[j]``.

    Parameters
    ----------
    path : str
        The file read.
    tag : str
        The run's tag (its last line's).
    topics, starts, doc_codes, dictionary, score : ndarray
        As above.
    dictionary_hashes : ndarray, optional
        Each docno's hash, when known.

    Examples
    --------
    Made by :func:`read_run_table`:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("2 Q0 d1 1 0.7 sys\\n1 Q0 d2 1 0.5 sys\\n1 Q0 d1 2 0.9 sys\\n")
    >>> run = read_run_table(path)
    >>> run.tag, run.topics.tolist(), run.starts.tolist(), run.docnos()
    ('sys', ['1', '2'], [0, 2, 3], ['d1', 'd2', 'd1'])
    """

    path: str
    tag: str
    topics: np.ndarray
    starts: np.ndarray
    doc_codes: np.ndarray
    dictionary: np.ndarray  # the run's docnos, a numpy bytes (UTF-8) array
    score: np.ndarray
    dictionary_hashes: np.ndarray | None = None  # bytes_hash of each docno of the dictionary, when known

    def __len__(self):
        return len(self.score)

    def docnos(self) -> list:
        """Docnos in row order, as strings."""
        return [d.decode("utf-8") for d in self.dictionary[self.doc_codes].tolist()]

    @property
    def docno(self):
        """Docnos in row order (a pyarrow array)."""
        import pyarrow as pa

        return pa.array(self.docnos(), pa.string())


def _check_precision(score_precision):
    if score_precision in ("float", "single"):
        return np.float32
    if score_precision == "double":
        return np.float64
    raise ValueError(f"score_precision must be 'float' (trec_eval 9.0.7, NIST's official results) or "
                     f"'double' (trec_eval 10.0), not {score_precision!r}. Fix: give one of the two")


# Above this size, query and docno are dictionary-encoded while parsing (in the reader's threads, one
# dictionary per block, unified after): a 300 MB run reads 1 s faster. Below it, encoding after parsing
# is faster (a 2 MB TREC-8 run: 6 ms instead of 10).
_DICTIONARY_PARSE_BYTES = 16_000_000


def _read_run_arrow(path, dictionary: bool = False):
    """The run's arrow table (query, docno, score, tag) and its scores; with ``dictionary``, query and
    docno may come dictionary-typed."""
    import pyarrow as pa

    raw = _read_bytes(path)
    if not raw or raw.isspace():  # (isspace stops at the first other byte; strip() would copy the file)
        raise TrecFormatError(path, None, "the file is empty", "check that the file was written completely")
    dictionary = dictionary and len(raw) > _DICTIONARY_PARSE_BYTES
    text = pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string()
    types = {"query": text, "q0": pa.string(), "docno": text, "rank": pa.string(), "score": pa.float64(),
             "tag": pa.string()}
    table = _arrow_table(raw, RUN_COLUMNS, types, ["query", "docno", "score", "tag"])
    if table is None and _first_bad_line(path, 6, _RUN_CHECKS, extra_fields=True) is None:
        # lines with fields after the sixth, which trec_eval ignores: read again without them
        lines = [line.split() for line in raw.split(b"\n")]
        extra = [i for i, fields in enumerate(lines, 1) if len(fields) > 6]
        if extra:
            _warn_extra_fields(path, extra[0], len(extra), max(len(lines[i - 1]) for i in extra))
        raw = b"\n".join(b" ".join(fields[:6]) for fields in lines)
        table = _arrow_table(raw, RUN_COLUMNS, types, ["query", "docno", "score", "tag"])
    del raw
    if table is None:
        raise_bad_run(path)
    score = to_numpy(table.column("score"))
    if not np.isfinite(score).all():
        raise_bad_run(path)
    return table, score


def _dictionary_codes(column):
    """A string column, or a dictionary-typed one with unified dictionaries, as (int32 codes, dictionary)."""
    import pyarrow.types as pa_types

    if not pa_types.is_dictionary(column.type):
        column = arrow_call("dictionary_encode", [column.combine_chunks()])
        return to_numpy(column.indices).astype(np.int32, copy=False), column.dictionary
    chunks = column.chunks
    codes = [to_numpy(c.indices) for c in chunks]
    return (np.concatenate(codes) if len(codes) != 1 else codes[0]).astype(np.int32, copy=False), \
        chunks[0].dictionary


def _topic_score_order(topic, score):
    """Row order by topic ascending, then score descending (ties in any order: fixed after)."""
    if score.dtype == np.float32 and len(topic) and topic.max() < 2**31:
        bits = score.view(np.uint32).astype(np.uint64)
        # IEEE floats as unsigned integers in the same order; then flipped for "descending"
        ascending = np.where(bits >= 2**31, bits ^ np.uint64(0xFFFFFFFF), bits | np.uint64(2**31))
        key = (topic.astype(np.uint64) << np.uint64(32)) | (np.uint64(0xFFFFFFFF) - ascending)
        return np.argsort(key)  # one vectorised sort of 64-bit keys
    return np.lexsort((-score, topic))


def _grouped_layout(topic, n_topics):
    """When each topic's rows are contiguous in the file (as runs are written) and padding each topic
    to the longest is cheap: ``(starts, sizes, cells)``, the file's topic blocks and the flat index of
    each row in a (topics x longest) table (None when every topic has the same size); else None."""
    n = len(topic)
    starts = np.flatnonzero(topic[1:] != topic[:-1]) + 1
    if len(starts) + 1 != n_topics:
        return None  # a topic comes back later in the file
    starts = np.r_[0, starts]
    sizes = np.diff(np.r_[starts, n])
    width = int(sizes.max())
    if n_topics * width > 2 * n + 4096:
        return None  # very uneven topic sizes: the padded table would be mostly padding
    if (sizes == width).all():
        return starts, sizes, None  # a plain reshape
    shift = np.arange(n_topics, dtype=np.int64) * width - starts  # row r of block b goes to b * width + r - start
    return starts, sizes, np.arange(n, dtype=np.int64) + np.repeat(shift, sizes)


def _padded(values, layout, fill, copy=True):
    """``values`` (one per row, in file order) as the padded (topic blocks x longest) table of ``layout``."""
    starts, sizes, cells = layout
    shape = (len(starts), int(sizes.max()))
    if cells is None:
        return values.reshape(shape).copy() if copy else values.reshape(shape)
    table = np.full(shape, fill, dtype=values.dtype)
    table.ravel()[cells] = values
    return table


def _grouped_order(topic, doc, compared, layout):
    """(duplicate?, order) as :func:`_topic_score_order` and the (topic, document) check, one topic block
    at a time: sorting each row of a (topics x longest) table is ~5x faster than one long sort."""
    starts, sizes, _ = layout
    docs = _padded(doc, layout, np.iinfo(np.int64).min)  # padding sorts first
    docs.sort(axis=1)
    pads = docs.shape[1] - sizes  # per topic block: the first `pads` columns are padding
    duplicate = bool(((docs[:, 1:] == docs[:, :-1]) & (np.arange(1, docs.shape[1]) > pads[:, None])).any())
    del docs
    # NaN pads: numpy sorts it after everything, +inf included (a float32 score below -3.4e38 is -inf,
    # its key +inf, as trec_eval's C float makes it); a real key is never NaN (scores are finite).
    keys = _padded(-compared, layout, np.nan, copy=False)
    within = keys.argsort(axis=1)
    del keys
    by_topic = np.argsort(topic[starts], kind="stable")  # blocks in topic (string) order
    rows = starts[by_topic, None] + within[by_topic]
    if layout[2] is None:
        return duplicate, rows.ravel()
    return duplicate, rows[np.arange(rows.shape[1]) < sizes[by_topic, None]]


@validate_params(query=ANY)
def topic_codes(query: np.ndarray):
    """``(code per row, names)`` of a bytes array of topic ids: names sorted as strings (trec_eval's order).
    Only the first row of each run of equal ids is looked at (a run lists a topic's rows together).

    Parameters
    ----------
    query : numpy.ndarray of bytes
        The topic id of each row, a topic's rows together.

    Returns
    -------
    codes : numpy.ndarray of int
        Each row's topic, an index into ``names``.
    names : numpy.ndarray
        The distinct topics, sorted as strings.

    Examples
    --------
    >>> codes, names = topic_codes(np.array([b"2", b"2", b"10"]))
    >>> codes.tolist(), names.tolist()
    ([1, 1, 0], ['10', '2'])
    """
    heads = np.r_[0, np.flatnonzero(query[1:] != query[:-1]) + 1]
    head_ids = query[heads].tolist()
    names = sorted(set(head_ids))  # bytes order: code point order of the UTF-8 texts
    rank = {name: i for i, name in enumerate(names)}
    codes = np.repeat(np.array([rank[h] for h in head_ids], dtype=np.int32), np.diff(np.r_[heads, len(query)]))
    return codes, np.array([n.decode("utf-8") for n in names], dtype=str)


def _run_columns(path):
    """``(topic code per row, topic names in string order, document code per row, docnos as a bytes array,
    their hashes, scores, tag)`` of a run file, validated. numpy alone for a file up to ``_LEAN_BYTES`` in
    plain decimal scores: the docnos are then those of every row (document code None: the row itself);
    pyarrow's reader otherwise: the distinct docnos, and a code per row."""
    raw = _read_bytes(path)
    if not raw or raw.isspace():  # (isspace stops at the first other byte; strip() would copy the file)
        raise TrecFormatError(path, None, "the file is empty", "check that the file was written completely")
    if len(raw) <= _LEAN_BYTES:
        fields = _lean_fields(raw, 6, extra_fields=True, path=path)
        if fields is None:
            raise_bad_run(path)
        score = _lean_scores(_lean_column(fields, 4), check_bytes=b"_" in raw)
        if score is not None:
            if not np.isfinite(score).all():  # inf, nan, 1e400: the scan names the line
                raise_bad_run(path)
            data, _, ends = fields
            # the run's tag is the last line's, as trec_eval keeps it (no check that the lines agree)
            tag = data[_field_starts(fields, 5)[-1]:ends[-1, 5]].tobytes().decode("utf-8")
            topic, names = topic_codes(_lean_column(fields, 0))
            docnos = _lean_column(fields, 2)
            del fields, data, ends, raw
            return topic, names, None, docnos, bytes_hash(docnos.view(np.uint8).reshape(len(docnos), -1)), \
                score, tag
    del raw
    import pyarrow.types as pa_types

    table, score = _read_run_arrow(path, dictionary=True)
    tag = str(table.column("tag")[-1].as_py())  # the last line's, as trec_eval keeps it
    if pa_types.is_dictionary(table.schema.field("query").type):
        table = table.select(["query", "docno"]).unify_dictionaries()
    query, topic_names = _dictionary_codes(table.column("query"))
    doc, dictionary = _dictionary_codes(table.column("docno"))
    del table  # the parsed text: codes and the distinct docnos are all that is kept
    names = np.asarray(topic_names.to_pylist(), dtype=str)
    by_name = np.argsort(names, kind="stable")  # topics in string order
    topic_rank = np.empty(len(names), dtype=np.int32)
    topic_rank[by_name] = np.arange(len(names))
    dictionary = as_bytes_array(dictionary)
    hashes = bytes_hash(fixed_bytes(dictionary)[0])
    return topic_rank[query], names[by_name], doc, dictionary, hashes, score, tag


@validate_params(path=PATH, score_precision=STR)
def read_run_table(path, score_precision: str = "float") -> RunTable:
    """Read, validate and order a run file without pandas (the fast path of ``fireeval evaluate``).

    Raises :class:`TrecFormatError` naming the file, line and fix for a line with too
    few or too many fields, a score that is not a finite number, or a document listed
    twice for one topic.

    Parameters
    ----------
    path : path-like
        A six-column TREC run file, plain or gzip.
    score_precision : {"float", "double"}
        How scores are compared when ordering (as :func:`read_run`).

    Returns
    -------
    RunTable
        The run in trec_eval order.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("1 Q0 a 1 0.5 t\\n1 Q0 b 2 0.9 t\\n")
    >>> table = read_run_table(path)
    >>> table.tag, table.score.tolist()
    ('t', [0.9, 0.5])
    """
    dtype = _check_precision(score_precision)
    topic, names, doc, dictionary, hashes, score, tag = _run_columns(path)
    with np.errstate(over="ignore"):  # beyond float32's range a score is +-inf, as trec_eval's C float
        compared = score.astype(dtype) + dtype(0)  # -0.0 ties with 0.0, as in C
    # a document twice for one topic: its hash twice, then confirmed on the bytes (a hash match is not proof)
    key = hashes.view(np.int64) if doc is None else hashes.view(np.int64)[doc]
    layout = _grouped_layout(topic, len(names))
    if layout is not None:
        duplicate, order = _grouped_order(topic, key, compared, layout)
        del layout
    else:
        pair = np.lexsort((key, topic))
        duplicate = bool(((topic[pair[1:]] == topic[pair[:-1]]) & (key[pair[1:]] == key[pair[:-1]])).any())
        del pair
        order = None
    del key
    if duplicate and _has_duplicate_docnos(topic, dictionary if doc is None else dictionary[doc]):
        raise_bad_run(path)  # the scan names the line
    if order is None:
        order = _topic_score_order(topic, compared)
    t, c = topic[order], compared[order]
    same = (t[1:] == t[:-1]) & (c[1:] == c[:-1])
    if same.any():  # ties: only the tied rows are ordered by docno, descending
        tied = np.zeros(len(order), dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        block = np.cumsum(np.r_[True, ~same][tied])  # one id per tied (topic, score) block
        rows = order[tied]
        # docnos compared as bytes, as trec_eval's strcmp, descending (distinct within a block: duplicates are
        # refused), then the blocks put back in order by a stable sort, which keeps that order within each
        by_docno = np.argsort(~_bytes_order_key(dictionary[rows if doc is None else doc[rows]]))
        block = (block.astype(np.uint16) if block[-1] < 2**16 else block)[by_docno]  # (uint16: a radix sort)
        within = np.argsort(block, kind="stable")
        order[tied] = rows[by_docno[within]]
    starts = np.r_[0, np.flatnonzero(t[1:] != t[:-1]) + 1, len(t)]
    return RunTable(str(path), tag, names, starts, order if doc is None else doc[order], dictionary, score[order],
                    hashes)


def _bytes_order_key(texts: np.ndarray) -> np.ndarray:
    """A uint64 per text of a bytes (``S``) array that orders as the bytes do (equal texts, equal keys).

    The texts are read as big-endian 64-bit words (zero padding sorts first, as a shorter text
    before a longer one it begins); past the first word, the key is the dense rank of the key so
    far in the high 32 bits and the dense rank of the next word in the low 32 (so fewer than 2^32
    texts). numpy's integer sort is several times faster than its sort of bytes strings or a
    stable multi-key sort.

    >>> texts = np.array([b"FR940104-0-00001", b"FBIS3-1", b"FR940104-0-00010", b"FBIS3-10"])
    >>> np.argsort(_bytes_order_key(texts)).tolist() == np.argsort(texts).tolist()
    True
    """
    texts = np.ascontiguousarray(texts)
    if texts.dtype.itemsize % 8 or not texts.dtype.itemsize:
        texts = texts.astype(f"S{-(-max(texts.dtype.itemsize, 1) // 8) * 8}")
    words = texts.view(">u8").reshape(len(texts), -1)
    if words.shape[1] > _NARROW_WORDS:  # long texts: one sort of the bytes, then dense ranks (a rank pass
        order = np.argsort(texts, kind="stable")  # per word would be quadratic in the width)
        ordered = texts[order]
        key = np.empty(len(texts), dtype=np.uint64)
        key[order] = np.cumsum(np.r_[False, ordered[1:] != ordered[:-1]], dtype=np.uint64)
        return key
    key = words[:, 0].astype(np.uint64)
    for w in range(1, words.shape[1]):
        key = (_dense_rank(key) << np.uint64(32)) | _dense_rank(words[:, w])
    return key


def _dense_rank(values: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... in the order of ``values`` (equal values, equal ranks), as uint64."""
    order = np.argsort(values)
    ordered = values[order]
    rank = np.empty(len(values), dtype=np.uint64)
    rank[order] = np.cumsum(np.r_[False, ordered[1:] != ordered[:-1]], dtype=np.uint64)
    return rank


def _has_duplicate_docnos(topic, docnos) -> bool:
    """Whether a docno (bytes) appears twice for one topic, compared exactly."""
    pair = np.lexsort((docnos, topic))
    return bool(((topic[pair[1:]] == topic[pair[:-1]]) & (docnos[pair[1:]] == docnos[pair[:-1]])).any())


@validate_params(path=PATH, ordered=BOOL, check_duplicates=BOOL, score_precision=STR)
def read_run(path, *, ordered: bool = True, check_duplicates: bool = True, score_precision: str = "float"):
    """Read a TREC run file into a DataFrame with columns query, docno, score, tag.

    Parameters
    ----------
    path : path-like
        Six-column run file, plain or gzip; fields separated by spaces and/or tabs.
    ordered : bool, default True
        Return rows in trec_eval order within each query (score descending, ties by
        docno descending) and add a 1-based ``rank`` column in that order. The file's
        own rank column is ignored, as trec_eval ignores it.
    check_duplicates : bool, default True
        Reject a document listed twice for one topic.
    score_precision : {"float", "double"}
        How scores are compared when ordering: "float" as trec_eval 9.0.7 (it
        reads scores into a C float; NIST's official TREC results), "double" as
        trec_eval 10.0 (scores became doubles in its 2023 sources). Returned scores are
        the parsed doubles either way.

    Returns
    -------
    pandas.DataFrame
        Columns query, docno, score, tag (and rank when ``ordered``).

    Raises
    ------
    TrecFormatError
        Empty file, wrong column count, non-numeric score, or a document listed twice
        for one topic -- with the file, line and fix.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("1 Q0 a 1 0.5 t\\n1 Q0 b 2 0.9 t\\n")
    >>> read_run(path)[["docno", "rank"]].values.tolist()
    [['b', 1], ['a', 2]]
    """
    import pandas as pd

    if ordered:
        run = read_run_table(path, score_precision)
        sizes = np.diff(run.starts)
        frame = pd.DataFrame({"query": np.repeat(run.topics.astype(object), sizes),
                              "docno": np.asarray(run.docnos(), dtype=object),
                              "score": run.score, "tag": run.tag})
        frame["rank"] = np.arange(len(frame)) - np.repeat(run.starts[:-1], sizes) + 1
        return frame
    table, _ = _read_run_arrow(path)
    if check_duplicates and _has_duplicate_pairs(table.column("query"), table.column("docno")):
        raise_bad_run(path)
    return table.to_pandas(types_mapper=None).astype({"query": object, "docno": object, "tag": object})


@validate_params(path=PATH, check_duplicates=BOOL)
def read_qrels_table(path, check_duplicates: bool = True):
    """``(query, docno, relevance)``: pyarrow string arrays and an int64 array, validated.

    A line with too few or too many fields, a relevance that is not an integer ("1.0"
    passes, as trec_eval's atol reads it), or a document judged twice for one topic
    raises :class:`TrecFormatError` with the file, line and fix.

    Parameters
    ----------
    path : path-like
        A 4-column TREC qrels file, plain or gzip.
    check_duplicates : bool
        Reject a document judged twice for one topic.

    Returns
    -------
    query, docno : pyarrow.StringArray
        Each judgement's topic and document.
    relevance : numpy.ndarray of int64
        Each judgement's grade.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("1 0 a 1\\n1 0 b 0\\n")
    >>> query, docno, relevance = read_qrels_table(path)
    >>> docno.to_pylist(), relevance.tolist()
    (['a', 'b'], [1, 0])
    """
    import pyarrow as pa

    raw = _read_bytes(path)
    if not raw or raw.isspace():  # (isspace stops at the first other byte; strip() would copy the file)
        raise TrecFormatError(path, None, "the file is empty", "check that the file was written completely")
    types = {c: pa.string() for c in QRELS_COLUMNS}
    table = _arrow_table(raw, QRELS_COLUMNS, types, ["query", "docno", "relevance"])
    if table is None:
        _raise_first_bad_line(path, 4, _QRELS_CHECKS, "4-column qrels")
    text = table.column("relevance").combine_chunks()
    # integers as atol reads them ("+1" and "2.0" too); anything else (arrow would also take "0x1") is
    # named with its line
    ok = arrow_call("match_substring_regex", [text], ("MatchSubstringOptions", (f"^{_GRADE.pattern}$",)))
    if ok.false_count:
        _raise_first_bad_line(path, 4, _QRELS_CHECKS, "4-column qrels")
    try:
        relevance = to_numpy(arrow_call("cast", [text], ("CastOptions", (pa.int64(),))))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        digits = arrow_call("replace_substring_regex", [text], ("ReplaceSubstringOptions", (r"^\+|\.0*$", "")))
        try:
            relevance = to_numpy(arrow_call("cast", [digits], ("CastOptions", (pa.int64(),))))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            relevance = None
    if relevance is None or ((relevance >= _GRADE_LIMIT) | (relevance <= -_GRADE_LIMIT)).any():
        _raise_first_bad_line(path, 4, _QRELS_CHECKS, "4-column qrels")
    query, docno = table.column("query").combine_chunks(), table.column("docno").combine_chunks()
    if check_duplicates and _has_duplicate_pairs(query, docno):
        raise_bad_qrels(path)
    return query, docno, relevance


@validate_params(path=PATH, check_duplicates=BOOL)
def read_qrels_columns(path, check_duplicates: bool = True):
    """``(query, docno, relevance)``: numpy bytes (UTF-8) arrays and an int64 array, validated as
    :func:`read_qrels_table`; numpy alone for a file up to ``_LEAN_BYTES`` (the reader of ``fireeval
    evaluate``), pyarrow's reader for larger files.

    Parameters
    ----------
    path : path-like
        A 4-column TREC qrels file, plain or gzip.
    check_duplicates : bool
        Reject a document judged twice for one topic.

    Returns
    -------
    query, docno : numpy.ndarray of bytes
        Each judgement's topic and document (UTF-8).
    relevance : numpy.ndarray of int64
        Each judgement's grade.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("1 0 a 1\\n1 0 b 0\\n")
    >>> query, docno, relevance = read_qrels_columns(path)
    >>> docno.tolist(), relevance.tolist()
    ([b'a', b'b'], [1, 0])
    """
    raw = _read_bytes(path)
    if not raw or raw.isspace():
        raise TrecFormatError(path, None, "the file is empty", "check that the file was written completely")
    if len(raw) > _LEAN_BYTES:
        del raw
        query, docno, relevance = read_qrels_table(path, check_duplicates)
        return as_bytes_array(query), as_bytes_array(docno), relevance
    fields = _lean_fields(raw, 4)
    if fields is None:
        raise_bad_qrels(path)
    grades = _lean_column(fields, 3)
    # a qrels file holds a handful of distinct grades: each is checked and converted once
    words = grades.view("<u8") if grades.dtype.itemsize == 8 else None
    if words is not None and not (words >> np.uint64(8)).any():  # every grade one byte (0, 1, 2 ...): by table
        codes = words.astype(np.intp)
        texts = [bytes([b]) for b in np.flatnonzero(np.bincount(codes, minlength=256))]
        table = np.zeros(256, dtype=np.int64)
        for text in texts:
            if not _is_int(text.decode("ascii", "replace")):
                raise_bad_qrels(path)
            table[text[0]] = int(text)
        relevance = table[codes]
    else:
        texts = sorted(set(grades.tolist()))
        values = []
        for text in texts:
            if not _is_int(text.decode("ascii", "replace")):
                raise_bad_qrels(path)
            values.append(int(text.split(b".")[0]))
        relevance = np.array(values, dtype=np.int64)[np.searchsorted(np.array(texts, dtype=grades.dtype), grades)]
    query, docno = _lean_column(fields, 0), _lean_column(fields, 2)
    if check_duplicates:
        topic, _ = topic_codes(query)
        doc, firsts, _ = intern_rows(docno.view(np.uint8).reshape(len(docno), -1))
        keys = np.sort(topic.astype(np.int64) * max(len(firsts), 1) + doc)
        if (keys[1:] == keys[:-1]).any():
            raise_bad_qrels(path)
    return query, docno, relevance


def raise_bad_qrels(path):
    """Raise the :class:`TrecFormatError` for the first bad line of qrels file ``path``."""
    _raise_first_bad_line(path, 4, _QRELS_CHECKS, "4-column qrels")


@validate_params(path=PATH)
def read_qrels(path):
    """Read a TREC qrels file into a DataFrame with columns query, docno, relevance (int).

    Extra columns after the fourth (as in TREC-8's annotated qrels) are rejected:
    keep the first four columns for trec_eval-style qrels.

    Parameters
    ----------
    path : path-like
        A 4-column TREC qrels file, plain or gzip.

    Returns
    -------
    pandas.DataFrame
        Columns query, docno, relevance (int).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("1 0 a 1\\n1 0 b 0\\n")
    >>> read_qrels(path).values.tolist()
    [['1', 'a', 1], ['1', 'b', 0]]
    """
    import pandas as pd

    query, docno, relevance = read_qrels_table(path)
    return pd.DataFrame({"query": np.asarray(query.to_pylist(), dtype=object),
                         "docno": np.asarray(docno.to_pylist(), dtype=object), "relevance": relevance})


@validate_params(frame=ANY, by=ANY, score_precision=STR)
def trec_order(frame, by=("query",), score_precision: str = "float"):
    """Sort rows as trec_eval does and number them.

    Within each group of ``by`` columns: score descending, ties broken by docno
    descending (trec_eval compares docnos as strings). Adds ``rank`` (1-based).
    This order, not a file's rank column, reproduces TREC-8's judged pool.

    Scores are compared in single precision by default (``score_precision="float"``),
    because trec_eval 9.0.7 -- the version behind NIST's official TREC results and
    pytrec_eval -- reads them into a C ``float``: two scores that differ only beyond
    float32 precision are a tie, broken by docno. trec_eval 10.0 reads them as
    ``double``; ``score_precision="double"`` reproduces that. (The two differ on one
    TREC-8 run, uwmt8a0, by up to ~4e-6 in AP on some topics.)

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns query, docno, score (and those of ``by``).
    by : tuple of str
        The groups ranked separately.
    score_precision : {"float", "double"}
        How scores are compared.

    Returns
    -------
    pandas.DataFrame
        The rows in trec_eval order, with ``rank``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"query": ["1", "1"], "docno": ["a", "b"], "score": [0.5, 0.5]})
    >>> trec_order(frame)[["docno", "rank"]].values.tolist()   # a tie: docno descending
    [['b', 1], ['a', 2]]
    """
    import pandas as pd

    dtype = _check_precision(score_precision)
    by = list(by)
    group = np.zeros(len(frame), dtype=np.int64)
    for col in by:
        codes, uniques = pd.factorize(frame[col], sort=True)
        group = group * len(uniques) + codes
    with np.errstate(over="ignore"):  # beyond float32's range a score is +-inf, as trec_eval's C float
        score = frame["score"].to_numpy(dtype=dtype) + dtype(0)
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


def _check_fields(frame, columns, what):
    """Refuse values :func:`read_run`/:func:`read_qrels` could not read back: empty fields or fields with
    whitespace (they split into several columns)."""
    for col in columns:
        text = frame[col].astype(str)
        bad = (text.str.len() == 0) | text.str.contains(r"\s", regex=True)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"{what}: row {row + 1}: {col} {text.iloc[row]!r} is empty or holds whitespace, which "
                             "would split the line into other columns. Fix: remove or replace the whitespace")


@validate_params(frame=ANY, path=PATH, tag=[STR, None])
def write_run(frame, path, tag: str | None = None) -> None:
    """Write a run (columns query, docno, score[, tag]) in trec_eval order, 6 columns.

    Parameters
    ----------
    frame : DataFrame
        Columns query, docno, score and optionally tag.
    path : path-like
        Output file (gzip when it ends in ``.gz``).
    tag : str, optional
        Run tag for every line (default: the ``tag`` column, else "fireeval").

    Raises ValueError for what could not be read back: a query, docno or tag that is
    empty or holds whitespace, a score that is not a finite number.

    Returns
    -------
    None
        The file is written (replaced when it exists).

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.txt")
    >>> write_run(pd.DataFrame({"query": ["1"], "docno": ["d"], "score": [0.5]}), path, tag="t")
    >>> open(path).read()
    '1 Q0 d 1 0.5 t\\n'
    """
    import pandas as pd

    score = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(score).all():
        row = int(np.flatnonzero(~np.isfinite(score))[0])
        raise ValueError(f"{path}: row {row + 1}: score {frame['score'].iloc[row]} is not a finite number. "
                         "Fix: give every document a finite score")
    _check_fields(frame, ["query", "docno"] + (["tag"] if "tag" in frame and tag is None else []), str(path))
    if tag is not None and (not str(tag) or any(c.isspace() for c in str(tag))):
        raise ValueError(f"{path}: tag {tag!r} is empty or holds whitespace. Fix: give a one-word run tag")
    ordered = trec_order(frame)
    tags = ordered["tag"] if "tag" in ordered and tag is None else (tag or "fireeval")
    out = pd.DataFrame({"query": ordered["query"], "q0": "Q0", "docno": ordered["docno"],
                        "rank": ordered["rank"], "score": ordered["score"].map(repr), "tag": tags})
    _write(out, path)


@validate_params(frame=ANY, path=PATH)
def write_qrels(frame, path) -> None:
    """Write qrels (columns query, docno, relevance) as 4-column TREC qrels.

    Parameters
    ----------
    frame : DataFrame
        Columns query, docno and relevance (whole numbers: 2.0 is written 2, 0.6 is refused
        rather than truncated to 0).
    path : path-like
        Output file (gzip when it ends in ``.gz``).

    Returns
    -------
    None
        The file is written (replaced when it exists).

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "q.txt")
    >>> write_qrels(pd.DataFrame({"query": ["1"], "docno": ["d"], "relevance": [2.0]}), path)
    >>> open(path).read()
    '1 0 d 2\\n'
    """
    import pandas as pd

    relevance = pd.to_numeric(frame["relevance"], errors="coerce").to_numpy(dtype=float)
    whole = np.isfinite(relevance) & (relevance == np.round(relevance)) & (np.abs(relevance) < _GRADE_LIMIT)
    if not whole.all():
        row = int(np.flatnonzero(~whole)[0])
        raise ValueError(f"{path}: row {row + 1}: relevance {frame['relevance'].iloc[row]} is not a whole number "
                         "(writing it would truncate it). Fix: give integer grades (0 = non-relevant)")
    _check_fields(frame, ["query", "docno"], str(path))
    out = pd.DataFrame({"query": frame["query"], "iteration": 0, "docno": frame["docno"],
                        "relevance": relevance.astype(np.int64)})
    _write(out, path)


def _write(frame, path):
    text = frame.to_csv(sep=" ", header=False, index=False)
    path = Path(path)
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


@validate_params(paths=ANY, read=Instance(object), ahead=Int(0))
def read_ahead(paths, read, ahead: int = 2):
    """Yield ``(path, read(path))`` in order, reading the next files in a thread meanwhile.

    Gunzip and pyarrow's parser release the GIL, so reading overlaps scoring on a
    second core; at most ``ahead`` files wait in memory. An error surfaces in order.
    Used by ``fireeval evaluate`` and ``fireeval compare`` over many runs.

    Parameters
    ----------
    paths : iterable
        The files, in order.
    read : callable
        ``read(path)``.
    ahead : int
        Files read ahead at most.

    Yields
    ------
    tuple
        ``(path, read(path))``.

    Examples
    --------
    >>> list(read_ahead(["a", "b", "c"], str.upper))
    [('a', 'A'), ('b', 'B'), ('c', 'C')]
    """
    paths = list(paths)
    if len(paths) == 1:
        yield paths[0], read(paths[0])
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = [pool.submit(read, p) for p in paths[:ahead]]
        for i, path in enumerate(paths):
            run = pending.pop(0).result()
            if i + ahead < len(paths):
                pending.append(pool.submit(read, paths[i + ahead]))
            yield path, run


@validate_params()
def default_jobs() -> int:
    """The cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count()``).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> default_jobs() >= 1
    True
    """
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _portable(exc: BaseException):
    """``exc`` as something that survives pickling: the exception itself when it pickles back whole
    (an ``OSError`` keeps its errno and file name), else ``(type, args, attributes)`` (an exception
    whose ``__init__`` takes other arguments than its ``args``, as :class:`TrecFormatError`)."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 -- any failure to round-trip: send its parts
        return type(exc), exc.args, dict(getattr(exc, "__dict__", {}))


def _rebuilt(portable) -> BaseException:
    if isinstance(portable, BaseException):
        return portable
    cls, args, attributes = portable
    exc = cls.__new__(cls)
    BaseException.__init__(exc, *args)
    exc.__dict__.update(attributes)
    return exc


def _call(func, item, portable: bool):
    """``((kind, value), warnings raised)`` of ``func(item)``: kind "ok" with the result, or "error" with the
    exception (made :func:`_portable` for a worker to send)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        try:
            result = ("ok", func(item))
        except Exception as exc:  # noqa: BLE001 -- raised by the parent, in order
            result = ("error", _portable(exc) if portable else exc)
    return result, [(str(w.message), w.category, w.filename, w.lineno) for w in caught]


def _take(job_fd):
    """The next item index on the job pipe (4 bytes: one whole token, as every write and read is of whole
    tokens), ``None`` when none is there now (the pipe does not block), ``-1`` when no more will come
    (the parent closed its end)."""
    import os

    try:
        token = os.read(job_fd, 4)
    except BlockingIOError:
        return None
    return int.from_bytes(token, "little") if len(token) == 4 else -1


def _send(out, message) -> None:
    import pickle

    blob = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(blob).to_bytes(8, "little") + blob)
    out.flush()


def _flush_std_streams() -> None:
    """Flush stdout and stderr before forking: a buffer not yet written would be written twice."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def _fork_workers(func, items, n_workers: int, job_fd, token_fd, workers: dict) -> None:
    """Fork ``n_workers`` :func:`_worker` processes; ``workers`` gets the read end of each one's result pipe
    -> its pid. Each child closes the parent's ends it does not use (the token pipe's write end: only the
    parent hands out work, and closes it at the end)."""
    import os

    for _ in range(n_workers):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            if token_fd is not None:
                os.close(token_fd)
            for fd in workers:
                os.close(fd)
            _worker(func, items, job_fd, write_fd)
        os.close(write_fd)
        workers[read_fd] = pid


def _delivered(i: int, outcome, said):
    """The result of item ``i`` as ``map`` gives it: its warnings re-issued first, then its value, or the
    error it raised, or a one-line error when its worker ended without a result (``outcome`` is
    ``(kind, value)``, kind "value", "error" or "lost")."""
    import warnings

    kind, value = outcome
    for message, category, filename, lineno in said:
        warnings.warn_explicit(message, category, filename, lineno)
    if kind == "lost":
        raise RuntimeError(f"worker process {value} ended without a result for item {i} (killed, or "
                           "out of memory?). Fix: run again with one job (--jobs 1 / jobs=1)")
    if kind == "error":
        raise _rebuilt(value)
    return value


def _end_workers(workers: dict, buffers: dict, finished: bool) -> None:
    """Stop (SIGTERM, unless every result was delivered: ``finished``) and reap the workers, closing the
    result pipes not closed yet (those still in ``buffers``: their worker had not ended)."""
    import os
    import signal

    for fd, pid in workers.items():
        if not finished:  # an error, or the caller stopped early: the rest is not wanted
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        if fd in buffers:
            os.close(fd)
        os.waitpid(pid, 0)


def _worker(func, items, job_fd, out_fd) -> None:
    """A forked worker: takes item indices from the job pipe until it is closed and empty; for each it says
    ``("claim", i)``, then ``("done", i, result, warnings)``, pickled on ``out_fd``, length first; stops
    after an error. Never returns."""
    import os
    import select
    import signal

    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C reaches the whole group: the parent says so
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        waiting = select.poll()  # (the job pipe does not block: the parent also takes from it)
        waiting.register(job_fd, select.POLLIN)
        with os.fdopen(out_fd, "wb") as out:
            while True:
                i = _take(job_fd)
                if i is None:
                    waiting.poll()
                    continue
                if i < 0:
                    break
                _send(out, ("claim", i))
                result, said = _call(func, items[i], portable=True)
                _send(out, ("done", i, result, said))
                if result[0] == "error":
                    break
    except BaseException:  # noqa: BLE001 -- the parent sees the pipe close early and says so
        status = 1
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's buffers


def _messages(buffer: bytearray):
    """Take every whole ``length + pickle`` message off the front of ``buffer``."""
    import pickle

    out = []
    while len(buffer) >= 8:
        size = int.from_bytes(buffer[:8], "little")
        if len(buffer) < 8 + size:
            break
        out.append(pickle.loads(bytes(buffer[8:8 + size])))
        del buffer[:8 + size]
    return out


@validate_params(func=ANY, items=ANY, jobs=Int())
def map_in_workers(func, items, jobs: int):
    """Yield ``func(item)`` for each item, in order, computed by ``jobs`` processes (this one and forked
    workers).

    What the caller sees is what ``map(func, items)`` gives: results in input order, the first
    error raised when its item comes (nothing after it is yielded), and the warnings each call
    raised re-issued just before its result. ``jobs - 1`` workers are forked once the caller's
    data (a :class:`~fireeval.core.stream.QrelsIndex`) is built, so they share it copy-on-write.
    Every process takes the next item as it finishes one (item numbers on a shared pipe, as GNU
    make's job server hands out work), so a long item does not hold the others back; the pipe
    holds the items at most ``4 x jobs`` (at least 8, at most 1024) past the next one to yield,
    so the results waiting in memory stay bounded. A worker that dies without reporting (killed, out of
    memory) stops the map at its item with a message naming it. One job, one item, or no
    ``os.fork`` (Windows): plain ``map`` in this process.

    Parameters
    ----------
    func : callable
        Called on each item (in a worker process).
    items : sequence
        The items.
    jobs : int
        Processes, this one included.

    Yields
    ------
    object
        ``func(item)`` for each item, in order.

    Examples
    --------
    >>> list(map_in_workers(abs, [-1, 2, -3], jobs=1))
    [1, 2, 3]

    >>> list(map_in_workers(len, ["a", "bb", "ccc"], 2))
    [1, 2, 3]
    """
    import os

    items = list(items)
    jobs = min(int(jobs), len(items))
    if jobs <= 1 or not hasattr(os, "fork"):
        yield from map(func, items)
        return
    import selectors

    _flush_std_streams()
    import gc

    n, window = len(items), min(1024, max(8, 4 * jobs))  # (1024 tokens: 4 KB, a page, which any pipe holds)
    job_fd, token_fd = os.pipe()
    os.set_blocking(job_fd, False)  # (shared by every process: the workers wait with poll)
    written = 0

    def hand_out(upto):
        """Put the item numbers below ``upto`` on the job pipe (at most ``window`` x 4 bytes on it at a time,
        at most a page, which any pipe holds: this never blocks); close it after the last."""
        nonlocal written, token_fd
        upto = min(upto, n)
        if upto > written:
            os.write(token_fd, b"".join(i.to_bytes(4, "little") for i in range(written, upto)))
            written = upto
        if written == n and token_fd is not None:
            os.close(token_fd)
            token_fd = None

    hand_out(window)
    workers, buffers, finished = {}, {}, False  # read end of each worker's pipe -> its pid, its unread bytes
    gc.freeze()  # the objects made so far stay out of the workers' collections: their pages stay shared
    try:
        _fork_workers(func, items, jobs - 1, job_fd, token_fd, workers)
        gc.unfreeze()
        selector = selectors.DefaultSelector()
        buffers.update((fd, bytearray()) for fd in workers)
        for fd in workers:
            selector.register(fd, selectors.EVENT_READ)
        done, held = {}, {}  # results by item; the items each worker has taken and not reported
        taking, stop = True, n  # this process takes items (while any come), computes those below `stop`

        def receive(timeout):
            """Messages from the workers, waiting at most ``timeout`` seconds (None: until one comes)."""
            if not buffers:
                return
            for key, _ in selector.select(timeout):
                fd = key.fd
                data = os.read(fd, 1 << 20)
                if not data:  # the worker has ended: what it took and did not report is lost
                    for i in held.pop(fd, set()):
                        done[i] = ("lost", workers[fd]), []
                    selector.unregister(fd)
                    os.close(fd)
                    del buffers[fd]
                    continue
                buffers[fd].extend(data)
                for message in _messages(buffers[fd]):
                    if message[0] == "claim":
                        held.setdefault(fd, set()).add(message[1])
                    else:
                        _, i, result, said = message
                        held[fd].discard(i)
                        done[i] = result, said

        for i in range(n):
            hand_out(i + window)
            while i not in done:
                receive(0)
                if i in done:
                    break
                j = _take(job_fd) if taking else None
                if j is not None and j < 0:
                    taking = False
                elif j is not None and j < stop:
                    done[j] = _call(func, items[j], portable=False)
                    if done[j][0][0] == "error":
                        stop = j  # nothing after it will be wanted
                elif j is None:  # nothing to take now (or any more): wait for a worker
                    if not buffers:
                        raise RuntimeError(f"the worker processes ({', '.join(map(str, workers.values()))}) "
                                           f"ended without computing item {i}. Fix: run again with one job "
                                           "(--jobs 1 / jobs=1)")
                    receive(None)
            yield _delivered(i, *done.pop(i))
        finished = True
    finally:
        gc.unfreeze()
        os.close(job_fd)
        if token_fd is not None:
            os.close(token_fd)
        _end_workers(workers, buffers, finished)
