"""The closing chapter's input function and claim builders (fireeval.book.chapters.leaderboards)."""
import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from conftest import require_data
from fireeval.book.chapters import leaderboards as lb
from fireeval.stats.claims import FIELDS


def board(values, names=None, data="real: toy", conditions=(), published=None, key="toy"):
    values = np.asarray(values, dtype=float)
    names = names or [f"S{i}" for i in range(len(values))]
    pub = np.full(len(names), np.nan) if published is None else np.asarray(published, dtype=float)
    return lb.Board(key, "Toy", "score", "queries", names, values, pub, 1.0, "toy source", 0.005, data, "original",
                    list(conditions))


def analyse(b, **kw):
    return lb.analyse(b, n_permutations=kw.get("n_permutations", 2000), n_bootstrap=kw.get("n_bootstrap", 500))


def steps(a):
    """The step claims of an analysis (its every-pair ordering claim left out)."""
    return [r for r in a.records if not r["id"].endswith(".ordering")]


def test_bca_interval_is_scipys_for_the_same_resamples():
    rng = np.random.default_rng(3)
    x = rng.random((2, 60))
    b = board(x)
    t = lb.pair_tests(b, n_permutations=500, n_bootstrap=999, seed=5)
    d = x[0] - x[1]
    ref = stats.bootstrap((d,), np.mean, n_resamples=999, method="BCa", rng=np.random.default_rng(5))
    assert t.loc[0, "ci_low"] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert t.loc[0, "ci_high"] == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_randomisation_p_value_is_scipys_on_the_same_flips_and_holm_is_over_adjacent_pairs():
    rng = np.random.default_rng(1)
    x = rng.random((4, 12))
    t = lb.pair_tests(board(x), n_permutations=100_000, n_bootstrap=200)
    assert t["exact"].all()  # 2^12 = 4096 flips enumerated
    for k in range(3):
        d = x[k] - x[k + 1]
        ref = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf, vectorized=True)
        assert t.loc[k, "p_perm"] == pytest.approx(ref.pvalue, rel=1e-12)
    from statsmodels.stats.multitest import multipletests
    assert np.allclose(t["p_perm_holm"], multipletests(t["p_perm"], method="holm")[1])


def test_clear_order_is_reproduced_reversed_is_contradicted_tie_is_not_testable():
    rng = np.random.default_rng(0)
    base = rng.random(200) * 0.5
    noise = rng.normal(0, 0.05, (3, 200))
    x = np.stack([base + 0.3, base + 0.3, base + 0.1 + noise[0], base + 0.2 + noise[1]])  # S0 = S1, S1 > S2 < S3
    a = analyse(board(x))
    labels = [r["label"] for r in steps(a)]
    assert labels == ["not testable here", "reproduced", "contradicted"]
    whole = a.records[-1]  # every pair: S1 > S2 holds, S2 > S3 reversed, the tie S0 = S1 is no pair
    assert whole["id"] == "lb.toy.ordering" and whole["label"] == "contradicted"
    assert whole["family"]["of"] == 5 and "S2 > S3" in whole["family"]["fail"]
    for r in a.records:
        assert all(r.get(f) is not None for f in FIELDS), r["id"]
        assert r["paper"] == "this book"
    assert "tie" in a.records[0]["basis"]
    table = lb.survival_table(a.board, a.tests, a.conditions)
    assert table["query sampling"].tolist() == ["tie", "holds", "reversed"]


def test_synthetic_board_claims_are_stand_ins():
    rng = np.random.default_rng(0)
    x = np.stack([rng.random(100) + 0.5, rng.random(100)])
    a = analyse(board(x, data="stand-in: synthetic toy"))
    assert [r["standing"] for r in a.records] == ["stand-in"]
    assert a.records[0]["verdict"] == "not testable here"
    assert a.records[0]["on_stand_in"]["label"] == "reproduced"


def test_threat_rows_flip_and_stand_in_threat_is_one_claim_with_its_here_row():
    rng = np.random.default_rng(2)
    base = rng.random(300)
    x = np.stack([base + 0.2, base, base - 0.1])
    rater = np.stack([base - 0.3, base, base - 0.1])  # reverses the first pair
    proxy = np.stack([base + 0.2, base, np.full(300, np.nan)])  # not computable for S2
    conditions = [lb.Condition("rater 1", "label noise", rater),
                  lb.Condition("proxy t=0.4", "false negatives", proxy, "stand-in", why="no full matrix",
                               primary=True, about="proxy labels for toy"),
                  lb.Condition("proxy t=0.6", "false negatives", proxy - np.array([[0.0], [0.0], [0.0]]), "stand-in")]
    a = analyse(board(x, conditions=conditions))
    first = a.records[0]
    # a threat is a reading of equal standing: its flip makes the step depend on it (issue 33's rule)
    assert "rater 1" in first["flips"] and first["label"] == "depends"
    assert next(s for s in first["sensitivity"] if s["name"] == "rater 1")["weight"] == "equal"
    second = next(r for r in a.records if r["id"].endswith("S1.over.S2"))
    assert any(s["name"] == "proxy t=0.4" and s["value"] is None for s in second["sensitivity"])  # why, no value
    stand = [r for r in a.records if r["id"].endswith(".false_negatives")]
    assert len(stand) == 1 and stand[0]["standing"] == "stand-in" and stand[0]["verdict"] == "not testable here"
    assert stand[0]["data"] == "stand-in: proxy labels for toy"
    # one record per statement: what the proxy shows is the stand-in claim's here row, no '.here' twin
    assert not [r for r in a.records if r["id"].endswith(".here")]
    assert stand[0]["here"][0]["label"] == "reproduced" and stand[0]["here"][0]["data"] == "proxy labels for toy"
    sweep = stand[0]["sensitivity"]
    assert [s["name"] for s in sweep] == ["proxy t=0.6"] and sweep[0]["weight"] == "secondary" and sweep[0]["reason"]
    from fireeval.stats.claims import check_record
    for r in a.records:
        check_record(r)


