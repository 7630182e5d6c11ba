"""Ranking metrics on arrays of relevance grades in rank order.

Every function takes ``gains``, an array of shape ``(..., depth)`` whose last axis is
a ranked list: ``gains[..., j]`` is the relevance grade of the document at rank
``j + 1`` (0 for non-relevant, unjudged, or no document). Leading axes are anything
-- queries, runs, bootstrap trials -- so one call scores all of them at once.

Measures that normalise by the number of relevant documents take ``n_relevant`` of
shape ``(...)``; nDCG takes the ideal grades. A document counts as relevant when its
grade is >= ``level`` (trec_eval's ``-l``, default 1). Queries with no relevant
document score 0 (trec_eval skips them when averaging only if they are absent from
the qrels: see :func:`fireeval.core.evaluation.score_run_set`).

Measures made for incomplete judgements (:func:`bpref`, :func:`inferred_ap`,
:func:`judged_at_k`) must tell unjudged documents from judged non-relevant ones: they
take ``grades``, the same array with ``NaN`` where the document is not in the qrels
(or there is no document). Every other function accepts such an array too (``NaN``
counts as non-relevant, gain 0), so :meth:`fireeval.core.runset.RunSet.grades` feeds
them all.

Names follow trec_eval; the ir_measures names are given in each docstring.
"""
from __future__ import annotations

import numpy as np

from fireeval.core.validation import ANY, ARRAY, Check, Int, NUMBER, STR, validate_params

__all__ = [
    "real_numbers",
    "correct_at_k",
    "precision_at_k",
    "recall_at_k",
    "average_precision",
    "average_precision_of_cells",
    "row_starts",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "bpref",
    "inferred_ap",
    "judged_at_k",
    "condense",
    "binary",
    "safe_divide",
    "sum_in_order",
    "nonrelevant_judged",
    "gain_values",
    "ideal_gains",
    "INFAP_EPSILON",
]


@validate_params(gains=ARRAY, level=NUMBER)
def binary(gains, level=1):
    """Relevant (grade >= ``level``) as booleans; NaN (unjudged) is not relevant.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray of bool
        Same shape as ``gains``.

    Examples
    --------
    >>> binary([[2, 0, np.nan]]).tolist()
    [[True, False, False]]
    """
    # NaN (unjudged) >= level is False: unjudged documents are non-relevant.
    return np.asarray(gains, dtype=float) >= level


def _cutoff(k, allow_none: bool = False):
    """``k`` if it is a whole number >= 1 (or None where allowed); a clear ValueError otherwise
    (``precision_at_k(k=-1)`` would divide by -1, ``ndcg(k=0)`` silently score the whole list)."""
    if k is None and allow_none:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"cut-off k must be a whole number >= 1{' or None' if allow_none else ''}, got {k!r}. "
                         "Fix: pass e.g. k=10")
    return int(k)


@validate_params(num=ARRAY, den=ARRAY)
def safe_divide(num, den):
    """``num / den`` where ``den > 0``, else 0 (trec_eval's convention for empty denominators).

    Parameters
    ----------
    num, den : array_like
        Numerator and denominator (broadcast).

    Returns
    -------
    numpy.ndarray of float
        ``num / den``, 0 where ``den <= 0``.

    Examples
    --------
    >>> safe_divide([1.0, 1.0], [2, 0]).tolist()
    [0.5, 0.0]
    """
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


@validate_params(gains=ARRAY, k=Check(lambda name, value: _cutoff(value)), level=NUMBER)
def correct_at_k(gains, k: int, level: int = 1) -> np.ndarray:
    """Correct@K: 1 if any relevant document is in the top K, else 0.

    .. math:: \\mathrm{C@K} = \\mathbb{1}\\left[\\sum_{j=1}^{K} \\mathrm{rel}_j > 0\\right]

    With exactly one relevant item per query this is the "R@K" of video-retrieval
    papers (FIRE calls it Correct@K to keep it apart from textbook recall).
    ir_measures: ``Success@K``.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    k : int
        The cut-off K.
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> correct_at_k([[0, 1, 0], [0, 0, 0]], k=2)
    array([1., 0.])
    """
    return _binary(gains, level)[..., :_cutoff(k)].any(axis=-1).astype(float)


