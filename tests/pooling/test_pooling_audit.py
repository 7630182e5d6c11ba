"""Incomplete-judgement measures in pool sweeps, τ_AP, band crossings, the audit and its CLI."""
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.cli import main
from fireeval.core.evaluation import score_run_set as evaluate
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core.trec import write_qrels, write_run
from fireeval.pooling import pool_audit as audit, pools, sampling
from fireeval.book.chapters import pool_depth, pool_leave_out, trec_claims
from fireeval.book.papers import westerveld
from fireeval.pooling.incomplete import JudgedCells, incomplete_scores
from fireeval.stats import agreement, claims, reliability
from fireeval.synthetic.trec_collection import simulate_pooled_trec

from conftest import require_data


@pytest.fixture(scope="module")
def collection():
    frames, qrels_frame, table, _ = simulate_pooled_trec(seed=3, n_topics=8, n_docs=600, depth=80, pool_depth=15,
                                                         n_groups=5, runs_per_group=3)
    runs, qrels = RunSet.from_frames(frames), Qrels(qrels_frame)
    pool = pools.build_pool(runs, pooled=table["pooled"].to_numpy(), groups=table, depth=15)
    return runs, qrels, table, pool


# ---------------------------------------------------------------- incomplete-judgement measures
def test_incomplete_scores_match_core_evaluate(collection):
    runs, qrels, _, _ = collection
    ours = incomplete_scores(runs, qrels)
    core = evaluate(runs, qrels, ["bpref", "infAP"], complete=True).values
    condensed = evaluate(runs, qrels, ["map", "ndcg"], complete=True, judged_only=True).values
    np.testing.assert_allclose(ours["bpref"], core["bpref"], atol=1e-12)
    np.testing.assert_allclose(ours["infAP"], core["infAP"], atol=1e-12)
    np.testing.assert_allclose(ours["map_judged"], condensed["map"], atol=1e-12)
    np.testing.assert_allclose(ours["ndcg_judged"], condensed["ndcg"], atol=1e-12)


def test_incomplete_scores_match_pytrec_eval(collection):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    runs, qrels, _, _ = collection
    ours = incomplete_scores(runs.select(runs.names[:3]), qrels)
    q = {}
    for r in qrels.frame.itertuples():
        q.setdefault(str(r.query), {})[r.docno] = int(r.relevance)
    for i, name in enumerate(runs.names[:3]):
        run = {str(t): {runs.docnos[d]: float(len(row) - j) for j, d in enumerate(row[row >= 0])}
               for t, row in zip(runs.topics, runs.docs[i])}
        ev = pytrec_eval.RelevanceEvaluator(q, {"bpref", "infAP"}).evaluate(run)
        evj = pytrec_eval.RelevanceEvaluator(q, {"map"}, judged_docs_only_flag=True).evaluate(run)
        for ours_name, key, source in [("bpref", "bpref", ev), ("infAP", "infAP", ev), ("map_judged", "map", evj)]:
            ref = np.array([source.get(t, {}).get(key, 0.0) for t in qrels.topics])
            np.testing.assert_allclose(ours[ours_name][i], ref, atol=1e-12, err_msg=f"{name} {ours_name}")


def test_depth_sweep_incomplete_measures_equal_rescoring_with_depth_k_qrels(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 4, 15], ["bpref", "infAP", "map_judged", "ndcg_judged"])
    for i, k in enumerate([1, 4, 15]):
        qk = pool.at_depth(qrels, k)
        assert set(qk.topics) == set(qrels.topics)  # every topic keeps a judged document at depth >= 1
        core = evaluate(runs, qk, ["bpref", "infAP"], complete=True).values
        condensed = evaluate(runs, qk, ["map", "ndcg"], complete=True, judged_only=True).values
        np.testing.assert_allclose(sweep.values["bpref"][i], core["bpref"], atol=1e-12)
        np.testing.assert_allclose(sweep.values["infAP"][i], core["infAP"], atol=1e-12)
        np.testing.assert_allclose(sweep.values["map_judged"][i], condensed["map"], atol=1e-12)
        np.testing.assert_allclose(sweep.values["ndcg_judged"][i], condensed["ndcg"], atol=1e-12)


def test_infap_equals_ap_when_every_pooled_document_is_judged(collection):
    # Without sampling, infAP's estimate of the precision above a relevant document is the
    # precision with unjudged documents counted non-relevant: infAP = AP up to epsilon.
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [2, 15], ["map", "infAP"])
    np.testing.assert_allclose(sweep.values["infAP"], sweep.values["map"], atol=1e-4)


def test_judged_cells_keep_mask_equals_removing_judgements():
    grades = np.array([[[1, 0, 1, 0]]], dtype=float)
    judged = np.ones_like(grades, dtype=bool)
    cells = JudgedCells(grades, judged)
    keep = np.array([[[True, False, True, True]]])
    out = cells.scores(["bpref", "map_judged"], n_relevant=2, n_nonrelevant=1, keep=keep)
    # kept list: rel, rel, non -> bpref 1, AP' 1
    assert out["bpref"][0, 0] == 1.0 and out["map_judged"][0, 0] == 1.0


# ---------------------------------------------------------------- agreement statistics
def _naive_tau_ap(estimate, truth):
    order = np.argsort(-np.asarray(estimate), kind="stable")
    e, t = np.asarray(estimate)[order], np.asarray(truth)[order]
    n = len(e)
    total = 0.0
    for i in range(1, n):
        c = sum(0.5 if (e[j] == e[i] or t[j] == t[i]) else float(t[j] > t[i]) for j in range(i))
        total += c / i
    return 2 * total / (n - 1) - 1


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=12))
def test_tau_ap_matches_its_definition(pairs):
    e, t = np.array(pairs, dtype=float).T
    assert agreement.tau_ap(e, t) == pytest.approx(_naive_tau_ap(e, t))


def test_tau_ap_penalises_swaps_at_the_top_more():
    truth = np.arange(10, 0, -1.0)
    top, bottom = truth.copy(), truth.copy()
    top[[0, 1]], bottom[[8, 9]] = top[[1, 0]], bottom[[9, 8]]
    assert agreement.kendall_tau(top, truth) == pytest.approx(agreement.kendall_tau(bottom, truth))
    assert agreement.tau_ap(top, truth) < agreement.tau_ap(bottom, truth)
    assert agreement.tau_ap(truth, truth) == 1.0 and agreement.tau_ap(-truth, truth) == -1.0


def test_kendall_tau_many_equals_batch_with_ties():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 6, (50, 17)).astype(float), rng.integers(0, 6, (50, 17)).astype(float)
    np.testing.assert_allclose(agreement.kendall_tau_many(a, b), agreement.kendall_tau_batch(a, b))


def test_band_crossing_requires_the_band_to_stay_above():
    out = reliability.band_crossing([1, 2, 3, 4], low=[0.8, 0.91, 0.85, 0.95], high=[0.95, 0.99, 0.95, 0.99])
    assert out == {"first_possible": 1, "first_certain": 4}


