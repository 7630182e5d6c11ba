"""fireeval: do video-retrieval benchmarks measure what they claim?

The package behind the executable book. Its folders mirror the book, and imports
point one way only (left may be imported by right, never the reverse)::

    core  <-  stats  <-  t2v | pooling | vmr  <-  synthetic  <-  book, cli
      ^                                                          
      +---- datasets (loaders; import core only)

- ``core``: TREC files, run sets, judgements, ranking and moment measures, measure names.
- ``stats``: agreement between rankings, resampling, reliability.
- ``t2v``: text-to-video retrieval (false negatives, semantic proxies).
- ``pooling``: pooled judgements (pool depth, leave-out bias).
- ``vmr``: video moment retrieval (AxIoU: axioms, label noise, model selection).
- ``synthetic``: seeded stand-ins for unavailable data.
- ``datasets``: the data registry and one loader per dataset.
- ``book``: notebook runner, headline/glue, chart theme; ``cli``: the command line.

``import fireeval`` imports none of them: ``fireeval.core`` (and every folder above, and
``fireeval.compare``) is imported on first use, as listed in ``__init__.pyi``.

Start with :func:`fireeval.evaluate` (``evaluate(qrels, run, measures)``) for ranked runs, and :func:`fireeval.compare`
(:func:`fireeval.stats.significance.compare`) to test which of several systems is really better.
"""
import lazy_loader

__version__ = "0.1.0"

# The lists of __init__.pyi, spelled out: every command imports this package, and reading the
# stub would import ast (~2 ms of `fireeval --help`). tests/project/test_layout.py checks they agree.
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__, ["book", "cli", "core", "datasets", "pooling", "stats", "synthetic", "t2v", "vmr"],
    {"stats.significance": ["compare"], "core.api": ["evaluate"]})
