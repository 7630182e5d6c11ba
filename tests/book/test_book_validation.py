"""Declared validation (issue 36) of fireeval.book: a wrong argument fails before any work, in one line naming the
function, the parameter, the value and the fix."""
from __future__ import annotations

import pytest
from conftest import one_line

from fireeval.book import exercises, plotting, teaching
from fireeval.book.chapters import leaderboards
from fireeval.book.inputs import trec_inputs


def test_an_unknown_data_source_or_chapter_is_refused_before_any_file_is_read():
    with pytest.raises(ValueError) as err:
        trec_inputs.pooled_inputs("pool_depth", data_source="fake")
    assert one_line(err) == ("pooled_inputs: data_source='fake' is not one of the accepted values. "
                              "Fix: use one of 'auto', 'real', 'synthetic'")
    with pytest.raises(ValueError, match="pooled_inputs: chapter='metrics' is not one of the accepted values"):
        trec_inputs.pooled_inputs("metrics")


def test_a_checker_refuses_a_student_answer_that_is_not_a_function():
    with pytest.raises(TypeError) as err:  # (a ParamError is a TypeError too)
        exercises.check_ndcg(0.5)
    assert one_line(err) == "check_ndcg: student=0.5 is a float, not callable. Fix: pass a function"
    with pytest.raises(ValueError, match=r"check_ndcg: n_random=0 is outside \[1, ∞\)"):
        exercises.check_ndcg(lambda *a: 0.0, n_random=0)


def test_a_level_or_tolerance_outside_its_range_is_refused():
    with pytest.raises(ValueError) as err:
        leaderboards.family_level(3, alpha=1.2)
    assert one_line(err) == "family_level: alpha=1.2 is outside (0, 1). Fix: give a finite number in (0, 1)"
    with pytest.raises(ValueError, match=r"same: tolerance=-1e-09 is outside \[0, ∞\)"):
        teaching.same(1.0, 1.0, tolerance=-1e-9)
    with pytest.raises(ValueError, match="setup: renderer='png' is not one of the accepted values"):
        plotting.setup("png")
    assert leaderboards.family_level(1) == pytest.approx(0.95) and teaching.same([1, {"a": 2.0}], [1, {"a": 2}])
