"""The TREC chapters' input layer (fireeval.book.inputs.trec_inputs): the reader's own runs and qrels, validated, beside
TREC-8's; never synthetic when the reader named data; and each TREC chapter run once with a run of the reader's."""
import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fireeval.datasets as ds
from fireeval.book.inputs import trec_inputs
from fireeval.book.inputs.trec_inputs import ReaderInputError, read_reader_qrels, read_reader_runs
from fireeval.book.notebooks import NOTEBOOK_DIR, execute, load
from fireeval.core.judgements import Qrels
from fireeval.datasets import trec8
from tests.conftest import require_data

QRELS = Qrels.from_pairs(["1", "1", "1", "2", "2"], ["a", "b", "c", "a", "d"], [1, 0, 1, 1, 0])


def _run(path, rows, tag="mine"):
    """A TREC run file: rows are (topic, docno, score)."""
    path.write_text("".join(f"{q} Q0 {d} {i} {s} {tag}\n" for i, (q, d, s) in enumerate(rows)))
    return path


# --------------------------------------------------------------------------- validation of the reader's files
def test_a_good_run_is_read_and_named_by_its_tag(tmp_path):
    path = _run(tmp_path / "r.txt", [("1", "a", 3), ("1", "c", 2), ("2", "d", 1)])
    frames, sources, pooled = read_reader_runs([str(path)], QRELS, taken=["other"], pooled=[str(path)])
    assert list(frames) == ["mine"] and sources == {"mine": str(path)} and pooled == ["mine"]
    assert len(frames["mine"]) == 3


@pytest.mark.parametrize("rows, tag, taken, pooled, message", [
    ([("8", "a", 1), ("9", "a", 1)], "mine", [], [], r"r\.txt: none of its 2 topics is in the qrels .*Fix: "),
    ([("1", "a", 1)], "T8", ["T8"], [], r"r\.txt: run tag 'T8' is already a shipped TREC-8 run\. Fix: "),
    ([("1", "a", 1)], "mine", [], ["nosuch"], r"extra_runs_pooled: 'nosuch' is none of extra_runs .*Fix: "),
])
def test_bad_runs_are_refused_in_one_line_naming_file_and_fix(tmp_path, rows, tag, taken, pooled, message):
    path = _run(tmp_path / "r.txt", rows, tag)
    with pytest.raises(ReaderInputError, match=message) as err:
        read_reader_runs([str(path)], QRELS, taken=taken, pooled=pooled)
    assert "\n" not in str(err.value)


def test_two_tags_in_one_file_and_one_tag_in_two_files_are_refused(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("1 Q0 a 0 2 x\n1 Q0 c 1 1 y\n")
    with pytest.raises(ReaderInputError, match=r"two\.txt: holds 2 run tags \(x, y\)\. Fix: one run per file"):
        read_reader_runs([str(path)], QRELS)
    a, b = _run(tmp_path / "a.txt", [("1", "a", 1)]), _run(tmp_path / "b.txt", [("1", "c", 1)])
    with pytest.raises(ReaderInputError, match=r"b\.txt: run tag 'mine' is already the run in .*a\.txt"):
        read_reader_runs([str(a), str(b)], QRELS)


def test_malformed_run_and_missing_file_name_the_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 a 0 1.0 mine\n1 Q0 b 1\n")
    with pytest.raises(ReaderInputError, match=r"extra_runs: .*bad\.txt:2: expected 6 columns.*Fix: "):
        read_reader_runs([str(bad)], QRELS)
    with pytest.raises(ReaderInputError, match=r"extra_runs: .*nothere\.txt"):
        read_reader_runs([str(tmp_path / "nothere.txt")], QRELS)


def test_a_run_missing_judged_topics_is_warned_not_refused(tmp_path):
    path = _run(tmp_path / "r.txt", [("1", "a", 1)])
    with pytest.warns(UserWarning, match=r"retrieves nothing for 1 of the 2 judged topics; it scores 0"):
        read_reader_runs([str(path)], QRELS)


def test_qrels_without_any_relevant_document_are_refused(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 0\n1 0 b 0\n")
    with pytest.raises(ReaderInputError, match=r"qrels: .*q\.txt: no judgement is relevant.*Fix: "):
        read_reader_qrels(path)
    assert len(read_reader_qrels(_qrels_file(tmp_path / "ok.txt")).frame) == 5


def _qrels_file(path):
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.frame.itertuples(index=False)))
    return path


