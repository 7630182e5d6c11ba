"""Parsed files kept in the user's cache folder, so a chapter parses the same data files once per machine.

Reading and ordering TREC-8's 129 runs (6.4 million lines) costs several CPU-seconds each time a chapter or a
test runs, and the moment chapters re-read the same JSON predictions and ground truth in every execution.
:func:`kept` keeps what a reader made of its files as one ``.npz`` entry of numpy arrays and reads it back in
a fraction of the time, the same values to the bit; :func:`read_runset` (TREC runs), the QVHighlights and the
Charades-STA readers (:mod:`fireeval.datasets.qvhighlights`, :mod:`fireeval.datasets.charades`) use it.

* **Where:** :func:`user_cache_dir` (``$FIREEVAL_CACHE``, else ``$XDG_CACHE_HOME/fireeval``, else
  ``~/.cache/fireeval``), in one folder per kind (``runsets/``, ...); never a data folder
  (:func:`data_folder_holding`: a cache folder inside one is not used).
* **When an entry is used:** it is named by its kind, the files' resolved paths and the reader's further key
  (``k``, the ground truth's queries, ...) and holds a stamp: each file's size and ``mtime_ns``, the cache's
  format, the key and the reader's version (a digest of the reading code's own source, so a changed reader
  never reads an old entry). An entry whose stamp differs is stale, and one that cannot be read whole
  (truncated, not a zip, a field missing or inconsistent: ``np.load`` checks each member's CRC, the reader's
  ``decode`` the rest) is ignored; both are rebuilt from the files and written over. Only a successful read
  is kept: a file the reader refuses is refused at every read, with the reader's own message.
* **Off:** ``FIREEVAL_NO_CACHE=1`` reads the files every time and writes nothing. A cache folder that cannot be
  written is no error: the files are read as without a cache.
* **Writes** go to a temporary file in the same folder, renamed into place (:func:`replace_atomically`), so two
  processes reading the same files at once (``pytest -n 2``) never see half an entry.
* **Size:** a kind keeps its :data:`ENTRIES` most recently used entries (runsets: :data:`RUNSET_ENTRIES`, each
  up to ~25 MB); reading an entry marks it used, and the least recently used go first (:func:`prune_oldest`).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from fireeval.core.validation import ANY, STR, Instance, Int, validate_params

if TYPE_CHECKING:
    from fireeval.core.runset import RunSet

# The run reader (and pandas under it) is imported where runs are read: `fireeval run` asks this module only
# for the cache folder, and importing pandas for that cost every chapter execution half a second (issue 38).

__all__ = ["user_cache_dir", "cache_enabled", "default_shared_data", "data_folder_holding", "cache_folder",
           "replace_atomically", "prune_oldest", "kept", "entry_and_stamp", "encode_texts", "decode_texts", "json_array",
           "from_json_array", "read_runset", "runset_entry"]

#: The layout of an entry; raise it when the fields written change.
FORMAT = 2
NO_CACHE = "FIREEVAL_NO_CACHE"
#: Entries kept per kind (a reader's own files, e.g. those `fireeval evaluate-moments` reads, each add one;
#: a test session writes about 100 of charades_sta, each ~0.1 MB).
ENTRIES = 256
#: Entries kept of parsed runs (TREC-8's 129 runs take ~25 MB; each list of runs read is one entry).
RUNSET_ENTRIES = 16
#: The errors a damaged or inconsistent entry raises while it is read and decoded.
DAMAGED = (OSError, ValueError, KeyError, IndexError, TypeError, EOFError, UnicodeDecodeError, zipfile.BadZipFile)


@validate_params()
def user_cache_dir() -> Path:
    """``$FIREEVAL_CACHE``, else ``$XDG_CACHE_HOME/fireeval``, else ``~/.cache/fireeval``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import os
    >>> os.environ["FIREEVAL_CACHE"], saved = "/tmp/fireeval-cache", os.environ.get("FIREEVAL_CACHE")
    >>> user_cache_dir()
    PosixPath('/tmp/fireeval-cache')
    >>> _ = os.environ.pop("FIREEVAL_CACHE") if saved is None else os.environ.update(FIREEVAL_CACHE=saved)
    """
    if os.environ.get("FIREEVAL_CACHE"):
        return Path(os.environ["FIREEVAL_CACHE"]).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "fireeval"


@validate_params()
def cache_enabled() -> bool:
    """False when ``$FIREEVAL_NO_CACHE`` is set to anything but ``""`` or ``"0"``.

    Returns
    -------
    bool
        Whether :func:`kept` reads and writes the cache.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.pop("FIREEVAL_NO_CACHE", None)
    >>> cache_enabled()
    True
    >>> os.environ["FIREEVAL_NO_CACHE"] = "1"
    >>> cache_enabled()
    False
    >>> _ = os.environ.pop("FIREEVAL_NO_CACHE") if saved is None else os.environ.update(FIREEVAL_NO_CACHE=saved)
    """
    return os.environ.get(NO_CACHE, "") in ("", "0")


@validate_params()
def default_shared_data() -> Path:
    """The shared data folder: ``$FIREEVAL_SHARED_DATA``, else ``shared/data`` beside the checkout
    (:data:`fireeval.datasets.SHARED_DATA` is this, read once at import).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> default_shared_data().parts[-2:]
    ('shared', 'data')
    """
    return Path(os.environ.get("FIREEVAL_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))


@validate_params(path=Instance(str, os.PathLike, fix="pass a path"), roots=ANY)
def data_folder_holding(path, roots=None) -> Path | None:
    """The data folder among ``roots`` that is or holds ``path``; None when there is none. Nothing fireeval
    writes goes there.

    Parameters
    ----------
    path : path-like
        Where something would be written.
    roots : iterable of path-like or None, optional
        The data folders (None entries skipped); default: :func:`default_shared_data` and ``$FIREEVAL_DATA``.

    Returns
    -------
    pathlib.Path or None
        The data folder holding ``path``.

    Examples
    --------
    >>> str(data_folder_holding("/data/x/cache", roots=["/data/x"])), data_folder_holding("/tmp/c", roots=["/data"])
    ('/data/x', None)
    """
    if roots is None:
        roots = (default_shared_data(), os.environ.get("FIREEVAL_DATA"))
    target = Path(path).expanduser().resolve()
    for root in roots:
        if not root:
            continue
        root = Path(root).expanduser().resolve()
        if target == root or root in target.parents:
            return root
    return None


@validate_params(kind=STR, roots=ANY)
def cache_folder(kind: str, roots=None) -> Path | None:
    """``<user cache>/<kind>``, or None when caching is off or that folder is inside a data folder.

    Parameters
    ----------
    kind : str
        The folder's name (``runsets``, ``charts``, ...).
    roots : iterable of path-like or None, optional
        The data folders, as for :func:`data_folder_holding`.

    Returns
    -------
    pathlib.Path or None

    Examples
    --------
    >>> import os
    >>> os.environ["FIREEVAL_CACHE"], saved = "/data/x/cache", os.environ.get("FIREEVAL_CACHE")
    >>> cache_folder("runsets", roots=["/data/x"]) is None, str(cache_folder("runsets", roots=["/elsewhere"]))
    (True, '/data/x/cache/runsets')
    >>> _ = os.environ.pop("FIREEVAL_CACHE") if saved is None else os.environ.update(FIREEVAL_CACHE=saved)
    """
    if not cache_enabled():
        return None
    where = user_cache_dir() / kind
    return None if data_folder_holding(where, roots) is not None else where


@validate_params(entry=Instance(str, os.PathLike, fix="pass a path"), write=ANY, mode=STR)
def replace_atomically(entry, write: Callable, mode: str = "wb") -> bool:
    """``write(file)`` into a temporary file beside ``entry``, renamed into place: ``entry`` is whole or not
    there. A folder that cannot be written is no error (False); an error of ``write`` itself propagates.

    Parameters
    ----------
    entry : path-like
        The file to write (its folder is made).
    write : callable
        Called with the open temporary file.
    mode : str
        ``"wb"`` or ``"w"`` (UTF-8 text).

    Returns
    -------
    bool
        Whether ``entry`` was written.

    Examples
    --------
    >>> import tempfile
    >>> entry = Path(tempfile.mkdtemp()) / "kept" / "x.txt"
    >>> replace_atomically(entry, lambda fh: fh.write("kept"), "w"), entry.read_text()
    (True, 'kept')
    """
    entry = Path(entry)
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", suffix=".tmp", dir=entry.parent)
    except OSError:
        return False
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if "b" not in mode else {})) as fh:
            write(fh)
        os.replace(tmp, entry)
        return True
    except OSError:
        return False
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _reader_version(readers: Sequence[ModuleType]) -> str:
    """A digest of the source of the modules that read the files (and of this module's)."""
    digest = hashlib.sha256()
    for module in readers:
        digest.update(Path(module.__file__).read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:32]


@validate_params(kind=STR, paths=ANY, key=ANY, readers=ANY, folder=[Instance(str, os.PathLike), None])
def entry_and_stamp(kind: str, paths: Sequence, key=None, readers: Sequence[ModuleType] = (),
                    folder=None) -> tuple[Path, str]:
    """``(entry file, stamp)``: where :func:`kept` keeps what was read from ``paths``, and the stamp an entry
    must hold to be used (each file's size and ``mtime_ns``, the format, ``key``, the readers' version).

    Parameters
    ----------
    kind : str
        The cache folder's name.
    paths : sequence of path-like
        The files read.
    key : JSON-serialisable, optional
        Whatever else the result depends on (``k``, the ground truth's queries, ...).
    readers : sequence of modules
        The modules whose source is the reader.
    folder : path-like, optional
        The folder (default ``<user cache>/<kind>``).

    Returns
    -------
    (pathlib.Path, str)
        The entry's path and the JSON stamp.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("1 Q0 a 1 0.5 t\\n")
    >>> entry, stamp = entry_and_stamp("runsets", [path], key=["t"])
    >>> entry.parent.name, entry.suffix, json.loads(stamp)["files"][0][1:] == [15, os.stat(path).st_mtime_ns]
    ('runsets', '.npz', True)
    """
    resolved = [str(Path(p).resolve()) for p in paths]
    name = hashlib.sha256(json.dumps([kind, resolved, key]).encode()).hexdigest()[:32]
    files = []
    for path in resolved:
        stat = os.stat(path)
        files.append([path, stat.st_size, stat.st_mtime_ns])
    stamp = json.dumps({"format": FORMAT, "reader": _reader_version(readers), "key": key, "files": files})
    return Path(folder or user_cache_dir() / kind) / f"{name}.npz", stamp


@validate_params(folder=Instance(str, os.PathLike), limit=Int(1))
def prune_oldest(folder, limit: int) -> None:
    """Remove all but the ``limit`` newest entries (by modification time) of ``folder``; files named ``.*``
    (temporary files being written) are left, and an entry removed meanwhile by another process is no error.

    Parameters
    ----------
    folder : path-like
        A cache folder of one kind.
    limit : int
        Entries kept.

    Returns
    -------
    None

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for i, name in enumerate(["a", "b", "c"]):
    ...     _ = open(os.path.join(folder, name), "w").write(name)
    ...     os.utime(os.path.join(folder, name), ns=(i * 10**9, i * 10**9))
    >>> prune_oldest(folder, 2)
    >>> sorted(os.listdir(folder))
    ['b', 'c']
    """
    try:
        entries = [e for e in os.scandir(folder) if e.is_file() and not e.name.startswith(".")]
        if len(entries) <= limit:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
    except OSError:  # the folder went away meanwhile
        return
    for entry in entries[: len(entries) - limit]:
        try:
            os.unlink(entry.path)
        except OSError:  # removed by another process meanwhile
            pass


def _load(entry: Path, stamp: str, decode: Callable):
    """``(True, decode(arrays))`` of the entry, or ``(False, None)`` when there is none, it is stale or it
    cannot be read whole."""
    try:
        with np.load(entry, allow_pickle=False) as data:
            if bytes(data["stamp"]).decode("utf-8") != stamp:
                return False, None
            arrays = {name: data[name] for name in data.files if name != "stamp"}
        value = decode(arrays)
    except DAMAGED:
        return False, None
    try:
        os.utime(entry)  # used now: pruning removes the least recently used first
    except OSError:
        pass
    return True, value


def _store(entry: Path, stamp: str, arrays: Mapping[str, np.ndarray], limit: int = ENTRIES) -> None:
    if "stamp" in arrays or any(np.asarray(a).dtype == object for a in arrays.values()):
        raise TypeError("an entry's arrays hold numbers or bytes, not objects, and none is named 'stamp'. "
                        "Fix: encode texts with encode_texts or json_array")  # a reader's mistake
    fields = {"stamp": np.frombuffer(stamp.encode("utf-8"), dtype=np.uint8), **arrays}
    if replace_atomically(entry, lambda fh: np.savez(fh, **fields)):
        prune_oldest(entry.parent, limit)


@validate_params(kind=STR, paths=ANY, read=ANY, encode=ANY, decode=ANY, key=ANY, readers=ANY, roots=ANY, limit=Int(1))
def kept(kind: str, paths: Sequence, read: Callable, encode: Callable, decode: Callable, *, key=None,
         readers: Sequence[ModuleType] = (), roots=None, limit: int = ENTRIES):
    """``read()``, through the cache: kept in ``<user cache>/<kind>`` as ``encode(value)`` (a dict of numpy
    arrays, no object arrays), given back as ``decode(arrays)``.

    An entry is used only when every file in ``paths`` has the size and ``mtime_ns`` it had, ``key`` is the
    same and ``readers`` are the same code (see the module's docstring); otherwise, or when caching is off or
    the folder lies in a data folder (``roots``, as for :func:`data_folder_holding`), ``read()`` runs and its
    error, if any, propagates (nothing is kept). ``decode`` raises one of :data:`DAMAGED` for an inconsistent
    entry, which is then rebuilt; ``decode(encode(value))`` must equal ``value`` to the bit.

    Parameters
    ----------
    kind : str
        The cache folder's name.
    paths : sequence of path-like
        The files ``read`` reads.
    read, encode, decode : callable
        The reader, and the value to and from arrays.
    key : JSON-serialisable, optional
        Whatever else the value depends on.
    readers : sequence of modules
        The modules whose source is the reader.
    roots : iterable of path-like, optional
        The data folders.
    limit : int
        Entries of this kind kept (:func:`prune_oldest`).

    Returns
    -------
    object
        ``read()`` or its kept copy.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.environ["FIREEVAL_CACHE"], saved = folder, os.environ.get("FIREEVAL_CACHE")
    >>> path = os.path.join(folder, "numbers.txt")
    >>> _ = open(path, "w").write("1.5 2.5\\n")
    >>> read = lambda: np.loadtxt(path)
    >>> args = ("numbers", [path], read, lambda a: {"a": a}, lambda arrays: arrays["a"])
    >>> kept(*args).tolist(), kept(*args).tolist(), os.listdir(folder + "/numbers") != []
    ([1.5, 2.5], [1.5, 2.5], True)
    >>> _ = os.environ.pop("FIREEVAL_CACHE") if saved is None else os.environ.update(FIREEVAL_CACHE=saved)
    """
    folder = cache_folder(kind, roots)
    if folder is None:
        return read()
    entry, stamp = entry_and_stamp(kind, paths, key, readers, folder)
    found, value = _load(entry, stamp, decode)
    if found:
        return value
    value = read()
    _store(entry, stamp, encode(value), limit)
    return value


@validate_params(texts=ANY)
def encode_texts(texts) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 buffer (uint8) and each one's end offset: exact for any text (a fixed-width
    numpy string array would drop trailing NULs; lone surrogates are kept).

    Parameters
    ----------
    texts : iterable of str

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The bytes and the end offsets; :func:`decode_texts` reverses it.

    Examples
    --------
    >>> decode_texts(*encode_texts(["a", "é\\x00", ""])).tolist()
    ['a', 'é\\x00', '']
    """
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), ends


@validate_params(buffer=ANY, ends=ANY)
def decode_texts(buffer: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The strings :func:`encode_texts` encoded, as an object array.

    Parameters
    ----------
    buffer, ends : numpy.ndarray
        As :func:`encode_texts` returns them.

    Returns
    -------
    numpy.ndarray of str

    Examples
    --------
    >>> decode_texts(*encode_texts(["ab", "c"])).tolist()
    ['ab', 'c']
    """
    raw = buffer.tobytes()
    starts = np.r_[0, ends[:-1]].tolist()
    if raw.isascii():  # one decode; character offsets are byte offsets
        text = raw.decode("ascii")
        return np.array([text[a:b] for a, b in zip(starts, ends.tolist())], dtype=object)
    return np.array([raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts, ends.tolist())], dtype=object)


