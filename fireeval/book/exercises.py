"""Checkers for the exercises in which a student writes a small measure themselves.

Each ``check_...`` function takes the student's function, calls it on a few fixed cases
(the edge cases the measure's definition settles) and on seeded random ones, compares
every answer with fireeval's own measure -- the one the chapters use, imported here,
never re-implemented -- and prints what is wrong: the input, the expected value and the
student's. It returns True when every case agrees (to ``1e-9``), else False.

| checker | the student writes | fireeval's measure |
|---|---|---|
| :func:`check_recall_at_k_theta` | ``f(predictions, truth, k, theta)``: R@K,θ of one query | ``core.moments.recall_at_k_iou`` of ``temporal_iou`` |
| :func:`check_axiou` | ``f(predictions, truth, k)``: AxIoU@K of one query | ``core.moments.axiou_at_k`` of ``temporal_iou`` |
| :func:`check_kendall_tau` | ``f(order_a, order_b)``: Kendall's τ of two orderings | ``stats.agreement.kendall_tau`` |
| :func:`check_average_precision` | ``f(ranking, qrels)``: AP of one topic | ``core.ranking.average_precision`` |
| :func:`check_bpref` | ``f(ranking, qrels)``: bpref of one topic | ``core.ranking.bpref`` |
| :func:`check_correct_at_k` | ``f(ranking, positives, k)``: Correct@K of one query | ``core.ranking.correct_at_k`` |
| :func:`check_fire_ap` | ``f(ranking, positives, depth)``: AP@depth of one query as FIRE's code | ``t2v.false_negatives.per_query_scores`` |
| :func:`check_ndcg` | ``f(ranking, relevance)``: nDCG of one query, graded relevance as Wray et al. | ``t2v.semantic_evaluation.proxy_ndcg`` |
| :func:`check_holm` | ``f(pvalues)``: Holm's adjusted p-values | ``stats.significance.holm`` |

Inputs are plain Python: moments are ``(start, end)`` pairs in seconds, ``predictions``
a ranked list of them; an ordering is a list of system names, best first; ``ranking`` a
ranked list of document ids and ``qrels`` a dict ``{document id: grade}`` of the *judged*
documents (grade >= 1 relevant, 0 judged non-relevant; a document missing from it is
unjudged). For the text-to-video measures, ``positives`` is a set of video ids and
``relevance`` a dict ``{video id: grade in [0, 1]}`` (a video missing from it has 0).

>>> def my_ap(ranking, qrels):
...     n_relevant = sum(g >= 1 for g in qrels.values())
...     hits, total = 0, 0.0
...     for rank, doc in enumerate(ranking, start=1):
...         if qrels.get(doc, 0) >= 1:
...             hits += 1
...             total += hits / rank
...     return total / n_relevant if n_relevant else 0.0
>>> check_average_precision(my_ap)
average precision: all 26 cases agree with fireeval.core.ranking.average_precision.
True
"""
from __future__ import annotations

import gc
import math
import traceback

import numpy as np

from fireeval.core.validation import CALLABLE, SEED, Int, validate_params

__all__ = ["check_recall_at_k_theta", "check_axiou", "check_kendall_tau", "check_average_precision",
           "check_bpref", "check_correct_at_k", "check_fire_ap", "check_ndcg", "check_holm", "TOLERANCE"]

#: Largest difference from fireeval's value that still counts as the same answer.
TOLERANCE = 1e-9
#: How many disagreeing cases are printed (the rest are counted).
SHOWN = 3


