"""Every trec_eval measure against pytrec_eval (trec_eval's own C code), incomplete-judgement
measures against ir_measures, judged-only (-J), relevance levels, and range properties."""
import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.core.evaluation import ALL_TREC, score_run_set as evaluate, parse_measures, summarise
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet


def _collection(seed, ties=False, negative=False, n_topics=8):
    rng = np.random.default_rng(seed)
    qrels, runs = [], {}
    for q in range(n_topics):
        judged = rng.choice(60, size=25, replace=False)
        grades = rng.choice([-1, 0, 0, 1, 2, 3] if negative else [0, 0, 1, 2, 3], size=25)
        qrels += [(str(q), f"d{d}", int(g)) for d, g in zip(judged, grades)]
    for r in range(3):
        rows = []
        for q in range(n_topics):
            docs = rng.choice(60, size=rng.integers(1, 45), replace=False)
            scores = rng.integers(0, 4, len(docs)).astype(float) if ties else rng.random(len(docs))
            rows += [(str(q), f"d{d}", float(s)) for d, s in zip(docs, scores)]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query", "docno", "score"])
    return runs, pd.DataFrame(qrels, columns=["query", "docno", "relevance"])


def _pytrec(runs, qrels_frame, level=1, judged_only=False):
    qrels = {q: dict(zip(g.docno, g.relevance.astype(int))) for q, g in qrels_frame.groupby("query")}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures, relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    return {name: evaluator.evaluate({q: dict(zip(g.docno, g.score)) for q, g in frame.groupby("query")})
            for name, frame in runs.items()}


@pytest.mark.parametrize("seed, level, judged_only, ties, negative", [
    (0, 1, False, False, False), (1, 1, False, True, False), (2, 2, False, True, False),
    (3, 3, False, False, True), (4, 1, True, True, False), (5, 2, True, False, True), (6, 1, False, True, True),
])
def test_every_all_trec_measure_matches_pytrec_eval_per_topic(seed, level, judged_only, ties, negative):
    runs, qrels_frame = _collection(seed, ties, negative)
    ours = evaluate(RunSet.from_frames(runs), Qrels(qrels_frame), ["all_trec", "dcg", "ideal_dcg"],
                    relevance_level=level, judged_only=judged_only)
    theirs = _pytrec(runs, qrels_frame, level, judged_only)
    assert len(ours.values) == 93 + 2  # every numeric all_trec measure and cut-off, + dcg, ideal_dcg
    for i, name in enumerate(runs):
        for measure, values in ours.values.items():
            if measure in ("num_q", "dcg", "ideal_dcg"):  # trec_eval 10.0 only: checked through ndcg below
                continue
            expected = np.array([theirs[name][t][measure] for t in ours.topics])
            if measure.startswith("gm_"):  # pytrec_eval keeps log(max(v, 1e-5)) per topic
                expected, values = np.exp(expected), np.maximum(values, 1e-5)
            if measure.startswith(("iprec_at_recall", "11pt_avg")):
                # trec_eval divides 0 by 0 when -J leaves a topic empty, and so does fireeval (issue 27)
                assert not np.isnan(expected[ours.values["num_ret"][i] > 0]).any()
            np.testing.assert_allclose(values[i], expected, rtol=0, atol=1e-12, err_msg=f"{name} {measure}")
        ideal = ours.values["ideal_dcg"][i]
        ratio = np.divide(ours.values["dcg"][i], ideal, out=np.zeros_like(ideal), where=ideal > 0)
        np.testing.assert_allclose(ratio, [theirs[name][t]["ndcg"] for t in ours.topics], atol=1e-12)


def test_summaries_follow_trec_eval():
    runs, qrels_frame = _collection(7)
    ours = evaluate(RunSet.from_frames(runs), Qrels(qrels_frame), ["num_q", "num_ret", "map", "gm_map"])
    summary = ours.summary()
    assert (summary["num_q"] == 8).all()
    np.testing.assert_allclose(summary["num_ret"], ours.values["num_ret"].sum(axis=1))
    np.testing.assert_allclose(summary["gm_map"], np.exp(np.log(np.maximum(ours.values["map"], 1e-5)).mean(axis=1)))
    assert summarise([[0.0, 1.0]], "gm")[0] == pytest.approx(np.sqrt(1e-5))