@validate_params(gains=ARRAY, k=Check(lambda name, value: _cutoff(value)), level=NUMBER)
def precision_at_k(gains, k: int, level: int = 1) -> np.ndarray:
    """P@K: relevant documents in the top K divided by K (trec_eval ``P_K``).

    .. math:: P@K = \\frac{1}{K} \\sum_{j=1}^{K} \\mathbb{1}[\\mathrm{rel}_j \\ge 1]

    A list shorter than K still divides by K, as trec_eval does. ir_measures: ``P@K``.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    k : int
        The cut-off K.
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> precision_at_k([[1, 0, 1, 0]], k=4)
    array([0.5])
    """
    return _binary(gains, level)[..., :_cutoff(k)].sum(axis=-1) / k


@validate_params(gains=ARRAY, n_relevant=ARRAY, k=Check(lambda name, value: _cutoff(value)), level=NUMBER)
def recall_at_k(gains, n_relevant, k: int, level: int = 1) -> np.ndarray:
    """Textbook Recall@K: relevant documents in the top K / all relevant for the query.

    .. math:: R@K = \\frac{|\\{j \\le K : \\mathrm{rel}_j \\ge 1\\}|}{|\\mathrm{Rel}|}

    0 when the query has no relevant document. trec_eval: ``recall_K``; ir_measures: ``R@K``.
    Not to be confused with the video-retrieval "R@K", which is :func:`correct_at_k`.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    n_relevant : array_like (...)
        R, the relevant documents of each query in the qrels.
    k : int
        The cut-off K.
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> recall_at_k([[1, 0, 1, 0]], n_relevant=[4], k=2)
    array([0.25])
    """
    return _safe_divide(_binary(gains, level)[..., :_cutoff(k)].sum(axis=-1), n_relevant)


@validate_params(gains=ARRAY, n_relevant=ARRAY, level=NUMBER)
def average_precision(gains, n_relevant, level: int = 1) -> np.ndarray:
    """Average precision with trec_eval semantics (``map`` averages it over queries).

    .. math:: AP = \\frac{1}{|\\mathrm{Rel}|} \\sum_{j : \\mathrm{rel}_j \\ge 1} P@j

    Relevant documents that were not retrieved contribute 0 (they are still counted in
    ``n_relevant``). 0 when the query has no relevant document. ir_measures: ``AP``.
    Computed from the relevant cells alone by :func:`average_precision_of_cells`.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    n_relevant : array_like (...)
        R, the relevant documents of each query in the qrels.
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> average_precision([[1, 0, 1]], n_relevant=[3])   # (1/1 + 2/3) / 3
    array([0.55555556])
    """
    hits = _binary(gains, level)
    shape = hits.shape[:-1]
    flat = hits.reshape(-1, hits.shape[-1])
    row, pos = np.nonzero(flat)
    n_rel = np.broadcast_to(np.asarray(n_relevant, dtype=float), shape).reshape(-1)
    return _average_precision_of_cells(row, pos + 1.0, len(flat), n_rel).reshape(shape)


