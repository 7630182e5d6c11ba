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

Inputs are plain Python: moments are ``(start, end)`` pairs in seconds, ``predictions``
a ranked list of them; an ordering is a list of system names, best first; ``ranking`` a
ranked list of document ids and ``qrels`` a dict ``{document id: grade}`` of the *judged*
documents (grade >= 1 relevant, 0 judged non-relevant; a document missing from it is
unjudged).

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

import math
import traceback

import numpy as np

__all__ = ["check_recall_at_k_theta", "check_axiou", "check_kendall_tau", "check_average_precision",
           "check_bpref", "TOLERANCE"]

#: Largest difference from fireeval's value that still counts as the same answer.
TOLERANCE = 1e-9
#: How many disagreeing cases are printed (the rest are counted).
SHOWN = 3


def _compare(what: str, reference: str, student, cases, expected_fn) -> bool:
    """Call ``student(*case)`` and ``expected_fn(*case)`` on every case; print the disagreements."""
    wrong = []
    for case in cases:
        expected = float(expected_fn(*case))
        try:
            got = student(*case)
            got_value = float(got)
        except Exception as err:  # the student's code may raise anything: report it with its input
            line = traceback.format_exception_only(type(err), err)[-1].strip()
            wrong.append((case, expected, f"an error: {line}"))
            continue
        same = (math.isnan(expected) and math.isnan(got_value)) or abs(got_value - expected) <= TOLERANCE
        if not same:
            wrong.append((case, expected, repr(got)))
    if not wrong:
        print(f"{what}: all {len(cases)} cases agree with {reference}.")
        return True
    print(f"{what}: {len(wrong)} of {len(cases)} cases disagree with {reference}.")
    for case, expected, got in wrong[:SHOWN]:
        args = ", ".join(repr(a) for a in case)
        print(f"  f({args})\n    expected {expected:.6g}, got {got}")
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


def check_recall_at_k_theta(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(predictions, truth, k, theta)``: R@K,θ of one query (1.0 or 0.0).

    1.0 when one of the first ``k`` moments of ``predictions`` has a temporal IoU with
    ``truth`` of at least ``theta`` (an IoU equal to θ counts), else 0.0; ``k`` may exceed
    the number of predictions. Compared with
    :func:`fireeval.core.moments.recall_at_k_iou` of :func:`~fireeval.core.moments.temporal_iou`.

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


def check_axiou(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(predictions, truth, k)``: AxIoU@K of one query.

    The mean over k = 1..K of the best temporal IoU among the first k moments; a list
    shorter than K still divides by K (its best IoU carries on to the missing ranks).
    Compared with :func:`fireeval.core.moments.axiou_at_k` (the paper's measure, lower
    bound 0) of :func:`~fireeval.core.moments.temporal_iou`.

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
def check_kendall_tau(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(order_a, order_b)``: Kendall's τ between two orderings of the same systems.

    Each ordering lists every system once, best first (no ties, so τ-b equals τ-a):
    τ = (concordant − discordant pairs) / number of pairs. Compared with
    :func:`fireeval.stats.agreement.kendall_tau` on the positions.

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


def check_average_precision(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, qrels)``: average precision of one topic (trec_eval's ``map`` per topic).

    The sum of the precision at the rank of each retrieved relevant document, divided by
    the number of relevant documents in the qrels (relevant ones never retrieved add 0);
    unjudged documents count as non-relevant; 0 when the topic has no relevant document.
    Compared with :func:`fireeval.core.ranking.average_precision` (see the module's example).

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


def check_bpref(student, n_random: int = 20, seed: int = 0) -> bool:
    """Check ``student(ranking, qrels)``: bpref of one topic (trec_eval's ``bpref``).

    With R relevant and N judged non-relevant documents in the qrels, each retrieved
    relevant document r adds 1 − min(n_r, R) / min(R, N), n_r being the judged
    non-relevant documents ranked above it; the sum is divided by R. Unjudged documents
    are skipped; 0 when R = 0. Compared with :func:`fireeval.core.ranking.bpref`.

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
