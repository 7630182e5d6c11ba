"""Parsed run files kept in the user's cache folder, so a chapter reading TREC-8's 129 runs parses them once.

Reading and ordering the 129 runs (6.4 million lines) costs several CPU-seconds each time a chapter or a
test runs; :func:`read_runset` keeps the :class:`~fireeval.core.runset.RunSet` they make in one ``.npz``
file per list of files and reads it back in a fraction of a second, the same arrays to the bit.

* **Where:** :func:`user_cache_dir` (``$FIREEVAL_CACHE``, else ``$XDG_CACHE_HOME/fireeval``, else
  ``~/.cache/fireeval``), in ``runsets/``; never a data folder.
* **When an entry is used:** it is named by the runs' names and resolved paths and holds a stamp: each file's
  size and ``mtime_ns``, the cache's format and the reader's version (a digest of the reading code's own
  source, so a changed reader never reads an old entry). An entry whose stamp differs is stale, and one that
  cannot be read whole (truncated, not a zip, a field missing or inconsistent: ``np.load`` checks each
  member's CRC) is ignored; both are rebuilt from the files and written over.
* **Off:** ``FIREEVAL_NO_CACHE=1`` reads the files every time and writes nothing. A cache folder that cannot be
  written is no error: the runs are read as without a cache.
* **Writes** go to a temporary file in the same folder, renamed into place, so two processes reading the same
  runs at once (``pytest -n 2``) never see half an entry.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import numpy as np

from fireeval.core.validation import ANY, validate_params

if TYPE_CHECKING:
    from fireeval.core.runset import RunSet

# The run reader (and pandas under it) is imported where runs are read: `fireeval run` asks this module only
# for the cache folder, and importing pandas for that cost every chapter execution half a second (issue 38).

__all__ = ["user_cache_dir", "cache_enabled", "read_runset", "runset_entry"]

#: The layout of an entry; raise it when the fields written change.
FORMAT = 1
NO_CACHE = "FIREEVAL_NO_CACHE"


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
        Whether :func:`read_runset` reads and writes the cache.

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


def _reader_version() -> str:
    """A digest of the source of the code that reads and assembles runs (and of this module's)."""
    from fireeval.core import runset as _runset_module, trec as _trec_module

    digest = hashlib.sha256()
    for module in (_trec_module, _runset_module):
        digest.update(Path(module.__file__).read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:32]


def _resolved(paths: Mapping[str, object]) -> list:
    return [[str(name), str(Path(path).resolve())] for name, path in paths.items()]


@validate_params(paths=ANY)
def runset_entry(paths: Mapping[str, object]) -> tuple[Path, str]:
    """``(entry file, stamp)`` of the runs ``{name: path}``: where :func:`read_runset` keeps them, and the stamp
    an entry must hold to be used (each file's size and ``mtime_ns``, the format, the reader's version).

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
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("1 Q0 a 1 0.5 t\\n")
    >>> entry, stamp = runset_entry({"t": path})
    >>> entry.parent.name, entry.suffix, json.loads(stamp)["files"][0][1:] == [15, os.stat(path).st_mtime_ns]
    ('runsets', '.npz', True)
    """
    named = _resolved(paths)
    key = hashlib.sha256(json.dumps(named).encode()).hexdigest()[:32]
    files = []
    for _, path in named:
        stat = os.stat(path)
        files.append([path, stat.st_size, stat.st_mtime_ns])
    stamp = json.dumps({"format": FORMAT, "reader": _reader_version(), "files": files})
    return user_cache_dir() / "runsets" / f"{key}.npz", stamp


def _encode(texts) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 buffer (uint8) and each one's end offset: exact for any text (a fixed-width
    numpy string array would drop trailing NULs)."""
    encoded = [t.encode("utf-8") for t in texts]
    ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), ends


def _decode(buffer: np.ndarray, ends: np.ndarray) -> np.ndarray:
    raw = buffer.tobytes()
    starts = np.r_[0, ends[:-1]].tolist()
    if raw.isascii():  # one decode; character offsets are byte offsets
        text = raw.decode("ascii")
        return np.array([text[a:b] for a, b in zip(starts, ends.tolist())], dtype=object)
    return np.array([raw[a:b].decode("utf-8") for a, b in zip(starts, ends.tolist())], dtype=object)


def _load(entry: Path, stamp: str, names: list) -> RunSet | None:
    """The RunSet kept in ``entry``, or None when there is none, it is stale or it cannot be read whole."""
    import pandas as pd

    from fireeval.core.runset import RunSet

    try:
        with np.load(entry, allow_pickle=False) as data:
            if bytes(data["stamp"]).decode("utf-8") != stamp:
                return None
            stored = list(_decode(data["name_bytes"], data["name_ends"]))
            topics, docs = data["topics"], data["docs"]
            docnos = _decode(data["docno_bytes"], data["docno_ends"])
    except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError, zipfile.BadZipFile):
        return None
    if (stored != names or docs.dtype != np.int32 or docs.ndim != 3 or docs.shape[:2] != (len(names), len(topics))
            or (docs.size and not -1 <= docs.min() <= docs.max() < len(docnos))):
        return None
    return RunSet(names, topics, pd.Index(docnos), docs)


def _store(entry: Path, stamp: str, runs: RunSet) -> None:
    """Write ``runs`` to ``entry`` through a temporary file renamed into place; a folder that cannot be written
    is left alone (the cache is only a shortcut)."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{entry.stem}.", suffix=".tmp", dir=entry.parent)
    except OSError:
        return
    try:
        name_bytes, name_ends = _encode(runs.names)
        docno_bytes, docno_ends = _encode(runs.docnos.tolist())
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, stamp=np.frombuffer(stamp.encode("utf-8"), dtype=np.uint8), name_bytes=name_bytes,
                     name_ends=name_ends, topics=runs.topics, docs=runs.docs, docno_bytes=docno_bytes,
                     docno_ends=docno_ends)
        os.replace(tmp, entry)
    except OSError:
        pass
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
    entry = stamp = None
    if cache_enabled():
        entry, stamp = runset_entry(paths)
        cached = _load(entry, stamp, names)
        if cached is not None:
            return cached
    from fireeval.core.runset import RunSet
    from fireeval.core.trec import read_run_table

    runs = RunSet.from_tables({name: read_run_table(path) for name, path in zip(names, paths.values())})
    if entry is not None:
        _store(entry, stamp, runs)
    return runs