@validate_params(value=ANY)
def json_array(value) -> np.ndarray:
    """JSON-native ``value`` (what :func:`json.loads` makes: dicts, lists, str, int, float incl. NaN and
    infinities, bool, None) as UTF-8 JSON bytes; :func:`from_json_array` gives back an equal value (tuples
    come back as lists; every float to the bit, -0.0 and NaN included).

    Parameters
    ----------
    value : object

    Returns
    -------
    numpy.ndarray of uint8

    Examples
    --------
    >>> from_json_array(json_array([1, "é", [0.1, -0.0, float("inf")], None]))
    [1, 'é', [0.1, -0.0, inf], None]
    """
    return np.frombuffer(json.dumps(value, ensure_ascii=True).encode("ascii"), dtype=np.uint8)


@validate_params(array=ANY)
def from_json_array(array: np.ndarray):
    """The value :func:`json_array` wrote (a ValueError when the bytes are not its JSON).

    Parameters
    ----------
    array : numpy.ndarray of uint8

    Returns
    -------
    object

    Examples
    --------
    >>> from_json_array(json_array({"k": 10}))
    {'k': 10}
    """
    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError("not JSON bytes")
    return json.loads(array.tobytes().decode("ascii"))


def _runset_readers() -> tuple:
    from fireeval.core import runset as _runset_module, trec as _trec_module

    return (_trec_module, _runset_module)