@pytest.mark.parametrize("seed", range(3))
def test_incomplete_judgement_measures_match_ir_measures(seed):
    import ir_measures

    runs, qrels_frame = _collection(seed)  # distinct scores: ir_measures breaks ties by docno ascending
    names = ["Bpref", "infAP", "Judged@5", "Judged@10", "Judged@100", "AP", "nDCG@10"]
    ours = evaluate(RunSet.from_frames(runs), Qrels(qrels_frame), names)
    qrels = [ir_measures.Qrel(q, d, int(r)) for q, d, r in qrels_frame.itertuples(index=False)]
    for i, (name, frame) in enumerate(runs.items()):
        run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in frame.itertuples(index=False)]
        per_query = {(m.query_id, str(m.measure)): m.value
                     for m in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run)}
        for n in names:
            ours_name = parse_measures(n)[0].name
            expected = [per_query[(t, str(ir_measures.parse_measure(n)))] for t in ours.topics]
            np.testing.assert_allclose(ours.values[ours_name][i], expected, atol=1e-9, err_msg=f"{name} {n}")


def test_judged_only_is_the_condensed_list():
    # ranking: unjudged, relevant, unjudged, non-relevant, relevant
    frame = pd.DataFrame({"query": "1", "docno": ["u1", "r1", "u2", "n1", "r2"], "score": [5, 4, 3, 2, 1.0]})
    qrels = Qrels.from_pairs(["1"] * 3, ["r1", "n1", "r2"], [1, 0, 1])
    runs = RunSet.from_frames({"r": frame})
    full = evaluate(runs, qrels, ["map", "P_2", "num_ret", "Judged@2"])
    condensed = evaluate(runs, qrels, ["map", "P_2", "num_ret", "Judged@2"], judged_only=True)
    assert full.values["map"][0, 0] == pytest.approx((1 / 2 + 2 / 5) / 2)
    assert condensed.values["map"][0, 0] == pytest.approx((1 + 2 / 3) / 2)  # list r1, n1, r2
    assert condensed.values["P_2"][0, 0] == 0.5 and condensed.values["num_ret"][0, 0] == 3
    assert full.values["Judged@2"][0, 0] == 0.5 and condensed.values["Judged@2"][0, 0] == 1.0


def test_max_retrieved_cuts_each_topic():
    runs, qrels_frame = _collection(8)
    rs, qrels = RunSet.from_frames(runs), Qrels(qrels_frame)
    cut = evaluate(rs, qrels, ["map", "num_ret", "bpref"], max_retrieved=5)
    shallow = evaluate(rs.select(depth=5), qrels, ["map", "num_ret", "bpref"])
    for m in cut.values:
        np.testing.assert_allclose(cut.values[m], shallow.values[m])
    assert cut.values["num_ret"].max() == 5


def test_relevance_level_two_keeps_map_in_range():
    """The bug of issue 12: Qrels(..., relevance_level=2) gave map 3.0."""
    frame = pd.DataFrame({"query": "1", "docno": ["a", "b", "c"], "score": [3, 2, 1.0]})
    qrels = Qrels(pd.DataFrame({"query": "1", "docno": ["a", "b", "c"], "relevance": [1, 2, 1]}), relevance_level=2)
    scores = evaluate(RunSet.from_frames({"r": frame}), qrels, ["map", "P_1", "recip_rank", "bpref", "Rprec"])
    assert scores.values["map"][0, 0] == pytest.approx(0.5)  # only b is relevant, at rank 2
    assert scores.values["P_1"][0, 0] == 0 and scores.values["recip_rank"][0, 0] == 0.5
    assert scores.values["Rprec"][0, 0] == 0


