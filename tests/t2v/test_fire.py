"""FIRE pooling, corrected positives, leave-model-out, and the proxy annotator."""
import numpy as np
import pytest
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fireeval.t2v import false_negatives as fire
from fireeval.synthetic.fire_study import simulate_fire


# ------------------------------------------------------------------ oracle: FIRE's own scoring, in plain Python
def fire_oracle(gold: set, ranked: list, ks=(1, 5, 10), ap_depth=20):
    """mmr/analysis.py compute_correct_at_k / compute_average_precision, re-typed."""
    out = {f"C@{k}": int(len(gold & set(ranked[:k])) > 0) for k in ks}
    hits, precisions = [], []
    for item in ranked[:ap_depth]:
        hits.append(item in gold)
        if item in gold:
            precisions.append(np.mean(hits))
    out[f"AP@{ap_depth}"] = float(np.mean(precisions)) if precisions else 0.0
    return out


def test_per_query_scores_match_fire_code_oracle():
    rng = np.random.default_rng(3)
    sim = rng.random((40, 60))
    positives = rng.random((40, 60)) < 0.08
    positives[np.arange(40), np.arange(40)] = True
    lists = fire.ranked_lists(sim, depth=30)
    scores = fire.per_query_scores(lists, positives)
    for q in range(40):
        expected = fire_oracle(set(np.flatnonzero(positives[q])), lists[q].tolist())
        for name, value in expected.items():
            assert scores[name][q] == pytest.approx(value), (q, name)


def test_hand_computed_example():
    # query 0: positives {1, 3}; ranking 0,1,2,3 -> C@1 = 0, C@5 = 1, AP (FIRE) = (1/2 + 2/4) / 2
    lists = np.array([[0, 1, 2, 3]])
    pos = np.array([[False, True, False, True, False]])
    s = fire.per_query_scores(lists, pos, ks=(1, 5), ap_depth=4)
    assert s["C@1"][0] == 0 and s["C@5"][0] == 1
    assert s["AP@4"][0] == pytest.approx(0.5)
    # textbook AP also divides by the unretrieved positive when there is one
    pos2 = pos.copy()
    pos2[0, 4] = True
    assert fire.per_query_scores(lists, pos2, ks=(1,), ap_depth=4, ap="trec")["AP@4"][0] == pytest.approx(1 / 3)
    assert fire.per_query_scores(lists, pos2, ks=(1,), ap_depth=4)["AP@4"][0] == pytest.approx(0.5)


def test_ranked_lists_ties_and_errors():
    assert fire.ranked_lists([[0.5, 0.5, 0.7]]).tolist() == [[2, 0, 1]]
    with pytest.raises(ValueError, match="non-finite"):
        fire.ranked_lists([[0.1, np.nan]])
    with pytest.raises(ValueError, match="n_queries"):
        fire.ranked_lists([0.1, 0.2])


def test_pool_and_judgements_by_hand():
    lists = {"A": np.array([[0, 1, 2], [1, 2, 0]]), "B": np.array([[2, 0, 1], [0, 1, 2]])}
    truth = np.array([[True, False, True], [False, True, True]])
    J = fire.judge_pool(lists, 3, truth, depth=1)
    # A pools (0,0) and (1,1); B pools (0,2) and (1,0)
    assert J.judged.tolist() == [[True, False, True], [True, True, False]]
    assert J.relevant.tolist() == [[True, False, True], [False, True, False]]
    original = np.zeros((2, 3), dtype=bool)
    assert J.positives(original).tolist() == [[True, False, True], [False, True, False]]
    assert J.leave_out(original, "A").tolist() == [[False, False, True], [False, False, False]]
    assert J.leave_out(original, "B").tolist() == [[True, False, False], [False, True, False]]
    with pytest.raises(KeyError, match="pooled models"):
        J.positives(original, ["C"])


