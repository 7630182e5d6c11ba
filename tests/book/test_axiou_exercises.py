"""What each AxIoU chapter's exercise hint says, checked (the hints are part of the book).

The exercises themselves run in tests/book/test_commands.py with the chapters' small test
parameters; here each hint's statement is computed directly, with the chapter's own
defaults where it is a statement about the real data (skipped without it).
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require_data
from fireeval.core import moments
from fireeval.stats.agreement import kendall_tau_batch, kendall_tau_matrix
from fireeval.synthetic.moment_collection import simulate_moments
from fireeval.book.chapters import axiou_label_noise, axiou_measures
from fireeval.vmr import noise, selection, tau_matrices, variants

MEASURES = moments.MEASURES
SIX = ["2DTAN", "SCDM", "2DTAN_noNMS", "2DTAN_randomized", "2DTAN_randomized_noNMS", "ActionAwareBlind"]


@pytest.fixture(scope="module")
def charades():
    from fireeval.datasets import charades as ch

    require_data(*ch.GROUND_TRUTH_FILES, "charades_sta/charades_sta_train.txt")
    gt_frame = ch.load_ground_truth("test")
    return ch, gt_frame


@pytest.fixture(scope="module")
def per_query(charades):
    ch, gt_frame = charades
    preds = ch.load_all_predictions(SIX)
    gt = gt_frame[["start", "end"]].to_numpy()
    return {strict: moments.score_systems(preds, gt, MEASURES, strict=strict) for strict in (False, True)}


# --- axiou_measures --------------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(st.permutations(range(4)), st.permutations(range(4)))
def test_measures_ex1_four_distinct_systems_give_one_of_seven_tau_values(a, b):
    """Hint 1: without ties, τ-b over four systems is a multiple of 1/3 (seven values)."""
    t = float(kendall_tau_batch(np.array(a, float), np.array(b, float)))
    assert any(abs(t - k / 3) < 1e-12 for k in range(-3, 4))


def test_measures_ex1_ties_add_the_values_the_hint_names(per_query):
    """Hint 1: with these four systems, ties give ±0.548, ±0.183 and 0.913 too."""
    four = [SIX.index(s) for s in ("2DTAN", "SCDM", "2DTAN_noNMS", "ActionAwareBlind")]
    tau = kendall_tau_matrix(per_query[False][:, four].mean(-1))
    values = set(np.round(tau[np.triu_indices(len(MEASURES), 1)], 3))
    assert {0.548, -0.548, 0.183, -0.183, 0.913} <= values
    assert not all(any(abs(v - k / 3) < 1e-3 for k in range(-3, 4)) for v in values)


def test_measures_ex2_a_stricter_reading_changes_verdicts_not_numbers(per_query):
    """Hint 2: the numbers do not change, only the verdicts."""
    pq = per_query[False]
    tau, samples = tau_matrices.bootstrap_tau_matrix(pq, 200, 0)
    jack = tau_matrices.jackknife_tau_matrix(pq)
    data = "real: Charades-STA test, the paper's six systems"
    base = axiou_measures.agreement_claims(tau, samples, MEASURES, data, tau_jack=jack)
    strict = axiou_measures.agreement_claims(tau, samples, MEASURES, data, threshold=0.9, tau_jack=jack)

    def values(recs):  # every pair's τ and interval, where it is tested
        return {(r["id"], c["condition"]): (c["value"], c["low"], c["high"]) for r in recs
                for c in r["family"]["conditions"] if c["value"] is not None}

    # The chapter's bar is read off Fig. 4's AxIoU@1 vs AxIoU@10: the pairs that are that cell are not tested
    # against it; every pair tested under both bars has the same number and interval.
    b, s_ = values(base), values(strict)
    assert b and set(b) <= set(s_) and all(b[k] == s_[k] for k in b)
    assert [r["label"] for r in base] != [r["label"] for r in strict]


def test_measures_ex3_the_reference_codes_iou_rule_moves_scores_in_the_fourth_decimal_at_most(per_query):
    """Hint 3: IoU > θ instead of ≥ θ changes the headline scores in the fourth decimal at most."""
    diff = np.abs(per_query[True].mean(-1) - per_query[False].mean(-1))
    assert 0 < diff.max() < 1e-3


# --- axiou_label_noise -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    gt, lengths, preds = simulate_moments(150, 4, seed=5)
    return gt, lengths, np.stack(list(preds.values()))


def test_noise_ex1_rmse_weights_large_jumps_so_recall_gains_relative_to_axiou(small):
    """Hint 1: RMSE weights large deviations more: R@K,θ's errors grow relative to AxIoU@K's."""
    gt, _, preds = small
    clean, noisy = noise.noise_experiment(preds, gt, [2.0], n_trials=20, seed=0)
    ratio = {}
    for e in ("abs", "rmse"):
        fam = noise.family_means(noise.noise_error(clean, noisy, e))
        ratio[e] = float(np.mean([fam[f"R@K,{t}"] for t in ("0.3", "0.5", "0.7")]) / fam["AxIoU@K"][0])
    assert ratio["rmse"] > ratio["abs"]


def test_noise_ex2_the_iou_rule_changes_only_moments_exactly_at_theta():
    """Hint 2: only moments whose IoU equals θ exactly change between ≥ and >."""
    iou = np.array([[0.3, 0.5, 0.7, 0.69, 0.71]])
    for strict in (False, True):
        got = moments.measure_function("R@1,0.5", strict)(iou[:, 1:2])
        assert got[0] == (0.0 if strict else 1.0)
    same = moments.measure_function("R@1,0.5", True)(iou[:, 4:5]), moments.measure_function("R@1,0.5", False)(iou[:, 4:5])
    assert same[0][0] == same[1][0]


@settings(max_examples=40)
@given(st.permutations(range(3)), st.permutations(range(3)))
def test_noise_ex3_three_distinct_systems_give_one_of_four_tau_values(a, b):
    """Hint 3: τ-b over three systems without ties is ±1 or ±1/3."""
    t = float(kendall_tau_batch(np.array(a, float), np.array(b, float)))
    assert min(abs(t - v) for v in (-1, -1 / 3, 1 / 3, 1)) < 1e-12


def test_noise_ex4_the_margin_moves_only_the_r03_gap_and_not_the_claim(small):
    """Hint 4: the claim is computed over margins already; the parameter changes only the R@K,0.3 gap of the tables."""
    gt, _, preds = small
    clean, noisy = noise.noise_experiment(preds, gt, [1.0, 3.0], n_trials=4, seed=0)
    g0 = noise.ordering_gaps(clean, noisy, n_boot=30, sigmas=[1, 3])
    g1 = noise.ordering_gaps(clean, noisy, n_boot=30, sigmas=[1, 3], margins={"r03_not_above_axiou": 0.25})
    assert not np.allclose(g0["r03_not_above_axiou"]["by_sigma"], g1["r03_not_above_axiou"]["by_sigma"])
    for part in ("r07_above_axiou", "r05_above_axiou", "r07_above_r05"):
        np.testing.assert_allclose(g0[part]["by_sigma"], g1[part]["by_sigma"])
    data = {"ds": "real: test"}
    c0 = {r["id"]: r for r in axiou_label_noise.noise_ordering_claims({"ds": {"code": g0}}, data)}
    c1 = {r["id"]: r for r in axiou_label_noise.noise_ordering_claims({"ds": {"code": g1}}, data)}
    assert c0["noise.r03_not_above_axiou.ds"]["family"] == c1["noise.r03_not_above_axiou.ds"]["family"]


# --- axiou_model_selection -------------------------------------------------------------------------------------


def test_selection_ex1_first_index_ties_hand_an_r1_tie_to_the_truncated_list():
    """Hint 1: the family lists depth 3, 5, 10 of a list in that order; R@1 ties them and "first" picks depth 3."""
    gt, lengths, preds = simulate_moments(60, 1, seed=2)
    base = next(iter(preds))
    table, scores = variants.family_scores({base: preds[base]}, gt, lengths, scales=(1.0,), depths=(3, 5, 10))
    j = MEASURES.index("R@1,0.5")
    r1 = scores[:, j].mean(-1)
    assert np.allclose(r1, r1[0])  # every depth of one list: the same top-1 moment
    pick = selection.pick_best(scores.mean(-1)[None])[0, j]
    assert table.iloc[pick]["depth"] == 3


@pytest.fixture(scope="module")
def families(charades):
    from fireeval.vmr import baselines

    ch, gt_frame = charades
    train = ch.load_ground_truth("train")
    bases = ["2DTAN_noNMS", "2DTAN_randomized_noNMS"]
    lists = ch.load_all_predictions(bases + ["2DTAN", "SCDM", "2DTAN_randomized", "ActionAwareBlind"])
    gt, durations = gt_frame[["start", "end"]].to_numpy(), gt_frame["length"].to_numpy()
    prior = baselines.normalised_moments(train[["start", "end"]].to_numpy(), train["length"].to_numpy())
    common = dict(nms_bases=bases, nms_thresholds=variants.nms_thresholds(20), scales=[0.75, 0.9, 1.0, 1.1, 1.25, 1.5],
                  depths=[3, 5, 10], prior=prior, bandwidths=[0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3],
                  prior_nms=[0.3, 0.5, 0.7])
    return gt_frame["video"].to_numpy(), lambda kind, base=None: variants.build_family(
        kind, lists, gt, durations, single_base=base, **common)


def _rates(scores, videos, test_measures=None):
    return selection.selection_experiment(scores, videos, MEASURES, test_measures=test_measures, n_splits=100,
                                          seed=0, ties="random", n_tie_draws=50)["rate"]


def test_selection_ex2_swapping_a_test_measure_can_raise_a_rate(families):
    """Hint 2: replacing R@1,0.7 by R@10,0.3 roughly doubles AxIoU@10's rate in the full family (0.19 → 0.39)."""
    videos, build = families
    scores = build("full")[1]
    paper = _rates(scores, videos)
    swapped = _rates(scores, videos, ["R@1,0.3", "R@1,0.5", "R@5,0.3", "R@5,0.5", "R@5,0.7", "R@10,0.3", "R@10,0.5",
                                      "R@10,0.7"])
    assert paper["AxIoU@10"] == pytest.approx(0.19, abs=0.03) and swapped["AxIoU@10"] == pytest.approx(0.39, abs=0.03)
    assert swapped["AxIoU@10"] > paper["AxIoU@10"]  # not "can only lower the rates"
    assert 1.7 < swapped["AxIoU@10"] / paper["AxIoU@10"] < 2.3  # "roughly doubles"


def test_selection_ex3_from_the_randomised_base_axiou10_is_highest(families):
    """Hint 3: in the single-base family of 2DTAN_randomized_noNMS, AxIoU@10's rate is the highest, about 0.55."""
    videos, build = families
    rates = _rates(build("single_base", "2DTAN_randomized_noNMS")[1], videos)
    assert max(rates, key=rates.get) == "AxIoU@10" and rates["AxIoU@10"] == pytest.approx(0.55, abs=0.05)
    plain = _rates(build("single_base", "2DTAN_noNMS")[1], videos)
    assert plain["AxIoU@10"] < 0.1  # rare from the other base
