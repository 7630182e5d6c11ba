"""Issue 27's hostile inputs, one test per case: each gives a one-line exit-2 error naming the file (and
line) with a fix, or the number trec_eval gives where its reading is well defined; bombs stay under
500 MB of peak memory."""
import gzip
import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from fireeval import cli

LIMIT_BYTES = 500 << 20
QRELS = "1 0 a 1\n1 0 b 0\n"
RUN = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def _evaluate(capsys, *argv):
    status = cli.main(["evaluate", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def _one_line_error(err, path=None, line=None):
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "Fix: " in err, err
    if path is not None:
        where = re.escape(str(path)) + (f":{line}: " if line is not None else r"(:\d+)?: ")
        assert re.search(where, err), err


def _peak_rss_of(argv) -> tuple[int, subprocess.CompletedProcess]:
    """Run ``argv`` in a fresh child and return its peak resident memory in bytes (Linux ru_maxrss is KiB)."""
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(p.returncode); "
             "sys.stdout.write(p.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *map(str, argv)], capture_output=True, text=True, check=True)
    rss, status, *err = done.stdout.split("\n", 2)
    return int(rss) * 1024, subprocess.CompletedProcess(argv, int(status), "", "".join(err))


# 1. grades atol would read otherwise
@pytest.mark.parametrize("grade", ["1e1", "0x1", "2.9999999999999999", "0.5", "inf", "-inf", "3e890", "nan",
                                   "99999999999999999999", "١"])
def test_1_qrels_grade_that_is_not_a_plain_integer_is_refused_with_its_line(tmp_path, capsys, grade):
    q = _write(tmp_path / "q", f"1 0 b 0\n1 0 a {grade}\n")
    status, out, err = _evaluate(capsys, q, _write(tmp_path / "r", RUN), "-m", "map")
    assert status == 2 and out == ""
    _one_line_error(err, q, 2)
    assert f"relevance {grade!r} is not an integer" in err


@pytest.mark.parametrize("grade, expected", [("+1", "1.0000"), ("2.0", "1.0000"), ("1.", "1.0000"), ("-0", "0.0000")])
def test_1_grades_atol_reads_as_written_keep_trec_eval_numbers(tmp_path, capsys, grade, expected):
    q = _write(tmp_path / "q", f"1 0 b 0\n1 0 a {grade}\n")
    status, out, _ = _evaluate(capsys, q, _write(tmp_path / "r", RUN), "-m", "map")
    assert status == 0 and out.split("\t")[-1].strip() == expected


# 2. NUL bytes past the first 64 KiB
def test_2_nul_bytes_anywhere_in_a_run_are_refused_with_the_line(tmp_path, capsys):
    body = b"".join(b"1 Q0 d%d %d %d t\n" % (i, i, 5000 - i) for i in range(1, 5001))
    cut = body.index(b"\n", 80_000) + 1
    run = _write(tmp_path / "r", body[:cut] + b"\0" * 4096 + body[cut:])
    status, out, err = _evaluate(capsys, _write(tmp_path / "q", "1 0 d1 1\n"), run, "-m", "num_ret")
    assert status == 2 and out == ""
    _one_line_error(err, run, body[:cut].count(b"\n") + 1)
    assert "NUL" in err


def test_2_nul_bytes_in_gzipped_qrels_docnos_are_refused(tmp_path, capsys):
    lines = [f"1 0 doc{i:06d} {i % 2}\n".encode() for i in range(20_000)]
    lines[15_000] = b"1 0 doc\0\0\0 1\n"
    q = _write(tmp_path / "q.gz", gzip.compress(b"".join(lines)))
    status, out, err = _evaluate(capsys, q, _write(tmp_path / "r", RUN), "-m", "map")
    assert status == 2 and out == ""
    _one_line_error(err, q, 15_001)


# 4. a gzip bomb of whitespace
def test_4_gzip_bomb_of_whitespace_is_refused_under_500_mb(tmp_path):
    member = gzip.compress(b" " * (1 << 20), compresslevel=9)  # 1 MiB of spaces in ~1 KiB
    bomb = _write(tmp_path / "bomb.gz", member * 3072)  # 3 GiB once expanded, 3 MB on disk
    peak, done = _peak_rss_of([sys.executable, "-m", "fireeval", "evaluate", _write(tmp_path / "q", QRELS), bomb])
    assert done.returncode == 2, done.stderr
    _one_line_error(done.stderr, bomb)
    assert "decompression bomb" in done.stderr
    assert peak < LIMIT_BYTES, f"peak {peak >> 20} MiB"


def test_4_a_real_multi_member_gzip_still_reads(tmp_path, capsys):
    run = _write(tmp_path / "r.gz", gzip.compress(RUN[:13].encode()) + gzip.compress(RUN[13:].encode()))
    status, out, _ = _evaluate(capsys, _write(tmp_path / "q", QRELS), run, "-m", "num_ret")
    assert status == 0 and out.split("\t")[-1].strip() == "2"


# 5. -c with no topic in common
def test_5_complete_with_no_topic_in_common_is_an_error(tmp_path, capsys):
    q = _write(tmp_path / "q", "0401 0 a 1\n")
    r = _write(tmp_path / "r", "401 Q0 a 1 2 t\n")
    for extra in (["-c"], []):
        status, out, err = _evaluate(capsys, q, r, "-m", "map", *extra)
        assert status == 2 and out == ""
        assert re.search(rf"^fireeval evaluate: {re.escape(str(r))}: no topic of the run has judgements", err, re.M)
        assert "0401 is not 401" in err


# 7. overflow and huge numbers give exit 2 (or trec_eval's reading)
@pytest.mark.parametrize("measure", ["P.1" + "0" * 320, "relative_P.1" + "0" * 320, "Judged@1" + "0" * 320,
                                     "P_9223372036854775808", "set_F.1e999", "set_F.1e308", "set_F.nan", "iprec_at_recall.inf",
                                     "utility.1,--1,0,0", "P.٣"])
def test_7_and_11_huge_or_odd_measure_parameters_are_refused(tmp_path, capsys, measure):
    status, out, err = _evaluate(capsys, _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN), "-m", measure)
    assert status == 2 and out == ""
    assert err.startswith(f"fireeval evaluate: -m {measure}: ") and "Fix: " in err and err.count("\n") == 1


def test_7_max_retrieved_beyond_any_ranking_reads_as_trec_eval_atol(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    whole = _evaluate(capsys, q, r, "-m", "num_ret")[1]
    assert _evaluate(capsys, q, r, "-m", "num_ret", "-M", str(2**63))[1] == whole


# (-M 0 is trec_eval's own form now, computed as it does: tests/core/test_trec_eval_edges.py)
@pytest.mark.parametrize("option", [["-M", "５"], ["-l", "٣"], ["-l", "0_2"], ["-l", "-1"]])
def test_11_options_that_are_not_plain_numbers_are_refused(tmp_path, capsys, option):
    assert cli.main(["evaluate", str(_write(tmp_path / "q", QRELS)), str(_write(tmp_path / "r", RUN)), *option]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fireeval evaluate: argument ") and "Fix: " in err and err.count("\n") == 1


def test_7_stdout_closed_is_one_line_without_traceback(tmp_path):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    done = subprocess.run(f"{sys.executable} -m fireeval evaluate {q} {r} >&-", shell=True, capture_output=True,
                          text=True)
    assert "Traceback" not in done.stderr and "AttributeError" not in done.stderr
    assert done.returncode in (0, 2) and len(done.stderr.strip().splitlines()) <= 1, done.stderr


# 3. pickle size bombs through `fireeval evaluate-moments`
GT = "A 0 10##q one.\nB 0 4##q two.\n"


def _pickle_bombs():
    import pickle
    import struct

    memo = b"\x80\x02N" + b"r" + struct.pack("<I", 2**28) + b"."  # LONG_BINPUT 2**28: 9 bytes
    zero = pickle.dumps(np.zeros(3, dtype="V0"), protocol=2)
    zero = zero.replace(b"K\x03\x85", b"\x8a\x06\x00\x10\xa5\xd4\xe8\x00\x85")  # shape (10**12,) of 0-byte items
    assert b"\x8a\x06" in zero and len(zero) < 300  # the shape was replaced
    shared, ratings = [[0.0, 1.0, 30.0]] * 100_000, [1.0] * 100_000  # one 100k-moment list for every query
    reuse = pickle.dumps([((f"v{i}", "q"), shared, ratings) for i in range(3720)], protocol=2)
    assert len(reuse) < 2_000_000
    return {"memo": memo, "zero-size": zero, "shared": reuse}


@pytest.mark.parametrize("name", ["memo", "zero-size", "shared"])
def test_3_pickle_size_bombs_are_refused_under_500_mb(tmp_path, name):
    bomb = _write(tmp_path / f"{name}.pkl", _pickle_bombs()[name])
    gt = _write(tmp_path / "gt.txt", GT)
    peak, done = _peak_rss_of([sys.executable, "-m", "fireeval", "evaluate-moments", gt, bomb])
    assert done.returncode == 2, done.stderr
    _one_line_error(done.stderr, bomb)
    assert "bomb" in done.stderr
    assert peak < LIMIT_BYTES, f"peak {peak >> 20} MiB"


# 6. `fireeval run --output ""` (an unset $OUT)
@pytest.mark.parametrize("output", ["", "  "])
def test_6_run_with_an_empty_output_is_refused_before_anything_runs(capsys, output):
    assert cli.main(["run", "metrics", "--output", output]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith('fireeval run: --output "": ') and "Fix: " in captured.err


# 7. JSON (and pickle) integers beyond float range in moments, ratings, windows; AxIoU@<huge>
BIG = "1" + "0" * 400


@pytest.mark.parametrize("field", ["moments", "ratings"])
def test_7_json_integers_beyond_float_range_are_refused(tmp_path, capsys, field):
    entry = {"vid": "A", "query": "q one.", "moments": [[0, 5]], "ratings": [1]}
    text = json.dumps({"entries": [entry]}).replace("[[0, 5]]" if field == "moments" else "[1]",
                                                    f"[[0, {BIG}]]" if field == "moments" else f"[{BIG}]")
    pred = _write(tmp_path / "p.json", text)
    assert cli.main(["evaluate-moments", str(_write(tmp_path / "gt.txt", GT)), str(pred)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, pred)
    assert "beyond the range of a number" in err


def test_7_qvhighlights_windows_beyond_float_range_are_refused(tmp_path, capsys):
    gt = _write(tmp_path / "gt.jsonl", json.dumps({"qid": 1, "relevant_windows": [[0, 2]]}) + "\n")
    pred = _write(tmp_path / "p.jsonl", '{"qid": 1, "pred_relevant_windows": [[0, %s, 0.5]]}\n' % BIG)
    assert cli.main(["evaluate-moments", str(gt), str(pred)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, pred, 1)


def test_7_pickle_integers_beyond_float_range_are_refused(tmp_path, capsys):
    import pickle

    pred = _write(tmp_path / "p.pkl", pickle.dumps([(("A", "q one."), [[0, int(BIG), 10]], [1.0])], protocol=2))
    assert cli.main(["evaluate-moments", str(_write(tmp_path / "gt.txt", GT)), str(pred)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, pred)


@pytest.mark.parametrize("measure", ["AxIoU@1" + "0" * 320, "R@1" + "0" * 30 + ",0.5", "AxIoU@٣"])
def test_7_huge_moment_cut_offs_are_refused(tmp_path, capsys, measure):
    pred = _write(tmp_path / "p.json", json.dumps({"entries": [{"vid": "A", "query": "q one.", "moments": [[0, 5]]}]}))
    assert cli.main(["evaluate-moments", str(_write(tmp_path / "gt.txt", GT)), str(pred), "-m", measure]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fireeval evaluate-moments: -m {measure}: ") and "Fix: " in err


# 8. audit
@pytest.fixture(scope="module")
def audit_files(tmp_path_factory):
    from fireeval.core.trec import write_qrels, write_run
    from fireeval.synthetic.trec_collection import simulate_pooled_trec

    folder = tmp_path_factory.mktemp("audit")
    frames, qrels_frame, table, _ = simulate_pooled_trec(seed=3, n_topics=8, n_docs=600, depth=80, pool_depth=15,
                                                         n_groups=5, runs_per_group=3)
    write_qrels(qrels_frame, folder / "qrels.txt")
    paths = {}
    for name, frame in frames.items():
        write_run(frame, folder / f"{name}.run", tag=name)
        paths[name] = str(folder / f"{name}.run")
    unpooled = table.loc[~table["pooled"], "run"].iloc[0]
    base = ["audit", str(folder / "qrels.txt"), paths[unpooled], "--pool-depth", "15", "--runs", *paths.values()]
    return folder, base, unpooled, table


def _audit_error(capsys, argv, path=None, line=None):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("fireeval audit: ")
    _one_line_error(captured.err, path, line)
    return captured.err


def test_8_pooled_naming_only_the_audited_run_is_an_error(audit_files, capsys):
    folder, base, unpooled, table = audit_files
    err = _audit_error(capsys, base + ["--pooled", unpooled])
    assert "no reference run" in err and "index" not in err
    (folder / "none.tsv").write_text("run\tpooled\n" + "".join(f"{r}\tno\n" for r in table["run"]))
    _audit_error(capsys, base + ["--pooled-from", str(folder / "none.tsv")], folder / "none.tsv")


def test_8_duplicate_row_in_groups_table_names_its_line(audit_files, capsys):
    folder, base, _, table = audit_files
    rows = "".join(f"{r}\t{g}\n" for r, g in zip(table["run"], table["group"]))
    first = table["run"].iloc[0]
    (folder / "dup.tsv").write_text(f"run\tgroup\n{rows}{first}\tother\n")
    err = _audit_error(capsys, base + ["--groups", str(folder / "dup.tsv")], folder / "dup.tsv", len(table) + 2)
    assert "first on line 2" in err


@pytest.mark.parametrize("content, words", [(b"run\tgroup\nr\xe9\tg\n", "not UTF-8"), (b"", "is empty"),
                                            (b"run\tgroup\n\"r1\tg1\nr2\tg2\tx\n", "wrong number"),
                                            (b"run\tgroup\n", "no rows")])
def test_8_bad_groups_files_name_the_file(audit_files, capsys, content, words):
    folder, base, _, _ = audit_files
    path = _write(folder / "bad.tsv", content)
    err = _audit_error(capsys, base + ["--groups", str(path)], path)
    assert words in err


@pytest.mark.parametrize("option", [["--pool-depth", str(10**20)], ["--pool-depth", "0"], ["--max-loss", "nan"],
                                    ["--max-loss", "inf"], ["--max-loss", "1.5"]])
def test_8_out_of_range_options_are_refused(audit_files, capsys, option):
    _, base, _, _ = audit_files
    err = _audit_error(capsys, base[:3] + option)
    assert err.startswith(f"fireeval audit: argument {option[0]}")


def test_8_json_never_goes_into_the_data_folder(audit_files, capsys, monkeypatch, tmp_path):
    _, base, _, _ = audit_files
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("FIREEVAL_DATA", str(data))
    target = data / "audit.json"
    _audit_error(capsys, base[:5] + ["--json", str(target)], target)
    assert not target.exists()


# 12. the Python API checks its arguments
@pytest.mark.parametrize("call", [
    lambda r: r.precision_at_k([[1, 0]], k=-1), lambda r: r.precision_at_k([[1, 0]], k=0),
    lambda r: r.correct_at_k([[1, 0]], k=0), lambda r: r.recall_at_k([[1, 0]], [1], k=1.5),
    lambda r: r.ndcg([[1, 0]], [[1]], k=0), lambda r: r.dcg([[1, 0]], k=-2), lambda r: r.judged_at_k([[1]], [1], 0)])
def test_12_ranking_cut_offs_below_one_are_refused(call):
    from fireeval.core import ranking

    with pytest.raises(ValueError, match="cut-off k must be a whole number >= 1.*Fix:"):
        call(ranking)


@pytest.mark.parametrize("call", [
    lambda m: m.recall_at_k_iou([[0.2]], k=1, theta=-1), lambda m: m.recall_at_k_iou([[0.2]], k=1, theta=np.nan),
    lambda m: m.axiou_at_k([[0.2]], k=1, lower_bound=1), lambda m: m.axiou_at_k([[0.2]], k=1, lower_bound=np.nan),
    lambda m: m.ap_at_k_iou([[0.2]], k=0, theta=0.5), lambda m: m.dcg_at_k_iou([[0.2]], k=0)])
def test_12_moment_measures_refuse_bad_parameters(call):
    from fireeval.core import moments

    with pytest.raises(ValueError):
        call(moments)


def test_12_writers_refuse_what_could_not_be_read_back(tmp_path):
    from fireeval.core.trec import read_qrels, write_qrels, write_run

    with pytest.raises(ValueError, match="relevance 0.6 is not a whole number"):
        write_qrels(pd.DataFrame({"query": ["1"], "docno": ["d"], "relevance": [0.6]}), tmp_path / "q")
    write_qrels(pd.DataFrame({"query": ["1"], "docno": ["d"], "relevance": [2.0]}), tmp_path / "q")
    assert read_qrels(tmp_path / "q")["relevance"].tolist() == [2]
    for frame, words in [({"query": ["1"], "docno": ["a b"], "score": [1.0]}, "docno 'a b'"),
                         ({"query": ["1"], "docno": ["d"], "score": [np.nan]}, "score nan"),
                         ({"query": ["1"], "docno": ["d"], "score": [np.inf]}, "score inf"),
                         ({"query": [""], "docno": ["d"], "score": [1.0]}, "query ''")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            write_run(pd.DataFrame(frame), tmp_path / "r", tag="t")
    with pytest.raises(ValueError, match="tag 'my run'"):
        write_run(pd.DataFrame({"query": ["1"], "docno": ["d"], "score": [1.0]}), tmp_path / "r", tag="my run")
    assert not (tmp_path / "r").exists()


# 13. low: empty protocol-2 arrays, Latin-1 docnos, nested ratings
def test_13_protocol_2_pickle_with_an_empty_array_loads():
    import pickle

    from fireeval.datasets.safe_pickle import safe_loads

    for protocol in (2, 4):
        assert safe_loads(pickle.dumps({"a": np.array([])}, protocol=protocol))["a"].shape == (0,)


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_13_latin1_docnos_name_their_line(tmp_path, capsys, which):
    q = _write(tmp_path / "q", b"1 0 a 1\n" + (b"1 0 caf\xe9 0\n" if which == "qrels" else b"1 0 b 0\n"))
    r = _write(tmp_path / "r", b"1 Q0 a 1 2 t\n" + (b"1 Q0 caf\xe9 2 1 t\n" if which == "run" else b"1 Q0 b 2 1 t\n"))
    status, out, err = _evaluate(capsys, q, r, "-m", "map")
    assert status == 2 and out == ""
    _one_line_error(err, q if which == "qrels" else r, 2)
    assert "not UTF-8" in err


def test_13_nested_ratings_are_named_as_such(tmp_path, capsys):
    entry = {"vid": "A", "query": "q one.", "moments": [[0, 5], [0, 10]], "ratings": [[1], [2]]}
    pred = _write(tmp_path / "p.json", json.dumps({"entries": [entry]}))
    assert cli.main(["evaluate-moments", str(_write(tmp_path / "gt.txt", GT)), str(pred)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, pred)
    assert "nested" in err


def test_13_numpy_runtime_warnings_do_not_reach_stderr(tmp_path):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    # a division by zero inside fireeval's scoring (the function is defined in fireeval.core.stream)
    code = ("import sys\nimport fireeval.core.stream as s\n"
            "exec('_old = score_run\\ndef score_run(*a, **k):\\n    np.array([1.0]) / np.array([0.0])\\n"
            "    return _old(*a, **k)\\n', s.__dict__)\n"
            "from fireeval.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", code, "evaluate", str(q), str(r), "-m", "map"], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
