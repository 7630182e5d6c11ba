"""The folded fair-verdict fields of a claim (``report._fields_html``), branch by branch (issue 36: it was split
into one function per field)."""
from fireeval.book import report


def _html(**row):
    return report._fields_html(row)


def test_evidence_compared_values_and_detail_are_escaped():
    html = _html(evidence={"cells": 3, "source": "Table <1>", "max_abs_diff": 0.01, "tolerance": 0.005,
                           "numbers_reproduce": False, "detail": "rounded & cut"})
    assert "3 value(s) of Table &lt;1&gt; compared; largest difference 0.01 (tolerance 0.005): the paper's numbers " \
           "do not reproduce. rounded &amp; cut" in html
    assert "<dd>only text</dd>" in _html(evidence={"detail": "only text"})


def test_power_branches():
    assert "none: two queries" in _html(power={"impossible": "two queries"})
    stated = _html(power={"effect": 0.1, "effect_source": "the paper", "detectable": 0.05, "passes": True})
    assert "smallest difference this test detects is 0.05, so it can detect that effect" in stated
    assert "does not pass" in _html(power={"control": "shuffled", "passes": False, "test": "t"})
    assert "no positive control: none exists" in _html(power={"why_none": "none exists"})


def test_sensitivity_rows_say_what_a_flip_does():
    rows = [{"flips": True, "weight": "secondary", "reason": "older data", "name": "a", "kind": "k", "method": "m",
             "test": "t", "label": "L"},
            {"flips": True, "stability": True, "name": "b", "kind": "k", "method": "m", "test": "t", "label": "L"},
            {"flips": False, "name": "c", "kind": "k", "basis": "b", "test": "t", "label": "L"}]
    html = _html(sensitivity=rows)
    assert html.count('<li class="fireeval-flip">') == 2
    assert "secondary: older data" in html and "flips it, but is secondary: shown, does not decide" in html
    assert "same reading, re-estimated" in html and "flips it: no firmer than inconclusive" in html
    assert "c (k; equal standing): b" in html
    assert "no alternative reading" in _html()