def test_stand_in_threat_computable_on_no_adjacent_pair_is_tested_on_the_pairs_where_it_is():
    rng = np.random.default_rng(4)
    base = rng.random(100)
    x = np.stack([base + 0.3, base + 0.2, base])
    proxy = np.stack([base + 0.3, np.full(100, np.nan), base])
    a = analyse(board(x, conditions=[lb.Condition("proxy", "false negatives", proxy, "stand-in", primary=True)]))
    extra = a.conditions[~a.conditions["adjacent"].astype(bool)]
    assert list(zip(extra["i"], extra["j"])) == [(0, 2)]
    assert any(r["id"] == "lb.toy.S0.over.S2.false_negatives" for r in a.records)
    assert "S0 > S2 (not adjacent)" in lb.survival_table(a.board, a.tests, a.conditions).index
    s = lb.summary(a)  # the non-adjacent pair stays out of the adjacent-step counts
    assert s["threats"]["false negatives"]["pairs"] == 0 and s["other"]["false negatives"]["pairs"] == 1


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(-0.3, 0.3))
def test_verdict_follows_the_bca_interval(seed, shift):
    rng = np.random.default_rng(seed)
    x = rng.random((2, 40))
    x[0] += shift
    a = lb.analyse(board(x), n_permutations=200, n_bootstrap=200, seed=seed)
    row, rec = a.tests.iloc[0], a.records[0]
    expected = "reproduced" if row["ci_low"] > 0 else "contradicted" if row["ci_high"] < 0 else "inconclusive"
    # no power: an unclear interval, and a smallest detectable difference above the stated effect
    no_power = expected == "inconclusive" and row["min_detectable"] > row["effect"]
    assert rec["label"] == ("not testable here" if no_power else expected)
    if no_power:
        assert rec["basis"].startswith("no power") and rec["without_power"]["label"] == expected
    assert row["ci_low"] <= row["diff"] <= row["ci_high"]


def test_no_power_comes_from_a_stated_effect_never_from_the_observed_step():
    from fireeval.stats.claims import Test
    from fireeval.stats.significance import detectable_difference

    d = np.random.default_rng(0).normal(0.01, 0.1, 80)
    delta = float(detectable_difference(d.std(ddof=1), 80, 0.01))
    weak = lb.pair_power(d, 0.5 * delta, alpha=0.01)  # the stated effect is below δ: no power
    assert weak.passes(Test(">", 0)) is False
    assert weak.effect == pytest.approx(0.5 * delta) and weak.detectable == pytest.approx(delta)
    assert "Voorhees & Buckley" in weak.effect_source
    assert lb.pair_power(d, 1.5 * delta, alpha=0.01).passes(Test(">", 0)) is True
    # the observed mean difference does not enter: the same spread shifted far away gives the same record
    shifted = lb.pair_power(d + 0.3, 0.5 * delta, alpha=0.01)
    assert (shifted.effect, shifted.detectable) == (weak.effect, weak.detectable)
    # a step the interval resolves passed a test that could pass: no "no power" for it, δ and the effect stated
    resolved = lb.pair_power(d, 0.5 * delta, alpha=0.01, resolved=True)
    assert resolved.passes(Test(">", 0)) is None and f"{delta:.4f}" in resolved.why_none
    assert lb.pair_power(np.zeros(5), 0.01).why_none  # no spread: nothing to calibrate against
    # in a claim: the stated effect is 5% of the better score, δ shown beside it in the record
    rng = np.random.default_rng(1)
    base = rng.random(30)
    x = np.stack([base + 0.02 + rng.normal(0, 0.2, 30), base])
    b = board(x, published=[0.42, 0.40])
    t = lb.pair_tests(b, 500, 300)
    assert t.loc[0, "effect"] == pytest.approx(0.05 * 0.42)
    assert t.loc[0, "effect_material"] == pytest.approx(0.10 * 0.42)
    rec = lb.analyse(b, n_permutations=500, n_bootstrap=300).records[0]
    assert t.loc[0, "ci_low"] <= 0 <= t.loc[0, "ci_high"]  # unclear: power decides what it means
    assert t.loc[0, "min_detectable"] > 0.042  # beyond the material effect too: no power
    assert rec["label"] == "not testable here" and rec["basis"].startswith("no power")
    assert rec["power"]["effect"] == pytest.approx(0.042)
    assert rec["power"]["detectable"] == pytest.approx(t.loc[0, "min_detectable"])


