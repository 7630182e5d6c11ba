"""The parsed moment data kept in the user's cache (issue 38: every moment chapter re-parsed QVHighlights' and
Charades-STA's files): the same values to the bit with and without the cache, a changed file read and checked
again, a damaged entry rebuilt, FIREEVAL_NO_CACHE writing nothing, a bad file refused with its own one-line
message (and nothing kept), and no cache folder inside a data folder."""
import json
import os
import zipfile

import numpy as np
import pandas as pd
import pytest

from fireeval.datasets import charades, qvhighlights as qv
from tests.conftest import require_data
from tests.core.test_parsed_cache import damage_entry

QV_FILES = [f"qvhighlights/{f}" for f in qv.SPLITS.values()] + [f"qvhighlights/{f}" for r in qv.RUNS.values() for f in r]
CHARADES_FILES = [*charades.GROUND_TRUTH_FILES, *(f"charades_sta/predictions/{s}.json" for s in charades.ALL_SYSTEMS)]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    return tmp_path / "cache"


def _entries(cache, kind):
    return sorted(p.name for p in (cache / kind).iterdir()) if (cache / kind).is_dir() else []


def _count_parses(monkeypatch, module):
    parsed = []
    real = module.read_jsonl
    monkeypatch.setattr(module, "read_jsonl", lambda path, what="JSONL file": parsed.append(path) or real(path, what))
    return parsed


def _same(got, want):
    """Equal to the bit, of the same types, recursively (arrays, DataFrames, dicts, lists, tuples, scalars)."""
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
    elif isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        for column in want:
            _same(got[column].tolist(), want[column].tolist())
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, float):
        assert np.float64(got).tobytes() == np.float64(want).tobytes()
    else:
        assert got == want


def _uncached(monkeypatch, read):
    with monkeypatch.context() as mp:
        mp.setenv("FIREEVAL_NO_CACHE", "1")
        return read()


# ------------------------------------------------------------------ QVHighlights, small synthetic files

GT_LINES = [
    {"qid": 7, "query": "a dog runs", "vid": "v1", "duration": 150, "relevant_windows": [[0, 4.5], [10.25, 30]]},
    {"qid": "s-2", "query": "café ünïcode\u0000", "vid": "v2", "duration": "12.5", "relevant_windows": [[-0.0, 2]]},
    {"qid": 3, "query": None, "vid": "v3", "relevant_windows": []},  # no duration: NaN; no windows
    {"qid": 2 ** 70, "query": {"odd": [1, 2]}, "vid": "v4", "duration": 0.1, "relevant_windows": [[0.1, 0.1]]},
]
PRED_LINES = [
    {"qid": 7, "pred_relevant_windows": [[1, 2, 0.5], [3, 4, 0.9], [5, 6, 0.5], [0, 1, 0.1]]},  # a tie kept stable
    {"qid": "unknown", "pred_relevant_windows": [[1, 2, 0.5]]},
    {"qid": "s-2", "pred_relevant_windows": [[0.5, 1.0], [0.25, 2.0]]},  # no scores: list order
    {"qid": 2 ** 70, "pred_relevant_windows": []},
]


def _jsonl(path, records, extra=""):
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + extra, encoding="utf-8")
    return path


@pytest.fixture
def qv_files(tmp_path, cache):
    data = tmp_path / "data"
    data.mkdir()
    return _jsonl(data / "gt.jsonl", GT_LINES), _jsonl(data / "preds.jsonl", PRED_LINES)


def _read_qv(gt_path, pred_path, k=3):
    records = qv.read_ground_truth_records(gt_path)
    frame = qv.read_ground_truth_file(gt_path)
    info = {}
    pred = qv.read_predictions_file(pred_path, frame, k, info=info)
    return records, frame, pred, info


