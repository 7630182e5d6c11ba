"""Time the AxIoU label-noise experiment: 4 σ x 100 trials x 6 systems x 3720 queries x 12 measures.

Run: python benchmarks/bench_label_noise.py [--no-whole-process]

1. Whole process: ``python -m fireeval run axiou_label_noise`` with default parameters
   (Charades-STA and ActivityNet Captions), as a user runs it (see
   _timing.CHAPTER_INCLUDES for what it includes).
2. In-process figures (data already loaded, modules imported; Charades-STA only):
   a. fireeval.vmr.noise.noise_experiment + noise_error, as the chapter calls them: the
      noisy annotations, IoU once per (noisy dataset, system), all 12 measures from one
      running maximum, vectorised over systems, queries and ranks, two trials per step.
   b. peer: the plain per-(trial, system) loop a per-run evaluation script would be
      (simulate the noisy annotations, then temporal_iou + score_all + mean for each
      system on each noisy dataset; timed on 5 trials and extrapolated), with numpy.
   c. design check, not a peer: system_means with 25 trials per step against the
      default 2 (the evidence cited by fireeval.vmr.noise.system_means for chunk=2).

Uses the real Charades-STA lists when present, else the synthetic stand-in of the same size.
"""
import argparse
import time

import numpy as np

import _timing
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
    from fireeval.synthetic.moment_collection import simulate_moments

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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _timing.add_flag(parser)
    parser.add_argument("--chapter", action="store_true", help=argparse.SUPPRESS)  # old opt-in; now the default
    args = parser.parse_args()
    _timing.header()
    print(f"peer: a plain per-(trial, system) loop with fireeval's measures, {_timing.versions('numpy')}")

    if not args.no_whole_process:
        print("\n== Whole process ==")
        _timing.chapter("axiou_label_noise", target=60)  # issue 38: each chapter <= 60 s

    print("\n== In process (data loaded, modules imported) ==")
    name, gt, preds = inputs()
    print(f"data: {name}; {len(SIGMAS)} sigma x {TRIALS} trials x {len(preds)} systems x {len(gt)} queries x "
          f"{len(MEASURES)} measures")
    t = time.perf_counter()
    clean, noisy = noise.noise_experiment(preds, gt, SIGMAS, TRIALS, seed=0)
    err = noise.noise_error(clean, noisy)
    fast = time.perf_counter() - t
    print(f"a. fireeval noise_experiment + noise_error (2 trials per step): {fast:6.2f} s")

    few = 5
    t = time.perf_counter()
    naive(preds, gt, SIGMAS[:1], few)
    per = (time.perf_counter() - t) / few
    slow = per * TRIALS * len(SIGMAS)
    print(f"b. plain per-(trial, system) loop: {per:.3f} s per trial -> {slow:6.1f} s est. for "
          f"{len(SIGMAS) * TRIALS} trials; plain / fireeval = {slow / fast:.2f}x")
    small = noise._draws(2, 5, len(gt), 1)
    gts2 = noise.simulate_annotations(gt, 2.0, 2, draws=small)
    loop = np.array([[[score_all(temporal_iou(p, g))[m].mean() for m in MEASURES] for p in preds] for g in gts2])
    print(f"   max |fireeval - loop| on 2 trials: {np.abs(noise.system_means(preds, gts2) - loop).max():.2e}")
    print("   error at sigma = 4 s:", {m: round(float(v), 4) for m, v in zip(MEASURES, err[-1])})

    gts = noise.simulate_annotations(gt, 2.0, 25, rng=0)
    t = time.perf_counter()
    wide = noise.system_means(preds, gts, chunk=25)
    t_wide = (time.perf_counter() - t) / 25
    t = time.perf_counter()
    narrow = noise.system_means(preds, gts, chunk=2)
    t_narrow = (time.perf_counter() - t) / 25
    assert np.array_equal(wide, narrow)
    print(f"c. design check, system_means per trial (IoU + 12 measures, 6 systems): 25 trials per step "
          f"{t_wide * 1e3:.0f} ms, 2 per step (default) {t_narrow * 1e3:.0f} ms; identical results")

if __name__ == "__main__":
    main()
    print(_timing.footer())