def test_bootstrap_agreement_is_paired_by_seed(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 15], ["map", "bpref"])
    a, b = sweep.bootstrap("map", 30, rng=5), sweep.bootstrap("map", 30, rng=5)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (2, 30) and np.allclose(a[-1], 1.0)  # full depth: the original ranking


# ---------------------------------------------------------------- claims
def test_depth_claims_are_one_record_per_statement_the_paper_s_with_its_here_row(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 3, 15], ["map", "bpref", "P_10", "infAP"])
    records = {r["id"]: r for r in pool_depth.depth_claims(sweep, 15, "real: test runs", n_resamples=50)}
    # infAP is AP here (every pooled document judged): shown once in the chapter, not as a claim; the other
    # measures are ONE family claim of the book's, a condition per measure; no id ends in '.here'
    assert set(records) == {"depth_map", "depth_measures"}
    paper, family = records["depth_map"], records["depth_measures"]
    assert paper["quote"].startswith("Even a pool depth") and paper["paper"].startswith("Westerveld (")
    assert paper["standing"] == "stand-in" and paper["verdict"] == "not testable here"
    assert paper["here"][0]["label"] == "reproduced" and paper["here"][0]["data"] == "test runs"  # full depth: τ = 1
    assert family["standing"] == "original" and family["paper"] == "this book" and family["label"] == "reproduced"
    assert sorted(c["condition"] for c in family["family"]["conditions"]) == ["P_10", "bpref"]
    assert family["family"]["summary"] == "holds at 2 of 2" and family["family"]["need"] == "every condition"
    assert family["per_condition"] == {m: {"label": "reproduced", "primary": "reproduced", "why": ""}
                                       for m in ("bpref", "P_10")}
    for r in records.values():
        claims.check_record(r)
        assert r["missing"] == [] and r["power"]["passes"] is True
        kinds = {a["kind"]: a for a in r["sensitivity"]}
        assert set(kinds) >= {"interval method", "seed", "exact value"}
        assert kinds["exact value"]["weight"] == "equal"  # the paper prints realised τ on its own topics
    exact = next(a for a in paper["sensitivity"] if a["kind"] == "exact value")
    assert exact["value"] == paper["conventions"][""]["value"] and exact["low"] is None
    assert paper["conventions"][""]["method"].startswith("95% ")


def test_a_measure_whose_percentile_row_flips_is_no_firmer_than_inconclusive():
    # The issue: depth_P_10 showed 'reproduced' while its percentile-interval row flipped it.
    claim = claims.Claim("fam", paper="this book", section="x", quote="q", quantity="τ-b", test=claims.Test(">", 0.9),
                         data="real: x", standing="original", reading=claims.Reading("r", "q", "book's own question"),
                         evidence=claims.Evidence.none("-"), power=claims.Power.no_control("-"))
    firm, loose = claims.Estimate(0.95, 0.92, 0.97, "b"), claims.Estimate(0.95, 0.93, 0.98, "b")
    record = claim.evaluate_family(
        {"P@10": claims.Estimate(0.93, 0.905, 0.95, "b"), "bpref": firm}, multiplicity="none: test",
        sensitivity=[claims.Alternative("percentile", kind="interval method", conditions={
            "P@10": claims.Estimate(0.93, 0.89, 0.95, "p"), "bpref": loose})])
    per = pool_depth.condition_labels(record)
    assert record["label"] == "inconclusive"  # the family flips with the interval method: capped
    assert per["P@10"]["label"] == "inconclusive" and per["P@10"]["primary"] == "reproduced"
    assert per["bpref"]["label"] == "reproduced"
    assert pool_depth.holds_sentence({**record, "per_condition": per}).startswith("reproduced for bpref; inconclusive "
                                                                                  "for P@10 (reproduced by its interval")
    # an equal-standing row (the exact realised τ) that reproduces where the interval cannot tell: 'depends'
    record = claim.evaluate_family({"MAP": claims.Estimate(0.91, 0.88, 0.94, "b")}, multiplicity="none: test",
                                   sensitivity=[claims.Alternative("exact", kind="exact value", weight="equal",
                                                                   conditions={"MAP": claims.Estimate(0.91)})])
    assert record["label"] == "depends" and pool_depth.condition_labels(record)["MAP"]["label"] == "depends"
    # ... and one that fails where the interval cannot tell: no reading holds, so no firmer than 'inconclusive'
    record = claim.evaluate_family({"MAP": claims.Estimate(0.91, 0.88, 0.94, "b")}, multiplicity="none: test",
                                   sensitivity=[claims.Alternative("exact", kind="exact value", weight="equal",
                                                                   conditions={"MAP": claims.Estimate(0.892)})])
    assert record["label"] == "inconclusive" and pool_depth.condition_labels(record)["MAP"]["label"] == "inconclusive"


def test_depth_control_is_the_deepest_depth_below_the_full_pool_with_an_interval(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 3, 10, 15], ["map"])
    paper = {r["id"]: r for r in pool_depth.depth_claims(sweep, 1, "real: x", n_resamples=40)}["depth_map"]
    control = paper["power"]
    assert control["control"].startswith("a depth-10 pool") and control["estimate"]["low"] is not None
    tau10 = agreement.kendall_tau(sweep.values["map"][2].mean(-1), sweep.reference["map"].mean(-1))
    assert control["estimate"]["value"] == pytest.approx(tau10)
    c = paper["conventions"][""]
    assert f"{0.90 + c['value'] - c['low']:.3f}" in control["control"]  # how large τ must be to pass


def test_needed_value_makes_the_interval_just_pass():
    e = claims.Estimate(0.913, 0.881, 0.94, "b")
    need = trec_claims.needed_value(e, claims.Test(">", 0.9))
    shifted = claims.Estimate(need + 1e-9, need + 1e-9 - (e.value - e.low), need + 1e-9 + (e.high - e.value), "b")
    assert claims.verdict(shifted, claims.Test(">", 0.9))[0] == "reproduced"
    assert need == pytest.approx(0.932)


def test_stand_in_claims_are_never_contradicted(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 15], ["map", "bpref"])
    records = {r["id"]: r for r in pool_depth.depth_claims(sweep, 1, "real: test runs", n_resamples=30)}
    assert records["depth_map"]["verdict"] == "not testable here"
    assert records["depth_map"]["on_stand_in"]["label"] == records["depth_map"]["here"][0]["label"]
    synthetic = pool_depth.depth_claims(sweep, 1, "stand-in: synthetic, 15 runs", n_resamples=30)
    assert {r["verdict"] for r in synthetic} == {"not testable here"}  # a synthetic finding is a stand-in too


