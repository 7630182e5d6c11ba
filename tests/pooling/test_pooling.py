"""Pooling: depth, unique contributions, leave-outs -- hand-built cases, naive oracles, real TREC-8."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.pooling import pools as pooling
from fireeval import evaluate
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.synthetic.trec_collection import simulate_pooled_trec
from fireeval.core.trec import trec_order

from conftest import require_data


def per_topic(qrels, runs, measures, **options):
    """``{measure: runs x topics}`` through the public API (the slow, obviously right reference)."""
    scores = evaluate(qrels, runs, measures, per_topic=True, output="dict", **options)
    topics = [t for t in next(iter(scores.values())) if t != "all"]
    return {m: np.array([[scores[r][t][m] for t in topics] for r in runs.names]) for m in measures}


def frame(query, docs, scores=None):
    scores = np.arange(len(docs), 0, -1, dtype=float) if scores is None else np.asarray(scores, float)
    return pd.DataFrame({"query": query, "docno": docs, "score": scores})


# ---------------------------------------------------------------- hand-built cases
def test_document_enters_pool_at_its_shallowest_rank():
    runs = RunSet.from_frames({"A": frame("1", ["a", "b", "x"]), "B": frame("1", ["b", "c", "d"])})
    pool = pooling.build_pool(runs, depth=3)
    depth = pool.documents().set_index("docno")["min_depth"]
    assert depth["x"] == 3 and depth["b"] == 1  # b: rank 2 in A but rank 1 in B
    assert "x" not in set(pool.documents(2)["docno"])
    assert "x" in set(pool.documents(3)["docno"])
    qrels = Qrels.from_pairs(["1", "1"], ["x", "c"])
    assert pool.at_depth(qrels, 2).frame["docno"].tolist() == ["c"]
    assert sorted(pool.at_depth(qrels, 3).frame["docno"]) == ["c", "x"]


def test_ties_follow_trec_eval_order():
    # Equal scores: trec_eval ranks the larger docno first, whatever the file's order.
    runs = RunSet.from_frames({"A": frame("1", ["d1", "d2", "d0"], [1.0, 1.0, 0.5])})
    pool = pooling.build_pool(runs, depth=1)
    assert pool.documents()["docno"].tolist() == ["d2"]


def test_unpooled_runs_do_not_enter_the_pool():
    runs = RunSet.from_frames({"A": frame("1", ["a"]), "B": frame("1", ["b"])})
    pool = pooling.build_pool(runs, pooled=["A"], depth=5)
    assert pool.documents()["docno"].tolist() == ["a"]
    assert pool.unique_contributions()["n_contributed"].tolist() == [1, 0]


@pytest.fixture
def tiny():
    # Groups: G1 = {A1, A2}, G2 = {B1}. Topic 1 only.
    runs = RunSet.from_frames({
        "A1": frame("1", ["a", "s", "u"]),   # u: only A1; s: A1 and A2 (same group)
        "A2": frame("1", ["s", "v", "w"]),   # v, w: only A2
        "B1": frame("1", ["a", "b", "v"]),   # b: only B1; a: both groups; v shared with A2
    })
    groups = {"A1": "G1", "A2": "G1", "B1": "G2"}
    qrels = Qrels.from_pairs(["1"] * 6, ["a", "s", "u", "v", "w", "b"], [1, 1, 1, 0, 1, 1])
    return runs, groups, qrels, pooling.build_pool(runs, groups=groups, depth=3)


def test_unique_contributions_tiny(tiny):
    runs, groups, qrels, pool = tiny
    docs = pool.documents().set_index("docno")
    assert docs.loc["u", "sole_run"] == "A1" and pd.isna(docs.loc["s", "sole_run"])
    assert docs.loc["s", "sole_group"] == "G1" and pd.isna(docs.loc["a", "sole_group"])
    by_run = pool.unique_contributions(qrels, "run")
    assert by_run["n_unique"].tolist() == [1, 1, 1]          # u | w | b
    assert by_run["n_unique_relevant"].tolist() == [1, 1, 1]
    by_group = pool.unique_contributions(qrels, "group")
    assert by_group.loc["G1", "n_unique"] == 3               # s, u, w (v is shared with B1)
    assert by_group.loc["G2", "n_unique"] == 1               # b
    assert by_group.loc["G1", "n_unique_relevant"] == 3


def test_group_leave_out_tiny(tiny):
    runs, groups, qrels, pool = tiny
    assert sorted(pool.leave_out(qrels, group="G1").frame["docno"]) == ["a", "b", "v"]
    assert sorted(pool.leave_out(qrels, run="A1").frame["docno"]) == ["a", "b", "s", "v", "w"]
    # Hand-computed AP of A1 with G1 left out: a relevant at rank 1, n_relevant = 2 (a, b).
    scores = pooling.leave_out_scores(pool, qrels, "group", ["map"]).values["map"]
    assert scores[0, 0] == pytest.approx(0.5)
    # B1 with G2 left out: b is gone; relevant left are a, s, u, w; B1 finds only a, at rank 1.
    assert scores[2, 0] == pytest.approx(1 / 4)


@pytest.mark.parametrize("by", ["run", "group"])
def test_vectorised_leave_out_equals_loop(by):
    frames, qrels_frame, table, _ = simulate_pooled_trec(n_topics=5, n_groups=4, n_docs=300, depth=50, seed=3)
    runs, qrels = RunSet.from_frames(frames), Qrels(qrels_frame)
    pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=20)
    fast = pooling.leave_out_scores(pool, qrels, by, ["map", "P_10", "ndcg"])
    for r, name in enumerate(runs.names):
        unit = {"run": name} if by == "run" else {"group": table.set_index("run").loc[name, "group"]}
        slow = per_topic(pool.leave_out(qrels, **unit), runs.select([name]), ["map", "P_10", "ndcg"], complete=True)
        for measure in ("map", "P_10", "ndcg"):
            np.testing.assert_allclose(fast.values[measure][r], slow[measure][0], atol=1e-12)


def test_depth_sweep_equals_rescoring_with_depth_qrels():
    frames, qrels_frame, table, _ = simulate_pooled_trec(n_topics=6, n_groups=3, n_docs=300, depth=60, seed=1)
    runs, qrels = RunSet.from_frames(frames), Qrels(qrels_frame)
    pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=20)
    depths = [1, 3, 20]
    sweep = pooling.depth_sweep(pool, qrels, depths, ["map", "P_10", "ndcg"])
    for i, k in enumerate(depths):
        slow = per_topic(pool.at_depth(qrels, k), runs, ["map", "P_10", "ndcg"], complete=True)
        for measure in ("map", "P_10", "ndcg"):
            np.testing.assert_allclose(sweep.values[measure][i], slow[measure], atol=1e-12)
    full = per_topic(qrels, runs, ["map"])
    np.testing.assert_allclose(sweep.reference["map"], full["map"])
    assert list(sweep.mean("map").columns) == [1, 3, 20, "original"]



def test_depth_sweep_incomplete_measures_on_the_shared_lookup_equal_rescoring_with_depth_qrels():
    """bpref, infAP and the condensed lists read the judged cells from the lookup the gains came from (one per
    pool and qrels, issue 38): the same values as scoring each depth's qrels from scratch."""
    from fireeval.pooling.incomplete import incomplete_scores

    frames, qrels_frame, table, _ = simulate_pooled_trec(n_topics=6, n_groups=3, n_docs=300, depth=60, seed=2)
    runs, qrels = RunSet.from_frames(frames), Qrels(qrels_frame)
    pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=20)
    names = ["bpref", "infAP", "map_judged", "ndcg_judged"]
    pooling.depth_sweep(pool, qrels, [2], ["map"])  # the lookup made here is reused below
    looked_up = pooling._judged_cells(pool, qrels)
    sweep = pooling.depth_sweep(pool, qrels, [1, 5, 20], names)
    assert pooling._judged_cells(pool, qrels) is looked_up
    for i, k in enumerate([1, 5, 20]):
        slow = incomplete_scores(runs, pool.at_depth(qrels, k), names, topics=qrels.topics)
        for m in names:
            np.testing.assert_allclose(sweep.values[m][i], slow[m], atol=1e-12, err_msg=f"{m} at depth {k}")
    np.testing.assert_array_equal(looked_up, runs.judged(qrels)[:, pd.Index(runs.topics).get_indexer(qrels.topics)])

