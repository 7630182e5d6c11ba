"""``fireeval.evaluate(qrels, run, measures)`` (issue 26): every accepted form gives the same numbers,
equal to pytrec_eval and to ``fireeval evaluate``; bad input fails first, in one line, with the fix."""
import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import fireeval
from fireeval import cli
from fireeval.core import api
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.core.stream import QrelsIndex
from fireeval.core.trec import read_qrels, read_run, read_run_table, write_qrels, write_run

PYTREC = {"map": "map", "P_10": "P_10", "ndcg_cut_10": "ndcg_cut_10", "recip_rank": "recip_rank", "bpref": "bpref"}


def _random(seed, n_topics=5):
    """A run with tied scores and qrels with negative, zero and graded judgements, as pytrec_eval dicts."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(n_topics):
        docs = rng.choice(60, size=rng.integers(1, 40), replace=False)
        run[f"q{q}"] = {f"D{d:02d}": float(s) for d, s in zip(docs, rng.integers(0, 6, len(docs)) / 4)}
        judged = rng.choice(60, size=25, replace=False)
        qrels[f"q{q}"] = {f"D{d:02d}": int(g) for d, g in zip(judged, rng.choice([-1, 0, 0, 1, 2], 25))}
    run["q_unjudged"] = {"D00": 1.0}  # ignored, as trec_eval ignores it
    return qrels, run


def _frames(qrels, run):
    q = pd.DataFrame([(t, d, g) for t, docs in qrels.items() for d, g in docs.items()],
                     columns=["query", "docno", "relevance"])
    r = pd.DataFrame([(t, d, s) for t, docs in run.items() for d, s in docs.items()],
                     columns=["query", "docno", "score"])
    return q, r


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fireeval.evaluate(*args, **kwargs)


@pytest.fixture
def data(tmp_path):
    qrels, run = _random(0)
    q, r = _frames(qrels, run)
    write_qrels(q, tmp_path / "qrels.txt")
    write_run(r, tmp_path / "run.txt", tag="run")
    return qrels, run, q, r, tmp_path


MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "infAP", "gm_map", "num_rel_ret", "Rndcg"]


def test_every_form_gives_the_same_numbers(data):
    qrels, run, q, r, folder = data
    ir_q = q.rename(columns={"query": "query_id", "docno": "doc_id"})
    ir_r = r.rename(columns={"query": "query_id", "docno": "doc_id"})
    qrels_forms = {"dict": qrels, "path": str(folder / "qrels.txt"), "Path": folder / "qrels.txt",
                   "trec frame": q, "ir_measures frame": ir_q, "Qrels": Qrels(read_qrels(folder / "qrels.txt")),
                   "QrelsIndex": QrelsIndex.read(folder / "qrels.txt")}
    ranks = read_run(folder / "run.txt")[["query", "docno", "rank"]]  # trec_eval's order, as ranks
    run_forms = {"dict": run, "path": str(folder / "run.txt"), "list": [folder / "run.txt"], "trec frame": r,
                 "ir_measures frame": ir_r, "ranks only": ranks, "RunTable": read_run_table(folder / "run.txt"),
                 "RunSet": RunSet.read([folder / "run.txt"])}
    expected = _quiet(qrels, run, MEASURES, per_topic=True, output="dict")["run"]
    for qname, qform in qrels_forms.items():
        for rname, rform in run_forms.items():
            got = _quiet(qform, rform, MEASURES, per_topic=True, output="dict")
            assert list(got) == ["run"], (qname, rname)
            assert list(got["run"]) == list(expected), (qname, rname)
            for topic, values in expected.items():
                for m, v in values.items():
                    assert math.isclose(got["run"][topic][m], v, rel_tol=0, abs_tol=1e-12), (qname, rname, topic, m)


@pytest.mark.parametrize("seed", range(4))
def test_equals_pytrec_eval_on_dicts(seed):
    qrels, run = _random(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values())).evaluate(run)
    ours = _quiet(qrels, run, list(PYTREC), per_topic=True, output="dict")["run"]
    assert set(ours) - {"all"} == set(theirs)
    for topic, values in theirs.items():
        for ours_name, their_name in PYTREC.items():
            assert abs(ours[topic][ours_name] - values[their_name]) <= 1e-12, (topic, ours_name)
    for m in PYTREC:  # the summary: trec_eval's mean over the evaluated topics
        assert abs(ours["all"][m] - np.mean([theirs[t][PYTREC[m]] for t in sorted(theirs)])) <= 1e-12


@settings(max_examples=40)
@given(st.integers(0, 2**31 - 1), st.integers(1, 3), st.booleans(), st.booleans())
def test_property_dicts_equal_pytrec_eval(seed, level, judged_only, complete):
    qrels, run = _random(seed, n_topics=3)
    if complete:
        run.pop("q0")  # a qrels topic the run lacks: 0 in every average
    measures = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref"]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10", "recip_rank", "bpref"},
                                               relevance_level=level, judged_docs_only_flag=judged_only)
    theirs = evaluator.evaluate(run)
    ours = _quiet(qrels, run, measures, per_topic=True, relevance_level=level, judged_only=judged_only,
                  complete=complete, output="dict")["run"]
    for topic, values in theirs.items():
        for m in measures:
            assert abs(ours[topic][m] - values[m]) <= 1e-12, (topic, m)
    n = len(qrels) if complete else len(theirs)
    for m in measures:
        assert abs(ours["all"][m] - sum(v[m] for v in theirs.values()) / n) <= 1e-12, m


def test_summaries_equal_the_command_line(data, capsys):
    _, _, _, _, folder = data
    names = ["map", "gm_map", "num_ret", "num_rel", "P@10", "C@1", "official"]
    for flags, kwargs in (([], {}), (["-c", "-l", "2"], {"complete": True, "relevance_level": 2}),
                          (["-J", "-M", "5"], {"judged_only": True, "max_retrieved": 5}),
                          (["--trec-eval", "10.0"], {"trec_eval_version": "10.0"})):
        assert cli.main(["evaluate", str(folder / "qrels.txt"), str(folder / "run.txt"), "-q", "--format", "tsv",
                         *[a for n in names for a in ("-m", n)], *flags]) == 0
        printed = {(m, t): float(v) for _, m, t, v in (l.split("\t") for l in capsys.readouterr().out.splitlines()[1:])
                   if v not in ("-nan",) and m != "runid"}
        for form in (folder / "run.txt", RunSet.read([folder / "run.txt"])):
            frame = _quiet(folder / "qrels.txt", form, names, per_topic=True, **kwargs)
            got = {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}
            for key, value in printed.items():
                assert abs(got[key] - value) <= 5e-5, (key, flags, type(form))  # printed to 4 decimals
        exact = _quiet(folder / "qrels.txt", folder / "run.txt", names, output="dict", **kwargs)["run"]
        in_memory = _quiet(folder / "qrels.txt", RunSet.read([folder / "run.txt"]), names, output="dict",
                           **kwargs)["run"]
        for m, v in exact.items():
            assert abs(in_memory[m] - v) <= 1e-12 or (math.isnan(v) and math.isnan(in_memory[m])), (m, flags)


def test_a_string_measure_is_one_measure(data):
    qrels, run, *_ = data
    assert list(_quiet(qrels, run, "map", output="dict")["run"]) == ["map"]
    assert list(_quiet(qrels, run, "P@10", output="dict")["run"]) == ["P@10"]
    assert list(_quiet(qrels, run, "ndcg_cut.10", output="dict")["run"]) == ["ndcg_cut_10"]
    assert list(_quiet(qrels, run, "C@1", output="dict")["run"]) == ["C@1"]
    assert list(_quiet(qrels, run, ["P_10", "P.10", "map"], output="dict")["run"]) == ["P_10", "map"]  # once each
    official = _quiet(qrels, run, "official", output="dict")["run"]
    assert "runid" not in official and "map" in official and "P_1000" in official


def test_output_forms_and_many_runs(data):
    qrels, run, q, r, folder = data
    other = {t: {d: -s for d, s in docs.items()} for t, docs in run.items()}
    frame = _quiet(qrels, {"a": run, "b": other}, ["map", "P_10"], per_topic=True)
    assert list(frame.columns) == ["run", "measure", "topic", "value"]
    assert list(pd.unique(frame["run"])) == ["a", "b"]
    summary = frame[frame["topic"] == "all"]
    assert len(summary) == 4 and frame["value"].dtype == float
    d = _quiet(qrels, {"a": run, "b": other}, ["map", "P_10"], output="dict")
    assert d == {r_: {m: v for m, v in zip(g["measure"], g["value"])} for r_, g in summary.groupby("run", sort=False)}
    per_topic = _quiet(qrels, {"a": run, "b": other}, ["map"], per_topic=True, output="dict")
    topics = [t for t in per_topic["a"] if t != "all"]
    assert topics == sorted(topics) and per_topic["a"]["all"]["map"] == d["a"]["map"]
    # a folder of runs; two files with one tag are named by their path
    runs = folder / "runs"
    runs.mkdir()
    write_run(r, runs / "one.txt", tag="x")
    write_run(r, runs / "two.txt", tag="x")
    assert list(_quiet(qrels, runs, "map", output="dict")) == ["x", str(runs / "two.txt")]


def test_dict_path_imports_no_pandas(data):
    _, _, _, _, folder = data
    code = ("import sys, fireeval\n"
            f"d = fireeval.evaluate({str(folder / 'qrels.txt')!r}, {str(folder / 'run.txt')!r}, ['map', 'P@10'], "
            "output='dict', per_topic=True)\n"
            "d2 = fireeval.evaluate({'1': {'a': 1}}, {'1': {'a': 0.5, 'b': 0.2}}, 'map', output='dict')\n"
            "assert d2 == {'run': {'map': 1.0}}, d2\n"
            "from fireeval.cli import main\n"
            f"assert main(['evaluate', {str(folder / 'qrels.txt')!r}, {str(folder / 'run.txt')!r}, '-q']) == 0\n"
            "print('pandas modules:', ' '.join(m for m in sys.modules if m.split('.')[0] == 'pandas'))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].strip() == "pandas modules:", result.stdout.splitlines()[-1]


# (what changes in evaluate(qrels, run, ["map"]) given the fixture's data, the message's gist)
BAD = [
    (lambda d: {"qrels": d["run"], "run": d["qrels"]}, "qrels come first"),
    (lambda d: {"measures": "mapp"}, "unknown measure"),
    (lambda d: {"measures": 3}, "not a measure name"),
    (lambda d: {"measures": []}, "no measure given"),
    (lambda d: {"measures": [None]}, "Fix: pass one measure name"),
    (lambda d: {"measures": "relstring"}, "text, not a number"),
    (lambda d: {"measures": "rbp"}, "trec_eval_version='10.0'"),
    (lambda d: {"max_retrieved": -1}, "max_retrieved must be a whole number >= 0"),
    (lambda d: {"relevance_level": -1}, "relevance_level must be a whole number >= 0"),
    (lambda d: {"relevance_level": 1.5}, "relevance_level must be a whole number"),
    (lambda d: {"per_topic": "yes"}, "per_topic must be True or False"),
    (lambda d: {"output": "json"}, "output must be 'frame'"),
    (lambda d: {"trec_eval_version": "9"}, "trec_eval_version '9'"),
    (lambda d: {"run": 5}, "not a form of run"),
    (lambda d: {"qrels": [1, 2]}, "not a form of judgements"),
    (lambda d: {"run": [1, 2]}, "a list holds run files"),
    (lambda d: {"run": {}}, "the dict is empty"),
    (lambda d: {"qrels": {"q0": {"D01": 0.5}}}, "not a whole number, so these look like a run's scores"),
    (lambda d: {"qrels": {"q0": {"D01": "rel"}}}, "relevance 'rel' is not a number"),
    (lambda d: {"run": {"q0": {"D01": "high"}}}, "score 'high' is not a number"),
    (lambda d: {"run": {"q0": {"D01": float("nan")}}}, "not a finite number"),
    (lambda d: {"run": {"zz": {"D01": 1.0}}}, "no topic of the run has judgements"),
    (lambda d: {"run": d["q"]}, "This looks like qrels"),
    (lambda d: {"qrels": d["r"]}, "This looks like a run"),
    (lambda d: {"qrels": str(d["folder"] / "run.txt")}, "a run file, not qrels"),
    (lambda d: {"run": d["folder"] / "qrels.txt"}, "a qrels file, not a run"),
    (lambda d: {"run": d["folder"] / "nothing.txt"}, "is not a file"),
    (lambda d: {"qrels": pd.DataFrame({"q": ["1"], "d": ["a"], "relevance": [1]})}, "needs columns query_id, doc_id"),
]


@pytest.mark.parametrize("change, message", BAD, ids=[m for _, m in BAD])
def test_bad_input_fails_first_in_one_line(data, change, message, monkeypatch):
    qrels, run, q, r, folder = data
    args = {"qrels": qrels, "run": run, "measures": ["map"]}
    args.update(change({"qrels": qrels, "run": run, "q": q, "r": r, "folder": folder}))
    from fireeval.core import stream

    def no_scoring(*a, **k):
        raise AssertionError("scored before validating")
    if message != "no topic of the run has judgements":
        monkeypatch.setattr(stream, "score_run", no_scoring)
    with pytest.raises((ValueError, TypeError, FileNotFoundError)) as err:
        _quiet(args.pop("qrels"), args.pop("run"), args.pop("measures"), **args)
    text = str(err.value)
    assert message in text and "\n" not in text and "Fix:" in text, text


def test_exposed_names():
    from fireeval import core

    assert fireeval.evaluate is api.evaluate is core.evaluate


def test_readme_example_prints_what_it_says():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "README.md").read_text()
    block = text.split("**In Python**", 1)[1].split("```python\n", 1)[1].split("```", 1)[0].splitlines()
    call = next(i for i, line in enumerate(block) if line.startswith("fireeval.evaluate(qrels, run"))
    namespace = {}
    exec("\n".join(block[:call]), namespace)
    assert repr(eval(block[call], namespace)) == block[call + 1].removeprefix("# ")