def test_depth_claims_rank_pooled_runs_only_as_primary(collection):
    runs, qrels, table, pool = collection
    pooled = table["pooled"].to_numpy()
    sweep = pools.depth_sweep(pool, qrels, [1, 3, 15], ["map"])
    (record,) = pool_depth.depth_claims(sweep, 1, "real: x", pooled=pooled, n_resamples=40, rng=2)
    primary = record["conventions"][""]
    means = sweep.values["map"][0][pooled].mean(-1), sweep.reference["map"][pooled].mean(-1)
    assert primary["value"] == pytest.approx(agreement.kendall_tau(*means))
    boot = reliability.bootstrap_agreement(sweep.values["map"][0][pooled], sweep.reference["map"][pooled], 40, 2)
    jack = reliability.jackknife_agreement(sweep.values["map"][0][pooled], sweep.reference["map"][pooled])
    low, high, _ = claims.bca_interval(primary["value"], boot, jack)
    assert primary["low"] == pytest.approx(min(low, primary["value"]))
    rows = {a["name"]: a for a in record["sensitivity"]}
    every = rows["all runs ranked (unpooled runs included)"]
    assert every["value"] == pytest.approx(
        agreement.kendall_tau(sweep.values["map"][0].mean(-1), sweep.reference["map"].mean(-1)))
    # TRECVID 2003 pooled every submission: ranking unpooled runs too is secondary, and says why
    assert every["weight"] == "equal" and every["reason"] == pool_depth.ALL_RUNS_REASON
    assert rows["percentile interval (same resamples)"]["low"] == pytest.approx(
        min(np.quantile(boot, 0.025), primary["value"]))
    assert rows["bootstrap seed 3"]["kind"] == "seed"


def test_depth_map_on_trec8_is_not_reproduced_when_its_realised_tau_is_below_the_bar():
    # The issue: BCa with z0 = 1.53 put the upper end at the largest of 1,000 resamples, while the realised
    # τ-b at depth 3 over the 71 pooled runs is 0.892 < 0.90. Now BCa is replaced, and the realised τ
    # (equal standing) disagrees with any interval that clears 0.90.
    require_data("trec8_adhoc/runs.tsv", "trec8_adhoc/qrels.trec8.adhoc.txt.gz")
    from fireeval.book.inputs import trec_inputs

    data = trec_inputs.pooled_inputs("pool_depth", "real", None, 0, 100, 0)
    pooled = data.table["pooled"].to_numpy().astype(bool)
    pool = pools.build_pool(data.runs, pooled=pooled, groups=data.table, depth=100)
    sweep = pools.depth_sweep(pool, data.qrels, [3, 50, 100], ["map"])
    (record,) = pool_depth.depth_claims(sweep, 3, data.label(), pooled=pooled, n_resamples=1000, rng=0)
    here = record["here"][0]
    exact = next(a for a in record["sensitivity"] if a["kind"] == "exact value")
    assert exact["value"] == pytest.approx(0.892, abs=5e-4) and exact["label"] == "contradicted"
    assert "BCa unstable" in record["conventions"][""]["method"]  # replaced, and the method says so
    assert here["label"] != "reproduced"
    # inconclusive by the replacing interval, contradicted as the realised value: no reading reproduces it,
    # and the two disagree on the word, so no firmer than inconclusive (depends needs a reading that holds)
    assert here["label"] == ("inconclusive" if exact["flips"] else "contradicted")
    every = next(a for a in record["sensitivity"] if a["kind"] == "subset")
    assert every["value"] == pytest.approx(0.855, abs=5e-4)


def test_leave_out_is_one_claim_with_a_row_per_leave_out_and_its_here_row(collection):
    runs, qrels, table, pool = collection
    lo = pools.compare_leave_outs(pool, qrels, "map")
    per_topic = {("run", "pooled"): lo.run_out, ("group", "pooled"): lo.group_out,
                 ("run", "all runs"): lo.original, ("group", "all runs"): lo.original}  # nothing removed: τ = 1
    record = pool_leave_out.leave_out_claim(lo.original, per_topic, 30, 0, "real: x")
    claims.check_record(record)
    # One statement of the paper ("original MAPs and modified MAPs ... τ > 0.98"): one record, no twin
    assert record["id"] == "leave_out" and not record["id"].endswith(".here")
    assert record["verdict"] == "not testable here" and record["standing"] == "stand-in"
    assert record["paper"] == westerveld.WESTERVELD and "et al" not in record["paper"]
    family = record["family"]
    assert [c["condition"] for c in family["conditions"]] == ["run left out", "group left out"]
    assert family["need"] == "every condition" and "intersection-union" in family["multiplicity"]
    value = agreement.kendall_tau(lo.original.mean(-1), lo.group_out.mean(-1))
    assert family["conditions"][1]["value"] == pytest.approx(value)
    # what TREC-8 (here: the collection) shows is the claim's here row, with the family's count
    here = record["here"][0]
    assert here["label"] == record["on_stand_in"]["label"] and here["found"] == family["summary"]
    rows = {r["name"]: r for r in record["sensitivity"]}
    nist = rows["all runs (NIST's definition of a unit's own documents)"]
    assert nist["weight"] == "equal" and [c["value"] for c in nist["family"]["conditions"]] == [1.0, 1.0]
    exact = rows["pooled, " + trec_claims.EXACT_TAU]
    assert exact["weight"] == "equal" and "realised value" in exact["reason"] and exact["kind"] == "exact value"
    assert {rows["pooled, percentile interval"]["kind"], rows["pooled, bootstrap seed 1"]["kind"]} == {
        "interval method", "seed"}
    assert "shows only that the test can pass" in record["power"]["control"]


def test_leave_out_label_follows_its_equal_rows():
    # Two units, 20 topics: run left out keeps the ranking exactly, group left out reverses two runs.
    rng = np.random.default_rng(1)
    original = np.linspace(0.1, 0.6, 12)[:, None] + rng.normal(0, 0.02, (12, 20))
    swapped = original.copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    same = {("run", "pooled"): original, ("group", "pooled"): original}
    record = pool_leave_out.leave_out_claim(original, same, 30, 0, "real: x")
    assert record["here"][0]["label"] == "reproduced" and record["flips"] == []
    # NIST's definition (equal standing) gives a ranking that fails at the group: the claim depends
    mixed = {**same, ("run", "all runs"): original, ("group", "all runs"): np.vstack([original[1:], original[:1]])}
    record = pool_leave_out.leave_out_claim(original, mixed, 30, 0, "real: x")
    assert record["here"][0]["label"] == "depends"
    assert any(name.startswith("all runs") for name in record["flips"])
    claims.check_record(record)


def test_manual_claim_is_one_record_over_the_range_the_paper_leaves_open(collection):
    runs, qrels, table, pool = collection
    pooled = table["pooled"].to_numpy().astype(bool)
    lo = pools.compare_leave_outs(pool, qrels, "map")
    manual = pool_leave_out.manual_claim(lo.original, {"pooled": lo.group_out}, 30, 0, "real: x", pooled=pooled)
    claims.check_record(manual)
    assert manual["id"] == "leave_out_manual" and manual["verdict"] == "not testable here"
    assert manual["here"] and manual["here"][0]["label"] == manual["on_stand_in"]["label"]
    assert any(a["kind"] == "interval method" for a in manual["sensitivity"])
    # 'very close' has no bound in the paper: a range of thresholds up to just under its printed 0.99
    assert manual["reading"]["source"] == "no guidance: range"
    assert {r["test"] for r in manual["sensitivity"] if r["kind"] == "threshold (range)"} == {
        "> 0.9", "> 0.95", "> 0.98", "> 0.985"}
    subset = next(r for r in manual["sensitivity"] if r["kind"] == "subset")
    assert subset["weight"] == "equal" and "every submission was pooled" in subset["reason"]
    value = agreement.kendall_tau(lo.original[pooled].mean(-1), lo.group_out[pooled].mean(-1))
    assert subset["value"] == pytest.approx(value)