def test_family_names_and_dotted_forms():
    assert [m.name for m in parse_measures("P")] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.name for m in parse_measures("ndcg_cut.10,20")] == ["ndcg_cut_10", "ndcg_cut_20"]
    assert [m.name for m in parse_measures("success")] == ["success_1", "success_5", "success_10"]
    assert [m.name for m in parse_measures("Rprec_mult.0.5")] == ["Rprec_mult_0.50"]
    assert [m.name for m in parse_measures("correct@10")] == ["correct@10"]
    assert parse_measures("utility.2,-1,0,0")[0].k == (2.0, -1.0, 0.0, 0.0)
    assert len(parse_measures("official")) == 9 + 11 + 9
    assert {m.kind for m in parse_measures("all_trec")} == set(ALL_TREC) - {"ndcg_cut"}  # kind "ndcg" with a cut-off
    for bad in ("P_0", "P.x", "ndcg_cut.", "frobnicate", "iprec_at_recall.-1"):
        with pytest.raises(ValueError, match=rf"^-m {re.escape(bad)}: .*\. Fix: "):
            parse_measures(bad)


BOUNDED = [m for m in ALL_TREC if m not in ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility",
                                              "num_nonrel_judged_ret", "dcg", "ideal_dcg")]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.booleans())
def test_every_bounded_measure_is_in_unit_interval_for_any_relevance_level(seed, level, judged_only):
    runs, qrels_frame = _collection(seed, ties=True, negative=True, n_topics=3)
    scores = evaluate(RunSet.from_frames(runs), Qrels(qrels_frame, relevance_level=level), BOUNDED + ["Judged@10"],
                      judged_only=judged_only)
    for name, values in scores.values.items():
        if name.startswith(("iprec_at_recall", "11pt_avg")) and judged_only:
            values = values[~np.isnan(values)]  # trec_eval's 0/0 on a topic -J leaves empty (issue 27)
        assert np.isfinite(values).all(), name
        assert (values >= 0).all() and (values <= 1 + 1e-12).all(), (name, values.min(), values.max())


def test_trec_eval_own_test_suite_topic_302():
    """Every numeric measure of trec_eval's out.test.aq for topic 302, to its 4 printed decimals."""
    from pathlib import Path

    from fireeval.core.stream import QrelsIndex, score_run
    from fireeval.core.trec import read_run_table

    folder = Path(__file__).parents[1] / "data" / "trec_eval"
    expected = {}
    for line in (folder / "out.test.aq-302").read_text().splitlines():
        measure, topic, value = (f.strip() for f in line.split("\t"))
        if measure != "relstring":  # a string, not a measure
            expected[measure] = float(value)
    assert len(expected) == 90
    scores = score_run(read_run_table(folder / "results-302.test"), QrelsIndex.read(folder / "qrels-302.test"),
                       ["all_trec"])
    assert list(scores.topics) == ["302"]
    got = {m: round(float(v[0]), 4) for m, v in scores.values.items() if m in expected}
    assert set(got) == set(expected), sorted(set(expected) - set(got))
    assert {m: v for m, v in got.items() if abs(v - expected[m]) > 1e-9} == {}
    # the same through evaluate() (RunSet and Qrels)
    from fireeval.core.judgements import Qrels
    from fireeval.core.runset import RunSet

    ref = evaluate(RunSet.read([folder / "results-302.test"]), Qrels.read(folder / "qrels-302.test"), ["all_trec"])
    assert {m: round(float(ref.values[m][0, 0]), 4) for m in expected} == expected


def test_utility_d_counts_the_collection_size_as_trec_eval():
    # m_utility.c: a rel_ret + b (ret - rel_ret) + c (R - rel_ret) + d (N + rel_ret - ret - R), N = -N (0 by default)
    from fireeval.core.measures import Context

    (m,) = parse_measures("utility.1,-1,0,0.5")
    ctx = Context.of_lists([[1, 0, 0]], n_relevant=[2])
    assert m.compute(ctx).tolist() == [1 - 2 + 0.5 * (0 + 1 - 3 - 2)]
    sized = dataclasses.replace(m, k=m.k + (100,))
    assert sized.compute(ctx).tolist() == [1 - 2 + 0.5 * (100 + 1 - 3 - 2)] and sized.name == "utility_1,-1,0,0.5"
