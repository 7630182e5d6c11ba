"""Timing of the pooling experiments on all 129 TREC-8 runs (not a test; prints timings and ratios).

    .venv/bin/python benchmarks/bench_pooling.py [--no-whole-process] [--naive-depths 3] [--naive-runs 5]

0. Whole process, as a user runs it: ``fireeval run pool_depth`` and ``fireeval run
   pool_leave_out`` with default parameters (see _timing.CHAPTER_INCLUDES), and
   ``fireeval audit`` on one unpooled run with all other runs as reference (interpreter
   start-up, imports, reading the qrels and 129 run files, the leave-outs, printing).
In process (runs and qrels loaded, modules imported):
1. Depth sweep: build the pool and re-score every run by MAP at K = 1..50 and 100
   (fireeval.pooling.pools.depth_sweep), against naive re-evaluation -- rebuild the depth-K
   qrels and call evaluate() for each K (a fresh gain lookup each time) -- and against
   pytrec_eval (the peer tool) scoring one depth-K qrels.
2. Leave-outs: every run-left-out and group-left-out MAP at once
   (fireeval.pooling.pools.leave_out_scores), against the naive loop
   fireeval.evaluate(pool.leave_out(qrels, ...), runs.select([r])) per run.
3. Incomplete-judgement measures (bpref, infAP, AP', nDCG') in the sweep, from judged
   cells only, against fireeval.evaluate() on each depth-K qrels (judged_only=True for AP').
4. Bootstrap τ bands: kendall_tau_many against the plain script, scipy.stats.kendalltau
   (τ-b) called per ranking in a loop (same values).
Naive timings are measured on a few depths / runs and extrapolated (marked "est.").
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import _timing
from fireeval.pooling import pools as pooling
from fireeval.datasets import has_data, trec8
import fireeval

DEPTHS = list(range(1, 51)) + [100]


def evaluate(qrels, runs, measures, **options):
    """``{measure: runs x topics}`` through the public API, as a plain script would score."""
    scores = fireeval.evaluate(qrels, runs, measures, per_topic=True, output="dict", **options)
    topics = [t for t in next(iter(scores.values())) if t != "all"]
    return {m: np.array([[scores[r][t][m] for t in topics] for r in runs.names]) for m in measures}


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive-depths", type=int, default=3, help="depths re-evaluated naively (extrapolated)")
    parser.add_argument("--naive-runs", type=int, default=5, help="runs left out naively (extrapolated)")
    _timing.add_flag(parser)
    args = parser.parse_args()
    if not has_data(*trec8.FILES):
        raise SystemExit("TREC-8 data not found (set FIREEVAL_DATA or place ../shared/data); nothing to time")
    _timing.header()
    print(f"peers: {_timing.versions('pytrec-eval-terrier')} (trec_eval C code), {_timing.versions('scipy', 'numpy')}")

    if not args.no_whole_process:
        print("\n== Whole process ==")
        _timing.chapter("pool_depth", target=60)  # issue 38: each chapter <= 60 s
        _timing.chapter("pool_leave_out", target=60)
        from fireeval.datasets import SHARED_DATA

        root = Path(SHARED_DATA) / "trec8_adhoc"
        runs_table = trec8.load_runs_table()
        unpooled = runs_table.loc[~runs_table["pooled"], "run"].iloc[0]
        files = sorted(str(f) for f in (root / "runs").glob("input.*.gz"))
        audit = _timing.run([sys.executable, "-m", "fireeval", "audit", root / "qrels.trec8.adhoc.txt.gz",
                             root / "runs" / f"input.{unpooled}.gz", "--runs", *files, "--groups", root / "runs.tsv"])
        print(f"whole process: fireeval audit {unpooled} with {len(files)} reference run files: {audit}")
        print("  includes interpreter start-up, imports, reading the qrels and every run file, pooling, "
              "the leave-outs, printing")

    print("\n== In process (modules imported) ==")

    (runs, qrels, table), t_load = timed(lambda: (trec8.load_runs(), trec8.load_qrels(), trec8.load_runs_table()))
    table = table.set_index("run").loc[runs.names].reset_index()
    print(f"load 129 runs + qrels (trec8.load_runs, load_qrels): {t_load:.1f} s (not counted below)")

    # 1. depth sweep -------------------------------------------------------------------
    def sweep():
        pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=100)
        return pool, pooling.depth_sweep(pool, qrels, DEPTHS, ["map"])

    (pool, result), t_sweep = timed(sweep)
    print(f"\ndepth sweep, {len(DEPTHS)} depths x {len(runs.names)} runs x 50 topics (MAP):")
    print(f"  fireeval build_pool + depth_sweep: {t_sweep:6.2f} s   "
          f"{_timing.target_line('depth sweep, in process', t_sweep, 10, ' s')}")

    naive_depths = DEPTHS[:: max(1, len(DEPTHS) // args.naive_depths)][: args.naive_depths]
    start, worst = time.perf_counter(), 0.0
    for k in naive_depths:
        slow = evaluate(pool.at_depth(qrels, k), runs, ["map"], complete=True)["map"]
        worst = max(worst, float(np.abs(slow - result.values["map"][DEPTHS.index(k)]).max()))
    per_depth = (time.perf_counter() - start) / len(naive_depths)
    print(f"  plain script, fireeval.evaluate() on each depth-K qrels: {per_depth:6.2f} s   -> {per_depth * len(DEPTHS):6.1f} s est. "
          f"for all depths ({per_depth * len(DEPTHS) / t_sweep:.0f}x slower); max |diff| {worst:.1e}")

    try:
        import pytrec_eval
    except ImportError:
        print("  pytrec_eval not installed: peer timing skipped")
    else:
        qk = pool.at_depth(qrels, 10).frame
        qdict = {}
        for q, d, r in zip(qk["query"], qk["docno"], qk["relevance"]):
            qdict.setdefault(q, {})[d] = int(r)
        docnos = np.asarray(runs.docnos)
        run_dicts = []
        for r in range(len(runs.names)):
            run_dicts.append({t: {docnos[c]: float(-j) for j, c in enumerate(runs.docs[r, i]) if c >= 0}
                              for i, t in enumerate(runs.topics)})
        def peer():
            evaluator = pytrec_eval.RelevanceEvaluator(qdict, {"map"})
            return [evaluator.evaluate(run) for run in run_dicts]
        peer_scores, t_peer = timed(peer)
        ours10 = result.values["map"][DEPTHS.index(10)]
        diff = max(float(np.abs(ours10[r] - [peer_scores[r][t]["map"] for t in runs.topics]).max())
                   for r in range(len(runs.names)))
        print(f"  pytrec_eval, one depth (129 runs): {t_peer:6.2f} s   -> {t_peer * len(DEPTHS):6.1f} s est. for all "
              f"depths, excluding building its dicts ({t_peer * len(DEPTHS) / t_sweep:.0f}x slower); "
              f"max |diff| at K=10 {diff:.1e}")

    # 2. leave-outs ----------------------------------------------------------------------
    def leave_outs():
        pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=100)
        return (pooling.leave_out_scores(pool, qrels, "run", ["map"]),
                pooling.leave_out_scores(pool, qrels, "group", ["map"]))

    (by_run, by_group), t_lo = timed(leave_outs)
    print(f"\nleave-one-run-out + leave-one-group-out for all {len(runs.names)} runs (MAP):")
    print(f"  fireeval build_pool + leave_out_scores x 2: {t_lo:6.2f} s   "
          f"{_timing.target_line('leave-outs, in process', t_lo, 10, ' s')}")
    sample = np.linspace(0, len(runs.names) - 1, args.naive_runs).astype(int)
    start, worst = time.perf_counter(), 0.0
    for r in sample:
        name = runs.names[r]
        one = runs.select([name])
        slow_run = evaluate(pool.leave_out(qrels, run=name), one, ["map"], complete=True)["map"][0]
        slow_group = evaluate(pool.leave_out(qrels, group=table.loc[r, "group"]), one, ["map"],
                              complete=True)["map"][0]
        worst = max(worst, float(np.abs(slow_run - by_run.values["map"][r]).max()),
                    float(np.abs(slow_group - by_group.values["map"][r]).max()))
    per_run = (time.perf_counter() - start) / len(sample)
    print(f"  plain script, evaluate() per run on its two leave-out qrels: {per_run:6.2f} s   -> {per_run * len(runs.names):6.1f} s est. "
          f"for all runs ({per_run * len(runs.names) / t_lo:.0f}x slower); max |diff| {worst:.1e}")


    # 3. incomplete-judgement measures ------------------------------------------------------
    incomplete = ["bpref", "infAP", "map_judged", "ndcg_judged"]
    result3, t_inc = timed(lambda: pooling.depth_sweep(pool, qrels, DEPTHS, incomplete))
    print(f"\ndepth sweep, {len(DEPTHS)} depths, bpref + infAP + AP' + nDCG' (judged cells only):")
    print(f"  fireeval depth_sweep:             {t_inc:6.2f} s")
    start, worst = time.perf_counter(), 0.0
    for k in naive_depths:
        qk = pool.at_depth(qrels, k)
        core = evaluate(qk, runs, ["bpref", "infAP"], complete=True)
        cond = evaluate(qk, runs, ["map", "ndcg"], complete=True, judged_only=True)
        i = DEPTHS.index(k)
        worst = max(worst, *(float(np.abs(core[m] - result3.values[m][i]).max()) for m in ("bpref", "infAP")),
                    float(np.abs(cond["map"] - result3.values["map_judged"][i]).max()),
                    float(np.abs(cond["ndcg"] - result3.values["ndcg_judged"][i]).max()))
    per_depth = (time.perf_counter() - start) / len(naive_depths)
    print(f"  plain script, fireeval.evaluate() on each depth-K qrels: {per_depth:6.2f} s   -> {per_depth * len(DEPTHS):6.1f} s est. "
          f"for all depths ({per_depth * len(DEPTHS) / t_inc:.1f}x slower); max |diff| {worst:.1e}")

    # 4. bootstrap bands ---------------------------------------------------------------------
    from fireeval.stats import agreement, reliability

    means = result.values["map"].mean(-1)
    rng = np.random.default_rng(0)
    a = means[:, None, :] + rng.normal(0, 0.01, (len(DEPTHS), 200, means.shape[-1]))
    b = np.broadcast_to(means[-1], a.shape)
    from scipy.stats import kendalltau

    fast, t_fast = timed(lambda: agreement.kendall_tau_many(a, b))
    slow, t_slow = timed(lambda: np.array([[kendalltau(x, y).statistic for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]))
    print(f"\nτ-b for {a.shape[0] * a.shape[1]:,} rankings of {a.shape[-1]} runs (bootstrap bands):")
    print(f"  kendall_tau_many:                 {t_fast:6.2f} s   scipy.stats.kendalltau loop {t_slow:6.2f} s "
          f"({t_slow / t_fast:.1f}x); max |diff| {np.abs(fast - slow).max():.1e}")
    _, t_band = timed(lambda: reliability.bootstrap_agreement(result.values["map"], result.reference["map"], 1000))
    print(f"  one measure, {len(DEPTHS)} depths x 1000 resamples: {t_band:6.2f} s")


if __name__ == "__main__":
    main()
    print(_timing.footer())