def test_judge_pool_with_callable_annotator_sees_only_pooled_pairs():
    lists = {"A": np.array([[0, 1], [1, 0]])}
    seen = []

    def annotator(q, v):
        seen.append(set(zip(q.tolist(), v.tolist())))
        return np.ones(len(q), dtype=bool)

    J = fire.judge_pool(lists, 2, annotator, depth=1)
    assert seen == [{(0, 0), (1, 1)}]
    assert J.relevant.sum() == 2


settings_fast = settings(max_examples=40, deadline=None)


@settings_fast
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 8))
def test_corrected_never_below_original_and_new_between(seed, depth):
    """Adding positives cannot lower C@K; "New" positives sit between original and All."""
    rng = np.random.default_rng(seed)
    n = 12
    sims = {m: rng.random((n, n)) for m in "ABC"}
    lists = {m: fire.ranked_lists(s) for m, s in sims.items()}
    truth = rng.random((n, n)) < 0.3
    original = np.eye(n, dtype=bool)
    J = fire.judge_pool(lists, n, truth, depth=depth)
    allpos = J.positives(original)
    for m in lists:
        new = J.leave_out(original, m)
        assert (original <= new).all() and (new <= allpos).all()
        s_orig = fire.per_query_scores(lists[m], original)
        s_new = fire.per_query_scores(lists[m], new)
        s_all = fire.per_query_scores(lists[m], allpos)
        for k in ("C@1", "C@5", "C@10"):
            assert (s_orig[k] <= s_new[k]).all() and (s_new[k] <= s_all[k]).all()
    # corrected positives are original plus judged-relevant pairs only
    assert (allpos <= (original | (truth & J.judged))).all()


@settings_fast
@given(hnp.arrays(np.int64, (5, 10), elements=st.integers(0, 30)), hnp.arrays(np.int64, (5, 10), elements=st.integers(0, 30)))
def test_overlap_table_is_symmetric_and_bounded(a, b):
    a = np.array([np.unique(r)[:10] if len(np.unique(r)) >= 10 else np.arange(10) + 40 for r in a])
    b = np.array([np.unique(r)[:10] if len(np.unique(r)) >= 10 else np.arange(10) + 40 for r in b])
    t1 = fire.prediction_overlap({"a": a, "b": b})
    t2 = fire.prediction_overlap({"b": b, "a": a})
    assert t1[["overlap", "rbo", "rbo_ext"]].values == pytest.approx(t2[["overlap", "rbo", "rbo_ext"]].values)
    assert 0 <= t1.loc[0, "rbo"] <= 1 - 0.9 ** 10 + 1e-12
    assert 0 <= t1.loc[0, "overlap"] <= 1


def test_identical_lists_overlap_one():
    a = np.tile(np.arange(10), (3, 1))
    t = fire.prediction_overlap({"a": a, "b": a})
    assert t.loc[0, "overlap"] == 1 and t.loc[0, "rbo_ext"] == pytest.approx(1)
    assert t.loc[0, "rbo"] == pytest.approx(1 - 0.9 ** 10)


def test_positive_ranks_and_groups():
    ranks = fire.positive_ranks(np.array([[3, 0, 1, 2]]), np.array([[1, 0, 0, 0]]), np.array([[1, 0, 0, 1]]))
    assert ranks[["rank", "source"]].values.tolist() == [[1, "new"], [2, "original"]]
    g = fire.correctness_groups([1, 0], [1, 1], "X", "Y")
    assert g.tolist() == ["Both", "Y only"]


def test_table1_delta_and_leave_model_out_for_unpooled_model():
    sim = simulate_fire(n_videos=60, captions_per_video=5, n_topics=4, seed=2)
    lists = {m: fire.ranked_lists(s, depth=20) for m, s in sim.similarity.items()}
    pooled = {m: lists[m] for m in ("ModelA", "ModelB")}
    J = fire.judge_pool(pooled, 60, sim.truth)
    t1 = fire.table1(lists, sim.original, J.positives(sim.original))
    assert np.allclose(t1["delta"], t1["corrected"] - t1["original"])
    t4 = fire.leave_model_out({"ModelC": lists["ModelC"]}, sim.original, J).set_index("data")
    assert t4.loc["All", "C@10"] == t4.loc["New", "C@10"]  # never pooled: nothing to leave out


