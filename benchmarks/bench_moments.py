"""Timings of the moment-retrieval measures, as the user feels them and in-process.

Run: python benchmarks/bench_moments.py  (real Charades-STA data when present, else synthetic)

1. Whole process, `fireeval evaluate-moments GT PRED` as a user types it (the installed
   console script beside this Python; `python -m fireeval` when there is none): Python
   start-up, imports (numpy, and orjson when installed), reading and checking both files,
   aligning predictions to the ground truth, the 12 measures, printing. The peer is what a
   user would otherwise write: benchmarks/naive_moments.py, a plain-Python script of the
   same 12 measures run by the same interpreter (start-up, stdlib json.load, Python loops,
   printing; no input checks). One system (2DTAN), 9 paired runs (peer then fireeval,
   back to back), the median of each and the median of the paired ratios; the printed
   numbers are checked equal.
2. In-process, scoring only (files already parsed): the 12 measures for 6 systems x
   3720 queries with fireeval.core.moments.score_systems (numpy, one IoU matrix and one
   running maximum per system) against the same plain-Python loop as in 1.
3. In-process, the stability experiment (Fig. 6): 5,000 trials x 6 sizes x 12 measures,
   vectorised (matrix product + batched tau-b) against a per-trial loop with
   scipy.stats.kendalltau (timed on 100 trials and extrapolated).
4. In-process, loading the six systems: JSON against the original pickles through the
   restricted unpickler.
"""
from __future__ import annotations

import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402
import naive_moments  # noqa: E402

from fireeval.core import moments  # noqa: E402
from fireeval.datasets import charades, data_path, has_data  # noqa: E402
from fireeval.stats import reliability  # noqa: E402
from fireeval.stats.resampling import disjoint_halves  # noqa: E402
from fireeval.synthetic.moment_collection import simulate_moments  # noqa: E402

SIZES = [50, 100, 200, 500, 1000, 1860]
TRIALS = 5000
HERE = Path(__file__).resolve().parent


def timed(fn, repeat=1):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def fireeval_command():
    """The `fireeval` console script installed beside this Python, else `python -m fireeval`."""
    script = Path(sys.executable).with_name("fireeval")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "fireeval"]


def whole_process(gt_path, pred_path, runs=9):
    """Median figures (wall, cpu, peak memory: _timing.run) of `fireeval evaluate-moments` and of the naive
    script over ``runs`` paired runs, and the median of the paired wall and cpu ratios."""
    ours = [*fireeval_command(), "evaluate-moments", str(gt_path), str(pred_path)]
    peer = [sys.executable, str(HERE / "naive_moments.py"), str(gt_path), str(pred_path)]
    printed = {name: subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
               for name, cmd in (("naive", peer), ("fireeval", ours))}
    assert printed["fireeval"] == printed["naive"], "fireeval and the naive script print different numbers"
    figures = {"fireeval": [], "naive": []}
    for _ in range(runs):
        for name, cmd in (("naive", peer), ("fireeval", ours)):
            figures[name].append(_timing.run(cmd))
    out = {name: _timing.median_figures(v) for name, v in figures.items()}
    out["ratio"] = statistics.median(f.wall / n.wall for f, n in zip(figures["fireeval"], figures["naive"]))
    out["cpu_ratio"] = statistics.median(f.cpu / n.cpu for f, n in zip(figures["fireeval"], figures["naive"]))
    return out


def json_reader():
    try:
        import orjson
    except ImportError:
        return "stdlib json (orjson not installed)"
    return f"orjson {orjson.__version__}"


def naive_in_process(gt_rows, entries_by_system):
    return [naive_moments.score(gt_rows, entries) for entries in entries_by_system]