def test_power_has_a_noticeable_and_a_material_effect_of_equal_standing():
    # Sparck Jones (via Voorhees & Buckley): 5% noticeable, > 10% material; "no power" only beyond both
    from fireeval.stats.claims import Test
    from fireeval.stats.significance import detectable_difference

    d = np.random.default_rng(3).normal(0.0, 0.1, 100)
    delta = float(detectable_difference(d.std(ddof=1), 100, 0.05))
    between = lb.pair_power(d, 0.7 * delta, alpha=0.05, material=1.4 * delta)
    assert between.passes(Test(">", 0)) is True and between.effect == pytest.approx(1.4 * delta)
    assert "material" in between.effect_source and "noticeable" in between.effect_source
    beyond = lb.pair_power(d, 0.4 * delta, alpha=0.05, material=0.8 * delta)
    assert beyond.passes(Test(">", 0)) is False and beyond.effect == pytest.approx(0.8 * delta)
    within = lb.pair_power(d, 1.2 * delta, alpha=0.05, material=2.4 * delta)
    assert within.passes(Test(">", 0)) is True and within.effect == pytest.approx(1.2 * delta)
    # in a claim: an unclear step whose δ lies between the two effects is inconclusive, not "no power"
    rng = np.random.default_rng(4)
    base = rng.random(400)
    x = np.stack([base + rng.normal(0, 0.1, 400), base])
    for published, label in (([0.40, 0.39], None), ([4.0, 3.9], "inconclusive")):
        b = board(x, published=published)
        t = lb.pair_tests(b, 500, 300)
        assert t.loc[0, "ci_low"] <= 0 <= t.loc[0, "ci_high"]
        rec = lb.analyse(b, n_permutations=500, n_bootstrap=300).records[0]
        e5, e10, dd = t.loc[0, "effect"], t.loc[0, "effect_material"], t.loc[0, "min_detectable"]
        expected = "inconclusive" if dd <= e10 else "not testable here"
        assert rec["label"] == expected and (label is None or expected == label)
        s = lb.summary(lb.analyse(b, n_permutations=500, n_bootstrap=300))
        assert (s["no_power"], s["no_power_material"]) == (int(dd > e5), int(dd > e10))
    table = lb.survival_table(b, t, lb.condition_tests(b, 300))
    assert "effect 5% / 10%" in table.columns


def test_inputs_synthetic_every_board():
    boards = lb.leaderboard_inputs("synthetic", seed=0, trec_pairs=3, proxy_thresholds=(0.3, 0.5), synthetic_size=60)
    assert list(boards) == ["trec8", "msrvtt", "charades_sta", "qvhighlights"]
    for b in boards.values():
        assert b.data.startswith("stand-in: synthetic")
        assert b.values.shape[0] == len(b.names) and np.isfinite(b.values).all()
        assert np.all(np.diff(b.means) <= 1e-12), b.key  # no published numbers: ordered by the score here
        for c in b.conditions:
            assert c.values.shape[0] == len(b.names)
    assert len(boards["trec8"].names) == 4
    kinds = {b.key: {c.kind for c in b.conditions} for b in boards.values()}
    assert kinds["trec8"] == {"pool bias"} and "label noise" in kinds["charades_sta"]
    assert kinds["msrvtt"] == {"false negatives", "tie rule"}
    assert kinds["charades_sta"] == {"subset", "label noise", "IoU convention"}
    ch = boards["charades_sta"]
    assert not any("rater" in c.name for c in ch.conditions)
    assert ch.slots.shape[:2] == (5, len(ch.names))
    mean = next(c for c in ch.conditions if "mean score" in c.name).values
    assert np.allclose(mean, ch.slots.mean(axis=0))
    assert sum(c.primary for c in boards["msrvtt"].conditions) == 1


def test_reader_run_is_validated_and_placed_by_its_score(tmp_path):
    boards = lb.leaderboard_inputs("synthetic", seed=0, benchmarks=["trec8"], trec_pairs=0, synthetic_size=60)
    top = boards["trec8"]
    # a copy of the best synthetic run under a new tag: scored, placed, a tie with the original
    from fireeval.synthetic.trec_collection import simulate_pooled_trec

    frames, *_ = simulate_pooled_trec(n_topics=50, n_groups=8, runs_per_group=3, n_docs=3000, depth=300,
                                      pool_depth=50, seed=0)
    best = frames[top.names[0]]
    path = tmp_path / "mine.gz"
    with gzip.open(path, "wt") as fh:
        for q, g in best.groupby("query", sort=False):
            for r, (doc, score) in enumerate(zip(g["docno"], g["score"]), 1):
                fh.write(f"{q} Q0 {doc} {r} {score} mine\n")
    # The chapter refuses a reader's run beside the synthetic stand-in (its scores would mean nothing there);
    # the board builder itself places it, which is what this checks.
    with pytest.raises(ValueError, match="ignores the data you named"):
        lb.leaderboard_inputs("synthetic", seed=0, benchmarks=["trec8"], extra_runs=[str(path)])
    mine = lb._trec8(False, None, 0, [str(path)], 0)
    assert "mine" in mine.names and mine.own == ["mine"]
    assert abs(mine.names.index("mine") - mine.names.index(top.names[0])) == 1
    bad = tmp_path / "bad.txt"
    bad.write_text("401 Q0 doc\n")
    with pytest.raises(Exception, match="bad.txt"):
        lb._trec8(False, None, 0, [str(bad)], 0)
    with pytest.raises(Exception, match="missing.txt"):
        lb.leaderboard_inputs("synthetic", benchmarks=["trec8"], extra_runs=[str(tmp_path / "missing.txt")])