def test_leave_out_claim_ranks_the_pooled_runs_alone_as_a_row_of_each_reading(collection):
    runs, qrels, table, pool = collection
    pooled = table["pooled"].to_numpy().astype(bool)
    lo = pools.compare_leave_outs(pool, qrels, "map")
    per_topic = {("group", "pooled"): lo.group_out, ("group", "all runs"): lo.group_out}
    record = pool_leave_out.leave_out_claim(lo.original, per_topic, 30, 0, "real: x", pooled=pooled)
    rows = {r["name"]: r for r in record["sensitivity"] if r["kind"] == "subset"}
    assert len(rows) == 2 and all(r["weight"] == "equal" for r in rows.values())
    value = agreement.kendall_tau(lo.original[pooled].mean(-1), lo.group_out[pooled].mean(-1))
    cell = rows["pooled, pooled runs only ranked"]["family"]["conditions"][0]
    assert cell["condition"] == "group left out" and cell["value"] == pytest.approx(value)


def test_warning_claim_needs_useful_precision():
    assert pool_leave_out.warning_claim(6, 40, "real: x")["verdict"] == "not reproduced"
    assert pool_leave_out.warning_claim(40, 41, "real: x")["verdict"] == "reproduced"
    # Against the base rate (a raised risk); the round 0.5 a secondary row: its flip is shown, decides nothing
    assert "more more" not in str(pool_leave_out.warning_claim(6, 40, "real: x")["reading"])
    record = pool_leave_out.warning_claim(20, 40, "real: x", base_rate=0.05)
    assert "loses 2% or more often than a run" in record["reading"]["rule"]
    assert record["test"] == "> 0.05" and record["label"] == "reproduced"
    strict = next(r for r in record["sensitivity"] if r["kind"] == "threshold")
    assert strict["test"] == "> 0.5" and strict["label"] == "inconclusive" and "more likely than not" in strict["name"]
    assert strict["weight"] == "secondary" and strict["flips"] and "book's own" in strict["reason"]
    claims.check_record(record)
    assert pool_leave_out.warning_claim(1, 40, "real: x", base_rate=0.3)["label"] == "contradicted"


def test_relevant_count_association_reads_both_ways(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 15], ["map"])
    a = pools.relevant_count_association(sweep, qrels, "map", 1, n_resamples=40, n_permutations=200)
    few, many, _ = pools.relevant_split(qrels, sweep.topics)
    tau = lambda cols: agreement.kendall_tau(sweep.values["map"][0][:, cols].mean(-1),  # noqa: E731
                                             sweep.reference["map"][:, cols].mean(-1))
    assert a["split"] == pytest.approx(tau(many) - tau(few))
    assert 0 < a["split_p"] <= 1 and a["split_boot"].shape == (40,) and len(a["split_jack"]) == len(sweep.topics)
    from scipy.stats import spearmanr
    ok = np.isfinite(a["per_topic"])
    assert a["rho"] == pytest.approx(spearmanr(a["n_relevant"][ok], a["per_topic"][ok])[0])
    record = pool_depth.explanation_claim(a, 1, "real: x")
    assert set(record["conventions"]) == {""} and record["conventions"][""]["value"] == pytest.approx(a["rho"])
    split = next(r for r in record["sensitivity"] if r["kind"] == "statistic")
    assert split["value"] == pytest.approx(a["split"]) and f"{a['split_p']:.3f}" in split["name"]
    assert split["weight"] == "secondary" and "coarser" in split["reason"]  # a diagnostic of the same idea
    claims.check_record(record)


def test_select_runs_keeps_the_runs_asked_for(collection):
    runs, qrels, table, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 15], ["map"])
    pooled = table["pooled"].to_numpy().astype(bool)
    sub = sweep.select_runs(pooled)
    assert sub.runs == [r for r, p in zip(sweep.runs, pooled) if p]
    np.testing.assert_array_equal(sub.values["map"], sweep.values["map"][:, pooled])


# ---------------------------------------------------------------- random samples of the judgements
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), st.integers(0, 5))
def test_sample_rows_are_nested_and_keep_the_share_per_topic(topics, seed):
    row_topic = np.sort(np.array(topics))
    rates = [0.1, 0.3, 0.5, 1.0]
    keep = sampling.sample_rows(row_topic, rates, seed)
    assert (keep[:-1] <= keep[1:]).all() and keep[-1].all()
    for t in np.unique(row_topic):
        n = (row_topic == t).sum()
        for r, k in zip(rates, keep):
            assert k[row_topic == t].sum() == max(1, int(np.ceil(r * n - 1e-9)))


def _random_collection(seed, n_topics=4, n_docs=40, n_runs=3, grades=(0, 1, 2), judged=0.7):
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(n_docs)]
    q = [(str(t), d, int(rng.choice(grades))) for t in range(n_topics) for d in docs if rng.random() < judged]
    qrels = Qrels(pd.DataFrame(q, columns=["query", "docno", "relevance"]))
    frames = {f"r{i}": pd.DataFrame([(str(t), d, float(s)) for t in range(n_topics)
                                     for d, s in zip(rng.permutation(docs)[:30], rng.permutation(30))],
                                    columns=["query", "docno", "score"]) for i in range(n_runs)}
    return RunSet.from_frames(frames), qrels, frames


def _pytrec(qrels_dict, frames, measures, judged_only=False):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ev = pytrec_eval.RelevanceEvaluator(qrels_dict, set(measures), judged_docs_only_flag=judged_only)
    out = {}
    for name, f in frames.items():
        run = {}
        for r in f.itertuples():
            run.setdefault(r.query, {})[r.docno] = r.score
        out[name] = ev.evaluate(run)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_infap_and_the_other_measures_equal_trec_eval_on_a_qrels_with_minus_one(seed):
    # The oracle: trec_eval (pytrec_eval) reading the sampled qrels written in its own convention,
    # unsampled judged documents at -1 ("in the pool, not judged").
    runs, qrels, frames = _random_collection(seed)
    exp = sampling.sampled_judgements(runs, qrels, [0.3, 0.6], [seed], sampling.SAMPLED_MEASURES)
    row_topic = pd.Index(qrels.topics).get_indexer(qrels.frame["query"].astype(str))
    keep = sampling.sample_rows(row_topic, [0.3, 0.6], seed)
    for i in range(2):
        grades = sampling.sampled_grades(qrels.frame["relevance"].to_numpy(), keep[i])
        sampled = {}
        for (t, d), g in zip(qrels.frame[["query", "docno"]].itertuples(index=False), grades):
            sampled.setdefault(t, {})[d] = int(g)
        plain = _pytrec(sampled, frames, ["map", "bpref", "infAP"])
        judged = _pytrec(sampled, frames, ["map", "ndcg"], judged_only=True)
        for r, name in enumerate(runs.names):
            for ours, key, src in [("map", "map", plain), ("bpref", "bpref", plain), ("infAP", "infAP", plain),
                                   ("map_judged", "map", judged), ("ndcg_judged", "ndcg", judged)]:
                ref = [src[name].get(t, {}).get(key, 0.0) for t in qrels.topics]
                np.testing.assert_allclose(exp.values[ours][i, 0, r], ref, atol=1e-12, err_msg=f"{name} {ours}")


