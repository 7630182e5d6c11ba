"""Each chapter's inputs in one call: the registry's real data, the reader's own files, or the seeded stand-in.

One module per chapter family (``trec_inputs``: metrics, pool_depth, pool_leave_out;
``moment_inputs``: the AxIoU chapters; ``video_inputs``: the text-to-video chapters). Each
builds a typed bundle, a subclass of :class:`Inputs`, whose ``source`` says which data
the chapter runs on ("real" or "synthetic") and whose ``note`` says it in one line for
the reader; the decision itself is :func:`decide`, i.e.
:func:`fireeval.datasets.choose_source` with the chapter's reader-input parameters, so
there is never a silent fallback to synthetic data. Only ``book`` may import both the
study folders and ``synthetic``, which is why this layer lives here. Submodules are
imported lazily (``from fireeval.book.inputs import trec_inputs``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
import importlib
from dataclasses import dataclass, field
from fireeval.core.validation import COLLECTION, STR, Instance, Options, validate_params
from fireeval.datasets import SOURCES

__all__ = ["Inputs", "decide", "reader_label"]

_SUBMODULES = ("trec_inputs", "video_inputs", "moment_inputs")


@dataclass(frozen=True)
class Inputs:
    """What every chapter bundle carries: ``source`` ("real" | "synthetic"), a one-line ``note`` for
    the reader, and ``reader_files``, the reader's own files it read (empty when none)."""

    source: str
    note: str
    reader_files: tuple = field(default=())

    @property
    def synthetic(self) -> bool:
        return self.source == "synthetic"

    @property
    def real(self) -> bool:
        return self.source == "real"

    # The names the moment and video chapters read (``data.use_real``, ``data.source_note``).
    @property
    def use_real(self) -> bool:
        return self.real

    @property
    def source_note(self) -> str:
        return self.note


@validate_params(data_source=Options(*SOURCES), files=COLLECTION, data_dir=[Instance(str, os.PathLike), None],
                 reader_inputs=[Instance(Mapping), None], what=STR)
def decide(data_source: str, files, data_dir=None, reader_inputs: dict | None = None,
           what: str = "the chapter's data") -> str:
    """``"real"`` or ``"synthetic"``: :func:`fireeval.datasets.choose_source`, with the reader's inputs."""
    from fireeval.datasets import choose_source

    return choose_source(data_source, files, root=data_dir, reader_inputs=reader_inputs, what=what)


@validate_params(names=COLLECTION)
def reader_label(names) -> str:
    """`` + 2 of yours (a, b)`` for the data labels of claims and notes, or ``""`` when there are none."""
    names = list(names)
    return f" + {len(names)} of yours ({', '.join(names)})" if names else ""


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
