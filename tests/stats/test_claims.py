"""The claims mechanism: verdicts are computed, flip when the value crosses the threshold, and use a closed vocabulary."""
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fireeval.book import report
from fireeval.stats.claims import (FIELDS, LABELS, VERDICTS, Alternative, check_record, Claim, Estimate, Evidence, Power, Reading, Test,
                                   bca_interval, format_estimate, label, summary_rows, verdict)

finite = st.floats(-10, 10, allow_nan=False)


def _claim(test=Test(">", 0.9), **kw):
    return Claim("c", paper="P 2024", section="§1", quote="q", quantity="τ", test=test, data="real: x", **kw)


@given(threshold=finite, width=st.floats(0, 1), op=st.sampled_from([">", ">=", "<", "<="]))
def test_verdict_flips_when_the_interval_crosses_the_threshold(threshold, width, op):
    test = Test(op, threshold)
    above = Estimate(threshold + width + 1, threshold + 0.5, threshold + width + 2, "b")
    below = Estimate(threshold - width - 1, threshold - width - 2, threshold - 0.5, "b")
    v_above, v_below = verdict(above, test)[0], verdict(below, test)[0]
    assert {v_above, v_below} == {"reproduced", "not reproduced"}
    assert (v_above == "reproduced") == (op in (">", ">="))


@given(value=finite, spread=st.floats(0.01, 5))
def test_a_straddling_interval_is_never_reproduced(value, spread):
    est = Estimate(value, value - spread, value + spread, "b")
    v, basis = verdict(est, Test(">", value))
    assert v == "not reproduced" and basis.startswith("inconclusive")


@given(st.lists(finite, min_size=2, max_size=200), finite)
def test_intervals_from_samples_cover_the_point_estimate(samples, value):
    est = Estimate.from_samples(value, samples, "toy bootstrap")
    assert est.low <= est.value <= est.high


@given(st.integers(0, 50), st.integers(1, 50))
def test_proportion_interval_covers_the_share(k, n):
    k = min(k, n)
    est = Estimate.proportion(k, n, "splits")
    assert est.low <= est.value <= est.high and 0 <= est.low and est.high <= 1


def test_an_interval_that_misses_its_estimate_is_refused():
    with pytest.raises(ValueError, match="does not contain"):
        Estimate(0.5, 0.6, 0.7, "b")
    with pytest.raises(ValueError, match="both ends"):
        Estimate(0.5, 0.4, None, "b")


def test_conventions_that_disagree_make_the_verdict_depends():
    rec = _claim().evaluate({"paper text": Estimate(0.95, 0.92, 0.97, "mc"),
                             "reference code": Estimate(0.80, 0.70, 0.85, "mc")})
    assert rec["verdict"] == "depends"
    assert rec["conventions"]["paper text"]["verdict"] == "reproduced"
    assert rec["conventions"]["reference code"]["verdict"] == "not reproduced"


def test_untestable_claims_say_why_and_carry_no_number():
    rec = _claim(untestable="needs FIRE's human labels").evaluate()
    assert rec["verdict"] == "not testable here" and "FIRE" in rec["why"] and rec["conventions"] == {}


@given(st.lists(st.tuples(finite, st.floats(0, 2), st.sampled_from([">", "<"])), min_size=1, max_size=5))
def test_the_verdict_vocabulary_is_closed(items):
    ests = {f"c{i}": Estimate(v, v - w, v + w, "b") for i, (v, w, _) in enumerate(items)}
    rec = _claim(test=Test(items[0][2], 0.0)).evaluate(ests)
    assert rec["verdict"] in VERDICTS
    assert all(c["verdict"] in VERDICTS for c in rec["conventions"].values())
    json.dumps(rec)  # a record is plain JSON


def test_nan_value_is_not_testable_not_silently_reproduced():
    assert verdict(Estimate(float("nan")), Test(">", 0))[0] == "not testable here"


