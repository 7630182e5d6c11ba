"""``fireeval audit QRELS RUN [--pool-depth K] [--runs OTHER_RUNS...] [--pooled RUN... | --pooled-from TSV]``.

A pool-bias audit of a new run.

Prints judged@k coverage, the run's MAP / bpref / infAP / condensed MAP, the leave-out
estimate of its pool bias from the other runs, and a risk line with its evidence
(:mod:`fireeval.pooling.pool_audit`). ``--json FILE`` also writes everything as JSON.
"""
from __future__ import annotations

import argparse
import math
import re


def _depth(text):
    """--pool-depth: an ASCII whole number from 1 to 2^31 - 1 (a depth beyond any run is a typo)."""
    if not re.fullmatch(r"[0-9]+", text.strip()) or not 1 <= int(text) <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"--pool-depth {text!r}: not a whole number from 1 to {2**31 - 1}. Fix: "
                                         "give the depth the pool was built to, e.g. --pool-depth 100")
    return int(text)


def _share(text):
    """--max-loss: a finite share in (0, 1) (NaN would make every comparison false)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:  # also refuses NaN and infinities
        raise argparse.ArgumentTypeError(f"--max-loss {text!r}: not a share between 0 and 1. Fix: give e.g. "
                                         "--max-loss 0.02 (a 2% loss of MAP)")
    return value


def add(sub):
    p = sub.add_parser(
        "audit", help="how far unjudged documents could move a new run's score on a pooled collection",
        description="Audit RUN (one TREC run file) against QRELS of a pooled collection: judged@10 and judged@K "
                    "per topic, MAP / bpref / infAP / condensed MAP, and with --runs the leave-out estimate of its "
                    "pool bias and a risk line. Nothing is written unless --json is given.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", help="TREC qrels file (plain or .gz)")
    p.add_argument("run", help="the run to audit: a TREC run file holding one run")
    p.add_argument("--pool-depth", type=_depth, default=100, metavar="K",
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
    p.add_argument("--max-loss", type=_share, default=0.02, metavar="SHARE",
                   help="relative MAP loss that counts as harmful (default 0.02)")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the audit as JSON to FILE")
    p.set_defaults(func=run)


def run(args):
    import json
    from pathlib import Path

    import pandas as pd

    from fireeval.core.judgements import Qrels
    from fireeval.core.runset import RunSet
    from fireeval.pooling.pool_audit import audit_run

    if args.json:
        _refuse_data_folder(Path(args.json))
    qrels = Qrels.read(args.qrels)
    target = RunSet.read([args.run])
    reference = RunSet.read(args.runs) if args.runs else None
    groups = None
    if args.groups:
        groups = read_table(args.groups, "--groups")
        groups = groups.mask(groups.apply(lambda c: c.str.strip() == ""))  # an empty cell names no group
        if not {"run", "group"} <= set(groups.columns):
            raise ValueError(f"{args.groups}:1: the groups table needs a header with columns 'run' and 'group' "
                             f"(tab-separated); found {list(groups.columns)}. Fix: add that header line")
        repeated = groups["run"].duplicated(keep="first").to_numpy()
        if repeated.any():
            line = int(repeated.argmax()) + 2  # after the header
            run_name = groups["run"].iloc[line - 2]
            first = int((groups["run"] == run_name).to_numpy().argmax()) + 2
            raise ValueError(f"{args.groups}:{line}: run {run_name!r} is listed again (first on line {first}). "
                             "Fix: keep one row per run")
    pooled = args.pooled
    if args.pooled_from:
        pooled = pooled_from_table(args.pooled_from)
    if pooled is not None:
        if reference is None:
            raise ValueError("--pooled/--pooled-from: they say which reference runs were pooled, but no reference "
                             "run was given. Fix: give the collection's runs with --runs")
        names = set(reference.names)
        unknown = sorted(set(pooled) - names - set(target.names)) if args.pooled else []
        if unknown:
            raise ValueError(f"--pooled: run(s) {unknown[:5]} are not among the --runs files. Fix: use the run "
                             "tags of the run files (their fifth column)")
        pooled = [n for n in pooled if n in names and n not in target.names]
        if not pooled:
            where = f"{args.pooled_from}: " if args.pooled_from else "--pooled: "
            raise ValueError(f"{where}no reference run (other than the audited {target.names[0]}) is marked pooled, so "
                             "there is nothing to estimate the pool bias from. Fix: mark the runs that built the pool "
                             "(their run tags), or leave out --pooled/--pooled-from to take the fully judged ones")
    result = audit_run(qrels, target, args.pool_depth, reference, groups, pooled=pooled, max_loss=args.max_loss)
    print(result.report())
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_json(), indent=1, default=float), encoding="utf-8")


_YES, _NO = {"yes", "y", "true", "1"}, {"no", "n", "false", "0"}


def pooled_from_table(path) -> list[str]:
    """Names of the pooled runs in a tab-separated table (columns ``run`` and ``pooled*``)."""
    import pandas as pd

    table = read_table(path, "--pooled-from")
    columns = [c for c in table.columns if c.lower().startswith("pooled")]
    if "run" not in table.columns or not columns:
        raise ValueError(f"{path}:1: --pooled-from needs a header with a 'run' column and a column named 'pooled' (or "
                         f"starting with it, e.g. pooled_depth100); found {list(table.columns)}. Fix: add that header")
    flags = table[columns[0]].fillna("").str.strip().str.lower()
    bad = ~flags.isin(_YES | _NO)
    if bad.any():
        line = int(bad.to_numpy().argmax()) + 2  # 1-based, after the header
        raise ValueError(f"{path}:{line}: pooled value {table[columns[0]][bad].iloc[0]!r} is not yes/no, true/false "
                         "or 1/0. Fix: correct that row")
    return table.loc[flags.isin(_YES), "run"].tolist()


def read_table(path, option):
    """A tab-separated table with a header, every cell a string; errors name the file and say the fix.

    Quotes are ordinary characters (a run tag may hold one), so an unbalanced quote cannot swallow
    the rest of the file.
    """
    import csv

    import pandas as pd

    try:
        table = pd.read_csv(path, sep="\t", dtype=str, quoting=csv.QUOTE_NONE, encoding="utf-8", keep_default_na=False)
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: {option} table is not UTF-8 text ({err.reason} at byte {err.start}). Fix: save "
                         "it as UTF-8") from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: {option} table is empty. Fix: give a header line and one row per run") from None
    except pd.errors.ParserError as err:
        found = re.search(r"line (\d+)", str(err))
        where = f"{path}:{found[1]}" if found else str(path)
        raise ValueError(f"{where}: {option} table has a row with the wrong number of tab-separated fields. Fix: "
                         "give every row as many fields as the header") from None
    if table.empty:
        raise ValueError(f"{path}: {option} table has a header but no rows. Fix: add one row per run")
    return table


def _refuse_data_folder(target):
    """--json never writes into a data directory (the shared data, FIREEVAL_DATA)."""
    import os
    from pathlib import Path

    from fireeval.datasets import SHARED_DATA

    resolved = target.expanduser().resolve()
    for root in (SHARED_DATA, os.environ.get("FIREEVAL_DATA")):
        if root:
            root = Path(root).expanduser().resolve()
            if root in resolved.parents:
                raise ValueError(f"{target}: --json would write into the data directory {root}; nothing is written "
                                 "there. Fix: name a file in another folder, e.g. --json audit.json")
