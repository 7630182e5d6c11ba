"""Time the AxIoU label-noise experiment: 4 σ x 100 trials x 6 systems x 3720 queries x 12 measures.

Run: python benchmarks/bench_label_noise.py [--chapter]

In-process figures (data already loaded; what each includes is printed with it):

1. fireeval.vmr.noise.noise_experiment + noise_error, as the chapter calls them: the
   noisy annotations, IoU once per (noisy dataset, system), all 12 measures from one
   running maximum, vectorised over systems, queries and ranks, two trials per step.
2. The same with 25 trials per step (the default before issue 13): vectorising over
   trials as well fills memory and leaves the CPU cache, so it is slower, not faster.
3. A per-(trial, system) re-evaluation loop, as a per-run evaluation script would do
   (timed on 5 trials and extrapolated), with the same fireeval measures.

Whole process (``--chapter``): ``fireeval run axiou_label_noise -p datasets
'["charades_sta"]'`` as a user runs it (Python and kernel start-up, loading, the
experiment, charts, writing the notebook), timed as a subprocess.

Uses the real Charades-STA lists when present, else the synthetic stand-in of the same size.
"""
import subprocess
import sys
import tempfile
import time

import numpy as np

from fireeval.core.moments import MEASURES, score_all, temporal_iou
from fireeval.datasets import has_data
from fireeval.vmr import noise

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
    print(f"data: {name}; {len(SIGMAS)} sigma x {TRIALS} trials x {len(preds)} systems x {len(gt)} queries x "
          f"{len(MEASURES)} measures; numpy {np.__version__}")
    t = time.perf_counter()
    clean, noisy = noise.noise_experiment(preds, gt, SIGMAS, TRIALS, seed=0)
    err = noise.noise_error(clean, noisy)
    fast = time.perf_counter() - t
    print(f"1. in-process noise_experiment + noise_error (2 trials per step): {fast:.2f} s")

    gts = noise.simulate_annotations(gt, 2.0, 25, rng=0)
    t = time.perf_counter()
    wide = noise.system_means(preds, gts, chunk=25)
    t_wide = (time.perf_counter() - t) / 25
    t = time.perf_counter()
    narrow = noise.system_means(preds, gts, chunk=2)
    t_narrow = (time.perf_counter() - t) / 25
    assert np.array_equal(wide, narrow)
    print(f"2. in-process system_means per trial: 25 trials per step {t_wide * 1e3:.0f} ms, 2 per step "
          f"{t_narrow * 1e3:.0f} ms (ratio {t_narrow / t_wide:.2f}x; identical results)")

    few = 5
    t = time.perf_counter()
    naive(preds, gt, SIGMAS[:1], few)
    per = (time.perf_counter() - t) / few
    slow = per * TRIALS * len(SIGMAS)
    print(f"3. in-process per-(trial, system) loop: {per:.3f} s per trial -> {slow:.1f} s extrapolated; "
          f"experiment / loop = {fast / slow:.2f}x")
    small = noise._draws(2, 5, len(gt), 1)
    gts2 = noise.simulate_annotations(gt, 2.0, 2, draws=small)
    loop = np.array([[[score_all(temporal_iou(p, g))[m].mean() for m in MEASURES] for p in preds] for g in gts2])
    print(f"   max |experiment - loop| on 2 trials: {np.abs(noise.system_means(preds, gts2) - loop).max():.2e}")
    print("   error at sigma = 4 s:", {m: round(float(v), 4) for m, v in zip(MEASURES, err[-1])})

    if "--chapter" in sys.argv:
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "fireeval", "run", "axiou_label_noise", "-p", "datasets",
                            '["charades_sta"]', "--output", out], check=True, capture_output=True)
            print(f"4. whole process, fireeval run axiou_label_noise (Charades-STA only): "
                  f"{time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