def test_predictions_parameter():
    # issue 37: one form, {name: path}, as the AxIoU chapters take it
    assert lb.parse_predictions({"a": "x.json", "b": "y.pkl"}) == {"a": "x.json", "b": "y.pkl"}
    assert lb.parse_predictions({}) == {} and lb.parse_predictions(None) == {}
    with pytest.raises(ValueError, match=r"not a \{name: path\} dict. Fix:"):
        lb.parse_predictions(["a=x.json"])


def test_predictions_need_real_charades(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"entries": []}')
    with pytest.raises(ValueError, match="ignores the data you named"):
        lb.leaderboard_inputs("synthetic", benchmarks=["charades_sta"], predictions={"mine": str(path)},
                              synthetic_size=60)


def test_csv_predictions_are_read_as_evaluate_moments_reads_them(tmp_path):
    # issue 37: a CSV failed after two minutes with "not valid JSON"; the leaderboards chapter now reads
    # predictions with the AxIoU chapters' reader (fireeval.datasets.moment_formats)
    from fireeval.datasets import charades

    require_data("charades_sta/charades_sta_test.txt", "charades_sta/human_reannotations/test_00.csv",
                 *[f"charades_sta/predictions/{s}.json" for s in charades.SYSTEMS])
    gt = charades.load_ground_truth("test")
    rows = gt.head(50)
    csv = tmp_path / "mine.csv"
    csv.write_text("vid,query,start,end,score\n" + "".join(
        f'{v},"{q}",{s},{e},1\n' for v, q, s, e in rows[["video", "description", "start", "end"]].itertuples(
            index=False, name=None)))
    board = lb._charades(True, None, 0, {"mine": str(csv)}, 60)
    assert "mine" in board.names and board.own == ["mine"]
    with pytest.raises(ValueError, match=r"predictions\['bad'\]: .*bad.csv"):
        (tmp_path / "bad.csv").write_text("vid,query,start,end\nX,nothing,1,2\n")
        lb._charades(True, None, 0, {"bad": str(tmp_path / "bad.csv")}, 60)


def test_summary_and_overview_count_pairs():
    rng = np.random.default_rng(0)
    base = rng.random(200)
    x = np.stack([base + 0.3, base + 0.3, base])
    a = analyse(board(x, conditions=[lb.Condition("rater", "label noise", x - 0.0)]))
    s = lb.summary(a)
    assert (s["pairs"], s["ties"], s["hold"]) == (2, 1, 1)
    assert s["threats"]["label noise"]["pairs"] == 1  # the tie is not a step
    o = lb.overview({"toy": a})
    assert (o["pairs"], o["hold"], o["hold_all"]) == (1, 1, 1)


def test_primary_interval_is_family_wise_and_the_unadjusted_one_is_a_sensitivity_row():
    rng = np.random.default_rng(7)
    x = rng.random((4, 50))
    t = lb.pair_tests(board(x), n_permutations=200, n_bootstrap=999)
    assert (t["m"] == 3).all() and t["level"].iloc[0] == pytest.approx(1 - 0.05 / 3)
    for k in range(3):
        ref = stats.ttest_rel(x[k], x[k + 1]).confidence_interval(1 - 0.05 / 3)
        assert t.loc[k, "t_interval"].low == pytest.approx(ref.low, abs=1e-12)
        assert t.loc[k, "t_interval"].high == pytest.approx(ref.high, abs=1e-12)
        wide, narrow = t.loc[k, "bca"], t.loc[k, "bca95"]
        assert wide.low <= narrow.low and wide.high >= narrow.high
        assert wide.method.startswith("98.33% ") and narrow.method.startswith("95% ")
    rec = lb.analyse(board(x), n_permutations=200, n_bootstrap=999).records[0]
    assert "Holm over the 3 adjacent pairs" in rec["notes"]
    assert [s["kind"] for s in rec["sensitivity"]] == ["multiplicity", "interval method", "interval method"]
    assert [s["weight"] for s in rec["sensitivity"]] == ["secondary", "equal", "equal"]
    assert rec["sensitivity"][0]["reason"]
    assert "1 − 0.05/3 = 98.33%" in rec["reading"]["rule"]


def test_the_level_is_printed_not_rounded_to_100_percent():
    assert lb._level_text(lb.family_level(20)) == "99.75%" and lb._level_text(lb.family_level(5)) == "99%"
    d = np.random.default_rng(1).normal(0.1, 0.2, (1, 60))
    bca, pct, tint = lb._intervals(d, 400, 0, "queries", 0.9975)[0]
    assert bca.method.startswith("99.75% ") and pct.method.startswith("99.75% ") and tint.method.startswith("99.75% ")


