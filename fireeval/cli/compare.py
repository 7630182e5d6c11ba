"""``fireeval compare QRELS RUN RUN [RUN ...] -m MEASURE``: is run A really better than run B?

Also ``fireeval compare --moments GT PRED PRED ... -m R@1,0.5`` (moment predictions, read as
``evaluate-moments`` reads them) and ``fireeval compare --similarity SIM.npy SIM.npy ... --queries Q
--videos V -m R@5`` (similarity matrices, read as ``evaluate-similarity`` reads them): the same report.

Scores every run per topic (as ``fireeval evaluate -q``), then for every pair of runs the
mean paired difference with a BCa interval, the paired randomisation (sign-flip) test,
the paired t-test, the effect size d_z and p-values adjusted over all pairs (Holm; the
randomised Tukey HSD), and the topic-set power figures (:mod:`fireeval.stats.significance`).
Prints a ranx-style report: runs by mean, each marked with the runs it beats
significantly and its letters (a compact letter display: two runs differ significantly
exactly when they share no letter); ``--format tsv`` and ``--format json`` for machines.
"""
from __future__ import annotations

import sys

from fireeval.cli import ARGUMENTS, SUBPARSERS
from fireeval.core.validation import BOOL, Check, ParamError, Real, validate_params

__all__ = ["add", "report_text", "report_tsv", "moment_scores", "similarity_scores"]

_ADJUST = ("holm", "tukey", "none", "t", "t-holm")
_ADJUST_TEXT = {"holm": "two-sided paired randomisation test, Holm-adjusted over all pairs",
                "tukey": "randomised Tukey HSD (permutations of the runs within topics)",
                "none": "two-sided paired randomisation test, not adjusted",
                "t": "paired t-test, not adjusted", "t-holm": "paired t-test, Holm-adjusted over all pairs"}


