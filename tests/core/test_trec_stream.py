"""The fast path of ``fireeval evaluate``: pyarrow reader, trec_eval order, QrelsIndex/score_run,
multi-run CLI, trec_eval's options, and bad input (issue 14 items 1-2: whitespace, empty fields)."""
import json
import sys

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from fireeval import cli
from fireeval.core.evaluation import score_run_set as evaluate, parse_measures
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core.stream import QrelsIndex, score_run
from fireeval.core.trec import TrecFormatError, read_qrels, read_run, read_run_table, trec_order, write_qrels, write_run


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _random(seed, ties=True):
    rng = np.random.default_rng(seed)
    rows, qrels = [], []
    for q in range(6):
        docs = rng.choice(80, size=rng.integers(1, 60), replace=False)
        scores = rng.integers(0, 5, len(docs)) / 4 if ties else rng.random(len(docs))
        rows += [(f"q{q}", f"D{d:03d}", float(s)) for d, s in zip(docs, scores)]
        judged = rng.choice(80, size=30, replace=False)
        qrels += [(f"q{q}", f"D{d:03d}", int(g)) for d, g in zip(judged, rng.choice([0, 0, 1, 2], 30))]
    return pd.DataFrame(rows, columns=["query", "docno", "score"]), pd.DataFrame(qrels, columns=["query", "docno",
                                                                                                    "relevance"])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("precision", ["float", "double"])
@pytest.mark.parametrize("layout", ["grouped", "equal sizes", "interleaved"])
def test_reader_order_equals_trec_order(tmp_path, seed, precision, layout):
    # the reader sorts topic blocks of a grouped file one at a time (padded table; a plain reshape when
    # every topic has as many rows), and the whole file at once when topics are interleaved
    frame, _ = _random(seed)
    if layout == "equal sizes":
        frame = frame.groupby("query").head(1).merge(frame[["docno"]].drop_duplicates().head(40), how="cross")
        frame = frame.rename(columns={"docno_y": "docno"}).drop(columns="docno_x")
        frame["score"] = np.random.default_rng(seed).integers(0, 5, len(frame)) / 4
    frame["score"] += np.random.default_rng(seed).choice([0, 1e-9], len(frame))  # float32 ties, double not
    write_run(frame.assign(tag="t"), tmp_path / "r.txt")
    if layout == "interleaved":
        lines = (tmp_path / "r.txt").read_text().splitlines(keepends=True)
        np.random.default_rng(seed).shuffle(lines)
        (tmp_path / "r.txt").write_text("".join(lines))
    table = read_run_table(tmp_path / "r.txt", precision)
    if layout == "equal sizes":
        assert len(set(np.diff(table.starts))) == 1
    expected = trec_order(read_run(tmp_path / "r.txt", ordered=False), score_precision=precision)
    assert table.docno.to_pylist() == list(expected["docno"])
    assert list(np.repeat(table.topics, np.diff(table.starts))) == list(expected["query"])


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("lookup", ["dense table", "dense, one topic per block", "hash table"])
def test_score_run_equals_evaluate_and_pytrec_eval(tmp_path, seed, lookup, monkeypatch):
    from fireeval.core import stream

    if lookup == "hash table":
        monkeypatch.setattr(stream, "_DENSE_CELLS_PER_ROW", 0)
    if lookup == "dense, one topic per block":
        monkeypatch.setattr(stream, "_DENSE_BLOCK_BYTES", 1)
    frame, qrels_frame = _random(seed)
    write_run(frame.assign(tag="t"), tmp_path / "r.txt")
    write_qrels(qrels_frame, tmp_path / "q.txt")
    names = ["all_trec", "Judged@10", "correct@5"]
    for kwargs in ({}, {"judged_only": True}, {"relevance_level": 2}, {"max_retrieved": 7}, {"complete": True}):
        ours = score_run(read_run_table(tmp_path / "r.txt"), QrelsIndex.read(tmp_path / "q.txt"), names, **kwargs)
        ref = evaluate(RunSet.from_frames({"t": read_run(tmp_path / "r.txt")}), Qrels(read_qrels(tmp_path / "q.txt")),
                       names, **kwargs)
        assert list(ours.topics) == list(ref.topics)
        for m in ref.values:
            np.testing.assert_allclose(ours.values[m], ref.values[m][0], atol=1e-12, err_msg=f"{m} {kwargs}")
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: dict(zip(g.docno, g.relevance.astype(int))) for q, g in qrels_frame.groupby("query")}, {"map", "ndcg"})
    theirs = evaluator.evaluate({q: dict(zip(g.docno, g.score)) for q, g in frame.groupby("query")})
    ours = score_run(read_run_table(tmp_path / "r.txt"), QrelsIndex.read(tmp_path / "q.txt"), ["map", "ndcg"])
    for m in ("map", "ndcg"):
        np.testing.assert_allclose(ours.values[m], [theirs[t][m] for t in ours.topics], atol=1e-12)