def test_a_tie_in_the_published_numbers_is_not_testable():
    rng = np.random.default_rng(3)
    base = rng.random(80)
    x = np.stack([base + 0.3, base + 0.2 + rng.normal(0, 0.01, 80), base])
    a = analyse(board(x, published=[0.5, 0.4, 0.4]))
    assert a.records[1]["label"] == "not testable here" and "tie in the published ordering" in a.records[1]["basis"]
    assert a.tests["m"].iloc[0] == 1 and np.isnan(a.tests.loc[1, "p_perm_holm"])
    assert lb.survival_table(a.board, a.tests, a.conditions)["query sampling"].iloc[1] == "tie (published)"
    assert lb.summary(a)["ties"] == 1


def test_tie_rules_rank_the_positive_after_or_before_tied_videos():
    sim = np.array([[0.5, 0.5, 0.1], [0.2, 0.2, 0.2], [0.0, 0.9, 0.8]])
    assert lb._r1_tie_rule(sim, "pessimistic").tolist() == [0.0, 0.0, 0.0]
    assert lb._r1_tie_rule(sim, "optimistic").tolist() == [1.0, 1.0, 0.0]


def test_random_slot_flip_rate_counts_draws_whose_interval_fails_to_clear_zero():
    rng = np.random.default_rng(0)
    q = 300
    slots = np.concatenate([(rng.random((5, 1, q)) < 0.8).astype(float),
                            (rng.random((5, 1, q)) < 0.2).astype(float),  # a clear gap: never fails
                            (rng.random((5, 1, q)) < 0.2).astype(float)], axis=1)  # no gap: mostly fails
    b = board(slots.mean(axis=0))
    b.slots = slots
    t = lb.pair_tests(b, 200, 300)
    flips = lb.slot_flip_rate(b, t, draws=20, n_bootstrap=300)
    assert flips[1][:2] == (0, 20) and flips[2][0] >= 15
    assert flips[1][2].low > 0 and not flips[2][2].low > 0  # the median draw's interval
    # in each step's box: a secondary row with the draw rate and why no draw is a rater
    a = lb.analyse(b, n_permutations=200, n_bootstrap=300, slot_draws=20)
    for rec, (unclear, n, _) in zip(steps(a), (flips[1], flips[2])):
        row = next(r for r in rec["sensitivity"] if "drawn at random" in r["name"])
        assert row["weight"] == "secondary" and "no worker id" in row["reason"] and f"{unclear} of {n}" in row["name"]
    assert steps(a)[0]["label"] == "reproduced"  # shown, never decides


def test_survival_chart_has_titles_tooltips_and_one_colour_per_condition():
    rng = np.random.default_rng(5)
    x = rng.random((3, 40))
    b = board(x, conditions=[lb.Condition("rater 1", "label noise", x[::-1].copy())])
    a = analyse(b)
    spec = lb.survival_chart(a.board, a.tests, a.conditions).to_dict()
    text = str(spec)
    assert "does each step of the ordering survive" in text and "tooltip" in text
    colour = spec["layer"][0]["encoding"]["color"]["scale"]
    assert colour["domain"] == ["query sampling", "label noise"] and len(set(colour["range"])) == 2


def test_a_reader_run_below_the_tested_top_extends_the_pairs_down_to_it(tmp_path):
    from fireeval.synthetic.trec_collection import simulate_pooled_trec

    frames, *_ = simulate_pooled_trec(n_topics=50, n_groups=8, runs_per_group=3, n_docs=3000, depth=300,
                                      pool_depth=50, seed=0)
    topics = sorted(set(next(iter(frames.values()))["query"]))
    path = tmp_path / "weak.txt"
    path.write_text("".join(f"{q} Q0 nothing{q} 1 1.0 weak\n" for q in topics))  # retrieves nothing relevant
    b = lb._trec8(False, None, 0, [str(path)], 2)
    assert b.names[-1] == "weak" and len(b.names) > 3
    assert any("reach down" in n for n in b.notes)


def test_controls_are_shown_never_counted_as_threats():
    # issue 35: the subset control (original labels on the re-annotated queries) is no threat
    rng = np.random.default_rng(11)
    base = rng.random(400)
    x = np.stack([base + 0.15, base])
    rater = x + rng.normal(0, 0.01, x.shape)  # a threat under which the step holds
    subset = np.stack([base[:40] + 0.15 + rng.normal(0, 0.6, 40), base[:40]])  # few queries: unclear
    subset = np.concatenate([subset, np.full((2, 360), np.nan)], axis=1)[:, :40]
    conditions = [lb.Condition("re-annotations", "label noise", rater),
                  lb.Condition("original labels, re-annotated queries only", "subset", subset)]
    a = analyse(board(x, conditions=conditions))
    words = a.conditions.set_index("kind")["ci_low"]
    assert words["label noise"] > 0 and not words["subset"] > 0  # the control is unclear, the threat holds
    o = lb.overview({"toy": a})
    assert (o["hold"], o["hold_all"], o["unclear_by_threat"]) == (1, 1, 0)
    s = lb.summary(a)
    assert "subset" not in s["threats"] and s["controls"]["subset"]["unclear"] == 1
    rec = a.records[0]
    row = next(r for r in rec["sensitivity"] if r["kind"] == "subset")
    assert row["weight"] == "secondary" and "control" in row["reason"] and row["flips"]
    assert rec["label"] == "reproduced"  # a control's flip is shown, it decides nothing
    table = lb.survival_table(a.board, a.tests, a.conditions)
    assert "subset (control)" in table.columns and "label noise" in table.columns


