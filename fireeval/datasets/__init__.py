"""Where the real data files are, verified by checksum.

Every upstream file the book uses is listed in ``data/registry.json`` (path below
the data root, sha256, upstream URL at a pinned commit, licence). :func:`data_path`
resolves a registry path in this order:

1. ``root`` passed by the caller (a notebook's ``data_dir`` parameter), else the
   directory in the ``FIREEVAL_DATA`` environment variable: a folder the reader named is
   the **only** place searched (a file missing there is missing, never looked up elsewhere);
2. only when nothing was named: ``../shared/data`` beside the project checkout, when it
   exists (another folder with ``FIREEVAL_SHARED_DATA``; an empty one makes the book run
   as on a machine without data);
3. a download into the user cache (``pooch.os_cache("fireeval")``), only when
   ``download=True`` and the registry knows an upstream URL.

The checksum is verified in every case; a mismatch raises :class:`DataError`. Files
that the shared folder stores gzipped are downloaded uncompressed (their upstream
form) and verified against the upstream checksum; the readers accept both forms.
Nothing is ever written into a data directory.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from fireeval.core.validation import ANY, BOOL, STR, Check, Instance, validate_params
from fireeval.core.parsed_cache import default_shared_data

__all__ = ["DataError", "DataUnavailable", "data_path", "data_root", "named_root", "folders_read", "has_data",
           "data_folders", "registry",
           "check_readable", "text_lines", "read_json", "read_jsonl", "MAX_LINE_CHARS", "JSONNumberError", "json_int",
           "choose_source", "optional_data", "SOURCES", "DECIMAL", "decimal_number", "ROOT", "FILE"]

#: Longest line the line-based readers accept (a data line is far shorter; a binary or
#: corrupt file is refused instead of being read into memory as one huge line).
MAX_LINE_CHARS = 1 << 20

#: the declaration of a ``root`` parameter: the data folder's path, or None for the default search
ROOT = [Instance(str, os.PathLike, fix="pass the data folder's path (str or Path)"), None]
#: the declaration of a file's path (as ``fireeval.core.trec``'s, without importing the TREC readers: ``fireeval diff``
#: reads its headlines through :func:`check_readable`)
FILE = Instance(str, os.PathLike, fix="pass a file's path (str or Path)")

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# An installed wheel ships the registry inside the package (setup.py's build step); a
# checkout reads data/registry.json.
REGISTRY_PATH = next((p for p in (Path(__file__).resolve().parent / "registry.json",
                                  PROJECT_ROOT / "data" / "registry.json") if p.is_file()),
                     PROJECT_ROOT / "data" / "registry.json")
#: ``$FIREEVAL_SHARED_DATA``, else ``shared/data`` beside the checkout (the rule is in core, which the cache uses)
SHARED_DATA = default_shared_data()


class DataError(RuntimeError):
    """A data file exists but is not the expected one (checksum mismatch).

    Examples
    --------
    A file present under the name of a registry file but with other content:

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> name = "trec8_adhoc/mini_topics401-410/qrels.topics401-410.txt.gz"
    >>> os.makedirs(os.path.join(folder, os.path.dirname(name)))
    >>> _ = open(os.path.join(folder, name), "w").write("not the qrels")
    >>> data_path(name, root=folder)
    Traceback (most recent call last):
    ...
    fireeval.datasets.DataError: /tmp/.../qrels.topics401-410.txt.gz: sha256 is ..., expected 2e0c... (data/registry.json). Fix: replace the file with the upstream version named in the registry.
    """


class DataUnavailable(FileNotFoundError):
    """A data file is not present in any data root and cannot be downloaded.

    Examples
    --------
    >>> import tempfile
    >>> data_path("trec8_adhoc/mini_topics401-410/qrels.topics401-410.txt.gz", root=tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    fireeval.datasets.DataUnavailable: trec8_adhoc/.../qrels.topics401-410.txt.gz not found (looked in: /tmp/...). Fix: place ... in the folder you named (data_dir=/tmp/...), or name the folder that holds it (...).
    """


@validate_params(path=FILE, what=STR, text=BOOL)
def check_readable(path, what: str = "file", text: bool = True) -> Path:
    """``path`` as a Path if it is a readable regular file that looks like text, else a one-line error.

    Raises FileNotFoundError (missing), IsADirectoryError, PermissionError, or
    ValueError for a binary file when ``text`` (NUL bytes in its first 64 KiB: text
    data never has them), each naming the file and the fix.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file should be, for the message.
    text : bool
        Refuse binary data.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> check_readable(tempfile.mkdtemp(), "run file")
    Traceback (most recent call last):
    ...
    IsADirectoryError: /tmp/...: is a directory, expected a run file. Fix: give the file's path.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a directory, expected a {what}. Fix: give the file's path.")
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file. Fix: check the path (expected a {what}).")
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except PermissionError:
        raise PermissionError(f"{path}: permission denied. Fix: make the file readable (chmod +r).") from None
    if text and b"\0" in head:
        raise ValueError(f"{path}: binary data (NUL bytes), expected a text {what}. "
                         "Fix: give the uncompressed text file.")
    return path


@validate_params(path=FILE, what=STR)
def text_lines(path, what: str = "file"):
    """Yield ``(line_number, line)`` of a UTF-8 text file, without the newline.

    A byte-order mark is dropped, blank lines are skipped, lines longer than
    :data:`MAX_LINE_CHARS` are an error (the file is streamed, never read whole).

    Parameters
    ----------
    path : path-like
        A UTF-8 text file.
    what : str
        What the file should be, for the messages.

    Yields
    ------
    (int, str)
        The line number (1-based, counting blank lines) and the line.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ids.txt")
    >>> _ = open(path, "w").write("video1\\n\\nvideo2\\n")
    >>> list(text_lines(path))
    [(1, 'video1'), (3, 'video2')]
    """
    path = check_readable(path, what)
    with open(path, encoding="utf-8-sig", newline=None) as fh:
        lineno = 0
        while True:
            try:
                line = fh.readline(MAX_LINE_CHARS + 1)
            except UnicodeDecodeError as err:
                raise ValueError(f"{path}:{lineno + 1}: not UTF-8 text ({err.reason}). "
                                 "Fix: save the file as UTF-8.") from None
            if not line:
                return
            lineno += 1
            if len(line) > MAX_LINE_CHARS:
                raise ValueError(f"{path}:{lineno}: line longer than {MAX_LINE_CHARS} characters. "
                                 f"Fix: give a {what} with one record per line.")
            line = line.rstrip("\r\n")
            if line.strip():
                yield lineno, line


def _parse_json(data):
    """JSON ``data`` (bytes, maybe with a UTF-8 byte-order mark, or str) -> Python objects.

    orjson parses when it is installed (2-3x faster than the standard library on the
    moment-prediction files; floats are correctly rounded in both, so the values are
    identical). Anything orjson refuses goes to the standard library, which decides:
    what it accepts beyond strict JSON (NaN, Infinity, lone surrogates, numbers
    overflowing to inf) still loads, and its errors are today's. One difference stays:
    orjson reads integers beyond 64 bits as floats (the standard library as int).
    """
    try:
        import orjson
    except ImportError:  # optional speed-up: the standard library alone gives the same results
        orjson = None
    if orjson is not None:
        try:
            return orjson.loads(data[3:] if isinstance(data, bytes) and data[:3] == b"\xef\xbb\xbf" else data)
        except orjson.JSONDecodeError:
            pass  # the standard library gives the verdict and the message
    if isinstance(data, bytes):
        data = data.decode("utf-8-sig")
    return json.loads(data, parse_int=json_int.__wrapped__)  # (unchecked: called for every integer of a file)


#: A number as a text file writes it: optional sign, digits with an optional fraction, optional
#: exponent. ``float()`` also takes ``1_0`` (ten), ``inf``, ``nan``, ``0x1`` is refused by both; a
#: reader that used ``float()`` read ``1_0`` as 10 without a word.
DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@validate_params(text=ANY, where=STR, what=STR, fix=STR)
def decimal_number(text, where: str, what: str, fix: str = "give seconds as plain decimal numbers, e.g. 12.5"):
    """``float(text)`` when ``text`` is a plain decimal number (:data:`DECIMAL`), else a one-line ValueError.

    Parameters
    ----------
    text : str
        The field as read.
    where : str
        ``FILE:LINE`` for the message.
    what : str
        The field's name, for the message.
    fix : str
        What the message tells the reader to do.

    Returns
    -------
    float
        The number.

    >>> decimal_number(" 12.5", "p.csv:3", "start")
    12.5
    >>> decimal_number("1_0", "p.csv:3", "start")
    Traceback (most recent call last):
    ...
    ValueError: p.csv:3: start '1_0' is not a plain decimal number. Fix: give seconds as plain decimal numbers, e.g. 12.5
    """
    if not isinstance(text, str) or not DECIMAL.fullmatch(text.strip()):
        raise ValueError(f"{where}: {what} {text!r} is not a plain decimal number. Fix: {fix}")
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{where}: {what} {text!r} is beyond the range of a number. Fix: {fix}")
    return value


class JSONNumberError(ValueError):
    """A JSON integer too large for a float (every number becomes one in the measures).

    Examples
    --------
    >>> json_int("9" * 400)
    Traceback (most recent call last):
    ...
    fireeval.datasets.JSONNumberError: an integer of 400 digits, beyond the range of a number (about 1.8e308)
    """


@validate_params(text=STR)
def json_int(text: str) -> int:
    """``parse_int`` for :func:`json.loads`: an int, or :class:`JSONNumberError` past float range.

    Parameters
    ----------
    text : str
        The digits of a JSON integer.

    Returns
    -------
    int
        The integer.

    Examples
    --------
    >>> json_int("12")
    12
    """
    value = int(text)
    if len(text) > 300 and abs(value) > 1.7976931348623157e308:  # (compare only when it can be that big)
        raise JSONNumberError(f"an integer of {len(text.lstrip('-'))} digits, beyond the range of a number "
                              "(about 1.8e308)")
    return value


@validate_params(path=FILE, what=STR, text=[Instance(str, bytes, fix="pass the file's content as str or bytes"), None])
def read_json(path, what: str = "JSON file", text=None):
    """Parse a JSON file (or ``text`` read from ``path``) with one-line errors naming file and line.

    Parameters
    ----------
    path : path-like
        The file (named in errors).
    what : str
        What the file should be, for the messages.
    text : bytes or str, optional
        The file's content, when already read.

    Returns
    -------
    object
        The parsed JSON.

    Examples
    --------
    >>> read_json("preds.json", text=b'{"v1": [[0.0, 2.5]]}')
    {'v1': [[0.0, 2.5]]}
    >>> read_json("preds.json", text=b'{"v1": [0.0, }')
    Traceback (most recent call last):
    ...
    ValueError: preds.json:1: not valid JSON (Expecting value, column 14). Fix: give a JSON file.
    """
    try:
        if text is None:
            path = check_readable(path, what)
            with open(path, "rb") as fh:
                text = fh.read()
        return _parse_json(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno}). "
                         f"Fix: give a {what}.") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to read. Fix: give a {what}.") from None
    except JSONNumberError as err:
        raise ValueError(f"{path}: {err}. Fix: write times, ratings and durations as ordinary numbers.") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason}). Fix: save the file as UTF-8.") from None


