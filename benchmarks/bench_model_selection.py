"""Time the model-selection protocol (axiou_model_selection): whole process first, then the parts.

Run: ``python benchmarks/bench_model_selection.py [--no-whole-process]``.

1. Whole process: ``python -m fireeval run axiou_model_selection`` with default parameters
   (>= 500 variants x 12 measures, 100 video-grouped splits), as a user runs it (see
   _timing.CHAPTER_INCLUDES). Target: <= 60 s on the 2-core machine.
2. In-process (data loaded, modules imported):
   - family construction + scoring: every variant built and scored once per query
     (fireeval.vmr.variants.family_scores), duplicates dropped;
   - selection over the splits: per-video sums, every split as one matrix product, the
     above-average-everywhere rates (fireeval.vmr.selection.selection_experiment);
   - peer: the plain numpy script, boolean-mask means of every variant and measure on
     the validation and test halves of each split (timed on 3 splits, extrapolated).
"""
import argparse
import time

import numpy as np

import _timing
from fireeval.vmr import baselines, selection, variants
from fireeval.datasets import has_data
from fireeval.core.moments import MEASURES

N_SPLITS = 100


def inputs():
    if has_data("charades_sta/charades_sta_test.txt", "charades_sta/charades_sta_train.txt"):
        from fireeval.datasets import charades

        gt_frame, train = charades.load_ground_truth(), charades.load_ground_truth("train")
        lists = charades.load_all_predictions()
        prior = baselines.normalised_moments(train[["start", "end"]].to_numpy(), train["length"].to_numpy())
        return ("Charades-STA (real)", lists, ("2DTAN_noNMS", "2DTAN_randomized_noNMS"), gt_frame[["start", "end"]].to_numpy(),
                gt_frame["length"].to_numpy(), gt_frame["video"].to_numpy(), prior)
    from fireeval.synthetic.moment_collection import simulate_moments

    gt, lengths, lists = simulate_moments(3720, 6, seed=0)
    tgt, tlen, _ = simulate_moments(5000, 1, seed=1)
    return ("synthetic stand-in", lists, ("system_1", "system_2"), gt, lengths, np.arange(len(gt)) // 3,
            baselines.normalised_moments(tgt, tlen))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _timing.add_flag(parser)
    args = parser.parse_args()
    _timing.header()
    print(f"peer of the selection: a plain boolean-mask loop over splits with {_timing.versions('numpy')}")

    if not args.no_whole_process:
        print("\n== Whole process ==")
        _timing.chapter("axiou_model_selection", target=60)

    print("\n== In process (data loaded, modules imported) ==")
    name, lists, bases, gt, lengths, videos, prior = inputs()
    t0 = time.perf_counter()
    table, scores = variants.family_scores(lists, gt, lengths, nms_bases=bases, prior=prior,
                                           scales=(0.75, 0.9, 1.0, 1.1, 1.25, 1.5))
    keep = selection.unique_variants(scores)
    scores = scores[keep]
    t1 = time.perf_counter()
    out = selection.selection_experiment(scores, videos, MEASURES, n_splits=N_SPLITS, seed=0)
    t2 = time.perf_counter()
    print(f"data: {name}; {len(table)} variants built, {len(keep)} distinct; {N_SPLITS} splits")
    print(f"family construction + per-query scoring of every variant: {t1 - t0:6.2f} s")
    print(f"selection over {N_SPLITS} splits (grouped matrix product + rates): {t2 - t1:6.2f} s")
    mask = out["val_mask"]
    few = 3
    t = time.perf_counter()
    for s in range(few):  # plain: masked means of every variant and measure, per split
        scores[:, :, mask[s]].mean(axis=-1), scores[:, :, ~mask[s]].mean(axis=-1)
    per = (time.perf_counter() - t) / few
    print(f"plain masked means: {per:.3f} s per split -> {per * N_SPLITS:6.1f} s est. for {N_SPLITS}; "
          f"plain / fireeval = {per * N_SPLITS / (t2 - t1):.1f}x")
    val0 = scores[:, :, mask[0]].astype(float).mean(axis=-1)
    print(f"  max |grouped - masked| on split 0: {np.abs(out['val_means'][0] - val0).max():.2e}")
    print("  above-average-everywhere rate:", {m: round(v, 2) for m, v in out["rate"].items()})


if __name__ == "__main__":
    main()
    print(_timing.footer())
