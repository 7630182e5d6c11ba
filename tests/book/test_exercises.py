"""fireeval.book.exercises: each checker passes a correct student function and catches a wrong one.

The "students" here are written from the measures' definitions in plain Python (no
fireeval); the wrong ones make the slips students make. A checker must also really ask
fireeval: with fireeval's measure replaced by a wrong one, the correct student fails.
"""
from __future__ import annotations

import itertools

import pytest

from fireeval.book import exercises


def iou(p, t):
    inter = max(0.0, min(p[1], t[1]) - max(p[0], t[0]))
    union = max(p[1], t[1]) - min(p[0], t[0])
    return inter / union if union > 0 else 0.0


def recall_ok(predictions, truth, k, theta):
    return float(any(iou(p, truth) >= theta for p in predictions[:k]))


def recall_strict(predictions, truth, k, theta):  # slip: > θ instead of >= θ
    return float(any(iou(p, truth) > theta for p in predictions[:k]))


def axiou_ok(predictions, truth, k):
    best, total = 0.0, 0.0
    for i in range(k):
        if i < len(predictions):
            best = max(best, iou(predictions[i], truth))
        total += best
    return total / k


def axiou_short_list(predictions, truth, k):  # slip: a list shorter than K divides by its length
    n = min(k, len(predictions))
    best, total = 0.0, 0.0
    for p in predictions[:n]:
        best = max(best, iou(p, truth))
        total += best
    return total / n


def tau_ok(order_a, order_b):
    pos_b = {s: i for i, s in enumerate(order_b)}
    pairs = list(itertools.combinations(order_a, 2))
    return sum(1 if pos_b[x] < pos_b[y] else -1 for x, y in pairs) / len(pairs)


def tau_concordant_share(order_a, order_b):  # slip: the share of concordant pairs, in [0, 1]
    pos_b = {s: i for i, s in enumerate(order_b)}
    pairs = list(itertools.combinations(order_a, 2))
    return sum(pos_b[x] < pos_b[y] for x, y in pairs) / len(pairs)


def ap_ok(ranking, qrels):
    n_rel = sum(g >= 1 for g in qrels.values())
    hits, total = 0, 0.0
    for rank, doc in enumerate(ranking, 1):
        if qrels.get(doc, 0) >= 1:
            hits += 1
            total += hits / rank
    return total / n_rel if n_rel else 0.0


def ap_grade_one_only(ranking, qrels):  # slip: only grade 1 is relevant (grade 2 forgotten)
    n_rel = sum(g == 1 for g in qrels.values())
    hits, total = 0, 0.0
    for rank, doc in enumerate(ranking, 1):
        if qrels.get(doc) == 1:
            hits += 1
            total += hits / rank
    return total / n_rel if n_rel else 0.0


def bpref_ok(ranking, qrels):
    R = sum(g >= 1 for g in qrels.values())
    N = sum(g == 0 for g in qrels.values())
    if R == 0:
        return 0.0
    above, total = 0, 0.0
    for doc in ranking:
        grade = qrels.get(doc)
        if grade is None:
            continue  # unjudged: skipped
        if grade >= 1:
            total += 1 - (min(above, R) / min(R, N) if min(R, N) else 0.0)
        else:
            above += 1
    return total / R


def bpref_no_cap(ranking, qrels):  # slip: divides by N instead of min(R, N)
    R = sum(g >= 1 for g in qrels.values())
    N = sum(g == 0 for g in qrels.values())
    if R == 0:
        return 0.0
    above, total = 0, 0.0
    for doc in ranking:
        grade = qrels.get(doc)
        if grade is None:
            continue
        if grade >= 1:
            total += 1 - (min(above, R) / N if N else 0.0)
        else:
            above += 1
    return total / R


def correct_ok(ranking, positives, k):
    return float(any(v in positives for v in ranking[:k]))


def correct_own_only(ranking, positives, k):  # slip: only the first positive (the "own" video) counts
    return float(sorted(positives)[0] in ranking[:k])


def fire_ap_ok(ranking, positives, depth):
    hits, total = 0, 0.0
    for rank, video in enumerate(ranking[:depth], start=1):
        if video in positives:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def fire_ap_whole_list(ranking, positives, depth):  # slip: ignores the depth
    return fire_ap_ok(ranking, positives, len(ranking))