def test_depth_sweep_and_leave_outs_honour_the_relevance_level():
    # Graded qrels with relevance_level=2 (trec_eval -l 2): the fast paths must count only grades >= 2.
    frames, qrels_frame, table, _ = simulate_pooled_trec(n_topics=5, n_groups=3, n_docs=300, depth=60, seed=3)
    rng = np.random.default_rng(0)
    graded = qrels_frame.assign(relevance=np.where(qrels_frame["relevance"] > 0, rng.integers(1, 3, len(qrels_frame)), 0))
    runs, qrels = RunSet.from_frames(frames), Qrels(graded, relevance_level=2)
    pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=20)
    sweep = pooling.depth_sweep(pool, qrels, [2, 20], ["map", "P_10"])
    for i, k in enumerate([2, 20]):
        slow = per_topic(pool.at_depth(qrels, k), runs, ["map", "P_10"], complete=True)
        for measure in ("map", "P_10"):
            np.testing.assert_allclose(sweep.values[measure][i], slow[measure], atol=1e-12)
    fast = pooling.leave_out_scores(pool, qrels, by="run", measures=["map", "P_10"])
    name = list(runs.names)[0]
    slow = per_topic(pool.leave_out(qrels, run=name), runs.select([name]), ["map", "P_10"], complete=True)
    for measure in ("map", "P_10"):
        np.testing.assert_allclose(fast.values[measure][0], slow[measure][0], atol=1e-12)


