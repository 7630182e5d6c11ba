"""Declared validation (issue 36) of fireeval.pooling: a wrong argument fails before any work, in one line naming the
function, the parameter, the value and the fix."""
from __future__ import annotations

import pandas as pd
import pytest
from conftest import one_line

from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.pooling import pools, sampling


@pytest.fixture(scope="module")
def toy():
    runs = RunSet.from_frames({"A": pd.DataFrame({"query": "1", "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})})
    qrels = Qrels(pd.DataFrame({"query": "1", "docno": ["a", "b"], "relevance": [1, 0]}))
    return runs, qrels


def test_a_pool_depth_below_one_is_refused_in_one_line(toy):
    runs, _ = toy
    with pytest.raises(ValueError) as err:
        pools.build_pool(runs, depth=0)
    assert one_line(err) == "build_pool: depth=0 is outside [1, ∞). Fix: give an integer of at least 1"
    with pytest.raises(TypeError, match="depth=2.5 is a float, not an integer"):
        pools.build_pool(runs, depth=2.5)
    assert pools.build_pool(runs, depth=1).depth == 1


def test_an_unknown_leave_out_unit_and_a_sampling_rate_above_one_are_refused(toy):
    runs, qrels = toy
    with pytest.raises(ValueError) as err:
        pools.leave_out_scores(pools.build_pool(runs, depth=2), qrels, by="topic")
    assert one_line(err) == ("leave_out_scores: by='topic' is not one of the accepted values. "
                              "Fix: use one of 'run', 'group'")
    with pytest.raises(ValueError) as err:
        sampling.sampled_judgements(runs, qrels, [0.5, 1.5], [0])
    assert one_line(err).startswith("sampled_judgements: rates=[0.5, 1.5] holds 1.5, outside [0, 1]. Fix: ")


def test_a_single_measure_name_where_a_list_is_expected_is_refused(toy):
    runs, qrels = toy
    with pytest.raises(ValueError) as err:  # (iterating "map" would score the measures "m", "a", "p")
        pools.depth_sweep(pools.build_pool(runs, depth=2), qrels, [1, 2], measures="map")
    assert one_line(err).startswith("depth_sweep: measures='map' is a str, not a collection. Fix: ")
    with pytest.raises(ValueError, match=r"depth_sweep: depths=\[0, 2\] holds 0.0, outside \[1, inf\]"):
        pools.depth_sweep(pools.build_pool(runs, depth=2), qrels, [0, 2])
