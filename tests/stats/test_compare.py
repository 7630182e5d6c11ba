"""Issue 28: fireeval.stats.significance and ``fireeval compare``, checked against scipy and statsmodels.

The randomisation p-values are compared with ``scipy.stats.permutation_test(permutation_type='samples')``
on the same resamples: all 2^T sign flips for small T (both enumerate), and for larger T the
flips scipy itself drew (recovered from the permuted samples it passes to the statistic).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from fireeval.cli import main
from fireeval.stats import significance as cmp


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def _scipy_p(a, b, n_resamples, rng=0):
    res = stats.permutation_test((a, b), _mean_diff, permutation_type="samples", vectorized=True,
                                 n_resamples=n_resamples, alternative="two-sided", rng=np.random.default_rng(rng))
    return res.statistic, res.pvalue


@pytest.mark.parametrize("discrete", [False, True])
def test_exact_enumeration_matches_scipy(discrete):
    rng = np.random.default_rng(3)
    t = 9
    x = rng.integers(0, 2, size=(4, t)).astype(float) if discrete else rng.beta(2, 4, size=(4, t))
    result = cmp.compare(x, n_permutations=10_000, n_bootstrap=0, tukey=False)
    assert result.exact and result.n_permutations == 2 ** t
    for k, (i, j) in enumerate(zip(result.pairs["i"], result.pairs["j"])):
        statistic, p = _scipy_p(x[i], x[j], 10_000)
        assert result.pairs["diff"][k] == pytest.approx(statistic, abs=1e-12)
        assert result.pairs["p_perm"][k] == pytest.approx(p, abs=1e-12), (i, j)


def test_random_flips_match_scipy_on_its_own_resamples():
    rng = np.random.default_rng(5)
    a, b = rng.beta(2, 3, size=40), rng.beta(2, 3.4, size=40)  # continuous: a_t != b_t on every topic
    seen = []

    def statistic(x, y, axis=-1):
        seen.append(np.array(x))
        return np.mean(x - y, axis=axis)

    res = stats.permutation_test((a, b), statistic, permutation_type="samples", vectorized=True, n_resamples=4000,
                                 rng=np.random.default_rng(11))
    permuted = np.concatenate([s for s in seen if s.ndim == 2])
    flips = np.where(permuted == a, 1, -1)
    assert flips.shape == (4000, 40) and (np.isclose(permuted, a) | np.isclose(permuted, b)).all()
    result = cmp.compare(np.vstack([a, b]), flips=flips, n_bootstrap=0, tukey=False)
    assert result.pairs["p_perm"][0] == pytest.approx(res.pvalue, abs=1e-12)
    assert result.pairs["diff"][0] == pytest.approx(res.statistic, abs=1e-12)


def test_ttest_matches_ttest_rel():
    x = np.random.default_rng(2).beta(2, 5, size=(5, 30))
    result = cmp.compare(x, n_permutations=200, n_bootstrap=0, tukey=False)
    for k, (i, j) in enumerate(zip(result.pairs["i"], result.pairs["j"])):
        ref = stats.ttest_rel(x[i], x[j])
        assert result.pairs["t"][k] == pytest.approx(ref.statistic, rel=1e-12)
        assert result.pairs["p_t"][k] == pytest.approx(ref.pvalue, rel=1e-12)
        d = x[i] - x[j]
        assert result.pairs["effect"][k] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    x = np.random.default_rng(4).beta(2, 5, size=(6, 25)) + np.linspace(0, 0.2, 6)[:, None]
    result = cmp.compare(x, n_permutations=3000, n_bootstrap=0, tukey=False)
    assert np.allclose(result.pairs["p_perm_holm"], multipletests(result.pairs["p_perm"], method="holm")[1])
    assert np.allclose(result.pairs["p_t_holm"], multipletests(result.pairs["p_t"], method="holm")[1])


@pytest.mark.parametrize("seed", [0, 7])
def test_bca_matches_scipy_bootstrap(seed):
    x = np.random.default_rng(seed + 100).beta(2, 5, size=(3, 35))
    low, high, method = cmp.bca_intervals(x, [0, 0, 1], [1, 2, 2], n_resamples=1500, confidence=0.9, rng=seed)
    for k, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        ref = stats.bootstrap((x[i] - x[j],), np.mean, n_resamples=1500, confidence_level=0.9, method="BCa",
                              rng=np.random.default_rng(seed))
        assert method[k] == "BCa"
        assert low[k] == pytest.approx(ref.confidence_interval.low, abs=1e-10)
        assert high[k] == pytest.approx(ref.confidence_interval.high, abs=1e-10)


def test_bca_constant_differences_fall_back():
    x = np.array([[0.5, 0.6, 0.7, 0.2], [0.4, 0.5, 0.6, 0.1]])
    low, high, method = cmp.bca_intervals(x, [0], [1], 500)
    assert method[0] == "constant" and low[0] == pytest.approx(0.1) and high[0] == pytest.approx(0.1)


def test_identical_systems_and_tukey_for_two():
    x = np.random.default_rng(1).beta(2, 5, size=(2, 30))
    same = cmp.compare(np.vstack([x[0], x[0]]), n_permutations=500)
    for key in ("p_perm", "p_perm_holm", "p_t", "p_tukey"):
        assert same.pairs[key][0] == 1.0, key
    assert same.pairs["effect"][0] == 0.0 and same.pairs["ci_method"][0] == "constant"
    # with two systems, permuting labels within topics is a sign flip: the same test in law
    two = cmp.compare(x + np.array([[0.05], [0.0]]), n_permutations=20_000, n_bootstrap=0)
    assert two.pairs["p_tukey"][0] == pytest.approx(two.pairs["p_perm"][0], abs=0.02)


def test_tukey_is_monotone_and_controls_more_than_unadjusted():
    x = np.random.default_rng(8).beta(2, 5, size=(6, 40)) + np.linspace(0, 0.15, 6)[:, None]
    c = cmp.compare(x, n_permutations=2000, n_bootstrap=0)
    order = np.argsort(np.abs(c.pairs["diff"]))
    assert (np.diff(c.pairs["p_tukey"][order]) <= 1e-12).all()
    assert (c.pairs["p_tukey"] >= c.pairs["p_perm"] - 0.02).all()


small = arrays(np.float64, st.tuples(st.just(2), st.integers(3, 12)),
               elements=st.floats(0, 1, allow_nan=False, width=32))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small, st.integers(0, 3))
def test_swapping_negates_difference_and_keeps_p(x, seed):
    ab = cmp.compare(x, n_permutations=300, n_bootstrap=200, seed=seed)
    ba = cmp.compare(x[::-1], n_permutations=300, n_bootstrap=200, seed=seed)
    assert ba.pairs["diff"][0] == pytest.approx(-ab.pairs["diff"][0], abs=1e-12)
    for key in ("p_perm", "p_t", "p_tukey"):
        assert ba.pairs[key][0] == pytest.approx(ab.pairs[key][0], abs=1e-9) or (
            np.isnan(ba.pairs[key][0]) and np.isnan(ab.pairs[key][0])), key
    if ab.pairs["ci_method"][0] == ba.pairs["ci_method"][0] == "BCa":
        assert ba.pairs["ci_low"][0] == pytest.approx(-ab.pairs["ci_high"][0], abs=1e-9)


@settings(max_examples=12, deadline=None)
@given(arrays(np.float64, st.integers(3, 15), elements=st.floats(0, 1, allow_nan=False, width=32)))
def test_identical_runs_give_p_one(row):
    c = cmp.compare(np.vstack([row, row, row]), n_permutations=200, n_bootstrap=100)
    for key in ("p_perm", "p_perm_holm", "p_t", "p_tukey"):
        assert (c.pairs[key] == 1.0).all(), key
    assert all(r["beats"] == [] for r in c.ranking())


def test_power_round_trip_and_statsmodels():
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    delta = float(cmp.detectable_difference(0.2, 50))
    assert TTestPower().power(effect_size=delta / 0.2, nobs=50, alpha=0.05) == pytest.approx(0.8, abs=1e-6)
    assert cmp.topics_needed(delta, 0.2) == 50
    assert cmp.topics_needed(delta * 1.01, 0.2) <= 50 < cmp.topics_needed(delta * 0.99, 0.2)
    x = np.random.default_rng(0).normal(0.3, 0.1, size=(5, 50))
    out = cmp.topic_set_size(x, difference=0.05)
    n, m, var = out["topics_needed_anova"], 5, out["variance"]
    f = 0.05 / np.sqrt(2 * m * var)
    assert FTestAnovaPower().power(effect_size=f, nobs=m * n, alpha=0.05, k_groups=m) >= 0.8
    assert FTestAnovaPower().power(effect_size=f, nobs=m * (n - 1), alpha=0.05, k_groups=m) < 0.8
    assert out["sd_diff"] == pytest.approx(np.sqrt(2 * var))


def test_min_detectable_per_pair():
    x = np.random.default_rng(9).beta(2, 5, size=(3, 20))
    c = cmp.compare(x, n_permutations=100, n_bootstrap=0)
    sd = (x[0] - x[1]).std(ddof=1)
    assert c.pairs["min_detectable"][0] == pytest.approx(float(cmp.detectable_difference(sd, 20)))


def test_groups_and_ranking():
    p = np.array([[1, 0.5, 0.01, 0.01], [0.5, 1, 0.2, 0.01], [0.01, 0.2, 1, 0.3], [0.01, 0.01, 0.3, 1]])
    groups = cmp.significance_groups([0.9, 0.8, 0.7, 0.6], p)
    assert groups == [[0], [0, 1], [1, 2], [2]]


def test_letters_are_not_contiguous_ranges():
    # issue 35: the best and the third do not differ, the second differs from both; contiguous ranges
    # ("a", "b", "b"/"ab") cannot say it, a compact letter display can
    p = np.array([[1, 0.01, 0.31], [0.01, 1, 0.01], [0.31, 0.01, 1]])
    assert cmp.significance_groups([0.9, 0.8, 0.7], p) == [[0], [1], [0]]
    x = np.random.default_rng(0).beta(2, 5, size=(3, 30)) + np.array([[0.4], [0.2], [0.0]])
    c = cmp.compare(x, ["A", "B", "C"], n_permutations=2000, n_bootstrap=0, tukey=False)
    assert [r["groups"] for r in c.ranking()] == ["a", "b", "c"] and c.significant().sum() == 3


@st.composite
def _significance_patterns(draw):
    n = draw(st.integers(1, 12))
    means = draw(arrays(np.float64, n, elements=st.floats(0, 1, allow_nan=False)))
    upper = draw(arrays(np.float64, (n, n), elements=st.sampled_from([0.001, 0.04, 0.2, 0.9, np.nan])))
    p = np.triu(upper, 1)
    p = p + p.T
    np.fill_diagonal(p, 1.0)
    return means, p


@settings(max_examples=300, deadline=None)
@given(_significance_patterns())
def test_compact_letter_display_properties(pattern):
    means, p = pattern
    n = len(means)
    groups = cmp.significance_groups(means, p, 0.05)
    differ = p < 0.05
    letters = sorted({k for g in groups for k in g})
    assert letters == list(range(len(letters)))  # numbered 0, 1, ... without gaps
    for i in range(n):
        assert groups[i], "every system has a letter"
        for j in range(n):
            if i != j:  # share a letter exactly when not significantly different (both properties)
                assert bool(set(groups[i]) & set(groups[j])) == (not differ[i, j]), (i, j)
    members = [frozenset(i for i in range(n) if k in groups[i]) for k in letters]
    assert all(not (a < b) for a in members for b in members)  # no letter lies inside another (absorbed)
    for k, m in enumerate(members):  # swept: no system's membership of a letter is redundant
        for i in m:
            elsewhere = set().union(*(o for q, o in enumerate(members) if q != k and i in o))
            assert not (elsewhere and (m - {i}) <= elsewhere), (k, i)
    rank = np.argsort(np.argsort(-means, kind="stable"), kind="stable")
    firsts = [sorted(rank[list(m)]) for m in members]
    assert firsts == sorted(firsts)  # ordered by mean: "a" holds the best system, "b" the best without "a" ...


def test_letter_display_scales_to_many_systems():
    # 129 systems in a banded pattern (like TREC-8): fast, and both properties hold
    n = 129
    means = np.linspace(1, 0, n)
    gap = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    p = np.where(gap > 9, 0.001, 0.5)
    groups = cmp.significance_groups(means, p)
    share = np.array([[bool(set(a) & set(b)) for b in groups] for a in groups])
    assert (share == (p >= 0.05)).all()
    assert len({k for g in groups for k in g}) == n - 9


def test_scores_from_similarity_matches_t2v_ranks():
    from fireeval.t2v.false_negatives import original_rank_under_ties

    rng = np.random.default_rng(0)
    s = np.round(rng.random((30, 30)), 1)  # many ties
    ranks = original_rank_under_ties(s)["stable"]
    got = cmp.scores_from_similarity({"m": s, "n": s.T}, "R@5")
    assert (got.values[0] == (ranks <= 5)).all()
    assert np.allclose(cmp.scores_from_similarity({"m": s, "n": s}, "RR").values[0], 1 / ranks)
    with pytest.raises(ValueError, match="Fix"):
        cmp.scores_from_similarity({"m": s}, "nDCG")


def test_scores_from_moments_match_core():
    from fireeval.core.moments import score_systems

    rng = np.random.default_rng(0)
    gt = np.sort(rng.random((20, 2)) * 30, axis=1)
    pred = {k: np.sort(rng.random((20, 5, 2)) * 30, axis=-1) for k in ("A", "B")}
    got = cmp.scores_from_moments(pred, gt, "AxIoU@5")
    assert np.allclose(got.values, score_systems(pred, gt, ["AxIoU@5"])[0])


# ------------------------------------------------------------------ TREC runs and the command line
def _trec_files(tmp_path, n_runs=3, n_topics=12, depth=20, seed=0):
    rng = np.random.default_rng(seed)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 D{d} {int(d < 5 or rng.random() < 0.3)}\n"
                             for t in range(401, 401 + n_topics) for d in range(40)))
    runs = []
    for r in range(n_runs):
        path = tmp_path / f"run{r}.txt"
        lines = []
        for t in range(401, 401 + n_topics):
            docs = rng.permutation(40)[:depth] if r else np.arange(depth)  # run0 puts D0..D4 first: the best
            lines += [f"{t} Q0 D{d} {i + 1} {depth - i} run{r}\n" for i, d in enumerate(docs)]
        path.write_text("".join(lines))
        runs.append(str(path))
    return str(qrels), runs


def test_scores_from_trec_match_evaluate(tmp_path, capsys):
    qrels, runs = _trec_files(tmp_path)
    s = cmp.scores_from_trec(qrels, runs, "map")
    assert s.names == ["run0", "run1", "run2"] and s.values.shape == (3, 12)
    assert main(["evaluate", qrels, runs[1], "-m", "map", "-q"]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    per_topic = {t: float(v) for m, t, v in lines if t != "all"}
    assert np.allclose(s.values[1], [per_topic[t] for t in s.topics], atol=1e-4)


def test_cli_formats(tmp_path, capsys):
    qrels, runs = _trec_files(tmp_path)
    assert main(["compare", qrels, *runs, "-m", "P_10", "--permutations", "500", "--difference", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "rank" in out and "run0" in out and "smallest detectable difference" in out and "topics needed" in out
    assert "p_perm_holm" in out  # few runs: the pairs are shown too
    assert main(["compare", qrels, *runs, "-m", "P_10", "--permutations", "500", "--format", "tsv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "rank\trun\tmean\tgroups\tbeats" and len(rows) == 4
    assert main(["compare", qrels, *runs, "-m", "P_10", "--permutations", "500", "--format", "tsv", "--pairs"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("a\tb\tdiff") and len(rows) == 4
    float(rows[1].split("\t")[12])  # machine-readable p-values
    assert main(["compare", qrels, *runs, "-m", "map", "--permutations", "500", "--format", "json", "--seed", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["measure"] == "map" and data["n_topics"] == 12 and len(data["pairs"]) == 3
    assert data["settings"]["seed"] == 3 and data["systems"][0]["rank"] == 1
    assert {"p_perm", "p_perm_holm", "p_tukey", "p_t", "ci_low", "effect"} <= set(data["pairs"][0])


def test_cli_marks_the_better_run(tmp_path, capsys):
    qrels, runs = _trec_files(tmp_path, n_topics=30)
    assert main(["compare", qrels, *runs, "-m", "P_5", "--format", "json", "--permutations", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    top = data["systems"][0]
    assert top["system"] == "run0" and set(top["beats"]) == {"run1", "run2"}


@pytest.mark.parametrize("args, fragment", [
    (["-m", "P"], "stands for"),
    (["-m", "gm_map"], "not a mean"),
    (["-m", "nonsense"], "unknown measure"),
    (["-m", "map", "--permutations", "0"], "--permutations must be >= 1"),
    (["-m", "map", "--alpha", "2"], "--alpha must be in (0, 1)"),
    (["-m", "map", "--bootstrap", "-1"], "--bootstrap must be >= 0"),
    (["-m", "map", "--permutations", "1000000000"], "--permutations=1000000000 is more than 1000000"),
    (["-m", "map", "--bootstrap", "2000000"], "--bootstrap=2000000 is more than 1000000"),
])
def test_cli_errors(tmp_path, capsys, args, fragment):
    qrels, runs = _trec_files(tmp_path)
    assert main(["compare", qrels, *runs, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fireeval compare: ") and fragment in err and "Fix:" in err and "\n" not in err


def test_cli_file_errors(tmp_path, capsys):
    qrels, runs = _trec_files(tmp_path)
    assert main(["compare", qrels, runs[0], "-m", "map"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"fireeval compare: {runs[0]}: one run given") and "Fix:" in err
    assert main(["compare", qrels, runs[0], str(tmp_path / "missing.txt"), "-m", "map"]) == 2
    err = capsys.readouterr().err.strip()
    assert "missing.txt" in err and "Fix:" in err and "\n" not in err
    bad = tmp_path / "bad.txt"
    bad.write_text("401 Q0 D1 1 2.0 bad\nnot a run line\n")
    assert main(["compare", qrels, runs[0], str(bad), "-m", "map"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{bad}:2:" in err and "Fix:" in err
    other = tmp_path / "other.txt"
    other.write_text("999 Q0 D1 1 2.0 other\n")
    assert main(["compare", qrels, runs[0], str(other), "-m", "map"]) == 2
    err = capsys.readouterr().err.strip()
    assert str(other) in err and "Fix:" in err


def test_ordering_chart():
    from fireeval.book.plotting import ordering_chart

    x = np.random.default_rng(0).beta(2, 5, size=(4, 20)) + np.array([[0.3], [0.0], [0.01], [0.02]])
    c = cmp.compare(x, ["A", "B", "C", "D"], n_permutations=500, n_bootstrap=0)
    spec = ordering_chart(c, title="Ordering", caption="test").to_dict()
    assert spec["title"]["text"] == "Ordering"
    data = next(iter(spec["datasets"].values()))
    assert [row["system"] for row in data][0] == "A" and data[0]["in top group"] is True


def test_package_entry_point():
    import fireeval

    x = np.random.default_rng(0).random((2, 8))
    assert fireeval.compare(x, n_permutations=100, n_bootstrap=0).pairs["p_perm"].shape == (1,)


def test_runs_paired_on_common_topics(tmp_path, capsys):
    qrels, runs = _trec_files(tmp_path)
    short = tmp_path / "short.txt"
    short.write_text("".join(line for line in open(runs[1]) if not line.startswith("412 ")).replace("run1", "short"))
    s = cmp.scores_from_trec(qrels, [runs[0], str(short)], "map")
    assert s.topics == [str(t) for t in range(401, 412)] and any("left out" in n for n in s.notes)
    full = cmp.scores_from_trec(qrels, [runs[0], str(short)], "map", complete=True)
    assert len(full.topics) == 12 and full.values[1, -1] == 0.0
    assert main(["compare", qrels, runs[0], str(short), "-m", "map", "--permutations", "200"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "left out of the paired comparison" in err


def test_too_few_permutations_for_holm_is_said(tmp_path):
    x = np.random.default_rng(0).beta(2, 5, size=(12, 30)) + np.linspace(0, 0.5, 12)[:, None]
    c = cmp.compare(x, n_permutations=100, n_bootstrap=0)
    assert c.smallest_pvalue() >= c.alpha and "no pair can be significant" in c.warnings()[0]
    assert not c.near_threshold().any() and len(c.warnings()) == 1  # no seed can flip a decision here
    assert not c.significant().any() and c.significant("tukey").any()


def test_cli_chart(tmp_path, capsys):
    qrels, runs = _trec_files(tmp_path)
    chart = tmp_path / "ordering.json"
    assert main(["compare", qrels, *runs, "-m", "map", "--permutations", "200", "--chart", str(chart)]) == 0
    spec = json.loads(chart.read_text())
    assert "layer" in spec and "which orderings survive" in spec["title"]["text"]
    capsys.readouterr()
    assert main(["compare", qrels, *runs, "-m", "map", "--chart", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fireeval compare: ") and "x.png" in err and "Fix:" in err


def test_pair_power_and_strict_json(tmp_path, capsys):
    x = np.random.default_rng(3).beta(2, 5, size=(3, 25))
    c = cmp.compare(x, ["A", "B", "C"], n_permutations=200, n_bootstrap=0, tukey=False)
    out = c.pair_power("A", "C", difference=0.05)
    sd = (x[0] - x[2]).std(ddof=1)
    assert out["min_detectable"] == pytest.approx(float(cmp.detectable_difference(sd, 25)))
    assert out["topics_needed"] == cmp.topics_needed(0.05, sd)
    text = json.dumps(c.to_json(), allow_nan=False)  # NaN (no intervals, no Tukey) written as null
    assert json.loads(text)["pairs"][0]["ci_low"] is None


# ------------------------------------------------------------------ Monte-Carlo error (issue 35)
def _p_over_seeds(x, n, seeds):
    pi, pj = np.triu_indices(len(x), 1)
    return np.array([cmp.randomisation_pvalues(x, pi, pj, cmp.sign_flips(x.shape[1], n, s)[0]) for s in seeds])


def test_monte_carlo_se_matches_the_spread_over_seeds():
    x = np.vstack([np.random.default_rng(2).normal(0.024, 0.1, 40), np.zeros(40)])
    n = 2000
    p = _p_over_seeds(x, n, range(400))[:, 0]
    settled = _p_over_seeds(x, 400_000, [0])[0, 0]
    assert 0.05 < settled < 0.3
    se = float(cmp.monte_carlo_se([settled], n)[0])
    assert p.std(ddof=1) == pytest.approx(se, rel=0.15)  # the two-sided formula sqrt(p (2 - p) / N)
    assert p.std(ddof=1) > 1.2 * float(cmp.monte_carlo_se([settled], n, two_sided=False)[0])
    assert abs(p.mean() - settled) < 3 * se / np.sqrt(len(p)) + 1 / n
    assert cmp.compare(x[:, :10], n_permutations=5000, n_bootstrap=0).pairs["p_perm_se"][0] == 0.0  # exact


@pytest.fixture
def no_gc_collect(monkeypatch):
    """statsmodels' multipletests runs gc.collect() on every call (~0.3 s in the test process)."""
    import gc

    monkeypatch.setattr(gc, "collect", lambda *args: 0)


