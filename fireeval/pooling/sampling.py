"""Randomly sampled judgements: the experiment the incomplete-judgement measures were made for.

Buckley & Voorhees (bpref), Yilmaz & Aslam (infAP) and Sakai (condensed lists, AP′ and
nDCG′) tested their measures by removing judgements *at random* from a complete pool,
not by making the pool shallower. :func:`sampled_judgements` repeats that on any
pooled collection: for each topic it keeps a random share (the *rate*) of the topic's
judgements, re-scores every run, and returns the scores per rate and seed, ready for
Kendall τ against the full judgements.

The sampled qrels follow trec_eval's conventions, so that one set of judgements serves
every measure:

- a sampled judgement keeps its grade;
- a judged document that was not sampled gets grade -1, trec_eval's "in the pool, not
  judged": infAP counts it in the pool (its sampling design: the sampled documents are
  a uniform sample of the pool, Yilmaz & Aslam 2006), bpref and the condensed lists
  ignore it, MAP counts it non-relevant;
- a document outside the qrels stays outside the pool (non-relevant for MAP and infAP,
  ignored by bpref, AP′, nDCG′).

R (and bpref's N, nDCG′'s ideal list) are counted from the sampled judgements, as
trec_eval counts them from such a qrels file. Every measure is the one copy of
:mod:`fireeval.core.ranking`. Samples are nested: within a seed, each topic's
judgements are drawn in one random order and a rate keeps the first ``ceil(rate · n)``
of them (at least one), so a higher rate adds judgements to a lower one's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fireeval.core import ranking
from fireeval.stats.agreement import kendall_tau_many
from fireeval.stats.reliability import bootstrap_agreement, jackknife_agreement
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core.validation import ARRAY, BOOL, COLLECTION, SEED, Array, Instance, validate_params

__all__ = ["SAMPLED_MEASURES", "SampledJudgements", "sample_rows", "sampled_judgements", "sampled_grades"]

#: Measures of the experiment: MAP (unsampled = non-relevant) and the four made for incomplete judgements.
SAMPLED_MEASURES = ("map", "bpref", "infAP", "map_judged", "ndcg_judged")


@validate_params(row_topic=ARRAY, rates=Array(0, 1), seed=SEED)
def sample_rows(row_topic, rates, seed: int) -> np.ndarray:
    """Nested random samples of qrels rows per topic: boolean (n_rates, n_rows).

    Each topic's rows are put in one random order (``seed``); rate ``r`` keeps the first
    ``max(1, ceil(r · n_topic))`` of them.

    Parameters
    ----------
    row_topic : array_like of int
        Each qrels row's topic.
    rates : sequence of float
        Shares kept, ascending.
    seed : int
        Seed.

    Returns
    -------
    bool ndarray (n_rates, n_rows)

    >>> keep = sample_rows(np.array([0, 0, 0, 0, 1, 1]), [0.25, 0.5, 1.0], seed=0)
    >>> keep.sum(1).tolist()
    [2, 3, 6]
    >>> bool((keep[0] <= keep[1]).all() and (keep[1] <= keep[2]).all())
    True
    """
    row_topic = np.asarray(row_topic)
    u = np.random.default_rng(seed).random(len(row_topic))
    order = np.lexsort((u, row_topic))
    sorted_topic = row_topic[order]
    starts = np.searchsorted(sorted_topic, sorted_topic, side="left")
    position = np.empty(len(row_topic), dtype=np.int64)
    position[order] = np.arange(len(row_topic)) - starts
    n = np.bincount(row_topic, minlength=int(row_topic.max(initial=-1)) + 1)[row_topic]
    rates = np.asarray(rates, dtype=float)
    quota = np.maximum(1, np.ceil(rates[:, None] * n[None, :] - 1e-9))
    return position[None, :] < quota


@validate_params(grade_row=ARRAY, keep_row=ARRAY)
def sampled_grades(grade_row, keep_row) -> np.ndarray:
    """Grades of a sampled qrels in trec_eval's convention: the grade where sampled, -1 elsewhere.

    Parameters
    ----------
    grade_row : array_like
        The grades.
    keep_row : array_like of bool
        The rows sampled.

    Returns
    -------
    float ndarray

    >>> sampled_grades(np.array([1, 0, 2]), np.array([True, False, True])).tolist()
    [1.0, -1.0, 2.0]
    """
    return np.where(keep_row, np.asarray(grade_row, dtype=float), -1.0)


@dataclass(frozen=True)
class SampledJudgements:
    """Scores of every run under random samples of the judgements.

    ``values[m]``: (n_rates, n_seeds, n_runs, n_topics); ``reference[m]``: (n_runs,
    n_topics), the measure with every judgement. ``n_judged``: (n_rates, n_seeds)
    judgements kept.

    Parameters
    ----------
    rates, seeds : ndarray
        The sampling rates and seeds.
    runs : list of str
        The runs.
    topics : ndarray
        The topics.
    values, reference : dict
        As above.
    n_judged : ndarray (n_rates, n_seeds)
        As above.

    Examples
    --------
    Made by :func:`sampled_judgements`:

    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> frame = pd.DataFrame({"query": "1", "docno": list("abcd"), "score": [4.0, 3, 2, 1]})
    >>> qrels = Qrels(pd.DataFrame({"query": "1", "docno": list("abcd"), "relevance": [1, 0, 1, 0]}))
    >>> out = sampled_judgements(RunSet.from_frames({"A": frame}), qrels, [0.5, 1.0], [0, 1], ["map"])
    >>> out.rates.tolist(), out.n_judged.tolist(), out.values["map"].shape
    ([0.5, 1.0], [[2, 2], [4, 4]], (2, 2, 1, 1))
    """

    rates: np.ndarray
    seeds: np.ndarray
    runs: list
    topics: np.ndarray
    values: dict
    reference: dict
    n_judged: np.ndarray

    def tau(self, measure: str, against: str | None = None) -> np.ndarray:
        """Kendall τ-b of the ranking by mean score against the full-judgement ranking: (n_rates, n_seeds).

        ``against``: the full-judgement ranking of another measure (e.g. ``"map"``: how close
        infAP on a sample ranks to AP with every judgement); default the measure itself.
        """
        means = self.values[measure].mean(-1)
        ref = np.broadcast_to(self.reference[against or measure].mean(-1), means.shape)
        return kendall_tau_many(means, ref)

    def bootstrap(self, measure: str, n_resamples: int = 1000, rng=0, against: str | None = None) -> np.ndarray:
        """Bootstrap-over-topics replicates of :meth:`tau`, (n_rates, n_seeds, n_resamples); paired by ``rng``."""
        return bootstrap_agreement(self.values[measure], self.reference[against or measure], n_resamples, rng)

    def jackknife(self, measure: str, against: str | None = None) -> np.ndarray:
        """Leave-one-topic-out values of :meth:`tau`, (n_rates, n_seeds, n_topics)."""
        return jackknife_agreement(self.values[measure], self.reference[against or measure])

    def curve(self, label=str) -> pd.DataFrame:
        """τ per measure, rate and seed, long form: columns measure, rate, seed, tau."""
        rows = []
        for m in self.values:
            t = self.tau(m)
            for i, r in enumerate(self.rates):
                for j, s in enumerate(self.seeds):
                    rows.append({"measure": label(m), "rate": float(r), "seed": int(s), "tau": float(t[i, j])})
        return pd.DataFrame(rows)


class _Cells:
    """Cells grouped by row in rank order (``row``, 0-based ``rank``): per cell the count of flagged cells of its
    row up to and including it (:meth:`within_row`), and the sampled grades of the cells (:meth:`sampled`).

    Counts are int32 while the cells number below 2**31 (the same integers as int64 would hold). The scratch
    buffers are reused by every sample: a sample's full-length temporaries would otherwise be fresh pages each
    time (2.8 million cells on TREC-8, about 40 samples per chapter: gigabytes of page faults, issue 38).
    """

    def __init__(self, row, rank):
        self.row, self.rank = row, rank
        self.starts = ranking.row_starts(row)  # each group's (row's) first cell
        sizes = np.diff(np.r_[self.starts, len(row)])
        self.count_dtype = np.int32 if len(row) < np.iinfo(np.int32).max else np.int64
        self.group = np.repeat(np.arange(len(self.starts), dtype=self.count_dtype), sizes)  # each cell's group
        self.position = np.arange(1, len(row) + 1) - self.starts[self.group]  # 1-based place among its row's cells
        self._counts = np.empty(len(row), dtype=self.count_dtype)  # scratch of within_row
        self._per_cell = np.empty(len(row), dtype=self.count_dtype)  # scratch of per_cell
        self._grades = np.empty(len(row))  # scratch of sampled

    def within_row(self, flag, at=None) -> np.ndarray:
        """What a cumulative sum of ``flag`` along each row's ranks reads at each cell (a rank holding no cell adds
        nothing); at the cells ``at`` (a boolean mask or indices) only, when given."""
        if at is None:
            seen = np.cumsum(flag, dtype=self.count_dtype)
            before = seen[self.starts] - flag[self.starts]  # flagged cells before each group's first
            seen -= np.take(before, self.group, out=self._counts, mode="clip")  # (mode="raise" would copy)
            return seen
        seen = np.cumsum(flag, dtype=self.count_dtype, out=self._counts)
        before = seen[self.starts] - flag[self.starts]
        return seen[at] - before[self.group[at]]

    def per_cell(self, per_row) -> np.ndarray:
        """``per_row[row]`` of each cell, for integer values that fit the counts' type, in a buffer that the next
        call overwrites."""
        return np.take(np.asarray(per_row)[self.row[self.starts]].astype(self.count_dtype), self.group,
                       out=self._per_cell, mode="clip")

    def sampled(self, cell_grade, keep_cell) -> np.ndarray:
        """:func:`sampled_grades` of the cells (their grades, -1 where not sampled), in a buffer that the next
        call overwrites."""
        np.copyto(self._grades, -1.0)
        np.copyto(self._grades, cell_grade, where=keep_cell)
        return self._grades


def _cell_scores(cells, grade, judged_seen, n_rows: int, n_rel, n_non, level, measures) -> dict:
    """MAP, bpref, infAP and AP′ of ``n_rows`` ranked lists from their graded cells alone: ``{name: (n_rows,)}``.

    ``cells`` (:class:`_Cells`) and ``grade`` list every cell holding a grade (-1: in the pool, not
    sampled), grouped by row in rank order; ``judged_seen`` is ``cells.within_row(grade >= 0)``. Ranks
    holding none are NaN in :mod:`fireeval.core.ranking`'s terms, which these measures read only through
    the ranks' positions and sums that skip them. Each value is the one
    :func:`fireeval.core.ranking.average_precision`, :func:`~fireeval.core.ranking.bpref` and
    :func:`~fireeval.core.ranking.inferred_ap` give on the dense (rows, depth) grades (or their condensed
    list, for AP′), term for term and added in the same order, without the cells that hold nothing.
    """
    rel = grade >= level
    r_row, r_rank = cells.row[rel], cells.rank[rel]
    out = {}
    if "map" in measures:
        out["map"] = ranking.average_precision_of_cells(r_row, r_rank + 1.0, n_rows, n_rel)
    if "map_judged" in measures:  # the rank in the condensed list: judged (grade >= 0) cells up to this one
        condensed_rank = judged_seen[rel]
        out["map_judged"] = ranking.average_precision_of_cells(r_row, condensed_rank.astype(float), n_rows, n_rel)
    if "bpref" in measures or "infAP" in measures:
        # at a relevant cell: the judged non-relevant ones strictly above
        nonrel_above = cells.within_row(ranking.nonrelevant_judged(grade, level), at=rel)
    if "bpref" in measures:
        n_r = n_rel[r_row]
        penalty = ranking.safe_divide(np.minimum(nonrel_above, n_r), np.minimum(n_r, n_non[r_row]))
        total = np.bincount(r_row, weights=1.0 - penalty, minlength=n_rows)  # each row's terms in rank order
        out["bpref"] = ranking.safe_divide(total, n_rel)
    if "infAP" in measures:
        rel_above = cells.within_row(rel, at=rel) - 1
        # every cell holds a grade: those up to it that are not judged (>= 0) are the pooled, unjudged ones (< 0)
        pooled_above = rel_above + nonrel_above + (cells.position[rel] - judged_seen[rel])
        i = r_rank.astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            estimate = (1.0 / (i + 1) + (i / (i + 1)) * (pooled_above / np.where(i > 0, i, 1.0))
                        * ((rel_above + ranking.INFAP_EPSILON)
                           / (rel_above + nonrel_above + 2 * ranking.INFAP_EPSILON)))
        estimate = np.where(i == 0, 1.0, estimate)
        out["infAP"] = ranking.safe_divide(np.bincount(r_row, weights=estimate, minlength=n_rows), n_rel)
    return out


def _condensed_by_width(fn, cells, grade, judged_seen, n_rows: int, last, chunks: int = 8) -> np.ndarray:
    """``fn(condensed, rows)`` on the condensed lists (judged cells moved up, NaN after) of ``n_rows`` ranked
    lists, each list cut after its ``last`` useful rank: (n_rows,).

    Rows are sorted by that rank and scored in chunks, each as wide as its widest row (the ranks after a
    row's last positive grade change nothing). A chunk's condensed grades are written straight from the
    graded cells (``cells``, a :class:`_Cells`, and their ``grade``; ``judged_seen``:
    ``cells.within_row(grade >= 0)``), the very array :func:`fireeval.core.ranking.condense` makes of the
    chunk's (rows, width) grades, without that array or the whole run set's.
    """
    order = np.argsort(last, kind="stable")
    out = np.empty(n_rows)
    parts = np.array_split(order, chunks)
    chunk_of, position = np.empty(n_rows, dtype=np.int64), np.empty(n_rows, dtype=np.int64)
    for c, rows in enumerate(parts):
        chunk_of[rows], position[rows] = c, np.arange(len(rows))
    widths = np.array([max(int(last[rows].max()), 1) if len(rows) else 0 for rows in parts])
    # the judged cells (trec_eval -J keeps grades >= 0) within their chunk's width, grouped by chunk
    kept = np.flatnonzero((grade >= 0) & (cells.rank < cells.per_cell(widths[chunk_of])))
    kept_chunk = chunk_of[cells.row[kept]]
    kept = kept[np.argsort(kept_chunk, kind="stable")]
    bounds = np.r_[0, np.cumsum(np.bincount(kept_chunk, minlength=len(parts)))]
    for c, rows in enumerate(parts):
        if len(rows):
            mine = kept[bounds[c]:bounds[c + 1]]
            condensed = np.full((len(rows), widths[c]), np.nan)
            condensed[position[cells.row[mine]], judged_seen[mine] - 1] = grade[mine]  # place in the condensed list
            out[rows] = fn(condensed, rows)
    return out


def _score(shape, cells_, cell_row, grade, keep, row_topic, level, measures, cell_grade) -> dict:
    """Every measure on one sample (``keep``) of the judgements; ``cells_``: the graded cells (:class:`_Cells`,
    rows of (run, topic) in run, topic, rank order), ``cell_row`` each one's qrels row, ``cell_grade`` its grade."""
    n_runs, n_topics, _ = shape
    n_rows = n_runs * n_topics
    flat_row, rank = cells_.row, cells_.rank
    g = cells_.sampled(cell_grade, keep[cell_row])
    rel, non = keep & (grade >= level), keep & (grade >= 0) & (grade < level)
    topic_of_row = np.tile(np.arange(n_topics), n_runs)
    n_rel = np.bincount(row_topic[rel], minlength=n_topics).astype(float)[topic_of_row]
    n_non = np.bincount(row_topic[non], minlength=n_topics).astype(float)[topic_of_row]
    judged_seen = cells_.within_row(g >= 0)
    out = _cell_scores(cells_, g, judged_seen, n_rows, n_rel, n_non, level, measures)
    if "ndcg_judged" in measures:
        # Each row's last rank holding a positive grade.
        rows, ranks = flat_row[g > 0], rank[g > 0] + 1
        ends = np.r_[rows[1:] != rows[:-1], True] if len(rows) else np.zeros(0, dtype=bool)
        last = np.zeros(n_rows, dtype=np.int64)
        last[rows[ends]] = ranks[ends]
        ideal = ranking.ideal_gains(np.where(keep, row_topic, -1), grade, n_topics)[topic_of_row]
        out["ndcg_judged"] = _condensed_by_width(lambda c, r: ranking.ndcg(c, ideal[r]), cells_, g, judged_seen,
                                                 n_rows, last)
    return {m: out[m].reshape(n_runs, n_topics) for m in measures}


@validate_params(runs=Instance(RunSet), qrels=Instance(Qrels), rates=Array(0, 1), seeds=ARRAY, measures=COLLECTION,
                 stratified=BOOL)
def sampled_judgements(runs, qrels, rates, seeds, measures=SAMPLED_MEASURES,
                       stratified: bool = False) -> SampledJudgements:
    """Re-score every run with random samples of each topic's judgements (see the module docstring).

    ``stratified``: draw each topic's relevant and non-relevant judgements separately, the same
    share of each (as Buckley & Voorhees did), instead of one uniform sample of the topic's.

    ``runs``: a :class:`fireeval.core.runset.RunSet`; ``qrels``: the complete judgements
    (on a pooled collection, the pool's). Topics: every qrels topic (a topic a run lacks
    scores 0). ``rates`` in (0, 1]; a rate of 1 is the full qrels. One loop over rates
    and seeds; each step is vectorised over runs x topics x ranks.

    Parameters
    ----------
    runs : RunSet
        The runs.
    qrels : Qrels
        The complete judgements.
    rates : sequence of float in (0, 1]
        Shares of each topic's judgements kept.
    seeds : sequence of int
        One sample per seed and rate.
    measures : sequence of str
        The measures.
    stratified : bool
        Sample relevant and non-relevant judgements separately.

    Returns
    -------
    SampledJudgements

    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> frame = pd.DataFrame({"query": "1", "docno": list("abcd"), "score": [4.0, 3, 2, 1]})
    >>> qrels = Qrels(pd.DataFrame({"query": "1", "docno": list("abcd"), "relevance": [1, 0, 1, 0]}))
    >>> out = sampled_judgements(RunSet.from_frames({"A": frame}), qrels, [0.5, 1.0], [0], ["map", "bpref"])
    >>> out.values["map"].shape, out.n_judged.tolist()
    ((2, 1, 1, 1), [[2], [4]])
    >>> float(out.values["map"][1, 0, 0, 0]) == float(out.reference["map"][0, 0])
    True
    """
    measures = list(measures)
    unknown = set(measures) - set(SAMPLED_MEASURES)
    if unknown:
        raise ValueError(f"unknown measure(s) {sorted(unknown)}; use {', '.join(SAMPLED_MEASURES)}")
    rates = np.asarray(rates, dtype=float)
    if not len(rates) or (rates <= 0).any() or (rates > 1).any():
        raise ValueError("sampling rates must lie in (0, 1]")
    seeds = np.asarray(seeds, dtype=int)
    topics = qrels.topics
    level = qrels.relevance_level
    frame = qrels.frame
    row_topic = pd.Index(topics).get_indexer(frame["query"].astype(str))
    grade = frame["relevance"].to_numpy().astype(float)
    # Each judged cell's qrels row, through (topic, document) keys in the runs' coding.
    t, d, _ = runs.qrels_codes(qrels)
    qkeys = np.where((t >= 0) & (d >= 0), t.astype(np.int64) * len(runs.docnos) + d, -1)
    known = np.flatnonzero(qkeys >= 0)
    cols = pd.Index(runs.topics).get_indexer(topics)
    cell_keys = runs.keys()[:, np.maximum(cols, 0)]
    cell_keys[:, cols < 0] = -1  # topics the runs lack: nothing retrieved
    found = pd.Index(qkeys[known]).get_indexer(cell_keys.ravel()).reshape(cell_keys.shape)
    cells = np.nonzero(found >= 0)
    cell_row = known[found[cells]]
    shape = (len(runs.names), len(topics), cell_keys.shape[-1])
    cells = _Cells(cells[0].astype(np.int64) * len(topics) + cells[1], cells[2].astype(np.int64))
    full = np.ones(len(grade), dtype=bool)
    cell_grade = grade[cell_row]
    reference = _score(shape, cells, cell_row, grade, full, row_topic, level, measures, cell_grade)
    values = {m: np.empty((len(rates), len(seeds)) + shape[:2]) for m in measures}
    n_judged = np.empty((len(rates), len(seeds)), dtype=int)
    strata = row_topic * 2 + (grade >= level) if stratified else row_topic
    for j, seed in enumerate(seeds):
        keep = sample_rows(strata, rates, int(seed))
        for i, rate in enumerate(rates):
            n_judged[i, j] = int(keep[i].sum())
            scores = reference if rate >= 1 else _score(shape, cells, cell_row, grade, keep[i], row_topic, level,
                                                         measures, cell_grade)
            for m in measures:
                values[m][i, j] = scores[m]
    return SampledJudgements(rates, seeds, list(runs.names), np.asarray(topics), values, reference, n_judged)
