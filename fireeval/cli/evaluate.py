"""``fireeval evaluate``: score TREC runs against qrels, trec_eval style, many runs in one process."""
from __future__ import annotations

import re
import sys

from fireeval.cli import SUBPARSERS
from fireeval.core.validation import validate_params

__all__ = ["add"]

_INTEGER = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}  # trec_eval prints %ld
_SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref", "runid"}
_PER_TOPIC_ONLY = {"relstring"}
_FORMATS = ("trec", "tsv", "json")
_ASCII_INT = re.compile(r"[+-]?[0-9]+")


def _option_int(flag, low, why=""):
    """An argparse type: an ASCII whole number >= low (int() would also take "0_2", "٣" or "５"); ``why`` says
    why smaller numbers are refused."""
    def parse(text):
        import argparse

        if not _ASCII_INT.fullmatch(text.strip()) or int(text) < low:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: not a whole number >= {low}{why}. Fix: write e.g. "
                                             f"{flag} {max(low, 1)}")
        return int(text)
    return parse


class StrictStop(ValueError):
    """trec_eval stopped here (``--strict``): the lines it printed before were printed; it exits with ``exit_status``."""

    def __init__(self, message, exit_status):
        super().__init__(message)
        self.exit_status = exit_status


@validate_params(sub=SUBPARSERS)
def add(sub):
    p = sub.add_parser(
        "evaluate", help="score TREC runs against qrels, trec_eval style",
        description="Print trec_eval's lines 'measure<TAB>topic<TAB>value' ('all' = summary over topics) for "
                    "each RUN, equal to trec_eval 9.0.7 or 10.0 (--trec-eval) to the last printed digit. "
                    "Measures: trec_eval names (map, P_10, P.5,10, ndcg_cut_10, set_F.0.5, bpref, infAP, "
                    "relstring, runid, all_trec, official ...), ir_measures names (AP, P@10, nDCG@10, RR, "
                    "Judged@10) or correct@K (= success_K); every measure prints under the name you asked "
                    "for. Several runs (--format trec, the default): each run's lines follow the previous "
                    "run's, exactly as trec_eval prints them, and each run's summary starts with its "
                    "'runid all TAG' line, so awk '$1==\"map\" && $2==\"all\"' finds one line per run; "
                    "--format tsv prints a header and 'run<TAB>measure<TAB>topic<TAB>value' lines (the run "
                    "is its tag, or its path when two runs share a tag); --format json one JSON object per "
                    "run and line. Fields may be separated by spaces and/or tabs.")
    p.add_argument("qrels")
    p.add_argument("runs", nargs="+", metavar="run")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="measure name, repeatable (default: trec_eval's, official). Without --strict every "
                        "name given is printed (P.5 -m P.10: both; any name form); with --strict as trec_eval "
                        "reads -m (its own names only; a measure's first parameters win)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print one line per topic (trec_eval -q)")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over all qrels topics, missing ones scoring 0 (trec_eval -c); with -q, 10.0 "
                        "also prints lines for them, 9.0.7 does not")
    p.add_argument("-l", "--level", type=_option_int("-l", 0, " (trec_eval -l -1 would count every document "
                                                            "missing from the qrels as relevant; fireeval refuses "
                                                            "it)"),
                   default=1, metavar="LEVEL", help="smallest grade that counts as relevant (trec_eval -l; default 1)")
    p.add_argument("-M", "--max-retrieved", type=_option_int("-M", 0), default=None, metavar="N",
                   help="evaluate only each topic's top N documents (trec_eval -M; 0: none)")
    p.add_argument("-N", "--collection-size", type=_option_int("-N", 0), default=0, metavar="N",
                   help="documents in the collection, for utility's d coefficient (trec_eval -N; default 0, as "
                        "trec_eval's)")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="drop unjudged documents before scoring: condensed-list measures (trec_eval -J)")
    p.add_argument("-n", "--no-summary", action="store_true",
                   help="do not print the summary 'all' lines (trec_eval -n); use with -q")
    p.add_argument("--trec-eval", choices=["9.0.7", "10.0"], default="9.0.7", dest="trec_eval",
                   help="the trec_eval to reproduce (default 9.0.7, NIST's official TREC results): its score "
                        "precision (9.0.7 reads scores as C floats, 10.0 as doubles), measures (10.0 adds rbp, "
                        "rbp_resid, unj), iprec_at_recall/11pt_avg cut-offs and -c behaviour")
    p.add_argument("--score-precision", choices=["float", "double"], default=None,
                   help="compare scores as C floats or doubles; default: as the --trec-eval version does")
    p.add_argument("--jobs", type=_option_int("--jobs", 1), default=None, metavar="N",
                   help="score the runs in N worker processes (default: every core this process may use; "
                        "1: in this process); the output is the same")
    p.add_argument("--strict", action="store_true",
                   help="byte for byte what trec_eval prints, its quirks included: -m as trec_eval reads it "
                        "(trec_eval's names only; a measure asked twice computed once, with the first "
                        "parameters given: -m P.1,2 -m P.5 prints P_1 and P_2), no runid line added for "
                        "several runs, and --trec-eval 10.0 without -c prints the topics before the first "
                        "qrels topic the run lacks, then stops with trec_eval's status 4")
    p.add_argument("--format", choices=_FORMATS, default="trec",
                   help="trec (trec_eval's lines), tsv (a run column and a header) or json (one object per run)")

    def evaluate(args):
        from fireeval.cli import load_numpy_without_blas_threads, reuse_freed_memory

        load_numpy_without_blas_threads()  # scoring uses no linear algebra
        reuse_freed_memory()
        import dataclasses

        from fireeval.core.evaluation import Measure, parse_measures, trec_eval_order
        from fireeval.core.measures import parse_strict

        version = args.trec_eval
        precision = args.score_precision or ("double" if version == "10.0" else "float")
        if args.strict:  # a bad name fails before any reading
            measures = parse_strict(args.measure or [], version)
        else:
            measures, seen_names = [], set()
            for name in args.measure or ["official"]:  # (no -m: trec_eval's default)
                for m in parse_measures(name, version, printing=True):
                    if m.name not in seen_names:  # asked twice (P.10 and P_10): printed once, as trec_eval
                        seen_names.add(m.name)
                        measures.append(m)
            measures = trec_eval_order(measures)  # as trec_eval prints them, whatever the order of -m
            from fireeval.core.api import ranx_note

            note = ranx_note(measures, precision, double="--trec-eval 10.0")
            if note:
                print(f"warning: {note}", file=sys.stderr)
        # utility's d counts the non-relevant documents not retrieved from the collection size (-N)
        measures = [dataclasses.replace(m, k=m.k[:4] + (args.collection_size,)) if m.kind == "utility" else m
                    for m in measures]
        several = len(args.runs) > 1
        if several and args.format == "trec" and not args.strict and not any(m.kind == "runid" for m in measures):
            measures.insert(0, Measure("runid"))  # each run's summary starts with its name
        if args.max_retrieved is not None and args.max_retrieved >= 2**31:
            args.max_retrieved = None  # beyond any ranking: trec_eval's atol saturates, no cut
        kinds = {m.name: m.kind for m in measures}
        import warnings

        with warnings.catch_warnings():  # the readers' warnings (fields after a run line's sixth), one line each
            warnings.showwarning = lambda message, *_, **__: print(f"warning: {message}", file=sys.stderr)
            _evaluate(args, measures, kinds, version, precision)

    p.set_defaults(func=evaluate)


