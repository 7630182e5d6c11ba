"""Time the caption proxies on real captions: whole processes first, then the parts.

Peer: NLTK's METEOR, ``nltk.translate.meteor_score.single_meteor_score`` called per pair
(what Wray et al.'s reference code does), in a plain script that loads
``nltk.corpus.wordnet`` itself. fireeval's ``nlp.meteor_matrix`` must give the same
numbers (checked here to 1e-9; tests/t2v/test_nlp.py checks 1e-12).

Figures (wall seconds; "cpu" = user + sys of the child processes, which is what a
loaded, shared machine does not inflate; "peak" = peak resident memory of the largest
child process; measured by benchmarks/_timing.py):

1. Whole process, as a user runs it:
   - the chapter: ``python -m fireeval run semantic_similarity`` on the real data
     (interpreter + papermill + kernel start-up, imports, data loading, WordNet load,
     tagging, all proxies, METEOR matrices, nDCG, charts, writing the notebook);
   - METEOR of R x 1000 MSR-VTT caption pairs: ``python -c`` with fireeval vs the NLTK
     per-pair script (each: interpreter start, imports, WordNet load, scoring).
2. In-process (one warm interpreter; WordNet already loaded unless stated):
   WordNet load, tagging every distinct caption, BoW/PoS/SYN matrices (targets from
   issue 6: <= 30 s each), the chapter's two METEOR matrices, METEOR per pair vs NLTK.

Run: python benchmarks/bench_similarity.py [--no-whole-process] [--skip-chapter] [--peer-rows 40]
(needs ../shared/data or FIREEVAL_DATA, and WordNet).
"""
import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import _timing
from fireeval.t2v import nlp
from fireeval.t2v import similarity as sim
from fireeval.datasets import epic, msrvtt

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


FIREEVAL_METEOR = """
import sys, json, numpy as np
from fireeval.t2v import nlp
refs, hyps, out = json.load(open(sys.argv[1])) + [sys.argv[2]]
np.save(out, nlp.meteor_matrix(refs, hyps))
"""

NLTK_METEOR = """
import sys, json, re, numpy as np
from nltk.translate.meteor_score import single_meteor_score
refs, hyps, out = json.load(open(sys.argv[1])) + [sys.argv[2]]
tok = lambda c: re.findall(r"[a-z0-9]+(?:'[a-z]+)?", c.lower())  # fireeval's tokenizer
np.save(out, np.array([[single_meteor_score(tok(r), tok(h)) if tok(r) and tok(h) else 0.0 for h in hyps]
                       for r in refs]))
"""


