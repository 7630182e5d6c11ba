"""Which leaderboard orderings survive? The closing chapter's inputs, pair tests, claims, table and chart.

For every benchmark of the book's data (TREC-8 ad hoc, MSR-VTT 1k-A, Charades-STA,
QVHighlights) :func:`leaderboard_inputs` -- the chapter's one input function --
assembles a :class:`Board`: the systems in their *published* order (best first), the
per-topic (per-query) scores that order rests on, the published numbers, and the
per-topic scores under each *threat* (a :class:`Condition`): a rater's re-annotation as
the ground truth (label noise), each run scored with its own run or group left out of
the pool (pool bias), proxy-judged false negatives counted as positives (a stand-in for
human labels). A reader's own TREC runs (``extra_runs``) and Charades-STA predictions
(``predictions``) enter here and are placed in the ordering by their own score.

For every *adjacent* pair (A above B) of the published ordering, :func:`pair_tests`
computes the mean paired difference A − B with a BCa bootstrap interval (and the
percentile interval), the two-sided paired randomisation test with Holm's adjustment
over the board's adjacent pairs, the paired t-test (Holm), and the smallest difference
a paired t-test detects with this many topics (:mod:`fireeval.stats.compare`);
:func:`condition_tests` the same difference and interval under each threat.
:func:`pair_claims` states each "A beats B" as a claim of the book's own, with its five
fair-verdict fields; a threat simulated with a stand-in becomes a separate claim with
``standing="stand-in"`` (and, on real data, its book finding).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Condition", "Board", "leaderboard_inputs", "pair_tests", "condition_tests", "pair_power",
           "pair_claims", "survival_table", "survival_chart", "bootstrap_means", "analyse", "summary",
           "parse_predictions", "overview", "pool_shift", "prose_values", "headline_data", "BENCHMARKS",
           "PROXY_THRESHOLDS"]

#: The proxy thresholds of the false-negatives chapter's sweep (its default 0.4 is the primary one).
PROXY_THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
#: The published MSR-VTT 1k-A R@1 (%) of the four runs, as listed with them (shared data README, from the
#: source repository mohammad2012191/ViC).
MSRVTT_PUBLISHED = {"InternVideo2": 54.5, "GRAM": 53.1, "VAST": 49.4, "clip4clip": 34.4}
#: Moment-DETR's own MR-full-R1@0.5 (%) of its two val prediction files (the repository's metric files).
QVH_METRIC = "MR-full-R1@0.5"


@dataclass
class Condition:
    """The systems' per-topic scores under one threat to the ordering.

    ``values`` is systems x topics (the board's system order; a row of NaN: not computable
    for that system, ``why`` says why); ``kind`` names the threat ("label noise", "pool
    bias", "false negatives", "subset"); ``standing`` is ``"stand-in"`` when the threat is
    simulated with a stand-in (proxy labels for human ones); ``primary`` marks the stand-in
    condition its claim is decided by (the others are its sensitivity rows).
    """

    name: str
    kind: str
    values: np.ndarray
    standing: str = "original"
    why: str = ""
    primary: bool = False
    about: str = ""  # for a stand-in: what stands in for what (the claim's data label)


@dataclass
class Board:
    """One benchmark's published ordering, its per-topic scores and its threats (see module docstring)."""

    key: str
    title: str
    measure: str
    unit: str
    names: list
    values: np.ndarray
    published: np.ndarray
    scale: float
    source: str
    tolerance: float
    data: str
    standing: str
    conditions: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    own: list = field(default_factory=list)  # systems the reader added
    detail: str = ""  # what a reader needs to read the published-vs-ours comparison

    @property
    def means(self) -> np.ndarray:
        return self.values.mean(axis=1)

    @property
    def adjacent(self) -> list:
        return [(k, k + 1) for k in range(len(self.names) - 1)]


# ---------------------------------------------------------------- statistics
def bootstrap_means(d, n_resamples: int, seed: int) -> np.ndarray:
    """Bootstrap means of each row of ``d`` (pairs x topics): (B, pairs), topics resampled together.

    The indices are those :func:`fireeval.stats.compare.bca_intervals` draws
    (``default_rng(seed).integers(0, T, (B, T))``), turned into per-resample topic counts.
    """
    d = np.atleast_2d(np.asarray(d, dtype=float))
    t = d.shape[1]
    index = np.random.default_rng(seed).integers(0, t, (n_resamples, t))
    counts = np.zeros((n_resamples, t))
    np.add.at(counts, (np.repeat(np.arange(n_resamples), t), index.ravel()), 1.0)
    return counts @ np.nan_to_num(d).T / t


def _intervals(d, n_resamples: int, seed: int, what: str, family: int = 0):
    """BCa and percentile :class:`Estimate` of each row's mean (rows with NaN: None); with ``family`` = m > 0
    a third: the BCa interval at the family-wise level 1 − 0.05/m (Bonferroni over m pairs)."""
    from fireeval.stats.claims import Estimate

    d = np.atleast_2d(np.asarray(d, dtype=float))
    ok = np.isfinite(d).all(axis=1)
    out = [(None, None, None)] * len(d)
    if not ok.any():
        return out
    t = d.shape[1]
    boot = bootstrap_means(d[ok], n_resamples, seed)
    method = f"{n_resamples} bootstrap resamples of the {t} {what} (seed {seed})"
    for col, row in enumerate(np.flatnonzero(ok)):
        x = d[row]
        value = float(x.mean())
        if _constant(x):  # BCa is 0/0 here (as in fireeval.stats.compare.bca_intervals): the point itself
            same = Estimate(value, value, value, f"the same difference on all {t} {what}: no sampling variability")
            out[row] = (same, same, same)
            continue
        jack = (x.sum() - x) / (t - 1)
        wide = (Estimate.bca(value, boot[:, col], jack, f"family-wise over {family} pairs (Bonferroni); {method}",
                             level=1 - 0.05 / family) if family else None)
        out[row] = (Estimate.bca(value, boot[:, col], jack, method),
                    Estimate.from_samples(value, boot[:, col], f"95% percentile bootstrap; {method}"), wide)
    return out


def _one(unit: str) -> str:
    return {"queries": "query", "topics": "topic"}.get(unit, unit)


def _constant(x) -> bool:
    """Every value equal, up to rounding (the test of :func:`fireeval.stats.compare.bca_intervals`)."""
    x = np.asarray(x, dtype=float)
    return bool(np.ptp(x) <= 16 * np.finfo(float).eps * max(np.abs(x).max(), 1e-300))


def pair_power(d, estimate, unit: str = "topics", alpha: float = 0.05, power: float = 0.8):
    """The claim's :class:`~fireeval.stats.claims.Power`: a positive control from topic-set power.

    The control is this pair's own per-topic differences shifted so that their mean is
    the smallest difference a two-sided paired t-test detects with this many topics at
    ``alpha`` and ``power`` (:func:`fireeval.stats.compare.detectable_difference`,
    statsmodels' ``TTestPower``); its interval is the pair's BCa interval moved by the same
    shift. When that difference exceeds the measure's whole range (1) nothing can pass:
    no power. Equal differences on every topic leave nothing to calibrate against.

    >>> from fireeval.stats.claims import Estimate, Test
    >>> d = np.array([0.1, -0.05, 0.2, 0.0, 0.05, 0.15, -0.1, 0.1])
    >>> p = pair_power(d, Estimate(0.056, -0.01, 0.12, "toy"))
    >>> p.passes(Test(">", 0)), p.estimate.value > 0.056
    (True, True)
    """
    from fireeval.stats.claims import Estimate, Power
    from fireeval.stats.compare import detectable_difference

    d = np.asarray(d, dtype=float)
    t = len(d)
    sd = float(d.std(ddof=1)) if t > 1 else 0.0
    if estimate is None or not estimate.has_interval or not np.isfinite(estimate.low):
        return Power.no_control("no interval could be computed for this pair")
    if sd == 0 or _constant(d):
        return Power.no_control(f"the difference is the same on all {t} {unit}: no sampling variability, so no "
                                "detectable-difference control applies")
    delta = float(detectable_difference(sd, t, alpha, power))
    if delta >= 1.0:
        return Power.none_possible(f"with {t} {unit} the smallest detectable difference ({delta:.3f}) exceeds the "
                                   "measure's whole range")
    shift = delta - estimate.value
    control = Estimate(delta, estimate.low + shift, estimate.high + shift,
                       "this pair's BCa interval, moved to centre on the detectable difference")
    return Power.positive_control(
        f"this pair's per-{_one(unit)} differences shifted to the smallest mean difference a paired t-test "
        f"detects with {t} {unit} (α {alpha:g}, power {power:g}, statsmodels TTestPower): δ = {delta:.4f}", control)


def pair_tests(board: Board, n_permutations: int = 10_000, n_bootstrap: int = 2000, seed: int = 0,
               alpha: float = 0.05, power: float = 0.8):
    """One row per adjacent pair of ``board``: the query-sampling tests (module docstring).

    Holm's adjustment runs over the board's adjacent pairs: the family of claims this
    chapter makes about that leaderboard. Columns: ``pair`` (1-based), ``a``, ``b``,
    ``mean_a``, ``mean_b``, ``diff``, ``bca`` and ``percentile`` (Estimates), ``ci_low``,
    ``ci_high``, ``p_perm``, ``p_perm_holm``, ``p_t_holm``, ``sd``, ``min_detectable``,
    ``n_topics``, ``permutations``.
    """
    import pandas as pd
    from scipy.stats import ttest_rel

    from fireeval.stats.compare import detectable_difference, holm, randomisation_pvalues, sign_flips

    x = np.ascontiguousarray(board.values, dtype=float)
    t = x.shape[1]
    pi = np.arange(len(board.names) - 1)
    pj = pi + 1
    flips, exact = sign_flips(t, n_permutations, np.random.default_rng(seed))
    p = randomisation_pvalues(x, pi, pj, flips, exact)
    d = x[pi] - x[pj]
    sd = d.std(axis=1, ddof=1)
    import warnings

    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # tied systems: scipy warns of precision loss
        p_t = np.asarray(ttest_rel(x[pi], x[pj], axis=1).pvalue, dtype=float)
    p_t = np.where(np.isnan(p_t), 1.0, p_t)
    est = _intervals(d, n_bootstrap, seed, board.unit, family=len(pi))
    rows = []
    for k in range(len(pi)):
        bca, pct, wide = est[k]
        rows.append({"pair": k + 1, "a": board.names[k], "b": board.names[k + 1], "mean_a": float(x[k].mean()),
                     "mean_b": float(x[k + 1].mean()), "diff": float(d[k].mean()), "bca": bca, "percentile": pct, "familywise": wide,
                     "t_interval": _t_interval(d[k]),
                     "ci_low": bca.low, "ci_high": bca.high, "p_perm": float(p[k]), "p_t": float(p_t[k]),
                     "sd": float(sd[k]), "n_topics": t, "permutations": int(flips.shape[0]), "exact": bool(exact)})
    table = pd.DataFrame(rows)
    if len(table):
        table["p_perm_holm"] = holm(table["p_perm"].to_numpy())
        table["p_t_holm"] = holm(table["p_t"].to_numpy())
        table["min_detectable"] = detectable_difference(table["sd"].to_numpy(), t, alpha, power)
    return table


def _t_interval(d, level: float = 0.95):
    """The paired t-test's interval of the mean difference (Student, T − 1 degrees of freedom)."""
    from scipy.stats import t as student

    from fireeval.stats.claims import Estimate

    d = np.asarray(d, dtype=float)
    n, mean = len(d), float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    half = float(student.ppf(0.5 + level / 2, n - 1)) * se
    return Estimate(mean, mean - half, mean + half, f"{level:.0%} paired t interval ({n - 1} degrees of freedom)")


def _stand_in_pairs(board: Board) -> list:
    """Pairs ``(i, j)``, i above j, on which each stand-in threat is tested: the adjacent pairs where it
    can be computed, or -- when it can be computed for no adjacent pair (MSR-VTT: only two runs have
    full similarity matrices) -- every pair of systems for which it can."""
    out = set()
    for kind in {c.kind for c in board.conditions if c.standing == "stand-in"}:
        conds = [c for c in board.conditions if c.kind == kind and c.standing == "stand-in"]
        finite = np.all([np.isfinite(c.values).all(axis=1) for c in conds], axis=0)
        adjacent = [(i, i + 1) for i in range(len(board.names) - 1) if finite[i] and finite[i + 1]]
        if not adjacent:
            ok = np.flatnonzero(finite)
            out |= {(int(i), int(j)) for n, i in enumerate(ok) for j in ok[n + 1:]}
    return sorted(out)


def condition_tests(board: Board, n_bootstrap: int = 2000, seed: int = 0):
    """One row per pair and threat: the difference A − B under it, with its BCa interval.

    Rows for every adjacent pair (``adjacent`` True, ``pair`` its 1-based place) and, for a
    stand-in threat computable on no adjacent pair, for the pairs where it is
    (:func:`_stand_in_pairs`; ``pair`` 0). Columns: ``pair``, ``i``, ``j``, ``adjacent``,
    ``a``, ``b``, ``condition``, ``kind``, ``standing``, ``primary``, ``diff``, ``bca``,
    ``ci_low``, ``ci_high``, ``n_topics``, ``why`` (why it cannot be computed, else empty).
    """
    import pandas as pd

    adjacent = [(k, k + 1) for k in range(len(board.names) - 1)]
    others = [p for p in _stand_in_pairs(board) if p not in adjacent]
    rows = []
    for c, cond in enumerate(board.conditions):
        v = np.asarray(cond.values, dtype=float)
        pairs = adjacent + (others if cond.standing == "stand-in" else [])
        if not pairs:
            continue
        pi, pj = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
        est = _intervals(v[pi] - v[pj], n_bootstrap, seed + 1 + c, board.unit)
        for (i, j), (bca, _, _) in zip(pairs, est):
            rows.append({"pair": i + 1 if j == i + 1 else 0, "i": i, "j": j, "adjacent": j == i + 1,
                         "a": board.names[i], "b": board.names[j], "condition": cond.name,
                         "kind": cond.kind, "standing": cond.standing, "primary": cond.primary,
                         "diff": np.nan if bca is None else bca.value, "bca": bca,
                         "ci_low": np.nan if bca is None else bca.low, "ci_high": np.nan if bca is None else bca.high,
                         "n_topics": v.shape[1], "why": "" if bca is not None else (cond.why or "not computable")})
    return pd.DataFrame(rows, columns=["pair", "i", "j", "adjacent", "a", "b", "condition", "kind", "standing",
                                       "primary", "diff", "bca", "ci_low", "ci_high", "n_topics", "why"])


# ---------------------------------------------------------------- claims
def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(name)).strip("_") or "x"