def _evaluate(args, measures, kinds, version, precision):
    """Read, score and print every run (``fireeval evaluate``'s work once the measures are known)."""
    from fireeval.core.api import iter_run_scores
    from fireeval.core.stream import QrelsIndex

    qrels = QrelsIndex.read(args.qrels, relevance_level=args.level)
    out = sys.stdout
    if args.format == "tsv":
        out.write("run\tmeasure\ttopic\tvalue\n")
    for label, path, scores in iter_run_scores(qrels, args.runs, measures, complete=args.complete,
                                               judged_only=args.judged_only, max_retrieved=args.max_retrieved,
                                               trec_eval_version=version, score_precision=precision,
                                               jobs=args.jobs):
        if not (~scores.missing).any():
            raise ValueError(f"{path}: no topic of the run has judgements in {args.qrels}. Fix: check that "
                             "the run and qrels belong to the same collection (topic ids are compared as "
                             "text: 0401 is not 401)")
        if scores.ignored_topics:
            shown = ", ".join(scores.ignored_topics[:5]) + (" ..." if len(scores.ignored_topics) > 5 else "")
            print(f"warning: {path}: {len(scores.ignored_topics)} topic(s) have no judgements and are "
                  f"ignored (trec_eval convention): {shown}", file=sys.stderr)
        lacking = sorted(set(qrels.topics.tolist()) - set(scores.topics.tolist())) if not args.complete else []
        if lacking and version == "10.0":
            problem = (f"{path}: the run has no line for topic {lacking[0]} of {args.qrels} ({len(lacking)} "
                       "topic(s) missing); trec_eval 10.0 stops there (exit 4)")
            fix = "add -c to score missing topics 0, or use --trec-eval 9.0.7, which skips them"
            if not args.strict:
                raise ValueError(f"{problem}. Fix: {fix}")
            # as trec_eval 10.0: the topics before it are printed (-q), then it stops
            before = sum(1 for topic in scores.topics.tolist() if topic < lacking[0])  # (string order)
            out.write(_render(args, scores, kinds, label, path, topics=before, summary=False))
            out.flush()
            raise StrictStop(f"{problem}; the lines of the topics before it are printed, as trec_eval prints "
                             f"them. Fix: {fix}", 4)
        if lacking:
            shown = ", ".join(lacking[:5]) + (" ..." if len(lacking) > 5 else "")
            print(f"warning: {path}: the run has no line for {len(lacking)} topic(s) of {args.qrels} ({shown}); "
                  f"as trec_eval 9.0.7, the means are over the run's {len(scores.topics)} topics only. Fix: "
                  f"add -c to count the missing topics as 0 (means over all {len(qrels.topics)} topics, the "
                  "book's chapters' convention)", file=sys.stderr)
        out.write(_render(args, scores, kinds, label, path))


