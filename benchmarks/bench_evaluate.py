"""Benchmark ``fireeval evaluate`` against pytrec_eval and the trec_eval 9.0.7 binary (issue 26), whole process.

    .venv/bin/python benchmarks/bench_evaluate.py [--data DIR] [--trec-eval PATH] [--repeats 3] [--runs N] [--quick]

Measures: trec_eval's default set, ``official`` (runid num_q num_ret num_rel num_rel_ret map
gm_map Rprec bpref recip_rank iprec_at_recall_* P_5 ... P_1000), on every side: trec_eval with no
``-m``, ``fireeval evaluate -m official``, pytrec_eval with the same measures (its
``num_q``/``runid`` lines are made by the script). The TREC-8 runs and qrels are gunzipped
once into a temporary folder and every side reads the same plain files.

1. one TREC-8 run (input.AntHoc1): ``fireeval evaluate -m official QRELS RUN`` against a
   pytrec_eval script (parse_qrel, parse_run, evaluate, print the means); trec_eval beside.
   Target: time <= 0.8x pytrec_eval's, peak memory <= 1.2x.
2. all 129 runs: ``fireeval evaluate -m official QRELS RUN1 ... RUN129`` (one command, as a user runs
   it), with ``--jobs 1`` (one process, scoring the runs in turn) and with the default (``--jobs`` =
   every core this process may use: the runs are read and scored in forked worker processes that share
   the qrels index read once), against
   (a) a pytrec_eval loop, one Python process scoring the 129 runs in turn (qrels parsed once), and
   (b) a shell loop of 129 trec_eval invocations (``sh -c 'for r; do trec_eval QRELS $r; done'``).
   Target: <= 0.3x each, in wall time of the whole command.

What each side includes: fireeval = interpreter start-up, imports, reading and validating the qrels
and every run, ordering, scoring, printing (and with workers: forking them, their reading and scoring,
sending each run's results back); the pytrec_eval side = interpreter start-up, importing pytrec_eval,
parse_qrel, and per run parse_run + evaluate + the means printed; the trec_eval side = 129 processes
(sh and trec_eval start-up, reading the qrels 129 times, each run, printing). Case 2's figures are of
the whole process tree (``os.wait4`` on the command: the CPU time, user + sys, includes every
descendant); wall time is the target's figure, CPU time beside it (the machine is shared: the load
average is printed with each figure; Linux's autogroup scheduler gives one command the same share of
a busy machine whether it runs one process or two, so there workers cannot shorten the wall time
much). Peak memory: the largest single process (``ru_maxrss``) and, for the whole tree, the largest sum over the processes
alive at once of each one's peak resident memory (VmHWM sampled from /proc every 10 ms; pages the
workers share copy-on-write with the parent are counted in each, so this is an upper bound). Case 1 uses
``_timing.run`` (median of --repeats; CPU time of the command and its children). In-process figures
exclude imports. Every run's per-topic values are checked against pytrec_eval's to 1e-9, and
fireeval's output (with --jobs 1 and the default) is compared byte for byte with trec_eval's when the
binary is there. The trec_eval binary is never downloaded: without it (``--trec-eval PATH``,
``$TREC_EVAL`` or ``trec_eval`` on PATH) those figures are skipped, saying so.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402

#: trec_eval's default measures as pytrec_eval names them (runid and num_q are the script's)
PYTREC_OFFICIAL = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                   "iprec_at_recall", "P")
PYTREC_SCRIPT = '''import math, sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[2].split(",")))
for path in sys.argv[3:]:
    with open(path) as f: res = evaluator.evaluate(pytrec_eval.parse_run(f))
    n = len(res)
    print(f"num_q\\tall\\t{n}")
    for m in next(iter(res.values())):
        mean = sum(r[m] for r in res.values()) / n
        print(f"{m:<22}\\tall\\t{math.exp(mean) if m == 'gm_map' else mean:.4f}")
'''


def _show(figures: _timing.Figures) -> str:
    return f"{figures.cpu:6.2f} s cpu, {figures.wall:6.2f} s wall, {figures.peak_mb:5.0f} MB peak"


def _load() -> str:
    return _timing.load()


def _ratio(ours: _timing.Figures, peer: _timing.Figures) -> str:
    return (f"cpu {ours.cpu / peer.cpu:4.2f}x, wall {ours.wall / peer.wall:4.2f}x, "
            f"peak memory {ours.peak_mb / peer.peak_mb:4.2f}x")


_TREE_WRAPPER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
err = child.stderr.read()
_, status, use = os.wait4(child.pid, 0)
print(json.dumps({"wall": time.perf_counter() - start, "cpu": use.ru_utime + use.ru_stime,
                  "peak_mb": use.ru_maxrss / 1024, "returncode": os.waitstatus_to_exitcode(status),
                  "stderr": err[-3000:]}))
"""


