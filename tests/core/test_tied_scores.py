"""Similarity matrices that are not a full ranking (issue 34): the tied-fill check, its warnings in the
loaders and ``evaluate-similarity``, and ranking numbers as bounds over tie rules."""
import itertools
import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.cli import main
from fireeval.core import tied_scores as ts
from fireeval.t2v import false_negatives as fire
from fireeval.t2v import retrieval, semantic_evaluation as se
from tests.conftest import require_data

ALL = ("R@1", "R@5", "R@10", "C@3", "MdR", "MnR", "AP@20", "nDCG", "nDCG_exp")


def _top_n_cut(n_queries, n_videos, n, fill=0.0, seed=0, dtype=np.float64):
    """Continuous scores in (0.1, 1) for each row's top ``n`` random videos, ``fill`` (one value per row) elsewhere."""
    rng = np.random.default_rng(seed)
    sim = np.empty((n_queries, n_videos), dtype=dtype)
    sim[:] = np.broadcast_to(np.asarray(fill, dtype=dtype).reshape(-1, 1), (n_queries, 1))
    keep = np.argsort(rng.random((n_queries, n_videos)), axis=1)[:, :n]
    np.put_along_axis(sim, keep, (0.1 + 0.9 * rng.random((n_queries, n))).astype(dtype), axis=1)
    return sim, keep


# --------------------------------------------------------------------------- the check
def test_a_top_n_cut_is_flagged_with_its_depth_and_the_positives_in_the_fill():
    sim, keep = _top_n_cut(200, 300, 40)
    positives = np.eye(200, 300, dtype=bool)
    report = ts.tied_fill(sim, positives)
    assert report.flagged and report.share_flagged_rows == 1
    assert (report.depth == 40).all() and (report.n_fill == 260).all() and (report.fill == 0).all()
    ranked = (keep == np.arange(200)[:, None]).any(axis=1)  # own video among the kept top 40
    np.testing.assert_array_equal(report.relevant_in_fill, ~ranked)
    np.testing.assert_array_equal(report.relevant_ranked, ranked)
    assert report.queries_relevant_in_fill == int((~ranked).sum()) > 0
    summary = report.summary()
    assert summary["ranked_depth_median"] == 40 and summary["ranked_depth_min"] == 40
    message = report.message("toy")
    assert "\n" not in message and message.startswith("toy: not a full ranking")
    assert "depth median 40, min 40" in message and f"{int((~ranked).sum())} queries have their relevant" in message


def test_ties_at_a_denormal_fill_are_found_as_at_zero():
    """InternVideo2's kind: float32, the fill a different denormal in different rows (and -0.0 equals 0.0)."""
    tiny = np.float32(1e-45)  # the smallest float32 denormal
    fills = np.array([0.0, tiny, 2 * tiny, 6 * tiny, -0.0] * 20, dtype=np.float32)
    sim, _ = _top_n_cut(100, 200, 25, fill=fills, dtype=np.float32)
    assert sim.dtype == np.float32 and (sim[1][sim[1] < 0.1] == tiny).all() and tiny > 0
    report = ts.tied_fill(sim)
    assert report.flagged and (report.depth == 25).all() and (report.n_fill == 175).all()
    np.testing.assert_array_equal(report.fill[:5], fills[:5])
    assert report.fill_values().size == 4  # -0.0 and 0.0 are one value


def test_a_full_continuous_matrix_is_not_flagged():
    sim = np.random.default_rng(1).normal(size=(300, 1000)).astype(np.float32)
    report = ts.tied_fill(sim, np.eye(300, 1000, dtype=bool))
    assert not report.flagged and not report.has_block.any()
    assert (report.depth == 1000).all() and report.queries_relevant_in_fill == 0


def test_a_full_matrix_with_a_few_ties_is_not_flagged():
    rng = np.random.default_rng(2)
    sim = rng.random((200, 400))
    sim[:, 1] = sim[:, 0]                # every row: one accidental pair
    sim[:15, 10:19] = sim[:15, [9]]      # 15 rows: ten equal values (2.5% of the row, under 5%)
    sim[15:30, 20:40] = 0.0              # 15 rows (7.5%, under 10%) with a real block of 20 (5%)
    report = ts.tied_fill(sim)
    assert report.has_block.sum() == 15 and report.has_block[15:30].all()
    assert not report.flagged
    sim[30:40, 20:40] = 0.0               # 25 rows of 200 (12.5%): now flagged
    assert ts.tied_fill(sim).flagged
    assert ts.tied_fill(sim, matrix_share=0.2).flagged is False