def test_every_pair_of_an_ordering_is_tested_with_holm_over_all_pairs():
    # issue 35: pairs further apart do not follow from the adjacent steps when those are unclear
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(5)
    base = rng.random(60)
    x = np.stack([base + 0.3 - 0.025 * k + rng.normal(0, 0.1, 60) for k in range(6)])  # small steps, a long way
    a = lb.analyse(board(x), n_permutations=4000, n_bootstrap=1000, seed=1)
    pairs = a.ordering
    assert len(pairs) == 15 and set(zip(pairs["i"], pairs["j"])) == {(i, j) for i in range(6) for j in range(i + 1, 6)}
    assert (pairs["M"] == 15).all() and pairs["level"].iloc[0] == pytest.approx(1 - 0.05 / 15)
    assert np.allclose(pairs["p_holm"], multipletests(pairs["p_perm"], method="holm")[1])
    for _, r in pairs.iterrows():  # the randomisation p of every pair, scipy's on its own differences
        assert np.isfinite(r["p_perm"]) and r["diff"] == pytest.approx((x[r["i"]] - x[r["j"]]).mean())
    steps_hold = [w for w in a.tests["ci_low"] > 0]
    far = pairs[(pairs["i"] == 0) & (pairs["j"] == 5)].iloc[0]
    assert not any(steps_hold) and far["ci_low"] > 0  # no step holds, the ends of the ordering do
    whole = a.records[-1]
    assert whole["id"] == "lb.toy.ordering" and whole["family"]["of"] == 15
    assert whole["family"]["hold"] == int((pairs["ci_low"] > 0).sum()) and whole["label"] == "inconclusive"
    support = lb.ordering_support(pairs)
    assert support["above"]["S0"] >= 1 and support["supported"] == "no"
    # the top of a long list: every pair of its first `top` systems
    top = lb.ordering_tests(board(x), 500, 200, top=4)
    assert len(top) == 6 and top.attrs["systems"] == ["S0", "S1", "S2", "S3"]
    assert lb.ordering_tests(board(x[:2]), 500, 200) is None  # two systems: the one step is the ordering
    spec = lb.ordering_chart({"toy": a}).to_dict()
    assert "Which pairs of each published ordering" in str(spec)


def test_every_pair_holm_has_enough_flips_and_its_monte_carlo_error():
    from fireeval.stats.significance import auto_permutations, holm_monte_carlo_se, monte_carlo_se

    rng = np.random.default_rng(9)
    x = np.sort(rng.random((12, 50)), axis=0)[::-1] + np.linspace(0.2, 0, 12)[:, None]
    pairs = lb.ordering_tests(board(x), n_permutations=1000, n_bootstrap=200, top=12)
    m = len(pairs)
    assert m == 66 and pairs.attrs["permutations"] == auto_permutations(66, 50)[0] > 1000
    assert pairs.attrs["raised"]
    se = holm_monte_carlo_se(pairs["p_perm"], monte_carlo_se(pairs["p_perm"], pairs.attrs["permutations"]))
    assert np.allclose(pairs["holm_se"], se)
    assert (pairs["near"] == ((pairs["p_holm"] - 0.05).abs() < 2.5758293035489004 * se)).all()


def test_pair_and_ordering_tests_are_fireeval_compares_with_the_family_as_holms():
    # issue 36: one copy of each statistic -- the p-values, their Monte-Carlo errors and δ are compare's; only the
    # family Holm runs over (the adjacent steps; every pair but published ties) is the chapter's
    from fireeval.stats.significance import compare, holm, holm_monte_carlo_se

    rng = np.random.default_rng(11)
    x = np.sort(rng.random((5, 40)), axis=0)[::-1] + np.linspace(0.1, 0, 5)[:, None]
    t = lb.pair_tests(board(x), n_permutations=3000, n_bootstrap=200, seed=4)
    c = compare(x, [f"S{i}" for i in range(5)], n_permutations=3000, seed=4, alpha=0.05 / 4, n_bootstrap=0,
                tukey=False)
    adjacent = [k for k, (i, j) in enumerate(zip(c.pairs["i"], c.pairs["j"])) if j == i + 1]
    assert np.allclose(t["p_perm"], c.pairs["p_perm"][adjacent]) and np.allclose(t["p_t"], c.pairs["p_t"][adjacent])
    assert np.allclose(t["min_detectable"], c.pairs["min_detectable"][adjacent])
    assert np.allclose(t["p_perm_holm"], holm(t["p_perm"]))  # Holm over the 4 steps, not compare's 10 pairs
    assert np.allclose(t["p_perm_holm_se"], holm_monte_carlo_se(t["p_perm"], c.pairs["p_perm_se"][adjacent]))
    o = lb.ordering_tests(board(x), n_permutations=3000, n_bootstrap=200, seed=4)
    c_all = compare(x, [f"S{i}" for i in range(5)], n_permutations=o.attrs["permutations"], seed=4, n_bootstrap=0,
                    tukey=False)
    assert np.allclose(o["p_holm"], c_all.pairs["p_perm_holm"])  # no ties: the family is compare's
    assert np.allclose(o["holm_se"], c_all.pairs["p_perm_holm_se"])
    # the one bootstrap of the library (fireeval.stats.resampling), no copy of its own
    from fireeval.stats.resampling import bootstrap_means

    assert not hasattr(lb, "bootstrap_means")
    assert np.allclose(lb._boot(x[:2] - x[1:3], 300, 7), bootstrap_means(x[:2] - x[1:3], n_resamples=300, rng=7).T)