# ------------------------------------------------------------------ the simulator's ground truth
def test_corrected_metrics_approach_true_metrics_as_pool_deepens():
    """With a perfect annotator, the error of corrected scores shrinks with pool depth.

    Pooled models: C@K is exact once depth >= K. A model outside the pool (ModelC
    scored against A and B's judgements) and textbook AP, which needs every positive,
    converge as the pool deepens and are exact when the pool covers every item.
    """
    sim = simulate_fire(n_videos=150, captions_per_video=5, n_topics=8, seed=4)
    n = 150
    lists = {m: fire.ranked_lists(s) for m, s in sim.similarity.items()}
    pooled = {m: lists[m] for m in ("ModelA", "ModelB")}
    true = {m: fire.per_query_scores(lists[m], sim.truth, ap="trec", ap_depth=n) for m in lists}
    errors = []
    for depth in (1, 5, 10, 30, n):
        J = fire.judge_pool(pooled, n, sim.truth, depth=depth)
        corrected = J.positives(sim.original)
        err = 0.0
        for m in lists:
            got = fire.per_query_scores(lists[m], corrected, ap="trec", ap_depth=n)
            err += sum(abs(got[k].mean() - true[m][k].mean()) for k in got)
            if m in pooled and depth >= 10:
                assert got["C@10"].mean() == true[m]["C@10"].mean()
        errors.append(err)
    assert errors[-1] == pytest.approx(0, abs=1e-12)
    assert all(a >= b - 1e-12 for a, b in zip(errors, errors[1:])), errors
    assert errors[0] > 0.1


def test_annotator_errors_bias_corrected_scores():
    """A noisy annotator's false positives inflate corrected scores; no errors, no bias."""
    from fireeval.synthetic.fire_study import simulate_labels

    sim = simulate_fire(n_videos=200, captions_per_video=5, n_topics=8, seed=5)
    lists = {m: fire.ranked_lists(s, depth=20) for m, s in sim.similarity.items()}
    J0 = fire.judge_pool(lists, 200, sim.truth)
    q, v = np.nonzero(J0.judged)
    labels, _ = simulate_labels(sim.truth[q, v], error_rate=0.2, p_second=0.0, seed=1)
    noisy = np.zeros_like(sim.truth)
    noisy[q, v] = [lab[0] == "relevant" for lab in labels]
    J1 = fire.judge_pool(lists, 200, noisy)
    share = (noisy[q, v] != sim.truth[q, v]).mean()
    assert 0.15 < share < 0.25
    c0 = fire.per_query_scores(lists["ModelC"], J0.positives(sim.original))["C@10"].mean()
    c1 = fire.per_query_scores(lists["ModelC"], J1.positives(sim.original))["C@10"].mean()
    assert c1 > c0


# ------------------------------------------------------------------ proxy annotator
def test_caption_agreement_aggregates_and_leave_self_out():
    queries = ["a man cuts a tomato", "a dog runs"]
    videos = [["a man cuts a tomato", "a man slices a tomato", "a chef cooks"],
              ["a dog runs in a park", "a dog runs", "a puppy plays"]]
    mx = fire.caption_agreement(queries, videos, aggregate="max")
    assert mx[0, 0] == 1 and mx[1, 1] == 1
    own = fire.caption_agreement(queries, videos, aggregate="max", own_video=[0, 1])
    # with its own caption left out, query 0 meets "a man slices a tomato": {man, tomato} / {man, cuts, tomato, slices}
    assert own[0, 0] == pytest.approx(2 / 4)
    # query 1's own caption "a dog runs" is left out once; "a dog runs in a park" -> {dog, runs}/{dog, runs, park}
    assert own[1, 1] == pytest.approx(2 / 3)
    q2 = fire.caption_agreement(queries, videos, aggregate="quorum2")
    assert q2[0, 0] == pytest.approx(0.5) and q2[1, 1] == pytest.approx(2 / 3)
    mean = fire.caption_agreement(queries, videos, aggregate="mean")
    assert mean[0, 0] == pytest.approx((1 + 0.5 + 0) / 3)
    assert (mean <= mx + 1e-12).all() and (q2 <= mx + 1e-12).all()
    with pytest.raises(ValueError, match="aggregate"):
        fire.caption_agreement(queries, videos, aggregate="median")


