"""What a claim box says of each sensitivity row: a row that changes the label but not the verdict says so."""
from fireeval.book.report import _fields_html


def _row(**flip):
    base = {"name": "other reading", "kind": "reading", "weight": "equal", "stability": False, "flips": True,
            "value": None, "method": "m", "test": ">= 1", "label": "contradicted"}
    return {"evidence": {"source": "paper"}, "reading": {"rule": "r", "source": "s"}, "power": {"why_none": "x"},
            "sensitivity": [{**base, **flip}]}


def test_a_row_that_changes_the_verdict_says_depends():
    assert "flips it: depends" in _fields_html(_row(changes_verdict=True))


def test_a_row_that_moves_the_label_but_not_the_verdict_does_not_say_depends():
    html = _fields_html(_row(changes_verdict=False))
    assert "flips it: depends" not in html
    assert "same verdict" in html


def test_a_secondary_row_never_decides():
    assert "secondary: shown, does not decide" in _fields_html(_row(weight="secondary", reason="a control"))


def test_the_reading_quotes_the_books_own_claim_as_the_books_not_the_papers():
    row = {"evidence": {"source": "s"}, "reading": {"rule": "r", "source": "s", "passage": "a run risks losing"},
           "power": {"why_none": "x"}, "sensitivity": []}
    assert "the book's claim: “a run risks losing”" in _fields_html({**row, "paper": "this book (pool_leave_out)"})
    assert "the paper: “a run risks losing”" in _fields_html({**row, "paper": "Westerveld (TRECVID)"})


def test_a_family_fold_names_the_row_that_moved_a_condition_and_an_untested_cell_says_why():
    from fireeval.book.report import found_html

    fam = {"conditions": [
        {"condition": "σ = 1 s", "value": 1.02, "low": 0.98, "high": 1.06, "label": "depends",
         "why": "inconclusive by its interval; margin 10%: R@K,0.3's error at most 1.1 × AxIoU@K's: reproduced"},
        {"condition": "R@1,0.5 vs AxIoU@10", "value": None, "label": "untested: this cell sets the bar (0.355)"}]}
    html = found_html({"found here": "holds at 0 of 2", "family": fam})
    assert "σ = 1 s: 1.020 [0.980, 1.060] <em>depends</em> (inconclusive by its interval; margin 10%" in html
    assert "R@1,0.5 vs AxIoU@10: <em>untested: this cell sets the bar (0.355)</em>" in html and "n/a" not in html


def test_the_books_own_findings_compare_published_numbers_not_a_papers():
    evidence = {"source": "NIST official-scores.map", "cells": 2, "max_abs_diff": 0.0, "tolerance": 5e-05,
                "numbers_reproduce": True}
    row = {"evidence": evidence, "reading": {"rule": "r", "source": "s"}, "power": {"why_none": "x"},
           "sensitivity": []}
    own = _fields_html({**row, "paper": "this book (leaderboards)"})
    assert "the published numbers reproduce" in own and "paper's numbers" not in own
    assert "the paper's numbers reproduce" in _fields_html({**row, "paper": "Togashi et al. 2022"})


def test_the_verdict_glue_is_a_word_the_reader_is_taught(monkeypatch):
    # issue 35 reader: "not reproduced" reached the label-noise conclusion through the claim.<id>.verdict glue
    from fireeval.book import report
    from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test

    glued = {}
    monkeypatch.setattr(report, "_glue", lambda name, value, display=False: glued.__setitem__(name, value))
    claim = Claim("c", paper="P 2024", section="§1", quote="q", quantity="d", test=Test(">", 0), data="real: x",
                  standing="original", reading=Reading("as written", "d > 0", "paper's definition"))
    record = claim.evaluate({"a": Estimate(-0.2, -0.3, -0.1, "b"), "b": Estimate(-0.2, -0.3, 0.1, "b")},
                            evidence=Evidence.none("-"), power=Power.no_control("none"))
    out = report.claims([record])
    assert out[0]["verdict"] == "not reproduced"  # the headline keeps the internal verdict
    assert glued["claim.c.verdict"] == glued["claim.c.label"] == "inconclusive"
    assert glued["claim.c.a.verdict"] == "contradicted" and glued["claim.c.b.verdict"] == "inconclusive"