def test_holm_monte_carlo_se_matches_the_spread_over_seeds(no_gc_collect):
    x = np.random.default_rng(4).normal(0.3, 0.1, size=(4, 40)) + np.array([[0.0], [0.03], [0.06], [0.09]])
    n = 2000
    raw = _p_over_seeds(x, n, range(150))
    adjusted = np.array([cmp.holm(p) for p in raw])
    settled = _p_over_seeds(x, 400_000, [0])[0]
    se = cmp.holm_monte_carlo_se(settled, cmp.monte_carlo_se(settled, n))
    middle = (cmp.holm(settled) > 0.003) & (cmp.holm(settled) < 0.5)  # where the adjusted p-value moves
    assert middle.sum() >= 3
    assert np.allclose(adjusted.std(axis=0, ddof=1)[middle], se[middle], rtol=0.25)
    c = cmp.compare(x, n_permutations=n, n_bootstrap=0, tukey=False)
    assert np.allclose(c.pairs["p_perm_holm_se"],
                       cmp.holm_monte_carlo_se(c.pairs["p_perm"], cmp.monte_carlo_se(c.pairs["p_perm"], n)))


def _clear_pattern(n_systems=15, n_topics=50, seed=0):
    rng = np.random.default_rng(seed)
    steps = np.repeat(np.arange(5) * 0.12, 3)[:n_systems]  # five tiers of three equal systems
    return np.clip(rng.normal(0.4, 0.08, size=(n_systems, n_topics)) + steps[:, None], 0, 1.5)