@validate_params(row=ARRAY, rank=ARRAY, n_rows=Int(0), n_relevant=ARRAY, hit=[ARRAY, None], starts=[ARRAY, None])
def average_precision_of_cells(row, rank, n_rows: int, n_relevant, hit=None, starts=None) -> np.ndarray:
    """AP of ``n_rows`` ranked lists given only their relevant retrieved cells.

    ``row`` and ``rank`` (1-based) list the relevant cells grouped by row, in rank order
    within a row (``np.nonzero`` order); ``hit`` (bool, same length) keeps a subset of
    them (the relevant documents still judged relevant under smaller qrels), so many
    qrels re-score the same cells without rebuilding them. The precision at a kept cell
    is the kept cells up to it over its rank; a row's terms are added in rank order, as
    trec_eval adds them. ``starts`` (the first cell of each row present, as
    :func:`row_starts` gives) saves recomputing it when the same cells are scored many times.

    Parameters
    ----------
    row, rank : numpy.ndarray of int
        The relevant retrieved cells: their list and 1-based rank, grouped by row in rank order.
    n_rows : int
        The number of lists.
    n_relevant : array_like (n_rows,)
        R of each list.
    hit : numpy.ndarray of bool, optional
        Keeps a subset of the cells.
    starts : numpy.ndarray, optional
        :func:`row_starts` of ``row``, when already known.

    Returns
    -------
    numpy.ndarray (n_rows,)
        AP of each list.

    Examples
    --------
    >>> average_precision_of_cells(np.array([0, 0]), np.array([1.0, 3.0]), 1, [3])   # (1/1 + 2/3) / 3
    array([0.55555556])
    """
    row = np.asarray(row, dtype=np.int64)
    rank = np.asarray(rank, dtype=float)
    if starts is None:
        starts = _row_starts(row)
    sizes = np.diff(np.r_[starts, len(row)])
    if hit is None:
        seen = np.arange(1, len(row) + 1)
        precision = (seen - np.repeat(starts, sizes)) / rank
    else:
        seen = np.cumsum(hit)
        before = np.repeat((seen - hit)[starts], sizes)  # kept cells in earlier rows
        precision = np.where(hit, (seen - before) / rank, 0.0)
    total = np.bincount(row, weights=precision, minlength=n_rows)  # adds each row's terms in order
    n_relevant = np.broadcast_to(n_relevant, total.shape)
    return np.divide(total, n_relevant, out=np.zeros(total.shape), where=n_relevant > 0)


@validate_params(row=ARRAY)
def row_starts(row) -> np.ndarray:
    """Index of the first cell of each run of equal values in ``row`` (cells grouped by row).

    Parameters
    ----------
    row : numpy.ndarray of int
        Each cell's row, cells grouped by row.

    Returns
    -------
    numpy.ndarray of int
        The index of each group's first cell.

    Examples
    --------
    >>> row_starts(np.array([0, 0, 2, 2, 2, 5])).tolist()
    [0, 2, 5]
    """
    row = np.asarray(row)
    return np.r_[0, np.flatnonzero(np.diff(row)) + 1] if len(row) else np.zeros(0, np.int64)


@validate_params(terms=ARRAY)
def sum_in_order(terms) -> np.ndarray:
    """Sum over the last axis adding left to right, as trec_eval's loops do: numpy's pairwise sum
    groups the additions otherwise and can end one ulp away, which at a 5th-decimal half prints the
    other 4th digit.

    Parameters
    ----------
    terms : array_like (..., n)
        The terms, in the order trec_eval adds them.

    Returns
    -------
    numpy.ndarray (...)
        The sums.

    Examples
    --------
    >>> float(sum_in_order([[0.1, 0.2, 0.3]])[0]) == (0.1 + 0.2) + 0.3
    True
    """
    terms = np.asarray(terms, dtype=float)
    if not terms.shape[-1]:
        return terms.sum(axis=-1)
    return np.cumsum(terms, axis=-1)[..., -1]


@validate_params(gains=ARRAY, level=NUMBER)
def reciprocal_rank(gains, level: int = 1) -> np.ndarray:
    """Reciprocal rank of the first relevant document, 0 if none is retrieved.

    .. math:: RR = 1 / \\min\\{j : \\mathrm{rel}_j \\ge 1\\}

    trec_eval: ``recip_rank``; ir_measures: ``RR``.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> reciprocal_rank([[0, 0, 1], [0, 0, 0]])
    array([0.33333333, 0.        ])
    """
    hits = _binary(gains, level)
    first = hits.argmax(axis=-1)
    return np.where(hits.any(axis=-1), 1.0 / (first + 1), 0.0)


