"""The measure registry (fireeval.core.measures): every family declared completely, the one name
grammar, and every gains-based family against an independent oracle -- pytrec_eval (trec_eval 9's C
code) where it has the measure, else a plain loop over the trec_eval-ordered list."""
import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from fireeval.core import measures
from fireeval.core.evaluation import score_run_set as evaluate
from fireeval.core.judgements import Qrels
from fireeval.core.measures.base import NEEDS, SUMMARIES
from fireeval.core.runset import RunSet

PYTREC = set(pytrec_eval.supported_measures)
# families pytrec_eval lacks, each checked against its oracle below
TRANSFORMED = {"ndcg_exp": "ndcg", "ndcg_exp_cut": "ndcg_cut",          # pytrec on qrels graded 2^g - 1
               "map_judged": "map", "ndcg_judged": "ndcg",              # pytrec with -J (judged only)
               "correct": "success"}                                    # C@K is success_K
LOOPS = {"Judged", "unj", "rbp", "rbp_resid", "dcg", "ideal_dcg", "yaap"}  # plain loops below
FROM_PYTREC = {"FIRE_AP"}  # map_cut_K * R / (P_K * K), from pytrec_eval's values


def _gains_based():
    return [f for f in measures.REGISTRY.values() if f.gains_based]


def _names_of(family):
    """Names that give every default measure of a family."""
    if family.parse is not None:
        return [family.root] if family.root in PYTREC else list(family.examples)
    if family.trec_forms:
        return [family.root]
    return [f"{family.ir_names[0]}@{k}" for k in (5, 10, 20)]


def _collection(seed, n_topics=3):
    """Qrels with negative (pooled, unjudged), zero and graded judgements; runs with tied scores."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {}
    for q in range(n_topics):
        judged = rng.choice(40, size=int(rng.integers(1, 20)), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        # pytrec_eval (trec_eval 9's C code) loops forever in G, ndcg and ndcg_rel on a topic whose only
        # judgements are negative: keep one non-negative judgement per topic
        grades[0] = max(grades[0], 0)
        qrels += [(str(q), f"d{d}", int(g)) for d, g in zip(judged, grades)]
    for r in range(2):
        rows = []
        for q in range(n_topics):
            docs = rng.choice(40, size=int(rng.integers(1, 30)), replace=False)
            rows += [(str(q), f"d{d}", float(s)) for d, s in zip(docs, rng.integers(0, 4, len(docs)))]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query", "docno", "score"])
    return runs, pd.DataFrame(qrels, columns=["query", "docno", "relevance"])


def _nested_qrels(frame, grade=lambda g: g):
    return {q: {d: int(grade(g)) for d, g in zip(f.docno, f.relevance)} for q, f in frame.groupby("query")}


def _pytrec(runs, qrels, level, judged_only=False):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC, relevance_level=level, judged_docs_only_flag=judged_only)
    return {name: evaluator.evaluate({q: dict(zip(g.docno, g.score)) for q, g in frame.groupby("query")})
            for name, frame in runs.items()}


def _ranked(frame, topic):
    """The topic's documents in trec_eval's order: score descending, then docno descending."""
    rows = frame[frame["query"] == topic]
    return [d for _, d in sorted(zip(rows.score, rows.docno), reverse=True)]


def _loop_oracle(kind, k, ranked, judged, level=1):
    """Judged@K, unj_K, rbp, rbp_resid, dcg, ideal_dcg, yaap by hand from the ranked list and the topic's qrels."""
    grades = [judged.get(d) for d in ranked]
    if kind == "yaap":  # m_yaap.c: log((1 + S) / (1 + R - S)), S the precisions at the relevant documents
        total, found = 0.0, 0
        for j, g in enumerate(grades):
            if g is not None and g >= level:
                found += 1
                total += found / (j + 1)
        return math.log((1 + total) / (1 + sum(g >= level for g in judged.values()) - total))
    if kind in ("dcg", "ideal_dcg"):
        gains = [g for g in grades] if kind == "dcg" else sorted(judged.values(), reverse=True)
        return sum(g / math.log2(j + 2) for j, g in enumerate(gains) if g is not None and g > 0)
    if kind == "judged":
        top = grades[:k]
        return sum(g is not None for g in top) / min(k, len(ranked)) if ranked else 0.0
    unjudged = [g is None or g < 0 for g in grades]
    if kind == "unj":
        return sum(unjudged[:k]) / k
    p = 0.9 if k is None else k
    if kind == "rbp":
        top = max([g for g in judged.values() if g > 0], default=0)
        scale = top if top > 1 else 1
        return (1 - p) * sum((g / scale if g is not None and g > 0 else 0) * p ** j for j, g in enumerate(grades))
    if kind == "rbp_resid":
        if not any(unjudged):
            return 0.0
        return p ** len(ranked) + (1 - p) * sum(p ** j for j, u in enumerate(unjudged) if u)
    raise AssertionError(kind)


