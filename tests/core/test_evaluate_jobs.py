"""Scoring runs in worker processes (``fireeval evaluate --jobs N``, ``evaluate(..., jobs=N)``) changes nothing
a user sees: the same bytes on stdout and stderr, the same exit status, the same first error."""
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from fireeval import cli
from fireeval.core.api import evaluate, iter_run_scores
from fireeval.core.trec import TrecFormatError, map_in_workers

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes are forked")


def _trec8_like(tmp_path, seed, n_runs=7):
    """Qrels and runs shaped like TREC-8's (topics 401.., ranked lists with ties, most documents unjudged),
    small; run 2 retrieves topics without judgements (a warning), runs 3 and 5 share a tag."""
    rng = np.random.default_rng(seed)
    topics = [str(401 + t) for t in range(12)]
    lines = []
    for t in topics:
        judged = rng.choice(400, size=60, replace=False)
        lines += [f"{t} 0 FT{d:05d} {g}\n" for d, g in zip(judged, rng.choice([0, 0, 0, 1, 2], 60))]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(lines))
    runs = []
    for r in range(n_runs):
        tag = "shared" if r in (3, 5) else f"run{r}"
        chosen = topics + (["999", "998"] if r == 2 else [])
        rows = []
        for t in chosen:
            docs = rng.choice(400, size=int(rng.integers(5, 120)), replace=False)
            scores = np.round(rng.random(len(docs)), 1)  # ties: broken by docno, as trec_eval does
            rows += [f"{t} Q0 FT{d:05d} {i} {s:g} {tag}\n" for i, (d, s) in enumerate(zip(docs, scores))]
        path = tmp_path / f"input.{r}"
        path.write_text("".join(rows))
        runs.append(path)
    return qrels, runs


def _cli(capsys, argv):
    status = cli.main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("extra", [[], ["-q", "-m", "all_trec"], ["--format", "tsv", "-c"], ["--format", "json"]])
def test_workers_print_the_same_bytes_as_one_process(tmp_path, capsys, seed, extra):
    qrels, runs = _trec8_like(tmp_path, seed)
    argv = ["evaluate", *extra, str(qrels), *map(str, runs)]
    one = _cli(capsys, argv + ["--jobs", "1"])
    assert one[0] == 0 and "warning:" in one[2] and one[1]  # (the warning of run 2 is part of what is compared)
    for jobs in ("2", "3", "16"):
        assert _cli(capsys, argv + ["--jobs", jobs]) == one


@pytest.mark.parametrize("bad_run", [0, 3, 6])
@pytest.mark.parametrize("problem", ["short line", "no judged topic"])
def test_a_bad_run_fails_at_its_place_with_the_same_line(tmp_path, capsys, bad_run, problem):
    qrels, runs = _trec8_like(tmp_path, 7)
    if problem == "short line":
        lines = runs[bad_run].read_text().splitlines(keepends=True)
        lines[4] = "401 Q0 FT00001 5 0.5\n"  # five fields: fails naming the file and line 5
        runs[bad_run].write_text("".join(lines))
    else:
        runs[bad_run].write_text("777 Q0 FT00001 1 0.5 x\n")
    argv = ["evaluate", str(qrels), *map(str, runs)]
    one = _cli(capsys, argv + ["--jobs", "1"])
    assert one[0] != 0 and str(runs[bad_run]) in one[2] and one[2].count("\n") == 1 + (bad_run > 2)
    assert one[1].count("runid") == bad_run  # the runs before it, nothing after
    if problem == "short line":
        assert f"{runs[bad_run]}:5:" in one[2]
    for jobs in ("2", "4"):
        assert _cli(capsys, argv + ["--jobs", jobs]) == one


