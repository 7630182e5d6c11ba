"""The claims mechanism: verdicts are computed, flip when the value crosses the threshold, and use a closed vocabulary."""
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fireeval.book import report
from fireeval.stats.claims import VERDICTS, Claim, Estimate, Test, format_estimate, summary_rows, verdict

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
    assert v == "not reproduced" and basis.startswith("not shown")


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
    rec = _claim().evaluate(Estimate(0.95))
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
