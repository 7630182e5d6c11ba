"""Charades-STA loaders on the real files (skipped when absent)."""
import numpy as np
import pandas as pd
import pytest

from fireeval.core import moments
from fireeval.datasets import charades, data_path
from tests.conftest import require_data

PRED = [f"charades_sta/predictions/{s}.json" for s in charades.ALL_SYSTEMS]
PKL = [f"charades_sta/predictions/original_pickles/{p}" for p in charades.PICKLES.values()]


def test_ground_truth_matches_reference_join():
    require_data(*charades.GROUND_TRUTH_FILES, "charades_sta/axiou_processed_test.csv")
    gt = charades.load_ground_truth()
    assert list(gt.columns) == ["video", "description", "start", "end", "length"] and len(gt) == 3720
    assert gt.iloc[0].tolist() == ["3MSZA", "person turn a light on.", 24.3, 30.4, 30.96]
    ref = pd.read_csv(data_path("charades_sta/axiou_processed_test.csv"))
    np.testing.assert_array_equal(ref["id"], gt["video"])
    np.testing.assert_array_equal(ref["description"], gt["description"])
    np.testing.assert_allclose(ref[["start (sec)", "end (sec)", "length"]], gt[["start", "end", "length"]])
    assert (gt["end"] > gt["length"]).sum() == 562 and (gt["start"] < gt["end"]).all()
    assert not gt.duplicated(["video", "description"]).any()


def test_train_split():
    require_data("charades_sta/charades_sta_train.txt", "charades_sta/Charades_v1_train.csv")
    assert len(charades.load_ground_truth("train")) == 12408
    with pytest.raises(ValueError, match="split"):
        charades.load_ground_truth("val")


def test_bad_line_names_file_and_line(tmp_path, monkeypatch):
    bad = tmp_path / "x.txt"
    bad.write_text("3MSZA 24.3 30.4##ok\n3MSZA 24.3 person\n")
    with pytest.raises(ValueError, match=r"x\.txt:2: expected"):
        charades.read_sta(bad)


def test_json_and_pickle_give_identical_arrays():
    require_data(*charades.GROUND_TRUTH_FILES, *PRED, *PKL)
    for system in charades.ALL_SYSTEMS:
        a = charades.load_predictions(system)
        b = charades.load_predictions(system, source="pickle")
        assert a.shape == (3720, 10, 2)
        np.testing.assert_array_equal(a, b)


def test_quirks_are_handled_as_documented():
    require_data(*charades.GROUND_TRUTH_FILES, *PRED)
    gt = charades.load_ground_truth()
    scdm = charades.load_predictions("SCDM")
    q = charades.prediction_quirks("SCDM")
    assert q == {"entries": 3720, "unknown": 0, "duplicate_entries": 0, "empty_entries": 9,
                 "length_mismatch": 0, "missing_queries": 9}
    missing = np.isnan(scdm).all(axis=(1, 2))
    assert missing.sum() == 9 and set(gt.loc[missing, "video"]) == {"7JHW2", "SVIXG", "U2AO1"}
    dup = np.flatnonzero((gt["video"] == "MA6GY") & (gt["description"] == "person opening a box."))[0]
    assert np.isfinite(scdm[dup, :9]).all() and np.isnan(scdm[dup, 9]).all()  # SCDM returns 9 moments
    # Missing queries score 0 on every measure.
    scores = moments.score_all(moments.temporal_iou(scdm, gt[["start", "end"]].to_numpy()))
    assert all(s[missing].sum() == 0 for s in scores.values())
    blind = charades.load_predictions("ActionAwareBlind")
    assert (np.isfinite(blind[..., 0]).sum(1) < 10).sum() == 397  # short lists, NaN-padded
    for s in charades.SYSTEMS:
        if s != "SCDM":
            assert charades.prediction_quirks(s)["missing_queries"] == 0


def test_rank_order_follows_ratings(tmp_path):
    gt = pd.DataFrame({"video": ["v"], "description": ["d"], "start": [0.0], "end": [1.0], "length": [5.0]})
    entries = [("v", "d", [[0, 1, 5], [2, 3, 5], [3, 4, 5]], [1.0, 3.0, 1.0])]
    out, info = charades.align_predictions(entries, gt, k=4)
    np.testing.assert_array_equal(out[0, :3], [[2, 3], [0, 1], [3, 4]])  # ties keep list order
    assert np.isnan(out[0, 3]).all() and info["missing_queries"] == 0


def test_unknown_system():
    with pytest.raises(ValueError, match=r"prediction_entries: system='TwoTAN' is not one of the accepted values\. "
                                         r"Fix: use one of '2DTAN', 'SCDM'"):
        charades.prediction_entries("TwoTAN")


def test_scores_match_reference_code_convention():
    """Re-implement the reference code's loop (riktor/vmr-axiou eval.py) and compare."""
    require_data(*charades.GROUND_TRUTH_FILES, *PRED)
    gt = charades.load_ground_truth()
    entries = charades.prediction_entries("2DTAN")
    first = {}
    for vid, query, locs, rating in entries:
        if locs is not None:
            first.setdefault((vid, query), (np.asarray(locs)[:, :2], np.asarray(rating)))
    hits = []
    for v, d, s, e in gt[["video", "description", "start", "end"]].itertuples(index=False):
        box, rating = first[(v, d)]
        box = box[np.argsort(rating)[::-1]]
        inter = np.maximum(0, np.minimum(box[:, 1], e) - np.maximum(box[:, 0], s))
        union = np.maximum(box[:, 1], e) - np.minimum(box[:, 0], s)
        hits.append((inter / union > 0.5)[:5].any())
    ours = moments.recall_at_k_iou(moments.temporal_iou(charades.load_predictions("2DTAN"),
                                                        gt[["start", "end"]].to_numpy()), 5, 0.5, strict=True)
    np.testing.assert_array_equal(ours, np.array(hits, float))


def test_reannotations():
    files = [f"charades_sta/human_reannotations/test_0{i}.csv" for i in range(3)]
    require_data(*charades.GROUND_TRUTH_FILES, *files)
    r = charades.load_reannotations()
    gt = charades.load_ground_truth()
    assert len(r) == 5000 and r["query"].nunique() == 1000 and set(r["rater"]) == set(range(5))
    assert not r["video"].str.endswith(".mp4").any()
    row = r.iloc[0]
    assert gt.loc[row["query"], "video"] == row["video"] and gt.loc[row["query"], "description"] == row["description"]
    np.testing.assert_allclose(r["start"], r["start_pct"] / 100 * gt["length"].to_numpy()[r["query"]])
    assert (r["start"] <= r["end"]).all()
    queries, bounds = charades.reannotation_bounds(r)
    assert bounds.shape == (1000, 5, 2) and np.isfinite(bounds).all()
    np.testing.assert_array_equal(queries, np.sort(r["query"].unique()))