def test_cli_many_runs_trec_layout_stays_awk_parseable_and_tsv_names_each_run(tmp_path, capsys):
    q = _write(tmp_path, "q", "1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r1 = _write(tmp_path, "r1", "1 Q0 b 1 2.0 alpha\n1 Q0 a 2 1.0 alpha\n2 Q0 c 1 1.0 alpha\n")
    r2 = _write(tmp_path, "r2", "1 Q0 a 1 2.0 beta\n2 Q0 x 1 1.0 beta\n")
    r3 = _write(tmp_path, "r3", "1 Q0 a 1 2.0 beta\n")
    argv = ["evaluate", str(q), str(r1), str(r2), str(r3), "-m", "map", "-m", "num_ret"]
    assert cli.main(argv) == 0
    # trec_eval's own lines, run after run, each summary opened by its runid line
    lines = [l.split("\t") for l in capsys.readouterr().out.splitlines()]
    assert [(m.strip(), t, v) for m, t, v in lines] == [  # (in trec_eval's order: num_ret before map)
        ("runid", "all", "alpha"), ("num_ret", "all", "3"), ("map", "all", "0.7500"),
        ("runid", "all", "beta"), ("num_ret", "all", "2"), ("map", "all", "0.5000"),
        ("runid", "all", "beta"), ("num_ret", "all", "1"), ("map", "all", "1.0000")]
    assert cli.main(argv + ["--format", "tsv"]) == 0
    rows = [l.split("\t") for l in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["run", "measure", "topic", "value"]
    got = {(r, m): v for r, m, t, v in rows[1:]}
    assert got == {("alpha", "map"): "0.7500", ("alpha", "num_ret"): "3", ("beta", "map"): "0.5000",
                   ("beta", "num_ret"): "2", (str(r3), "map"): "1.0000", (str(r3), "num_ret"): "1"}
    assert cli.main(argv + ["--format", "json", "-q"]) == 0
    docs = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [d["run"] for d in docs] == ["alpha", "beta", str(r3)]
    assert docs[0]["summary"] == {"map": 0.75, "num_ret": 3} and docs[0]["per_topic"]["1"]["map"] == 0.5


def test_cli_options_follow_trec_eval(tmp_path, capsys):
    q = _write(tmp_path, "q", "1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 d 1\n")
    r = _write(tmp_path, "r", "1 Q0 u 1 9 t\n1 Q0 b 2 8 t\n1 Q0 a 3 7 t\n1 Q0 c 4 6 t\n")
    run = lambda *extra: (cli.main(["evaluate", str(q), str(r), "-m", "map", *extra]),
                          capsys.readouterr().out.splitlines())
    assert run()[1] == ["map                   \tall\t0.5833"]  # (1/2 + 2/3) / 2
    assert run("-l", "2")[1] == ["map                   \tall\t0.3333"]  # only a relevant, rank 3
    assert run("-J")[1] == ["map                   \tall\t1.0000"]  # u dropped: b, a at ranks 1, 2
    assert run("-M", "2")[1] == ["map                   \tall\t0.2500"]
    assert run("-c")[1] == ["map                   \tall\t0.2917"]  # topic 2 scores 0
    assert run("-q", "-n")[1] == ["map                   \t1\t0.5833"]
    assert run("--score-precision", "double")[0] == 0


def test_cli_help_and_evaluate_do_not_import_pandas(tmp_path):
    import subprocess

    q = _write(tmp_path, "q", "1 0 a 1\n")
    r = _write(tmp_path, "r", "1 Q0 a 1 1 t\n")
    code = ("import sys; from fireeval.cli.evaluate import add; import argparse; p = argparse.ArgumentParser(); "
            "s = p.add_subparsers(); add(s); a = p.parse_args(['evaluate', sys.argv[1], sys.argv[2]]); a.func(a); "
            "assert 'pandas' not in sys.modules, 'pandas imported'; assert 'pyarrow.compute' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code, str(q), str(r)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- issue 14 items 1-2
RUN10 = "".join(f"t1 Q0 other{i} {i} {10 - i} r\n" for i in range(10))


@pytest.mark.parametrize("qrels_text, expected", [
    ("t1 0 relevant_doc 1\nt1 0  1\n", ":2: expected 4 columns, found 3"),  # the reproduction
    ("t1\t0\trelevant_doc\t1\nt1\t0\t\t1\n", ":2: expected 4 columns, found 3"),  # empty tab field
    ("t1 0 relevant_doc 1\n 0 doc2 1\n", ":2: expected 4 columns, found 3"),  # empty query field
    ("t1 0 a 1\nt1 0 b\n", ":2: expected 4 columns, found 3"),
    ("t1 0 a 1 extra\n", ":1: expected 4 columns, found 5"),
])
def test_qrels_with_empty_or_missing_fields_is_an_error_naming_the_line(tmp_path, capsys, qrels_text, expected):
    q = _write(tmp_path, "q", qrels_text)
    r = _write(tmp_path, "r", RUN10)
    assert cli.main(["evaluate", str(q), str(r), "-m", "map", "-m", "P_10", "-m", "ndcg_cut_10"]) == 2
    err = capsys.readouterr().err
    assert f"{q}{expected}" in err and "Fix:" in err
    with pytest.raises(TrecFormatError, match=expected):
        QrelsIndex.read(q)


@pytest.mark.parametrize("run_text, expected", [
    ("1 Q0 a 1 2 t\n Q0 b 2 1 t\n", ":2: expected 6 columns, found 5"),  # empty query field
    ("1\tQ0\ta\t1\t2\tt\n1\tQ0\t\t2\t1\tt\n", ":2: expected 6 columns, found 5"),
    ("1 Q0 a 1 2 t\n1 Q0 b 2\n", ":2: expected 6 columns, found 4"),
    ("1 Q0 a 1 2 t\n1 Q0 b 2  t\n", ":2: expected 6 columns, found 5"),
])
def test_run_with_empty_or_missing_fields_is_an_error_naming_the_line(tmp_path, run_text, expected):
    with pytest.raises(TrecFormatError, match=expected):
        read_run_table(_write(tmp_path, "r", run_text))


def test_whitespace_variants_read_as_trec_eval_splits_them(tmp_path):
    """Tabs, runs of spaces, CRLF, a BOM, trailing blanks: all the same five values."""
    base = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n"
    variants = [base, base.replace(" ", "\t"), base.replace(" ", "  "), base.replace("\n", "\r\n"),
                "\ufeff" + base, base + "\n\n  \n", base.replace(" Q0 ", " \t Q0\t ")]
    for i, text in enumerate(variants):
        table = read_run_table(_write(tmp_path, f"r{i}", text))
        assert table.docno.to_pylist() == ["a", "b", "c"] and list(table.topics) == ["1"], repr(text)


def test_tab_separated_fields_with_spaces_are_split_like_trec_eval(tmp_path):
    """Issue 14 item 2: a space inside a tab-separated field is a separator, never part of an id."""
    q = _write(tmp_path, "q", "1\t0\td1\t1\n1\t0\td2\t1\n")
    r = _write(tmp_path, "r", "1\tQ0\td1 \t1\t2\tt\n1\tQ0\t d3\t2\t1.5\tt\n1 \tQ0\td2\t3\t1\tt\n")
    scores = score_run(read_run_table(r), QrelsIndex.read(q), ["map"])
    assert scores.values["map"][0] == pytest.approx((1 + 2 / 3) / 2)
    # a space in a tab-separated docno makes 7 fields: read as trec_eval reads them (docno d, score 1, tag 2),
    # with a warning naming the line
    with pytest.warns(UserWarning, match=r":1: 1 line\(s\) have more than 6 fields .*ignored, as trec_eval"):
        table = read_run_table(_write(tmp_path, "bad", "1\tQ0\td 1\t1\t2\tt\n"))
    assert table.docnos() == ["d"] and table.score.tolist() == [1.0] and table.tag == "2"


@pytest.mark.parametrize("text, expected", [
    ("1 Q0 a 1 x t\n", ":1: score 'x' is not a finite number"),
    ("1 Q0 a 1 inf t\n", ":1: score 'inf' is not a finite number"),
    ("1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n", ":2: document 'a' appears twice for topic '1'"),
    ("", "the file is empty"),
])
def test_bad_runs_keep_their_clear_errors(tmp_path, text, expected):
    with pytest.raises(TrecFormatError, match=expected):
        read_run_table(_write(tmp_path, "r", text))


def test_unreadable_inputs_are_clear_errors(tmp_path):
    with pytest.raises(TrecFormatError, match="is a directory"):
        read_run_table(tmp_path)
    with pytest.raises(TrecFormatError, match="no such file"):
        QrelsIndex.read(tmp_path / "missing")
    with pytest.raises(TrecFormatError, match="damaged gzip"):
        read_run_table(_write(tmp_path, "r.gz", b"\x1f\x8b\x08\x00garbage"))
    with pytest.raises(TrecFormatError, match="relevance '1.5' is not an integer"):
        QrelsIndex.read(_write(tmp_path, "q", "1 0 a 1\n1 0 b 1.5\n"))
    with pytest.raises(TrecFormatError, match=":2: document 'a' appears twice"):
        QrelsIndex.read(_write(tmp_path, "q2", "1 0 a 1\n1 0 a 0\n"))
    assert QrelsIndex.read(_write(tmp_path, "q3", "1 0 a 1.0\n")).grades.tolist() == [1.0]


def test_hash_lookups_agree_with_a_dict(tmp_path):
    from fireeval.core.stream import _IntIndex

    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(0, 2**62, 20_000))
    rng.shuffle(keys)
    index = _IntIndex(keys)
    queries = np.r_[keys[::7], rng.integers(0, 2**62, 500), -1]
    expected = {k: i for i, k in enumerate(keys)}
    assert index.get(queries).tolist() == [expected.get(q, -1) for q in queries]
    # grades found through the (topic, document) keys equal a plain dict lookup
    frame, qrels_frame = _random(1)
    write_run(frame.assign(tag="t"), tmp_path / "r.txt")
    write_qrels(qrels_frame, tmp_path / "q.txt")
    run, qrels = read_run_table(tmp_path / "r.txt"), QrelsIndex.read(tmp_path / "q.txt")
    judged = {(q, d): g for q, d, g in qrels_frame.itertuples(index=False)}
    topics = np.repeat(run.topics, np.diff(run.starts))
    expected = [judged.get((t, d), np.nan) for t, d in zip(topics, run.docno.to_pylist())]
    np.testing.assert_array_equal(qrels.lookup(run)[1], expected)


@pytest.mark.parametrize("cells_per_row", [0, 64])
def test_negative_and_large_grades_are_looked_up_exactly(tmp_path, monkeypatch, cells_per_row):
    from fireeval.core import stream

    monkeypatch.setattr(stream, "_DENSE_CELLS_PER_ROW", cells_per_row)  # 0: hash table, 64: dense table
    q = _write(tmp_path, "q", "1 0 a -2\n1 0 b 3\n2 0 a 7\n")
    r = _write(tmp_path, "r", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 b 1 2 t\n2 Q0 a 2 1 t\n")
    qrels = QrelsIndex.read(q)
    np.testing.assert_array_equal(qrels.lookup(read_run_table(r))[1], [-2, 3, np.nan, np.nan, 7])
    other = _write(tmp_path, "r2", "2 Q0 a 1 3 t\n2 Q0 c 2 2 t\n1 Q0 b 1 1 t\n")  # the same index, a second run
    np.testing.assert_array_equal(qrels.lookup(read_run_table(other))[1], [3, 7, np.nan])
    wide = _write(tmp_path, "wide", "1 0 a 0\n1 0 b 300\n")  # grades 300 apart: too wide for byte codes
    np.testing.assert_array_equal(QrelsIndex.read(wide).lookup(read_run_table(r))[1][:3], [0, 300, np.nan])


def test_parse_time_dictionaries_over_several_blocks_read_the_same(tmp_path, monkeypatch):
    # large runs are dictionary-encoded by the CSV reader, one dictionary per ~1 MB block, then unified
    from fireeval.core import trec

    rng = np.random.default_rng(3)
    lines = [f"{t}\tQ0\tD{d}\t0\t{s:.2f}\tt\n" for t in rng.permutation(150)
             for d, s in zip(rng.choice(5000, 700, replace=False), rng.random(700))]
    path = _write(tmp_path, "big.txt", "".join(lines))
    assert path.stat().st_size > 2_000_000
    plain = read_run_table(path)
    monkeypatch.setattr(trec, "_DICTIONARY_PARSE_BYTES", 0)
    assert trec._read_run_arrow(path, dictionary=True)[0].column("docno").num_chunks > 1
    encoded = read_run_table(path)
    assert list(encoded.topics) == list(plain.topics)
    assert encoded.docno.to_pylist() == plain.docno.to_pylist()
    np.testing.assert_array_equal(encoded.score, plain.score)


def test_gzip_files_read_like_gzip_and_damage_is_a_clear_error(tmp_path):
    import gzip

    text = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n"
    two_members = gzip.compress(text[:13].encode()) + gzip.compress(text[13:].encode())
    assert read_run_table(_write(tmp_path, "r.gz", two_members)).docno.to_pylist() == ["a", "b"]
    body = bytearray(gzip.compress(text.encode() * 50))
    body[12] ^= 0xFF  # a damaged deflate block
    with pytest.raises(TrecFormatError, match="damaged gzip file"):
        read_run_table(_write(tmp_path, "bad.gz", bytes(body)))
    crc = bytearray(gzip.compress(text.encode()))
    crc[-6] ^= 0xFF
    with pytest.raises(TrecFormatError, match="damaged gzip file"):
        read_run_table(_write(tmp_path, "crc.gz", bytes(crc)))


def test_program_ends_at_once_with_every_line_written_and_the_right_status(tmp_path, capsys):
    # `fireeval evaluate` skips the interpreter's clean-up after flushing (cli.program): the output
    # must still be complete, and the exit status that of main()
    import subprocess

    frame, qrels_frame = _random(0)
    write_run(frame.assign(tag="t"), tmp_path / "r.txt")
    write_qrels(qrels_frame, tmp_path / "q.txt")
    argv = ["evaluate", "-q", "-m", "all_trec", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]
    assert cli.main(argv) == 0
    expected = capsys.readouterr().out
    done = subprocess.run([sys.executable, "-m", "fireeval", *argv], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    assert len(expected) > 8192  # more than the buffer of a piped stdout: several writes
    bad = subprocess.run([sys.executable, "-m", "fireeval", "evaluate", str(tmp_path / "q.txt"),
                          str(tmp_path / "missing.txt")], capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.txt" in bad.stderr and bad.stdout == ""
    head = subprocess.run(f"{sys.executable} -m fireeval {' '.join(argv)} | head -1", shell=True,
                          capture_output=True, text=True)
    assert head.stdout == expected.splitlines(keepends=True)[0] and head.stderr == ""


def test_scores_beyond_float32_range_order_like_trec_eval(tmp_path):
    # -1e39 is finite as a double but -inf as trec_eval's C float: its sort key ties with no padding
    # cell of the padded per-topic table (review of issue 13: rows of topic 2 leaked into topic 1)
    lines = ["1 Q0 A 1 -1e39 t", "1 Q0 B 2 1 t"] + [f"2 Q0 D{i} {i} {258 - i} t" for i in range(1, 258)]
    run = _write(tmp_path, "r.txt", "\n".join(lines) + "\n")
    qrels = _write(tmp_path, "q.txt", "1 0 A 1\n1 0 B 1\n2 0 D1 1\n")
    for precision in ("float", "double"):
        table = read_run_table(run, precision)
        expected = trec_order(read_run(run, ordered=False), score_precision=precision)
        assert table.docno.to_pylist() == list(expected["docno"])
    scores = score_run(read_run_table(run), QrelsIndex.read(qrels), ["num_ret", "map"])
    assert scores.values["num_ret"].tolist() == [2, 257] and scores.values["map"].tolist() == [1.0, 1.0]


def test_program_with_stdout_closed_says_one_line(tmp_path):
    import subprocess

    q, r = _write(tmp_path, "q.txt", "1 0 a 1\n"), _write(tmp_path, "r.txt", "1 Q0 a 1 2.0 t\n")
    done = subprocess.run(f"{sys.executable} -m fireeval evaluate {q} {r} >&-", shell=True, capture_output=True,
                          text=True)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
