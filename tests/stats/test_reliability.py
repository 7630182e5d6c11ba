"""Topic-set reliability: vectorised Kendall tau-b, bootstrap tau band, swap rates (REER)."""
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fireeval.stats import reliability
from fireeval.stats.agreement import kendall_tau_batch
from fireeval.stats.resampling import disjoint_halves


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=12))
def test_paired_tau_matches_scipy_with_ties(pairs):
    a, b = np.array(pairs, dtype=float).T
    expected = stats.kendalltau(a, b, variant="b").statistic
    got = kendall_tau_batch(a, b)
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_paired_tau_broadcasts_over_rows():
    rng = np.random.default_rng(0)
    a, b = rng.random((7, 30)), rng.random(30)
    got = kendall_tau_batch(a, b, chunk=3)
    assert got.shape == (7,)
    np.testing.assert_allclose(got, [stats.kendalltau(row, b).statistic for row in a])


def test_bootstrap_tau_band():
    rng = np.random.default_rng(1)
    reference = rng.random((10, 40)) + np.linspace(0, 1, 10)[:, None]
    same = np.stack([reference, reference + rng.normal(0, 0.3, reference.shape)])
    low, high = reliability.bootstrap_tau(same, reference, n_resamples=200, rng=0)
    assert low[0] == high[0] == 1.0  # identical scores rank identically on every resample
    assert low[1] < high[1] <= 1.0


def naive_swaps(scores, set_a, set_b, bins):
    """Loop over trials and pairs: the definition of the swap rate."""
    pairs, swaps = np.zeros(len(bins) - 1), np.zeros(len(bins) - 1)
    for ta, tb in zip(set_a, set_b):
        for i, j in itertools.combinations(range(len(scores)), 2):
            da = scores[i, ta].mean() - scores[j, ta].mean()
            db = scores[i, tb].mean() - scores[j, tb].mean()
            k = np.searchsorted(bins, abs(da), side="right") - 1
            if 0 <= k < len(bins) - 1:
                pairs[k] += 1
                swaps[k] += da * db < 0
    return pairs, swaps


def test_swap_rates_match_naive_loop():
    rng = np.random.default_rng(2)
    scores = rng.random((6, 20)) * np.linspace(0.5, 1, 6)[:, None]
    bins = [0, 0.02, 0.05, 0.1, np.inf]
    table = reliability.swap_rates(scores, size=8, n_trials=150, bins=bins, rng=5)
    set_a, set_b = disjoint_halves(20, 8, 150, 5)
    pairs, swaps = naive_swaps(scores, set_a, set_b, np.asarray(bins))
    np.testing.assert_array_equal(table["n_pairs"], pairs)
    np.testing.assert_array_equal(table["n_swaps"], swaps)
    assert table["n_pairs"].sum() == 150 * 15


def test_swap_rate_falls_with_difference():
    rng = np.random.default_rng(3)
    true = np.linspace(0.1, 0.5, 15)[:, None]
    scores = np.clip(true + rng.normal(0, 0.25, (15, 50)), 0, 1)
    table = reliability.swap_rates(scores, size=25, n_trials=200, rng=0)
    rates = table.dropna()["swap_rate"].to_numpy()
    assert rates[0] > 0.2 and rates[-1] < 0.05
    d = reliability.difference_for_error_rate(table, 0.05, min_pairs=50)
    assert 0 < d < 0.2


def test_difference_for_error_rate_edge_cases():
    t = pd.DataFrame({"low": [0, .01], "high": [.01, .02], "n_pairs": [5, 5], "swap_rate": [.01, .02]})
    assert reliability.difference_for_error_rate(t) == 0.0
    t["swap_rate"] = [.01, .2]
    assert np.isnan(reliability.difference_for_error_rate(t))


def test_cumulative_error_rate_is_the_tail_average():
    t = pd.DataFrame({"low": [0, .01, .02], "high": [.01, .02, np.inf], "n_pairs": [10, 10, 80],
                      "n_swaps": [5, 1, 0]})
    t["swap_rate"] = t["n_swaps"] / t["n_pairs"]
    assert reliability.difference_for_error_rate(t) == 0.02  # per bin: .01-.02 swaps 10 %
    # tails: from 0: 6/100 = 6 %; from .01: 1/90 = 1.1 %
    assert reliability.difference_for_error_rate(t, cumulative=True) == 0.01