def test_proxy_verdicts_threshold_is_monotone():
    a = np.random.default_rng(0).random((20, 20))
    assert (fire.proxy_verdicts(a, 0.6) <= fire.proxy_verdicts(a, 0.4)).all()
    with pytest.raises(ValueError, match="threshold"):
        fire.proxy_verdicts(a, 1.5)


def test_caption_agreement_chunks_do_not_matter():
    sim = simulate_fire(n_videos=25, captions_per_video=4, n_topics=3, seed=0)
    a = fire.caption_agreement(sim.queries, sim.data.captions, own_video=np.arange(25), chunk=7)
    b = fire.caption_agreement(sim.queries, sim.data.captions, own_video=np.arange(25), chunk=100)
    assert np.array_equal(a, b)


# ------------------------------------------------------------------ sweeps, samples, simulated FIRE files
def test_threshold_sweep_matches_table1_and_is_monotone():
    sim = simulate_fire(n_videos=80, captions_per_video=5, n_topics=5, seed=7)
    lists = {m: fire.ranked_lists(s, depth=20) for m, s in list(sim.similarity.items())[:2]}
    agree = fire.caption_agreement(sim.queries, sim.data.captions, own_video=np.arange(80))
    sweep = fire.threshold_sweep(lists, sim.original, agree, [0.2, 0.5, 0.8])
    J = fire.judge_pool(lists, 80, agree >= 0.5)
    direct = fire.table1(lists, sim.original, J.positives(sim.original))
    mid = sweep[sweep["threshold"] == 0.5].reset_index(drop=True)
    assert np.allclose(mid["delta"], direct["delta"])
    by_t = sweep[sweep["metric"].str.startswith("C@")].pivot_table(index="threshold", columns=["model", "metric"],
                                                                   values="delta")
    # stricter proxy, smaller C@K deltas. Not so for FIRE's AP: a positive added below
    # the first one can lower it (its precision is below the mean).
    assert (by_t.diff().dropna() <= 1e-12).all().all()
    calib = fire.proxy_calibration(agree, J, sim.original, [0.2, 0.5], truth=sim.truth)
    assert (calib["recall_on_original"].diff().dropna() <= 0).all()
    assert {"precision_in_pool", "recall_in_pool"} <= set(calib)


def test_verdict_sample_is_seeded_and_balanced():
    sim = simulate_fire(n_videos=60, captions_per_video=5, n_topics=4, seed=8)
    lists = {m: fire.ranked_lists(s, depth=10) for m, s in sim.similarity.items()}
    agree = fire.caption_agreement(sim.queries, sim.data.captions, own_video=np.arange(60))
    J = fire.judge_pool(lists, 60, agree >= 0.4)
    a = fire.verdict_sample(sim.queries, sim.data.captions, J, agree, sim.original, n=6, seed=1)
    b = fire.verdict_sample(sim.queries, sim.data.captions, J, agree, sim.original, n=6, seed=1)
    assert a.equals(b) and (a["verdict"] == "relevant").sum() == 3
    assert ((a["agreement"] >= 0.4) == (a["verdict"] == "relevant")).all()


