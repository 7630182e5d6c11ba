"""``fireeval audit QRELS RUN [--pool-depth K] [--runs OTHER_RUNS...] [--pooled RUN... | --pooled-from TSV]``.

A pool-bias audit of a new run.

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
                   help="the collection's other run files (pooled and not), for the leave-out estimate; without "
                        "--pooled/--pooled-from, those whose top K is fully judged are taken as pooled")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--pooled", nargs="+", default=None, metavar="RUN",
                       help="names (run tags) of the reference runs that were pooled; overrides the fully-judged guess, "
                            "which can take an unpooled run whose top K others happened to cover for a pooled one")
    which.add_argument("--pooled-from", default=None, metavar="TSV",
                       help="tab-separated table with a run column and a pooled column (a column named 'pooled' or "
                            "starting with it, e.g. runs.tsv's pooled_depth100; yes/no, true/false or 1/0)")
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
    pooled = args.pooled
    if args.pooled_from:
        pooled = pooled_from_table(args.pooled_from)
    if pooled is not None:
        if reference is None:
            raise ValueError("--pooled/--pooled-from say which reference runs were pooled; give the reference runs "
                             "with --runs")
        names = set(reference.names)
        unknown = sorted(set(pooled) - names - set(target.names)) if args.pooled else []
        if unknown:
            raise ValueError(f"--pooled: run(s) {unknown[:5]} are not among the --runs files. Fix: use the run "
                             "tags of the run files (their fifth column)")
        pooled = [n for n in pooled if n in names]
    result = audit_run(qrels, target, args.pool_depth, reference, groups, pooled=pooled, max_loss=args.max_loss)
    print(result.report())
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_json(), indent=1, default=float), encoding="utf-8")


_YES, _NO = {"yes", "y", "true", "1"}, {"no", "n", "false", "0"}


def pooled_from_table(path) -> list[str]:
    """Names of the pooled runs in a tab-separated table (columns ``run`` and ``pooled*``)."""
    import pandas as pd

    table = pd.read_csv(path, sep="\t", dtype=str)
    columns = [c for c in table.columns if c.lower().startswith("pooled")]
    if "run" not in table.columns or not columns:
        raise ValueError(f"{path}: --pooled-from needs a header with a 'run' column and a column named 'pooled' (or "
                         f"starting with it, e.g. pooled_depth100); found {list(table.columns)}")
    flags = table[columns[0]].fillna("").str.strip().str.lower()
    bad = ~flags.isin(_YES | _NO)
    if bad.any():
        line = int(bad.to_numpy().argmax()) + 2  # 1-based, after the header
        raise ValueError(f"{path}:{line}: pooled value {table[columns[0]][bad].iloc[0]!r} is not yes/no, true/false "
                         "or 1/0. Fix: correct that row")
    return table.loc[flags.isin(_YES), "run"].tolist()