def _tree_run(cmd):
    """``(Figures, tree_mb, load)`` of one run of ``cmd``: wall, CPU of the whole process tree (os.wait4),
    the largest single process's peak memory, the largest sum over the processes alive at once of each
    one's peak (VmHWM, sampled every 10 ms), and the 1-minute load average when it ended."""
    peak, done = [0], threading.Event()

    def descendants(pid):
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as fh:
                kids = [int(k) for k in fh.read().split()]
        except OSError:
            return []
        return kids + [d for k in kids for d in descendants(k)]

    def sample(root):
        while not done.is_set():
            total = 0  # the processes alive now: each one's peak so far (VmHWM), summed
            for pid in descendants(root):  # (the wrapper itself is not counted)
                try:
                    with open(f"/proc/{pid}/status") as fh:
                        total += next((int(line.split()[1]) for line in fh if line.startswith("VmHWM:")), 0)
                except (OSError, ValueError):
                    pass
            peak[0] = max(peak[0], total)
            done.wait(0.01)

    # (through a small wrapper, as _timing.run: a child forked from this process would inherit its peak memory)
    wrapper = subprocess.Popen([sys.executable, "-c", _TREE_WRAPPER, *map(str, cmd)], stdout=subprocess.PIPE,
                               text=True, cwd=_timing.ROOT)
    watcher = threading.Thread(target=sample, args=(wrapper.pid,), daemon=True)
    watcher.start()
    got = json.loads(wrapper.communicate()[0])
    done.set()
    watcher.join()
    if got["returncode"]:
        raise SystemExit(f"{' '.join(map(str, cmd[:6]))} ... failed (exit {got['returncode']}):\n{got['stderr']}")
    tree = max(peak[0] / 1024, got["peak_mb"])
    return _timing.Figures(got["wall"], got["cpu"], got["peak_mb"]), tree, os.getloadavg()[0]


def _show_tree(figures, tree, load) -> str:
    return (f"{figures.wall:6.2f} s wall, {figures.cpu:6.2f} s cpu, peak {figures.peak_mb:4.0f} MB largest "
            f"process, {tree:4.0f} MB whole tree   (load {load:.1f})")


def _best(cmd, repeats) -> _timing.Figures:
    """Median CPU and wall, and peak memory, of ``repeats`` runs of ``cmd``."""
    runs = [_timing.run(cmd) for _ in range(repeats)]
    return _timing.Figures(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
                           max(r.peak_mb for r in runs))


def _find_trec_eval(given):
    path = given or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not path or not Path(path).exists():
        print("trec_eval: SKIPPED, no binary (give --trec-eval PATH, set $TREC_EVAL, or put trec_eval on PATH; "
              "it is never downloaded. To build 9.0.7: git clone https://github.com/usnistgov/trec_eval; "
              "git checkout v9.0.7; make)")
        return None
    said = subprocess.run([path, "-v"], capture_output=True, text=True)
    text = (said.stdout + said.stderr).strip()
    if "9.0.7" not in text:
        print(f"trec_eval: SKIPPED, {path} says {text!r}, not 9.0.7 (the version the target names)")
        return None
    print(f"peer: {text} ({path})")
    return path