def test_the_old_leaderboards_module_is_gone():
    import importlib.util

    assert importlib.util.find_spec("fireeval.book.leaderboards") is None


def test_prose_counts_the_ordering_claims_pairs_as_its_box_does():
    # the answer's "k of M pairs" is the ordering claim's own count (a pair holds when its BCa, percentile and t
    # intervals agree), never a second count that the box contradicts
    rng = np.random.default_rng(5)
    base = rng.random(60)
    x = np.stack([base + 0.3 - 0.05 * k + rng.normal(0, 0.1, 60) for k in range(6)])
    a = lb.analyse(board(x), n_permutations=2000, n_bootstrap=500, seed=1)
    v = lb.prose_values({"trec8": a})
    rec = next(r for r in a.records if r["id"].endswith(".ordering"))
    assert v["trec8_all_claim_hold"] == rec["family"]["hold"] and v["trec8_all_claim_label"] == rec["label"]
    held = [c for c in rec["family"]["conditions"] if c["label"] == "reproduced"]
    assert len(held) == v["trec8_all_claim_hold"] <= v["trec8_all_hold"]


def test_charades_median_aggregate_is_the_axiou_papers_median_start_and_length():
    # issue 35 review: the AxIoU paper (§6.4, generate_noisy_dataset) aggregates the ratings by median start and
    # median length; the board carries it as a label-noise threat of equal standing
    from fireeval.synthetic.moment_collection import simulate_moments
    from fireeval.vmr import noise

    b = lb._charades(False, None, 0, {}, 200)
    cond = next(c for c in b.conditions if "median start" in c.name)
    assert cond.kind == "label noise" and not cond.control
    gt, _, preds = simulate_moments(200, 6, seed=0)
    queries = np.arange(min(len(gt), 1000))
    raters = noise.simulate_raters(gt[queries], 2.5, 1, 5, rng=1)[0] + 1.0
    start = np.median(raters[..., 0], axis=0)
    end = start + np.median(raters[..., 1] - raters[..., 0], axis=0)
    for k, name in enumerate(b.names):  # R@1,0.5 by hand: the top moment's IoU with the median window >= 0.5
        top = np.asarray(preds[name])[queries, 0, :2]
        inter = np.clip(np.minimum(top[:, 1], end) - np.maximum(top[:, 0], start), 0, None)
        union = np.maximum(top[:, 1], end) - np.minimum(top[:, 0], start)
        assert np.array_equal(cond.values[k], (inter / union >= 0.5).astype(float))


def test_charades_step_depends_under_the_papers_median_aggregate():
    require_data("charades_sta/charades_sta_test.txt", "charades_sta/human_reannotations/test_00.csv")
    b = lb.leaderboard_inputs("real", benchmarks=["charades_sta"])["charades_sta"]
    a = lb.analyse(b, n_permutations=1000, n_bootstrap=1000, slot_draws=0)
    rec = next(r for r in a.records if r["id"] == "lb.charades_sta.2DTAN_noNMS.over.2DTAN_randomized")
    med = next(r for r in rec["sensitivity"] if "median start" in r["name"])
    assert med["weight"] == "equal" and med["low"] < 0 < med["high"] and med["value"] == pytest.approx(0.016, abs=5e-4)
    assert rec["label"] == "depends"
    control = next(r for r in rec["sensitivity"] if r["kind"] == "subset")
    assert control["low"] < 0 < control["high"] and control["weight"] == "secondary"  # the subset effect
    assert "median aggregate" in lb.prose_values({"charades_sta": a})["charades_median_note"]
    assert lb.overview({"charades_sta": a})["hold_all"] == 1  # SCDM > 2DTAN alone holds under every threat here


def test_ordering_claim_carries_the_threats_of_its_steps():
    rng = np.random.default_rng(21)
    base = rng.random(300)
    x = np.stack([base + 0.4, base + 0.2, base])  # every pair clear
    noisy = np.stack([base + 0.4, base + 0.2, base]) + rng.normal(0, 2.0, (3, 300))  # unclear under the threat
    clear = x + rng.normal(0, 0.01, x.shape)
    a = analyse(board(x, conditions=[lb.Condition("other labels", "label noise", clear)]))
    whole = a.records[-1]
    row = next(r for r in whole["sensitivity"] if r["kind"] == "label noise")
    assert row["weight"] == "equal" and row["family"]["of"] == 3 and whole["label"] == "reproduced"
    a = analyse(board(x, conditions=[lb.Condition("other labels", "label noise", noisy)]))
    assert a.records[-1]["label"] == "depends"  # an equal-standing threat flips the family
    a = analyse(board(x, conditions=[lb.Condition("subset", "subset", noisy)]))
    row = next(r for r in a.records[-1]["sensitivity"] if r["kind"] == "subset")
    assert row["weight"] == "secondary" and a.records[-1]["label"] == "reproduced"  # a control decides nothing
    stand = lb.Condition("proxy", "false negatives", noisy, "stand-in")
    a = analyse(board(x, conditions=[stand]))
    assert not any(r["kind"] == "false negatives" for r in a.records[-1]["sensitivity"])  # stand-ins: own claims


