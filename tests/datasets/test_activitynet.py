"""ActivityNet Captions loaders on the real files (skipped when absent)."""
import numpy as np
import pytest

from fireeval.datasets import activitynet
from tests.conftest import require_data

GT = [f"activitynet_captions/{s}.json" for s in activitynet.SPLITS]


def test_ground_truth_splits():
    require_data(*GT)
    sizes = {"train": 37421, "val_1": 17505, "val_2": 17031}
    for split, n in sizes.items():
        gt = activitynet.load_ground_truth(split)
        assert len(gt) == n and list(gt.columns) == ["video", "description", "start", "end", "length"]
    v2 = activitynet.load_ground_truth("val_2")
    assert v2["video"].nunique() == 4885 and v2["video"].str.startswith("v_").all()
    assert v2.loc[1, "description"].startswith(" ")  # upstream leading space kept
    assert activitynet.ground_truth_quirks(v2) == {"end_after_length": 111, "start_after_end": 0, "zero_length": 0}
    assert activitynet.ground_truth_quirks(activitynet.load_ground_truth("train"))["start_after_end"] == 2
    with pytest.raises(ValueError, match="split"):
        activitynet.load_ground_truth("test")


def test_reannotations_align_to_val_2():
    require_data(GT[2], *activitynet.REANNOTATION_FILES)
    r = activitynet.load_reannotations()
    gt = activitynet.load_ground_truth("val_2")
    assert len(r) == 6440 and r["query"].nunique() == 1288
    assert (r["video"].to_numpy() == gt["video"].to_numpy()[r["query"]]).all()
    assert (r["description"].to_numpy() == gt["description"].to_numpy()[r["query"]]).all()
    np.testing.assert_allclose(r["end"], r["end_pct"] / 100 * gt["length"].to_numpy()[r["query"]])
    q, b = activitynet.reannotation_bounds(r)
    assert b.shape == (1288, 5, 2) and np.isfinite(b).all()


def test_reannotation_helper_matches_and_reports_unknown_rows():
    """The shared aligner on a hand-made example: percent -> seconds, rater order, clear error."""
    import pandas as pd

    from fireeval.datasets import charades, reannotations

    assert activitynet.reannotation_bounds is charades.reannotation_bounds is reannotations.bounds
    gt = pd.DataFrame({"video": ["v", "w"], "description": [" a b", "c"], "length": [20.0, 10.0]})
    raw = pd.DataFrame({"HITId": ["h", "h", "k"], "video": ["v", "v", "w"], "description": ["a  b", "a b", "c"],
                        "start": [10.0, 0.0, 50.0], "end": [50.0, 25.0, 100.0], "file": "f.csv"})
    r = reannotations.align(raw, gt, "f.csv", normalise_space=True)
    assert r["query"].tolist() == [0, 0, 1] and r["rater"].tolist() == [0, 1, 0]
    assert r["description"].tolist() == [" a b", " a b", "c"]  # the ground truth's text
    q, b = reannotations.bounds(r)
    assert q.tolist() == [0, 1] and b[0].tolist() == [[2.0, 10.0], [0.0, 5.0]] and b[1, 0].tolist() == [5.0, 10.0]
    assert np.isnan(b[1, 1]).all()  # query 1 has one rater only
    with pytest.raises(ValueError, match="f.csv.*matches no ground-truth query"):
        reannotations.align(raw, gt, "f.csv", normalise_space=False)