def test_decisions_are_stable_across_seeds_at_the_default(no_gc_collect):
    x = _clear_pattern()
    first = cmp.compare(x, n_bootstrap=0, tukey=False)
    assert first.n_permutations == 42_000 and "105 pairs" in first.permutation_note  # raised for Holm
    decisions = first.significant()
    assert 30 <= decisions.sum() <= 95
    for seed in range(1, 16):
        c = cmp.compare(x, seed=seed, n_bootstrap=0, tukey=False)
        assert (c.significant() == decisions).all(), seed
        assert not c.near_threshold().any()


def _near_alpha_pair(alpha=0.05, t=16):
    """Two systems whose exact two-sided randomisation p-value is within 0.001 of alpha."""
    base = np.random.default_rng(6).normal(0, 0.1, t)
    flips, exact_flips = cmp.sign_flips(t, 2 ** t)
    assert exact_flips
    exact = lambda c: cmp.randomisation_pvalues(np.vstack([base + c, np.zeros(t)]), [0], [1], flips, True)[0]
    lo, hi = 0.0, 0.2
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if exact(mid) > alpha else (lo, mid)
    x = np.vstack([base + hi, np.zeros(t)])
    assert abs(exact(hi) - alpha) < 0.001
    return x


def test_a_decision_near_alpha_is_warned_and_the_default_is_raised(no_gc_collect):
    from fireeval.cli.compare import report_text

    x = _near_alpha_pair()
    c = cmp.compare(x, ["A", "B"], n_permutations=2000, n_bootstrap=0, tukey=False)
    assert c.near_threshold().tolist() == [True] and c.permutation_note == ""  # given: not raised
    warning = [w for w in c.warnings() if "Monte-Carlo error" in w]
    assert len(warning) == 1 and "A vs B" in warning[0] and "Fix:" in warning[0]
    assert "1 of 1 decisions within the 99% band" in report_text(c)
    auto = cmp.compare(x, ["A", "B"], n_bootstrap=0, tukey=False)
    assert auto.n_permutations > cmp.DEFAULT_PERMUTATIONS and "Monte-Carlo error" in auto.permutation_note
    assert auto.n_permutations <= cmp.auto_permutation_cap(16)
    far = cmp.compare(_clear_pattern(3), n_bootstrap=0, tukey=False)
    assert far.n_permutations == cmp.DEFAULT_PERMUTATIONS and far.permutation_note == ""