def test_small_matrices_follow_the_same_rule():
    assert not ts.tied_fill([[0.3, 0.3, 0.1, 0.2]]).flagged           # a pair of 4: < min_tied
    assert ts.tied_fill([[0.9, 0.0, 0.0, 0.0]]).flagged               # three zeros of 4
    assert ts.tied_fill(np.zeros((3, 5))).depth.tolist() == [0, 0, 0]  # nothing is ranked at all
    with pytest.raises(ValueError, match="matrix"):
        ts.tied_fill([1.0, 2.0])


# --------------------------------------------------------------------------- bounds over tie rules
def test_hand_worked_ranks_under_the_three_rules():
    # scores of one query over 6 videos; the relevant video 4 ties at 0.5 with videos 1, 3 and 5; video 0 is above.
    s = [[0.9, 0.5, 0.2, 0.5, 0.5, 0.5]]
    rel = [[0, 0, 0, 0, 1, 0]]
    # stable: 0, 1, 3, 4 -> rank 4; relevant first: 0, 4 -> rank 2; relevant last: 0, 1, 3, 5, 4 -> rank 5
    got = {rule: retrieval.scores_under_tie_rule(s, rel, rule, ["MnR", "R@2", "R@4"]) for rule in ts.TIE_RULES}
    assert [int(got[r]["MnR"][0]) for r in ts.TIE_RULES] == [2, 4, 5]
    assert [float(got[r]["R@2"][0]) for r in ts.TIE_RULES] == [1.0, 0.0, 0.0]
    assert [float(got[r]["R@4"][0]) for r in ts.TIE_RULES] == [1.0, 1.0, 0.0]
    bounds = retrieval.tie_bounds(s, rel, ["MnR", "R@2"])
    assert bounds["MnR"] == {"low": 2.0, "stable": 4.0, "high": 5.0, "relevant first": 2.0, "relevant last": 5.0}
    assert (bounds["R@2"]["low"], bounds["R@2"]["high"]) == (0.0, 1.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n),
                                                      min_size=n, max_size=n)))
def test_positive_ranks_agree_with_fires_three_rules(matrix):
    """An independent implementation: false_negatives.original_rank_under_ties counts, without sorting."""
    sim = np.asarray(matrix, dtype=float)
    n = len(sim)
    reference = fire.original_rank_under_ties(sim)
    names = {"relevant first": "positive first", "stable": "stable", "relevant last": "positive last"}
    for rule, theirs in names.items():
        ours = retrieval.scores_under_tie_rule(sim, np.eye(n, dtype=bool), rule, ["MnR"])["MnR"]
        np.testing.assert_array_equal(ours, reference[theirs])


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.0, 0.3, 0.6, 1.0]), min_size=n, max_size=n))))
def test_the_rules_give_the_extremes_over_every_tie_order(row):
    """Brute force: every order of the ties of one row; monotone measures reach their min and max at the rules."""
    scores, grades = (np.asarray(x, dtype=float)[None, :] for x in row)
    if not (grades > 0).any():
        grades[0, -1] = 1.0
    bounds = retrieval.tie_bounds(scores, grades, ["R@1", "R@2", "MnR", "nDCG", "nDCG_exp"])
    seen = {m: [] for m in bounds}
    for perm in itertools.permutations(range(scores.shape[1])):
        order = np.asarray(perm)
        if np.any(np.diff(scores[0, order]) > 0):  # not a ranking by score: skip
            continue
        tie_break = np.empty_like(scores)        # scores that rank exactly as ``order``
        tie_break[0, order] = np.arange(len(order))[::-1]
        for m in seen:
            seen[m].append(float(retrieval.scores_under_tie_rule(tie_break, grades, "stable", [m])[m].mean()))
    for m, values in seen.items():
        assert bounds[m]["low"] == pytest.approx(min(values)) and bounds[m]["high"] == pytest.approx(max(values)), m
        assert bounds[m]["low"] <= bounds[m]["stable"] <= bounds[m]["high"]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(1, 30))
