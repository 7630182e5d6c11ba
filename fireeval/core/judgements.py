"""Relevance judgements (qrels) as arrays the metrics can index.

A :class:`Qrels` wraps a tidy frame ``(query, docno, relevance)``. The ranking
metrics need three things per query: the grade of each retrieved document, the
number of relevant documents, and the ideal ordering of grades (for nDCG). All three
come from here, vectorised over queries.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from fireeval.core import ranking

if TYPE_CHECKING:  # (pandas is imported where it is used: Judgements, for one, needs none)
    import pandas as pd

__all__ = ["Qrels", "Judgements"]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgements: one row per judged (query, docno) with an integer grade.

    ``relevance_level`` is the smallest grade that counts as relevant for binary
    measures (trec_eval's ``-l``, default 1). Unjudged documents are non-relevant.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns query, docno, relevance.
    relevance_level : int
        The smallest relevant grade.

    Examples
    --------
    >>> qrels = Qrels.from_pairs(["1", "1", "2"], ["a", "b", "c"], [2, 0, 1])
    >>> qrels.topics.tolist(), qrels.n_relevant(qrels.topics).tolist()
    (['1', '2'], [1, 1])
    """

    frame: pd.DataFrame
    relevance_level: int = 1

    @classmethod
    def read(cls, path, relevance_level: int = 1) -> "Qrels":
        """Read a 4-column TREC qrels file (plain or gzip)."""
        from fireeval.core.trec import read_qrels

        return cls(read_qrels(path), relevance_level)

    @classmethod
    def from_pairs(cls, queries, docnos, relevance=1) -> "Qrels":
        """Build qrels from parallel sequences (relevance may be a scalar)."""
        import pandas as pd

        frame = pd.DataFrame({"query": np.asarray(queries, dtype=str), "docno": np.asarray(docnos, dtype=str)})
        frame["relevance"] = np.broadcast_to(np.asarray(relevance, dtype=np.int64), len(frame))
        return cls(frame)

    @cached_property
    def topics(self) -> np.ndarray:
        """Sorted query ids that have at least one judgement."""
        return np.sort(self.frame["query"].unique().astype(str))

    def _count(self, topics, mask) -> np.ndarray:
        import pandas as pd

        counts = self.frame.loc[mask, "query"].astype(str).value_counts()
        return counts.reindex(pd.Index(topics, dtype=str), fill_value=0).to_numpy()

    def n_relevant(self, topics, level: int | None = None) -> np.ndarray:
        """Number of relevant documents (grade >= ``level``, default the qrels' level) per topic."""
        level = self.relevance_level if level is None else level
        return self._count(topics, self.frame["relevance"].to_numpy() >= level)

    def n_nonrelevant(self, topics, level: int | None = None) -> np.ndarray:
        """Number of judged non-relevant documents (0 <= grade < ``level``) per topic (bpref's N)."""
        level = self.relevance_level if level is None else level
        rel = self.frame["relevance"].to_numpy()
        return self._count(topics, (rel >= 0) & (rel < level))

    def ideal_gains(self, topics, depth: int | None = None) -> np.ndarray:
        """Each topic's positive grades sorted descending, zero-padded: shape (n_topics, depth)."""
        import pandas as pd

        rows = pd.Index(topics, dtype=str).get_indexer(self.frame["query"].astype(str))
        return ranking.ideal_gains(rows, self.frame["relevance"].to_numpy(), len(topics), depth)

    def restrict(self, mask) -> "Qrels":
        """Qrels keeping only the rows where ``mask`` is true (same relevance level)."""
        return Qrels(self.frame[np.asarray(mask)].reset_index(drop=True), self.relevance_level)


@dataclass
class Judgements:
    """Pooled relevance judgements over a (query x item) grid.

    Attributes
    ----------
    models : tuple of str
        The pooled models, in the order of ``contributed``'s first axis.
    contributed : bool ndarray (n_models, n_queries, n_items)
        ``contributed[m, q, v]``: model m's pool put pair (q, v) up for judgement.
    judged : bool ndarray (n_queries, n_items)
        The pair received a judgement (any model contributed it).
    relevant : bool ndarray (n_queries, n_items)
        The pair was judged relevant (majority label). Always within ``judged``.

    Parameters
    ----------
    models : sequence of str
        The pooled models.
    contributed, judged, relevant : array_like of bool
        As the attributes above; ``relevant`` is cut to ``judged``.

    Examples
    --------
    Two models, one query, two items: model ``a`` pooled item 0 (relevant), ``b`` item 1 (not).

    >>> j = Judgements(("a", "b"), [[[True, False]], [[False, True]]], [[True, True]], [[True, False]])
    >>> j.summary()
    {'pairs': 2, 'relevant': 1, 'share_relevant': 0.5}
    >>> j.positives([[False, False]]).tolist(), j.leave_out([[False, False]], "a").tolist()
    ([[True, False]], [[False, False]])
    """

    models: tuple
    contributed: np.ndarray
    judged: np.ndarray
    relevant: np.ndarray

    def __post_init__(self):
        self.models = tuple(self.models)
        self.contributed = np.asarray(self.contributed, dtype=bool)
        self.judged = np.asarray(self.judged, dtype=bool)
        self.relevant = np.asarray(self.relevant, dtype=bool) & self.judged
        if self.contributed.shape != (len(self.models),) + self.judged.shape:
            raise ValueError(f"contributed has shape {self.contributed.shape}, expected "
                             f"{(len(self.models),) + self.judged.shape} (models x queries x items)")

    def positives(self, original, models: Sequence[str] | None = None) -> np.ndarray:
        """Original positives plus pairs judged relevant that ``models`` (default: all) contributed.

        .. math:: P = O \\cup \\{(q, v) : \\mathrm{rel}(q, v) \\wedge \\exists m \\in M : (q, v) \\in \\mathrm{pool}_m\\}
        """
        original = np.asarray(original, dtype=bool)
        if original.shape != self.judged.shape:
            raise ValueError(f"original positives have shape {original.shape}, judgements {self.judged.shape}")
        keep = list(self.models) if models is None else list(models)
        unknown = sorted(set(keep) - set(self.models))
        if unknown:
            raise KeyError(f"no judgements from {unknown}; pooled models are {list(self.models)}")
        index = [self.models.index(m) for m in keep]
        found = self.contributed[index].any(axis=0) if index else np.zeros_like(self.judged)
        return original | (self.relevant & found)

    def leave_out(self, original, model: str) -> np.ndarray:
        """Positives a *new* model would see: original plus the other models' judged positives."""
        return self.positives(original, [m for m in self.models if m != model])

    def rename(self, mapping: Mapping[str, str]) -> "Judgements":
        """The same judgements with models renamed (names absent from ``mapping`` stay)."""
        return Judgements(tuple(mapping.get(m, m) for m in self.models), self.contributed, self.judged,
                          self.relevant)

    def summary(self) -> dict:
        """Counts in the style of FIRE Table 2 (pairs judged, relevant, share relevant)."""
        n = int(self.judged.sum())
        r = int(self.relevant.sum())
        return {"pairs": n, "relevant": r, "share_relevant": r / n if n else float("nan")}