def naive_pool(frames, pooled, k):
    """The pool by definition: union of each pooled run's top k in trec_eval order."""
    tops = [trec_order(frames[name]) for name in pooled]
    return {(q, d) for f in tops for q, d, r in zip(f["query"], f["docno"], f["rank"]) if r <= k}


def test_synthetic_pool_matches_its_independent_construction():
    frames, qrels_frame, table, _ = simulate_pooled_trec(seed=2, n_topics=5, n_docs=400, depth=60, pool_depth=15)
    runs, qrels = RunSet.from_frames(frames), Qrels(qrels_frame)
    pool = pooling.build_pool(runs, table["pooled"].to_numpy(), table, depth=15)
    assert pool.compare_with_qrels(qrels)["equal"]
    pooled = table.loc[table["pooled"], "run"]
    for k in (1, 4, 15):
        docs = pool.documents(k)
        assert set(zip(docs["query"], docs["docno"])) == naive_pool(frames, pooled, k)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_pool_properties(data):
    n_runs = data.draw(st.integers(1, 4))
    frames, groups = {}, {}
    for r in range(n_runs):
        docs = data.draw(st.lists(st.sampled_from(list("abcdefgh")), min_size=1, max_size=6, unique=True))
        scores = data.draw(st.lists(st.integers(0, 3), min_size=len(docs), max_size=len(docs)))  # many ties
        frames[f"r{r}"] = frame("1", docs, scores)
        groups[f"r{r}"] = f"g{r % 2}"
    runs = RunSet.from_frames(frames)
    pool = pooling.build_pool(runs, groups=groups, depth=4)
    previous = set()
    for k in range(1, 5):
        got = set(zip(*pool.documents(k)[["query", "docno"]].to_numpy().T))
        assert got == naive_pool(frames, list(frames), k)
        assert previous <= got  # pools only grow with depth
        previous = got
    # Unique contributions: a document is some run's alone iff exactly one run has it in its top 4.
    docs = pool.documents()
    top4 = {name: set(trec_order(f).query("rank <= 4")["docno"]) for name, f in frames.items()}  # once per run
    holders = {d: {name for name in frames if d in top4[name]} for d in docs["docno"]}
    for d, sole in zip(docs["docno"], docs["sole_run"]):
        if len(holders[d]) == 1:
            assert sole == next(iter(holders[d]))
        else:
            assert pd.isna(sole)


