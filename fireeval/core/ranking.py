"""Ranking metrics on arrays of relevance grades in rank order.

Every function takes ``gains``, an array of shape ``(..., depth)`` whose last axis is
a ranked list: ``gains[..., j]`` is the relevance grade of the document at rank
``j + 1`` (0 for non-relevant, unjudged, or no document). Leading axes are anything
-- queries, runs, bootstrap trials -- so one call scores all of them at once.

Measures that normalise by the number of relevant documents take ``n_relevant`` of
shape ``(...)``; nDCG takes the ideal grades. A document counts as relevant when its
grade is >= 1 (trec_eval's default relevance level). Queries with no relevant
document score 0 (trec_eval skips them when averaging only if they are absent from
the qrels: see :func:`fireeval.core.evaluation.evaluate`).

Names follow trec_eval; the ir_measures names are given in each docstring.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "correct_at_k",
    "precision_at_k",
    "recall_at_k",
    "average_precision",
    "reciprocal_rank",
    "dcg",
    "ndcg",
]


def _binary(gains):
    return np.asarray(gains) >= 1


def _safe_divide(num, den):
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


def correct_at_k(gains, k: int) -> np.ndarray:
    """Correct@K: 1 if any relevant document is in the top K, else 0.

    .. math:: \\mathrm{C@K} = \\mathbb{1}\\left[\\sum_{j=1}^{K} \\mathrm{rel}_j > 0\\right]

    With exactly one relevant item per query this is the "R@K" of video-retrieval
    papers (FIRE calls it Correct@K to keep it apart from textbook recall).
    ir_measures: ``Success@K``.

    >>> correct_at_k([[0, 1, 0], [0, 0, 0]], k=2)
    array([1., 0.])
    """
    return _binary(gains)[..., :k].any(axis=-1).astype(float)


def precision_at_k(gains, k: int) -> np.ndarray:
    """P@K: relevant documents in the top K divided by K (trec_eval ``P_K``).

    .. math:: P@K = \\frac{1}{K} \\sum_{j=1}^{K} \\mathbb{1}[\\mathrm{rel}_j \\ge 1]

    A list shorter than K still divides by K, as trec_eval does. ir_measures: ``P@K``.

    >>> precision_at_k([[1, 0, 1, 0]], k=4)
    array([0.5])
    """
    return _binary(gains)[..., :k].sum(axis=-1) / k


def recall_at_k(gains, n_relevant, k: int) -> np.ndarray:
    """Textbook Recall@K: relevant documents in the top K / all relevant for the query.

    .. math:: R@K = \\frac{|\\{j \\le K : \\mathrm{rel}_j \\ge 1\\}|}{|\\mathrm{Rel}|}

    0 when the query has no relevant document. trec_eval: ``recall_K``; ir_measures: ``R@K``.
    Not to be confused with the video-retrieval "R@K", which is :func:`correct_at_k`.

    >>> recall_at_k([[1, 0, 1, 0]], n_relevant=[4], k=2)
    array([0.25])
    """
    return _safe_divide(_binary(gains)[..., :k].sum(axis=-1), n_relevant)


def average_precision(gains, n_relevant) -> np.ndarray:
    """Average precision with trec_eval semantics (``map`` averages it over queries).

    .. math:: AP = \\frac{1}{|\\mathrm{Rel}|} \\sum_{j : \\mathrm{rel}_j \\ge 1} P@j

    Relevant documents that were not retrieved contribute 0 (they are still counted in
    ``n_relevant``). 0 when the query has no relevant document. ir_measures: ``AP``.

    >>> average_precision([[1, 0, 1]], n_relevant=[3])   # (1/1 + 2/3) / 3
    array([0.55555556])
    """
    hits = _binary(gains)
    ranks = np.arange(1, hits.shape[-1] + 1)
    precision = np.cumsum(hits, axis=-1) / ranks
    return _safe_divide((precision * hits).sum(axis=-1), n_relevant)


def reciprocal_rank(gains) -> np.ndarray:
    """Reciprocal rank of the first relevant document, 0 if none is retrieved.

    .. math:: RR = 1 / \\min\\{j : \\mathrm{rel}_j \\ge 1\\}

    trec_eval: ``recip_rank``; ir_measures: ``RR``.

    >>> reciprocal_rank([[0, 0, 1], [0, 0, 0]])
    array([0.33333333, 0.        ])
    """
    hits = _binary(gains)
    first = hits.argmax(axis=-1)
    return np.where(hits.any(axis=-1), 1.0 / (first + 1), 0.0)


def _gain(grades, gain):
    grades = np.clip(np.asarray(grades, dtype=float), 0, None)  # negative grades earn nothing
    if gain == "linear":
        return grades
    if gain == "exponential":
        return np.exp2(grades) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exponential', not {gain!r}")


def dcg(gains, k: int | None = None, gain: str = "linear") -> np.ndarray:
    """Discounted cumulative gain of the top K (all ranks when K is None).

    .. math:: DCG@K = \\sum_{j=1}^{K} \\frac{g(\\mathrm{rel}_j)}{\\log_2(j + 1)}

    with ``gain="linear"``: g(r) = r (trec_eval's ``ndcg``, Wray et al.'s reference code),
    or ``gain="exponential"``: g(r) = 2^r - 1 (Burges et al.; Wray et al.'s paper text).
    The two agree on binary relevance.

    >>> dcg([[1, 0, 1]])     # 1/log2(2) + 1/log2(4)
    array([1.5])
    """
    grades = np.asarray(gains)[..., :k] if k else np.asarray(gains)
    discounts = 1.0 / np.log2(np.arange(2, grades.shape[-1] + 2))
    return (_gain(grades, gain) * discounts).sum(axis=-1)


def ndcg(gains, ideal_gains, k: int | None = None, gain: str = "linear") -> np.ndarray:
    """Normalised DCG: DCG of the ranking over DCG of the ideal ranking, both cut at K.

    ``ideal_gains`` holds each query's judged grades sorted descending (shape
    ``(..., n)``, zero-padded); it broadcasts against ``gains``. With ``k=None`` this is
    trec_eval's ``ndcg`` (the whole ranking against all judged relevant documents);
    with ``k`` it is ``ndcg_cut_k``. 0 when the ideal DCG is 0. ir_measures:
    ``nDCG`` / ``nDCG@k``.

    >>> ndcg([[0, 1]], ideal_gains=[[1]])   # (1/log2 3) / 1
    array([0.63092975])
    """
    return _safe_divide(dcg(gains, k, gain), dcg(ideal_gains, k, gain))
