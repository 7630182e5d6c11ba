"""nDCG, its random expectation, instance recall and bounds: against hand-computed
values, an exhaustive permutation oracle and pytrec_eval."""
import itertools

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fireeval.t2v import semantic_evaluation as se


def test_ndcg_hand_computed():
    # ranking: item 1 (rel 0.5), item 0 (rel 1), item 2 (rel 0); cut at 2 relevant items
    got = se.proxy_ndcg([[0.2, 0.9, 0.1]], [[1.0, 0.5, 0.0]])
    dcg = 0.5 + 1.0 / np.log2(3)
    idcg = 1.0 + 0.5 / np.log2(3)
    assert got == pytest.approx([dcg / idcg])
    exp = se.proxy_ndcg([[0.2, 0.9, 0.1]], [[1.0, 0.5, 0.0]], gain="exponential")
    assert exp == pytest.approx([((2 ** 0.5 - 1) + 1 / np.log2(3)) / (1 + (2 ** 0.5 - 1) / np.log2(3))])


def test_ndcg_uncut_matches_pytrec_eval():
    rng = np.random.default_rng(3)
    grades = rng.integers(0, 4, size=(6, 12))
    scores = rng.random((6, 12))
    qrels = {f"q{q}": {f"d{i:02d}": int(g) for i, g in enumerate(row)} for q, row in enumerate(grades)}
    run = {f"q{q}": {f"d{i:02d}": float(s) for i, s in enumerate(row)} for q, row in enumerate(scores)}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    # linear gain is scale free, so grades 0..3 and grades/3 give the same nDCG
    got = se.proxy_ndcg(scores, grades / 3, cut=None)
    assert got == pytest.approx([oracle[f"q{q}"]["ndcg"] for q in range(6)])


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("cut", ["relevant", None])
def test_expected_random_ndcg_equals_mean_over_all_permutations(gain, cut):
    rel = np.array([[1.0, 0.4, 0.0, 0.2, 0.0], [0.0, 0.0, 0.3, 0.0, 0.9]])
    perms = np.array(list(itertools.permutations(range(5))))
    scores = -perms.argsort(axis=1).astype(float)  # row r ranks items in the order perms[r]
    exhaustive = np.stack([se.proxy_ndcg(scores, np.repeat(rel[q:q + 1], len(perms), 0), gain=gain, cut=cut).mean()
                           for q in range(2)])
    assert se.expected_random_ndcg(rel, gain=gain, cut=cut) == pytest.approx(exhaustive)


def test_expected_random_ndcg_rejects_bad_input():
    with pytest.raises(ValueError, match="matrix"):
        se.expected_random_ndcg([1.0, 0.0])
    with pytest.raises(ValueError, match="gain"):
        se.expected_random_ndcg([[1.0]], gain="log")


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(float, (3, 6), elements=st.floats(0, 1).map(lambda x: round(x, 6))))  # proxy scores: no subnormals
def test_ideal_ranking_scores_one_and_random_is_bounded(rel):
    ideal = se.proxy_ndcg(rel, rel)
    has = (rel > 0).any(axis=1)
    assert ideal[has] == pytest.approx(1.0)
    r = se.expected_random_ndcg(rel)
    assert ((r >= -1e-12) & (r <= 1 + 1e-12)).all()


def test_recall_and_gmr_bounds_hand_example():
    # 3 queries x 12 items; query 0's own item ranks 6th, an equivalent item ranks 1st
    scores = np.tile(np.linspace(1, 0, 12), (3, 1))
    scores[0, [0, 5]] = scores[0, [5, 0]]        # own item 0 now at rank 6 (0-based 5), item 5 at rank 1
    scores[1, [1, 0]] = scores[1, [0, 1]]        # own item 1 at rank 1
    scores[2, [2, 11]] = scores[2, [11, 2]]      # own item 2 last
    equivalent = np.zeros((3, 12), bool)
    equivalent[0, 5] = True                      # query 0: item 5 is as good
    equivalent[1, 11] = True                     # query 1: an equivalent ranked last
    b = se.gmr_bounds(scores, equivalent)
    assert b["reported"]["R@1"] == pytest.approx(1 / 3)
    assert b["reported"]["R@10"] == pytest.approx(2 / 3)
    assert b["upper"]["R@1"] == pytest.approx(2 / 3)
    assert b["lower"]["R@10"] == pytest.approx(1 / 3)
    assert b["lower"]["GMR"] <= b["reported"]["GMR"] <= b["upper"]["GMR"]


