"""Benchmark ``fireeval evaluate`` against pytrec_eval, whole process as a user runs it.

    .venv/bin/python benchmarks/bench_metrics.py [--data DIR] [--repeats 3] [--skip-synthetic]

Peers: pytrec_eval (the targets are against it), and beside it, without targets, ir_measures (its
``calc_aggregate`` on the same files) and ranx when installed (skipped, saying so, when not).
Three cases, each timed as separate processes (wall clock, median of ``--repeats``
paired runs, peak resident memory of the child) and, beside it, in-process:

1. one TREC-8 run, map + P_10 + ndcg_cut_10: ``fireeval evaluate QRELS RUN`` against a
   10-line pytrec_eval script (parse_qrel, parse_run, evaluate, print the means);
2. all 129 TREC-8 runs: ``fireeval evaluate QRELS RUN1 ... RUN129`` against the
   trec_eval-equivalent pytrec_eval loop (qrels parsed once, ``parse_run`` per run);
3. synthetic 10,000 topics x 1,000 documents (one run): the same two commands.

Whole-process times include interpreter start-up, imports, gunzip, parsing, ordering,
scoring and printing. In-process times include reading and scoring only (files
already in the page cache, modules imported). Every case checks that pytrec_eval's
per-topic values equal fireeval's to 1e-9. Targets (issue 13): 129 runs <= 0.5x,
one run <= 1.0x, synthetic <= 0.5x with peak memory <= pytrec_eval's.
"""
import argparse
import gzip
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402

MEASURES = ["map", "P_10", "ndcg_cut_10"]
PYTREC_SCRIPT = '''import sys, gzip, pytrec_eval
opn = lambda p: gzip.open(p, "rt") if p.endswith(".gz") else open(p)
with opn(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10"})
for path in sys.argv[2:]:
    with opn(path) as f: run = pytrec_eval.parse_run(f)
    res = evaluator.evaluate(run)
    for m in ("map", "P_10", "ndcg_cut_10"):
        print(f"{path}\\t{m:<22}\\tall\\t{sum(r[m] for r in res.values()) / len(res):.4f}")
'''


IR_MEASURES_SCRIPT = '''import sys, ir_measures
from ir_measures import AP, P, nDCG
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
for path in sys.argv[2:]:
    for measure, value in ir_measures.calc_aggregate([AP, P @ 10, nDCG @ 10], qrels, ir_measures.read_trec_run(path)).items():
        print(f"{path}\\t{measure}\\tall\\t{value:.4f}")
'''


def _other_peers(folder: Path) -> dict:
    """ir_measures and ranx, the tools users compare with, as whole-process peers: {name: command} of those installed
    (a missing one is named, with the reason it is skipped)."""
    from importlib.util import find_spec

    peers = {}
    if find_spec("ir_measures"):
        script = folder / "ir_measures_loop.py"
        script.write_text(IR_MEASURES_SCRIPT)
        peers[f"ir_measures {version('ir_measures')}"] = [sys.executable, str(script)]
    else:
        print("peer ir_measures: SKIPPED, not installed here (a test dependency: pip install ir_measures)")
    if find_spec("ranx"):
        print("peer ranx: installed but not timed here yet (its Qrels/Run readers take the same files)")
    else:
        print("peer ranx: SKIPPED, not installed in this environment (a test dependency; nothing is installed by "
              "the benchmark)")
    return peers


def _child(cmd):
    """Wall time and peak RSS (MB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed: {done.stderr[-500:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, peak / 1024 if peak > before else float("nan")


def _peak_rss(cmd):
    """Peak RSS of a child measured on its own (ru_maxrss of children is a running max)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def _paired(label, ours, peer, repeats, peer_name="pytrec_eval", time_goal=None, memory_goal=None):
    """Run the two commands ``repeats`` times, alternating which goes first; print medians, ratios, peak memory.

    This 2-core virtual machine has bursts of stolen time that slow whichever process runs
    then; pairing and alternating spreads them over both sides, and the median of the
    paired ratios is printed beside the ratio of the medians.
    """
    t_ours, t_peer = [], []
    for i in range(repeats):
        for times, cmd in ((t_ours, ours), (t_peer, peer))[::1 if i % 2 == 0 else -1]:
            times.append(_child(cmd)[0])
    m_ours, m_peer = _peak_rss(ours), _peak_rss(peer)
    a, b = statistics.median(t_ours), statistics.median(t_peer)
    paired = statistics.median(x / y for x, y in zip(t_ours, t_peer))
    print(f"{label}\n  whole process, median of {repeats}: fireeval {a:6.2f} s ({m_ours:5.0f} MB peak)   "
          f"{peer_name} {b:6.2f} s ({m_peer:5.0f} MB peak)   ratio {a / b:4.2f}x "
          f"(median of paired ratios {paired:4.2f}x)")
    if time_goal is not None:
        print(f"  {_timing.target_line(f'wall time, fireeval / {peer_name}', a / b, time_goal)}")
    else:
        print(f"  no target against {peer_name} (a slower peer, shown for scale) ({_timing.load()})")
    if memory_goal is not None:
        print(f"  {_timing.target_line(f'peak memory, fireeval / {peer_name}', m_ours / m_peer, memory_goal)}")
    return a / b, m_ours, m_peer


