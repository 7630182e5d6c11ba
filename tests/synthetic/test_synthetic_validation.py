"""Declared validation of fireeval.synthetic (issue 36): a wrong argument stops the simulation in one line naming the
function, the parameter, the value and the fix."""
from __future__ import annotations

import numpy as np
import pytest

from fireeval.core.validation import ParamError
from fireeval.synthetic import fire_study, moment_collection, trec_collection, video


def _message(err) -> str:  # the error's one line, which names the fix
    assert "\n" not in str(err.value) and "Fix:" in str(err.value), err.value
    return str(err.value)


def test_a_probability_outside_0_1_is_refused():
    with pytest.raises(ParamError) as err:
        fire_study.simulate_labels([True, False], error_rate=1.5)
    assert _message(err) == "simulate_labels: error_rate=1.5 is outside [0, 1]. Fix: give a finite number in [0, 1]"
    with pytest.raises(ValueError, match=r"^simulate_captions: p_place=-0.1 is outside \[0, 1\]"):
        video.simulate_captions(n_videos=2, captions_per_video=2, p_place=-0.1)
    with pytest.raises(ValueError, match=r"^simulate_labels: n_annotators=2 is outside \[3, ∞\)"):  # 3 distinct raters
        fire_study.simulate_labels([True], n_annotators=2)


def test_a_count_below_one_is_refused():
    with pytest.raises(ParamError) as err:
        trec_collection.simulate_trec(n_topics=0)
    assert _message(err) == "simulate_trec: n_topics=0 is outside [1, ∞). Fix: give an integer of at least 1"
    with pytest.raises(TypeError, match=r"^simulate_moments: k=2.5 is a float, not an integer"):
        moment_collection.simulate_moments(5, 2, k=2.5)


def test_a_negative_seed_is_refused_and_a_generator_accepted_where_declared():
    with pytest.raises(ParamError) as err:
        moment_collection.simulate_moments(5, 2, seed=-1)
    assert _message(err) == ("simulate_moments: seed=-1 is a negative seed. Fix: pass an integer seed >= 0, a numpy "
                             "Generator, or None")
    with pytest.raises(ValueError, match=r"^simulate_fire: seed=-1 is outside \[0, ∞\)"):  # (its models use seed + 1)
        fire_study.simulate_fire(n_videos=4, seed=-1)
    gt, _, _ = moment_collection.simulate_moments(5, 2, seed=np.random.default_rng(0))
    assert gt.shape == (5, 2)
