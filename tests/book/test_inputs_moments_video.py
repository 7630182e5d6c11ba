"""The chapters' input layers (fireeval.book.inputs.moment_inputs and .video, issue 24): the reader's moment
predictions and similarity matrices, validated and aligned; named data that is missing is refused, never
replaced by the synthetic stand-in; each chapter runs once with the reader's files."""
import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fireeval.datasets as ds
from fireeval.book.inputs import moment_inputs as mi
from fireeval.book.inputs import video_inputs as vi
from tests.conftest import require_data

GT = pd.DataFrame({"video": ["V1", "V1", "V2"], "description": ["person opens a door.", "person sits.", "a dog runs."],
                   "start": [1.0, 3.0, 0.0], "end": [4.0, 9.0, 5.0], "length": [20.0, 20.0, 10.0]})
#: (row, [(start, end, score), ...]) per ground-truth query, best score first.
LISTS = {0: [(1.0, 4.0, 0.9), (0.0, 2.0, 0.5)], 1: [(2.0, 8.0, 0.7)], 2: [(0.0, 10.0, 0.3), (1.0, 2.0, 0.2)]}


def _write(tmp_path: Path, fmt: str, lists=LISTS, gt=GT) -> Path:
    rows = [(gt.video[i], gt.description[i], s, e, sc) for i, ms in lists.items() for s, e, sc in ms]
    if fmt in ("csv", "tsv"):
        path = tmp_path / f"p.{fmt}"
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh, delimiter="," if fmt == "csv" else "\t")
            w.writerow(["vid", "query", "start", "end", "score"])
            w.writerows(rows)
    elif fmt == "2dtan":
        path = tmp_path / "p.txt"
        path.write_text("".join(f"{v} {s} {e} {sc}##{q}\n" for v, q, s, e, sc in rows))
    elif fmt == "momentdetr":
        path = tmp_path / "p.jsonl"
        path.write_text("".join(json.dumps({"qid": i, "query": gt.description[i], "vid": gt.video[i],
                                            "pred_relevant_windows": [list(m) for m in ms]}) + "\n"
                                for i, ms in lists.items()))
    else:
        path = tmp_path / "p.json"
        path.write_text(json.dumps({"entries": [{"vid": gt.video[i], "query": gt.description[i],
                                                 "moments": [[s, e] for s, e, _ in ms],
                                                 "ratings": [sc for _, _, sc in ms]} for i, ms in lists.items()]}))
    return path


@pytest.mark.parametrize("fmt", ["json", "csv", "tsv", "2dtan", "momentdetr"])
def test_reader_predictions_in_every_format_give_the_same_top10(tmp_path, fmt):
    preds, info = mi.read_reader_predictions({"mine": _write(tmp_path, fmt)}, GT)
    arr = preds["mine"]
    assert arr.shape == (3, mi.K, 2)
    for i, ms in LISTS.items():
        np.testing.assert_array_equal(arr[i, :len(ms)], [[s, e] for s, e, _ in ms])
        assert np.isnan(arr[i, len(ms):]).all()
    assert info["mine"]["missing_queries"] == 0 and info["mine"]["unknown"] == 0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.floats(0, 9, allow_nan=False), st.floats(0, 9, allow_nan=False),
                          st.floats(0, 1, allow_nan=False)), min_size=1, max_size=30))
def test_csv_and_2dtan_agree_and_rank_by_score(tmp_path_factory, moments):
    lists = {}
    for row, a, b, score in moments:
        lists.setdefault(row, []).append((round(min(a, b), 3), round(max(a, b), 3), round(score, 4)))
    got = []
    for fmt in ("csv", "2dtan"):
        preds, info = mi.read_reader_predictions({"m": _write(tmp_path_factory.mktemp(fmt), fmt, lists)}, GT)
        got.append(preds["m"])
        assert info["m"]["missing_queries"] == 3 - len(lists)
    np.testing.assert_array_equal(got[0], got[1])
    for row, ms in lists.items():
        order = sorted(range(len(ms)), key=lambda j: -ms[j][2])[: mi.K]  # score descending, ties in file order
        np.testing.assert_array_equal(got[0][row, :len(order)], [[ms[j][0], ms[j][1]] for j in order])


def test_reader_predictions_are_refused_in_one_line(tmp_path):
    good = _write(tmp_path, "csv")
    with pytest.raises(ValueError, match=r"'2DTAN' is already a shipped system\. Fix:"):
        mi.read_reader_predictions({"2DTAN": good}, GT, taken={"2DTAN"})
    other = GT.assign(video=["X1", "X2", "X3"])
    with pytest.raises(ValueError, match=r"predictions\['m'\]: .*p\.csv.*no entry matches.*Fix:"):
        mi.read_reader_predictions({"m": good}, other)
    with pytest.raises(FileNotFoundError, match=r"predictions\['m'\]: .*nope\.csv: no such file.*Fix:"):
        mi.read_reader_predictions({"m": tmp_path / "nope.csv"}, GT)
    bad = tmp_path / "p.xyz"
    bad.write_text("hello\n")
    with pytest.raises(ValueError, match=r"predictions\['m'\]: .*accepted formats") as err:
        mi.read_reader_predictions({"m": bad}, GT)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- similarity matrices