def test_every_gains_based_family_has_an_oracle_here():
    roots = {f.root for f in _gains_based()}
    known = (roots & PYTREC) | set(TRANSFORMED) | LOOPS | FROM_PYTREC
    assert roots == known, roots - known


@settings(max_examples=100, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])  # seeds: no shrinking
@given(st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_every_registered_gains_based_measure_matches_its_oracle(seed, level):
    runs, frame = _collection(seed)
    qrels = _nested_qrels(frame)
    plain = _pytrec(runs, qrels, level)
    judged_only = _pytrec(runs, qrels, level, judged_only=True)
    exponential = _pytrec(runs, _nested_qrels(frame, lambda g: 2 ** g - 1 if g > 0 else g), level)
    parsed = {f.root: [m for n in _names_of(f) for m in measures.parse(n, "10.0")] for f in _gains_based()}
    ours = evaluate(RunSet.from_frames(runs), Qrels(frame), [m for ms in parsed.values() for m in ms],
                    relevance_level=level)
    ranked = {(run, t): _ranked(runs[run], t) for run in runs for t in ours.topics}  # once, for every loop oracle
    for family in _gains_based():
        for i, run in enumerate(runs):
            for m in parsed[family.root]:
                values = ours.values[m.name][i]
                if family.root in LOOPS:
                    expected = [_loop_oracle(m.kind, m.k, ranked[run, t], qrels[t], level) for t in ours.topics]
                    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12, err_msg=f"{run} {m.name}")
                    continue
                theirs = {"map_judged": judged_only, "ndcg_judged": judged_only}.get(
                    family.root, exponential if family.kind == "ndcg_exp" else plain)[run]
                key = m.name
                if family.root in TRANSFORMED:
                    key = TRANSFORMED[family.root] + (f"_{m.k}" if m.k is not None else "")
                if m.kind == "num_q":
                    expected = np.ones(len(ours.topics))
                elif family.root == "FIRE_AP":
                    hits = np.array([theirs[t][f"P_{m.k}"] * m.k for t in ours.topics])
                    ap = np.array([theirs[t][f"map_cut_{m.k}"] * theirs[t]["num_rel"] for t in ours.topics])
                    expected = np.divide(ap, hits, out=np.zeros_like(ap), where=hits > 0)
                else:
                    expected = np.array([theirs[t][key] for t in ours.topics])
                if family.summary == "gm":  # pytrec_eval keeps log(max(v, 1e-5)) per topic
                    expected, values = np.exp(expected), np.maximum(values, 1e-5)
                np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12, err_msg=f"{run} {m.name}")


@pytest.mark.parametrize("root", sorted(measures.REGISTRY))
def test_every_family_is_declared_completely(root):
    family = measures.REGISTRY[root]
    assert family.root and family.kind and callable(family.compute)
    assert family.summary in SUMMARIES and family.needs and set(family.needs) <= NEEDS
    assert ".. math::" in family.formula and ">>>" in family.formula, f"{root}: formula and example in the docstring"
    if family.param is not None:
        p = family.param
        assert p.name and p.type in (int, float) and p.defaults and p.doc
        assert all(p.low <= v <= p.high for v in p.defaults)
    # a name of its own reaches it (C@K reaches success's computation through its own parse form)
    names = [n for n in measures.names() if _family_or_none(n) is family
             or (family.parse is not None and family.parse(n, n.lower()))]
    assert names, f"{root}: no name of the registry reaches it"


def _family_or_none(name):
    try:
        return measures.get(name)
    except ValueError:
        return None


@pytest.mark.parametrize("name", measures.names())
def test_the_parser_accepts_every_listed_name(name):
    parsed = measures.parse(name, "10.0")
    assert parsed and all(m.family.root in measures.REGISTRY for m in parsed)
    assert all(isinstance(m.name, str) and m.name for m in parsed)


@pytest.mark.parametrize("name, close", [("nDGC@10", "nDCG@10"), ("mpa", "map"), ("bpreff", "bpref"),
                                         ("Judge@10", "Judged@10"), ("recal_10", "recall_10")])
def test_unknown_names_are_refused_in_one_line_listing_close_names(name, close):
    with pytest.raises(ValueError) as error:
        measures.parse(name)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"-m {name}: unknown measure.")
    assert close.split("@")[0].split("_")[0].lower() in message.lower()