def test_qvhighlights_reads_the_same_to_the_bit_with_and_without_the_cache(qv_files, cache, monkeypatch):
    parsed = _count_parses(monkeypatch, qv)
    first = _read_qv(*qv_files)
    assert len(parsed) == 2  # the ground truth once (records and frame share an entry), the predictions once
    again = _read_qv(*qv_files)
    assert len(parsed) == 2  # all from the cache
    want = _uncached(monkeypatch, lambda: _read_qv(*qv_files))
    assert len(parsed) == 5  # without it: the ground truth twice, the predictions once
    _same(first, want)
    _same(again, want)
    records, _, pred, info = want
    assert [type(r[0]) for r in records] == [int, str, int, int] and np.isnan(records[2][3])
    assert pred[0, :3].tolist() == [[3, 4], [1, 2], [5, 6]] and np.isnan(pred[2]).all() and np.isnan(pred[0, 3:]).all()
    assert info == {"unknown": 1, "missing_queries": 2, "entries": 4}
    assert len(_entries(cache, "qvhighlights")) == 2


def test_qvhighlights_entries_follow_k_and_the_queries_aligned_to(qv_files, cache, monkeypatch):
    gt_path, pred_path = qv_files
    parsed = _count_parses(monkeypatch, qv)
    for qids in ([7, "s-2", 3], ["7", "s-2"], [7, "s-2", 3, 2 ** 70]):  # 7 and "7" are different queries
        for k in (1, 3, None):
            got = qv.read_predictions_file(pred_path, qids, k)
            _same(got, _uncached(monkeypatch, lambda: qv.read_predictions_file(pred_path, qids, k)))
    assert len(parsed) == 2 * 9  # each (qids, k) read once for the cache, once without it
    assert len(_entries(cache, "qvhighlights")) == 9


def test_qvhighlights_a_changed_file_is_read_and_checked_again(qv_files, cache, monkeypatch):
    gt_path, pred_path = qv_files
    _read_qv(gt_path, pred_path)
    parsed = _count_parses(monkeypatch, qv)
    _jsonl(pred_path, PRED_LINES[:1] + [{"qid": 3, "pred_relevant_windows": [[2, 3, 1.0]]}])  # another size
    assert qv.read_predictions_file(pred_path, [7, "s-2", 3], 3)[2, 0].tolist() == [2, 3]
    assert len(parsed) == 1
    stat = os.stat(pred_path)  # the same size and a new mtime: read again too
    os.utime(pred_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10 ** 9))
    qv.read_predictions_file(pred_path, [7, "s-2", 3], 3)
    assert len(parsed) == 2
    _jsonl(pred_path, PRED_LINES[:1] + [{"qid": 3, "pred_relevant_windows": [[4, 3, 1.0]]}])  # now refused
    with pytest.raises(ValueError, match=r"preds\.jsonl:2: .*start"):
        qv.read_predictions_file(pred_path, [7, "s-2", 3], 3)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "wrong shape", "missing field"])
def test_qvhighlights_a_damaged_entry_is_rebuilt(qv_files, cache, monkeypatch, damage):
    gt_path, pred_path = qv_files
    want = _read_qv(gt_path, pred_path)

    def change(fields):
        for field in [f for f in fields if f != "stamp"]:
            if damage == "missing field":
                del fields[field]
            else:
                fields[field] = fields[field][:-1]

    for name in _entries(cache, "qvhighlights"):
        damage_entry(cache / "qvhighlights" / name, damage, change)
    parsed = _count_parses(monkeypatch, qv)
    _same(_read_qv(gt_path, pred_path), want)
    assert len(parsed) == 2  # both entries rebuilt ...
    for name in _entries(cache, "qvhighlights"):
        with zipfile.ZipFile(cache / "qvhighlights" / name) as rebuilt:
            assert rebuilt.testzip() is None
    _read_qv(gt_path, pred_path)
    assert len(parsed) == 2  # ... and used


def test_qvhighlights_no_cache_writes_nothing(qv_files, cache, monkeypatch):
    monkeypatch.setenv("FIREEVAL_NO_CACHE", "1")
    parsed = _count_parses(monkeypatch, qv)
    _read_qv(*qv_files)
    _read_qv(*qv_files)
    assert len(parsed) == 6 and not cache.exists()  # three parses each time