def _compare(what: str, reference: str, student, cases, expected_fn) -> bool:
    """Call ``student(*case)`` and ``expected_fn(*case)`` on every case; print the disagreements.

    A number is compared with a number; a sequence (``expected_fn`` returning an array)
    with a sequence of the same length, element by element.
    """
    wrong = []
    for case in cases:
        expected = np.asarray(expected_fn(*case), dtype=float)
        expected = float(expected) if expected.ndim == 0 else expected.reshape(-1)
        try:
            got = student(*case)
            if isinstance(expected, float):
                got_value = float(got)
            elif isinstance(got, (str, bytes)) or np.ndim(got) != 1:
                raise TypeError(f"expected a sequence of {len(expected)} numbers, got {type(got).__name__}")
            else:
                got_value = np.asarray(got, dtype=float)
        except Exception as err:  # the student's code may raise anything: report it with its input
            line = traceback.format_exception_only(type(err), err)[-1].strip()
            wrong.append((case, expected, f"an error: {line}"))
            continue
        if isinstance(expected, float):
            same = (math.isnan(expected) and math.isnan(got_value)) or abs(got_value - expected) <= TOLERANCE
        else:
            same = got_value.shape == expected.shape and bool(
                np.all((np.isnan(expected) & np.isnan(got_value)) | (np.abs(got_value - expected) <= TOLERANCE)))
        if not same:
            wrong.append((case, expected, repr(got)))
    if not wrong:
        print(f"{what}: all {len(cases)} cases agree with {reference}.")
        return True
    print(f"{what}: {len(wrong)} of {len(cases)} cases disagree with {reference}.")
    for case, expected, got in wrong[:SHOWN]:
        args = ", ".join(repr(a) for a in case)
        shown = f"{expected:.6g}" if isinstance(expected, float) else "[" + ", ".join(f"{x:.6g}" for x in expected) + "]"
        print(f"  f({args})\n    expected {shown}, got {got}")
    if len(wrong) > SHOWN:
        print(f"  ... and {len(wrong) - SHOWN} more.")
    return False


def _round(x) -> float:
    return float(round(float(x), 1))


def _moments(rng, n: int, length: float = 30.0) -> list[tuple[float, float]]:
    """``n`` random moments (start < end, whole tenths of a second) inside a ``length``-second video."""
    out = []
    for _ in range(n):
        a, b = sorted(rng.uniform(0, length, size=2))
        out.append((_round(a), _round(max(b, a + 0.5))))
    return out


def _iou(predictions, truth):
    from fireeval.core.moments import temporal_iou

    return temporal_iou(np.asarray([predictions], dtype=float).reshape(1, -1, 2), np.asarray([truth], dtype=float))