@validate_params(paths=ANY)
def runset_entry(paths: Mapping[str, object]) -> tuple[Path, str]:
    """``(entry file, stamp)`` of the runs ``{name: path}``: where :func:`read_runset` keeps them, and the stamp
    an entry must hold to be used (:func:`entry_and_stamp`; the key is the runs' names).

    Parameters
    ----------
    paths : mapping of str to path-like
        The run files by run name, in the RunSet's order.

    Returns
    -------
    (pathlib.Path, str)
        The entry's path and the JSON stamp.

    Examples
    --------
    >>> entry, stamp = runset_entry({"a run": json.__file__})  # (any file will do)
    >>> entry.parent.name, json.loads(stamp)["key"]
    ('runsets', ['a run'])
    """
    return entry_and_stamp("runsets", list(paths.values()), [str(n) for n in paths], _runset_readers())


def _runset_arrays(runs: RunSet) -> dict:
    name_bytes, name_ends = encode_texts(runs.names)
    docno_bytes, docno_ends = encode_texts(runs.docnos.tolist())
    return {"name_bytes": name_bytes, "name_ends": name_ends, "topics": runs.topics, "docs": runs.docs,
            "docno_bytes": docno_bytes, "docno_ends": docno_ends}


def _runset_from(arrays: dict, names: list) -> RunSet:
    """The RunSet of an entry's arrays; a ValueError when they do not make one."""
    import pandas as pd

    from fireeval.core.runset import RunSet

    stored = list(decode_texts(arrays["name_bytes"], arrays["name_ends"]))
    topics, docs = arrays["topics"], arrays["docs"]
    docnos = decode_texts(arrays["docno_bytes"], arrays["docno_ends"])
    if (stored != names or docs.dtype != np.int32 or docs.ndim != 3 or docs.shape[:2] != (len(names), len(topics))
            or (docs.size and not -1 <= docs.min() <= docs.max() < len(docnos))):
        raise ValueError("an inconsistent entry")
    return RunSet(names, topics, pd.Index(docnos), docs)