def test_report_claims_refuses_an_unknown_verdict_and_a_duplicate_id():
    rec = _claim(standing="original", reading=Reading("as written", "τ > 0.9", "paper's definition")).evaluate(
        Estimate(0.95), evidence=Evidence.none("nothing printed"), power=Power.no_control("none exists"))
    with pytest.raises(ValueError, match="not one of"):
        report.claims([{**rec, "verdict": "sort of"}])
    with pytest.raises(ValueError, match="used twice"):
        report.claims([rec, rec])
    out = report.claims([rec])
    assert out[0]["verdict"] == "reproduced"
    assert "0.950" in format_estimate(out[0]["conventions"][""])


def test_scoreboard_rows_show_value_interval_and_verdict():
    rec = _claim().evaluate({"a": Estimate(0.93, 0.91, 0.95, "b"), "b": Estimate(0.85, 0.8, 0.88, "b")})
    row = summary_rows([rec])[0]
    assert row["verdict"] == "depends" and "0.930 [0.910, 0.950]" in row["found here"]
    html = report.ClaimsTable([row])._repr_html_()
    assert "depends" in html and "<table" in html and np.isfinite(rec["conventions"]["a"]["value"])


# --- the fair-verdict fields -------------------------------------------------------------------------------------

_READING = Reading("as written", "τ > 0.9", "paper's definition")
_NO_EVIDENCE = Evidence.none("nothing printed")
_NO_CONTROL = Power.no_control("none exists")


def _fair(standing="original", **kw):
    return _claim(standing=standing, reading=_READING, **kw)


@given(value=finite, spread=st.floats(0, 3), op=st.sampled_from([">", ">=", "<", "<="]), threshold=finite)
def test_a_stand_in_can_never_contradict_the_paper(value, spread, op, threshold):
    rec = _fair("stand-in").evaluate(Estimate(value, value - spread, value + spread, "b"),
                                     evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert rec["verdict"] == "not testable here" and rec["basis"].startswith("stand-in")
    # what the stand-in shows is kept, as the book's own finding
    assert rec["on_stand_in"]["verdict"] in VERDICTS and rec["on_stand_in"]["label"] in LABELS


def test_synthetic_data_cannot_be_an_original():
    with pytest.raises(ValueError, match="stand-in"):
        Claim("c", paper="P", section="§1", quote="q", quantity="x", test=Test(">", 0), data="synthetic: seeded",
              standing="original")


def test_the_book_finding_of_a_stand_in_carries_its_own_verdict():
    claim = Claim("d", paper="P", section="§4", quote="τ > 0.9", quantity="τ", test=Test(">", 0.9),
                  data="stand-in: TREC-8", standing="stand-in", reading=_READING)
    finding = claim.book_finding().evaluate(Estimate(0.95, 0.93, 0.97, "b"), power=_NO_CONTROL)
    assert finding["verdict"] == "reproduced" and finding["paper"] == "this book" and not finding["missing"]


@given(value=finite, spread=st.floats(0, 3))
def test_a_claim_without_power_is_not_testable(value, spread):
    est = Estimate(value, value - spread, value + spread, "b")
    rec = _fair().evaluate(est, evidence=_NO_EVIDENCE, power=Power.none_possible("nothing can pass"))
    assert rec["verdict"] == "not testable here" and rec["basis"].startswith("no power")
    failing_control = Power.positive_control("a known-good system", Estimate(0.5, 0.4, 0.6, "b"))
    rec = _fair().evaluate(Estimate(0.95, 0.92, 0.97, "b"), evidence=_NO_EVIDENCE, power=failing_control)
    assert rec["verdict"] == "not testable here" and rec["without_power"]["verdict"] == "reproduced"
    passing_control = Power.positive_control("a known-good system", Estimate(0.99, 0.98, 1.0, "b"))
    rec = _fair().evaluate(Estimate(0.95, 0.92, 0.97, "b"), evidence=_NO_EVIDENCE, power=passing_control)
    assert rec["verdict"] == "reproduced" and rec["power"]["passes"] is True


@given(primary=st.floats(0.91, 2), other=st.floats(-2, 0.89))
def test_a_flip_in_sensitivity_shows_in_the_record(primary, other):
    rec = _fair().evaluate(Estimate(primary), evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("other convention", Estimate(other), weight="secondary",
                                                    reason="a diagnostic"),
                                        Alternative("same side", Estimate(primary + 1), kind="seed")])
    assert rec["verdict"] == "reproduced"
    assert rec["flips"] == ["other convention"]
    assert [r["flips"] for r in rec["sensitivity"]] == [True, False]