@settings(max_examples=30)
@given(topics=st.lists(st.sampled_from(["1", "2", "3", "7"]), min_size=1, max_size=6))
def test_a_run_is_kept_on_its_judged_topics_and_refused_without_any(tmp_path_factory, topics):
    path = _run(tmp_path_factory.mktemp("r") / "r.txt", [(t, f"d{i}", -i) for i, t in enumerate(topics)])
    judged = [t for t in topics if t in ("1", "2")]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if judged:
            frames, _, _ = read_reader_runs([str(path)], QRELS)
            assert sorted(frames["mine"]["query"]) == sorted(judged)
            assert any("ignored, as trec_eval does" in str(w.message) for w in seen) == (len(judged) < len(topics))
        else:
            with pytest.raises(ReaderInputError, match="none of its .* in the qrels"):
                read_reader_runs([str(path)], QRELS)


# --------------------------------------------------------------------------- no silent fallback
@pytest.fixture
def no_data(tmp_path, monkeypatch):
    monkeypatch.setattr(ds, "SHARED_DATA", tmp_path / "no-shared-data")
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)


@pytest.mark.parametrize("build", [
    lambda **kw: trec_inputs.metrics_inputs("auto", None, 3, 0, **kw),
    lambda **kw: trec_inputs.pooled_inputs("pool_depth", "auto", None, 3, 100, 0, **kw),
    lambda **kw: trec_inputs.pooled_inputs("pool_leave_out", "auto", None, 3, 100, 0, **kw),
], ids=["metrics", "pool_depth", "pool_leave_out"])
def test_named_data_missing_is_refused_never_synthetic(tmp_path, no_data, build):
    run = _run(tmp_path / "r.txt", [("401", "a", 1)])
    assert build().synthetic  # nothing named, nothing found: the stand-in, and it says so
    assert "SYNTHETIC stand-in (no TREC-8 data found)" in build().note
    for named in ({"extra_runs": [str(run)]}, {"qrels": str(run)}):
        with pytest.raises(ds.DataUnavailable, match=r"you named data \((extra_runs|qrels)\) but the TREC-8 runs "
                                                     r"are not there .*Fix:"):
            build(**named)


def test_synthetic_on_request_refuses_the_readers_runs(tmp_path):
    run = _run(tmp_path / "r.txt", [("401", "a", 1)])
    with pytest.raises(ValueError, match=r"data_source='synthetic' ignores the data you named \(extra_runs\)"):
        trec_inputs.metrics_inputs("synthetic", None, 3, 0, extra_runs=[str(run)])
    assert trec_inputs.metrics_inputs("synthetic").note.startswith("SYNTHETIC stand-in (asked for)")


# --------------------------------------------------------------------------- on TREC-8, beside the shipped runs
def _perturbed_trec8_run(tmp_path, name="AntHoc1", tag="myrun", topics=None):
    require_data(trec8.QRELS, trec8.RUNS_TABLE, f"trec8_adhoc/runs/input.{name}.gz")
    from fireeval.core.trec import read_run

    frame = read_run(ds.data_path(f"trec8_adhoc/runs/input.{name}.gz"))
    if topics is not None:
        frame = frame[frame["query"].isin(topics)]
    path = tmp_path / f"{tag}.run"
    path.write_text("".join(f"{q} Q0 {d} {r - 1} {s + 0.25} {tag}\n"
                            for q, d, s, r in frame[["query", "docno", "score", "rank"]].itertuples(index=False)))
    return path


def test_metrics_inputs_put_the_readers_run_beside_trec8(tmp_path):
    path = _perturbed_trec8_run(tmp_path)
    data = trec_inputs.metrics_inputs("auto", None, 2, 0, extra_runs=[str(path)])
    assert data.real and data.runs.names[-1] == "myrun" and data.reader_runs == ("myrun",)
    assert list(data.official_map.index) == data.shipped and not data.complete
    assert "the reader's own runs: myrun (myrun.run, unpooled)" in data.note
    assert data.label() == "real: TREC-8 Ad Hoc, 2 runs + 1 of yours (myrun)"


