"""Pooled judgements: the chapters *pool depth* and *leave-out bias*.

- ``pools``: pools from runs, depth-K qrels, unique contributions, run and group
  leave-outs, depth sweeps.
- ``incomplete``: bpref, infAP and condensed-list (judged-only) AP / nDCG from judged cells.
- ``sampling``: random samples of the judgements (trec_eval's -1 convention), re-scored per rate and seed.
- ``pool_audit``: pool-bias audit of a new run (``fireeval audit``), validated by leave-one-group-out.

Imports :mod:`fireeval.core` and :mod:`fireeval.stats` only.
Names are re-exported lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
