"""Timing of ``fireeval compare`` on all 129 TREC-8 runs against a plain scipy loop (not a test).

    .venv/bin/python benchmarks/bench_compare.py [--data DIR] [--sample-pairs 100] [--permutations 10000]
                                                 [--no-whole-process]

1. Whole process, as a user runs it: ``python -m fireeval compare QRELS RUN1 ... RUN129 -m map
   --permutations 10000`` (Holm, the default), timed as a subprocess (benchmarks/_timing.py:
   wall, CPU, peak memory). It includes interpreter start-up, imports, reading the qrels
   and the 129 run files, scoring MAP per topic, and for all 8,256 pairs the sign-flip
   randomisation test (10,000 flips shared by all pairs), the paired t-test, Holm, the
   randomised Tukey HSD (10,000 permutations), BCa intervals (2,000 bootstrap resamples),
   the power figures and printing the report.
2. In process (runs already scored into the 129 x 50 per-topic matrix; modules imported):
   ``fireeval.stats.significance.compare`` with the same settings, and the randomisation test alone.
3. The peer: a plain scipy loop, ``scipy.stats.permutation_test((a, b), mean difference,
   permutation_type='samples', vectorized=True, n_resamples=10000)`` per pair over the
   same matrix (plus ``ttest_rel`` and Holm at the end). It is timed on ``--sample-pairs``
   random pairs and extrapolated to all 8,256 (marked "est."): one pair costs the same
   whatever the pair.

Same p-values: for every sampled pair, scipy's own sign flips (recovered from the permuted
samples it hands to the statistic) are fed to fireeval's vectorised test, which must give
scipy's p-value exactly; and fireeval's p-values with its shared flips are compared with
scipy's (different random flips: equal up to Monte Carlo error, whose size is printed).
4. Peer 2: a numpy loop a user could write, sharing one set of sign flips across all pairs (as
   fireeval does) plus ``ttest_rel``, on all 8,256 pairs, in process.
5. Peer 3: ``ranx.compare`` (Fisher's randomisation test on MAP, the same permutations, one thread), in process
   on the first ``--ranx-runs`` runs (their files read into ranx's structures first, its numba code compiled on a
   small untimed call), extrapolated per pair to all pairs; skipped, saying so, when ranx is not installed.
Target (issue 28): the whole process at least 10x faster than peer 1 (met / missed printed); peers 2 and 3 are
shown for scale, without a target. ir_measures has no significance tests.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import _timing


def _has(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def ranx_peer(qrels_path, run_paths, n_permutations, n_runs):
    """``ranx.compare`` (Fisher's randomisation test, MAP) on the first ``n_runs`` runs, in process, files already read
    into ranx's structures: ``(seconds wall, seconds cpu, pairs)``. ranx compiles its numba code on a first, small call,
    not timed; ``threads=1`` (one core, as the other in-process figures)."""
    from ranx import Qrels, Run, compare

    from fireeval.core.trec import read_qrels, read_run

    def texts(frame, *columns):  # (ranx wants object columns of str)
        return frame.assign(**{c: frame[c].astype(str).astype(object) for c in columns})

    qrels = read_qrels(qrels_path)
    qrels = Qrels.from_df(texts(qrels.assign(relevance=qrels["relevance"].astype(int)), "query", "docno"),
                          q_id_col="query", doc_id_col="docno", score_col="relevance")
    runs = [Run.from_df(texts(read_run(path), "query", "docno"), q_id_col="query", doc_id_col="docno",
                        score_col="score", name=f"r{i}") for i, path in enumerate(run_paths[:n_runs])]
    compare(qrels, runs[:2], metrics=["map"], stat_test="fisher", n_permutations=100, threads=1)
    start, cpu = time.perf_counter(), time.process_time()
    compare(qrels, runs, metrics=["map"], stat_test="fisher", n_permutations=n_permutations, threads=1)
    return time.perf_counter() - start, time.process_time() - cpu, len(runs) * (len(runs) - 1) // 2


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def scipy_loop(values, pairs, n_permutations, seed=0):
    """The plain script: scipy.stats.permutation_test per pair; returns p-values and the flips scipy drew."""
    from scipy import stats

    p, flips = [], []
    for k, (i, j) in enumerate(pairs):
        seen = []

        def statistic(x, y, axis=-1):
            seen.append(x)
            return np.mean(x - y, axis=axis)

        res = stats.permutation_test((values[i], values[j]), statistic, permutation_type="samples",
                                     vectorized=True, n_resamples=n_permutations, rng=np.random.default_rng(seed + k))
        permuted = np.concatenate([s for s in seen if s.ndim == 2])
        flips.append(np.where(permuted == values[i], 1, -1).astype(np.int8))
        p.append(res.pvalue)
        stats.ttest_rel(values[i], values[j])
    return np.array(p), flips


def scipy_loop_plain(values, pairs, n_permutations, seed=0):
    """The same loop without recording the flips: what is timed."""
    from scipy import stats

    out = []
    for k, (i, j) in enumerate(pairs):
        out.append(stats.permutation_test((values[i], values[j]), _mean_diff, permutation_type="samples",
                                          vectorized=True, n_resamples=n_permutations,
                                          rng=np.random.default_rng(seed + k)).pvalue)
        stats.ttest_rel(values[i], values[j])
    return np.array(out)


def shared_flips_loop(values, pairs, n_permutations, seed=0):
    """The stronger peer, a loop a user could write in 25 lines: one set of random sign flips drawn once and
    shared by every pair (as fireeval does), each pair's two-sided p-value as scipy counts it ((hits + 1) /
    (flips + 1)), and scipy's ``ttest_rel``."""
    from scipy import stats

    t = values.shape[1]
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=(n_permutations, t))
    out = []
    for i, j in pairs:
        d = values[i] - values[j]
        observed = abs(d.mean())
        null = np.abs(signs @ d) / t
        out.append((np.count_nonzero(null >= observed * (1 - 1e-12)) + 1) / (n_permutations + 1))
        stats.ttest_rel(values[i], values[j])
    return np.array(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="data root holding trec8_adhoc/ (default: the shared data)")
    parser.add_argument("--sample-pairs", type=int, default=100, help="pairs timed in the scipy loop (extrapolated)")
    parser.add_argument("--permutations", type=int, default=10_000, help="sign flips per pair (default 10000)")
    parser.add_argument("--ranx-runs", type=int, default=8, dest="ranx_runs",
                        help="runs given to ranx.compare (its pairs timed, extrapolated to all pairs)")
    _timing.add_flag(parser)
    args = parser.parse_args()

    from fireeval.datasets import data_path, has_data, trec8
    from fireeval.stats import significance as cmp

    if not has_data(*trec8.FILES, root=args.data):
        raise SystemExit("TREC-8 data not found (set FIREEVAL_DATA or place ../shared/data); nothing to time")
    _timing.header()
    print(_timing.byte_compile())
    print(f"peers: (1) scipy.stats.permutation_test per pair + ttest_rel, the target's peer; (2) a numpy loop "
          f"sharing one set of sign flips across pairs + ttest_rel; {_timing.versions('scipy', 'numpy', 'statsmodels')}")
    qrels = str(data_path(trec8.QRELS, args.data))
    runs = [str(data_path(f"trec8_adhoc/runs/input.{n}.gz", args.data)) for n in trec8.run_names()]
    n_pairs = len(runs) * (len(runs) - 1) // 2
    p = args.permutations

    whole = None
    if not args.no_whole_process:
        print("\n== Whole process ==")
        whole = _timing.run([sys.executable, "-m", "fireeval", "compare", qrels, *runs, "-m", "map",
                             "--permutations", p])
        print(f"fireeval compare, {len(runs)} runs ({n_pairs} pairs), map, {p} permutations, Holm: {whole}")
        print("  includes interpreter start-up, imports, reading and scoring the 129 runs, all tests of every pair "
              "(randomisation, t-test, Holm, Tukey HSD, BCa with 2000 resamples), power, printing")

    print("\n== In process (modules imported) ==")
    start = time.perf_counter()
    scores = cmp.scores_from_trec(qrels, runs, "map")
    t_score = time.perf_counter() - start
    values = scores.values
    print(f"read + score {len(runs)} runs into a {values.shape[0]} x {values.shape[1]} MAP matrix "
          f"(scores_from_trec): {t_score:.2f} s (not counted below)")
    start = time.perf_counter()
    result = cmp.compare(scores, n_permutations=p)
    t_compare = time.perf_counter() - start
    pi, pj = result.pairs["i"], result.pairs["j"]
    start = time.perf_counter()
    flips, exact = cmp.sign_flips(values.shape[1], p, np.random.default_rng(0))
    ours = cmp.randomisation_pvalues(values, pi, pj, flips, exact)
    t_perm = time.perf_counter() - start
    print(f"compare(), all {n_pairs} pairs, every statistic: {t_compare:.2f} s; randomisation test alone "
          f"(flips drawn + all pairs): {t_perm:.2f} s")
    assert np.array_equal(ours, result.pairs["p_perm"])

    print(f"\n== Peer: scipy.stats.permutation_test per pair ({p} resamples) + ttest_rel ==")
    rng = np.random.default_rng(1)
    sample = rng.choice(n_pairs, size=min(args.sample_pairs, n_pairs), replace=False)
    pairs = list(zip(pi[sample], pj[sample]))
    start, cpu = time.perf_counter(), time.process_time()
    scipy_p = scipy_loop_plain(values, pairs, p)
    t_sample, cpu_sample = time.perf_counter() - start, time.process_time() - cpu
    per_pair = t_sample / len(pairs)
    t_loop, cpu_loop = per_pair * n_pairs, cpu_sample / len(pairs) * n_pairs
    print(f"{len(pairs)} sampled pairs: {t_sample:.2f} s wall, {cpu_sample:.2f} s cpu ({per_pair * 1e3:.1f} ms a pair) "
          f"-> {t_loop:.0f} s wall, {cpu_loop:.0f} s cpu est. for all {n_pairs} pairs")

    recorded_p, scipy_flips = scipy_loop(values, pairs, p)
    assert np.array_equal(recorded_p, scipy_p)
    same = np.array([cmp.randomisation_pvalues(values, [i], [j], f)[0] for (i, j), f in zip(pairs, scipy_flips)])
    worst_same = float(np.abs(same - scipy_p).max())
    gap = np.abs(result.pairs["p_perm"][sample] - scipy_p)
    se = np.sqrt(np.maximum(scipy_p * (1 - scipy_p), 1e-12) / p) * 2  # MC standard error of a two-sided p
    print(f"same p-values: fireeval on scipy's own flips vs scipy, max |difference| {worst_same:.1e} "
          f"({'identical' if worst_same == 0 else 'DIFFERENT'}); fireeval's shared flips vs scipy's: max |difference| "
          f"{gap.max():.4f}, {np.mean(gap <= 3 * se + 2 / p):.0%} of pairs within 3 Monte Carlo SE")
    assert worst_same <= 1e-12, worst_same

    all_pairs = list(zip(pi, pj))
    start, cpu = time.perf_counter(), time.process_time()
    shared_p = shared_flips_loop(values, all_pairs, p)
    t_shared, cpu_shared = time.perf_counter() - start, time.process_time() - cpu
    print(f"\n== Peer 2: a numpy loop sharing one set of {p} sign flips across pairs + ttest_rel, all {n_pairs} pairs ==")
    print(f"{t_shared:.2f} s wall, {cpu_shared:.2f} s cpu (in process, modules imported); its p-values vs fireeval's: "
          f"max |difference| {np.abs(shared_p - result.pairs['p_perm']).max():.4f} (other random flips)")

    print("\n== Ratios: peer 1 = scipy.stats.permutation_test per pair (est.), peer 2 = shared-flips numpy loop ==")
    if whole is not None:
        print(f"whole process vs peer 1: {t_loop:.0f} s est. / {whole.wall:.1f} s = {t_loop / whole.wall:.0f}x faster "
              f"(peak memory {whole.peak_mb:.0f} MB; the scipy loop covers only the permutation and t-tests)")
        print(f"  {_timing.target_line('speed-up over peer 1 (wall)', t_loop / whole.wall, 10, at_most=False)}")
        print(f"whole process, CPU time (less sensitive to other load on the machine) vs peer 1: {cpu_loop:.0f} s est. / "
              f"{whole.cpu:.1f} s = {cpu_loop / whole.cpu:.0f}x")
        print(f"whole process vs peer 2 (in process, so without its start-up and reading): {t_shared:.1f} s / "
              f"{whole.wall:.1f} s = {t_shared / whole.wall:.1f}x faster in wall time, {cpu_shared:.1f} s / "
              f"{whole.cpu:.1f} s = {cpu_shared / whole.cpu:.1f}x in cpu (no target: fireeval also computes Holm, "
              "Tukey HSD, BCa and power)")
    print(f"in process, compare() with every statistic: {t_loop / t_compare:.0f}x peer 1, {t_shared / t_compare:.2f}x "
          f"peer 2; randomisation test alone: {t_loop / t_perm:.0f}x peer 1, {t_shared / t_perm:.2f}x peer 2 "
          f"({_timing.load()})")
    if _has("ranx"):
        t_ranx, cpu_ranx, ranx_pairs = ranx_peer(qrels, runs, p, args.ranx_runs)
        per = t_ranx / ranx_pairs
        print(f"\n== Peer 3: ranx.compare ({_timing.versions('ranx')}), Fisher's randomisation test, map, {p} "
              f"permutations, one thread, in process (runs read) ==")
        print(f"{args.ranx_runs} runs, {ranx_pairs} pairs: {t_ranx:.2f} s wall, {cpu_ranx:.2f} s cpu "
              f"({per * 1e3:.1f} ms a pair, its MAP included) -> {per * n_pairs:.0f} s est. for all {n_pairs} pairs; "
              f"fireeval's compare() in process {t_compare:.2f} s for all: {per * n_pairs / t_compare:.0f}x faster "
              f"(no target; ranx adds no Holm, Tukey HSD or intervals) ({_timing.load()})")
    else:
        print("peer ranx.compare (Fisher's randomisation and paired t-tests over runs, the same tests): SKIPPED, "
              "ranx is not installed in this environment (a test dependency; the benchmark installs nothing)")
    print("ir_measures: not a peer here (it has no significance tests)")


if __name__ == "__main__":
    main()
    print(_timing.footer())
