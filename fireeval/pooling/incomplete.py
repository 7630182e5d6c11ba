"""Measures made for incomplete judgements, computed from the judged cells of many runs at once.

A pooled collection judges only what its pool held; everything else is *unjudged*.
``map`` and ``ndcg`` count unjudged documents as non-relevant. The measures here use
only the judged documents of each ranked list:

``bpref`` (Buckley & Voorhees 2004, trec_eval's ``bpref``)
    .. math:: bpref = \\frac{1}{R} \\sum_{r} \\Bigl(1 - \\frac{\\min(n_r, R)}{\\min(R, N)}\\Bigr)

    over the relevant retrieved documents r, where n_r is the number of judged
    non-relevant documents ranked above r, R the relevant and N the judged
    non-relevant documents of the topic (a term is 1 when n_r = 0).
``infAP`` (Yilmaz & Aslam 2006, trec_eval's ``infAP`` with every pool document judged)
    .. math:: infAP = \\frac{1}{R} \\sum_{r} \\frac{1}{k_r}\\Bigl(1 + j_r
              \\frac{\\rho_r + \\epsilon}{j_r + 2\\epsilon}\\Bigr)

    with k_r the rank of r, j_r the judged documents above it, ρ_r the relevant
    documents above it and ε = 1e-5 (trec_eval's ``INFAP_EPSILON``).
``map_judged`` / ``ndcg_judged`` (condensed lists, Sakai 2007: AP′ and nDCG′; ``trec_eval -J``)
    AP and nDCG of the list with every unjudged document removed; R and the ideal
    list come from the qrels as usual.

:class:`JudgedCells` keeps only the judged cells of a (runs, topics, ranks) array,
in row order, so that a pool-depth sweep or a leave-out re-scores them by masking
cells, without touching the (much larger) unjudged rest. Checked against
pytrec_eval (trec_eval 9) in the tests.
"""
from __future__ import annotations

import numpy as np

__all__ = ["INCOMPLETE_MEASURES", "INFAP_EPSILON", "JudgedCells", "incomplete_scores", "is_incomplete_measure"]

#: Measure names of this module, in the order tables show them.
INCOMPLETE_MEASURES = ("bpref", "infAP", "map_judged", "ndcg_judged")

#: trec_eval's ``INFAP_EPSILON`` (m_infAP.c).
INFAP_EPSILON = 0.00001

_ALIASES = {"bpref": "bpref", "infap": "infAP", "map_judged": "map_judged", "ap_judged": "map_judged",
            "map'": "map_judged", "ndcg_judged": "ndcg_judged", "ndcg'": "ndcg_judged"}


def is_incomplete_measure(name: str) -> bool:
    """True for a measure this module computes (``bpref``, ``infAP``, ``map_judged``, ``ndcg_judged``).

    >>> is_incomplete_measure("infAP"), is_incomplete_measure("map")
    (True, False)
    """
    return str(name).strip().lower() in _ALIASES


def _canonical(name: str) -> str:
    try:
        return _ALIASES[str(name).strip().lower()]
    except KeyError:
        raise ValueError(f"unknown incomplete-judgement measure {name!r}; use one of {', '.join(INCOMPLETE_MEASURES)}")