@pytest.mark.parametrize("which, line, message", [
    ("gt", {"qid": 7, "query": "again", "relevant_windows": [[0, 1]]}, r"gt\.jsonl:5: qid 7 is already on line 1\. Fix"),
    ("gt", {"qid": 9, "relevant_windows": [[5, 1]]}, r"gt\.jsonl:5: .*Fix"),
    ("preds", {"qid": 3, "pred_relevant_windows": [[0, 1, float("nan")]]}, r"preds\.jsonl:5: a window's score is NaN"),
])
def test_a_bad_qvhighlights_file_gives_its_one_line_error_and_nothing_is_kept(qv_files, cache, monkeypatch, which,
                                                                             line, message):
    gt_path, pred_path = qv_files
    path = gt_path if which == "gt" else pred_path
    path.write_text(path.read_text(encoding="utf-8") + json.dumps(line) + "\n", encoding="utf-8")
    qids = [7, "s-2", 3]
    read = (lambda: qv.read_ground_truth_records(gt_path)) if which == "gt" else \
        (lambda: qv.read_predictions_file(pred_path, qids, 3))
    with pytest.raises(ValueError, match=message) as cached:
        read()
    with pytest.raises(ValueError) as uncached:
        _uncached(monkeypatch, read)
    assert str(cached.value) == str(uncached.value) and "\n" not in str(cached.value)
    assert _entries(cache, "qvhighlights") == []
    with pytest.raises(ValueError, match=message):  # and again: never kept
        read()


def test_an_unknown_querys_bad_windows_are_checked_once_its_query_is_asked_for(qv_files, cache, monkeypatch):
    gt_path, pred_path = qv_files
    pred_path.write_text(pred_path.read_text() + json.dumps({"qid": 99, "pred_relevant_windows": [[5, 1, 1]]}) + "\n")
    assert qv.read_predictions_file(pred_path, [7], 3).shape == (1, 3, 2)  # qid 99 not asked for: skipped
    with pytest.raises(ValueError, match=r"preds\.jsonl:5: "):
        qv.read_predictions_file(pred_path, [7, 99], 3)  # another set of queries: another entry, read and checked


def test_no_cache_folder_inside_a_data_folder(qv_files, tmp_path, monkeypatch):
    data = qv_files[0].parent
    monkeypatch.setenv("FIREEVAL_DATA", str(data))
    monkeypatch.setenv("FIREEVAL_CACHE", str(data / "cache"))
    parsed = _count_parses(monkeypatch, qv)
    _read_qv(*qv_files)
    _read_qv(*qv_files)
    assert len(parsed) == 6 and not (data / "cache").exists()


# ------------------------------------------------------------------ the real data, when present

def _load_qv():
    return (qv.load_runs(), qv.load_runs(single_window=True), qv.load_ground_truth("val"), qv.load_ground_truth("test"),
            {run: qv.load_predictions(run) for run in qv.RUNS})


def test_the_real_qvhighlights_data_are_the_same_with_and_without_the_cache(cache, monkeypatch):
    require_data(*QV_FILES)
    want = _uncached(monkeypatch, _load_qv)
    parsed = _count_parses(monkeypatch, qv)
    _same(_load_qv(), want)
    assert len(parsed) == 4  # val, test and the two prediction files, each once
    _same(_load_qv(), want)
    assert len(parsed) == 4


def _load_charades(systems, source):
    gt = charades.load_ground_truth("test")
    return (charades.load_all_predictions(systems, source=source),
            charades.load_all_predictions(systems[:2], k=3, source=source),
            {s: charades.prediction_quirks(s, source=source) for s in systems},
            charades.load_predictions(systems[0], source=source),
            charades._aligned(systems[0], None, source, gt.head(100), 10))  # another ground truth: another entry


