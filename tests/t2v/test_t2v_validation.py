"""Declared validation of fireeval.t2v (issue 36): a wrong argument stops the call in one line naming the function,
the parameter, the value and the fix, before any work."""
from __future__ import annotations

import numpy as np
import pytest

from fireeval.core.validation import ParamError
from fireeval.t2v import false_negatives as fire
from fireeval.t2v import retrieval, semantic_evaluation as se


def _message(err) -> str:  # the error's one line, which names the fix
    assert "\n" not in str(err.value) and "Fix:" in str(err.value), err.value
    return str(err.value)


def test_a_cut_off_below_one_is_refused():
    ranks = np.array([0, 3, 7])
    with pytest.raises(ParamError) as err:
        se.recall_at_ks(ranks, ks=(0, 5))
    assert _message(err) == ("ks=(0, 5) holds 0, not a whole number of at least 1. Fix: give cut-offs as whole numbers "
                             "of at least 1, e.g. (1, 5, 10)")
    with pytest.raises(ValueError, match=r"^ks=\(2\.5,\) holds 2\.5, not a whole number"):
        fire.per_query_scores(np.array([[0, 1]]), np.eye(2, dtype=bool)[:1], ks=(2.5,))
    with pytest.raises(ValueError, match=r"^evaluate_similarity: ap_depth=0 is outside \[1, ∞\)\. Fix: give an integer "
                                         r"of at least 1$"):
        retrieval.evaluate_similarity({"m": np.eye(3)}, np.eye(3, dtype=bool), ap_depth=0)
    assert se.recall_at_ks(ranks, ks=(1, 5))["R@1"] == pytest.approx(1 / 3)  # the valid call is unchanged


def test_an_unknown_option_is_refused_with_the_accepted_ones():
    scores, relevance = np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ParamError) as err:
        se.proxy_ndcg(scores, relevance, gain="quadratic")
    assert _message(err) == ("proxy_ndcg: gain='quadratic' is not one of the accepted values. Fix: use one of 'linear', "
                             "'exponential'")
    with pytest.raises(ValueError, match=r"^proxy_ndcg: tie_rule='random' is not one of the accepted values\. Fix: use one "
                                         r"of 'relevant first', 'stable', 'relevant last'$"):
        se.proxy_ndcg(scores, relevance, tie_rule="random")
    with pytest.raises(ValueError, match=r"^per_query_scores: ap='map' is not one of the accepted values"):
        fire.per_query_scores(np.array([[0, 1]]), np.eye(2, dtype=bool)[:1], ap="map")
    np.testing.assert_allclose(se.proxy_ndcg(scores, relevance), [1.0, 1.0])


def test_a_threshold_outside_0_1_and_one_string_for_captions_are_refused():
    with pytest.raises(ParamError) as err:
        fire.proxy_verdicts(np.array([[0.2, 0.7]]), threshold=1.5)
    assert _message(err) == "proxy_verdicts: threshold=1.5 is outside [0, 1]. Fix: give a finite number in [0, 1]"
    with pytest.raises(TypeError) as err:  # (a ParamError is both a ValueError and a TypeError)
        fire.caption_agreement("a man drives a car", [["a man drives a car"]])
    assert _message(err) == ("queries='a man drives a car' is one string, not a list of texts. Fix: pass a list of str "
                             "(one caption per entry)")
    assert fire.proxy_verdicts(np.array([[0.2, 0.7]]), threshold=0.5).tolist() == [[False, True]]