def test_normal_swap_difference_by_hand():
    scores = np.array([[0.3, 0.5, 0.1, 0.3], [0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 0.2, 0.2]])
    out = reliability.normal_swap_difference(scores, size=16, target=0.05)
    # pairs: (0,1) and (0,2) have differences .1 .3 -.1 .1 (sd 0.1633), (1,2) none (sd 0): median 0.1633
    s = np.std([0.1, 0.3, -0.1, 0.1], ddof=1)
    assert out["sd_pair_difference"] == pytest.approx(s)
    assert out["difference"] == pytest.approx(stats.norm.ppf(0.95) * np.sqrt(2) * s / 4)
    with pytest.raises(ValueError, match="systems >= 2"):
        reliability.normal_swap_difference(np.zeros((1, 5)), size=2)


def test_normal_model_predicts_simulated_swap_threshold():
    # Systems evenly spread, per-topic noise normal: the model's threshold should land
    # within one bin of the measured one.
    rng = np.random.default_rng(4)
    scores = np.linspace(0.1, 0.5, 30)[:, None] + rng.normal(0, 0.15, (30, 50))
    table = reliability.swap_rates(scores, size=25, n_trials=300, rng=1)
    measured = reliability.difference_for_error_rate(table, 0.05, min_pairs=200)
    predicted = reliability.normal_swap_difference(scores, size=25)["difference"]
    assert abs(measured - predicted) <= 0.015


def test_swap_rates_need_enough_topics():
    with pytest.raises(ValueError, match="two disjoint subsets of 6 need 12 items"):
        reliability.swap_rates(np.zeros((3, 10)), size=6)


def test_warning_threshold_matches_naive_loop_and_reads_well():
    share = np.array([0.52, 0.61, 0.74, 0.86, 0.93, 0.97])
    loss = pd.Series([0.09, 0.05, 0.01, 0.03, 0.0, 0.015], index=list("ABCDEF"))
    out = reliability.warning_threshold(share, loss, max_loss=0.02)
    grid = np.round(np.arange(0.5, 1.0001, 0.05), 2)
    naive = [loss[share >= t].max() for t in grid]
    np.testing.assert_array_equal(out.worst_above.to_numpy(), naive)  # NaN above the largest share
    assert out.threshold == 0.9  # D (0.86) lost 3 %
    assert out.below.index.tolist() == ["A", "B", "C", "D"] and not out.all_safe
    assert out.sentence() == ("every run whose top 100 was at least 90% judged after its group was left out lost "
                              "less than 2 % of its score (at most 1.5%); the 4 runs below that line lost up to 9.0%")
    safe = reliability.warning_threshold(share, loss * 0.1)
    assert safe.all_safe and safe.threshold is None and "no judged@100 level" in safe.sentence()
    none = reliability.warning_threshold(share, pd.Series(0.05, index=loss.index))
    assert none.threshold is None and none.sentence().startswith("no judged@100 level separates")
    # a grid value above every share covers no run: it is not a threshold
    high = reliability.warning_threshold([0.95, 0.97], [0.01, 0.03], grid=[0.9, 0.96, 0.98])
    assert np.isnan(high.worst_above[0.98]) and high.threshold is None and len(high.below) == 2
    top = reliability.warning_threshold([0.95, 0.97], [0.03, 0.01], grid=[0.9, 0.96, 0.98])
    assert top.threshold == 0.96 and top.below.tolist() == [0.03]


def test_subset_stability_of_groups_of_systems_equals_a_call_on_them_alone():
    # One set of subset draws serves a subset of the systems too (issue 38: the draws are not made twice).
    rng = np.random.default_rng(4)
    pq = rng.random((3, 6, 80)) + np.linspace(0, 0.3, 6)[None, :, None]
    both = reliability.subset_stability(pq, [10, 30], n_trials=40, rng=1, groups=[[0, 2, 3, 5]])
    alone = reliability.subset_stability(pq[:, [0, 2, 3, 5]], [10, 30], n_trials=40, rng=1)
    whole = reliability.subset_stability(pq, [10, 30], n_trials=40, rng=1)
    np.testing.assert_array_equal(both["groups"][0]["tau"], alone["tau"])
    np.testing.assert_array_equal(both["mean"], whole["mean"])
    assert "groups" not in whole
