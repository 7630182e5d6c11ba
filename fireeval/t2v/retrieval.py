"""Scoring text-to-video similarity matrices: what ``fireeval evaluate-similarity`` computes.

For each model's ``(queries, videos)`` similarity matrix and the original positives
(bool, same shape; usually one video per query):

* ``R@K`` -- the share of queries with an original positive in the top K (the
  benchmark's "recall at K"; with one positive per query it is Correct@K), for K in
  ``ks``; ``MdR`` / ``MnR`` -- the median and mean rank (1 = top) of each query's
  best-ranked positive. Ranking is similarity descending with ties in video order
  (:func:`fireeval.t2v.false_negatives.ranked_lists`, the book's rule); ``tied`` counts the
  queries whose positive shares its score with a video ranked above it.
* FIRE-style corrected scores (:func:`fireeval.t2v.false_negatives.table1`: ``C@K`` and FIRE's
  ``AP@20``, original, corrected and their difference) when corrected positives are
  given: the original positives plus the pairs judged relevant, either by the
  reader's labels (:func:`corrected_from_labels`) or by the caption proxy over the
  models' pooled top ``pool_depth`` (:func:`corrected_by_proxy`, FIRE's pooling with
  the book's proxy annotator in place of people).

No measure is re-implemented here: ranks, C@K and AP come from :mod:`fireeval.t2v.false_negatives`,
nDCG from :mod:`fireeval.t2v.semantic_evaluation`.

**Matrices that are not a full ranking** (a top-N cut with one fill value below it, as
InternVideo2's stored MSR-VTT matrix: :func:`fireeval.core.tied_scores.tied_fill`): every
number that depends on positions inside the tied block is decided by the tie rule.
:func:`tie_bounds` computes any of these numbers under the three rules of
:data:`fireeval.core.tied_scores.TIE_RULES` -- relevant first (best case), stable (video
order, the book's rule), relevant last (worst case) -- and returns their range;
:func:`evaluate_similarity` adds the check (``ties``) and, for a flagged matrix, the ranges
(``tie_bounds``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fireeval.core import tied_scores
from fireeval.core.validation import ARRAY, STR, Instance, Int, Options, Real, validate_params
from fireeval.t2v.param_checks import CUTOFFS, TEXTS

# fireeval.t2v.false_negatives (pandas, scipy.stats) is imported by the functions that pool or correct:
# R@K, MdR and MnR need none of it (`fireeval evaluate-similarity` without corrections).

__all__ = ["first_positive_rank", "recall_table", "corrected_from_labels", "corrected_by_proxy",
           "evaluate_similarity", "scores_under_tie_rule", "tie_bounds", "RANK_MEASURES"]

#: Measures :func:`tie_bounds` knows: ``R@K`` / ``C@K`` (a relevant video in the top K), ``MdR`` / ``MnR``
#: (median / mean rank of the best-ranked relevant video, 1 = top), ``AP@K`` (FIRE's AP@K, as
#: :func:`fireeval.t2v.false_negatives.per_query_scores`), ``nDCG`` / ``nDCG_exp`` (graded relevance, linear /
#: exponential gain, cut at the relevant items: :func:`fireeval.t2v.semantic_evaluation.proxy_ndcg`).
RANK_MEASURES = ("R@K", "C@K", "MdR", "MnR", "AP@K", "nDCG", "nDCG_exp")
_RUNS = Instance(Mapping, fix="pass {model: similarity (queries, videos)}")


_MEASURES = Instance(list, tuple, fix="pass measure names as a list, e.g. ['R@1', 'MdR']")
# (proxy and aggregate of corrected_by_proxy are checked where they are used: caption_agreement and
# similarity_matrix, whose modules load pandas and scipy, which scoring a matrix does not need)


@validate_params(similarity=ARRAY, positives=ARRAY)
def first_positive_rank(similarity, positives) -> np.ndarray:
    """Rank (1 = top) of each query's best-ranked positive under the book's tie rule (ties in video order,
    as :func:`fireeval.t2v.false_negatives.ranked_lists`); for one positive on the diagonal it is
    ``fire.original_rank_under_ties(...)["stable"]``. Counts, without sorting, the videos ranked above it.

    Parameters
    ----------
    similarity : array_like (queries, videos)
        Scores, higher = better.
    positives : array_like of bool (queries, videos)
        Each query's positives.

    Returns
    -------
    int ndarray (queries,)

    >>> first_positive_rank([[0.1, 0.9, 0.5], [0.3, 0.3, 0.2]], [[1, 0, 0], [0, 1, 0]]).tolist()
    [3, 2]
    """
    s = _floats(similarity)
    positives = np.asarray(positives, dtype=bool)
    if not positives.any(axis=-1).all():
        raise ValueError("every query needs at least one positive to have a rank. Fix: give each query a relevant "
                         "video (or leave the query out)")
    best = np.where(positives, s, -np.inf).max(axis=1, keepdims=True)
    first = (positives & (s == best)).argmax(axis=1)[:, None]  # the lowest-index positive among the best-scored
    col = np.arange(s.shape[1])[None, :]
    return 1 + ((s > best) | ((s == best) & (col < first))).sum(axis=1)


def _floats(similarity) -> np.ndarray:
    """``similarity`` as floats without a copy when it is float32 or float64 already (ranks are the same in both)."""
    s = np.asarray(similarity)
    return s if s.dtype in (np.float32, np.float64) else s.astype(float)


def _tied(similarity, positives) -> int:
    """Queries whose best positive shares its score with a video that is not a positive (the tie rule matters)."""
    s = _floats(similarity)
    positives = np.asarray(positives, dtype=bool)
    best = np.where(positives, s, -np.inf).max(axis=1, keepdims=True)
    return int(((s == best) & ~positives).any(axis=1).sum())


@validate_params(runs=_RUNS, positives=ARRAY, ks=CUTOFFS)
def recall_table(runs: Mapping[str, np.ndarray], positives, ks: Sequence[int] = (1, 5, 10)) -> dict:
    """``{model: {"R@1": ..., "MdR": ..., "MnR": ..., "tied": n}}`` against the original ``positives``.

    R@K is the share of queries whose best positive ranks within the top K; MdR and MnR the
    median and mean of that rank (:func:`first_positive_rank`); ``tied`` counts queries whose
    positive shares its score with another video.

    Parameters
    ----------
    runs : dict
        ``{model: similarity (queries, videos)}``.
    positives : array_like of bool (queries, videos)
        The original positives.
    ks : sequence of int
        The cut-offs of R@K.

    Returns
    -------
    dict
        ``{model: {"R@K": float, ..., "MdR": float, "MnR": float, "tied": int}}``.

    Examples
    --------
    >>> sims = {"m": np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.3], [0.1, 0.7, 0.6]])}
    >>> original = np.eye(3, dtype=bool)
    >>> recall_table(sims, original, ks=(1, 2))
    {'m': {'R@1': 0.666..., 'R@2': 1.0, 'MdR': 1.0, 'MnR': 1.333..., 'tied': 0}}
    """
    out = {}
    for name, sim in runs.items():
        if not np.isfinite(sim).all():
            bad = tuple(np.argwhere(~np.isfinite(sim))[0].tolist())
            raise ValueError(f"{name}: similarity has a non-finite value at index {bad}. Fix: replace NaN/inf scores "
                             "(e.g. by -1e9 for videos that must rank last)")
        ranks = first_positive_rank(sim, positives)  # R@K: the best positive in the top K (no sort needed)
        out[name] = {**{f"R@{k}": float((ranks <= k).mean()) for k in ks},
                     "MdR": float(np.median(ranks)), "MnR": float(ranks.mean()), "tied": _tied(sim, positives)}
    return out


@validate_params(original=ARRAY, judged=ARRAY, relevant=ARRAY)
def corrected_from_labels(original, judged, relevant) -> np.ndarray:
    """Corrected positives: the original positives plus every labelled-relevant pair (unjudged pairs stay negative).

    .. math:: P' = P \\cup \\{(q, v) : \\mathrm{judged}(q, v) \\wedge \\mathrm{relevant}(q, v)\\}

    Parameters
    ----------
    original, judged, relevant : array_like of bool (queries, videos)
        The original positives, the judged pairs and the pairs labelled relevant.

    Returns
    -------
    bool ndarray (queries, videos)

    Examples
    --------
    >>> corrected_from_labels(np.eye(2, dtype=bool), [[True, True], [False, True]], [[True, True], [True, True]]).tolist()
    [[True, True], [False, True]]
    """
    return np.asarray(original, dtype=bool) | (np.asarray(judged, dtype=bool) & np.asarray(relevant, dtype=bool))


@validate_params(runs=_RUNS, original=ARRAY, query_texts=TEXTS, video_captions=TEXTS, proxy=STR, aggregate=STR,
                 threshold=Real(0, 1), pool_depth=Int(1))
def corrected_by_proxy(runs: Mapping[str, np.ndarray], original, query_texts: Sequence[str],
                       video_captions: Sequence[Sequence[str]], proxy: str = "bow", aggregate: str = "max",
                       threshold: float = 0.4, pool_depth: int = 10):
    """``(corrected positives, judgements)``: FIRE's pooling of every model's top ``pool_depth``, each pooled
    pair judged by the caption proxy (:func:`fireeval.t2v.false_negatives.caption_agreement` at ``threshold``).

    Parameters
    ----------
    runs : dict
        ``{model: similarity (queries, videos)}``.
    original : array_like of bool (queries, videos)
        The original positives.
    query_texts : sequence of str
        The queries.
    video_captions : sequence of sequence of str
        Each video's captions.
    proxy, aggregate, threshold
        The caption proxy (:func:`fireeval.t2v.false_negatives.caption_agreement`).
    pool_depth : int
        Each model's pooled depth.

    Returns
    -------
    (bool ndarray, fireeval.core.judgements.Judgements)
        The corrected positives and the proxy's judgements.

    Examples
    --------
    Query 2 ("a man in a car") is answered by video 1 as well as by its own video 2:

    >>> sims = {"m": np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.3], [0.1, 0.7, 0.6]])}
    >>> original = np.eye(3, dtype=bool)
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a man in a car"]
    >>> corrected, judgements = corrected_by_proxy(sims, original, queries, captions, pool_depth=2)
    >>> corrected.astype(int).tolist(), int(judgements.judged.sum())
    ([[1, 0, 0], [0, 1, 0], [0, 1, 1]], 6)
    """
    from fireeval.t2v import false_negatives as fire

    n_videos = np.asarray(original).shape[1]
    lists = {m: fire.ranked_lists(s, depth=pool_depth) for m, s in runs.items()}
    agreement = fire.caption_agreement(list(query_texts), video_captions, proxy=proxy, aggregate=aggregate,
                                       similarity=fire.containment_matrix if proxy == "containment" else None)
    judgements = fire.judge_pool(lists, n_videos, fire.proxy_verdicts(agreement, threshold), depth=pool_depth)
    return np.asarray(original, dtype=bool) | judgements.relevant, judgements


@validate_params(runs=_RUNS, original=ARRAY, ks=CUTOFFS, ap_depth=Int(1), corrected=[ARRAY, None])
def evaluate_similarity(runs: Mapping[str, np.ndarray], original, ks: Sequence[int] = (1, 5, 10),
                        ap_depth: int = 20, corrected=None) -> dict:
    """Everything ``fireeval evaluate-similarity`` prints, as plain data.

    ``{"n_queries", "n_videos", "positives_per_query", "recall": recall_table(...),
    "corrected": [{model, metric, original, corrected, delta}, ...] or None, "ties": {model:
    TieReport.summary()}, "tie_bounds": {flagged model: {"original": tie_bounds(R@K, MdR, MnR),
    and with corrected positives "corrected_original" / "corrected": tie_bounds(C@K, AP@depth)}}}``.
    The ties check (:func:`fireeval.core.tied_scores.tied_fill`, against the original positives)
    runs on every matrix; the ranges only for flagged ones.

    Parameters
    ----------
    runs : dict
        ``{model: similarity (queries, videos)}``.
    original : array_like of bool (queries, videos)
        The original positives.
    ks : sequence of int
        The cut-offs of R@K (and C@K with corrected positives).
    ap_depth : int
        The depth of AP with corrected positives.
    corrected : array_like of bool (queries, videos), optional
        Corrected positives (:func:`corrected_from_labels`, :func:`corrected_by_proxy`).

    Returns
    -------
    dict
        As above.

    Examples
    --------
    >>> sims = {"m": np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.3], [0.1, 0.7, 0.6]])}
    >>> original = np.eye(3, dtype=bool)
    >>> corrected = np.eye(3, dtype=bool); corrected[2, 1] = True
    >>> report = evaluate_similarity(sims, original, ks=(1,), ap_depth=3, corrected=corrected)
    >>> report["recall"]["m"]["R@1"], report["ties"]["m"]["flagged"]
    (0.666..., False)
    >>> [(row["metric"], round(row["original"], 3), round(row["corrected"], 3)) for row in report["corrected"]]
    [('C@1', 0.667, 1.0), ('AP@3', 0.833, 1.0)]
    """
    original = np.asarray(original, dtype=bool)
    for name, sim in runs.items():
        if np.shape(sim) != original.shape:
            raise ValueError(f"{name}: similarity shape {np.shape(sim)} differs from the positives' {original.shape}. "
                             "Fix: give one row per query and one column per video, as the positives")
    ks = tuple(int(k) for k in ks)
    out = {"n_queries": int(original.shape[0]), "n_videos": int(original.shape[1]),
           "positives_per_query": float(original.sum(axis=1).mean()),
           "recall": recall_table(runs, original, ks), "corrected": None}
    reports = {name: tied_scores.tied_fill(sim, original) for name, sim in runs.items()}
    out["ties"] = {name: r.summary() for name, r in reports.items()}
    out["tie_bounds"] = {name: {"original": tie_bounds(runs[name], original,
                                                       [f"R@{k}" for k in ks] + ["MdR", "MnR"])}
                         for name, r in reports.items() if r.flagged}
    if corrected is not None:
        for name, bounds in out["tie_bounds"].items():
            measures = [f"C@{k}" for k in ks] + [f"AP@{ap_depth}"]
            bounds["corrected_original"] = tie_bounds(runs[name], original, measures)
            bounds["corrected"] = tie_bounds(runs[name], np.asarray(corrected, dtype=bool), measures)
        from fireeval.t2v import false_negatives as fire

        lists = {m: fire.ranked_lists(s, depth=max(max(ks), ap_depth)) for m, s in runs.items()}
        t1 = fire.table1(lists, original, np.asarray(corrected, dtype=bool), ks=ks, ap_depth=ap_depth)
        out["corrected"] = t1.to_dict("records")
        out["added_positives_per_query"] = float((np.asarray(corrected) & ~original).sum(axis=1).mean())
    return out


def _parse_measure(name: str) -> tuple[str, int | None]:
    root, _, k = str(name).partition("@")
    if root in ("R", "C", "AP") and k.isdigit() and int(k) >= 1:
        return root, int(k)
    if not k and root in ("MdR", "MnR", "nDCG", "nDCG_exp"):
        return root, None
    raise ValueError(f"unknown ranking measure {name!r}. Fix: give one of {', '.join(RANK_MEASURES)} "
                     "(K an integer >= 1)")


@validate_params(similarity=ARRAY, relevance=ARRAY, rule=Options(*tied_scores.TIE_RULES), measures=_MEASURES)
def scores_under_tie_rule(similarity, relevance, rule: str = "stable",
                          measures=("R@1", "R@5", "R@10", "MdR", "MnR")) -> dict[str, np.ndarray]:
    """Per-query values of ``measures`` with the ranking's ties broken by ``rule``.

    ``relevance`` (queries x videos) is bool (e.g. the original or the corrected positives) or
    graded in [0, 1] (a semantic proxy): a video with relevance > 0 is relevant for R@K, ranks
    and AP; nDCG uses the grades. ``rule`` is one of
    :data:`fireeval.core.tied_scores.TIE_RULES` (:func:`fireeval.core.tied_scores.order_under_tie_rule`).
    ``MdR`` and ``MnR`` both give the per-query rank (1 = top) of the best-ranked relevant video.

    Parameters
    ----------
    similarity : array_like (queries, videos)
        Scores.
    relevance : array_like (queries, videos)
        Bool or graded relevance.
    rule : str
        One of :data:`fireeval.core.tied_scores.TIE_RULES`.
    measures : sequence of str
        ``R@K``, ``MdR``, ``MnR`` and the other names of :func:`fireeval.core.tied_scores.order_under_tie_rule`.

    Returns
    -------
    dict
        ``{measure: per-query values}``.

    >>> s = [[0.9, 0.0, 0.0], [0.0, 0.5, 0.0]]; pos = np.eye(2, 3, dtype=bool)
    >>> scores_under_tie_rule(s, pos, "relevant last", ["MnR"])["MnR"].tolist()
    [1, 1]
    >>> scores_under_tie_rule([[0.9, 0.0, 0.0]], [[0, 0, 1]], "relevant last", ["R@2", "MnR"])
    {'R@2': array([0.]), 'MnR': array([3])}
    """
    parsed = {m: _parse_measure(m) for m in measures}
    s = np.asarray(similarity, dtype=float)
    rel = np.asarray(relevance, dtype=float)
    if s.ndim != 2 or s.shape != rel.shape:
        raise ValueError(f"similarity {s.shape} and relevance {rel.shape} must be (queries, videos) of one shape. "
                         "Fix: give both with one row per query and one column per video")
    order = tied_scores.order_under_tie_rule(s, rel, rule)
    relevant = rel > 0
    gains = np.take_along_axis(relevant, order, axis=1)
    out = {}
    binary_ks = sorted({k for root, k in parsed.values() if root in ("R", "C")})
    ap_depths = sorted({k for root, k in parsed.values() if root == "AP"})
    fire_scores = {}
    if ap_depths or binary_ks:
        from fireeval.t2v import false_negatives as fire
    for depth in ap_depths or ([max(binary_ks)] if binary_ks else []):
        fire_scores.update(fire.per_query_scores(order[:, :max([depth, *binary_ks])], relevant, ks=binary_ks or (1,),
                                                 ap_depth=depth))
    for name, (root, k) in parsed.items():
        if root in ("R", "C"):
            out[name] = fire_scores[f"C@{k}"]
        elif root == "AP":
            out[name] = fire_scores[f"AP@{k}"]
        elif root in ("MdR", "MnR"):
            if not relevant.any(axis=1).all():
                raise ValueError("every query needs at least one relevant video to have a rank. Fix: drop the "
                                 "queries without a relevant video, or ask for R@K")
            out[name] = gains.argmax(axis=1) + 1
        else:
            from fireeval.t2v import semantic_evaluation as se

            out[name] = se.proxy_ndcg(s, rel, gain="linear" if root == "nDCG" else "exponential", tie_rule=rule)
    return out


@validate_params(similarity=ARRAY, relevance=ARRAY, measures=_MEASURES)
def tie_bounds(similarity, relevance, measures=("R@1", "R@5", "R@10", "MdR", "MnR")) -> dict[str, dict]:
    """Each measure under the three tie rules, and its range: what a tie rule can move.

    Parameters
    ----------
    similarity : array (queries, videos)
        The model's scores; ties (e.g. the fill block below a top-N cut) are broken by each rule.
    relevance : array (queries, videos)
        Bool positives (original or corrected) or graded relevance in [0, 1] (for nDCG).
    measures : sequence of str
        Names of :data:`RANK_MEASURES` (``"R@5"``, ``"C@5"``, ``"MdR"``, ``"MnR"``, ``"AP@20"``,
        ``"nDCG"``, ``"nDCG_exp"``), averaged over queries (``MdR``: the median).

    Returns
    -------
    dict
        ``{measure: {"low", "stable", "high", "relevant first", "relevant last"}}``: ``stable`` is
        the book's rule (video order), ``low``/``high`` the smallest and largest of the three
        values (for ``MdR``/``MnR`` lower is better: ``"relevant first"`` gives ``low``). For
        measures that never lose when a relevant video moves up (R@K, C@K, ranks, nDCG) the
        range is also the range over *every* way of ordering the ties; FIRE's AP@K is not
        monotone (a relevant video entering the top K can lower it), so its range is over the
        three rules. A matrix without ties gives ``low == stable == high``.

    Examples
    --------
    A top-1 cut of 4 videos (zeros below): query 0's video is ranked first; query 1's
    (video 1) lies in the tied block behind video 3, where the optimistic rule puts it at
    rank 2, the stable rule at rank 3 (after video 0) and the pessimistic rule last (4):

    >>> s = [[0.9, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.8]]
    >>> b = tie_bounds(s, [[1, 0, 0, 0], [0, 1, 0, 0]], ["R@2", "MnR"])
    >>> b["R@2"]["low"], b["R@2"]["stable"], b["R@2"]["high"]
    (0.5, 0.5, 1.0)
    >>> b["MnR"]["relevant first"], b["MnR"]["stable"], b["MnR"]["relevant last"]
    (1.5, 2.0, 2.5)
    """
    by_rule = {rule: scores_under_tie_rule(similarity, relevance, rule, measures) for rule in tied_scores.TIE_RULES}
    out = {}
    for name in measures:
        aggregate = np.median if _parse_measure(name)[0] == "MdR" else np.mean
        values = {rule: float(aggregate(by_rule[rule][name])) for rule in tied_scores.TIE_RULES}
        out[name] = {"low": min(values.values()), "stable": values["stable"], "high": max(values.values()),
                     "relevant first": values["relevant first"], "relevant last": values["relevant last"]}
    return out
