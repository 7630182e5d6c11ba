"""fireeval.t2v.verdicts: the text-to-video chapters' claim records flip with their inputs."""
import numpy as np
import pytest

from fireeval.t2v import verdicts


def _semantic(relevance, equivalent=None):
    rng = np.random.default_rng(0)
    n = relevance["bow"].shape[0]
    runs = {"random": rng.random((n, n)), "model": np.eye(n) + 0.01 * rng.random((n, n))}
    equivalent = np.eye(n, dtype=bool) if equivalent is None else equivalent
    records, share = verdicts.semantic_claims(runs, relevance, equivalent, np.arange(n), equivalence_threshold=0.5,
                                              data="stand-in: toy", names={"bow": "BoW"}, seed=0, n_resamples=200)
    return {r["id"]: r for r in records}, share


def test_more_than_one_flips_when_other_videos_cross_the_threshold():
    n = 6
    alone = np.eye(n) + 0.7 * (1 - np.eye(n))          # every other video just below T = 0.8
    crowded = np.eye(n) + 0.9 * np.roll(np.eye(n), 1, axis=1) + 0.1 * (1 - np.eye(n) - np.roll(np.eye(n), 1, axis=1))
    below, share_below = _semantic({"bow": alone})
    above, share_above = _semantic({"bow": crowded})
    assert below["wray_more_than_one"]["verdict"] == "not reproduced"
    assert above["wray_more_than_one"]["verdict"] == "reproduced"
    assert share_below == {"BoW": 0.0} and share_above == {"BoW": 1.0}


def test_claims_without_their_proxies_are_untestable_and_ids_are_stable():
    records, _ = _semantic({"bow": np.eye(4)})
    assert list(records) == ["wray_more_than_one", "wray_syn_ge_pos", "wray_gmr_gap", "wray_meteor_random",
                             "wray_baselines_vs_mee"]
    for cid in ("wray_syn_ge_pos", "wray_meteor_random", "wray_baselines_vs_mee"):
        assert records[cid]["verdict"] not in ("reproduced", "not reproduced")


def test_mean_relevant_count_and_share_skip_rows_with_missing_values():
    rel = np.array([[1.0, 0.9], [1.0, 0.1], [np.nan, 1.0]])
    assert verdicts.mean_relevant_count(rel, 0.8, n_resamples=20).value == pytest.approx(1.5)
    assert verdicts.share_with_other(rel, 0.8) == 0.5
    assert verdicts.share_with_other(rel, 0.95) == 0.0


def test_annotator_agreement_reuses_what_the_chapter_computed():
    mine = np.eye(2)
    assert verdicts.annotator_agreement("bow", "max", {("bow", "max"): mine}, ["a", "b"], [["a"], ["b"]]) is mine
