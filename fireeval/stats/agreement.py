"""Agreement between rankings: of systems (Kendall's tau-b) and of ranked lists (overlap, RBO)."""
from __future__ import annotations

import numpy as np
from scipy import stats

from fireeval.core.validation import ANY, ARRAY, BOOL, Int, Real, validate_params

__all__ = ["kendall_tau", "kendall_tau_batch", "kendall_tau_against", "kendall_tau_many", "tau_ap", "tau_ap_batch",
           "kendall_tau_matrix", "topk_overlap", "rank_biased_overlap"]


@validate_params(scores_a=ARRAY, scores_b=ARRAY)
def kendall_tau(scores_a, scores_b) -> float:
    """Kendall's tau-b between two scorings of the same systems (ties counted).

    .. math:: \\tau_b = \\frac{P - Q}{\\sqrt{(P + Q + T_a)(P + Q + T_b)}}

    with P concordant and Q discordant pairs, T_a / T_b pairs tied only in a / only in b,
    exactly as :func:`scipy.stats.kendalltau` computes it (which this calls). Systems
    are compared by score, so ranking by score in either direction is the same as long
    as both use the same direction. NaN when either scoring is constant.

    Parameters
    ----------
    scores_a, scores_b : array_like (n_systems,)
        Two scorings of the same systems.

    Returns
    -------
    float
        τ-b in [-1, 1].

    Examples
    --------
    >>> kendall_tau([0.1, 0.2, 0.3], [0.1, 0.3, 0.2])
    0.333...
    """
    return float(stats.kendalltau(np.asarray(scores_a), np.asarray(scores_b), variant="b").statistic)


@validate_params(a=ARRAY, b=ARRAY, atol=Real(0, None), chunk=Int(1), rtol=Real(0, None))
def kendall_tau_batch(a, b, atol: float = 0.0, chunk: int = 256, rtol: float = 0.0) -> np.ndarray:
    """Kendall's tau-b between ``a[..., :]`` and ``b[..., :]`` along the last axis (systems), vectorised.

    .. math:: \\tau_b = \\frac{\\sum_{i<j} s^a_{ij} s^b_{ij}}
              {\\sqrt{\\sum_{i<j} |s^a_{ij}| \\cdot \\sum_{i<j} |s^b_{ij}|}},
              \\quad s^x_{ij} = \\operatorname{sign}(x_i - x_j)

    which is scipy's tau-b row by row (pairs tied in one scoring drop out of that
    scoring's denominator term); NaN when either scoring is constant. Leading axes
    broadcast (bootstrap resamples, trials, measures). Differences within
    ``max(atol, rtol · max(1, |x_i|, |x_j|))`` count as ties, e.g. two systems whose subset means
    differ only by floating-point summation order (``rtol=``
    :data:`fireeval.stats.resampling.TIE_RTOL`: resampled means summed by BLAS, whose order
    follows the machine's threads). O(n_systems²) memory per row, ``chunk`` rows at a time.

    Parameters
    ----------
    a, b : array_like (..., n_systems)
        Scorings, broadcast against each other.
    atol : float
        Scores closer than this count as tied.
    chunk : int
        Rows at a time.
    rtol : float
        Scores closer than ``rtol · max(1, |x_i|, |x_j|)`` count as tied too.

    Returns
    -------
    numpy.ndarray (...)
        τ-b of each row.

    Examples
    --------
    >>> kendall_tau_batch([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], [0.1, 0.3, 0.2]).round(3)
    array([ 0.333, -0.333])
    >>> kendall_tau_batch([0.1, 0.1 + 1e-16, 0.3], [0.1, 0.2, 0.3], rtol=1e-9)   # a tie up to rounding in a
    array(0.81649658)
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    shape, n = a.shape[:-1], a.shape[-1]
    a, b = a.reshape(-1, n), b.reshape(-1, n)
    i, j = np.triu_indices(n, k=1)
    out = np.empty(len(a))
    for start in range(0, len(a), chunk):
        sa = _signs(a[start:start + chunk], i, j, atol, rtol)
        sb = _signs(b[start:start + chunk], i, j, atol, rtol)
        den = np.sqrt(np.abs(sa).sum(-1) * np.abs(sb).sum(-1))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + chunk] = np.where(den > 0, (sa * sb).sum(-1) / np.where(den > 0, den, 1), np.nan)
    return out.reshape(shape)


@validate_params(a=ARRAY, b=ARRAY, atol=Real(0, None))
def kendall_tau_against(a, b, atol: float = 0.0) -> np.ndarray:
    """:func:`kendall_tau_batch` of many scorings ``a`` against a few fixed ones ``b`` (the same numbers), each
    scoring's pair signs computed once: ``b`` is broadcast after its signs are taken, not before.

    For subsets against the whole set or noisy against clean scores, where ``b`` has far fewer rows than ``a``.
    The τ-b are sums of ±1 and 0 and their counts, exact in any order, so they equal kendall_tau_batch's to the bit.

    Parameters
    ----------
    a, b, atol
        As in :func:`kendall_tau_batch` (no ``rtol``: differences within ``atol`` are ties).

    Returns
    -------
    numpy.ndarray
        τ-b of each row of the broadcast shape; NaN when either scoring is constant.

    Examples
    --------
    >>> kendall_tau_against([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], [0.1, 0.3, 0.2]).round(3)
    array([ 0.333, -0.333])
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    i, j = np.triu_indices(a.shape[-1], k=1)
    sa, sb = (np.where(np.abs(d) <= atol, 0.0, np.sign(d)) for d in (a[..., i] - a[..., j], b[..., i] - b[..., j]))
    den = np.sqrt(np.abs(sa).sum(-1) * np.abs(sb).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (sa * sb).sum(-1) / np.where(den > 0, den, 1), np.nan)


