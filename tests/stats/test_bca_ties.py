"""BCa's z0 counts a replicate within rounding of the estimate as a tie (fireeval.stats.resampling.share_below):
a replicate that equals the estimate mathematically lands an ulp above or below it depending on the summation
order (the machine's BLAS threads), and z0, the interval and a claim's label followed it (issue 38)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import ndtri

from fireeval.stats.claims import bca_interval
from fireeval.stats.resampling import TIE_RTOL, share_below, tie_tolerance
from fireeval.stats.significance import bca_intervals


def _nudge(x: float, ulps: int) -> float:
    """``x`` moved by ``ulps`` floating-point steps (negative: down)."""
    for _ in range(abs(ulps)):
        x = float(np.nextafter(x, np.inf if ulps > 0 else -np.inf))
    return x


def test_a_hand_worked_share_and_z0():
    # estimate 0.5; replicates: 0.3 below, 0.5 - 1 ulp, 0.5 - 1 ulp and 0.5 tie with it, 0.7 above.
    # Exact comparisons (scipy's) counted (3 below + 1/2 tie) / 5 = 0.7, z0 = 0.52; within 1e-9 they are
    # (1 below + 3/2 ties) / 5 = 0.5, z0 = 0.
    below = _nudge(0.5, -1)
    replicates = [0.3, below, below, 0.5, 0.7]
    assert (np.count_nonzero(np.less(replicates, 0.5)) + np.count_nonzero(np.less_equal(replicates, 0.5))) / 10 == 0.7
    assert share_below(replicates, 0.5) == 0.5 and ndtri(share_below(replicates, 0.5)) == 0.0
    assert share_below([0.5 - 2e-9, 0.5, 0.5 + 2e-9], 0.5) == 0.5  # beyond the tolerance: below and above
    assert share_below([0.5 - 2e-9, 0.5 - 2e-9], 0.5) == 1.0
    assert tie_tolerance(0.5) == TIE_RTOL and tie_tolerance(-3.0) == 3 * TIE_RTOL
    np.testing.assert_array_equal(share_below([[0.1, 1.0], [0.5, 2.0]], [0.5, 1.0]), [0.75, 0.25])


@given(st.lists(st.sampled_from([0.2, 0.35, 0.5, 0.65, 0.8]), min_size=20, max_size=300),
       st.lists(st.integers(-4, 4), min_size=300, max_size=300),
       st.sampled_from([0.35, 0.5, 0.65]), st.integers(0, 2**32 - 1))
def test_z0_and_the_interval_do_not_follow_a_few_ulps_of_a_replicate_equal_to_the_estimate(grid, ulps, value, seed):
    samples = np.asarray(grid)
    perturbed = np.array([_nudge(x, u) if x == value else x for x, u in zip(samples, ulps)])
    jack = value + np.random.default_rng(seed).normal(0, 0.02, 30)
    assert share_below(perturbed, value) == share_below(samples, value)
    low, high, how = bca_interval(value, samples, jack)
    low_p, high_p, how_p = bca_interval(value, perturbed, jack)
    assert how_p == how  # z0 printed, and the method (BCa or its stand-in) with its reasons
    assert low_p == pytest.approx(low, rel=1e-12, abs=1e-15) and high_p == pytest.approx(high, rel=1e-12, abs=1e-15)


@given(st.integers(0, 2**32 - 1))
def test_the_paired_bca_counts_ties_as_the_scalar_one_whatever_the_summation_order(seed):
    # Differences on a grid of three values, so that many resampled means equal the mean difference
    # mathematically (as many 0.1s as 0.3s drawn); bca_intervals sums each resample as counts @ d, the
    # reference below as d[index].mean(1): the last bits differ, the intervals must not.
    rng = np.random.default_rng(seed)
    d = rng.permutation(np.repeat([0.1, 0.2, 0.3], 3))
    values = np.stack([d + 0.4, np.full(d.size, 0.4)])
    d = values[0] - values[1]
    low, high, method = bca_intervals(values, [0], [1], n_resamples=400, rng=seed)
    index = np.random.default_rng(seed).integers(0, d.size, (400, d.size))  # bca_intervals' draw
    boot = d[index].mean(1)
    theta = d.mean()
    assert np.any(np.abs(boot - theta) <= tie_tolerance(theta))  # ties are there to be counted
    ref_low, ref_high, how = bca_interval(theta, boot, (d.sum() - d) / (d.size - 1))
    if how.startswith("BCa bootstrap") and method[0] == "BCa":
        assert low[0] == pytest.approx(ref_low, rel=1e-12) and high[0] == pytest.approx(ref_high, rel=1e-12)