def test_mean_relevant_and_correlation():
    rel = np.array([[1.0, 0.5, 0.0], [1.0, 0.0, 0.2]])
    assert se.mean_relevant_at_threshold(rel, [0.1, 0.6]) == {0.1: 2.0, 0.6: 1.0}
    c = se.proxy_correlation({"a": rel, "b": 2 * rel, "c": -rel})
    assert c["a"]["b"] == pytest.approx(1.0) and c["a"]["c"] == pytest.approx(-1.0)


def test_random_ndcg_both_directions_small_example():
    videos = [["a man drives a car", "a man in a car"], ["a dog runs", "a dog plays"], ["a cat sleeps", "a cat"]]
    out = se.random_ndcg_both_directions(videos, "bow", n_caption_queries=100, n_video_queries=100, seed=0)
    # no caption shares a word with another video: every query has only its own item(s) relevant,
    # so the random expectation is (mean gain) * (sum of discounts) / IDCG computed by hand
    flat_rel = np.array([[1.0, 0.0, 0.0]])
    assert out["text-to-video"] == pytest.approx(float(se.expected_random_ndcg(flat_rel)[0]))
    own = np.array([[1.0, 1.0, 0, 0, 0, 0]])
    assert out["video-to-text"] == pytest.approx(float(se.expected_random_ndcg(own)[0]))
    assert out["share_relevant"] == pytest.approx(1 / 3)


# ------------------------------------------------------------------ table builders (hand-made cases)
def test_ndcg_table_skips_nan_rows_and_instance_table():
    runs = {"good": np.array([[0.9, 0.1], [0.1, 0.9]]), "bad": np.array([[0.1, 0.9], [0.9, 0.1]])}
    rel = {"bow": np.array([[1.0, 0.5], [0.0, 1.0]]), "meteor": np.array([[1.0, 0.0], [np.nan, np.nan]])}
    t = se.ndcg_table(runs, rel).set_index(["run", "proxy", "gain"])["nDCG"]
    assert t[("good", "bow", "linear")] == pytest.approx(100.0)
    # bad, bow, linear: row 0 ranks (0.5, 1) against ideal (1, 0.5); row 1 cut at 1 relevant item: gain 0
    d = 1 / np.log2(3)
    assert t[("bad", "bow", "linear")] == pytest.approx(100 * ((0.5 + d) / (1 + 0.5 * d) + 0) / 2)
    assert t[("bad", "meteor", "linear")] == pytest.approx(0.0)    # only row 0 counts; cut at 1
    assert len(t) == 2 * 2 * 2
    inst = se.instance_table(runs, ks=(1,))
    assert inst.loc["good"].tolist() == [100.0, 100.0] and inst.loc["bad", "R@1"] == 0.0


def test_run_order_note_both_cases():
    same = pd.DataFrame({"bow": [50.0, 20.0], "syn": [30.0, 10.0]}, index=["a", "b"])
    ok, note = se.run_order_note(same, ["bow", "syn"])
    assert ok and note.startswith("every proxy orders the runs the same way (a > b)") and "SYN gives" in note
    differ = pd.DataFrame({"bow": [50.0, 20.0], "syn": [10.0, 30.0]}, index=["a", "b"])
    ok, note = se.run_order_note(differ, ["bow", "syn"])
    assert not ok and note.startswith("the proxies do not all") and "unlike the paper" in note


def test_random_checks_and_stop_word_check():
    rel = {"bow": np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.5, 0.0]])}
    t = se.random_ndcg_checks({"bow": 20.0}, rel, {"bow": {"mean": 0.3}}, {"bow": 34.0, "pos": 30.0})
    assert t.loc["expected value, same setting", "bow"] == pytest.approx(100 * se.expected_random_ndcg(rel["bow"]).mean())
    assert t.loc["pairs with relevance > 0 (%), 1k-A", "bow"] == pytest.approx(37.5)
    assert t.loc["full test split, both directions", "bow"] == pytest.approx(30.0)
    assert t.loc["Random (paper, Table 3)", "bow"] == 34.0 and list(t.columns) == ["bow"]
    videos = [["the dog runs", "the dog runs"], ["the cat sleeps", "the cat sleeps"]]
    from fireeval.t2v import similarity as sim
    s = se.stop_word_check(videos, ["the dog runs", "the cat sleeps"], {"spacy": sim.STOP_WORDS, "none": ()})
    # without stop words "the" is shared by every pair; with spaCy's list nothing off-diagonal is
    assert s.loc["none", "pairs with relevance > 0 (%)"] == 100.0
    assert s.loc["spacy", "pairs with relevance > 0 (%)"] == 50.0