@validate_params(path=FILE, what=STR)
def read_jsonl(path, what="JSONL file"):
    """``[(line_number, object), ...]`` of a JSON-lines file (one object a line); BOM and blank lines accepted, other errors name file and line.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file should be, for the messages.

    Returns
    -------
    list of (int, dict)
        Each non-blank line's number and object.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "preds.jsonl")
    >>> _ = open(path, "w").write('{"qid": 1}\\n\\n{"qid": 2}\\n')
    >>> read_jsonl(path)
    [(1, {'qid': 1}), (3, {'qid': 2})]
    """
    out = []
    for lineno, line in text_lines(path, what):
        try:
            rec = json.loads(line, parse_int=json_int.__wrapped__)  # (unchecked: called for every integer of a file)
        except JSONNumberError as err:
            raise ValueError(f"{path}:{lineno}: {err}. Fix: write windows and scores as ordinary numbers.") from None
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{lineno}: not a JSON object ({err.msg}). Fix: give one JSON object per line.") from None
        except RecursionError:
            raise ValueError(f"{path}:{lineno}: JSON nested too deeply. Fix: give one JSON object per line.") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{path}:{lineno}: expected a JSON object, got {type(rec).__name__}. "
                             "Fix: give one JSON object per line.")
        out.append((lineno, rec))
    return out


