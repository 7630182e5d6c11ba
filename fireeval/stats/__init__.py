"""Shared statistics: agreement between rankings, resampling, reliability.

- ``agreement``: Kendall τ-b (single and batched), top-K overlap, RBO.
- ``resampling``: bootstrap of per-query scores, disjoint topic splits.
- ``reliability``: τ bands, swap rates and REER, subset stability.
- ``significance``: paired tests for every pair of systems (randomisation, t-test, BCa, Holm,
  randomised Tukey HSD) and topic-set power; its :func:`~fireeval.stats.significance.compare`
  is ``fireeval.compare`` (and ``fireeval.stats.compare``).
- ``claims``: claims and their computed verdicts (evidence, reading, standing, power, sensitivity).

Imports only :mod:`fireeval.core`.
Names are re-exported lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
