"""TREC readers: trec_eval ordering, round trips, and a clear error for each kind of bad input."""
import gzip
import warnings

import numpy as np
import pandas as pd
import pytest

from fireeval import evaluate
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core.trec import TrecFormatError, read_qrels, read_run, trec_order, write_qrels, write_run


def _write(tmp_path, text, name="f.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_trec_order_score_desc_ties_by_docno_desc_ignoring_rank_column(tmp_path):
    path = _write(tmp_path, "1 Q0 a 3 1.0 t\n1 Q0 c 2 2.0 t\n1 Q0 b 1 2.0 t\n2 Q0 x 1 0.5 t\n")
    run = read_run(path)
    assert list(run["docno"]) == ["c", "b", "a", "x"]
    assert list(run["rank"]) == [1, 2, 3, 1]


def test_scores_equal_in_single_precision_are_ties_as_in_trec_eval():
    frame = pd.DataFrame({"query": "1", "docno": ["a", "b"], "score": [1.00000001, 1.00000002]})
    assert list(trec_order(frame)["docno"]) == ["b", "a"]  # a float32 tie, docno descending
    frame = pd.DataFrame({"query": "1", "docno": ["b", "a"], "score": [1.0, 1.5]})
    assert list(trec_order(frame)["docno"]) == ["a", "b"]


def test_gzip_and_whitespace_variants(tmp_path):
    path = tmp_path / "r.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("1\tQ0\ta\t1\t2\tt\n1  Q0 b 2 1 t\n")
    assert list(read_run(path)["docno"]) == ["a", "b"]


def test_round_trip_run_and_qrels(tmp_path):
    run = pd.DataFrame({"query": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [0.5, 0.25, 1.0], "tag": "x"})
    write_run(run, tmp_path / "run.txt")
    back = read_run(tmp_path / "run.txt")
    assert back[["query", "docno"]].values.tolist() == trec_order(run)[["query", "docno"]].values.tolist()
    np.testing.assert_allclose(back["score"], trec_order(run)["score"])
    qrels = pd.DataFrame({"query": ["1", "2"], "docno": ["a", "c"], "relevance": [1, 2]})
    write_qrels(qrels, tmp_path / "q.txt.gz")
    assert read_qrels(tmp_path / "q.txt.gz").values.tolist() == qrels.values.tolist()


@pytest.mark.parametrize("text, line, words", [
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n", 2, "expected 6 columns, found 5"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 high t\n", 2, "score 'high' is not a finite number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 nan t\n", 2, "score 'nan' is not a finite number"),
    ("1 Q0 a 1 1.0 t\n2 Q0 a 1 1.0 t\n1 Q0 a 3 0.2 t\n", 3, "document 'a' appears twice for topic '1' (first on line 1)"),
])
def test_bad_run_names_file_line_and_fix(tmp_path, text, line, words):
    path = _write(tmp_path, text)
    with pytest.raises(TrecFormatError) as err:
        read_run(path)
    assert err.value.line == line and err.value.path == str(path)
    assert words in str(err.value) and f"{path}:{line}: " in str(err.value) and "Fix:" in str(err.value)


def test_empty_file(tmp_path):
    with pytest.raises(TrecFormatError, match="the file is empty"):
        read_run(_write(tmp_path, "\n"))


@pytest.mark.parametrize("text, line, words", [
    ("1 0 a 1\n1 0 b yes\n", 2, "relevance 'yes' is not an integer"),
    ("1 0 a 1\n1 0 b 0.5\n", 2, "relevance '0.5' is not an integer"),
    ("1 0 a 1\n1 0 b\n", 2, "expected 4 columns, found 3"),
    ("1 0 a 1\n1 0 a 0\n", 2, "appears twice"),
])
def test_bad_qrels(tmp_path, text, line, words):
    with pytest.raises(TrecFormatError) as err:
        read_qrels(_write(tmp_path, text))
    assert err.value.line == line and words in str(err.value)


def test_run_topic_absent_from_qrels_warns_and_is_ignored():
    runs = RunSet.from_frames({"r": pd.DataFrame({"query": ["1", "9"], "docno": ["a", "b"], "score": [1.0, 1.0]})})
    qrels = Qrels.from_pairs(["1"], ["a"])
    with pytest.warns(UserWarning, match=r"1 topic\(s\) have no judgements and are ignored.*9"):
        scores = evaluate(qrels, runs, "map", per_topic=True, output="dict")["r"]
    assert list(scores) == ["1", "all"] and scores["1"]["map"] == 1.0


def test_complete_scores_missing_qrels_topics_zero():
    runs = RunSet.from_frames({"r": pd.DataFrame({"query": ["1"], "docno": ["a"], "score": [1.0]})})
    qrels = Qrels.from_pairs(["1", "2"], ["a", "z"])
    scores = evaluate(qrels, runs, "map", complete=True, per_topic=True, output="dict")["r"]
    assert list(scores) == ["1", "2", "all"]
    np.testing.assert_allclose([scores["1"]["map"], scores["2"]["map"], scores["all"]["map"]], [1.0, 0.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(evaluate(qrels, runs, "map", per_topic=True, output="dict")["r"]) == ["1", "all"]


def test_empty_run_frame_is_a_clear_error():
    with pytest.raises(ValueError, match="run 'r' is empty"):
        RunSet.from_frames({"r": pd.DataFrame({"query": [], "docno": [], "score": []})})


def test_runset_read_reports_duplicate_with_file_and_line(tmp_path):
    good = _write(tmp_path, "1 Q0 a 1 1.0 t\n", "good.txt")
    bad = _write(tmp_path, "1 Q0 a 1 1.0 u\n1 Q0 b 2 0.5 u\n1 Q0 a 3 0.2 u\n", "bad.txt")
    with pytest.raises(TrecFormatError, match=r"bad.txt:3: document 'a' appears twice"):
        RunSet.read([good, bad])
    runs = RunSet.read([good], depth=1)
    assert runs.names == ["t"] and runs.docs.shape == (1, 1, 1)


def test_double_precision_order_keeps_near_ties_apart():
    frame = pd.DataFrame({"query": "1", "docno": ["a", "b"], "score": [1.00000002, 1.00000001]})
    assert list(trec_order(frame, score_precision="double")["docno"]) == ["a", "b"]
    with pytest.raises(ValueError, match="score_precision must be"):
        trec_order(frame, score_precision="half")


@pytest.mark.parametrize("gzipped", [False, True])
def test_binary_file_is_refused_before_it_is_read_whole(tmp_path, gzipped):
    # A file of NUL bytes once cost 6x its size in memory before failing; now the first block decides.
    data = b"\x00" * (1 << 20)
    path = tmp_path / ("nul.gz" if gzipped else "nul")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    for reader in (read_run, read_qrels):
        with pytest.raises(TrecFormatError, match="binary file .*NUL bytes.*Fix"):
            reader(path)
