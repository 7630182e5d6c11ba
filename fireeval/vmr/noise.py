"""Label noise on temporal boundaries: simulated raters, real raters, and the error it causes.

The AxIoU paper (Togashi et al. 2022, §6.5) asks how far a measure moves when the
ground-truth boundaries are re-drawn by noisy annotators. Its noise model, for a
moment [s, e] and ``n_raters`` independent raters:

* start ~ Normal(s, σ²), σ in **seconds**;
* length ~ ``length="code"``: (e − s) + Exp(1), the reference code's
  ``scipy.stats.expon(loc=e-s)`` (true length plus a unit exponential, so raters
  always over-extend by one second on average); ``length="paper"``: Exp with mean
  e − s, the paper's text (lengths vary as much as they are long);
* the noisy ground truth is [median start, median start + median length].

Everything is vectorised over trials, raters and queries. The same standard
normal and exponential draws are reused for every σ (common random numbers), so the
error curves over σ are smooth and differences between σ are not sampling noise.

Error of a measure (:func:`noise_error`): per system, the mean score on the clean
ground truth minus the mean score on a noisy one; ``error="abs"`` averages
``|difference|`` over the noisy datasets (the reference code: a "root mean squared
error" of a single difference), ``error="rmse"`` takes the root of the mean squared
difference (the paper's wording); then the mean over systems.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fireeval.core.moments import KS, THETAS, measure_names, score_all, temporal_iou
from fireeval.core.validation import (ARRAY, BOOL, COLLECTION, COUNTS, SEED, STR, Array, Instance, Int, Options, Real,
                                      validate_params)

__all__ = ["LENGTH_CONVENTIONS", "simulate_raters", "aggregate_raters", "simulate_annotations", "RankedLists",
           "system_means", "noise_experiment", "noise_error", "pairwise_iou", "simulated_pairwise_iou",
           "match_sigma", "rater_agreement_with_truth", "real_rater_experiment", "MEASURE_FAMILIES", "measure_family",
           "family_means", "compare_with_simulation", "rater_study", "trial_counts", "bootstrap_noise_error",
           "family_gap", "query_bootstrap_noise_error", "ORDERING_PARTS", "fam_has", "majority_gap", "ordering_gaps", "ranking_agreement", "per_query_scores",
           "real_rater_bootstrap", "rater_shift", "sign_change_sigma", "clipped_means", "convention_study", "ranking_table"]

LENGTH_CONVENTIONS = ("code", "paper")
_SIGMAS = Array(0, np.inf)  # start noise levels, seconds (>= 0)
_ERRORS = Options("abs", "rmse")  # the error conventions of noise_error


def _check_gt(gt) -> np.ndarray:
    gt = np.asarray(gt, dtype=float)
    if gt.ndim != 2 or gt.shape[1] != 2:
        raise ValueError(f"ground truth must have shape (n_queries, 2) = [start, end] in seconds, got {gt.shape}")
    bad = np.flatnonzero(~np.isfinite(gt).all(axis=1) | (gt[:, 1] < gt[:, 0]))
    if bad.size:
        raise ValueError(f"ground-truth rows {bad[:5].tolist()} have a missing value or end < start; "
                         "fix or drop those queries before simulating raters")
    return gt


def _draws(n_trials, n_raters, n_queries, rng):
    rng = np.random.default_rng(rng)
    z = rng.standard_normal((n_trials, n_raters, n_queries))
    x = rng.standard_exponential((n_trials, n_raters, n_queries))
    return z, x


@validate_params(gt=ARRAY, sigma=Real(0), n_trials=Int(1), n_raters=Int(1), length=Options(*LENGTH_CONVENTIONS),
                 rng=SEED, draws=[Instance(tuple), None])
def simulate_raters(gt, sigma: float, n_trials: int = 100, n_raters: int = 5, length: str = "code",
                    rng=0, draws=None) -> np.ndarray:
    r"""Individual simulated raters' moments, in seconds.

    .. math:: \hat s \sim \mathcal N(s, \sigma^2), \quad
       \hat\ell \sim (e - s) + \mathrm{Exp}(1) \;(\text{code}) \text{ or } \mathrm{Exp}(\text{mean } e - s) \;(\text{paper})

    Moments are not clipped to the video (the reference code does not clip either).

    Parameters
    ----------
    gt : array_like (n_queries, 2)
        Ground truth [start, end] in seconds (finite, end >= start).
    sigma : float
        Standard deviation of the start, seconds (>= 0).
    n_trials, n_raters : int
        Simulated datasets and raters per dataset.
    length : {"code", "paper"}
        The length convention.
    rng : int or numpy.random.Generator
        Seed of the draws.
    draws : tuple of numpy.ndarray, optional
        (standard normals, unit exponentials), each (n_trials, n_raters, n_queries), to
        reuse the same randomness for several σ.

    Returns
    -------
    numpy.ndarray (n_trials, n_raters, n_queries, 2)
        The raters' moments.

    Raises
    ------
    ValueError
        For malformed ground truth, an unknown convention or a negative σ.

    Examples
    --------
    >>> r = simulate_raters([[10.0, 20.0]], sigma=0.0, n_trials=1, n_raters=2, rng=0)
    >>> r[0, :, 0, 0].tolist(), bool((r[0, :, 0, 1] - r[0, :, 0, 0] >= 10).all())
    ([10.0, 10.0], True)
    """
    gt = _check_gt(gt)
    z, x = draws if draws is not None else _draws(n_trials, n_raters, len(gt), rng)
    start, true_len = gt[:, 0], gt[:, 1] - gt[:, 0]
    starts = start + sigma * z
    lengths = true_len + x if length == "code" else true_len * x
    return np.stack([starts, starts + lengths], axis=-1)


@validate_params(raters=ARRAY, axis=Int())
def aggregate_raters(raters, axis: int = -3) -> np.ndarray:
    r"""Median start and median length over raters: [med start, med start + med length].

    Used for both simulated and real raters, so both are aggregated the same way.

    Parameters
    ----------
    raters : array_like (..., n_raters, n_queries, 2)
        The raters' moments in seconds.
    axis : int
        The rater axis (default: third from last).

    Returns
    -------
    numpy.ndarray (..., n_queries, 2)
        :math:`[\tilde s,\ \tilde s + \tilde\ell]` with :math:`\tilde s` the median start and
        :math:`\tilde\ell` the median length.

    Examples
    --------
    >>> aggregate_raters([[[0, 10]], [[2, 6]], [[4, 20]]]).tolist()
    [[2.0, 12.0]]
    """
    raters = np.asarray(raters, dtype=float)
    start = _median(raters[..., 0], axis + 1 if axis < 0 else axis)
    length = _median(raters[..., 1] - raters[..., 0], axis + 1 if axis < 0 else axis)
    return np.stack([start, start + length], axis=-1)


def _median(x: np.ndarray, axis: int) -> np.ndarray:
    """``np.median(x, axis)``; of an odd number of finite values, the middle one by a partition along the last axis
    (the same number, in a third of the time: the label-noise chapter takes hundreds of them)."""
    n = x.shape[axis]
    if n % 2 == 0 or np.isnan(x).any():
        return np.median(x, axis=axis)
    return np.partition(np.moveaxis(x, axis, -1), n // 2, axis=-1)[..., n // 2]


@validate_params(gt=ARRAY, sigma=Real(0), n_trials=Int(1), n_raters=Int(1), length=Options(*LENGTH_CONVENTIONS),
                 rng=SEED, draws=[Instance(tuple), None], clip_to=[ARRAY, None])
def simulate_annotations(gt, sigma: float, n_trials: int = 100, n_raters: int = 5, length: str = "code",
                         rng=0, draws=None, clip_to=None) -> np.ndarray:
    """Noisy ground truths, one per trial: the medians of ``n_raters`` simulated raters.

    Parameters
    ----------
    gt, sigma, n_trials, n_raters, length, rng, draws
        As in :func:`simulate_raters`.
    clip_to : array_like (n_queries,), optional
        The videos' lengths: each simulated rater's moment is clipped to [0, length], as a
        real rater's always is (the reference code does not clip).

    Returns
    -------
    numpy.ndarray (n_trials, n_queries, 2)
        The aggregated moments (:func:`aggregate_raters`).

    Examples
    --------
    >>> simulate_annotations([[8.0, 10.0]], 0.0, 1, 1, clip_to=[10.0])[0, 0].tolist()
    [8.0, 10.0]
    """
    gt = _check_gt(gt)
    starts, ends = _rater_bounds(gt, sigma, length, draws if draws is not None else _draws(n_trials, n_raters, len(gt), rng))
    if clip_to is not None:
        lengths = np.asarray(clip_to, dtype=float)
        starts, ends = np.clip(starts, 0.0, lengths), np.clip(ends, 0.0, lengths)
    return _aggregated(starts, ends)


def _rater_bounds(gt: np.ndarray, sigma: float, length: str, draws) -> tuple:
    """:func:`simulate_raters`' starts and ends, each (n_trials, n_raters, n_queries), without stacking them."""
    z, x = draws
    start, true_len = gt[:, 0], gt[:, 1] - gt[:, 0]
    starts = start + sigma * z
    return starts, starts + (true_len + x if length == "code" else true_len * x)


