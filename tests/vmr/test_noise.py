"""The label-noise model, its error statistic and σ matching, against hand-computed and loop oracles."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.vmr import noise
from fireeval.core.moments import measure_names


def _iou(a, b):
    """Plain-Python temporal IoU (independent oracle)."""
    if not all(np.isfinite([*a, *b])):
        return 0.0
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0


def _oracle_means(preds, gt):
    """Per system, the 12 measures by explicit loops over queries and ranks."""
    out = []
    for sys in preds:
        per = {m: [] for m in measure_names()}
        for q, moments in enumerate(sys):
            ious = [_iou(m, gt[q]) for m in moments]
            for k in (1, 5, 10):
                for t in (0.3, 0.5, 0.7):
                    per[f"R@{k},{t}"].append(float(any(i >= t for i in ious[:k])))
                best, acc = 0.0, 0.0
                for i in ious[:k]:
                    best = max(best, i)
                    acc += best
                per[f"AxIoU@{k}"].append(acc / k)
        out.append([np.mean(per[m]) for m in measure_names()])
    return np.array(out)


def _toy(n_queries=40, n_systems=3, seed=1):
    rng = np.random.default_rng(seed)
    start = rng.uniform(0, 20, n_queries)
    gt = np.stack([start, start + rng.uniform(2, 10, n_queries)], axis=1)
    jitter = rng.normal(0, 3, (n_systems, n_queries, 10, 2)) * np.arange(1, n_systems + 1)[:, None, None, None]
    preds = np.sort(gt[None, :, None, :] + jitter, axis=-1)
    preds[0, :3, 6:] = np.nan  # short lists
    return gt, preds


def test_start_is_gaussian_and_code_length_adds_a_unit_exponential():
    gt = np.array([[10.0, 25.0]])
    r = noise.simulate_raters(gt, sigma=2.0, n_trials=20000, n_raters=5, length="code", rng=0)
    starts, lengths = r[..., 0].ravel(), (r[..., 1] - r[..., 0]).ravel()
    assert starts.mean() == pytest.approx(10.0, abs=0.03)
    assert starts.std() == pytest.approx(2.0, rel=0.01)
    assert lengths.min() >= 15.0
    assert (lengths - 15.0).mean() == pytest.approx(1.0, rel=0.02)  # Exp(1) on top of the true length


def test_paper_length_is_exponential_with_mean_true_length():
    gt = np.array([[0.0, 8.0]])
    lengths = np.diff(noise.simulate_raters(gt, 0.0, 20000, 5, length="paper", rng=3), axis=-1).ravel()
    assert lengths.mean() == pytest.approx(8.0, rel=0.02)
    assert lengths.std() == pytest.approx(8.0, rel=0.03)  # exponential: std = mean


def test_aggregate_uses_median_start_and_median_length_not_median_end():
    raters = np.array([[[0, 10]], [[2, 6]], [[4, 20]]], dtype=float)  # lengths 10, 4, 16
    assert noise.aggregate_raters(raters).tolist() == [[2.0, 12.0]]
    # the median end would have been 10: the two conventions differ
    stacked = np.stack([raters, raters + 1])  # (trials, raters, queries, 2)
    assert noise.aggregate_raters(stacked).tolist() == [[[2.0, 12.0]], [[3.0, 13.0]]]


def test_simulate_annotations_shape_and_sigma_zero_keeps_start():
    gt, _ = _toy()
    out = noise.simulate_annotations(gt, 0.0, n_trials=7, rng=0)
    assert out.shape == (7, len(gt), 2)
    np.testing.assert_allclose(out[..., 0], np.broadcast_to(gt[:, 0], (7, len(gt))))


def test_system_means_match_loop_oracle():
    gt, preds = _toy()
    np.testing.assert_allclose(noise.system_means(preds, gt), _oracle_means(preds, gt), atol=1e-12)
    gts = np.stack([gt, gt + 1.5, gt * 1.1])
    got = noise.system_means(preds, gts, chunk=2)  # chunk boundary inside the stack
    for t in range(3):
        np.testing.assert_allclose(got[t], _oracle_means(preds, gts[t]), atol=1e-12)


def test_noise_error_hand_values():
    clean = np.array([[0.5, 0.2], [0.4, 0.4]])
    noisy = np.array([[[0.4, 0.2], [0.4, 0.1]], [[0.7, 0.2], [0.4, 0.4]]])  # (trials, systems, measures)
    # system 0, measure 0: |-.1|, |.2| -> .15; system 1: 0, 0 -> 0; mean .075
    np.testing.assert_allclose(noise.noise_error(clean, noisy), [0.075, 0.075])
    np.testing.assert_allclose(noise.noise_error(clean, noisy, "rmse")[0], np.sqrt((0.01 + 0.04) / 2) / 2)
    with pytest.raises(ValueError, match="'abs'"):
        noise.noise_error(clean, noisy, "mse")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=6, max_size=6))
def test_rmse_is_at_least_mean_absolute_error(values):
    noisy = np.array(values).reshape(3, 2, 1)
    clean = np.zeros((2, 1))
    assert noise.noise_error(clean, noisy, "rmse")[0] >= noise.noise_error(clean, noisy, "abs")[0] - 1e-12


def test_error_grows_with_sigma_for_a_perfect_top_moment():
    # Rank 1 is the ground truth itself, so any label noise can only cost score and
    # more noise costs more; for noisy systems noise can also help (no monotonicity).
    gt, preds = _toy(n_queries=300, n_systems=2, seed=4)
    preds[:, :, 0] = gt
    clean, noisy = noise.noise_experiment(preds, gt, sigmas=(0.25, 4.0), n_trials=20, seed=0)
    err = noise.noise_error(clean, noisy)
    names = measure_names()
    for m in ("R@1,0.5", "R@1,0.7", "AxIoU@1"):
        assert err[1, names.index(m)] > err[0, names.index(m)] > 0
    assert (noisy[..., names.index("AxIoU@1")] < clean[:, names.index("AxIoU@1")]).all()


def test_pairwise_iou_matches_loop():
    rng = np.random.default_rng(0)
    raters = np.sort(rng.uniform(0, 30, (4, 6, 2)), axis=-1)
    expect = [np.mean([_iou(raters[a, q], raters[b, q]) for a, b in itertools.combinations(range(4), 2)])
              for q in range(6)]
    np.testing.assert_allclose(noise.pairwise_iou(raters), expect)


def test_match_sigma_recovers_the_generating_sigma():
    gt, _ = _toy(n_queries=400, seed=7)
    real = noise.simulate_raters(gt, 2.5, n_trials=1, n_raters=5, rng=123)[0]
    out = noise.match_sigma(gt, real, sigma_grid=np.arange(0, 8.01, 0.5), n_trials=10, seed=0)
    assert out["in_range"]
    assert out["sigma"] == pytest.approx(2.5, abs=0.35)
    grid, curve = out["curve"]
    assert curve[0] > curve[-1]  # agreement falls as σ grows


def test_match_sigma_out_of_range_is_nan():
    gt, _ = _toy(n_queries=50)
    identical = np.repeat(gt[None], 5, axis=0)  # raters agree perfectly: the code convention never does
    out = noise.match_sigma(gt, identical, sigma_grid=[0.5, 1, 2], n_trials=3)
    assert not out["in_range"] and np.isnan(out["sigma"])


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="simulate_raters: length='text' is not one of the accepted values. "
                                         "Fix: use one of 'code', 'paper'"):
        noise.simulate_raters([[0, 1]], 1.0, length="text")
    with pytest.raises(ValueError, match=r"sigma=-1.0 is outside \[0, ∞\)"):
        noise.simulate_raters([[0, 1]], -1.0)
    with pytest.raises(ValueError, match=r"rows \[1\]"):
        noise.simulate_raters([[0, 1], [5, 2]], 1.0)
    with pytest.raises(ValueError, match="does not match"):
        noise.system_means(np.zeros((1, 3, 10, 2)), np.zeros((4, 2)))


def test_measure_family_and_family_means_hand_made():
    assert [noise.measure_family(m) for m in ("R@1,0.3", "R@10,0.7", "AxIoU@5")] == ["R@K,0.3", "R@K,0.7", "AxIoU@K"]
    names = ["R@1,0.3", "R@1,0.7", "R@5,0.3", "R@5,0.7", "AxIoU@1", "AxIoU@5"]
    v = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 7.0], [0.0, 0.0, 1.0, 0.0, 2.0, 2.0]])
    out = noise.family_means(v, names, ["R@K,0.3", "R@K,0.7", "AxIoU@K"])
    assert out["R@K,0.3"].tolist() == [2.0, 0.5]
    assert out["R@K,0.7"].tolist() == [3.0, 0.0]
    assert out["AxIoU@K"].tolist() == [6.0, 2.0]
    assert noise.family_means(v[0], names, ["AxIoU@K"]) == {"AxIoU@K": 6.0}


def _tiny_setup():
    gt = np.array([[0.0, 10.0], [5.0, 15.0], [20.0, 30.0], [2.0, 8.0]])
    rng = np.random.default_rng(1)
    preds = gt[None, :, None, :] + rng.normal(0, 2, size=(3, 4, 10, 2))
    preds[..., 1] = np.maximum(preds[..., 1], preds[..., 0] + 0.5)
    raters = gt[None] + np.array([1.0, 1.5, 0.5])[:, None, None]  # three raters, each a shift
    return gt, preds, raters


def test_compare_with_simulation_is_its_parts():
    gt, preds, raters = _tiny_setup()
    out = noise.compare_with_simulation(preds, gt, raters, 1.5, n_trials=3, n_raters=3, seed=2)
    real = noise.real_rater_experiment(preds, gt, raters)
    c, n = noise.noise_experiment(preds, gt, [1.5], 3, 3, "code", 2)
    sim = noise.noise_error(c, n)[0]
    np.testing.assert_array_equal(out["real"]["error_median"], real["error_median"])
    np.testing.assert_array_equal(out["simulated_error"], sim)
    assert out["ratio"] == pytest.approx(np.mean(real["error_median"] / np.maximum(sim, 1e-12)))
    # Shifted raters agree: pairwise IoU of [s+a, e+a] and [s+b, e+b] is (L - |a-b|) / (L + |a-b|).
    r = noise.simulate_raters(gt, 1.5, 20, 3, rng=2)
    assert out["sim_pairwise"] == pytest.approx(float(noise.pairwise_iou(r).mean()))
    assert out["sim_vs_truth"] == pytest.approx(float(noise.rater_agreement_with_truth(gt, r).mean()))


def test_rater_study_falls_back_to_largest_sigma_without_match():
    gt, preds, raters = _tiny_setup()
    # On a grid of only σ = 0 and 0.1 simulated raters agree more (IoU ≈ 0.92) than the shifted real ones
    # (≈ 0.876), so no σ matches and the comparison runs at the largest σ of the experiment.
    out = noise.rater_study(preds, gt, np.array([0, 2]), raters[:, [0, 2]], sigmas=[1.0, 3.0], n_trials=2,
                            n_raters=3, seed=0, sigma_grid=[0.0, 0.1], match_trials=2)
    assert out["error"].shape == (2, len(measure_names()))
    assert not out["match"]["in_range"] and np.isnan(out["match"]["sigma"])
    assert out["sim_sigma"] == 3.0
    assert out["vs_truth"] == pytest.approx(float(noise.rater_agreement_with_truth(gt[[0, 2]], raters[:, [0, 2]]).mean()))


def _clipped_means_before_issue_38(preds, gt, sigmas, n_trials, n_raters, seed, clip_to, noisy, noisy_b, w):
    """clipped_means as it was: two per_query_scores calls per trial and the weights' columns gathered."""
    lengths = np.asarray(clip_to, dtype=float)[:, None]
    draws = noise._draws(n_trials, n_raters, len(gt), seed)
    noisy, noisy_b, w = np.array(noisy, dtype=float), np.array(noisy_b), np.asarray(w, dtype=np.float32)
    for i, sigma in enumerate(sigmas):
        raters = noise.simulate_raters(gt, sigma, n_trials, n_raters, "code", draws=draws)
        plain, clipped = noise.aggregate_raters(raters), noise.aggregate_raters(np.clip(raters, 0.0, lengths))
        for t in range(n_trials):
            moved = np.flatnonzero((clipped[t] != plain[t]).any(axis=-1))
            if not moved.size:
                continue
            sub = preds[:, moved]
            delta = noise.per_query_scores(sub, clipped[t, moved]) - noise.per_query_scores(sub, plain[t, moved])
            noisy[i, t] += delta.sum(axis=-1) / len(gt)
            noisy_b[i, t] += (w[:, moved] @ delta.astype(np.float32).reshape(-1, moved.size).T).reshape(noisy_b.shape[2:])
    return noisy, noisy_b