def test_auto_permutations_and_its_cap():
    assert cmp.auto_permutations(3, 50) == (10_000, "")
    n, note = cmp.auto_permutations(8256, 50)  # 129 runs: even the cap cannot reach alpha under Holm
    assert n == 10_000 and "not raised" in note
    assert cmp.auto_permutations(500, 50)[0] == cmp.AUTO_PERMUTATIONS_CAP
    assert cmp.auto_permutations(105, 50, adjust="tukey") == (10_000, "")
    assert cmp.auto_permutation_cap(10_000) == cmp.AUTO_FLIP_BYTES // 10_000
    assert cmp.compare(_clear_pattern(15), n_permutations=500, n_bootstrap=0, tukey=False).n_permutations == 500
    auto = cmp.compare(_clear_pattern(15), n_bootstrap=0)  # only the deciding test gets more
    assert (auto.n_permutations, auto.n_tukey) == (42_000, cmp.DEFAULT_PERMUTATIONS)
    tukey = cmp.compare(_clear_pattern(15), n_bootstrap=0, adjust="tukey")
    assert tukey.n_permutations == cmp.DEFAULT_PERMUTATIONS  # the flips do not decide here
    assert tukey.n_tukey == cmp.DEFAULT_PERMUTATIONS or "Monte-Carlo error" in tukey.permutation_note


