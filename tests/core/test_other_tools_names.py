"""Other tools' names (issue 36): ir_measures' and ranx's names, measure objects, qrels and run forms.

Each accepted name is scored on the same qrels and run by fireeval and by the name's owner: ir_measures
(through its providers: pytrec_eval, msmarco, gdeval) and ranx (when importable; otherwise ranx's documented
formulas, written out below as loops, and a hand-worked example). Each value comes back under the name written.
"""
from __future__ import annotations

import math
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

import fireeval
from fireeval.core import measures

ir_measures = pytest.importorskip("ir_measures")

IR_NAMES = ["P(rel=2)@10", "RR(rel=2)", "AP(rel=2)", "RR@10", "ERR@10", "IPrec@0.5", "nDCG@10", "nDCG", "Bpref",
            "P@5", "AP", "RR", "R@10"]
RANX_NAMES = ["map@100", "mrr@10", "hit_rate@10", "precision@10", "recall@100", "f1@10", "ndcg_burges@10",
              "ndcg@10", "dcg@10"]


def _collection(seed, n_topics=4):
    """Numeric topics (gdeval's), grades -1..4 (ERR's range), distinct scores (no tie to order)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, n_topics + 1):
        judged = rng.choice(30, size=int(rng.integers(3, 15)), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 2, 3, 4], size=len(judged))
        grades[0] = max(grades[0], 1)  # one relevant document per topic (ranx refuses a topic without one)
        qrels += [ir_measures.Qrel(str(q), f"d{d}", int(g)) for d, g in zip(judged, grades)]
        docs = rng.choice(30, size=int(rng.integers(5, 25)), replace=False)
        scores = rng.permutation(len(docs)) + rng.random()
        run += [ir_measures.ScoredDoc(str(q), f"d{d}", float(s)) for d, s in zip(docs, scores)]
    return qrels, run


def _fireeval_per_topic(qrels, run, names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the ranx note: tested below)
        got = fireeval.evaluate(list(qrels), list(run), names, per_topic=True, output="dict",
                                trec_eval_version="10.0")["run"]
    return {t: v for t, v in got.items() if t != "all"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ir_measures_names_match_ir_measures(seed):
    qrels, run = _collection(seed)
    names = [n for n in IR_NAMES if n != "ERR@10" or shutil.which("perl")]  # gdeval is a perl script
    ours = _fireeval_per_topic(qrels, run, names)
    for name in names:
        measure = ir_measures.parse_measure(name)
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        for topic, values in ours.items():
            assert name in values, f"{name} not returned under the name written: {sorted(values)}"
            # gdeval prints 5 decimals
            tolerance = 5e-6 if name == "ERR@10" else 1e-12
            assert values[name] == pytest.approx(theirs.get(topic, 0.0), abs=tolerance), (name, topic)


def test_rbp_follows_ir_measures_definition():
    """ir_measures' RBP(rel=R,p=P)@K has no provider installed here (cwl_eval): its documented formula,
    (1 - p) sum_{j <= K} [g_j >= R] p^(j-1), p = 0.8 by default."""
    qrels, run = _collection(5)
    ours = _fireeval_per_topic(qrels, run, ["RBP(rel=1)@10", "RBP(rel=2,p=0.5)@5"])
    judged = {(q.query_id, q.doc_id): q.relevance for q in qrels}
    for topic, values in ours.items():
        ranked = [d.doc_id for d in sorted((d for d in run if d.query_id == topic), key=lambda d: -d.score)]
        for name, rel, p, k in (("RBP(rel=1)@10", 1, 0.8, 10), ("RBP(rel=2,p=0.5)@5", 2, 0.5, 5)):
            expected = (1 - p) * sum(p ** j for j, d in enumerate(ranked[:k]) if judged.get((topic, d), 0) >= rel)
            assert values[name] == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match=r"RBP needs rel=.*Fix: e.g. RBP\(rel=1\)@10"):
        measures.parse("RBP@10")


def _ranx_oracle(name, ranked, qrels_topic):
    """ranx's documented formulas (ranx/metrics/*.py), rel_lvl = 1: documents graded below 1 are not relevant
    and gain nothing; k beyond the list is the list."""
    metric, k = name.split("@")
    k = int(k)
    relevant = {d: g for d, g in qrels_topic.items() if g >= 1}
    top = ranked[:k]
    hits = [d in relevant for d in top]
    if metric == "precision":
        return sum(hits) / k
    if metric == "recall":
        return sum(hits) / len(relevant)
    if metric == "f1":
        p, r = sum(hits) / k, sum(hits) / len(relevant)
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)
    if metric == "hit_rate":
        return float(any(hits))
    if metric == "mrr":
        return next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
    if metric == "map":
        return sum(sum(hits[:i + 1]) / (i + 1) for i, h in enumerate(hits) if h) / len(relevant)
    gain = (lambda g: 2 ** g - 1) if metric == "ndcg_burges" else (lambda g: g)
    dcg = sum(gain(relevant.get(d, 0)) / math.log2(i + 2) for i, d in enumerate(top) if d in relevant)
    if metric == "dcg":
        return dcg
    ideal = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(sorted(relevant.values(), reverse=True)[:k]))
    return dcg / ideal if ideal else 0.0


@pytest.mark.parametrize("seed", [0, 3])
def test_ranx_names_match_ranx_formulas(seed):
    qrels, run = _collection(seed)
    ours = _fireeval_per_topic(qrels, run, RANX_NAMES)
    by_topic = {}
    for q in qrels:
        by_topic.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    for topic, values in ours.items():
        ranked = [d.doc_id for d in sorted((d for d in run if d.query_id == topic), key=lambda d: -d.score)]
        for name in RANX_NAMES:
            assert values[name] == pytest.approx(_ranx_oracle(name, ranked, by_topic[topic]), abs=1e-12), name


def test_ranx_names_on_a_hand_worked_example():
    """One topic: d1 (grade 2), d2 (0), d3 (1), d4 (-1, judged negative); the run ranks d3, d2, d1, d4, d5."""
    qrels = {"q": {"d1": 2, "d2": 0, "d3": 1, "d4": -1}}
    run = {"q": {"d3": 0.9, "d2": 0.8, "d1": 0.7, "d4": 0.6, "d5": 0.5}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = fireeval.evaluate(qrels, run, RANX_NAMES + ["map@2"], output="dict")["run"]
    log3 = math.log2(3)
    expected = {
        "map@100": (1 / 1 + 2 / 3) / 2,     # relevant at ranks 1 and 3, R = 2
        "map@2": (1 / 1) / 2,               # only rank 1 within the top 2, still over R
        "mrr@10": 1.0,
        "hit_rate@10": 1.0,
        "precision@10": 2 / 10,             # ranx divides by k, not by the 5 retrieved
        "recall@100": 1.0,
        "f1@10": 2 * 0.2 * 1.0 / 1.2,
        "dcg@10": 1 / 1 + 2 / 2,            # grade 1 at rank 1 (log2 2), grade 2 at rank 3 (log2 4)
        "ndcg@10": (1 + 2 / 2) / (2 + 1 / log3),
        "ndcg_burges@10": (1 + 3 / 2) / (3 + 1 / log3),
    }
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


RANX_ITSELF = """
import json, sys
import ranx
qrels, run, names = json.load(sys.stdin)
print(json.dumps(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names)))
"""


def test_ranx_names_match_ranx_itself():
    """ranx's own code on the same qrels and run, in a child process with numba's compiler off
    (``NUMBA_DISABLE_JIT=1``: ranx's metric functions run as the plain Python they are written in). Compiling
    them took 47 CPU-s (156 s under load in CI, where numba's cache is empty); interpreted, on 4 topics, 4 s.
    The formulas are ranx's either way: on this collection compiled and interpreted ranx agree within 5e-16."""
    pytest.importorskip("ranx", reason="ranx is not installed here (the test extra installs it in CI)")
    import json
    import os
    import subprocess
    import sys

    qrels, run = _collection(7)
    qrels_dict, run_dict = {}, {}
    for q in qrels:
        qrels_dict.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    for d in run:
        run_dict.setdefault(d.query_id, {})[d.doc_id] = d.score
    done = subprocess.run([sys.executable, "-c", RANX_ITSELF], input=json.dumps([qrels_dict, run_dict, RANX_NAMES]),
                          env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.splitlines()[-1])
    assert sorted(theirs) == sorted(RANX_NAMES), theirs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = fireeval.evaluate(qrels_dict, run_dict, RANX_NAMES, output="dict", trec_eval_version="10.0")["run"]
    for name in RANX_NAMES:
        assert ours[name] == pytest.approx(theirs[name], abs=1e-9), name


def test_ranx_names_say_which_conventions_differ_in_one_line():
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    with pytest.warns(UserWarning) as caught:
        fireeval.evaluate(qrels, run, ["ndcg@10", "P@10"], output="dict")
    (note,) = [str(w.message) for w in caught]
    assert "\n" not in note and note.startswith("ndcg@10: ranx's names") and "P@10" not in note
    assert "tied" in note and "distinct scores" in note and "trec_eval_version='10.0'" in note
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fireeval.evaluate(qrels, run, ["nDCG@10", "P@10"], output="dict")  # ir_measures' names: no note


def test_names_come_back_as_written():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 1.0, "b": 0.5}}
    names = ["nDCG", "MAP", "Bpref", "map", "P(rel=2)@10", "RR(rel=2)", "IPrec@0.5", "ERR@10"]
    assert list(fireeval.evaluate(qrels, run, names, output="dict")["run"]) == names
    assert [m.name for m in measures.parse("ndcg@10", printing=True)] == ["ndcg@10"]
    assert measures.get("dcg@10").root == "dcg_cut" and measures.get("DCG@10").root == "DCG@K"  # ranx / moments