@pytest.mark.parametrize("seed", [3, 4])
def test_incomplete_scores_equal_trec_eval_with_minus_one_zero_and_graded_judgements(seed):
    runs, qrels, frames = _random_collection(seed, grades=(-1, 0, 1, 2, 3))
    ours = incomplete_scores(runs, qrels)
    q = {}
    for r in qrels.frame.itertuples():
        q.setdefault(str(r.query), {})[r.docno] = int(r.relevance)
    plain = _pytrec(q, frames, ["bpref", "infAP"])
    judged = _pytrec(q, frames, ["map", "ndcg"], judged_only=True)
    for r, name in enumerate(runs.names):
        for m, key, src in [("bpref", "bpref", plain), ("infAP", "infAP", plain), ("map_judged", "map", judged),
                            ("ndcg_judged", "ndcg", judged)]:
            ref = [src[name].get(t, {}).get(key, 0.0) for t in qrels.topics]
            np.testing.assert_allclose(ours[m][r], ref, atol=1e-12, err_msg=f"{name} {m}")


def test_sampling_claims_are_one_record_per_paper_statement_with_weighed_rows(collection):
    runs, qrels, _, _ = collection
    exp = sampling.sampled_judgements(runs, qrels, [0.1, 0.2, 0.5, 1.0], [0, 1])
    boot = {m: exp.bootstrap(m, 40, 0) for m in exp.values}
    jack = {m: exp.jackknife(m) for m in exp.values}
    strat = sampling.sampled_judgements(runs, qrels, [0.2], [0, 1], stratified=True)
    records = {r["id"]: r for r in pool_depth.sampling_claims(exp, boot, jack, 0.2, None, "real: x", stratified=strat)}
    # Sakai's one statement covers both condensed-list measures: one family claim, a condition per measure
    assert set(records) == {"robust_bpref", "robust_infAP", "robust_condensed"}
    assert [c["condition"] for c in records["robust_condensed"]["family"]["conditions"]] == ["map_judged",
                                                                                          "ndcg_judged"]
    for r in records.values():
        claims.check_record(r)
        assert r["quote"].startswith("(paraphrase of ") and r["paper"].startswith("this book (testing ")
        assert r["missing"] == [] and "with 50% of the judgements against" in r["power"]["control"]
        rows = {a["name"]: a for a in r["sensitivity"]}
        assert {a["kind"] for a in rows.values()} >= {"interval method", "single sample", "sampling rate",
                                                      "sampling design"}
        assert all(a["weight"] == "secondary" and a["reason"] for a in rows.values() if a["kind"] == "single sample")
        assert rows["sampling rate 10%"]["weight"] == "equal"  # heavier incompleteness: the papers' point
        assert rows["bootstrap seed 1"]["kind"] == "seed"  # new topic resamples: a stability row
        assert r.get("family") or "resamples (seed 1)" in rows["bootstrap seed 1"]["method"]
        assert rows["sampling rate 50%"]["weight"] == "secondary" and rows["sampling rate 50%"]["reason"]
    stratified = lambda cid: next(a for a in records[cid]["sensitivity"] if a["kind"] == "sampling design")  # noqa
    assert stratified("robust_bpref")["weight"] == "equal"  # Buckley & Voorhees' own design
    assert stratified("robust_infAP")["weight"] == "secondary"  # infAP is built for a uniform sample
    assert "redrawn with replacement" in records["robust_bpref"]["conventions"][""]["method"]
    assert records["robust_bpref"]["power"]["control"].startswith("map with 50% of the judgements against map with 20%")
    t = {m: exp.tau(m) for m in exp.values}
    assert records["robust_bpref"]["conventions"][""]["value"] == pytest.approx((t["bpref"][1] - t["map"][1]).mean())
    cond = {c["condition"]: c for c in records["robust_condensed"]["family"]["conditions"]}
    assert cond["ndcg_judged"]["value"] == pytest.approx((t["ndcg_judged"][1] - t["bpref"][1]).mean())
    assert np.allclose(t["map"][-1], 1.0)  # rate 1: the full judgements
    # infAP: both measures against the full-judgement AP ranking, as the paraphrase says
    ta = {m: exp.tau(m, "map") for m in ("infAP", "bpref")}
    assert records["robust_infAP"]["conventions"][""]["value"] == pytest.approx((ta["infAP"][1] - ta["bpref"][1]).mean())
    assert "full-judgement map ranking" in records["robust_infAP"]["quantity"]


def test_stratified_samples_keep_the_share_of_relevant_and_non_relevant(collection):
    runs, qrels, _, _ = collection
    exp = sampling.sampled_judgements(runs, qrels, [0.3], [3], ["map"], stratified=True)
    rel = qrels.frame["relevance"].to_numpy() >= qrels.relevance_level
    topic = pd.Index(qrels.topics).get_indexer(qrels.frame["query"].astype(str))
    strata = topic * 2 + rel
    keep = sampling.sample_rows(strata, [0.3], 3)[0]
    expected = sum(max(1, int(np.ceil(0.3 * (strata == s).sum() - 1e-9))) for s in np.unique(strata))
    assert keep.sum() == expected == exp.n_judged[0, 0]


def test_control_rate_is_the_next_rate_above():
    assert pool_depth.control_rate([1.0, 0.05, 0.25, 0.1], 0.1) == 0.25
    assert pool_depth.control_rate([0.1, 0.5], 0.5) is None


# ---------------------------------------------------------------- audit
def test_audit_of_a_run_with_its_group_left_out_scores_like_the_leave_out(collection):
    runs, qrels, table, pool = collection
    left = pools.compare_leave_outs(pool, qrels, "map").table
    judged = pool.judged_share(qrels, 15, leave_out="group").mean(-1)
    for r in [table["run"][0], table["run"][2]]:  # a pooled and an unpooled run
        g = table.set_index("run").loc[r, "group"]
        others = [n for n in runs.names if table.set_index("run").loc[n, "group"] != g]
        result = audit.audit_run(pool.leave_out(qrels, group=g), runs.select([r]), 15, runs.select(others),
                                 groups=table)
        assert result.scores["map"] == pytest.approx(left.loc[r, "group left out"], abs=1e-12)
        assert result.per_topic["judged@15"].mean() == pytest.approx(judged[runs.names.index(r)])
        assert result.risk in audit.RISKS and r in result.report()
        assert result.bias["by"] == "group" and result.bias["n_reference"] == len(others)
        assert 0 <= result.bias["predicted"] <= result.bias["upper"] + 1e-12


