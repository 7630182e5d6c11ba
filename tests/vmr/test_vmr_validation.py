"""Declared validation (issue 36) of fireeval.vmr: a wrong argument fails before any work, in one line naming the
function, the parameter, the value and the fix."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import one_line

from fireeval.core.moments import measure_function
from fireeval.vmr import axioms, noise, selection


def test_an_unknown_error_convention_and_a_negative_sigma_are_refused():
    clean, noisy = np.zeros((2, 3)), np.zeros((4, 2, 3))
    with pytest.raises(ValueError) as err:
        noise.noise_error(clean, noisy, error="mse")
    assert one_line(err) == "noise_error: error='mse' is not one of the accepted values. Fix: use one of 'abs', 'rmse'"
    with pytest.raises(ValueError) as err:
        noise.noise_experiment(np.zeros((1, 2, 3, 2)), np.array([[0.0, 1.0], [2.0, 4.0]]), sigmas=[1.0, -2.0])
    assert one_line(err).startswith("noise_experiment: sigmas=[1.0, -2.0] holds -2.0, outside [0, inf]. Fix: ")
    assert noise.noise_error(clean, noisy).shape == (3,)


def test_a_validation_share_outside_0_1_and_an_unknown_tie_rule_are_refused():
    videos = ["v1", "v1", "v2", "v3"]
    with pytest.raises(ValueError) as err:
        selection.video_splits(videos, n_splits=2, fraction=1.0)
    assert one_line(err) == ("video_splits: fraction=1.0 is outside (0, 1). Fix: give a finite number in (0, 1)")
    with pytest.raises(ValueError) as err:
        selection.selection_experiment(np.zeros((2, 1, 4)), videos, ["AxIoU@1"], ties="last")
    assert one_line(err) == ("selection_experiment: ties='last' is not one of the accepted values. "
                              "Fix: use one of 'random', 'first'")
    assert selection.video_splits(videos, n_splits=2).shape == (2, 4)


def test_an_unknown_axiom_and_an_iou_grid_outside_0_1_are_refused():
    measure = measure_function("AxIoU@2")
    with pytest.raises(ValueError) as err:
        axioms.find_counterexample(measure, "MONO", 2)
    assert one_line(err) == ("find_counterexample: axiom='MONO' is not one of the accepted values. "
                              "Fix: use one of 'INV', 'MON'")
    with pytest.raises(ValueError, match=r"grid=\[0.0, 1.5\] holds 1.5, outside \[0, 1\]"):
        axioms.find_counterexample(measure, "INV", 2, grid=[0.0, 1.5])