def _matrix(tmp_path: Path, sim, qids, vids, stem="mine") -> Path:
    path = tmp_path / f"{stem}.npy"
    np.save(path, sim)
    (tmp_path / f"{stem}.queries.txt").write_text("".join(f"{q}\n" for q in qids))
    (tmp_path / f"{stem}.videos.txt").write_text("".join(f"{v}\n" for v in vids))
    return path


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), data=st.data())
def test_reader_similarity_is_put_in_the_chapter_order(tmp_path_factory, n, data):
    ids = [f"video{i}" for i in range(n)]
    truth = np.arange(n * n, dtype=float).reshape(n, n)
    pq = data.draw(st.permutations(range(n)))
    pv = data.draw(st.permutations(range(n)))
    tmp = tmp_path_factory.mktemp("sim")
    path = _matrix(tmp, truth[np.ix_(pq, pv)], [ids[i] for i in pq], [ids[j] for j in pv])
    runs, info = vi.read_reader_similarity({"mine": path}, ids, ids)
    np.testing.assert_array_equal(runs["mine"], truth)
    assert info["mine"]["shape"] == [n, n]


def test_reader_similarity_is_refused_in_one_line(tmp_path):
    ids = ["a", "b", "c"]
    path = _matrix(tmp_path, np.zeros((3, 2)), ids, ids[:2])
    with pytest.raises(ValueError, match=r"similarity\['m'\]: .*videos.txt: 1 of the 3 video ids .*'c'.*Fix:"):
        vi.read_reader_similarity({"m": path}, ids, ids)
    (tmp_path / "mine.queries.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"similarity\['m'\]: .*mine\.queries\.txt: not found beside .*Fix:"):
        vi.read_reader_similarity({"m": path}, ids, ids)
    bad = _matrix(tmp_path, np.zeros((2, 3)), ids, ids[:2], stem="t")  # rows are videos: transposed
    with pytest.raises(ValueError, match=r"looks transposed"):
        vi.read_reader_similarity({"m": bad}, ids, ids)
    with pytest.raises(ValueError, match=r"not a \.npy file\. Fix:"):
        vi.read_reader_similarity({"m": tmp_path / "mine.videos.txt"}, ids, ids)
    with pytest.raises(ValueError, match=r"'clip4clip' is already a shipped run\. Fix:"):
        vi.read_reader_similarity({"clip4clip": path}, ids, ids, taken={"clip4clip"})


def test_unknown_model_names_are_refused_not_a_keyerror():
    with pytest.raises(ValueError, match=r"models: 'mymodel' is not a shipped MSR-VTT run .*Fix: .*similarity"):
        vi.false_negatives_inputs("auto", None, ["mymodel"], [], "auto", None)


# --------------------------------------------------------------------------- named data missing: never synthetic
@pytest.fixture
def no_data(tmp_path, monkeypatch):
    monkeypatch.setattr(ds, "SHARED_DATA", tmp_path / "no-shared-data")
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    return tmp_path


SYSTEMS = ["2DTAN", "SCDM"]


@pytest.mark.parametrize("chapter", ["measures", "label_noise", "model_selection"])
def test_moment_chapters_refuse_named_data_that_is_missing(no_data, chapter):
    preds = {"mine": str(_write(no_data, "csv"))}
    call = {"measures": lambda **kw: mi.measures_inputs(systems=SYSTEMS, n_synthetic_queries=30, **kw),
            "label_noise": lambda **kw: mi.label_noise_inputs(systems=SYSTEMS, n_synthetic_queries=30, **kw),
            "model_selection": lambda **kw: mi.model_selection_inputs(nms_bases=["2DTAN_noNMS"], systems=SYSTEMS,
                                                                      n_synthetic_queries=30, **kw)}[chapter]
    with pytest.raises(ds.DataUnavailable, match=r"you named data \(predictions\)"):
        call(data_source="auto", predictions=preds)
    with pytest.raises(ds.DataUnavailable, match=r"you named data \(data_dir="):
        call(data_source="auto", data_dir=str(no_data / "empty"))
    with pytest.raises(ValueError, match=r"ignores the data you named \(predictions\)"):
        call(data_source="synthetic", predictions=preds)
    stand_in = call(data_source="auto")  # nothing found, nothing named: the stand-in, and it says so
    assert stand_in.source == "synthetic" and stand_in.source_note.startswith("SYNTHETIC")
    assert stand_in.data_label.startswith("stand-in: synthetic") and not stand_in.reader


def test_video_chapters_refuse_named_data_that_is_missing(no_data):
    path = _matrix(no_data, np.zeros((2, 2)), ["a", "b"], ["a", "b"])
    with pytest.raises(ds.DataUnavailable, match=r"you named data \(similarity\)"):
        vi.false_negatives_inputs("auto", None, ["clip4clip"], [], "auto", {"m": str(path)}, n_videos_synthetic=20)
    with pytest.raises(ds.DataUnavailable, match=r"you named data \(similarity\)"):
        vi.semantic_similarity_msrvtt("auto", None, ["clip4clip"], {"m": str(path)}, n_videos=20)
    with pytest.raises(ValueError, match=r"dataset leaves MSR-VTT out"):
        vi.semantic_similarity_msrvtt("auto", None, ["clip4clip"], {"m": str(path)}, want=False)
    stand_in = vi.false_negatives_inputs("auto", None, ["clip4clip"], [], "auto", None, n_videos_synthetic=20)
    assert stand_in.source == "synthetic" and stand_in.source_note.startswith("SYNTHETIC")
    assert vi.semantic_similarity_msrvtt("auto", None, ["clip4clip"], None, n_videos=20) is None


def test_a_file_failing_its_checksum_is_refused_under_auto(no_data, monkeypatch):
    root = no_data / "root"
    (root / "charades_sta").mkdir(parents=True)
    (root / "charades_sta" / "charades_sta_test.txt").write_text("V1 0.0 1.0##not the upstream file.\n")
    monkeypatch.setenv("FIREEVAL_DATA", str(root))
    with pytest.raises(ds.DataError, match=r"charades_sta_test\.txt: sha256 .*-p data_source synthetic"):
        mi.measures_inputs("auto", None, SYSTEMS, n_synthetic_queries=30)


# --------------------------------------------------------------------------- each chapter with the reader's files
def _charades_predictions(tmp_path) -> dict:
    """A 'whole video' baseline as CSV and a two-halves list as 2D-TAN text, on the real test queries."""
    from fireeval.datasets import charades

    gt = charades.load_ground_truth("test")
    whole, halves = tmp_path / "whole.csv", tmp_path / "halves.txt"
    with open(whole, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["vid", "query", "start", "end", "score"])
        w.writerows((r.video, r.description, 0, r.length, 1) for r in gt.itertuples())
    halves.write_text("".join(f"{r.video} 0 {r.length / 2:.2f}##{r.description}\n"
                              f"{r.video} {r.length / 2:.2f} {r.length:.2f}##{r.description}\n"
                              for r in gt.itertuples()))
    return {"WholeVideo": str(whole), "Halves": str(halves)}


def _msrvtt_matrix(tmp_path) -> dict:
    """A noisy 1k-A matrix, rows and columns shuffled, with its id lists beside it."""
    from fireeval.datasets import msrvtt

    ids = list(msrvtt.load_queries()["video_id"])
    rng = np.random.default_rng(0)
    sim = 2 * np.eye(len(ids)) + rng.normal(size=(len(ids), len(ids)))
    pq, pv = rng.permutation(len(ids)), rng.permutation(len(ids))
    return {"noisy": str(_matrix(tmp_path, sim[np.ix_(pq, pv)].astype("float32"), [ids[i] for i in pq],
                                 [ids[j] for j in pv], stem="noisy"))}


CHAPTERS = {"axiou_measures": ("predictions", ["WholeVideo", "Halves"]),
            "axiou_label_noise": ("predictions", ["WholeVideo", "Halves"]),
            "axiou_model_selection": ("predictions", ["WholeVideo", "Halves"]),
            "false_negatives": ("similarity", ["noisy"]),
            "semantic_similarity": ("similarity", ["noisy"])}


@pytest.mark.notebook
@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_chapter_runs_with_the_readers_files(chapter, tmp_path):
    from fireeval.book.notebooks import NOTEBOOK_DIR, execute, load

    parameter, names = CHAPTERS[chapter]
    if parameter == "predictions":
        require_data("charades_sta/charades_sta_test.txt", "charades_sta/Charades_v1_test.csv")
        files = _charades_predictions(tmp_path)
    else:
        require_data("msrvtt/MSRVTT_JSFUSION_test.csv")
        files = _msrvtt_matrix(tmp_path)
    path = NOTEBOOK_DIR / f"{chapter}.md"
    params = dict(load(path).metadata["fireeval"]["test_parameters"])
    if chapter == "axiou_label_noise":
        params["datasets"] = ["charades_sta"]
    result = execute(path, {**params, parameter: files}, tmp_path / "out", timeout=900)
    reader = result["reader_predictions" if parameter == "predictions" else "reader_similarity"]
    assert sorted(reader) == sorted(names)
    assert all(c["data"] for c in result["claims"])
    if parameter == "predictions":
        assert any("2 of the reader's" in c["data"] for c in result["claims"])
    if chapter == "axiou_measures":
        assert set(names) <= set(result["scores"])
    if chapter == "false_negatives":
        assert "noisy" in result["table1"] and "noisy" in result["table4"]
    if chapter == "semantic_similarity":
        assert "noisy" in result["ndcg"]