# ---------------------------------------------------------------- errors
def test_run_missing_from_group_table():
    runs = RunSet.from_frames({"A": frame("1", ["a"]), "B": frame("1", ["b"])})
    with pytest.raises(ValueError, match=r"1 run\(s\) have no group in the run table: 'B'"):
        pooling.build_pool(runs, groups=pd.DataFrame({"run": ["A"], "group": ["g"]}))


def test_empty_run_is_an_error():
    with pytest.raises(ValueError, match="run 'B' is empty"):
        RunSet.from_frames({"A": frame("1", ["a"]), "B": frame("1", [])})
    runs = RunSet.from_frames({"A": frame("1", ["a"]), "B": frame("1", ["b"])})
    hollow = RunSet(runs.names, runs.topics, runs.docnos, np.where(np.arange(2)[:, None, None] == 1, -1, runs.docs))
    with pytest.raises(ValueError, match=r"\['B'\] retrieve no document"):
        pooling.build_pool(hollow)


def test_qrels_topic_absent_from_every_run():
    runs = RunSet.from_frames({"A": frame("1", ["a"])})
    pool = pooling.build_pool(runs)
    qrels = Qrels.from_pairs(["1", "7"], ["a", "z"])
    for call in (lambda: pool.at_depth(qrels, 1), lambda: pooling.depth_sweep(pool, qrels, [1]),
                 lambda: pooling.leave_out_scores(pool, qrels), lambda: pool.leave_out(qrels, run="A")):
        with pytest.raises(ValueError, match=r"1 qrels topic\(s\) appear in no run: 7"):
            call()


def test_bad_depth_and_unknown_pooled_run():
    runs = RunSet.from_frames({"A": frame("1", ["a"])})
    with pytest.raises(ValueError, match="outside 1..5"):
        pooling.build_pool(runs, depth=5).documents(6)
    with pytest.raises(ValueError, match="not in the run set"):
        pooling.build_pool(runs, pooled=["Z"])


# ---------------------------------------------------------------- real data
TREC8_QRELS = "trec8_adhoc/qrels.trec8.adhoc.txt.gz"


@pytest.mark.realdata
def test_trec8_pool_reconstructs_judged_set():
    from fireeval.datasets import trec8

    require_data(*trec8.FILES)
    table = trec8.load_runs_table()
    pooled = table.loc[table["pooled"], "run"].tolist()
    assert len(pooled) == 71
    runs = trec8.load_runs(pooled, depth=100)
    qrels = trec8.load_qrels()
    match = pooling.build_pool(runs, groups=table, depth=100).compare_with_qrels(qrels)
    assert match == {"n_pool": 86830, "n_judged": 86830, "n_judged_not_pooled": 0, "n_pooled_not_judged": 0,
                     "equal": True}


def test_judged_share_and_unique_relevant_share(tiny):
    runs, groups, qrels, pool = tiny
    # Only v, a, b, s, u, w are judged; every document retrieved here is judged.
    np.testing.assert_allclose(pool.judged_share(qrels, 3), 1.0)
    # Leaving each run's group out: A1 loses s, u (G1 alone) -> 1/3 judged; B1 loses b -> 2/3.
    shares = pool.judged_share(qrels, [1, 3], leave_out="group")
    np.testing.assert_allclose(shares[:, :, 0], [[1, 0, 1], [1 / 3, 1 / 3, 2 / 3]])
    # A1 retrieves relevant a, s, u; s and u are G1's alone.
    np.testing.assert_allclose(pool.unique_relevant_share(qrels, "group"), [2 / 3, 1, 1 / 2])  # A2: s, w


