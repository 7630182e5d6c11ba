"""Results kept as text files in the user's cache folder, named by a digest of everything they depend on.

Two of the book's costs repeat with the same inputs in every run: jupytext's conversion of a chapter
(:mod:`fireeval.book._converted`) and the drawing of a chart fitted to the text column
(:func:`fireeval.book.plotting.chart_bundle`). Each is a pure function of its inputs, so its result is kept
under ``<user cache>/<kind>/`` (:func:`fireeval.core.parsed_cache.user_cache_dir`: ``$FIREEVAL_CACHE``, else
``$XDG_CACHE_HOME/fireeval``, else ``~/.cache/fireeval``) in a file whose name is the inputs' digest: changed
inputs give another name, so an entry is never stale. ``FIREEVAL_NO_CACHE=1`` keeps and reads nothing; a
cache folder inside a data folder, or one that cannot be written, is skipped (the result is computed as
without a cache). Entries are written to a temporary file and renamed into place, so two processes writing
the same entry at once (``pytest -n 2``, the book's two workers) never leave half of one.
"""
from __future__ import annotations

from pathlib import Path

from fireeval.core.parsed_cache import (
    cache_folder, data_folder_holding as core_data_folder_holding, prune_oldest, replace_atomically)


def data_folder_holding(path, data_dir=None) -> Path | None:
    """The data folder (the shared data, ``$FIREEVAL_DATA``, a chapter's ``data_dir``) that is or holds
    ``path``; None when there is none. Nothing the book writes goes there
    (:func:`fireeval.book.notebooks.refuse_data_directory`; the rule is
    :func:`fireeval.core.parsed_cache.data_folder_holding`'s)."""
    from fireeval.datasets import data_folders

    return core_data_folder_holding(path, data_folders(data_dir))


def folder(kind: str) -> Path | None:
    """``<user cache>/<kind>``, or None when caching is off or that folder is inside a data folder."""
    from fireeval.datasets import data_folders

    return cache_folder(kind, data_folders())


def read(where: Path | None, name: str) -> str | None:
    """The text kept as ``name`` in ``where``; None when there is none (or ``where`` is None)."""
    if where is None:
        return None
    try:
        return (where / name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


#: Entries kept per kind; past it the oldest written go first (a chart's entry holds its data: up to ~1 MB).
LIMIT = 400


def keep(where: Path | None, name: str, text: str, limit: int = LIMIT) -> None:
    """Keep ``text`` as ``name`` in ``where`` (whole or not at all), then drop the oldest entries beyond
    ``limit``; a folder that cannot be written is skipped."""
    if where is None:
        return
    if replace_atomically(where / name, lambda fh: fh.write(text), "w"):
        prune_oldest(where, limit)