class JudgedCells:
    """The judged cells of a (runs, topics, ranks) array, ready to be scored under many masks.

    Parameters
    ----------
    gains : array (runs, topics, ranks)
        Relevance grade per cell (0 for unjudged).
    judged : bool array, same shape
        Whether the document of the cell is in the qrels.
    relevance_level : int
        Smallest grade counted relevant.
    cell_depth : int array, same shape, optional
        Pool depth of each cell's document, for :meth:`scores` with ``k``.
    """

    def __init__(self, gains, judged, relevance_level: int = 1, cell_depth=None):
        gains = np.asarray(gains)
        self.shape = gains.shape[:2]
        run, topic, pos = np.nonzero(np.asarray(judged, dtype=bool))
        self.cells = (run, topic, pos)
        grade = gains[run, topic, pos]
        self.relevant = grade >= relevance_level
        self.gain = np.where(self.relevant, np.clip(grade, 0, None), 0.0).astype(float)
        self.rank = pos + 1.0
        self.depth = None if cell_depth is None else np.asarray(cell_depth)[run, topic, pos]
        self.row = run.astype(np.int64) * self.shape[1] + topic

    def _per_row(self, row, values):
        out = np.bincount(row, weights=values, minlength=self.shape[0] * self.shape[1])
        return out.reshape(self.shape)

    def scores(self, measures=INCOMPLETE_MEASURES, n_relevant=None, n_nonrelevant=None, k=None, keep=None,
               ideal_dcg=None) -> dict:
        """Score every (run, topic) with the judged cells kept by ``k`` or ``keep``.

        ``k``: keep cells whose pool depth is ``<= k``; ``keep``: a boolean
        (runs, topics, ranks) mask (e.g. not removed by a leave-out); neither: all.
        ``n_relevant`` / ``n_nonrelevant`` broadcast to (runs, topics): the judged
        relevant and non-relevant documents of each topic under the same judgements.
        ``ideal_dcg`` (broadcast to (runs, topics)) is needed for ``ndcg_judged``;
        by default it is binary, from ``n_relevant``. Returns ``{name: (runs, topics)}``.

        Only the kept cells are touched (a shallow pool keeps few), in (run, topic,
        rank) order, so running counts within each (run, topic) give every cell the
        judged relevant and non-relevant documents above it.
        """
        names = [_canonical(m) for m in measures]
        if keep is not None:
            sel = np.flatnonzero(np.asarray(keep, dtype=bool)[self.cells])
        elif k is not None:
            sel = np.flatnonzero(self.depth <= k)
        else:
            sel = np.arange(len(self.row))
        row, rel, rank = self.row[sel], self.relevant[sel], self.rank[sel]
        starts = np.r_[0, np.flatnonzero(np.diff(row)) + 1] if len(row) else np.zeros(0, int)
        sizes = np.diff(np.r_[starts, len(row)])
        position = np.arange(len(row)) - np.repeat(starts, sizes)  # judged cells above, within the row
        seen_rel = np.cumsum(rel)
        rel_above = seen_rel - rel - np.repeat((seen_rel - rel)[starts], sizes)
        non_above = position - rel_above
        n_rel = np.broadcast_to(np.asarray(n_relevant, dtype=float), self.shape)
        out = {}
        rel_row, rel_rank = row[rel], rank[rel]
        ra, na = rel_above[rel].astype(float), non_above[rel].astype(float)
        if "bpref" in names:
            n_non = np.broadcast_to(np.asarray(n_nonrelevant, dtype=float), self.shape)
            cell_r, cell_n = n_rel.reshape(-1)[rel_row], n_non.reshape(-1)[rel_row]
            denom = np.minimum(cell_r, cell_n)
            with np.errstate(invalid="ignore", divide="ignore"):
                term = np.where(na > 0, 1.0 - np.minimum(na, cell_r) / np.where(denom > 0, denom, 1), 1.0)
            out["bpref"] = _divide(self._per_row(rel_row, term), n_rel)
        if "infAP" in names:
            judged_above = ra + na
            term = (1.0 + judged_above * (ra + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON)) / rel_rank
            out["infAP"] = _divide(self._per_row(rel_row, term), n_rel)
        condensed_rank = ra + na + 1.0
        if "map_judged" in names:
            out["map_judged"] = _divide(self._per_row(rel_row, (ra + 1.0) / condensed_rank), n_rel)
        if "ndcg_judged" in names:
            dcg = self._per_row(rel_row, self.gain[sel][rel] / np.log2(condensed_rank + 1.0))
            if ideal_dcg is None:
                ideal_dcg = binary_ideal_dcg(n_rel)
            out["ndcg_judged"] = _divide(dcg, np.broadcast_to(ideal_dcg, self.shape))
        return {name: out[name] for name in names}


def binary_ideal_dcg(n_relevant) -> np.ndarray:
    """Ideal DCG of binary judgements with ``n_relevant`` relevant documents (any shape).

    >>> binary_ideal_dcg([0, 1, 2]).round(4).tolist()
    [0.0, 1.0, 1.6309]
    """
    n = np.asarray(n_relevant, dtype=np.int64)
    table = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(2, max(int(n.max(initial=0)), 0) + 2)))]
    return table[n]


def _divide(num, den):
    den = np.asarray(den, dtype=float)
    return np.divide(num, den, out=np.zeros(np.broadcast_shapes(np.shape(num), den.shape)), where=den > 0)


def incomplete_scores(runs, qrels, measures=INCOMPLETE_MEASURES, topics=None) -> dict:
    """Per-topic ``bpref``, ``infAP``, ``map_judged``, ``ndcg_judged`` of every run: ``{name: (runs, topics)}``.

    ``topics`` default: every qrels topic (trec_eval ``-c``: a topic a run lacks scores 0).
    nDCG′'s ideal list uses the qrels' grades (linear gain, as trec_eval's ``ndcg``).

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
    non = (frame["relevance"] < qrels.relevance_level) & in_topics
    n_non = np.bincount(index.get_indexer(frame["query"].astype(str)[non]), minlength=len(topics))
    ideal = qrels.ideal_gains(topics)
    ideal_dcg = (np.clip(ideal, 0, None) / np.log2(np.arange(2, ideal.shape[1] + 2))).sum(-1)
    cells = JudgedCells(gains, judged, qrels.relevance_level)
    return cells.scores(measures, n_rel, n_non, ideal_dcg=ideal_dcg)


def _judged(runs, qrels, topics):
    judged = runs.judged(qrels)
    if np.array_equal(np.asarray(topics, dtype=str), runs.topics):
        return judged
    import pandas as pd

    cols = pd.Index(runs.topics).get_indexer(np.asarray(topics, dtype=str))
    out = np.zeros(judged.shape[:1] + (len(cols),) + judged.shape[2:], dtype=bool)
    out[:, cols >= 0] = judged[:, cols[cols >= 0]]
    return out