def test_simulated_fire_file_round_trips_through_the_loader():
    from fireeval.datasets import fire as fire_ds
    from fireeval.synthetic.fire_study import SYNTHETIC_TAGS, simulated_fire_file

    sim = simulate_fire(n_videos=70, captions_per_video=4, n_topics=5, seed=9)
    lists = {m: fire.ranked_lists(s, depth=10) for m, s in sim.similarity.items()}
    data = simulated_fire_file(sim, lists, error_rate=0.0, seed=2)
    J, stats = fire_ds.to_judgements(fire_ds.parse_labels(data), sim.queries, sim.video_ids)
    J = J.rename({v: k for k, v in SYNTHETIC_TAGS.items()})
    direct = fire.judge_pool(lists, 70, sim.truth)
    assert stats["placed"] == stats["labels"] == int(direct.judged.sum())
    # duplicate query texts share judgements (the join is by caption text), so compare on unique-text rows
    unique = np.array([sim.queries.count(q) == 1 for q in sim.queries])
    assert unique.sum() > 50
    assert (J.relevant[unique] == direct.relevant[unique]).all()
    for m in lists:
        assert (J.contributed[J.models.index(m)][unique] == direct.contributed[direct.models.index(m)][unique]).all()


# ------------------------------------------------------------------ comparing proxy annotators
def test_calibrated_threshold_picks_closest_share():
    a = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]])
    pooled = np.ones_like(a, dtype=bool)
    assert fire.calibrated_threshold(a, pooled, 0.3, [0.2, 0.5, 0.8]) == 0.8   # shares .9, .6, .3
    assert fire.calibrated_threshold(a, pooled, 0.75, [0.2, 0.5, 0.8]) == 0.5  # .6 and .9 tie: stricter
    with pytest.raises(ValueError, match="no pooled pairs"):
        fire.calibrated_threshold(a, ~pooled, 0.1, [0.5])


def test_verdict_overlap_and_accuracy_by_hand():
    a = np.array([[0.9, 0.1], [0.8, 0.3]])
    b = np.array([[0.9, 0.6], [0.1, 0.3]])
    mask = np.ones((2, 2), bool)
    t = fire.verdict_overlap({"a": a, "b": b}, {"a": 0.5, "b": 0.5}, mask).iloc[0]
    # verdicts a = [1,0,1,0], b = [1,1,0,0]: same on 2 of 4, kappa 0, Jaccard 1/3
    assert t["same verdict"] == 0.5 and t["kappa"] == pytest.approx(0.0)
    assert t["jaccard of relevant"] == pytest.approx(1 / 3)
    acc = fire.verdict_accuracy({"a": a}, [0.5], reference=np.array([[1, 0], [0, 0]], bool), mask=mask).iloc[0]
    assert (acc["accuracy"], acc["precision"], acc["recall"]) == (0.75, 0.5, 1.0)
    with pytest.raises(ValueError, match="no threshold"):
        fire.verdict_overlap({"a": a, "b": b}, {"a": 0.5}, mask)


def test_stratified_verdicts_covers_each_stratum():
    queries = ["a man drives a car", "a dog runs", "a woman sings"]
    videos = [["a man drives a car", "a car on a road"], ["a dog runs fast", "a dog"], ["a woman sings", "music"]]
    s1 = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.1], [0.1, 0.1, 1.0]])
    s2 = np.array([[1.0, 0.2, 0.1], [0.9, 1.0, 0.8], [0.1, 0.1, 1.0]])
    cand = ~np.eye(3, dtype=bool)
    out = fire.stratified_verdicts(queries, videos, {"x": s1, "y": s2}, {"x": 0.5, "y": 0.5}, cand,
                                   n_per_stratum=5, seed=0, n_captions=2)
    counts = out["proxies saying relevant"].value_counts().to_dict()
    assert counts == {"0 of 2": 3, "1 of 2": 2, "2 of 2": 1}
    assert set(out["verdicts"]) == {"x- y-", "x+ y-", "x- y+", "x+ y+"}
    # same seed, same sample
    again = fire.stratified_verdicts(queries, videos, {"x": s1, "y": s2}, {"x": 0.5, "y": 0.5}, cand,
                                     n_per_stratum=5, seed=0, n_captions=2)
    assert out.equals(again)


