"""Timings for the FIRE chapter: bootstrap, pooling, proxy annotator, caption overlap.

Run: ``python benchmarks/bench_fire.py [--notebook]``. Uses the real MSR-VTT runs when
present, else the seeded simulation. Targets (issue 4): the full bootstrap
(3 sizes x 10,000 resamples x 4 metrics x 2 models) <= 10 s; the whole notebook on
real data <= 2 min (``--notebook`` runs it once through ``fireeval run``).

The bootstrap is compared with naive re-evaluation: for every resample, gather the
resampled queries' ranked lists and recompute the metrics from them (timed on a
subset of resamples and extrapolated).
"""
from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from fireeval.t2v import fire
from fireeval.stats import resampling
from fireeval.datasets import has_data, msrvtt


def timed(label, fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<62s} {best:8.3f} s")
    return out, best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebook", action="store_true", help="also time the whole notebook (default parameters)")
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()

    files = [msrvtt.QUERIES, msrvtt.CAPTIONS["test"], msrvtt.MODELS["clip4clip"], msrvtt.MODELS["InternVideo2"]]
    if has_data(*files):
        q = msrvtt.load_queries()
        queries, captions = q["sentence"].tolist(), msrvtt.load_video_captions_1ka()
        sims = {m: msrvtt.load_similarity(m) for m in ("clip4clip", "InternVideo2")}
        print("data: real MSR-VTT 1k-A (clip4clip, InternVideo2)")
    else:
        from fireeval.synthetic.fire import simulate_fire

        sim = simulate_fire(seed=0)
        queries, captions = sim.queries, sim.data.captions
        sims = {m: sim.similarity[m] for m in ("ModelA", "ModelB")}
        print("data: SYNTHETIC simulation (real MSR-VTT runs not found)")
    n = len(queries)
    original = np.eye(n, dtype=bool)

    lists, _ = timed("ranked lists (2 models, stable full sort)", lambda: {m: fire.ranked_lists(s, depth=100)
                                                                          for m, s in sims.items()}, repeat=3)
    agree, _ = timed("proxy agreement, BoW, max over 20 captions (all pairs)",
                     lambda: fire.caption_agreement(queries, captions, own_video=np.arange(n)))
    judgements, _ = timed("pool top 10 + judge", lambda: fire.judge_pool(lists, n, agree >= 0.4), repeat=3)
    corrected = judgements.positives(original)
    metrics = ["C@1", "C@5", "C@10", "AP@20"]
    per_query, _ = timed("per-query scores (2 models x 4 metrics)", lambda: np.stack([np.stack([
        fire.per_query_scores(lists[m], corrected)[k] for k in metrics]) for m in lists]), repeat=3)

    sizes = [500, 1000, 3000]
    _, fast = timed(f"bootstrap p95: 3 sizes x {args.resamples:,} x 4 metrics x 2 models",
                    lambda: resampling.bootstrap_deviation_quantile(per_query, sizes, 0.95, args.resamples, rng=0))

    # Naive: re-evaluate the metrics from the resampled ranked lists for each resample.
    rng = np.random.default_rng(0)
    n_naive = 100
    stacked = np.stack([lists[m] for m in lists])

    def naive():
        for size in sizes:
            for _ in range(n_naive):
                idx = rng.integers(0, n, size)
                for mi in range(len(stacked)):
                    scores = fire.per_query_scores(stacked[mi][idx], corrected[idx])
                    _ = [scores[k].mean() for k in metrics]

    _, slow = timed(f"naive re-evaluation, {n_naive} resamples per size", naive)
    naive_full = slow * args.resamples / n_naive
    print(f"{'naive re-evaluation extrapolated to ' + format(args.resamples, ',') + ' resamples':<62s} "
          f"{naive_full:8.3f} s   (vectorised is {naive_full / fast:.1f}x faster)")
    print(f"target: bootstrap <= 10 s -> {'OK' if fast <= 10 else 'MISSED'}")

    if has_data(*files):
        from fireeval.t2v.caption_overlap import train_test_similarity

        allcaps = {**msrvtt.load_video_captions("test"), **msrvtt.load_video_captions("val")}
        inside = set(msrvtt.load_queries()["video_id"])
        train = [c for v, cs in allcaps.items() if v not in inside for c in cs]
        timed(f"train-test overlap: {n} test x {len(train):,} train captions", lambda: train_test_similarity(queries, train))

    if args.notebook:
        from fireeval.book.notebooks import execute

        with tempfile.TemporaryDirectory() as out:
            _, total = timed("whole notebook false_negatives (default parameters)",
                             lambda: execute("false_negatives", {}, out))
        print(f"target: notebook <= 120 s -> {'OK' if total <= 120 else 'MISSED'}")


if __name__ == "__main__":
    main()
