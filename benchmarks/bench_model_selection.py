"""Time the model-selection protocol: >= 500 variants x 12 measures, 100 video-grouped splits.

fireeval scores each variant once per query (fireeval.vmr.variants.family_scores), sums
per video and evaluates every split as one matrix product
(fireeval.vmr.selection.selection_experiment). The naive alternative re-computes every
variant's means on every split from per-query scores with boolean masks (already
avoiding re-scoring); it is timed on a few splits and extrapolated.
Target: <= 60 s on the 2-core machine, family construction included.
"""
import time

import numpy as np

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
    from fireeval.synthetic.moments import simulate_moments

    gt, lengths, lists = simulate_moments(3720, 6, seed=0)
    tgt, tlen, _ = simulate_moments(5000, 1, seed=1)
    return ("synthetic stand-in", lists, ("system_1", "system_2"), gt, lengths, np.arange(len(gt)) // 3,
            baselines.normalised_moments(tgt, tlen))


def main():
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
    print(f"family construction + scoring: {t1 - t0:.2f} s; selection over {N_SPLITS} splits: {t2 - t1:.2f} s; "
          f"total {t2 - t0:.2f} s (target <= 60 s)")
    mask = out["val_mask"]
    few = 3
    t = time.perf_counter()
    for s in range(few):  # naive: masked means of every variant and measure, per split
        scores[:, :, mask[s]].mean(axis=-1), scores[:, :, ~mask[s]].mean(axis=-1)
    per = (time.perf_counter() - t) / few
    print(f"naive masked means: {per:.3f} s per split -> {per * N_SPLITS:.1f} s for {N_SPLITS}; "
          f"ratio {per * N_SPLITS / (t2 - t1):.1f}x vs the grouped matrix product")
    val0 = scores[:, :, mask[0]].astype(float).mean(axis=-1)
    print(f"max |grouped - masked| on split 0: {np.abs(out['val_means'][0] - val0).max():.2e}")
    print("above-average-everywhere rate:", {m: round(v, 2) for m, v in out["rate"].items()})


if __name__ == "__main__":
    main()