@lru_cache(maxsize=1)
@validate_params()
def registry() -> dict:
    """``{path: record}`` from data/registry.json."""
    with open(REGISTRY_PATH) as fh:
        return {r["path"]: r for r in json.load(fh)["files"]}


@validate_params(root=ROOT)
def named_root(root=None):
    """``(folder, how)`` of the data folder the reader named -- ``root`` (a chapter's ``data_dir``), else
    ``FIREEVAL_DATA`` -- or ``(None, None)`` when none was named. ``how`` says where the name came from.

    Parameters
    ----------
    root : path-like, optional
        A chapter's ``data_dir``.

    Returns
    -------
    (pathlib.Path or None, str or None)
        The folder and ``"data_dir"`` or ``"FIREEVAL_DATA"``.

    Examples
    --------
    >>> named_root("/data/fireeval")
    (PosixPath('/data/fireeval'), 'data_dir')
    """
    if root:
        return Path(root).expanduser(), "data_dir"
    if os.environ.get("FIREEVAL_DATA"):
        return Path(os.environ["FIREEVAL_DATA"]).expanduser(), "FIREEVAL_DATA"
    return None, None


@validate_params(root=ROOT)
def data_folders(root=None) -> tuple:
    """The folders nothing is written to: :data:`SHARED_DATA`, ``$FIREEVAL_DATA`` and ``root`` (None where
    unset), as :func:`fireeval.core.parsed_cache.data_folder_holding` takes them.

    Parameters
    ----------
    root : path-like, optional
        A chapter's or loader's data folder.

    Returns
    -------
    tuple

    Examples
    --------
    >>> data_folders("/my/data")[-1], data_folders()[0] == SHARED_DATA
    ('/my/data', True)
    """
    return (SHARED_DATA, os.environ.get("FIREEVAL_DATA"), root)


