"""``fireeval evaluate``: score TREC runs against qrels, trec_eval style, many runs in one process."""
from __future__ import annotations

import sys

__all__ = ["add"]

_INTEGER = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
_SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}


def add(sub):
    p = sub.add_parser(
        "evaluate", help="score TREC runs against qrels, trec_eval style",
        description="Print trec_eval's lines 'measure<TAB>topic<TAB>value' ('all' = summary over topics) for "
                    "each RUN. With several runs each line starts with the run's name (its tag; the path when "
                    "two runs share a tag) and a tab. Measures: trec_eval names (map, P_10, P.5,10, ndcg_cut_10, "
                    "bpref, infAP, all_trec, official ...), ir_measures names (AP, P@10, nDCG@10, RR, Judged@10) "
                    "or correct@K (= success_K, printed as asked). Fields may be separated by spaces and/or tabs.")
    p.add_argument("qrels")
    p.add_argument("runs", nargs="+", metavar="run")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="measure name, repeatable (default: map P_5 P_10 recall_10 ndcg ndcg_cut_10 "
                        "recip_rank correct@1 correct@5 correct@10)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print one line per topic (trec_eval -q)")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over all qrels topics, missing ones scoring 0 (trec_eval -c)")
    p.add_argument("-l", "--level", type=int, default=1, metavar="LEVEL",
                   help="smallest grade that counts as relevant (trec_eval -l; default 1)")
    p.add_argument("-M", "--max-retrieved", type=int, default=None, metavar="N",
                   help="evaluate only each topic's top N documents (trec_eval -M)")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="drop unjudged documents before scoring: condensed-list measures (trec_eval -J)")
    p.add_argument("-n", "--no-summary", action="store_true",
                   help="do not print the summary 'all' lines (trec_eval -n); use with -q")
    p.add_argument("--score-precision", choices=["float", "double"], default="float",
                   help="compare scores as C floats like trec_eval <= 9.0.8 (default; NIST's official TREC "
                        "results) or as doubles like trec_eval 10.0")

    def evaluate(args):
        from fireeval.cli import load_numpy_without_blas_threads

        load_numpy_without_blas_threads()  # scoring uses no linear algebra
        from fireeval.core.evaluation import DEFAULT_MEASURES, parse_measures
        from fireeval.core.stream import QrelsIndex, score_run
        from fireeval.core.trec import read_run_table

        names = args.measure or DEFAULT_MEASURES
        measures = [m for name in names for m in parse_measures(name)]  # a bad name fails before any reading
        if args.max_retrieved is not None and args.max_retrieved < 1:
            raise ValueError(f"-M must be >= 1, not {args.max_retrieved}")
        qrels = QrelsIndex.read(args.qrels, relevance_level=args.level)
        several = len(args.runs) > 1
        seen, out = {}, sys.stdout
        for path, run in _prefetch(args.runs, lambda p: read_run_table(p, args.score_precision)):
            scores = score_run(run, qrels, measures, complete=args.complete, judged_only=args.judged_only,
                               max_retrieved=args.max_retrieved)
            if scores.ignored_topics:
                shown = ", ".join(scores.ignored_topics[:5]) + (" ..." if len(scores.ignored_topics) > 5 else "")
                print(f"warning: {path}: {len(scores.ignored_topics)} topic(s) have no judgements and are "
                      f"ignored (trec_eval convention): {shown}", file=sys.stderr)
            if not len(scores.topics):
                raise ValueError(f"{path}: no topic of the run has judgements in {args.qrels}; check that the "
                                 "run and qrels belong to the same collection")
            label = run.tag if run.tag not in seen else str(path)  # a repeated tag: name the file
            seen[run.tag] = path
            prefix = f"{label}\t" if several else ""
            lines = []
            if args.per_query:
                for j, topic in enumerate(scores.topics):
                    for m, values in scores.values.items():
                        if m not in _SUMMARY_ONLY:
                            lines.append(f"{prefix}{m:<22}\t{topic}\t{_fmt(m, values[j])}\n")
            if not args.no_summary:
                for m, value in scores.summary().items():
                    lines.append(f"{prefix}{m:<22}\tall\t{_fmt(m, value)}\n")
            out.write("".join(lines))

    p.set_defaults(func=evaluate)


def _fmt(measure, value):
    if measure in _INTEGER:
        return f"{int(round(value))}"
    return f"{value:.4f}"


def _prefetch(paths, read, ahead: int = 2):
    """Yield (path, read(path)) in order, reading the next runs in a thread meanwhile.

    Gunzip and pyarrow's parser release the GIL, so reading overlaps scoring on a
    second core; at most ``ahead`` runs wait in memory. An error surfaces in order.
    """
    if len(paths) == 1:
        yield paths[0], read(paths[0])
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = [pool.submit(read, p) for p in paths[:ahead]]
        for i, path in enumerate(paths):
            run = pending.pop(0).result()
            if i + ahead < len(paths):
                pending.append(pool.submit(read, paths[i + ahead]))
            yield path, run
