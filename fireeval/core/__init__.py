"""Core: the measures and file formats every chapter shares.

- ``trec``: TREC run and qrels files, trec_eval's document order.
- ``judgements``: :class:`Qrels` (graded judgements) and :class:`Judgements`
  (pooled judgements over a query x item grid).
- ``runset``: :class:`RunSet`, many runs as one ``(runs, topics, depth)`` array.
- ``ranking``: ranking measures on gain arrays (AP, P@k, nDCG, RR, Correct@k, ...).
- ``tied_scores``: scores that are not a full ranking (a top-N cut's tied fill block) and
  rankings under the three tie rules.
- ``moments``: temporal IoU, R@K,θ and AxIoU@K for video moment retrieval.
- ``evaluation``: measure names (trec_eval and ir_measures style) and ``evaluate``.
- ``api``: :func:`evaluate`, ``evaluate(qrels, run, measures)`` over every input form.
- ``stream``: one run at a time against qrels interned once (``fireeval evaluate``).
- ``parsed_cache``: parsed run files kept in the user's cache folder (a RunSet read once per machine).

Core imports nothing else from fireeval.
Names are re-exported lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
