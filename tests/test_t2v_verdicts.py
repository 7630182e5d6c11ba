"""The text-to-video chapters' claim helpers: stand-ins, length-neutral annotator, budget band, SYN ≥ PoS curve."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.t2v import fire, verdicts


@given(st.floats(0.005, 0.05), st.integers(100, 5000))
def test_budget_band_is_where_the_binomial_half_width_exceeds_the_threshold(threshold, size):
    low, high = verdicts.budget_level_band(threshold, size)
    if np.isnan(low):  # the half-width never reaches the threshold
        assert fire.binomial_deviation(0.5, size) <= threshold + 1e-12
        return
    assert abs(fire.binomial_deviation(low, size) - threshold) < 1e-9
    assert fire.binomial_deviation(0.5, size) > threshold
    assert fire.binomial_deviation(max(low - 0.01, 1e-6), size) < threshold


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 30), st.integers(0, 10_000))
def test_length_neutral_annotator_always_accepts_the_own_video_and_is_per_query(n, seed):
    a = np.random.default_rng(seed).random((n, n))
    v = verdicts.length_neutral_verdicts(a)
    assert v.diagonal().all()
    # scaling one query's agreements (a long query agreeing less with everything) leaves its verdicts unchanged
    b = a.copy()
    b[0] *= 0.3
    assert (verdicts.length_neutral_verdicts(b) == v).all()


def test_count_difference_curve_minimum_is_the_worst_threshold():
    rng = np.random.default_rng(0)
    a, b = rng.random((40, 30)), rng.random((40, 30))
    low, per = verdicts.count_difference_curve(a, b, [0.2, 0.5, 0.8], n_resamples=200)
    assert low.value == min(e.value for e in per.values())
    assert low.low <= min(e.low for e in per.values()) + 1e-12


def test_the_recall_corrected_assumption_implies_a_larger_relevant_share():
    assert verdicts.implied_relevant_share(0.118, 0.476) > 0.24
    assert np.isnan(verdicts.implied_relevant_share(0.1, 0.0))


def test_fire_table1_evidence_checks_the_printed_cells_against_each_other():
    ev = verdicts.table1_evidence()
    assert ev.cells == 21 and ev.numbers_reproduce


def test_budget_evidence_reproduces_fire_0029_from_its_own_level():
    ev = verdicts.budget_evidence(n_resamples=2000)
    assert ev.cells == 1 and ev.numbers_reproduce


def _toy_fire(n=60, seed=0):
    rng = np.random.default_rng(seed)
    runs = {"a": rng.random((n, n)) + 3 * np.eye(n), "b": rng.random((n, n)) + 2 * np.eye(n)}
    lists = {m: fire.ranked_lists(s, depth=20) for m, s in runs.items()}
    agreement = rng.random((n, n))
    original = np.eye(n, dtype=bool)
    ev = verdicts.FireEvidence(lists, runs, original, None, agreement, n=n, pool_depth=10, ks=[1, 5, 10], ap_depth=20,
                               n_resamples=100, seed=0)
    ev.corrected = ev.positives(agreement, 0.8)
    return ev


def test_proxy_claims_are_stand_ins_and_their_findings_are_the_books():
    ev = _toy_fire()
    n = ev.n
    words = np.random.default_rng(1).integers(3, 15, n)
    per_query = fire.per_query_array(ev.lists, ev.corrected, ["C@1", "C@5", "C@10", "AP@20"], ks=ev.ks, ap_depth=20)
    per_query_original = fire.per_query_array(ev.lists, ev.original, ["C@1", "C@5", "C@10", "AP@20"], ks=ev.ks,
                                              ap_depth=20)
    sp = fire.bootstrap_spearman(words, ev.corrected.sum(1), n_resamples=50)
    sim = np.random.default_rng(2).random(n)
    records = verdicts.false_negative_claims(
        ev, calibrated={"without originals": 0.8, "with originals": 0.85}, other_positives={}, length_spearman={"bow": sp},
        length_spearman_adj={}, length_neutral={"bow": sp}, length_confounded=False, per_query=per_query,
        per_query_original=per_query_original, n_mid=50, words=words, train_similarity={"code": sim, "text": sim},
        train_corr={k: -0.3 for k in verdicts.FIRE_TABLE7}, table2=None, use_real=True, have_fire=False,
        labels_source="proxy:bow-max@0.8", proxy="bow", aggregate="max", proxies_compared=["bow"], train_note="x",
        names={"bow": "BoW"}, sweep_thresholds=[0.7, 0.9], overlap=0.3, pooled_share=0.118)
    by_id = {r["id"]: r for r in records}
    for cid in ("fn_gain25", "fn_boost_mechanism", "fn_budget", "fn_short_more", "fn_train_overlap",
                "fn_train_overlap_size"):
        assert by_id[cid]["standing"] == "stand-in" and by_id[cid]["verdict"] == "not testable here", cid
    for cid in ("fn_gain25.proxy", "fn_boost_mechanism.proxy", "fn_short_more.proxy", "fn_train_overlap.here"):
        assert by_id[cid]["standing"] == "original" and by_id[cid]["paper"] == "this book", cid
    for r in records:
        assert all(r[f] is not None for f in ("evidence", "reading", "standing", "power", "sensitivity")), r["id"]
        assert not r["missing"], r["id"]
    assert by_id["fn_nonuniform"]["verdict"] == "not testable here"
    # the recall-corrected convention is a sensitivity row, not a reading of equal standing
    assert all("recall-corrected" not in name for name in by_id["fn_gain25"]["conventions"])
    assert any("recall-corrected" in r["name"] for r in by_id["fn_gain25"]["sensitivity"])
