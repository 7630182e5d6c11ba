"""Issue 14: hostile and odd inputs through the command line. Each gives the right number or a one-line
error (exit 2) naming the file and the fix: never a traceback, never a silent wrong number."""
import gzip
import json
import os
import pickle
import struct
import subprocess
import sys

import pytest

from fireeval.cli import main

GT = "A 0 10##q one.\nB 0 4##q two.\nC 2 4##q three.\n"


def _entry(vid, query, moments, ratings=None):
    return {"vid": vid, "query": query, "moments": moments, "ratings": ratings}


GOOD = [_entry("A", "q one.", [[0, 5], [0, 10]], [1, 2]), _entry("B", "q two.", [[2, 4]], [1])]


def _write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def _run(capsys, *argv):
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def _deep(n):
    return "[" * n + "]" * n


# (name, ground truth, predictions, extra args, expected message fragment); every case must exit 2.
CHARADES_ERRORS = [
    ("fewer ratings than moments", GT, {"entries": [_entry("A", "q one.", [[0, 5], [0, 10]], [1])]}, [],
     "1 ratings for 2 moments"),
    ("more ratings than moments", GT, {"entries": [_entry("A", "q one.", [[0, 5]], [1, 2, 3])]}, [],
     "3 ratings for 1 moments"),
    ("duplicate query with moments", GT, {"entries": GOOD + [_entry("A", "q one.", [[1, 2]])]}, [],
     "repeats the query of entry 1"),
    ("reversed moment", GT, {"entries": [_entry("A", "q one.", [[5, 1]])]}, [], "start after end"),
    ("NaN moment", GT, '{"entries": [{"vid": "A", "query": "q one.", "moments": [[NaN, 1]]}]}', [], "not finite"),
    ("infinite moment", GT, '{"entries": [{"vid": "A", "query": "q one.", "moments": [[0, Infinity]]}]}', [],
     "not finite"),
    ("moments not numbers", GT, {"entries": [_entry("A", "q one.", [["a", "b"]])]}, [],
     "moment 1: a time: 'a' is text, not a real number"),
    ("NaN rating", GT, '{"entries": [{"vid": "A", "query": "q one.", "moments": [[0, 1]], "ratings": [NaN]}]}', [],
     "rating is NaN"),
    ("K = 0", GT, {"entries": GOOD}, ["-m", "R@0,0.5"], "K must be an integer >= 1"),
    ("AxIoU@0", GT, {"entries": GOOD}, ["-m", "AxIoU@0"], "K must be an integer >= 1"),
    ("theta 0", GT, {"entries": GOOD}, ["-m", "R@1,0"], "θ must be in (0, 1]"),
    ("theta above 1", GT, {"entries": GOOD}, ["-m", "R@1,1.5"], "θ must be in (0, 1]"),
    ("theta malformed", GT, {"entries": GOOD}, ["-m", "R@1,0.5.5"], "R@1,0.5.5"),
    ("empty ground truth", "", {"entries": GOOD}, [], "no ground-truth lines"),
    ("blank ground truth", "\n\n  \n", {"entries": GOOD}, [], "no ground-truth lines"),
    ("duplicate ground-truth line", GT + "A 1 2##q one.\n", {"entries": GOOD}, [], "already on line 1"),
    ("reversed ground truth", "A 5 1##q one.\n", {"entries": GOOD}, [], "start after end"),
    ("NaN ground truth", "A nan 1##q one.\n", {"entries": GOOD}, [], "start 'nan' is not a plain decimal number"),
    ("no query in common", GT, {"entries": [_entry("Z", "other.", [[0, 1]])]}, [], "none of its 1 entries"),
    ("missing keys", GT, {"entries": [{"vid": "A", "moments": [[0, 1]]}]}, [], "entry 1 lacks ['query']"),
    ("no entries list", GT, {"results": []}, [], "no 'entries' list"),
    ("not JSON", GT, "{not json", [], ":1: not valid JSON"),
    ("deep JSON", GT, _deep(100_000), [], "nested too deeply"),
    ("NUL bytes", GT, b"\0" * 100_000, [], "binary data (NUL bytes)"),
    ("not UTF-8", GT, b'{"entries": ["\xff"]}', [], "not UTF-8"),
]


