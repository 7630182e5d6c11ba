"""Is system A really better than system B? Paired tests for every pair of systems, and topic-set power.

For ``R`` systems scored on the same ``T`` topics (a runs x topics matrix ``X``) and
every pair ``(i, j)``, with per-topic differences ``d_t = X[i, t] - X[j, t]``:

* the mean paired difference ``d̄ = (1/T) Σ_t d_t`` with a BCa bootstrap interval
  (Efron & Tibshirani 1993, ch. 14; computed as :func:`scipy.stats.bootstrap` with
  ``method='BCa'`` does, see :func:`bca_intervals`; where BCa is degenerate, the
  percentile interval, and the point ``[d̄, d̄]`` when every ``d_t`` is equal);
* the two-sided paired randomisation test (Fisher's sign-flip test, scipy's
  ``permutation_test(permutation_type='samples')``): under H0 each ``d_t`` is as
  likely to be ``-d_t``; the null statistics are ``(1/T) Σ_t s_bt d_t`` for sign flips
  ``s_b ∈ {-1, +1}^T``, and ``p = min(1, 2 min(p_≤, p_≥))`` with
  ``p_≥ = (#{b: null_b ≥ d̄ - γ} + 1) / (P + 1)`` (without the ``+ 1`` when all ``2^T``
  flips are enumerated; ``γ = 100 ε |d̄|`` absorbs rounding), exactly scipy's p-value;
* the paired t-test (:func:`scipy.stats.ttest_rel`): ``t = d̄ / (s_d / √T)``,
  ``s_d² = Σ (d_t - d̄)² / (T - 1)``, T - 1 degrees of freedom;
* the effect size ``d_z = d̄ / s_d`` (standardised mean difference of paired data,
  Cohen's d_z; 0 when ``s_d = 0`` and ``d̄ = 0``, ±inf when only ``s_d = 0``);
* Holm's step-down adjustment over all pairs of the randomisation and t-test p-values
  (:func:`statsmodels.stats.multitest.multipletests`, ``method='holm'``);
* the randomised Tukey HSD test (Carterette 2012, Sakai 2014): in resample ``b`` the
  ``R`` scores of each topic are permuted among the systems, ``range_b = max_i m_bi -
  min_i m_bi`` over the permuted system means, and ``p_ij = (#{b: range_b ≥ |d̄_ij| -
  γ} + 1) / (P + 1)``. It controls the family-wise error over all pairs at once.
* the Monte-Carlo standard error of every randomised p-value (:func:`monte_carlo_se`,
  :func:`holm_monte_carlo_se`): a decision within ``MC_Z`` (2.58, 99%) standard errors of
  alpha may change with the seed, and is warned about; the automatic number of
  permutations (:func:`auto_permutations`) is raised for Holm over many pairs and for such
  decisions, within :data:`AUTO_PERMUTATIONS_CAP`;
* a compact letter display of the decisions (:func:`significance_groups`, Piepho's
  insert-and-absorb): two systems differ significantly exactly when they share no letter.

**Vectorised across pairs.** One matrix of ``P`` random sign flips ``S`` (P x T) is
shared by all pairs; the null statistics of a block of pairs are one product
``S @ D / T`` (D: T x pairs), so 8,256 pairs x 10,000 flips cost one BLAS call per
block. Sharing the flips makes the pairs' null distributions dependent on each other,
which changes nothing for each pair's own p-value (each is a valid randomisation test).
The Tukey HSD permutations are drawn from the same seeded generator after the flips
(``P`` permutations of the ``R`` labels per topic); bootstrap indices for the intervals
come from their own generator seeded with ``seed`` (so they are scipy's indices for
``rng=np.random.default_rng(seed)``) and are likewise shared by all pairs.

Power and topic-set size (Sakai 2016, *Topic set size design*) use statsmodels'
:class:`~statsmodels.stats.power.TTestPower` (paired t-test) and
:class:`~statsmodels.stats.power.FTestAnovaPower` (one-way ANOVA over all systems):
:func:`detectable_difference`, :func:`topics_needed`, :func:`topic_set_size`.

Per-topic scores come from a matrix, from TREC runs + qrels + a measure name
(:func:`scores_from_trec`, through :mod:`fireeval.core.stream`), from moment
predictions + ground truth (:func:`scores_from_moments`, :mod:`fireeval.core.moments`)
or from text-to-video similarity matrices whose diagonal is each query's positive
(:func:`scores_from_similarity`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from fireeval.core.validation import ANY, ARRAY, BOOL, Check, Instance, Int, PROBABILITIES, Real, SEED, STR, validate_params
from fireeval.stats.resampling import share_below

__all__ = ["PerTopicScores", "Comparison", "compare", "sign_flips", "randomisation_pvalues", "tukey_hsd_pvalues",
           "bca_intervals", "holm", "significance_groups", "group_label", "detectable_difference", "topics_needed",
           "topic_set_size", "scores_from_trec", "scores_from_moments", "scores_from_similarity",
           "MAX_RESAMPLES", "check_resamples", "monte_carlo_se",
           "holm_monte_carlo_se", "auto_permutations", "DEFAULT_PERMUTATIONS", "AUTO_PERMUTATIONS_CAP",
           "AUTO_FLIP_BYTES", "MC_Z", "auto_permutation_cap", "rank_measure", "smallest_pvalue"]

_EPS = np.finfo(float).eps * 100  # scipy.stats.permutation_test's relative tolerance
_BLOCK = 4_000_000  # floats of resamples (rows x topics) held at once: 32 MB

#: Permutations when none are given: the base, raised when Holm or a decision near alpha needs more.
DEFAULT_PERMUTATIONS = 10_000
#: The automatic default never goes beyond this many permutations (nor beyond 256 MB of sign flips,
#: ``AUTO_FLIP_BYTES``): about 1 s of sign flips for 105 pairs of 50 topics on one core. A number given
#: by the user is not raised.
AUTO_PERMUTATIONS_CAP = 100_000
AUTO_FLIP_BYTES = 256 * 2 ** 20
#: Two-sided 99% normal quantile: a decision is "within the Monte-Carlo error" when
#: ``|p - alpha| < MC_Z * se``.
MC_Z = 2.5758293035489004


# ---------------------------------------------------------------- inputs
@dataclass(frozen=True)
class PerTopicScores:
    """Per-topic scores of several systems: ``values`` (systems x topics), with names.

    ``notes`` holds what was tolerated while building them (topics dropped, ...), for a
    caller to show as warnings.

    Parameters
    ----------
    names : list of str
        The systems.
    topics : list
        The topics.
    values : numpy.ndarray (systems, topics)
        The scores.
    measure : str
        The measure's name.
    notes : list of str
        What was tolerated.

    Examples
    --------
    >>> s = PerTopicScores(["A", "B"], ["t1", "t2"], np.array([[0.5, 0.6], [0.4, 0.4]]), "map")
    >>> s.values.mean(axis=1).tolist()
    [0.55, 0.4]
    """

    names: list
    topics: list
    values: np.ndarray
    measure: str = "score"
    notes: list = field(default_factory=list)


def _mapping_values(scores: Mapping) -> np.ndarray:
    """The systems x topics matrix of ``{system: per-topic scores}``, every system on as many topics."""
    from fireeval.core.ranking import real_numbers

    rows = [real_numbers(v, f"scores of {name!r}") for name, v in scores.items()]
    if len({r.shape for r in rows}) > 1:
        raise ValueError(f"scores: the systems have {sorted({len(r) for r in rows})} topics each. Fix: give "
                         "every system one score per topic, on the same topics in the same order")
    return np.asarray(rows, dtype=float)


def _frame_values(scores) -> np.ndarray:
    """The systems x topics matrix of a DataFrame (rows systems, columns topics), each column checked."""
    from fireeval.core.ranking import real_numbers

    if not len(scores.columns):
        return np.empty((len(scores), 0))
    return np.column_stack([real_numbers(scores.iloc[:, k], f"scores, topic {c!r}")
                            for k, c in enumerate(scores.columns)])


def _as_scores(scores, names, topics, measure) -> PerTopicScores:
    from fireeval.core.ranking import real_numbers

    if isinstance(scores, PerTopicScores):
        return scores
    if isinstance(scores, Mapping):
        names = list(scores) if names is None else list(names)
        values = _mapping_values(scores)
    elif hasattr(scores, "index") and hasattr(scores, "columns"):  # a DataFrame: rows systems, columns topics
        names = [str(n) for n in scores.index] if names is None else list(names)
        topics = [str(t) for t in scores.columns] if topics is None else topics
        values = _frame_values(scores)
    else:
        values = real_numbers(scores, "scores")
    if values.ndim != 2:
        raise ValueError(f"scores must be a systems x topics matrix, not an array of shape {values.shape}. "
                         "Fix: give one row of per-topic scores per system")
    r, t = values.shape
    names = [f"system {i + 1}" for i in range(r)] if names is None else [str(n) for n in names]
    topics = [str(i + 1) for i in range(t)] if topics is None else [str(x) for x in topics]
    if len(names) != r or len(topics) != t:
        raise ValueError(f"{len(names)} names and {len(topics)} topics given for a {r} x {t} score matrix. "
                         "Fix: give one name per row and one topic label per column")
    return PerTopicScores(names, topics, values, measure or "score")


def _check(s: PerTopicScores):
    r, t = s.values.shape
    if r < 2:
        raise ValueError(f"{r} system given; a comparison needs at least two. Fix: give the scores of two or more "
                         "systems")
    if t < 2:
        raise ValueError(f"{t} topic given; paired tests need at least two topics. Fix: give per-topic scores "
                         "on two or more topics")
    if not np.isfinite(s.values).all():
        i, j = np.argwhere(~np.isfinite(s.values))[0]
        raise ValueError(f"score of {s.names[i]!r} on topic {s.topics[j]!r} is {s.values[i, j]}; scores must be "
                         "finite. Fix: replace NaN or infinite scores (or drop the topic for every system)")
    if len(set(s.names)) != r:
        dup = sorted({n for n in s.names if s.names.count(n) > 1})
        raise ValueError(f"system names repeat: {dup[:5]}. Fix: give each system its own name")
    if len(set(s.topics)) != t:
        seen, dup = set(), []
        for x in s.topics:
            if x in seen and x not in dup:
                dup.append(x)
            seen.add(x)
        raise ValueError(f"topic labels repeat: {dup[:5]} (as text); the scores of one topic would be paired "
                         "twice. Fix: give each topic (column) its own label, or average the repeated ones first")


# ---------------------------------------------------------------- resamples
#: Most sign flips / permutations and bootstrap resamples a comparison draws (``n_permutations``,
#: ``n_bootstrap``; ``--permutations``, ``--bootstrap``). Holm over 1000 pairs at alpha 0.05 needs
#: about 40,000 flips; a million leaves a wide margin and still fits in memory.
MAX_RESAMPLES = 1_000_000
_MAX_FLIP_CELLS = 1 << 28  # int8 sign flips held at once: 256 MiB
_MAX_BOOT_CELLS = 1 << 25  # int64 bootstrap indices held at once: 256 MiB


@validate_params(n_permutations=ANY, n_bootstrap=ANY, n_topics=[Int(0), None], names=Instance(tuple, list))
def check_resamples(n_permutations, n_bootstrap, n_topics: int | None = None,
                    names=("n_permutations", "n_bootstrap")) -> None:
    """Refuse resample counts that are not whole numbers in range, before anything is allocated.

    ``n_permutations`` must be in [1, :data:`MAX_RESAMPLES`], ``n_bootstrap`` in [0,
    :data:`MAX_RESAMPLES`]; with ``n_topics``, their resample tables (resamples x topics)
    must also fit in 256 MiB each. ``names`` are the names shown (the CLI's options).

    Parameters
    ----------
    n_permutations, n_bootstrap : int
        The counts.
    n_topics : int, optional
        Topics T, for the size of the tables.
    names : tuple of str
        The names shown in messages.

    Returns
    -------
    None
        Raises ValueError instead.

    Examples
    --------
    >>> check_resamples(10**9, 2000)
    Traceback (most recent call last):
    ...
    ValueError: n_permutations=1000000000 is more than 1000000. Fix: give at most 1000000 (10000 is usual; Holm over many pairs needs more, the randomised Tukey HSD fewer)
    """
    for value, name, low in ((n_permutations, names[0], 1), (n_bootstrap, names[1], 0)):
        if value is None and low:  # the automatic number of permutations (auto_permutations)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name}={value!r} is not a whole number. Fix: give an int, e.g. "
                            f"{10_000 if low else 2000}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, not {value}. Fix: give "
                             + ("a positive number (10000 is usual)" if low else "0 (no intervals) or e.g. 2000"))
        if value > MAX_RESAMPLES:
            usual = ("10000 is usual; Holm over many pairs needs more, the randomised Tukey HSD fewer" if low
                     else "2000 is usual")
            raise ValueError(f"{name}={value} is more than {MAX_RESAMPLES}. Fix: give at most {MAX_RESAMPLES} "
                             f"({usual})")
    if n_topics:
        for value, name, cells, what in ((n_permutations, names[0], _MAX_FLIP_CELLS, "sign flips"),
                                         (n_bootstrap, names[1], _MAX_BOOT_CELLS, "bootstrap indices")):
            if value is not None and value * n_topics > cells:
                raise ValueError(f"{name}={value} with {n_topics} topics needs a table of {value * n_topics:,} "
                                 f"{what}, more than the {cells:,} held at once. Fix: give at most "
                                 f"{cells // n_topics} for this many topics")


@validate_params(n_topics=Int(1), n_permutations=Int(1), rng=SEED)
def sign_flips(n_topics: int, n_permutations: int = 10_000, rng=0) -> tuple[np.ndarray, bool]:
    """``(flips, exact)``: a (P, T) int8 matrix of ±1 shared by every pair.

    When ``2**n_topics <= n_permutations`` all ``2^T`` patterns are enumerated (an exact
    test, as :func:`scipy.stats.permutation_test` does); otherwise ``n_permutations``
    rows are drawn uniformly.

    Parameters
    ----------
    n_topics : int
        Number of topics (columns).
    n_permutations : int
        Number of random sign-flip patterns.
    rng : int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    flips : numpy.ndarray (P, T) of int8
        One sign pattern per row.
    exact : bool
        True when the rows enumerate all ``2^T`` patterns.

    Examples
    --------
    >>> flips, exact = sign_flips(3, 100)
    >>> flips.shape, exact
    ((8, 3), True)
    >>> sign_flips(20, 5, rng=1)[0].shape
    (5, 20)
    """
    check_resamples(n_permutations, 0, n_topics)
    if n_topics < 63 and 2 ** n_topics <= n_permutations:
        bits = (np.arange(2 ** n_topics)[:, None] >> np.arange(n_topics)[None, :]) & 1
        return (1 - 2 * bits).astype(np.int8), True
    gen = np.random.default_rng(rng)
    return (1 - 2 * gen.integers(0, 2, size=(n_permutations, n_topics), dtype=np.int8)).astype(np.int8), False


def _pairs(r: int):
    i, j = np.triu_indices(r, k=1)
    return i.astype(np.int64), j.astype(np.int64)


@validate_params(values=ARRAY, pair_i=ARRAY, pair_j=ARRAY, flips=ARRAY, exact=BOOL, chunk=Int(1))
def randomisation_pvalues(values, pair_i, pair_j, flips, exact: bool = False, chunk: int = 512) -> np.ndarray:
    """Two-sided paired randomisation p-values of every pair, from shared sign flips.

    ``values`` is systems x topics; pair ``k`` compares ``values[pair_i[k]]`` with
    ``values[pair_j[k]]``. The null statistics of a block of pairs are ``flips @ D / T``
    (one BLAS product); the p-value is scipy's (module docstring). Memory: ``P x chunk``
    floats at a time.

    Parameters
    ----------
    values : array (R, T)
    pair_i, pair_j : int arrays (n_pairs,)
    flips : array (P, T) of ±1 (:func:`sign_flips`)
    exact : bool
        True when ``flips`` enumerates all ``2^T`` patterns (no ``+1`` correction).
    chunk : int
        Pairs per block.

    Returns
    -------
    numpy.ndarray (n_pairs,)
        The two-sided p-value of each pair.

    Examples
    --------
    >>> x = np.array([[0.5, 0.6, 0.7, 0.9], [0.4, 0.5, 0.5, 0.6]])
    >>> flips, exact = sign_flips(4)
    >>> float(randomisation_pvalues(x, [0], [1], flips, exact)[0])  # all 4 differences > 0: 2 of 16 as extreme
    0.125
    """
    values = np.asarray(values, dtype=float)
    pair_i, pair_j = np.asarray(pair_i, dtype=np.int64), np.asarray(pair_j, dtype=np.int64)
    n_topics = values.shape[1]
    flips = np.asarray(flips)
    n_perm = flips.shape[0]
    adjust = 0 if exact else 1
    n = len(pair_i)
    d_all = [values[pair_i[lo:lo + chunk]] - values[pair_j[lo:lo + chunk]] for lo in range(0, n, chunk)]
    observed = np.concatenate([d.mean(axis=1) for d in d_all]) if n else np.empty(0)
    gamma = np.abs(_EPS * observed)
    greater, less = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    rows = max(1, min(n_perm, _BLOCK // max(n_topics, 1)))  # flips converted to float a block of rows at a time
    for r0 in range(0, n_perm, rows):
        s = flips[r0:r0 + rows].astype(float)
        for k, d in enumerate(d_all):
            lo, hi = k * chunk, k * chunk + len(d)
            null = s @ d.T  # (rows, c)
            null /= n_topics
            greater[lo:hi] += np.count_nonzero(null >= observed[lo:hi] - gamma[lo:hi], axis=0)
            less[lo:hi] += np.count_nonzero(null <= observed[lo:hi] + gamma[lo:hi], axis=0)
    p_g = (greater + adjust) / (n_perm + adjust)
    p_l = (less + adjust) / (n_perm + adjust)
    return np.clip(2 * np.minimum(p_g, p_l), 0.0, 1.0)


@validate_params(values=ARRAY, abs_differences=ARRAY, n_permutations=Int(1), rng=SEED, chunk=Int(1))
def tukey_hsd_pvalues(values, abs_differences, n_permutations: int = 10_000, rng=0, chunk: int = 200) -> np.ndarray:
    """Randomised Tukey HSD p-values (Carterette 2012; Sakai 2014) of the given ``|d̄|``.

    In each of ``n_permutations`` resamples the systems' scores are permuted within
    every topic; ``range_b = max - min`` of the permuted system means;
    ``p = (#{b: range_b >= |d̄| - γ} + 1) / (P + 1)``.

    Parameters
    ----------
    values : array (R, T)
    abs_differences : array
        Observed ``|mean_i - mean_j|`` of the pairs to test.
    n_permutations : int
    rng : int or numpy.random.Generator
    chunk : int
        Resamples drawn at a time (memory ``chunk x T x R``).

    Returns
    -------
    numpy.ndarray
        The p-value of each ``|d̄|``, in the order given.

    Examples
    --------
    >>> x = np.array([[0.9, 0.8, 0.7, 0.9, 0.8], [0.1, 0.2, 0.1, 0.3, 0.2], [0.5, 0.5, 0.4, 0.6, 0.5]])
    >>> p = tukey_hsd_pvalues(x, [0.64, 0.32, 0.32], 2000)
    >>> bool(p[0] < 0.01), bool(p[1] > p[0])
    (True, True)
    """
    values = np.asarray(values, dtype=float)
    r, t = values.shape
    gen = np.random.default_rng(rng)
    flat = values.T.ravel()  # topic-major: index t * R + system
    offsets = (np.arange(t, dtype=np.int64) * r)[None, :, None]
    base = np.broadcast_to(np.arange(r, dtype=np.int64 if r > 32000 else np.int16), (min(chunk, n_permutations), t, r))
    ranges = np.empty(n_permutations)
    for lo in range(0, n_permutations, chunk):
        hi = min(lo + chunk, n_permutations)
        perm = gen.permuted(base[: hi - lo], axis=-1)
        means = flat[offsets + perm].sum(axis=1) / t  # (c, R)
        ranges[lo:hi] = means.max(axis=1) - means.min(axis=1)
    observed = np.abs(np.asarray(abs_differences, dtype=float))
    ranges.sort()
    # count of ranges >= observed - gamma, by binary search in the sorted ranges
    count = n_permutations - np.searchsorted(ranges, observed - _EPS * observed, side="left")
    return (count + 1) / (n_permutations + 1)


@validate_params(values=ARRAY, pair_i=ARRAY, pair_j=ARRAY, n_resamples=Int(1), confidence=ANY, rng=SEED, chunk=Int(1))
def bca_intervals(values, pair_i, pair_j, n_resamples: int = 2000, confidence: float = 0.95, rng=0,
                  chunk: int = 256):
    """BCa bootstrap intervals of every pair's mean difference: ``(low, high, method)``.

    The same computation as ``scipy.stats.bootstrap((d,), np.mean, method='BCa',
    n_resamples=B, rng=np.random.default_rng(seed))`` for each pair's differences ``d``,
    with the resamples shared by all pairs: topic indices ``rng.integers(0, T, (B, T))``
    (scipy's), bootstrap means ``θ*_b = (c_b · d) / T`` from the resample's topic
    counts ``c_b``. With ``θ̂ = d̄``:

    * ``z0 = Φ⁻¹((#{θ* < θ̂ - ε} + #{θ* ≤ θ̂ + ε}) / 2B)``, ``ε = 10⁻⁹ max(1, |θ̂|)``
      (:func:`fireeval.stats.resampling.share_below`: a replicate within rounding of ``θ̂`` is a tie, counted
      half, where scipy compares exactly and a replicate equal to ``θ̂`` would count by its last bit);
    * acceleration ``a = Σ U_t³ / (6 (Σ U_t²)^{3/2})``, ``U_t = (T - 1)(θ̄_(·) - θ_(t))``
      from the jackknife means ``θ_(t)`` (leave topic t out);
    * ``α_k = Φ(z0 + (z0 + z_k) / (1 - a (z0 + z_k)))`` for ``z_k = Φ⁻¹(α/2), Φ⁻¹(1 - α/2)``;
    * the interval is the ``α_1`` and ``α_2`` quantiles (linear interpolation) of ``θ*``.

    BCa is degenerate when every difference is equal, up to rounding (``a`` is 0/0): then the interval
    is ``[d̄, d̄]`` (method ``"constant"``); and when ``z0`` or ``α_k`` is not finite (all
    ``θ*`` on one side of ``θ̂``): then the percentile interval (method ``"percentile"``).
    Otherwise method ``"BCa"``.

    Parameters
    ----------
    values : array (R, T)
    pair_i, pair_j : int arrays (n_pairs,)
    n_resamples : int
        Bootstrap resamples B.
    confidence : float
        Confidence level in (0, 1).
    rng : int
        Seed of ``numpy.random.default_rng`` for the resample indices.
    chunk : int
        Pairs per block (memory ``B x chunk``).

    Returns
    -------
    low, high : numpy.ndarray (n_pairs,)
        The interval's ends for each pair.
    method : numpy.ndarray (n_pairs,) of str
        ``"BCa"``, ``"percentile"`` or ``"constant"`` (see above).

    Examples
    --------
    >>> x = np.array([[0.5, 0.6, 0.7, 0.9, 0.4, 0.8], [0.4, 0.5, 0.5, 0.6, 0.45, 0.5]])
    >>> low, high, method = bca_intervals(x, [0], [1], 1000)
    >>> bool(low[0] < (x[0] - x[1]).mean() < high[0]), str(method[0])
    (True, 'BCa')
    """
    from scipy.special import ndtr, ndtri

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}. Fix: give e.g. 0.95")
    values = np.asarray(values, dtype=float)
    pair_i, pair_j = np.asarray(pair_i, dtype=np.int64), np.asarray(pair_j, dtype=np.int64)
    t = values.shape[1]
    gen = np.random.default_rng(rng)
    index = gen.integers(0, t, (n_resamples, t))  # scipy's draw, at once (the same stream)
    rows = max(1, min(n_resamples, _BLOCK // max(t, 1)))
    blocks = []  # each resample's topic counts, a block of rows at a time, as small integers
    for r0 in range(0, n_resamples, rows):
        part = index[r0:r0 + rows]
        flat = (np.arange(len(part))[:, None] * t + part).ravel()
        blocks.append(np.bincount(flat, minlength=len(part) * t).reshape(len(part), t).astype(np.uint16 if t < 65536
                                                                                             else np.uint32))
    del index
    alpha = (1 - confidence) / 2
    z_lo, z_hi = float(ndtri(alpha)), float(-ndtri(alpha))
    n = len(pair_i)
    low, high, method = np.empty(n), np.empty(n), np.empty(n, dtype=object)
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        d = values[pair_i[lo:hi]] - values[pair_j[lo:hi]]  # (c, T)
        theta = d.mean(axis=1)
        boot = np.concatenate([block.astype(float) @ d.T for block in blocks]) / t  # (B, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            z0 = ndtri(share_below(boot, theta))
            jack = (d.sum(axis=1, keepdims=True) - d) / (t - 1)  # (c, T) leave-one-out means
            u = (t - 1) * (jack.mean(axis=1, keepdims=True) - jack)
            num = (u ** 3).sum(axis=1) / t ** 3
            den = (u ** 2).sum(axis=1) / t ** 2
            a = num / den ** 1.5 / 6
            a1 = ndtr(z0 + (z0 + z_lo) / (1 - a * (z0 + z_lo)))
            a2 = ndtr(z0 + (z0 + z_hi) / (1 - a * (z0 + z_hi)))
        constant = np.ptp(d, axis=1) <= 16 * np.finfo(float).eps * np.abs(d).max(axis=1)  # equal up to rounding
        ok = np.isfinite(a1) & np.isfinite(a2) & ~constant
        a1 = np.where(ok, a1, alpha)
        a2 = np.where(ok, a2, 1 - alpha)
        boot.sort(axis=0)
        low[lo:hi] = _quantile_sorted(boot, a1)
        high[lo:hi] = _quantile_sorted(boot, a2)
        low[lo:hi][constant], high[lo:hi][constant] = theta[constant], theta[constant]
        method[lo:hi] = np.where(constant, "constant", np.where(ok, "BCa", "percentile"))
    return low, high, method.astype(str)


def _quantile_sorted(sorted_cols, q):
    """Per-column linear-interpolation quantile (numpy's default, Hyndman-Fan 7) of column-sorted data."""
    b = sorted_cols.shape[0]
    pos = np.clip(q, 0.0, 1.0) * (b - 1)
    below = np.floor(pos).astype(np.int64)
    above = np.minimum(below + 1, b - 1)
    cols = np.arange(sorted_cols.shape[1])
    lo, hi = sorted_cols[below, cols], sorted_cols[above, cols]
    return lo + (hi - lo) * (pos - below)


@validate_params(pvalues=PROBABILITIES)
def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (statsmodels ``multipletests(method='holm')``).

    ``p_(k) -> max_{l <= k} min(1, (m - l + 1) p_(l))`` over the sorted p-values, computed as statsmodels
    computes it but without the ``gc.collect()`` it runs in every Holm call (~0.1-0.4 s in a large process).

    Parameters
    ----------
    pvalues : array_like
        Raw p-values.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p
    # statsmodels' computation, step for step (its gc.collect() left out; tests/stats/test_holm.py compares):
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return out


@validate_params(pvalues=ARRAY, n_resamples=Int(1), two_sided=BOOL, exact=BOOL)
def monte_carlo_se(pvalues, n_resamples: int, two_sided: bool = True, exact: bool = False) -> np.ndarray:
    """Monte-Carlo standard error of randomisation p-values estimated from ``n_resamples`` random resamples.

    A one-sided p-value is a binomial proportion of the resamples: ``se = sqrt(p (1 - p) / N)``.
    The two-sided randomisation p-value is twice a one-sided proportion ``p/2``, so
    ``se = 2 sqrt(p/2 (1 - p/2) / N) = sqrt(p (2 - p) / N)``. Exact enumeration (all ``2^T``
    sign flips) has no Monte-Carlo error (0). A 99% band is ``p ± MC_Z se``.

    Parameters
    ----------
    pvalues : array_like
        Randomisation p-values.
    n_resamples : int
        Resamples they were estimated from.
    two_sided : bool
        Two-sided p-values.
    exact : bool
        Exact enumeration (standard error 0).

    Returns
    -------
    numpy.ndarray
        One standard error per p-value.

    Examples
    --------
    >>> monte_carlo_se([0.05, 0.5], 10_000, two_sided=False).round(5).tolist()
    [0.00218, 0.005]
    >>> monte_carlo_se([0.05], 10_000).round(5).tolist(), monte_carlo_se([0.05], 16, exact=True).tolist()
    ([0.00312], [0.0])
    """
    p = np.clip(np.asarray(pvalues, dtype=float), 0.0, 1.0)
    if exact:
        return np.zeros_like(p)
    return np.sqrt(p * (2 - p) / n_resamples) if two_sided else np.sqrt(p * (1 - p) / n_resamples)


@validate_params(pvalues=ARRAY, se=ARRAY)
def holm_monte_carlo_se(pvalues, se) -> np.ndarray:
    """Monte-Carlo standard error of Holm-adjusted p-values, from the raw p-values' errors ``se``.

    Holm's adjusted p-value of the k-th smallest is ``max_{l <= k} (m - l + 1) p_(l)``
    (capped at 1): it is the p-value ``p_(l*)`` of the step ``l*`` attaining the maximum,
    times ``m - l* + 1``, so its standard error is ``(m - l* + 1) se_(l*)`` (first order).

    Parameters
    ----------
    pvalues : array_like
        Raw p-values.
    se : array_like
        Their Monte-Carlo standard errors.

    Returns
    -------
    numpy.ndarray
        The standard error of each adjusted p-value.

    Examples
    --------
    >>> holm_monte_carlo_se([0.01, 0.04, 0.03], [0.001, 0.002, 0.002]).tolist()
    [0.003, 0.004, 0.004]
    """
    p = np.asarray(pvalues, dtype=float)
    se = np.asarray(se, dtype=float)
    m = p.size
    if m == 0:
        return se.copy()
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    at = np.maximum.accumulate(np.where(scaled == np.maximum.accumulate(scaled), np.arange(m), 0))
    out = np.empty(m)
    out[order] = (m - at) * se[order][at]
    return out


@validate_params(n_pairs=Int(0), n_topics=Int(0), alpha=Real(0, 1, closed='neither'), adjust=STR)
def auto_permutations(n_pairs: int, n_topics: int, alpha: float = 0.05, adjust: str = "holm") -> tuple[int, str]:
    """The automatic number of permutations and why: ``(N, reason)``.

    ``DEFAULT_PERMUTATIONS``, raised for Holm over many pairs until the smallest attainable
    adjusted p-value ``2 m / (N + 1)`` is at most ``alpha / 10`` (``N >= 20 m / alpha``), within
    the cap (:data:`AUTO_PERMUTATIONS_CAP`, and :data:`AUTO_FLIP_BYTES` of sign flips). When
    even the cap cannot bring ``2 m / (N + 1)`` below ``alpha``, nothing is raised (no pair could
    become significant; the report says so and suggests the randomised Tukey HSD).

    Parameters
    ----------
    n_pairs : int
        Pairs of systems m.
    n_topics : int
        Topics T.
    alpha : float
        Significance level.
    adjust : str
        As :func:`compare`'s.

    Returns
    -------
    n : int
        Permutations N.
    reason : str
        Why that number.

    Examples
    --------
    >>> auto_permutations(3, 50)[0], auto_permutations(105, 50)[0], auto_permutations(8256, 50)[0]
    (10000, 42000, 10000)
    """
    n = DEFAULT_PERMUTATIONS
    cap = auto_permutation_cap(n_topics)
    if adjust != "holm" or n_pairs < 1:
        return n, ""
    need = math.ceil(20 * n_pairs / alpha)
    if need <= n:
        return n, ""
    if 2 * n_pairs / (cap + 1) >= alpha:
        return n, (f"not raised: even {cap} permutations (the automatic cap) leave the smallest Holm-adjusted "
                   f"p-value over {n_pairs} pairs above alpha")
    n = min(need, cap)
    return n, (f"raised from {DEFAULT_PERMUTATIONS} so that the smallest Holm-adjusted p-value over {n_pairs} pairs, "
               f"2 x {n_pairs} / (N + 1), is {2 * n_pairs / (n + 1):.2g}"
               + (f" (capped at {cap})" if n == cap and need > cap else ""))


@validate_params(n_topics=Int(0))
def auto_permutation_cap(n_topics: int) -> int:
    """The largest automatic number of permutations: :data:`AUTO_PERMUTATIONS_CAP`, and at most
    :data:`AUTO_FLIP_BYTES` of int8 sign flips (``N x T`` bytes), never below the default.

    Parameters
    ----------
    n_topics : int
        Topics T.

    Returns
    -------
    int
        The cap.

    Examples
    --------
    >>> auto_permutation_cap(50) >= DEFAULT_PERMUTATIONS
    True
    """
    return max(DEFAULT_PERMUTATIONS, min(AUTO_PERMUTATIONS_CAP, AUTO_FLIP_BYTES // max(int(n_topics), 1)))


@validate_params(adjust=STR, n_pairs=Int(0), n_permutations=Int(1), exact=BOOL, n_tukey=Int(0))
def smallest_pvalue(adjust: str, n_pairs: int, n_permutations: int, exact: bool = False, n_tukey: int = 0) -> float:
    """The smallest p-value a test can give (resampling resolution, after adjustment): ``2 / (N + 1)`` for the
    randomisation test (``2 / 2^T`` exact), times the number of pairs under Holm (its first step), ``1 / (N + 1)``
    for the randomised Tukey HSD, 0 for the t-tests.

    Parameters
    ----------
    adjust : str
        As :func:`compare`'s.
    n_pairs : int
        Pairs of systems.
    n_permutations : int
        Resamples N.
    exact : bool
        Exact enumeration of the sign flips.
    n_tukey : int
        Resamples of the Tukey HSD test.

    Returns
    -------
    float
        The smallest attainable p-value.

    Examples
    --------
    >>> smallest_pvalue("holm", 105, 9999), smallest_pvalue("none", 1, 16, exact=True)
    (0.021, 0.125)
    """
    floor = 1.0 / n_permutations if exact else 1.0 / (n_permutations + 1)
    if adjust in ("holm", "none"):
        return min(1.0, 2 * floor * (n_pairs if adjust == "holm" else 1))
    return 1.0 / (n_tukey + 1) if adjust == "tukey" else 0.0


def _near_alpha(p, se, alpha, floor) -> np.ndarray:
    """Decisions within the 99% Monte-Carlo band of alpha, unless no resampling could reach alpha at all."""
    if floor >= alpha:
        return np.zeros(len(p), dtype=bool)
    return (se > 0) & (np.abs(p - alpha) < MC_Z * se)


def _permutations_to_settle(p, se, alpha, n, near) -> int:
    """Permutations that would put every near decision ``MC_Z`` standard errors from alpha (se ~ 1/sqrt(N))."""
    gap = np.abs(p[near] - alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        need = n * (MC_Z * se[near] / gap) ** 2
    return int(min(np.nanmax(np.where(np.isfinite(need), need, np.inf)), 1e18)) + 1 if near.any() else n


# ---------------------------------------------------------------- the comparison
@dataclass
class Comparison:
    """The result of :func:`compare`. ``pairs`` holds one array per column, one entry per pair.

    Pair columns: ``i``, ``j`` (system indices), ``a``, ``b`` (names), ``diff`` (mean of
    ``a - b``), ``ci_low``, ``ci_high``, ``ci_method``, ``effect`` (d_z), ``t``, ``p_t``,
    ``p_t_holm``, ``p_perm``, ``p_perm_holm``, ``p_tukey``, ``min_detectable`` (the
    smallest difference the paired t-test detects for this pair's ``s_d`` at this topic
    count, α and power), and the Monte-Carlo standard errors of the randomised p-values
    ``p_perm_se``, ``p_perm_holm_se``, ``p_tukey_se`` (:func:`monte_carlo_se`,
    :func:`holm_monte_carlo_se`; 0 for exact enumeration). ``permutation_note`` says how an
    automatic number of permutations was chosen.

    Parameters
    ----------
    names, topics : list
        The systems' and the topics' names.
    values : numpy.ndarray (n_systems, n_topics)
        The per-topic scores compared.
    measure : str
        The measure's name.
    pairs : dict of str to numpy.ndarray
        The pair columns above.
    n_permutations, exact, n_bootstrap, seed
        The randomisation test's permutations (``exact``: all of them enumerated), the bootstrap's
        resamples, and the seed of both.
    alpha, confidence, adjust, power
        The test level, the intervals' confidence, the multiple-comparison adjustment and the power of
        ``min_detectable``.
    notes : list of str
        What the reader should know about these data (e.g. ties, few topics).
    n_tukey : int
        Permutations of the Tukey HSD test (0: not computed).
    permutation_note : str
        How the automatic number of permutations was chosen ("" when given).

    Examples
    --------
    >>> c = compare(np.array([[0.9, 0.8, 0.7, 0.9], [0.2, 0.1, 0.3, 0.2]]), ["A", "B"], n_permutations=200)
    >>> isinstance(c, Comparison), c.names, c.means.round(3).tolist()
    (True, ['A', 'B'], [0.825, 0.2])
    >>> float(c.pairs["diff"][0]), bool(c.pairs["ci_low"][0] > 0)
    (0.625, True)
    """

    names: list
    topics: list
    values: np.ndarray
    measure: str
    pairs: dict
    n_permutations: int
    exact: bool
    n_bootstrap: int
    seed: int
    alpha: float
    confidence: float
    adjust: str
    power: float
    notes: list = field(default_factory=list)
    n_tukey: int = 0  # permutations of the Tukey HSD test (0: not computed)
    permutation_note: str = ""  # how the automatic number of permutations was chosen ("" when given)

    @property
    def means(self) -> np.ndarray:
        return self.values.mean(axis=1)

    def pvalue_matrix(self, adjust: str | None = None) -> np.ndarray:
        """R x R matrix of the p-values used for significance (``adjust``: holm, tukey, none, t, t-holm)."""
        key = _ADJUST_COLUMN[adjust or self.adjust]
        r = len(self.names)
        m = np.ones((r, r))
        m[self.pairs["i"], self.pairs["j"]] = self.pairs[key]
        m[self.pairs["j"], self.pairs["i"]] = self.pairs[key]
        return m

    def significant(self, adjust: str | None = None) -> np.ndarray:
        """R x R booleans: ``[i, j]`` when system i's mean is above j's and the difference is significant."""
        p = self.pvalue_matrix(adjust)
        means = self.means
        return (p < self.alpha) & (means[:, None] > means[None, :])

    def ranking(self, adjust: str | None = None) -> list[dict]:
        """Systems by mean, best first: rank, name, mean, the systems (names) it beats significantly, and
        its letters, a compact letter display (:func:`significance_groups`): ``groups`` as text, ``group_ids``
        as numbers."""
        order = np.argsort(-self.means, kind="stable")
        sig = self.significant(adjust)
        groups = significance_groups(self.means, self.pvalue_matrix(adjust), self.alpha)
        n_groups = max((g[-1] for g in groups if g), default=-1) + 1
        out = []
        for rank, i in enumerate(order, 1):
            beats = [int(j) for j in order if sig[i, j]]
            out.append({"rank": rank, "system": self.names[i], "mean": float(self.means[i]),
                        "beats": [self.names[j] for j in beats],
                        "beats_ranks": [int(np.flatnonzero(order == j)[0]) + 1 for j in beats],
                        "groups": group_label(groups[i], n_groups), "group_ids": groups[i]})
        return out

    def pair_power(self, a: str, b: str, difference: float | None = None) -> dict:
        """Power figures of one pair from its own per-topic differences: ``sd`` of the differences, the
        smallest difference detectable with this topic count, and the topics needed for ``difference``
        (default: the pair's observed mean difference).

        Examples
        --------
        >>> c = compare({"A": [0.5, 0.6, 0.8, 0.4], "B": [0.4, 0.6, 0.6, 0.3]}, n_bootstrap=0)
        >>> out = c.pair_power("A", "B")
        >>> round(out["sd"], 4), out["topics_needed"]
        (0.0816, 8)
        """
        i, j = self.names.index(a), self.names.index(b)
        d = self.values[i] - self.values[j]
        sd = float(d.std(ddof=1))
        target = abs(float(d.mean())) if difference is None else float(difference)
        return {"a": a, "b": b, "n_topics": len(self.topics), "sd": sd, "difference": target,
                "min_detectable": float(detectable_difference(sd, len(self.topics), self.alpha, self.power)),
                "topics_needed": topics_needed(target, sd, self.alpha, self.power) if sd > 0 and target > 0 else None}

    def monte_carlo_se(self, adjust: str | None = None) -> np.ndarray:
        """Per pair, the Monte-Carlo standard error of the p-value that decides (0 for the t-tests and exact
        enumeration)."""
        key = _SE_COLUMN.get(adjust or self.adjust)
        return np.zeros(len(self.pairs["i"])) if key is None else np.nan_to_num(self.pairs[key])

    def near_threshold(self, adjust: str | None = None) -> np.ndarray:
        """Per pair, whether its decision (p < alpha or not) is within the Monte-Carlo error: ``|p - alpha| <
        MC_Z se``, the 99% band, so another seed may well decide it the other way. None is when the smallest
        attainable p-value is not below alpha: then no seed makes any pair significant."""
        adjust = adjust or self.adjust
        return _near_alpha(self.pairs[_ADJUST_COLUMN[adjust]], self.monte_carlo_se(adjust), self.alpha,
                           self.smallest_pvalue(adjust))

    def smallest_pvalue(self, adjust: str | None = None) -> float:
        """The smallest p-value the chosen test can give here (resampling resolution, after adjustment)."""
        return smallest_pvalue(adjust or self.adjust, len(self.pairs["i"]), self.n_permutations, self.exact,
                               self.n_tukey)

    def warnings(self, adjust: str | None = None) -> list[str]:
        """What limits the verdicts: e.g. too few permutations for Holm over this many pairs."""
        adjust = adjust or self.adjust
        out = []
        low = self.smallest_pvalue(adjust)
        if low >= self.alpha:
            n_pairs = len(self.pairs["i"])
            if adjust == "tukey":
                out.append(f"with {self.n_tukey} permutations the smallest randomised Tukey HSD p-value is {low:.3g} "
                           f">= alpha {self.alpha:g}: no pair can be significant. Fix: use at least "
                           f"{math.ceil(1 / self.alpha)} permutations")
            elif self.exact:
                out.append(f"with {len(self.topics)} topics even the exact randomisation test (all "
                           f"{self.n_permutations} sign flips) gives p >= {low:.3g} "
                           f"{'after Holm over ' + str(n_pairs) + ' pairs ' if adjust == 'holm' else ''}"
                           f">= alpha {self.alpha:g}: no pair can be significant. Fix: use more topics"
                           f"{' or --adjust tukey' if adjust == 'holm' else ''}")
            else:
                need = math.ceil(2 * (n_pairs if adjust == "holm" else 1) / self.alpha)
                out.append(f"with {self.n_permutations} permutations the smallest {adjust}-adjusted randomisation "
                           f"p-value over {n_pairs} pairs is {low:.3g} >= alpha {self.alpha:g}: no pair can be "
                           f"significant. Fix: use --adjust tukey (randomised Tukey HSD) or at least {need} "
                           "permutations")
        near = self.near_threshold(adjust)
        if near.any():
            p = self.pairs[_ADJUST_COLUMN[adjust]]
            se = self.monte_carlo_se(adjust)
            n = self.n_tukey if adjust == "tukey" else self.n_permutations
            shown = "; ".join(f"{self.pairs['a'][k]} vs {self.pairs['b'][k]} p {p[k]:.4f} ± {MC_Z * se[k]:.4f}"
                              for k in np.flatnonzero(near)[:3])
            need = _permutations_to_settle(p, se, self.alpha, n, near)
            fix = (f"use --permutations {need}" if need <= 100 * n else
                   "read them as undecided (a p-value this close to alpha needs more permutations than is "
                   "practical)")
            out.append(f"{int(near.sum())} of {len(near)} decisions are within the Monte-Carlo error of alpha "
                       f"{self.alpha:g} ({adjust} p-value ± {MC_Z:.3g} standard errors, 99%, from {n} permutations): "
                       f"{shown}{' ...' if near.sum() > 3 else ''}; another --seed may decide them the other way. "
                       f"Fix: {fix}")
        return out

    def table(self):
        """The pairs as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.pairs)

    def set_power(self, difference: float | None = None) -> dict:
        """Topic-set size of the whole set (:func:`topic_set_size`) at this comparison's α and power."""
        return topic_set_size(self.values, difference=difference, alpha=self.alpha, power=self.power)

    def to_json(self, difference: float | None = None) -> dict:
        """Everything as plain JSON values."""
        def plain(value):
            value = value.item() if hasattr(value, "item") else value
            return None if isinstance(value, float) and value != value else value  # NaN -> null (strict JSON)

        pairs = [{k: plain(v[n]) for k, v in self.pairs.items()} for n in range(len(self.pairs["i"]))]
        return {"measure": self.measure, "n_topics": len(self.topics), "topics": list(self.topics),
                "settings": {"permutations": self.n_permutations, "exact": self.exact, "tukey_permutations": self.n_tukey,
                             "permutations_chosen": self.permutation_note or "given",
                             "monte_carlo_error": "p_*_se: standard error of a randomised p-value from its "
                                                  "number of resamples; a decision is uncertain when |p - alpha| < "
                                                  f"{MC_Z:.4g} se (99%)",
                             "bootstrap": self.n_bootstrap,
                             "seed": self.seed, "alpha": self.alpha, "confidence": self.confidence,
                             "adjust": self.adjust, "power": self.power,
                             "effect_size": "d_z = mean difference / sd of the per-topic differences"},
                "systems": self.ranking(), "pairs": pairs, "power": self.set_power(difference),
                "notes": list(self.notes) + self.warnings()}


_ADJUST_COLUMN = {"holm": "p_perm_holm", "tukey": "p_tukey", "none": "p_perm", "t": "p_t", "t-holm": "p_t_holm"}
_SE_COLUMN = {"holm": "p_perm_holm_se", "tukey": "p_tukey_se", "none": "p_perm_se"}


_LEVEL = Check(lambda name, value: _check_level(name, value))  # alpha, power, confidence: in (0, 1)


@validate_params(scores=ANY, names=ANY, topics=ANY, measure=[STR, None], n_permutations=ANY, seed=Int(0), alpha=_LEVEL, n_bootstrap=ANY, confidence=_LEVEL, adjust=Check(lambda name, value: _check_adjust(name, value)), power=_LEVEL, tukey=BOOL, flips=ANY)
def compare(scores, names: Sequence[str] | None = None, *, topics: Sequence | None = None, measure: str | None = None,
            n_permutations: int | None = None, seed: int = 0, alpha: float = 0.05, n_bootstrap: int = 2000,
            confidence: float = 0.95, adjust: str = "holm", power: float = 0.8, tukey: bool = True,
            flips: np.ndarray | None = None) -> Comparison:
    """Paired comparison of every pair of systems on the same topics (module docstring for the formulas).

    Parameters
    ----------
    scores : array (systems, topics), mapping name -> per-topic scores, DataFrame, or PerTopicScores
        Per-topic scores; the same topics in the same order for every system
        (:func:`scores_from_trec`, :func:`scores_from_moments`, :func:`scores_from_similarity`).
    names, topics : sequences, optional
        System and topic labels (taken from a mapping, DataFrame or PerTopicScores).
    measure : str, optional
        The measure's name, for reports.
    n_permutations : int, optional
        Sign flips of the randomisation test (all ``2^T`` when that is no more) and
        label permutations of the Tukey HSD test. ``None`` (default): automatic --
        :data:`DEFAULT_PERMUTATIONS`, raised for Holm over many pairs
        (:func:`auto_permutations`) and, once, when a decision of ``adjust`` is within the
        Monte-Carlo error of ``alpha`` (to the number that would put it ``MC_Z`` standard
        errors away, at least double), never beyond :func:`auto_permutation_cap`; how it was
        chosen is ``Comparison.permutation_note``. A given number is used as is.
    seed : int
        Seed of the flips, the permutations and the bootstrap indices.
    alpha : float
        Significance level for ``significant``/``ranking`` and the power figures.
    n_bootstrap : int
        Bootstrap resamples of the BCa intervals; 0 skips the intervals (NaN).
    confidence : float
        Confidence level of the intervals.
    adjust : {"holm", "tukey", "none", "t", "t-holm"}
        Which p-value decides "significant": randomisation test with Holm (default), the
        randomised Tukey HSD, the unadjusted randomisation test, the t-test, the t-test with Holm.
    power : float
        Power for ``min_detectable`` and :meth:`Comparison.set_power`.
    tukey : bool
        Compute the randomised Tukey HSD p-values (NaN otherwise).
    flips : array (P, T) of ±1, optional
        Use these sign flips instead of drawing them (e.g. to reproduce another tool's resamples).

    Returns
    -------
    Comparison
        One row per pair of systems in ``Comparison.pairs`` (mean difference, BCa interval,
        randomisation, Tukey HSD and t-test p-values, adjusted as ``adjust`` says, ``significant``),
        the systems' means, :meth:`Comparison.ranking` (who beats whom), the letters of a
        compact letter display and the topic-set power figures.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = np.clip(rng.normal([[0.5], [0.3], [0.29]], 0.1, size=(3, 30)), 0, 1)
    >>> c = compare(x, ["A", "B", "C"], n_permutations=2000)
    >>> [(row["system"], row["beats"]) for row in c.ranking()]
    [('A', ['B', 'C']), ('B', []), ('C', [])]
    >>> str(c.pairs["ci_method"][0]), bool(c.pairs["p_perm_holm"][0] < 0.01)
    ('BCa', True)
    """
    from scipy.stats import ttest_rel

    s = _as_scores(scores, names, topics, measure)
    _check(s)
    check_resamples(n_permutations, n_bootstrap, s.values.shape[1])
    values = np.ascontiguousarray(s.values, dtype=float)
    r, t = values.shape
    pi, pj = _pairs(r)
    d = values[pi] - values[pj]
    diff = d.mean(axis=1)
    n_pairs = len(pi)
    if flips is not None:
        flips = _check_flips(flips, t)
    rand, n_tukey, note = _permutation_tests(values, (pi, pj, diff), n_permutations, flips, alpha, adjust, tukey, seed)
    p_perm, p_perm_se = rand["none"]
    p_perm_holm, p_perm_holm_se = rand["holm"]
    p_tukey, p_tukey_se = rand["tukey"]
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(sd > 0, diff / sd, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
        tt = ttest_rel(values[pi], values[pj], axis=1)
    t_stat, p_t = np.asarray(tt.statistic, dtype=float), np.asarray(tt.pvalue, dtype=float)
    p_t = np.where(np.isnan(p_t) & (sd == 0) & (diff == 0), 1.0, p_t)  # identical systems: nothing to reject
    if n_bootstrap:
        low, high, how = bca_intervals(values, pi, pj, n_bootstrap, confidence, seed)
    else:
        low, high, how = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan), np.full(n_pairs, "none")
    es = detectable_difference(1.0, t, alpha, power)
    pairs = {"i": pi, "j": pj, "a": np.asarray(s.names, dtype=object)[pi].astype(str),
             "b": np.asarray(s.names, dtype=object)[pj].astype(str), "diff": diff, "ci_low": low, "ci_high": high,
             "ci_method": how, "effect": effect, "t": t_stat, "p_t": p_t, "p_t_holm": holm(np.nan_to_num(p_t, nan=1.0)),
             "p_perm": p_perm, "p_perm_holm": p_perm_holm, "p_tukey": p_tukey, "min_detectable": es * sd,
             "p_perm_se": p_perm_se, "p_perm_holm_se": p_perm_holm_se, "p_tukey_se": p_tukey_se}
    return Comparison(list(s.names), list(s.topics), values, s.measure, pairs, rand["n_flips"], rand["exact"],
                      int(n_bootstrap), int(seed), float(alpha), float(confidence), adjust, float(power), list(s.notes),
                      int(n_tukey) if tukey else 0, note)


def _check_level(name, value):
    """``alpha``, ``power`` and ``confidence`` of :func:`compare`: a number in (0, 1)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0 < value < 1:
        example = {"alpha": "0.05", "power": "0.8", "confidence": "0.95"}[name]
        raise ValueError(f"{name} must be a number in (0, 1), not {value!r}. Fix: give e.g. {example}")


def _check_adjust(name, adjust):
    if adjust not in _ADJUST_COLUMN:
        raise ValueError(f"adjust must be one of {', '.join(_ADJUST_COLUMN)}, not {adjust!r}. Fix: give one of "
                         "these (holm is the default)")


def _check_flips(flips, t: int) -> np.ndarray:
    flips = np.asarray(flips)
    if flips.ndim != 2 or flips.shape[1] != t or not np.isin(flips, (-1, 1)).all():
        raise ValueError(f"flips must be a (P, {t}) matrix of -1 and +1. Fix: give one row of signs per "
                         "resample and one column per topic, or leave flips out")
    return flips


def _permutation_tests(values, pairs, n_permutations, flips, alpha, adjust, tukey, seed) -> tuple[dict, int, str]:
    """:func:`_randomised` with :func:`compare`'s numbers of permutations: ``(results, Tukey permutations, note)``.

    Automatic (``n_permutations`` and ``flips`` None): only the test that decides gets more than the base, and a
    decision within the Monte-Carlo error of alpha is tested once more with the permutations that would settle it."""
    pi, pj, diff = pairs
    t, n_pairs = values.shape[1], len(pi)
    auto = n_permutations is None and flips is None
    if n_permutations is None:
        n_permutations, note = auto_permutations(n_pairs, t, alpha, adjust) if auto else (DEFAULT_PERMUTATIONS, "")
    else:
        note = ""  # check_resamples has refused a number out of range
    n_flips = n_tukey = int(n_permutations)
    if auto:  # only the test that decides gets more than the base
        n_flips = n_permutations if adjust != "tukey" else DEFAULT_PERMUTATIONS
        n_tukey = n_permutations if adjust == "tukey" else DEFAULT_PERMUTATIONS
    rand = _randomised(values, pi, pj, diff, n_flips, n_tukey if tukey else 0, seed, flips)
    if not (auto and adjust in _SE_COLUMN and (adjust != "tukey" or tukey)):
        return rand, n_tukey, note
    p, se = rand[adjust]
    n_now = n_tukey if adjust == "tukey" else rand["n_flips"]
    near = _near_alpha(p, se, alpha, smallest_pvalue(adjust, n_pairs, rand["n_flips"], rand["exact"], n_tukey))
    cap = auto_permutation_cap(t)
    if near.any() and n_now < cap:
        more = min(cap, max(2 * n_now, _permutations_to_settle(p, se, alpha, n_now, near)))
        if adjust == "tukey":
            n_tukey = more
        else:
            n_flips = more
        rand = _randomised(values, pi, pj, diff, n_flips, n_tukey if tukey else 0, seed, None)
        note = ((note + "; then " if note else "") +
                f"raised from {n_now} to {more}{' (the automatic cap)' if more == cap else ''} because "
                f"{int(near.sum())} decision(s) were within the Monte-Carlo error of alpha")
    return rand, n_tukey, note


def _randomised(values, pi, pj, diff, n_flips: int, n_tukey: int, seed, flips) -> dict:
    """The randomised p-values and their Monte-Carlo errors: ``{"none": (p, se), "holm": (p, se), "tukey":
    (p, se), "n_flips": P, "exact": bool}``. One seeded stream: the sign flips, then the Tukey permutations."""
    gen = np.random.default_rng(seed)
    if flips is None:
        flips, exact = sign_flips(values.shape[1], n_flips, gen)
    else:
        exact = False
    n = int(flips.shape[0])
    p_perm = randomisation_pvalues(values, pi, pj, flips, exact)
    se = monte_carlo_se(p_perm, n, exact=exact)
    out = {"none": (p_perm, se), "holm": (holm(p_perm), holm_monte_carlo_se(p_perm, se)), "n_flips": n,
           "exact": bool(exact)}
    if n_tukey:
        p_tukey = tukey_hsd_pvalues(values, np.abs(diff), n_tukey, gen)
        out["tukey"] = (p_tukey, monte_carlo_se(p_tukey, n_tukey, two_sided=False))
    else:
        out["tukey"] = (np.full(len(pi), np.nan), np.full(len(pi), np.nan))
    return out


@validate_params(means=ARRAY, pvalues=ARRAY, alpha=Real(0, 1, closed='neither'))
def significance_groups(means, pvalues, alpha: float = 0.05) -> list[list[int]]:
    """Compact letter display (Piepho 2004): systems sharing a letter are not significantly different.

    Two systems differ significantly when their p-value is below ``alpha`` (a NaN p-value
    is no significant difference, as in :meth:`Comparison.significant`). The letters are
    built by Piepho's *insert-and-absorb* algorithm (Piepho 2004, *An algorithm for a
    letter-based representation of all-pairwise comparisons*, J. Comput. Graph. Stat.
    13(2); the algorithm of R's ``multcompView``):

    1. start with one letter shared by every system;
    2. for each significant pair (i, j), every letter holding both is split into two
       copies, one without i and one without j (*insert*); a letter whose systems are all
       in another letter is dropped (*absorb*);
    3. *sweep*: a system is taken out of a letter when every pair it forms with the
       letter's other systems also shares another letter; letters left empty or inside
       another are dropped.

    The result has both properties of a compact letter display: two systems share no
    letter exactly when they differ significantly. Insert-and-absorb gives the maximal
    sets of mutually not-different systems; the sweep removes redundant memberships,
    not whole sets, so the letter count is the algorithm's, not a proven minimum (that
    is NP-hard, Gramm et al. 2006). Letters are numbered in the order of the first
    system (by mean, best first) that holds them, then of the next.

    Returns, per system (input order), the sorted numbers (0, 1, ...) of its letters;
    :func:`group_label` writes them as letters.

    Parameters
    ----------
    means : array_like (n_systems,)
        Mean scores (the display lists the best first).
    pvalues : array_like (n_systems, n_systems)
        Pairwise p-values.
    alpha : float
        Significance level.

    Returns
    -------
    list of list of int
        The letter numbers of each system.

    Examples
    --------
    >>> p = np.array([[1, 0.5, 0.01], [0.5, 1, 0.2], [0.01, 0.2, 1]])
    >>> significance_groups([0.9, 0.8, 0.7], p)
    [[0], [0, 1], [1]]
    >>> p = np.array([[1, 0.01, 0.3], [0.01, 1, 0.01], [0.3, 0.01, 1]])  # the first and third share "a"
    >>> significance_groups([0.9, 0.8, 0.7], p)
    [[0], [1], [0]]
    """
    means = np.asarray(means, dtype=float)
    p = np.asarray(pvalues, dtype=float)
    n = len(means)
    if p.shape != (n, n):
        raise ValueError(f"pvalues must be a {n} x {n} matrix for {n} means, not {p.shape}. Fix: give one row and "
                         "one column per mean, in the order of the means")
    differ = p < alpha  # NaN: not significant
    differ = differ | differ.T
    np.fill_diagonal(differ, False)
    letters = _insert_absorb(n, np.argwhere(np.triu(differ, 1)))
    letters = _sweep(letters)
    order = np.argsort(-means, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    keyed = sorted(letters, key=lambda bits: sorted(int(rank[i]) for i in _members(bits)))
    groups = [[] for _ in range(n)]
    for k, bits in enumerate(keyed):
        for i in _members(bits):
            groups[i].append(k)
    return groups


def _members(bits: int) -> list[int]:
    """The set bits of an int (the systems of a letter)."""
    out, i = [], 0
    while bits:
        if bits & 1:
            out.append(i)
        bits >>= 1
        i += 1
    return out


def _insert_absorb(n: int, pairs) -> list[int]:
    """Piepho's insert-and-absorb: letters as bitsets (Python ints), maximal under inclusion."""
    letters = [(1 << n) - 1] if n else []
    for i, j in pairs:
        both = (1 << int(i)) | (1 << int(j))
        split = [c for c in letters if c & both == both]
        if not split:
            continue
        keep = [c for c in letters if c & both != both]
        new = []
        for c in split:
            for part in (c & ~(1 << int(i)), c & ~(1 << int(j))):
                # absorb: drop a new letter inside a kept one or another new one (old letters were maximal
                # among themselves and cannot lie inside a part of a letter they were not inside)
                if part and not any(part | k == k for k in keep) and part not in new:
                    new.append(part)
        new = [c for c in new if not any(c != d and c | d == d for d in new)]
        letters = keep + new
    return letters


def _sweep(letters: list[int]) -> list[int]:
    """Piepho's sweeping: take a system out of a letter when every pair it forms with the letter's other
    systems shares another letter too, and the system keeps a letter."""
    letters = list(letters)
    for k in range(len(letters)):
        for i in _members(letters[k]):
            bit = 1 << i
            elsewhere = 0  # the systems sharing another letter with i
            for m, c in enumerate(letters):
                if m != k and c & bit:
                    elsewhere |= c
            others = letters[k] & ~bit
            if elsewhere and others | elsewhere == elsewhere:
                letters[k] = others
    out = [c for c in letters if c]
    # a letter left inside another (or equal to an earlier one) says nothing more
    return [c for m, c in enumerate(out)
            if not any(q != m and c | d == d and (c != d or q < m) for q, d in enumerate(out))]


@validate_params(groups=ANY, n_groups=Int(0))
def group_label(groups: Sequence[int], n_groups: int) -> str:
    """Letters for letter numbers (numbers from 1, comma-separated, when there are more than 26 letters);
    a run of three or more consecutive letters as ``first-last``, and then the pieces comma-separated.

    Parameters
    ----------
    groups : sequence of int
        Letter numbers, from 0.
    n_groups : int
        Letters in the display.

    Returns
    -------
    str
        The label.

    Examples
    --------
    >>> group_label([0], 3), group_label([0, 1], 3), group_label([2, 3, 4, 5], 8), group_label([0, 2], 3)
    ('a', 'ab', 'c-f', 'ac')
    >>> group_label([0, 1, 2, 5], 8), group_label([27, 28, 29], 40), group_label([3, 7], 40)
    ('a-c,f', '28-30', '4,8')
    """
    letters = n_groups <= 26
    name = (lambda k: chr(ord("a") + k)) if letters else (lambda k: str(k + 1))
    pieces, k, ks = [], 0, sorted(int(g) for g in groups)
    while k < len(ks):
        end = k
        while end + 1 < len(ks) and ks[end + 1] == ks[end] + 1:
            end += 1
        if end - k >= 2:
            pieces.append(f"{name(ks[k])}-{name(ks[end])}")
            k = end + 1
        else:
            pieces.append(name(ks[k]))
            k += 1
    ranged = any("-" in piece for piece in pieces)
    return ("," if ranged or not letters else "").join(pieces)


# ---------------------------------------------------------------- power and topic-set size
@validate_params(sd=ARRAY, n_topics=Int(1), alpha=Real(0, 1, closed='neither'), power=Real(0, 1, closed='neither'))
def detectable_difference(sd, n_topics: int, alpha: float = 0.05, power: float = 0.8):
    """Smallest mean difference a two-sided paired t-test detects with ``n_topics`` topics.

    ``δ_min = e · s_d`` where ``e`` solves statsmodels ``TTestPower().solve_power(nobs=n,
    alpha=α, power=1-β)`` (the noncentral-t power of the one-sample/paired test).

    Parameters
    ----------
    sd : float or array
        Standard deviation of the per-topic differences.
    n_topics : int
    alpha, power : float

    Returns
    -------
    float or numpy.ndarray
        ``δ_min`` for each ``sd``.

    Examples
    --------
    >>> round(float(detectable_difference(0.1, 50)), 4)
    0.0404
    """
    from statsmodels.stats.power import TTestPower

    if n_topics < 2:
        raise ValueError(f"need at least two topics, not {n_topics}. Fix: give n_topics >= 2")
    e = TTestPower().solve_power(effect_size=None, nobs=n_topics, alpha=alpha, power=power, alternative="two-sided")
    return float(np.ravel(e)[0]) * np.asarray(sd, dtype=float)


@validate_params(difference=Real(0, None, closed='neither'), sd=Real(0, None), alpha=Real(0, 1, closed='neither'), power=Real(0, 1, closed='neither'))
def topics_needed(difference: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Topics a two-sided paired t-test needs to detect a mean difference ``difference`` (ceiling).

    Solves statsmodels ``TTestPower().solve_power(effect_size=difference/sd, alpha, power)``.

    Parameters
    ----------
    difference : float
        Mean difference to detect.
    sd : float
        SD of the per-topic differences.
    alpha, power : float
        Significance level and power.

    Returns
    -------
    int
        Topics needed.

    Examples
    --------
    >>> topics_needed(0.0405, 0.1), topics_needed(0.02, 0.1)
    (50, 199)
    """
    from statsmodels.stats.power import TTestPower

    if difference <= 0 or sd <= 0:
        raise ValueError(f"difference and sd must be > 0 (got {difference}, {sd}). Fix: give positive numbers")
    n = TTestPower().solve_power(effect_size=difference / sd, nobs=None, alpha=alpha, power=power,
                                 alternative="two-sided")
    return int(math.ceil(float(np.ravel(n)[0]) - 1e-9))


def _residual_variance(values) -> float:
    """V_E of the two-way ANOVA without replication (systems x topics): Sakai's pooled variance."""
    x = np.asarray(values, dtype=float)
    r, t = x.shape
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float((resid ** 2).sum() / ((r - 1) * (t - 1)))


@validate_params(values=ARRAY, difference=[Real(0, None, closed='neither'), None], alpha=Real(0, 1, closed='neither'), power=Real(0, 1, closed='neither'))
def topic_set_size(values, difference: float | None = None, alpha: float = 0.05, power: float = 0.8) -> dict:
    """Sakai's topic-set-size design for a whole set of systems, from the observed per-topic variance.

    ``σ̂² = V_E``, the residual mean square of the two-way ANOVA without replication
    (``Σ (x_it - x̄_i· - x̄_·t + x̄)² / ((R-1)(T-1))``). Two designs:

    * paired t-test for any one pair, ``s_d² = 2 σ̂²``: ``min_detectable_t`` at the set's
      topic count (:func:`detectable_difference`) and ``topics_needed_t`` for ``difference``;
    * one-way ANOVA over all ``m = R`` systems (statsmodels ``FTestAnovaPower``, Cohen's
      ``f² = D² / (2 m σ̂²)`` for a range ``D`` between the best and worst system, total
      ``nobs = m n``, so the noncentrality is Sakai's ``λ = n D² / (2 σ̂²)``):
      ``min_detectable_range_anova`` and ``topics_needed_anova``.

    Parameters
    ----------
    values : array (systems, topics)
    difference : float, optional
        The difference (t-test) and range (ANOVA) to detect; without it, only the
        minimum detectable figures.
    alpha, power : float

    Returns
    -------
    dict
        The inputs and the design's figures (keys as in the example): ``sd_diff``,
        ``min_detectable_t``, ``min_detectable_range_anova`` and, with ``difference``,
        ``topics_needed_t`` and ``topics_needed_anova``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(0.3, 0.1, size=(5, 50))
    >>> out = topic_set_size(x, difference=0.05)
    >>> sorted(out)
    ['alpha', 'difference', 'min_detectable_range_anova', 'min_detectable_t', 'n_systems', 'n_topics', 'power', 'sd_diff', 'topics_needed_anova', 'topics_needed_t', 'variance']
    """
    from statsmodels.stats.power import FTestAnovaPower

    x = np.asarray(values, dtype=float)
    m, n = x.shape
    if m < 2 or n < 2:
        raise ValueError(f"need at least two systems and two topics, not {m} x {n}. Fix: give a systems x topics "
                         "matrix with two or more of each")
    var = _residual_variance(x)
    sd_diff = math.sqrt(2 * var)
    out = {"n_systems": m, "n_topics": n, "alpha": alpha, "power": power, "variance": var, "sd_diff": sd_diff,
           "difference": difference}
    anova = FTestAnovaPower()
    if var > 0:
        out["min_detectable_t"] = float(detectable_difference(sd_diff, n, alpha, power))
        f = float(np.ravel(anova.solve_power(effect_size=None, nobs=m * n, alpha=alpha, power=power, k_groups=m))[0])
        out["min_detectable_range_anova"] = f * math.sqrt(2 * m * var)
    else:
        out["min_detectable_t"] = out["min_detectable_range_anova"] = 0.0
    out["topics_needed_t"] = out["topics_needed_anova"] = None
    if difference is not None and var > 0:
        out["topics_needed_t"] = max(2, topics_needed(difference, sd_diff, alpha, power))
        f = difference / math.sqrt(2 * m * var)
        nobs = float(np.ravel(anova.solve_power(effect_size=f, nobs=None, alpha=alpha, power=power, k_groups=m))[0])
        out["topics_needed_anova"] = max(2, int(math.ceil(nobs / m - 1e-9)))
    return out


# ---------------------------------------------------------------- per-topic scores from the book's data
@validate_params(qrels=ANY, runs=ANY, measure=STR, complete=BOOL, relevance_level=[Int(0), None], judged_only=BOOL, score_precision=STR)
def scores_from_trec(qrels, runs: Sequence, measure: str, *, complete: bool = False, relevance_level: int | None = None,
                     judged_only: bool = False, score_precision: str = "float") -> PerTopicScores:
    """Per-topic scores of TREC run files by one measure, as ``fireeval evaluate -q`` computes them.

    Each run is read and scored by :func:`fireeval.core.api.iter_run_scores`. The paired
    topics are those every run was evaluated on (topics a run lacks are dropped, with a
    note), or with ``complete`` every qrels topic, a missing one scoring 0 (trec_eval -c).
    A run is named by its tag, or by its path when two runs share a tag.

    Parameters
    ----------
    qrels : path or fireeval.core.stream.QrelsIndex
    runs : sequence of paths
    measure : str
        One measure name of :mod:`fireeval.core.evaluation` summarised by the mean over
        topics (``map``, ``P_10``, ``ndcg_cut_10``, ``correct@5`` ...).
    complete, relevance_level, judged_only, score_precision
        As ``fireeval evaluate`` ``-c``, ``-l``, ``-J``, ``--score-precision``.

    Returns
    -------
    PerTopicScores
        Systems (one per run) x paired topics, with notes on dropped topics.

    Examples
    --------
    >>> from fireeval.datasets import has_data, data_path  # doctest: +SKIP
    >>> root = data_path("trec8_adhoc/mini_topics401-410")  # doctest: +SKIP
    >>> s = scores_from_trec(root / "qrels.txt", sorted(root.glob("runs/*"))[:3], "map")  # doctest: +SKIP
    >>> s.values.shape  # doctest: +SKIP
    (3, 10)
    """
    from fireeval.core.api import iter_run_scores
    from fireeval.core.evaluation import parse_measures
    from fireeval.core.stream import QrelsIndex

    try:
        parsed = parse_measures(measure)
    except ValueError as err:  # the project's one-line form: what is wrong. Fix: what to do
        text = str(err).replace("; use e.g.", ". Fix: use e.g.", 1)
        raise ValueError(text if "Fix:" in text else f"{text}. Fix: check the measure name") from None
    if len(parsed) != 1:
        raise ValueError(f"measure {measure!r} stands for {len(parsed)} measures "
                         f"({', '.join(m.name for m in parsed[:4])}{' ...' if len(parsed) > 4 else ''}). "
                         "Fix: give one measure, e.g. P_10")
    m = parsed[0]
    if m.aggregate != "mean":
        raise ValueError(f"measure {measure!r} is summarised over topics by {m.aggregate}, not a mean, so a mean "
                         "paired difference does not compare its summaries. Fix: use a measure averaged over topics "
                         "(e.g. map instead of gm_map)")
    index = qrels if isinstance(qrels, QrelsIndex) else QrelsIndex.read(
        qrels, relevance_level=1 if relevance_level is None else relevance_level)
    names, per_run, notes = [], [], []
    for label, path, scores in iter_run_scores(index, list(runs), [m], complete=complete, judged_only=judged_only,
                                               relevance_level=relevance_level, score_precision=score_precision):
        if scores.ignored_topics:
            notes.append(f"{path}: {len(scores.ignored_topics)} topic(s) have no judgements and are ignored "
                         f"(trec_eval convention): {', '.join(scores.ignored_topics[:5])}")
        if not len(scores.topics):
            raise ValueError(f"{path}: no topic of the run has judgements in {qrels}. Fix: check that the run and "
                             "qrels belong to the same collection")
        names.append(label)  # its tag, or its path when an earlier run had the same tag
        per_run.append(dict(zip(map(str, scores.topics), scores.values[m.name])))
    common = set(per_run[0]).intersection(*per_run[1:])
    every = set().union(*per_run)
    if not common:
        raise ValueError(f"{runs[0]}: the runs have no evaluated topic in common. Fix: compare runs of the same "
                         "topics")
    for path, topics in zip(runs, per_run):
        if len(topics) > len(common):
            notes.append(f"{path}: {len(topics) - len(common)} topic(s) that not every run has are left out of the "
                         "paired comparison")
    order = [t for t in sorted(every, key=_topic_key) if t in common]
    values = np.array([[topics[t] for t in order] for topics in per_run], dtype=float)
    return PerTopicScores(names, order, values, m.name, notes)


def _topic_key(topic: str):
    return (0, int(topic), "") if topic.isdigit() else (1, 0, topic)


@validate_params(predictions=ANY, gt=ANY, measure=STR, queries=ANY, strict=BOOL)
def scores_from_moments(predictions: Mapping, gt, measure: str = "R@1,0.5", *, queries: Sequence | None = None,
                        strict: bool = False) -> PerTopicScores:
    """Per-query scores of moment-retrieval systems by one measure (:func:`fireeval.core.moments.score_systems`).

    Parameters
    ----------
    predictions : mapping system -> array (Q, K, 2)
        Ranked [start, end] moments per query, NaN-padded (:mod:`fireeval.core.moments`).
    gt : array (Q, 2) or (Q, G, 2)
        Ground-truth window(s) per query.
    measure : str
        ``R@K,θ``, ``AP@K,θ``, ``AxIoU@K`` or ``DCG@K``.
    queries : sequence, optional
        Query labels.
    strict : bool
        IoU > θ instead of >= θ.

    Returns
    -------
    PerTopicScores
        Systems x queries.

    Examples
    --------
    >>> gt = np.array([[0.0, 10.0], [5.0, 15.0]])
    >>> pred = {"A": np.array([[[0.0, 9.0]], [[5.0, 14.0]]]), "B": np.array([[[20.0, 30.0]], [[5.0, 15.0]]])}
    >>> scores_from_moments(pred, gt, "R@1,0.5").values.tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    from fireeval.core.moments import score_systems

    values = score_systems(dict(predictions), gt, [measure], strict=strict)[0]
    queries = [str(i + 1) for i in range(values.shape[1])] if queries is None else [str(q) for q in queries]
    return PerTopicScores([str(n) for n in predictions], queries, values, measure)


@validate_params(matrices=ANY, measure=STR, queries=ANY)
def scores_from_similarity(matrices: Mapping, measure: str = "R@1", *, queries: Sequence | None = None) -> PerTopicScores:
    """Per-query scores of text-to-video models from square similarity matrices (query i's positive is video i).

    The positive's rank is ``1 + #{videos scoring above it} + #{tied videos of lower
    index}`` (the book's stable tie rule, as :func:`fireeval.t2v.false_negatives.original_rank_under_ties`
    ``"stable"``). Measures: ``R@K`` (= ``correct@K``: rank <= K) and ``RR`` (1 / rank);
    only diagonal-based measures, so it also serves matrices whose off-diagonal order is
    unknown (MSR-VTT GRAM and VAST).

    Parameters
    ----------
    matrices : mapping model -> array (Q, Q)
    measure : str
        ``R@K``, ``correct@K``, ``C@K`` or ``RR``/``MRR``.
    queries : sequence, optional

    Returns
    -------
    PerTopicScores
        Models x queries.

    Examples
    --------
    >>> s = {"A": [[0.9, 0.1], [0.2, 0.8]], "B": [[0.1, 0.9], [0.2, 0.8]]}
    >>> scores_from_similarity(s, "R@1").values.tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    per_rank = rank_measure(measure)
    rows, n = [], None
    from fireeval.core.ranking import real_numbers

    for name, sim in matrices.items():
        s = real_numbers(sim, f"similarity matrix {name!r}")
        if s.ndim != 2 or s.shape[0] != s.shape[1]:
            raise ValueError(f"{name}: a similarity matrix must be square (queries x videos, positives on the "
                             f"diagonal), not {s.shape}. Fix: give one row and one column per query, its own "
                             "video on the diagonal")
        if n is not None and s.shape[0] != n:
            raise ValueError(f"{name}: {s.shape[0]} queries, the first matrix has {n}. Fix: compare matrices of the "
                             "same queries")
        n = s.shape[0]
        own = np.diagonal(s)[:, None]
        col = np.arange(n)[None, :]
        rank = 1 + (s > own).sum(axis=1) + ((s == own) & (col < np.arange(n)[:, None])).sum(axis=1)
        rows.append(per_rank(rank))
    queries = [str(i + 1) for i in range(n)] if queries is None else [str(q) for q in queries]
    return PerTopicScores([str(k) for k in matrices], queries, np.array(rows), measure)


@validate_params(measure=STR)
def rank_measure(measure: str):
    """The per-query score of a measure of the positive's rank: ``R@K`` (= ``correct@K``, ``C@K``: 1 when
    rank <= K) or ``RR`` (= ``MRR``: 1 / rank), as a function of an array of ranks (1 = top).

    Parameters
    ----------
    measure : str
        ``R@K``, ``correct@K``, ``C@K``, ``RR`` or ``MRR``.

    Returns
    -------
    callable
        ``ranks -> per-query scores``.

    Examples
    --------
    >>> rank_measure("R@5")(np.array([1, 5, 6])).tolist(), rank_measure("RR")(np.array([1, 4])).tolist()
    ([1.0, 1.0, 0.0], [1.0, 0.25])
    """
    import re

    low = measure.strip().lower()
    match = re.fullmatch(r"(?:r|correct|c)@(\d+)", low)
    if match and int(match[1]) >= 1:
        k = int(match[1])
        return lambda rank: (np.asarray(rank) <= k).astype(float)
    if low in ("rr", "mrr"):
        return lambda rank: 1.0 / np.asarray(rank, dtype=float)
    raise ValueError(f"unknown similarity measure {measure!r}. Fix: use R@K (e.g. R@1), correct@K or RR")
