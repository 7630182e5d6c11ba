"""Moment-retrieval measures against hand-computed examples and independent loop oracles."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from fireeval import moments, reliability
from fireeval.agreement import kendall_tau_batch
from fireeval.resampling import disjoint_halves
from fireeval.synthetic_moments import simulate_moments

fast = settings(max_examples=60, deadline=None)


def _iou_loop(p, g):
    if np.isnan(p).any():
        return 0.0
    inter = max(0.0, min(p[1], g[1]) - max(p[0], g[0]))
    return inter / (max(p[1], g[1]) - min(p[0], g[0]))


def _axiou_loop(ious, k):  # the reference code's double loop
    total = 0.0
    for kk in range(1, k + 1):
        total += max(ious[:kk]) / k
    return total


def test_hand_examples():
    pred = np.array([[[0, 2], [1, 3], [5, 6], [np.nan, np.nan]]])
    iou = moments.temporal_iou(pred, [[0, 2]])
    np.testing.assert_allclose(iou, [[1, 1 / 3, 0, 0]])
    assert moments.recall_at_k_iou([[0.5]], 1, 0.5)[0] == 1
    assert moments.recall_at_k_iou([[0.5]], 1, 0.5, strict=True)[0] == 0
    np.testing.assert_allclose(moments.axiou_at_k([[0.2, 0.5, 0.1]], 3), [1.2 / 3])
    np.testing.assert_allclose(moments.axiou_at_k([[0.2]], 3), [0.2])  # short list still divides by K
    np.testing.assert_allclose(moments.ap_at_k_iou([[0.1, 0.6, 0.5]], 3, 0.5), [(1 / 2 + 2 / 3) / 2])
    np.testing.assert_allclose(moments.dcg_at_k_iou([[0.5, 0.5]], 2), [0.5 + 0.5 / np.log2(3)])
    assert moments.MEASURES[:3] == ["R@1,0.3", "R@1,0.5", "R@1,0.7"] and moments.MEASURES[-1] == "AxIoU@10"


@fast
@given(hnp.arrays(float, (7, 5, 2), elements=st.floats(0, 30, allow_nan=False)),
       hnp.arrays(float, (7, 2), elements=st.floats(0, 30, allow_nan=False)))
def test_iou_and_axiou_match_loops(raw, gt_raw):
    pred = np.sort(raw, axis=-1)
    gt = np.sort(gt_raw, axis=-1)
    gt[:, 1] += 0.5  # non-degenerate ground truth
    pred[2, 3:] = np.nan  # a short list
    iou = moments.temporal_iou(pred, gt)
    loop = np.array([[_iou_loop(pred[q, i], gt[q]) for i in range(5)] for q in range(7)])
    np.testing.assert_allclose(iou, loop, atol=1e-12)
    for k in (1, 3, 5):
        np.testing.assert_allclose(moments.axiou_at_k(iou, k), [_axiou_loop(r, k) for r in loop], atol=1e-12)
        for t in (0.3, 0.5):
            np.testing.assert_array_equal(moments.recall_at_k_iou(iou, k, t), (loop[:, :k] >= t).any(1))


def test_max_iou_over_windows():
    pred = np.array([[[0, 2], [5, 6], [9, 10]]], float)
    windows = np.array([[[0, 1], [5, 6], [np.nan, np.nan]]])
    np.testing.assert_allclose(moments.max_temporal_iou(pred, windows), [[0.5, 1.0, 0.0]])
    gt = np.array([[0, 1]], float)
    np.testing.assert_array_equal(moments.max_temporal_iou(pred, gt), moments.temporal_iou(pred, gt))
    np.testing.assert_array_equal(moments.max_temporal_iou(pred, gt[:, None]), moments.temporal_iou(pred, gt))


def test_measure_function_and_score_systems():
    gt, _, preds = simulate_moments(50, 3, seed=1)
    per_query = moments.score_systems(preds, gt)
    assert per_query.shape == (12, 3, 50)
    ref = moments.score_all(moments.temporal_iou(preds["system_2"], gt))
    for i, m in enumerate(moments.MEASURES):
        np.testing.assert_array_equal(per_query[i, 1], ref[m])
    table = moments.mean_table(per_query, list(preds))
    assert table.loc["system_1", "AxIoU@10"] == pytest.approx(per_query[-1, 0].mean())
    for bad in ("R@5", "AxIoU@5,0.3", "nDCG@5", "R@x,0.5"):
        with pytest.raises(ValueError, match="unknown measure"):
            moments.measure_function(bad)


@fast
@given(hnp.arrays(np.int8, st.tuples(st.integers(1, 4), st.integers(2, 7)), elements=st.integers(0, 3)),
       st.randoms(use_true_random=False))
def test_tau_b_batch_equals_scipy_with_ties(x, rnd):
    y = np.array([rnd.sample(list(r), len(r)) for r in x])  # permutations keep the tie structure
    y[0, 0] = 3 - y[0, 0]
    got = kendall_tau_batch(x, y)
    for row, g in zip(range(len(x)), got):
        want = stats.kendalltau(x[row], y[row], variant="b").statistic
        if np.isnan(want):
            assert np.isnan(g)
        else:
            assert g == pytest.approx(want, abs=1e-12)


def test_subset_stability_matches_loop():
    gt, _, preds = simulate_moments(120, 4, seed=3)
    per_query = moments.score_systems(preds, gt, ["R@1,0.5", "AxIoU@5"])
    out = reliability.subset_stability(per_query, [10, 60], n_trials=40, rng=7, chunk=15)
    rng = np.random.default_rng(7)
    for si, size in enumerate([10, 60]):
        a, b = disjoint_halves(120, size, 40, rng)
        for m in range(2):
            taus = [stats.kendalltau(per_query[m][:, a[t]].mean(1), per_query[m][:, b[t]].mean(1)).statistic
                    for t in range(40)]
            np.testing.assert_allclose(out["tau"][m, si], taus, atol=1e-12)
            assert out["mean"][m, si] == pytest.approx(np.nanmean(taus))
    assert (out["mean"][:, 1] > out["mean"][:, 0]).all()  # larger subsets agree more


def test_all_tied_ratio():
    s = np.array([[[1, 0, 1, 0.5], [1, 1, 1, 0.5], [1, 0, 1, 0.5]]])
    np.testing.assert_allclose(moments.all_tied_ratio(s), [0.75])


@pytest.mark.parametrize("strict", [False, True])
def test_noise_bias_variance_analytic_vs_simulation(strict):
    x = np.array([0.2, 0.45, 0.5, 0.55, 0.8])
    ana = moments.noisy_iou_bias_variance(x, 0.5, 0.1, strict=strict)
    sim = moments.simulate_noisy_iou(x, 0.5, 0.1, n=200_000, rng=0, strict=strict)
    for m in ("AxIoU", "R"):
        for stat in ("bias", "variance", "mse"):
            np.testing.assert_allclose(sim[m][stat], ana[m][stat], atol=5e-3)
    assert ana["R"]["bias"][2] == (0.5 if strict else -0.5)


def test_simulated_systems_are_graded_and_valid():
    gt, lengths, preds = simulate_moments(2000, 6, seed=5)
    assert gt.shape == (2000, 2) and lengths.shape == (2000,) and list(preds) == [f"system_{i}" for i in range(1, 7)]
    assert (gt[:, 0] >= 0).all() and (gt[:, 1] <= lengths).all() and (gt[:, 0] < gt[:, 1]).all()
    for p in preds.values():
        assert p.shape == (2000, 10, 2) and (p[..., 0] < p[..., 1]).all()
        assert (p[..., 0] >= 0).all() and (p[..., 1] <= lengths[:, None] + 1e-9).all()
    means = moments.score_systems(preds, gt).mean(axis=-1)  # (measures, systems)
    ax10 = means[moments.MEASURES.index("AxIoU@10")]
    assert (np.diff(ax10) < 0).all()  # system_1 best, strictly graded
    again = simulate_moments(2000, 6, seed=5)[2]
    assert all(np.array_equal(again[s], preds[s]) for s in preds)
