"""fireeval against pytrec_eval (an independent C implementation of trec_eval) and NIST's official MAP.

The TREC-8 tests read pytrec_eval's scores of the 129 runs from one fixture (``trec8_pytrec``: each run parsed
by pytrec_eval's own reader and scored once, for every measure it computes), computed once per test session and
shared by both xdist workers (``once_per_session`` of tests/conftest.py), not once per test."""
import gzip

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from fireeval.datasets import trec8
from fireeval import evaluate
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.synthetic.trec_collection import simulate_trec

from conftest import require_data

MEASURES = {"map": "map", "P_10": "P_10", "ndcg": "ndcg", "recip_rank": "recip_rank"}


def _nested(frame, value, cast):
    return {str(q): dict(zip(g["docno"].astype(str), map(cast, g[value]))) for q, g in frame.groupby("query")}


def _pytrec(runs_frames, qrels_frame):
    evaluator = pytrec_eval.RelevanceEvaluator(_nested(qrels_frame, "relevance", int), set(MEASURES.values()))
    return {name: evaluator.evaluate(_nested(frame, "score", float)) for name, frame in runs_frames.items()}


def _scored(theirs: dict) -> tuple[list, dict]:
    """pytrec_eval's ``{topic: {measure: value}}`` as (sorted topics, ``{measure: values over those topics}``)."""
    topics = sorted(theirs)
    return topics, {m: np.array([theirs[t][m] for t in topics]) for m in theirs[topics[0]]} if topics else {}


def _compare(runs: RunSet, theirs: dict, qrels: Qrels):
    """``theirs``: ``{run: _scored(pytrec_eval's scores)}``."""
    ours = evaluate(qrels, runs, list(MEASURES), per_topic=True, output="dict")
    for name in runs.names:
        topics = [t for t in ours[name] if t != "all"]
        their_topics, values = theirs[name]
        assert topics == their_topics, name
        for ours_name, trec_name in MEASURES.items():
            expected = values[trec_name]
            np.testing.assert_allclose([ours[name][t][ours_name] for t in topics], expected, atol=1e-6,
                                       err_msg=f"{name} {ours_name}")


def test_matches_pytrec_eval_on_synthetic_runs_with_ties():
    frames, qrels_frame, _ = simulate_trec(n_topics=6, n_groups=3, runs_per_group=2, n_docs=300, depth=80, seed=1)
    # Round scores hard so many ties must be broken by docno, as trec_eval does.
    frames = {k: v.assign(score=v["score"].round(0)) for k, v in frames.items()}
    qrels = Qrels(qrels_frame.sample(frac=0.6, random_state=0))  # incomplete judgements
    _compare(RunSet.from_frames(frames), {k: _scored(v) for k, v in _pytrec(frames, qrels.frame).items()}, qrels)


@pytest.fixture(scope="session")
def trec8_pytrec(once_per_session) -> dict:
    """pytrec_eval's per-topic scores of every TREC-8 run, every measure it computes (``supported_measures``):
    ``{run: (sorted topics, {measure: values})}``. Each run is parsed by pytrec_eval's own reader and scored
    once per session; only the scores are kept (the 129 parsed runs as dicts would take about 1 GB)."""
    require_data(*trec8.FILES)
    return once_per_session("trec8_pytrec", _score_trec8_with_pytrec_eval)


def _score_trec8_with_pytrec_eval() -> dict:
    from fireeval.datasets import data_path

    with gzip.open(data_path(trec8.QRELS), "rt") as fh:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh), pytrec_eval.supported_measures)
    scored = {}
    for name in trec8.run_names():
        with gzip.open(data_path(f"trec8_adhoc/runs/input.{name}.gz"), "rt") as fh:
            scored[name] = _scored(evaluator.evaluate(pytrec_eval.parse_run(fh)))
    return scored


@pytest.mark.realdata
def test_matches_pytrec_eval_on_all_trec8_runs_per_topic(trec8_pytrec):
    require_data(*trec8.FILES)
    from fireeval.core.trec import read_run
    from fireeval.datasets import data_path

    names = trec8.run_names()
    frames = {n: read_run(data_path(f"trec8_adhoc/runs/input.{n}.gz")) for n in names}
    qrels = trec8.load_qrels()
    _compare(RunSet.from_frames(frames), trec8_pytrec, qrels)


@pytest.mark.realdata
def test_map_matches_official_scores_for_every_run(trec8_runs):
    require_data(*trec8.FILES)
    runs = trec8_runs  # trec8.load_runs(), read once per session (tests/conftest.py)
    means = pd.Series({run: v["map"] for run, v in evaluate(trec8.load_qrels(), runs, "map", output="dict").items()})
    table = trec8.load_runs_table().set_index("run")
    diff = (means - table.loc[means.index, "official_map"]).abs()
    assert len(diff) == 129
    assert diff.max() <= 2e-4, diff.sort_values().tail()


@pytest.mark.realdata
def test_every_measure_matches_pytrec_eval_on_all_trec8_runs_per_topic(trec8_pytrec):
    """All 129 TREC-8 runs, every all_trec measure pytrec_eval computes, every topic, through the
    reader and engine of ``fireeval evaluate`` (score_run)."""
    from fireeval.core.evaluation import parse_measures
    from fireeval.core.stream import QrelsIndex, score_run
    from fireeval.core.trec import read_run_table
    from fireeval.datasets import data_path

    require_data(*trec8.FILES)
    qrels = QrelsIndex.read(data_path(trec8.QRELS))
    measures = parse_measures("all_trec")
    worst = {}
    for name in trec8.run_names():
        ours = score_run(read_run_table(data_path(f"trec8_adhoc/runs/input.{name}.gz")), qrels, measures)
        their_topics, theirs = trec8_pytrec[name]
        assert their_topics == list(ours.topics), name
        for m, values in ours.values.items():
            if m == "num_q":
                continue
            expected = theirs[m]
            if m.startswith("gm_"):
                expected, values = np.exp(expected), np.maximum(values, 1e-5)
            worst[m] = max(worst.get(m, 0.0), float(np.abs(values - expected).max()))
    assert len(worst) == 92
    assert max(worst.values()) <= 1e-9, sorted(worst.items(), key=lambda kv: -kv[1])[:5]
