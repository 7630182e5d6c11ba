"""Evaluating a retrieval run against graded semantic relevance (Wray et al., CVPR 2021).

The relevance matrices come from :mod:`fireeval.t2v.similarity` (caption proxies) or any
other graded judgement in [0, 1], shape ``(queries, items)``. Here: nDCG in both gain
conventions, its closed-form expectation for a random ranking, instance recall and
its bounds when equivalent items count (Fig. 5), the number of relevant items per
threshold (Fig. 4) and the correlation between proxies (App. B).

Ranking rule everywhere: score descending, ties to the lower item index
(:func:`rank_order`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from fireeval.core.tied_scores import TIE_RULES
from fireeval.core.validation import ARRAY, BOOL, SEED, Instance, Int, Options, Real, validate_params
from fireeval.t2v.param_checks import CUTOFFS, TEXTS
from fireeval.t2v.similarity import PROXIES

__all__ = [
    "rank_order",
    "proxy_ndcg",
    "expected_random_ndcg",
    "positive_rank",
    "recall_at_ks",
    "gmr_bounds",
    "gmr_bound_ranks",
    "gmr_gap_bootstrap",
    "relevant_count_difference",
    "mean_relevant_at_threshold",
    "rowwise_pearson",
    "proxy_correlation",
    "random_ndcg_both_directions",
    "text_only_scores",
    "ndcg_table",
    "instance_table",
    "run_order_note",
    "random_ndcg_checks",
    "stop_word_check",
    "relevance_matrices",
]

_GAIN = Options("linear", "exponential")
_CUT = [Options("relevant"), None]
_TIE_RULE = Options(*TIE_RULES)
_RUNS = Instance(Mapping, fix="pass {run: scores (queries, items)}")
_BY_PROXY = Instance(Mapping, fix="pass {proxy: value}")



@validate_params(scores=ARRAY)
def rank_order(scores) -> np.ndarray:
    """Ranked item indices per query row, best first: ``np.argsort(-scores, axis=1, kind="stable")``.

    Ties are broken by item (column) index ascending -- the stable sort's rule, stated
    because some real runs store many exact ties (e.g. zeros).

    Parameters
    ----------
    scores : array_like (queries, items)
        Scores, higher = better.

    Returns
    -------
    int ndarray (queries, items)

    >>> rank_order([[0.1, 0.9, 0.9]])
    array([[1, 2, 0]])

    Computed as numpy's (vectorised, unstable) quicksort, then only the tied runs of
    equal scores re-ordered by column: the stable sort's result, 2-3x faster.
    """
    scores = np.asarray(scores)
    if scores.dtype.kind in "bu":  # negating would fail (bool) or wrap around (unsigned)
        scores = scores.astype(np.int64 if scores.dtype.kind == "u" and scores.itemsize < 8 else float)
    keys = -scores  # integers stay integers: exact beyond 2**53
    if keys.ndim != 2:
        raise ValueError(f"scores must be a (queries, items) matrix, not shape {keys.shape}. "
                         "Fix: give one row per query, one column per item")
    order = np.argsort(keys, axis=1)
    ranked = np.take_along_axis(keys, order, axis=1)
    tied = (ranked[:, 1:] == ranked[:, :-1]) | (np.isnan(ranked[:, 1:]) & np.isnan(ranked[:, :-1]))
    if tied.any():
        in_tie = np.zeros(ranked.shape, dtype=bool)
        in_tie[:, 1:] |= tied
        in_tie[:, :-1] |= tied
        rows, cols = np.nonzero(in_tie)  # row-major: each tied run is contiguous
        starts = np.ones(ranked.shape, dtype=bool)
        starts[:, 1:] = ~tied
        run_id = np.cumsum(starts[rows, cols])
        items = order[rows, cols]
        order[rows, cols] = items[np.lexsort((items, run_id))]
    return order


@validate_params(scores=ARRAY, relevance=ARRAY, gain=_GAIN, cut=_CUT, tie_rule=_TIE_RULE)
def proxy_ndcg(scores, relevance, gain: str = "linear", cut: str | None = "relevant",
               tie_rule: str = "stable") -> np.ndarray:
    """Per-query nDCG of a run (``scores``) against graded ``relevance`` in [0, 1], both (queries, items).

    ``gain="linear"`` is Wray's reference code (gain = relevance), ``"exponential"``
    the paper's text (2^rel - 1); both via :func:`fireeval.core.ranking.ndcg`.
    ``cut="relevant"`` cuts the ranking and the ideal ranking of each query at its
    number of items with relevance > 0 (Wray's reference code); ``None`` uses the
    whole ranking (trec_eval's ``ndcg``). ``tie_rule`` breaks equal scores
    (:data:`fireeval.core.tied_scores.TIE_RULES`): ``"stable"`` (item order, :func:`rank_order`),
    ``"relevant first"`` (higher relevance first: the highest nDCG any tie order gives) or
    ``"relevant last"`` (the lowest); all bounds at once: :func:`fireeval.t2v.retrieval.tie_bounds`.

    .. math:: \\mathrm{nDCG}_q = \\frac{\\sum_{j \\le n_q} g(\\mathrm{rel}_{q, \\pi_j}) / \\log_2(j + 1)}
                                 {\\sum_{j \\le n_q} g(\\mathrm{rel}^*_{q, j}) / \\log_2(j + 1)}

    Parameters
    ----------
    scores, relevance : array_like (queries, items)
        The run and the graded relevance.
    gain : {"linear", "exponential"}
        g(r) = r or 2^r - 1.
    cut : {"relevant", None}
        n_q: the query's items with relevance > 0, or all.
    tie_rule : str
        How equal scores are broken.

    Returns
    -------
    ndarray (queries,)

    >>> proxy_ndcg([[0.9, 0.1, 0.5]], [[1.0, 0.0, 0.5]])   # ranking already ideal
    array([1.])
    >>> [round(float(proxy_ndcg([[0.9, 0.0, 0.0]], [[1.0, 0.0, 0.5]], tie_rule=r)[0]), 3)
    ...  for r in ("relevant first", "stable", "relevant last")]
    [1.0, 0.76, 0.76]
    """
    from fireeval.core import tied_scores

    scores, relevance = np.asarray(scores, dtype=float), np.asarray(relevance, dtype=float)
    if scores.shape != relevance.shape:
        raise ValueError(f"scores {scores.shape} and relevance {relevance.shape} must have the same shape. "
                         "Fix: give both as (queries, items) in the same order")
    order = (rank_order(scores) if tie_rule == "stable"
             else tied_scores.order_under_tie_rule(scores, relevance, tie_rule))
    return _ndcg_of_order(order, relevance, -np.sort(-relevance, axis=1), gain, cut)


def _ndcg_of_order(order, relevance, ideal, gain, cut):
    """:func:`proxy_ndcg` from the run's :func:`rank_order` and the relevance sorted descending."""
    from fireeval.core import ranking

    gains = np.take_along_axis(relevance, order, axis=1)
    if cut == "relevant":
        keep = np.arange(relevance.shape[1])[None, :] < (relevance > 0).sum(axis=1, keepdims=True)
        gains, ideal = gains * keep, ideal * keep
    elif cut is not None:
        raise ValueError(f"cut must be 'relevant' or None, not {cut!r}. Fix: give one of the two")
    return ranking.ndcg(gains, ideal, gain=gain)


@validate_params(relevance=ARRAY, gain=_GAIN, cut=_CUT)
def expected_random_ndcg(relevance, gain: str = "linear", cut: str | None = "relevant") -> np.ndarray:
    """Per-query nDCG that a uniformly random ranking scores on average, in closed form.

    Under a random permutation every position holds each item with probability 1/N,
    so the expected gain at any position is the query's mean gain over all N items:

    .. math:: E[\\mathrm{nDCG}_q] = \\frac{\\bar g_q \\sum_{j=1}^{n_q} 1/\\log_2(j+1)}{\\mathrm{IDCG}_q},
              \\quad \\bar g_q = \\frac1N \\sum_i g(\\mathrm{rel}_{qi})

    with g(r) = r (``"linear"``) or 2^r - 1 (``"exponential"``), and n_q the number of
    items with relevance > 0 (``cut="relevant"``, Wray's code) or N (``cut=None``) --
    the same conventions as :func:`proxy_ndcg`. It shows what sets a random run's
    score: the share of items with *some* relevance and how high it is, not the run.

    Parameters
    ----------
    relevance : array_like (queries, items)
        Graded relevance.
    gain : {"linear", "exponential"}
        The gain.
    cut : {"relevant", None}
        As :func:`proxy_ndcg`.

    Returns
    -------
    ndarray (queries,)

    >>> expected_random_ndcg([[1.0, 0.0, 0.0, 0.0]])   # one relevant item in four, cut at 1
    array([0.25])
    """
    rel = np.asarray(relevance, dtype=float)
    if rel.ndim != 2:
        raise ValueError(f"relevance must be a (queries, items) matrix, not shape {rel.shape}. "
                         "Fix: give one row per query, one column per item")
    g = rel if gain == "linear" else np.exp2(rel) - 1
    n_items = rel.shape[1]
    discount = 1.0 / np.log2(np.arange(2, n_items + 2))
    depth = (rel > 0).sum(axis=1) if cut == "relevant" else np.full(rel.shape[0], n_items)
    cumulative = np.concatenate([[0.0], np.cumsum(discount)])
    expected_dcg = g.mean(axis=1) * cumulative[depth]
    # The ideal gains, sorted descending and cut at depth, in one reused buffer
    # (the same values as ``-np.sort(-g) * mask``, so the same product below).
    ideal = np.negative(g)
    ideal.sort(axis=1)
    np.negative(ideal, out=ideal)
    np.multiply(ideal, np.arange(n_items)[None, :] < depth[:, None], out=ideal)
    idcg = ideal @ discount
    return np.divide(expected_dcg, idcg, out=np.zeros_like(expected_dcg), where=idcg > 0)


def _order(scores, relevant, tie_rule: str) -> np.ndarray:
    """:func:`rank_order` (``tie_rule="stable"``) or the order under another tie rule, ``relevant`` deciding ties."""
    from fireeval.core import tied_scores

    if tie_rule == "stable":
        return rank_order(scores)
    return tied_scores.order_under_tie_rule(scores, relevant, tie_rule)


@validate_params(scores=ARRAY, positive=[ARRAY, Instance(range), None], tie_rule=_TIE_RULE)
def positive_rank(scores, positive=None, tie_rule: str = "stable") -> np.ndarray:
    """0-based rank of each query's positive item (default: the diagonal) under :func:`rank_order`, or with
    equal scores broken by ``tie_rule`` (:data:`fireeval.core.tied_scores.TIE_RULES`: the positive first or last).

    Parameters
    ----------
    scores : array_like (queries, items)
        Scores.
    positive : array_like of int, optional
        Each query's positive item (default: query i's is item i).
    tie_rule : str
        How equal scores are broken.

    Returns
    -------
    int ndarray (queries,)

    >>> [positive_rank([[0.0, 0.0, 0.0]], [1], r).tolist() for r in ("relevant first", "stable", "relevant last")]
    [[0], [1], [2]]
    """
    scores = np.asarray(scores)
    positive = np.arange(scores.shape[0]) if positive is None else np.asarray(positive)
    relevant = np.arange(scores.shape[1])[None, :] == positive[:, None]
    return (_order(scores, relevant, tie_rule) == positive[:, None]).argmax(axis=1)


@validate_params(ranks=ARRAY, ks=CUTOFFS)
def recall_at_ks(ranks, ks=(1, 5, 10)) -> dict:
    """Video-retrieval "R@K" (:func:`fireeval.core.ranking.correct_at_k`) of 0-based ranks, plus their geometric mean.

    .. math:: R@K = \\frac1Q \\sum_q [r_q < K], \\qquad \\mathrm{GMR} = \\Big(\\prod_K R@K\\Big)^{1/|K|}

    Parameters
    ----------
    ranks : array_like of int
        0-based ranks of the positives.
    ks : sequence of int
        The cut-offs.

    Returns
    -------
    dict
        ``{"R@K": float, ..., "GMR": float}``.

    >>> {k: round(v, 3) for k, v in recall_at_ks(np.array([0, 3, 7, 20])).items()}
    {'R@1': 0.25, 'R@5': 0.5, 'R@10': 0.75, 'GMR': 0.454}
    """
    from fireeval.core import ranking

    ranks = np.asarray(ranks)
    depth = max(ks)
    gains = (np.arange(depth)[None, :] == ranks[:, None]).astype(float)
    correct_at_k = ranking.correct_at_k.__wrapped__  # (unchecked: gains built here, ks checked above)
    out = {f"R@{k}": float(correct_at_k(gains, k).mean()) for k in ks}
    values = np.array(list(out.values()))
    out["GMR"] = float(np.exp(np.log(values).mean())) if (values > 0).all() else 0.0
    return out


@validate_params(scores=ARRAY, equivalent=ARRAY, ks=CUTOFFS, tie_rule=_TIE_RULE)
def gmr_bounds(scores, equivalent, ks=(1, 5, 10), tie_rule: str = "stable") -> dict:
    """Bounds on instance recall when equivalent items count as the positive (Wray et al., Fig. 5).

    ``equivalent[i, j]`` says item ``j`` is as good an answer to query ``i`` as its own
    item ``i`` (e.g. SYN(caption_i, caption_j) > 0.8); the diagonal is always included.
    *upper*: the best rank among query ``i``'s equivalents counts; *lower*: the worst;
    *reported*: the original positive's. Returns ``{lower, reported, upper}``, each a
    :func:`recall_at_ks` dict. ``tie_rule``: as :func:`gmr_bound_ranks`.

    Parameters
    ----------
    scores : array_like (queries, items)
        Scores; query i's own item is item i.
    equivalent : array_like of bool (queries, items)
        Equivalent answers.
    ks : sequence of int
        The cut-offs.
    tie_rule : str
        As :func:`gmr_bound_ranks`.

    Returns
    -------
    dict

    Examples
    --------
    >>> eq = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    >>> s = np.array([[0.1, 0.9, 0.5], [0.9, 0.1, 0.5], [0.1, 0.2, 0.9]])
    >>> {bound: round(r["R@1"], 3) for bound, r in gmr_bounds(s, eq, ks=(1,)).items()}
    {'lower': 0.333, 'reported': 0.333, 'upper': 1.0}
    """
    return {k: recall_at_ks(r, ks) for k, r in gmr_bound_ranks(scores, equivalent, tie_rule).items()}


@validate_params(scores=ARRAY, equivalent=ARRAY, tie_rule=_TIE_RULE)
def gmr_bound_ranks(scores, equivalent, tie_rule: str = "stable") -> dict:
    """Per-query 0-based ranks behind :func:`gmr_bounds`: ``{lower, reported, upper}``.

    ``tie_rule`` (:data:`fireeval.core.tied_scores.TIE_RULES`) breaks equal scores, the
    equivalent items (with the query's own) counting as the relevant ones: ``"relevant
    first"`` gives every bound its best ranks, ``"relevant last"`` its worst; ``"stable"``
    is :func:`rank_order`.

    Parameters
    ----------
    scores : array_like (queries, items)
        Scores.
    equivalent : array_like of bool (queries, items)
        Equivalent answers.
    tie_rule : str
        How equal scores are broken.

    Returns
    -------
    dict
        ``{"lower", "reported", "upper"}``: int ndarrays (queries,).

    >>> r = gmr_bound_ranks([[0.1, 0.9, 0.5], [0.2, 0.9, 0.1], [0.3, 0.2, 0.1]], np.eye(3, dtype=bool) | [[0, 1, 0]] * 3)
    >>> r["upper"].tolist(), r["reported"].tolist(), r["lower"].tolist()
    ([0, 0, 1], [2, 0, 2], [2, 0, 2])
    """
    scores, equivalent = np.asarray(scores), np.asarray(equivalent, dtype=bool).copy()
    n = scores.shape[0]
    equivalent[np.arange(n), np.arange(n)] = True
    order = _order(scores, equivalent, tie_rule)
    rank_of = np.empty_like(order)
    np.put_along_axis(rank_of, order, np.arange(order.shape[1])[None, :].repeat(n, 0), axis=1)
    return {"lower": np.where(equivalent, rank_of, -1).max(axis=1), "reported": np.diagonal(rank_of).copy(),
            "upper": np.where(equivalent, rank_of, order.shape[1]).min(axis=1)}


@validate_params(scores=ARRAY, equivalent=ARRAY, ks=CUTOFFS, n_resamples=Int(1), seed=SEED,
                 base=Options("lower", "reported"), tie_rule=_TIE_RULE)
def gmr_gap_bootstrap(scores, equivalent, ks=(1, 5, 10), n_resamples: int = 2000, seed: int = 0,
                      base: str = "lower", tie_rule: str = "stable"):
    """GMR upper bound minus ``base`` (percentage points) and its bootstrap over queries.

    ``base``: ``"lower"`` (the lower bound: Fig. 5's spread) or ``"reported"`` (the original
    positive's GMR: "the gap between the reported performance and the upper bound").
    ``tie_rule``: as :func:`gmr_bound_ranks`. Returns ``(gap, samples)``; each resample draws
    the queries with replacement and recomputes both bounds' R@K and their geometric means.

    Parameters
    ----------
    scores, equivalent, ks, tie_rule
        As :func:`gmr_bounds`.
    n_resamples : int
        Bootstrap resamples.
    seed : int
        Seed.
    base : {"lower", "reported"}
        The bound subtracted.

    Returns
    -------
    (float, ndarray)

    >>> eq = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    >>> s = np.array([[0.1, 0.9, 0.5], [0.9, 0.1, 0.5], [0.1, 0.2, 0.9]])
    >>> [round(gmr_gap_bootstrap(s, eq, ks=(1,), n_resamples=10, base=b)[0], 1) for b in ("lower", "reported")]
    [66.7, 66.7]
    """
    from fireeval.stats import resampling

    ranks = gmr_bound_ranks(scores, equivalent, tie_rule)
    hits = np.stack([ranks[b] < k for b in ("upper", base) for k in ks]).astype(float)  # (2 * len(ks), Q)
    means = resampling.bootstrap_means(hits, n_resamples=n_resamples, rng=seed).reshape(2, len(ks), -1)
    with np.errstate(divide="ignore"):
        gmr = np.where((means > 0).all(axis=1), np.exp(np.log(means).mean(axis=1)), 0.0)   # (2, n_resamples)
    point = {b: recall_at_ks(ranks[b], ks)["GMR"] for b in ("upper", base)}
    return 100 * (point["upper"] - point[base]), 100 * (gmr[0] - gmr[1])


def gmr_gap_by_threshold(run_scores: dict, relevance, thresholds, n_resamples: int = 1000, seed: int = 0,
                         level: float = 0.95, tie_bounds_for=()) -> pd.DataFrame:
    """:func:`gmr_gap_bootstrap` for each run at each equivalence threshold (``relevance > t`` is equivalent).

    Columns: threshold, run, queries with equivalents (another video above ``t``), gap
    (GMR points), low, high (central ``level`` bootstrap interval over queries), tie low, tie
    high: for the runs of ``tie_bounds_for`` (whose matrix is not a full ranking, e.g. flagged by
    :func:`fireeval.core.tied_scores.tied_fill`) the smallest and largest point gap over
    :data:`fireeval.core.tied_scores.TIE_RULES`, for every other run the gap itself.

    >>> rel = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.1], [0.1, 0.1, 1.0]])
    >>> t = gmr_gap_by_threshold({"r": np.eye(3)}, rel, [0.5, 0.95], n_resamples=20)
    >>> t["queries with equivalents"].tolist()
    [2, 0]

    Queries 0 and 1 tie on every video: with the equivalents last (no equivalent at rank 1) the
    upper bound falls to the lower one, and the gap closes:

    >>> tied = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.1, 0.1, 0.9]])
    >>> t = gmr_gap_by_threshold({"r": tied}, rel, [0.5], n_resamples=20, tie_bounds_for=["r"])
    >>> t[["tie low", "gap", "tie high"]].round(1).values.tolist()
    [[0.0, 30.7, 30.7]]
    """
    from fireeval.core import tied_scores

    relevance = np.asarray(relevance, dtype=float)
    a = (1 - level) / 2
    rows = []
    for t in thresholds:
        equivalent = relevance > t
        np.fill_diagonal(equivalent, True)
        for run, scores in run_scores.items():
            gap, samples = gmr_gap_bootstrap(scores, equivalent, n_resamples=n_resamples, seed=seed)
            lo, hi = np.quantile(samples, [a, 1 - a])
            rows.append({"threshold": float(t), "run": run,
                         "queries with equivalents": int((equivalent.sum(axis=1) > 1).sum()),
                         "gap": gap, "low": min(lo, gap), "high": max(hi, gap)})
            gaps = [gap] + [_gmr_gap_point(scores, equivalent, rule) for rule in tied_scores.TIE_RULES
                            if run in tie_bounds_for and rule != "stable"]
            rows[-1].update({"tie low": min(gaps), "tie high": max(gaps)})
    return pd.DataFrame(rows)


def _gmr_gap_point(scores, equivalent, tie_rule: str, ks=(1, 5, 10)) -> float:
    """GMR upper minus lower bound (points) under one tie rule, without resampling."""
    ranks = gmr_bound_ranks(scores, equivalent, tie_rule)
    return 100 * (recall_at_ks(ranks["upper"], ks)["GMR"] - recall_at_ks(ranks["lower"], ks)["GMR"])


@validate_params(relevance_a=ARRAY, relevance_b=ARRAY, threshold=Real(0, 1), n_resamples=Int(1), seed=SEED)
def relevant_count_difference(relevance_a, relevance_b, threshold: float, n_resamples: int = 2000, seed: int = 0):
    """Mean over queries of (#items with relevance_a >= T) − (#items with relevance_b >= T), and its paired bootstrap.

    Parameters
    ----------
    relevance_a, relevance_b : array_like (queries, items)
        Two relevance matrices.
    threshold : float
        T.
    n_resamples : int
        Bootstrap resamples.
    seed : int
        Seed.

    Returns
    -------
    (float, ndarray)

    >>> d, s = relevant_count_difference([[1, 0.6], [0.2, 0.9]], [[1, 0.1], [0.1, 0.9]], 0.5, n_resamples=10)
    >>> d
    0.5
    """
    from fireeval.stats import resampling

    a = (np.asarray(relevance_a) >= threshold).sum(axis=1)
    b = (np.asarray(relevance_b) >= threshold).sum(axis=1)
    d = (a - b).astype(float)
    return float(d.mean()), resampling.bootstrap_means(d, n_resamples=n_resamples, rng=seed)


@validate_params(relevance=ARRAY, thresholds=ARRAY)
def mean_relevant_at_threshold(relevance, thresholds) -> dict:
    """Average number of items per query with relevance >= T, for each threshold T (Wray et al., Fig. 4).

    Parameters
    ----------
    relevance : array_like (queries, items)
        Graded relevance.
    thresholds : sequence of float
        The thresholds T.

    Returns
    -------
    dict
        ``{T: mean count}``.

    Examples
    --------
    >>> mean_relevant_at_threshold([[1, 0.6, 0.2], [0.2, 0.9, 0.0]], [0.5, 0.1])
    {0.5: 1.5, 0.1: 2.5}
    """
    relevance = np.asarray(relevance)
    return {float(t): float((relevance >= t).sum(axis=1).mean()) for t in thresholds}


@validate_params(a=ARRAY, b=ARRAY)
def rowwise_pearson(a, b) -> np.ndarray:
    """Pearson r between row ``i`` of ``a`` and row ``i`` of ``b`` (NaN for a constant row).

    Parameters
    ----------
    a, b : array_like (rows, columns)
        Two matrices of one shape.

    Returns
    -------
    ndarray (rows,)

    Examples
    --------
    >>> rowwise_pearson([[1, 2, 3], [1, 1, 1]], [[2, 4, 7], [1, 2, 3]]).round(3)
    array([0.993,   nan])
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 2 or a.shape != b.shape:  # the plain formula, for its broadcasting and errors
        a = a - a.mean(axis=1, keepdims=True)
        b = b - b.mean(axis=1, keepdims=True)
        den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (a * b).sum(axis=1) / den, np.nan)
    # Blocks of rows in reused buffers: each row's sums are the same operations as on
    # the whole matrix (bit-identical), without five full-size temporaries.
    n, m = a.shape
    step = max(1, min(n, (1 << 19) // max(m, 1)))
    ca, cb, prod = (np.empty((step, m)) for _ in range(3))
    saa, sbb, sab = np.empty(n), np.empty(n), np.empty(n)
    for start in range(0, n, step):
        stop = min(start + step, n)
        k = stop - start
        xa, xb, xp = ca[:k], cb[:k], prod[:k]
        np.subtract(a[start:stop], a[start:stop].mean(axis=1, keepdims=True), out=xa)
        np.subtract(b[start:stop], b[start:stop].mean(axis=1, keepdims=True), out=xb)
        saa[start:stop] = np.multiply(xa, xa, out=xp).sum(axis=1)
        sbb[start:stop] = np.multiply(xb, xb, out=xp).sum(axis=1)
        sab[start:stop] = np.multiply(xa, xb, out=xp).sum(axis=1)
    den = np.sqrt(saa * sbb)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, sab / den, np.nan)


def _pairwise_correlation(mats: dict, names: list, out: dict) -> dict:
    """:func:`proxy_correlation` of matrices of several shapes: pair by pair, on the rows both have."""
    for i, a in enumerate(names):
        for b in names[i:]:
            ma, mb = mats[a], mats[b]
            rows = ~(np.isnan(ma).any(axis=1) | np.isnan(mb).any(axis=1))
            r = float(np.nanmean(rowwise_pearson(ma[rows], mb[rows]))) if rows.any() else float("nan")
            out[a][b] = out[b][a] = r
    return out


@validate_params(relevance=_BY_PROXY)
def proxy_correlation(relevance: dict) -> dict:
    """Mean per-query Pearson r between every two relevance matrices of the same shape.

    Rows that are NaN in either matrix (e.g. METEOR computed on a subset of queries)
    are left out of that pair; constant rows too. ``{a: {b: r}}``, symmetric, r = 1 on
    the diagonal (Wray et al., App. B, Fig. 8, averages the correlation over videos).

    Parameters
    ----------
    relevance : dict
        ``{proxy: matrix (queries, items)}``.

    Returns
    -------
    dict

    Examples
    --------
    >>> r = proxy_correlation({"bow": np.array([[1, 0.5, 0.0], [0.2, 1, 0.4]]),
    ...                        "syn": np.array([[1, 0.6, 0.1], [0.0, 1, 0.5]])})
    >>> round(r["bow"]["syn"], 3), r["syn"]["syn"]
    (0.979, 1.0)
    """
    names = list(relevance)
    out = {a: {} for a in names}
    mats = {a: np.asarray(relevance[a], float) for a in names}
    # Per matrix once: rows without NaN, and (2-D) the rows' centred sums of squares.
    # A row's mean does not depend on which other rows are kept, so every pair reuses
    # them and only the cross sums are new; all is done in blocks of rows
    # (bit-identical to rowwise_pearson on the kept rows, without full-size copies).
    clean = {a: ~np.isnan(m).any(axis=1) for a, m in mats.items()}
    shapes = {m.shape for m in mats.values()}
    if len(shapes) != 1 or mats[names[0]].ndim != 2:
        return _pairwise_correlation(mats, names, out)
    n, m = shapes.pop()
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i:]]
    step = max(1, min(n, (1 << 19) // max(m, 1)))
    centred = {a: np.empty((step, m)) for a in names}
    prod = np.empty((step, m))
    squares = {a: np.empty(n) for a in names}
    cross = {p: np.empty(n) for p in pairs}
    for start in range(0, n, step):
        stop = min(start + step, n)
        k = stop - start
        for a in names:
            block = mats[a][start:stop]
            np.subtract(block, block.mean(axis=1, keepdims=True), out=centred[a][:k])
            squares[a][start:stop] = np.multiply(centred[a][:k], centred[a][:k], out=prod[:k]).sum(axis=1)
        for a, b in pairs:
            cross[a, b][start:stop] = (squares[a][start:stop] if a == b else
                                       np.multiply(centred[a][:k], centred[b][:k], out=prod[:k]).sum(axis=1))
    for a, b in pairs:
        rows = clean[a] & clean[b]
        if not rows.any():
            out[a][b] = out[b][a] = float("nan")
            continue
        den = np.sqrt(squares[a][rows] * squares[b][rows])
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(den > 0, cross[a, b][rows] / den, np.nan)
        out[a][b] = out[b][a] = float(np.nanmean(r))
    return out


@validate_params(video_captions=TEXTS, proxy=Options(*PROXIES), n_caption_queries=Int(1), n_video_queries=Int(1),
                 seed=SEED, gain=_GAIN)
def random_ndcg_both_directions(video_captions, proxy: str = "bow", n_caption_queries: int = 2000,
                                n_video_queries: int = 300, seed: int = 0, gain: str = "linear", **kwargs) -> dict:
    """Expected nDCG of a random ranking in Wray et al.'s protocol (Eq. 3), on sampled queries.

    Every caption of every video is a text query over all videos, and every video is a
    query over all captions; relevance is the proxy between the video's frequent-item
    sets and the caption (:func:`fireeval.t2v.similarity.video_similarity_matrix`), set to 1
    for a video and its own captions (Eq. 10). Seeded samples of ``n_caption_queries``
    captions and ``n_video_queries`` videos keep the matrices small; the expectation
    itself is exact (:func:`expected_random_ndcg`). Keyword arguments go to
    ``video_similarity_matrix``.

    Returns ``{"text-to-video", "video-to-text", "mean"}`` (Eq. 3 weighs both halves
    equally) and ``share_relevant``: the share of sampled text-query pairs with
    relevance > 0, which is what sets the random score.

    Parameters
    ----------
    video_captions : sequence of sequence of str
        Each video's captions.
    proxy : str
        The proxy.
    n_caption_queries, n_video_queries : int
        Queries sampled in each direction.
    seed : int
        Seed.
    gain : {"linear", "exponential"}
        The gain.
    **kwargs
        Options of :func:`fireeval.t2v.similarity.video_similarity_matrix`.

    Returns
    -------
    dict

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a dog runs", "a dog in a park"],
    ...             ["a woman sings", "a man sings"]]
    >>> {k: round(v, 3) for k, v in random_ndcg_both_directions(captions, n_caption_queries=6, n_video_queries=3).items()}
    {'text-to-video': 0.459, 'video-to-text': 0.452, 'mean': 0.455, 'share_relevant': 0.5}
    """
    from fireeval.t2v import similarity as sim

    video_captions = [list(c) for c in video_captions]
    flat = [c for caps in video_captions for c in caps]
    owner = np.repeat(np.arange(len(video_captions)), [len(c) for c in video_captions])
    rng = np.random.default_rng(seed)
    qs = np.sort(rng.choice(len(flat), size=min(n_caption_queries, len(flat)), replace=False))
    vs = np.sort(rng.choice(len(video_captions), size=min(n_video_queries, len(video_captions)), replace=False))
    t2v = sim.video_similarity_matrix(video_captions, [flat[i] for i in qs], proxy, **kwargs).T
    t2v[np.arange(len(qs)), owner[qs]] = 1.0
    v2t = sim.video_similarity_matrix([video_captions[v] for v in vs], flat, proxy, **kwargs)
    v2t[owner[None, :] == vs[:, None]] = 1.0
    a = float(expected_random_ndcg(t2v, gain=gain).mean())
    b = float(expected_random_ndcg(v2t, gain=gain).mean())
    return {"text-to-video": a, "video-to-text": b, "mean": 0.5 * (a + b), "share_relevant": float((t2v > 0).mean())}


@validate_params(query_captions=TEXTS, video_captions=TEXTS)
def text_only_scores(query_captions, video_captions) -> np.ndarray:
    """A text-only baseline run: TF-IDF cosine between each query and one *other* caption of each video.

    Video ``j`` is represented by its first caption that differs from query ``j``'s text
    (its first caption if all equal it), so the baseline never sees the query's own copy
    nor a pixel; the TF-IDF vocabulary is fitted on the queries and these captions.
    Returns ``(n_queries, n_videos)``. It shows how much caption proxies reward matching
    the words of a video's descriptions.

    Parameters
    ----------
    query_captions : sequence of str
        One query per video.
    video_captions : sequence of sequence of str
        Each video's captions.

    Returns
    -------
    ndarray (n_queries, n_videos)

    >>> text_only_scores(["a dog runs", "a cat"], [["a dog runs", "dog running"], ["a cat", "cat sits"]]).round(2)
    array([[0.38, 0.  ],
           [0.  , 0.62]])
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    query_captions = list(query_captions)
    other = [next((c for c in caps if c != q), caps[0]) for q, caps in zip(query_captions, video_captions)]
    tfidf = TfidfVectorizer().fit(query_captions + other)
    return (tfidf.transform(query_captions) @ tfidf.transform(other).T).toarray()


@validate_params(run_scores=_RUNS, relevance=_BY_PROXY, gains=Instance(list, tuple,
                 fix="pass gains as a list, e.g. ['linear']"), tie_bounds=BOOL)
def ndcg_table(run_scores: dict, relevance: dict, gains=("linear", "exponential"),
               tie_bounds: bool = False) -> pd.DataFrame:
    """Mean :func:`proxy_ndcg` (%) of every run under every relevance matrix and gain.

    Queries (rows) with a NaN in a relevance matrix (e.g. METEOR on a sample) are left
    out for that matrix. Long frame: run, proxy, gain, nDCG (percent, ties in item order).
    ``tie_bounds=True`` adds ``low`` and ``high``: the nDCG (%) with tied scores broken
    relevant-last and relevant-first (:func:`proxy_ndcg`'s ``tie_rule``), the range any tie
    rule allows; equal to ``nDCG`` for a run without ties.

    Parameters
    ----------
    run_scores : dict
        ``{run: scores (queries, items)}``.
    relevance : dict
        ``{proxy: relevance (queries, items)}``.
    gains : sequence of str
        The gains.
    tie_bounds : bool
        Add the ``low`` and ``high`` columns.

    Returns
    -------
    pandas.DataFrame

    >>> ndcg_table({"r": np.array([[0.9, 0.1]])}, {"bow": np.array([[1.0, 0.5]])}, gains=("linear",))
      run proxy    gain  nDCG
    0   r   bow  linear 100.0
    >>> ndcg_table({"r": np.array([[0.0, 0.0]])}, {"bow": np.array([[0.5, 1.0]])}, ("linear",), tie_bounds=True).round(1)
      run proxy    gain  nDCG   low   high
    0   r   bow  linear  86.0  86.0  100.0
    """
    from fireeval.core import tied_scores

    prepared = {}  # per relevance matrix: its complete rows, and their gains sorted (ideal ranking)
    for p, rel in relevance.items():
        rel = np.asarray(rel, dtype=float)
        keep = ~np.isnan(rel).any(axis=1)
        prepared[p] = keep, rel[keep], -np.sort(-rel[keep], axis=1)
    rows = []
    for run, scores in run_scores.items():
        scores = np.asarray(scores, dtype=float)
        order = rank_order(scores)  # once per run, as proxy_ndcg would for each matrix and gain
        for p, (keep, rel, ideal) in prepared.items():
            if scores.shape != relevance[p].shape:
                raise ValueError(f"run {run!r}: scores {scores.shape} and {p} relevance {np.shape(relevance[p])} "
                                 "must have the same shape. Fix: give both as (queries, items) in the same order")
            bounds = ({r: tied_scores.order_under_tie_rule(scores[keep], rel, r) for r in ("relevant first",
                                                                                           "relevant last")}
                      if tie_bounds else {})
            for gain in gains:
                value = _ndcg_of_order(order[keep], rel, ideal, gain, "relevant").mean()
                row = {"run": run, "proxy": p, "gain": gain, "nDCG": 100 * value}
                if tie_bounds:
                    first, last = (100 * _ndcg_of_order(bounds[r], rel, ideal, gain, "relevant").mean()
                                   for r in ("relevant first", "relevant last"))
                    row |= {"low": min(first, last, row["nDCG"]), "high": max(first, last, row["nDCG"])}
                rows.append(row)
    return pd.DataFrame(rows)


@validate_params(run_scores=_RUNS, ks=CUTOFFS, tie_bounds=BOOL)
def instance_table(run_scores: dict, ks=(1, 5, 10), tie_bounds: bool = False) -> pd.DataFrame:
    """Instance metrics (%) of each run: R@K of the diagonal positive and their GMR (:func:`recall_at_ks`).

    ``tie_bounds=True`` adds, for each column, ``<column> low`` and ``<column> high``: its
    value with the positive last and first among equal scores (:func:`positive_rank`).

    Parameters
    ----------
    run_scores : dict
        ``{run: scores (queries, queries)}``, positives on the diagonal.
    ks : sequence of int
        The cut-offs.
    tie_bounds : bool
        Add the low and high columns.

    Returns
    -------
    pandas.DataFrame

    >>> instance_table({"r": np.eye(2)}, ks=(1,))
         R@1    GMR
    r  100.0  100.0
    >>> instance_table({"r": np.zeros((2, 2))}, ks=(1,), tie_bounds=True)[["R@1", "R@1 low", "R@1 high"]]
        R@1  R@1 low  R@1 high
    r  50.0      0.0     100.0
    """
    table = pd.DataFrame({run: recall_at_ks(positive_rank(s), ks) for run, s in run_scores.items()}).T * 100
    if not tie_bounds:
        return table
    for bound, rule in (("low", "relevant last"), ("high", "relevant first")):
        other = pd.DataFrame({run: recall_at_ks(positive_rank(s, tie_rule=rule), ks)
                              for run, s in run_scores.items()}).T * 100
        for column in list(other.columns):
            table[f"{column} {bound}"] = other[column]
    return table


@validate_params(ndcg_linear=Instance(pd.DataFrame, fix="pass the ndcg_table frame (runs x proxies)"), proxies=TEXTS)
def run_order_note(ndcg_linear: pd.DataFrame, proxies) -> tuple[bool, str]:
    """Whether every proxy orders the runs the same way, and a sentence saying so (and whether SYN is lowest).

    ``ndcg_linear`` has runs as rows and proxies as columns. The sentence states the
    common order (best first) or that the orders differ, then whether SYN gives every
    run its lowest score, as in Wray et al.'s Table 3.

    Parameters
    ----------
    ndcg_linear : pandas.DataFrame
        Runs x proxies.
    proxies : sequence of str
        The proxies compared.

    Returns
    -------
    (bool, str)

    >>> t = pd.DataFrame({"bow": [50.0, 20.0], "syn": [30.0, 10.0]}, index=["a", "b"])
    >>> print(run_order_note(t, ["bow", "syn"])[1])
    every proxy orders the runs the same way (a > b); SYN gives every run its lowest score, as in the paper's Table 3
    """
    proxies = list(proxies)
    orders = {p: tuple(ndcg_linear[p].sort_values(ascending=False).index) for p in proxies}
    same = len(set(orders.values())) == 1
    syn_lowest = "syn" in proxies and bool((ndcg_linear[proxies].idxmin(axis=1) == "syn").all())
    note = (("every proxy orders the runs the same way (" + " > ".join(orders[proxies[0]]) + ")"
             if same else "the proxies do not all order the runs the same way (see the table)")
            + ("; SYN gives every run its lowest score, as in the paper's Table 3" if syn_lowest else
               "; unlike the paper's Table 3, SYN is not every run's lowest score"))
    return same, note


@validate_params(random_run=_BY_PROXY, relevance=_BY_PROXY, paper_setting=_BY_PROXY, paper_random=_BY_PROXY)
def random_ndcg_checks(random_run: dict, relevance: dict, paper_setting: dict, paper_random: dict) -> pd.DataFrame:
    """Random-ranking nDCG (%, linear gain) in several settings, one row per setting, one column per proxy.

    ``random_run``: the measured nDCG (%) of a random run, per proxy; ``relevance``:
    the (query, video) matrices; ``paper_setting``: :func:`random_ndcg_both_directions`
    results (fractions) per proxy; ``paper_random``: the paper's Random row (%). Rows:
    the random run, its closed-form expectation (:func:`expected_random_ndcg`), the
    video-to-text direction, the paper's setting, the share of pairs with relevance > 0
    (%), and the paper's value.

    Parameters
    ----------
    random_run, relevance, paper_setting, paper_random : dict
        As above, each keyed by proxy.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a dog runs", "a dog in a park"],
    ...             ["a woman sings", "a man sings"]]
    >>> setting = {"bow": random_ndcg_both_directions(captions, n_caption_queries=6, n_video_queries=3)}
    >>> checks = random_ndcg_checks({"bow": 60.0}, {"bow": np.array([[1, 0.5, 0.0], [0.2, 1, 0.4]])}, setting, {"bow": 40.0})
    >>> checks["bow"].round(1).to_dict()
    {'random run here (1k-A, text→video)': 60.0, 'expected value, same setting': 73.0, '1k-A, video→text': 76.6, 'full test split, both directions': 45.5, 'pairs with relevance > 0 (%), 1k-A': 83.3, 'Random (paper, Table 3)': 40.0}
    """
    checks = {"random run here (1k-A, text→video)": dict(random_run),
              "expected value, same setting": {p: 100 * expected_random_ndcg(r).mean() for p, r in relevance.items()},
              "1k-A, video→text": {p: 100 * expected_random_ndcg(np.asarray(r).T).mean()
                                   for p, r in relevance.items()},
              "full test split, both directions": {p: 100 * d["mean"] for p, d in paper_setting.items()},
              "pairs with relevance > 0 (%), 1k-A": {p: 100 * float((np.asarray(r) > 0).mean())
                                                     for p, r in relevance.items()},
              "Random (paper, Table 3)": {p: paper_random[p] for p in relevance}}
    return pd.DataFrame(checks).T


@validate_params(video_captions=TEXTS, query_captions=TEXTS, stop_lists=Instance(Mapping,
                 fix="pass {name: stop words}"))
def stop_word_check(video_captions, query_captions, stop_lists: dict) -> pd.DataFrame:
    """BoW relevance under different stop lists: share of pairs with relevance > 0 and expected random nDCG (%).

    ``stop_lists`` maps a name to a stop-word collection passed to
    :func:`fireeval.t2v.similarity.query_relevance`. Rows are the names (index "stop words").

    Parameters
    ----------
    video_captions : sequence of sequence of str
        Each video's captions.
    query_captions : sequence of str
        One query per video.
    stop_lists : dict
        ``{name: stop words}``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a dog runs", "a dog in a park"],
    ...             ["a woman sings", "a man sings"]]
    >>> table = stop_word_check(captions, ["a man drives a car", "a dog runs", "a woman sings"],
    ...                         {"none": set(), "a, in": {"a", "in"}})
    >>> table.round(1).values.tolist()
    [[100.0, 79.7], [44.4, 41.5]]
    """
    from fireeval.t2v import similarity as sim

    variants = {name: sim.query_relevance(video_captions, query_captions, "bow", stop_words=sw)
                for name, sw in stop_lists.items()}
    return pd.DataFrame({"pairs with relevance > 0 (%)": {n: 100 * float((r > 0).mean()) for n, r in variants.items()},
                         "expected random BoW nDCG (%)": {n: 100 * expected_random_ndcg(r).mean()
                                                          for n, r in variants.items()}}).rename_axis("stop words")


@validate_params(captions=TEXTS, proxies=TEXTS, tagger=[Instance(Callable,
                 fix="pass a function caption -> [(word, tag), ...]"), None])
def relevance_matrices(captions, proxies, tagger=None) -> dict:
    """Caption-to-caption relevance ``{proxy: (n, n)}`` (:func:`fireeval.t2v.similarity.similarity_matrix`).

    ``tagger``: the part-of-speech tagger for PoS and SYN (default :func:`fireeval.t2v.nlp.pos_tag`).

    Parameters
    ----------
    captions : sequence of str
        The captions.
    proxies : sequence of str
        The proxies.
    tagger : callable, optional
        The tagger.

    Returns
    -------
    dict
        ``{proxy: ndarray (n, n)}``.

    >>> relevance_matrices(["a red car", "a car"], ["bow"])["bow"]
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    from fireeval.t2v import similarity as sim

    return {p: sim.similarity_matrix(captions, captions, p, tagger=tagger) for p in proxies}