@validate_params(grades=ARRAY, gain=STR)
def gain_values(grades, gain="linear"):
    """The gain of each grade: the grade (``linear``) or 2^grade - 1 (``exponential``); 0 for
    negative grades and unjudged (NaN) documents.

    Parameters
    ----------
    grades : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    gain : {"linear", "exponential"}
        The grade itself, or 2^grade - 1.

    Returns
    -------
    numpy.ndarray of float
        Same shape as ``grades``.

    Examples
    --------
    >>> gain_values([[2, -1, np.nan]]).tolist()
    [[2.0, 0.0, 0.0]]
    """
    grades = np.asarray(grades, dtype=float)
    grades = np.where(grades > 0, grades, 0.0)  # negative grades and unjudged (NaN) earn nothing
    if gain == "linear":
        return grades
    if gain == "exponential":
        return np.exp2(grades) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exponential', not {gain!r}. Fix: give one of the two")


@validate_params(gains=ARRAY, k=Check(lambda name, value: _cutoff(value, allow_none=True)), gain=STR)
def dcg(gains, k: int | None = None, gain: str = "linear") -> np.ndarray:
    """Discounted cumulative gain of the top K (all ranks when K is None).

    .. math:: DCG@K = \\sum_{j=1}^{K} \\frac{g(\\mathrm{rel}_j)}{\\log_2(j + 1)}

    with ``gain="linear"``: g(r) = r (trec_eval's ``ndcg``, Wray et al.'s reference code),
    or ``gain="exponential"``: g(r) = 2^r - 1 (Burges et al.; Wray et al.'s paper text).
    The two agree on binary relevance.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    k : int or None
        The cut-off K; None: every rank.
    gain : {"linear", "exponential"}
        g(r) = r or 2^r - 1.

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> dcg([[1, 0, 1]])     # 1/log2(2) + 1/log2(4)
    array([1.5])
    """
    grades = np.asarray(gains)[..., :k] if _cutoff(k, allow_none=True) else np.asarray(gains)
    discounts = 1.0 / np.log2(np.arange(2, grades.shape[-1] + 2))
    return (_gain_values(grades, gain) * discounts).sum(axis=-1)


@validate_params(gains=ARRAY, ideal_gains=ARRAY, k=Check(lambda name, value: _cutoff(value, allow_none=True)), gain=STR)
def ndcg(gains, ideal_gains, k: int | None = None, gain: str = "linear") -> np.ndarray:
    """Normalised DCG: DCG of the ranking over DCG of the ideal ranking, both cut at K.

    ``ideal_gains`` holds each query's judged grades sorted descending (shape
    ``(..., n)``, zero-padded); it broadcasts against ``gains``. With ``k=None`` this is
    trec_eval's ``ndcg`` (the whole ranking against all judged relevant documents);
    with ``k`` it is ``ndcg_cut_k``. 0 when the ideal DCG is 0. ir_measures:
    ``nDCG`` / ``nDCG@k``.

    Parameters
    ----------
    gains : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    ideal_gains : array_like (..., n)
        Each query's judged grades sorted descending (:func:`ideal_gains`).
    k : int or None
        The cut-off K; None: every rank.
    gain : {"linear", "exponential"}
        g(r) = r or 2^r - 1.

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> ndcg([[0, 1]], ideal_gains=[[1]])   # (1/log2 3) / 1
    array([0.63092975])
    """
    return _safe_divide(_dcg(gains, k, gain), _dcg(ideal_gains, k, gain))


@validate_params(grades=ARRAY, level=NUMBER)
def nonrelevant_judged(grades, level):
    """Judged non-relevant: 0 <= grade < ``level`` (a negative grade is pooled but not judged).

    Parameters
    ----------
    grades : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray of bool
        Same shape as ``grades``.

    Examples
    --------
    >>> nonrelevant_judged(np.array([[2, 0, -1, np.nan]]), 1).tolist()
    [[False, True, False, False]]
    """
    grades = np.asarray(grades, dtype=float)
    return (grades >= 0) & (grades < level)