def _gunzip(source: Path, target: Path) -> Path:
    with gzip.open(source, "rb") as fh:
        target.write_bytes(fh.read())
    return target


def _in_process(qrels_path, run_paths):
    """Read + score in this process for fireeval and pytrec_eval; checks every per-topic value to 1e-9."""
    import numpy as np
    import pytrec_eval

    from fireeval.core.evaluation import parse_measures
    from fireeval.core.stream import QrelsIndex, score_run
    from fireeval.core.trec import read_run_table

    measures = parse_measures("official", printing=True)
    t0 = time.process_time()
    qrels = QrelsIndex.read(qrels_path)
    ours = [score_run(read_run_table(p), qrels, measures) for p in run_paths]
    t_ours = time.process_time() - t0
    t0 = time.process_time()
    with open(qrels_path) as fh:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh), set(PYTREC_OFFICIAL))
    theirs = []
    for p in run_paths:
        with open(p) as fh:
            theirs.append(evaluator.evaluate(pytrec_eval.parse_run(fh)))
    t_theirs = time.process_time() - t0
    worst, compared = 0.0, set()
    for mine, peer in zip(ours, theirs):
        assert sorted(peer) == sorted(mine.topics), "different evaluation topics"
        for m, values in mine.values.items():
            first = peer[mine.topics[0]]
            if m in first and m != "gm_map":  # (pytrec_eval reports gm_map per topic as a log)
                compared.add(m)
                worst = max(worst, float(np.abs(values - [peer[t][m] for t in mine.topics]).max()))
        gm = np.exp(np.mean([peer[t]["gm_map"] for t in mine.topics]))
        worst = max(worst, abs(gm - mine.summary()["gm_map"]))
    print(f"  in process (read + score, imports excluded; cpu): fireeval {t_ours:6.2f} s   pytrec_eval "
          f"{t_theirs:6.2f} s   ratio {t_ours / t_theirs:4.2f}x   max |difference| {worst:.1e} over "
          f"{len(compared) + 1} measures x topics x {len(run_paths)} run(s)")
    assert worst <= 1e-9, f"fireeval and pytrec_eval differ by {worst}"


