"""Measures made for incomplete judgements, computed from the judged cells of many runs at once.

A pooled collection judges only what its pool held; everything else is *unjudged*.
``map`` and ``ndcg`` count unjudged documents as non-relevant. The measures here use
only the judged documents of each ranked list; each is computed by its registered
family in :mod:`fireeval.core.measures` (the one copy ``evaluate`` and ``fireeval
evaluate`` use, checked against trec_eval through pytrec_eval), on a view of the
judged cells; names are read by the registry (``AP'``, ``map'``, ``nDCG'`` ...):

``bpref`` (Buckley & Voorhees 2004, trec_eval's ``bpref``)
    :func:`fireeval.core.ranking.bpref`.
``infAP`` (Yilmaz & Aslam 2006, trec_eval's ``infAP``): :func:`fireeval.core.ranking.inferred_ap`.
    A negative grade is trec_eval's "pooled but not sampled" (counted in the pool, not
    judged); with every pooled document judged infAP equals AP up to ε = 1e-5.
``map_judged`` / ``ndcg_judged`` (condensed lists, Sakai 2007: AP′ and nDCG′; ``trec_eval -J``)
    AP and nDCG of :func:`fireeval.core.ranking.condense` (unjudged and negative-grade
    documents removed); R and the ideal list come from the qrels as usual.

:class:`JudgedCells` keeps only the judged cells of a (runs, topics, ranks) array,
in row order, so that a pool-depth sweep or a leave-out re-scores them by masking
cells, without touching the (much larger) unjudged rest: bpref, AP′ and nDCG′ read
only the order of the judged documents, so they are computed on the kept cells
packed to the left; infAP also needs each document's rank, so it is computed on the
kept cells at their ranks. Checked against pytrec_eval (trec_eval 9) in the tests,
with -1 / 0 / graded judgements.
"""
from __future__ import annotations

import numpy as np

from fireeval.core import measures as registry
from fireeval.core.measures import Context
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core.validation import ARRAY, COLLECTION, STR, Instance, validate_params

__all__ = ["INCOMPLETE_MEASURES", "JudgedCells", "binary_ideal_gains", "canonical_name", "incomplete_scores",
           "is_incomplete_measure"]

#: Measure names of this module, in the order tables show them (registry roots).
INCOMPLETE_MEASURES = ("bpref", "infAP", "map_judged", "ndcg_judged")


def _family_root(name) -> str | None:
    try:
        return registry.get(str(name)).root
    except ValueError:
        return None


@validate_params(name=STR)
def is_incomplete_measure(name: str) -> bool:
    """True for a measure this module computes (``bpref``, ``infAP``, ``map_judged``, ``ndcg_judged``,
    under any registered name: ``Bpref``, ``AP'``, ``map'``, ``nDCG'``).

    Parameters
    ----------
    name : str
        A measure's name.

    Returns
    -------
    bool

    >>> is_incomplete_measure("infAP"), is_incomplete_measure("AP'"), is_incomplete_measure("map")
    (True, True, False)
    """
    return _family_root(name) in INCOMPLETE_MEASURES


@validate_params(name=STR)
def canonical_name(name: str) -> str:
    """The registry's root name of a measure of this module (``map'`` -> ``map_judged``).

    Parameters
    ----------
    name : str
        A measure's name.

    Returns
    -------
    str

    >>> canonical_name("nDCG'"), canonical_name("Bpref")
    ('ndcg_judged', 'bpref')
    """
    root = _family_root(name)
    if root not in INCOMPLETE_MEASURES:
        raise ValueError(f"unknown incomplete-judgement measure {name!r}. Fix: use one of "
                         f"{', '.join(INCOMPLETE_MEASURES)} (or AP', nDCG')")
    return root


