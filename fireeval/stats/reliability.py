"""Reliability of system comparisons over topic sets: swap rates (REER) and many Kendall τ at once.

Hauptmann & Lin's Retrieval Experiment Error Rate (REER) is the probability that
system A beats B on one topic set while B beats A on another (Voorhees & Buckley's
*swap rate*). :func:`swap_rates` estimates it as a function of the score difference
observed on the first set, from per-topic scores computed once: each trial draws two
disjoint topic sets of ``size`` topics (:func:`fireeval.stats.resampling.disjoint_halves`),
and every pair of systems is compared on both.

:func:`subset_stability` is the AxIoU paper's stability experiment (Fig. 6): τ between
system rankings on two disjoint random query subsets. Both use
:func:`fireeval.stats.agreement.kendall_tau_batch`, which matches :func:`scipy.stats.kendalltau`.
"""
from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fireeval.stats.agreement import kendall_tau_batch, kendall_tau_many, tau_ap_batch
from fireeval.stats.resampling import TIE_RTOL, bootstrap_counts, disjoint_halves

from fireeval.core.validation import ANY, Array, ARRAY, BOOL, Int, Real, SEED, STR, validate_params

__all__ = ["bootstrap_tau", "bootstrap_agreement", "jackknife_agreement", "band_crossing", "relative_swap_rates", "subset_stability",
           "swap_rates", "difference_for_error_rate",
           "normal_swap_difference", "WarningThreshold", "warning_threshold"]


@validate_params(per_topic=ANY, reference=ANY, n_resamples=Int(1), rng=SEED, q=Array(0, 1))
def bootstrap_tau(per_topic, reference, n_resamples: int = 1000, rng=0, q=(0.025, 0.975)):
    """Bootstrap-over-topics band for τ between system rankings.

    ``per_topic`` has shape (..., n_systems, n_topics) (e.g. one row per pool depth) and
    ``reference`` (n_systems, n_topics). Each resample draws n_topics topics with
    replacement, shared by every row and the reference (paired); the systems are
    ranked by their mean over the resample, and τ-b is taken against the reference
    ranking on the same resample. Returns ``(low, high)`` quantiles, shape (...).

    Parameters
    ----------
    per_topic : array_like (..., n_systems, n_topics)
        Per-topic scores.
    reference : array_like (n_systems, n_topics)
        The reference scores.
    n_resamples : int
        Resamples.
    rng : int or numpy.random.Generator
        Seed or generator.
    q : tuple of float
        The band's quantiles.

    Returns
    -------
    low, high : numpy.ndarray (...)
        The band's ends per row (the quantiles ``q``).

    Examples
    --------
    >>> x = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    >>> [float(end) for end in bootstrap_tau(x, x, n_resamples=20)]
    [1.0, 1.0]
    """
    scores = np.asarray(per_topic, dtype=float)
    ref = np.asarray(reference, dtype=float)
    n_topics = scores.shape[-1]
    counts = bootstrap_counts(n_topics, n_topics, n_resamples, rng)
    means = scores @ counts.T / n_topics  # (..., n_systems, n_resamples)
    ref_means = ref @ counts.T / n_topics  # (n_systems, n_resamples)
    tau = kendall_tau_batch(np.swapaxes(means, -1, -2), ref_means.T, rtol=TIE_RTOL)  # (..., n_resamples)
    low, high = np.nanquantile(tau, q, axis=-1)
    return low, high


def _agreement(statistic: str):
    """The statistic's batched function; means within TIE_RTOL tie (resampled means are added by BLAS, in an order
    that follows the machine's threads: systems equal on every drawn topic must not be ordered by float noise)."""
    if statistic == "tau_b":
        return functools.partial(kendall_tau_many, rtol=TIE_RTOL)
    if statistic == "tau_ap":
        return functools.partial(tau_ap_batch, rtol=TIE_RTOL)
    raise ValueError(f"statistic must be 'tau_b' or 'tau_ap', not {statistic!r}. Fix: give one of the two")


