"""Score many runs on many topics with named measures (the code behind ``fireeval evaluate``).

Measure names: trec_eval's (``map``, ``P_10``, ``recall_10``, ``ndcg``, ``ndcg_cut_10``,
``recip_rank``) or ir_measures' (``AP``, ``P@10``, ``R@10``, ``nDCG``, ``nDCG@10``,
``RR``), plus the video-retrieval ``correct@K`` (alias ``C@K``, ir_measures'
``Success@K``). Exponential-gain nDCG is ``ndcg_exp`` / ``ndcg_exp_cut_K``.
Results are reported under the trec_eval name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fireeval.core import ranking
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet, evaluation_topics

__all__ = ["Measure", "parse_measure", "evaluate", "Scores", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = ["map", "P_5", "P_10", "recall_10", "ndcg", "ndcg_cut_10", "recip_rank",
                    "correct@1", "correct@5", "correct@10"]


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters: ``kind`` in {map, P, recall, ndcg, ndcg_exp, recip_rank, correct}."""

    kind: str
    k: int | None = None

    @property
    def name(self) -> str:
        if self.kind in ("map", "recip_rank") or (self.kind.startswith("ndcg") and self.k is None):
            return self.kind
        if self.kind.startswith("ndcg"):
            return f"{self.kind}_cut_{self.k}"
        if self.kind == "correct":
            return f"correct@{self.k}"
        return f"{self.kind}_{self.k}"

    def __call__(self, gains, n_relevant, ideal):
        if self.kind == "map":
            return ranking.average_precision(gains, n_relevant)
        if self.kind == "P":
            return ranking.precision_at_k(gains, self.k)
        if self.kind == "recall":
            return ranking.recall_at_k(gains, n_relevant, self.k)
        if self.kind == "correct":
            return ranking.correct_at_k(gains, self.k)
        if self.kind == "recip_rank":
            return ranking.reciprocal_rank(gains)
        gain = "exponential" if self.kind == "ndcg_exp" else "linear"
        return ranking.ndcg(gains, ideal, k=self.k, gain=gain)


_PATTERNS = [
    (r"(map|ap)", lambda m: Measure("map")),
    (r"(recip_rank|rr|mrr)", lambda m: Measure("recip_rank")),
    (r"(ndcg)", lambda m: Measure("ndcg")),
    (r"(ndcg_exp)", lambda m: Measure("ndcg_exp")),
    (r"(?:ndcg_cut_|ndcg@)(\d+)", lambda m: Measure("ndcg", int(m[1]))),
    (r"(?:ndcg_exp_cut_|ndcg_exp@)(\d+)", lambda m: Measure("ndcg_exp", int(m[1]))),
    (r"(?:p_|p@)(\d+)", lambda m: Measure("P", int(m[1]))),
    (r"(?:recall_|r@)(\d+)", lambda m: Measure("recall", int(m[1]))),
    (r"(?:correct@|c@|success@|correct_)(\d+)", lambda m: Measure("correct", int(m[1]))),
]


def parse_measure(name: str) -> Measure:
    """Parse a measure name (trec_eval or ir_measures style, case-insensitive).

    >>> parse_measure("P@10").name, parse_measure("nDCG@10").name, parse_measure("C@5").name
    ('P_10', 'ndcg_cut_10', 'correct@5')
    """
    text = name.strip().lower()
    for pattern, build in _PATTERNS:
        match = re.fullmatch(pattern, text)
        if match:
            measure = build(match)
            if measure.k is not None and measure.k < 1:
                break
            return measure
    raise ValueError(f"unknown measure {name!r}; use e.g. map, P_10, recall_10, ndcg, ndcg_cut_10, "
                     f"recip_rank, correct@5 (or ir_measures names AP, P@10, R@10, nDCG@10, RR)")


@dataclass(frozen=True)
class Scores:
    """Per-run, per-topic scores: ``values[measure]`` has shape (n_runs, n_topics)."""

    runs: list
    topics: np.ndarray
    values: dict

    def mean(self) -> pd.DataFrame:
        """Mean over topics: rows = runs, columns = measures."""
        return pd.DataFrame({m: v.mean(axis=1) for m, v in self.values.items()}, index=pd.Index(self.runs, name="run"))

    def to_frame(self) -> pd.DataFrame:
        """Long format: run, measure, topic, value."""
        parts = []
        for measure, values in self.values.items():
            parts.append(pd.DataFrame({
                "run": np.repeat(self.runs, len(self.topics)),
                "measure": measure,
                "topic": np.tile(self.topics, len(self.runs)),
                "value": values.ravel(),
            }))
        return pd.concat(parts, ignore_index=True)


def evaluate(runs: RunSet, qrels: Qrels, measures=DEFAULT_MEASURES, complete: bool = False,
             gains: np.ndarray | None = None) -> Scores:
    """Score every run on every evaluation topic, vectorised over runs and topics.

    Topics follow trec_eval: those in both runs and qrels, or all qrels topics with
    ``complete=True`` (``trec_eval -c``; missing topics score 0). Pass precomputed
    ``gains`` (from :meth:`RunSet.gains` over the same topics) to skip the lookup.
    """
    parsed = [m if isinstance(m, Measure) else parse_measure(m) for m in measures]
    topics = evaluation_topics(runs, qrels, complete)
    if gains is None:
        gains = runs.gains(qrels, topics)
    n_relevant = qrels.n_relevant(topics)
    ideal = qrels.ideal_gains(topics) if any(m.kind.startswith("ndcg") for m in parsed) else None
    values = {m.name: m(gains, n_relevant, ideal) for m in parsed}
    return Scores(list(runs.names), topics, values)