def _published(board: Board, i: int) -> str:
    v = board.published[i]
    return "not published" if not np.isfinite(v) else f"{v:g}"


def _synthetic(board: Board) -> bool:
    return board.data.startswith(("stand-in: synthetic", "synthetic"))


def _claim(board: Board, i: int, j: int, section: str, untestable: str | None = None):
    """The claim "A beats B" (systems ``i`` above ``j``), before evaluation."""
    from fireeval.stats.claims import Claim, Reading, Test

    a, b = board.names[i], board.names[j]
    t = board.values.shape[1]
    reading = Reading(
        f"'{a} beats {b}' read as: the mean paired per-{_one(board.unit)} difference in {board.measure} is "
        f"above 0, its 95% BCa interval over the {t} {board.unit} wholly above 0; contradicted when wholly below",
        f"{board.title} ordering by {board.measure}: {a} ({_published(board, i)}) above {b} "
        f"({_published(board, j)})", "book's own question", board.source)
    return Claim(f"lb.{board.key}.{_slug(a)}.over.{_slug(b)}", paper="this book", section=section,
                 quote=f"{a} beats {b} on {board.title} by {board.measure}",
                 quantity=f"mean paired difference {a} − {b} in {board.measure} over the {t} {board.unit}",
                 test=Test(">", 0), data=board.data, standing="stand-in" if _synthetic(board) else board.standing,
                 reading=reading, fmt=".4f", short=f"{board.title}: {a} beats {b} by {board.measure}",
                 untestable=untestable)


