"""Agreement between rankings and resampling of per-query scores."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fireeval.stats.agreement import kendall_tau, kendall_tau_matrix, rank_biased_overlap, topk_overlap
from fireeval.stats.resampling import bootstrap_deviation_quantile, bootstrap_means, disjoint_halves


def test_kendall_tau_b_with_ties_by_hand():
    # pairs: (1,2) tie in a; (1,3) concordant; (2,3) concordant -> P=2, Q=0, Ta=1, Tb=0
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / np.sqrt(3 * 2))
    m = kendall_tau_matrix([[1, 2, 3], [3, 2, 1], [1, 2, 3]])
    np.testing.assert_allclose(m, [[1, -1, 1], [-1, 1, -1], [1, -1, 1]])


def test_topk_overlap():
    np.testing.assert_allclose(topk_overlap([[1, 2, 3, 4]], [[4, 9, 1, 8]], k=4), [0.5])
    np.testing.assert_allclose(topk_overlap([[1, -1]], [[2, -1]], k=2), [0.0])  # padding never matches


def test_rbo_by_hand():
    # A = 1 2, B = 2 1, p = 0.5: agreement 0 at depth 1, 1 at depth 2.
    truncated = rank_biased_overlap([[1, 2]], [[2, 1]], p=0.5)[0]
    assert truncated == pytest.approx(0.5 * (0 + 0.5 * 1))
    assert rank_biased_overlap([[1, 2]], [[2, 1]], p=0.5, extrapolated=True)[0] == pytest.approx(0.25 + 0.25)
    assert rank_biased_overlap([[1, 2, 3]], [[4, 5, 6]], p=0.9)[0] == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=10, unique=True),
       st.lists(st.integers(0, 30), min_size=1, max_size=10, unique=True))
def test_rbo_symmetric_bounded_and_identity(a, b):
    depth = min(len(a), len(b))
    a, b = np.array([a[:depth]]), np.array([b[:depth]])
    ext_ab = rank_biased_overlap(a, b, p=0.9, extrapolated=True)[0]
    assert ext_ab == pytest.approx(rank_biased_overlap(b, a, p=0.9, extrapolated=True)[0])
    assert 0 <= ext_ab <= 1 + 1e-12
    assert rank_biased_overlap(a, a, p=0.9, extrapolated=True)[0] == pytest.approx(1.0)
    assert rank_biased_overlap(a, a, p=0.9)[0] == pytest.approx(1 - 0.9 ** depth)


def test_bootstrap_means_equal_explicit_resampling():
    scores = np.random.default_rng(1).random((2, 50))
    means = bootstrap_means(scores, size=20, n_resamples=300, rng=7, chunk=128)
    rng = np.random.default_rng(7)
    explicit = []
    for start in range(0, 300, 128):
        idx = rng.integers(0, 50, size=(min(128, 300 - start), 20), dtype=np.int32)
        explicit.append(scores[:, idx].mean(axis=-1))
    np.testing.assert_allclose(means, np.concatenate(explicit, axis=1))


def test_deviation_quantile_shrinks_with_sample_size():
    scores = np.random.default_rng(0).random(1000)
    q = bootstrap_deviation_quantile(scores, [100, 1000], n_resamples=2000, rng=0)
    assert q[0] > q[1] > 0
    # Normal theory: 1.96 * sd / sqrt(N) for the 95th percentile of |deviation|.
    assert q[1] == pytest.approx(1.96 * scores.std() / np.sqrt(1000), rel=0.1)


def test_disjoint_halves():
    a, b = disjoint_halves(10, 5, 20, rng=0)
    assert a.shape == (20, 5)
    for x, y in zip(a, b):
        assert not set(x) & set(y)
    with pytest.raises(ValueError, match="need 12 items"):
        disjoint_halves(10, 6, 1)


def test_disjoint_halves_draws_what_numpy_permuted_draws():
    # The per-row shuffle (issue 38: half the time) gives the very permutations of rng.permuted(axis=1), so every
    # subset-stability number is unchanged; and the generator is left in the same state.
    rng = np.random.default_rng(7)
    perm = rng.permuted(np.broadcast_to(np.arange(50), (30, 50)), axis=1)
    ours = np.random.default_rng(7)
    a, b = disjoint_halves(50, 20, 30, rng=ours)
    np.testing.assert_array_equal(a, perm[:, :20])
    np.testing.assert_array_equal(b, perm[:, 20:40])
    assert ours.random() == rng.random()


@settings(max_examples=50)
@given(st.integers(2, 7), st.integers(1, 6), st.integers(0, 10**6), st.sampled_from([0.0, 1e-12, 0.3]))
def test_kendall_tau_against_bit_for_bit_kendall_tau_batch(n_systems, n_rows, seed, atol):
    """Many scorings against a few fixed ones: the numbers of kendall_tau_batch, ties, constant rows and NaN included."""
    from fireeval.stats.agreement import kendall_tau_against, kendall_tau_batch

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, (3, n_rows, n_systems)) / 4  # ties within rows
    a[0, 0] = 0.5  # a constant row: NaN
    b = rng.integers(0, 3, (3, 1, n_systems)) / 2
    if n_rows > 1:
        a[1, 1, 0] = np.nan
    want = kendall_tau_batch(a, b, atol=atol)
    got = kendall_tau_against(a, b, atol=atol)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