def test_clipped_means_bit_for_bit_the_computation_before_issue_38():
    rng = np.random.default_rng(3)
    n_q, lengths = 60, rng.uniform(8, 30, 60)
    start = rng.uniform(0, lengths - 3)
    gt = np.stack([start, np.minimum(start + rng.uniform(1, 12, n_q), lengths)], axis=1)
    s = rng.uniform(0, lengths[None, :, None] - 2, (3, n_q, 10))
    preds = np.stack([s, s + rng.uniform(0.5, 10, s.shape)], axis=-1)
    preds[1, 5, 3:] = np.nan  # a short list
    w = noise.trial_counts(n_q, 40, seed=2) / n_q
    clean, noisy, clean_b, noisy_b = noise.noise_experiment(preds, gt, [1.0, 4.0], 6, 5, "code", 0, query_weights=w)
    got = noise.clipped_means(preds, gt, [1.0, 4.0], 6, 5, 0, lengths, noisy, noisy_b, w)
    want = _clipped_means_before_issue_38(preds, gt, [1.0, 4.0], 6, 5, 0, lengths, noisy, noisy_b, w)
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()
    assert not np.array_equal(got[0], noisy)  # some queries were clipped


def _system_means_before_issue_38_round_2(preds, gts, w, chunk=2, strict=False):
    """system_means as it was: score_all of temporal_iou for ``chunk`` ground truths, float32 scores concatenated
    and multiplied by the weights every 20 ground truths."""
    from fireeval.core.moments import score_all, temporal_iou

    names = measure_names()
    out = np.empty((len(gts), len(preds), len(names)))
    w = np.asarray(w, dtype=np.float32)
    resampled = np.empty((len(gts), len(w), len(preds), len(names)), dtype=np.float32)
    pending, start = [], 0
    for lo in range(0, len(gts), chunk):
        scores = score_all(temporal_iou(preds, gts[lo:lo + chunk, None]), strict=strict)
        out[lo:lo + chunk] = np.stack([scores[m].mean(axis=-1) for m in names], axis=-1)
        pending.append(np.stack([scores[m] for m in names], axis=-2).astype(np.float32))
        if sum(len(p) for p in pending) >= 20 or lo + chunk >= len(gts):
            per_query = np.concatenate(pending)
            n = per_query.shape[0]
            flat = w @ per_query.reshape(-1, per_query.shape[-1]).T
            resampled[start:start + n] = np.moveaxis(flat.reshape(len(w), n, len(preds), len(names)), 0, 1)
            pending, start = [], start + n
    return out, resampled


