"""Relevance judgements (qrels) as arrays the metrics can index.

A :class:`Qrels` wraps a tidy frame ``(query, docno, relevance)``. The ranking
metrics need three things per query: the grade of each retrieved document, the
number of relevant documents, and the ideal ordering of grades (for nDCG). All three
come from here, vectorised over queries.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .trec import read_qrels

__all__ = ["Qrels"]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgements: one row per judged (query, docno) with an integer grade.

    ``relevance_level`` is the smallest grade that counts as relevant for binary
    measures (trec_eval's ``-l``, default 1). Unjudged documents are non-relevant.
    """

    frame: pd.DataFrame
    relevance_level: int = 1

    @classmethod
    def read(cls, path, relevance_level: int = 1) -> "Qrels":
        """Read a 4-column TREC qrels file (plain or gzip)."""
        return cls(read_qrels(path), relevance_level)

    @classmethod
    def from_pairs(cls, queries, docnos, relevance=1) -> "Qrels":
        """Build qrels from parallel sequences (relevance may be a scalar)."""
        frame = pd.DataFrame({"query": np.asarray(queries, dtype=str), "docno": np.asarray(docnos, dtype=str)})
        frame["relevance"] = np.broadcast_to(np.asarray(relevance, dtype=np.int64), len(frame))
        return cls(frame)

    @cached_property
    def topics(self) -> np.ndarray:
        """Sorted query ids that have at least one judgement."""
        return np.sort(self.frame["query"].unique().astype(str))

    @cached_property
    def _relevant(self) -> pd.DataFrame:
        return self.frame[self.frame["relevance"] >= self.relevance_level]

    def n_relevant(self, topics) -> np.ndarray:
        """Number of relevant documents for each of ``topics`` (0 when absent)."""
        counts = self._relevant.groupby("query").size()
        return counts.reindex(pd.Index(topics, dtype=str), fill_value=0).to_numpy()

    def ideal_gains(self, topics, depth: int | None = None) -> np.ndarray:
        """Each topic's positive grades sorted descending, zero-padded: shape (n_topics, depth)."""
        positive = self.frame[self.frame["relevance"] > 0]
        index = pd.Index(topics, dtype=str)
        rows = index.get_indexer(positive["query"].astype(str))
        keep = rows >= 0
        rows, grades = rows[keep], positive["relevance"].to_numpy()[keep]
        order = np.lexsort((-grades, rows))
        rows, grades = rows[order], grades[order]
        starts = np.searchsorted(rows, np.arange(len(index)))
        cols = np.arange(len(rows)) - starts[rows]
        width = int(cols.max() + 1) if len(cols) else 1
        ideal = np.zeros((len(index), max(width, depth or 0)))
        ideal[rows, cols] = grades
        return ideal[:, :depth] if depth else ideal

    def restrict(self, mask) -> "Qrels":
        """Qrels keeping only the rows where ``mask`` is true (same relevance level)."""
        return Qrels(self.frame[np.asarray(mask)].reset_index(drop=True), self.relevance_level)