def _aggregated(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """:func:`aggregate_raters` of the raters' starts and ends (n_trials, n_raters, n_queries): the same numbers."""
    start = _median(starts, -2)
    return np.stack([start, start + _median(ends - starts, -2)], axis=-1)


@validate_params(predictions=ARRAY, gts=ARRAY, ks=COUNTS, thetas=Array(0, 1), strict=BOOL, chunk=Int(1),
                 query_weights=[ARRAY, None])
def system_means(predictions, gts, ks=KS, thetas=THETAS, strict: bool = False, chunk: int = 2,
                 query_weights=None):
    """Mean score of every system on every ground truth.

    Per-query scores (:class:`RankedLists`: rank by rank, vectorised over systems and
    queries) are computed for ``chunk`` ground truths at a time; larger chunks only leave
    the CPU cache (25 trials at once took 3.7x as long as 1 or 2 on Charades-STA;
    bench_label_noise). With ``query_weights`` they go through one float32 product with
    the weights every 20 ground truths, whatever ``chunk`` is.

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists in seconds, NaN-padded.
    gts : array_like (n_queries, 2) or (n_gts, n_queries, 2)
        One or several ground truths.
    ks, thetas : sequence
        The measures' cut-offs K and IoU thresholds θ.
    strict : bool
        IoU > θ instead of ≥ θ.
    chunk : int
        Ground truths scored at once (speed only).
    query_weights : array_like (n_boot, n_queries), optional
        Rows summing to 1 (e.g. bootstrap counts / n_queries): also return the weighted
        means on every resample of the queries, one matrix product per chunk.

    Returns
    -------
    numpy.ndarray (..., n_systems, n_measures) or tuple
        Measures in :func:`fireeval.core.moments.measure_names` order; with
        ``query_weights``, ``(means, resampled)`` with resampled (..., n_boot, n_systems,
        n_measures) in float32.

    Raises
    ------
    ValueError
        When the shapes of predictions, ground truth or weights disagree.

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> system_means(preds, gt, ks=(1,), thetas=(0.5,)).round(3).tolist()  # R@1,0.5 and AxIoU@1
    [[1.0, 0.817], [0.5, 0.483]]
    """
    preds = np.asarray(predictions, dtype=float)
    gts = np.asarray(gts, dtype=float)
    if preds.ndim != 4 or preds.shape[-1] != 2:
        raise ValueError(f"predictions must have shape (n_systems, n_queries, K, 2), got {preds.shape}")
    if gts.shape[-2:] != (preds.shape[1], 2):
        raise ValueError(f"ground truth shape {gts.shape} does not match {preds.shape[1]} queries of the predictions")
    single = gts.ndim == 2
    gts = gts[None] if single else gts
    lists = RankedLists(preds, ks, thetas, strict)
    out = np.empty((len(gts), len(preds), lists.n_measures))
    w = None if query_weights is None else np.asarray(query_weights, dtype=np.float32)
    if w is not None:
        if w.ndim != 2 or w.shape[1] != preds.shape[1]:
            raise ValueError(f"query_weights must have shape (n_boot, {preds.shape[1]}), got {w.shape}")
        resampled = np.empty((len(gts), len(w), len(preds), lists.n_measures), dtype=np.float32)
    # per-query scores in float32 wait for one large product with the query weights, _FLUSH ground truths at a time
    pending = None if w is None else np.empty((min(_FLUSH, len(gts)),) + lists.score_shape, dtype=np.float32)
    group = _FLUSH if w is not None else len(gts)
    for lo in range(0, len(gts), group):
        hi = min(lo + group, len(gts))
        for a in range(lo, hi, chunk):  # chunks of ground truths, each step vectorised over systems and queries
            b = min(a + chunk, hi)
            scores = lists.scores(gts[a:b])  # (b - a, S, M, Q)
            out[a:b] = scores.mean(axis=-1)
            if w is not None:
                pending[a - lo:b - lo] = scores
        if w is not None:
            n = hi - lo
            flat = w @ pending[:n].reshape(-1, pending.shape[-1]).T  # (B, n·S·M): one BLAS call; a batched @ is 25x slower
            resampled[lo:hi] = np.moveaxis(flat.reshape(len(w), n, len(preds), lists.n_measures), 0, 1)
    if w is None:
        return out[0] if single else out
    return (out[0], resampled[0]) if single else (out, resampled)


# The experiment's own repeated calls, without checking again what the calling function's declaration checked
# (issue 38); a user's call of the public name is still checked.
_simulate_raters = simulate_raters.__wrapped__
_aggregate_raters = aggregate_raters.__wrapped__
_simulate_annotations = simulate_annotations.__wrapped__
_system_means = system_means.__wrapped__

#: Ground truths whose per-query scores go through one product with the query weights (:func:`system_means`).
_FLUSH = 20


class RankedLists:
    """Systems' ranked lists prepared for scoring against many ground truths: per-query scores of every measure.

    The same numbers as :func:`fireeval.core.moments.score_all` of :func:`fireeval.core.moments.temporal_iou`
    (element by element: the same operations in the same order), computed rank by rank on (ground truths,
    systems, queries) slices with the queries contiguous, without the (..., K) IoU array, its running
    maximum and cumulative sum along the short rank axis, or the checks of each call.

    Parameters
    ----------
    predictions : numpy.ndarray (n_systems, n_queries, K, 2)
        Ranked lists in seconds, NaN-padded.
    ks, thetas, strict
        The measures, as in :func:`system_means`.

    Examples
    --------
    >>> preds = np.array([[[[0.0, 4.0], [0.0, 5.0]], [[9.0, 21.0], [np.nan, np.nan]]]])  # 1 system, 2 queries, K = 2
    >>> RankedLists(preds, ks=(1, 2), thetas=(0.9,)).scores(np.array([[[0.0, 5.0], [10.0, 20.0]]]))[0, 0].round(3).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.8, 0.833], [0.9, 0.833]]
    """

    def __init__(self, predictions, ks=KS, thetas=THETAS, strict: bool = False):
        preds = np.asarray(predictions, dtype=float)
        self.ks = [int(k) for k in ks]
        self.thetas = [float(t) for t in thetas]
        self.strict = bool(strict)
        names = measure_names(ks, thetas)
        self.n_measures = len(names)
        width = preds.shape[-2]
        self.kmax = min(max(self.ks), width) if self.ks else 0
        # rank-major starts and ends: (K, S, Q), each rank's slice contiguous
        self.starts = np.ascontiguousarray(np.moveaxis(preds[..., :self.kmax, 0], -1, 0))
        self.ends = np.ascontiguousarray(np.moveaxis(preds[..., :self.kmax, 1], -1, 0))
        self.score_shape = (len(preds), self.n_measures, preds.shape[1])
        self.width = width
        self._names = names

    def scores(self, gts) -> np.ndarray:
        """Per-query scores (n_gts, n_systems, n_measures, n_queries), float64, of ground truths (n_gts, Q, 2)."""
        gts = np.asarray(gts, dtype=float)
        n, (s, m, q) = len(gts), self.score_shape
        out = np.empty((n, s, m, q))
        gs, ge = np.ascontiguousarray(gts[..., 0])[:, None], np.ascontiguousarray(gts[..., 1])[:, None]  # (n, 1, Q)
        ends_at = {}  # rank index j -> (best, total) at j
        want = {min(k, self.width) - 1 for k in self.ks}
        inter, union, iou, best, total = (np.empty((n, s, q)) for _ in range(5))
        positive = np.empty((n, s, q), dtype=bool)
        for j in range(self.kmax):  # temporal_iou's operations, into buffers
            np.minimum(self.ends[j], ge, out=inter)
            inter -= np.maximum(self.starts[j], gs, out=iou)
            np.maximum(inter, 0.0, out=inter)
            np.maximum(self.ends[j], ge, out=union)
            union -= np.minimum(self.starts[j], gs, out=iou)
            np.greater(union, 0, out=positive)
            iou.fill(0.0)
            with np.errstate(invalid="ignore"):
                np.divide(inter, union, out=iou, where=positive)
            if j == 0:  # score_all's running maximum and its cumulative sum over ranks
                best[...] = iou
                total[...] = iou
            else:
                np.maximum(best, iou, out=best)
                total += best
            if j in want:
                ends_at[j] = best.copy(), total.copy()
        i = 0
        for k in self.ks:
            j = min(k, self.width) - 1
            at_k = ends_at[j][0] if j >= 0 else np.zeros((n, s, q))
            for t in self.thetas:
                out[:, :, i] = at_k > t if self.strict else at_k >= t
                i += 1
        for k in self.ks:
            j = min(k, self.width) - 1
            if j < 0:
                out[:, :, i] = 0.0
            else:
                b, tot = ends_at[j]
                out[:, :, i] = (tot + (k - 1 - j) * b) / k
            i += 1
        return out


@validate_params(predictions=ARRAY, gt=ARRAY, sigmas=_SIGMAS, n_trials=Int(1), n_raters=Int(1),
                 length=Options(*LENGTH_CONVENTIONS), seed=SEED, ks=COUNTS, thetas=Array(0, 1), strict=BOOL,
                 query_weights=[ARRAY, None], clip_to=[ARRAY, None])
def noise_experiment(predictions, gt, sigmas=(1, 2, 3, 4), n_trials: int = 100, n_raters: int = 5,
                     length: str = "code", seed=0, ks=KS, thetas=THETAS, strict: bool = False, query_weights=None,
                     clip_to=None):
    """Clean and noisy mean scores for every σ.

    One set of random draws serves every σ (common random numbers).

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists in seconds.
    gt : array_like (n_queries, 2)
        The clean ground truth.
    sigmas : sequence of float
        Start noise levels, seconds.
    n_trials, n_raters, length
        As in :func:`simulate_raters`.
    seed : int
        Seed of the draws.
    ks, thetas, strict
        The measures, as in :func:`system_means`.
    query_weights : array_like (n_boot, n_queries), optional
        Query resamples (see :func:`system_means`).
    clip_to : array_like (n_queries,), optional
        Video lengths to clip the simulated raters to.

    Returns
    -------
    tuple
        ``(clean, noisy)``: clean (n_systems, n_measures) and noisy (n_sigmas, n_trials,
        n_systems, n_measures); with ``query_weights`` ``(clean, noisy, clean_resampled,
        noisy_resampled)``: (n_boot, n_systems, n_measures) and (n_sigmas, n_trials,
        n_boot, n_systems, n_measures).

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> clean, noisy = noise_experiment(preds, gt, [1.0, 2.0], n_trials=3, ks=(1,), thetas=(0.5,))
    >>> clean.shape, noisy.shape
    ((2, 2), (2, 3, 2, 2))
    """
    gt = _check_gt(gt)
    return _experiment(predictions, gt, sigmas, n_trials, n_raters, length, seed, ks, thetas, strict, query_weights,
                       clip_to)


def _experiment(predictions, gt, sigmas, n_trials, n_raters, length, seed, ks, thetas, strict, query_weights, clip_to,
                draws=None, clean=None):
    """:func:`noise_experiment` on checked arguments; ``draws`` (of ``seed``) and ``clean`` (its clean means, with
    their resamples when ``query_weights``) when the caller already has them: the same numbers, computed once."""
    draws = _draws(n_trials, n_raters, len(gt), seed) if draws is None else draws
    if query_weights is None:
        clean = _system_means(predictions, gt, ks, thetas, strict) if clean is None else clean
        noisy = np.stack([_system_means(predictions, _simulate_annotations(gt, s, n_trials, n_raters, length,
                                                                           draws=draws, clip_to=clip_to), ks, thetas,
                                        strict) for s in sigmas])
        return clean, noisy
    if clean is None:
        clean = _system_means(predictions, gt, ks, thetas, strict, query_weights=query_weights)
    runs = [_system_means(predictions, _simulate_annotations(gt, s, n_trials, n_raters, length, draws=draws,
                                                             clip_to=clip_to),
                          ks, thetas, strict, query_weights=query_weights) for s in sigmas]
    return clean[0], np.stack([r[0] for r in runs]), clean[1], np.stack([r[1] for r in runs])


@validate_params(clean=ARRAY, noisy=ARRAY, error=_ERRORS, by_system=BOOL)
def noise_error(clean, noisy, error: str = "abs", by_system: bool = False) -> np.ndarray:
    r"""Error of each measure under label noise, averaged over systems.

    With :math:`c_s` the clean and :math:`n_{t,s}` the noisy mean of system s in trial t:
    ``error="abs"`` (reference code) is :math:`\frac1S\sum_s \frac1T\sum_t |c_s - n_{t,s}|`,
    ``"rmse"`` (paper text) is :math:`\frac1S\sum_s \sqrt{\frac1T\sum_t (c_s - n_{t,s})^2}`.

    Parameters
    ----------
    clean : array_like (n_systems, n_measures)
        Clean mean scores.
    noisy : array_like (..., n_trials, n_systems, n_measures)
        Noisy mean scores.
    error : {"abs", "rmse"}
        The error convention.
    by_system : bool
        Keep the systems axis instead of averaging it.

    Returns
    -------
    numpy.ndarray (..., n_measures) or (..., n_systems, n_measures)
        The error per measure.

    Raises
    ------
    ValueError
        For an unknown ``error``.

    Examples
    --------
    >>> noise_error([[0.5]], [[[0.4]], [[0.7]]]).round(3).tolist()
    [0.15]
    >>> noise_error([[0.5]], [[[0.4]], [[0.7]]], error="rmse").round(4).tolist()
    [0.1581]
    """
    diff = np.asarray(noisy, dtype=float) - np.asarray(clean, dtype=float)
    if error == "abs":
        per_system = np.abs(diff).mean(axis=-3)
    elif error == "rmse":
        per_system = np.sqrt((diff ** 2).mean(axis=-3))
    else:
        raise ValueError(f"error must be 'abs' (reference code) or 'rmse' (paper text), got {error!r}")
    return per_system if by_system else per_system.mean(axis=-2)


@validate_params(raters=ARRAY)
def pairwise_iou(raters) -> np.ndarray:
    r"""Mean temporal IoU over all pairs of raters, per query.

    .. math:: \frac{2}{R(R-1)} \sum_{i<j} \mathrm{IoU}(r_i, r_j)

    Parameters
    ----------
    raters : array_like (..., n_raters, n_queries, 2)
        The raters' moments (at least two raters).

    Returns
    -------
    numpy.ndarray (..., n_queries)
        The mean pairwise IoU.

    Raises
    ------
    ValueError
        With fewer than two raters.

    Examples
    --------
    >>> pairwise_iou([[[0, 10]], [[5, 10]], [[0, 10]]]).round(4).tolist()  # pairs: .5, 1, .5
    [0.6667]
    """
    r = np.asarray(raters, dtype=float)
    n = r.shape[-3]
    if n < 2:
        raise ValueError("pairwise IoU needs at least two raters")
    i, j = np.triu_indices(n, k=1)
    a = np.moveaxis(r[..., i, :, :], -3, -2)  # (..., queries, pairs, 2)
    b = np.moveaxis(r[..., j, :, :], -3, -2)
    # temporal_iou compares K predictions with one ground truth: pair p of a vs pair p of b.
    inter = np.minimum(a[..., 1], b[..., 1]) - np.maximum(a[..., 0], b[..., 0])
    union = np.maximum(a[..., 1], b[..., 1]) - np.minimum(a[..., 0], b[..., 0])
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where(union > 0, np.clip(inter, 0, None) / union, 0.0)
    return np.nan_to_num(iou).mean(axis=-1)


@validate_params(gt=ARRAY, raters=ARRAY)
def rater_agreement_with_truth(gt, raters) -> np.ndarray:
    r"""Mean IoU between each rater's moment and the original ground truth, per query.

    Parameters
    ----------
    gt : array_like (n_queries, 2)
        The original annotation.
    raters : array_like (..., n_raters, n_queries, 2)
        The raters' moments.

    Returns
    -------
    numpy.ndarray (..., n_queries)
        :math:`\frac1R \sum_r \mathrm{IoU}(r, g)`.

    Examples
    --------
    >>> rater_agreement_with_truth([[0.0, 10.0]], [[[0.0, 10.0]], [[5.0, 10.0]]]).tolist()
    [0.75]
    """
    raters = np.asarray(raters, dtype=float)
    iou = temporal_iou(np.moveaxis(raters, -3, -2), np.asarray(gt, dtype=float))  # (..., queries, raters)
    return iou.mean(axis=-1)


@validate_params(gt=ARRAY, sigmas=_SIGMAS, n_trials=Int(1), n_raters=Int(2), length=Options(*LENGTH_CONVENTIONS),
                 seed=SEED)
def simulated_pairwise_iou(gt, sigmas, n_trials: int = 20, n_raters: int = 5, length: str = "code",
                           seed=0) -> np.ndarray:
    """Mean pairwise IoU of simulated raters for each σ, averaged over trials and queries.

    Parameters
    ----------
    gt : array_like (n_queries, 2)
        Ground truth in seconds.
    sigmas : sequence of float
        Start noise levels.
    n_trials, n_raters, length
        As in :func:`simulate_raters` (the same draws for every σ).
    seed : int
        Seed of the draws.

    Returns
    -------
    numpy.ndarray (n_sigmas,)
        :func:`pairwise_iou` averaged over trials and queries.

    Examples
    --------
    >>> curve = simulated_pairwise_iou([[0.0, 10.0], [5.0, 30.0]], [0.0, 2.0, 8.0], n_trials=5)
    >>> bool(curve[0] > curve[1] > curve[2])
    True
    """
    gt = _check_gt(gt)
    draws = _draws(n_trials, n_raters, len(gt), seed)
    return np.array([pairwise_iou(simulate_raters(gt, s, n_trials, n_raters, length, draws=draws)).mean()
                     for s in sigmas])


@validate_params(gt=ARRAY, real_raters=ARRAY, sigma_grid=[_SIGMAS, None], n_trials=Int(1),
                 length=Options(*LENGTH_CONVENTIONS), seed=SEED)
def match_sigma(gt, real_raters, sigma_grid=None, n_trials: int = 20, length: str = "code", seed=0) -> dict:
    """The σ whose simulated raters agree with each other as much as the real raters do.

    Agreement is the mean pairwise IoU among raters (over pairs, then queries).
    Pairwise IoU falls as σ grows, so the matching σ is read off the simulated curve
    by linear interpolation; it is NaN (with ``in_range=False``) when the real
    agreement lies outside the curve on ``sigma_grid`` -- e.g. when the length noise
    alone already makes simulated raters agree less than real ones.

    Parameters
    ----------
    gt : array_like (n_queries, 2)
        The original annotation of the re-annotated queries.
    real_raters : array_like (n_raters, n_queries, 2)
        The real raters' moments.
    sigma_grid : array_like, optional
        σ values simulated (default 0, 0.25, ..., 12 s).
    n_trials : int
        Simulated datasets per σ.
    length : {"code", "paper"}
        The length convention.
    seed : int
        Seed of the draws.

    Returns
    -------
    dict
        ``{sigma, real, curve: (sigma_grid, simulated agreement), in_range}``.

    Raises
    ------
    ValueError
        When the raters are not (n_raters, n_queries, 2).

    Examples
    --------
    >>> real = np.array([[[0.0, 11.0]], [[2.0, 12.0]], [[1.0, 12.0]]])
    >>> m = match_sigma([[1.0, 11.0]], real, sigma_grid=[0.0, 1.0, 2.0, 4.0], n_trials=10)
    >>> round(m["real"], 3), m["in_range"], round(m["sigma"], 2)
    (0.831, True, 1.2)
    """
    real_raters = np.asarray(real_raters, dtype=float)
    if real_raters.ndim != 3 or real_raters.shape[-1] != 2 or real_raters.shape[1] != len(gt):
        raise ValueError(f"real raters must have shape (n_raters, n_queries={len(gt)}, 2), got {real_raters.shape}")
    grid = np.asarray(sigma_grid if sigma_grid is not None else np.arange(0, 12.01, 0.25), dtype=float)
    real = float(pairwise_iou(real_raters).mean())
    curve = simulated_pairwise_iou(gt, grid, n_trials, real_raters.shape[0], length, seed)
    # np.interp needs increasing x: the curve decreases in σ.
    in_range = bool(curve.min() <= real <= curve.max())
    sigma = float(np.interp(real, curve[::-1], grid[::-1])) if in_range else float("nan")
    return {"sigma": sigma, "real": real, "curve": (grid, curve), "in_range": in_range}


@validate_params(predictions=ARRAY, gt=ARRAY, raters=ARRAY, ks=COUNTS, thetas=Array(0, 1), strict=BOOL, error=_ERRORS)
def real_rater_experiment(predictions, gt, raters, ks=KS, thetas=THETAS, strict: bool = False,
                          error: str = "abs") -> dict:
    """Score the systems against real raters' boundaries, one rater at a time and their median.

    The median ground truth is built exactly like the simulated one
    (:func:`aggregate_raters`), so ``error_median`` is the real-data counterpart of one
    simulated noisy dataset.

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists of the re-annotated queries.
    gt : array_like (n_queries, 2)
        Their original annotation.
    raters : array_like (n_raters, n_queries, 2)
        The raters' moments, aligned to ``gt``.
    ks, thetas, strict
        The measures, as in :func:`system_means`.
    error : {"abs", "rmse"}
        As in :func:`noise_error`.

    Returns
    -------
    dict
        ``clean`` (n_systems, n_measures), ``per_rater`` (n_raters, n_systems, n_measures),
        ``median`` (n_systems, n_measures) mean scores, and the errors per measure
        ``error_median`` and ``error_per_rater`` (averaged over raters, then systems).

    Raises
    ------
    ValueError
        When the raters are not (n_raters, n_queries, 2).

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> raters = np.array([gt, gt + 1.0, gt + 2.0])
    >>> out = real_rater_experiment(preds, gt, raters, ks=(1,), thetas=(0.5,))
    >>> out["per_rater"].shape, out["error_median"].round(3).tolist()
    ((3, 2, 2), [0.0, 0.158])
    """
    raters = np.asarray(raters, dtype=float)
    if raters.ndim != 3 or raters.shape[1:] != (len(gt), 2):
        raise ValueError(f"raters must have shape (n_raters, n_queries={len(gt)}, 2), got {raters.shape}")
    clean = system_means(predictions, gt, ks, thetas, strict)
    per_rater = system_means(predictions, raters, ks, thetas, strict)
    median = system_means(predictions, aggregate_raters(raters), ks, thetas, strict)
    return {"clean": clean, "per_rater": per_rater, "median": median,
            "error_median": noise_error(clean, median[None], error),
            "error_per_rater": noise_error(clean, per_rater, error)}


MEASURE_FAMILIES = ("R@K,0.3", "R@K,0.5", "R@K,0.7", "AxIoU@K")


@validate_params(measure=STR)
def measure_family(measure: str) -> str:
    """The family a measure belongs to across cut-offs: ``R@K,θ`` (per θ) or ``AxIoU@K``.

    Parameters
    ----------
    measure : str
        A measure name such as ``R@5,0.7`` or ``AxIoU@10``.

    Returns
    -------
    str
        Its family name.

    Examples
    --------
    >>> measure_family("R@5,0.7"), measure_family("AxIoU@10")
    ('R@K,0.7', 'AxIoU@K')
    """
    return "AxIoU@K" if measure.startswith("AxIoU") else f"R@K,{measure.split(',')[1]}"


@validate_params(values=ARRAY, measures=[COLLECTION, None], families=COLLECTION)
def family_means(values, measures=None, families=MEASURE_FAMILIES) -> dict:
    """Mean of ``values`` over each family's measures (the last axis).

    Every family is averaged over its cut-offs K.

    Parameters
    ----------
    values : array_like (..., n_measures)
        Values per measure, e.g. :func:`noise_error`'s (n_sigmas, n_measures).
    measures : sequence of str, optional
        The measures of the last axis (default :func:`fireeval.core.moments.measure_names`).
    families : sequence of str
        The families to average (:func:`measure_family` names).

    Returns
    -------
    dict of str to float or numpy.ndarray (...)
        ``{family: mean over its measures}``.

    Examples
    --------
    >>> family_means([0.1, 0.3, 0.2, 0.4], ["R@1,0.3", "R@5,0.3", "AxIoU@1", "AxIoU@5"], ["R@K,0.3", "AxIoU@K"])
    {'R@K,0.3': 0.2, 'AxIoU@K': 0.30000000000000004}
    """
    measures = list(measures or measure_names())
    v = np.asarray(values, dtype=float)
    out, family_of = {}, measure_family.__wrapped__  # (per measure and family: without the declared check)
    for f in families:
        # A mean of the stacked columns (not v[..., idx].mean(-1)) keeps the summation order of earlier releases.
        mean = np.mean([v[..., measures.index(m)] for m in measures if family_of(m) == f], axis=0)
        out[f] = float(mean) if np.ndim(mean) == 0 else mean
    return out


@validate_params(predictions=ARRAY, gt=ARRAY, raters=ARRAY, sigma=Real(0), n_trials=Int(1), n_raters=Int(1),
                 length=Options(*LENGTH_CONVENTIONS), seed=SEED, ks=COUNTS, thetas=Array(0, 1), strict=BOOL,
                 error=_ERRORS, agreement_trials=Int(1))
def compare_with_simulation(predictions, gt, raters, sigma: float, n_trials: int = 100, n_raters: int = 5,
                            length: str = "code", seed=0, ks=KS, thetas=THETAS, strict: bool = False,
                            error: str = "abs", agreement_trials: int = 20) -> dict:
    """Real-rater error next to the simulated error at one σ, on the same queries.

    Runs :func:`real_rater_experiment` and :func:`noise_experiment` at ``sigma`` (same
    seed), and simulates ``agreement_trials`` sets of raters at ``sigma`` (``rng=seed``)
    for their agreement.

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists restricted to the re-annotated queries.
    gt : array_like (n_queries, 2)
        Their original annotation.
    raters : array_like (n_raters, n_queries, 2)
        The real raters' moments.
    sigma : float
        The simulated start noise, seconds.
    n_trials, n_raters, length, seed, ks, thetas, strict
        As in :func:`noise_experiment`.
    error : {"abs", "rmse"}
        As in :func:`noise_error`.
    agreement_trials : int
        Simulated rater sets for the agreement statistics.

    Returns
    -------
    dict
        ``real`` (the real-rater dict), ``simulated_error`` (n_measures,), ``tau`` (Kendall
        τ-b between the real median-rater and simulated errors per measure), ``ratio`` (mean
        over measures of real / simulated error, simulated floored at 1e-12),
        ``sim_pairwise`` and ``sim_vs_truth`` (simulated raters' mean pairwise IoU and mean
        IoU with ``gt``).

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> raters = np.array([gt, gt + 1.0, gt + 2.0])
    >>> out = compare_with_simulation(preds, gt, raters, 1.0, n_trials=5, ks=(1,), thetas=(0.5,), agreement_trials=5)
    >>> out["simulated_error"].shape, sorted(out)
    ((2,), ['ratio', 'real', 'sim_pairwise', 'sim_vs_truth', 'simulated_error', 'tau'])
    """
    from fireeval.stats.agreement import kendall_tau

    real = real_rater_experiment(predictions, gt, raters, ks, thetas, strict=strict, error=error)
    clean, noisy = noise_experiment(predictions, gt, [sigma], n_trials, n_raters, length, seed, ks, thetas,
                                    strict=strict)
    sim_error = noise_error(clean, noisy, error)[0]
    sim_raters = simulate_raters(gt, sigma, agreement_trials, n_raters, length, rng=seed)
    return {"real": real, "simulated_error": sim_error, "tau": kendall_tau(real["error_median"], sim_error),
            "ratio": float(np.mean(real["error_median"] / np.maximum(sim_error, 1e-12))),
            "sim_pairwise": float(pairwise_iou(sim_raters).mean()),
            "sim_vs_truth": float(rater_agreement_with_truth(gt, sim_raters).mean())}


@validate_params(predictions=ARRAY, gt=ARRAY, rater_queries=ARRAY, raters=ARRAY, sigmas=_SIGMAS, n_trials=Int(1),
                 n_raters=Int(1), length=Options(*LENGTH_CONVENTIONS), seed=SEED, strict=BOOL, error=_ERRORS,
                 sigma_grid=[_SIGMAS, None], match_trials=Int(1))
def rater_study(predictions, gt, rater_queries, raters, sigmas=(1, 2, 3, 4), n_trials: int = 100,
                n_raters: int = 5, length: str = "code", seed=0, strict: bool = False, error: str = "abs",
                sigma_grid=None, match_trials: int = 20) -> dict:
    """The whole label-noise protocol on one dataset: simulated noise, real raters, and the two compared.

    1. :func:`noise_experiment` and :func:`noise_error` over ``sigmas`` on all queries;
    2. :func:`match_sigma` of the real ``raters`` on the queries ``rater_queries``, with
       ``match_trials`` trials on ``sigma_grid``;
    3. :func:`compare_with_simulation` on those queries at the matching σ, or at the
       largest of ``sigmas`` when no σ on the grid matches (``sim_sigma``).

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists of every query.
    gt : array_like (n_queries, 2)
        The original annotation.
    rater_queries : array_like of int (n_rated,)
        Indices into ``gt`` of the re-annotated queries.
    raters : array_like (n_raters, n_rated, 2)
        The real raters' moments.
    sigmas, n_trials, n_raters, length, seed, strict
        As in :func:`noise_experiment` (the 12 default measures).
    error : {"abs", "rmse"}
        As in :func:`noise_error`.
    sigma_grid : array_like, optional
        As in :func:`match_sigma`.
    match_trials : int
        Simulated datasets per σ in :func:`match_sigma`.

    Returns
    -------
    dict
        ``{clean, noisy, error`` (n_sigmas, n_measures), ``match, sim_sigma, vs_truth``
        (real raters' mean IoU with the original annotation), ``comparison}``.

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> raters = np.array([gt[[1]], gt[[1]] + 1.0, gt[[1]] + 2.0])
    >>> out = rater_study(preds, gt, [1], raters, sigmas=(1, 2), n_trials=3, match_trials=3)
    >>> out["error"].shape, round(out["vs_truth"], 3)
    ((2, 12), 0.828)
    """
    gt = np.asarray(gt, dtype=float)
    clean, noisy = noise_experiment(predictions, gt, sigmas, n_trials, n_raters, length, seed, strict=strict)
    gt_rated = gt[rater_queries]
    match = match_sigma(gt_rated, raters, sigma_grid=sigma_grid, n_trials=match_trials, length=length, seed=seed)
    sim_sigma = match["sigma"] if match["in_range"] else sigmas[-1]
    comparison = compare_with_simulation(np.asarray(predictions)[:, rater_queries], gt_rated, raters, sim_sigma,
                                         n_trials, n_raters, length, seed, strict=strict, error=error)
    return {"clean": clean, "noisy": noisy, "error": noise_error(clean, noisy, error), "match": match,
            "sim_sigma": sim_sigma, "vs_truth": float(rater_agreement_with_truth(gt_rated, raters).mean()),
            "comparison": comparison}


# --- Uncertainty, rankings and the real raters' shift (issue: verdicts, not narratives) -------------------------


@validate_params(n_items=Int(1), n_boot=Int(1), seed=SEED)
def trial_counts(n_items: int, n_boot: int = 1000, seed=0) -> np.ndarray:
    """Bootstrap weights: counts of each item in a resample with replacement.

    A statistic that is a mean over items is then ``values @ counts.T / n_items`` for
    every resample at once. Used for the Monte-Carlo trials of the noise experiment
    and for the re-annotated queries.

    Parameters
    ----------
    n_items : int
        Items (trials or queries).
    n_boot : int
        Resamples.
    seed : int
        Seed of the resamples.

    Returns
    -------
    numpy.ndarray (n_boot, n_items)
        Counts; each row sums to ``n_items``.

    Examples
    --------
    >>> trial_counts(5, 3, seed=0).sum(axis=1).tolist()
    [5.0, 5.0, 5.0]
    """
    from fireeval.stats.resampling import bootstrap_counts

    return bootstrap_counts(n_items, n_items, n_boot, seed)


@validate_params(clean=ARRAY, noisy=ARRAY, error=_ERRORS, n_boot=Int(1), seed=SEED)
def bootstrap_noise_error(clean, noisy, error: str = "abs", n_boot: int = 1000, seed=0) -> np.ndarray:
    """:func:`noise_error` on ``n_boot`` resamples of the Monte-Carlo trials.

    The same trials are resampled for every σ, measure and system (paired: the
    experiment uses common random numbers), so differences between measures and the
    minimum over σ keep their correlation. The percentile interval of these samples is
    the Monte-Carlo interval of the error: how much the finite number of noisy datasets
    could move it.

    Parameters
    ----------
    clean : array_like (n_systems, n_measures)
        Clean mean scores.
    noisy : array_like (n_sigmas, n_trials, n_systems, n_measures)
        Noisy mean scores.
    error : {"abs", "rmse"}
        As in :func:`noise_error`.
    n_boot : int
        Resamples of the trials.
    seed : int
        Seed of the resamples.

    Returns
    -------
    numpy.ndarray (n_boot, ..., n_measures)
        The error on each resample.

    Raises
    ------
    ValueError
        For an unknown ``error``.

    Examples
    --------
    >>> b = bootstrap_noise_error([[0.5]], [[[[0.4]], [[0.7]]]], n_boot=4)
    >>> b.shape, sorted(set(b.ravel().round(3).tolist())) <= [0.1, 0.15, 0.2]
    ((4, 1, 1), True)
    """
    diff = np.asarray(noisy, dtype=float) - np.asarray(clean, dtype=float)
    n_trials = diff.shape[-3]
    w = trial_counts(n_trials, n_boot, seed) / n_trials  # (B, T)
    if error == "abs":
        per_system = np.einsum("bt,...tsm->b...sm", w, np.abs(diff))
    elif error == "rmse":
        per_system = np.sqrt(np.einsum("bt,...tsm->b...sm", w, diff ** 2))
    else:
        raise ValueError(f"error must be 'abs' (reference code) or 'rmse' (paper text), got {error!r}")
    return per_system.mean(axis=-2)


@validate_params(clean_resampled=ARRAY, noisy_resampled=ARRAY, error=_ERRORS, seed=SEED)
def query_bootstrap_noise_error(clean_resampled, noisy_resampled, error: str = "abs", seed=0) -> np.ndarray:
    """:func:`noise_error` with the queries and the Monte-Carlo trials resampled jointly.

    Resample b takes query resample b for the clean and every noisy ground truth
    (paired) and its own resample of the trials (:func:`trial_counts`, the same for
    every σ), so the interval covers both the sampling of the test queries and the
    finite number of noisy datasets. The paper's claim is about the measures on the
    dataset: its uncertainty is mostly over queries, which the trial-only
    :func:`bootstrap_noise_error` holds fixed.

    Parameters
    ----------
    clean_resampled : array_like (n_boot, n_systems, n_measures)
        The systems' clean means on bootstrap resamples of the queries
        (:func:`noise_experiment` with ``query_weights``).
    noisy_resampled : array_like (..., n_trials, n_boot, n_systems, n_measures)
        The noisy means on the same resamples.
    error : {"abs", "rmse"}
        As in :func:`noise_error`.
    seed : int
        Seed of the trial resamples.

    Returns
    -------
    numpy.ndarray (n_boot, ..., n_measures)
        The error on each joint resample.

    Raises
    ------
    ValueError
        For an unknown ``error``.

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> w = trial_counts(2, 4, seed=1) / 2
    >>> clean, noisy, clean_b, noisy_b = noise_experiment(preds, gt, [1.0, 2.0], n_trials=3, ks=(1,), thetas=(0.5,),
    ...                                                   query_weights=w)
    >>> query_bootstrap_noise_error(clean_b, noisy_b).shape
    (4, 2, 2)
    """
    diff = np.asarray(noisy_resampled, dtype=np.float32) - np.asarray(clean_resampled, dtype=np.float32)
    n_trials, n_boot = diff.shape[-4], diff.shape[-3]
    w = (trial_counts(n_trials, n_boot, seed) / n_trials).astype(np.float32)  # (B, T)
    if error == "abs":
        per_system = np.einsum("bt,...tbsm->b...sm", w, np.abs(diff))
    elif error == "rmse":
        per_system = np.sqrt(np.einsum("bt,...tbsm->b...sm", w, diff ** 2))
    else:
        raise ValueError(f"error must be 'abs' (reference code) or 'rmse' (paper text), got {error!r}")
    return per_system.mean(axis=-2).astype(float)


@validate_params(values=ARRAY, high=STR, low=STR, measures=[COLLECTION, None])
def family_gap(values, high: str, low: str, measures=None) -> np.ndarray:
    r"""The difference of two families' means, e.g. R@K,0.7's error minus AxIoU@K's.

    .. math:: \text{gap} = \overline{v}_{\text{high}} - \overline{v}_{\text{low}}

    with :math:`\overline{v}_F` the mean over family F's measures (:func:`family_means`).

    Parameters
    ----------
    values : array_like (..., n_measures)
        Values per measure.
    high, low : str
        The two families.
    measures : sequence of str, optional
        The measures of the last axis (default :func:`fireeval.core.moments.measure_names`).

    Returns
    -------
    numpy.ndarray (...)
        The gap.

    Examples
    --------
    >>> round(float(family_gap([0.1, 0.3, 0.2, 0.4], "AxIoU@K", "R@K,0.3", ["R@1,0.3", "R@5,0.3", "AxIoU@1", "AxIoU@5"])), 6)
    0.1
    """
    fam = family_means(values, measures, families=(high, low))
    return np.asarray(fam[high]) - np.asarray(fam[low])


# The paper's §6.4 ordering claim, one part per pair: (family expected higher, family expected lower, test).
ORDERING_PARTS = {
    "r07_above_axiou": ("R@K,0.7", "AxIoU@K", ">"),
    "r05_above_axiou": ("R@K,0.5", "AxIoU@K", ">"),
    "r03_not_above_axiou": ("AxIoU@K", "R@K,0.3", ">="),
    "r07_above_r05": ("R@K,0.7", "R@K,0.5", ">"),
}


@validate_params(gaps=ARRAY, axis=Int())
def majority_gap(gaps, axis: int = -1):
    """The gap at a strict majority of σ: the ``(n − 1) // 2``-th smallest of ``n`` gaps along ``axis``.

    It is ``>= 0`` (or ``> 0``) exactly when the gap is so at more than half of the σ
    levels -- the test for a claim made "in a wide range of noise levels" rather than
    at every σ (for which the minimum is the statistic).

    Parameters
    ----------
    gaps : array_like
        Gaps per σ (along ``axis``).
    axis : int
        The σ axis.

    Returns
    -------
    numpy.ndarray or numpy.float64
        The order statistic, the shape of ``gaps`` without ``axis``.

    Examples
    --------
    >>> float(majority_gap([-0.002, 0.008, 0.013, 0.013])), float(majority_gap([-0.002, -0.001, 0.013, 0.013]))
    (0.008, -0.001)
    """
    g = np.sort(np.asarray(gaps, dtype=float), axis=axis)
    return np.take(g, (g.shape[axis] - 1) // 2, axis=axis)


@validate_params(clean=ARRAY, noisy=ARRAY, error=_ERRORS, n_boot=Int(1), seed=SEED, parts=Instance(Mapping),
                 sigmas=[ARRAY, None], boot=[ARRAY, None], measures=[COLLECTION, None],
                 margins=[Instance(Mapping), None], jack=[ARRAY, None])
def ordering_gaps(clean, noisy, error: str = "abs", n_boot: int = 1000, seed=0, parts=ORDERING_PARTS,
                  sigmas=None, boot=None, measures=None, margins=None, jack=None) -> dict:
    r"""Each part of the ordering claim as a gap between two families' errors, per σ, its minimum and its majority value.

    For part ``(high, low, op)`` the gap is

    .. math:: g(\sigma) = (1 + m)\,\overline{E}_{\text{high}}(\sigma) - \overline{E}_{\text{low}}(\sigma)

    with :math:`\overline{E}_F` family F's error averaged over K (:func:`family_means`) and
    :math:`m` the part's margin (0 unless ``margins`` says otherwise); the claim holds at every
    σ when :math:`\min_\sigma g` satisfies ``op 0``, and at a strict majority of σ when
    :func:`majority_gap` does.

    Parameters
    ----------
    clean, noisy, error, n_boot, seed
        As in :func:`bootstrap_noise_error` (``n_boot`` and ``seed`` only when ``boot`` is not given).
    parts : dict
        ``{part: (high family, low family, op)}``, default :data:`ORDERING_PARTS`.
    sigmas : sequence of float, optional
        Only labels the grid.
    boot : array_like (n_boot, n_sigmas, n_measures), optional
        Resampled errors to use instead, e.g. from :func:`query_bootstrap_noise_error`.
    measures : sequence of str, optional
        The measures of the last axis (default :func:`fireeval.core.moments.measure_names`).
    margins : dict, optional
        ``{part: m}`` relative margins, e.g. "R@K,0.3 comparable or lower" read as
        R@K,0.3's error at most (1 + m) times AxIoU@K's (m = 0: not higher).
    jack : array_like (n_groups, n_sigmas, n_measures), optional
        Grouped-jackknife errors (:func:`convention_study`), for BCa intervals.

    Returns
    -------
    dict
        ``{part: {"by_sigma": (n_sigmas,), "by_sigma_samples": (n_boot, n_sigmas), "min":
        float, "min_samples": (n_boot,), "majority": float, "majority_samples": (n_boot,),
        "sigmas", "ks", "per_k": (n_sigmas, n_ks), "per_k_samples": (n_boot, n_sigmas,
        n_ks), "margin", "high", "high_samples", "low", "low_samples"}}``; with ``jack``
        also ``by_sigma_jack``, ``min_jack``, ``majority_jack``, ``high_jack``, ``low_jack``.

    Examples
    --------
    >>> measures = ["R@1,0.7", "AxIoU@1"]
    >>> clean = np.array([[0.5, 0.5]])
    >>> noisy = np.array([[[[0.3, 0.45]], [[0.6, 0.5]]], [[[0.2, 0.4]], [[0.7, 0.6]]]])  # 2 σ, 2 trials, 1 system
    >>> g = ordering_gaps(clean, noisy, n_boot=10, parts={"r07": ("R@K,0.7", "AxIoU@K", ">")}, measures=measures)
    >>> g["r07"]["by_sigma"].round(3).tolist(), round(g["r07"]["min"], 3), g["r07"]["ks"]
    ([0.125, 0.15], 0.125, [1])
    """
    margins = margins or {}
    point = noise_error(clean, noisy, error)
    boot = bootstrap_noise_error(clean, noisy, error, n_boot, seed) if boot is None else np.asarray(boot)
    out = {}
    for name, (high, low, _) in parts.items():
        m = 1.0 + float(margins.get(name, 0.0))
        fam, fam_b = family_means(point, measures, (high, low)), family_means(boot, measures, (high, low))
        g, gb = m * fam[high] - fam[low], m * fam_b[high] - fam_b[low]
        names = measures or measure_names()
        col = lambda fam, k: names.index(fam.replace("@K", f"@{k}"))  # noqa: E731  the family's member at K
        has = fam_has.__wrapped__  # (per K: without the declared check)
        ks = [k for k in KS if has(names, high, k) and has(names, low, k)]
        hi_idx, lo_idx = [col(high, k) for k in ks], [col(low, k) for k in ks]
        out[name] = {"by_sigma": g, "by_sigma_samples": gb, "min": float(g.min()), "min_samples": gb.min(axis=-1),
                     "majority": float(majority_gap(g)), "majority_samples": majority_gap(gb),
                     "sigmas": None if sigmas is None else [float(x) for x in sigmas], "ks": ks,
                     "per_k": m * point[..., hi_idx] - point[..., lo_idx],
                     "per_k_samples": m * boot[..., hi_idx] - boot[..., lo_idx], "margin": m - 1.0,
                     "high": fam[high], "high_samples": fam_b[high], "low": fam[low], "low_samples": fam_b[low]}
        if jack is not None:
            fam_j = family_means(np.asarray(jack), measures, (high, low))
            gj = m * fam_j[high] - fam_j[low]
            out[name].update(by_sigma_jack=gj, min_jack=gj.min(axis=-1), majority_jack=majority_gap(gj),
                             high_jack=fam_j[high],
                             low_jack=fam_j[low])
    return out


@validate_params(measures=COLLECTION, family=STR, k=Int(1))
def fam_has(measures, family: str, k) -> bool:
    """Whether ``measures`` holds ``family``'s member at cut-off ``k`` (e.g. R@K,0.5 at K = 5 is R@5,0.5).

    Parameters
    ----------
    measures : collection of str
        Measure names.
    family : str
        A family name such as ``R@K,0.5`` or ``AxIoU@K``.
    k : int
        The cut-off.

    Returns
    -------
    bool

    Examples
    --------
    >>> fam_has(["R@5,0.5", "AxIoU@5"], "R@K,0.5", 5), fam_has(["R@5,0.5"], "AxIoU@K", 5)
    (True, False)
    """
    return family.replace("@K", f"@{k}") in measures


@validate_params(clean=ARRAY, noisy=ARRAY)
def ranking_agreement(clean, noisy) -> np.ndarray:
    """Kendall τ-b between the systems' ranking on the clean and on each noisy ground truth.

    Parameters
    ----------
    clean : array_like (n_systems, n_measures)
        Clean mean scores.
    noisy : array_like (..., n_systems, n_measures)
        Noisy mean scores.

    Returns
    -------
    numpy.ndarray (..., n_measures)
        τ-b per measure: 1 when noise leaves the measure's ranking of the systems
        unchanged (systems tied in both count as agreeing, as τ-b does).

    Examples
    --------
    >>> clean = [[0.9, 0.5], [0.5, 0.6], [0.1, 0.7]]  # 3 systems, 2 measures
    >>> ranking_agreement(clean, [[0.8, 0.7], [0.4, 0.6], [0.2, 0.5]]).round(3).tolist()
    [1.0, -1.0]
    """
    from fireeval.stats.agreement import kendall_tau_against

    noisy = np.asarray(noisy, dtype=float)  # the clean ranking's pair signs taken once, not once per noisy dataset
    return kendall_tau_against(np.swapaxes(noisy, -1, -2), np.swapaxes(np.asarray(clean, dtype=float), -1, -2))


@validate_params(predictions=ARRAY, gt=ARRAY, ks=COUNTS, thetas=Array(0, 1), strict=BOOL)
def per_query_scores(predictions, gt, ks=KS, thetas=THETAS, strict: bool = False) -> np.ndarray:
    """Per-query scores of every system on every measure against one ground truth.

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists in seconds, NaN-padded.
    gt : array_like (n_queries, 2)
        The ground truth.
    ks, thetas : sequence
        The measures' cut-offs K and IoU thresholds θ.
    strict : bool
        IoU > θ instead of ≥ θ.

    Returns
    -------
    numpy.ndarray (n_systems, n_measures, n_queries)
        Measures in :func:`fireeval.core.moments.measure_names` order.

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> per_query_scores(preds, gt, ks=(1,), thetas=(0.5,)).round(3).tolist()
    [[[1.0, 1.0], [0.8, 0.833]], [[1.0, 0.0], [0.667, 0.3]]]
    """
    iou = temporal_iou(np.asarray(predictions, dtype=float), np.asarray(gt, dtype=float))
    scores = score_all(iou, ks, thetas, strict)
    return np.stack([scores[m] for m in measure_names(ks, thetas)], axis=1)


@validate_params(predictions=ARRAY, gt=ARRAY, raters=ARRAY, n_boot=Int(1), seed=SEED, ks=COUNTS, thetas=Array(0, 1),
                 strict=BOOL)
def real_rater_bootstrap(predictions, gt, raters, n_boot: int = 1000, seed=0, ks=KS, thetas=THETAS,
                         strict: bool = False) -> dict:
    r"""The real raters' effect on scores and rankings, with a bootstrap over the re-annotated queries.

    The raters are aggregated as the simulation does (:func:`aggregate_raters`). Per
    measure, with :math:`o_s` and :math:`r_s` system s's mean on the original and the
    raters' median annotation: ``error`` :math:`= \frac1S\sum_s |r_s - o_s|` (one noisy
    dataset, so "abs" and "rmse" agree), ``signed`` :math:`= \frac1S\sum_s (r_s - o_s)`,
    ``tau`` = Kendall τ-b between the two rankings of the systems.

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists restricted to the re-annotated queries.
    gt : array_like (n_queries, 2)
        Their original annotation.
    raters : array_like (n_raters, n_queries, 2)
        The raters' moments.
    n_boot : int
        Resamples of the queries (the same resample for everything: paired).
    seed : int
        Seed of the resamples.
    ks, thetas, strict
        The measures, as in :func:`per_query_scores`.

    Returns
    -------
    dict
        ``error``, ``signed``, ``tau`` (n_measures,) and ``error_samples``,
        ``signed_samples``, ``tau_samples`` (n_boot, n_measures).

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> out = real_rater_bootstrap(preds, gt, np.array([gt, gt + 1.0, gt + 2.0]), n_boot=5, ks=(1,), thetas=(0.5,))
    >>> out["error"].round(3).tolist(), out["tau_samples"].shape
    ([0.0, 0.158], (5, 2))
    """
    from fireeval.stats.agreement import kendall_tau_batch

    clean = per_query_scores(predictions, gt, ks, thetas, strict)
    median = per_query_scores(predictions, aggregate_raters(raters), ks, thetas, strict)
    w = trial_counts(clean.shape[-1], n_boot, seed) / clean.shape[-1]
    out = {}
    for name, c, m in (("point", clean.mean(-1)[None], median.mean(-1)[None]),
                       ("samples", np.einsum("smq,bq->bsm", clean, w), np.einsum("smq,bq->bsm", median, w))):
        key = "" if name == "point" else "_samples"
        out["error" + key] = np.abs(m - c).mean(axis=-2)
        out["signed" + key] = (m - c).mean(axis=-2)
        out["tau" + key] = kendall_tau_batch(np.swapaxes(m, -1, -2), np.swapaxes(c, -1, -2))
    for k in ("error", "signed", "tau"):
        out[k] = out[k][0]
    return out


@validate_params(gt=ARRAY, raters=ARRAY, durations=ARRAY, n_boot=Int(1), seed=SEED)
def rater_shift(gt, raters, durations, n_boot: int = 1000, seed=0) -> "pd.DataFrame":
    """How the raters' median moment differs from the original annotation, with bootstrap intervals over queries.

    Parameters
    ----------
    gt : array_like (n_queries, 2)
        The original annotation.
    raters : array_like (n_raters, n_queries, 2)
        The raters' moments (aggregated by :func:`aggregate_raters`).
    durations : array_like (n_queries,)
        The videos' lengths.
    n_boot : int
        Resamples of the queries.
    seed : int
        Seed of the resamples.

    Returns
    -------
    pandas.DataFrame
        Rows: start shift, end shift and length change (seconds; raters' median minus
        original), length ratio (median of raters' length / original length), share of
        original ends past the video, share of the raters' median ends past the video.
        Columns: value, low, high (95% bootstrap percentile interval over queries).

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> t = rater_shift(gt, np.array([gt, gt + 1.0, gt + 2.0]), [30.0, 30.0], n_boot=20)
    >>> t["value"].round(3).tolist()
    [1.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    """
    import pandas as pd

    gt = np.asarray(gt, dtype=float)
    med = aggregate_raters(raters)
    durations = np.asarray(durations, dtype=float)
    true_len = gt[:, 1] - gt[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(true_len > 0, (med[:, 1] - med[:, 0]) / true_len, np.nan)
    rows = {"start shift (s)": med[:, 0] - gt[:, 0], "end shift (s)": med[:, 1] - gt[:, 1],
            "length change (s)": (med[:, 1] - med[:, 0]) - true_len, "length ratio (raters / original)": ratio,
            "share of original ends past the video": (gt[:, 1] > durations).astype(float),
            "share of raters' median ends past the video": (med[:, 1] > durations).astype(float)}
    w = trial_counts(len(gt), n_boot, seed)
    table = []
    for name, v in rows.items():
        ok = np.isfinite(v)
        vals = np.where(ok, v, 0.0)
        boot = (w * vals) @ np.ones(len(v)) / np.maximum((w * ok) @ np.ones(len(v)), 1)
        point = float(vals.sum() / max(ok.sum(), 1))
        table.append({"quantity": name, "value": point, "low": min(np.quantile(boot, 0.025), point),
                      "high": max(np.quantile(boot, 0.975), point)})
    return pd.DataFrame(table).set_index("quantity")


@validate_params(sigmas=ARRAY, values=ARRAY)
def sign_change_sigma(sigmas, values) -> float:
    r"""The σ at which ``values`` first changes sign (linear interpolation); NaN if it never does.

    Between grid points :math:`\sigma_i` and :math:`\sigma_{i+1}` with values of opposite
    sign, :math:`\sigma^* = \sigma_i + (\sigma_{i+1} - \sigma_i)\, v_i / (v_i - v_{i+1})`.

    Parameters
    ----------
    sigmas : array_like (n,)
        The σ grid, increasing.
    values : array_like (n,)
        Values at each σ (e.g. an ordering gap).

    Returns
    -------
    float
        The first crossing of zero, or NaN.

    Examples
    --------
    >>> sign_change_sigma([1, 2, 3], [0.2, -0.2, -0.4])
    1.5
    >>> sign_change_sigma([1, 2], [0.1, 0.2])
    nan
    """
    s, v = np.asarray(sigmas, dtype=float), np.asarray(values, dtype=float)
    flips = np.flatnonzero(np.sign(v[:-1]) * np.sign(v[1:]) < 0)
    if not flips.size:
        return float("nan")
    i = flips[0]
    return float(s[i] + (s[i + 1] - s[i]) * v[i] / (v[i] - v[i + 1]))


#: Groups of the grouped jackknife over queries that gives the BCa acceleration of the noise claims.
JACKKNIFE_GROUPS = 20


@validate_params(predictions=ARRAY, gt=ARRAY, sigmas=_SIGMAS, n_trials=Int(1), n_raters=Int(1), seed=SEED,
                 clip_to=ARRAY, noisy=ARRAY, noisy_b=[ARRAY, None], query_weights=[ARRAY, None], strict=BOOL,
                 ks=COUNTS, thetas=Array(0, 1))
def clipped_means(predictions, gt, sigmas, n_trials: int, n_raters: int, seed, clip_to, noisy, noisy_b=None,
                  query_weights=None, strict: bool = False, ks=KS, thetas=THETAS):
    """:func:`noise_experiment`'s noisy means (and their query resamples) with the simulated raters clipped to the
    video, from the unclipped ones of the same draws (reference code's convention).

    Clipping changes the noisy ground truth of a query only where a rater's moment leaves the video; the
    mean over queries moves by the change of those queries' scores alone, so only they are scored again
    (the same numbers as scoring every query, up to the rounding of float32 sums).

    Parameters
    ----------
    predictions, gt, sigmas, n_trials, n_raters, seed, strict
        As :func:`noise_experiment` (``length="code"``): the same draws.
    clip_to : array_like (n_queries,)
        The videos' lengths.
    noisy : numpy.ndarray (n_sigmas, n_trials, n_systems, n_measures)
        The unclipped noisy means.
    noisy_b : numpy.ndarray (n_sigmas, n_trials, n_boot, n_systems, n_measures), optional
        The unclipped means on every resample of the queries (``query_weights``).
    query_weights : array_like (n_boot, n_queries), optional
        The resamples' weights.

    Returns
    -------
    numpy.ndarray or tuple
        The clipped ``noisy``, or ``(noisy, noisy_b)`` with ``noisy_b``.

    Examples
    --------
    >>> gt = np.array([[0.5, 3.0], [10.0, 20.0]]); preds = np.array([[[[0.0, 3.0]], [[9.0, 21.0]]]])
    >>> clean, noisy = noise_experiment(preds, gt, [2.0], n_trials=3, seed=1, ks=(1,), thetas=(0.5,))
    >>> direct = noise_experiment(preds, gt, [2.0], n_trials=3, seed=1, ks=(1,), thetas=(0.5,), clip_to=[4.0, 30.0])[1]
    >>> bool(np.allclose(clipped_means(preds, gt, [2.0], 3, 5, 1, [4.0, 30.0], noisy, ks=(1,), thetas=(0.5,)), direct))
    True
    """
    return _clipped_means(predictions, _check_gt(gt), sigmas, n_trials, n_raters, seed, clip_to, noisy, noisy_b,
                          query_weights, strict, ks, thetas)


def _clipped_means(predictions, gt, sigmas, n_trials, n_raters, seed, clip_to, noisy, noisy_b=None, query_weights=None,
                   strict=False, ks=KS, thetas=THETAS, draws=None):
    """:func:`clipped_means` on checked arguments (``draws``: noise_experiment's of ``seed``, when the caller has them)."""
    preds = np.asarray(predictions, dtype=float)
    lengths = np.asarray(clip_to, dtype=float)
    draws = _draws(n_trials, n_raters, len(gt), seed) if draws is None else draws  # noise_experiment's draws
    noisy = np.array(noisy, dtype=float)
    # the weights query by query (rows): a trial's moved queries are then rows to copy, not columns to gather
    # (the product reads them as the same (n_boot, moved) matrix, transposed in place)
    w_by_query = None if noisy_b is None else np.ascontiguousarray(np.asarray(query_weights, dtype=np.float32).T)
    noisy_b = None if noisy_b is None else np.array(noisy_b)
    for i, sigma in enumerate(sigmas):
        starts, ends = _rater_bounds(gt, sigma, "code", draws)
        plain = _aggregated(starts, ends)
        clipped = _aggregated(np.clip(starts, 0.0, lengths), np.clip(ends, 0.0, lengths))
        for t in range(n_trials):
            moved = np.flatnonzero((clipped[t] != plain[t]).any(axis=-1))
            if not moved.size:
                continue
            # both ground truths in one call (element by element, the same numbers as two calls)
            both = RankedLists(preds[:, moved], ks, thetas, strict).scores(
                np.stack([clipped[t, moved], plain[t, moved]]))  # (2, S, M, moved)
            delta = both[0] - both[1]  # (S, M, moved)
            noisy[i, t] += delta.sum(axis=-1) / len(gt)
            if w_by_query is not None:
                flat = delta.astype(np.float32).reshape(-1, moved.size)  # (S·M, moved): one BLAS product
                noisy_b[i, t] += (w_by_query[moved].T @ flat.T).reshape(noisy_b.shape[2:])
    return noisy if w_by_query is None else (noisy, noisy_b)


@validate_params(predictions=ARRAY, gt=ARRAY, sigmas=_SIGMAS, n_trials=Int(1), n_raters=Int(1), seed=SEED, strict=BOOL,
                 error=_ERRORS, n_boot=Int(1), conventions=COLLECTION, resample_queries=BOOL,
                 margins=[Instance(Mapping), None], n_boot_queries=[Int(1), None], clip_to=[ARRAY, None],
                 also_clipped=[ARRAY, None])
def convention_study(predictions, gt, sigmas=(1, 2, 3, 4), n_trials: int = 100, n_raters: int = 5, seed=0,
                     strict: bool = False, error: str = "abs", n_boot: int = 1000,
                     conventions=LENGTH_CONVENTIONS, resample_queries: bool = True, margins=None,
                     n_boot_queries: int | None = None, clip_to=None, also_clipped=None) -> dict:
    """The simulated label-noise experiment under each length convention, with intervals.

    ``gaps`` resamples the test queries jointly with the trials
    (:func:`query_bootstrap_noise_error`) when ``resample_queries``, else it is ``gaps_mc``
    (trials only, queries fixed: :func:`bootstrap_noise_error`). Both conventions use the
    same seed (the same normal and exponential draws) and the same query resamples.

    Parameters
    ----------
    predictions : array_like (n_systems, n_queries, K, 2)
        Ranked lists in seconds.
    gt : array_like (n_queries, 2)
        The clean ground truth.
    sigmas, n_trials, n_raters, seed, strict
        As in :func:`noise_experiment` (the 12 default measures).
    error : {"abs", "rmse"}
        As in :func:`noise_error`.
    n_boot : int
        Resamples of the trials-only interval.
    conventions : sequence of str
        Length conventions to run (:data:`LENGTH_CONVENTIONS`).
    resample_queries : bool
        Also resample the queries (joint interval, plus a grouped jackknife for BCa).
    margins : dict, optional
        See :func:`ordering_gaps`.
    n_boot_queries : int, optional
        Resamples of the joint interval (default ``n_boot``); each costs one (queries ×
        systems·measures) product per trial and σ, the chapter's largest cost.
    clip_to : array_like (n_queries,), optional
        Video lengths; simulated raters' moments are clipped to the video
        (:func:`simulate_annotations`).
    also_clipped : array_like (n_queries,), optional
        Video lengths; the result gains the entry ``"code clipped"``, the reference code's
        convention with the raters clipped, computed from the unclipped one
        (:func:`clipped_means`) with the same query resamples.

    Returns
    -------
    dict
        ``{convention: {clean, noisy, error (n_sigmas, n_measures), signed (n_sigmas,
        n_measures): mean over trials and systems of noisy − clean, gaps: ordering_gaps(...),
        gaps_mc: the same with the Monte-Carlo-only interval, resample_queries, tau
        (n_sigmas, n_trials, n_measures): ranking agreement clean vs each noisy dataset}}``.

    Examples
    --------
    >>> gt = np.array([[0.0, 5.0], [10.0, 20.0]])
    >>> preds = np.array([[[[0.0, 4.0]], [[9.0, 21.0]]], [[[1.0, 6.0]], [[12.0, 15.0]]]])  # 2 systems, 2 queries, K = 1
    >>> study = convention_study(preds, gt, sigmas=(1, 2), n_trials=3, n_boot=5)
    >>> sorted(study), study["code"]["error"].shape, sorted(study["code"]["gaps"])
    (['code', 'paper'], (2, 12), ['r03_not_above_axiou', 'r05_above_axiou', 'r07_above_axiou', 'r07_above_r05'])
    """
    gt = _check_gt(gt)
    n_q = int(n_boot_queries or n_boot)
    weights = trial_counts(len(gt), n_q, seed + 1) / len(gt) if resample_queries else None
    n_groups = min(JACKKNIFE_GROUPS, len(gt)) if resample_queries else 0
    if n_groups > 1:  # grouped jackknife over the queries (for BCa): leave one block of queries out
        block = np.arange(len(gt)) % n_groups
        keep = (block[None, :] != np.arange(n_groups)[:, None]).astype(float)
        weights = np.concatenate([weights, keep / keep.sum(axis=1, keepdims=True)])
    if weights is not None:  # the products take them in float32: converted once, not once per σ and convention
        weights = weights.astype(np.float32)
    out = {}
    entry = dict(sigmas=sigmas, error=error, n_boot=n_boot, seed=seed, margins=margins, n_q=n_q, n_groups=n_groups)
    preds = np.asarray(predictions, dtype=float)
    draws = _draws(n_trials, n_raters, len(gt), seed)  # the same draws for every convention (common random numbers)
    first = None  # the clean means, the same for every convention: computed once
    for c in conventions:
        if resample_queries:
            clean, noisy, clean_b, noisy_b = _experiment(preds, gt, sigmas, n_trials, n_raters, c, seed, KS, THETAS,
                                                         strict, weights, clip_to, draws=draws, clean=first)
            first = (clean, clean_b)
        else:
            clean, noisy = _experiment(preds, gt, sigmas, n_trials, n_raters, c, seed, KS, THETAS, strict, None, clip_to,
                                       draws=draws, clean=first)
            clean_b = noisy_b = None
            first = clean
        out[c] = _study_entry(clean, noisy, clean_b, noisy_b, **entry)
        if c == "code" and also_clipped is not None and clip_to is None:
            moved = _clipped_means(preds, gt, sigmas, n_trials, n_raters, seed, also_clipped, noisy, noisy_b,
                                   weights, strict, draws=draws)
            noisy_c, noisy_bc = moved if resample_queries else (moved, None)
            out["code clipped"] = _study_entry(clean, noisy_c, clean_b, noisy_bc, **entry)
    return out


def _study_entry(clean, noisy, clean_b, noisy_b, sigmas, error, n_boot, seed, margins, n_q, n_groups) -> dict:
    """One convention's entry of :func:`convention_study` from its means (``clean_b``/``noisy_b``: on the query
    resamples and then the jackknife groups, or None: trials-only intervals)."""
    resample_queries = noisy_b is not None
    jack = None
    if resample_queries and n_groups > 1:
        clean_j, noisy_j = clean_b[n_q:], noisy_b[..., n_q:, :, :]
        clean_b, noisy_b = clean_b[:n_q], noisy_b[..., :n_q, :, :]
        jack = np.stack([noise_error(clean_j[g], noisy_j[..., g, :, :], error) for g in range(n_groups)])
    mc = ordering_gaps(clean, noisy, error, n_boot, seed, sigmas=sigmas, margins=margins)
    joint = (ordering_gaps(clean, noisy, error, n_boot, seed, sigmas=sigmas, margins=margins,
                           boot=query_bootstrap_noise_error(clean_b, noisy_b, error, seed), jack=jack)
             if resample_queries else mc)
    for g in joint.values():
        g["resampled_queries"] = resample_queries
    return {"clean": clean, "noisy": noisy, "error": noise_error(clean, noisy, error),
            "signed": (noisy - clean).mean(axis=(-3, -2)), "gaps": joint, "gaps_mc": mc,
            "resample_queries": resample_queries, "tau": ranking_agreement(clean, noisy)}


@validate_params(study=Instance(Mapping), sigmas=ARRAY, real=[Instance(Mapping), None], measures=[COLLECTION, None])
def ranking_table(study: dict, sigmas, real: dict | None = None, measures=None) -> "pd.DataFrame":
    """How often noise changes the systems' ranking, per measure: one column per (source, σ), one row per measure.

    Cells: mean τ-b [2.5 %, 97.5 % over trials] (simulated) or τ-b [95 % bootstrap over
    queries] (real raters), and for simulated noise the share of trials whose ranking
    differs from the clean one.

    Parameters
    ----------
    study : dict
        One convention's entry of :func:`convention_study`.
    sigmas : sequence of float
        The study's σ levels.
    real : dict, optional
        :func:`real_rater_bootstrap`'s dict.
    measures : sequence of str, optional
        The measures (default :func:`fireeval.core.moments.measure_names`).

    Returns
    -------
    pandas.DataFrame
        Index: measure; columns: "simulated, σ = … s" and, with ``real``, "real raters' median".

    Examples
    --------
    >>> study = {"tau": np.array([[[1.0, 1.0], [1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]])}  # 1 σ, 4 trials, 2 measures
    >>> ranking_table(study, (1,), measures=["AxIoU@1", "R@1,0.5"])["simulated, σ = 1 s"].tolist()
    ['1.00 [1.00, 1.00]; 0% changed', '0.50 [-0.85, 1.00]; 25% changed']
    """
    import pandas as pd

    measures = list(measures or measure_names())
    rows = []
    for i, s in enumerate(sigmas):
        t = study["tau"][i]
        lo, hi = np.nanquantile(t, [0.025, 0.975], axis=0)
        changed = (t < 1 - 1e-12).mean(axis=0)
        rows.append(pd.Series([f"{m:.2f} [{a:.2f}, {b:.2f}]; {c:.0%} changed"
                               for m, a, b, c in zip(np.nanmean(t, axis=0), lo, hi, changed)],
                              index=measures, name=f"simulated, σ = {s:g} s"))
    if real is not None:
        lo, hi = np.nanquantile(real["tau_samples"], [0.025, 0.975], axis=0)
        rows.append(pd.Series([f"{m:.2f} [{min(a, m):.2f}, {max(b, m):.2f}]" for m, a, b in zip(real["tau"], lo, hi)],
                              index=measures, name="real raters' median"))
    return pd.DataFrame(rows).T.rename_axis("measure")