# ------------------------------------------------------------------ compare --moments / --similarity (issue 35)
def _moment_files(tmp_path, n=40, seed=0):
    """A Charades-STA style ground truth and three prediction files: 'good' near the truth, 'noisy', 'random'."""
    rng = np.random.default_rng(seed)
    start = rng.uniform(0, 20, n)
    end = start + rng.uniform(3, 10, n)
    gt = tmp_path / "gt.txt"
    gt.write_text("".join(f"V{q} {s:.2f} {e:.2f}##query {q}.\n" for q, (s, e) in enumerate(zip(start, end))))
    paths = []
    for name, jitter in (("good", 0.3), ("noisy", 3.0), ("random", None)):
        entries = []
        for q, (s, e) in enumerate(zip(start, end)):
            if jitter is None:
                a = rng.uniform(0, 25, 5)
                moments = [[float(x), float(x + 4)] for x in a]
            else:
                moments = [[float(max(0, s + rng.normal(0, jitter))), float(e + rng.normal(0, jitter))]
                           for _ in range(5)]
                moments = [[a, max(b, a + 0.5)] for a, b in moments]
            entries.append({"vid": f"V{q}", "query": f"query {q}.", "moments": moments, "ratings": [1] * 5})
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"entries": entries}))
        paths.append(str(path))
    return str(gt), paths


