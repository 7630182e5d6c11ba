"""Time the caption-proxy matrices on real captions (targets from issue 6).

Targets: BoW / PoS / SYN matrices for 1000 x 1000 MSR-VTT and 3842 x 3842 EPIC-KITCHENS-100
captions <= 30 s each on the 2-core machine. METEOR's cost is reported per pair (it loops
in Python), next to NLTK's plain single_meteor_score loop. The sparse set-IoU is also
compared with a naive Python double loop over pairs on a sample, extrapolated.

Run: python benchmarks/bench_similarity.py   (needs ../shared/data or FIREEVAL_DATA, and WordNet)
"""
import time

import numpy as np

from fireeval.t2v import nlp
from fireeval.t2v import similarity as sim
from fireeval.datasets import epic, msrvtt


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def main():
    start = time.perf_counter()
    nlp.wordnet()
    print(f"WordNet load (once per process): {time.perf_counter() - start:.1f} s")
    msr = list(msrvtt.load_queries()["sentence"])
    msr_videos = msrvtt.load_video_captions_1ka()
    ek = list(epic.load_captions()["narration"])
    cases = [("MSR-VTT captions 1000x1000", msr, msr, nlp.pos_tag),
             ("EPIC captions 3842x3842", ek, ek, nlp.ego_pos_tag)]
    print(f"{'matrix':34s} {'proxy':6s} {'seconds':>8s}  target <= 30 s")
    for name, a, b, tagger in cases:
        for proxy in ("bow", "pos", "syn"):
            # Fresh caches so tagging and Lesk are timed too, not only the sparse product.
            nlp._senses.cache_clear()
            s, t = timed(sim.similarity_matrix, a, b, proxy, tagger=tagger)
            print(f"{name:34s} {proxy:6s} {t:8.2f}  {'ok' if t <= 30 else 'SLOW'}  shape={s.shape}")
    for proxy in ("bow", "pos", "syn"):
        s, t = timed(sim.query_relevance, msr_videos, msr, proxy)
        print(f"{'MSR-VTT video-level (20 caps) 1000x1000':34s} {proxy:6s} {t:8.2f}  {'ok' if t <= 30 else 'SLOW'}")

    # Naive pairwise IoU on a sample, extrapolated to 3842^2.
    sets = [sim.content_words(c) for c in ek]
    n = 300
    start = time.perf_counter()
    for x in sets[:n]:
        for y in sets:
            u = len(x | y)
            _ = len(x & y) / u if u else 0.0
    naive = (time.perf_counter() - start) * len(sets) / n
    _, fast = timed(sim.set_iou_matrix, sets, sets)
    print(f"set-IoU 3842x3842: sparse {fast:.2f} s vs naive Python pair loop ~{naive:.1f} s "
          f"(extrapolated from {n} rows): {naive / fast:.0f}x")

    # METEOR: cost per pair, cached WordNet/stemmer vs NLTK's plain loop.
    from nltk.translate.meteor_score import single_meteor_score

    refs, hyps = msr[:40], msr[:500]
    _, t = timed(nlp.meteor_matrix, refs, hyps)
    start = time.perf_counter()
    for r in refs[:10]:
        for h in hyps:
            single_meteor_score(sim.tokenize(r), sim.tokenize(h))
    plain = (time.perf_counter() - start) / (10 * len(hyps))
    per = t / (len(refs) * len(hyps))
    print(f"METEOR: {1e6 * per:.0f} us/pair (cached WordNet + stems) vs {1e6 * plain:.0f} us/pair plain NLTK; "
          f"1000x1000 ~{per * 1e6:.0f} s, EPIC 3842x3842 ~{per * 3842 ** 2 / 60:.0f} min, "
          f"MSR-VTT 20 refs/video x 1000 x 1000 ~{per * 2e7 / 3600:.1f} h")


if __name__ == "__main__":
    main()
