"""The one-running-max ``score_all`` and the lean ``temporal_iou`` equal the previous implementation to 1e-15."""
import numpy as np
import pytest

from fireeval.core import moments
from fireeval.synthetic.moment_collection import simulate_moments


def _old_temporal_iou(pred, gt):  # the implementation before issue 13
    pred = np.asarray(pred, dtype=float)
    gt = np.asarray(gt, dtype=float)[..., None, :]
    inter = np.minimum(pred[..., 1], gt[..., 1]) - np.maximum(pred[..., 0], gt[..., 0])
    union = np.maximum(pred[..., 1], gt[..., 1]) - np.minimum(pred[..., 0], gt[..., 0])
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where(union > 0, np.clip(inter, 0, None) / union, 0.0)
    return np.nan_to_num(iou, nan=0.0)


def _old_score_all(iou, ks=moments.KS, thetas=moments.THETAS, strict=False):
    iou = np.asarray(iou, dtype=float)
    out = {f"R@{k},{t}": moments.recall_at_k_iou(iou, k, t, strict) for k in ks for t in thetas}
    out.update({f"AxIoU@{k}": moments.axiou_at_k(iou, k) for k in ks})
    return out


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("width", [10, 4, 1])
def test_identical_to_previous_implementation(strict, width):
    gt, _, preds = simulate_moments(400, 3, seed=3)
    pred = np.stack(list(preds.values()))[:, :, :width].copy()
    pred[0, :7, 2:] = np.nan  # short lists
    pred[1, 5] = np.nan       # a query without predictions
    pred[2, 9, 0] = [3.0, 3.0]  # zero-length moment
    new_iou = moments.temporal_iou(pred, gt)
    old_iou = _old_temporal_iou(pred, gt)
    np.testing.assert_array_equal(new_iou, old_iou)
    new, old = moments.score_all(new_iou, strict=strict), _old_score_all(old_iou, strict=strict)
    assert list(new) == list(old)
    for name in old:
        np.testing.assert_allclose(new[name], old[name], rtol=0, atol=1e-15, err_msg=name)


def test_bad_cut_offs_and_thresholds_are_errors():
    iou = np.zeros((2, 3))
    for ks, thetas in (((0,), (0.5,)), ((1,), (0.0,)), ((1,), (1.5,)), ((1,), (float("nan"),)), ((-1,), (0.5,))):
        with pytest.raises(ValueError, match="must be"):
            moments.score_all(iou, ks, thetas)
    for name in ("R@0,0.5", "AxIoU@0", "R@1,0", "R@1,1.5", "R@1,0.5.5"):
        with pytest.raises(ValueError):
            moments.measure_function(name)