@validate_params(sub=SUBPARSERS)
def add(sub):
    p = sub.add_parser(
        "compare", help="paired significance tests between runs: which orderings survive query sampling",
        usage="fireeval compare [--moments | --similarity] FILE FILE [FILE ...] -m MEASURE [options]",
        description="Score each RUN per topic by MEASURE against QRELS and test every pair of runs: mean paired "
                    "difference with a BCa interval, two-sided paired randomisation (sign-flip) test, paired t-test, "
                    "effect size d_z (mean difference / sd of the differences), Holm and randomised-Tukey-HSD "
                    "adjustment over all pairs, and the smallest difference detectable with this many topics "
                    "(power 0.8). Runs are paired on the topics every run was evaluated on. "
                    "With --moments: 'fireeval compare --moments GT PRED PRED ... -m R@1,0.5' compares moment "
                    "predictions per ground-truth query (files and options as evaluate-moments). With --similarity: "
                    "'fireeval compare --similarity SIM.npy SIM.npy ... --queries Q --videos V -m R@5' compares "
                    "similarity matrices per query (files and options as evaluate-similarity).")
    p.add_argument("qrels", metavar="QRELS|GT|SIM.npy",
                   help="TREC qrels file (plain or .gz); with --moments the ground truth (as evaluate-moments); with "
                        "--similarity the first similarity matrix")
    p.add_argument("runs", nargs="+", metavar="RUN|PRED|SIM.npy",
                   help="two or more TREC run files, one run each; with --moments two or more prediction files; with "
                        "--similarity the other matrices (two or more in all)")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--moments", action="store_true",
                      help="compare moment-retrieval predictions: GT then PRED files; MEASURE R@K,θ, AxIoU@K, AP@K,θ "
                           "or DCG@K; queries missing from a prediction file score 0")
    kind.add_argument("--similarity", action="store_true",
                      help="compare text-to-video similarity matrices (.npy, queries x videos) with --queries and "
                           "--videos; MEASURE R@K (a positive in the top K) or RR (1 / rank of the best positive)")
    p.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                   help="one measure averaged over topics: map, P_10, ndcg_cut_10, recip_rank, correct@5, ...; "
                        "R@1,0.5 or AxIoU@5 with --moments; R@5 or RR with --similarity")
    p.add_argument("--name", action="append", metavar="NAME",
                   help="names of the runs, predictions or matrices in order, one per file (default: TREC run tags; "
                        "file stems for --moments and --similarity)")
    p.add_argument("--permutations", type=int, default=None, metavar="N",
                   help="random sign flips of the randomisation test and permutations of the Tukey HSD test "
                        "(all 2^topics flips when that is no more). Default: automatic, 10000 raised when Holm "
                        "over many pairs needs it (smallest adjusted p 2 x pairs / (N + 1) at most alpha / 10) "
                        "and once more when a decision is within the Monte-Carlo error of alpha, up to 100000")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of every resample (default 0)")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A", help="significance level (default 0.05)")
    p.add_argument("--adjust", choices=_ADJUST, default="holm",
                   help="p-value that decides 'beats': holm (randomisation test, Holm; default), tukey (randomised "
                        "Tukey HSD), none, t (paired t-test), t-holm")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="B",
                   help="bootstrap resamples of the BCa intervals (default 2000; 0: no intervals)")
    p.add_argument("--difference", type=float, default=None, metavar="D",
                   help="also report the topics needed to detect a mean difference D (power 0.8)")
    p.add_argument("--format", choices=("text", "tsv", "json"), default="text",
                   help="text (default): the report; tsv: the runs table, or with --pairs the pairs table; "
                        "json: everything")
    p.add_argument("--pairs", action="store_true", help="text and tsv: print every pair's statistics")
    p.add_argument("--chart", default=None, metavar="FILE",
                   help="also draw the ordering with its letters (compact letter display): FILE.svg (static drawing) "
                        "or FILE.json (Vega-Lite specification)")
    p.add_argument("-c", "--complete", action="store_true",
                   help="pair on every qrels topic, topics a run lacks scoring 0 (trec_eval -c)")
    p.add_argument("-l", "--level", type=int, default=None, metavar="LEVEL",
                   help="smallest grade that counts as relevant (trec_eval -l; default 1)")
    p.add_argument("-J", "--judged-only", action="store_true", help="condensed lists (trec_eval -J)")
    p.add_argument("--score-precision", choices=["float", "double"], default="float",
                   help="read scores as C floats (trec_eval <= 9.0.8, default) or doubles")
    moments = p.add_argument_group("--moments (as evaluate-moments)")
    moments.add_argument("--pred-format", default="auto",
                         choices=["auto", "json", "pkl", "csv", "tsv", "momentdetr", "2dtan"],
                         help="predictions format (evaluate-moments --format; default: from the extension)")
    moments.add_argument("--normalize-queries", action="store_true",
                         help="match query texts after lower-casing, collapsing spaces and dropping a final full stop")
    moments.add_argument("--strict", action="store_true", help="R@K,θ with IoU > θ instead of IoU >= θ")
    similarity = p.add_argument_group("--similarity (as evaluate-similarity)")
    similarity.add_argument("--queries", metavar="Q.txt", help="query ids in row order ('id' or 'id<TAB>text')")
    similarity.add_argument("--videos", metavar="V.txt", help="video ids in column order")
    similarity.add_argument("--gt", metavar="TSV", help="query_id<TAB>video_id, one line per relevant video "
                                                        "(default: the video with the query's id)")
    p.set_defaults(func=run)


def _check_args(args):
    if len(args.runs) < 2 and not args.similarity:
        raise ValueError(f"{args.runs[0]}: one run given; a comparison needs at least two. Fix: give two or more "
                         "run files")
    from fireeval.stats.significance import check_resamples

    check_resamples(args.permutations, args.bootstrap, names=("--permutations", "--bootstrap"))
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha must be in (0, 1), not {args.alpha}. Fix: give e.g. 0.05")
    if args.difference is not None and not args.difference > 0:
        raise ValueError(f"--difference must be > 0, not {args.difference}. Fix: give e.g. 0.01")
    if args.chart is not None and not args.chart.lower().endswith((".svg", ".json")):
        raise ValueError(f"{args.chart}: --chart writes .svg or .json files. Fix: name the file FILE.svg or FILE.json")
    if args.level is not None and args.level < 0:
        raise ValueError(f"-l must be >= 0, not {args.level}. Fix: give the smallest relevant grade, e.g. 1")