def _in_process(qrels_path, run_paths):
    """In-process read + score for both tools; returns the times and the largest |difference|."""
    import pytrec_eval

    from fireeval.core.evaluation import parse_measures
    from fireeval.core.stream import QrelsIndex, score_run
    from fireeval.core.trec import read_run_table

    measures = [m for name in MEASURES for m in parse_measures(name)]
    t0 = time.perf_counter()
    qrels = QrelsIndex.read(qrels_path)
    ours = [score_run(read_run_table(p), qrels, measures) for p in run_paths]
    t_ours = time.perf_counter() - t0
    opn = (lambda p: gzip.open(p, "rt")) if str(qrels_path).endswith(".gz") else open
    t0 = time.perf_counter()
    with opn(qrels_path) as fh:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh), set(MEASURES))
    theirs = []
    for p in run_paths:
        with (gzip.open(p, "rt") if str(p).endswith(".gz") else open(p)) as fh:
            theirs.append(evaluator.evaluate(pytrec_eval.parse_run(fh)))
    t_theirs = time.perf_counter() - t0
    worst = 0.0
    for mine, peer in zip(ours, theirs):
        assert sorted(peer) == sorted(mine.topics), "different evaluation topics"
        for m in MEASURES:
            worst = max(worst, float(np.abs(mine.values[m] - [peer[t][m] for t in mine.topics]).max()))
    print(f"  in process (read + score, imports excluded): fireeval {t_ours:6.2f} s   pytrec_eval {t_theirs:6.2f} s   "
          f"ratio {t_ours / t_theirs:4.2f}x   per-topic max |difference| {worst:.1e}")
    assert worst <= 1e-9, f"fireeval and pytrec_eval differ by {worst}"


def _synthetic(folder: Path, n_topics=10_000, depth=1_000, seed=0):
    """A seeded run (n_topics x depth, tab-separated) and qrels (60 judged per topic, ~20 % relevant)."""
    run_path, qrels_path = folder / "synthetic.run", folder / "synthetic.qrels"
    if run_path.exists() and qrels_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    with open(run_path, "w") as fh:
        for t in range(n_topics):
            docs = rng.choice(20_000, size=depth, replace=False)
            scores = np.round(rng.random(depth), 4)
            fh.write("".join(f"T{t}\tQ0\tD{d}\t{i}\t{s}\tsynth\n" for i, (d, s) in enumerate(zip(docs, scores))))
    with open(qrels_path, "w") as fh:
        for t in range(n_topics):
            docs = rng.choice(20_000, size=60, replace=False)
            grades = rng.choice([0, 0, 0, 0, 1, 2], size=60)
            fh.write("".join(f"T{t} 0 D{d} {g}\n" for d, g in zip(docs, grades)))
    return qrels_path, run_path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="data root holding trec8_adhoc/")
    parser.add_argument("--repeats", type=int, default=3,
                        help="paired whole-process runs per case (median; at least 21 for the one-run case)")
    parser.add_argument("--skip-synthetic", action="store_true", help="skip the 10,000 x 1,000 case")
    parser.add_argument("--workdir", default=None, help="folder for the synthetic files (default: a temp folder)")
    args = parser.parse_args()

    from fireeval.datasets import data_path, trec8

    print(_timing.byte_compile())
    print(f"peer: pytrec_eval-terrier {version('pytrec-eval-terrier')} (trec_eval 9.0.8 C code), the targets' peer; "
          f"fireeval on Python {sys.version.split()[0]}, {_timing.load()}")
    print("whole process = interpreter start-up + imports + gunzip + parse + order + score + print")
    fireeval = [sys.executable, "-m", "fireeval", "evaluate"] + sum((["-m", m] for m in MEASURES), [])
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "pytrec_loop.py"
        script.write_text(PYTREC_SCRIPT)
        peer = [sys.executable, str(script)]
        qrels = str(data_path(trec8.QRELS, args.data))
        runs = [str(data_path(f"trec8_adhoc/runs/input.{n}.gz", args.data)) for n in trec8.run_names()]

        others = _other_peers(Path(tmp))
        _paired("1. one TREC-8 run (input.AntHoc1), map P_10 ndcg_cut_10   target <= 1.0x pytrec_eval",
                fireeval + [qrels, runs[0]], peer + [qrels, runs[0]], max(args.repeats, 21), time_goal=1.0)  # 0.3 s each
        for name, cmd in others.items():
            _paired(f"1. (the same run against {name})", fireeval + [qrels, runs[0]], cmd + [qrels, runs[0]],
                    args.repeats, peer_name=name)
        _in_process(qrels, runs[:1])
        _paired(f"2. all {len(runs)} TREC-8 runs in one process   target <= 0.5x pytrec_eval",
                fireeval + [qrels] + runs, peer + [qrels] + runs, args.repeats, time_goal=0.5)
        for name, cmd in others.items():
            _paired(f"2. (all {len(runs)} runs against {name})", fireeval + [qrels] + runs, cmd + [qrels] + runs,
                    1, peer_name=name)
        _in_process(qrels, runs)
        if not args.skip_synthetic:
            folder = Path(args.workdir or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            q, r = _synthetic(folder)
            _paired("3. synthetic 10,000 topics x 1,000 documents   target <= 0.5x, peak memory <= pytrec_eval's",
                    fireeval + [str(q), str(r)], peer + [str(q), str(r)], max(1, args.repeats // 2), time_goal=0.5,
                    memory_goal=1.0)
            _in_process(q, [r])


if __name__ == "__main__":
    main()
    print(_timing.footer())
