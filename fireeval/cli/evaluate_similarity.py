"""``fireeval evaluate-similarity``: R@K, median/mean rank and FIRE-style corrected scores of similarity matrices."""
from __future__ import annotations

import sys

from fireeval.cli import SUBPARSERS
from fireeval.core.validation import validate_params

__all__ = ["add"]


@validate_params(sub=SUBPARSERS)
def add(sub):
    p = sub.add_parser(
        "evaluate-similarity", help="score text-to-video similarity matrices (.npy): R@K, MdR, MnR, corrected C@K",
        description="Score one or more (queries x videos) similarity matrices saved with numpy.save. --queries and "
                    "--videos give the row and column order (one id per line; a query line may be "
                    "'id<TAB>text'). The ground truth is --gt (query_id<TAB>video_id lines) or, without it, the "
                    "video whose id equals the query id. Prints R@K (a positive in the top K), MdR/MnR (rank of the "
                    "best-ranked positive; ties in video order) and, with --labels (query_id<TAB>video_id<TAB>1/0) "
                    "or --proxy with --captions (JSON {video_id: [captions]} or {video_id: {sen_id: caption}}) and query texts, FIRE's corrected "
                    "C@K and AP@20 (original, corrected, delta). Shape mismatches, NaN/infinite scores, duplicate "
                    "ids and ids unknown to the lists are errors (exit 2). A matrix that is not a full ranking "
                    "(a row's most common score repeated in >= 5% of the row, in >= 10% of the rows: a top-N cut "
                    "with one fill value below) gives one warning line with the depth really ranked, and each "
                    "number as 'stable [low, high over tie rules]' (relevant videos first / last among equal "
                    "scores; JSON: 'ties' and 'tie_bounds').")
    p.add_argument("matrix", nargs="+", metavar="SIM.npy", help="similarity matrices (rows queries, columns videos)")
    p.add_argument("--queries", required=True, metavar="Q.txt", help="query ids in row order ('id' or 'id<TAB>text')")
    p.add_argument("--videos", required=True, metavar="V.txt", help="video ids in column order")
    p.add_argument("--gt", metavar="TSV", help="query_id<TAB>video_id, one line per relevant video "
                                               "(default: the video with the query's id)")
    p.add_argument("--labels", metavar="TSV", help="relevance labels query_id<TAB>video_id<TAB>1/0 for FIRE-style "
                                                   "corrected scores (pairs not labelled count as not relevant)")
    p.add_argument("--proxy", choices=["bow", "containment", "pos", "syn"],
                   help="judge the pooled pairs with this caption proxy instead of labels (needs --captions and "
                        "query texts)")
    p.add_argument("--captions", metavar="JSON", help="video captions for --proxy: {video_id: [caption, ...]} or "
                                                        "{video_id: {sen_id: caption}} (MSR-VTT's metadata)")
    p.add_argument("--threshold", type=float, default=0.4, help="proxy agreement judged relevant (default 0.4, "
                                                                 "as the false_negatives chapter)")
    p.add_argument("--pool-depth", type=int, default=10, help="top K of each matrix pooled for --proxy (FIRE: 10)")
    p.add_argument("-k", "--k", type=int, action="append", dest="ks", metavar="K",
                   help="cut-offs for R@K / C@K, repeatable (default 1, 5, 10)")
    p.add_argument("--ap-depth", type=int, default=20, help="FIRE's AP@depth (default 20)")
    p.add_argument("--name", action="append", metavar="NAME", help="model names, one per matrix (default: file stems)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")

    p.set_defaults(func=_evaluate_similarity)


def _evaluate_similarity(args):
    import json

    from fireeval.t2v import retrieval

    ks, names = _check_options(args)
    query_ids, query_texts, video_ids, runs, original = _read_inputs(args, names)
    corrected, note = _corrections(args, runs, original, query_ids, query_texts, video_ids)
    result = retrieval.evaluate_similarity(runs, original, ks=ks, ap_depth=args.ap_depth, corrected=corrected)
    result["corrections"] = note
    _warn_ties(args, names, runs, original, result["tie_bounds"])
    if args.json:
        print(json.dumps(result, indent=1))
        return
    sys.stdout.write("\n".join(_report_lines(result, names, ks, note)) + "\n")


def _check_options(args) -> tuple[tuple, list]:
    """The cut-offs and the model names, or a one-line error for an option out of range or in conflict."""
    from pathlib import Path

    ks = tuple(args.ks or (1, 5, 10))
    if min(ks) < 1 or args.ap_depth < 1 or args.pool_depth < 1:
        raise ValueError(f"cut-offs must be >= 1 (got -k {list(ks)}, --ap-depth {args.ap_depth}, "
                         f"--pool-depth {args.pool_depth}). Fix: give positive integers.")
    if not 0 <= args.threshold <= 1:
        raise ValueError(f"--threshold {args.threshold} is outside [0, 1]. Fix: give a proxy agreement in [0, 1].")
    if args.labels and args.proxy:
        raise ValueError("--labels and --proxy both given. Fix: correct with your labels or with the proxy, not both.")
    names = args.name or [Path(m).stem for m in args.matrix]
    if len(names) != len(args.matrix) or len(set(names)) != len(names):
        raise ValueError(f"--name given {len(names)} distinct names for {len(args.matrix)} matrices. "
                         "Fix: one distinct --name per matrix (or none).")
    return ks, names