def _candidate_roots(root=None):
    """The one folder data are read from: the named one (``root``, else ``FIREEVAL_DATA``) and nothing
    else; only when none was named, the default ``../shared/data`` when it exists."""
    named, _ = named_root(root)
    if named is not None:
        return [named]
    return [SHARED_DATA] if SHARED_DATA.is_dir() else []


@lru_cache(maxsize=4096)
def _sha256(path: str, size: int, mtime: float) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verify(path: Path, expected: str) -> Path:
    stat = path.stat()
    actual = _sha256(str(path), stat.st_size, stat.st_mtime)
    if actual != expected:
        raise DataError(f"{path}: sha256 is {actual}, expected {expected} (data/registry.json). "
                        "Fix: replace the file with the upstream version named in the registry.")
    return path


_FOLDERS_READ: dict = {}  # {folder: None}, in the order first used


def _read_from(base: Path, path: Path) -> Path:
    _FOLDERS_READ.setdefault(str(Path(base).resolve()), None)
    return path


@validate_params()
def folders_read() -> list:
    """The data folders (resolved) that :func:`data_path` found files in, in this process, in order:
    what ``fireeval run`` reports as the folder a chapter read.

    Returns
    -------
    list of str
        The folders.

    Examples
    --------
    >>> isinstance(folders_read(), list)
    True
    """
    return list(_FOLDERS_READ)


@validate_params(name=STR, root=ROOT, download=BOOL)
def data_path(name: str, root=None, download: bool = False) -> Path:
    """Verified local path of registry file ``name`` (e.g. ``"msrvtt/runs/clip4clip_msrvtt.npy"``).

    Raises :class:`DataUnavailable` with the places searched when the file is
    nowhere and cannot be downloaded, and :class:`DataError` on a checksum mismatch.

    Parameters
    ----------
    name : str
        The file's path in ``data/registry.json``.
    root : path-like, optional
        The data folder (a chapter's ``data_dir``); default ``FIREEVAL_DATA``, else ``../shared/data``.
    download : bool
        Download a file that is nowhere (when the registry has its URL).

    Returns
    -------
    pathlib.Path
        The verified file.

    Examples
    --------
    >>> import tempfile
    >>> data_path("trec8_adhoc/mini_topics401-410/qrels.topics401-410.txt.gz", root=tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    fireeval.datasets.DataUnavailable: trec8_adhoc/.../qrels.topics401-410.txt.gz not found (looked in: /tmp/...). Fix: ...
    """
    record = registry().get(name)
    if record is None:
        raise KeyError(f"{name!r} is not in data/registry.json; known files start with "
                       f"{sorted({p.split('/')[0] for p in registry()})}")
    searched = []
    for base in _candidate_roots(root):
        path = base / name
        searched.append(str(path))
        if path.is_file():
            return _read_from(base, _verify(path, record["sha256"]))
        plain = path.with_suffix("") if path.suffix == ".gz" else None
        if plain is not None and plain.is_file() and record.get("upstream_sha256"):
            return _read_from(base, _verify(plain, record["upstream_sha256"]))
    if download and record.get("url"):
        return _download(name, record)
    named, how_named = named_root(root)
    if named is not None:  # the folder the reader named is the only place looked in
        how = (f"place {name} in the folder you named ({how_named}={named}), or name the folder that holds it"
               + ("" if record.get("url") else
                  f" (this file has no public download: {record.get('note', 'derived or renamed upstream')})"))
    else:
        how = ("set FIREEVAL_DATA to a folder holding it, or pass download=True"
               if record.get("url") else
               f"this file has no public download ({record.get('note', 'derived or renamed upstream')}); "
               "place it under FIREEVAL_DATA")
    raise DataUnavailable(f"{name} not found (looked in: {', '.join(searched) or 'no data root'}). Fix: {how}.")


