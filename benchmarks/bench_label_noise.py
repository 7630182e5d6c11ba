"""Time the AxIoU label-noise experiment: 4 σ x 100 trials x 6 systems x 3720 queries x 12 measures.

Compares fireeval.vmr.noise (IoU once per noisy dataset, vectorised over trials, systems,
queries and ranks) with naive re-evaluation: one Python-level evaluation per
(σ, trial, system), as a per-run evaluation script would do, timed on a few trials
and extrapolated. Uses the real Charades-STA lists when present, else the synthetic
stand-in of the same size. Target: <= 20 s on the 2-core machine.
"""
import time

import numpy as np

from fireeval.vmr import noise
from fireeval.datasets import has_data
from fireeval.core.moments import MEASURES, score_all, temporal_iou

SIGMAS, TRIALS = (1.0, 2.0, 3.0, 4.0), 100


def inputs():
    if has_data("charades_sta/charades_sta_test.txt", "charades_sta/predictions/2DTAN.json"):
        from fireeval.datasets import charades

        gt = charades.load_ground_truth()[["start", "end"]].to_numpy()
        preds = charades.load_all_predictions()
        return "Charades-STA (real)", gt, np.stack(list(preds.values()))
    from fireeval.synthetic.moments import simulate_moments

    gt, _, preds = simulate_moments(3720, 6, seed=0)
    return "synthetic stand-in", gt, np.stack(list(preds.values()))


def naive(preds, gt, sigmas, n_trials):
    """Re-evaluate every system on every noisy dataset separately (per-run loop)."""
    out = []
    for s in sigmas:
        noisy_sets = noise.simulate_annotations(gt, s, n_trials, rng=0)
        for noisy in noisy_sets:
            for p in preds:
                scores = score_all(temporal_iou(p, noisy))
                out.append([scores[m].mean() for m in MEASURES])
    return np.array(out)


def main():
    name, gt, preds = inputs()
    print(f"data: {name}; {len(SIGMAS)} sigma x {TRIALS} trials x {len(preds)} systems x {len(gt)} queries x {len(MEASURES)} measures")
    t = time.perf_counter()
    clean, noisy = noise.noise_experiment(preds, gt, SIGMAS, TRIALS, seed=0)
    err = noise.noise_error(clean, noisy)
    fast = time.perf_counter() - t
    print(f"fireeval.vmr.noise.noise_experiment + noise_error: {fast:.2f} s (target <= 20 s)")
    few = 5
    t = time.perf_counter()
    naive(preds, gt, SIGMAS[:1], few)
    per = (time.perf_counter() - t) / few
    slow = per * TRIALS * len(SIGMAS)
    print(f"naive per-(trial, system) re-evaluation: {per:.3f} s per trial -> {slow:.1f} s extrapolated; ratio {slow / fast:.1f}x")
    # Agreement check: the naive loop reproduces the vectorised means on the same draws.
    draws = noise._draws(2, 5, len(gt), 1)
    gts = noise.simulate_annotations(gt, 2.0, 2, draws=draws)
    loop = np.array([[[score_all(temporal_iou(p, g))[m].mean() for m in MEASURES] for p in preds] for g in gts])
    print(f"max |vectorised - loop| on 2 trials: {np.abs(noise.system_means(preds, gts) - loop).max():.2e}")
    print("error at sigma = 4 s:", {m: round(float(v), 4) for m, v in zip(MEASURES, err[-1])})


if __name__ == "__main__":
    main()