def test_the_real_charades_predictions_are_the_same_with_and_without_the_cache(cache, monkeypatch):
    # every system, from the JSON files the chapters read (the pickles, read by the restricted unpickler, take
    # about 2 s each: their entries are keyed by source like these)
    require_data(*CHARADES_FILES)
    systems, source = ("SCDM",) + tuple(s for s in charades.ALL_SYSTEMS if s != "SCDM"), "json"
    with monkeypatch.context() as mp:
        mp.setenv("FIREEVAL_NO_CACHE", "1")
        want = _load_charades(systems, source)
    assert want[2]["SCDM"]["missing_queries"] == 9 and want[2]["SCDM"]["empty_entries"] == 9
    _same(_load_charades(systems, source), want)
    # k=10, k=3, 100 queries; and the ground truth's rows
    assert len(_entries(cache, "charades_sta")) == len(systems) + len(systems[:2]) + 1 + 1
    reads = []
    monkeypatch.setattr(charades, "prediction_entries", lambda *a, **kw: reads.append(a) or pytest.fail("read"))
    monkeypatch.setattr(charades, "_read_sta_rows", lambda *a: pytest.fail("read"))
    _same(_load_charades(systems, source), want)
    assert reads == []


# ------------------------------------------------------------------ Charades-STA, small synthetic files

def _charades_folder(tmp_path, monkeypatch):
    """A data folder with a Charades-STA test split and two systems (read without the registry's checksums)."""
    root = tmp_path / "data"
    (root / "charades_sta" / "predictions").mkdir(parents=True)
    (root / "charades_sta" / "charades_sta_test.txt").write_text(
        "V1 0.0 5.5##a person sits.\nV1 2 9##a person stands.\nV2 1.25 3##someone eats ñ.\n", encoding="utf-8")
    (root / "charades_sta" / "Charades_v1_test.csv").write_text("id,length\nV1,30.5\nV2,12\n")
    entries = {"A": [{"vid": "V1", "query": "a person sits.", "moments": [[1, 2, 30.5], [0, 5, 30.5], [3, 4, 30.5]],
                      "ratings": [0.5, 0.9, 0.5]},
                     {"vid": "V2", "query": "someone eats ñ.", "moments": [[0, 1, 11]], "ratings": [1]},
                     {"vid": "V9", "query": "nowhere", "moments": [[0, 1]], "ratings": [1]}],
               "B": [{"vid": "V1", "query": "a person stands.", "moments": None, "ratings": None},
                     {"vid": "V1", "query": "a person stands.", "moments": [[2, 8]], "ratings": [0.2]}]}
    for system, items in entries.items():
        (root / "charades_sta" / "predictions" / f"{system}.json").write_text(json.dumps({"entries": items}))
    monkeypatch.setattr(charades, "data_path", lambda name, root_=None, download=False: root / name)
    monkeypatch.setattr(charades, "PICKLES", {"A": "A.pkl", "B": "B.pkl"})
    monkeypatch.setattr(charades, "prediction_entries", charades.prediction_entries.__wrapped__)  # systems A, B
    return root


def _aligned_all(root, k=2):
    gt = charades.load_ground_truth("test", root=str(root))
    return {s: charades._aligned(s, str(root), "json", gt, k) for s in ("A", "B")}


def test_charades_predictions_are_kept_and_read_again_when_changed(tmp_path, cache, monkeypatch):
    root = _charades_folder(tmp_path, monkeypatch)
    reads = []
    real = charades.prediction_entries
    monkeypatch.setattr(charades, "prediction_entries", lambda *a: reads.append(a[0]) or real(*a))
    first = _aligned_all(root)
    assert reads == ["A", "B"]
    _same(_aligned_all(root), first)
    assert reads == ["A", "B"]
    _same(first, _uncached(monkeypatch, lambda: _aligned_all(root)))
    assert first["A"][0][0].tolist() == [[0, 5], [1, 2]] and first["A"][1]["length_mismatch"] == 1
    assert first["B"][1]["empty_entries"] == 1 and np.isnan(first["B"][0][0]).all()
    reads.clear()
    _aligned_all(root, k=3)  # another k: another entry
    assert reads == ["A", "B"]
    path = root / "charades_sta" / "predictions" / "A.json"
    path.write_text(path.read_text().replace("[0, 5, 30.5]", "[0, 6, 30.5]"))
    reads.clear()
    assert _aligned_all(root)["A"][0][0, 0].tolist() == [0, 6] and reads == ["A"]
    path.write_text(path.read_text().replace("[0, 6, 30.5]", "[7, 6, 30.5]"))
    with pytest.raises(ValueError, match=r"^A: entry 1 \(V1, 'a person sits\.'\).*start"):
        _aligned_all(root)


