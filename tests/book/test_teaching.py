"""fireeval.book.teaching: solution statements, headline paths, reading and running times."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fireeval.book.teaching import RunClock, Solutions, lookup, reading_minutes, same


def test_lookup_reads_claims_by_id_lists_and_dotted_keys():
    headline = {"claims": [{"id": "a.b", "verdict": "x"}, {"id": "c", "verdict": "y"}],
                "tau": {"ndcg_cut.10": [0.1, 0.2]}, "n": {"5": 3}}
    assert lookup(headline, "claims[c].verdict") == "y"
    assert lookup(headline, "claims[a.b].verdict") == "x"
    assert lookup(headline, 'tau["ndcg_cut.10"][-1]') == 0.2
    assert lookup(headline, "n.5") == 3


@pytest.mark.parametrize("path", ["claims[zzz].verdict", "n.6", "tau.x", "claims[9]"])
def test_lookup_names_the_missing_step(path):
    with pytest.raises(KeyError, match="no"):
        lookup({"claims": [{"id": "a"}], "n": {"5": 3}, "tau": {}}, path)


def test_malformed_paths_and_names_fail_in_the_chapter():
    solutions = Solutions()
    with pytest.raises(ValueError, match="cannot read"):
        solutions.state(1, "x", 1, check="a..b", glue=False)
    with pytest.raises(ValueError, match="glue name"):
        solutions.state(1, "a b", 1, glue=False)


def test_record_keeps_checked_and_unchecked_statements():
    solutions = Solutions()
    solutions.state(2, "holds", True, glue=False)
    solutions.state(2, "tau", 0.5, check="tau.3", glue=False)
    assert solutions.record() == {"2": {"holds": {"value": True, "check": None},
                                        "tau": {"value": 0.5, "check": "tau.3"}}}


@given(st.floats(-1e6, 1e6, allow_nan=False))
def test_same_tolerates_rounding_not_differences(x):
    assert same(x, x * (1 + 1e-12))
    assert not same(x, x + 1e-6 + abs(x) * 1e-6)


def test_same_keeps_booleans_apart_from_numbers():
    assert not same(True, 1.0) and same(False, False) and not same([1, 2], [1, 2, 3])


def test_reading_minutes_counts_prose_not_code(tmp_path):
    prose = " ".join(["word"] * 1900)
    code = "x = 1\n" * 5000
    page = tmp_path / "c.md"
    page.write_text(f"---\ntitle: x\n---\n# T\n\n{prose}\n\n```{{code-cell}} ipython3\n{code}```\n\n"
                    f"```{{admonition}} Solution\n:class: dropdown\n{prose}\n```\n")
    # the 1900 words a reader sees at 200 a minute, rounded up to 5: the folded solution and the code do not count
    assert reading_minutes(page) == 10


def test_run_clock_text():
    assert RunClock().text(seconds=5) == "under a minute"
    assert RunClock().text(seconds=61) == "about 1 minute"
