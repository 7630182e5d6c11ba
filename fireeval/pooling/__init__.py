"""Pooled judgements: the chapters *pool depth* and *leave-out bias*.

- ``pools``: pools from runs, depth-K qrels, unique contributions, run and group
  leave-outs, depth sweeps.

Imports :mod:`fireeval.core` and :mod:`fireeval.stats` only. Names are re-exported lazily.
"""
from fireeval._lazy import attach

__getattr__, __dir__ = attach(__name__, __file__, ["pools"])