def test_bounds_are_ordered_and_stable_is_todays_rule(seed, n):
    sim, _ = _top_n_cut(30, 40, n, seed=seed)
    rng = np.random.default_rng(seed)
    grades = np.where(rng.random(sim.shape) < 0.3, rng.random(sim.shape), 0.0)
    grades[np.arange(30), np.arange(30)] = 1.0
    bounds = retrieval.tie_bounds(sim, grades, ALL)
    for m, b in bounds.items():
        assert b["low"] <= b["stable"] <= b["high"], m
        assert {b["low"], b["high"]} <= {b["relevant first"], b["stable"], b["relevant last"]}
    positives = grades > 0
    table = retrieval.recall_table({"m": sim}, positives, ks=(1, 5, 10))["m"]
    for m in ("R@1", "R@5", "R@10", "MdR", "MnR"):
        assert bounds[m]["stable"] == pytest.approx(table[m]), m
    assert bounds["nDCG"]["stable"] == pytest.approx(se.proxy_ndcg(sim, grades).mean())
    ap = fire.per_query_scores(fire.ranked_lists(sim, depth=20), positives, ks=(1,), ap_depth=20)["AP@20"]
    assert bounds["AP@20"]["stable"] == pytest.approx(ap.mean())
    for m in ("R@1", "R@5", "MnR", "nDCG"):  # better is higher, except for ranks
        best, worst = ("low", "high") if m == "MnR" else ("high", "low")
        assert bounds[m][best] == bounds[m]["relevant first"] and bounds[m][worst] == bounds[m]["relevant last"]


def test_a_full_matrix_has_one_value_per_measure():
    rng = np.random.default_rng(3)
    sim = rng.normal(size=(50, 80))
    grades = np.where(rng.random(sim.shape) < 0.2, rng.random(sim.shape), 0.0)
    grades[np.arange(50), np.arange(50)] = 1.0
    for m, b in retrieval.tie_bounds(sim, grades, ALL).items():
        assert b["low"] == b["stable"] == b["high"], m


def test_a_cut_moves_the_numbers_that_reach_into_the_fill():
    sim, keep = _top_n_cut(100, 200, 5, seed=4)
    positives = np.eye(100, 200, dtype=bool)
    b = retrieval.tie_bounds(sim, positives, ["R@5", "R@10", "MnR"])
    assert b["R@5"]["low"] == b["R@5"]["high"]     # the top 5 are all ranked
    assert b["R@10"]["low"] < b["R@10"]["high"]    # ranks 6-10 come from the fill
    assert b["MnR"]["high"] - b["MnR"]["low"] > 50


def test_unknown_measures_and_rules_are_refused():
    with pytest.raises(ValueError, match="unknown ranking measure 'P@5'"):
        retrieval.tie_bounds([[1.0, 0.0]], [[1, 0]], ["P@5"])
    with pytest.raises(ValueError, match="tie rule must be one of"):
        ts.order_under_tie_rule([[1.0]], [[1]], "random")


def test_ndcg_table_gives_the_range_over_tie_rules():
    sim, _ = _top_n_cut(40, 60, 5, seed=5)
    rng = np.random.default_rng(5)
    rel = {"bow": np.where(rng.random(sim.shape) < 0.4, rng.random(sim.shape), 0.0)}
    full = rng.random(sim.shape)
    table = se.ndcg_table({"cut": sim, "full": full}, rel, tie_bounds=True).set_index(["run", "gain"])
    plain = se.ndcg_table({"cut": sim, "full": full}, rel).set_index(["run", "gain"])
    np.testing.assert_allclose(table["nDCG"], plain["nDCG"])
    cut = table.loc[("cut", "linear")]
    bounds = retrieval.tie_bounds(sim, rel["bow"], ["nDCG"])["nDCG"]
    assert cut["low"] == pytest.approx(100 * bounds["low"]) and cut["high"] == pytest.approx(100 * bounds["high"])
    assert cut["low"] < cut["nDCG"] <= cut["high"]
    assert (table.loc["full", "low"] == table.loc["full", "nDCG"]).all()


# --------------------------------------------------------------------------- loaders and the command
def _ids(tmp_path, n_q, n_v):
    q, v = tmp_path / "q.txt", tmp_path / "v.txt"
    q.write_text("".join(f"v{i}\n" for i in range(n_q)))
    v.write_text("".join(f"v{j}\n" for j in range(n_v)))
    return q, v