def run(args):
    import json

    from fireeval.stats.significance import check_resamples, compare, scores_from_trec

    _check_inputs(args)
    _check_args(args)
    if args.moments:
        scores = moment_scores(args)
    elif args.similarity:
        scores = similarity_scores(args)
    else:
        scores = scores_from_trec(args.qrels, args.runs, args.measure, complete=args.complete,
                                  relevance_level=args.level, judged_only=args.judged_only,
                                  score_precision=args.score_precision)
    if args.name:
        scores = _renamed(scores, args.name)
    for note in scores.notes:
        print(f"warning: {note}", file=sys.stderr)
    if len(scores.topics) < 2:
        raise ValueError(f"{args.qrels}: the runs share {len(scores.topics)} evaluated topic; paired tests need at "
                         "least two. Fix: compare runs on a topic set with judgements")
    check_resamples(args.permutations, args.bootstrap, len(scores.topics), names=("--permutations", "--bootstrap"))
    result = compare(scores, n_permutations=args.permutations, seed=args.seed, alpha=args.alpha,
                     n_bootstrap=args.bootstrap, adjust=args.adjust)
    for warning in result.warnings():
        print(f"warning: {args.qrels}: {warning}", file=sys.stderr)
    out = sys.stdout
    if args.format == "json":
        out.write(json.dumps(result.to_json(args.difference), indent=1, default=_json_default) + "\n")
    elif args.format == "tsv":
        out.write(report_tsv(result, pairs=args.pairs))
    else:
        out.write(report_text(result, difference=args.difference, pairs=args.pairs or len(result.names) <= 6))
    if args.chart:
        write_chart(result, args.chart)


_TREC_ONLY = {"complete": "-c", "level": "-l", "judged_only": "-J"}
_MOMENTS_ONLY = {"normalize_queries": "--normalize-queries", "strict": "--strict"}
_SIMILARITY_ONLY = {"queries": "--queries", "videos": "--videos", "gt": "--gt"}


def _misplaced_options(args) -> list[str]:
    """The options given that belong to another input kind than the one chosen (in a fixed order)."""
    special = args.moments or args.similarity
    wrong = [flag for key, flag in _TREC_ONLY.items() if getattr(args, key) not in (None, False)] if special else []
    if not args.moments:
        wrong += [flag for key, flag in _MOMENTS_ONLY.items() if getattr(args, key)]
    if not args.similarity:
        wrong += [flag for key, flag in _SIMILARITY_ONLY.items() if getattr(args, key)]
    if args.score_precision != "float" and special:
        wrong.append("--score-precision")
    if args.pred_format != "auto" and not args.moments:
        wrong.append("--pred-format")
    return wrong


def _check_names(args) -> None:
    """``--name``: one distinct name per scored file, or none."""
    files = [args.qrels, *args.runs] if args.similarity else args.runs
    if args.name is not None and (len(args.name) != len(files) or len(set(args.name)) != len(args.name)):
        raise ValueError(f"{files[0]}: --name given {len(set(args.name))} distinct name(s) for {len(files)} files. "
                         "Fix: one distinct --name per file, in order (or none)")


def _check_inputs(args):
    """Options of one input kind (TREC runs, --moments, --similarity) given with another: one-line errors."""
    kind = "--moments" if args.moments else "--similarity" if args.similarity else "TREC runs"
    wrong = _misplaced_options(args)
    if wrong:
        raise ValueError(f"{args.qrels}: {', '.join(wrong)} do(es) not apply to {kind}. Fix: leave {wrong[0]} out, "
                         "or give --moments / --similarity for the files it belongs to")
    if args.similarity and not (args.queries and args.videos):
        raise ValueError(f"{args.qrels}: --similarity needs the row and column ids. Fix: give --queries Q.txt and "
                         "--videos V.txt (one id per line, in the matrices' order)")
    _check_names(args)


def _stems(paths) -> list[str]:
    """File stems as names (``run.json`` -> ``run``), the paths themselves when two stems are equal."""
    from pathlib import Path

    stems = [Path(p).name.split(".")[0] or str(p) for p in paths]
    return stems if len(set(stems)) == len(stems) else [str(p) for p in paths]


def _renamed(scores, names):
    from fireeval.stats.significance import PerTopicScores

    return PerTopicScores(list(names), scores.topics, scores.values, scores.measure, scores.notes)