def _evidence(board: Board, i: int, j: int, ours):
    from fireeval.stats.claims import Evidence

    a, b = board.names[i], board.names[j]
    paper = np.array([board.published[i], board.published[j]], dtype=float)
    if np.isfinite(paper).any():
        return Evidence.compare(paper, np.asarray(ours, dtype=float) * board.scale, board.source, board.tolerance,
                                detail=f"{a} and {b} as published beside ours (×{board.scale:g}). {board.detail}".strip())
    return Evidence.none(f"no published {board.measure} for {a} or {b}; the ordering is that of the scores computed "
                         f"here ({board.source})")


def pair_claims(board: Board, tests, conditions) -> list[dict]:
    """The claims of one board: "A beats B" for every adjacent pair, and the stand-in threats' claims.

    Primary verdict: the 95% BCa interval of the mean paired difference over the topics
    (query sampling), test ``> 0``. Sensitivity rows: the percentile interval; the
    randomisation test and the t-test with Holm over the adjacent pairs, as
    ``sign(d̄)·(1 − p)`` tested ``> 0.95`` (p < 0.05 in A's favour); every threat of standing
    ``original`` (a rater's annotation, a leave-out), and those that cannot be computed
    for this pair, with why. Two systems with the same score on every topic tie: their
    claim is "not testable here" (the ordering puts neither above the other). A threat
    simulated with a stand-in (``standing="stand-in"``) gets its own claim (its verdict
    "not testable here") decided by its primary condition, with the other conditions of
    that kind as its sensitivity rows, and, on real data, the book's finding on the
    stand-in (:meth:`Claim.book_finding`).
    """
    from fireeval.stats.claims import Alternative

    records = []
    m = len(tests)
    for _, row in tests.iterrows():
        k = int(row["pair"]) - 1
        d = board.values[k] - board.values[k + 1]
        tie = bool(np.all(d == 0))
        claim = _claim(board, k, k + 1, f"{board.title}, adjacent pair {k + 1} of {m}",
                       untestable=(f"a tie: {board.names[k]} and {board.names[k + 1]} score the same on every one of "
                                   f"the {len(d)} {board.unit}, so the ordering places neither above the other")
                       if tie else None)
        evidence = _evidence(board, k, k + 1, [row["mean_a"], row["mean_b"]])
        claim.notes = (f"paired randomisation test ({row['permutations']} sign flips{', exact' if row['exact'] else ''}"
                       f"): p = {row['p_perm']:.4g}, Holm over the {m} adjacent pairs p = {row['p_perm_holm']:.4g}; "
                       f"paired t-test Holm p = {row['p_t_holm']:.4g}")
        sens = [Alternative("percentile bootstrap interval", row["percentile"], kind="interval method"),
                Alternative(f"BCa interval at the family-wise level 1 − 0.05/{m} (Bonferroni over the {m} adjacent "
                            "pairs)", row["familywise"], kind="multiplicity"),
                Alternative("paired t interval", row["t_interval"], kind="interval method")]
        mine = conditions[conditions["pair"] == k + 1]
        for _, c in mine.iterrows():
            if c["standing"] == "stand-in" and c["bca"] is not None:
                continue  # its own claim below
            if c["bca"] is None:
                sens.append(Alternative(c["condition"], kind=c["kind"], why=c["why"]))
            else:
                sens.append(Alternative(c["condition"], c["bca"], kind=c["kind"]))
        records.append(claim.evaluate(row["bca"], evidence=evidence, power=pair_power(d, row["bca"], board.unit),
                                      sensitivity=[] if tie else sens))
    stand = conditions[(conditions["standing"] == "stand-in") & conditions["bca"].notna()]
    for (i, j, kind), group in stand.groupby(["i", "j", "kind"], sort=False):
        section = (f"{board.title}, adjacent pair {i + 1} of {m}" if j == i + 1 else
                   f"{board.title}: the pair on which {kind} can be counted (not adjacent)")
        records.extend(_stand_in_claims(board, int(i), int(j), group, kind, _claim(board, int(i), int(j), section)))
    return records