def _download(name: str, record: dict) -> Path:
    import pooch  # only needed when downloading

    gz = name.endswith(".gz") and record.get("upstream_sha256")
    local = name[: -len(".gz")] if gz else name
    try:
        return Path(pooch.retrieve(record["url"], known_hash="sha256:" + (record["upstream_sha256"] if gz else record["sha256"]),
                                   fname=local.replace("/", "__"), path=pooch.os_cache("fireeval")))
    except ValueError as err:  # pooch's checksum mismatch
        raise DataError(f"{name}: downloaded from {record['url']} but {err}. Fix: retry later, or place the "
                        "file under FIREEVAL_DATA.") from None
    except Exception as err:  # requests' ConnectionError, HTTPError, timeouts: no network or no file
        raise DataUnavailable(f"{name}: download from {record['url']} failed ({type(err).__name__}: "
                              f"{str(err)[:120]}). Fix: connect to the network and retry, or place the file "
                              "under FIREEVAL_DATA.") from None


@validate_params(root=ROOT)
def has_data(*names: str, root=None) -> bool:
    """True when every named registry file is present locally and verified.

    Parameters
    ----------
    *names : str
        Registry paths.
    root : path-like, optional
        The data folder, as for :func:`data_path`.

    Returns
    -------
    bool

    Examples
    --------
    >>> import tempfile
    >>> has_data("trec8_adhoc/mini_topics401-410/qrels.topics401-410.txt.gz", root=tempfile.mkdtemp())
    False
    """
    try:
        for name in names:
            data_path(name, root=root)
    except (DataUnavailable, DataError):
        return False
    return True


@validate_params(root=ROOT)
def data_root(root=None) -> Path | None:
    """The folder data are read from (the named one, else the shared folder) when it exists, or None.

    Parameters
    ----------
    root : path-like, optional
        A named data folder.

    Returns
    -------
    pathlib.Path or None

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> data_root(folder) == Path(folder), data_root(folder + "/absent")
    (True, None)
    """
    for base in _candidate_roots(root):
        if base.is_dir():
            return base
    return None


SOURCES = ("auto", "real", "synthetic")


def _check_source(name, data_source):
    if data_source not in SOURCES:
        raise ValueError(f"{name}={data_source!r} is not one of {', '.join(SOURCES)}. "
                         "Fix: -p data_source auto (or real, synthetic).")