@validate_params(args=ARGUMENTS)
def moment_scores(args):
    """Per-query scores of the prediction files (``args.runs``) against the ground truth ``args.qrels``, read as
    ``fireeval evaluate-moments`` reads them."""
    from fireeval.cli.evaluate_moments import read_ground_truth, read_matched_predictions
    from fireeval.core import moments
    from fireeval.datasets import check_readable
    from fireeval.stats.significance import PerTopicScores, scores_from_moments

    moments.measure_function(args.measure)  # a bad name fails before any file is read
    truth = read_ground_truth(check_readable(args.qrels, "ground-truth file"))
    notes = list(truth.warnings)
    predictions = {}
    for name, path in zip(_stems(args.runs), args.runs):
        checked = check_readable(path, "predictions file", text=not str(path).endswith(".pkl"))
        predictions[name] = read_matched_predictions(checked, truth, args.pred_format, args.normalize_queries,
                                                     warn=notes.append)
    s = scores_from_moments(predictions, truth.windows, args.measure, queries=truth.ids, strict=args.strict)
    return PerTopicScores(s.names, s.topics, s.values, s.measure, notes)


@validate_params(args=ARGUMENTS)
def similarity_scores(args):
    """Per-query scores of the similarity matrices (``args.qrels`` and ``args.runs``): the measure of each
    query's best-ranked positive (ties in video order), read and checked as ``fireeval evaluate-similarity``
    reads them."""
    import numpy as np

    from fireeval.datasets import similarity_inputs as si
    from fireeval.stats.significance import PerTopicScores, rank_measure
    from fireeval.t2v.retrieval import first_positive_rank

    per_rank = rank_measure(args.measure)  # a bad name fails before any file is read
    paths = [args.qrels, *args.runs]
    query_ids, _ = si.read_ids(args.queries, "query list")
    video_ids, _ = si.read_ids(args.videos, "video list")
    positives = si.read_pairs(args.gt, query_ids, video_ids) if args.gt else si.positives_matrix(query_ids, video_ids)
    rows = [per_rank(first_positive_rank(si.check_matrix(si.read_matrix(path), query_ids, video_ids, str(path)),
                                         positives)) for path in paths]
    return PerTopicScores(_stems(paths), list(query_ids), np.array(rows, dtype=float), args.measure)


def write_chart(result, path) -> None:
    """The ordering chart (:func:`fireeval.book.plotting.ordering_chart`) as SVG or Vega-Lite JSON."""
    import json
    from pathlib import Path

    from fireeval.book.plotting import VEGALITE_VERSION, ordering_chart, setup

    setup("svg")
    chart = ordering_chart(result, title=f"{result.measure}: which orderings survive?",
                           caption=f"{len(result.topics)} topics; grey bar: the runs not significantly different "
                                   f"({result.adjust}, alpha {result.alpha:g}); label: letters, shared by runs not "
                                   "significantly different.")
    spec = chart.to_dict()
    if str(path).lower().endswith(".json"):
        Path(path).write_text(json.dumps(spec, indent=1), encoding="utf-8")
    else:
        import vl_convert

        Path(path).write_text(vl_convert.vegalite_to_svg(spec, vl_version=VEGALITE_VERSION), encoding="utf-8")


def _json_default(value):
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}. Fix: this is a bug in fireeval compare; "
                    "please report it")


def _ranges(numbers) -> str:
    """'2-5, 7, 9-12' for sorted ints."""
    parts, start, prev = [], None, None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(parts)


def _p(value) -> str:
    return "nan" if value != value else ("<1e-4" if value < 1e-4 else f"{value:.4f}")


def _comparison(name, value):
    if not callable(getattr(value, "ranking", None)):  # (duck-typed: the class would import the statistics)
        raise ParamError(f"report: {name}={type(value).__name__} is not a comparison. Fix: pass the result of "
                         "fireeval.compare")


@validate_params(result=Check(_comparison, fix="pass the result of fireeval.compare"),
                 difference=[Real(0, closed="neither"), None], pairs=BOOL)
