"""``fireeval audit QRELS RUN [--pool-depth K] [--runs OTHER_RUNS...]``: pool-bias audit of a new run.

Prints judged@k coverage, the run's MAP / bpref / infAP / condensed MAP, the leave-out
estimate of its pool bias from the other runs, and a risk line with its evidence
(:mod:`fireeval.pooling.audit`). ``--json FILE`` also writes everything as JSON.
"""
from __future__ import annotations

import argparse


def add(sub):
    p = sub.add_parser(
        "audit", help="how far unjudged documents could move a new run's score on a pooled collection",
        description="Audit RUN (one TREC run file) against QRELS of a pooled collection: judged@10 and judged@K "
                    "per topic, MAP / bpref / infAP / condensed MAP, and with --runs the leave-out estimate of its "
                    "pool bias and a risk line. Nothing is written unless --json is given.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", help="TREC qrels file (plain or .gz)")
    p.add_argument("run", help="the run to audit: a TREC run file holding one run")
    p.add_argument("--pool-depth", type=int, default=100, metavar="K",
                   help="depth to which the collection's pool was built (default 100)")
    p.add_argument("--runs", nargs="+", default=None, metavar="OTHER_RUN",
                   help="the collection's other run files (pooled and not), for the leave-out estimate; those "
                        "whose top K is fully judged are taken as pooled")
    p.add_argument("--groups", default=None, metavar="TSV",
                   help="tab-separated table with columns run and group: leave groups out instead of runs")
    p.add_argument("--max-loss", type=float, default=0.02, metavar="SHARE",
                   help="relative MAP loss that counts as harmful (default 0.02)")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the audit as JSON to FILE")
    p.set_defaults(func=run)


def run(args):
    import json
    from pathlib import Path

    import pandas as pd

    from fireeval.core.judgements import Qrels
    from fireeval.core.runset import RunSet
    from fireeval.pooling.audit import audit_run

    if args.pool_depth < 1:
        raise ValueError(f"--pool-depth must be >= 1, not {args.pool_depth}")
    qrels = Qrels.read(args.qrels)
    target = RunSet.read([args.run])
    reference = RunSet.read(args.runs) if args.runs else None
    groups = None
    if args.groups:
        groups = pd.read_csv(args.groups, sep="\t", dtype=str)
        if not {"run", "group"} <= set(groups.columns):
            raise ValueError(f"{args.groups}: the groups table needs a header with columns 'run' and 'group' "
                             f"(tab-separated); found {list(groups.columns)}")
    result = audit_run(qrels, target, args.pool_depth, reference, groups, max_loss=args.max_loss)
    print(result.report())
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_json(), indent=1, default=float), encoding="utf-8")