@pytest.mark.parametrize("name, gt, pred, extra, message", CHARADES_ERRORS, ids=[c[0] for c in CHARADES_ERRORS])
def test_charades_bad_inputs_are_one_line_errors(tmp_path, capsys, name, gt, pred, extra, message):
    status, out, err = _run(capsys, "evaluate-moments", _write(tmp_path, "gt.txt", gt),
                            _write(tmp_path, "p.json", pred), *extra)
    assert status == 2, (name, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err and message in err, err
    assert out == ""
    if not extra:
        assert "gt.txt" in err or "p.json" in err


PICKLES = [
    ("code execution", pickle.dumps(Evil()), "refusing to load global"),
    ("size bomb bytearray", b"\x80\x04cbuiltins\nbytearray\n\x8a\x05\x00\x00\x00\x00\x02\x85R.", "size bomb"),
    ("size bomb length field", b"\x80\x04\x8e" + struct.pack("<Q", 8_000_000_000) + b"xx.", "8000000000 bytes"),
    ("size bomb array", b"\x80\x04cnumpy\nndarray\n\x8a\x05\x00\x00\x00\x00\x02\x85R.", "refusing an array"),
    ("truncated", pickle.dumps([(("A", "q one."), [[0, 1]], [1])])[:-5], "p.pkl"),
    ("garbage", b"hello world", "p.pkl"),
    ("wrong layout", pickle.dumps({"a": 1}), "not the AxIoU repository's pickle layout"),
]


@pytest.mark.parametrize("name, data, message", PICKLES, ids=[c[0] for c in PICKLES])
def test_pickle_refusals_are_one_line_errors(tmp_path, capsys, name, data, message):
    status, _, err = _run(capsys, "evaluate-moments", _write(tmp_path, "gt.txt", GT), _write(tmp_path, "p.pkl", data))
    assert status == 2 and err.count("\n") == 1 and message in err and "p.pkl" in err, err


def test_every_prediction_is_read_not_only_ten(tmp_path, capsys):
    # 14 moments far away, the right one at rank 15: R@20,0.5 = 1 and AxIoU@20 = 6/20.
    moments = [[50 + i, 51 + i] for i in range(14)] + [[0, 10]]
    pred = {"entries": [_entry("A", "q one.", moments)]}
    status, out, _ = _run(capsys, "evaluate-moments", _write(tmp_path, "gt.txt", "A 0 10##q one.\n"),
                          _write(tmp_path, "p.json", pred), "-m", "R@20,0.5", "-m", "AxIoU@20", "-m", "R@10,0.5",
                          "-m", "AxIoU@40")
    got = {line.split("\t")[0].strip(): float(line.split("\t")[2]) for line in out.splitlines()}
    assert status == 0 and got == {"R@20,0.5": 1.0, "AxIoU@20": 0.3, "R@10,0.5": 0.0, "AxIoU@40": 0.65}


def test_bom_crlf_and_blank_lines_accepted(tmp_path, capsys):
    plain = _run(capsys, "evaluate-moments", _write(tmp_path, "gt.txt", GT), _write(tmp_path, "p.json", {"entries": GOOD}))
    odd_gt = "\ufeff" + GT.replace("\n", "\r\n") + "\r\n\n  \n"
    odd = _run(capsys, "evaluate-moments", _write(tmp_path, "gt2.txt", odd_gt),
               _write(tmp_path, "p2.json", "\ufeff" + json.dumps({"entries": GOOD}) + "\n\n"))
    assert plain[0] == odd[0] == 0 and plain[1] == odd[1]


QV_GT = [{"qid": 1, "relevant_windows": [[0, 10]]}, {"qid": 2, "relevant_windows": [[0, 4], [6, 8]]}]
QV_PRED = [{"qid": 1, "pred_relevant_windows": [[0, 10, 0.9]]}, {"qid": 2, "pred_relevant_windows": [[6, 8, 0.5]]}]


def _jsonl(records, bom=False):
    return ("\ufeff" if bom else "") + "".join(json.dumps(r) + "\n" for r in records) + "\n\n"


QV_ERRORS = [
    ("duplicate ground-truth qid", QV_GT + [{"qid": 1, "relevant_windows": [[1, 2]]}], QV_PRED, "qid 1 is already on line 1"),
    ("duplicate predicted qid", QV_GT, QV_PRED + [QV_PRED[0]], "qid 1 is already on line 1"),
    ("reversed window", [{"qid": 1, "relevant_windows": [[5, 1]]}], QV_PRED, "start after end"),
    ("reversed prediction", QV_GT, [{"qid": 1, "pred_relevant_windows": [[5, 1, 0.2]]}], "start after end"),
    ("no relevant_windows key", [{"qid": 1}], QV_PRED, "has no 'relevant_windows'"),
    ("no qid", [{"relevant_windows": [[0, 1]]}], QV_PRED, "has no 'qid'"),
    ("no window at all", [{"qid": 1, "relevant_windows": []}], QV_PRED, "no query has a relevant window"),
    ("no qid in common", QV_GT, [{"qid": 9, "pred_relevant_windows": [[0, 1, 1]]}], "none of its 1 entries"),
    ("not an object", QV_GT, [[1, 2]], "expected a JSON object"),
]


@pytest.mark.parametrize("name, gt, pred, message", QV_ERRORS, ids=[c[0] for c in QV_ERRORS])
def test_qvhighlights_bad_inputs_are_one_line_errors(tmp_path, capsys, name, gt, pred, message):
    status, _, err = _run(capsys, "evaluate-moments", _write(tmp_path, "gt.jsonl", _jsonl(gt)),
                          _write(tmp_path, "p.jsonl", _jsonl(pred)))
    assert status == 2 and err.count("\n") == 1 and message in err and ".jsonl" in err, err


def test_qvhighlights_empty_windows_left_out_with_a_warning(tmp_path, capsys):
    gt = QV_GT + [{"qid": 3, "relevant_windows": []}]
    status, out, err = _run(capsys, "evaluate-moments", _write(tmp_path, "gt.jsonl", _jsonl(gt, bom=True)),
                            _write(tmp_path, "p.jsonl", _jsonl(QV_PRED)), "-m", "R@1,0.5")
    assert status == 0 and "1 of 3 queries have no relevant window" in err
    assert out == "R@1,0.5   \tall\t1.0000\n"


def _trec(tmp_path):
    q = _write(tmp_path, "qrels", "1 0 a 1\n1 0 b 0\n")
    r = _write(tmp_path, "run", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    return q, r


@pytest.mark.parametrize("case", ["truncated gzip", "corrupt gzip", "directory", "missing"])
def test_trec_file_errors_are_one_line(tmp_path, capsys, case):
    q, r = _trec(tmp_path)
    data = gzip.compress(open(r, "rb").read())
    bad = {"truncated gzip": lambda: _write(tmp_path, "run.gz", data[:20]),
           "corrupt gzip": lambda: _write(tmp_path, "run.gz", data[:10] + b"\xff" * 20 + data[30:]),
           "directory": lambda: str(tmp_path), "missing": lambda: str(tmp_path / "nope")}[case]()
    status, out, err = _run(capsys, "evaluate", q, bad, "-m", "map")
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err and ("run.gz" in err or str(tmp_path) in err), err


def test_directory_and_missing_files_for_moments(tmp_path, capsys):
    gt = _write(tmp_path, "gt.txt", GT)
    for bad, message in ((str(tmp_path), "is a directory"), (str(tmp_path / "nope.json"), "no such file")):
        status, _, err = _run(capsys, "evaluate-moments", gt, bad)
        assert status == 2 and message in err and err.count("\n") == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files without read permission")
def test_unreadable_file(tmp_path, capsys):
    gt = _write(tmp_path, "gt.txt", GT)
    pred = _write(tmp_path, "p.json", {"entries": GOOD})
    os.chmod(pred, 0)
    status, _, err = _run(capsys, "evaluate-moments", gt, pred)
    assert status == 2 and "permission denied" in err.lower()


def test_internal_error_is_one_line_with_status_1(monkeypatch, capsys):
    from fireeval.core import moments

    monkeypatch.setattr(moments, "measure_function", lambda *a, **k: 1 / 0)
    status, _, err = _run(capsys, "evaluate-moments", "x", "y")
    assert status == 1 and "internal error ZeroDivisionError" in err and err.count("\n") == 1


def test_broken_pipe_is_quiet(tmp_path):
    gt = _write(tmp_path, "gt.txt", "".join(f"V{i} 0 10##q{i}.\n" for i in range(3000)))
    pred = _write(tmp_path, "p.json", {"entries": [_entry(f"V{i}", f"q{i}.", [[0, 5]]) for i in range(3000)]})
    cmd = f"{sys.executable} -m fireeval evaluate-moments {gt} {pred} -q | head -1"
    result = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)
    assert result.stdout.count("\n") == 1 and "Traceback" not in result.stderr and "Error" not in result.stderr
    assert result.returncode == 0, result.stderr


def test_offline_download_failure_is_data_unavailable(monkeypatch, tmp_path):
    import pooch

    from fireeval.datasets import DataUnavailable, _download, registry

    def offline(*args, **kwargs):
        raise ConnectionError("Failed to establish a new connection: [Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(pooch, "retrieve", offline)
    name = next(n for n, r in registry().items() if r.get("url"))
    with pytest.raises(DataUnavailable, match="download from .* failed .*Fix: connect to the network"):
        _download(name, registry()[name])


@pytest.mark.parametrize("command", [["--help"], ["evaluate-moments"], ["evaluate-moments", "--help"]])
def test_start_up_imports_no_pandas(tmp_path, command):
    """`fireeval --help` and `evaluate-moments` (issue 13) import neither pandas nor pyarrow, nor the
    other subcommands' modules; checked in a fresh interpreter running the command line."""
    gt = _write(tmp_path, "gt.txt", GT)
    pred = _write(tmp_path, "p.json", {"entries": GOOD})
    argv = command + [gt, pred] if command == ["evaluate-moments"] else command
    code = ("import sys\nfrom fireeval.cli import main\n"
            "try:\n    status = main(sys.argv[1:])\nexcept SystemExit as done:\n    status = done.code\n"
            "assert status == 0, status\n"
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('pandas', 'pyarrow') "
            "or m.startswith('fireeval.cli.')))\n")
    result = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.split("\n")[-2].split()  # the last line: after the command's own output
    assert not [m for m in loaded if m.startswith(("pandas", "pyarrow"))], loaded
    if command[0] == "evaluate-moments":
        assert loaded == ["fireeval.cli.evaluate_moments"], loaded


def test_one_subcommand_parser_says_what_the_full_parser_says(capsys):
    """main() builds only the invoked subcommand's parser: help and usage errors read the same."""
    from fireeval import cli

    for name in cli.COMMANDS:
        full, lazy = cli.build_parser(), cli.build_parser(name)
        for argv in ([name, "--help"], [name], [name, "a", "b", "c", "d", "--no-such-option"]):
            said = []
            for parser in (full, lazy):
                with pytest.raises(SystemExit) as done:
                    parser.parse_args(argv)
                out = capsys.readouterr()
                said.append((done.value.code, out.out, out.err))
            assert said[0] == said[1], argv
    assert "evaluate-moments" in cli.build_parser().format_help()


def test_fast_alignment_equals_the_checked_path():
    """charades.align_predictions (all entries at once) and _align_checked (one by one) agree on valid input."""
    import numpy as np

    from fireeval.datasets import charades

    rng = np.random.default_rng(0)
    rows = [(f"V{i}", f"q{i}.", 0.0, 10.0) for i in range(60)]
    entries = []
    for i in rng.permutation(70):  # 10 unknown queries
        n = int(rng.integers(0, 14))
        starts = rng.uniform(0, 20, n)
        moments = [[s, s + w, 30.0] for s, w in zip(starts, rng.uniform(0, 5, n))] if n else None
        ratings = None if rng.random() < 0.3 else rng.integers(0, 4, n).astype(float).tolist()  # ties
        entries.append((f"V{i}", f"q{i}.", moments, ratings))
        if rng.random() < 0.1:
            entries.append((f"V{i}", f"q{i}.", None, None))  # an empty duplicate never counts
    for k in (None, 1, 5, 20):
        fast, fast_info = charades.align_predictions(entries, rows, k)
        slow, slow_info = charades._align_checked(entries, rows, k)
        np.testing.assert_array_equal(fast, slow)
        assert fast_info == slow_info


@pytest.mark.parametrize("command", ["evaluate-moments", "evaluate"])
def test_commands_leave_the_environment_as_they_found_it(tmp_path, command):
    """evaluate-moments and evaluate load numpy with one BLAS thread (no linear algebra there) but
    leave no OPENBLAS_NUM_THREADS behind, and keep a value the user set."""
    if command == "evaluate":
        gt = _write(tmp_path, "q.txt", "1 0 a 1\n")
        pred = _write(tmp_path, "r.txt", "1 Q0 a 1 2.0 t\n")
    else:
        gt = _write(tmp_path, "gt.txt", GT)
        pred = _write(tmp_path, "p.json", {"entries": GOOD})
    code = ("import io, os, sys, contextlib\nfrom fireeval.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main([{command!r}, sys.argv[1], sys.argv[2]]) == 0\n"
            "import numpy\nfrom threadpoolctl import threadpool_info\n"
            "print(os.environ.get('OPENBLAS_NUM_THREADS'), [p['num_threads'] for p in threadpool_info() "
            "if p['internal_api'] == 'openblas'])\n")
    # one BLAS thread unless the user chose (OpenBLAS caps a choice at the number of cores)
    for env, expected in ((None, "None [1]"), ("3", f"3 [{min(3, os.cpu_count())}]")):
        environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        if env:
            environ["OPENBLAS_NUM_THREADS"] = env
        result = subprocess.run([sys.executable, "-c", code, gt, pred], capture_output=True, text=True, env=environ)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == expected