def test_relevant_found_share(tiny):
    runs, groups, qrels, pool = tiny
    # Relevant cells: A1 a s u, A2 s w, B1 a b (7). The depth-1 pool is {a, s}: 4 of them.
    assert pool.relevant_found_share(qrels, 1) == pytest.approx(4 / 7)
    assert pool.relevant_found_share(qrels, 1, within=1) == 1.0  # rank 1: A1 a, A2 s, B1 a
    assert pool.relevant_found_share(qrels, 3) == 1.0
    with pytest.raises(ValueError, match="outside 1..3"):
        pool.relevant_found_share(qrels, 4)


def test_contributors_all_counts_unpooled_runs_as_owners():
    # NIST's convention (annotated qrels, gloo files): an unpooled run that retrieved a
    # pool document within the depth also "has" it, so it is no longer unique to G1.
    runs = RunSet.from_frames({"A": frame("1", ["x", "y"]), "B": frame("1", ["x", "z"])})
    groups = {"A": "G1", "B": "G2"}
    strict = pooling.build_pool(runs, pooled=["A"], groups=groups, depth=2)
    nist = pooling.build_pool(runs, pooled=["A"], groups=groups, depth=2, contributors="all")
    assert strict.documents()["docno"].tolist() == nist.documents()["docno"].tolist()  # same pool
    assert strict.unique_contributions(by="group")["n_unique"].tolist() == [2, 0]  # x, y
    assert nist.unique_contributions(by="group")["n_unique"].tolist() == [1, 0]  # y only
    with pytest.raises(ValueError, match="build_pool: contributors='some' is not one of the accepted values. "
                                         "Fix: use one of 'pooled', 'all'"):
        pooling.build_pool(runs, contributors="some")


# ---------------------------------------------------------------- notebook helpers
def test_sweep_tau_first_depth_and_table():
    from scipy import stats
    rng = np.random.default_rng(4)
    reference = {"map": rng.random((6, 4)), "P_10": rng.random((6, 4))}
    # depth 1: noise; depth 2: the reference itself (tau = 1)
    values = {m: np.stack([rng.random((6, 4)), r]) for m, r in reference.items()}
    sweep = pooling.DepthSweep(np.array([1, 2]), list("ABCDEF"), np.array(list("1234")), values, reference)
    tau = sweep.tau("map")
    assert tau.index.tolist() == [1, 2] and tau[2] == pytest.approx(1.0)
    assert tau[1] == pytest.approx(stats.kendalltau(values["map"][0].mean(-1), reference["map"].mean(-1)).statistic)
    assert sweep.first_depth_above("map", level=0.99) == 2 and sweep.first_depth_above("map", level=1.0) is None
    table = sweep.tau_table(["map", "P_10"], at=(1, 3))
    assert list(table.columns) == ["smallest K with τ > 0.90", "τ at K = 1"]  # K = 3 was not swept
    assert table.loc["P_10", "τ at K = 1"] == pytest.approx(sweep.tau("P_10")[1])


def test_sweep_depths():
    assert pooling.sweep_depths(3, 100) == [1, 2, 3, 100]
    assert pooling.sweep_depths(5, 5) == [1, 2, 3, 4, 5]