def test_audit_reports_how_its_estimate_validated_on_the_reference_runs(collection):
    # The audit must not present its 90th percentile or warning level without saying how they
    # did on the reference runs themselves (leave one group out), as the pool_leave_out chapter does.
    runs, qrels, table, _ = collection
    target = table.loc[~table["pooled"], "run"].iloc[0]
    others = [n for n in runs.names if n != target]
    result = audit.audit_run(qrels, runs.select([target]), 15, runs.select(others), groups=table, max_loss=0.01)
    losses = audit.reference_losses(runs.select(others), qrels, 15, None,
                                    table.set_index("run")["group"].reindex(others))
    expected = audit.validation_summary(audit.cross_validate(losses, share="judged@15", max_loss=0.01), 0.01)
    v = result.bias["validation"]
    assert (v["n_losers"], v["n_flagged"], v["n_flagged_losers"], v["n_losers_covered"]) == (
        expected["n_losers"], expected["n_flagged"], expected["n_flagged_losers"], expected["n_losers_covered"])
    text = result.report()
    assert f"of only {v['n_losers_covered']} of the {v['n_losers']} runs that lost 1%" in text
    assert "not a bound" in text


def test_audit_without_reference_runs_says_risk_unknown(collection):
    runs, qrels, _, _ = collection
    result = audit.audit_run(qrels, runs.select([runs.names[1]]), 15)
    assert result.risk == "unknown" and result.bias is None
    assert result.scores["map"] <= result.scores["map_judged"] + 1e-12


def test_audit_rejects_several_runs(collection):
    runs, qrels, _, _ = collection
    with pytest.raises(ValueError, match="one run at a time"):
        audit.audit_run(qrels, runs.select(runs.names[:2]), 15)


def test_drop_model_predicts_from_nearest_runs():
    model = audit.fit_drop_model([1.0, 0.9, 0.5], [0.0, 0.01, 0.2], n_neighbours=1)
    median, upper = model.predict([0.52, 0.97])
    assert median.tolist() == [0.2, 0.0]


def test_cross_validation_counts_add_up(collection):
    runs, qrels, table, pool = collection
    lo = pools.compare_leave_outs(pool, qrels, "map")
    risk = pools.leave_out_risk(pool, qrels, lo.table, ks=(15,))
    cv = audit.cross_validate(risk, share="judged@15", max_loss=0.01, n_neighbours=5)
    summary = audit.validation_summary(cv, 0.01)
    assert summary["n_runs"] == len(runs.names)
    assert summary["n_flagged_losers"] <= min(summary["n_flagged"], summary["n_losers"])
    assert 0 <= summary["coverage"].value <= 1


def test_cli_audit_prints_risk_and_writes_json(collection, tmp_path, capsys):
    runs, qrels, table, _ = collection
    write_qrels(qrels.frame, tmp_path / "qrels.txt")
    paths = []
    for i, name in enumerate(runs.names):
        row = runs.docs[i]
        frame = pd.DataFrame([(t, runs.docnos[d], float(100 - j)) for t, docs in zip(runs.topics, row)
                              for j, d in enumerate(docs) if d >= 0], columns=["query", "docno", "score"])
        write_run(frame, tmp_path / f"{name}.run", tag=name)
        paths.append(str(tmp_path / f"{name}.run"))
    table[["run", "group"]].to_csv(tmp_path / "groups.tsv", sep="\t", index=False)
    unpooled = table.loc[~table["pooled"], "run"].iloc[0]
    code = main(["audit", str(tmp_path / "qrels.txt"), str(tmp_path / f"{unpooled}.run"), "--pool-depth", "15",
                 "--runs", *paths, "--groups", str(tmp_path / "groups.tsv"), "--json", str(tmp_path / "a.json")])
    out = capsys.readouterr().out
    assert code == 0 and "Risk that unjudged documents understate" in out and "bpref" in out
    saved = json.loads((tmp_path / "a.json").read_text())
    assert saved["run"] == unpooled and saved["risk"] in audit.RISKS
    assert main(["audit", str(tmp_path / "qrels.txt"), paths[0], "--pool-depth", "0"]) == 2


