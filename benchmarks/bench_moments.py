"""Timings of the moment-retrieval measures and the stability experiment against naive loops.

Run: python benchmarks/bench_moments.py  (real Charades-STA data when present, else synthetic)

1. The 12 measures for 6 systems x 3720 queries: one IoU matrix per system, vectorised,
   vs the reference code's per-query Python loop (riktor/vmr-axiou eval.py style).
2. Stability on disjoint subsets (Fig. 6): 5,000 trials x 6 sizes x 12 measures,
   vectorised (matrix product + batched tau-b) vs a per-trial loop with
   scipy.stats.kendalltau (timed on a sample of trials and extrapolated).
3. Loading the six systems: JSON vs the original pickles through the restricted unpickler.
"""
from __future__ import annotations

import time

import numpy as np
from scipy import stats

from fireeval.core import moments
from fireeval.stats import reliability
from fireeval.datasets import charades, has_data
from fireeval.stats.resampling import disjoint_halves
from fireeval.synthetic.moments import simulate_moments

SIZES = [50, 100, 200, 500, 1000, 1860]
TRIALS = 5000


def timed(fn, repeat=1):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def naive_scores(predictions, gt):
    """Per-query loop as in the reference code: IoU per list, then each measure."""
    out = np.zeros((12, len(predictions), len(gt)))
    for j, pred in enumerate(predictions.values()):
        for q in range(len(gt)):
            box = pred[q][~np.isnan(pred[q, :, 0])]
            if not len(box):
                continue
            inter = np.maximum(0.0, np.minimum(box[:, 1], gt[q, 1]) - np.maximum(box[:, 0], gt[q, 0]))
            overlap = inter / (np.maximum(box[:, 1], gt[q, 1]) - np.minimum(box[:, 0], gt[q, 0]))
            i = 0
            for k in moments.KS:
                for t in moments.THETAS:
                    out[i, j, q] = (overlap >= t)[:k].any()
                    i += 1
            for k in moments.KS:
                total = 0.0
                for kk in range(1, k + 1):
                    total += np.max(overlap[:kk]) / k
                out[i, j, q] = total
                i += 1
    return out


def main():
    real = has_data(*charades.GROUND_TRUTH_FILES, *[f"charades_sta/predictions/{s}.json" for s in charades.SYSTEMS])
    if real:
        gt = charades.load_ground_truth()[["start", "end"]].to_numpy()
        t_json, predictions = timed(lambda: charades.load_all_predictions())
        t_pkl, _ = timed(lambda: charades.load_all_predictions(source="pickle"))
        print(f"data: real Charades-STA ({len(gt)} queries, {len(predictions)} systems)")
        print(f"load 6 systems: JSON {t_json:.2f} s, pickles (restricted unpickler) {t_pkl:.2f} s")
    else:
        gt, _, predictions = simulate_moments(3720, 6, seed=0)
        print("data: SYNTHETIC stand-in (3720 queries, 6 systems)")

    t_vec, per_query = timed(lambda: moments.score_systems(predictions, gt), repeat=5)
    t_loop, loop = timed(lambda: naive_scores(predictions, gt))
    assert np.allclose(per_query, loop), "vectorised and loop scores differ"
    print(f"12 measures x 6 systems x {len(gt)} queries: vectorised {t_vec * 1e3:.1f} ms, "
          f"per-query loop {t_loop:.2f} s, speed-up x{t_loop / t_vec:.0f}")

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
    print(f"stability, {TRIALS} trials x {len(SIZES)} sizes x 12 measures: vectorised {t_stab:.1f} s, "
          f"scipy loop ~{t_loop_full:.0f} s (extrapolated from {sample} trials), speed-up x{t_loop_full / t_stab:.0f}")


if __name__ == "__main__":
    main()