@validate_params(grades=ARRAY, n_relevant=ARRAY, n_nonrelevant=ARRAY, level=NUMBER)
def bpref(grades, n_relevant, n_nonrelevant, level: int = 1) -> np.ndarray:
    """Binary preference (Buckley & Voorhees 2004), trec_eval's ``bpref``.

    .. math:: \\mathrm{bpref} = \\frac{1}{R} \\sum_{r} \\left(1 -
              \\frac{\\min(|n \\text{ ranked above } r|, R)}{\\min(R, N)}\\right)

    over the retrieved relevant documents r, where n are *judged* non-relevant documents,
    R the relevant and N the judged non-relevant documents in the qrels. Unjudged
    documents (``NaN`` in ``grades``) are ignored: that is the point of the measure. A
    relevant document with no judged non-relevant one above it scores 1. ir_measures:
    ``Bpref``.

    Parameters
    ----------
    grades : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    n_relevant : array_like (...)
        R, the relevant documents of each query in the qrels.
    n_nonrelevant : array_like (...)
        N, the judged non-relevant documents of each query.
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> bpref([[1, np.nan, 0, 1]], n_relevant=[2], n_nonrelevant=[3])   # (1 + (1 - 1/2)) / 2
    array([0.75])
    """
    grades = np.asarray(grades, dtype=float)
    rel = grades >= level
    nonrel_above = np.cumsum(nonrelevant_judged(grades, level), axis=-1)  # equals "above" at rel ranks
    n_rel = np.asarray(n_relevant, dtype=float)[..., None]
    denom = np.minimum(n_rel, np.asarray(n_nonrelevant, dtype=float)[..., None])
    penalty = _safe_divide(np.minimum(nonrel_above, n_rel), np.broadcast_to(denom, nonrel_above.shape))
    # summed in rank order as trec_eval adds them (numpy's pairwise sum can end one ulp away and print
    # the other side of a 5th-decimal half)
    return _safe_divide(_sum_in_order(np.where(rel, 1.0 - penalty, 0.0)), n_relevant)


INFAP_EPSILON = 0.00001  # trec_eval's INFAP_EPSILON