# ---------------------------------------------------------------- moments (one query)
_MOMENT_CASES = [
    # (predictions, truth): a perfect first moment; a hit only at rank 3; nothing overlaps;
    # IoU exactly 0.5 (the threshold counts: >=); touching but not overlapping.
    ([(0.0, 10.0), (20.0, 30.0)], (0.0, 10.0)),
    ([(20.0, 25.0), (12.0, 30.0), (4.0, 10.0)], (5.0, 10.0)),
    ([(20.0, 25.0), (26.0, 30.0)], (0.0, 10.0)),
    ([(0.0, 10.0)], (5.0, 10.0)),
    ([(10.0, 20.0), (0.0, 4.0)], (0.0, 10.0)),
]


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_recall_at_k_theta(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(predictions, truth, k, theta)``: R@K,θ of one query (1.0 or 0.0).

    1.0 when one of the first ``k`` moments of ``predictions`` has a temporal IoU with
    ``truth`` of at least ``theta`` (an IoU equal to θ counts), else 0.0; ``k`` may exceed
    the number of predictions. Compared with
    :func:`fireeval.core.moments.recall_at_k_iou` of :func:`~fireeval.core.moments.temporal_iou`.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(predictions, truth, k, theta)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def strict(predictions, truth, k, theta):   # a common slip: > instead of >=
    ...     def iou(p, t):
    ...         inter = max(0.0, min(p[1], t[1]) - max(p[0], t[0]))
    ...         return inter / (max(p[1], t[1]) - min(p[0], t[0]))
    ...     return float(any(iou(p, truth) > theta for p in predictions[:k]))
    >>> check_recall_at_k_theta(strict)
    R@K,theta: 2 of 27 cases disagree with fireeval.core.moments.recall_at_k_iou.
      f([(0.0, 10.0)], (5.0, 10.0), 1, 0.5)
        expected 1, got 0.0
      f([(20.0, 30.0), (0.0, 4.0)], (0.0, 10.0), 2, 0.4)
        expected 1, got 0.0
    False
    """
    from fireeval.core.moments import recall_at_k_iou

    cases = [(list(p), t, k, theta) for (p, t), k, theta in
             zip(_MOMENT_CASES, [1, 3, 5, 1, 5], [0.7, 0.5, 0.1, 0.5, 0.3])]
    cases += [([(10.0, 20.0), (0.0, 4.0)], (0.0, 10.0), 1, 0.3), ([(20.0, 30.0), (0.0, 4.0)], (0.0, 10.0), 2, 0.4)]
    rng = np.random.default_rng(seed)
    for _ in range(n_random):
        cases.append((_moments(rng, int(rng.integers(1, 8))), _moments(rng, 1)[0], int(rng.integers(1, 10)),
                      float(rng.choice([0.1, 0.3, 0.5, 0.7]))))
    return _compare("R@K,theta", "fireeval.core.moments.recall_at_k_iou", student, cases,
                    lambda p, t, k, theta: recall_at_k_iou(_iou(p, t), k, theta)[0])


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_axiou(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(predictions, truth, k)``: AxIoU@K of one query.

    The mean over k = 1..K of the best temporal IoU among the first k moments; a list
    shorter than K still divides by K (its best IoU carries on to the missing ranks), and an
    empty list scores 0.
    Compared with :func:`fireeval.core.moments.axiou_at_k` (the paper's measure, lower
    bound 0) of :func:`~fireeval.core.moments.temporal_iou`.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(predictions, truth, k)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def mean_iou(predictions, truth, k):   # the mean IoU of the top K: not AxIoU
    ...     def iou(p, t):
    ...         inter = max(0.0, min(p[1], t[1]) - max(p[0], t[0]))
    ...         return inter / (max(p[1], t[1]) - min(p[0], t[0]))
    ...     return sum(iou(p, truth) for p in predictions[:k]) / k
    >>> check_axiou(mean_iou) is False
    AxIoU@K: ... cases disagree with fireeval.core.moments.axiou_at_k.
    ...
    True
    """
    from fireeval.core.moments import axiou_at_k

    cases = [(list(p), t, k) for (p, t), k in zip(_MOMENT_CASES, [1, 3, 5, 1, 5])]
    cases.append(([(20.0, 25.0), (12.0, 30.0), (4.0, 10.0)], (5.0, 10.0), 2))
    rng = np.random.default_rng(seed)
    for _ in range(n_random):
        cases.append((_moments(rng, int(rng.integers(1, 8))), _moments(rng, 1)[0], int(rng.integers(1, 10))))
    return _compare("AxIoU@K", "fireeval.core.moments.axiou_at_k", student, cases,
                    lambda p, t, k: axiou_at_k(_iou(p, t), k)[0])


# ---------------------------------------------------------------- agreement between two orderings
@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_kendall_tau(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(order_a, order_b)``: Kendall's τ between two orderings of the same systems.

    Each ordering lists every system once, best first (no ties, so τ-b equals τ-a):
    τ = (concordant − discordant pairs) / number of pairs. Compared with
    :func:`fireeval.stats.agreement.kendall_tau` on the positions.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(order_a, order_b)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def tau(order_a, order_b):
    ...     pos_b = {s: i for i, s in enumerate(order_b)}
    ...     n, score = len(order_a), 0
    ...     for i in range(n):
    ...         for j in range(i + 1, n):
    ...             score += 1 if pos_b[order_a[i]] < pos_b[order_a[j]] else -1
    ...     return score / (n * (n - 1) / 2)
    >>> check_kendall_tau(tau)
    Kendall's tau: all 25 cases agree with fireeval.stats.agreement.kendall_tau.
    True
    """
    from fireeval.stats.agreement import kendall_tau

    def expected(order_a, order_b):
        position_b = {system: i for i, system in enumerate(order_b)}
        return kendall_tau([-i for i in range(len(order_a))], [-position_b[s] for s in order_a])

    systems = ["A", "B", "C", "D", "E"]
    cases = [(systems, list(systems)), (systems, systems[::-1]), (systems, ["B", "A", "C", "D", "E"]),
             (["A", "B"], ["B", "A"]), (systems, ["E", "A", "B", "C", "D"])]
    rng = np.random.default_rng(seed)
    for _ in range(n_random):
        names = [f"run{i}" for i in range(int(rng.integers(2, 12)))]
        cases.append(([names[i] for i in rng.permutation(len(names))], [names[i] for i in rng.permutation(len(names))]))
    return _compare("Kendall's tau", "fireeval.stats.agreement.kendall_tau", student, cases, expected)


# ---------------------------------------------------------------- one topic, ranked documents
_TOPIC_CASES = [
    # (ranking, qrels): relevant at 1 and 3 of 3 relevant; nothing relevant retrieved;
    # no relevant document at all (0 by convention); unjudged documents between judged ones;
    # graded relevance (grade 2 is relevant too); more judged non-relevant than relevant.
    (["d1", "d2", "d3"], {"d1": 1, "d2": 0, "d3": 1, "d4": 1}),
    (["d2", "d5"], {"d1": 1, "d2": 0, "d5": 0}),
    (["d1", "d2"], {"d1": 0, "d2": 0}),
    (["d1", "x1", "d2", "x2", "d3"], {"d1": 0, "d2": 1, "d3": 1, "d4": 0}),
    (["d1", "d2", "d3", "d4"], {"d1": 0, "d2": 2, "d3": 0, "d4": 1, "d5": 0, "d6": 0}),
    (["x1", "x2", "d1"], {"d1": 1, "d2": 0}),
]


def _topics(rng, n: int):
    cases = []
    for _ in range(n):
        pool = [f"d{i}" for i in range(int(rng.integers(3, 13)))]
        judged = rng.random(len(pool)) < 0.7
        qrels = {d: int(rng.choice([0, 0, 0, 1, 2])) for d, j in zip(pool, judged) if j}
        depth = int(rng.integers(1, len(pool) + 1))
        ranking = [pool[i] for i in rng.permutation(len(pool))[:depth]]
        cases.append((ranking, qrels))
    return cases


def _grades(ranking, qrels):
    """fireeval's input: grades in rank order, NaN for an unjudged document, and the qrels' counts."""
    grades = np.array([[qrels.get(d, np.nan) for d in ranking]], dtype=float)
    values = list(qrels.values())
    return grades, sum(g >= 1 for g in values), sum(g == 0 for g in values)


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_average_precision(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, qrels)``: average precision of one topic (trec_eval's ``map`` per topic).

    The sum of the precision at the rank of each retrieved relevant document, divided by
    the number of relevant documents in the qrels (relevant ones never retrieved add 0);
    unjudged documents count as non-relevant; 0 when the topic has no relevant document.
    Compared with :func:`fireeval.core.ranking.average_precision` (see the module's example).

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(ranking, qrels)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def over_retrieved(ranking, qrels):   # divides by the relevant documents *retrieved*
    ...     hits, total = 0, 0.0
    ...     for rank, doc in enumerate(ranking, start=1):
    ...         if qrels.get(doc, 0) >= 1:
    ...             hits += 1
    ...             total += hits / rank
    ...     return total / hits if hits else 0.0
    >>> check_average_precision(over_retrieved)
    average precision: ... cases disagree with fireeval.core.ranking.average_precision.
      f(['d1', 'd2', 'd3'], {'d1': 1, 'd2': 0, 'd3': 1, 'd4': 1})
        expected 0.555556, got 0.8333333333333333
    ...
    False
    """
    from fireeval.core.ranking import average_precision

    cases = list(_TOPIC_CASES) + _topics(np.random.default_rng(seed), n_random)

    def expected(ranking, qrels):
        grades, n_relevant, _ = _grades(ranking, qrels)
        return average_precision(grades, [n_relevant])[0]

    return _compare("average precision", "fireeval.core.ranking.average_precision", student, cases, expected)


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_bpref(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, qrels)``: bpref of one topic (trec_eval's ``bpref``).

    With R relevant and N judged non-relevant documents in the qrels, each retrieved
    relevant document r adds 1 − min(n_r, R) / min(R, N), n_r being the judged
    non-relevant documents ranked above it (when N = 0, each retrieved relevant document
    adds 1); the sum is divided by R. Unjudged documents are skipped; 0 when R = 0.
    Compared with :func:`fireeval.core.ranking.bpref`.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(ranking, qrels)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def unjudged_count(ranking, qrels):   # treats unjudged documents as non-relevant
    ...     rel = [d for d, g in qrels.items() if g >= 1]
    ...     n_nonrel = sum(g == 0 for g in qrels.values())
    ...     if not rel:
    ...         return 0.0
    ...     above, total = 0, 0.0
    ...     for doc in ranking:
    ...         if qrels.get(doc, 0) >= 1:
    ...             total += 1 - min(above, len(rel)) / min(len(rel), n_nonrel) if n_nonrel else 1
    ...         else:
    ...             above += 1
    ...     return total / len(rel)
    >>> check_bpref(unjudged_count)
    bpref: ... cases disagree with fireeval.core.ranking.bpref.
      f(['d1', 'x1', 'd2', 'x2', 'd3'], {'d1': 0, 'd2': 1, 'd3': 1, 'd4': 0})
        expected 0.5, got 0.0
    ...
    False
    """
    from fireeval.core.ranking import bpref

    cases = list(_TOPIC_CASES) + _topics(np.random.default_rng(seed), n_random)

    def expected(ranking, qrels):
        grades, n_relevant, n_nonrelevant = _grades(ranking, qrels)
        return bpref(grades, [n_relevant], [n_nonrelevant])[0]

    return _compare("bpref", "fireeval.core.ranking.bpref", student, cases, expected)


# ---------------------------------------------------------------- one text-to-video query, several positives
_VIDEO_CASES = [
    # (ranking, positives): the own video first; a second positive at rank 3 only; no positive
    # retrieved; several positives, the first at rank 2; a positive just beyond the cut-off.
    (["v1", "v2", "v3"], {"v1"}),
    (["v4", "v5", "v2", "v1"], {"v1", "v2"}),
    (["v4", "v5", "v6"], {"v1"}),
    (["v9", "v1", "v2", "v3", "v7"], {"v1", "v2", "v7"}),
    (["v1", "v2", "v3", "v4", "v5", "v6"], {"v6", "v9"}),
]


def _video_queries(rng, n: int):
    cases = []
    for _ in range(n):
        videos = [f"v{i}" for i in range(int(rng.integers(2, 25)))]
        ranking = [videos[i] for i in rng.permutation(len(videos))]
        positives = {v for v in videos if rng.random() < 0.2} or {videos[int(rng.integers(len(videos)))]}
        cases.append((ranking, positives))
    return cases


def _positive_gains(ranking, positives):
    """fireeval's input: the ranking as video indices (one query) and its row of positives."""
    index = {v: i for i, v in enumerate(sorted(set(ranking) | set(positives)))}
    row = np.zeros((1, len(index)), dtype=bool)
    row[0, [index[v] for v in positives]] = True
    return np.array([[index[v] for v in ranking]]), row


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_correct_at_k(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, positives, k)``: Correct@K of one query (1.0 or 0.0).

    1.0 when one of the first ``k`` videos of ``ranking`` is in ``positives`` (the
    query's own video, or any video judged relevant), else 0.0; ``k`` may exceed the
    ranking's length. Compared with :func:`fireeval.core.ranking.correct_at_k`.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(ranking, positives, k)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def recall_share(ranking, positives, k):   # a slip: the share of positives found, not C@K
    ...     return len(set(ranking[:k]) & positives) / len(positives)
    >>> check_correct_at_k(recall_share)
    Correct@K: ... cases disagree with fireeval.core.ranking.correct_at_k.
    ...
    False
    """
    from fireeval.core.ranking import correct_at_k
    from fireeval.t2v.false_negatives import gains_of

    rng = np.random.default_rng(seed)
    cases = [(r, p, k) for (r, p), k in zip(_VIDEO_CASES, [1, 3, 10, 2, 5])]
    cases += [(r, p, int(rng.integers(1, 12))) for r, p in _video_queries(rng, n_random)]

    def expected(ranking, positives, k):
        lists, row = _positive_gains(ranking, positives)
        return correct_at_k(gains_of(lists, row), k)[0]

    return _compare("Correct@K", "fireeval.core.ranking.correct_at_k", student, cases, expected)


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_fire_ap(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, positives, depth)``: AP@depth of one query as FIRE's code computes it.

    FIRE's ``compute_average_precision`` keeps the first ``depth`` videos and averages the
    precision at the rank of each positive found there -- it divides by the positives
    *retrieved* in the top ``depth``, not by all positives (the paper's Eq. 2); 0 when
    none is retrieved. Compared with :func:`fireeval.t2v.false_negatives.per_query_scores`
    (``ap="fire"``), the AP@20 of the false-negatives chapter.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(ranking, positives, depth)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def eq2(ranking, positives, depth):   # the paper's Eq. 2: divides by all positives
    ...     hits, total = 0, 0.0
    ...     for rank, video in enumerate(ranking[:depth], start=1):
    ...         if video in positives:
    ...             hits += 1
    ...             total += hits / rank
    ...     return total / len(positives)
    >>> check_fire_ap(eq2)
    FIRE's AP@depth: ... cases disagree with fireeval.t2v.false_negatives.per_query_scores.
    ...
    False
    """
    from fireeval.t2v import false_negatives as fire

    rng = np.random.default_rng(seed)
    cases = [(r, p, d) for (r, p), d in zip(_VIDEO_CASES, [1, 4, 3, 5, 5])]
    cases += [(r, p, int(rng.integers(1, 25))) for r, p in _video_queries(rng, n_random)]

    def expected(ranking, positives, depth):
        lists, row = _positive_gains(ranking, positives)
        return fire.per_query_scores(lists, row, ks=(1,), ap_depth=depth, ap="fire")[f"AP@{depth}"][0]

    return _compare("FIRE's AP@depth", "fireeval.t2v.false_negatives.per_query_scores", student, cases, expected)


# ---------------------------------------------------------------- graded relevance (Wray et al.)
_GRADED_CASES = [
    # (ranking, relevance): already ideal; the own video (1.0) ranked last; no relevant video at
    # all (0 by convention); the cut at the number of relevant videos leaves a relevant one out;
    # equal grades in either order.
    (["v1", "v2", "v3"], {"v1": 1.0, "v2": 0.5}),
    (["v2", "v3", "v1"], {"v1": 1.0, "v2": 0.5}),
    (["v1", "v2"], {}),
    (["v3", "v4", "v1", "v2"], {"v1": 1.0, "v2": 0.25}),
    (["v2", "v1", "v3"], {"v1": 0.5, "v2": 0.5, "v3": 0.0}),
]


@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_ndcg(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, relevance)``: nDCG of one query with graded relevance, as Wray et al. use it.

    ``ranking`` lists every video once, best first; ``relevance`` gives a video's grade in
    [0, 1] (missing: 0). With n the number of videos of grade > 0, the DCG of the first n
    videos (gain = grade, discount 1 / log2(rank + 1)) is divided by the DCG of the n
    highest grades -- linear gain and the cut at n, as in Wray et al.'s reference code;
    0 when no video has a grade above 0. Compared with
    :func:`fireeval.t2v.semantic_evaluation.proxy_ndcg`.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(ranking, relevance)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def uncut(ranking, relevance):   # a slip: the whole ranking, not cut at n
    ...     import math
    ...     dcg = sum(relevance.get(v, 0) / math.log2(r + 1) for r, v in enumerate(ranking, start=1))
    ...     ideal = sorted(relevance.values(), reverse=True)
    ...     idcg = sum(g / math.log2(r + 1) for r, g in enumerate(ideal, start=1))
    ...     return dcg / idcg if idcg else 0.0
    >>> check_ndcg(uncut)
    nDCG: ... cases disagree with fireeval.t2v.semantic_evaluation.proxy_ndcg.
    ...
    False
    """
    from fireeval.t2v.semantic_evaluation import proxy_ndcg

    rng = np.random.default_rng(seed)
    cases = list(_GRADED_CASES)
    for _ in range(n_random):
        videos = [f"v{i}" for i in range(int(rng.integers(2, 15)))]
        ranking = [videos[i] for i in rng.permutation(len(videos))]
        relevance = {v: float(rng.choice([0.0, 0.0, 0.2, 0.4, 0.5, 0.8, 1.0])) for v in videos if rng.random() < 0.6}
        cases.append((ranking, relevance))

    def expected(ranking, relevance):
        scores = np.arange(len(ranking), 0, -1, dtype=float)[None, :]  # distinct, descending: the ranking itself
        return proxy_ndcg(scores, np.array([[relevance.get(v, 0.0) for v in ranking]]))[0]

    return _compare("nDCG", "fireeval.t2v.semantic_evaluation.proxy_ndcg", student, cases, expected)


# ---------------------------------------------------------------- multiple comparisons
@validate_params(student=CALLABLE, n_random=Int(1), seed=SEED)
def check_holm(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(pvalues)``: Holm's step-down adjusted p-values, in the input's order.

    Sort the m p-values ascending; the l-th smallest becomes (m − l + 1)·p, capped at 1,
    and no adjusted value may be smaller than the one before it in that order (a running
    maximum). Compared element by element with :func:`fireeval.stats.significance.holm`, which
    the leaderboards chapter uses over the adjacent pairs of one leaderboard.

    Parameters
    ----------
    student : callable
        The reader's function, called as ``student(pvalues)``.
    n_random : int
        Random cases checked beyond the fixed ones.
    seed : int
        Seed of the random cases.

    Returns
    -------
    bool
        Whether every case agrees; each disagreement is printed (case, expected, got).

    >>> def bonferroni(pvalues):   # m·p for every p: more conservative than Holm
    ...     return [min(1.0, len(pvalues) * p) for p in pvalues]
    >>> check_holm(bonferroni)
    Holm: ... cases disagree with fireeval.stats.significance.holm.
    ...
    False
    """
    from fireeval.stats.significance import holm

    cases = [([0.01, 0.04, 0.03],), ([0.5],), ([0.001, 0.2, 0.9, 0.04],), ([0.3, 0.3, 0.01],),
             ([0.02, 0.01, 0.6, 0.5, 0.4],)]
    rng = np.random.default_rng(seed)
    for _ in range(n_random):
        cases.append(([round(float(p), 4) for p in rng.beta(0.5, 2.0, size=int(rng.integers(1, 12)))],))
    gc.freeze()  # statsmodels' Holm runs gc.collect() on every call: in a chapter's large kernel ~0.5 s each
    try:
        return _compare("Holm", "fireeval.stats.significance.holm", student, cases, lambda p: holm(p))
    finally:
        gc.unfreeze()