def whole_process_meteor(refs, hyps):
    where = nlp.ensure_wordnet()
    env = dict(os.environ)
    if where != "nltk_data":  # the peer finds the same WordNet files through NLTK_DATA
        env["NLTK_DATA"] = str(Path(where).parents[1])
    with tempfile.TemporaryDirectory() as tmp:
        pairs = Path(tmp) / "pairs.json"
        pairs.write_text(json.dumps([refs, hyps]))
        ours = _timing.run([sys.executable, "-c", FIREEVAL_METEOR, pairs, Path(tmp) / "ours.npy"], env)
        peer = _timing.run([sys.executable, "-c", NLTK_METEOR, pairs, Path(tmp) / "peer.npy"], env)
        diff = float(np.abs(np.load(Path(tmp) / "ours.npy") - np.load(Path(tmp) / "peer.npy")).max())
    return ours, peer, diff


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    _timing.add_flag(parser)
    parser.add_argument("--skip-chapter", action="store_true", help="skip only the whole-chapter run (~30-70 s)")
    parser.add_argument("--peer-rows", type=int, default=40, help="METEOR references for the peer comparison")
    args = parser.parse_args()

    from importlib.metadata import version

    import nltk

    print(f"Python {platform.python_version()}, numpy {np.__version__}, nltk {nltk.__version__} (peer: "
          f"single_meteor_score per pair), textblob {version('textblob')}; {_timing.load()}")
    msr = list(msrvtt.load_queries()["sentence"])
    msr_videos = msrvtt.load_video_captions_1ka()
    ek = list(epic.load_captions()["narration"])

    if not args.no_whole_process:
        print("\n== Whole process (wall s, cpu s = user + sys, peak memory) ==")
        if not args.skip_chapter:
            whole = _timing.chapter("semantic_similarity")
            print(f"  {_timing.target_line('chapter cpu', whole.cpu, 25, ' s')}")
            print(f"  {_timing.target_line('chapter wall', whole.wall, 25, ' s')}")
        rows = msr[:args.peer_rows]
        ours, peer, diff = whole_process_meteor(rows, msr)
        print(f"METEOR of {len(rows)} x {len(msr)} MSR-VTT pairs, python -c script:\n"
              f"  fireeval nlp.meteor_matrix {ours}\n  NLTK single_meteor_score per pair {peer}\n"
              f"  NLTK / fireeval = {peer.wall / ours.wall:.0f}x wall; max |diff| = {diff:.1e}")
        print("  each includes interpreter start-up, imports, WordNet load, reading the pairs, scoring, saving")

    print("\n== In-process (one warm interpreter) ==")
    from nltk.corpus import wordnet as nltk_wordnet

    _, t_ours = timed(nlp.wordnet)
    _, t_nltk = timed(lambda: nltk_wordnet.ensure_loaded())  # the attribute access loads it
    print(f"WordNet load: fireeval.t2v.nlp.wordnet() {t_ours:.1f} s vs nltk.corpus.wordnet {t_nltk:.1f} s "
          f"(same files; NLTK also maps WordNet 3.0 ids for OMW at load)")
    distinct = list(dict.fromkeys(msr + [c for v in msr_videos for c in v]))
    nlp._pos_tag_cached.cache_clear()
    _, t = timed(lambda: [nlp.pos_tag(c) for c in distinct])
    _, t_again = timed(lambda: [nlp.pos_tag(c) for c in distinct])
    print(f"pos_tag on {len(distinct)} distinct MSR-VTT captions: {t:.1f} s first, {t_again:.2f} s again (memoised)")

    cases = [("MSR-VTT captions 1000x1000", msr, msr, nlp.pos_tag),
             ("EPIC captions 3842x3842", ek, ek, nlp.ego_pos_tag)]
    print(f"{'matrix':40s} {'proxy':6s} {'seconds':>8s}  (fresh tagger/Lesk caches) target <= 30 s each")
    for name, a, b, tagger in cases:
        for proxy in ("bow", "pos", "syn"):
            # Fresh caches so tagging and Lesk are timed too, not only the sparse product.
            for cache in (nlp._senses, nlp._pos_tag_cached, nlp._caption_verb_noun):
                cache.cache_clear()
            s, t = timed(sim.similarity_matrix, a, b, proxy, tagger=tagger)
            print(f"{name:40s} {proxy:6s} {t:8.2f}  {_timing.verdict(t, 30)}  shape={s.shape}  ({_timing.load()})")
    for proxy in ("bow", "pos", "syn"):
        s, t = timed(sim.query_relevance, msr_videos, msr, proxy)
        print(f"{'MSR-VTT video-level (20 caps) 1000x1000':40s} {proxy:6s} {t:8.2f}  {_timing.verdict(t, 30)}  "
              f"({_timing.load()})")

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

    # METEOR: the chapter's two matrices (fresh stem/synonym caches), then NLTK per pair on a sample of them.
    nlp._meteor_synonyms.cache_clear()
    nlp._stem.cache_clear()
    rng = np.random.default_rng(0)
    sample = sorted(rng.choice(len(msr), 250, replace=False))
    hyps = [msr[i] for i in sample]
    ours, t_msr = timed(nlp.meteor_matrix, msr, hyps)
    ek_rows = sorted(rng.choice(len(ek), 150, replace=False))
    _, t_ek = timed(nlp.meteor_matrix, [ek[i] for i in ek_rows], ek)
    per_pair = (t_msr + t_ek) / (ours.size + 150 * len(ek))
    print(f"METEOR as in the chapter: MSR-VTT 1000 x 250 {t_msr:.2f} s, EPIC 150 x 3842 {t_ek:.2f} s "
          f"({1e6 * per_pair:.1f} us/pair, including the stem and synonym look-ups)")
    from nltk.translate.meteor_score import single_meteor_score

    n_refs = 8
    start = time.perf_counter()
    peer = np.array([[single_meteor_score(sim.tokenize(r), sim.tokenize(h)) for h in hyps] for r in msr[:n_refs]])
    t_peer = (time.perf_counter() - start) / peer.size
    print(f"NLTK single_meteor_score on {peer.size} of those MSR-VTT pairs: {1e6 * t_peer:.0f} us/pair, "
          f"{t_peer / per_pair:.0f}x fireeval's; max |diff| = {np.abs(ours[:n_refs] - peer).max():.1e}. "
          f"Full MSR-VTT (20 refs/video x 1000 x 1000 = 2e7 pairs): fireeval ~{per_pair * 2e7 / 60:.1f} min, "
          f"NLTK ~{t_peer * 2e7 / 3600:.1f} h")


if __name__ == "__main__":
    main()
    print(_timing.footer())