def report_text(result, difference: float | None = None, pairs: bool = False) -> str:
    """The ranx-style report: runs by mean, each with the ranks of the runs it beats significantly."""
    from fireeval.stats.significance import MC_Z

    rows = result.ranking()
    width = max(len("run"), *(len(r["system"]) for r in rows))
    gwidth = max(len("letters"), *(len(r["groups"]) for r in rows))
    if result.adjust == "tukey":
        how = f"{result.n_tukey} permutations"
    elif result.adjust in ("t", "t-holm"):
        how = "t distribution"
    else:
        how = "exact: all 2^T sign flips" if result.exact else f"{result.n_permutations} sign flips"
    lines = [f"{result.measure} on {len(result.topics)} topics, {len(rows)} runs, {len(result.pairs['i'])} pairs; "
             f"'beats' = {_ADJUST_TEXT[result.adjust]}, p < {result.alpha:g} ({how}, seed {result.seed})"]
    if result.permutation_note:
        lines.append(f"permutations: {result.permutation_note}")
    if result.monte_carlo_se().any():
        near = result.near_threshold()
        lines.append(f"Monte-Carlo error: {int(near.sum())} of {len(near)} decisions within the 99% band of alpha "
                     f"(p ± {MC_Z:.3g} standard errors of the resampling; --pairs shows each p-value's)")
    lines.append(f"{'rank':>4}  {'run':<{width}}  {'mean':>7}  {'letters':<{gwidth}}  beats (ranks)")
    for r in rows:
        lines.append(f"{r['rank']:>4}  {r['system']:<{width}}  {r['mean']:7.4f}  {r['groups']:<{gwidth}}  "
                     f"{_ranges(r['beats_ranks']) or '-'}")
    lines.append("letters (compact letter display): two runs differ significantly exactly when they share no letter.")
    lines += [f"warning: {w}" for w in result.warnings()]
    power = result.set_power(difference)
    lines.append(f"power (paired t-test, alpha {result.alpha:g}, power {result.power:g}, per-topic sd of differences "
                 f"{power['sd_diff']:.4f} from the two-way ANOVA residual, Sakai): smallest detectable difference "
                 f"with {len(result.topics)} topics {power['min_detectable_t']:.4f}"
                 + (f"; topics needed for {difference:g}: {power['topics_needed_t']}" if difference else ""))
    if pairs:
        lines.append("")
        lines.append(_table(_pairs_tsv(result, text=True)))
    return "\n".join(lines).rstrip("\n") + "\n"


def _table(tsv: str) -> str:
    """Tab-separated text as aligned columns."""
    rows = [line.split("\t") for line in tsv.rstrip("\n").split("\n")]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) if c < 2 or c == 5 else cell.rjust(w)
                               for c, (cell, w) in enumerate(zip(r, widths))).rstrip() for r in rows)


_PAIR_COLUMNS = ["a", "b", "diff", "ci_low", "ci_high", "ci_method", "effect", "t", "p_t", "p_t_holm", "p_perm",
                 "p_perm_holm", "p_tukey", "min_detectable", "p_perm_se", "p_perm_holm_se", "p_tukey_se"]


def _pairs_tsv(result, text: bool = False) -> str:
    lines = ["\t".join(_PAIR_COLUMNS)]
    cols = [result.pairs[c] for c in _PAIR_COLUMNS]
    for k in range(len(result.pairs["i"])):
        cells = []
        for name, col in zip(_PAIR_COLUMNS, cols):
            v = col[k]
            cells.append(str(v) if isinstance(v, str) or name in ("a", "b", "ci_method") else
                         (_p(float(v)) if text and name.startswith("p_") else
                          f"{float(v):.4f}" if text else repr(float(v))))
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


@validate_params(result=Check(_comparison, fix="pass the result of fireeval.compare"), pairs=BOOL)
def report_tsv(result, pairs: bool = False) -> str:
    """Tab-separated: the runs table (rank, run, mean, groups, beats), or with ``pairs`` one row per pair."""
    if pairs:
        return _pairs_tsv(result)
    lines = ["rank\trun\tmean\tgroups\tbeats"]
    for r in result.ranking():
        lines.append(f"{r['rank']}\t{r['system']}\t{r['mean']:.6f}\t{r['groups']}\t{','.join(r['beats'])}")
    return "\n".join(lines) + "\n"