def test_cli_audit_pooled_runs_given_by_name_or_table(collection, tmp_path, capsys):
    runs, qrels, table, _ = collection
    write_qrels(qrels.frame, tmp_path / "qrels.txt")
    paths = []
    for i, name in enumerate(runs.names):
        frame = pd.DataFrame([(t, runs.docnos[d], float(100 - j)) for t, docs in zip(runs.topics, runs.docs[i])
                              for j, d in enumerate(docs) if d >= 0], columns=["query", "docno", "score"])
        write_run(frame, tmp_path / f"{name}.run", tag=name)
        paths.append(str(tmp_path / f"{name}.run"))
    unpooled = table.loc[~table["pooled"], "run"].iloc[0]
    pooled = table.loc[table["pooled"], "run"].tolist()
    # Declare only some pooled runs, so the answer differs from the fully-judged guess.
    declared = pooled[: len(pooled) // 2]
    table.assign(pooled_depth15=np.where(table["run"].isin(declared), "yes", "no"))[["run", "pooled_depth15"]].to_csv(
        tmp_path / "runs.tsv", sep="\t", index=False)
    base = ["audit", str(tmp_path / "qrels.txt"), str(tmp_path / f"{unpooled}.run"), "--pool-depth", "15",
            "--runs", *paths]
    saved = {}
    for how, extra in {"names": ["--pooled", *declared], "table": ["--pooled-from", str(tmp_path / "runs.tsv")],
                       "guess": []}.items():
        assert main([*base, *extra, "--json", str(tmp_path / f"{how}.json")]) == 0
        saved[how] = json.loads((tmp_path / f"{how}.json").read_text())
    capsys.readouterr()
    others = runs.select([n for n in runs.names if n != unpooled])
    direct = audit.audit_run(qrels, runs.select([unpooled]), 15, others, pooled=declared)
    assert saved["names"]["bias"] == saved["table"]["bias"]
    assert saved["names"]["bias"]["n_fit"] == len(declared) == direct.bias["n_fit"]
    assert saved["guess"]["bias"]["n_fit"] != len(declared)
    assert main([*base, "--pooled", "no_such_run"]) == 2
    assert "not among the --runs files" in capsys.readouterr().err
    (tmp_path / "bad.tsv").write_text("run\tpooled\nA\tmaybe\n")
    assert main([*base, "--pooled-from", str(tmp_path / "bad.tsv")]) == 2
    assert "bad.tsv:2" in capsys.readouterr().err


@pytest.mark.realdata
def test_trec8_audit_matches_known_leave_out_drops(trec8_runs):
    require_data("trec8_adhoc/runs.tsv", "trec8_adhoc/qrels.trec8.adhoc.txt.gz")
    from fireeval.datasets import trec8

    names = trec8.run_names()
    runs, qrels = trec8_runs, trec8.load_qrels()  # trec8.load_runs(names), read once per session (conftest)
    assert runs.names == names
    table = trec8.load_runs_table().set_index("run").loc[names].reset_index()
    pool = pools.build_pool(runs, pooled=table["pooled"].to_numpy(), groups=table, depth=100)
    lo = pools.compare_leave_outs(pool, qrels, "map")
    risk = pools.leave_out_risk(pool, qrels, lo.table, ks=(100,))
    cv = audit.cross_validate(risk, by="group")
    summary = audit.validation_summary(cv)
    assert summary["coverage"].value >= 0.85  # the 90th-percentile prediction holds for most runs
    groups = table.set_index("run")["group"]
    for r in ["CL99XT", "acsys8alo2"]:  # a pooled manual run, an unpooled automatic run
        others = [n for n in names if groups[n] != groups[r]]
        result = audit.audit_run(pool.leave_out(qrels, group=groups[r]), runs.select([r]), 100,
                                 runs.select(others), groups=table)
        assert result.scores["map"] == pytest.approx(lo.table.loc[r, "group left out"], abs=1e-12)
        # the audit's own fit and the vectorised cross-validation agree closely
        assert result.bias["predicted"] == pytest.approx(cv.loc[r, "predicted"], abs=0.005)


# ---------------------------------------------------------------- leave-out helpers
def test_leave_out_runs_removes_only_what_no_other_pooled_run_found(collection):
    runs, qrels, table, pool = collection
    group = table["group"].iloc[0]
    mask = (table["group"] == group).to_numpy()
    # Leaving out all runs of one group = the group leave-out.
    ours = pools.leave_out_runs(pool, qrels, mask).frame
    theirs = pool.leave_out(qrels, group=group).frame
    assert sorted(zip(ours["query"], ours["docno"])) == sorted(zip(theirs["query"], theirs["docno"]))
    # Leaving out nobody removes nothing.
    assert len(pools.leave_out_runs(pool, qrels, np.zeros(len(mask), bool)).frame) == len(qrels.frame)


def test_leave_out_runs_follows_the_pools_contributors(collection):
    runs, qrels, table, _ = collection
    pool_all = pools.build_pool(runs, pooled=table["pooled"].to_numpy(), groups=table, depth=15, contributors="all")
    key = lambda f: sorted(zip(f["query"], f["docno"]))
    lost = {}
    for group in table["group"].unique():
        mask = (table["group"] == group).to_numpy()
        # Under NIST's rule an unpooled run of another group keeps a document: same as the group leave-out.
        ours = pools.leave_out_runs(pool_all, qrels, mask).frame
        assert key(ours) == key(pool_all.leave_out(qrels, group=group).frame)
        lost[group] = len(qrels.frame) - len(ours)
    # ...and it removes no more than the pooled-only rule, strictly less for some group here.
    _, _, _, pool = collection
    pooled_lost = {g: len(qrels.frame) - len(pools.leave_out_runs(pool, qrels, (table["group"] == g).to_numpy()).frame)
                   for g in lost}
    assert all(lost[g] <= pooled_lost[g] for g in lost)
    assert any(lost[g] < pooled_lost[g] for g in lost)


def test_places_lost_conventions():
    table = pd.DataFrame({"original": [0.5, 0.4, 0.3], "group left out": [0.35, 0.39, 0.3]},
                         index=pd.Index(["A", "B", "C"], name="run"))
    lo = pools.LeaveOutComparison(None, None, None, table)
    # every run left out: A (0.35) falls behind B (0.39) -> 1 place
    assert lo.places_lost().tolist() == [1, -1, 0]
    # A's 0.35 among B's and C's originals (0.4, 0.3): behind B -> 1 place; B's 0.39 vs A's 0.5: no change
    assert lo.places_lost_against_original().tolist() == [1, 0, 0]


def test_relative_swap_rates_use_the_same_splits_as_absolute():
    rng = np.random.default_rng(0)
    scores = rng.random((6, 20))
    absolute = reliability.swap_rates(scores, 5, 50, bins=[0, np.inf], rng=1)
    relative = reliability.relative_swap_rates(scores, 5, 50, bins=[0, np.inf], rng=1)
    assert absolute["n_swaps"].tolist() == relative["n_swaps"].tolist()  # one bin holding every pair


def test_measure_table_reports_depth_range(collection):
    runs, qrels, _, pool = collection
    sweep = pools.depth_sweep(pool, qrels, [1, 3, 15], ["map", "bpref"])
    samples = {m: sweep.bootstrap(m, 30, rng=0) for m in ["map", "bpref"]}
    ap = {m: sweep.bootstrap(m, 30, rng=0, statistic="tau_ap", at=3) for m in ["map", "bpref"]}
    table = pools.measure_table(sweep, samples, ap, k=3)
    assert list(table.index) == ["map", "bpref"]
    assert {"τ-b at K = 3", "τ_AP at K = 3", "K range where the band crosses 0.90"} <= set(table.columns)
    few, many, median = pools.relevant_split(qrels, sweep.topics)
    assert len(few) + len(many) == len(sweep.topics)
    assert (qrels.n_relevant(sweep.topics)[few] <= median).all()


# ---------------------------------------------------------------- property: judged cells = core ranking functions
@given(st.lists(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.0]), min_size=1, max_size=12), min_size=1,
                max_size=4),
       st.integers(0, 4), st.integers(0, 4))
def test_judged_cells_equal_core_measures_on_any_list(rows, extra_rel, extra_non):
    from fireeval.core import ranking

    width = max(map(len, rows))
    grades = np.array([r + [np.nan] * (width - len(r)) for r in rows])[:, None, :]  # (runs, 1 topic, ranks)
    judged = ~np.isnan(grades)
    # The topic's counts cover every list (one topic) plus judged documents no list retrieved.
    n_rel = int(np.nanmax((grades >= 1).sum(-1))) + extra_rel
    n_non = int(np.nanmax((grades == 0).sum(-1))) + extra_non
    ideal = np.full((1, 1, max(n_rel, 1)), 2.0) * (np.arange(max(n_rel, 1)) < n_rel)  # grades up to 2
    ours = JudgedCells(np.nan_to_num(grades), judged).scores(
        ["bpref", "infAP", "map_judged", "ndcg_judged"], n_rel, n_non, ideal_gains=ideal)
    np.testing.assert_allclose(ours["bpref"], ranking.bpref(grades, n_rel, n_non), atol=1e-12)
    np.testing.assert_allclose(ours["infAP"], ranking.inferred_ap(grades, n_rel), atol=1e-12)
    condensed, _ = ranking.condense(grades)
    np.testing.assert_allclose(ours["map_judged"], ranking.average_precision(condensed, n_rel), atol=1e-12)
    np.testing.assert_allclose(ours["ndcg_judged"], ranking.ndcg(np.nan_to_num(condensed), ideal), atol=1e-12)
    for v in ours.values():
        assert ((v >= 0) & (v <= 1 + 1e-12)).all()


