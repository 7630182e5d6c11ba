"""Video-grouped splits, validation picks, z-scores and the above-average-everywhere rate."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.vmr import selection


def test_splits_keep_videos_together_and_halve_them():
    videos = np.repeat([f"v{i}" for i in range(11)], [1, 2, 3, 1, 1, 4, 2, 2, 1, 3, 1])
    m = selection.video_splits(videos, n_splits=50, seed=0)
    for v in np.unique(videos):
        col = m[:, videos == v]
        assert (col == col[:, :1]).all()
    n_val_videos = np.array([len(np.unique(videos[row])) for row in m])
    assert (n_val_videos == 6).all()  # round(0.5 * 11)
    assert len({row.tobytes() for row in m}) > 30
    np.testing.assert_array_equal(m, selection.video_splits(videos, 50, seed=0))
    with pytest.raises(ValueError, match="empty"):
        selection.video_splits(["a", "a"], 3)


def test_split_means_match_masked_loop():
    rng = np.random.default_rng(0)
    videos = rng.integers(0, 12, 60).astype(str)
    scores = rng.random((4, 3, 60)).astype(np.float32)
    mask = selection.video_splits(videos, 5, seed=1)
    val, test = selection.split_means(scores, videos, mask)
    assert val.shape == test.shape == (5, 4, 3)
    for s in range(5):
        np.testing.assert_allclose(val[s], scores[:, :, mask[s]].mean(axis=-1), rtol=1e-6)
        np.testing.assert_allclose(test[s], scores[:, :, ~mask[s]].mean(axis=-1), rtol=1e-6)


def test_pick_best_first_on_ties():
    val = np.array([[[0.2, 0.9], [0.5, 0.9], [0.5, 0.1]]])  # (splits, variants, measures)
    assert selection.pick_best(val).tolist() == [[1, 0]]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=2, max_size=12))
def test_zscores_have_zero_mean_and_unit_std_or_are_all_zero(values):
    z = selection.zscores(np.array(values)[:, None], axis=0)[:, 0]
    assert abs(z.mean()) < 1e-9
    assert z.std() == pytest.approx(1.0, abs=1e-6) or (z == 0).all()


def test_above_average_everywhere_hand_example():
    z = np.array([[0.5, 0.1, 2.0], [0.5, 0.0, 1.0], [-1.0, 1.0, 1.0]])
    assert selection.above_average_everywhere(z).tolist() == [True, False, False]


def test_experiment_on_a_constructed_family():
    # Two kinds of queries; variant 0 is best on the R@ measures, variant 1 on AxIoU,
    # variant 2 is worse than both everywhere. Identical in every split (no noise).
    measures = ["R@1,0.5", "R@1,0.7", "AxIoU@1"]
    q = 40
    videos = np.repeat(np.arange(20), 2)
    scores = np.zeros((3, 3, q), dtype=np.float32)
    scores[0] = [[1.0] * q, [1.0] * q, [0.5] * q]
    scores[1] = [[0.5] * q, [0.6] * q, [0.9] * q]
    scores[2] = [[0.1] * q, [0.1] * q, [0.1] * q]
    out = selection.selection_experiment(scores, videos, measures, test_measures=["R@1,0.5", "R@1,0.7"],
                                         n_splits=7, seed=0)
    assert out["picks"].tolist() == [[0, 0, 1]] * 7
    # test scores of picks [v0, v0, v1] on R@1,0.5: [1, 1, .5] -> z = [.707, .707, -1.414]
    np.testing.assert_allclose(out["z"][0, :, 0], [1 / np.sqrt(2), 1 / np.sqrt(2), -np.sqrt(2)])
    assert out["rate"] == {"R@1,0.5": 1.0, "R@1,0.7": 1.0, "AxIoU@1": 0.0}
    with pytest.raises(KeyError, match="not in the score array"):
        selection.selection_experiment(scores, videos, measures, val_measures=["R@5,0.5"])


def test_default_test_measures_are_the_papers_eight():
    measures = [f"R@{k},{t}" for k in (1, 5, 10) for t in (0.3, 0.5, 0.7)] + ["AxIoU@1", "AxIoU@5", "AxIoU@10"]
    scores = np.random.default_rng(0).random((5, 12, 30)).astype(np.float32)
    out = selection.selection_experiment(scores, np.arange(30) // 3, measures, n_splits=3)
    assert len(out["test_measures"]) == 8 and "R@10,0.3" not in out["test_measures"]
    assert out["z"].shape == (3, 12, 8)


def test_unique_variants_drops_exact_duplicates():
    s = np.random.default_rng(0).random((4, 2, 5)).astype(np.float32)
    s[2] = s[0]
    assert selection.unique_variants(s).tolist() == [0, 1, 3]


def _hand_out():
    # 4 splits, 3 validation measures; picks index the 3 variants below.
    picks = np.array([[0, 1, 2], [0, 2, 2], [1, 2, 2], [0, 2, 1]])
    above = np.array([[False, False, True], [True, False, True], [False, False, False], [False, False, True]])
    measures = ["R@1,0.5", "R@10,0.3", "AxIoU@10"]
    return {"picks": picks, "above": above, "val_measures": measures,
            "rate": dict(zip(measures, above.mean(axis=0).tolist()))}


def test_pick_summary_hand_made():
    table = pd.DataFrame({"variant": ["sys | depth=10", "sys | depth=3", "blind prior | h=0.1"], "depth": [10, 3, 10]})
    s = selection.pick_summary(_hand_out(), table, max_depth=10)
    assert (s["best_measure"], s["best_rate"]) == ("AxIoU@10", 0.75)
    assert s["axiou10_rate"] == 0.75 and s["n_nonzero"] == 2
    assert s["nonzero_list"] == "AxIoU@10 (0.75), R@1,0.5 (0.25)"
    assert s["top_pick"].tolist() == ["sys | depth=10", "blind prior | h=0.1", "blind prior | h=0.1"]
    assert s["top_share"].tolist() == [0.75, 0.75, 0.75]
    assert (s["n_prior_picks"], s["prior_pickers"]) == (2, "R@10,0.3, AxIoU@10")
    assert s["truncated_pickers"] == "none"
    assert s["none_rate"] == 0.25
    assert s["only_ax10_rate"] == 0.5  # splits 0 and 3: AxIoU@10 alone
    assert s["paper_cmp"].startswith("The direction agrees") and s["paper_cmp"].endswith("most common one here too.")
    assert (s["ax10_pick"], s["ax10_pick_share"]) == ("blind prior | h=0.1", 0.75)


def test_pick_summary_without_the_paper_measure():
    out = _hand_out()
    table = pd.DataFrame({"variant": ["a", "b", "c"], "depth": [10, 3, 10]})
    s = selection.pick_summary(out, table, max_depth=10, paper_measure="AxIoU@5")
    assert np.isnan(s["axiou10_rate"]) and s["ax10_pick"] == "none" and s["only_ax10_rate"] == 0.0
    assert s["paper_cmp"].startswith("Unlike the paper, the highest rate is AxIoU@10's")
    assert s["truncated_pickers"] == "none" and s["prior_pickers"] == "none"


def test_experiments_given_the_video_sums_are_the_same_and_wrong_sums_are_refused():
    """Issue 38: a family's per-video sums computed once serve every split seed, with the same results."""
    rng = np.random.default_rng(3)
    scores = rng.random((5, 3, 40)).astype(np.float32)
    videos = np.arange(40) // 4
    measures = ["AxIoU@1", "R@1,0.5", "R@1,0.7"]
    sums = selection.group_sums(scores, videos)
    for seed in range(3):
        plain = selection.selection_experiment(scores, videos, measures, n_splits=7, seed=seed, ties="random",
                                               n_tie_draws=2)
        given = selection.selection_experiment(scores, videos, measures, n_splits=7, seed=seed, ties="random",
                                               n_tie_draws=2, video_sums=sums)
        assert plain["rate"] == given["rate"]
        for key in ("val_means", "test_means", "picks", "z"):
            np.testing.assert_array_equal(plain[key], given[key])
    other = selection.group_sums(scores[:, :2], videos)
    with pytest.raises(ValueError, match="video_sums does not match scores of shape"):
        selection.selection_experiment(scores, videos, measures, n_splits=2, video_sums=other)