def _stand_in_claims(board, i, j, group, kind, claim) -> list[dict]:
    from dataclasses import replace

    from fireeval.stats.claims import Alternative, Evidence

    a, b = board.names[i], board.names[j]
    primary = group[group["primary"]]
    first = (primary if len(primary) else group).iloc[0]
    cond = next(c for c in board.conditions if c.name == first["condition"])
    d = cond.values[i] - cond.values[j]
    sens = [Alternative(r["condition"], r["bca"], kind=r["kind"]) for _, r in group.iterrows()
            if r["condition"] != first["condition"]]
    st = replace(claim, id=f"{claim.id}.{_slug(kind)}", standing="stand-in",
                 quote=f"{a} beats {b} on {board.title} by {board.measure} with {kind} counted",
                 quantity=f"mean paired difference {a} − {b} in {board.measure} under {first['condition']}",
                 data=f"stand-in: {cond.about or first['condition']}",
                 short=f"{board.title}: {a} beats {b} with {kind} counted (stand-in labels)")
    power = pair_power(d, first["bca"], board.unit)
    evidence = Evidence.none(f"no published {board.measure} with {kind} counted exists for these runs")
    out = [st.evaluate(first["bca"], evidence=evidence, power=power, sensitivity=sens)]
    if not _synthetic(board):
        finding = st.book_finding(short=f"{board.title}, proxy labels: {a} beats {b} with {kind} counted")
        out.append(finding.evaluate(first["bca"], evidence=finding.evidence, power=power, sensitivity=sens))
    return out


# ---------------------------------------------------------------- table and chart
def _verdict_word(est, test_op=">") -> str:
    if est is None:
        return "—"
    if not est.has_interval:
        return "holds" if est.value > 0 else "reversed"
    if est.low > 0:
        return "holds"
    if est.high < 0:
        return "reversed"
    return "unclear"


def survival_table(board: Board, tests, conditions):
    """One row per adjacent pair: the published numbers, the difference with its BCa interval, Holm's p,
    the smallest detectable difference, and per threat whether the ordering holds under every condition
    of that threat ("holds"), is reversed under some ("reversed"), or not ("unclear: k of n hold"); "—"
    where the threat cannot be computed for the pair, "tie" for two systems equal on every topic. A
    stand-in threat computable on no adjacent pair adds a row for each pair it is computed on."""
    import pandas as pd

    from fireeval.stats.claims import format_estimate

    def threats(row, mine):
        for kind, group in mine.groupby("kind", sort=False):
            words = [_verdict_word(e) for e in group["bca"]]
            known = [w for w in words if w != "—"]
            label = kind + (" (stand-in)" if (group["standing"] == "stand-in").any() else "")
            if not known:
                row[label] = "—"
            elif "reversed" in known:
                row[label] = f"reversed ({known.count('reversed')} of {len(known)})"
            elif all(w == "holds" for w in known):
                row[label] = f"holds ({len(known)} of {len(known)})"
            else:
                row[label] = f"unclear ({known.count('holds')} of {len(known)} hold)"
        return row

    rows = []
    for _, r in tests.iterrows():
        k = int(r["pair"]) - 1
        tie = bool(np.all(board.values[k] == board.values[k + 1]))
        row = {"pair": f"{r['a']} > {r['b']}", f"{board.measure} A": r["mean_a"], f"{board.measure} B": r["mean_b"],
               "published A / B": f"{_published(board, k)} / {_published(board, k + 1)}",
               "A − B [95% BCa]": format_estimate(r["bca"], ".4f"), "p (Holm)": r["p_perm_holm"],
               "smallest detectable": r["min_detectable"], "query sampling": "tie" if tie else _verdict_word(r["bca"])}
        mine = conditions[conditions["pair"] == k + 1]
        rows.append(row if tie else threats(row, mine))
    extra = conditions[~conditions["adjacent"].astype(bool)] if len(conditions) else conditions
    for (i, j), mine in extra.groupby(["i", "j"], sort=False):
        row = {"pair": f"{board.names[i]} > {board.names[j]} (not adjacent)",
               f"{board.measure} A": board.values[i].mean(), f"{board.measure} B": board.values[j].mean(),
               "published A / B": f"{_published(board, i)} / {_published(board, j)}"}
        rows.append(threats(row, mine))
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows).set_index("pair").astype(object)
    return frame.where(frame.notna(), "")


def survival_chart(board: Board, tests, conditions):
    """Each adjacent pair's difference A − B with its 95% BCa interval, under query sampling and every
    threat (altair): an ordering survives a condition when its interval lies right of 0."""
    import altair as alt
    import pandas as pd

    from fireeval.book import plotting

    label = lambda r: (f"{r['pair']:02d}. {r['a']} > {r['b']}" if r["pair"]  # noqa: E731
                       else f"{r['a']} > {r['b']} (not adjacent)")
    rows = [{"pair": label(r), "condition": "original labels (query sampling)",
             "kind": "query sampling", "diff": r["diff"], "low": r["ci_low"], "high": r["ci_high"]}
            for _, r in tests.iterrows()]
    rows += [{"pair": label(r), "condition": r["condition"],
              "kind": r["kind"] + (" (stand-in)" if r["standing"] == "stand-in" else ""), "diff": r["diff"],
              "low": r["ci_low"], "high": r["ci_high"]} for _, r in conditions.iterrows() if r["bca"] is not None]
    data = pd.DataFrame(rows)
    y = alt.Y("pair:N", title=None, sort=None, axis=alt.Axis(labelLimit=420))
    tip = ["pair", "condition", alt.Tooltip("diff:Q", format=".4f"), alt.Tooltip("low:Q", format=".4f"),
           alt.Tooltip("high:Q", format=".4f")]
    fixed = ["query sampling", "pool bias", "label noise", "subset", "false negatives (stand-in)"]
    fixed += sorted(set(data["kind"]) - set(fixed))
    colours = dict(zip(fixed, plotting.PALETTE * 2))  # the same colour for a condition in every chart
    kinds = [k for k in fixed if k in set(data["kind"])]
    colour = alt.Color("kind:N", title="condition",
                       scale=alt.Scale(domain=kinds, range=[colours[k] for k in kinds]))
    rules = alt.Chart(data).mark_rule(opacity=0.6).encode(
        y=y, x=alt.X("low:Q", title=f"A − B in {board.measure} (95% BCa interval)"), x2="high:Q",
        color=colour, yOffset="condition:N", tooltip=tip)
    points = alt.Chart(data).mark_point(filled=True, size=30).encode(
        y=y, x="diff:Q", color=colour, yOffset="condition:N", tooltip=tip)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="black", strokeDash=[4, 3]).encode(x="x:Q")
    height = max(120, 26 * len(tests) + 4 * len(data))
    chart = alt.layer(rules, points, zero).properties(width=420, height=height)
    return plotting.titled(chart, f"{board.title}: does each step of the ordering survive?",
                           [f"Each row: an adjacent pair of the published {board.measure} ordering (A above B); each "
                            "mark: the mean", "paired difference with its 95% BCa interval under one condition. "
                            "Right of the dashed line: A stays above B."])