def _render(args, scores, kinds, label, path, topics=None, summary=True) -> str:
    """One run's output in ``args.format``; ``topics``: only the per-topic lines of the first that many topics,
    ``summary`` False: no summary lines."""
    per_topic = []
    if args.per_query:
        for j, topic in enumerate(scores.topics[:topics]):
            if scores.printed[j]:
                per_topic.extend((m, str(topic), values[j]) for m, values in scores.values.items()
                                 if kinds[m] not in _SUMMARY_ONLY)
    summary = [] if args.no_summary or not summary else [(m, "all", v) for m, v in scores.summary().items()
                                                         if kinds[m] not in _PER_TOPIC_ONLY]
    if args.format == "json":
        import json

        topics = {}
        for m, topic, v in per_topic:
            topics.setdefault(topic, {})[m] = _plain(kinds[m], v)
        doc = {"run": label, "file": str(path), "summary": {m: _plain(kinds[m], v) for m, _, v in summary}}
        if args.per_query:
            doc["per_topic"] = topics
        return json.dumps(doc) + "\n"
    if args.format == "tsv":
        return "".join(f"{label}\t{m}\t{t}\t{_fmt(kinds[m], v).strip()}\n" for m, t, v in per_topic + summary)
    return "".join(f"{m:<22}\t{t}\t{_fmt(kinds[m], v)}\n" for m, t, v in per_topic + summary)


def _fmt(kind, value):
    if kind == "relstring":
        return f"'{value}'"
    if kind == "runid":
        return str(value)
    if kind in _INTEGER:
        return f"{int(round(value))}"
    # printf's %6.4f pads to six characters: NaN (C's 0.0/0.0 has its sign bit set: -nan) and infinities
    if value != value:
        return "  -nan"
    text = f"{value:.4f}"
    return text if text[-1] != "f" else f"{text:>6}"


def _plain(kind, value):
    if kind in ("relstring", "runid"):
        return str(value)
    if kind in _INTEGER:
        return int(round(value))
    return None if value != value else float(value)  # (JSON has no NaN)