def test_one_grammar_for_every_consumer():
    from fireeval.pooling.incomplete import canonical_name, is_incomplete_measure
    from fireeval.pooling.pools import measure_name

    assert measures.get("AP'").root == "map_judged" and canonical_name("map'") == "map_judged"
    assert measure_name("nDCG'") == "ndcg_judged" and not is_incomplete_measure("P@10")
    assert [m.name for m in measures.parse("C@1")] == ["C@1"] and measures.get("C@1").kind == "success"
    assert measures.get("R@5,0.7").needs == {"moments"} and measures.get("R@5").root == "recall"
    assert [m.name for m in measures.parse("AxIoU@10")] == ["AxIoU@10"]
    with pytest.raises(ValueError, match="temporal moments"):
        measures.score("R@1,0.5", [[1, 0]])


def test_fire_names_are_the_registered_measures():
    from fireeval.t2v import false_negatives as fire

    positives = np.random.default_rng(0).random((6, 30)) < 0.15
    lists = np.argsort(np.random.default_rng(1).random((6, 30)), axis=1)
    ours = fire.per_query_scores(lists, positives, ks=(1, 5), ap_depth=20)
    gains = fire.gains_of(lists, positives).astype(float)
    for k in (1, 5):
        np.testing.assert_array_equal(ours[f"C@{k}"], measures.score(f"C@{k}", gains))
    np.testing.assert_allclose(ours["AP@20"], measures.score("FIRE_AP@20", gains), rtol=0, atol=1e-15)


def test_score_example_and_summaries():
    assert measures.score("P@2", [[1, 0, 1]]).tolist() == [0.5]
    assert measures.get("gm_map").summary == "gm" and measures.get("num_ret").summary == "sum"
    assert math.isclose(float(measures.summarise([[0.0, 1.0]], "gm")[0]), math.sqrt(1e-5))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["trec_eval9", "nearest"]))
def test_interpolated_precisions_of_all_levels_at_once_equal_the_rank_by_rank_definition(seed, rounding):
    """The eleven levels found by one binary search equal the definition walked rank by rank, on
    (runs x topics x depth) grades with more relevant documents than ranks, none, and empty lists."""
    from fireeval.core.measures.base import Context
    from fireeval.core.measures.interpolated import RECALL_LEVELS, interpolated_precisions

    rng = np.random.default_rng(seed)
    depth = int(rng.integers(1, 9))
    grades = rng.choice([np.nan, 0.0, 1.0], size=(2, 3, depth))
    n_ret = rng.integers(0, depth + 1, size=(2, 3))
    grades[np.arange(depth) >= n_ret[..., None]] = np.nan
    n_rel = (grades == 1).sum(axis=-1) + rng.integers(0, 2 * depth, size=(2, 3))
    ctx = Context(grades, n_rel, None, 1, np.zeros_like(n_rel), n_ret, rounding)
    got = np.stack(interpolated_precisions(ctx, RECALL_LEVELS), axis=-1)
    for index in np.ndindex(2, 3):
        rel = grades[index] == 1
        prec = np.cumsum(rel) / np.arange(1, depth + 1)
        for i, level in enumerate(RECALL_LEVELS):
            x = level * n_rel[index]
            need = int(np.floor(x) + (x - np.floor(x) >= 0.5)) if rounding == "nearest" else int(np.floor(x + 0.9))
            ranks = np.flatnonzero(rel)
            start = 0 if need == 0 else (ranks[need - 1] if need <= len(ranks) else depth)
            best = max([prec[j] for j in range(start, depth) if rel[j]], default=0.0)
            want = np.nan if need == 0 and n_ret[index] == 0 else best
            np.testing.assert_equal(got[index + (i,)], want)


def test_interpolated_precisions_of_no_lists_and_of_relevant_counts_broadcast_over_lists():
    from fireeval.core.measures.base import Context
    from fireeval.core.measures.interpolated import interpolated_precisions

    for name in ("11pt_avg", "iprec_at_recall_0.50", "iprec_at_recall_0.33"):
        assert measures.score(name, np.zeros((0, 5)), n_relevant=np.zeros(0, int)).shape == (0,)
    one_list = Context(np.array([[1.0, 0.0, 1.0]]), np.array([2, 4]), None, 1, np.array([0, 0]), np.array([3, 3]))
    np.testing.assert_allclose(np.stack(interpolated_precisions(one_list, [0.5, 1.0])), [[1, 2 / 3], [2 / 3, 0]])
