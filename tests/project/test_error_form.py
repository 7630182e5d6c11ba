"""Every error of the command line has the promised form (README "Errors", issue 27):
``fireeval COMMAND: FILE:LINE: what is wrong. Fix: what to do`` on one line, exit status 2.

Three walks: the raise statements of the command modules (each carries a fix), the message
builder over every kind of exception a command can raise, and the command line itself over a
catalogue of failing invocations of every subcommand (the bad-input cases of the other tests).
"""
import ast
import gzip
import json
import pickle
import re
import struct
from pathlib import Path

import pytest

from fireeval import cli
from fireeval.cli import ERROR_FORM, error_message

from test_bad_inputs import CHARADES_ERRORS, PICKLES, QV_ERRORS, _jsonl

LINE = re.compile(r"fireeval (?P<command>[a-z-]+): (?P<rest>.+)\n")
CLI = Path(cli.__file__).parent


def assert_form(err: str, command: str):
    """One line, ``fireeval COMMAND: WHERE: what. Fix: fix``."""
    line = LINE.fullmatch(err)
    assert line, f"not one 'fireeval COMMAND: ...' line: {err!r}"
    assert line["command"] == command, err
    assert ERROR_FORM.fullmatch(line["rest"]), f"not 'WHERE: what is wrong. Fix: what to do': {err!r}"
    assert "Traceback" not in err


# ---------------------------------------------------------------- 1. the raise statements of fireeval/cli
def _raises(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            yield node.lineno, node.exc.args[0]


def test_every_raise_in_the_command_modules_says_the_fix():
    missing = []
    for path in sorted(CLI.glob("*.py")):
        for lineno, message in _raises(path):
            text = ast.unparse(message)
            names = {n.id for n in ast.walk(message) if isinstance(n, ast.Name)}
            if "Fix:" not in text and not names & {"fix", "_HELP"} and "ArgumentTypeError" not in text:
                missing.append(f"{path.name}:{lineno}: {text[:80]}")
    assert not missing, missing


# ---------------------------------------------------------------- 2. the message builder, every exception kind
class _Args:
    command = "evaluate"
    qrels, runs = "q.txt", ["r.txt"]


EXCEPTIONS = [
    ValueError("bad value"), ValueError("q.txt:3: relevance 'x' is not an integer. Fix: write an integer"),
    KeyError("query"), KeyError("no such system"), LookupError("unknown kernel"), RuntimeError("chapter failed"),
    FileNotFoundError(2, "No such file or directory", "q.txt"), PermissionError(13, "Permission denied", "r.txt"),
    IsADirectoryError(21, "Is a directory", "r.txt"), OSError("Not a gzipped file (b'ab')"), EOFError("ended"),
    pickle.UnpicklingError("refusing"), MemoryError(), RecursionError(), TypeError("internal"), ZeroDivisionError(),
]


@pytest.mark.parametrize("err", EXCEPTIONS, ids=[type(e).__name__ + str(i) for i, e in enumerate(EXCEPTIONS)])
def test_every_kind_of_exception_comes_out_in_the_form(err):
    message, status = error_message(err, _Args())
    assert ERROR_FORM.fullmatch(message), message
    assert status == (1 if isinstance(err, (TypeError, ZeroDivisionError)) else 2)


# ---------------------------------------------------------------- 3. the command line, failing on purpose
QRELS, RUN = "1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"
GT = "A 0 10##q one.\nB 0 4##q two.\n"


def _file(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _evaluate_cases(t):
    q, r = _file(t, "q.txt", QRELS), _file(t, "r.txt", RUN)
    return [
        [q, str(t / "missing.txt")], [q, str(t)], [q, _file(t, "empty.txt", "")], [q, _file(t, "blank.txt", "\n \n")],
        [q, _file(t, "cols.txt", "1 Q0 a 1 2\n")], [q, _file(t, "score.txt", "1 Q0 a 1 x t\n")],
        [q, _file(t, "dup.txt", "1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n")], [_file(t, "g.txt", "1 0 a 1e1\n"), r],
        [_file(t, "gdup.txt", "1 0 a 1\n1 0 a 0\n"), r], [q, _file(t, "nul.txt", RUN.encode() + b"\0\n")],
        [q, _file(t, "bad.gz", b"\x1f\x8b" + b"junk" * 10)], [q, _file(t, "trunc.gz", gzip.compress(RUN.encode())[:-8])],
        [_file(t, "q0.txt", "0401 0 a 1\n"), _file(t, "r401.txt", "401 Q0 a 1 1 t\n")],
        [q, r, "-m", "frobnicate"], [q, r, "-m", "P.0"], [q, r, "-m", "set_F.x"], [q, r, "-m", "rbp"],
        [q, r, "-m", "utility.1,2"], [q, r, "-l", "x"], [q, r, "-M", "-1"], [q, r, "--format", "xml"],
        [q, r, "--trec-eval", "8"], [q, r, "--no-such-option"], [q],
        [_file(t, "q2.txt", QRELS + "2 0 c 1\n"), r, "--trec-eval", "10.0"],
    ]


def _moments_cases(t):
    cases = []
    for i, (_, gt, pred, extra, _) in enumerate(CHARADES_ERRORS):
        pred = pred if isinstance(pred, (str, bytes)) else json.dumps(pred)
        cases.append([_file(t, f"gt{i}.txt", gt), _file(t, f"p{i}.json", pred), *extra])
    for i, (_, data, _) in enumerate(PICKLES):
        cases.append([_file(t, "gtp.txt", GT), _file(t, f"p{i}.pkl", data)])
    for i, (_, gt, pred, _) in enumerate(QV_ERRORS):
        cases.append([_file(t, f"qg{i}.jsonl", _jsonl(gt)), _file(t, f"qp{i}.jsonl", _jsonl(pred))])
    memo = b"\x80\x02N" + b"r" + struct.pack("<I", 2**28) + b"."
    cases.append([_file(t, "gtm.txt", GT), _file(t, "memo.pkl", memo)])
    cases.append([_file(t, "gtn.txt", GT), str(t / "missing.json")])
    cases.append([_file(t, "gtk.txt", GT), _file(t, "pk.json", json.dumps({"entries": []})), "-m", "AxIoU@x"])
    return cases


def _audit_cases(t):
    q, r = _file(t, "aq.txt", QRELS), _file(t, "ar.txt", RUN)
    return [[q, str(t / "none.txt")], [q, r, "--pool-depth", "0"], [q, r, "--max-loss", "nan"],
            [q, r, "--pooled", "x"], [q, r, "--runs", r, "--groups", _file(t, "g.tsv", b"")],
            [q, r, "--runs", r, "--pooled-from", _file(t, "p.tsv", "run\tpooled\nt\tmaybe\n")],
            [q, r, "--runs", r, "--groups", _file(t, "l1.tsv", b"run\tgroup\nr\xe9\tg\n")]]


def _run_cases(t):
    return [["no_such_chapter"], ["metrics", "--output", ""], ["metrics", "-p", "no_such_parameter", "1"],
            ["metrics", "-p", "data_source", "'elsewhere'"]]


@pytest.mark.parametrize("command, cases", [("evaluate", _evaluate_cases), ("evaluate-moments", _moments_cases),
                                            ("audit", _audit_cases), ("run", _run_cases)])
def test_every_failing_invocation_prints_one_line_in_the_form(tmp_path, capsys, command, cases):
    seen = 0
    for argv in cases(tmp_path):
        status = cli.main([command, *argv])
        out, err = capsys.readouterr()
        assert status == 2, (argv, status, err)
        assert out == "", argv
        assert_form(err, command)
        seen += 1
    assert seen >= 4