def test_pooled_inputs_with_the_readers_qrels_and_a_pooled_run(tmp_path):
    path = _perturbed_trec8_run(tmp_path)
    require_data(trec8.GLOO)
    full = ds.data_path(trec8.QRELS)
    qrels_path = tmp_path / "mine.qrels"
    frame = Qrels.read(full).frame
    kept = frame[frame["query"].isin(["401", "402"])]
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in kept.itertuples(index=False)))
    with pytest.warns(UserWarning, match="48 of its 50 topics have no judgements in the qrels and are ignored"):
        data = trec_inputs.pooled_inputs("pool_leave_out", "auto", None, 3, 100, 0, extra_runs=[str(path)],
                                         qrels=str(qrels_path))
    assert list(data.runs.topics) == ["401", "402"]
    bad = tmp_path / "other.qrels"
    bad.write_text("999 0 x 1\n")
    with pytest.raises(ReaderInputError, match=r"other\.qrels: judges none of the runs' topics .*Fix: "):
        trec_inputs.pooled_inputs("pool_depth", "auto", None, 3, 100, 0, qrels=str(bad))
    mine = _perturbed_trec8_run(tmp_path, topics=["401", "402"], tag="two")
    data = trec_inputs.pooled_inputs("pool_leave_out", "auto", None, 3, 100, 0, extra_runs=[str(mine)],
                                     extra_runs_pooled=["two"], qrels=str(qrels_path))
    assert list(data.runs.topics) == ["401", "402"] and data.gloo is None and not data.complete
    row = data.table.set_index("run").loc["two"]
    assert row["pooled"] and row["yours"] and row["group"] == "two"
    assert "the reader's own qrels: mine.qrels (2 topics" in data.note and "(two.run, pooled)" in data.note


def test_pooled_inputs_read_trec8_through_the_parsed_runs_cache(tmp_path, monkeypatch):
    """The pool chapters' runs come from the user's cache folder once parsed (issue 38): the same RunSet to the
    bit as parsing the files, an entry in FIREEVAL_CACHE and none beside the data."""
    names = trec8.run_names()[:3]
    require_data(trec8.QRELS, trec8.RUNS_TABLE, *[trec_inputs.RUN_PATH.format(n) for n in names])
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path))
    monkeypatch.setenv("FIREEVAL_NO_CACHE", "1")
    parsed = trec_inputs.pooled_inputs("pool_depth", "auto", None, 3, 100, 0).runs
    assert not tmp_path.joinpath("runsets").exists()
    monkeypatch.delenv("FIREEVAL_NO_CACHE")
    for _ in range(2):  # written, then read
        runs = trec_inputs.pooled_inputs("pool_depth", "auto", None, 3, 100, 0).runs
        assert runs.names == parsed.names == names and runs.docnos.equals(parsed.docnos)
        assert (runs.topics == parsed.topics).all() and (runs.docs == parsed.docs).all()
    assert len(list(tmp_path.joinpath("runsets").glob("*.npz"))) == 1


# --------------------------------------------------------------------------- each chapter run with a run of yours
@pytest.mark.notebook
@pytest.mark.parametrize("chapter", ["metrics", "pool_depth", "pool_leave_out"])
def test_chapter_runs_with_the_readers_run(chapter, tmp_path):
    path = _perturbed_trec8_run(tmp_path)
    require_data(*trec8.FILES, trec8.OFFICIAL, trec8.GLOO)
    params = dict(load(NOTEBOOK_DIR / f"{chapter}.md").metadata["fireeval"]["test_parameters"])
    result = execute(NOTEBOOK_DIR / f"{chapter}.md", {**params, "extra_runs": [str(path)]}, tmp_path / "out",
                     timeout=900)
    assert result["data_source"] == "real" and result["reader_inputs"]["extra_runs"] == ["myrun"]
    assert result["n_runs"] == (params.get("n_runs_real") or params.get("max_runs")) + 1
    assert all("1 of yours (myrun)" in c["data"] for c in result["claims"]), [c["data"] for c in result["claims"]]
    text = json.dumps(json.loads((tmp_path / "out" / f"{chapter}.ipynb").read_text())["cells"])
    assert "the reader's own runs: myrun (myrun.run, unpooled)" in text
    if chapter == "pool_leave_out":
        assert result["audit"]["run"] == "myrun"  # the reader's unpooled run is the one audited