def test_evaluate_similarity_warns_once_and_prints_ranges(tmp_path, capsys):
    sim, _ = _top_n_cut(60, 80, 4, seed=6, dtype=np.float32)
    np.save(tmp_path / "cut.npy", sim)
    np.save(tmp_path / "full.npy", np.random.default_rng(6).random((60, 80)).astype(np.float32))
    q, v = _ids(tmp_path, 60, 80)
    args = ["evaluate-similarity", str(tmp_path / "cut.npy"), str(tmp_path / "full.npy"), "--queries", str(q),
            "--videos", str(v)]
    assert main(args) == 0
    out = capsys.readouterr()
    err = out.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"warning: cut ({tmp_path / 'cut.npy'}): not a full ranking"), err
    assert "depth median 4, min 4" in err[0] and "full" not in err[0].split("): ")[0]
    bounds = retrieval.tie_bounds(sim, np.eye(60, 80, dtype=bool), ["R@10", "MnR"])
    line = next(x for x in out.out.splitlines() if x.startswith("cut  ") and "[" in x)
    assert (f"R@10 {bounds['R@10']['stable']:.4f} [{bounds['R@10']['low']:.4f}, {bounds['R@10']['high']:.4f}]"
            in line)
    assert f"MnR {bounds['MnR']['stable']:.1f} [{bounds['MnR']['low']:.1f}, {bounds['MnR']['high']:.1f}]" in line
    assert not any(x.startswith("full  ") and "[" in x for x in out.out.splitlines())
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ties"]["cut"]["flagged"] and not result["ties"]["full"]["flagged"]
    assert set(result["tie_bounds"]) == {"cut"}
    assert result["tie_bounds"]["cut"]["original"]["MnR"] == pytest.approx(bounds["MnR"])
    labels = tmp_path / "labels.tsv"
    labels.write_text("v0\tv1\t1\nv2\tv3\t1\n")
    assert main([*args, "--labels", str(labels)]) == 0
    text = capsys.readouterr().out
    assert "[low, high over tie rules: original; corrected]" in text
    assert sum(1 for x in text.splitlines() if x.startswith("cut ") and "C@5" in x and ";" in x) == 1


