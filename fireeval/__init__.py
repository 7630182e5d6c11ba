"""fireeval: do video-retrieval benchmarks measure what they claim?

Metrics, pooling, judgement, label-noise and semantic-relevance tools behind the
executable book. Start with :func:`fireeval.evaluation.evaluate` for ranked runs.
"""
__version__ = "0.1.0"
