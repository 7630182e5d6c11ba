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

Start with :func:`fireeval.evaluate` (``evaluate(qrels, run, measures)``) for ranked runs, and :func:`fireeval.compare`
(:func:`fireeval.stats.compare.compare`) to test which of several systems is really better.
"""
__version__ = "0.1.0"


def __getattr__(name):
    # ``fireeval.compare(...)``, imported on first use (the package itself imports nothing).
    if name == "compare":
        from fireeval.stats.compare import compare

        return compare
    if name == "evaluate":
        from fireeval.core.api import evaluate

        return evaluate
    raise AttributeError(f"module 'fireeval' has no attribute {name!r}")
