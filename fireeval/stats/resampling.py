"""Resampling of per-query scores: compute each query's score once, resample the scores.

Everything here takes per-query score arrays (last axis = queries) and returns
statistics over resamples without re-running any evaluation. Resample indices are
drawn once and shared by all systems/measures, so comparisons are paired.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from fireeval.core.validation import ARRAY, Int, Real, SEED, validate_params

__all__ = ["bootstrap_indices", "bootstrap_counts", "bootstrap_means", "bootstrap_deviation_quantile", "disjoint_halves",
           "jackknife_se", "TIE_RTOL", "tie_tolerance", "share_below"]

#: Replicates within ``TIE_RTOL · max(1, |θ̂|)`` of an estimate θ̂ tie with it (:func:`share_below`): a
#: replicate that equals the estimate mathematically may land an ulp above or below it depending on the
#: order in which a sum is added (BLAS threads, blocking), and BCa's z0 must not follow that order.
TIE_RTOL = 1e-9


@validate_params(n_items=Int(1), size=Int(1), n_resamples=Int(1), rng=SEED)
def bootstrap_indices(n_items: int, size: int, n_resamples: int, rng) -> np.ndarray:
    """Indices of ``n_resamples`` samples of ``size`` items drawn with replacement: (n_resamples, size).

    Parameters
    ----------
    n_items : int
        Items to draw from.
    size : int
        Items per sample.
    n_resamples : int
        Samples.
    rng : int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    numpy.ndarray of int (n_resamples, size)
        Indices into the items.

    Examples
    --------
    >>> bootstrap_indices(5, 3, 2, rng=0).shape
    (2, 3)
    """
    rng = np.random.default_rng(rng)
    return rng.integers(0, n_items, size=(n_resamples, size), dtype=np.int32 if n_items < 2**31 else np.int64)


@validate_params(n_items=Int(1), size=Int(1), n_resamples=Int(1), rng=SEED)
def bootstrap_counts(n_items: int, size: int, n_resamples: int, rng) -> np.ndarray:
    r"""How often each item is drawn in each of ``n_resamples`` samples of ``size`` with replacement:
    (n_resamples, n_items) floats, so that ``scores @ counts.T / size`` are the resample means (the one
    place the resamples of this package are counted; one ``bincount`` over (resample, item) cells,
    ~10x faster than ``np.add.at``).

    With :math:`c_{bi}` the count of item :math:`i` in resample :math:`b` and :math:`x_i` the items'
    scores, the resample means are

    .. math:: \bar x_b = \frac{1}{\text{size}} \sum_{i=1}^{n} c_{bi}\, x_i, \qquad \sum_i c_{bi} = \text{size}.

    Parameters
    ----------
    n_items : int
        Items to draw from (queries).
    size : int
        Draws per resample.
    n_resamples : int
        Resamples.
    rng : int, numpy.random.Generator or None
        Seed or generator (the draws are :func:`bootstrap_indices`' with the same ``rng``).

    Returns
    -------
    numpy.ndarray of float (n_resamples, n_items)
        The counts; each row sums to ``size``.

    Examples
    --------
    >>> bootstrap_counts(3, 3, 2, 0).sum(axis=1).tolist()
    [3.0, 3.0]
    >>> counts = bootstrap_counts(4, 4, 3, rng=1)
    >>> scores = np.array([0.0, 1.0, 2.0, 3.0])
    >>> bool(np.allclose(scores @ counts.T / 4, scores[bootstrap_indices(4, 4, 3, rng=1)].mean(axis=1)))
    True
    """
    idx = _bootstrap_indices(n_items, size, n_resamples, rng)
    cells = (np.arange(n_resamples)[:, None] * n_items + idx).ravel()
    return np.bincount(cells, minlength=n_resamples * n_items).reshape(n_resamples, n_items).astype(float)


# This module's own calls, chunk by chunk, without checking again what the calling function's declaration checked
# (ten checked calls of each per 10,000 resamples cost 10 % of a first bootstrap_means: issue 38,
# benchmarks/bench_validation.py); a user's call of the public name is still checked.
_bootstrap_indices = bootstrap_indices.__wrapped__
_bootstrap_counts = bootstrap_counts.__wrapped__


@validate_params(per_query=ARRAY, size=[Int(1), None], n_resamples=Int(1), rng=SEED, chunk=Int(1))
def bootstrap_means(per_query, size: int | None = None, n_resamples: int = 10_000, rng=0,
                    chunk: int = 1000) -> np.ndarray:
    """Mean score of each bootstrap resample: shape (..., n_resamples).

    ``per_query`` has shape (..., n_queries); all leading rows use the same
    resamples. ``size`` defaults to n_queries. Works in chunks of resamples so memory
    stays at ``chunk * size`` indices.

    Parameters
    ----------
    per_query : array_like (..., n_queries)
        Per-query scores.
    size : int, optional
        Queries per resample (default n_queries).
    n_resamples : int
        Resamples.
    rng : int or numpy.random.Generator
        Seed or generator.
    chunk : int
        Resamples at a time.

    Returns
    -------
    numpy.ndarray (..., n_resamples)
        The mean of each resample.

    Examples
    --------
    >>> bootstrap_means([[1.0, 1.0, 1.0]], n_resamples=4).tolist()
    [[1.0, 1.0, 1.0, 1.0]]
    """
    scores = np.asarray(per_query, dtype=float)
    n = scores.shape[-1]
    size = size or n
    out = np.empty(scores.shape[:-1] + (n_resamples,))
    for _, start, stop, counts in _counts_in_chunks(n, (size,), n_resamples, rng, chunk):
        # Summing counts per query avoids materialising (..., chunk, size) samples.
        out[..., start:stop] = scores @ counts.T / size
    return out


#: Resample counts by (n, sizes, n_resamples, chunk, seed), kept for the process: a chapter resamples its
#: queries with one seed for many statistics, and drawing the counts costs more than using them. Stored as
#: small integers (at most this many bytes in all, least recently used dropped).
_COUNTS_MEMO: OrderedDict = OrderedDict()
_COUNTS_MEMO_BYTES = 128 * 2**20
#: The same counts as floats (what the products read), for the keys used last within this many bytes: converting
#: them again for every statistic cost more than the products (issue 38). Callers never write into them.
_FLOAT_MEMO: OrderedDict = OrderedDict()
_FLOAT_MEMO_BYTES = 256 * 2**20


def _counts_in_chunks(n: int, sizes, n_resamples: int, rng, chunk: int):
    """``(i, start, stop, counts)``: for each size ``sizes[i]`` in turn, its resamples' counts (floats) chunk by
    chunk, all drawn from one generator made from ``rng`` in that order (as :func:`bootstrap_means` and
    :func:`bootstrap_deviation_quantile` draw them); with an int seed, the same counts as the first time
    (kept in :data:`_COUNTS_MEMO`)."""
    bounds = [(start, min(start + chunk, n_resamples)) for start in range(0, n_resamples, chunk)]
    if not isinstance(rng, (int, np.integer)) or max(sizes) >= 2**16:
        generator = np.random.default_rng(rng)
        for i, size in enumerate(sizes):
            for start, stop in bounds:
                yield i, start, stop, _bootstrap_counts(n, size, stop - start, generator)
        return
    key = (n, tuple(sizes), n_resamples, chunk, int(rng))
    if key not in _COUNTS_MEMO:
        generator = np.random.default_rng(rng)
        _COUNTS_MEMO[key] = [[_bootstrap_counts(n, size, stop - start, generator).astype(np.uint16)
                              for start, stop in bounds] for size in sizes]
        while (sum(c.nbytes for v in _COUNTS_MEMO.values() for per_size in v for c in per_size) > _COUNTS_MEMO_BYTES
               and len(_COUNTS_MEMO) > 1):
            _COUNTS_MEMO.popitem(last=False)
    _COUNTS_MEMO.move_to_end(key)
    as_float = _float_counts(key)
    for i, per_size in enumerate(as_float if as_float is not None else _COUNTS_MEMO[key]):
        for (start, stop), counts in zip(bounds, per_size):  # too large to keep as floats: converted chunk by chunk
            yield i, start, stop, counts if as_float is not None else counts.astype(float)


def _float_counts(key):
    """The counts of :data:`_COUNTS_MEMO`'s ``key`` as floats, kept in :data:`_FLOAT_MEMO`; None when they alone
    would exceed its budget."""
    if key not in _FLOAT_MEMO:
        if sum(c.size for per_size in _COUNTS_MEMO[key] for c in per_size) * 8 > _FLOAT_MEMO_BYTES:
            return None
        _FLOAT_MEMO[key] = [[counts.astype(float) for counts in per_size] for per_size in _COUNTS_MEMO[key]]
        while sum(c.nbytes for v in _FLOAT_MEMO.values() for per_size in v for c in per_size) > _FLOAT_MEMO_BYTES:
            _FLOAT_MEMO.popitem(last=False)
    _FLOAT_MEMO.move_to_end(key)
    return _FLOAT_MEMO[key]


@validate_params(per_query=ARRAY, sizes=ARRAY, q=Real(0, 1), n_resamples=Int(1), rng=SEED)
def bootstrap_deviation_quantile(per_query, sizes, q: float = 0.95, n_resamples: int = 10_000,
                                 rng=0) -> np.ndarray:
    """FIRE's annotation-budget statistic: the q-quantile of ``|resample mean - full mean|``.

    For each N in ``sizes``: draw ``n_resamples`` samples of N queries with
    replacement, score each by its mean, and return the ``q`` quantile of the absolute
    deviation from the full-sample mean. Shape (..., len(sizes)).

    Parameters
    ----------
    per_query : array_like (..., n_queries)
        Per-query scores.
    sizes : sequence of int
        Sample sizes N.
    q : float
        The quantile.
    n_resamples : int
        Samples per size.
    rng : int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    numpy.ndarray (..., len(sizes))
        The q-quantile of the absolute deviation per size.

    Examples
    --------
    >>> bootstrap_deviation_quantile([[0.5] * 10], sizes=[5], n_resamples=100).tolist()
    [[0.0]]
    """
    scores = np.asarray(per_query, dtype=float)
    full = scores.mean(axis=-1, keepdims=True)
    sizes = [int(n) or scores.shape[-1] for n in np.atleast_1d(sizes)]  # :func:`bootstrap_means`' default size
    means = [np.empty(scores.shape[:-1] + (n_resamples,)) for _ in sizes]
    # one generator for every size in turn, chunks of 1000 resamples: bootstrap_means' draws for each size
    for i, start, stop, counts in _counts_in_chunks(scores.shape[-1], sizes, n_resamples, rng, 1000):
        means[i][..., start:stop] = scores @ counts.T / sizes[i]
    out = [np.quantile(np.abs(m - full), q, axis=-1) for m in means]
    return np.stack(out, axis=-1)


@validate_params(n_items=Int(1), size=Int(1), n_trials=Int(1), rng=SEED)
def disjoint_halves(n_items: int, size: int, n_trials: int, rng=0) -> tuple[np.ndarray, np.ndarray]:
    """Two disjoint random subsets of ``size`` items per trial: two (n_trials, size) index arrays.

    Requires 2 * size <= n_items.

    Parameters
    ----------
    n_items : int
        Items to draw from.
    size : int
        Items per subset.
    n_trials : int
        Pairs of subsets.
    rng : int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    a, b : numpy.ndarray of int (n_trials, size)
        The two subsets of each trial (no item in both).

    Examples
    --------
    >>> a, b = disjoint_halves(10, 5, 3)
    >>> a.shape, any(set(x) & set(y) for x, y in zip(a, b))
    ((3, 5), False)
    """
    if 2 * size > n_items:
        raise ValueError(f"two disjoint subsets of {size} need {2 * size} items, only {n_items} available. "
                         f"Fix: give a size of at most {n_items // 2}")
    rng = np.random.default_rng(rng)
    # One independent permutation per trial, without sorting a random matrix: each row shuffled in turn draws what
    # ``rng.permuted(..., axis=1)`` draws (the same permutations), in half the time with 32-bit indices.
    perm = np.tile(np.arange(n_items, dtype=np.int32 if n_items < 2**31 else np.int64), (n_trials, 1))
    for row in perm:
        rng.shuffle(row)
    return perm[:, :size], perm[:, size:2 * size]


@validate_params(leave_out=ARRAY)
def jackknife_se(leave_out) -> float:
    r"""The jackknife standard error of a statistic from its leave-one-out values
    :math:`\hat\theta_{(1)}, \dots, \hat\theta_{(n)}` (Efron & Tibshirani 1993, §11.2):

    .. math:: \widehat{se}_{jack} = \sqrt{\tfrac{n - 1}{n} \sum_i (\hat\theta_{(i)} - \hat\theta_{(\cdot)})^2}

    A NaN among the values gives NaN (drop the leave-outs without a value first); fewer than two values give NaN.

    Parameters
    ----------
    leave_out : array_like of float, shape (n,)
        The statistic with each unit (query, system) left out in turn.

    Returns
    -------
    float
        The standard error; NaN with fewer than two values.

    Examples
    --------
    >>> round(jackknife_se([0.4, 0.5, 0.6]), 4)   # sqrt(2/3 * 0.02)
    0.1155
    >>> jackknife_se([0.5])
    nan
    """
    v = np.asarray(leave_out, float).ravel()
    if v.size < 2:
        return float("nan")
    return float(np.sqrt((v.size - 1) / v.size * np.sum((v - v.mean()) ** 2)))


@validate_params(estimate=ARRAY)
def tie_tolerance(estimate) -> np.ndarray | float:
    """``TIE_RTOL · max(1, |estimate|)``: how far a replicate may lie from ``estimate`` and still tie with it.

    Parameters
    ----------
    estimate : float or array_like
        The estimate(s).

    Returns
    -------
    float or numpy.ndarray
        The tolerance, elementwise.

    Examples
    --------
    >>> tie_tolerance(0.5), tie_tolerance(-2000.0)
    (1e-09, 2e-06)
    """
    tol = TIE_RTOL * np.maximum(1.0, np.abs(np.asarray(estimate, dtype=float)))
    return float(tol) if tol.ndim == 0 else tol


@validate_params(replicates=ARRAY, estimate=ARRAY)
def share_below(replicates, estimate) -> np.ndarray | float:
    r"""The share of bootstrap replicates below the estimate, a replicate within rounding of it counted half.

    .. math:: \frac{\#\{\theta^*_b < \hat\theta - \varepsilon\} + \tfrac12 \#\{|\theta^*_b - \hat\theta| \le
              \varepsilon\}}{B}, \qquad \varepsilon = 10^{-9} \max(1, |\hat\theta|)

    (:data:`TIE_RTOL`, :func:`tie_tolerance`): BCa's bias correction is :math:`z_0 = \Phi^{-1}` of it. With
    exact comparisons (scipy's), a replicate that equals the estimate mathematically counts as below or above
    depending on its last bit, so z0 followed the summation order, i.e. the machine's BLAS threads.

    Parameters
    ----------
    replicates : array_like (B, ...)
        Bootstrap replicates along the first axis (further axes: one estimate each).
    estimate : float or array_like (...)
        The estimate(s), broadcast against ``replicates[0]``.

    Returns
    -------
    float or numpy.ndarray (...)
        The share in [0, 1]; NaN replicates count as neither (drop them first).

    Examples
    --------
    >>> share_below([0.1, 0.5, 0.5 + 1e-16, 0.9], 0.5)   # 1 below, 2 ties, 1 above
    0.5
    >>> share_below([0.1, 0.5 - 1e-6, 0.9], 0.5)          # 1e-6 is not rounding: below
    0.6666666666666666
    """
    b = np.asarray(replicates, dtype=float)
    theta = np.asarray(estimate, dtype=float)
    tol = tie_tolerance(theta)
    below = np.count_nonzero(b < theta - tol, axis=0) + np.count_nonzero(b <= theta + tol, axis=0)
    share = below / (2 * b.shape[0])
    return float(share) if np.ndim(share) == 0 else share
