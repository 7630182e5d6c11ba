"""Blind baselines: prior density, greedy NMS and the fixed/random lists, against loop oracles."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.synthetic import moment_collection as synthetic_moments
from fireeval.vmr import baselines
from fireeval.core.moments import temporal_iou


def _iou(a, b):
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0


def _greedy_nms(moments, thr):
    kept = []
    for i, m in enumerate(moments):
        if all(_iou(m, moments[j]) <= thr for j in kept):
            kept.append(i)
    return [i in kept for i in range(len(moments))]


moment = st.tuples(st.integers(0, 30), st.integers(1, 15)).map(lambda t: (float(t[0]), float(t[0] + t[1])))


@settings(max_examples=100, deadline=None)
@given(st.lists(moment, min_size=1, max_size=8), st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]))
def test_nms_matches_greedy_oracle(moments, thr):
    assert baselines.nms_keep(np.array(moments), thr).tolist() == _greedy_nms(moments, thr)


def test_nms_vectorised_over_thresholds_and_lists_and_skips_nan():
    m = np.array([[[0, 10], [1, 10], [np.nan, np.nan], [20, 30]],
                  [[0, 10], [0, 10], [5, 15], [0, 9]]], dtype=float)
    keep = baselines.nms_keep(m, np.array([0.5, 1.0]))
    assert keep.shape == (2, 2, 4)
    assert keep[0, 0].tolist() == [True, False, False, True]
    assert keep[1, 1].tolist() == [True, True, True, True]  # IoU 1 is not > 1: nothing suppressed
    assert keep[0, 1].tolist() == [True, False, True, False]


def test_normalised_moments_clip_end_past_duration():
    s, length = baselines.normalised_moments([[10, 50], [2, 4]], [40, 8])
    assert s.tolist() == [0.25, 0.25] and length.tolist() == [0.75, 0.25]
    with pytest.raises(ValueError, match="positive"):
        baselines.normalised_moments([[0, 1]], [0.0])


def test_candidate_grid_counts_all_pairs():
    g = baselines.candidate_grid(0.25)
    assert len(g) == 10 and (g[:, 1] > g[:, 0]).all() and g.min() == 0 and g.max() == 1


def test_prior_density_matches_double_loop():
    rng = np.random.default_rng(0)
    s, length = rng.uniform(0, 0.5, 7), rng.uniform(0.05, 0.5, 7)
    cand = baselines.candidate_grid(0.25)
    h = 0.1
    expect = [sum(np.exp(-((c[0] - a) ** 2 + (c[1] - c[0] - b) ** 2) / (2 * h * h)) for a, b in zip(s, length))
              for c in cand]
    np.testing.assert_allclose(baselines.prior_density(cand, s, length, h), expect)


def test_blind_prior_puts_the_training_mode_first_and_scales_by_duration():
    s, length = np.full(50, 0.25), np.full(50, 0.5)
    out = baselines.blind_prior(s, length, [10.0, 40.0], k=4, bandwidth=0.02, nms_threshold=0.5, step=0.125)
    assert out.shape == (2, 4, 2)
    np.testing.assert_allclose(out[0, 0], [2.5, 7.5])
    np.testing.assert_allclose(out[1], out[0] * 4)
    iou = temporal_iou(out[0][None, :, :], out[0])  # (K, K) after broadcasting
    off = iou[~np.eye(4, dtype=bool)]
    assert (off <= 0.5 + 1e-12).all()  # the NMS guarantee


def test_random_and_fixed_lists():
    d = np.array([10.0, 100.0])
    r = baselines.random_moments(d, 5, rng=1)
    assert (r[..., 0] <= r[..., 1]).all() and (r >= 0).all() and (r[1] <= 100).all()
    np.testing.assert_array_equal(r, baselines.random_moments(d, 5, rng=1))
    w = baselines.sliding_windows(d, 4, 0.25)
    np.testing.assert_allclose(np.diff(w, axis=-1)[..., 0], np.array([[2.5] * 4, [25] * 4]))
    assert baselines.full_video(d).tolist() == [[[0.0, 10.0]], [[0.0, 100.0]]]
    with pytest.raises(ValueError, match="width"):
        baselines.sliding_windows(d, 3, 1.5)


def test_activitynet_baselines_are_labelled_and_aligned():
    rng = np.random.default_rng(0)
    train_d = rng.uniform(30, 200, 80)
    a = rng.uniform(0, 0.5, 80) * train_d
    train = np.stack([a, a + rng.uniform(0.1, 0.5, 80) * train_d], axis=1)
    out = baselines.activitynet_baselines(train, train_d, [60.0, 120.0, 90.0], k=10, seed=0)
    assert len(out) == 5 and any(n.startswith("blind prior") for n in out) and "uniform random" in out
    assert all(v.shape == (3, 10, 2) for v in out.values())
    assert np.isnan(out["full video"][:, 1:]).all()


def test_synthetic_activitynet_inputs_has_the_real_loaders_keys():
    d = synthetic_moments.activitynet_label_noise_inputs(40, seed=1, n_rated=8)
    assert set(d) == {"gt", "durations", "train_gt", "train_durations", "rater_queries", "raters", "note"}
    assert d["raters"].shape == (5, 8, 2) and d["rater_queries"].tolist() == list(range(8))
    assert d["train_gt"].shape == (5000, 2) and "SYNTHETIC" in d["note"]
    # Raters are shifted 3 s later on average (the stand-in's systematic shift).
    assert np.mean(d["raters"][..., 0] - d["gt"][:8, 0]) > 0
