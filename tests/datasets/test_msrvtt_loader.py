"""MSR-VTT 1k-A loader on the real files (skipped when absent) and its error messages."""
import numpy as np
import pytest

from fireeval.datasets import msrvtt
from tests.conftest import require_data


def test_queries_and_captions_align():
    require_data(msrvtt.QUERIES, msrvtt.CAPTIONS["test"])
    q = msrvtt.load_queries()
    assert list(q.columns) == ["video_id", "sentence"] and len(q) == 1000
    assert q.loc[0, "video_id"] == "video9770" and q.loc[1, "sentence"] == "a little girl does gymnastics"
    caps = msrvtt.load_video_captions_1ka()
    assert len(caps) == 1000 and all(len(c) == 20 for c in caps)
    found = sum(s in c for s, c in zip(q["sentence"], caps))
    assert found == 988  # the rest differ by punctuation only (documented in the module)
    val = msrvtt.load_video_captions("val")
    assert len(val) == 497 and not set(val) & set(q["video_id"])


def test_similarity_runs_reproduce_recall():
    require_data(*msrvtt.MODELS.values(), msrvtt.QUERIES)
    expected = {"clip4clip": (0.344, 0.551, 0.650), "InternVideo2": (0.546, 0.763, 0.827),
                "GRAM": (0.531, 0.743, 0.824), "VAST": (0.494, 0.680, 0.740)}
    for model, recalls in expected.items():
        s = msrvtt.load_similarity(model, diagonal_only_ok=True)
        assert s.shape == (1000, 1000) and s.dtype == np.float32
        order = np.argsort(-s, axis=1, kind="stable")
        rank = (order == np.arange(1000)[:, None]).argmax(axis=1)
        np.testing.assert_allclose([(rank < k).mean() for k in (1, 5, 10)], recalls, atol=1e-9)


def test_diagonal_only_models_refused_by_default():
    with pytest.raises(ValueError, match="diagonal"):
        msrvtt.load_similarity("GRAM")
    with pytest.raises(ValueError, match="load_similarity: model='clip' is not one of the accepted values. Fix: use one"):
        msrvtt.load_similarity("clip")
    with pytest.raises(ValueError, match="split"):
        msrvtt.load_video_captions("train")


def test_missing_root_names_the_fix(tmp_path, monkeypatch):
    from fireeval.datasets import DataUnavailable
    import fireeval.datasets as ds

    monkeypatch.setattr(ds, "SHARED_DATA", tmp_path / "nowhere")
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    with pytest.raises(DataUnavailable, match="FIREEVAL_DATA"):  # nothing named: say how to name a folder
        msrvtt.load_queries()
    with pytest.raises(DataUnavailable, match="in the folder you named"):  # a named folder is the only one read
        msrvtt.load_queries(root=tmp_path)


def test_captions_outside_1ka_exclude_its_videos():
    require_data(msrvtt.QUERIES, msrvtt.CAPTIONS["test"], msrvtt.CAPTIONS["val"])
    ids = list(msrvtt.load_queries()["video_id"])
    caps, n_videos = msrvtt.captions_outside(ids)
    test, val = msrvtt.load_video_captions("test"), msrvtt.load_video_captions("val")
    outside = [v for v in {**test, **val} if v not in set(ids)]
    assert n_videos == len(outside) == len(test) + len(val) - 1000
    assert len(caps) == sum(len({**test, **val}[v]) for v in outside)
    assert caps[:20] == test[outside[0]]
