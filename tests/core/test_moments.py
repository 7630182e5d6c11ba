"""Moment-retrieval measures against hand-computed examples and independent loop oracles."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from fireeval.core import moments
from fireeval.stats import reliability
from fireeval.stats.agreement import kendall_tau_batch
from fireeval.stats.resampling import disjoint_halves
from fireeval.synthetic.moment_collection import simulate_moments

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


def test_expected_swaps_against_hand_computed_normal_approximation():
    # Two systems on 4 queries: differences [1, 0, 1, 0] -> mean 0.5, population SD 0.5, z = √n.
    pq = np.array([[[1, 0, 1, 0], [0, 0, 0, 0]]], dtype=float)
    z = np.sqrt(9.0)
    expected = 2 * stats.norm.cdf(z) * stats.norm.sf(z)
    assert moments.expected_swaps(pq, 9) == pytest.approx([expected])
    # Constant differences never swap; three systems sum three pairs.
    pq3 = np.array([[[1, 1], [0, 0], [0.5, 0.5]]])
    assert moments.expected_swaps(pq3, 5).tolist() == [0.0]


def _hand_stability():
    ks, thetas = (1, 5), (0.5,)
    names = moments.measure_names(ks, thetas)  # R@1,0.5  R@5,0.5  AxIoU@1  AxIoU@5
    mean = np.array([[0.5, 0.9], [0.8, 0.95], [0.7, 0.8], [0.6, 0.99]])
    return ks, thetas, names, {"mean": mean, "var": np.zeros_like(mean)}


def test_stability_frame_columns():
    ks, thetas, names, stab = _hand_stability()
    f = moments.stability_frame(stab, [50, 100], names)
    assert len(f) == 8 and f.loc[1, "mean τ"] == 0.9 and f.loc[1, "n"] == 100
    assert f["measure (at this K)"].tolist()[::2] == ["R@K,0.5", "R@K,0.5", "AxIoU@K", "AxIoU@K"]
    assert f["K"].tolist()[::2] == ["K = 1", "K = 5", "K = 1", "K = 5"]
    assert f["family"].tolist()[::2] == ["R@K,θ", "R@K,θ", "AxIoU@K", "AxIoU@K"]


def test_stability_findings_hand_made():
    ks, thetas, names, stab = _hand_stability()
    rng = np.random.default_rng(0)
    pq = rng.random((4, 3, 20))
    out = moments.stability_findings(stab, [50, 100], pq, ks=ks, thetas=thetas)
    assert out["stab_n_small"] == 50
    assert (out["stab_most"], out["stab_most_tau"]) == ("R@5,0.5", 0.8)
    assert (out["stab_least"], out["stab_least_tau"]) == ("R@1,0.5", 0.5)
    assert out["stab_ax_mean"] == pytest.approx(0.65) and out["stab_r_mean"] == pytest.approx(0.65)
    assert out["stab_order_k1"] == "AxIoU@1 > R@1,0.5"
    assert out["stab_order_k5"] == "R@5,0.5 > AxIoU@5"
    # R@1,0.5 beats AxIoU@1 at n = 100 only; R@5,0.5 beats AxIoU@5 at n = 50 only.
    assert out["stab_vs_k1"] == "R@1,0.5 at n = 100"
    assert out["stab_vs_k5"] == "R@5,0.5 at n = 50"
    assert (out["stab_ax_wins"], out["stab_n_comparisons"]) == (2, 4)
    assert out["stab_beaten"].startswith("no R@K,θ is more stable")
    assert out["stab_top5"] == "R@5,0.5, AxIoU@1, AxIoU@5, R@1,0.5"
    assert out["stab_r07_least"] == "not always the least stable"  # there is no R@K,0.7 here
    swaps = moments.expected_swaps(pq, 50)
    assert out["stab_swap_rho"] == pytest.approx(stats.spearmanr(-swaps, stab["mean"][:, 0]).statistic)


def test_noisy_iou_table_matches_its_parts():
    t, gap = moments.noisy_iou_table([0.2, 0.5], 0.5, [0.1, 0.2], n=500, rng=3)
    assert len(t) == 2 * 2 * 3 * 2
    ana = moments.noisy_iou_bias_variance(np.array([0.2, 0.5]), 0.5, 0.2)
    sim = moments.simulate_noisy_iou(np.array([0.2, 0.5]), 0.5, 0.2, n=500, rng=3)
    rows = t[(t["σ"] == 0.2) & (t["measure"] == "R@1,0.5") & (t["statistic"] == "variance")]
    assert rows["analytic"].tolist() == ana["R"]["variance"].tolist()
    assert rows["simulated"].tolist() == sim["R"]["variance"].tolist()
    assert gap == pytest.approx(float((t["analytic"] - t["simulated"]).abs().max()))