@given(primary=st.floats(0.91, 2), other=st.floats(-2, 0.89))
def test_an_equal_standing_row_that_flips_makes_the_claim_depend(primary, other):
    rec = _fair().evaluate(Estimate(primary), evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("other convention", Estimate(other), weight="equal")])
    assert rec["label"] == "depends" and "other convention: contradicted" in rec["basis"]
    check_record(rec)


def test_a_record_whose_equal_row_flips_but_not_labelled_depends_is_refused():
    rec = _fair().evaluate(Estimate(0.95), evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("other", Estimate(0.5), weight="secondary", reason="control")])
    assert rec["label"] == "reproduced"
    rec["sensitivity"][0]["weight"] = "equal"  # the same record, had the row been of equal standing
    with pytest.raises(ValueError, match="flip it, yet it is labelled 'reproduced'"):
        check_record(rec)
    with pytest.raises(ValueError, match="flip it"):
        report.claims([rec])


@pytest.mark.parametrize("kind", ["seed", "interval method"])
def test_a_flip_with_the_seed_or_interval_method_caps_the_label_at_inconclusive(kind):
    for primary, other, shown in [(Estimate(0.95, 0.92, 0.97, "b"), Estimate(0.95, 0.88, 0.97, "b"), "reproduced"),
                                  (Estimate(0.80, 0.70, 0.85, "b"), Estimate(0.80, 0.70, 0.95, "b"), "contradicted")]:
        rec = _fair().evaluate(primary, evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                               sensitivity=[Alternative("other", other, kind=kind)])
        assert rec["label"] == "inconclusive", rec["basis"]
        assert rec["basis"].startswith(f"inconclusive: {shown} by the primary interval")
        check_record(rec)
        rec["label"] = shown
        with pytest.raises(ValueError, match="no firmer than 'inconclusive'"):
            check_record(rec)