class _SliceMemo:
    """Results of :func:`bootstrap_agreement` and :func:`jackknife_agreement` per (n_systems, n_topics) slice,
    kept for the process (least recently used dropped beyond ``max_entries``).

    A chapter asks for the same resamples of the same scores many times (every claim's rival, the exercises'
    subsets of the chapter's own samples, a reading shared by two claims); each slice is computed once. A
    slice is keyed by a digest of its bytes and shape, of the reference's, and by the call's settings (the
    seed must be an int: a generator's draws depend on its state); equal slices in one call are computed
    once. Each slice is computed exactly as the whole batch is (one matrix product per slice, τ row by row),
    so the values do not depend on what was computed before; the returned array is a new one.
    """

    def __init__(self, max_entries: int = 8192):
        self.max_entries = max_entries
        self._store: OrderedDict = OrderedDict()

    @staticmethod
    def digest(array: np.ndarray) -> bytes:
        array = np.ascontiguousarray(array)
        return hashlib.blake2b(array.tobytes(), digest_size=16, person=str(array.shape).encode()[:16]).digest()

    def get(self, key: tuple, scores: np.ndarray, ref: np.ndarray, compute) -> np.ndarray:
        """``compute(slices)`` for the slices of ``scores`` (..., n_systems, n_topics) not yet stored."""
        if ref.ndim != 2 or scores.ndim < 2 or scores.shape[-2:] != ref.shape or not scores.size:
            return compute(scores)  # a reference per slice (or broadcast): computed whole, not stored
        flat = scores.reshape((-1,) + scores.shape[-2:])
        ref_key = self.digest(ref)
        keys = [key + (ref_key, self.digest(s)) for s in flat]
        # one slice per key: equal slices in one call (e.g. every seed's sample at rate 1, the full judgements)
        # are computed once
        missing, wanted = [], set()
        for i, k in enumerate(keys):
            if k not in self._store and k not in wanted:
                wanted.add(k)
                missing.append(i)
        if missing:
            for i, row in zip(missing, compute(flat[missing])):
                self._store[keys[i]] = row
        out = np.stack([self._store[k] for k in keys])
        for k in keys:
            self._store.move_to_end(k)
        while len(self._store) > self.max_entries:
            self._store.popitem(last=False)
        return out.reshape(scores.shape[:-2] + out.shape[1:])

    def clear(self) -> None:
        self._store.clear()


_AGREEMENT_MEMO = _SliceMemo()


