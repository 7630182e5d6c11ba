"""kendall_tau_many (Knight's algorithm, merged blocks) equals the pair-matrix count and scipy, ties and NaN included."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from fireeval.stats import agreement
from fireeval.stats.agreement import kendall_tau_batch, kendall_tau_many


# 180: the last int16-key sort; 256: the last with blocks of up to 64
@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 17, 33, 65, 129, 180, 181, 256, 257, 300])
@pytest.mark.parametrize("levels", [3, 50, 10_000])
def test_equals_the_pair_count(n, levels):
    rng = np.random.default_rng(n * levels)
    a = rng.integers(0, levels, (400, n)) / levels
    b = rng.integers(0, levels, (400, n)) / levels
    a[0] = 0.5  # a constant row: NaN
    b[1] = b[1, ::-1] if n > 1 else b[1]
    np.testing.assert_array_equal(kendall_tau_many(a, b), agreement._kendall_tau_pairs(a, b))


def test_broadcasts_chunks_and_keeps_nan_rows_as_before():
    rng = np.random.default_rng(1)
    a = rng.random((3, 7, 40)).round(1)
    b = rng.random(40).round(1)
    a[1, 2, 5] = np.nan
    got = kendall_tau_many(a, b, chunk=5)
    want = agreement._kendall_tau_pairs(a.reshape(-1, 40), np.broadcast_to(b, (21, 40))).reshape(3, 7)
    np.testing.assert_array_equal(got, want)
    assert np.isfinite(got[1, 2])  # NaN ties with everything in the pair count, as before


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=60))
def test_matches_scipy(pairs):
    a, b = np.array(pairs, dtype=float).T
    want = stats.kendalltau(a, b).statistic
    got = kendall_tau_many(a, b)
    assert (np.isnan(want) and np.isnan(got)) or got == pytest.approx(want, abs=1e-12)


def test_a_reference_shared_by_many_rows_is_ranked_once_with_the_same_values():
    """A bootstrap band: rows (depths, resamples, systems) against one reference per resample (resamples,
    systems); b is ranked once per resample, and every value is still the pair count's."""
    rng = np.random.default_rng(2)
    a = rng.integers(0, 20, (4, 30, 129)) / 20
    b = rng.integers(0, 20, (30, 129)) / 20
    b[3] = 0.25  # a constant reference row: NaN in every depth
    a[2, 5, 7] = np.nan  # a NaN row keeps the pair count
    got = kendall_tau_many(a, b, chunk=17)
    want = agreement._kendall_tau_pairs(a.reshape(-1, 129), np.broadcast_to(b, a.shape).reshape(-1, 129))
    np.testing.assert_array_equal(got, want.reshape(4, 30))
    assert np.isnan(got[:, 3]).all()
    np.testing.assert_array_equal(kendall_tau_many(b, a), got)  # a shared by rows of b: the same τ-b


@given(st.lists(st.sampled_from([0.1, 0.3, 0.7, 2.5, -40.0]), min_size=2, max_size=40).map(np.array),
       st.integers(0, 2**32 - 1))
def test_values_equal_up_to_rounding_tie_with_rtol(a, seed):
    """Issue 38: means equal mathematically but added in another order (BLAS threads) must tie, in τ-b and τ_AP."""
    from fireeval.stats.agreement import tau_ap_batch
    from fireeval.stats.resampling import TIE_RTOL

    rng = np.random.default_rng(seed)
    truth = rng.permutation(a)
    nudged = a * (1 + rng.integers(-4, 5, a.size) * np.finfo(float).eps)
    np.testing.assert_equal(kendall_tau_many(nudged, truth, rtol=TIE_RTOL), kendall_tau_many(a, truth))
    np.testing.assert_equal(kendall_tau_many(nudged, truth, rtol=TIE_RTOL), kendall_tau_batch(nudged, truth, rtol=TIE_RTOL))
    np.testing.assert_equal(tau_ap_batch(nudged, truth, rtol=TIE_RTOL), tau_ap_batch(a, truth))
    apart = a + 1e-6 * np.arange(a.size)  # a real difference stays one
    np.testing.assert_equal(kendall_tau_many(apart, truth, rtol=TIE_RTOL), kendall_tau_many(apart, truth))


def test_bootstrap_agreement_ties_a_run_equal_to_another_up_to_rounding():
    """A run whose per-topic scores equal another's up to a few ulps gets the same τ replicates as an exact copy."""
    from fireeval.stats.reliability import bootstrap_agreement, jackknife_agreement

    rng = np.random.default_rng(3)
    ref = rng.random((8, 25))
    scores = ref + rng.normal(0, 0.05, ref.shape)
    copy, noisy = scores.copy(), scores.copy()
    copy[7] = copy[0]
    noisy[7] = noisy[0] * (1 + rng.integers(-3, 4, 25) * np.finfo(float).eps)
    np.testing.assert_equal(bootstrap_agreement(noisy, ref, 200, rng=0), bootstrap_agreement(copy, ref, 200, rng=0))
    np.testing.assert_equal(bootstrap_agreement(noisy, ref, 200, rng=0, statistic="tau_ap"),
                            bootstrap_agreement(copy, ref, 200, rng=0, statistic="tau_ap"))
    np.testing.assert_equal(jackknife_agreement(noisy, ref), jackknife_agreement(copy, ref))