def test_text_only_scores_skip_the_query_copy():
    q = ["a dog runs", "a cat"]
    s = se.text_only_scores(q, [["a dog runs", "zebra"], ["a cat", "a cat", "cat sits"]])
    assert s[0, 0] == 0.0                      # video 0 is represented by "zebra", not the query's copy
    assert s[1, 1] > 0 and s[1, 0] == 0.0
    assert se.text_only_scores(["red car"], [["red car"]])[0, 0] == pytest.approx(1.0)   # only caption: kept


def test_relevance_matrices_match_similarity_matrix():
    from fireeval.t2v import similarity as sim
    caps = ["a red car", "a car", "a dog"]
    out = se.relevance_matrices(caps, ["bow"])
    assert np.allclose(out["bow"], sim.similarity_matrix(caps, caps, "bow"))
    assert out["bow"][0, 1] == 0.5 and out["bow"][0, 2] == 0.0


def test_gmr_gap_bootstrap_matches_the_bounds_and_relevant_count_difference_is_paired():
    import numpy as np

    from fireeval.t2v import semantic_evaluation as se

    rng = np.random.default_rng(0)
    scores = rng.random((40, 40))
    equivalent = rng.random((40, 40)) > 0.9
    bounds = se.gmr_bounds(scores, equivalent)
    gap, samples = se.gmr_gap_bootstrap(scores, equivalent, n_resamples=200, seed=1)
    assert gap == 100 * (bounds["upper"]["GMR"] - bounds["lower"]["GMR"])
    assert gap >= 0 and (samples >= -1e-9).all()          # the upper bound never falls below the lower one
    rel = rng.random((30, 30))
    d, s = se.relevant_count_difference(rel, rel, 0.5, n_resamples=50)
    assert d == 0 and np.allclose(s, 0)                    # identical proxies: no difference in any resample


def test_gmr_gap_by_threshold_grows_as_equivalence_loosens():
    from fireeval.t2v import semantic_evaluation as se_mod

    rng = np.random.default_rng(0)
    rel = rng.random((60, 60))
    np.fill_diagonal(rel, 1.0)
    scores = rng.random((60, 60))
    t = se_mod.gmr_gap_by_threshold({"r": scores}, rel, [0.5, 0.99], n_resamples=50)
    assert list(t["threshold"]) == [0.5, 0.99]
    assert (t["low"] <= t["gap"]).all() and (t["gap"] <= t["high"]).all()
    assert t["gap"].iloc[0] >= t["gap"].iloc[1] >= 0
    assert t["queries with equivalents"].iloc[0] > t["queries with equivalents"].iloc[1]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.integers(1, 40), st.integers(0, 2**32 - 1), st.sampled_from([2, 5, 1000]))
def test_rank_order_is_the_stable_descending_sort(n_rows, n_cols, seed, n_values):
    # quicksort + re-ordered ties must equal numpy's stable sort, ties (incl. -0.0 vs 0.0, NaN) by column
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, n_values, (n_rows, n_cols)).astype(float) / 4
    scores[rng.random(scores.shape) < 0.1] = np.nan
    scores[rng.random(scores.shape) < 0.1] = -0.0
    np.testing.assert_array_equal(se.rank_order(scores), np.argsort(-scores, axis=1, kind="stable"))


def test_ndcg_table_equals_proxy_ndcg_run_by_run():
    rng = np.random.default_rng(1)
    runs = {"a": rng.integers(0, 3, (30, 30)).astype(float), "b": rng.random((30, 30))}
    relevance = {"x": rng.random((30, 30)) * (rng.random((30, 30)) < 0.3), "y": rng.random((30, 30))}
    relevance["y"][3] = np.nan  # a query left out of that matrix
    table = se.ndcg_table(runs, relevance)
    for (run, p, gain), value in table.set_index(["run", "proxy", "gain"])["nDCG"].items():
        keep = ~np.isnan(relevance[p]).any(axis=1)
        assert value == 100 * se.proxy_ndcg(runs[run][keep], relevance[p][keep], gain=gain).mean()


def test_rank_order_keeps_integers_exact_and_unsigned_unwrapped():
    big = np.array([[2**62 + 1, 2**62, 2**62 + 1]])  # equal as doubles, not as integers
    np.testing.assert_array_equal(se.rank_order(big), [[0, 2, 1]])
    np.testing.assert_array_equal(se.rank_order(np.array([[0, 255, 3]], dtype=np.uint8)), [[1, 2, 0]])
    np.testing.assert_array_equal(se.rank_order(np.array([[False, True, True]])), [[1, 2, 0]])