# ---------------------------------------------------------------- one board, end to end
@dataclass
class Analysis:
    """A board with its pair tests, threat rows and claim records."""

    board: Board
    tests: object
    conditions: object
    records: list


def analyse(board: Board, n_permutations: int = 10_000, n_bootstrap: int = 2000, seed: int = 0) -> Analysis:
    """:func:`pair_tests`, :func:`condition_tests` and :func:`pair_claims` of one board."""
    tests = pair_tests(board, n_permutations, n_bootstrap, seed)
    conditions = condition_tests(board, n_bootstrap, seed)
    return Analysis(board, tests, conditions, pair_claims(board, tests, conditions))


def summary(analysis: Analysis) -> dict:
    """Counts for the prose: adjacent pairs, ties, pairs whose BCa interval lies above 0 (``hold``), below
    (``reversed``), pairs significant after Holm, and per threat kind the pairs that hold under every
    condition, are reversed under one, or stay unclear; the median smallest detectable difference."""
    b, t, c = analysis.board, analysis.tests, analysis.conditions
    ties = [bool(np.all(b.values[k] == b.values[k + 1])) for k in range(len(t))]
    word = [("tie" if tie else _verdict_word(e)) for tie, e in zip(ties, t["bca"])] if len(t) else []
    out = {"pairs": len(t), "ties": sum(ties), "hold": word.count("holds"), "reversed": word.count("reversed"),
           "unclear": word.count("unclear"), "n_topics": int(b.values.shape[1]), "n_systems": len(b.names),
           "holm_significant": int(((t["p_perm_holm"] < 0.05) & (t["diff"] > 0)).sum()) if len(t) else 0,
           "min_detectable_median": float(np.median(t["min_detectable"])) if len(t) else float("nan"),
           "threats": {}}
    tied = {(k, k + 1) for k, tie in enumerate(ties) if tie}
    for kind, group in c.groupby("kind", sort=False):
        per = {}
        for (i, j), g in group.groupby(["i", "j"], sort=False):
            if (i, j) in tied:
                continue
            words = [w for w in (_verdict_word(e) for e in g["bca"]) if w != "—"]
            per[(i, j)] = ("—" if not words else "reversed" if "reversed" in words
                           else "holds" if all(w == "holds" for w in words) else "unclear")
        vals = list(per.values())
        out["threats"][kind] = {"pairs": sum(v != "—" for v in vals), "holds": vals.count("holds"),
                                "reversed": vals.count("reversed"), "unclear": vals.count("unclear"),
                                "not computable": vals.count("—")}
    return out


def parse_predictions(items) -> dict:
    """``{name: path}`` from ``["NAME=PATH", ...]`` (the chapter's parameter) or a mapping.

    >>> parse_predictions(["mine=/tmp/p.json"])
    {'mine': '/tmp/p.json'}
    """
    if isinstance(items, dict):
        return {str(k): str(v) for k, v in items.items()}
    out = {}
    for item in items or ():
        name, sep, path = str(item).partition("=")
        if not sep or not name.strip() or not path.strip():
            raise ValueError(f"predictions entry {item!r} is not NAME=PATH. Fix: give e.g. 'mine=preds.json'")
        if name.strip() in out:
            raise ValueError(f"predictions name {name.strip()!r} is given twice. Fix: give each its own name")
        out[name.strip()] = path.strip()
    return out


def _resolve_run(path, data_dir, what: str = "extra run file"):
    """A reader's file: a path, or a data-registry path (``trec8_adhoc/runs/input.apl8p.gz``) found in the
    data folder; it must exist and be readable (it is parsed when the board is built)."""
    from pathlib import Path

    from fireeval.datasets import check_readable, data_path, registry

    if not Path(path).exists() and str(path) in registry():
        path = data_path(str(path), root=data_dir)
    return check_readable(path, what, text=not str(path).endswith((".gz", ".pkl")))


def overview(analyses: dict) -> dict:
    """What survives across the boards, for the closing summary (counts over the adjacent, non-tied pairs).

    ``pairs``; ``hold`` (BCa interval above 0); of those, ``hold_all`` (every computable threat's
    every condition too), ``reversed_by_threat`` (some condition's interval below 0) and
    ``unclear_by_threat`` (otherwise); ``unclear_on_subset_too``: of the pairs a rater leaves
    unclear, those the original labels on the same re-annotated queries leave unclear as well;
    ``reversed`` (BCa interval below 0 under query sampling).
    """
    out = dict(pairs=0, hold=0, reversed=0, hold_all=0, reversed_by_threat=0, unclear_by_threat=0,
               unclear_by_rater=0, unclear_on_subset_too=0)
    for a in analyses.values():
        b, c = a.board, a.conditions
        for _, r in a.tests.iterrows():
            k = int(r["pair"]) - 1
            if np.all(b.values[k] == b.values[k + 1]):
                continue
            out["pairs"] += 1
            word = _verdict_word(r["bca"])
            out["reversed"] += word == "reversed"
            if word != "holds":
                continue
            out["hold"] += 1
            mine = c[(c["pair"] == k + 1) & c["bca"].notna()]
            words = {kind: [_verdict_word(e) for e in g["bca"]] for kind, g in mine.groupby("kind")}
            flat = [w for ws in words.values() for w in ws]
            if "reversed" in flat:
                out["reversed_by_threat"] += 1
            elif all(w == "holds" for w in flat):
                out["hold_all"] += 1
            else:
                out["unclear_by_threat"] += 1
            if any(w != "holds" for w in words.get("label noise", [])):
                out["unclear_by_rater"] += 1
                out["unclear_on_subset_too"] += any(w != "holds" for w in words.get("subset", []))
    return out