# ------------------------------------------------------------------ tables and figure frames (hand-made cases)
def test_table1_nested_comparison_and_leave_model_out_nested():
    lists = {"A": np.array([[0, 1, 2], [0, 1, 2]]), "B": np.array([[1, 0, 2], [2, 1, 0]])}
    original = np.eye(3, dtype=bool)[:2]
    corrected = original | np.array([[0, 1, 0], [0, 0, 0]], bool)
    t1 = fire.table1(lists, original, corrected, ks=(1,), ap_depth=3)
    nested = fire.table1_nested(t1)
    # A: C@1 original = (1 + 0)/2, corrected the same; B: original 0/2, corrected 1/2 (row 0 finds video 1)
    assert nested["A"]["C@1"] == {"original": 0.5, "corrected": 0.5, "delta": 0.0}
    assert nested["B"]["C@1"] == {"original": 0.0, "corrected": 0.5, "delta": 0.5}
    paper = {"P": {"C@1": (40.0, 5.0)}}
    truth = pd.DataFrame({"C@1": [1.0]}, index=["A"])
    view = fire.table1_comparison(t1, paper, "here", truth=truth, metrics=["C@1", "AP@3", "C@5"])
    assert list(view.columns) == [(m, q) for m in ("C@1", "AP@3") for q in ("original", "corrected", "delta")]
    assert view.loc[("here", "B"), ("C@1", "delta")] == pytest.approx(50.0)
    assert view.loc[("FIRE paper (human labels)", "P"), ("C@1", "corrected")] == pytest.approx(45.0)
    assert view.loc[("simulation truth", "A"), ("C@1", "corrected")] == pytest.approx(100.0)
    assert np.isnan(view.loc[("simulation truth", "A"), ("C@1", "original")])
    J = fire.judge_pool({"A": lists["A"]}, 3, corrected, depth=2)
    t4 = fire.leave_model_out(lists, original, J, ks=(1,), ap_depth=3)
    lmo = fire.leave_model_out_nested(t4)
    assert lmo["B"]["All"]["C@1"] == 0.5 and lmo["B"]["New"]["C@1"] == 0.5   # A's judgements count for B
    assert lmo["A"]["New"]["C@1"] == 0.5 and set(lmo["A"]["All"]) == {"C@1", "AP@3"}


def test_per_query_array_layout_and_unknown_metric():
    lists = {"A": np.array([[0, 1], [0, 1]]), "B": np.array([[1, 0], [1, 0]])}
    arr = fire.per_query_array(lists, np.eye(2, dtype=bool), ["C@1", "AP@2"], ks=(1,), ap_depth=2)
    assert arr.shape == (2, 2, 2)
    assert arr[:, 0].tolist() == [[1, 0], [0, 1]]          # C@1 per model, per query
    assert arr[0, 1].tolist() == [1.0, 0.5]                # AP@2 of A: positive at rank 1, then rank 2
    with pytest.raises(ValueError, match="C@5"):
        fire.per_query_array(lists, np.eye(2, dtype=bool), ["C@5"], ks=(1,))


def test_correctness_by_labels_stacks_labellings_in_order():
    lists = {"A": np.array([[0, 1], [0, 1]]), "B": np.array([[1, 0], [1, 0]]), "C": np.array([[0, 1], [0, 1]])}
    original = np.eye(2, dtype=bool)
    corrected = np.ones((2, 2), dtype=bool)
    g = fire.correctness_by_labels(lists, {"original": original, "corrected": corrected}, 1, chars=[10, 30])
    assert list(g.columns) == ["chars", "group", "labels"]
    assert g.values.tolist() == [[10, "A only", "original"], [30, "B only", "original"],
                                 [10, "Both", "corrected"], [30, "Both", "corrected"]]
    with pytest.raises(ValueError, match="two models"):
        fire.correctness_by_labels({"A": lists["A"]}, {"o": original}, 1)


