"""Shared statistics: agreement between rankings, resampling, reliability.

- ``agreement``: Kendall τ-b (single and batched), top-K overlap, RBO.
- ``resampling``: bootstrap of per-query scores, disjoint topic splits.
- ``reliability``: τ bands, swap rates and REER, subset stability.
- ``compare``: paired tests for every pair of systems (randomisation, t-test, BCa, Holm,
  randomised Tukey HSD) and topic-set power; ``fireeval.compare(...)`` is its
  :func:`~fireeval.stats.compare.compare` (here ``stats.compare`` names the module).

Imports only :mod:`fireeval.core`. Names are re-exported lazily.
"""
from fireeval._lazy import attach

__getattr__, __dir__ = attach(__name__, __file__, ["agreement", "resampling", "reliability", "compare"])
