"""Text notebooks converted once: jupytext's reading of a MyST file, kept by the file's content (issue 38).

``fireeval run`` read each chapter with jupytext twice before its kernel started (the command checks the
parameters, then :func:`fireeval.book.notebooks.execute` reads it again): importing jupytext and parsing
the MyST text took about 0.9 CPU-s of each run. The notebook jupytext makes is a pure function of the
file's bytes, its extension and jupytext's version, so it is kept as JSON under those three, in the user's
cache folder (``$FIREEVAL_CACHE/notebooks``, else ``~/.cache/fireeval/notebooks``), never in a data folder:
an edited chapter has other bytes, hence another entry, and a new jupytext another key. A cache that cannot
be written (read-only, full, inside a data folder) is skipped: the notebook is converted as before.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from fireeval.book import _kept

#: Bump when the stored form changes.
FORMAT = 1


def cache_folder() -> Path | None:
    """``<user cache>/notebooks`` (:func:`fireeval.book._kept.folder`); None when ``FIREEVAL_NO_CACHE=1`` or
    the folder is inside a data folder."""
    return _kept.folder("notebooks")


def key(path: Path, data: bytes) -> str:
    """The entry's name: the notebook's name, then a hash of its extension, bytes and jupytext's version."""
    from importlib.metadata import version

    digest = hashlib.sha256()
    for part in (f"format {FORMAT}", path.suffix.lower(), f"jupytext {version('jupytext')}"):
        digest.update(part.encode() + b"\0")
    digest.update(data)
    return f"{path.stem}-{digest.hexdigest()[:32]}.ipynb.json"


def _text(data: bytes) -> str:
    """The file's text as jupytext.read's text mode reads it (UTF-8, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def read(path, folder: Path | None) -> "nbformat.NotebookNode":  # noqa: F821 -- (nbformat imported inside)
    """The notebook jupytext reads from the text notebook ``path``, converted once per content and kept in
    ``folder`` (None: converted, not kept; the caller decides, e.g. never inside a data folder)."""
    import nbformat

    path = Path(path)
    data = path.read_bytes()
    name = key(path, data)
    kept = _kept.read(folder, name)
    if kept is not None:
        try:
            return nbformat.from_dict(json.loads(kept))
        except ValueError:  # a damaged entry: converted again
            pass
    import jupytext

    nb = jupytext.reads(_text(data), fmt={"extension": path.suffix})
    _kept.keep(folder, name, json.dumps(nb))
    return nb