def _ragged_lists(seed=7, n_q=50):
    """Three systems' top-10 lists on ``n_q`` queries, with short lists, a missing query and IoUs of exactly θ."""
    rng = np.random.default_rng(seed)
    gt = np.stack([np.zeros(n_q), np.full(n_q, 10.0)], axis=1) + rng.uniform(0, 20, (n_q, 1))
    s = gt[None, :, None, :1] + rng.uniform(-6, 6, (3, n_q, 10, 1))
    preds = np.concatenate([s, s + rng.uniform(0.5, 14, s.shape)], axis=-1)
    preds[0, 3, 4:] = np.nan  # a list of 4
    preds[2, 7] = np.nan  # no prediction at all
    preds[1, :5, 0] = np.stack([gt[:5, 0], gt[:5, 0] + 7.0], axis=1)  # IoU exactly 0.7
    return gt, preds


@pytest.mark.parametrize("strict", [False, True])
def test_ranked_lists_scores_are_score_all_of_temporal_iou_bit_for_bit(strict):
    from fireeval.core.moments import score_all, temporal_iou

    gt, preds = _ragged_lists()
    gts = np.stack([gt, gt + 0.7, gt * 1.05])
    for ks, thetas, width in [((1, 5, 10), (0.3, 0.5, 0.7), 10), ((1, 3, 12), (0.5,), 4), ((2,), (1.0,), 1)]:
        p = preds[:, :, :width]
        got = noise.RankedLists(p, ks, thetas, strict).scores(gts)
        ref = score_all(temporal_iou(p, gts[:, None]), ks, thetas, strict)
        want = np.stack([ref[m] for m in measure_names(ks, thetas)], axis=-2)
        assert got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("chunk", [2, 3])
