"""The scoring engine calls its own declared helpers unchecked (issue 38), while a user's call is still checked."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import fireeval
from fireeval.core import ranking, validation
from fireeval.core.measures import check_version, family_of, parse
from fireeval.core.measures.base import int_param, summarise

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 0, "d4": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.5, "d1": 0.4}}

#: declared functions the engine calls once per measure (or per property of a measure): inside ``evaluate`` they are
#: called through their undecorated bodies (``binary`` once per block of topics, ``check_version`` once for the user's
#: version and once per run, checked)
HOT = {"family_of", "int_param", "check_version", "summarise", "binary", "safe_divide", "sum_in_order", "gain_values",
       "dcg", "average_precision_of_cells", "row_starts"}


def _checked_inside(monkeypatch, call):
    seen = collections.Counter()
    original = validation._check

    def counting(where, name, value, spec):
        seen[where] += 1
        return original(where, name, value, spec)

    monkeypatch.setattr(validation, "_check", counting)
    call()
    monkeypatch.setattr(validation, "_check", original)
    return seen


def test_evaluate_checks_its_arguments_but_not_the_engines_own_calls(monkeypatch):
    measures = ["map", "P_10", "ndcg_cut_10", "bpref", "recall_5", "success_1", "gm_map"]
    seen = _checked_inside(monkeypatch, lambda: fireeval.evaluate(QRELS, RUN, measures, per_topic=True))
    assert seen["evaluate"] >= 1, seen  # the user's call itself is checked
    # (before issue 38: family_of checked on every property read, 27 times for 3 measures; binary, dcg ... per measure)
    again = {name: seen[name] for name in HOT if seen[name] > 2}
    assert not again, f"checked again and again inside evaluate of {len(measures)} measures: {again}"


def test_a_users_call_of_each_hot_function_is_still_checked():
    with pytest.raises(validation.ParamError, match="binary: gains='x' is a str"):
        ranking.binary("x")
    with pytest.raises(validation.ParamError, match="safe_divide: num=None"):
        ranking.safe_divide(None, [1.0])
    with pytest.raises(validation.ParamError, match="summarise: how='median'"):
        summarise([[0.1]], "median")
    with pytest.raises(TypeError, match="int_param: text=10 is a int"):
        int_param(10, "P_10")
    with pytest.raises(TypeError, match="family_of: "):
        family_of()
    with pytest.raises(ValueError, match="trec_eval version '8.1' is not one fireeval reproduces"):
        check_version("8.1")
    with pytest.raises(ValueError, match="trec_eval version '8.1' is not one fireeval reproduces"):
        parse("map", "8.1")  # (parse checks the version through check_version's body)
    with pytest.raises(ValueError, match="cut-off 0 is outside 1"):
        parse("P_0")  # (a Param's parse reads its cut-off through int_param's body)


def test_the_unchecked_bodies_compute_what_the_checked_functions_do():
    gains = np.array([[2.0, 0.0, np.nan, 1.0]])
    assert ranking._binary(gains, 1).tolist() == ranking.binary(gains, 1).tolist()
    assert ranking._dcg(gains, 3).tolist() == ranking.dcg(gains, 3).tolist()
    assert ranking.ndcg(gains, [[2.0, 1.0]], 3).tolist() == pytest.approx(
        (ranking.dcg(gains, 3) / ranking.dcg([[2.0, 1.0]], 3)).tolist())