def _check_registry_paths(name, value):
    """Registry paths: an iterable of str (a single str is refused: it would be read letter by letter)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"choose_source: {name}={value!r:.60} is not a list of registry paths. "
                         "Fix: pass registry paths as a list of str, e.g. [\"trec8_adhoc/qrels.trec8.adhoc.txt.gz\"]")


@validate_params(data_source=Check(_check_source, fix="-p data_source auto (or real, synthetic)"),
                 files=Check(_check_registry_paths, fix="pass registry paths as a list of str"), root=ROOT,
                 reader_inputs=[Instance(Mapping, fix="pass {parameter: value}"), None], what=STR)
def choose_source(data_source: str, files, root=None, reader_inputs: dict | None = None,
                  what: str = "the chapter's data") -> str:
    """``"real"`` or ``"synthetic"``: the one decision every chapter makes, with no silent fallback.

    ``files`` are the registry paths the chapter reads; ``root`` its ``data_dir``;
    ``reader_inputs`` the chapter's parameters naming the reader's own files
    (``{"predictions": {...}}``; empty values do not count).

    * ``"synthetic"``: the seeded stand-in, on request only -- refused when the reader also
      named data (``root`` or a reader input), which a synthetic run would ignore.
    * A named folder (``root``, else ``FIREEVAL_DATA``) is the only place the files are looked
      for; only when none was named is ``../shared/data`` tried.
    * ``"real"``: every file must be present and pass its checksum.
    * ``"auto"``: real when every file is present and verified; synthetic **only when
      none of them is found anywhere** and the reader named no data. A file that is
      present but fails its checksum, a set of files found only in part, or files
      missing under a ``data_dir`` (or ``FIREEVAL_DATA``) or reader input the reader gave are errors
      (:class:`DataError` / :class:`DataUnavailable`), one line naming the file and the fix.

    Parameters
    ----------
    data_source : {"auto", "real", "synthetic"}
        The chapter's parameter.
    files : iterable of str
        Registry paths the chapter reads.
    root : path-like, optional
        The chapter's ``data_dir``.
    reader_inputs : dict, optional
        The chapter's parameters naming the reader's own files.
    what : str
        What the files are, for the messages.

    Returns
    -------
    str
        ``"real"`` or ``"synthetic"``.

    >>> choose_source("synthetic", [])
    'synthetic'
    """
    named = {k: v for k, v in (reader_inputs or {}).items() if v not in (None, "", [], {}, ())}
    folder, how = named_root(root)
    asked = ([f"{how}={str(folder)!r}"] if folder is not None else []) + [f"{k}" for k in named]
    files = list(files)
    if data_source == "synthetic":
        if root or named:  # (FIREEVAL_DATA is ambient: asking for the stand-in on purpose overrides it)
            raise ValueError(f"data_source='synthetic' ignores the data you named ({', '.join(asked)}). "
                             "Fix: drop data_source synthetic to use them, or drop them to run on the stand-in.")
        return "synthetic"
    found, missing = [], []
    for name in files:
        try:
            found.append(data_path(name, root=root))
        except DataUnavailable:
            missing.append(name)
        except DataError as err:  # present but not the expected file: never a reason to go synthetic
            raise DataError(f"{err} (data_source={data_source!r} uses real data when present; "
                            "to run on the synthetic stand-in instead: -p data_source synthetic)") from None
    if not missing:
        return "real"
    first = missing[0]
    try:
        data_path(first, root=root)
    except DataUnavailable as err:
        detail = str(err)
    count = f"{len(missing)} of {len(files)} files missing"
    if data_source == "real":
        raise DataUnavailable(f"data_source='real' but {what} are not all there ({count}): {detail}")
    if found:
        raise DataUnavailable(f"{what} are present only in part ({count}; found e.g. {found[0]}): {detail} "
                              "Or run on the synthetic stand-in on purpose: -p data_source synthetic.")
    if asked:
        drop = "unset FIREEVAL_DATA" if how == "FIREEVAL_DATA" and not named else "drop it"
        raise DataUnavailable(f"you named data ({', '.join(asked)}) but {what} are not there ({count}): {detail} "
                              f"Or {drop} to run on the synthetic stand-in.")
    return "synthetic"


@validate_params(root=ROOT)
def optional_data(*names: str, root=None) -> bool:
    """For files a chapter uses when present (FIRE's labels, extra runs): True when all are present and
    verified, False when none is present; a file that is present but fails its checksum, or a set found
    only in part, is an error (:class:`DataError` / :class:`DataUnavailable`) -- never a silent False.

    Parameters
    ----------
    *names : str
        Registry paths of one set of files.
    root : path-like, optional
        The data folder, as for :func:`data_path`.

    Returns
    -------
    bool
        Whether the set is there.

    Examples
    --------
    >>> import tempfile
    >>> optional_data("trec8_adhoc/mini_topics401-410/qrels.topics401-410.txt.gz", root=tempfile.mkdtemp())
    False
    """
    found, missing = [], []
    for name in names:
        try:
            found.append(data_path(name, root=root))
        except DataUnavailable:
            missing.append(name)
    if found and missing:
        raise DataUnavailable(f"{missing[0]}: not found, while {found[0]} of the same set is present "
                              f"({len(found)} of {len(names)} files). Fix: place the missing files beside it, "
                              "or remove the partial set.")
    return not missing