def test_family_intervals_get_enough_resamples_in_their_tails_and_say_which_method():
    rng = np.random.default_rng(8)
    x = np.sort(rng.random((8, 50)), axis=0)[::-1] + np.linspace(0.1, 0, 8)[:, None]
    pairs = lb.ordering_tests(board(x), n_permutations=500, n_bootstrap=200, top=8)
    m = int(pairs["M"].iloc[0])
    assert pairs.attrs["n_bootstrap"] == lb.family_resamples(m) == int(np.ceil(5 * 2 * m / 0.05))
    assert all(f"{lb.family_resamples(m)} bootstrap resamples" in e.method for e in pairs["bca"])
    support = lb.ordering_support(pairs)
    assert support["resamples"] == lb.family_resamples(m)
    assert support["fallback"] == sum("jackknife" in e.method for e in pairs["bca"])


def test_the_shrinking_gap_is_given_on_all_queries_too():
    # issue 35 reader: "the gap falls from 0.081 (original labels)" is on the re-annotated queries only; the prose
    # gives the same step's gap on every query beside it (the Fig. 5 table's number)
    b = lb._charades(False, None, 0, {}, 200)
    a = lb.analyse(b, n_permutations=200, n_bootstrap=200, slot_draws=0)
    v = lb.prose_values({"charades_sta": a})
    winner, loser = v["charades_shrink_pair"].split(" over ")
    full = b.values[b.names.index(winner)] - b.values[b.names.index(loser)]
    assert v["charades_shrink_full"] == pytest.approx(full.mean())
    assert np.isnan(lb.prose_values({})["charades_shrink_full"])


def test_prose_glues_the_same_names_whether_a_benchmark_ran_or_not():
    # issue 36: prose_values is split into one helper per part; every glue name stays defined either way, and a
    # benchmark that did not run gives n/a or NaN for each of its own names, never a number
    rng = np.random.default_rng(3)
    x = np.stack([rng.random(40) + 0.2 - 0.1 * k for k in range(4)])
    ran = lb.prose_values({"trec8": analyse(board(x))})
    idle = lb.prose_values({})
    assert set(ran) == set(idle)
    assert ran["trec8_pairs"] == 3 and ran["trec8_n_systems"] == 4 and np.isfinite(ran["trec8_diff"])
    own = [k for k in idle if k.startswith("trec8_") and k not in ("trec8_tie_note",)]
    assert own and all(idle[k] == "n/a" or (isinstance(idle[k], float) and np.isnan(idle[k])) for k in own)


def test_msrvtt_board_read_once_equals_a_fresh_read():
    """The proxy agreement kept for the exercise's second read (issue 38): the same board as computing it again."""
    lb._READ_ONCE.clear()
    first = lb.leaderboard_inputs("synthetic", seed=1, benchmarks=["msrvtt"], proxy_thresholds=(0.3, 0.6),
                                  synthetic_size=40)["msrvtt"]
    assert any(k[0] == "msrvtt agreement" for k in lb._READ_ONCE)
    again = lb.leaderboard_inputs("synthetic", seed=1, benchmarks=["msrvtt"], proxy_thresholds=(0.3, 0.6),
                                  synthetic_size=40)["msrvtt"]
    lb._READ_ONCE.clear()
    fresh = lb.leaderboard_inputs("synthetic", seed=1, benchmarks=["msrvtt"], proxy_thresholds=(0.3, 0.6),
                                  synthetic_size=40)["msrvtt"]
    for b in (again, fresh):
        assert b.names == first.names
        for c, d in zip(b.conditions, first.conditions):
            np.testing.assert_array_equal(c.values, d.values)
    other = lb.leaderboard_inputs("synthetic", seed=2, benchmarks=["msrvtt"], proxy_thresholds=(0.3, 0.6),
                                  synthetic_size=40)["msrvtt"]  # another stand-in: its own agreement
    assert len(lb._READ_ONCE) == 2 and not np.array_equal(other.values, first.values)


def test_survival_chart_fits_the_column_at_its_first_rendering(monkeypatch):
    """Drawn once, not searched for a fit (issue 38: the search drew the Charades-STA chart 17 times)."""
    from fireeval.book import plotting

    plotting.setup()
    rng = np.random.default_rng(5)
    x = rng.random((4, 40))
    b = board(x, conditions=[lb.Condition("rater 1", "label noise", x[::-1].copy()),
                             lb.Condition("pessimistic tie rule", "tie rule", x[[1, 0, 3, 2]].copy())])
    b.names = ["2DTAN_randomized_noNMS", "ActionAwareBlind", "2DTAN_randomized", "SCDM"]
    a = analyse(b)
    drawn = []
    original = plotting._static_svg_raw
    monkeypatch.setattr(plotting, "_static_svg_raw", lambda spec, *args, **kw: drawn.append(1) or original(spec, *args, **kw))
    fitted, svg = plotting.fit_to_column(lb.survival_chart(a.board, a.tests, a.conditions).to_dict())
    assert len(drawn) == 1 and plotting._svg_width(svg) <= plotting.MAX_WIDTH
    assert "fireeval_fit" not in fitted.get("usermeta", {})  # left as drawn