@validate_params(paths=ANY)
def read_runset(paths: Mapping[str, object]) -> RunSet:
    """``RunSet.from_tables({name: read_run_table(path)})`` of the run files ``{name: path}``, through the cache.

    The same RunSet to the bit as reading the files (names, topics, vocabulary, codes); an entry is used only
    when every file has the size and ``mtime_ns`` it had and the reader is the same code (see the module's
    docstring). A file's format error is raised as :func:`~fireeval.core.trec.read_run_table` raises it.

    Parameters
    ----------
    paths : mapping of str to path-like
        The run files (six-column TREC runs, plain or gzip) by run name, in the RunSet's order.

    Returns
    -------
    RunSet
        The runs.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.environ["FIREEVAL_CACHE"], saved = folder, os.environ.get("FIREEVAL_CACHE")
    >>> path = os.path.join(folder, "run.txt")
    >>> _ = open(path, "w").write("1 Q0 a 1 0.5 t\\n1 Q0 b 2 0.9 t\\n")
    >>> first, again = read_runset({"t": path}), read_runset({"t": path})  # parsed, then read from the cache
    >>> again.docnos.tolist(), again.docs.tolist() == first.docs.tolist(), len(os.listdir(folder + "/runsets"))
    (['b', 'a'], True, 1)
    >>> _ = os.environ.pop("FIREEVAL_CACHE") if saved is None else os.environ.update(FIREEVAL_CACHE=saved)
    """
    names = [str(n) for n in paths]
    if not names:
        raise ValueError("no runs given. Fix: pass at least one run")

    def read():
        from fireeval.core.runset import RunSet
        from fireeval.core.trec import read_run_table

        return RunSet.from_tables({name: read_run_table(path) for name, path in zip(names, paths.values())})

    return kept("runsets", list(paths.values()), read, _runset_arrays, lambda arrays: _runset_from(arrays, names),
                key=names, readers=_runset_readers(), limit=RUNSET_ENTRIES)