def test_calibrated_annotators_by_hand():
    queries = ["a red car", "a dog", "a red car parks"]
    videos = [["a red car", "red car"], ["a dog", "dog barks"], ["a car parks", "red car parks"]]
    scores = {"m": np.array([[1.0, 0.0, 0.9], [0.0, 1.0, 0.5], [0.8, 0.0, 1.0]])}
    out = fire.calibrated_annotators(queries, videos, scores, ["bow"], 0.5, [0.3, 0.6, 0.9], depth=2)
    pooled = np.array([[0, 0, 1], [0, 0, 1], [1, 0, 0]], bool)   # top 2 minus the own video
    assert (out["pooled"] == pooled).all()
    expected = fire.caption_agreement(queries, videos, "bow", "max", own_video=np.arange(3))
    assert np.allclose(out["scores"]["bow"], expected)
    share = {t: float((expected[pooled] >= t).mean()) for t in (0.3, 0.6, 0.9)}
    best = min((abs(s - 0.5), -t) for t, s in share.items())
    assert out["thresholds"]["bow"] == -best[1]
    assert out["pooled_share"]["bow"] == share[out["thresholds"]["bow"]]
    fixed = fire.calibrated_annotators(queries, videos, scores, ["bow"], 0.5, [0.3], fixed={"bow": 0.7, "syn": 0.2},
                                       depth=2)
    assert fixed["thresholds"] == {"bow": 0.7}


# ------------------------------------------------------------------ review additions (issue 11)
def test_containment_is_share_of_query_words_and_not_symmetric():
    m = fire.containment_matrix(["man car", "a dog runs fast"], ["the man drives a car on the road", "dog"])
    assert m[0, 0] == 1.0 and m[1, 1] == pytest.approx(1 / 3)
    assert fire.containment_matrix(["dog"], ["a dog runs fast"])[0, 0] == 1.0
    assert fire.containment_matrix(["the a"], ["the a"])[0, 0] == 0.0       # no content word: 0, not NaN


def test_share_calibrated_threshold_hits_the_share_and_counts_fixed_pairs():
    rng = np.random.default_rng(0)
    a = rng.random((50, 40))
    mask = np.ones_like(a, dtype=bool)
    t = fire.share_calibrated_threshold(a, mask, 0.118)
    assert abs((a >= t).mean() - 0.118) <= 1 / a.size
    fixed = np.eye(50, 40, dtype=bool)
    t2 = fire.share_calibrated_threshold(a, mask, 0.118, always=fixed)
    assert abs(((a >= t2) | fixed).mean() - 0.118) <= 1 / a.size
    assert t2 > t                                    # fewer scored pairs may pass once the fixed ones count


def test_tie_rules_bracket_the_stable_rank_and_match_ranked_lists():
    rng = np.random.default_rng(1)
    s = rng.integers(0, 4, size=(30, 30)).astype(float)           # many ties
    r = fire.original_rank_under_ties(s)
    assert (r["positive first"] <= r["stable"]).all() and (r["stable"] <= r["positive last"]).all()
    lists = fire.ranked_lists(s)
    stable = np.array([int(np.flatnonzero(lists[q] == q)[0]) + 1 for q in range(30)])
    assert (stable == r["stable"]).all()
    last = fire.ranked_lists(fire.positive_loses_ties(s))
    assert (np.array([int(np.flatnonzero(last[q] == q)[0]) + 1 for q in range(30)]) == r["positive last"]).all()
    t = fire.tie_table({"m": s}, ks=(1,)).set_index("tie rule")
    assert t.loc["positive first", "C@1"] >= t.loc["stable", "C@1"] >= t.loc["positive last", "C@1"]


def test_recall_by_length_bins_and_paired_difference():
    table = fire.recall_by_length({"p": np.diag([1.0, 0.1, 1.0, 1.0])}, {"p": 0.5}, [2, 7, 9, 14])
    assert table["queries"].tolist() == [1, 1, 1, 1]
    assert table["recall on original pairs"].tolist() == [1.0, 0.0, 1.0, 1.0]
    d, smp = fire.paired_difference(np.ones(20), np.zeros(20), n_resamples=50)
    assert d == 1.0 and np.allclose(smp, 1.0)                       # a constant difference has no spread