def test_ir_measures_objects_and_iterables_and_pyterrier_frames():
    qrels, run = _collection(11)
    objects = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 10, ir_measures.AP(rel=2), ir_measures.RR @ 10]
    ours = fireeval.evaluate(iter(qrels), (d for d in run), objects, output="dict", trec_eval_version="10.0")["run"]
    theirs = ir_measures.calc_aggregate(objects, qrels, run)
    assert list(ours) == [str(m) for m in objects]
    for m in objects:
        assert ours[str(m)] == pytest.approx(theirs[m], abs=1e-12), str(m)
    assert fireeval.evaluate(qrels, run, ir_measures.nDCG @ 10, output="dict")["run"]["nDCG@10"] == pytest.approx(
        theirs[ir_measures.nDCG @ 10])
    # PyTerrier: qid, docno, label (qrels); qid, docno, score and the query's text in "query" (run)
    terrier_qrels = pd.DataFrame(qrels).rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    terrier_run = pd.DataFrame(run).rename(columns={"query_id": "qid", "doc_id": "docno"}).assign(query="some text")
    framed = fireeval.evaluate(terrier_qrels, terrier_run, objects, output="dict", trec_eval_version="10.0")["run"]
    assert framed == pytest.approx(ours)


@pytest.mark.parametrize("name, message", [
    ("P(foo=1)@10", "option 'foo=1' is not one P takes"),
    ("nDCG(rel=2)@10", "takes no options here"),
    ("P(rel=0)@10", "outside 1.."),
    ("RBP(rel=1,p=2)@10", r"outside \[0, 1\]"),
])
def test_bad_options_are_refused_in_one_line(name, message):
    with pytest.raises(ValueError, match=message) as caught:
        fireeval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, name)
    assert "\n" not in str(caught.value) and "Fix:" in str(caught.value)


def test_qrels_tuples_with_wrong_fields_are_refused():
    from collections import namedtuple

    Row = namedtuple("Row", "topic doc grade")
    with pytest.raises(TypeError, match="Fix: give ir_measures' namedtuples with fields query_id, doc_id, relevance"):
        fireeval.evaluate([Row("q", "a", 1)], {"q": {"a": 1.0}}, "map")


def test_the_command_says_the_ranx_note_on_stderr(tmp_path):
    import subprocess
    import sys

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    done = subprocess.run([sys.executable, "-m", "fireeval", "evaluate", str(tmp_path / "q"), str(tmp_path / "r"),
                           "-m", "ndcg@10", "-m", "P(rel=1)@10", "-m", "ERR@10"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # each printed under the name written (measures trec_eval lacks follow in the order given)
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["ndcg@10", "P(rel=1)@10", "ERR@10"]
    (note,) = [line for line in done.stderr.splitlines() if "ranx" in line]
    assert note.startswith("warning: ndcg@10: ranx's names") and "--trec-eval 10.0" in note
