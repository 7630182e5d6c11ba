"""Benchmark ``fireeval evaluate-similarity`` against a ten-line numpy argsort script (issue 38).

    .venv/bin/python benchmarks/bench_evaluate_similarity.py [--size 1000] [--repeats 5]

Peer: the numpy script below (``PEER``): load the ``.npy`` matrix and the id lists, ``np.argsort``
each row (stable), find each query's positive, print R@1/5/10, MdR and MnR. It is what a user
would write instead; ``fireeval evaluate-similarity`` also checks the inputs (ids, shape, finite
scores), checks the matrix for tied fill blocks and prints a table. Both read the same seeded
float32 ``SIZE x SIZE`` matrix (one positive per query, on the diagonal) and must print the same
R@K, MdR and MnR (checked).

1. Whole process, as a user runs it (interpreter start-up, imports, reading, scoring, printing):
   median of ``--repeats`` paired runs; CPU = user + sys, peak = peak resident memory
   (benchmarks/_timing.py). Targets: CPU <= 1.5x the peer's, peak memory <= 1.5x.
2. In-process (modules imported, one warm interpreter): the scoring call of each side
   (``retrieval.evaluate_similarity`` vs the script's argsort and ranks), median of 5.

ranx and ir_measures score TREC-style runs, not similarity matrices: they are not peers here
(benchmarks/bench_metrics.py has them).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402

PEER = """import sys
import numpy as np
sim = np.load(sys.argv[1])
queries, videos = open(sys.argv[2]).read().split(), open(sys.argv[3]).read().split()
column = {v: j for j, v in enumerate(videos)}
gt = np.array([column[q] for q in queries])
order = np.argsort(-sim, axis=1, kind="stable")
ranks = 1 + np.argmax(order == gt[:, None], axis=1)
print(" ".join(f"R@{k} {np.mean(ranks <= k):.4f}" for k in (1, 5, 10)), f"MdR {np.median(ranks):.1f} MnR {ranks.mean():.1f}")
"""


def _inputs(folder: Path, size: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    sim = rng.standard_normal((size, size)).astype(np.float32)
    sim[np.arange(size), np.arange(size)] += 2.0  # the positive tends to rank high, as a model's would
    np.save(folder / "sim.npy", sim)
    (folder / "ids.txt").write_text("".join(f"video{i}\n" for i in range(size)))
    (folder / "peer.py").write_text(PEER)
    return folder / "sim.npy", folder / "ids.txt", folder / "peer.py"



def _same_numbers(ours_cmd, peer_cmd):
    ours = subprocess.run(ours_cmd, capture_output=True, text=True, check=True).stdout.splitlines()[2].split()
    peer = subprocess.run(peer_cmd, capture_output=True, text=True, check=True).stdout.split()
    # ours: "sim R@1 R@5 R@10 MdR MnR tied"; peer: "R@1 v R@5 v R@10 v MdR v MnR v"
    assert [float(v) for v in ours[1:6]] == [float(v) for v in peer[1::2]], (ours, peer)
    return " ".join(peer)


def _in_process(sim_path, ids_path, repeats=5):
    from fireeval.datasets import similarity_inputs as si
    from fireeval.t2v import retrieval

    ids, _ = si.read_ids(ids_path, "ids")
    sim = si.check_matrix(si.read_matrix(sim_path), ids, ids, str(sim_path))
    positives = si.positives_matrix(ids, ids)

    def ours():
        retrieval.evaluate_similarity({"sim": sim}, positives)

    def peer():
        gt = np.arange(len(ids))
        order = np.argsort(-sim, axis=1, kind="stable")
        ranks = 1 + np.argmax(order == gt[:, None], axis=1)
        return [np.mean(ranks <= k) for k in (1, 5, 10)], np.median(ranks), ranks.mean()

    def timed(fn):
        times = []
        for _ in range(repeats):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return statistics.median(times)

    return timed(ours), timed(peer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000, help="queries = videos (default 1000, MSR-VTT 1k-A)")
    parser.add_argument("--repeats", type=int, default=5, help="paired whole-process runs (median)")
    _timing.add_flag(parser)
    args = parser.parse_args()

    print(_timing.byte_compile())
    _timing.header()
    print(f"peer: a ten-line numpy script (np.argsort per row, stable; numpy {np.__version__}); "
          "ranx / ir_measures: not peers (they score TREC runs, not matrices)")
    with tempfile.TemporaryDirectory() as tmp:
        sim, ids, script = _inputs(Path(tmp), args.size)
        ours_cmd = [sys.executable, "-m", "fireeval", "evaluate-similarity", str(sim), "--queries", str(ids),
                    "--videos", str(ids)]
        peer_cmd = [sys.executable, str(script), str(sim), str(ids), str(ids)]
        print(f"same R@1/5/10, MdR, MnR on both sides: {_same_numbers(ours_cmd, peer_cmd)}")
        if not args.no_whole_process:
            print(f"\n1. whole process, {args.size} x {args.size} float32, median of {args.repeats}")
            ours, peer = [], []
            for _ in range(args.repeats):  # paired: each pair under the same load
                ours.append(_timing.run(ours_cmd))
                peer.append(_timing.run(peer_cmd))
            med = {"ours": _timing.median_figures(ours), "peer": _timing.median_figures(peer)}
            print(f"  fireeval evaluate-similarity  {med['ours']}")
            print(f"  numpy argsort script (peer)   {med['peer']}")
            print(f"  {_timing.target_line('CPU, fireeval / numpy script', med['ours'].cpu / med['peer'].cpu, 1.5)}")
            print(f"  {_timing.target_line('peak memory, fireeval / numpy script', med['ours'].peak_mb / med['peer'].peak_mb, 1.5)}")
            print(f"  wall (not a target; the machine is shared): {med['ours'].wall / med['peer'].wall:.2f}x")
        t_ours, t_peer = _in_process(sim, ids)
        print(f"\n2. in-process (imports and reading excluded), CPU median of 5: fireeval retrieval.evaluate_similarity "
              f"{t_ours:.3f} s, numpy argsort + ranks {t_peer:.3f} s: {t_ours / t_peer:.2f}x (no target; "
              f"fireeval adds the tie check) ({_timing.load()})")


if __name__ == "__main__":
    main()
    print(_timing.footer())