def test_system_means_with_weights_bit_for_bit_the_computation_before_issue_38(chunk):
    gt, preds = _ragged_lists()
    gts = noise.simulate_annotations(gt, 2.0, n_trials=45, rng=1)  # 45: two full products of 20 and one of 5
    w = noise.trial_counts(len(gt), 30, seed=4) / len(gt)
    want = _system_means_before_issue_38_round_2(preds, gts, w)  # products of 20, 20 and 5 ground truths, as now
    got = noise.system_means(preds, gts, query_weights=w, chunk=chunk)
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()
    assert noise.system_means(preds, gts, chunk=chunk).tobytes() == want[0].tobytes()


@pytest.mark.parametrize("length", ["code", "paper"])
def test_simulate_annotations_bit_for_bit_the_medians_of_simulate_raters(length):
    gt, _ = _ragged_lists(n_q=40)
    clip = gt[:, 1] + np.r_[np.zeros(20), np.full(20, 3.0)]  # half the videos end with the moment
    for clip_to in (None, clip):
        raters = noise.simulate_raters(gt, 2.5, n_trials=6, n_raters=5, length=length, rng=3)
        if clip_to is not None:
            raters = np.clip(raters, 0.0, clip_to[:, None])
        want = noise.aggregate_raters(raters)
        got = noise.simulate_annotations(gt, 2.5, 6, 5, length, rng=3, clip_to=clip_to)
        assert got.tobytes() == want.tobytes()