def test_charades_entries_follow_the_ground_truth(tmp_path, cache, monkeypatch):
    root = _charades_folder(tmp_path, monkeypatch)
    first = _aligned_all(root)
    lengths = root / "charades_sta" / "Charades_v1_test.csv"
    lengths.write_text("id,length\nV1,30.5\nV2,11\n")  # another length: another length_mismatch count
    again = _aligned_all(root)
    assert first["A"][1]["length_mismatch"] == 1 and again["A"][1]["length_mismatch"] == 0
    gt = root / "charades_sta" / "charades_sta_test.txt"
    gt.write_text("V2 1.25 3##someone eats ñ.\n" + gt.read_text(encoding="utf-8"), encoding="utf-8")
    try:
        _aligned_all(root)
    except ValueError:  # the duplicated line is refused by the ground-truth reader
        pass
    gt.write_text("V2 1.25 3##someone eats ñ.\nV1 0.0 5.5##a person sits.\n", encoding="utf-8")  # reordered
    _same(_aligned_all(root), _uncached(monkeypatch, lambda: _aligned_all(root)))
    assert _aligned_all(root)["A"][0][:, 0].tolist() == [[0, 1], [0, 5]]


def test_charades_ground_truth_rows_are_kept_and_a_bad_line_still_named(tmp_path, cache, monkeypatch):
    path = tmp_path / "sta.txt"
    path.write_text("\ufeffV1 0.0 5.5##a person sits.\r\n\nV2 9 2##reversed ñ\nV1 1e1 12##x\ty \n", encoding="utf-8")
    want = _uncached(monkeypatch, lambda: charades.read_sta_rows(path, allow_reversed=True))
    reads = []
    real = charades._read_sta_rows
    monkeypatch.setattr(charades, "_read_sta_rows", lambda *a: reads.append(a) or real(*a))
    _same(charades.read_sta_rows(path, allow_reversed=True), want)
    _same(charades.read_sta_rows(path, allow_reversed=True), want)
    assert len(reads) == 1 and want[1] == ("V2", "reversed ñ", 9.0, 2.0)
    _same(charades.read_sta(path, allow_reversed=True), _uncached(monkeypatch, lambda: charades.read_sta(path, True)))
    assert len(reads) == 2  # the frame from the kept rows; the second read is the one without the cache
    with pytest.raises(ValueError, match=r"sta\.txt:3: .*start") as cached:  # allow_reversed is part of the key
        charades.read_sta_rows(path)
    with pytest.raises(ValueError) as uncached:
        _uncached(monkeypatch, lambda: charades.read_sta_rows(path))
    assert str(cached.value) == str(uncached.value) and len(reads) == 4


def test_no_cache_folder_inside_a_loaders_data_folder(tmp_path, monkeypatch):
    root = _charades_folder(tmp_path, monkeypatch)
    monkeypatch.setenv("FIREEVAL_CACHE", str(root / "cache"))  # inside the data_dir the loaders are given
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    _aligned_all(root)
    gt, preds = _jsonl(root / "gt.jsonl", GT_LINES), _jsonl(root / "preds.jsonl", PRED_LINES)
    qv.read_predictions_file(preds, qv.read_ground_truth_file(gt, data_dir=root), 3, data_dir=root)
    assert not (root / "cache").exists()
    monkeypatch.setattr("fireeval.datasets.SHARED_DATA", root)  # the shared data, however named
    _aligned_all(root)
    qv.read_predictions_file(preds, qv.read_ground_truth_file(gt), 3)
    assert not (root / "cache").exists()
    monkeypatch.setattr("fireeval.datasets.SHARED_DATA", tmp_path / "elsewhere")
    qv.read_predictions_file(preds, qv.read_ground_truth_file(gt), 3)  # the control: no data folder named, kept
    assert len(_entries(root / "cache", "qvhighlights")) == 2