class JudgedCells:
    """The judged cells of a (runs, topics, ranks) array, ready to be scored under many masks.

    Parameters
    ----------
    gains : array (runs, topics, ranks)
        Relevance grade per cell (any value where unjudged; a negative grade is trec_eval's
        "pooled but not judged").
    judged : bool array, same shape
        Whether the document of the cell is in the qrels.
    relevance_level : int
        Smallest grade counted relevant.
    cell_depth : int array, same shape, optional
        Pool depth of each cell's document, for :meth:`scores` with ``k``.

    Examples
    --------
    One run, one topic: a judged non-relevant, an unjudged and a relevant document.

    >>> cells = JudgedCells(np.array([[[0.0, 0.0, 1.0]]]), np.array([[[True, False, True]]]))
    >>> scores = cells.scores(["bpref", "map_judged"], n_relevant=[[1]], n_nonrelevant=[[1]])
    >>> scores["bpref"].tolist(), scores["map_judged"].tolist()   # condensed: the relevant one is 2nd of 2 judged
    ([[0.0]], [[0.5]])
    """

    def __init__(self, gains, judged, relevance_level: int = 1, cell_depth=None):
        gains = np.asarray(gains)
        self.shape = gains.shape[:2]
        self.level = relevance_level
        run, topic, pos = np.nonzero(np.asarray(judged, dtype=bool))
        self.cells = (run, topic, pos)
        self.grade = gains[run, topic, pos].astype(float)
        self.rank = pos + 1
        self.depth = None if cell_depth is None else np.asarray(cell_depth)[run, topic, pos]
        self.row = run.astype(np.int64) * self.shape[1] + topic

    def _select(self, k=None, keep=None) -> np.ndarray:
        if keep is not None:
            return np.flatnonzero(np.asarray(keep, dtype=bool)[self.cells])
        if k is not None:
            return np.flatnonzero(self.depth <= k)
        return np.arange(len(self.row))

    def packed(self, k=None, keep=None) -> np.ndarray:
        """The kept cells' grades packed to the left in rank order, NaN after: (runs, topics, width)."""
        sel = self._select(k, keep)
        row = self.row[sel]
        starts = np.r_[0, np.flatnonzero(np.diff(row)) + 1] if len(row) else np.zeros(0, int)
        sizes = np.diff(np.r_[starts, len(row)])
        position = np.arange(len(row)) - np.repeat(starts, sizes)  # judged cells above, within the row
        out = np.full((self.shape[0] * self.shape[1], max(int(sizes.max(initial=0)), 1)), np.nan)
        out[row, position] = self.grade[sel]
        return out.reshape(self.shape + (-1,))

    def ranked(self, k=None, keep=None) -> np.ndarray:
        """The kept cells' grades at their ranks, NaN elsewhere: (runs, topics, last kept rank)."""
        sel = self._select(k, keep)
        out = np.full((self.shape[0] * self.shape[1], max(int(self.rank[sel].max(initial=0)), 1)), np.nan)
        out[self.row[sel], self.rank[sel] - 1] = self.grade[sel]
        return out.reshape(self.shape + (-1,))

    def scores(self, measures=INCOMPLETE_MEASURES, n_relevant=None, n_nonrelevant=None, k=None, keep=None,
               ideal_gains=None) -> dict:
        """Score every (run, topic) with the judged cells kept by ``k`` or ``keep``.

        ``k``: keep cells whose pool depth is ``<= k``; ``keep``: a boolean
        (runs, topics, ranks) mask (e.g. not removed by a leave-out); neither: all.
        ``n_relevant`` / ``n_nonrelevant`` broadcast to (runs, topics): the judged
        relevant and judged non-relevant (grade 0 ... level - 1) documents of each topic
        under the same judgements. ``ideal_gains`` (…, width), broadcast against
        (runs, topics), gives nDCG′'s ideal list; by default it is binary, from
        ``n_relevant``. Returns ``{name: (runs, topics)}``, each from its family in :mod:`fireeval.core.measures`.
        """
        names = [canonical_name(m) for m in measures]
        n_rel = np.broadcast_to(np.asarray(n_relevant, dtype=float), self.shape)
        out = {}
        if {"bpref", "map_judged", "ndcg_judged"} & set(names):
            packed = self.packed(k, keep)
            n_non = None if n_nonrelevant is None else np.broadcast_to(np.asarray(n_nonrelevant, dtype=float),
                                                                        self.shape)
            if "ndcg_judged" in names and ideal_gains is None:
                ideal_gains = binary_ideal_gains(n_rel)
            ctx = Context(packed, n_rel, ideal_gains, self.level, n_non, (~np.isnan(packed)).sum(axis=-1))
            for name in {"bpref", "map_judged", "ndcg_judged"} & set(names):
                out[name] = registry.REGISTRY[name].compute(ctx, None)
        if "infAP" in names:
            ranked = self.ranked(k, keep)
            ctx = Context(ranked, n_rel, None, self.level, None, np.full(self.shape, ranked.shape[-1]))
            out["infAP"] = registry.REGISTRY["infAP"].compute(ctx, None)
        return {name: out[name] for name in names}