def main():
    import argparse

    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options yet
    print(_timing.byte_compile())
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, {_timing.load()}; "
          f"peer: benchmarks/naive_moments.py (plain Python {platform.python_version()}, stdlib json, "
          "same 12 measures)")
    real = has_data(*charades.GROUND_TRUTH_FILES, *[f"charades_sta/predictions/{s}.json" for s in charades.SYSTEMS])
    if real:
        gt_path = data_path("charades_sta/charades_sta_test.txt")
        gt = charades.load_ground_truth()[["start", "end"]].to_numpy()
        t_json, predictions = timed(lambda: charades.load_all_predictions())
        t_pkl, _ = timed(lambda: charades.load_all_predictions(source="pickle"))
        print(f"data: real Charades-STA ({len(gt)} queries, {len(predictions)} systems)")

        pred_path = data_path("charades_sta/predictions/2DTAN.json")
        w = whole_process(gt_path, pred_path)
        command = " ".join(Path(c).name for c in fireeval_command())
        print(f"1. whole process, one system (2DTAN), 9 paired runs: `{command} evaluate-moments` "
              f"{w['fireeval']} (JSON read with {json_reader()}), naive script {w['naive']} "
              f"(stdlib json); median paired ratio wall {w['ratio']:.2f}x, cpu {w['cpu_ratio']:.2f}x, peak memory "
              f"{w['fireeval'].peak_mb / w['naive'].peak_mb:.2f}x (same printed numbers; no target) ({_timing.load()})")

        gt_rows, _ = naive_moments.read(gt_path, pred_path)
        entries = [naive_moments.read(gt_path, data_path(f"charades_sta/predictions/{s}.json"))[1]
                   for s in charades.SYSTEMS]
        t_naive, naive = timed(lambda: naive_in_process(gt_rows, entries), repeat=3)
        t_vec, per_query = timed(lambda: moments.score_systems(predictions, gt), repeat=5)
        means = per_query.mean(axis=-1)
        gap = max(abs(means[i, j] - naive[j][m]) for j in range(len(naive)) for i, m in enumerate(moments.MEASURES))
        assert gap < 1e-9, gap
        print(f"2. in-process scoring, 12 measures x 6 systems x {len(gt)} queries (parsed inputs): "
              f"fireeval {t_vec * 1e3:.1f} ms, plain-Python loop {t_naive * 1e3:.0f} ms, "
              f"ratio {t_vec / t_naive:.3f}x; max |difference| {gap:.1e}")
    else:
        gt, _, predictions = simulate_moments(3720, 6, seed=0)
        print("data: SYNTHETIC stand-in (3720 queries, 6 systems); whole-process and plain-Python comparisons "
              "need the real files")
        t_vec, per_query = timed(lambda: moments.score_systems(predictions, gt), repeat=5)
        print(f"2. in-process scoring, 12 measures x 6 systems: fireeval {t_vec * 1e3:.1f} ms")

    t_stab, _ = timed(lambda: reliability.subset_stability(per_query, SIZES, n_trials=TRIALS, rng=0))
    sample = 100
    rng = np.random.default_rng(0)

    def loop_stab():
        for size in SIZES:
            a, b = disjoint_halves(len(gt), size, sample, rng)
            for m in range(per_query.shape[0]):
                for t in range(sample):
                    stats.kendalltau(per_query[m][:, a[t]].mean(1), per_query[m][:, b[t]].mean(1))

    t_loop_sample, _ = timed(loop_stab)
    t_loop_full = t_loop_sample * TRIALS / sample
    print(f"3. in-process stability, {TRIALS} trials x {len(SIZES)} sizes x 12 measures: vectorised {t_stab:.1f} s, "
          f"scipy.stats.kendalltau loop ~{t_loop_full:.0f} s (extrapolated from {sample} trials), "
          f"ratio {t_stab / t_loop_full:.3f}x")
    if real:
        print(f"4. in-process loading of 6 systems: JSON {t_json:.2f} s, pickles (restricted unpickler) {t_pkl:.2f} s")


if __name__ == "__main__":
    main()
    print(_timing.footer())