def test_infap_claims_other_rivals_resampled_at_the_claims_rate_alone_as_in_the_whole_batch(collection):
    # The claim bootstraps its other rivals (AP′, MAP) against full-judgement AP only at the claim's rate (the
    # only one their rows read): the rows equal those from every rate's replicates, as before (issue 38).
    runs, qrels, _, _ = collection
    exp = sampling.sampled_judgements(runs, qrels, [0.1, 0.2, 0.5, 1.0], [0, 1])
    boot = {m: exp.bootstrap(m, 40, 0) for m in exp.values}
    jack = {m: exp.jackknife(m) for m in exp.values}
    reliability._AGREEMENT_MEMO.clear()  # the claim's slices computed alone, not read from a whole batch
    rows = {a["name"]: a for a in
            {r["id"]: r for r in pool_depth.sampling_claims(exp, boot, jack, 0.2, None, "real: x")}["robust_infAP"][
                "sensitivity"]}
    reliability._AGREEMENT_MEMO.clear()
    whole = {m: exp.bootstrap(m, 40, 0, "map") for m in ("infAP", "map_judged", "map")}  # every rate, as before
    jk = {m: exp.jackknife(m, "map") for m in whole}
    tau = {m: exp.tau(m, "map") for m in whole}
    how = "40 resamples of the 8 topics, τ averaged over 2 seeds"
    for other in ("map_judged", "map"):
        old = pool_depth._paired(whole["infAP"][1], whole[other][1], jk["infAP"][1], jk[other][1],
                                 float((tau["infAP"][1] - tau[other][1]).mean()), how, None, 0)
        row = rows[f"against {other} instead of bpref"]
        assert (row["value"], row["low"], row["high"]) == (old.value, old.low, old.high)


def _dense_sampled_scores(frames, qrels, grades, level):
    """The scorer before the cell-based one (issue 38), written out: (runs, topics, depth) grades, NaN where a
    document holds no judgement, every measure of fireeval.core.ranking on them; nDCG′ on the condensed lists of
    8 chunks of rows sorted by their last relevant rank, each cut after its widest row's."""
    from fireeval.core import ranking
    topics = list(qrels.topics)
    graded = {(str(t), d): g for (t, d), g in zip(qrels.frame[["query", "docno"]].itertuples(index=False), grades)}
    depth = max(len(f) for f in frames.values())
    dense = np.full((len(frames), len(topics), depth), np.nan)
    for r, f in enumerate(frames.values()):
        for c, t in enumerate(topics):
            docs = f[f["query"] == t].sort_values("score", ascending=False)["docno"]
            dense[r, c, :len(docs)] = [graded.get((t, d), np.nan) for d in docs]
    kept = grades > -1
    row_topic = pd.Index(topics).get_indexer(qrels.frame["query"].astype(str))
    n_rel = np.bincount(row_topic[kept & (grades >= level)], minlength=len(topics)).astype(float)
    n_non = np.bincount(row_topic[kept & (grades >= 0) & (grades < level)], minlength=len(topics)).astype(float)
    out = {"map": ranking.average_precision(dense, n_rel, level), "bpref": ranking.bpref(dense, n_rel, n_non, level),
           "infAP": ranking.inferred_ap(dense, n_rel, level),
           "map_judged": ranking.average_precision(ranking.condense(dense)[0], n_rel, level)}
    flat = dense.reshape(-1, depth)
    positive = np.where(flat > 0, np.arange(1, depth + 1), 0)
    last = positive.max(-1)
    ideal = ranking.ideal_gains(np.where(kept, row_topic, -1), grades, len(topics))
    ndcg, topic_of_row = np.empty(len(flat)), np.tile(np.arange(len(topics)), len(frames))
    for rows in np.array_split(np.argsort(last, kind="stable"), 8):
        if len(rows):
            chunk = flat[rows, :max(int(last[rows].max()), 1)]
            ndcg[rows] = ranking.ndcg(ranking.condense(chunk)[0], ideal[topic_of_row[rows]])
    out["ndcg_judged"] = ndcg.reshape(dense.shape[:2])
    return out


@pytest.mark.parametrize("seed, stratified", [(5, False), (6, True), (7, False)])
def test_sampled_scores_from_graded_cells_equal_the_dense_computation_bit_for_bit(seed, stratified):
    # The sampled-judgement scorer reads only the cells holding a grade; every value must equal, to the last
    # bit, the dense computation it replaced (issue 38: pool_depth's headline unchanged).
    runs, qrels, frames = _random_collection(seed, n_topics=5, grades=(-1, 0, 1, 2, 3), judged=0.6)
    rates = [0.2, 0.5, 1.0]
    exp = sampling.sampled_judgements(runs, qrels, rates, [seed], stratified=stratified)
    grade = qrels.frame["relevance"].to_numpy()
    row_topic = pd.Index(qrels.topics).get_indexer(qrels.frame["query"].astype(str))
    strata = row_topic * 2 + (grade >= qrels.relevance_level) if stratified else row_topic
    keep = sampling.sample_rows(strata, rates, seed)
    assert not keep[0].all() and (grade == -1).any()  # some judgements left out, some -1 in the qrels
    for i in range(len(rates)):
        expected = _dense_sampled_scores(frames, qrels, sampling.sampled_grades(grade, keep[i]),
                                         qrels.relevance_level)
        for m in sampling.SAMPLED_MEASURES:
            np.testing.assert_array_equal(exp.values[m][i, 0], expected[m], err_msg=f"{m} at rate {rates[i]}")


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=12), seed=st.integers(0, 2**16))
def test_graded_cells_count_within_rows_and_reuse_their_buffers_safely(sizes, seed):
    # issue 38: _Cells counts with int32 and scratch buffers (a sample's full-length temporaries were fresh pages
    # every time); the counts must be the plain per-row cumulative sums, and a result handed out must survive the
    # next call
    rng = np.random.default_rng(seed)
    rows = rng.choice(1000, size=len(sizes), replace=False)
    row = np.repeat(np.sort(rows), sizes).astype(np.int64)
    rank = np.concatenate([np.sort(rng.choice(100, size=n, replace=False)) for n in sizes]).astype(np.int64)
    cells = sampling._Cells(row, rank)
    flags = [rng.random(len(row)) < p for p in (0.3, 0.7)]
    expected = [np.concatenate([np.cumsum(f[row == r]) for r in np.sort(rows)]) for f in flags]
    first = cells.within_row(flags[0])
    at = flags[1] | (rng.random(len(row)) < 0.5)
    picked = cells.within_row(flags[1], at=at)
    again = cells.within_row(flags[1])
    np.testing.assert_array_equal(first, expected[0])  # unchanged by the later calls
    np.testing.assert_array_equal(picked, expected[1][at])
    np.testing.assert_array_equal(again, expected[1])
    assert first.dtype == np.int32
    np.testing.assert_array_equal(cells.position, np.concatenate([np.arange(1, n + 1) for n in np.bincount(
        np.searchsorted(np.sort(rows), row))]))
    width = rng.integers(0, 200, size=1000)
    np.testing.assert_array_equal(cells.per_cell(width), width[row])
    grade = rng.integers(-1, 3, size=len(row)).astype(float)
    keep = rng.random(len(row)) < 0.5
    np.testing.assert_array_equal(cells.sampled(grade, keep), sampling.sampled_grades(grade, keep))
