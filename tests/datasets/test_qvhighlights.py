"""QVHighlights loaders; our R@1,θ with max-over-windows IoU reproduces Moment-DETR's own numbers."""
import numpy as np
import pytest

from fireeval.core import moments
from fireeval.datasets import qvhighlights as qv, read_jsonl
from tests.conftest import require_data

FILES = [f"qvhighlights/{f}" for f in qv.SPLITS.values()] + [f"qvhighlights/{f}" for r in qv.RUNS.values() for f in r]


def test_ground_truth():
    require_data(*FILES)
    gt = qv.load_ground_truth("val")
    assert len(gt) == 1550 and (gt["n_windows"] > 1).sum() == 530
    w = qv.windows_array(gt)
    assert w.shape == (1550, gt["n_windows"].max(), 2)
    assert np.isfinite(w[:, :, 0]).sum() == gt["n_windows"].sum()
    assert len(qv.load_ground_truth("test")) == 1542
    with pytest.raises(ValueError, match="split"):
        qv.load_ground_truth("train")


@pytest.mark.parametrize("run", list(qv.RUNS))
def test_recall_reproduces_repository_metrics(run):
    require_data(*FILES)
    gt = qv.load_ground_truth("val")
    pred = qv.load_predictions(run)
    assert pred.shape == (1550, 10, 2) and np.isfinite(pred).all()
    iou = moments.max_temporal_iou(pred, qv.windows_array(gt))
    reported = qv.load_reported_metrics(run)["full"]["MR-R1"]
    for theta, value in reported.items():
        ours = 100 * moments.recall_at_k_iou(iou, 1, float(theta)).mean()
        assert round(ours, 2) == pytest.approx(value, abs=1e-9), theta


def test_bad_jsonl_names_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"qid": 1}\n{oops\n')
    with pytest.raises(ValueError, match=r"x\.jsonl:2"):
        read_jsonl(p)
