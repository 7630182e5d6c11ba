"""Benchmark: load the 129 TREC-8 runs, score map, P_10 and ndcg with fireeval and pytrec_eval.

    .venv/bin/python benchmarks/bench_metrics.py [--data DIR]

Targets on a 2-core machine: loading all 129 runs <= 10 s; fireeval >= 5x faster than
pytrec_eval on the same loaded data. pytrec_eval needs nested dicts; building them is
timed separately and not charged to either side's scoring time.
"""
import argparse
import time

import numpy as np
import pytrec_eval

from fireeval.datasets import data_path, trec8
from fireeval.core.evaluation import evaluate
from fireeval.core.runset import RunSet
from fireeval.core.trec import read_run

MEASURES = ["map", "P_10", "ndcg"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="data root holding trec8_adhoc/")
    args = parser.parse_args()

    names = trec8.run_names()
    paths = [data_path(f"trec8_adhoc/runs/input.{n}.gz", args.data) for n in names]
    t0 = time.perf_counter()
    runs = RunSet.read(paths, names=names)
    qrels = trec8.load_qrels(args.data)
    t_load = time.perf_counter() - t0
    print(f"load 129 runs + qrels (parse, validate, trec_eval order, one array): {t_load:6.2f} s   target <= 10 s")

    t0 = time.perf_counter()
    ours = evaluate(runs, qrels, MEASURES)
    t_ours = time.perf_counter() - t0

    t0 = time.perf_counter()
    frames = {n: read_run(p) for n, p in zip(names, paths)}
    run_dicts = {n: {q: dict(zip(g["docno"], g["score"])) for q, g in f.groupby("query")} for n, f in frames.items()}
    qrels_dict = {q: dict(zip(g["docno"], g["relevance"].astype(int))) for q, g in qrels.frame.groupby("query")}
    t_dicts = time.perf_counter() - t0

    t0 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, {"map", "P", "ndcg"})
    theirs = {n: evaluator.evaluate(d) for n, d in run_dicts.items()}
    t_theirs = time.perf_counter() - t0

    worst = max(abs(ours.values[m][i][j] - theirs[n][t][m])
                for m in MEASURES for i, n in enumerate(names) for j, t in enumerate(ours.topics))
    print(f"fireeval    map+P_10+ndcg, 129 runs x 50 topics: {t_ours:6.2f} s")
    print(f"pytrec_eval map+P_10+ndcg, same data:            {t_theirs:6.2f} s  (+ {t_dicts:.2f} s to build its dicts)")
    print(f"speed-up: {t_theirs / t_ours:5.1f}x   target >= 5x   (max |difference| {worst:.1e})")


if __name__ == "__main__":
    main()