def test_the_program_with_workers_writes_the_same_and_leaves_no_process(tmp_path):
    qrels, runs = _trec8_like(tmp_path, 1, n_runs=4)
    base = [sys.executable, "-m", "fireeval", "evaluate", "-q", str(qrels), *map(str, runs)]
    one = subprocess.run(base + ["--jobs", "1"], capture_output=True, text=True)
    two = subprocess.run(base + ["--jobs", "2"], capture_output=True, text=True)
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
    assert one.returncode == 0 and len(one.stdout) > 8192
    bad = subprocess.run(base[:-1] + ["--jobs", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--jobs '0'" in bad.stderr and bad.stderr.count("\n") <= 3


def test_api_jobs_give_the_same_results(tmp_path):
    qrels, runs = _trec8_like(tmp_path, 2)
    with warnings.catch_warnings(record=True) as said_one:
        warnings.simplefilter("always")
        one = evaluate(str(qrels), [str(r) for r in runs], ["map", "P@10", "ndcg_cut_10"], per_topic=True,
                       output="dict", jobs=1)
    with warnings.catch_warnings(record=True) as said_two:
        warnings.simplefilter("always")
        two = evaluate(str(qrels), [str(r) for r in runs], ["map", "P@10", "ndcg_cut_10"], per_topic=True,
                       output="dict", jobs=2)
    assert one == two and list(one) == list(two)
    assert [str(w.message) for w in said_one] == [str(w.message) for w in said_two] != []
    names = [name for name, _, _ in iter_run_scores(str(qrels), [str(r) for r in runs], "map", jobs=None)]
    assert names == list(one)  # the second "shared" run is named by its path, in both
    with pytest.raises(ValueError, match="jobs must be a whole number >= 1"):
        evaluate(str(qrels), str(runs[0]), "map", jobs=0)


def _children() -> list[str]:
    """This process's child processes, running or not yet reaped, but the test session's kernel fork server
    (tests/conftest.py), which lives as long as the session."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"forked_kernels import _serve" not in cmdline:
            found.append(f"{stat.parent.name} ({fields[0]})")
    return found


def _fails_on_three(x):
    if x == 3:
        raise TrecFormatError("f.txt", 3, "bad", "fix it")
    warnings.warn(f"item {x}", UserWarning)
    return x * x


def test_map_in_workers_is_map_with_errors_and_warnings_in_order():
    got = []
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with pytest.raises(TrecFormatError) as err:
            for value in map_in_workers(_fails_on_three, range(8), 3):
                got.append(value)
    assert got == [0, 1, 4] and [str(w.message) for w in said] == ["item 0", "item 1", "item 2"]
    assert (err.value.path, err.value.line, str(err.value)) == ("f.txt", 3, "f.txt:3: bad. Fix: fix it")
    assert list(map_in_workers(abs, [-2, -1, 5], 2)) == [2, 1, 5] == list(map_in_workers(abs, [-2, -1, 5], 1))
    stopped = map_in_workers(abs, range(-50, 0), 2)
    assert next(stopped) == 50
    stopped.close()  # the caller stops early: the workers are ended and reaped
    assert not _children()


def test_api_jobs_with_runs_in_memory_and_trec_eval_10():
    rng = np.random.default_rng(5)
    qrels = {f"q{t}": {f"d{d}": int(rng.integers(0, 3)) for d in range(0, 40, 3)} for t in range(5)}
    runs = {f"r{i}": {f"q{t}": {f"d{d}": float(rng.integers(0, 6)) for d in rng.choice(40, 15, replace=False)}
                      for t in range(4 + i % 2)} for i in range(5)}
    for version in ("9.0.7", "10.0"):
        one = evaluate(qrels, runs, ["map", "bpref", "iprec_at_recall_0.10"], per_topic=True, output="dict",
                       complete=True, trec_eval_version=version, jobs=1)
        assert evaluate(qrels, runs, ["map", "bpref", "iprec_at_recall_0.10"], per_topic=True, output="dict",
                        complete=True, trec_eval_version=version, jobs=3) == one
        assert list(one) == list(runs)


def _workers_die(x):
    import time

    if os.getpid() != _PARENT[0]:
        os._exit(9)  # a worker killed (out of memory, kill -9) after taking an item: no result, no error
    time.sleep(0.05)  # (slow enough that the workers take items before this process has done them all)
    return x


_PARENT = [os.getpid()]


def test_work_goes_to_whoever_is_free_and_a_dead_worker_is_named():
    """Workers take the next item when they finish one (a slow item does not hold the others back),
    results still come in order, and a worker that dies without reporting stops the map with a
    message naming the way out, not a hang."""
    import time

    def slow_first(x):
        if x == 0:
            time.sleep(1.0)
        return os.getpid()

    pids = list(map_in_workers(slow_first, range(12), 2))
    # while one process is on the slow item, the other takes every item handed out (the next 7 of a window
    # of 8), not every second one
    assert pids[0] not in pids[1:8] and len(set(pids[1:8])) == 1
    _PARENT[0] = os.getpid()
    with pytest.raises(RuntimeError, match="ended without a result .* Fix: run again with one job"):
        list(map_in_workers(_workers_die, range(10), 3))
    assert not _children()  # every worker reaped