@validate_params(per_topic=ANY, reference=ANY, n_resamples=Int(1), rng=SEED, statistic=STR, topics=ANY)
def bootstrap_agreement(per_topic, reference, n_resamples: int = 1000, rng=0, statistic: str = "tau_b",
                        topics=None) -> np.ndarray:
    """Bootstrap-over-topics samples of the agreement between system rankings: (..., n_resamples).

    Like :func:`bootstrap_tau` (paired resamples of topics, systems ranked by their mean
    over the resample, the reference ranked on the same resample) but returns every
    resample's value, so that intervals of differences (between measures, depths or
    topic groups drawn with the same ``rng``) can be formed. ``statistic``: ``"tau_b"``
    (Kendall's τ-b) or ``"tau_ap"`` (:func:`fireeval.stats.agreement.tau_ap`, ``per_topic``
    being the ranking under test and ``reference`` the truth). ``topics`` (indices)
    restricts the resampling to those topics. The same seed draws the same resamples
    for any scores with the same number of topics.

    Parameters
    ----------
    per_topic : array_like (..., n_systems, n_topics)
        Per-topic scores.
    reference : array_like (n_systems, n_topics)
        The reference scores.
    n_resamples : int
        Resamples.
    rng : int or numpy.random.Generator
        Seed or generator.
    statistic : str
        ``tau_b`` or ``tau_ap``.
    topics : array_like, optional
        The topic labels (checked against the reference's).

    Returns
    -------
    numpy.ndarray (..., n_resamples)
        The agreement in each resample.

    Examples
    --------
    >>> x = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    >>> bootstrap_agreement(x, x, n_resamples=3).tolist()
    [1.0, 1.0, 1.0]

    >>> scores = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    >>> bootstrap_agreement(scores, scores, 5, rng=0).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    scores = np.asarray(per_topic, dtype=float)
    ref = np.asarray(reference, dtype=float)
    if topics is not None:
        scores, ref = scores[..., topics], ref[..., topics]
    agreement = _agreement(statistic)
    n_topics = scores.shape[-1]
    if not isinstance(rng, (int, np.integer)):  # a generator's draws depend on its state: nothing to reuse
        counts = bootstrap_counts(n_topics, n_topics, n_resamples, rng)
        means = np.swapaxes(scores @ counts.T / n_topics, -1, -2)  # (..., n_resamples, n_systems)
        return agreement(means, (ref @ counts.T / n_topics).T)

    def compute(missing):  # the (n_systems, n_topics) slices not yet computed: (len(missing), n_resamples)
        counts = bootstrap_counts(n_topics, n_topics, n_resamples, rng)
        means = np.swapaxes(missing @ counts.T / n_topics, -1, -2)  # (k, n_resamples, n_systems)
        ref_means = (ref @ counts.T / n_topics).T  # (n_resamples, n_systems)
        return agreement(means, ref_means)

    return _AGREEMENT_MEMO.get(("bootstrap", statistic, int(n_resamples), int(rng)), scores, ref, compute)


@validate_params(per_topic=ANY, reference=ANY, statistic=STR, topics=ANY)
def jackknife_agreement(per_topic, reference, statistic: str = "tau_b", topics=None) -> np.ndarray:
    """Leave-one-topic-out values of the agreement between system rankings: (..., n_topics).

    The jackknife that :meth:`fireeval.stats.claims.Estimate.bca` needs beside
    :func:`bootstrap_agreement`'s replicates (same arguments): value ``i`` ranks the
    systems by their mean over every topic but topic ``i``, in ``per_topic`` and in
    ``reference``, and compares the two rankings.

    Parameters
    ----------
    per_topic, reference, statistic, topics
        As :func:`bootstrap_agreement`'s.

    Returns
    -------
    numpy.ndarray (..., n_topics)
        The agreement without each topic.

    Examples
    --------
    >>> scores = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    >>> jackknife_agreement(scores, scores).tolist()
    [1.0, 1.0, 1.0]
    """
    scores = np.asarray(per_topic, dtype=float)
    ref = np.asarray(reference, dtype=float)
    if topics is not None:
        scores, ref = scores[..., topics], ref[..., topics]
    agreement = _agreement(statistic)
    n = scores.shape[-1]

    def compute(missing):  # (k, n_systems, n_topics) -> (k, n_topics)
        # Mean without topic i = (sum - x_i) / (n - 1): (..., n_systems, n_topics) -> (..., n_topics, n_systems).
        means = np.swapaxes((missing.sum(-1, keepdims=True) - missing) / (n - 1), -1, -2)
        ref_means = np.swapaxes((ref.sum(-1, keepdims=True) - ref) / (n - 1), -1, -2)
        return agreement(means, ref_means)

    return _AGREEMENT_MEMO.get(("jackknife", statistic), scores, ref, compute)


@validate_params(depths=ARRAY, low=ARRAY, high=ARRAY, level=Real(0, 1, closed='neither'))
def band_crossing(depths, low, high, level: float = 0.90) -> dict:
    """Where a τ band (per depth) crosses ``level``: the range of depths the threshold is reached in.

    ``first_possible``: the smallest depth whose band reaches above ``level``
    (``high > level``); ``first_certain``: the smallest depth from which the whole band
    stays above ``level`` (``low > level`` at it and every larger depth). Between them
    the band straddles ``level``: the data cannot say at which depth τ passes it. None
    when no depth qualifies.

    Parameters
    ----------
    depths : array_like
        The depths, ascending.
    low, high : array_like
        The band's ends per depth.
    level : float
        The threshold.

    Returns
    -------
    dict
        ``first_possible`` and ``first_certain`` (see above).

    Examples
    --------
    >>> band_crossing([1, 2, 3, 4], low=[.80, .85, .91, .92], high=[.88, .93, .97, .98])
    {'first_possible': 2, 'first_certain': 3}
    >>> band_crossing([1, 2], low=[.8, .8], high=[.85, .95])
    {'first_possible': 2, 'first_certain': None}
    """
    depths = np.asarray(depths)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    possible = np.flatnonzero(high > level)
    below = np.flatnonzero(~(low > level))
    start = below[-1] + 1 if len(below) else 0
    return {"first_possible": int(depths[possible[0]]) if len(possible) else None,
            "first_certain": int(depths[start]) if start < len(depths) else None}


@validate_params(per_topic=ANY, size=Int(1), n_trials=Int(1), bins=ANY, rng=SEED)
def relative_swap_rates(per_topic, size: int, n_trials: int = 1000, bins=None, rng=0) -> pd.DataFrame:
    """Swap rate (REER) by the *relative* score difference on the first topic set.

    As :func:`swap_rates` (same splits for the same seed), but a pair is binned by
    ``|mean_a(i) - mean_a(j)| / max(mean_a(i), mean_a(j))``: the difference as a share
    of the better score, the way Voorhees & Buckley (2002) state their thresholds
    ("a 5 % difference"). Default bins: 0, 2.5 %, 5 %, ..., 50 % and beyond.

    Parameters
    ----------
    per_topic : array_like (n_systems, n_topics)
        Per-topic scores.
    size : int
        Topics per set.
    n_trials : int
        Pairs of disjoint topic sets.
    bins : array_like, optional
        Edges of the relative differences.
    rng : int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    pandas.DataFrame
        One row per bin, as :func:`swap_rates`.

    Examples
    --------
    >>> scores = np.array([[0.5, 0.4, 0.6, 0.5], [0.1, 0.2, 0.1, 0.3]])
    >>> relative_swap_rates(scores, size=2, n_trials=10, bins=[0, 1.01])["swap_rate"].tolist()
    [0.0]
    """
    bins = np.append(np.round(np.arange(0, 0.5001, 0.025), 10), np.inf) if bins is None else np.asarray(bins, float)

    def relative(mean_i, mean_j, diff):
        best = np.maximum(mean_i, mean_j)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(best > 0, np.abs(diff) / np.where(best > 0, best, 1), 0.0)

    return _swap_table(per_topic, size, n_trials, bins, rng, relative)


@validate_params(per_topic=ANY, size=Int(1), n_trials=Int(1), bins=ANY, rng=SEED, names=ANY)
def swap_rates(per_topic, size: int, n_trials: int = 1000, bins=None, rng=0, names=None) -> pd.DataFrame:
    """Swap rate (REER) between two disjoint topic sets, by the score difference on the first.

    Parameters
    ----------
    per_topic : array, shape (n_systems, n_topics)
        Per-topic scores (e.g. average precision), computed once.
    size : int
        Topics per set; needs ``2 * size <= n_topics``.
    n_trials : int
        Random splits; every split compares every pair of systems.
    bins : array of bin edges for ``|difference|``, default 0, 0.01, ..., 0.20 and beyond.
    rng : seed or Generator.

    Returns
    -------
    DataFrame with one row per bin: ``low``, ``high`` (difference on set A),
    ``n_pairs`` (pair-trials in the bin), ``n_swaps`` and ``swap_rate`` = swaps / pairs,
    where a swap means the sign of the mean difference on set B is opposite to set A
    (ties on either set are not swaps, as in Voorhees & Buckley 2002).

    Examples
    --------
    >>> scores = np.array([[0.5, 0.4, 0.6, 0.5], [0.1, 0.2, 0.1, 0.3]])
    >>> swap_rates(scores, size=2, n_trials=10, bins=[0, 1])["swap_rate"].tolist()
    [0.0]
    """
    bins = np.append(np.round(np.arange(0, 0.2001, 0.01), 10), np.inf) if bins is None else np.asarray(bins, float)
    return _swap_table(per_topic, size, n_trials, bins, rng, lambda mean_i, mean_j, diff: np.abs(diff))


def _swap_table(per_topic, size, n_trials, bins, rng, difference) -> pd.DataFrame:
    """Pairs and swaps per bin of ``difference(mean_i, mean_j, mean_i - mean_j)`` on set A (see :func:`swap_rates`)."""
    scores = np.asarray(per_topic, dtype=float)
    n_sys, n_topics = scores.shape
    set_a, set_b = disjoint_halves(n_topics, size, n_trials, rng)
    i, j = np.triu_indices(n_sys, k=1)
    n_bins = len(bins) - 1
    pairs, swaps = np.zeros(n_bins, dtype=np.int64), np.zeros(n_bins, dtype=np.int64)
    for start in range(0, n_trials, 100):  # chunks keep (trials, pairs) arrays small
        mean_a = scores[:, set_a[start:start + 100]].mean(-1).T  # (trials, systems)
        mean_b = scores[:, set_b[start:start + 100]].mean(-1).T
        a_i, a_j = mean_a[:, i], mean_a[:, j]  # gathered once (the pairs' means on set A)
        diff_a, diff_b = a_i - a_j, mean_b[:, i] - mean_b[:, j]
        which = np.searchsorted(bins, difference(a_i, a_j, diff_a), side="right") - 1
        inside = (which >= 0) & (which < n_bins)
        pairs += np.bincount(which[inside], minlength=n_bins)
        swaps += np.bincount(which[(diff_a * diff_b < 0) & inside], minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(pairs > 0, swaps / np.maximum(pairs, 1), np.nan)
    return pd.DataFrame({"low": bins[:-1], "high": bins[1:], "n_pairs": pairs, "n_swaps": swaps, "swap_rate": rate})


@validate_params(table=ANY, target=Real(0, 1, closed='neither'), min_pairs=Int(1), cumulative=BOOL)
def difference_for_error_rate(table: pd.DataFrame, target: float = 0.05, min_pairs: int = 1,
                              cumulative: bool = False) -> float:
    """Smallest difference from which every bin's swap rate stays below ``target``.

    ``table`` is the output of :func:`swap_rates`. Bins with fewer than ``min_pairs``
    comparisons are ignored. Returns the ``low`` edge of the first bin of the final
    run of bins all below ``target`` (NaN if the last populated bin is not below it).

    ``cumulative=False`` (default, Voorhees & Buckley's per-bin error rate): a bin's rate
    is over the pairs whose difference falls *in* that bin. ``cumulative=True``: over
    all pairs whose difference is *at least* the bin's ``low`` edge,
    ``sum(n_swaps[b:]) / sum(n_pairs[b:])`` -- a lower rate, since it averages in the
    larger, safer differences, and so a smaller threshold.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`swap_rates`' output.
    target : float
        The swap rate to stay below.
    min_pairs : int
        Bins with fewer comparisons are ignored.
    cumulative : bool
        See above.

    Returns
    -------
    float
        The difference (NaN when none).

    Examples
    --------
    >>> t = pd.DataFrame({"low": [0, .01, .02, .03], "high": [.01, .02, .03, .04],
    ...                   "n_pairs": [9, 9, 9, 9], "n_swaps": [3, 1, 0, 0], "swap_rate": [3/9, 1/9, 0, 0]})
    >>> difference_for_error_rate(t)   # bin .01-.02 swaps 1/9 >= 0.05
    0.02
    >>> difference_for_error_rate(t, cumulative=True)   # pairs >= .01 apart swap 1/27 < 0.05
    0.01
    """
    usable = table[table["n_pairs"] >= min_pairs]
    rate = usable["swap_rate"].to_numpy()
    if cumulative:
        tail_swaps = usable["n_swaps"].to_numpy()[::-1].cumsum()[::-1]
        rate = tail_swaps / usable["n_pairs"].to_numpy()[::-1].cumsum()[::-1]
    above = np.flatnonzero(~(rate < target))
    if not len(usable) or (len(above) and above[-1] == len(usable) - 1):
        return float("nan")
    return float(usable["low"].iloc[above[-1] + 1 if len(above) else 0])


def bootstrap_reer_difference(per_topic, size: int, n_resamples: int = 100, n_trials: int = 200, target: float = 0.05,
                              bins=None, min_pairs: int = 1, rng=0) -> np.ndarray:
    """Bootstrap over topics of the REER threshold (:func:`difference_for_error_rate`).

    Each resample draws the topics with replacement, then measures the swap rate over
    ``n_trials`` random pairs of disjoint halves of the drawn topics, as :func:`swap_rates`.
    This covers the sampling of the topics as well as the randomness of the splits.

    Returns an array of shape (n_resamples, 2): the per-bin and the cumulative threshold
    of each resample (NaN where no threshold exists).

    Notes
    -----
    A topic drawn twice can land in both halves, which makes the halves agree more than
    distinct topics would: the resampled thresholds lean low (towards *smaller* required
    differences). Fewer splits per resample than the point estimate add split noise,
    widening the interval.

    >>> scores = np.array([[0.5, 0.4, 0.6, 0.5], [0.1, 0.2, 0.1, 0.3]])
    >>> bootstrap_reer_difference(scores, 2, n_resamples=3, n_trials=5, bins=[0, 1]).tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    """
    scores = np.asarray(per_topic, dtype=float)
    gen = np.random.default_rng(rng)
    out = np.full((n_resamples, 2), np.nan)
    for b in range(n_resamples):  # each resample is one vectorised swap_rates call
        drawn = scores[:, gen.integers(0, scores.shape[1], scores.shape[1])]
        table = swap_rates(drawn, size, n_trials, bins=bins, rng=gen)
        out[b] = [difference_for_error_rate(table, target, min_pairs),
                  difference_for_error_rate(table, target, min_pairs, cumulative=True)]
    return out


@validate_params(per_topic=ANY, size=Int(1), target=Real(0, 1, closed='neither'))
def normal_swap_difference(per_topic, size: int, target: float = 0.05) -> dict:
    """The score difference a normal model predicts for a swap rate of ``target``.

    Model (the reasoning of Lin & Hauptmann's analysis of REER): for a pair of systems
    the per-topic score differences have standard deviation ``s``; the mean difference
    on a set of ``size`` topics then has standard error ``s / sqrt(size)``, and the
    difference between two disjoint sets' means has standard error
    ``sqrt(2) * s / sqrt(size)``. A difference ``d`` seen on the first set reverses
    sign on the second with probability about ``Phi(-d / (sqrt(2) * s / sqrt(size)))``,
    which equals ``target`` at

        d* = z_(1 - target) * sqrt(2) * s / sqrt(size).

    ``s`` is the median over all pairs of systems of the sample standard deviation
    (ddof=1) of their per-topic differences. This explains, from one number of the
    collection, why the threshold differs between collections and topic-set sizes.

    Parameters
    ----------
    per_topic : array, shape (n_systems, n_topics)
    size : int
        Topics per set.
    target : float
        Swap rate (REER) to reach.

    Returns
    -------
    dict with ``sd_pair_difference`` (the median ``s``) and ``difference`` (``d*``).

    Examples
    --------
    >>> scores = np.array([[0.3, 0.5, 0.1, 0.3], [0.2, 0.2, 0.2, 0.2]])   # differences .1 .3 -.1 .1
    >>> out = normal_swap_difference(scores, size=25)
    >>> round(out["sd_pair_difference"], 4), round(out["difference"], 4)
    (0.1633, 0.076)
    """
    from scipy.stats import norm

    scores = np.asarray(per_topic, dtype=float)
    if scores.ndim != 2 or scores.shape[0] < 2 or scores.shape[1] < 2:
        raise ValueError(f"per_topic must be (systems >= 2, topics >= 2), got shape {scores.shape}. "
                         "Fix: give a systems x topics matrix with two or more of each")
    i, j = np.triu_indices(len(scores), k=1)
    s = float(np.median((scores[i] - scores[j]).std(axis=-1, ddof=1)))
    return {"sd_pair_difference": s, "difference": float(norm.ppf(1 - target) * np.sqrt(2.0 / size) * s)}


@validate_params(per_query=ARRAY, sizes=ARRAY, n_trials=Int(1), rng=SEED, chunk=Int(1), groups=ANY)
def subset_stability(per_query, sizes, n_trials: int = 5000, rng=0, chunk: int = 500, groups=None) -> dict:
    """Stability of system rankings on two disjoint random query subsets (AxIoU paper Fig. 6).

    For each size n: draw ``n_trials`` pairs of disjoint subsets of n queries
    (:func:`fireeval.stats.resampling.disjoint_halves`), rank the systems by their mean score
    on each subset, and take Kendall's tau-b between the two rankings, for every measure.
    ``per_query`` is (measures, systems, queries). Subset means are one matrix product
    of the per-query scores with a (trials, queries) selection matrix, so nothing is
    re-scored. Returns ``{"tau": (measures, sizes, trials), "mean": (measures, sizes),
    "var": (measures, sizes)}``; trials where a subset ties all systems give NaN and are
    left out of mean and variance.

    Parameters
    ----------
    per_query : array_like (measures, systems, queries)
        Per-query scores.
    sizes : sequence of int
        Subset sizes n.
    n_trials : int
        Pairs of disjoint subsets per size.
    rng : int or numpy.random.Generator
        Seed or generator.
    chunk : int
        Trials at a time.
    groups : sequence of sequences of int, optional
        Subsets of the systems (indices) ranked on the same subset draws as well: each gets its own
        ``{"tau", "mean", "var"}`` in ``"groups"`` (the same numbers as a call on those systems alone
        with the same ``rng``, without drawing the subsets again).

    Returns
    -------
    dict
        ``mean`` and ``var`` of τ-b, each (measures, sizes), and ``groups`` when given.

    Examples
    --------
    >>> x = np.array([[[0.1] * 6, [0.5] * 6, [0.9] * 6]])
    >>> subset_stability(x, [2], n_trials=10)["mean"].tolist()
    [[1.0]]
    """
    scores = np.asarray(per_query, dtype=float)
    n_m, n_s, n_q = scores.shape
    flat = scores.reshape(n_m * n_s, n_q)
    rng = np.random.default_rng(rng)
    groups = [list(g) for g in (groups or [])]
    tau = np.empty((1 + len(groups), n_m, len(sizes), n_trials))
    for si, size in enumerate(sizes):
        a, b = disjoint_halves(n_q, int(size), n_trials, rng)
        for start in range(0, n_trials, chunk):
            stop = min(start + chunk, n_trials)
            rows = np.arange(stop - start)[:, None]
            sel = np.zeros((2, stop - start, n_q))
            sel[0][rows, a[start:stop]] = 1.0 / size
            sel[1][rows, b[start:stop]] = 1.0 / size
            means = (flat @ sel.reshape(-1, n_q).T).reshape(n_m, n_s, 2, stop - start)
            # (measures, trials, systems) per half
            ma, mb = means[:, :, 0].transpose(0, 2, 1), means[:, :, 1].transpose(0, 2, 1)
            for gi, g in enumerate([slice(None), *groups]):
                tau[gi, :, si, start:stop] = kendall_tau_batch(ma[..., g], mb[..., g], atol=1e-9)
    out = [_tau_summary(t) for t in tau]
    return {**out[0], "groups": out[1:]} if groups else out[0]


def _tau_summary(tau) -> dict:
    """``{"tau", "mean", "var"}`` of :func:`subset_stability`: NaN trials (a subset ties every system) left out."""
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(tau, axis=-1) if not np.isnan(tau).all() else np.full(tau.shape[:2], np.nan)
        var = np.nanvar(tau, axis=-1) if not np.isnan(tau).all() else np.full(tau.shape[:2], np.nan)
    return {"tau": tau, "mean": mean, "var": var}


@dataclass(frozen=True)
class WarningThreshold:
    """Result of :func:`warning_threshold`; :meth:`sentence` states it in words.

    Attributes
    ----------
    threshold : float or None
        Smallest grid value t such that every run with share >= t lost less than
        ``max_loss``; None when no grid value does, or when every run is safe anyway.
    worst_above : Series
        Per grid value t (index): the largest loss among runs with share >= t (NaN if none).
    all_safe : bool
        Every run lost less than ``max_loss``: no threshold is needed.
    below : Series
        Losses of the runs with share below the threshold (below 1.0 when there is none).
    max_loss, worst_loss : float
        The bound, and the largest loss of any run.
    k : int
        The cut-off of the judged share, for the sentence (``judged@k``, "top k").

    Parameters
    ----------
    threshold, worst_above, all_safe, below, max_loss, worst_loss, k
        The attributes above (:func:`warning_threshold` computes them).

    Examples
    --------
    >>> out = warning_threshold([0.6, 0.8, 0.9], [0.10, 0.01, 0.0])
    >>> isinstance(out, WarningThreshold), out.all_safe, out.worst_loss
    (True, False, 0.1)
    >>> print(out.sentence())
    every run whose top 100 was at least 65% judged after its group was left out lost less than 2 % of its score (at most 1.0%); the 1 runs below that line lost up to 10.0%
    """

    threshold: float | None
    worst_above: pd.Series
    all_safe: bool
    below: pd.Series
    max_loss: float
    worst_loss: float
    k: int = 100

    def sentence(self) -> str:
        """The threshold as a warning sign, in one sentence (percentages to one decimal)."""
        bound = f"{self.max_loss * 100:g} %"  # "2 %", as the chapter's prose writes it
        if self.all_safe:
            return (f"here every run lost less than {bound} of its score (at most {self.worst_loss:.1%}), "
                    f"so this data shows no judged@{self.k} level below which losses grow")
        if self.threshold is None:
            return f"no judged@{self.k} level separates runs that lost less than {bound} of their score from the rest"
        worst = self.worst_above.get(self.threshold)
        if len(self.below):
            return (f"every run whose top {self.k} was at least {self.threshold:.0%} judged after its group was "
                    f"left out lost less than {bound} of its score (at most {worst:.1%}); "
                    f"the {len(self.below)} runs below that line lost up to {self.below.max():.1%}")
        return (f"every run had at least {self.threshold:.0%} of its top {self.k} judged after leave-out and "
                f"lost less than {bound} of its score (at most {worst:.1%})")


@validate_params(share=ARRAY, loss=ARRAY, grid=ANY, max_loss=Real(0, None), k=Int(1))
def warning_threshold(share, loss, grid=None, max_loss: float = 0.02, k: int = 100) -> WarningThreshold:
    """The judged share above which every run's loss stayed below ``max_loss``.

    ``share`` (per run, e.g. judged@100 after group leave-out) and ``loss`` (per run,
    e.g. relative score drop; a Series keeps its run labels in ``below``) are aligned.
    For each t of ``grid`` (default 0.50, 0.55, ..., 1.00) the worst loss among runs with
    ``share >= t`` is computed at once; the threshold is the smallest t whose worst loss
    is ``< max_loss``. When every run's loss is below ``max_loss`` there is nothing to
    warn about and the threshold is None (``all_safe``).

    Parameters
    ----------
    share : array_like or pandas.Series
        Per run, e.g. judged@100 after a leave-out.
    loss : array_like or pandas.Series
        Per run, e.g. the relative score drop.
    grid : array_like, optional
        Thresholds t to try.
    max_loss : float
        The largest tolerated loss.
    k : int
        The depth of ``share``, for the sentence.

    Returns
    -------
    WarningThreshold
        The threshold and its evidence.

    Examples
    --------
    >>> out = warning_threshold([0.6, 0.8, 0.9], [0.10, 0.01, 0.0])
    >>> out.threshold, len(out.below), float(out.below.max())
    (0.65, 1, 0.1)
    """
    share = np.asarray(share, dtype=float)
    loss = loss if isinstance(loss, pd.Series) else pd.Series(np.asarray(loss, dtype=float))
    grid = np.round(np.arange(0.5, 1.0001, 0.05), 2) if grid is None else np.asarray(grid, dtype=float)
    above = share[None, :] >= grid[:, None]  # (grid, runs)
    worst = np.where(above, loss.to_numpy()[None, :], -np.inf).max(axis=1, initial=-np.inf)
    worst_above = pd.Series(np.where(above.any(axis=1), worst, np.nan), index=grid)
    safe = worst_above[worst_above < max_loss]
    worst_loss = float(loss.max())
    all_safe = bool(worst_loss < max_loss)
    threshold = float(safe.index.min()) if len(safe) and not all_safe else None
    below = loss[share < (threshold or 1.0)]
    return WarningThreshold(threshold, worst_above, all_safe, below, max_loss, worst_loss, k)