def pool_shift(analysis: Analysis) -> dict:
    """TREC-8: the median absolute change of A − B when runs are scored with their run or group left
    out of the pool, beside the median half-width of the query-sampling BCa interval."""
    t, c = analysis.tests, analysis.conditions
    pool = c[(c["kind"] == "pool bias") & c["bca"].notna()]
    if not len(t) or not len(pool):
        return {"median_shift": float("nan"), "median_half_width": float("nan")}
    base = t.set_index("pair")["diff"]
    shift = (pool["diff"] - pool["pair"].map(base)).abs()
    return {"median_shift": float(shift.median()),
            "median_half_width": float(((t["ci_high"] - t["ci_low"]) / 2).median())}


BENCHMARKS = {"trec8": "TREC-8", "msrvtt": "MSR-VTT 1k-A", "charades_sta": "Charades-STA",
              "qvhighlights": "QVHighlights"}


def prose_values(analyses: dict) -> dict:
    """Every number the chapter's prose cites, by glue name (``n/a`` or NaN for a benchmark not run)."""
    out = {}
    for key in BENCHMARKS:
        a = analyses.get(key)
        s = summary(a) if a else None
        for name in ("pairs", "ties", "hold", "reversed", "unclear", "holm_significant", "n_topics", "n_systems"):
            out[f"{key}_{name}"] = s[name] if s else "n/a"
        out[f"{key}_min_detectable"] = s["min_detectable_median"] if s else float("nan")
        for kind in ("pool bias", "label noise", "false negatives", "subset"):
            t = (s or {}).get("threats", {}).get(kind, {})
            for what in ("pairs", "holds", "reversed", "unclear"):
                out[f"{key}_{kind.replace(' ', '_')}_{what}"] = t.get(what, "n/a")
        t = a.tests if a else None
        out[f"{key}_below_detectable"] = int((t["diff"].abs() < t["min_detectable"]).sum()) if a and len(t) else "n/a"
        out[f"{key}_diff"] = float(t["diff"].iloc[0]) if a and len(t) else float("nan")
    shift = pool_shift(analyses["trec8"]) if "trec8" in analyses else {}
    out["trec8_pool_shift"] = shift.get("median_shift", float("nan"))
    out["trec8_half_width"] = shift.get("median_half_width", float("nan"))
    ch = analyses.get("charades_sta")
    ties = [f"{ch.board.names[k]} and {ch.board.names[k + 1]}" for k in range(len(ch.board.names) - 1)
            if np.all(ch.board.values[k] == ch.board.values[k + 1])] if ch else []
    out["charades_tie_note"] = "; ".join(ties) or "none"
    out["charades_rated"] = ch.board.conditions[0].values.shape[1] if ch and ch.board.conditions else "n/a"
    out.update({f"all_{k}": v for k, v in overview(analyses).items()})
    return out


def headline_data(analyses: dict, settings: dict) -> dict:
    """The chapter's headline (besides its claims): data sources, orderings, pair tests, counts, power."""
    return {
        "data_source": {k: "synthetic" if _synthetic(a.board) else "real" for k, a in analyses.items()},
        "orderings": {k: {"systems": a.board.names, "means": a.board.means, "published": a.board.published}
                      for k, a in analyses.items()},
        "survival": {k: [{c: r[c] for c in ("a", "b", "diff", "ci_low", "ci_high", "p_perm_holm", "p_t_holm")}
                         for _, r in a.tests.iterrows()] for k, a in analyses.items()},
        "summary": {k: summary(a) for k, a in analyses.items()},
        "power": {k: {"min_detectable": a.tests["min_detectable"].tolist() if len(a.tests) else [],
                      "n_topics": int(a.board.values.shape[1])} for k, a in analyses.items()},
        "settings": dict(settings)}


# ---------------------------------------------------------------- inputs
def leaderboard_inputs(data_source: str = "auto", data_dir=None, seed: int = 0, *, benchmarks=None,
                       extra_runs=(), predictions=None, trec_pairs: int = 20,
                       proxy_thresholds=PROXY_THRESHOLDS, proxy_threshold: float = 0.4,
                       synthetic_size: int = 400) -> dict:
    """The chapter's one input function: ``{key: Board}`` for the requested ``benchmarks``.

    ``benchmarks``: any of ``trec8``, ``msrvtt``, ``charades_sta``, ``qvhighlights`` (default
    all). ``data_source``: ``auto`` uses each benchmark's real data when present and a
    seeded synthetic stand-in otherwise (the board's ``data`` says which); ``real``
    requires them. ``extra_runs``: TREC run files (checked: they exist and parse), scored
    on the official qrels and placed in the TREC-8 ordering by their MAP (unpooled, each
    its own group). ``predictions``: ``{name: path}`` of Charades-STA moment predictions
    (as ``fireeval evaluate-moments`` reads them), placed by their R@1,0.5.
    ``trec_pairs``: the adjacent pairs from the top of the TREC-8 ordering (0: all).
    """
    from fireeval.datasets import has_data

    benchmarks = list(benchmarks or ("trec8", "msrvtt", "charades_sta", "qvhighlights"))
    if data_source not in ("auto", "real", "synthetic"):
        raise ValueError(f"data_source must be auto, real or synthetic, not {data_source!r}")
    extra_runs, predictions = list(extra_runs or ()), parse_predictions(predictions)
    extra_runs = [_resolve_run(path, data_dir) for path in extra_runs]
    predictions = {name: _resolve_run(path, data_dir, f"predictions file of {name!r}")
                   for name, path in predictions.items()}
    files = {"trec8": lambda: __import__("fireeval.datasets.trec8", fromlist=["FILES"]).FILES,
             "msrvtt": lambda: _msrvtt_files(),
             "charades_sta": lambda: ["charades_sta/charades_sta_test.txt",
                                      "charades_sta/human_reannotations/test_00.csv"],
             "qvhighlights": lambda: ["qvhighlights/highlight_val_release.jsonl",
                                      "qvhighlights/momentdetr_ckpt_val_preds.jsonl"]}
    boards = {}
    for key in benchmarks:
        if key not in files:
            raise ValueError(f"unknown benchmark {key!r}; use trec8, msrvtt, charades_sta, qvhighlights")
        real = data_source == "real" or (data_source == "auto" and has_data(*files[key](), root=data_dir))
        if data_source == "synthetic":
            real = False
        if data_source == "real" and not has_data(*files[key](), root=data_dir):
            from fireeval.datasets import DataUnavailable

            raise DataUnavailable(f"data_source='real' but the {key} files are missing; set data_dir or "
                                  "FIREEVAL_DATA")
        if key == "trec8":
            boards[key] = _trec8(real, data_dir, seed, extra_runs, trec_pairs)
        elif key == "msrvtt":
            boards[key] = _msrvtt(real, data_dir, seed, proxy_thresholds, proxy_threshold, synthetic_size)
        elif key == "charades_sta":
            boards[key] = _charades(real, data_dir, seed, predictions, synthetic_size)
        else:
            boards[key] = _qvhighlights(real, data_dir, seed, synthetic_size)
    if predictions and "charades_sta" not in boards:
        raise ValueError("predictions are Charades-STA moment predictions: keep charades_sta in benchmarks")
    return boards


