"""Ranking metrics: graded-relevance oracle (pytrec_eval), ir_measures names, hand examples, properties."""
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fireeval.core import ranking
from fireeval.core.evaluation import score_run_set as evaluate, parse_measure
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet

ORACLE = {"P_5": "P_5", "recall_10": "recall_10", "ndcg_cut_10": "ndcg_cut_10", "ndcg": "ndcg",
          "correct@1": "success_1", "correct@5": "success_5", "map": "map", "recip_rank": "recip_rank"}


def _random_collection(seed):
    rng = np.random.default_rng(seed)
    qrels, runs = [], {}
    for q in range(8):
        judged = rng.choice(60, size=25, replace=False)
        grades = rng.choice([0, 0, 1, 2, 3], size=25)
        qrels += [(str(q), f"d{d}", int(g)) for d, g in zip(judged, grades)]
    for r in range(3):
        rows = []
        for q in range(8):
            docs = rng.choice(60, size=rng.integers(1, 30), replace=False)
            rows += [(str(q), f"d{d}", float(s)) for d, s in zip(docs, rng.integers(0, 5, len(docs)))]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query", "docno", "score"])
    return runs, pd.DataFrame(qrels, columns=["query", "docno", "relevance"])


@pytest.mark.parametrize("seed", range(5))
def test_graded_measures_match_pytrec_eval(seed):
    runs, qrels_frame = _random_collection(seed)
    scores = evaluate(RunSet.from_frames(runs), Qrels(qrels_frame), list(ORACLE))
    qrels = {q: dict(zip(g.docno, g.relevance.astype(int))) for q, g in qrels_frame.groupby("query")}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P", "recall", "ndcg_cut", "ndcg", "success", "map", "recip_rank"})
    for i, (name, frame) in enumerate(runs.items()):
        result = evaluator.evaluate({q: dict(zip(g.docno, g.score)) for q, g in frame.groupby("query")})
        for ours, theirs in ORACLE.items():
            expected = [result[t][theirs] for t in scores.topics]
            np.testing.assert_allclose(scores.values[ours][i], expected, atol=1e-6, err_msg=f"{name} {ours}")


def test_exponential_gain_ndcg_by_hand():
    # grades 2 then 0 then 1; ideal 2, 1. DCG = 3/1 + 1/2 = 3.5; IDCG = 3 + 1/log2(3)
    value = ranking.ndcg([[2, 0, 1]], [[2, 1]], gain="exponential")[0]
    assert value == pytest.approx(3.5 / (3 + 1 / np.log2(3)))
    assert ranking.ndcg([[2, 0, 1]], [[2, 1]], gain="linear")[0] == pytest.approx((2 + 0.5) / (2 + 1 / np.log2(3)))
    with pytest.raises(ValueError, match="gain must be"):
        ranking.dcg([[1]], gain="log")


@pytest.mark.parametrize("name, canonical", [
    ("AP", "map"), ("P@10", "P_10"), ("R@5", "recall_5"), ("nDCG@10", "ndcg_cut_10"), ("RR", "recip_rank"),
    ("C@5", "C@5"), ("correct@5", "correct@5"), ("Success@1", "success_1"),
    ("ndcg_exp_cut_5", "ndcg_exp_cut_5"), ("P.10", "P_10"), ("Bpref", "bpref"), ("infAP", "infAP"),
    ("Judged@10", "Judged@10"), ("R-Prec", "Rprec"), ("iprec_at_recall_0.10", "iprec_at_recall_0.10")])
def test_measure_names(name, canonical):
    assert parse_measure(name).name == canonical


def test_unknown_measure_lists_known_ones():
    with pytest.raises(ValueError, match="-m P@0: cut-off 0 is outside"):
        parse_measure("P@0")
    with pytest.raises(ValueError, match="-m frobnicate: unknown measure. Fix: use e.g. map, P_10"):
        parse_measure("frobnicate")


grades = arrays(np.int64, st.integers(1, 20), elements=st.integers(0, 3))


@settings(max_examples=200, deadline=None)
@given(grades, st.integers(1, 20))
def test_metric_ranges_and_relations(g, k):
    g = g[None, :]
    n_rel = np.array([max(int((g >= 1).sum()), 1)])
    ideal = np.sort(g, axis=1)[:, ::-1]
    for value in (ranking.precision_at_k(g, k), ranking.recall_at_k(g, n_rel, k), ranking.average_precision(g, n_rel),
                  ranking.reciprocal_rank(g), ranking.ndcg(g, ideal), ranking.ndcg(g, ideal, k=k),
                  ranking.correct_at_k(g, k)):
        assert 0 <= value[0] <= 1 + 1e-12
    # Correct@K is 1 exactly when recall@K is positive; RR >= 1/K when correct@K.
    assert ranking.correct_at_k(g, k)[0] == (ranking.recall_at_k(g, n_rel, k)[0] > 0)
    if ranking.correct_at_k(g, k)[0]:
        assert ranking.reciprocal_rank(g)[0] >= 1 / k
    # The ideal ordering has nDCG 1 (when anything is relevant).
    if ideal.any():
        assert ranking.ndcg(ideal, ideal)[0] == pytest.approx(1.0)


@settings(max_examples=200, deadline=None)
@given(grades, st.integers(0, 19), st.integers(0, 19))
def test_swapping_a_relevant_document_upwards_never_hurts(g, i, j):
    i, j = sorted((i % len(g), j % len(g)))
    if not (g[j] > g[i]):
        return
    better = g.copy()
    better[i], better[j] = g[j], g[i]
    n_rel = np.array([int((g >= 1).sum())])
    ideal = np.sort(g)[::-1][None]
    for metric in (lambda x: ranking.average_precision(x, n_rel), ranking.reciprocal_rank,
                   lambda x: ranking.ndcg(x, ideal), lambda x: ranking.dcg(x, gain="exponential")):
        assert metric(better[None])[0] >= metric(g[None])[0] - 1e-12


@pytest.mark.parametrize("seed", range(2))
def test_ir_measures_names_give_ir_measures_values(seed):
    """The ir_measures spelling of a measure computes what ir_measures computes."""
    import ir_measures

    runs, qrels_frame = _random_collection(seed)
    names = ["AP", "P@5", "R@10", "nDCG@10", "nDCG", "RR", "Success@5"]
    ours = evaluate(RunSet.from_frames(runs), Qrels(qrels_frame), names).mean()
    qrels = [ir_measures.Qrel(q, d, int(r)) for q, d, r in qrels_frame.itertuples(index=False)]
    for i, (name, frame) in enumerate(runs.items()):
        run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in frame.itertuples(index=False)]
        theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
        for n in names:
            assert ours.iloc[i][parse_measure(n).name] == pytest.approx(theirs[ir_measures.parse_measure(n)], abs=1e-6), n