def ndcg_ok(ranking, relevance):
    import math
    n = sum(g > 0 for g in relevance.values())
    dcg = sum(relevance.get(v, 0.0) / math.log2(r + 1) for r, v in enumerate(ranking[:n], start=1))
    ideal = sorted(relevance.values(), reverse=True)[:n]
    idcg = sum(g / math.log2(r + 1) for r, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg else 0.0


def ndcg_exponential(ranking, relevance):  # slip: the paper's text's 2^rel - 1 where the code uses rel
    return ndcg_ok(ranking, {v: 2 ** g - 1 for v, g in relevance.items()})


def holm_ok(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def holm_no_running_max(pvalues):  # slip: forgets that adjusted p-values may not decrease
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    for rank, i in enumerate(order):
        adjusted[i] = min(1.0, (m - rank) * pvalues[i])
    return adjusted


CHECKERS = [
    (exercises.check_recall_at_k_theta, recall_ok, recall_strict, "fireeval.core.moments", "recall_at_k_iou"),
    (exercises.check_axiou, axiou_ok, axiou_short_list, "fireeval.core.moments", "axiou_at_k"),
    (exercises.check_kendall_tau, tau_ok, tau_concordant_share, "fireeval.stats.agreement", "kendall_tau"),
    (exercises.check_average_precision, ap_ok, ap_grade_one_only, "fireeval.core.ranking", "average_precision"),
    (exercises.check_bpref, bpref_ok, bpref_no_cap, "fireeval.core.ranking", "bpref"),
    (exercises.check_correct_at_k, correct_ok, correct_own_only, "fireeval.core.ranking", "correct_at_k"),
    (exercises.check_fire_ap, fire_ap_ok, fire_ap_whole_list, "fireeval.t2v.false_negatives", "per_query_scores"),
    (exercises.check_ndcg, ndcg_ok, ndcg_exponential, "fireeval.t2v.semantic_evaluation", "proxy_ndcg"),
    (exercises.check_holm, holm_ok, holm_no_running_max, "fireeval.stats.significance", "holm"),
]
IDS = [c[0].__name__ for c in CHECKERS]


@pytest.mark.parametrize("check, right, wrong, module, measure", CHECKERS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a_correct_function_passes(check, right, wrong, module, measure, seed, capsys):
    assert check(right, seed=seed) is True
    out = capsys.readouterr().out
    assert "cases agree with" in out and f"{module}.{measure}" in out, out


@pytest.mark.parametrize("check, right, wrong, module, measure", CHECKERS, ids=IDS)
def test_a_wrong_function_is_caught_and_shown(check, right, wrong, module, measure, capsys):
    assert check(wrong) is False
    out = capsys.readouterr().out
    assert "disagree with" in out and "expected" in out and ", got " in out, out
    assert "  f(" in out, "the failing input is shown"


@pytest.mark.parametrize("check, right, wrong, module, measure", CHECKERS, ids=IDS)
def test_an_error_or_a_non_number_is_reported_with_its_input(check, right, wrong, module, measure, capsys):
    def raises(*args):
        raise ZeroDivisionError("division by zero")

    assert check(raises) is False
    assert "an error: ZeroDivisionError: division by zero" in capsys.readouterr().out
    assert check(lambda *args: None) is False
    assert "an error: TypeError" in capsys.readouterr().out


@pytest.mark.parametrize("check, right, wrong, module, measure", CHECKERS, ids=IDS)
def test_the_checker_asks_fireevals_own_measure(check, right, wrong, module, measure, monkeypatch, capsys):
    import importlib

    mod = importlib.import_module(module)
    original = getattr(mod, measure)

    def shifted(*a, **k):  # a measure returning a dict of arrays (fire.per_query_scores) is shifted per entry
        value = original(*a, **k)
        return {n: v * 0.5 + 0.25 for n, v in value.items()} if isinstance(value, dict) else value * 0.5 + 0.25

    monkeypatch.setattr(mod, measure, shifted)
    assert check(right) is False
    assert f"{module}.{measure}" in capsys.readouterr().out


def test_long_reports_are_cut_after_a_few_cases(capsys):
    assert exercises.check_average_precision(lambda ranking, qrels: 7.0) is False
    out = capsys.readouterr().out
    assert out.count("  f(") == exercises.SHOWN and "more." in out, out