@validate_params(n_relevant=ARRAY)
def binary_ideal_gains(n_relevant) -> np.ndarray:
    """Ideal grades of binary judgements with ``n_relevant`` relevant documents: (..., max count).

    Parameters
    ----------
    n_relevant : array_like of int
        Relevant documents per topic.

    Returns
    -------
    ndarray (..., max count)

    >>> binary_ideal_gains([0, 1, 2]).tolist()
    [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
    """
    n = np.asarray(n_relevant, dtype=np.int64)
    width = max(int(n.max(initial=0)), 1)
    return (np.arange(width) < n[..., None]).astype(float)


@validate_params(runs=Instance(RunSet), qrels=Instance(Qrels), measures=COLLECTION, topics=[COLLECTION, None])
def incomplete_scores(runs, qrels, measures=INCOMPLETE_MEASURES, topics=None) -> dict:
    """Per-topic ``bpref``, ``infAP``, ``map_judged``, ``ndcg_judged`` of every run: ``{name: (runs, topics)}``.

    ``topics`` default: every qrels topic (trec_eval ``-c``: a topic a run lacks scores 0).
    nDCG′'s ideal list uses the qrels' grades (linear gain, as trec_eval's ``ndcg``).

    Parameters
    ----------
    runs : RunSet
        The runs.
    qrels : Qrels
        The judgements.
    measures : sequence of str
        Measures of this module.
    topics : sequence of str, optional
        The topics scored.

    Returns
    -------
    dict

    >>> import pandas as pd
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> run = pd.DataFrame({"query": "1", "docno": ["u", "n", "r"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = Qrels(pd.DataFrame({"query": "1", "docno": ["n", "r"], "relevance": [0, 1]}))
    >>> out = incomplete_scores(RunSet.from_frames({"A": run}), qrels)
    >>> {m: round(float(v[0, 0]), 4) for m, v in out.items()}
    {'bpref': 0.0, 'infAP': 0.3333, 'map_judged': 0.5, 'ndcg_judged': 0.6309}
    """
    topics = qrels.topics if topics is None else np.asarray(topics, dtype=str)
    gains = runs.gains(qrels, topics)
    judged = _judged(runs, qrels, topics)
    frame = qrels.frame
    in_topics = frame["query"].astype(str).isin(topics)
    rel = (frame["relevance"] >= qrels.relevance_level) & in_topics
    import pandas as pd

    index = pd.Index(topics)
    n_rel = np.bincount(index.get_indexer(frame["query"].astype(str)[rel]), minlength=len(topics))
    non = (frame["relevance"] >= 0) & (frame["relevance"] < qrels.relevance_level) & in_topics  # bpref's N
    n_non = np.bincount(index.get_indexer(frame["query"].astype(str)[non]), minlength=len(topics))
    cells = JudgedCells(gains, judged, qrels.relevance_level)
    return cells.scores(measures, n_rel, n_non, ideal_gains=qrels.ideal_gains(topics))


def _judged(runs, qrels, topics):
    judged = runs.judged(qrels)
    if np.array_equal(np.asarray(topics, dtype=str), runs.topics):
        return judged
    import pandas as pd

    cols = pd.Index(runs.topics).get_indexer(np.asarray(topics, dtype=str))
    out = np.zeros(judged.shape[:1] + (len(cols),) + judged.shape[2:], dtype=bool)
    out[:, cols >= 0] = judged[:, cols[cols >= 0]]
    return out