def _msrvtt_files():
    from fireeval.datasets import msrvtt

    return [msrvtt.QUERIES, msrvtt.CAPTIONS["test"], *msrvtt.MODELS.values()]


def _trec8(real, data_dir, seed, extra_runs, trec_pairs) -> Board:
    import pandas as pd

    from fireeval import pooling
    from fireeval.core.judgements import Qrels
    from fireeval.core.runset import RunSet
    from fireeval.core.trec import read_run

    notes = []
    if real:
        from fireeval.datasets import data_path, trec8

        table = trec8.load_runs_table(root=data_dir)
        official = trec8.load_official_map(root=data_dir)
        table["published"] = table["run"].map(official)
        ranked = table.sort_values(["published", "run"], ascending=[False, True])["run"].tolist()
        n = len(ranked) if not trec_pairs else min(len(ranked), trec_pairs + 1)
        # A reader's run may land anywhere in the ordering: then every run is read, so its neighbours are there.
        needed = sorted(ranked if extra_runs else set(ranked[:n]) | set(table.loc[table["pooled"], "run"]))
        paths = [data_path(f"trec8_adhoc/runs/input.{r}.gz", data_dir) for r in needed]
        qrels = trec8.load_qrels(root=data_dir)
        pool_depth = 100
        data = "real: TREC-8 Ad Hoc, official runs and NIST's qrels"
        source = "TREC-8 official MAP (NIST official-scores.map, 4 decimals)"
    else:
        from fireeval.synthetic.trec import simulate_pooled_trec

        frames, qrels_frame, table, _ = simulate_pooled_trec(n_topics=50, n_groups=8, runs_per_group=3,
                                                             n_docs=3000, depth=300, pool_depth=50, seed=seed)
        needed, paths, pool_depth = list(frames), None, 50
        qrels = Qrels(qrels_frame)
        table["published"] = np.nan
        ranked = None
        data = "stand-in: synthetic TREC-style collection (24 simulated runs, 16 pooled to depth 50)"
        source = "none: the synthetic runs have no published scores; ordered by their MAP here"
    frames_extra = {}
    for path in extra_runs:
        frame = read_run(path)
        tag = str(frame["tag"].iloc[0])
        name = tag if tag not in needed and tag not in frames_extra else f"{tag} ({path})"
        frames_extra[name] = frame
    if real:
        frames = {name: read_run(p, check_duplicates=False) for name, p in zip(needed, paths)}
    runs = RunSet.from_frames({**frames, **frames_extra}, sources={**dict(zip(needed, paths or ())),
                                                                   **dict(zip(frames_extra, extra_runs))})
    names = list(runs.names)
    groups = table.set_index("run")["group"].reindex(names)
    pooled = table.set_index("run")["pooled"].reindex(names).fillna(False).astype(bool)
    for name in frames_extra:
        groups[name] = f"reader: {name}"
    pool = pooling.build_pool(runs, pooled=pooled.to_numpy(), groups=pd.DataFrame(
        {"run": names, "group": groups.to_numpy()}), depth=pool_depth)
    lo = pooling.compare_leave_outs(pool, qrels, "map")
    means = lo.original.mean(axis=1)
    published = table.set_index("run")["published"].reindex(names).to_numpy(dtype=float)
    # The published ordering: official MAP; a reader's run placed by its own MAP (synthetic: all by MAP).
    place = np.where(np.isfinite(published), published, means)
    order = sorted(range(len(names)), key=lambda i: (-place[i], names[i]))
    if ranked is not None and not frames_extra:
        order = [names.index(r) for r in ranked if r in names]
    top = trec_pairs + 1
    if trec_pairs and frames_extra:  # reach down to the lowest reader's run and the run below it
        top = max(top, max(order.index(names.index(e)) for e in frames_extra) + 2)
        if top > trec_pairs + 1:
            notes.append(f"the tested pairs reach down to the reader's run(s): {top - 1} adjacent pairs, not "
                         f"{trec_pairs}")
    keep = order if not trec_pairs else order[:top]
    names_k = [names[i] for i in keep]
    if frames_extra:
        notes.append(f"{len(frames_extra)} reader run(s) scored on the official qrels and placed by MAP: "
                     + ", ".join(f"{n} (MAP {means[names.index(n)]:.4f})" for n in frames_extra))
    conditions = [
        Condition("each run scored with its own run left out of the pool", "pool bias", lo.run_out[keep]),
        Condition("each run scored with its own group left out of the pool", "pool bias", lo.group_out[keep])]
    return Board("trec8", "TREC-8", "MAP", "topics", names_k, lo.original[keep], published[keep], 1.0, source,
                 5e-5, data + (f"; {len(names_k)} runs from the top of the ordering" if trec_pairs else ""),
                 "original", conditions, notes, [n for n in names_k if n in frames_extra])


