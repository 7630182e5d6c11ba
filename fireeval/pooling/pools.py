"""Pools of ranked runs: pool depth, unique contributions, leave-one-run/group-out qrels.

A TREC-style pool for a topic is the union of the top ``K`` documents of every
*pooled* run; only pooled documents are judged and everything else counts as
non-relevant. :func:`build_pool` computes, in one vectorised pass over
``RunSet.docs``, for every (topic, document) in the pool at the full depth:

* ``min_depth`` -- the shallowest rank at which any pooled run retrieves it, so the
  pool at any depth ``K`` is ``{d : min_depth(d) <= K}`` without rebuilding anything;
* the number of pooled runs and of groups that contributed it, and the only run /
  only group when there is exactly one (its *unique contributions*).

From these, :class:`Pool` derives depth-``K`` qrels (judged and in the depth-``K``
pool; unjudged = non-relevant), leave-one-run-out and leave-one-group-out qrels
(the documents only that run / group contributed are removed), and per-cell masks
so that :func:`depth_sweep` and :func:`leave_out_scores` re-score every run at every
depth, or with every unit left out, from one gain lookup.

Conventions: ranks are 1-based in trec_eval order (score descending, ties by docno
descending, see :func:`fireeval.core.trec.trec_order`); a pooled run contributes its top
``depth`` documents per topic. Nothing here is specific to TREC-8: any
:class:`~fireeval.core.runset.RunSet`, qrels and run->group table work.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from fireeval.stats.agreement import kendall_tau, kendall_tau_batch, kendall_tau_many, tau_ap_batch
from fireeval.stats.reliability import band_crossing, bootstrap_agreement, jackknife_agreement
from fireeval.stats.resampling import TIE_RTOL
from fireeval.core.evaluation import Measure, Scores, score_run_set as evaluate, parse_measure
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core import ranking
from fireeval.pooling.incomplete import JudgedCells, binary_ideal_gains, canonical_name, is_incomplete_measure
from fireeval.core.validation import (ANY, ARRAY, CALLABLE, COLLECTION, COUNTS, NUMBER, SEED, STR, Instance, Int,
                                      Options, Real, validate_params)

__all__ = ["Pool", "build_pool", "measure_name", "DepthSweep", "depth_sweep", "sweep_depths", "measure_table",
           "relevant_count_association",
           "crossing_text", "relevant_split", "leave_out_scores", "LeaveOutComparison", "compare_leave_outs",
           "leave_out_runs", "tau_ap_gap_sentence",
           "losers_sentence", "gain_sentence", "leave_out_risk", "NOT_POOLED"]

#: ``min_depth`` of a document no pooled run retrieves within the pool depth.
NOT_POOLED = np.iinfo(np.int32).max


def _run_groups(runs: RunSet, groups) -> tuple[np.ndarray, np.ndarray]:
    """Group code per run and the group names; every run must have a group."""
    if groups is None:  # each run is its own group
        return np.arange(len(runs.names)), np.asarray(runs.names, dtype=object)
    if isinstance(groups, pd.DataFrame):
        if not {"run", "group"} <= set(groups.columns):
            raise ValueError("the run table needs columns 'run' and 'group' (one row per run)")
        groups = groups.set_index("run")["group"]
    mapping = pd.Series(groups) if isinstance(groups, Mapping) else groups
    names = pd.Index(runs.names)
    missing = names[~names.isin(mapping.index)]
    if len(missing):
        shown = ", ".join(map(repr, missing[:5])) + (" ..." if len(missing) > 5 else "")
        raise ValueError(f"{len(missing)} run(s) have no group in the run table: {shown}. Fix: add a "
                         "'run, group' row for each (or pass groups=None to treat each run as its own group)")
    codes, uniques = pd.factorize(mapping.reindex(names).astype(str), sort=True)
    return codes, np.asarray(uniques, dtype=object)


def _pooled_mask(runs: RunSet, pooled) -> np.ndarray:
    if pooled is None:
        return np.ones(len(runs.names), dtype=bool)
    pooled = np.asarray(pooled)
    if pooled.dtype == bool:
        if pooled.shape != (len(runs.names),):
            raise ValueError(f"pooled mask has shape {pooled.shape}, expected ({len(runs.names)},): one flag per run")
        return pooled
    unknown = sorted(set(pooled.astype(str)) - set(runs.names))
    if unknown:
        raise ValueError(f"pooled run(s) {unknown[:5]} are not in the run set; pass names from runs.names")
    return np.isin(np.asarray(runs.names, dtype=str), pooled.astype(str))


@dataclass(frozen=True, eq=False)
class Pool:
    """The pool of a run set, with each pooled document's depth and contributors.

    Build it with :func:`build_pool`. Arrays indexed by pool document (sorted by
    ``keys``, where a key is ``topic_index * len(runs.docnos) + doc_code`` as in
    :meth:`RunSet.keys`):

    Attributes
    ----------
    runs : RunSet
        All runs (pooled or not); per-cell arrays follow its ``docs``.
    pooled : ndarray of bool, shape (n_runs,)
    group : ndarray of int, shape (n_runs,)
        Group code of each run, indexing ``group_names``.
    group_names : ndarray of str
    depth : int
        Pool depth: each pooled run contributed its top ``depth`` per topic.
    keys : ndarray of int64
        Sorted (topic, document) keys in the pool.
    min_depth : ndarray of int
        Shallowest 1-based rank at which any pooled run retrieves the document.
    n_runs, n_groups : ndarray of int
        Number of pooled runs / groups that contributed the document.
    sole_run, sole_group : ndarray of int
        The only contributing run (index) / group (code), or -1 when several did.
    run_contributions, group_contributions : ndarray of int
        Distinct pool documents each run / group contributed.
    contributors : {"pooled", "all"}
        Which runs count as contributors (see :func:`build_pool`).

    Parameters
    ----------
    runs, pooled, group, group_names, depth, keys, min_depth, n_runs, n_groups, sole_run, sole_group, run_contributions, group_contributions, contributors
        As the attributes above.

    Examples
    --------
    Made by :func:`build_pool`:

    >>> frame = lambda docs: pd.DataFrame({"query": "1", "docno": docs, "score": [3.0, 2.0, 1.0]})
    >>> runs = RunSet.from_frames({"A": frame(["a", "x", "b"]), "B": frame(["b", "a", "y"]), "C": frame(["c", "z", "a"])})
    >>> pool = build_pool(runs, pooled=["A", "B"], depth=2)
    >>> runs.docnos[pool.keys % len(runs.docnos)].tolist(), pool.min_depth.tolist(), pool.sole_run.tolist()
    (['a', 'x', 'b'], [1, 2, 1], [-1, 0, 1])
    """

    runs: RunSet
    pooled: np.ndarray
    group: np.ndarray
    group_names: np.ndarray
    depth: int
    keys: np.ndarray
    min_depth: np.ndarray
    n_runs: np.ndarray
    n_groups: np.ndarray
    sole_run: np.ndarray
    sole_group: np.ndarray
    run_contributions: np.ndarray
    group_contributions: np.ndarray
    contributors: str = "pooled"
    # The last full-qrels lookup (qrels, topics, cols, gains, judged): sweeps and both
    # leave-outs on the same qrels share it. Holding the qrels keeps its id valid.
    _gains: list = field(default_factory=list, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.keys)

    def _index(self, keys) -> np.ndarray:
        """Position of each key in the pool, -1 when it is not pooled."""
        keys = np.asarray(keys, dtype=np.int64)
        # A hash lookup is ~3x faster than searchsorted for millions of unsorted keys.
        return self._key_index.get_indexer(keys.ravel()).reshape(keys.shape)

    @cached_property
    def _key_index(self) -> pd.Index:
        return pd.Index(self.keys)

    @cached_property
    def cell_index(self) -> np.ndarray:
        """Pool position of the document at every (run, topic, rank) cell, -1 if not pooled."""
        return self._index(self.runs.keys())

    @cached_property
    def cell_depth(self) -> np.ndarray:
        """``min_depth`` of the document at every cell (:data:`NOT_POOLED` if not pooled): (runs, topics, depth)."""
        idx = self.cell_index
        return np.where(idx >= 0, self.min_depth[np.maximum(idx, 0)], NOT_POOLED).astype(np.int32)

    def removed_cells(self, by: str) -> np.ndarray:
        """Cells whose document leaves the qrels when the cell's own run (``by="run"``) or
        group (``by="group"``) is left out of the pool: boolean (runs, topics, depth)."""
        sole, unit = self._sole(by)
        idx = self.cell_index
        owner = np.where(idx >= 0, sole[np.maximum(idx, 0)], -1)
        return owner == unit[:, None, None]

    def _sole(self, by):
        if by == "run":
            return self.sole_run, np.arange(len(self.runs.names))
        if by == "group":
            return self.sole_group, self.group
        raise ValueError(f"by must be 'run' or 'group', not {by!r}")

    def qrels_index(self, qrels: Qrels) -> np.ndarray:
        """Pool position of each qrels row (-1 when the judged document is not in the pool).

        Raises ValueError when a qrels topic appears in no run: its judgements could
        not have come from this pool.
        """
        return self._index(self.qrels_keys(qrels))

    def qrels_keys(self, qrels: Qrels) -> np.ndarray:
        """(topic, document) key of each qrels row as in :meth:`RunSet.keys` (-1 when no run has it)."""
        _check_topics(self.runs, qrels)
        t, d, _ = self.runs.qrels_codes(qrels)
        return np.where((t >= 0) & (d >= 0), t.astype(np.int64) * len(self.runs.docnos) + d, -1)

    def qrels_depth(self, qrels: Qrels) -> np.ndarray:
        """``min_depth`` of each qrels row, :data:`NOT_POOLED` when the pool lacks the document."""
        idx = self.qrels_index(qrels)
        return np.where(idx >= 0, self.min_depth[np.maximum(idx, 0)], NOT_POOLED)

    def documents(self, k: int | None = None) -> pd.DataFrame:
        """The pool at depth ``k`` (default: the full depth) as a frame.

        Columns: query, docno, min_depth, n_runs, n_groups, sole_run, sole_group
        (names; missing when several contributed).
        """
        keep = self.min_depth <= self._check_k(k)
        n_docs = len(self.runs.docnos)
        keys = self.keys[keep]
        run_names = np.asarray(self.runs.names + [None], dtype=object)
        group_names = np.append(self.group_names, None)
        return pd.DataFrame({
            "query": self.runs.topics[keys // n_docs],
            "docno": np.asarray(self.runs.docnos)[keys % n_docs],
            "min_depth": self.min_depth[keep],
            "n_runs": self.n_runs[keep],
            "n_groups": self.n_groups[keep],
            "sole_run": run_names[self.sole_run[keep]],
            "sole_group": group_names[self.sole_group[keep]],
        })

    def _check_k(self, k):
        if k is None:
            return self.depth
        if not 1 <= k <= self.depth:
            raise ValueError(f"depth {k} is outside 1..{self.depth}; build the pool deeper (build_pool(depth=...))")
        return k

    def compare_with_qrels(self, qrels: Qrels, k: int | None = None) -> dict:
        """How the pool at depth ``k`` matches the judged set of ``qrels``.

        Returns ``{"n_pool", "n_judged", "n_judged_not_pooled", "n_pooled_not_judged",
        "equal"}``; ``equal`` is True when the two sets are identical.
        """
        depth = self.qrels_depth(qrels)
        k = self._check_k(k)
        n_pool = int((self.min_depth <= k).sum())
        judged_in = int((depth <= k).sum())
        out = {"n_pool": n_pool, "n_judged": len(qrels.frame), "n_judged_not_pooled": len(qrels.frame) - judged_in,
               "n_pooled_not_judged": n_pool - judged_in}
        out["equal"] = out["n_judged_not_pooled"] == 0 and out["n_pooled_not_judged"] == 0
        return out

    def at_depth(self, qrels: Qrels, k: int) -> Qrels:
        """Qrels of a depth-``k`` pool: judged rows whose document is in the pool at depth ``k``.

        Everything else is unjudged and so non-relevant, as in Westerveld's experiment.
        """
        return qrels.restrict(self.qrels_depth(qrels) <= self._check_k(k))

    def leave_out(self, qrels: Qrels, run: str | None = None, group: str | None = None) -> Qrels:
        """Qrels without the documents that only ``run`` (or only ``group``) contributed.

        This is the judged set as it would be had the run (group) not taken part.
        Judged documents outside the pool are kept (no pooled run contributed them).
        """
        if (run is None) == (group is None):
            raise ValueError("pass exactly one of run=... or group=...")
        if run is not None:
            if run not in self.runs.names:
                raise ValueError(f"run {run!r} is not in the run set")
            sole, unit = self.sole_run, self.runs.names.index(run)
        else:
            names = list(self.group_names)
            if group not in names:
                raise ValueError(f"group {group!r} is not in the run table; groups are {names[:5]} ...")
            sole, unit = self.sole_group, names.index(group)
        idx = self.qrels_index(qrels)
        owner = np.where(idx >= 0, sole[np.maximum(idx, 0)], -1)
        return qrels.restrict(owner != unit)

    def judged_share(self, qrels: Qrels, k, leave_out: str | None = None) -> np.ndarray:
        """Share of each run's top ``k`` per topic that is judged: (runs, topics), or
        (len(k), runs, topics) when ``k`` is a sequence.

        ``leave_out="run"`` / ``"group"`` counts as unjudged what the run's own run / group
        alone contributed, i.e. what a *new* system in its place would see. The share is
        over the documents the run retrieved in its top ``k`` (1 when it retrieved none).
        A low judged share is the warning sign that a run's score rests on unjudged
        documents that count as non-relevant.
        """
        _check_topics(self.runs, qrels)
        judged = self.runs.judged(qrels)
        if leave_out is not None:
            judged &= ~self.removed_cells(leave_out)
        n_judged = np.cumsum(judged, axis=-1, dtype=np.int32)
        n_retrieved = np.cumsum(self.runs.docs >= 0, axis=-1, dtype=np.int32)
        ks = np.minimum(np.atleast_1d(k), judged.shape[-1]) - 1
        out = np.where(n_retrieved[..., ks] > 0, n_judged[..., ks] / np.maximum(n_retrieved[..., ks], 1), 1.0)
        out = np.moveaxis(out, -1, 0)
        return out if np.ndim(k) else out[0]

    def relevant_found_share(self, qrels: Qrels, k: int, within: int | None = None) -> float:
        """Share of the relevant documents the runs retrieve that the depth-``k`` pool judges.

        Counted over every (run, topic, rank) cell holding a relevant document, at ranks
        ``<= within`` (default: every rank the runs hold), so it weighs each document by
        how many runs retrieve it. ``within=10`` is what P@10 sees; the full depth is
        what MAP sees. A measure whose share is low at small ``k`` loses most of its
        evidence in a shallow pool.

        >>> import pandas as pd
        >>> frame = lambda docs: pd.DataFrame({"query": "1", "docno": docs, "score": [2.0, 1.0]})
        >>> runs = RunSet.from_frames({"A": frame(["a", "b"]), "B": frame(["c", "a"])})
        >>> pool = build_pool(runs, depth=2)
        >>> qrels = Qrels.from_pairs(["1", "1"], ["a", "b"])
        >>> pool.relevant_found_share(qrels, k=1), pool.relevant_found_share(qrels, k=1, within=1)
        (0.6666666666666666, 1.0)
        """
        _check_topics(self.runs, qrels)
        k = self._check_k(k)
        width = self.runs.docs.shape[-1] if within is None else int(within)
        relevant = self.runs.gains(qrels)[..., :width] >= qrels.relevance_level
        n = int(relevant.sum())
        return float((self.cell_depth[..., :width][relevant] <= k).sum() / n) if n else float("nan")

    def unique_relevant_share(self, qrels: Qrels, by: str = "group") -> np.ndarray:
        """Per run: share of its retrieved relevant documents that only its own run / group
        contributed to the pool (what leaving it out removes), shape (runs,)."""
        _check_topics(self.runs, qrels)
        relevant = self.runs.gains(qrels) >= qrels.relevance_level
        lost = (relevant & self.removed_cells(by)).sum(axis=(1, 2))
        return lost / np.maximum(relevant.sum(axis=(1, 2)), 1)

    def unique_contributions(self, qrels: Qrels | None = None, by: str = "run") -> pd.DataFrame:
        """Per run (or group): pool documents contributed, and those contributed by it alone.

        Columns: ``n_contributed`` (distinct pool documents in its pooled top
        ``depth``), ``n_unique`` (documents no other run / group contributed) and, with
        ``qrels``, ``n_unique_relevant``. Unpooled runs contribute nothing.
        """
        sole, _ = self._sole(by)
        if by == "run":
            index = pd.Index(self.runs.names, name="run")
            contributed = self.run_contributions
        else:
            index = pd.Index(self.group_names, name="group")
            contributed = self.group_contributions
        n = len(index)
        out = pd.DataFrame({"n_contributed": contributed,
                            "n_unique": np.bincount(sole[sole >= 0], minlength=n)}, index=index)
        if by == "run":
            out.insert(0, "group", self.group_names[self.group])
            out.insert(1, "pooled", self.pooled)
        if qrels is not None:
            idx = self.qrels_index(qrels)
            relevant = (qrels.frame["relevance"].to_numpy() >= qrels.relevance_level) & (idx >= 0)
            owners = sole[idx[relevant]]
            out["n_unique_relevant"] = np.bincount(owners[owners >= 0], minlength=n)
        return out


def _check_topics(runs: RunSet, qrels: Qrels) -> None:
    absent = np.setdiff1d(qrels.topics, runs.topics)
    if len(absent):
        shown = ", ".join(absent[:5]) + (" ..." if len(absent) > 5 else "")
        raise ValueError(f"{len(absent)} qrels topic(s) appear in no run: {shown}. A pool cannot have produced "
                         "their judgements. Fix: drop them from the qrels (Qrels.restrict) or add runs for them")


@validate_params(runs=Instance(RunSet), pooled=ANY, groups=ANY, depth=Int(1), contributors=Options("pooled", "all"))
def build_pool(runs: RunSet, pooled=None, groups=None, depth: int = 100, contributors: str = "pooled") -> Pool:
    """Pool the top ``depth`` of the ``pooled`` runs, recording depth and contributors.

    Parameters
    ----------
    runs : RunSet
        All runs to be evaluated; the pooled ones are a subset.
    pooled : None, boolean mask or run names
        Runs that contribute to the pool (default: all).
    groups : None, mapping run -> group, Series, or DataFrame with columns run, group
        Every run of ``runs`` must have a group (default: each run its own group).
    depth : int
        Pool depth K: each pooled run contributes its top K per topic.
    contributors : {"pooled", "all"}
        Which runs count as having contributed a pool document (for ``n_runs``,
        ``sole_run``, unique contributions and leave-outs). ``"pooled"``: the pooled
        runs whose top ``depth`` holds it -- exactly what the pool would lose without
        them. ``"all"``: every run whose top ``depth`` holds it, pooled or not -- NIST's
        convention in TREC-8's annotated qrels and leave-one-group-out files. The pool
        itself (``keys``, ``min_depth``) comes from the pooled runs either way.

    Returns
    -------
    Pool

    Notes
    -----
    One pass: the keys of all pooled cells in the top ``depth`` are sorted once by
    (key, rank); the first of each key gives ``min_depth``, distinct (key, run) and
    (key, group) pairs give the contributor counts. A document's ``min_depth`` is
    ``min over pooled runs r of rank_r(d)``, so the pool at any K <= depth is
    ``{d : min_depth(d) <= K}``.

    Examples
    --------
    >>> import pandas as pd
    >>> run = lambda docs: pd.DataFrame({"query": "1", "docno": docs, "score": [3.0, 2.0, 1.0]})
    >>> runs = RunSet.from_frames({"A": run(["a", "b", "c"]), "B": run(["c", "d", "e"])})
    >>> pool = build_pool(runs, depth=3)
    >>> pool.documents().set_index("docno")["min_depth"].to_dict()
    {'a': 1, 'b': 2, 'c': 1, 'd': 2, 'e': 3}
    """
    empty = [name for name, n in zip(runs.names, runs.n_retrieved.sum(axis=1)) if n == 0]
    if empty:
        raise ValueError(f"run(s) {empty[:5]} retrieve no document for any topic. Fix: check the run "
                         "file(s) or leave those runs out of the run set")
    pooled = _pooled_mask(runs, pooled)
    group, group_names = _run_groups(runs, groups)
    all_keys = runs.keys()[..., :depth]  # (runs, topics, depth)

    # Pool membership and min depth: pooled runs' cells sorted by (key, rank).
    keys = all_keys[pooled]
    rank = np.broadcast_to(np.arange(1, keys.shape[-1] + 1, dtype=np.int32), keys.shape)
    valid = keys >= 0
    keys, rank = keys[valid], rank[valid]
    order = np.lexsort((rank, keys))
    keys, rank = keys[order], rank[order]
    first = np.r_[True, keys[1:] != keys[:-1]] if len(keys) else np.zeros(0, bool)
    uniq, min_depth = keys[first], rank[first]
    n = len(uniq)

    # Contributors: every contributing run's cells that hold a pool document.
    contrib = pooled if contributors == "pooled" else np.ones(len(runs.names), bool)
    ckeys = all_keys[contrib]
    owner = np.broadcast_to(np.flatnonzero(contrib)[:, None, None], ckeys.shape)
    pos = np.clip(np.searchsorted(uniq, ckeys), 0, max(n - 1, 0))
    hit = (ckeys >= 0) & (uniq[pos] == ckeys) if n else np.zeros(ckeys.shape, bool)
    which, owner = pos[hit], owner[hit]

    def count(unit, n_units):
        # Distinct (document, unit) pairs: a run listing a document twice still counts once.
        pair_first = np.unique(which.astype(np.int64) * n_units + unit, return_index=True)[1]
        n_units_per_doc = np.bincount(which[pair_first], minlength=n)
        sole = np.full(n, -1)
        sole[which[pair_first]] = unit[pair_first]  # any contributor; kept only where the count is 1
        per_unit = np.bincount(unit[pair_first], minlength=n_units)
        return n_units_per_doc, np.where(n_units_per_doc == 1, sole, -1), per_unit

    n_runs, sole_run, per_run = count(owner, len(runs.names))
    n_groups, sole_group, per_group = count(group[owner], len(group_names))
    return Pool(runs, pooled, group, group_names, int(depth), uniq, min_depth, n_runs, n_groups,
                sole_run, sole_group, per_run, per_group, contributors)


def _measures(measures) -> list[Measure]:
    return [m if isinstance(m, Measure) else parse_measure(m) for m in measures]


@validate_params(measure=Instance(str, Measure))
def measure_name(measure) -> str:
    """Canonical name of a measure: trec_eval's, or one of :mod:`fireeval.pooling.incomplete`'s.

    Parameters
    ----------
    measure : str or Measure
        A measure.

    Returns
    -------
    str

    >>> measure_name("P@10"), measure_name("infap")
    ('P_10', 'infAP')
    """
    if isinstance(measure, Measure):
        return measure.name
    return canonical_name(measure) if is_incomplete_measure(measure) else parse_measure(measure).name


def _is_binary(qrels: Qrels) -> bool:
    rel = qrels.frame["relevance"].to_numpy()
    return bool(((rel <= 0) | (rel == 1)).all()) and qrels.relevance_level == 1


def _topics_and_gains(pool: Pool, qrels: Qrels):
    """Evaluation topics (every qrels topic), their columns in the RunSet, and full-qrels gains."""
    return _lookup_once(pool, qrels)[:3]


def _judged_cells(pool: Pool, qrels: Qrels) -> np.ndarray:
    """Is the document at each (run, evaluation topic, rank) cell in ``qrels``? From the same lookup as the gains."""
    return _lookup_once(pool, qrels)[3]


def _lookup_once(pool: Pool, qrels: Qrels):
    """``(topics, cols, gains, judged)`` of :func:`_topics_and_gains` and :func:`_judged_cells`: the qrels looked
    up at every cell once per pool and qrels (sweeps, leave-outs and the infAP check share it)."""
    if pool._gains and pool._gains[0] is qrels:
        return pool._gains[1:]
    _check_topics(pool.runs, qrels)
    topics = qrels.topics
    cols = pd.Index(pool.runs.topics).get_indexer(topics)
    grades = pool.runs.grades(qrels, topics)
    judged = ~np.isnan(grades)
    gains = np.nan_to_num(grades, nan=0.0, copy=False)
    gains.flags.writeable = judged.flags.writeable = False  # shared between calls
    pool._gains[:] = [qrels, topics, cols, gains, judged]
    return topics, cols, gains, judged


class _RelevantCells:
    """The relevant cells of a (runs, topics, ranks) array, for AP under many smaller qrels.

    AP needs, for each relevant retrieved document, its rank and the relevant documents
    above it: only relevant cells (a few per cent of all cells) are kept, in (run, topic,
    rank) order, and AP is the registered one's computation on them,
    :func:`fireeval.core.ranking.average_precision_of_cells` (what ``map`` computes on
    full arrays). At depth K a cell counts when its document's pool depth is <= K.
    """

    def __init__(self, gains, cell_depth, level: int = 1):
        self.shape = gains.shape[:2]
        run, topic, pos = np.nonzero(gains >= level)  # the qrels' relevance level (trec_eval -l)
        self.depth = cell_depth[run, topic, pos] if cell_depth is not None else None
        self.cells = (run, topic, pos)
        self.rank = pos + 1.0
        self.row = run * self.shape[1] + topic
        self.starts = ranking.row_starts(self.row)

    def average_precision(self, k, n_relevant, keep=None):
        """AP counting relevant cells with depth <= k (or, with ``keep``, where keep is true)."""
        hit = self.depth <= k if keep is None else keep[self.cells]
        n_rel = np.broadcast_to(n_relevant, self.shape).reshape(-1)
        ap = ranking.average_precision_of_cells(self.row, self.rank, self.shape[0] * self.shape[1], n_rel, hit,
                                                self.starts)
        return ap.reshape(self.shape)


@dataclass(frozen=True)
class DepthSweep:
    """Scores of every run at every pool depth.

    ``values[measure]`` has shape (n_depths, n_runs, n_topics); ``reference[measure]``
    (n_runs, n_topics) is the score with the original qrels.

    Parameters
    ----------
    depths : ndarray
        The pool depths.
    runs : list of str
        The runs.
    topics : ndarray
        The topics.
    values, reference : dict
        As above.

    Examples
    --------
    Made by :func:`depth_sweep`:

    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> sweep = depth_sweep(pool, qrels, sweep_depths(3, 5), ["map"])
    >>> sweep.depths.tolist(), sweep.tau("map").round(3).tolist()
    ([1, 2, 3, 5], [0.276, 0.467, 0.467, 1.0])
    """

    depths: np.ndarray
    runs: list
    topics: np.ndarray
    values: dict
    reference: dict

    def mean(self, measure: str) -> pd.DataFrame:
        """Mean over topics: rows = runs, columns = depths, plus an ``original`` column."""
        name = measure_name(measure)
        out = pd.DataFrame(self.values[name].mean(axis=-1).T, index=pd.Index(self.runs, name="run"),
                           columns=pd.Index(self.depths, name="depth"))
        out["original"] = self.reference[name].mean(axis=-1)
        return out

    def tau(self, measure: str) -> pd.Series:
        """Kendall τ-b between the ranking by mean score at each depth and the original one.

        Runs are ranked by their mean over topics; index = depths. NaN at a depth where
        every run ties.

        >>> sweep = DepthSweep(np.array([1, 2]), ["A", "B", "C"], np.array(["1"]),
        ...                    {"map": np.array([[[.1], [.3], [.2]], [[.3], [.2], [.1]]])},
        ...                    {"map": np.array([[.3], [.2], [.1]])})
        >>> sweep.tau("map").round(3).tolist()
        [-0.333, 1.0]
        """
        name = measure_name(measure)
        reference = self.reference[name].mean(axis=-1)
        # One τ per depth; depths are few (~50), so a loop over them is not a hot path.
        return pd.Series([kendall_tau(v, reference) for v in self.values[name].mean(axis=-1)], index=self.depths)

    def tau_ap(self, measure: str) -> pd.Series:
        """τ_AP (:func:`fireeval.stats.agreement.tau_ap`) of the ranking at each depth against the
        original ranking (the truth); index = depths. Weighs swaps near the top more than τ-b."""
        name = measure_name(measure)
        return pd.Series(tau_ap_batch(self.values[name].mean(axis=-1), self.reference[name].mean(axis=-1)),
                         index=self.depths)

    def bootstrap(self, measure: str, n_resamples: int = 1000, rng=0, statistic: str = "tau_b",
                  at=None) -> np.ndarray:
        """Bootstrap-over-topics samples of τ at every depth: (n_depths, n_resamples).

        :func:`fireeval.stats.reliability.bootstrap_agreement` on this sweep; the same ``rng``
        gives the same topic resamples for every measure, so differences are paired.
        ``statistic``: ``"tau_b"`` or ``"tau_ap"``. ``at``: one depth of the sweep, to
        resample only there (then shape (n_resamples,)).
        """
        name = measure_name(measure)
        values = self.values[name] if at is None else self.values[name][list(self.depths).index(at)]
        return bootstrap_agreement(values, self.reference[name], n_resamples, rng, statistic)

    def jackknife(self, measure: str) -> np.ndarray:
        """Leave-one-topic-out τ-b at every depth: (n_depths, n_topics) (:func:`jackknife_agreement`)."""
        name = measure_name(measure)
        return jackknife_agreement(self.values[name], self.reference[name])

    def band(self, measure: str, samples, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """BCa band of τ-b at every depth from :meth:`bootstrap` ``samples`` (n_depths, n_resamples).

        τ near 1 is skewed (most replicates fall below the estimate), so the band is
        bias-corrected and accelerated (:func:`fireeval.stats.claims.bca_interval`, basic
        bootstrap where BCa is undefined), widened to include the point estimate.
        """
        from fireeval.stats.claims import bca_interval

        tau, jack = self.tau(measure).to_numpy(), self.jackknife(measure)
        ends = np.array([bca_interval(t, s, j, level)[:2] for t, s, j in zip(tau, np.asarray(samples), jack)])
        return np.fmin(ends[:, 0], tau), np.fmax(ends[:, 1], tau)

    def subset(self, topics) -> "DepthSweep":
        """The same sweep over some topics only (``topics``: indices), e.g. topics with many relevant."""
        topics = np.asarray(topics)
        return DepthSweep(self.depths, self.runs, self.topics[topics],
                          {m: v[..., topics] for m, v in self.values.items()},
                          {m: v[..., topics] for m, v in self.reference.items()})

    def select_runs(self, mask) -> "DepthSweep":
        """The same sweep over some runs only (``mask``: booleans over :attr:`runs`), e.g. the pooled runs."""
        mask = np.asarray(mask, dtype=bool)
        return DepthSweep(self.depths, [r for r, keep in zip(self.runs, mask) if keep], self.topics,
                          {m: v[:, mask] for m, v in self.values.items()},
                          {m: v[mask] for m, v in self.reference.items()})

    def topic_tau(self, measure: str, k: int) -> np.ndarray:
        """Per topic: τ-b between the runs ranked by that topic's score at depth ``k`` and
        by its original score, shape (n_topics,); NaN where every run ties."""
        name = measure_name(measure)
        i = list(self.depths).index(k)
        return kendall_tau_batch(self.values[name][i].T, self.reference[name].T)

    def first_depth_above(self, measure: str, level: float = 0.90) -> int | None:
        """Smallest depth whose τ (:meth:`tau`) is strictly above ``level``; None if none is.

        The first such depth, not the start of a run of depths staying above it.

        >>> sweep = DepthSweep(np.array([1, 2]), ["A", "B", "C"], np.array(["1"]),
        ...                    {"map": np.array([[[.1], [.3], [.2]], [[.3], [.2], [.1]]])},
        ...                    {"map": np.array([[.3], [.2], [.1]])})
        >>> sweep.first_depth_above("map"), sweep.first_depth_above("map", level=1.0)
        (2, None)
        """
        return _first_above(self.tau(measure), level)

    def tau_table(self, measures=None, level: float = 0.90, at=(1, 3, 10)) -> pd.DataFrame:
        """Per measure: the smallest depth with τ > ``level`` and τ at the depths ``at``.

        Columns ``"smallest K with τ > {level:.2f}"`` (NaN when never reached) and
        ``"τ at K = k"`` for each ``k`` of ``at`` that was swept; index = measure names
        (default: every measure of the sweep).
        """
        measures = list(self.values) if measures is None else [measure_name(m) for m in measures]
        taus = {m: self.tau(m) for m in measures}
        swept = set(self.depths.tolist())
        return pd.DataFrame({
            f"smallest K with τ > {level:.2f}": [_first_above(taus[m], level) for m in measures],
            **{f"τ at K = {k}": [taus[m][k] for m in measures] for k in at if k in swept},
        }, index=pd.Index(measures, name="measure"))


@validate_params(sweep=Instance(DepthSweep), samples=Instance(Mapping), samples_ap=[Instance(Mapping), None],
                 k=Int(1), level=Real(-1, 1), label=CALLABLE)
def measure_table(sweep: DepthSweep, samples: dict, samples_ap: dict | None = None, k: int = 3,
                  level: float = 0.90, label=str) -> pd.DataFrame:
    """Per measure: τ-b and τ_AP at depth ``k`` with 95 % BCa bands, and the depths where τ-b passes ``level``.

    ``samples[m]``: :meth:`DepthSweep.bootstrap` output per measure (τ-b, every depth);
    ``samples_ap[m]``: τ_AP resamples at depth ``k`` only (``bootstrap(m, statistic="tau_ap", at=k)``).
    Columns: ``τ-b at K={k}``, ``band``, ``τ_AP at K={k}``, ``τ_AP band``,
    ``first K with τ-b > level`` (point estimate) and ``K where the band crosses``:
    ``"a–b"`` from the first depth whose band reaches above ``level`` to the first from
    which it stays above (:func:`fireeval.stats.reliability.band_crossing`).

    Parameters
    ----------
    sweep : DepthSweep
        The sweep.
    samples : dict
        ``{measure: τ-b resamples (depths, resamples)}``.
    samples_ap : dict, optional
        ``{measure: τ_AP resamples at depth k}``.
    k : int
        The depth reported.
    level : float
        The τ-b level.
    label : callable
        A measure's label.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> sweep = depth_sweep(pool, qrels, sweep_depths(3, 5), ["map"])
    >>> measure_table(sweep, {"map": sweep.bootstrap("map", n_resamples=50)}, k=2).to_dict("records")
    [{'τ-b at K = 2': 0.466..., 'τ-b band': '0.414–0.842', 'first K with τ-b > 0.90': '5', 'K range where the band crosses 0.90': '3–5'}]
    """
    depths = list(sweep.depths)
    i = depths.index(k)
    rows = []
    for m, s in samples.items():
        low, high = sweep.band(m, s)
        cross = band_crossing(depths, low, high, level)
        first = sweep.first_depth_above(m, level)
        row = {"measure": label(m), f"τ-b at K = {k}": float(sweep.tau(m).iloc[i]),
               "τ-b band": f"{low[i]:.3f}–{high[i]:.3f}",
               f"first K with τ-b > {level:.2f}": "not reached" if first is None else str(first),
               f"K range where the band crosses {level:.2f}": crossing_text(cross)}
        if samples_ap is not None and m in samples_ap:
            from fireeval.stats.claims import bca_interval

            t_ap = float(sweep.tau_ap(m).iloc[i])
            jack = jackknife_agreement(sweep.values[m][i], sweep.reference[m], "tau_ap")
            lo_ap, hi_ap, _ = bca_interval(t_ap, samples_ap[m], jack)
            lo_ap, hi_ap = min(lo_ap, t_ap), max(hi_ap, t_ap)
            row[f"τ_AP at K = {k}"] = t_ap
            row["τ_AP band"] = f"{lo_ap:.3f}–{hi_ap:.3f}"
        rows.append(row)
    return pd.DataFrame(rows).set_index("measure")


@validate_params(cross=Instance(Mapping))
def crossing_text(cross: dict) -> str:
    """``band_crossing`` as text: ``"5–15"``, ``"3"``, ``"not reached"``.

    Parameters
    ----------
    cross : dict
        :func:`fireeval.stats.reliability.band_crossing`'s result.

    Returns
    -------
    str

    >>> crossing_text({"first_possible": 5, "first_certain": 15})
    '5–15'
    """
    a, b = cross["first_possible"], cross["first_certain"]
    if a is None:
        return "not reached"
    if b is None:
        return f"from {a} (band never wholly above)"
    return str(a) if a == b else f"{a}–{b}"


@validate_params(gap=NUMBER, samples_ap=ARRAY, samples_b=ARRAY, level=Real(0, 1, closed="neither"))
def tau_ap_gap_sentence(gap: float, samples_ap, samples_b, level: float = 0.95) -> str:
    """How τ_AP compares with τ-b, decided by the paired bootstrap interval of τ_AP − τ-b.

    ``gap``: the point difference; ``samples_ap``/``samples_b``: bootstrap samples of
    the two statistics over the *same* topic resamples (:meth:`DepthSweep.bootstrap`
    with one seed), so their difference is paired.

    Parameters
    ----------
    gap : float
        τ_AP − τ-b.
    samples_ap, samples_b : array_like
        Paired resamples.
    level : float
        The interval's level.

    Returns
    -------
    str

    >>> tau_ap_gap_sentence(-0.1, [0.70, 0.72, 0.75], [0.84, 0.85, 0.86])[:15]
    'lower than τ-b '
    >>> tau_ap_gap_sentence(0.0, [0.80, 0.86, 0.90], [0.84, 0.85, 0.86])[:28]
    'not distinguishable from τ-b'
    """
    diff = np.asarray(samples_ap, float) - np.asarray(samples_b, float)
    a = (1 - level) / 2
    low, high = np.nanquantile(diff, [a, 1 - a]) if np.isfinite(diff).any() else (np.nan, np.nan)
    low, high = min(low, gap), max(high, gap)
    band = f"τ_AP − τ-b = {gap:.3f}, paired {level:.0%} bootstrap interval {low:.3f} to {high:.3f}"
    if high < 0:
        return (f"lower than τ-b ({band}): the swaps a shallow pool causes sit disproportionately near the top of "
                "the ranking, where τ_AP weighs them more (for swaps spread evenly the two agree on average)")
    if low > 0:
        return f"higher than τ-b ({band}): the swaps sit mostly in the lower part of the ranking"
    return (f"not distinguishable from τ-b ({band}, which includes 0): the data do not show whether the swaps sit "
            "nearer the top or the bottom of the ranking")


@validate_params(qrels=Instance(Qrels), topics=COLLECTION)
def relevant_split(qrels: Qrels, topics) -> tuple[np.ndarray, np.ndarray, float]:
    """Topic indices with at most / more than the median number of relevant documents, and the median.

    Parameters
    ----------
    qrels : Qrels
        The judgements.
    topics : sequence of str
        The topics, in the order indexed.

    Returns
    -------
    (ndarray, ndarray, float)

    >>> q = Qrels.from_pairs(["1", "2", "2", "3", "3", "3"], list("abcdef"))
    >>> relevant_split(q, ["1", "2", "3"])
    (array([0, 1]), array([2]), 2.0)
    """
    n_rel = qrels.n_relevant(topics)
    median = float(np.median(n_rel))
    return np.flatnonzero(n_rel <= median), np.flatnonzero(n_rel > median), median


def _spearman_rows(x, y) -> np.ndarray:
    """Spearman ρ row by row (average ranks for ties): x, y of shape (..., n)."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=-1), rankdata(y, axis=-1)
    rx, ry = rx - rx.mean(-1, keepdims=True), ry - ry.mean(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(-1) / np.sqrt((rx ** 2).sum(-1) * (ry ** 2).sum(-1))


@validate_params(sweep=Instance(DepthSweep), qrels=Instance(Qrels), measure=STR, k=Int(1), n_resamples=Int(1),
                 rng=SEED, n_permutations=Int(1))
def relevant_count_association(sweep: DepthSweep, qrels: Qrels, measure: str, k: int, n_resamples: int = 1000,
                               rng: int = 0, n_permutations: int = 2000) -> dict:
    """Does a depth-``k`` pool disturb the ranking more on topics with many relevant documents? Two readings.

    - ``rho``: Spearman ρ between each topic's relevant count and its single-topic τ-b
      (:meth:`DepthSweep.topic_tau`; topics where every run ties are dropped), with
      ``rho_boot`` (topic pairs resampled) and ``rho_jack`` (leave one topic out).
    - ``split``: τ-b on the topics above the median relevant count minus τ-b on the others
      (:func:`relevant_split`), with ``split_boot`` (each half resampled on its own, seeds
      ``rng`` and ``rng + 1``), ``split_jack`` (one topic left out of its half) and
      ``split_p``: the one-sided permutation p of a difference this low or lower when the
      topics are relabelled at random (``n_permutations`` relabellings, seed ``rng``).

    Both are negative when the explanation holds.

    Parameters
    ----------
    sweep : DepthSweep
        The sweep.
    qrels : Qrels
        The judgements.
    measure : str
        The measure.
    k : int
        The depth.
    n_resamples : int
        Bootstrap resamples.
    rng : int
        Seed.
    n_permutations : int
        Relabellings of the permutation test.

    Returns
    -------
    dict

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> sweep = depth_sweep(pool, qrels, sweep_depths(3, 5), ["map"])
    >>> found = relevant_count_association(sweep, qrels, "map", 2, n_resamples=50, n_permutations=50)
    >>> round(found["rho"], 3), round(found["split"], 3), found["split_p"], found["n_few"], found["n_many"]
    (0.211, 0.133, 1.0, 2, 2)
    """
    name = measure_name(measure)
    i = list(sweep.depths).index(k)
    values, ref = sweep.values[name][i], sweep.reference[name]
    n_rel = qrels.n_relevant(sweep.topics).astype(float)
    per_topic = sweep.topic_tau(name, k)
    ok = np.isfinite(per_topic)
    x, y = n_rel[ok], per_topic[ok]
    gen = np.random.default_rng(rng)
    idx = gen.integers(0, len(x), (n_resamples, len(x)))
    rho = float(_spearman_rows(x, y))
    loo = ~np.eye(len(x), dtype=bool)
    rho_jack = _spearman_rows(np.broadcast_to(x, loo.shape)[loo].reshape(len(x), -1),
                              np.broadcast_to(y, loo.shape)[loo].reshape(len(x), -1))
    few, many, median = relevant_split(qrels, sweep.topics)
    tau_of = lambda cols: kendall_tau(values[:, cols].mean(-1), ref[:, cols].mean(-1))  # noqa: E731
    split = tau_of(many) - tau_of(few)
    boot = (bootstrap_agreement(values, ref, n_resamples, rng + 1, topics=many)
            - bootstrap_agreement(values, ref, n_resamples, rng, topics=few))
    jack = np.r_[tau_of(many) - jackknife_agreement(values, ref, topics=few),
                 jackknife_agreement(values, ref, topics=many) - tau_of(few)]
    # Random relabellings: |many| topics drawn as "many", the rest "few".
    perm = np.argsort(gen.random((n_permutations, len(sweep.topics))), axis=1)
    w_many = np.zeros((n_permutations, len(sweep.topics)))
    np.put_along_axis(w_many, perm[:, :len(many)], 1.0, axis=1)
    w_few = 1.0 - w_many
    taus = [kendall_tau_many((values @ w.T).T, (ref @ w.T).T, rtol=TIE_RTOL) for w in (w_many, w_few)]
    null = taus[0] - taus[1]
    p = float((1 + np.count_nonzero(null <= split + 1e-12)) / (n_permutations + 1))
    return {"rho": rho, "rho_boot": _spearman_rows(x[idx], y[idx]), "rho_jack": rho_jack, "n_topics": int(ok.sum()),
            "split": float(split), "split_boot": boot, "split_jack": jack, "split_p": p,
            "n_permutations": n_permutations, "median": median, "n_few": len(few), "n_many": len(many),
            "per_topic": per_topic, "n_relevant": n_rel}


def _first_above(series: pd.Series, level: float) -> int | None:
    above = series[series > level]
    return int(above.index[0]) if len(above) else None


@validate_params(max_depth=Int(1), pool_depth=Int(1))
def sweep_depths(max_depth: int, pool_depth: int) -> list[int]:
    """Depths of a pool-depth sweep: 1 ... min(max_depth, pool_depth), then ``pool_depth``.

    The full pool depth is appended when the sweep stops short of it, so the last
    point is the original qrels (τ = 1).

    Parameters
    ----------
    max_depth : int
        The deepest depth swept.
    pool_depth : int
        The collection's pool depth.

    Returns
    -------
    list of int

    >>> sweep_depths(3, 100), sweep_depths(50, 10)
    ([1, 2, 3, 100], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    """
    return list(range(1, min(max_depth, pool_depth) + 1)) + ([pool_depth] if pool_depth > max_depth else [])


@validate_params(pool=Instance(Pool), qrels=Instance(Qrels), depths=COUNTS, measures=COLLECTION)
def depth_sweep(pool: Pool, qrels: Qrels, depths: Sequence[int], measures=("map",)) -> DepthSweep:
    """Re-score every run with the depth-K qrels for every K in ``depths``.

    The depth-K qrels keep the judged documents with ``min_depth <= K`` (see
    :meth:`Pool.at_depth`). Gains are looked up once against the full qrels; each
    depth only masks them with ``cell_depth <= K`` and recounts relevant documents
    per topic from the qrels rows' depths; MAP is computed from the relevant cells
    alone (the registered AP's computation on them). Topics are all qrels topics at every depth
    (a topic with no relevant document left scores 0), so MAP at every K averages
    over the same topics.

    ``measures`` may also name the measures for incomplete judgements of
    :mod:`fireeval.pooling.incomplete` (``bpref``, ``infAP``, ``map_judged``,
    ``ndcg_judged``): they are scored from the judged cells alone, where "judged at
    depth K" means in the qrels and in the depth-K pool, and the judged
    non-relevant count per topic is recounted at each depth like the relevant one.
    nDCG measures need binary qrels here (ideal gains are rebuilt from counts).

    Parameters
    ----------
    pool : Pool
        The pool.
    qrels : Qrels
        The judgements.
    depths : sequence of int
        The depths K.
    measures : sequence of str
        The measures.

    Returns
    -------
    DepthSweep

    >>> import pandas as pd
    >>> frame = lambda docs: pd.DataFrame({"query": "1", "docno": docs, "score": [2.0, 1.0]})
    >>> runs = RunSet.from_frames({"A": frame(["a", "x"]), "B": frame(["y", "b"])})
    >>> qrels = Qrels.from_pairs(["1", "1"], ["a", "b"])
    >>> sweep = depth_sweep(build_pool(runs, depth=2), qrels, [1, 2], ["P_2", "bpref"])
    >>> sweep.values["P_2"][:, :, 0].tolist()   # depth 1: only A's "a" is pooled
    [[0.5, 0.0], [0.5, 0.5]]
    >>> sweep.values["bpref"][:, :, 0].tolist()   # B's "b" is unjudged at depth 1, so bpref skips it
    [[1.0, 0.0], [0.5, 0.5]]
    """
    incomplete = [canonical_name(m) for m in measures if isinstance(m, str) and is_incomplete_measure(m)]
    measures = _measures([m for m in measures if not (isinstance(m, str) and is_incomplete_measure(m))])
    depths = np.asarray(depths, dtype=int)
    for k in depths:
        pool._check_k(int(k))
    topics, cols, gains = _topics_and_gains(pool, qrels)
    _check_binary_for_ndcg(measures, incomplete, qrels)
    cell_depth = pool.cell_depth[:, cols]
    row_depth = pool.qrels_depth(qrels)
    relevant = qrels.frame["relevance"].to_numpy() >= qrels.relevance_level
    row_topic = pd.Index(topics).get_indexer(qrels.frame["query"].astype(str))
    level = qrels.relevance_level
    reference = {m.name: m(gains, qrels.n_relevant(topics), qrels.ideal_gains(topics), level=level) for m in measures}
    values = {m.name: np.empty((len(depths),) + gains.shape[:2]) for m in measures}
    relevant_cells = _RelevantCells(gains, cell_depth, level) if any(m.kind == "map" for m in measures) else None
    cells = judged_non = None
    if incomplete:
        cells = JudgedCells(gains, _judged_cells(pool, qrels), qrels.relevance_level, cell_depth)
        grade = qrels.frame["relevance"].to_numpy()
        judged_non = (grade >= 0) & ~relevant  # bpref's N: judged non-relevant (a negative grade is not judged)
        n_non_all = np.bincount(row_topic[judged_non], minlength=len(topics))
        reference.update(cells.scores(incomplete, qrels.n_relevant(topics), n_non_all))
        values.update({m: np.empty((len(depths),) + gains.shape[:2]) for m in incomplete})
    for i, k in enumerate(depths):  # a loop over depths only; each step is vectorised over runs x topics
        n_rel = np.bincount(row_topic[relevant & (row_depth <= k)], minlength=len(topics))
        for name, v in _complete_scores_at_depth(measures, gains, cell_depth, k, n_rel, level, relevant_cells).items():
            values[name][i] = v
        if cells is not None:
            n_non = np.bincount(row_topic[judged_non & (row_depth <= k)], minlength=len(topics))
            for name, v in cells.scores(incomplete, n_rel, n_non, k=k).items():
                values[name][i] = v
    return DepthSweep(depths, list(pool.runs.names), topics, values, reference)


def _check_binary_for_ndcg(measures, incomplete, qrels) -> None:
    """:func:`depth_sweep` rebuilds ideal gains from relevant counts: nDCG there needs binary qrels."""
    if (any(m.kind.startswith("ndcg") for m in measures) or "ndcg_judged" in incomplete) and not _is_binary(qrels):
        raise NotImplementedError("nDCG in a depth sweep needs binary qrels (grades 0/1)")


def _complete_scores_at_depth(measures, gains, cell_depth, k, n_rel, level, relevant_cells) -> dict:
    """``{measure name: (runs, topics) scores}`` of :func:`depth_sweep`'s measures for complete judgements at
    depth ``k``: the gains of cells pooled deeper than ``k`` count as 0, ``n_rel`` the topics' relevant
    counts at that depth; MAP from the relevant cells alone."""
    ideal = binary_ideal_gains(n_rel)
    out = {}
    for m in measures:
        if m.kind == "map":
            out[m.name] = relevant_cells.average_precision(k, n_rel)
            continue
        # Cut-off measures read only their top k ranks: mask just those.
        width = m.k if m.k is not None else gains.shape[-1]
        masked = np.where(cell_depth[..., :width] <= k, gains[..., :width], 0.0)
        out[m.name] = m(masked, n_rel, ideal, level=level)
    return out


@validate_params(pool=Instance(Pool), qrels=Instance(Qrels), by=Options("run", "group"), measures=COLLECTION)
def leave_out_scores(pool: Pool, qrels: Qrels, by: str = "run", measures=("map",)) -> Scores:
    """Score each run with the qrels that lack what its own run (or group) alone contributed.

    All runs at once: a cell's gain is zeroed when its document's sole contributor is
    the cell's run (group), and each run's number of relevant documents per topic drops
    by the relevant documents it (its group) alone contributed. Equivalent to
    ``evaluate(runs.select([r]), pool.leave_out(qrels, run=r))`` for every ``r``, without
    the loop. Topics: every qrels topic.

    Parameters
    ----------
    pool : Pool
        The pool.
    qrels : Qrels
        The judgements.
    by : {"run", "group"}
        What is left out.
    measures : sequence of str
        The measures.

    Returns
    -------
    fireeval.core.evaluation.Scores

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> leave_out_scores(pool, qrels, by="group").values["map"].mean(1).round(3).tolist()
    [0.174, 0.055, 0.07, 0.056, 0.112, 0.114]
    """
    measures = _measures(measures)
    topics, cols, gains = _topics_and_gains(pool, qrels)
    if any(m.kind.startswith("ndcg") for m in measures) and not _is_binary(qrels):
        raise NotImplementedError("nDCG with leave-out needs binary qrels (grades 0/1)")
    sole, unit = pool._sole(by)
    removed = pool.removed_cells(by)[:, cols]
    idx = pool.qrels_index(qrels)
    relevant = (qrels.frame["relevance"].to_numpy() >= qrels.relevance_level) & (idx >= 0)
    owner = sole[idx[relevant]]
    row_topic = pd.Index(topics).get_indexer(qrels.frame["query"].astype(str))[relevant]
    n_units = int(unit.max()) + 1 if len(unit) else 0
    lost = np.zeros((max(n_units, 1), len(topics)), dtype=int)
    np.add.at(lost, (owner[owner >= 0], row_topic[owner >= 0]), 1)
    n_rel = qrels.n_relevant(topics)[None, :] - lost[unit]  # (runs, topics)
    ideal = binary_ideal_gains(n_rel) if any(m.kind.startswith("ndcg") for m in measures) else None
    values = {}
    for m in measures:
        if m.kind == "map":  # from the relevant cells alone, as in depth_sweep
            values[m.name] = _RelevantCells(gains, None, qrels.relevance_level).average_precision(None, n_rel, keep=~removed)
        else:
            width = m.k if m.k is not None else gains.shape[-1]
            values[m.name] = m(np.where(removed[..., :width], 0.0, gains[..., :width]), n_rel, ideal,
                               level=qrels.relevance_level)
    return Scores(list(pool.runs.names), topics, values)


@dataclass(frozen=True)
class LeaveOutComparison:
    """Each run's score with the original qrels, after run leave-out and after group leave-out.

    ``original``, ``run_out`` and ``group_out`` are per-topic scores (n_runs, n_topics).
    ``table`` has one row per run (index ``run``): ``group``, ``type`` (when given),
    ``pooled``, the mean scores ``original``, ``run left out``, ``group left out`` and
    ``drop (run)`` / ``drop (group)`` = original - left out (negative: the run gained).

    Parameters
    ----------
    original, run_out, group_out : ndarray (n_runs, n_topics)
        The per-topic scores.
    table : pandas.DataFrame
        The table above.

    Examples
    --------
    Made by :func:`compare_leave_outs`:

    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> comparison = compare_leave_outs(pool, qrels)
    >>> comparison.table["drop (group)"].round(3).tolist(), comparison.n_gain()
    ([0.023, 0.124, 0.098, 0.041, 0.062, 0.052], 0)
    """

    original: np.ndarray
    run_out: np.ndarray
    group_out: np.ndarray
    table: pd.DataFrame

    def tau(self, column: str = "group left out", runs=None) -> float:
        """Kendall τ-b between the original ranking and the ranking by ``column``
        (over the runs selected by the boolean mask or labels ``runs``, default all)."""
        rows = self.table if runs is None else self.table.loc[runs]
        return kendall_tau(rows["original"], rows[column])

    def places_lost(self, column: str = "group left out") -> pd.Series:
        """Per run: places lost in the ranking (rank after - rank before; ties take the best
        rank), negative when it moved up.

        Convention (the one behind τ): *every* run is scored with its own leave-out qrels,
        and each run's rank is taken among those left-out scores, against its rank among
        the original scores (competition ranking, "1224"). See
        :meth:`places_lost_against_original` for the newcomer's view."""
        return (self.table[column].rank(ascending=False, method="min")
                - self.table["original"].rank(ascending=False, method="min"))

    def places_lost_against_original(self, column: str = "group left out") -> pd.Series:
        """Per run: places lost when its left-out score is placed among the *other runs' original*
        scores (the view of a newcomer scored against a published table), against its original
        place; places count the runs strictly above (competition ranking)."""
        original = self.table["original"].to_numpy()
        left = self.table[column].to_numpy()
        before = (original[None, :] > original[:, None]).sum(1)
        after = (original[None, :] > left[:, None]).sum(1) - (original > left)  # not counting itself
        return pd.Series(after - before, index=self.table.index)

    def n_gain(self, column: str = "drop (group)", atol: float = 1e-12) -> int:
        """Runs whose score rose after the leave-out (drop below ``-atol``)."""
        return int((self.table[column] < -atol).sum())


@validate_params(pool=Instance(Pool), qrels=Instance(Qrels), measure=STR, run_type=[COLLECTION, None])
def compare_leave_outs(pool: Pool, qrels: Qrels, measure: str = "map", run_type=None) -> LeaveOutComparison:
    """Score every run with the full qrels, with its run left out and with its group left out.

    The original scores come from :func:`fireeval.core.evaluation.score_run_set` (``complete=True``:
    every qrels topic), the leave-outs from :func:`leave_out_scores`, so all three average
    over the same topics. ``run_type`` (optional, one label per run, e.g. TREC's
    automatic/manual) becomes the table's ``type`` column.

    Parameters
    ----------
    pool : Pool
        The pool.
    qrels : Qrels
        The judgements.
    measure : str
        The measure.
    run_type : sequence of str, optional
        Each run's type.

    Returns
    -------
    LeaveOutComparison

    >>> frame = lambda docs: pd.DataFrame({"query": "1", "docno": docs, "score": [2.0, 1.0]})
    >>> runs = RunSet.from_frames({"A": frame(["a", "x"]), "B": frame(["b", "a"])})
    >>> qrels = Qrels.from_pairs(["1", "1"], ["a", "b"])
    >>> out = compare_leave_outs(build_pool(runs, depth=2), qrels)
    >>> # B: b at rank 1, a at rank 2, AP 1; without b (only B found it) a at rank 2 of 1 relevant, AP 0.5
    >>> out.table[["original", "run left out", "drop (run)"]].to_dict("list")
    {'original': [0.5, 1.0], 'run left out': [0.5, 0.5], 'drop (run)': [0.0, 0.5]}
    """
    name = parse_measure(measure).name
    original = evaluate(pool.runs, qrels, [name], complete=True).values[name]
    run_out = leave_out_scores(pool, qrels, "run", [name]).values[name]
    group_out = leave_out_scores(pool, qrels, "group", [name]).values[name]
    columns = {"group": pool.group_names[pool.group]}
    if run_type is not None:
        columns["type"] = np.asarray(run_type)
    table = pd.DataFrame({**columns, "pooled": pool.pooled, "original": original.mean(-1),
                          "run left out": run_out.mean(-1), "group left out": group_out.mean(-1)},
                         index=pd.Index(pool.runs.names, name="run"))
    table["drop (run)"] = table["original"] - table["run left out"]
    table["drop (group)"] = table["original"] - table["group left out"]
    return LeaveOutComparison(original, run_out, group_out, table)


@validate_params(pool=Instance(Pool), qrels=Instance(Qrels), runs=COLLECTION)
def leave_out_runs(pool: Pool, qrels: Qrels, runs) -> Qrels:
    """Qrels without the documents that only the runs in ``runs`` contributed.

    ``runs``: names or a boolean mask over ``pool.runs``. A judged document leaves when
    it is in the pool but in no other contributing run's top ``pool.depth`` -- e.g. every
    document only the manual runs found (Westerveld's interactive-run test). Who counts
    as "another contributor" follows the pool's ``contributors``: ``"pooled"``, the other
    pooled runs; ``"all"``, every other run, pooled or not (NIST's convention).

    Parameters
    ----------
    pool : Pool
        The pool.
    qrels : Qrels
        The judgements.
    runs : names or mask
        The runs whose own documents leave.

    Returns
    -------
    Qrels

    Examples
    --------
    >>> import pandas as pd
    >>> run = lambda docs: pd.DataFrame({"query": "1", "docno": docs, "score": [2.0, 1.0]})
    >>> runs = RunSet.from_frames({"A": run(["a", "b"]), "B": run(["b", "c"]), "U": run(["a", "d"])})
    >>> qrels = Qrels(pd.DataFrame({"query": "1", "docno": ["a", "b", "c"], "relevance": 1}))
    >>> pool = build_pool(runs, pooled=["A", "B"], depth=2)
    >>> sorted(leave_out_runs(pool, qrels, ["A"]).frame["docno"])  # "a" was A's alone among the pooled
    ['b', 'c']
    >>> pool_all = build_pool(runs, pooled=["A", "B"], depth=2, contributors="all")
    >>> sorted(leave_out_runs(pool_all, qrels, ["A"]).frame["docno"])  # the unpooled U also has "a"
    ['a', 'b', 'c']
    """
    selected = _pooled_mask(pool.runs, runs)
    contributing = pool.pooled if pool.contributors == "pooled" else np.ones(len(pool.runs.names), bool)
    others = contributing & ~selected
    in_pool = pool.qrels_index(qrels) >= 0
    if others.any():
        keys = pool.runs.keys()[others][..., :pool.depth]
        other_keys = np.unique(keys[keys >= 0])
        in_rest = np.isin(pool.qrels_keys(qrels), other_keys)
    else:
        in_rest = np.zeros(len(qrels.frame), bool)
    return qrels.restrict(~(in_pool & ~in_rest))


@validate_params(table=Instance(pd.DataFrame), n=Int(1), fallback=STR)
def losers_sentence(table: pd.DataFrame, n: int = 5,
                    fallback: str = "the runs at the top of the table above") -> str:
    """Who the ``n`` largest group-leave-out losers are, by run type (``fallback`` without manual runs).

    ``table`` is :attr:`LeaveOutComparison.table` with a ``type`` column.

    Parameters
    ----------
    table : pandas.DataFrame
        The leave-out table.
    n : int
        Losers named.
    fallback : str
        The sentence's subject without manual runs.

    Returns
    -------
    str

    >>> t = pd.DataFrame({"type": ["manual", "automatic", "automatic"], "drop (group)": [.3, .2, .1]})
    >>> losers_sentence(t, n=2)[:57]
    '1 of the 2 largest group drops are manual runs (only 1 of'
    """
    top = table.sort_values("drop (group)", ascending=False).head(n)
    n_manual_top, n_manual = int((top["type"] == "manual").sum()), int((table["type"] == "manual").sum())
    if not n_manual:  # no run types known (e.g. synthetic runs)
        return fallback
    return (f"{n_manual_top} of the {len(top)} largest group drops are manual runs (only {n_manual} "
            f"of the {len(table)} runs are manual), whose queries were written by people and reach documents "
            "automatic systems rank low")


@validate_params(n_gain=Int(0))
def gain_sentence(n_gain: int) -> str:
    """Why ``n_gain`` runs gain from their group's leave-out (:meth:`LeaveOutComparison.n_gain`).

    Parameters
    ----------
    n_gain : int
        Runs that gain.

    Returns
    -------
    str

    >>> gain_sentence(0)
    "No run gains from its group's leave-out"
    """
    if not n_gain:
        return "No run gains from its group's leave-out"
    return (f"{n_gain} run{'s' if n_gain > 1 else ''} gain slightly: when a group's unique relevant documents "
            "leave the qrels, a run of that group that did not retrieve them has fewer relevant documents to find")


@validate_params(pool=Instance(Pool), qrels=Instance(Qrels), table=Instance(pd.DataFrame), ks=COUNTS)
def leave_out_risk(pool: Pool, qrels: Qrels, table: pd.DataFrame, ks=(10, 100)) -> pd.DataFrame:
    """``table`` (:attr:`LeaveOutComparison.table`) plus what predicts a run's group-leave-out loss.

    Adds ``unique relevant share`` (:meth:`Pool.unique_relevant_share`, by group),
    ``judged@k`` for each ``k`` of ``ks`` (mean over topics of :meth:`Pool.judged_share`
    with the group left out: what a new system in the run's place would see) and
    ``relative drop`` = drop (group) / original (0 when the original score is 0).

    Parameters
    ----------
    pool : Pool
        The pool.
    qrels : Qrels
        The judgements.
    table : pandas.DataFrame
        The leave-out table.
    ks : sequence of int
        The depths of judged@k.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> risk = leave_out_risk(pool, qrels, compare_leave_outs(pool, qrels).table, ks=(5,))
    >>> risk[["unique relevant share", "judged@5", "relative drop"]].round(3).values.tolist()[:2]
    [[0.3, 0.55, 0.115], [0.5, 0.5, 0.695]]
    """
    judged = pool.judged_share(qrels, list(ks), leave_out="group").mean(-1)
    risk = table.assign(**{"unique relevant share": pool.unique_relevant_share(qrels, "group"),
                           **{f"judged@{k}": share for k, share in zip(ks, judged)}})
    risk["relative drop"] = (risk["drop (group)"] / risk["original"].replace(0.0, np.nan)).fillna(0.0)
    return risk
