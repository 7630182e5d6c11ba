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

No measure is re-implemented here: ranks, C@K and AP come from :mod:`fireeval.t2v.false_negatives`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fireeval.t2v import false_negatives as fire

__all__ = ["first_positive_rank", "recall_table", "corrected_from_labels", "corrected_by_proxy",
           "evaluate_similarity"]


def first_positive_rank(similarity, positives) -> np.ndarray:
    """Rank (1 = top) of each query's best-ranked positive under the book's tie rule (ties in video order,
    as :func:`fireeval.t2v.false_negatives.ranked_lists`); for one positive on the diagonal it is
    ``fire.original_rank_under_ties(...)["stable"]``. Counts, without sorting, the videos ranked above it.

    >>> first_positive_rank([[0.1, 0.9, 0.5], [0.3, 0.3, 0.2]], [[1, 0, 0], [0, 1, 0]]).tolist()
    [3, 2]
    """
    s = np.asarray(similarity, dtype=float)
    positives = np.asarray(positives, dtype=bool)
    if not positives.any(axis=-1).all():
        raise ValueError("every query needs at least one positive to have a rank. Fix: give each query a relevant "
                         "video (or leave the query out)")
    best = np.where(positives, s, -np.inf).max(axis=1, keepdims=True)
    first = (positives & (s == best)).argmax(axis=1)[:, None]  # the lowest-index positive among the best-scored
    col = np.arange(s.shape[1])[None, :]
    return 1 + ((s > best) | ((s == best) & (col < first))).sum(axis=1)


def _tied(similarity, positives) -> int:
    """Queries whose best positive shares its score with a video that is not a positive (the tie rule matters)."""
    s = np.asarray(similarity, dtype=float)
    positives = np.asarray(positives, dtype=bool)
    best = np.where(positives, s, -np.inf).max(axis=1, keepdims=True)
    return int(((s == best) & ~positives).any(axis=1).sum())


def recall_table(runs: Mapping[str, np.ndarray], positives, ks: Sequence[int] = (1, 5, 10)) -> dict:
    """``{model: {"R@1": ..., "MdR": ..., "MnR": ..., "tied": n}}`` against the original ``positives``."""
    out = {}
    for name, sim in runs.items():
        scores = fire.per_query_scores(fire.ranked_lists(sim, depth=max(ks)), positives, ks=ks, ap_depth=max(ks))
        ranks = first_positive_rank(sim, positives)
        out[name] = {**{f"R@{k}": float(scores[f"C@{k}"].mean()) for k in ks},
                     "MdR": float(np.median(ranks)), "MnR": float(ranks.mean()), "tied": _tied(sim, positives)}
    return out


def corrected_from_labels(original, judged, relevant) -> np.ndarray:
    """Corrected positives: the original positives plus every labelled-relevant pair (unjudged pairs stay negative)."""
    return np.asarray(original, dtype=bool) | (np.asarray(judged, dtype=bool) & np.asarray(relevant, dtype=bool))


def corrected_by_proxy(runs: Mapping[str, np.ndarray], original, query_texts: Sequence[str],
                       video_captions: Sequence[Sequence[str]], proxy: str = "bow", aggregate: str = "max",
                       threshold: float = 0.4, pool_depth: int = 10):
    """``(corrected positives, judgements)``: FIRE's pooling of every model's top ``pool_depth``, each pooled
    pair judged by the caption proxy (:func:`fireeval.t2v.false_negatives.caption_agreement` at ``threshold``)."""
    n_videos = np.asarray(original).shape[1]
    lists = {m: fire.ranked_lists(s, depth=pool_depth) for m, s in runs.items()}
    agreement = fire.caption_agreement(list(query_texts), video_captions, proxy=proxy, aggregate=aggregate,
                                       similarity=fire.containment_matrix if proxy == "containment" else None)
    judgements = fire.judge_pool(lists, n_videos, fire.proxy_verdicts(agreement, threshold), depth=pool_depth)
    return np.asarray(original, dtype=bool) | judgements.relevant, judgements


def evaluate_similarity(runs: Mapping[str, np.ndarray], original, ks: Sequence[int] = (1, 5, 10),
                        ap_depth: int = 20, corrected=None) -> dict:
    """Everything ``fireeval evaluate-similarity`` prints, as plain data.

    ``{"n_queries", "n_videos", "positives_per_query", "recall": recall_table(...),
    "corrected": [{model, metric, original, corrected, delta}, ...] or None}``.
    """
    original = np.asarray(original, dtype=bool)
    for name, sim in runs.items():
        if np.shape(sim) != original.shape:
            raise ValueError(f"{name}: similarity shape {np.shape(sim)} differs from the positives' {original.shape}. "
                             "Fix: give one row per query and one column per video, as the positives")
    ks = tuple(int(k) for k in ks)
    if min(ks) < 1 or ap_depth < 1:
        raise ValueError(f"cut-offs must be >= 1 (got ks={ks}, ap_depth={ap_depth}). Fix: give e.g. ks=(1, 5, 10)")
    out = {"n_queries": int(original.shape[0]), "n_videos": int(original.shape[1]),
           "positives_per_query": float(original.sum(axis=1).mean()),
           "recall": recall_table(runs, original, ks), "corrected": None}
    if corrected is not None:
        lists = {m: fire.ranked_lists(s, depth=max(max(ks), ap_depth)) for m, s in runs.items()}
        t1 = fire.table1(lists, original, np.asarray(corrected, dtype=bool), ks=ks, ap_depth=ap_depth)
        out["corrected"] = t1.to_dict("records")
        out["added_positives_per_query"] = float((np.asarray(corrected) & ~original).sum(axis=1).mean())
    return out