def test_bootstrap_spearman_matches_scipy_and_corrected_by_threshold_shares():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(2)
    x, y = rng.integers(0, 10, 80), rng.random(80)
    v, smp = fire.bootstrap_spearman(x, y, n_resamples=30, seed=0)
    assert v == pytest.approx(spearmanr(x, y).statistic)
    idx = np.random.default_rng(0).integers(0, 80, size=(30, 80))
    assert smp[3] == pytest.approx(spearmanr(x[idx[3]], y[idx[3]]).statistic)
    sim = rng.random((6, 6))
    lists = {"A": fire.ranked_lists(sim, depth=6)}
    agree = rng.random((6, 6))
    sweep = fire.corrected_by_threshold(lists, np.eye(6, dtype=bool), agree, [0.3, 0.7], depth=3, ks=(1,), ap_depth=3)
    assert (sweep.groupby("threshold")["share_with_originals"].first().diff().dropna() <= 0).all()


def test_correction_band_and_deviation_quantile_interval():
    rng = np.random.default_rng(3)
    sim = rng.random((8, 8))
    lists = {"A": fire.ranked_lists(sim, depth=8)}
    agree = rng.random((8, 8))
    sweep = fire.corrected_by_threshold(lists, np.eye(8, dtype=bool), agree, [0.2, 0.5, 0.8], depth=4, ks=(1,),
                                        ap_depth=4)
    band = fire.correction_band(sweep, {"cal": 0.5})
    row = band.loc[("A", "C@1")]
    assert row["sweep min"] <= row["corrected, cal (T=0.500)"] <= row["sweep max"]
    assert row["original"] <= row["sweep min"]                      # C@K never falls when positives are added
    v, lo, hi = fire.deviation_quantile_interval(rng.integers(0, 2, 200), 200, n_resamples=1000, seed=0)
    assert lo <= v <= hi and hi - lo < 0.02


def test_recall_corrected_gain_by_hand_and_bootstrap_centred():
    gain = np.r_[np.ones(30), np.zeros(70)]
    recalled = np.r_[np.ones(50, bool), np.zeros(50, bool)]
    value, samples = fire.recall_corrected_gain(gain, recalled, n_resamples=2000, seed=3)
    assert value == pytest.approx(0.3 / 0.5)
    assert samples.shape == (2000,)
    assert np.quantile(samples, 0.025) < value < np.quantile(samples, 0.975)
    # perfect recall: the corrected gain is the gain itself
    assert fire.recall_corrected_gain(gain, np.ones(100, bool), n_resamples=10)[0] == pytest.approx(0.3)


def test_recall_adjusted_spearman_removes_a_pure_recall_bias():
    # true new positives are independent of length; the proxy finds a share equal to its recall on originals,
    # which is 0.8 for short queries and 0.4 for long ones
    rng = np.random.default_rng(0)
    words = np.r_[np.full(500, 5), np.full(500, 14)]
    rng.shuffle(words)
    true_new = rng.integers(0, 10, 1000).astype(float)
    short = words < 9
    recalled = np.zeros(1000, bool)
    recalled[np.flatnonzero(short)[:400]] = True   # 400 / 500 = 0.8
    recalled[np.flatnonzero(~short)[:200]] = True  # 200 / 500 = 0.4
    new = true_new * np.where(short, 0.8, 0.4)
    raw, _ = fire.bootstrap_spearman(words, new, n_resamples=10)
    adj, samples = fire.recall_adjusted_spearman(words, new, recalled, edges=(0, 9), n_resamples=200, seed=1)
    assert raw < -0.2
    assert adj == pytest.approx(fire.bootstrap_spearman(words, true_new, n_resamples=2)[0])
    assert samples.shape == (200,) and np.isfinite(samples).all()


def test_binomial_deviation_matches_bootstrap_statistic():
    scores = np.r_[np.ones(450), np.zeros(550)]
    boot, lo, hi = fire.deviation_quantile_interval(scores, 1000, n_resamples=4000, seed=0)
    assert fire.binomial_deviation(0.45, 1000) == pytest.approx(boot, abs=0.003)