def test_compare_leave_outs_tiny(tiny):
    runs, groups, qrels, pool = tiny
    out = pooling.compare_leave_outs(pool, qrels, "map", run_type=["manual", "automatic", "automatic"])
    t = out.table
    # Hand-computed AP, 5 relevant (a s u w b): A1 a s u at 1-3; A2 s at 1, w at 3; B1 a, b at 1-2.
    np.testing.assert_allclose(t["original"], [3 / 5, (1 + 2 / 3) / 5, 2 / 5])
    # Run out: A1 loses u, A2 loses w, B1 loses b (4 relevant left each).
    np.testing.assert_allclose(t["run left out"], [2 / 4, 1 / 4, 1 / 4])
    # Group out: G1 loses s u w (a, b left), G2 loses b (4 left).
    np.testing.assert_allclose(t["group left out"], [1 / 2, 0.0, 1 / 4])
    np.testing.assert_allclose(t["drop (group)"], t["original"] - t["group left out"])
    assert t["group"].tolist() == ["G1", "G1", "G2"] and t["type"].tolist()[0] == "manual"
    assert out.original.shape == out.group_out.shape == (3, 1)
    assert out.tau("group left out") == pytest.approx(1.0)
    assert out.places_lost().tolist() == [0, 0, 0] and out.n_gain() == 0
    assert pooling.losers_sentence(t, n=1).startswith("0 of the 1 largest group drops are manual runs (only 1 of the 3")
    assert pooling.losers_sentence(t.assign(type="x"), fallback="none") == "none"
    assert pooling.gain_sentence(2).startswith("2 runs gain") and pooling.gain_sentence(1).startswith("1 run gain")
    risk = pooling.leave_out_risk(pool, qrels, t, ks=(1, 3))
    assert {"unique relevant share", "judged@1", "judged@3", "relative drop"} <= set(risk.columns)
    assert risk.loc["A1", "unique relevant share"] == pytest.approx(2 / 3)  # s, u of a, s, u
    assert risk.loc["A2", "judged@3"] == pytest.approx(1 / 3)  # s, w are G1's own; v stays judged
    np.testing.assert_allclose(risk["relative drop"], t["drop (group)"] / t["original"])


def test_places_lost_and_gains():
    table = pd.DataFrame({"original": [0.5, 0.4, 0.3], "group left out": [0.2, 0.4, 0.35]},
                         index=pd.Index(["A", "B", "C"], name="run"))
    table["drop (group)"] = table["original"] - table["group left out"]
    out = pooling.LeaveOutComparison(None, None, None, table)
    assert out.places_lost().tolist() == [2, -1, -1]  # A falls from 1st to 3rd
    assert out.n_gain() == 1  # C rose


def test_reer_claim_is_one_stand_in_record_whose_here_row_covers_topic_sampling():
    from fireeval.book.chapters import pool_leave_out as verdicts
    from fireeval.stats.claims import check_record
    # Point 0.03 contradicts "<= 0.02", but a bootstrap interval reaching 0.02 leaves it inconclusive.
    samples = np.column_stack([np.repeat([0.06, 0.07, 0.08], [5, 10, 5]), np.repeat([0.02, 0.03, 0.04], [5, 10, 5])])
    record = verdicts.reer_claim(0.07, 0.03, 25, 1000, "real: TREC-8", samples=samples, boot_trials=200)
    check_record(record)
    assert record["id"] == "reer" and record["standing"] == "stand-in" and record["verdict"] == "not testable here"
    assert "not the 0.02" in record["notes"]  # what transfers is said
    conv = record["conventions"]
    assert conv["cumulative"]["verdict"] == "not reproduced" and conv["cumulative"]["basis"].startswith("inconclusive")
    assert conv["per-bin"]["basis"].startswith("contradicted")
    assert "bootstrap over topics" in conv["cumulative"]["method"]
    assert {a["kind"] for a in record["sensitivity"]} == {"interval method"}
    # the two rates are readings of equal standing: contradicted per bin, inconclusive cumulative -> inconclusive
    assert record["here"][0]["label"] == "inconclusive"
    bare = verdicts.reer_claim(0.07, 0.03, 25, 1000, "real: TREC-8")
    assert "not covered" in bare["conventions"]["cumulative"]["method"]
    assert "25 TRECVID topics" not in record["short"]  # the paper ties 0.02 to TRECVID 2003/04, not to 25 topics


def test_reer_control_has_the_known_threshold_and_passes():
    from fireeval.book.chapters import pool_leave_out as verdicts
    rng = np.random.default_rng(0)
    scores = np.clip(rng.uniform(0.1, 0.4, (12, 1)) + rng.normal(0, 0.15, (12, 40)), 0, 1)
    bins = np.append(np.round(np.arange(0, 0.2 + 0.005, 0.01), 10), np.inf)
    control, what = verdicts.reer_control(scores, 20, 300, bins)
    assert "normal model" in what and control.value <= 0.02
    record = verdicts.reer_claim(0.07, 0.03, 20, 300, "real: x", control=control, control_what=what)
    assert record["power"]["passes"] is True