def test_cli_compare_moments(tmp_path, capsys):
    gt, preds = _moment_files(tmp_path)
    assert main(["compare", "--moments", gt, *preds, "-m", "R@1,0.5", "--format", "json",
                 "--permutations", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["measure"] == "R@1,0.5" and data["n_topics"] == 40 and data["topics"][0] == "V0#0"
    assert [s["system"] for s in data["systems"]] == ["good", "noisy", "random"]
    assert set(data["systems"][0]["beats"]) == {"noisy", "random"}
    # the per-query scores are evaluate-moments' own
    assert main(["evaluate-moments", gt, preds[1], "-m", "R@1,0.5", "-q"]) == 0
    per_query = {line.split("\t")[1]: float(line.split("\t")[2]) for line in capsys.readouterr().out.splitlines()}
    noisy = next(s for s in data["systems"] if s["system"] == "noisy")
    assert noisy["mean"] == pytest.approx(per_query["all"], abs=5e-5)
    assert main(["compare", "--moments", gt, *preds, "-m", "AxIoU@5", "--permutations", "500", "--name", "A",
                 "--name", "B", "--name", "C", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "AxIoU@5 on 40 topics, 3 runs" in out and "letters" in out and out.split("\n")[3].split()[1] == "A"


def test_cli_compare_moments_missing_queries_warn(tmp_path, capsys):
    gt, preds = _moment_files(tmp_path)
    data = json.loads(open(preds[0]).read())
    data["entries"] = data["entries"][:30]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(data))
    assert main(["compare", "--moments", gt, str(short), preds[1], "-m", "R@1,0.5", "--permutations", "200"]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "10 of 40 queries have no predictions and score 0" in err


def _similarity_files(tmp_path, n=40, seed=0):
    rng = np.random.default_rng(seed)
    (tmp_path / "q.txt").write_text("".join(f"v{i}\n" for i in range(n)))
    (tmp_path / "v.txt").write_text("".join(f"v{i}\n" for i in range(n)))
    paths = []
    for name, signal in (("strong", 3.0), ("weak", 0.8), ("none", 0.0)):
        sim = rng.normal(size=(n, n)) + signal * np.eye(n)
        np.save(tmp_path / f"{name}.npy", sim)
        paths.append(str(tmp_path / f"{name}.npy"))
    return paths, str(tmp_path / "q.txt"), str(tmp_path / "v.txt")


def test_cli_compare_similarity(tmp_path, capsys):
    paths, q, v = _similarity_files(tmp_path)
    assert main(["compare", "--similarity", *paths, "--queries", q, "--videos", v, "-m", "R@5", "--format", "json",
                 "--permutations", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    mats = {name: np.load(p) for name, p in zip(["strong", "weak", "none"], paths)}
    expected = cmp.scores_from_similarity(mats, "R@5").values.mean(axis=1)
    got = {s["system"]: s["mean"] for s in data["systems"]}
    assert [got[k] for k in mats] == pytest.approx(expected.tolist())
    assert data["topics"][:2] == ["v0", "v1"] and data["systems"][0]["system"] == "strong"
    assert set(data["systems"][0]["beats"]) == {"weak", "none"}
    # the same R@5 as evaluate-similarity
    assert main(["evaluate-similarity", paths[1], "--queries", q, "--videos", v, "-k", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recall"]["weak"]["R@5"] == pytest.approx(got["weak"])
    # ground truth from --gt: query v0's positive is video v1 (and so on round the list)
    gt = tmp_path / "gt.tsv"
    gt.write_text("".join(f"v{i}\tv{(i + 1) % 40}\n" for i in range(40)))
    assert main(["compare", "--similarity", *paths, "--queries", q, "--videos", v, "--gt", str(gt), "-m", "RR",
                 "--format", "tsv", "--permutations", "500"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "rank\trun\tmean\tgroups\tbeats" and len(rows) == 4
    assert float(rows[1].split("\t")[2]) < 0.5  # the diagonal no longer counts


@pytest.mark.parametrize("args, fragment", [
    (["--moments", "{gt}", "{p0}", "{p1}", "-m", "R@5"], "not a moment measure"),
    (["--moments", "{gt}", "{p0}", "-m", "R@1,0.5"], "one run given"),
    (["--moments", "{gt}", "{p0}", "{p1}", "-m", "R@1,0.5", "-c"], "-c do(es) not apply to --moments"),
    (["--moments", "{gt}", "{p0}", "{p1}", "-m", "R@1,0.5", "--queries", "{q}"], "--queries do(es) not apply"),
    (["--moments", "{gt}", "{p0}", "{other}", "-m", "R@1,0.5"], "none of its"),
    (["--moments", "{gt}", "{p0}", "{missing}", "-m", "R@1,0.5"], "missing.json"),
    (["--moments", "{gt}", "{p0}", "{p1}", "-m", "R@1,0.5", "--name", "A"], "--name given 1 distinct"),
    (["--similarity", "{s0}", "{s1}", "-m", "R@5"], "needs the row and column ids"),
    (["--similarity", "{s0}", "{s1}", "--queries", "{q}", "--videos", "{v}", "-m", "nDCG"], "unknown similarity"),
    (["--similarity", "{s0}", "{bad}", "--queries", "{q}", "--videos", "{v}", "-m", "R@5"], "does not match"),
    (["--similarity", "{s0}", "{s1}", "--queries", "{q}", "--videos", "{v}", "-m", "R@5", "--strict"],
     "--strict do(es) not apply"),
    (["{s0}", "{s1}", "{s1}", "-m", "map", "--videos", "{v}"], "--videos do(es) not apply to TREC runs"),
])
def test_cli_compare_moments_similarity_errors(tmp_path, capsys, args, fragment):
    gt, preds = _moment_files(tmp_path)
    paths, q, v = _similarity_files(tmp_path)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"entries": [{"vid": "X", "query": "nothing.", "moments": [[0, 1]], "ratings": [1]}]}))
    np.save(tmp_path / "bad.npy", np.zeros((40, 39)))
    names = {"gt": gt, "p0": preds[0], "p1": preds[1], "q": q, "v": v, "s0": paths[0], "s1": paths[1],
             "other": str(other), "missing": str(tmp_path / "missing.json"), "bad": str(tmp_path / "bad.npy")}
    assert main(["compare", *[a.format(**names) for a in args]]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fireeval compare: ") and fragment in err and "Fix:" in err and "\n" not in err, err


def test_trec8_top15_decisions_that_move_with_the_seed_are_flagged(no_gc_collect):
    """Issue 35: on TREC-8's top 15 runs by MAP, seeds flipped 5 and 2 of 105 Holm decisions at 10,000
    permutations. At the automatic default every decision that still moves is warned about, in both seeds."""
    from fireeval.datasets import data_path, trec8
    from tests.conftest import require_data

    require_data(*trec8.FILES)
    official = trec8.load_runs_table().set_index("run")["official_map"].astype(float)
    best = official.sort_values(ascending=False, kind="stable").index[:15]  # the top 15 by NIST's MAP
    runs = [str(data_path(f"trec8_adhoc/runs/input.{n}.gz")) for n in best]
    x = cmp.scores_from_trec(str(data_path(trec8.QRELS)), runs, "map").values
    assert np.allclose(np.sort(x.mean(axis=1)), np.sort(official[best].to_numpy()), atol=1e-4)
    fixed = [cmp.compare(x, n_permutations=10_000, seed=s, n_bootstrap=0, tukey=False) for s in range(3)]
    assert sum(int((c.significant() != fixed[0].significant()).sum()) for c in fixed[1:]) > 0  # the finding
    auto = [cmp.compare(x, seed=s, n_bootstrap=0, tukey=False) for s in range(4)]
    assert auto[0].n_permutations > fixed[0].n_permutations
    for c in auto[1:]:
        moved = np.flatnonzero(c.significant()[c.pairs["i"], c.pairs["j"]] | c.significant()[c.pairs["j"], c.pairs["i"]]
                               != (auto[0].significant()[c.pairs["i"], c.pairs["j"]]
                                   | auto[0].significant()[c.pairs["j"], c.pairs["i"]]))
        assert c.near_threshold()[moved].all() and auto[0].near_threshold()[moved].all()
        assert len(moved) < 3