def _read_inputs(args, names):
    """``(query ids, query texts or None, video ids, {name: matrix}, original positives)``, each checked."""
    from fireeval.datasets import similarity_inputs as si

    query_ids, query_texts = si.read_ids(args.queries, "query list")
    video_ids, _ = si.read_ids(args.videos, "video list")
    runs = {name: si.check_matrix(si.read_matrix(path), query_ids, video_ids, str(path))
            for name, path in zip(names, args.matrix)}
    original = si.read_pairs(args.gt, query_ids, video_ids) if args.gt else si.positives_matrix(query_ids, video_ids)
    return query_ids, query_texts, video_ids, runs, original


def _corrections(args, runs, original, query_ids, query_texts, video_ids):
    """``(corrected positives, note)`` from ``--labels`` or ``--proxy``; ``(None, None)`` without either."""
    from fireeval.datasets import similarity_inputs as si
    from fireeval.t2v import retrieval

    if args.labels:
        judged, relevant, unknown = si.read_labels(args.labels, query_ids, video_ids)
        if unknown:
            print(f"warning: {args.labels}: {unknown} labelled pairs name a query or video not in the lists "
                  "(ignored)", file=sys.stderr)
        return (retrieval.corrected_from_labels(original, judged, relevant),
                f"labels {args.labels}: {int(judged.sum())} judged pairs, {int(relevant.sum())} relevant")
    if not args.proxy:
        return None, None
    if not args.captions or query_texts is None:
        raise ValueError("--proxy needs the query texts ('id<TAB>text' lines in --queries) and --captions. "
                         "Fix: give both, or use --labels.")
    captions = si.read_captions(args.captions, video_ids)
    corrected, judgements = retrieval.corrected_by_proxy(runs, original, query_texts, captions, proxy=args.proxy,
                                                         threshold=args.threshold, pool_depth=args.pool_depth)
    return corrected, (f"proxy {args.proxy} >= {args.threshold} on the pooled top {args.pool_depth} "
                       f"({int(judgements.judged.sum())} pairs judged): a stand-in for human labels")


def _warn_ties(args, names, runs, original, bounds) -> None:
    """One warning line per matrix that is not a full ranking (after every input is read: an error stays the
    only line)."""
    from fireeval.core.tied_scores import tied_fill

    for name, path in zip(names, args.matrix):
        if name in bounds:
            report = tied_fill(runs[name], original)
            advice = "its numbers are printed with their range over tie rules"
            print(f"warning: {report.message(f'{name} ({path})', advice)}", file=sys.stderr)


def _report_lines(result: dict, names, ks, note) -> list[str]:
    """The text report: the recall table, the ranges over tie rules, the corrected scores."""
    bounds = result["tie_bounds"]
    measures = [f"R@{k}" for k in ks] + ["MdR", "MnR"]
    width = max(len("model"), *(len(n) for n in names))
    lines = [f"{result['n_queries']} queries x {result['n_videos']} videos, "
             f"{result['positives_per_query']:.3g} original positives per query",
             f"{'model':<{width}}  " + "  ".join(f"{m:>7}" for m in measures) + "  tied"]
    for name, row in result["recall"].items():
        lines.append(f"{name:<{width}}  " + "  ".join(
            f"{row[m]:>7.4f}" if m.startswith("R@") else f"{row[m]:>7.1f}" for m in measures) + f"  {row['tied']}")
    if bounds:
        lines += ["", "not a full ranking (see the warning): each number under the stable tie rule "
                      "[low, high over tie rules: relevant videos first or last among equal scores]"]
        lines += [f"{name:<{width}}  " + "  ".join(f"{m} {_range(b[m], m)}" for m in measures)
                  for name, b in ((n, bounds[n]["original"]) for n in result["recall"] if n in bounds)]
    if result["corrected"]:
        lines += ["", f"FIRE-style corrected scores ({note}; "
                      f"{result['added_positives_per_query']:.3g} added positives per query):",
                  f"{'model':<{width}}  {'metric':<6}  original  corrected    delta"
                  + ("  [low, high over tie rules: original; corrected]" if bounds else "")]
        lines += [f"{r['model']:<{width}}  {r['metric']:<6}  {r['original']:>8.4f}  {r['corrected']:>9.4f}  "
                  f"{r['delta']:>+7.4f}" + _corrected_range(bounds.get(r["model"]), r["metric"])
                  for r in result["corrected"]]
    return lines


def _range(bound: dict, measure: str, with_stable: bool = True) -> str:
    """``0.6120 [0.5980, 0.6400]`` (R@K, C@K, AP) or ``3.0 [2.0, 5.0]`` (ranks): stable [low, high]."""
    fmt = "{:.1f}" if measure in ("MdR", "MnR") else "{:.4f}"
    inner = f"[{fmt.format(bound['low'])}, {fmt.format(bound['high'])}]"
    return f"{fmt.format(bound['stable'])} {inner}" if with_stable else inner


def _corrected_range(bounds: dict | None, metric: str) -> str:
    """``  [0.59, 0.64; 0.70, 0.72]`` for a flagged model's corrected-table row, else ``""``."""
    if not bounds:
        return ""
    orig, corr = bounds["corrected_original"][metric], bounds["corrected"][metric]
    return f"  {_range(orig, metric, False)[:-1]}; {_range(corr, metric, False)[1:]}"