def test_a_claim_id_ending_in_here_is_refused():
    rec = _fair().evaluate(Estimate(0.95), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    rec["id"] = "depth3.here"
    with pytest.raises(ValueError, match="ending in '.here'"):
        report.claims([rec])


def test_a_stand_in_claim_carries_what_its_data_show_as_a_row():
    c = Claim("depth3", paper="P", section="§4", quote="rankings are stable at depth 3", quantity="τ",
              test=Test(">", 0.9), data="stand-in: TREC-8 (for TRECVID)", standing="stand-in",
              reading=Reading("as written", "τ > 0.90", "paper's definition"))
    rec = c.evaluate(Estimate(0.95, 0.92, 0.97, "b"), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert rec["label"] == "not testable here"
    assert rec["here"] == [{"data": "TREC-8 (for TRECVID)", "verdict": "reproduced", "label": "reproduced",
                            "basis": "the whole interval satisfies the test", "capped": False,
                            "found": "0.950 [0.920, 0.970]"}]


def test_a_family_claim_is_decided_per_condition_never_by_an_extreme():
    conditions = {f"σ = {s}": Estimate(v, v - 0.01, v + 0.01, "b") for s, v in [(1, 0.03), (2, 0.005), (4, -0.02)]}
    rec = _fair(test=Test(">", 0)).evaluate_family(conditions, multiplicity="Bonferroni over 3")
    assert rec["label"] == "contradicted"
    assert rec["family"]["summary"] == "holds at 1 of 3; fails at σ = 4; unclear at σ = 2"
    assert [c["label"] for c in rec["family"]["conditions"]] == ["reproduced", "inconclusive", "contradicted"]
    minimum = Estimate(-0.02, -0.03, -0.01, "bootstrapped minimum", extreme="minimum over σ")
    with pytest.raises(ValueError, match="extreme"):
        _fair().evaluate(minimum, evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    with pytest.raises(ValueError, match="state the multiplicity"):
        _fair().evaluate_family(conditions, multiplicity="")
    rec = _fair().evaluate(Estimate(0.95), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    rec["conventions"][""]["extreme"] = "maximum over K"
    with pytest.raises(ValueError, match="decided by an extreme"):
        check_record(rec)


def test_a_bar_from_the_cell_it_tests_is_refused():
    c = Claim("agree", paper="P", section="§6", quote="R@1 agrees with AxIoU@10", quantity="τ",
              test=Test(">=", 0.355, from_cell="tau(AxIoU@10, AxIoU@1)"), data="real: x", standing="original",
              reading=Reading("as written", "agrees", "paper's definition"), cell="tau(AxIoU@10, AxIoU@1)")
    with pytest.raises(ValueError, match="comes from the cell it tests"):
        c.evaluate(Estimate(0.358), evidence=_NO_EVIDENCE, power=_NO_CONTROL)


def test_no_power_comes_from_a_stated_effect_never_the_observed_one():
    weak = Power.stated_effect(0.02, "the paper's REER threshold", detectable=0.035)
    rec = _fair().evaluate(Estimate(0.95, 0.92, 0.97, "b"), evidence=_NO_EVIDENCE, power=weak)
    assert rec["label"] == "not testable here" and "stated effect (0.02" in rec["basis"]
    assert rec["power"]["detectable"] == 0.035 and rec["power"]["effect"] == 0.02
    strong = Power.stated_effect(0.05, "the paper's REER threshold", detectable=0.035)
    assert _fair().evaluate(Estimate(0.95, 0.92, 0.97, "b"), evidence=_NO_EVIDENCE, power=strong)["label"] == \
        "reproduced"


def test_a_threshold_range_gives_depends_only_when_it_flips_inside():
    reading = Reading("'comparable' over margins", "comparable", "no guidance: range", thresholds=(1.05, 1.25))
    claim = _claim(test=Test("<=", 1.25), standing="original", reading=reading)
    flips = claim.evaluate(Estimate(1.12), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert flips["verdict"] == "depends" and "range" in flips["basis"]
    holds = claim.evaluate(Estimate(1.01), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert holds["verdict"] == "reproduced" and len(holds["sensitivity"]) == 2


def test_a_depends_shows_its_reason_in_reader_words_only():
    # the range's rows name each threshold's verdict as a reader sees it (contradicted / inconclusive), and the
    # box's row keeps that reason, so the verdict cell folds out "why" for a depends too
    reading = Reading("'comparable' over margins", "comparable", "no guidance: range", thresholds=(1.05, 1.25))
    flips = _claim(test=Test("<=", 1.25), standing="original", reading=reading).evaluate(
        Estimate(1.12), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert "<= 1.05: contradicted" in flips["basis"] and "not reproduced" not in flips["basis"]
    row = summary_rows([flips])[0]
    assert row["basis"] == flips["basis"] and "<summary><small>why</small>" in report.verdict_html(row)


def test_missing_fields_are_listed_and_refused_by_the_chapter_box():
    rec = _claim().evaluate(Estimate(0.95))
    assert set(rec["missing"]) == set(FIELDS) - {"sensitivity"}
    with pytest.raises(ValueError, match="standing"):
        report.claims([rec])


def test_labels_tell_contradicted_from_inconclusive():
    contradicted = _fair().evaluate(Estimate(0.5, 0.4, 0.6, "b"), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    inconclusive = _fair().evaluate(Estimate(0.92, 0.85, 0.95, "b"), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert (label(contradicted), label(inconclusive)) == ("contradicted", "inconclusive")
    html = report.ClaimsTable(summary_rows([contradicted, inconclusive]))._repr_html_()
    assert ">contradicted<" in html and ">inconclusive<" in html


def test_evidence_compares_cell_by_cell():
    e = Evidence.compare([0.1, 0.2, np.nan], [0.1004, 0.2, 0.5], "Fig. 7", tolerance=0.0005)
    assert e.cells == 2 and e.numbers_reproduce
    assert not Evidence.compare([0.1], [0.2], "T1", tolerance=0.05).numbers_reproduce
    assert Evidence.none("nothing").numbers_reproduce is None


@given(st.integers(0, 2**31 - 1))
def test_bca_matches_scipy_bootstrap_on_the_same_replicates(seed):
    from scipy.stats import bootstrap

    rng = np.random.default_rng(seed)
    x = rng.exponential(size=25)
    res = bootstrap((x,), np.mean, n_resamples=999, method="BCa", rng=seed)
    jack = (x.sum() - x) / (x.size - 1)
    low, high, how = bca_interval(x.mean(), res.bootstrap_distribution, jack)
    assert how.startswith("BCa bootstrap")
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-12)


def test_bca_corrects_a_skewed_tau_and_the_jackknife_matches_a_loop():
    from fireeval.stats.reliability import bootstrap_agreement, jackknife_agreement
    from scipy.stats import kendalltau

    rng = np.random.default_rng(1)
    ref = rng.random((12, 40))
    noisy = ref + rng.normal(0, 0.05, ref.shape)
    jack = jackknife_agreement(noisy, ref)
    loop = [kendalltau(np.delete(noisy, i, 1).mean(1), np.delete(ref, i, 1).mean(1)).statistic for i in range(40)]
    assert np.allclose(jack, loop)
    boot = bootstrap_agreement(noisy, ref, 500, rng=0)
    value = kendalltau(noisy.mean(1), ref.mean(1)).statistic
    e = Estimate.bca(value, boot, jack, "500 resamples")
    p = Estimate.from_samples(value, boot, "percentile")
    assert e.low <= value <= e.high and (e.low, e.high) != (p.low, p.high)


def test_the_book_finding_keeps_a_range_and_stays_a_stand_in_on_synthetic_data():
    reading = Reading("over margins", "comparable", "no guidance: range", thresholds=(1.05, 1.25))
    claim = Claim("r", paper="P", section="§6", quote="comparable", quantity="ratio", test=Test("<=", 1.25),
                  data="stand-in: blind baselines", standing="stand-in", reading=reading)
    assert claim.book_finding().reading.thresholds == (1.05, 1.25)
    synthetic = Claim("s", paper="P", section="§6", quote="q", quantity="x", test=Test(">", 0),
                      data="stand-in: synthetic, 10 runs", standing="stand-in", reading=reading)
    finding = synthetic.book_finding().evaluate(Estimate(1.0), evidence=_NO_EVIDENCE, power=_NO_CONTROL)
    assert finding["standing"] == "stand-in" and finding["verdict"] == "not testable here"


def test_a_row_flips_a_depends_when_it_settles_it_and_mixed_not_reproduced_is_inconclusive():
    both = {"a": Estimate(0.95), "b": Estimate(0.5)}
    rec = _fair().evaluate(both, evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("seed 1 of b", Estimate(0.99), replaces="b"),
                                        Alternative("seed 1 of a", Estimate(0.99), replaces="a"),
                                        Alternative("either", Estimate(0.4))])
    assert rec["verdict"] == "depends" and rec["flips"] == ["seed 1 of b", "either"]
    with pytest.raises(ValueError, match="unknown reading"):
        _fair().evaluate(both, evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                         sensitivity=[Alternative("x", Estimate(1.0), replaces="c")])
    mixed = _fair().evaluate({"a": Estimate(0.5), "b": Estimate(0.8, 0.7, 0.95, "b")}, evidence=_NO_EVIDENCE,
                             power=_NO_CONTROL)
    both = _fair().evaluate({"a": Estimate(0.5), "b": Estimate(0.8, 0.7, 0.85, "b")}, evidence=_NO_EVIDENCE,
                            power=_NO_CONTROL)
    assert (mixed["label"], both["label"]) == ("inconclusive", "contradicted")


def test_an_unstable_bca_interval_falls_back_to_the_jackknife_and_says_so():
    # 95 % of the replicates below the estimate: the BCa interval no longer contains it.
    rng = np.random.default_rng(0)
    samples = np.concatenate([rng.uniform(0.90, 0.98, 950), rng.uniform(0.98, 0.99, 50)])
    jack = 0.98 - rng.exponential(0.002, 40)
    # |z0| = 1.64 > 1 and the upper end at the largest replicate: unstable, replaced and said so
    assert bca_interval(0.98, samples, jack)[2].startswith(
        "jackknife normal interval (BCa unstable (z0 = 1.64): |z0| = 1.64 > 1; the upper end at the replicates'")
    low, high, how = bca_interval(0.989, samples, jack)
    assert how.startswith("jackknife normal interval (BCa unstable (z0 = 2.65)") and low < 0.989 < high
    assert Estimate.bca(0.98, samples, jack, "toy").unstable.startswith("BCa unstable (z0 = 1.64)")
    balanced = rng.normal(0.5, 0.1, 2000)
    assert bca_interval(0.5, balanced, 0.5 + rng.normal(0, 0.01, 40))[2].startswith("BCa bootstrap")
    e = Estimate.bca(0.989, samples, jack, "toy")
    assert "widened" not in e.method and e.low < 0.989 < e.high


@given(st.lists(st.sampled_from([-1.0, -1 / 3, 1 / 3, 1.0]), min_size=5, max_size=60),
       st.lists(st.sampled_from([-1.0, 1 / 3, 1.0]), min_size=2, max_size=20), st.sampled_from([-1.0, 1.0]))
def test_every_interval_stays_within_what_the_resamples_took(samples, jackknife, value):
    """A tau of few systems (values on a coarse grid, often all at one end) never gets an interval beyond [-1, 1]."""
    from fireeval.stats.claims import bca_interval

    low, high, _ = bca_interval(value, samples, jackknife)
    seen = [*samples, *jackknife, value]
    assert min(seen) - 1e-12 <= low <= high <= max(seen) + 1e-12


def test_depends_only_when_a_reading_reproduces_where_another_does_not():
    # inconclusive by the interval, contradicted as the realised value: no reading supports the claim
    rec = _fair().evaluate(Estimate(0.892, 0.83, 0.916, "b"), evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("exact realised value", Estimate(0.892), kind="exact value")])
    assert rec["label"] == "inconclusive" and rec["sensitivity"][0]["flips"]
    assert not rec["sensitivity"][0]["changes_verdict"]
    check_record(rec)
    # contradicted by the interval, inconclusive by an equal reading: no firmer than inconclusive
    rec = _fair().evaluate(Estimate(0.8, 0.7, 0.85, "b"), evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("other", Estimate(0.8, 0.7, 0.95, "b"))])
    assert rec["label"] == "inconclusive" and "contradicted by the primary interval" in rec["basis"]
    assert "but not with the equal-standing reading (" in rec["basis"] and "the an " not in rec["basis"]
    # one reading reproduces it, the other cannot tell: depends
    rec = _fair().evaluate(Estimate(0.921, 0.86, 0.944, "b"), evidence=_NO_EVIDENCE, power=_NO_CONTROL,
                           sensitivity=[Alternative("exact realised value", Estimate(0.921), kind="exact value")])
    assert rec["label"] == "depends"


def test_each_condition_of_a_family_obeys_its_own_rows():
    conditions = {"P@10": Estimate(0.921, 0.86, 0.944, "b"), "nDCG@10": Estimate(0.95, 0.92, 0.97, "b"),
                  "bpref": Estimate(0.85, 0.80, 0.95, "b")}
    exact = {c: Estimate(e.value) for c, e in conditions.items()}
    pct = {"P@10": Estimate(0.921, 0.9, 0.95, "p"), "nDCG@10": Estimate(0.95, 0.88, 0.97, "p"),
           "bpref": Estimate(0.85, 0.8, 0.95, "p")}
    rec = _fair().evaluate_family(conditions, multiplicity="none: intersection-union", sensitivity=[
        Alternative("exact realised τ", conditions=exact, kind="exact value"),
        Alternative("percentile interval", conditions=pct, kind="interval method")])
    shown = {c["condition"]: c["label"] for c in rec["family"]["conditions"]}
    assert shown == {"P@10": "depends", "nDCG@10": "inconclusive", "bpref": "inconclusive"}
    assert rec["family"]["summary"] == (
        "holds at 0 of 3; depends at P@10 (on exact realised τ); unclear at nDCG@10, bpref")
    # P@10 depends on the reading, but nDCG@10 and bpref are unclear under every reading: no reading makes the
    # whole family hold, so the family is inconclusive, not "depends"
    assert rec["label"] == "inconclusive"
    assert "some are unclear whatever the reading" in rec["basis"]
    html = report.ClaimsTable(summary_rows([rec]))._repr_html_()
    assert "P@10: 0.921 [0.860, 0.944] <em>depends</em>" in html  # the box shows the same word per condition
    check_record(rec)


def test_a_family_row_that_agrees_with_the_primary_reading_does_not_flip_it():
    # Issue 38 reader review (pool_leave_out): both leave-outs hold under the primary reading, one equal-standing
    # reading leaves the group leave-out unclear (the family depends), and rows that agree with the primary were
    # listed as flipping it because they were compared with the family's label after the rows.
    conditions = {"run": Estimate(0.998, 0.994, 1.0, "b"), "group": Estimate(0.998, 0.988, 1.0, "b")}
    pooled_only = {"run": Estimate(0.997, 0.990, 1.0, "b"), "group": Estimate(0.99, 0.97, 1.0, "b")}
    rec = _fair(test=Test(">", 0.98)).evaluate_family(conditions, multiplicity="none: intersection-union", sensitivity=[
        Alternative("pooled runs only ranked", conditions=pooled_only, kind="population"),
        Alternative("all runs", conditions=conditions, kind="population")])
    assert rec["label"] == "depends" and rec["family"]["summary"].startswith("holds at 1 of 2; depends at group")
    assert {r["name"]: r["flips"] for r in rec["sensitivity"]} == {"pooled runs only ranked": True, "all runs": False}
    assert rec["flips"] == ["pooled runs only ranked"]
    html = report.ClaimsTable(summary_rows([rec]))._repr_html_()
    assert html.count("flips it") == 1
    check_record(rec)


def test_a_family_depends_only_when_a_reading_could_make_every_condition_hold():
    conditions = {"P@10": Estimate(0.921, 0.86, 0.944, "b"), "nDCG@10": Estimate(0.95, 0.92, 0.97, "b")}
    exact = {c: Estimate(e.value) for c, e in conditions.items()}
    rec = _fair().evaluate_family(conditions, multiplicity="none: intersection-union", sensitivity=[
        Alternative("exact realised τ", conditions=exact, kind="exact value")])
    assert rec["family"]["summary"] == "holds at 1 of 2; depends at P@10 (on exact realised τ)"
    assert rec["label"] == "depends"  # under the exact reading both hold; under the interval P@10 is unclear