@validate_params(grades=ARRAY, n_relevant=ARRAY, level=NUMBER)
def inferred_ap(grades, n_relevant, level: int = 1) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam 2006), trec_eval's ``infAP``.

    At the k-th ranked relevant document (rank i > 1) the precision is estimated from the
    judged documents above it:

    .. math:: E[P@i] = \\frac{1}{i} + \\frac{i-1}{i}\\cdot\\frac{|d_{<i}|}{i-1}\\cdot
              \\frac{r_{<i} + \\epsilon}{r_{<i} + n_{<i} + 2\\epsilon}

    with ``|d<i|`` the documents above i that are in the pool (judged, or pooled but not
    judged: a negative grade in the qrels), r and n the judged relevant and
    non-relevant ones above i, and epsilon = 1e-5 (trec_eval's). infAP is the sum over
    retrieved relevant documents divided by R. With complete judgements it equals AP.
    Documents absent from the qrels (``NaN``) are outside the pool and contribute
    nothing but their rank. ir_measures: ``infAP``.

    Parameters
    ----------
    grades : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    n_relevant : array_like (...)
        R, the relevant documents of each query in the qrels.
    level : int
        The smallest grade that counts as relevant (trec_eval's ``-l``).

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> inferred_ap([[1, 0, 1]], n_relevant=[2])   # complete judgements: AP = (1 + 2/3) / 2
    array([0.83333333])
    """
    grades = np.asarray(grades, dtype=float)
    rel = grades >= level
    rel_above = np.cumsum(rel, axis=-1) - rel
    nonrel_above = np.cumsum(nonrelevant_judged(grades, level), axis=-1)  # at rel ranks: strictly above
    pooled_above = rel_above + nonrel_above + np.cumsum(grades < 0, axis=-1)
    i = np.arange(grades.shape[-1], dtype=float)  # 0-based rank index
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (1.0 / (i + 1) + (i / (i + 1)) * (pooled_above / np.where(i > 0, i, 1.0))
                    * ((rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)))
    estimate[..., 0] = 1.0
    return _safe_divide(_sum_in_order(np.where(rel, estimate, 0.0)), n_relevant)


@validate_params(grades=ARRAY, n_retrieved=ARRAY, k=Check(lambda name, value: _cutoff(value)))
def judged_at_k(grades, n_retrieved, k: int) -> np.ndarray:
    """Judged@K: share of the top K retrieved documents that are in the qrels at all.

    .. math:: \\mathrm{Judged@K} = \\frac{|\\{j \\le K : d_j \\text{ judged}\\}|}{\\min(K, |\\mathrm{ret}|)}

    Judged with any grade, 0 included. Divides by the list length when it is shorter
    than K, as ir_measures does; 0 for an empty list. ir_measures: ``Judged@K``.

    Parameters
    ----------
    grades : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    n_retrieved : array_like (...)
        The length of each list.
    k : int
        The cut-off K.

    Returns
    -------
    numpy.ndarray (...)
        One value per query (the leading axes of ``gains``).

    Examples
    --------
    >>> judged_at_k([[1, np.nan, 0, np.nan]], n_retrieved=[4], k=2)
    array([0.5])
    """
    grades = np.asarray(grades, dtype=float)[..., :_cutoff(k)]
    judged = (~np.isnan(grades)).sum(axis=-1)
    return _safe_divide(judged, np.minimum(np.asarray(n_retrieved), k))


@validate_params(topic=ARRAY, grades=ARRAY, n_topics=Int(0), depth=[Int(0), None])
def ideal_gains(topic, grades, n_topics: int, depth: int | None = None) -> np.ndarray:
    """Each topic's positive grades sorted descending, zero-padded: (n_topics, width).

    ``topic`` is each judgement's topic index (-1: not wanted), ``grades`` its grade.
    nDCG's ideal ranking; ``depth`` pads (or cuts) the width.

    Parameters
    ----------
    topic : numpy.ndarray of int
        Each judgement's topic index (-1: not wanted).
    grades : numpy.ndarray
        Each judgement's grade.
    n_topics : int
        Rows of the result.
    depth : int, optional
        Width of the result (default: the most positive grades of a topic).

    Returns
    -------
    numpy.ndarray (n_topics, width)
        Positive grades sorted descending, zero-padded.

    Examples
    --------
    >>> ideal_gains(np.array([0, 0, 1, 0]), np.array([1, 3, 2, 0]), 3).tolist()
    [[3.0, 1.0], [2.0, 0.0], [0.0, 0.0]]
    """
    topic, grades = np.asarray(topic), np.asarray(grades)
    keep = (grades > 0) & (topic >= 0)
    rows, values = topic[keep], grades[keep]
    order = np.lexsort((-values, rows))
    rows, values = rows[order], values[order]
    starts = np.searchsorted(rows, np.arange(n_topics))
    cols = np.arange(len(rows)) - starts[rows]
    width = int(cols.max() + 1) if len(cols) else 1
    ideal = np.zeros((n_topics, max(width, depth or 0)))
    ideal[rows, cols] = values
    return ideal[:, :depth] if depth else ideal


@validate_params(grades=ARRAY, n_retrieved=[ARRAY, None])
def condense(grades, n_retrieved=None):
    """The condensed list (Sakai 2007; trec_eval ``-J``): unjudged documents removed.

    Returns ``(grades, n_retrieved)`` with each list's judged documents moved up in
    their original order and ``NaN`` after them. Every measure computed on the result is
    its judged-only variant (condensed-list AP, nDCG, P@k ...).

    Parameters
    ----------
    grades : array_like (..., depth)
        Grades in rank order (NaN: unjudged), over any leading axes (runs, topics).
    n_retrieved : array_like (...), optional
        The length of each list (default: the depth).

    Returns
    -------
    grades : numpy.ndarray
        The judged documents moved up, NaN after them.
    n_retrieved : numpy.ndarray
        The judged documents of each list.

    Examples
    --------
    >>> g, n = condense([[np.nan, 1, np.nan, 0]])
    >>> g, n
    (array([[ 1.,  0., nan, nan]]), array([2]))
    """
    grades = np.asarray(grades, dtype=float)
    keep = grades >= 0  # trec_eval -J drops documents with no (or a negative) judgement
    order = np.argsort(~keep, axis=-1, kind="stable")
    out = np.take_along_axis(np.where(keep, grades, np.nan), order, axis=-1)
    return out, keep.sum(axis=-1)


@validate_params(values=ANY, what=STR, dtype=ANY, ragged=[STR, None])
def real_numbers(values, what: str = "scores", dtype=float, ragged: str | None = None) -> np.ndarray:
    """``values`` (an array, a column, or nested lists) as an array of ``dtype``, refusing what is not a real number.

    ``numpy.asarray(values, dtype=float)`` guesses silently: it drops an imaginary part,
    turns dates into nanoseconds, booleans into 0/1 and text such as ``"0.5"`` into a
    number. Here each of those is a ``ValueError`` naming ``what`` and the value; ints and
    floats (Python's and numpy's) pass. Nested lists of different lengths raise
    ``ragged`` (the caller's one-line message, with its Fix) or a generic one.

    Parameters
    ----------
    values : array_like
        An array, a column, or nested lists.
    what : str
        What the values are, for the error message.
    dtype : numpy dtype
        The result's dtype.
    ragged : str, optional
        The message for nested lists of different lengths.

    Returns
    -------
    numpy.ndarray
        ``values`` as ``dtype``.

    Examples
    --------
    >>> real_numbers([[1, 2.5]]).tolist()
    [[1.0, 2.5]]
    >>> real_numbers([1 + 2j, 0.5], "scores of run A")
    Traceback (most recent call last):
    ...
    ValueError: scores of run A: (1+2j) is a complex number, not a real number. Fix: give ints or floats
    """
    ragged = ragged or (f"{what}: lists of different lengths, not a table of numbers. Fix: give the same number "
                        "of values in every row")
    arr = values.to_numpy() if hasattr(values, "to_numpy") else values
    if not isinstance(arr, np.ndarray):
        try:
            arr = np.asarray(arr, dtype=object)
        except ValueError:  # ragged nested lists numpy cannot even hold as objects
            raise ValueError(ragged) from None
    kinds = {"c": "a complex number", "M": "a date", "m": "a duration", "b": "a boolean", "U": "text",
             "S": "bytes", "V": "a record"}
    if arr.dtype.kind == "O":
        flat = arr.ravel()
        bad = next((v for v in flat if isinstance(v, (bool, np.bool_))
                    or not isinstance(v, (int, float, np.integer, np.floating))), None)
        if bad is None:
            try:
                return arr.astype(dtype)
            except OverflowError:
                bad = next(v for v in flat if isinstance(v, int) and abs(v) > 1e308)
                raise ValueError(f"{what}: {str(bad)[:20]}... is beyond the range of a float (about 1.8e308). "
                                 "Fix: give ordinary numbers") from None
        if isinstance(bad, (list, tuple, np.ndarray)):  # nested lists of different lengths
            raise ValueError(ragged)
        kind = np.asarray([bad]).dtype.kind if not isinstance(bad, dict) else "O"
        name = kinds.get(kind, f"a {type(bad).__name__}")
        raise ValueError(f"{what}: {repr(bad)[:40]} is {name}, not a real number. Fix: give ints or floats")
    if arr.dtype.kind not in "iuf":
        example = arr.ravel()[0].item() if arr.size else ""
        example = str(example) if arr.dtype.kind in "Mm" else repr(example)
        name = kinds.get(arr.dtype.kind, f"of type {arr.dtype}")
        raise ValueError(f"{what}: {example[:40]} is {name} ({arr.dtype}), not a real number. "
                         "Fix: give ints or floats")
    return arr.astype(dtype)


# This module's own calls to its declared functions, without checking again what the calling function's declaration
# has checked (the scoring engine calls them once per measure: issue 38, benchmarks/bench_validation.py); a user's
# call of the public name is still checked.
_binary = binary.__wrapped__
_safe_divide = safe_divide.__wrapped__
_sum_in_order = sum_in_order.__wrapped__
_gain_values = gain_values.__wrapped__
_dcg = dcg.__wrapped__
_average_precision_of_cells = average_precision_of_cells.__wrapped__
_row_starts = row_starts.__wrapped__