def _same_as_trec_eval(fireeval, trec_eval, qrels, runs):
    ours = subprocess.run(fireeval + [qrels] + runs, capture_output=True, text=True, check=True).stdout
    theirs = "".join(subprocess.run([trec_eval, qrels, r], capture_output=True, text=True, check=True).stdout
                     for r in runs)
    same = ours == theirs
    print(f"  output: fireeval's lines {'equal' if same else 'DIFFER FROM'} trec_eval 9.0.7's, byte for byte "
          f"({len(runs)} run(s), {len(theirs.splitlines())} lines)")
    assert same, "fireeval's output differs from trec_eval's"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="data root holding trec8_adhoc/")
    parser.add_argument("--trec-eval", default=None, dest="trec_eval", help="the trec_eval 9.0.7 binary")
    parser.add_argument("--repeats", type=int, default=3, help="whole-process runs of the one-run case (median)")
    parser.add_argument("--runs", type=int, default=None, help="score only the first N runs in case 2")
    parser.add_argument("--quick", action="store_true", help="3 runs, one repeat: seconds, to see that the script "
                                                              "works (not figures to report)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.repeats = 3, 1

    from fireeval.datasets import data_path, trec8

    print(_timing.byte_compile())
    _timing.header()
    print(f"peers: pytrec_eval-terrier {version('pytrec-eval-terrier')} (trec_eval 9.0.8 C code) and the trec_eval "
          "9.0.7 binary when found; ir_measures and ranx do not compute the whole official set (gm_map, "
          "iprec_at_recall, ...): benchmarks/bench_metrics.py times them on map P_10 ndcg_cut_10")
    trec_eval = _find_trec_eval(args.trec_eval)
    print("measures: trec_eval's default set (official) on every side; whole process = interpreter start-up + "
          "imports + read + order + score + print; cpu = user + sys")
    fireeval = [sys.executable, "-m", "fireeval", "evaluate", "-m", "official"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        qrels = str(_gunzip(data_path(trec8.QRELS, args.data), tmp / "qrels.trec8.adhoc.txt"))
        names = trec8.run_names()[:args.runs] if args.runs else trec8.run_names()
        runs = [str(_gunzip(data_path(f"trec8_adhoc/runs/input.{n}.gz", args.data), tmp / f"input.{n}"))
                for n in names]
        script = tmp / "pytrec_loop.py"
        script.write_text(PYTREC_SCRIPT)
        pytrec = [sys.executable, str(script), qrels, ",".join(PYTREC_OFFICIAL)]
        print(f"files: gunzipped to a temporary folder ({sum(Path(r).stat().st_size for r in runs) >> 20} MB of "
              "runs), read by every side")

        print(f"\n1. one TREC-8 run ({Path(runs[0]).name}), median of {args.repeats}   "
              "target: <= 0.8x pytrec_eval in time, <= 1.2x in peak memory")
        ours, peer = _best(fireeval + [qrels, runs[0]], args.repeats), _best(pytrec + [runs[0]], args.repeats)
        print(f"  fireeval evaluate   {_show(ours)}   ({_load()})")
        print(f"  pytrec_eval script  {_show(peer)}   ({_load()})")
        print(f"  ratio fireeval / pytrec_eval: {_ratio(ours, peer)}")
        print(f"  {_timing.target_line('time (cpu), fireeval / pytrec_eval', ours.cpu / peer.cpu, 0.8)}")
        print(f"  {_timing.target_line('time (wall), fireeval / pytrec_eval', ours.wall / peer.wall, 0.8)}")
        print(f"  {_timing.target_line('peak memory, fireeval / pytrec_eval', ours.peak_mb / peer.peak_mb, 1.2)}")
        if trec_eval:
            binary = _best([trec_eval, qrels, runs[0]], args.repeats)
            print(f"  trec_eval 9.0.7     {_show(binary)}   ({_load()})   fireeval / trec_eval: {_ratio(ours, binary)}")
            _same_as_trec_eval(fireeval, trec_eval, qrels, runs[:1])
        _in_process(qrels, runs[:1])

        print(f"\n2. all {len(runs)} runs   target: <= 0.3x the pytrec_eval loop and <= 0.3x the trec_eval shell "
              f"loop, wall time of the whole command ({os.cpu_count()} cores here)")
        sides = {"fireeval evaluate --jobs 1": fireeval + ["--jobs", "1", qrels] + runs,
                 "fireeval evaluate (default jobs)": fireeval + [qrels] + runs,
                 "pytrec_eval loop, one process": pytrec + runs}
        if trec_eval:
            sides[f"trec_eval shell loop, {len(runs)} processes"] = \
                ["sh", "-c", 'q=$1; shift; for r in "$@"; do "$0" "$q" "$r"; done', trec_eval, qrels] + runs
        got = {}
        for name, cmd in sides.items():
            got[name] = _tree_run(cmd)
            print(f"  {name:<38} {_show_tree(*got[name])}")
        for ours in list(sides)[:2]:
            mine, mine_tree, _ = got[ours]
            for peer in list(sides)[2:]:
                theirs, theirs_tree, _ = got[peer]
                print(f"  ratio {ours} / {peer.split(',')[0]}: wall {mine.wall / theirs.wall:4.2f}x, cpu "
                      f"{mine.cpu / theirs.cpu:4.2f}x, peak memory {mine.peak_mb / theirs.peak_mb:4.2f}x "
                      f"(largest process), {mine_tree / theirs_tree:4.2f}x (whole tree)")
                what = f"wall, {ours} / {peer.split(',')[0]}"
                print(f"    {_timing.target_line(what, mine.wall / theirs.wall, 0.3)}")
        if trec_eval:
            _same_as_trec_eval(fireeval + ["--jobs", "1"], trec_eval, qrels, runs)
            _same_as_trec_eval(fireeval, trec_eval, qrels, runs)
        _in_process(qrels, runs)


if __name__ == "__main__":
    main()
    print(_timing.footer())