def _signs(x: np.ndarray, i: np.ndarray, j: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """sign(x_i - x_j) of each pair, 0 within ``max(atol, rtol · max(1, |x_i|, |x_j|))``."""
    d = x[:, i] - x[:, j]
    tol = atol if rtol == 0 else np.maximum(atol, rtol * np.maximum(1.0, np.maximum(np.abs(x[:, i]), np.abs(x[:, j]))))
    return np.where(np.abs(d) <= tol, 0.0, np.sign(d))


@validate_params(a=ARRAY, b=ARRAY, chunk=Int(1), rtol=Real(0, None))
def kendall_tau_many(a, b, chunk: int = 4096, rtol: float = 0.0) -> np.ndarray:
    """Kendall's tau-b row by row, like :func:`kendall_tau_batch` (no ``atol``), faster.

    Knight's algorithm, vectorised over rows: each row is ordered by ``a`` (ties by ``b``),
    the discordant pairs are the inversions of ``b`` in that order, counted by a bottom-up
    merge of sorted blocks (:func:`_inversions`), and the tied pairs from the sorted values.
    With n0 = n(n-1)/2 pairs, n1 / n2 tied in a / b, n3 tied in both and D discordant,

    .. math:: \\tau_b = \\frac{n_0 - n_1 - n_2 + n_3 - 2D}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    O(n log² n) per row instead of the n² pair matrices of :func:`_kendall_tau_pairs` (which
    it equals exactly, and which rows holding NaN still use: NaN ties with everything there):
    about twice as fast for ~100 systems (bootstrap bands), more for more systems. NaN where
    either row is constant. With ``rtol``, a value within ``rtol · max(1, |x|)`` of the next
    larger one in its row ties with it (means equal up to their summation order;
    :data:`fireeval.stats.resampling.TIE_RTOL`).

    Parameters
    ----------
    a, b : array_like (..., n_systems)
        Scorings, broadcast against each other.
    chunk : int
        Rows at a time.
    rtol : float
        Relative tolerance of a tie (0: exact ties).

    Returns
    -------
    numpy.ndarray (...)
        τ-b of each row.

    Examples
    --------
    >>> kendall_tau_many([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], [0.1, 0.3, 0.2]).round(3)
    array([ 0.333, -0.333])
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    full = np.broadcast_shapes(a.shape, b.shape)
    shape, n = full[:-1], full[-1]
    # Each distinct row of a and of b is ranked once (a reference shared by many rows, as in a
    # bootstrap band over depths, is ranked once per resample): row r of the result reads row
    # source_a[r] of a's own rows and source_b[r] of b's.
    source_a = np.broadcast_to(np.arange(a[..., 0].size).reshape(a.shape[:-1]), shape).reshape(-1)
    source_b = np.broadcast_to(np.arange(b[..., 0].size).reshape(b.shape[:-1]), shape).reshape(-1)
    a = np.broadcast_to(a, a.shape[:-1] + (n,)).reshape(-1, n)
    b = np.broadcast_to(b, b.shape[:-1] + (n,)).reshape(-1, n)
    out = np.empty(len(source_a))
    nan = np.isnan(a).any(-1)[source_a] | np.isnan(b).any(-1)[source_b]
    if nan.any():
        out[nan] = _kendall_tau_pairs(a[source_a[nan]], b[source_b[nan]])
    finite = np.flatnonzero(~nan)
    n0 = n * (n - 1) // 2
    small_keys = n * (n + 1) + n < np.iinfo(np.int16).max
    # up to 256 systems, blocks of up to 64 compared pair by pair and fewer merges (about 40 % less time
    # for 129 systems); beyond, blocks of 16 keep the pair arrays (rows x n x base) small
    base = 64 if n <= 256 else 16
    ranked_b = _dense_ranks(b, rtol) if len(b) < len(source_b) else None  # b shared by rows of a: rank it once
    for start in range(0, len(finite), chunk):
        rows = finite[start:start + chunk]
        rank_a, tied_a = _dense_ranks(a[source_a[rows]], rtol)
        if ranked_b is None:
            rank_b, tied_b = _dense_ranks(b[source_b[rows]], rtol)
        else:
            rank_b, tied_b = ranked_b[0][source_b[rows]], ranked_b[1][source_b[rows]]
        key = rank_a * (n + 1) + rank_b  # by a, ties by b (equal keys: equal pairs, so any order among them)
        # keys below 2**15 (up to 180 systems): a radix sort of int16, about 3x numpy's default sort of int32
        order = np.argsort(key.astype(np.int16), axis=-1, kind="stable") if small_keys else np.argsort(key, axis=-1)
        a_sorted, b_in_order = np.take_along_axis(rank_a, order, -1), np.take_along_axis(rank_b, order, -1)
        tied_both = (a_sorted[:, 1:] == a_sorted[:, :-1]) & (b_in_order[:, 1:] == b_in_order[:, :-1])
        n1, n2, n3 = _tied_pairs(tied_a), _tied_pairs(tied_b), _tied_pairs(tied_both)
        num = (n0 - n1 - n2 + n3 - 2 * _inversions(b_in_order, base)).astype(float)
        den = np.sqrt((n0 - n1).astype(float) * (n0 - n2))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[rows] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return out.reshape(shape)


def _dense_ranks(x: np.ndarray, rtol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Dense ranks (0, 1, ...; equal values share one) of each row of ``x`` (rows, n), and, in sorted order,
    whether each value equals the one before it (rows, n - 1); with ``rtol``, "equals" is within
    ``rtol · max(1, |x|)`` of it."""
    order = np.argsort(x, axis=-1)
    ordered = np.take_along_axis(x, order, -1)
    if rtol:
        gap = ordered[:, 1:] - ordered[:, :-1]
        same = gap <= rtol * np.maximum(1.0, np.maximum(np.abs(ordered[:, 1:]), np.abs(ordered[:, :-1])))
    else:
        same = ordered[:, 1:] == ordered[:, :-1]
    step = np.zeros(x.shape, dtype=np.int32)
    np.cumsum(~same, axis=-1, dtype=np.int32, out=step[:, 1:])
    ranks = np.empty_like(step)
    np.put_along_axis(ranks, order, step, -1)
    return ranks, same


def _tied_pairs(same_as_previous: np.ndarray) -> np.ndarray:
    """Pairs of equal values per row, from a sorted row's "equals the one before" flags (rows, n - 1)."""
    position = np.arange(1, same_as_previous.shape[-1] + 1)
    group_start = np.maximum.accumulate(np.where(same_as_previous, 0, position), axis=-1)
    return (position - group_start).sum(-1, dtype=np.int64)


def _inversions(values: np.ndarray, base: int = 16) -> np.ndarray:
    """Pairs i < j with values[i] > values[j], per row of small non-negative ints (rows, n).

    Rows are padded to ``base · 2**levels`` with a value above all (which adds no inversion); blocks of
    at most ``base`` count theirs by comparing every pair, then sorted blocks are merged level by level:
    a block's two sorted halves are sorted together with a tag bit (left half 0, right 1, so an equal
    left value sorts first and is not counted), and each right value counts the left values after it.
    """
    rows, n = values.shape
    # Blocks of `base` values (at most `base`; at least 2), merged `levels` times: the padded width is
    # base * 2**levels, the smallest such at or above n (129 values: 136, not the next power of two, 256).
    levels = max(int(np.ceil(np.log2(max(n, 2) / base))), 0)
    base = max(-(-n // (1 << levels)), 2)
    size = base << levels
    top = int(values.max(initial=0)) + 1
    dtype = np.int16 if 2 * top + 1 < np.iinfo(np.int16).max else np.int64
    padded = np.full((rows, size), top, dtype=dtype)
    padded[:, :n] = values
    blocks = padded.reshape(rows, size // base, base)
    upper = np.triu(np.ones((base, base), dtype=bool), 1)
    count = ((blocks[..., :, None] > blocks[..., None, :]) & upper).reshape(rows, -1).sum(-1, dtype=np.int64)
    merged = np.sort(blocks, axis=-1, kind="stable").reshape(rows, size)
    width = base
    while width < size:
        halves = merged.reshape(rows, size // (2 * width), 2 * width)
        tag = np.repeat(np.array([0, 1], dtype=dtype), width)
        keys = np.sort(halves * 2 + tag, axis=-1, kind="stable")
        left = (keys & 1) == 0
        left_before = np.cumsum(left, axis=-1, dtype=np.int32)
        count += np.where(left, 0, width - left_before).reshape(rows, -1).sum(-1, dtype=np.int64)
        merged = (keys >> 1).reshape(rows, size)
        width *= 2
    return count


def _kendall_tau_pairs(a: np.ndarray, b: np.ndarray, chunk: int = 64) -> np.ndarray:
    """τ-b of each row of (rows, n) ``a``, ``b`` from boolean "i above j" matrices (a NaN ties with everything)."""
    out = np.empty(len(a))
    for start in range(0, len(a), chunk):
        sa, sb = a[start:start + chunk], b[start:start + chunk]
        above_a = sa[:, :, None] > sa[:, None, :]
        above_b = sb[:, :, None] > sb[:, None, :]
        rows = len(sa)
        count = lambda m: np.count_nonzero(m.reshape(rows, -1), axis=1)  # noqa: E731
        concordant = count(above_a & above_b)
        discordant = count(above_a & above_b.transpose(0, 2, 1))
        den = np.sqrt(count(above_a).astype(float) * count(above_b))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + chunk] = np.where(den > 0, (concordant - discordant) / np.where(den > 0, den, 1), np.nan)
    return out


@validate_params(estimate=ARRAY, truth=ARRAY)
def tau_ap(estimate, truth) -> float:
    """AP correlation τ_AP (Yilmaz, Aslam & Robertson 2008) of a ranking of systems against the true one.

    .. math:: \\tau_{AP} = \\frac{2}{N - 1} \\sum_{i=2}^{N} \\frac{C(i)}{i - 1} - 1

    Systems are ordered by ``estimate`` (descending; ties keep input order); C(i) counts
    the systems above position i that ``truth`` also ranks above system i. Unlike τ-b it
    is asymmetric and weighs a swap near the top more than one near the bottom:
    1 for the same order, -1 for the reverse. A pair tied in either scoring counts half.

    Parameters
    ----------
    estimate : array_like (n_systems,)
        The scores that order the systems.
    truth : array_like (n_systems,)
        The true scores.

    Returns
    -------
    float
        τ_AP in [-1, 1].

    Examples
    --------
    >>> tau_ap([0.3, 0.2, 0.1], [0.3, 0.2, 0.1]), tau_ap([0.3, 0.2, 0.1], [0.2, 0.3, 0.1])
    (1.0, 0.0)
    >>> tau_ap([0.3, 0.2, 0.1], [0.3, 0.1, 0.2])   # the same single swap, lower down: smaller penalty
    0.5
    """
    return float(tau_ap_batch(estimate, truth))


@validate_params(estimate=ARRAY, truth=ARRAY, chunk=Int(1), rtol=Real(0, None))
def tau_ap_batch(estimate, truth, chunk: int = 64, rtol: float = 0.0) -> np.ndarray:
    """τ_AP (:func:`tau_ap`) along the last axis, vectorised over leading axes (e.g. bootstrap resamples).

    Parameters
    ----------
    estimate : array_like (..., n_systems)
        The scores that order the systems, per row.
    truth : array_like (n_systems,)
        The true scores.
    chunk : int
        Rows at a time.
    rtol : float
        Scores within ``rtol · max(1, |x|)`` of the next larger one in their row tie (and keep their
        input order), as in :func:`kendall_tau_many`; 0: exact ties.

    Returns
    -------
    numpy.ndarray (...)
        τ_AP of each row.

    Examples
    --------
    >>> tau_ap_batch([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]], [0.3, 0.2, 0.1])
    array([ 1., -1.])
    """
    e, t = np.broadcast_arrays(np.asarray(estimate, dtype=float), np.asarray(truth, dtype=float))
    shape, n = e.shape[:-1], e.shape[-1]
    if n < 2:
        return np.full(shape, np.nan)
    e, t = e.reshape(-1, n), t.reshape(-1, n)
    if rtol:  # scores within rounding become equal ranks: ties, in input order
        e, t = _dense_ranks(e, rtol)[0].astype(float), _dense_ranks(t, rtol)[0].astype(float)
    order = np.argsort(-e, axis=1, kind="stable")
    e, t = np.take_along_axis(e, order, 1), np.take_along_axis(t, order, 1)
    earlier = np.tri(n, k=-1, dtype=bool)  # [i, j]: j is placed above i
    weight = 1.0 / np.maximum(np.arange(n), 1)  # 1 / (i - 1) for 1-based position i
    out = np.empty(len(e))
    for start in range(0, len(e), chunk):
        se, st = e[start:start + chunk], t[start:start + chunk]
        tied = ((se[:, :, None] == se[:, None, :]) | (st[:, :, None] == st[:, None, :])) & earlier
        above = (st[:, None, :] > st[:, :, None]) & earlier & ~tied
        # 2 C(i): a correctly ordered pair counts 2, a tied pair 1 (integer counts, no float matrices).
        c2 = 2 * np.count_nonzero(above, axis=-1) + np.count_nonzero(tied, axis=-1)
        out[start:start + chunk] = 1.0 / (n - 1) * (c2[:, 1:] * weight[1:]).sum(-1) - 1.0
    return out.reshape(shape)


@validate_params(scores=ARRAY)
def kendall_tau_matrix(scores) -> np.ndarray:
    """Pairwise tau-b between the rows of ``scores`` (measures x systems).

    Parameters
    ----------
    scores : array_like (measures, systems)
        One scoring of the systems per row.

    Returns
    -------
    numpy.ndarray (measures, measures)
        Symmetric, 1 on the diagonal.

    Examples
    --------
    >>> kendall_tau_matrix([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    scores = np.asarray(scores)
    n = len(scores)
    out = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = kendall_tau(scores[i], scores[j])
    return out


@validate_params(list_a=ANY, list_b=ANY, k=Int(1))
def topk_overlap(list_a, list_b, k: int = 10) -> np.ndarray:
    """Share of the top K that two ranked lists have in common, ``|A_K ∩ B_K| / K``.

    ``list_a`` and ``list_b`` are integer item ids of shape ``(..., depth)`` in rank
    order (FIRE Table 3 uses K = 10). Vectorised over leading axes; -1 marks no item.

    Parameters
    ----------
    list_a, list_b : array_like of int (..., depth)
        Item ids in rank order (-1: no item).
    k : int
        The depth K.

    Returns
    -------
    numpy.ndarray (...)
        The shared share of the top K.

    Examples
    --------
    >>> topk_overlap([[1, 2, 3]], [[3, 4, 1]], k=3)
    array([0.66666667])
    """
    a = np.asarray(list_a)[..., :k]
    b = np.asarray(list_b)[..., :k]
    common = ((a[..., :, None] == b[..., None, :]) & (a[..., :, None] >= 0)).any(axis=-1).sum(axis=-1)
    return common / k


@validate_params(list_a=ANY, list_b=ANY, p=Real(0, 1, closed='neither'), k=[Int(1), None], extrapolated=BOOL)
def rank_biased_overlap(list_a, list_b, p: float = 0.9, k: int | None = None,
                        extrapolated: bool = False) -> np.ndarray:
    """Rank-biased overlap (Webber, Moffat & Zobel 2010) of two ranked lists.

    .. math:: RBO@K = (1 - p) \\sum_{d=1}^{K} p^{d-1} \\frac{|A_{:d} \\cap B_{:d}|}{d}

    By default this is the truncated sum to depth K (Webber et al. eq. 7),
    which is at most 1 - p^K; with ``extrapolated=True`` it is RBO_EXT (eq. 30), which
    assumes the agreement at depth K continues and reaches 1 for identical lists.
    Lists are integer ids of shape ``(..., depth)``, -1 for no item; ``k`` defaults to
    the depth. FIRE Table 3 reports RBO over the top 10 with p = 0.9 (the customary value).

    Parameters
    ----------
    list_a, list_b : array_like of int (..., depth)
        Item ids in rank order.
    p : float
        Persistence in (0, 1).
    k : int, optional
        The depth K (default: the lists' depth).
    extrapolated : bool
        RBO_EXT instead of the truncated sum.

    Returns
    -------
    numpy.ndarray (...)
        RBO of each pair of lists.

    Examples
    --------
    >>> float(rank_biased_overlap([[1, 2]], [[1, 2]], p=0.5, extrapolated=True)[0])
    1.0
    """
    a = np.asarray(list_a)
    b = np.asarray(list_b)
    depth = k or a.shape[-1]
    a, b = a[..., :depth], b[..., :depth]
    # Item at rank i of A is matched when it appears in B's top d (d >= i); the
    # overlap at depth d counts items in both prefixes: first-seen depth per item.
    ranks = np.arange(1, depth + 1)
    match = (a[..., :, None] == b[..., None, :]) & (a[..., :, None] >= 0)
    pos_a = np.broadcast_to(ranks[:, None], match.shape)
    pos_b = np.broadcast_to(ranks[None, :], match.shape)
    both_by = np.where(match, np.maximum(pos_a, pos_b), depth + 1)
    overlap = (both_by[..., None] <= ranks).sum(axis=(-3, -2))  # (..., depth): |A_:d ∩ B_:d|
    agreement = overlap / ranks
    weights = (1 - p) * p ** (ranks - 1)
    rbo = (agreement * weights).sum(axis=-1)
    if extrapolated:
        rbo = rbo + agreement[..., -1] * p ** depth
    return rbo
