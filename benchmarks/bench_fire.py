"""Timings for the FIRE chapter (false_negatives): whole process first, then the parts.

Run: ``python benchmarks/bench_fire.py [--no-whole-process] [--resamples 10000]``. Uses the
real MSR-VTT runs when present, else the seeded simulation. Targets (issue 4): the whole
chapter on real data <= 2 min; the bootstrap (3 sizes x 10,000 resamples x 4 metrics x
2 models) <= 10 s.

1. Whole process: ``python -m fireeval run false_negatives`` with default parameters, as
   a user runs it (see _timing.CHAPTER_INCLUDES for what it includes).
2. In-process (one warm interpreter, data already loaded, modules imported): each step
   of the chapter, named with what it includes. The bootstrap's peer is the obvious
   plain numpy script: compute the per-query scores once, then for every resample take
   the mean of the resampled queries' scores in a Python loop (same random draws, so the
   numbers must agree to 1e-12).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import _timing
from fireeval.t2v import false_negatives as fire
from fireeval.stats import resampling
from fireeval.datasets import has_data, msrvtt


def timed(label, fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<74s} {best:8.3f} s")
    return out, best


def plain_bootstrap(per_query, sizes, q, n_resamples, rng=0, chunk=1000):
    """The plain script: one resample at a time, mean of the resampled per-query scores.

    Draws its indices as fireeval does (blocks of ``chunk`` resamples, int32), so the
    result is comparable number for number.
    """
    rng = np.random.default_rng(rng)
    full = per_query.mean(axis=-1)
    out = []
    for size in sizes:
        deviations = []
        for start in range(0, n_resamples, chunk):
            block = resampling.bootstrap_indices(per_query.shape[-1], size, min(chunk, n_resamples - start), rng)
            for idx in block:
                deviations.append(np.abs(per_query[..., idx].mean(axis=-1) - full))
        out.append(np.quantile(np.stack(deviations, axis=-1), q, axis=-1))
    return np.stack(out, axis=-1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _timing.add_flag(parser)
    parser.add_argument("--notebook", action="store_true", help=argparse.SUPPRESS)  # old opt-in; now the default
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()
    _timing.header()
    print(f"peer of the bootstrap: a plain Python loop over resamples with {_timing.versions('numpy')}")

    if not args.no_whole_process:
        print("\n== Whole process ==")
        _timing.chapter("false_negatives", target=120)

    print("\n== In process (data loaded, modules imported) ==")
    files = [msrvtt.QUERIES, msrvtt.CAPTIONS["test"], msrvtt.MODELS["clip4clip"], msrvtt.MODELS["InternVideo2"]]
    if has_data(*files):
        q = msrvtt.load_queries()
        queries, captions = q["sentence"].tolist(), msrvtt.load_video_captions_1ka()
        sims = {m: msrvtt.load_similarity(m) for m in ("clip4clip", "InternVideo2")}
        print("data: real MSR-VTT 1k-A (clip4clip, InternVideo2)")
    else:
        from fireeval.synthetic.fire_study import simulate_fire

        sim = simulate_fire(seed=0)
        queries, captions = sim.queries, sim.data.captions
        sims = {m: sim.similarity[m] for m in ("ModelA", "ModelB")}
        print("data: SYNTHETIC simulation (real MSR-VTT runs not found)")
    n = len(queries)
    original = np.eye(n, dtype=bool)

    lists, _ = timed("ranked lists: stable full sort of 2 similarity matrices, top 100",
                     lambda: {m: fire.ranked_lists(s, depth=100) for m, s in sims.items()}, repeat=3)
    agree, _ = timed("proxy agreement: tokenise, BoW, max over 20 captions, all pairs",
                     lambda: fire.caption_agreement(queries, captions, own_video=np.arange(n)))
    judgements, _ = timed("pool top 10 of 2 models + judge by agreement >= 0.4",
                          lambda: fire.judge_pool(lists, n, agree >= 0.4), repeat=3)
    corrected = judgements.positives(original)
    metrics = ["C@1", "C@5", "C@10", "AP@20"]
    per_query, _ = timed("per-query scores: 2 models x 4 metrics", lambda: np.stack([np.stack([
        fire.per_query_scores(lists[m], corrected)[k] for k in metrics]) for m in lists]), repeat=3)

    sizes = [500, 1000, 3000]
    ours, fast = timed(f"bootstrap p95, fireeval (count matrix product): 3 sizes x {args.resamples:,} resamples",
                       lambda: resampling.bootstrap_deviation_quantile(per_query, sizes, 0.95, args.resamples, rng=0))
    plain, slow = timed(f"bootstrap p95, plain numpy loop over the same {args.resamples:,} resamples per size",
                        lambda: plain_bootstrap(per_query, sizes, 0.95, args.resamples, rng=0))
    print(f"  plain / fireeval = {slow / fast:.1f}x; max |difference| {np.abs(ours - plain).max():.1e}")
    print(f"  {_timing.target_line('bootstrap, in process', fast, 10, ' s')}")

    if has_data(*files):
        from fireeval.t2v.caption_overlap import train_test_similarity

        allcaps = {**msrvtt.load_video_captions("test"), **msrvtt.load_video_captions("val")}
        inside = set(msrvtt.load_queries()["video_id"])
        train = [c for v, cs in allcaps.items() if v not in inside for c in cs]
        timed(f"train-test overlap: {n} test x {len(train):,} train captions, tokenise + BoW",
              lambda: train_test_similarity(queries, train))


if __name__ == "__main__":
    main()
    print(_timing.footer())
