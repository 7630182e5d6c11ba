"""``fireeval evaluate``: score TREC runs against qrels, trec_eval style."""
from __future__ import annotations

import sys
import warnings

__all__ = ["add"]


def add(sub):
    p = sub.add_parser("evaluate", help="score a TREC run against qrels, trec_eval style",
                       description="Print 'measure<TAB>topic<TAB>value' lines, 'all' for the mean over topics.")
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="measure name, repeatable (default: map P_5 P_10 recall_10 ndcg ndcg_cut_10 "
                        "recip_rank correct@1 correct@5 correct@10)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print one line per topic")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over all qrels topics, missing ones scoring 0 (trec_eval -c)")

    def evaluate(args):
        from fireeval.core.evaluation import DEFAULT_MEASURES, evaluate as score
        from fireeval.core.judgements import Qrels
        from fireeval.core.runset import RunSet

        qrels = Qrels.read(args.qrels)
        runs = RunSet.read([args.run], names=["run"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scores = score(runs, qrels, args.measure or DEFAULT_MEASURES, complete=args.complete)
        for w in caught:
            print(f"warning: {args.run}: {w.message}", file=sys.stderr)
        for measure, values in scores.values.items():
            if args.per_query:
                for topic, value in zip(scores.topics, values[0]):
                    print(f"{measure:<16}\t{topic}\t{value:.4f}")
            print(f"{measure:<16}\tall\t{values[0].mean():.4f}")

    p.set_defaults(func=evaluate)