def test_an_input_error_stays_the_only_line_for_a_flagged_matrix(tmp_path, capsys):
    np.save(tmp_path / "m.npy", np.zeros((6, 8)))
    q, v = _ids(tmp_path, 6, 8)
    (tmp_path / "gt.tsv").write_text("v0\tv99\n")
    assert main(["evaluate-similarity", str(tmp_path / "m.npy"), "--queries", str(q), "--videos", str(v),
                 "--gt", str(tmp_path / "gt.tsv")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'v99' is not in the video list" in err


def test_a_readers_matrix_gets_the_same_check(tmp_path):
    from fireeval.book.inputs.video_inputs import read_reader_similarity

    ids = [f"v{i}" for i in range(50)]
    sim, _ = _top_n_cut(50, 50, 10, seed=7)
    np.save(tmp_path / "mine.npy", sim)
    (tmp_path / "mine.queries.txt").write_text("\n".join(ids) + "\n")
    (tmp_path / "mine.videos.txt").write_text("\n".join(ids) + "\n")
    np.save(tmp_path / "full.npy", np.random.default_rng(7).random((50, 50)))
    (tmp_path / "full.queries.txt").write_text("\n".join(ids) + "\n")
    (tmp_path / "full.videos.txt").write_text("\n".join(ids) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs, _ = read_reader_similarity({"mine": tmp_path / "mine.npy", "full": tmp_path / "full.npy"}, ids, ids)
    tied = [w for w in caught if issubclass(w.category, ts.TiedFillWarning)]
    assert len(tied) == 1 and str(tied[0].message).startswith("similarity['mine']: not a full ranking")
    assert tied[0].filename == str(tmp_path / "mine.npy") and "depth median 10, min 10" in str(tied[0].message)
    np.testing.assert_array_equal(runs["mine"], sim)


def test_the_msrvtt_loader_warns_for_internvideo2_only():
    from fireeval.datasets import msrvtt

    require_data(msrvtt.MODELS["InternVideo2"], msrvtt.MODELS["clip4clip"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        internvideo = msrvtt.load_similarity("InternVideo2")
        msrvtt.load_similarity("clip4clip")
    tied = [str(w.message) for w in caught if issubclass(w.category, ts.TiedFillWarning)]
    assert len(tied) == 1 and tied[0].startswith("MSR-VTT run InternVideo2: not a full ranking"), tied
    assert [w.filename for w in caught if issubclass(w.category, ts.TiedFillWarning)] == [msrvtt.MODELS["InternVideo2"]]
    assert "depth median 128, min 128" in tied[0] and "25 queries have their relevant item" in tied[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ts.TiedFillWarning)
        msrvtt.load_similarity("InternVideo2", check_ties=False)
    b = retrieval.tie_bounds(internvideo, np.eye(1000, dtype=bool), ["R@1", "MnR"])
    assert b["R@1"]["stable"] == pytest.approx(0.546) and b["R@1"]["low"] == pytest.approx(0.545)
    assert b["MnR"]["high"] - b["MnR"]["low"] > 10


def test_the_video_inputs_bundle_names_the_flagged_runs():
    from fireeval.book.inputs.video_inputs import semantic_similarity_msrvtt
    from fireeval.datasets import msrvtt

    require_data(msrvtt.QUERIES, msrvtt.CAPTIONS["test"], msrvtt.MODELS["InternVideo2"], msrvtt.MODELS["clip4clip"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ts.TiedFillWarning)
        bundle = semantic_similarity_msrvtt("real", runs=("clip4clip", "InternVideo2"), n_videos=200)
    assert bundle.flagged_runs() == ["InternVideo2"]
    assert bundle.ties["InternVideo2"].n_rows == 200 and not bundle.ties["clip4clip"].has_block.any()


def test_instance_metrics_and_gmr_bounds_under_tie_rules():
    sim, _ = _top_n_cut(80, 80, 6, seed=8)
    reference = fire.original_rank_under_ties(sim)
    for rule, theirs in (("relevant first", "positive first"), ("stable", "stable"), ("relevant last", "positive last")):
        np.testing.assert_array_equal(se.positive_rank(sim, tie_rule=rule) + 1, reference[theirs])
    table = se.instance_table({"cut": sim, "full": np.random.default_rng(8).random((80, 80))}, tie_bounds=True)
    for column in ("R@1", "R@5", "R@10", "GMR"):
        assert (table[f"{column} low"] <= table[column]).all() and (table[column] <= table[f"{column} high"]).all()
        assert table.loc["full", f"{column} low"] == table.loc["full", f"{column} high"] == table.loc["full", column]
    assert table.loc["cut", "R@10 low"] < table.loc["cut", "R@10 high"]
    equivalent = np.random.default_rng(9).random((80, 80)) < 0.05
    ranks = {rule: se.gmr_bound_ranks(sim, equivalent, rule) for rule in ts.TIE_RULES}
    for bound in ("lower", "reported", "upper"):
        assert (ranks["relevant first"][bound] <= ranks["stable"][bound]).all()
        assert (ranks["stable"][bound] <= ranks["relevant last"][bound]).all()
    np.testing.assert_array_equal(ranks["stable"]["upper"], se.gmr_bound_ranks(sim, equivalent)["upper"])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(2, 15), st.integers(0, 2**32 - 1), st.sampled_from(["float32", "float64", "int64"]))
def test_recall_table_counts_without_sorting_what_the_ranked_lists_give(n_queries, n_videos, seed, dtype):
    """R@K from the best positive's rank (no sort: `fireeval evaluate-similarity` imports neither pandas nor
    scipy.stats for it) equals C@K of FIRE's stably sorted lists, ties and several positives included."""
    rng = np.random.default_rng(seed)
    sim = rng.integers(0, 4, (n_queries, n_videos)).astype(dtype)  # many ties
    positives = rng.random((n_queries, n_videos)) < 0.3
    positives[np.arange(n_queries), rng.integers(0, n_videos, n_queries)] = True  # every query has one
    ks = (1, 2, 5)
    table = retrieval.recall_table({"m": sim}, positives, ks=ks)["m"]
    lists = fire.ranked_lists(sim.astype(float))
    scores = fire.per_query_scores(lists, positives, ks=ks, ap_depth=n_videos)
    assert [table[f"R@{k}"] for k in ks] == [float(scores[f"C@{k}"].mean()) for k in ks]
    ranks = 1 + np.argmax(fire.gains_of(lists, positives), axis=1)
    assert (table["MdR"], table["MnR"]) == (float(np.median(ranks)), float(ranks.mean()))


def test_recall_table_refuses_non_finite_scores():
    with pytest.raises(ValueError, match=r"m: similarity has a non-finite value at index \(0, 1\). Fix:"):
        retrieval.recall_table({"m": np.array([[0.0, np.nan]])}, np.array([[True, False]]))