def _msrvtt(real, data_dir, seed, thresholds, primary, synthetic_size) -> Board:
    from fireeval.stats.compare import scores_from_similarity
    from fireeval.t2v import fire

    thresholds = sorted({float(t) for t in thresholds} | {float(primary)})
    if real:
        from fireeval.datasets import msrvtt

        qframe = msrvtt.load_queries(data_dir)
        queries = qframe["sentence"].tolist()
        captions = msrvtt.load_video_captions_1ka(data_dir)
        full = {m: msrvtt.load_similarity(m, data_dir) for m in ("clip4clip", "InternVideo2")}
        diag = {m: msrvtt.load_similarity(m, data_dir, diagonal_only_ok=True) for m in sorted(msrvtt.DIAGONAL_ONLY)}
        published = dict(MSRVTT_PUBLISHED)
        data = "real: MSR-VTT 1k-A, 1000 queries, the four runs' similarity matrices"
        source = "R@1 (%) listed with the runs (shared data README; source repository mohammad2012191/ViC)"
    else:
        from fireeval.synthetic.fire import simulate_fire

        sim = simulate_fire(n_videos=synthetic_size, seed=seed)
        queries, captions, full, diag = sim.queries, sim.data.captions, dict(sim.similarity), {}
        published = {}
        data = f"stand-in: synthetic text-to-video benchmark ({len(queries)} simulated videos and models)"
        source = "none: the simulated models have no published scores; ordered by their R@1 here"
    scores = scores_from_similarity({**full, **diag}, "R@1")
    names = list(scores.names)
    pub = np.array([published.get(n, np.nan) for n in names], dtype=float)
    place = np.where(np.isfinite(pub), pub / 100, scores.values.mean(axis=1))
    order = sorted(range(len(names)), key=lambda i: (-place[i], names[i]))
    names = [names[i] for i in order]
    values, pub = scores.values[order], pub[order]
    n = len(queries)
    original = np.eye(n, dtype=bool)
    lists = {m: fire.ranked_lists(s, depth=10) for m, s in full.items()}
    agreement = fire.caption_agreement(queries, captions, proxy="bow", aggregate="max", own_video=np.arange(n))
    conditions = []
    why_diag = ("its off-diagonal column order is unknown (only 50 non-zeros per row), so which video it ranks "
                "first when the original positive is not first cannot be known")
    for t in thresholds:
        positives = fire.judge_pool(lists, n, fire.proxy_verdicts(agreement, t), depth=10).positives(original)
        v = np.full((len(names), n), np.nan)
        for i, m in enumerate(names):
            if m in lists:
                v[i] = fire.per_query_scores(lists[m], positives, ks=(1,))["C@1"]
        about = (f"caption-proxy labels for human judgements (bag-of-words agreement with a video's other captions "
                 f"≥ {t:g}, on the pooled top 10 of {' and '.join(lists)}), {data.split(': ', 1)[-1].split(',')[0]}")
        conditions.append(Condition(f"proxy-judged false negatives counted, threshold {t:g}", "false negatives", v,
                                    "stand-in", why=f"not computable for {', '.join(diag)}: {why_diag}" if diag
                                    else "", primary=abs(t - primary) < 1e-12, about=about))
    detail = ("InternVideo2's matrix holds exact ties (zeros); the book ranks with a stable tie rule (lower "
              "column first), which gives it 54.6 where 54.5 is listed" if real else "")
    return Board("msrvtt", "MSR-VTT 1k-A", "R@1", "queries", names, values, pub, 100.0, source, 0.05, data,
                 "original", conditions, detail=detail)


def _charades(real, data_dir, seed, predictions, synthetic_size) -> Board:
    from fireeval.stats.compare import scores_from_moments

    measure = "R@1,0.5"
    if real:
        from fireeval.datasets import charades

        gt_frame = charades.load_ground_truth("test", root=data_dir)
        preds = charades.load_all_predictions(charades.SYSTEMS, root=data_dir)
        for name, path in predictions.items():
            preds[str(name)] = charades.read_predictions_file(path, gt_frame, k=10)[0]
        queries, bounds = charades.reannotation_bounds(charades.load_reannotations(root=data_dir))
        raters = np.moveaxis(bounds, 1, 0)
        gt = gt_frame[["start", "end"]].to_numpy()
        data = "real: Charades-STA test, the AxIoU paper's six systems' released predictions"
        source = ("none printed: the AxIoU paper gives no per-system R@1,0.5 table; ordered by R@1,0.5 of the "
                  "authors' released predictions")
    else:
        if predictions:
            raise ValueError("predictions need the real Charades-STA ground truth (data_source real or auto with the "
                             "data present)")
        from fireeval.synthetic.moments import simulate_moments
        from fireeval.vmr import noise

        gt, _, preds = simulate_moments(synthetic_size, 6, seed=seed)
        queries = np.arange(min(len(gt), 1000))
        raters = noise.simulate_raters(gt[queries], 2.5, 1, 5, rng=seed + 1)[0] + 1.0
        data = f"stand-in: synthetic moment retrieval ({len(gt)} simulated queries, 6 systems, simulated raters)"
        source = "none: simulated systems; ordered by their R@1,0.5 here"
    scores = scores_from_moments(preds, gt, measure)
    means = scores.values.mean(axis=1)
    order = sorted(range(len(scores.names)), key=lambda i: (-means[i], scores.names[i]))
    names = [scores.names[i] for i in order]
    sub = {n: preds[n][queries] for n in names}
    conditions = [Condition(f"original annotation, the {len(queries)} re-annotated queries only", "subset",
                            scores_from_moments(sub, gt[queries], measure).values)]
    for r in range(len(raters)):
        conditions.append(Condition(f"rater {r + 1}'s re-annotation as the ground truth ({len(queries)} queries)",
                                    "label noise", scores_from_moments(sub, raters[r], measure).values))
    return Board("charades_sta", "Charades-STA", measure, "queries", names, scores.values[order],
                 np.full(len(names), np.nan), 1.0, source, 0.005, data, "original", conditions,
                 own=[n for n in names if n in predictions])


def _qvhighlights(real, data_dir, seed, synthetic_size) -> Board:
    from fireeval.stats.compare import scores_from_moments

    measure = "R@1,0.5"
    if real:
        from fireeval.datasets import qvhighlights

        gt = qvhighlights.load_ground_truth("val", root=data_dir)
        windows = qvhighlights.windows_array(gt)
        preds = {f"Moment-DETR {run}": qvhighlights.load_predictions(run, root=data_dir) for run in qvhighlights.RUNS}
        published = {f"Moment-DETR {run}": qvhighlights.load_reported_metrics(run, root=data_dir)["brief"][QVH_METRIC]
                     for run in qvhighlights.RUNS}
        data = f"real: QVHighlights val ({len(gt)} queries), Moment-DETR's two released prediction files"
        source = f"Moment-DETR's own {QVH_METRIC} (%) in the repository's metric files"
        scale, tol = 100.0, 0.005
    else:
        from fireeval.synthetic.moments import simulate_moments

        windows, _, sim = simulate_moments(synthetic_size, 2, seed=seed + 7)
        preds = {f"checkpoint {i + 1}": p for i, p in enumerate(sim.values())}
        published, scale, tol = {}, 1.0, 0.005
        data = f"stand-in: synthetic moment retrieval ({len(windows)} simulated queries, 2 checkpoints)"
        source = "none: simulated checkpoints; ordered by their R@1,0.5 here"
    scores = scores_from_moments(preds, windows, measure)
    pub = np.array([published.get(n, np.nan) for n in scores.names], dtype=float)
    place = np.where(np.isfinite(pub), pub / scale, scores.values.mean(axis=1))
    order = sorted(range(len(scores.names)), key=lambda i: (-place[i], scores.names[i]))
    names = [scores.names[i] for i in order]
    conditions = [Condition("another annotator's windows as the ground truth", "label noise",
                            np.full((len(names), len(windows)), np.nan),
                            why="QVHighlights has no re-annotation by other raters here")]
    return Board("qvhighlights", "QVHighlights", measure, "queries", names, scores.values[order], pub[order], scale,
                 source, tol, data, "original", conditions)
