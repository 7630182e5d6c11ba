"""Which leaderboard orderings survive? The closing chapter's inputs, pair tests, claims, table and chart.

For every benchmark of the book's data (TREC-8 ad hoc, MSR-VTT 1k-A, Charades-STA,
QVHighlights) :func:`leaderboard_inputs` -- the chapter's one input function --
assembles a :class:`Board`: the systems in their *published* order (best first), the
per-topic (per-query) scores that order rests on, the published numbers, and the
per-topic scores under each *threat* (a :class:`Condition`): the re-annotations as the
ground truth, aggregated per query (label noise; the files carry no worker id, so a rating's
slot is no rater), each run scored with its own run or group left out of the pool (pool
bias), the tie rule, the strict IoU > θ, proxy-judged false negatives counted as positives
(a stand-in for human labels). A reader's own TREC runs (``extra_runs``) and Charades-STA predictions
(``predictions``) enter here and are placed in the ordering by their own score.

For every *adjacent* pair (A above B) of the published ordering, :func:`pair_tests`
computes the mean paired difference A − B with a BCa bootstrap interval at the family-wise
level 1 − 0.05/m (Bonferroni over the board's m adjacent pairs that are not ties; the
unadjusted 95% interval beside it), the two-sided paired randomisation test and the paired
t-test with Holm's adjustment over the same pairs, the smallest difference a paired t-test
detects with this many topics, and the power at the stated effect (:mod:`fireeval.stats.significance`);
:func:`condition_tests` the same difference and interval under each threat.
:func:`pair_claims` states each "A beats B" as a claim of the book's own, with its five
fair-verdict fields; a threat simulated with a stand-in becomes a separate claim with
``standing="stand-in"`` (what the stand-in shows is that record's ``here`` row). A *control*
(``Condition.kind`` in :data:`CONTROL_KINDS`: the original labels on the re-annotated queries
only) is shown beside the threats and never counted as one.

Pairs further apart do not follow from the adjacent ones when an adjacent step is unclear:
:func:`ordering_tests` tests *every* pair of each published ordering (its top
:data:`ORDERING_TOP` systems), Holm's adjustment over all of them, and :func:`ordering_claim`
states "the published ordering holds for every pair" as one family claim with a row per pair.

Power comes from a stated effect (:data:`STATED_EFFECT`): a 5% relative difference, never the
observed step (:func:`pair_power`).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
import math
import re
from dataclasses import dataclass, field

import numpy as np

from fireeval.core.validation import ANY, ARRAY, BOOL, NUMBER, SEED, STR, Instance, Int, Options, Real, validate_params
from fireeval.datasets import SOURCES

__all__ = ["Condition", "Board", "leaderboard_inputs", "pair_tests", "condition_tests", "pair_power", "step_power",
           "family_level", "family_resamples", "pair_ties", "slot_flip_rate", "CONTROL_KINDS", "STATED_EFFECT", "MATERIAL_EFFECT",
           "ORDERING_TOP",
           "stated_effect", "ordering_tests", "ordering_claim", "ordering_chart", "ordering_support",
           "pair_claims", "survival_table", "survival_chart", "analyse", "summary",
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

    @property
    def control(self) -> bool:
        """A control (:data:`CONTROL_KINDS`), shown beside the threats and never counted as one."""
        return self.kind in CONTROL_KINDS


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
    #: Charades-STA: (ratings, systems, queries) scores against each re-annotation slot. The CSVs carry no
    #: worker id: a slot is a row's position within its HIT, not a person (see :func:`slot_flip_rate`).
    slots: object = None
    facts: dict = field(default_factory=dict)  # counts the prose cites (runs, pooled runs, ratings per query)

    @property
    def means(self) -> np.ndarray:
        return self.values.mean(axis=1)

    @property
    def adjacent(self) -> list:
        return [(k, k + 1) for k in range(len(self.names) - 1)]


# ---------------------------------------------------------------- statistics
def _boot(d, n_resamples: int, seed: int) -> np.ndarray:
    """Bootstrap means of each row of ``d`` (pairs x topics), topics resampled together: (B, pairs).

    :func:`fireeval.stats.resampling.bootstrap_means` (the book's one copy), NaN rows as 0."""
    from fireeval.stats.resampling import bootstrap_means

    d = np.atleast_2d(np.asarray(d, dtype=float))
    return bootstrap_means(np.nan_to_num(d), n_resamples=n_resamples, rng=seed).T


def _level_text(level: float) -> str:
    """``95%``, ``99.75%``, ``99%``: the level as printed (never rounded up to 100%)."""
    return f"{100 * level:.4g}%"


@validate_params(m=Int(0), alpha=Real(0, 1, closed="neither"))
def family_level(m: int, alpha: float = 0.05) -> float:
    """The family-wise level 1 − α/m of a Bonferroni interval over ``m`` pairs (``m`` < 1: one pair).

    >>> family_level(20), family_level(5), family_level(0)
    (0.9975, 0.99, 0.95)
    """
    return 1 - alpha / max(int(m), 1)


def _intervals(d, n_resamples: int, seed: int, what: str, level: float = 0.95):
    """``(bca, percentile, t)`` :class:`Estimate` of each row's mean at ``level`` (rows with NaN: None).

    The BCa interval is :func:`fireeval.stats.claims.bca_interval`'s (its jackknife fallback
    included), labelled with the level as printed here (99.75 %, not a rounded 100 %)."""
    from fireeval.stats.claims import Estimate, bca_interval

    d = np.atleast_2d(np.asarray(d, dtype=float))
    ok = np.isfinite(d).all(axis=1)
    out = [(None, None, None)] * len(d)
    if not ok.any():
        return out
    t = d.shape[1]
    boot = _boot(d[ok], n_resamples, seed)
    method = f"{n_resamples} bootstrap resamples of the {t} {what} (seed {seed})"
    lv = _level_text(level)
    for col, row in enumerate(np.flatnonzero(ok)):
        x = d[row]
        value = float(x.mean())
        if _constant(x):  # BCa is 0/0 here (as in fireeval.stats.significance.bca_intervals): the point itself
            same = Estimate(value, value, value, f"the same difference on all {t} {what}: no sampling variability")
            out[row] = (same, same, same)
            continue
        jack = (x.sum() - x) / (t - 1)
        low, high, how = bca_interval(value, boot[:, col], jack, level)
        bca = (Estimate(value, min(low, value), max(high, value), f"{lv} {how}; {method}")
               if np.isfinite(low) and np.isfinite(high) else Estimate(value, np.nan, np.nan, f"{lv} {how}; {method}"))
        pct = Estimate.from_samples(value, boot[:, col], f"{lv} percentile bootstrap; {method}", level=level)
        out[row] = (bca, pct, _t_interval(x, level))
    return out


def _one(unit: str) -> str:
    return {"queries": "query", "topics": "topic"}.get(unit, unit)


def _constant(x) -> bool:
    """Every value equal, up to rounding (the test of :func:`fireeval.stats.significance.bca_intervals`)."""
    x = np.asarray(x, dtype=float)
    return bool(np.ptp(x) <= 16 * np.finfo(float).eps * max(np.abs(x).max(), 1e-300))


#: The kinds of condition that are *controls*, not threats: shown beside the threats, never counted as one.
#: "subset": the original labels on the re-annotated queries only, which separates "fewer queries" from
#: "other labels" in the label-noise rows.
CONTROL_KINDS = ("subset",)

#: The stated effect of every step's power: the smallest difference a reader of a leaderboard would act on.
STATED_EFFECT = 0.05
#: Its source, as the claims cite it. Why this one: Voorhees & Buckley (2002) bin their swap rates by the relative
#: difference (difference / the better score) and take 5% as the smallest difference users notice, after Sparck
#: Jones (1974); being relative it transfers between MAP and R@1 and between score levels; on TREC-8's top runs (MAP
#: about 0.4-0.47) it is about the absolute 0.02 MAP Hauptmann & Lin give for TRECVID and Westerveld quotes.
STATED_EFFECT_SOURCE = ("5% of the better score, the relative difference Voorhees & Buckley (2002), after Sparck Jones, "
                        "call noticeable")
#: The second stated effect, of equal standing: the same source calls a relative difference above 10% *material*. A
#: step is "no power" only when its δ exceeds both: a test that detects a material difference is informative.
MATERIAL_EFFECT = 0.10
MATERIAL_EFFECT_SOURCE = ("10% of the better score, the relative difference Voorhees & Buckley (2002), after Sparck "
                          "Jones, call material")


@validate_params(better=NUMBER, relative=Real(0, 1))
def stated_effect(better: float, relative: float = STATED_EFFECT) -> float:
    """The stated effect of a step whose better system scores ``better``: ``relative`` × ``better``.

    >>> round(stated_effect(0.4), 4)
    0.02
    """
    return float(relative * abs(better))


@validate_params(step=NUMBER, sd=NUMBER, n=Int(1), alpha=Real(0, 1, closed="neither"))
def step_power(step: float, sd: float, n: int, alpha: float = 0.05) -> float:
    """Power of a two-sided paired t-test at level ``alpha`` with ``n`` topics if the true mean difference
    were ``step`` and the per-topic differences had standard deviation ``sd`` (statsmodels TTestPower).
    The book calls it at a *stated* effect (:func:`stated_effect`), never at the observed difference.

    >>> round(step_power(0.0404, 0.1, 50), 2)
    0.8
    """
    from statsmodels.stats.power import TTestPower

    if not (sd > 0) or n < 2 or not np.isfinite(step):
        return float("nan")
    effect = abs(step) / sd
    p = float(TTestPower().power(effect_size=effect, nobs=n, alpha=alpha, alternative="two-sided"))
    # The noncentral t underflows to NaN for a huge effect: the test then always detects it.
    return 1.0 if math.isnan(p) and effect * math.sqrt(n) > 10 else p


@validate_params(d=ANY, effect=NUMBER, unit=STR, alpha=Real(0, 1, closed="neither"),
                 power=Real(0, 1, closed="neither"), resolved=BOOL, source=STR, material=[NUMBER, None],
                 material_source=STR)
def pair_power(d, effect: float, unit: str = "topics", alpha: float = 0.05, power: float = 0.8,
               resolved: bool = False, source: str = STATED_EFFECT_SOURCE, material: float | None = None,
               material_source: str = MATERIAL_EFFECT_SOURCE):
    """The claim's :class:`~fireeval.stats.claims.Power` against a *stated* effect, never the observed step.

    ``effect`` is the smallest difference of interest (:func:`stated_effect`, with its
    ``source``); ``alpha`` the level of the claim's test (α/m for a family of m pairs). The
    minimal detectable difference δ is that of a two-sided paired t-test at ``alpha`` with
    power ``power`` and the spread of the per-topic differences ``d``
    (:func:`fireeval.stats.significance.detectable_difference`):
    :meth:`Power.stated_effect(effect, source, δ) <fireeval.stats.claims.Power.stated_effect>`,
    which has power when δ ≤ effect and otherwise makes the claim "not testable here (no power)".

    ``material`` (optional, larger than ``effect``) is a second stated effect of equal standing
    (:data:`MATERIAL_EFFECT`): when δ exceeds ``effect`` but not ``material`` the test detects a
    material difference, so it has power (the record states the material effect and says the
    noticeable one is below δ); "no power" only when δ exceeds both.

    A step the interval already ``resolved`` (it lies wholly on one side of 0) passed a test
    that evidently could pass: the comparison is then recorded as no control (the verdict
    stands) -- power says what an *unclear* interval means, nothing about a clear one.

    >>> from fireeval.stats.claims import Test
    >>> d = np.random.default_rng(0).normal(0.1, 0.1, 50)
    >>> pair_power(d, 0.05).passes(Test(">", 0)), pair_power(d, 0.02).passes(Test(">", 0))
    (True, False)
    """
    from fireeval.stats.claims import Power
    from fireeval.stats.significance import detectable_difference

    d = np.asarray(d, dtype=float)
    t = len(d)
    if not np.isfinite(d).all() or t < 2:
        return Power.no_control("no per-topic differences for this pair")
    sd = float(d.std(ddof=1))
    if sd == 0 or _constant(d):
        return Power.no_control(f"the difference is the same on all {t} {unit}: no sampling variability, so no "
                                "detectable-difference control applies")
    delta = float(detectable_difference(sd, t, alpha, power))
    both = material is not None and np.isfinite(material) and material > effect
    if resolved and delta > effect:
        also = (f"; against the material {material:.4f} ({material_source}) it is "
                f"{'larger too' if delta > material else 'smaller'}" if both else "")
        return Power.no_control(
            f"the interval resolves the step, so the test could pass; against the stated effect {effect:.4f} "
            f"({source}) its smallest detectable difference δ = {delta:.4f} (power {power:g}, paired t at level "
            f"{alpha:.4g}, {t} {unit}) is larger{also}: an unclear step of that size would have been no evidence")
    if delta <= effect or not both:
        return Power.stated_effect(effect, source, delta)
    if delta <= material:
        return Power.stated_effect(material, f"{material_source}; the noticeable {effect:.4f} ({source}) is below "
                                             f"δ, so only a material difference is detectable", delta)
    return Power.stated_effect(material, f"{material_source}; the noticeable {effect:.4f} ({source}) is smaller "
                                         "still", delta)


@validate_params(board=Instance(Board))
def pair_ties(board: Board) -> list:
    """Per adjacent pair: why it is a tie ("" when not) -- the same score on every topic, or the same
    published number (a tie in the published ordering: its order is the tie-break, not the leaderboard's)."""
    out = []
    for k in range(len(board.names) - 1):
        a, b = board.names[k], board.names[k + 1]
        pa, pb = board.published[k], board.published[k + 1]
        if np.all(board.values[k] == board.values[k + 1]):
            out.append(f"a tie: {a} and {b} score the same on every one of the {board.values.shape[1]} "
                       f"{board.unit}, so the ordering places neither above the other")
        elif np.isfinite(pa) and np.isfinite(pb) and pa == pb:
            out.append(f"a tie in the published ordering: {board.source} gives both {a} and {b} {pa:g}, so the "
                       "published ordering places neither above the other (their order is a tie-break by name)")
        else:
            out.append("")
    return out


@validate_params(board=Instance(Board), n_permutations=Int(1), n_bootstrap=Int(1), seed=SEED,
                 alpha=Real(0, 1, closed="neither"), power=Real(0, 1, closed="neither"))
def pair_tests(board: Board, n_permutations: int = 10_000, n_bootstrap: int = 2000, seed: int = 0,
               alpha: float = 0.05, power: float = 0.8):
    """One row per adjacent pair of ``board``: the query-sampling tests (module docstring).

    The family is the board's adjacent pairs that are not ties (``m`` of them): the primary
    interval ``bca`` is the BCa interval at the family-wise level 1 − α/m (Bonferroni), the
    unadjusted 95% BCa interval is ``bca95``; Holm's adjustment of the randomisation and
    t-test p-values runs over the same m pairs (NaN for a tie). Columns: ``pair`` (1-based),
    ``a``, ``b``, ``mean_a``, ``mean_b``, ``diff``, ``tie`` (why, else ""), ``m``, ``level``,
    ``bca``, ``bca95``, ``percentile``, ``t_interval`` (Estimates at ``level`` but ``bca95``),
    ``ci_low``, ``ci_high`` (of ``bca``), ``p_perm``, ``p_perm_holm``, ``p_t``, ``p_t_holm``,
    ``sd``, ``step`` (the published gap, else ``diff``), ``effect`` (the stated effect,
    :func:`stated_effect` of the better published score, else of ours), ``min_detectable`` (δ at α/m),
    ``power_effect`` (the a-priori power at ``effect``), ``n_topics``, ``permutations``, ``exact``,
    ``p_perm_holm_se`` (the Holm p-value's Monte-Carlo error) and ``near`` (a Holm decision within its
    99% band of α). The p-values, their errors and δ are :func:`fireeval.stats.significance.compare`'s.
    """
    import pandas as pd

    from fireeval.stats.significance import MC_Z, holm, holm_monte_carlo_se

    x = np.ascontiguousarray(board.values, dtype=float)
    t = x.shape[1]
    if len(board.names) < 2:
        return pd.DataFrame()
    ties = pair_ties(board)
    m = sum(not w for w in ties)
    level = family_level(m, alpha)
    # fireeval.compare's paired tests (its sign flips, randomisation and t-test p-values, Monte-Carlo errors and
    # smallest detectable differences at α/m); the family -- and so Holm -- is the adjacent pairs that are not ties
    c = _compare(x, board.names, n_permutations, seed, alpha / max(m, 1), power)
    at = _pair_index(c)
    k_adj = np.array([at[(k, k + 1)] for k in range(len(board.names) - 1)], dtype=int)
    p, p_t = c.pairs["p_perm"][k_adj], c.pairs["p_t"][k_adj]
    p_t = np.where(np.isnan(p_t), 1.0, p_t)  # tied systems: nothing to reject
    d = x[:-1] - x[1:]
    sd = d.std(axis=1, ddof=1)
    est = _intervals(d, n_bootstrap, seed, board.unit, level)
    est95 = _intervals(d, n_bootstrap, seed, board.unit, 0.95)
    rows = []
    for k in range(len(k_adj)):
        bca, pct, t_int = est[k]
        gap = (board.published[k] - board.published[k + 1]) / board.scale
        step = float(gap) if np.isfinite(gap) else float(d[k].mean())
        better = (max(board.published[k], board.published[k + 1]) / board.scale
                  if np.isfinite(board.published[[k, k + 1]]).all() else max(x[k].mean(), x[k + 1].mean()))
        effect = stated_effect(better)
        rows.append({"effect_material": stated_effect(better, MATERIAL_EFFECT), "pair": k + 1, "a": board.names[k], "b": board.names[k + 1], "mean_a": float(x[k].mean()),
                     "mean_b": float(x[k + 1].mean()), "diff": float(d[k].mean()), "tie": ties[k], "m": m,
                     "level": level, "bca": bca, "bca95": est95[k][0], "percentile": pct, "t_interval": t_int,
                     "ci_low": bca.low, "ci_high": bca.high, "p_perm": float(p[k]), "p_t": float(p_t[k]),
                     "sd": float(sd[k]), "step": step, "effect": effect,
                     "min_detectable": float(c.pairs["min_detectable"][k_adj[k]]),
                     "power_effect": step_power(effect, float(sd[k]), t, alpha / max(m, 1)),
                     "n_topics": t, "permutations": int(c.n_permutations), "exact": bool(c.exact)})
    table = pd.DataFrame(rows)
    if len(table):
        free = ~table["tie"].astype(bool).to_numpy()
        for col in ("p_perm", "p_t"):
            adj = np.full(len(table), np.nan)
            if free.any():
                adj[free] = holm(table.loc[free, col].to_numpy())
            table[f"{col}_holm"] = adj
        se = np.full(len(table), np.nan)
        if free.any():
            se[free] = holm_monte_carlo_se(table.loc[free, "p_perm"].to_numpy(), c.pairs["p_perm_se"][k_adj][free])
        table["p_perm_holm_se"] = se
        table["near"] = (se > 0) & (np.abs(table["p_perm_holm"].to_numpy() - alpha) < MC_Z * se)
    return table


def _compare(values, names, n_permutations: int, seed: int, alpha: float, power: float = 0.8):
    """:func:`fireeval.stats.significance.compare` of every pair of ``values`` (systems x topics), without its
    intervals (the claims use :func:`_intervals`, whose BCa falls back to the jackknife interval where unstable)
    and without the Tukey HSD test; ``alpha`` and ``power`` set its ``min_detectable``."""
    import warnings

    from fireeval.stats.significance import compare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # tied systems: scipy's t-test warns of precision loss
        return compare(np.asarray(values, dtype=float), [str(n) for n in names], n_permutations=int(n_permutations),
                       seed=seed, alpha=alpha, power=power, n_bootstrap=0, tukey=False)


def _pair_index(comparison) -> dict:
    """``{(i, j): k}``: the row of each pair of systems in a :class:`~fireeval.stats.significance.Comparison`."""
    return {(int(i), int(j)): k for k, (i, j) in enumerate(zip(comparison.pairs["i"], comparison.pairs["j"]))}


def _t_interval(d, level: float = 0.95):
    """The paired t-test's interval of the mean difference (Student, T − 1 degrees of freedom)."""
    from scipy.stats import t as student

    from fireeval.stats.claims import Estimate

    d = np.asarray(d, dtype=float)
    n, mean = len(d), float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    half = float(student.ppf(0.5 + level / 2, n - 1)) * se
    return Estimate(mean, mean - half, mean + half, f"{_level_text(level)} paired t interval ({n - 1} degrees of "
                    "freedom)")


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


@validate_params(board=Instance(Board), n_bootstrap=Int(1), seed=SEED, level=[Real(0, 1), None])
def condition_tests(board: Board, n_bootstrap: int = 2000, seed: int = 0, level: float | None = None):
    """One row per pair and threat: the difference A − B under it, with its BCa interval.

    Rows for every adjacent pair (``adjacent`` True, ``pair`` its 1-based place) and, for a
    stand-in threat computable on no adjacent pair, for the pairs where it is
    (:func:`_stand_in_pairs`; ``pair`` 0). An adjacent pair's interval is at ``level`` (default:
    the family-wise level of :func:`pair_tests`, so that a threat row and the primary interval
    are read alike); a non-adjacent stand-in pair's at 95% (it is no step of the ordering).
    Columns: ``pair``, ``i``, ``j``, ``adjacent``,
    ``a``, ``b``, ``condition``, ``kind``, ``standing``, ``primary``, ``diff``, ``bca``,
    ``ci_low``, ``ci_high``, ``n_topics``, ``why`` (why it cannot be computed, else empty).
    """
    import pandas as pd

    adjacent = [(k, k + 1) for k in range(len(board.names) - 1)]
    others = [p for p in _stand_in_pairs(board) if p not in adjacent]
    if level is None:
        level = family_level(sum(not w for w in pair_ties(board)))
    rows = []
    for c, cond in enumerate(board.conditions):
        v = np.asarray(cond.values, dtype=float)
        pairs = adjacent + (others if cond.standing == "stand-in" else [])
        if not pairs:
            continue
        est = _condition_intervals(board, v, pairs, n_bootstrap, seed + 1 + c, level)
        rows.extend(_condition_row(board, cond, i, j, bca, v.shape[1]) for (i, j), (bca, _, _) in zip(pairs, est))
    return pd.DataFrame(rows, columns=["pair", "i", "j", "adjacent", "a", "b", "condition", "kind", "standing",
                                       "primary", "diff", "bca", "ci_low", "ci_high", "n_topics", "why"])


def _condition_intervals(board: Board, v, pairs, n_bootstrap: int, seed: int, level: float) -> list:
    """The intervals of A − B under one condition's scores ``v`` for ``pairs``: an adjacent pair's at
    ``level``, any other pair's at 95%."""
    pi, pj = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    est = _intervals(v[pi] - v[pj], n_bootstrap, seed, board.unit, level)
    est95 = _intervals(v[pi] - v[pj], n_bootstrap, seed, board.unit, 0.95) if level != 0.95 else est
    return [e if j == i + 1 else e95 for (i, j), e, e95 in zip(pairs, est, est95)]


def _condition_row(board: Board, cond: Condition, i: int, j: int, bca, n_topics: int) -> dict:
    """One row of :func:`condition_tests`: pair ``i`` over ``j`` under ``cond``, with its interval ``bca``."""
    computed = bca is not None
    return {"pair": i + 1 if j == i + 1 else 0, "i": i, "j": j, "adjacent": j == i + 1,
            "a": board.names[i], "b": board.names[j], "condition": cond.name,
            "kind": cond.kind, "standing": cond.standing, "primary": cond.primary,
            "diff": bca.value if computed else np.nan, "bca": bca,
            "ci_low": bca.low if computed else np.nan, "ci_high": bca.high if computed else np.nan,
            "n_topics": n_topics, "why": "" if computed else (cond.why or "not computable")}


#: Every pair of a published ordering is tested among its top this many systems (TREC-8: 15 of 129 runs, 105 pairs).
ORDERING_TOP = 15


@validate_params(m=Int(0), alpha=Real(0, 1, closed="neither"), tail=Int(0))
def family_resamples(m: int, alpha: float = 0.05, tail: int = 5) -> int:
    """Bootstrap resamples that leave ``tail`` resamples beyond each end of an interval at 1 − α/m.

    At TREC-8's 104 pairs (99.95 %) 2000 resamples put 0.5 of a resample beyond each end, so every BCa
    interval runs into the extreme replicates and the jackknife interval replaces it; the ordering's
    intervals use at least this many (its steps keep ``n_bootstrap``).

    >>> family_resamples(104), family_resamples(3)
    (20800, 600)
    """
    return int(math.ceil(tail * 2 * max(int(m), 1) / alpha))


@validate_params(board=Instance(Board), n_permutations=Int(1), n_bootstrap=Int(1), seed=SEED, top=Int(1),
                 alpha=Real(0, 1, closed="neither"))
def ordering_tests(board: Board, n_permutations: int = 10_000, n_bootstrap: int = 2000, seed: int = 0,
                   top: int = ORDERING_TOP, alpha: float = 0.05):
    """Every pair (A above B) of the board's top ``top`` systems in published order, not only adjacent ones.

    A pair further apart does not follow from the adjacent steps when a step is unclear, so
    each is tested: the mean paired difference A − B with its BCa interval at the family-wise
    level 1 − α/M (Bonferroni over the M pairs that are not ties; :func:`_intervals`, whose
    BCa falls back to the jackknife interval where the tails are unstable), the percentile and
    paired t intervals at the same level, and the two-sided paired randomisation test of
    :func:`fireeval.stats.significance.compare` (shared sign flips) with Holm's adjustment over the
    M pairs. Ties (the same score on every topic, or the same published number) are kept with
    ``tie`` saying why and no test. The sign flips are ``n_permutations``, raised to what Holm over M pairs needs
    (:func:`fireeval.stats.significance.auto_permutations`); ``holm_se`` is each Holm p-value's
    Monte-Carlo error and ``near`` marks a decision within its 99% band of 0.05. ``None`` for a board
    of fewer than three systems (its one pair is its adjacent step). Columns: ``i``, ``j``, ``a``,
    ``b``, ``adjacent``, ``tie``, ``diff``, ``bca``, ``percentile``, ``t_interval``, ``ci_low``,
    ``ci_high``, ``p_perm``, ``p_holm``, ``holm_se``, ``near``, ``M``, ``level``; ``attrs``: ``top``,
    ``systems``, ``permutations``, ``exact``, ``raised`` (why the flips were raised, else "").

    >>> x = np.array([[0.9, 0.8, 0.95, 0.7], [0.5, 0.6, 0.4, 0.5], [0.1, 0.2, 0.15, 0.1]])
    >>> b = Board("toy", "Toy", "s", "queries", ["A", "B", "C"], x, np.full(3, np.nan), 1.0, "-", 0.01, "real: toy",
    ...           "original")
    >>> t = ordering_tests(b, 200, 200)
    >>> list(zip(t["a"], t["b"])), int(t["M"].iloc[0])
    ([('A', 'B'), ('A', 'C'), ('B', 'C')], 3)
    """
    import pandas as pd

    from fireeval.stats.significance import MC_Z, auto_permutations, holm, holm_monte_carlo_se

    n = min(int(top), len(board.names))
    if n < 3:
        return None
    x = np.ascontiguousarray(board.values[:n], dtype=float)
    t = x.shape[1]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]  # fireeval.compare's order of the pairs
    ties = []
    for i, j in pairs:
        pa, pb = board.published[i], board.published[j]
        if np.all(x[i] == x[j]):
            ties.append(f"a tie: the same score on every one of the {t} {board.unit}")
        elif np.isfinite(pa) and np.isfinite(pb) and pa == pb:
            ties.append(f"a tie in the published ordering ({board.source} gives both {pa:g})")
        else:
            ties.append("")
    free = np.array([not w for w in ties])
    m = int(free.sum())
    level = family_level(m, alpha)
    pi, pj = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    # Holm over M pairs needs enough flips to reach its smallest thresholds (fireeval compare's automatic rule)
    wanted, why = auto_permutations(m, t, alpha)
    c = _compare(x, board.names[:n], max(int(n_permutations), wanted), seed, alpha)
    at = _pair_index(c)
    k_pairs = np.array([at[pair] for pair in pairs], dtype=int)
    p, p_se = c.pairs["p_perm"][k_pairs], c.pairs["p_perm_se"][k_pairs]
    adj, se = np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    if free.any():  # Holm over the pairs that are not ties (compare's own Holm when none is)
        adj[free] = holm(p[free])
        se[free] = holm_monte_carlo_se(p[free], p_se[free])
    n_bootstrap = max(int(n_bootstrap), family_resamples(m, alpha))  # enough resamples in the tails at 1 − α/M
    est = _intervals(x[pi] - x[pj], n_bootstrap, seed, board.unit, level)
    rows = [{"i": i, "j": j, "a": board.names[i], "b": board.names[j], "adjacent": j == i + 1, "tie": tie,
             "diff": float((x[i] - x[j]).mean()), "bca": e[0], "percentile": e[1], "t_interval": e[2],
             "ci_low": e[0].low, "ci_high": e[0].high, "p_perm": float(p[k]) if not tie else np.nan,
             "p_holm": float(adj[k]), "holm_se": float(se[k]),
             "near": bool(np.isfinite(se[k]) and se[k] > 0 and abs(adj[k] - alpha) < MC_Z * se[k]),
             "M": m, "level": level}
            for k, ((i, j), tie, e) in enumerate(zip(pairs, ties, est))]
    table = pd.DataFrame(rows)
    table.attrs.update(top=n, systems=list(board.names[:n]), permutations=int(c.n_permutations), exact=bool(c.exact),
                       n_bootstrap=n_bootstrap,
                       raised=why if int(c.n_permutations) > int(n_permutations) else "")
    return table


@validate_params(table=ANY)
def ordering_support(table) -> dict:
    """What the data support of one published ordering (:func:`ordering_tests`): counts over its M pairs.

    ``pairs`` (M), ``hold`` / ``reversed`` / ``unclear`` (by the family-wise interval),
    ``holm_hold`` (Holm-adjusted randomisation p < 0.05 with A above B), ``holm_near`` (Holm decisions
    within their Monte-Carlo error of 0.05), ``permutations`` (sign flips used), ``t_hold`` (paired t
    intervals at the same level above 0), ``fallback`` (intervals
    whose BCa was replaced by the jackknife interval), ``supported`` (every pair holds),
    ``leader`` (the system significantly above the most others, by the interval) and
    ``leader_above`` (how many), ``above`` ({system: how many below it it is significantly above}); the
    same by Holm's randomisation test: ``holm_leader``, ``holm_leader_above``, ``holm_above``.
    """
    if table is None or not len(table):
        return {}
    free = table[~table["tie"].astype(bool)]
    words = [_verdict_word(e) for e in free["bca"]]
    above = {name: 0 for name in table.attrs.get("systems", [])}
    holm_above = dict(above)
    for (_, r), w in zip(free.iterrows(), words):
        above[r["a"]] = above.get(r["a"], 0) + (w == "holds")
        holm_above[r["a"]] = holm_above.get(r["a"], 0) + bool(r["p_holm"] < 0.05 and r["diff"] > 0)
    first = lambda counts: max(counts, key=lambda k: (counts[k], -list(counts).index(k))) if counts else "n/a"  # noqa
    leader, holm_leader = first(above), first(holm_above)
    return {"pairs": len(free), "hold": words.count("holds"), "reversed": words.count("reversed"),
            "unclear": words.count("unclear"),
            "holm_hold": int(((free["p_holm"] < 0.05) & (free["diff"] > 0)).sum()),
            "t_hold": int(sum(_verdict_word(e) == "holds" for e in free["t_interval"])),
            "holm_near": int(free["near"].sum()), "permutations": int(table.attrs.get("permutations", 0)),
            "fallback": int(sum("jackknife" in (e.method or "") for e in free["bca"])),
            "resamples": int(table.attrs.get("n_bootstrap", 0)),
            "supported": "yes" if words and all(w == "holds" for w in words) else "no",
            "top": int(table.attrs.get("top", 0)), "systems": len(above),
            "leader": leader, "leader_above": above.get(leader, 0), "above": above,
            "holm_leader": holm_leader, "holm_leader_above": holm_above.get(holm_leader, 0), "holm_above": holm_above}


# ---------------------------------------------------------------- claims
#: Why each kind of condition has the weight it has in a step's sensitivity rows.
WEIGHT_REASONS = {
    "subset": "a control, not a threat: the original labels on the re-annotated queries only, shown to separate "
              "'fewer queries' from 'other labels' in the label-noise rows",
}


def _weight(kind: str) -> dict:
    """A condition's weight: a control is secondary (with its reason); a threat -- other annotators' labels, the
    pool without the run's own documents, another tie rule or IoU comparison -- is a reading of equal standing
    with the official scores, so a flip there makes the step *depends*."""
    if kind in CONTROL_KINDS:
        return {"weight": "secondary", "reason": WEIGHT_REASONS.get(kind, "a control, not a threat")}
    return {"weight": "equal"}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(name)).strip("_") or "x"


def _published(board: Board, i: int) -> str:
    v = board.published[i]
    return "not published" if not np.isfinite(v) else f"{v:g}"


def _synthetic(board: Board) -> bool:
    return board.data.startswith(("stand-in: synthetic", "synthetic"))


def _claim(board: Board, i: int, j: int, section: str, m: int = 1, untestable: str | None = None):
    """The claim "A beats B" (systems ``i`` above ``j``), before evaluation; ``m``: the family's size."""
    from fireeval.stats.claims import Claim, Reading, Test

    a, b = board.names[i], board.names[j]
    t = board.values.shape[1]
    level = (f"its BCa interval at the family-wise level 1 − 0.05/{m} = {_level_text(family_level(m))} "
             f"(Bonferroni over the {m} adjacent pairs of this leaderboard that are not ties)" if m > 1
             else "its 95% BCa interval")
    reading = Reading(
        f"'{a} beats {b}' read as: the mean paired per-{_one(board.unit)} difference in {board.measure} is "
        f"above 0, {level} over the {t} {board.unit} wholly above 0; contradicted when wholly below",
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


@validate_params(board=Instance(Board), tests=ANY, conditions=ANY)
def pair_claims(board: Board, tests, conditions) -> list[dict]:
    """The claims of one board: "A beats B" for every adjacent pair, and the stand-in threats' claims.

    Primary verdict: the BCa interval of the mean paired difference over the topics at the
    family-wise level 1 − 0.05/m (Bonferroni over the board's m adjacent pairs that are not
    ties), test ``> 0``. Sensitivity rows, each with its weight: the unadjusted 95% BCa interval
    (kind "multiplicity", secondary: a diagnostic); the percentile and paired t intervals at the
    family level (interval method: a flip caps the label at inconclusive); every threat of standing
    ``original`` at the family level (equal: a flip makes it *depends*), every control (secondary,
    :data:`CONTROL_KINDS`), and those that cannot be computed for this pair, with why. A tie -- the same score on every topic, or the same published
    number -- is "not testable here". The randomisation and t-test p-values with Holm's adjustment over
    the m pairs are in the notes (a p-value above 0.05 is no evidence against A beating B, so it is not
    shown as a verdict row). Power: :func:`pair_power` against the stated effect at the family
    level. A threat simulated with a stand-in (``standing="stand-in"``) gets its own claim (its
    verdict "not testable here", what the stand-in shows in its ``here`` row) decided by its primary
    condition, with the other conditions of that kind as secondary rows (the threshold sweep).
    """
    records = [_pair_record(board, tests, conditions, row) for _, row in tests.iterrows()]
    n = len(tests)
    stand = conditions[(conditions["standing"] == "stand-in") & conditions["bca"].notna()]
    for (i, j, kind), group in stand.groupby(["i", "j", "kind"], sort=False):
        section = (f"{board.title}, adjacent pair {i + 1} of {n}" if j == i + 1 else
                   f"{board.title}: the pair on which {kind} can be counted (not adjacent)")
        m = int(tests["m"].iloc[0]) if (j == i + 1 and len(tests)) else 1  # adjacent: in the family
        records.extend(_stand_in_claims(board, int(i), int(j), group, kind,
                                        _claim(board, int(i), int(j), section, m), m))
    return records


def _pair_record(board: Board, tests, conditions, row) -> dict:
    """The evaluated claim of one adjacent pair: ``row`` of :func:`pair_tests` with its notes, its
    sensitivity rows (:func:`_pair_sensitivity`) and its power."""
    k = int(row["pair"]) - 1
    d = board.values[k] - board.values[k + 1]
    m = int(row["m"])
    claim = _claim(board, k, k + 1, f"{board.title}, adjacent pair {k + 1} of {len(tests)}", m,
                   untestable=row["tie"] or None)
    evidence = _evidence(board, k, k + 1, [row["mean_a"], row["mean_b"]])
    claim.notes = _pair_notes(row, m)
    sens = _pair_sensitivity(board, tests, conditions, row, k, m)
    power = pair_power(d, row["effect"], board.unit, 0.05 / max(m, 1), resolved=_verdict_word(row["bca"])
                       in ("holds", "reversed"), material=row["effect_material"])
    return claim.evaluate(row["bca"], evidence=evidence, power=power, sensitivity=[] if row["tie"] else sens)


def _pair_notes(row, m: int) -> str:
    """A pair's randomisation and t-test p-values (with Holm over the ``m`` pairs and the Monte-Carlo error)."""
    mc = row.get("p_perm_holm_se", np.nan)
    near = ", within 2.58 errors of 0.05: another seed may decide it the other way" if row.get("near") else ""
    mc = f" ± {mc:.2g} (Monte-Carlo error{near})" if np.isfinite(mc) and mc > 0 else ""
    holm = "" if row["tie"] else (f", Holm over the {m} adjacent pairs that are not ties p = "
                                  f"{row['p_perm_holm']:.4g}{mc}; paired t-test Holm p = {row['p_t_holm']:.4g}")
    return (f"paired randomisation test ({row['permutations']} sign flips{', exact' if row['exact'] else ''}"
            f"): p = {row['p_perm']:.4g}{holm}" + "".join(f"; {x}" for x in row.get("notes", []) or []))


def _pair_sensitivity(board: Board, tests, conditions, row, k: int, m: int) -> list:
    """The sensitivity rows of adjacent pair ``k``: the unadjusted and other-method intervals, the slot draws
    (Charades-STA) and every condition but a computed stand-in's (that one has its own claim)."""
    from fireeval.stats.claims import Alternative

    lv = _level_text(float(row["level"]))
    sens = [Alternative("95% BCa interval, unadjusted (this pair alone)", row["bca95"], kind="multiplicity",
                        weight="secondary", reason=f"a diagnostic: the step is one of a family of {m}, and an "
                        "interval that ignores the family overstates what one step shows"),
            Alternative(f"{lv} percentile bootstrap interval", row["percentile"], kind="interval method",
                        weight="equal"),
            Alternative(f"{lv} paired t interval", row["t_interval"], kind="interval method", weight="equal")]
    draw = getattr(tests, "attrs", {}).get("slot_flips", {}).get(k + 1)
    if draw is not None and len(draw) > 2:
        sens.append(Alternative(
            f"one of the {_n_ratings(board)} ratings drawn at random per query: unclear in {draw[0]} of {draw[1]} "
            "draws (the median draw shown)", draw[2], kind="label noise", weight="secondary",
            reason=f"a diagnostic, not a rater: the re-annotation files carry no worker id, so a draw mixes "
                   f"raters query by query; it shows how often one rating per query leaves the step unclear "
                   f"({draw[0]} of {draw[1]} draws); the per-query aggregates are the readings of standing"))
    mine = conditions[conditions["pair"] == k + 1]
    for _, c in mine.iterrows():
        if c["standing"] == "stand-in" and c["bca"] is not None:
            continue  # its own claim below
        weight = _weight(c["kind"])
        if c["bca"] is None:
            sens.append(Alternative(c["condition"], kind=c["kind"], why=c["why"], **weight))
        else:
            sens.append(Alternative(c["condition"], c["bca"], kind=c["kind"], **weight))
    return sens


def _n_ratings(board: Board) -> int:
    return int(np.asarray(board.slots).shape[0]) if board.slots is not None else 0


def _stand_in_claims(board, i, j, group, kind, claim, m: int = 1) -> list[dict]:
    from dataclasses import replace

    from fireeval.stats.claims import Alternative, Evidence

    a, b = board.names[i], board.names[j]
    primary = group[group["primary"]]
    first = (primary if len(primary) else group).iloc[0]
    cond = next(c for c in board.conditions if c.name == first["condition"])
    d = cond.values[i] - cond.values[j]
    sens = [Alternative(r["condition"], r["bca"], kind=r["kind"], weight="secondary",
                        reason=f"the sweep of the stand-in's threshold; {first['condition']} (the false-negatives "
                               "chapter's default) decides, as there") for _, r in group.iterrows()
            if r["condition"] != first["condition"]]
    st = replace(claim, id=f"{claim.id}.{_slug(kind)}", standing="stand-in",
                 quote=f"{a} beats {b} on {board.title} by {board.measure} with {kind} counted",
                 quantity=f"mean paired difference {a} − {b} in {board.measure} under {first['condition']}",
                 data=f"stand-in: {cond.about or first['condition']}",
                 short=f"{board.title}: {a} beats {b} with {kind} counted (stand-in labels)")
    better = max(float(np.nanmean(cond.values[i])), float(np.nanmean(cond.values[j])))
    power = pair_power(d, stated_effect(better), board.unit, 0.05 / max(m, 1),
                       resolved=_verdict_word(first["bca"]) in ("holds", "reversed"),
                       material=stated_effect(better, MATERIAL_EFFECT))
    evidence = Evidence.none(f"no published {board.measure} with {kind} counted exists for these runs")
    # One record: what the proxy shows is its ``here`` row (Claim.evaluate puts it there).
    return [st.evaluate(first["bca"], evidence=evidence, power=power, sensitivity=sens)]


def _ordering_threats(board: Board, free, level: float, n_bootstrap: int, seed: int) -> list:
    """The ordering claim's threat rows: every condition of ``board`` computable for every pair of ``free``
    (stand-ins left to their own claims), each a family :class:`Alternative` with a row per pair at ``level``,
    weighted as in the step claims (:func:`_weight`: a threat is of equal standing, a control secondary)."""
    from fireeval.stats.claims import Alternative

    pi, pj = free["i"].to_numpy(dtype=int), free["j"].to_numpy(dtype=int)
    out = []
    for c, cond in enumerate(board.conditions):
        v = np.asarray(cond.values, dtype=float)
        if cond.standing == "stand-in" or not np.isfinite(v[np.r_[pi, pj]]).all():
            continue
        est = _intervals(v[pi] - v[pj], n_bootstrap, seed + 101 + c, board.unit, level)
        out.append(Alternative(f"{cond.name}: every pair at {_level_text(level)}", kind=cond.kind,
                               conditions={f"{r['a']} > {r['b']}": e[0] for (_, r), e in zip(free.iterrows(), est)},
                               **_weight(cond.kind)))
    return out


@validate_params(board=Instance(Board), table=ANY, n_bootstrap=Int(1), seed=SEED)
def ordering_claim(board: Board, table, n_bootstrap: int = 2000, seed: int = 0) -> dict | None:
    """"The published ordering of the top systems holds for every pair": one family claim, a row per pair.

    :meth:`Claim.evaluate_family` over the M pairs of :func:`ordering_tests` that are not ties,
    each judged by its own interval at the family-wise level 1 − 0.05/M, ``need="all"``: it
    holds when every pair does, is contradicted when a pair is reversed, else inconclusive --
    and the row says how many pairs hold. The percentile and paired t intervals are family
    sensitivity rows (interval method); every threat computable for every pair is a family row of equal
    standing, every control a secondary one (:func:`_ordering_threats`, as in the step claims).
    Holm's randomisation p-values are in the notes.
    Power: no control -- each pair has its own spread; the median smallest detectable
    difference at α/M is stated beside the median stated effect.
    """
    from fireeval.stats.claims import Alternative, Claim, Evidence, Power, Reading, Test
    from fireeval.stats.significance import detectable_difference

    if table is None:
        return None
    free = table[~table["tie"].astype(bool)]
    if not len(free):
        return None
    m, level = int(free["M"].iloc[0]), float(free["level"].iloc[0])
    n, t = int(table.attrs["top"]), board.values.shape[1]
    lv = _level_text(level)
    name = lambda r: f"{r['a']} > {r['b']}"  # noqa: E731
    top = f"top {n}" if n < len(board.names) else f"{n}"
    claim = Claim(
        f"lb.{board.key}.ordering", paper="this book", section=f"{board.title}: every pair of the {top} systems",
        quote=f"the published {board.measure} ordering of the {top} systems of {board.title} holds for every pair",
        quantity=f"mean paired difference A − B in {board.measure} over the {t} {board.unit}, for each of the {m} "
                 "pairs (A above B in the published ordering)",
        test=Test(">", 0), data=board.data, standing="stand-in" if _synthetic(board) else board.standing,
        reading=Reading(f"every pair A above B read as: its {lv} BCa interval (Bonferroni over the {m} pairs) wholly "
                        "above 0; a pair further apart is tested, not inferred from the adjacent steps",
                        f"{board.title} ordering by {board.measure}", "book's own question", board.source),
        fmt=".4f", short=f"{board.title}: the {board.measure} ordering of the {top} holds for every pair")
    sup = ordering_support(table)
    claim.notes = (f"paired randomisation test ({table.attrs['permutations']} sign flips), Holm over the {m} pairs: "
                   f"{sup['holm_hold']} of {m} pairs significant at 0.05 with A above B, {sup['holm_leader']} above "
                   f"{sup['holm_leader_above']} others; {sup['holm_near']} decision(s) within the Monte-Carlo error "
                   f"of 0.05. By the family-wise interval {sup['leader']} is above {sup['leader_above']} others")
    sd = np.array([float((board.values[r['i']] - board.values[r['j']]).std(ddof=1)) for _, r in free.iterrows()])
    delta = float(np.median(detectable_difference(sd, t, 0.05 / m))) if t > 1 else float("nan")
    better = np.median([max(board.values[r['i']].mean(), board.values[r['j']].mean()) for _, r in free.iterrows()])
    power = Power.no_control(f"each pair has its own spread: the median smallest detectable difference at level "
                             f"0.05/{m} (power 0.8) is {delta:.4f}, against median stated effects of "
                             f"{stated_effect(better):.4f} ({STATED_EFFECT_SOURCE}) and "
                             f"{stated_effect(better, MATERIAL_EFFECT):.4f} ({MATERIAL_EFFECT_SOURCE}); an unclear "
                             "pair far apart from δ means too few topics, not equal systems")
    conds = {name(r): r["bca"] for _, r in free.iterrows()}
    sens = [Alternative(f"{lv} {what} intervals", kind="interval method", weight="equal",
                        conditions={name(r): r[col] for _, r in free.iterrows()})
            for what, col in (("percentile bootstrap", "percentile"), ("paired t", "t_interval"))]
    sens += _ordering_threats(board, free, level, max(int(n_bootstrap), int(table.attrs.get("n_bootstrap", 0))), seed)
    pub = board.published[:n]
    evidence = (Evidence.compare(pub, board.values[:n].mean(axis=1) * board.scale, board.source, board.tolerance,
                                 detail=f"the {top} systems as published beside ours (×{board.scale:g}). "
                                        f"{board.detail}".strip())
                if np.isfinite(pub).all() else
                Evidence.none(f"no published {board.measure} for every system; the ordering is that of the scores "
                              f"computed here ({board.source})"))
    return claim.evaluate_family(conds, multiplicity=f"Bonferroni: each pair's interval at 1 − 0.05/{m} = {lv}",
                                 need="all", evidence=evidence, power=power, sensitivity=sens)


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


@validate_params(board=Instance(Board), tests=ANY, conditions=ANY)
def survival_table(board: Board, tests, conditions):
    """One row per adjacent pair, narrow enough for the text column: the published numbers (when there are
    any), the difference with its family-wise BCa interval, Holm's p, the smallest detectable difference δ
    at α/m beside the stated effect, the verdict under query sampling, and per threat whether the ordering
    holds under every condition of that threat ("holds k/k"), is reversed under some ("reversed k/n"), or
    not ("unclear k/n": k of n hold); "—" where the threat cannot be computed for the pair, "tie" for two
    systems equal on every topic. A stand-in threat computable on no adjacent pair adds a row for each pair
    it is computed on. ``attrs["threats"]``: the threat and control columns (the chapter shows them as a
    second table)."""
    import pandas as pd

    from fireeval.stats.claims import format_estimate

    def threats(row, mine):
        for kind, group in mine.groupby("kind", sort=False):
            words = [_verdict_word(e) for e in group["bca"]]
            known = [w for w in words if w != "—"]
            label = kind + (" (stand-in)" if (group["standing"] == "stand-in").any() else
                            " (control)" if kind in CONTROL_KINDS else "")
            columns.setdefault(label, None)
            if not known:
                row[label] = "—"
            elif "reversed" in known:
                row[label] = f"reversed {known.count('reversed')}/{len(known)}"
            elif all(w == "holds" for w in known):
                row[label] = f"holds {len(known)}/{len(known)}"
            else:
                row[label] = f"unclear {known.count('holds')}/{len(known)}"
        return row

    rows, columns = [], {}
    flips = getattr(tests, "attrs", {}).get("slot_flips", {})
    published = bool(np.isfinite(board.published).any())
    for _, r in tests.iterrows():
        k = int(r["pair"]) - 1
        tie = bool(r["tie"])
        row = {"pair": f"{r['a']} > {r['b']}"}
        if published:
            row["published"] = f"{_published(board, k)} / {_published(board, k + 1)}"
        row.update({"A − B [BCa]": format_estimate(r["bca"], ".4f"), "p (Holm)": r["p_perm_holm"],
                    "δ": r["min_detectable"],
                    f"effect {STATED_EFFECT:.0%} / {MATERIAL_EFFECT:.0%}": f"{r['effect']:.4f} / {r['effect_material']:.4f}",
                    "query sampling": ("tie (published)" if "published" in r["tie"] else "tie") if tie
                    else _verdict_word(r["bca"])})
        if flips:
            f = flips.get(k + 1)
            columns.setdefault("random rating: unclear", None)
            row["random rating: unclear"] = "" if f is None else f"{f[0]}/{f[1]}"
        mine = conditions[conditions["pair"] == k + 1]
        rows.append(row if tie else threats(row, mine))
    extra = conditions[~conditions["adjacent"].astype(bool)] if len(conditions) else conditions
    for (i, j), mine in extra.groupby(["i", "j"], sort=False):
        row = {"pair": f"{board.names[i]} > {board.names[j]} (not adjacent)"}
        if published:
            row["published"] = f"{_published(board, i)} / {_published(board, j)}"
        rows.append(threats(row, mine))
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows).set_index("pair").astype(object)
    frame = frame.where(frame.notna(), "")
    frame.attrs["threats"] = [c for c in columns if c in frame.columns]
    return frame


@validate_params(board=Instance(Board), tests=ANY, conditions=ANY)
def survival_chart(board: Board, tests, conditions):
    """Each adjacent pair's difference A − B with its family-wise BCa interval, under query sampling and every
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
              "kind": r["kind"] + (" (stand-in)" if r["standing"] == "stand-in" else
                                   " (control)" if r["kind"] in CONTROL_KINDS else ""), "diff": r["diff"],
              "low": r["ci_low"], "high": r["ci_high"]} for _, r in conditions.iterrows() if r["bca"] is not None]
    data = pd.DataFrame(rows)
    lv = _level_text(tests["level"].iloc[0]) if len(tests) else "95%"
    y = alt.Y("pair:N", title=None, sort=None, axis=alt.Axis(labelLimit=420))
    tip = ["pair", "condition", alt.Tooltip("diff:Q", format=".4f"), alt.Tooltip("low:Q", format=".4f"),
           alt.Tooltip("high:Q", format=".4f")]
    fixed = ["query sampling", "pool bias", "label noise", "subset (control)", "false negatives (stand-in)", "tie rule",
             "IoU convention"]
    fixed += sorted(set(data["kind"]) - set(fixed))
    colours = dict(zip(fixed, plotting.PALETTE * 2))  # the same colour for a condition in every chart
    kinds = [k for k in fixed if k in set(data["kind"])]
    colour = alt.Color("kind:N", title="condition",
                       scale=alt.Scale(domain=kinds, range=[colours[k] for k in kinds]))
    rules = alt.Chart(data).mark_rule(opacity=0.6).encode(
        y=y, x=alt.X("low:Q", title=f"A − B in {board.measure} ({lv} BCa interval)"), x2="high:Q",
        color=colour, yOffset="condition:N", tooltip=tip)
    points = alt.Chart(data).mark_point(filled=True, size=30).encode(
        y=y, x="diff:Q", color=colour, yOffset="condition:N", tooltip=tip)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="black", strokeDash=[4, 3]).encode(x="x:Q")
    height = max(120, 26 * len(tests) + 4 * len(data))
    # drawn to fit the text column at the first rendering (legend below, the plot beside the longest pair label:
    # about 7 px a character), not found by plotting.fit_to_column's search, which drew it 11 to 17 times
    label_px = min(420, 7 * max((len(p) for p in data["pair"]), default=10))
    chart = alt.layer(rules, points, zero).properties(width=max(200, plotting.MAX_WIDTH - 60 - label_px), height=height)
    return plotting.titled(chart, f"{board.title}: does each step of the ordering survive?",
                           [f"Each row: an adjacent pair of the published {board.measure} ordering (A above B); each "
                            "mark: the mean", f"paired difference with its {lv} BCa interval (family-wise over the "
                            "adjacent pairs) under one", "condition. Right of the dashed line: A stays above B."]
                           ).configure_legend(orient="bottom", direction="horizontal", titleOrient="top", columns=3)


@validate_params(analyses=Instance(Mapping))
def ordering_chart(analyses: dict):
    """The chapter's key chart: for each benchmark, every pair of its published ordering (:func:`ordering_tests`)
    as one cell -- row A above column B -- coloured by what the family-wise interval says: A stays above B,
    unclear, B above A, or a tie (altair; boards of two systems show their one pair)."""
    import altair as alt
    import pandas as pd

    from fireeval.book import plotting

    words = {"holds": "A above B", "unclear": "unclear", "reversed": "B above A", "tie": "tie"}
    rows = []
    for key, a in analyses.items():
        table = a.ordering
        if table is None:  # two systems: the one adjacent step
            table = a.tests.rename(columns={"p_perm_holm": "p_holm"}).assign(
                i=lambda f: f["pair"] - 1, j=lambda f: f["pair"])
        for _, r in table.iterrows():
            w = "tie" if r["tie"] else _verdict_word(r["bca"])
            rows.append({"benchmark": a.board.title, "A": r["a"], "B": r["b"], "i": int(r["i"]), "j": int(r["j"]),
                         "verdict": words.get(w, w), "diff": r["diff"], "low": r["ci_low"], "high": r["ci_high"],
                         "p (Holm)": r["p_holm"]})
    data = pd.DataFrame(rows)
    domain = list(words.values())
    colour = alt.Color("verdict:N", title="family-wise interval",
                       scale=alt.Scale(domain=domain, range=[plotting.PALETTE[2], "#dddddd", plotting.PALETTE[5],
                                                             "#999999"]), legend=alt.Legend(orient="bottom"))
    charts = []
    for title in dict.fromkeys(data["benchmark"]) if len(data) else []:
        d = data[data["benchmark"] == title]
        a_order = list(dict.fromkeys(d.sort_values("i")["A"]))
        b_order = list(dict.fromkeys(d.sort_values("j")["B"]))
        size = 15 if len(b_order) > 8 else 24
        charts.append(alt.Chart(d).mark_rect(stroke="white").encode(
            x=alt.X("B:N", sort=b_order, title=None, axis=alt.Axis(labelAngle=-45, labelLimit=0)),
            y=alt.Y("A:N", sort=a_order, title=None, axis=alt.Axis(labelLimit=0)),
            color=colour, tooltip=["A", "B", "verdict", alt.Tooltip("diff:Q", format=".4f"),
                                   alt.Tooltip("low:Q", format=".4f"), alt.Tooltip("high:Q", format=".4f"),
                                   alt.Tooltip("p (Holm):Q", format=".3g")]).properties(
            width=size * len(b_order), height=size * len(a_order), title=title))
    chart = alt.vconcat(*charts).resolve_scale(color="shared") if charts else alt.Chart(data).mark_rect()
    return plotting.titled(chart, "Which pairs of each published ordering do the data support?",
                           "Each cell: system A (row) listed above system B (column); green: A's family-wise interval "
                           "lies above B's, grey: unclear, orange: B above A.")


# ---------------------------------------------------------------- one board, end to end
@dataclass
class Analysis:
    """A board with its adjacent-pair tests, threat rows, every-pair tests (``ordering``) and claim records."""

    board: Board
    tests: object
    conditions: object
    records: list
    ordering: object = None


@validate_params(board=Instance(Board), tests=ANY, draws=Int(0), n_bootstrap=Int(1), seed=SEED)
def slot_flip_rate(board: Board, tests, draws: int = 200, n_bootstrap: int = 2000, seed: int = 0) -> dict:
    """Charades-STA: ``{pair: (not clear, draws)}`` -- for each adjacent pair that is not a tie, in how many
    of ``draws`` random assignments (one of each query's ratings drawn at random, i.e. a random slot per
    query) the pair's BCa interval at the claim's level fails to clear 0. The CSVs carry no worker id,
    so a fixed slot ("rating k of every query") is no rater; only such random draws or per-query
    aggregates are meaningful. Every draw shares the same bootstrap resamples of the queries. The third
    element of each value is the interval of the median draw (by its lower end), the claims' secondary row."""
    from fireeval.stats.claims import Estimate, bca_interval

    if board.slots is None or not len(tests):
        return {}
    slots = np.asarray(board.slots, dtype=float)
    r, _, q = slots.shape
    pick = np.random.default_rng(seed + 17).integers(0, r, (draws, q))
    values = np.moveaxis(slots[pick, :, np.arange(q)], 2, 1)  # (draws, systems, queries)
    out = {}
    for _, row in tests.iterrows():
        if row["tie"]:
            continue
        k = int(row["pair"]) - 1
        d = values[:, k] - values[:, k + 1]
        boot = _boot(d, n_bootstrap, seed)
        jack = (d.sum(axis=1, keepdims=True) - d) / (q - 1)
        ends = [bca_interval(float(d[i].mean()), boot[:, i], jack[i], float(row["level"])) for i in range(draws)]
        lows = [e[0] for e in ends]
        mid = int(np.argsort(np.nan_to_num(lows, nan=-np.inf), kind="stable")[draws // 2])  # the median draw
        shown = Estimate(float(d[mid].mean()), ends[mid][0], ends[mid][1],
                         f"{_level_text(float(row['level']))} {ends[mid][2]}; the draw with the median lower end of "
                         f"{draws} draws; {n_bootstrap} bootstrap resamples of the {q} {board.unit} (seed {seed})")
        out[k + 1] = (int(sum(not (low > 0) for low in lows)), draws, shown)
    return out


@validate_params(board=Instance(Board), n_permutations=Int(1), n_bootstrap=Int(1), seed=SEED, slot_draws=Int(0),
                 top=Int(1))
def analyse(board: Board, n_permutations: int = 10_000, n_bootstrap: int = 2000, seed: int = 0,
            slot_draws: int = 200, top: int = ORDERING_TOP) -> Analysis:
    """:func:`pair_tests`, :func:`condition_tests` and :func:`pair_claims` of one board (Charades-STA:
    with :func:`slot_flip_rate` over ``slot_draws`` random slot assignments, in ``tests.attrs`` and the notes),
    then :func:`ordering_tests` of every pair of its ``top`` systems and its :func:`ordering_claim`."""
    tests = pair_tests(board, n_permutations, n_bootstrap, seed)
    conditions = condition_tests(board, n_bootstrap, seed)
    flips = slot_flip_rate(board, tests, slot_draws, n_bootstrap, seed) if slot_draws else {}
    if flips:
        tests.attrs["slot_flips"] = flips
        tests["notes"] = [[f"one of the query's ratings drawn at random for every query ({n} draws; the re-annotation "
                           f"files carry no worker id, so a slot is no rater): the {_level_text(r['level'])} interval "
                           f"fails to clear 0 in {flips[r['pair']][0]} of {n}"] if r["pair"] in flips else []
                          for _, r in tests.iterrows() for n in [slot_draws]]
    ordering = ordering_tests(board, n_permutations, n_bootstrap, seed, top)
    records = pair_claims(board, tests, conditions)
    whole = ordering_claim(board, ordering, n_bootstrap, seed)
    return Analysis(board, tests, conditions, records + ([whole] if whole else []), ordering)


def _threat_word(group) -> str:
    words = [w for w in (_verdict_word(e) for e in group["bca"]) if w != "—"]
    return ("—" if not words else "reversed" if "reversed" in words
            else "holds" if all(w == "holds" for w in words) else "unclear")


@validate_params(analysis=Instance(Analysis))
def summary(analysis: Analysis) -> dict:
    """Counts for the prose: adjacent pairs, ties (equal scores or equal published numbers), pairs whose
    primary (family-wise) BCa interval lies above 0 (``hold``), below (``reversed``), pairs significant
    after Holm, the median smallest detectable difference; per threat kind, over the adjacent pairs that
    are not ties, the pairs that hold under every condition, are reversed under one, or stay unclear
    (``threats``; a control of :data:`CONTROL_KINDS` is counted apart, under ``controls``, never as a
    threat); the same over the non-adjacent pairs a stand-in threat is tested on (``other``)."""
    b, t = analysis.board, analysis.tests
    ties = [bool(w) for w in t["tie"]] if len(t) else []
    counts = _step_counts(t, ties)
    out = {**{k: counts[k] for k in ("pairs", "ties", "hold", "reversed", "unclear")},
           "n_topics": int(b.values.shape[1]), "n_systems": len(b.names),
           **{k: v for k, v in counts.items() if k not in ("pairs", "ties", "hold", "reversed", "unclear")},
           "threats": {}, "other": {}, "controls": {}}
    _count_threats(out, analysis.conditions, {(k, k + 1) for k, tie in enumerate(ties) if tie})
    return out


def _step_counts(t, ties) -> dict:
    """:func:`summary`'s counts over the adjacent pairs ``t`` (:func:`pair_tests`; ``ties`` its tie flags)."""
    if not len(t):
        return {"pairs": 0, "ties": 0, "hold": 0, "reversed": 0, "unclear": 0, "holm_significant": 0,
                "no_power": 0, "no_power_material": 0, "unadjusted_hold": 0,
                "min_detectable_median": float("nan"), "level": 0.95, "m": 0}
    word = [("tie" if tie else _verdict_word(e)) for tie, e in zip(ties, t["bca"])]
    return {"pairs": len(t), "ties": sum(ties), "hold": word.count("holds"), "reversed": word.count("reversed"),
            "unclear": word.count("unclear"),
            "holm_significant": int(((t["p_perm_holm"] < 0.05) & (t["diff"] > 0)).sum()),
            "no_power": int(sum(not tie and e > eff for tie, e, eff in zip(ties, t["min_detectable"], t["effect"]))),
            "no_power_material": int(sum(not tie and e > eff for tie, e, eff in
                                         zip(ties, t["min_detectable"], t["effect_material"]))),
            "unadjusted_hold": sum(not tie and _verdict_word(e) == "holds" for tie, e in zip(ties, t["bca95"])),
            "min_detectable_median": float(np.median(t["min_detectable"])),
            "level": float(t["level"].iloc[0]), "m": int(t["m"].iloc[0])}


def _count_threats(out: dict, c, tied: set) -> None:
    """Fill ``out``'s ``threats``, ``other`` and ``controls`` from the condition rows ``c``, per kind (pairs in
    ``tied`` left out)."""
    for kind, group in c.groupby("kind", sort=False):
        for where in ("threats", "other"):
            g = group[group["adjacent"].astype(bool) == (where == "threats")]
            if kind in CONTROL_KINDS:
                where = "controls" if where == "threats" else where
            per = {key: _threat_word(x) for key, x in g.groupby(["i", "j"], sort=False) if key not in tied}
            if not per:
                continue
            vals = list(per.values())
            out[where][kind] = {"pairs": sum(v != "—" for v in vals), "holds": vals.count("holds"),
                                "reversed": vals.count("reversed"), "unclear": vals.count("unclear"),
                                "not computable": vals.count("—")}


@validate_params(items=ANY)
def parse_predictions(items) -> dict:
    """``{name: path}``: the chapter's ``predictions`` parameter, in the one form every chapter takes.

    >>> parse_predictions({"mine": "/tmp/p.json"})
    {'mine': '/tmp/p.json'}
    """
    if not items:
        return {}
    if not isinstance(items, dict):
        raise ValueError(f"predictions {items!r}: not a {{name: path}} dict. Fix: give e.g. "
                         "{'mine': 'preds.csv'}, as in the AxIoU chapters")
    return {str(k): str(v) for k, v in items.items()}


def _resolve_run(path, data_dir, what: str = "extra run file"):
    """A reader's file: a path, or a data-registry path (``trec8_adhoc/runs/input.apl8p.gz``) found in the
    data folder; it must exist and be readable (it is parsed when the board is built)."""
    from pathlib import Path

    from fireeval.datasets import check_readable, data_path, registry

    if not Path(path).exists() and str(path) in registry():
        path = data_path(str(path), root=data_dir)
    return check_readable(path, what, text=not str(path).endswith((".gz", ".pkl")))


@validate_params(analyses=Instance(Mapping))
def overview(analyses: dict) -> dict:
    """What survives across the boards, for the closing summary (counts over the adjacent pairs that are
    not ties; the primary interval is the family-wise one).

    ``pairs``; ``hold`` (interval above 0); of those, ``no_threat`` (no threat computable for it),
    ``hold_all`` (at least one threat computable, and every condition of every one holds; a control
    of :data:`CONTROL_KINDS` is no threat and is not counted here),
    ``reversed_by_threat`` (some condition's interval below 0) and ``unclear_by_threat``
    (otherwise); ``unclear_by_rater``: of the supported steps, those a re-annotation aggregate leaves
    unclear, and ``unclear_on_subset_too`` those the original labels on the same re-annotated queries
    leave unclear as well; ``reversed`` (interval below 0 under query sampling).
    """
    out = dict(pairs=0, hold=0, reversed=0, hold_all=0, no_threat=0, reversed_by_threat=0, unclear_by_threat=0,
               unclear_by_rater=0, unclear_on_subset_too=0)
    for a in analyses.values():
        c = a.conditions
        for _, r in a.tests.iterrows():
            k = int(r["pair"]) - 1
            if r["tie"]:
                continue
            out["pairs"] += 1
            word = _verdict_word(r["bca"])
            out["reversed"] += word == "reversed"
            if word != "holds":
                continue
            out["hold"] += 1
            mine = c[(c["pair"] == k + 1) & c["bca"].notna()]
            words = {kind: [_verdict_word(e) for e in g["bca"]] for kind, g in mine.groupby("kind")}
            flat = [w for kind, ws in words.items() if kind not in CONTROL_KINDS for w in ws]
            if not flat:
                out["no_threat"] += 1
            elif "reversed" in flat:
                out["reversed_by_threat"] += 1
            elif all(w == "holds" for w in flat):
                out["hold_all"] += 1
            else:
                out["unclear_by_threat"] += 1
            if any(w != "holds" for w in words.get("label noise", [])):
                out["unclear_by_rater"] += 1
                out["unclear_on_subset_too"] += any(w != "holds" for w in words.get("subset", []))
    return out


@validate_params(analysis=Instance(Analysis))
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


def _shrink(analysis: Analysis) -> dict:
    """Charades-STA: the pair whose gap shrinks most from the original labels on the re-annotated queries
    to the re-annotations: the gap on the subset, per rating slot (lowest, highest) and per-query mean."""
    b, t, c = analysis.board, analysis.tests, analysis.conditions
    best = None
    for _, r in t.iterrows():
        k = int(r["pair"]) - 1
        if r["tie"] or b.slots is None:
            continue
        sub = c[(c["pair"] == k + 1) & (c["kind"] == "subset")]["diff"]
        mean = c[(c["pair"] == k + 1) & c["condition"].str.contains("mean score")]["diff"]
        if not len(sub) or not len(mean):
            continue
        per = b.slots[:, k].mean(axis=1) - b.slots[:, k + 1].mean(axis=1)
        drop = 1 - float(per.max()) / float(sub.iloc[0]) if float(sub.iloc[0]) > 0 else -np.inf  # relative shrink
        if best is None or drop > best["drop"]:
            best = {"drop": drop, "pair": f"{r['a']} over {r['b']}", "subset": float(sub.iloc[0]), "full": float(r["diff"]),
                    "low": float(per.min()), "high": float(per.max()), "mean": float(mean.iloc[0]),
                    "flips": t.attrs.get("slot_flips", {}).get(k + 1, (0, 0))}
    return best or {"pair": "n/a", "subset": np.nan, "full": np.nan, "low": np.nan, "high": np.nan, "mean": np.nan,
                    "flips": (0, 0)}


@validate_params(analyses=Instance(Mapping))
def prose_values(analyses: dict) -> dict:
    """Every number the chapter's prose cites, by glue name (``n/a`` or NaN for a benchmark not run)."""
    out = {}
    for key in BENCHMARKS:
        a = analyses.get(key)
        out.update(_summary_values(key, summary(a) if a else None))
        out.update(_power_values(key, a.tests if a else None))
        out.update(_ordering_values(key, a))
    out.update(_trec8_values(analyses.get("trec8")))
    out.update(_charades_values(analyses.get("charades_sta")))
    out.update({f"all_{k}": v for k, v in overview(analyses).items()})
    return out


def _summary_values(key: str, s: dict | None) -> dict:
    """:func:`prose_values` of one benchmark read from its :func:`summary` ``s`` (None: not run)."""
    out = {}
    for name in ("pairs", "ties", "hold", "reversed", "unclear", "holm_significant", "n_topics", "n_systems",
                 "unadjusted_hold", "m"):
        out[f"{key}_{name}"] = s[name] if s else "n/a"
    out[f"{key}_level"] = _level_text(s["level"]) if s else "n/a"
    out[f"{key}_min_detectable"] = s["min_detectable_median"] if s else float("nan")
    for kind in ("pool bias", "label noise", "false negatives", "subset", "tie rule", "IoU convention"):
        for where, prefix in (("threats", ""), ("other", "other_"), ("controls", "")):
            if (where == "controls") != (kind in CONTROL_KINDS):
                continue
            t = (s or {}).get(where, {}).get(kind, {})
            for what in ("pairs", "holds", "reversed", "unclear"):
                out[f"{key}_{prefix}{kind.replace(' ', '_')}_{what}"] = t.get(what, "n/a")
    return out


def _power_values(key: str, t) -> dict:
    """:func:`prose_values` of one benchmark's power, ties and top step, from its pair tests ``t`` (None: not run)."""
    out = {}
    if t is not None and len(t):
        free = ~t["tie"].astype(bool)
        # No power: the smallest detectable difference exceeds the stated effect (never the observed step).
        weak = free & (t["min_detectable"] > t["effect"])
        holds = np.array([_verdict_word(e) == "holds" for e in t["bca"]], dtype=bool)
        out[f"{key}_no_power"] = int(weak.sum())
        out[f"{key}_no_power_hold"] = int((weak.to_numpy() & holds).sum())
        weak10 = free & (t["min_detectable"] > t["effect_material"])  # beyond the material effect too
        out[f"{key}_no_power_material"] = int(weak10.sum())
        out[f"{key}_no_power_material_hold"] = int((weak10.to_numpy() & holds).sum())
        out[f"{key}_effect_material_median"] = (float(t.loc[free, "effect_material"].median()) if free.any()
                                                else float("nan"))
        out[f"{key}_effect_median"] = float(t.loc[free, "effect"].median()) if free.any() else float("nan")
        out[f"{key}_published_ties"] = int(t["tie"].str.contains("published").sum())
        out[f"{key}_diff"] = float(t["diff"].iloc[0])
        return out
    for name in ("no_power", "no_power_hold", "no_power_material", "no_power_material_hold", "published_ties"):
        out[f"{key}_{name}"] = "n/a"
    out[f"{key}_effect_median"] = out[f"{key}_effect_material_median"] = float("nan")
    out[f"{key}_diff"] = float("nan")
    return out


def _ordering_values(key: str, a) -> dict:
    """:func:`prose_values` of one benchmark's test of every pair of its top systems (``a``: None when not run)."""
    o = getattr(a, "ordering", None) if a else None
    sup = ordering_support(o) if o is not None else {}
    out = {f"{key}_all_{name}": sup.get(name, "n/a")
           for name in ("pairs", "hold", "reversed", "unclear", "holm_hold", "t_hold", "holm_near", "permutations",
                        "top", "systems", "fallback", "resamples", "leader", "leader_above", "holm_leader",
                        "holm_leader_above", "supported")}
    # the ordering claim's own count and label: a pair holds there only when its BCa, percentile and paired t
    # intervals agree (Claim.evaluate_family weighs each pair's interval-method rows)
    rec = next((r for r in (a.records if a else []) if r["id"].endswith(".ordering")), None)
    out[f"{key}_all_claim_hold"] = rec["family"]["hold"] if rec and rec.get("family") else "n/a"
    out[f"{key}_all_claim_label"] = rec["label"] if rec else "n/a"
    return out


def _trec8_values(tr) -> dict:
    """:func:`prose_values` of TREC-8 alone: its pool, the pool shift and the published ties (``tr``: None when
    not run)."""
    out = {"trec8_runs_total": tr.board.facts.get("runs", "n/a") if tr else "n/a",
           "trec8_pooled_runs": tr.board.facts.get("pooled", "n/a") if tr else "n/a",
           "trec8_pool_depth": tr.board.facts.get("pool_depth", "n/a") if tr else "n/a"}
    shift = pool_shift(tr) if tr is not None else {}
    out["trec8_pool_shift"] = shift.get("median_shift", float("nan"))
    out["trec8_half_width"] = shift.get("median_half_width", float("nan"))
    tie_pairs = [f"{r['a']} and {r['b']}" for _, r in tr.tests.iterrows() if "published" in r["tie"]] if tr else []
    out["trec8_tie_note"] = "; ".join(tie_pairs) or "none"
    return out


def _charades_values(ch) -> dict:
    """:func:`prose_values` of Charades-STA alone: ties, ratings, the query subset's shrink (``ch``: None when
    not run)."""
    out = {}
    ties = [f"{r['a']} and {r['b']}" for _, r in ch.tests.iterrows() if r["tie"]] if ch else []
    out["charades_tie_note"] = "; ".join(ties) or "none"
    out["charades_rated"] = ch.board.conditions[0].values.shape[1] if ch and ch.board.conditions else "n/a"
    out["charades_ratings"] = int(ch.board.slots.shape[0]) if ch and ch.board.slots is not None else "n/a"
    sh = (_shrink(ch) if ch else None) or {"pair": "n/a", "subset": np.nan, "full": np.nan, "low": np.nan,
                                           "high": np.nan, "mean": np.nan, "flips": (0, 0)}
    out.update({"charades_shrink_pair": sh["pair"], "charades_shrink_subset": sh["subset"],
                "charades_shrink_full": sh["full"],
                "charades_shrink_low": sh["low"], "charades_shrink_high": sh["high"],
                "charades_shrink_mean": sh["mean"], "charades_shrink_flips": sh["flips"][0],
                "charades_slot_draws": sh["flips"][1]})
    out["charades_median_note"] = _median_note(ch) if ch else "n/a"
    return out


def _median_note(analysis: Analysis) -> str:
    """Charades-STA: each step the query sampling supports but the AxIoU paper's median aggregate leaves unclear,
    with the control (the original labels on the same queries) beside it."""
    from fireeval.stats.claims import format_estimate

    c, parts = analysis.conditions, []
    for _, r in analysis.tests.iterrows():
        if r["tie"] or _verdict_word(r["bca"]) != "holds":
            continue
        mine = c[(c["pair"] == r["pair"]) & c["bca"].notna()]
        med = mine[mine["condition"].str.contains("median start")]
        sub = mine[mine["kind"] == "subset"]
        if not len(med) or _verdict_word(med["bca"].iloc[0]) == "holds":
            continue
        control = (f"; the control on the same queries gives {format_estimate(sub['bca'].iloc[0], '.3f')}, "
                   f"{_verdict_word(sub['bca'].iloc[0])} as well: fewer queries, not only other labels"
                   if len(sub) and _verdict_word(sub["bca"].iloc[0]) != "holds" else
                   "; the control on the same queries holds: the other labels move it" if len(sub) else "")
        parts.append(f"{r['a']} over {r['b']}: {format_estimate(med['bca'].iloc[0], '.3f')} under the median "
                     f"aggregate{control}")
    return "; ".join(parts) or "none"


@validate_params(analyses=Instance(Mapping), settings=Instance(Mapping))
def headline_data(analyses: dict, settings: dict) -> dict:
    """The chapter's headline (besides its claims): data sources, orderings, pair tests, counts, power."""
    return {
        "data_source": {k: "synthetic" if _synthetic(a.board) else "real" for k, a in analyses.items()},
        "orderings": {k: {"systems": a.board.names, "means": a.board.means, "published": a.board.published}
                      for k, a in analyses.items()},
        "survival": {k: [{c: r[c] for c in ("a", "b", "diff", "ci_low", "ci_high", "level", "p_perm_holm", "p_t_holm",
                                            "effect", "min_detectable", "power_effect")}
                         for _, r in a.tests.iterrows()] for k, a in analyses.items()},
        "summary": {k: summary(a) for k, a in analyses.items()},
        "all_pairs": {k: ordering_support(a.ordering) for k, a in analyses.items() if a.ordering is not None},
        "power": {k: {"min_detectable": a.tests["min_detectable"].tolist() if len(a.tests) else [],
                      "stated_effect": a.tests["effect"].tolist() if len(a.tests) else [],
                      "material_effect": a.tests["effect_material"].tolist() if len(a.tests) else [],
                      "power_at_stated_effect": a.tests["power_effect"].tolist() if len(a.tests) else [],
                      "effect_source": STATED_EFFECT_SOURCE, "material_source": MATERIAL_EFFECT_SOURCE,
                      "n_topics": int(a.board.values.shape[1])} for k, a in analyses.items()},
        "settings": dict(settings)}


# ---------------------------------------------------------------- inputs
#: What the chapter's exercises read again in the same process (MSR-VTT's proxy agreement, the released
#: Charades-STA predictions), by what they are computed from: read once, as the issue-38 cache asks.
_READ_ONCE: dict = {}


def _read_once(key: tuple, compute):
    """``compute()``, kept in :data:`_READ_ONCE` under ``key`` (the value is shared: callers copy before changing it)."""
    import os

    key = (*key, os.environ.get("FIREEVAL_DATA"))  # where a data_dir of None reads from
    if key not in _READ_ONCE:
        _READ_ONCE[key] = compute()
    return _READ_ONCE[key]


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], seed=SEED,
                 benchmarks=ANY, extra_runs=ANY, predictions=ANY, trec_pairs=Int(0), proxy_thresholds=ARRAY,
                 proxy_threshold=NUMBER, synthetic_size=Int(1))
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
    its own group). ``predictions``: ``{name: path}`` of Charades-STA moment predictions in any
    format ``fireeval evaluate-moments`` reads (the same reader as the AxIoU chapters'), placed
    by their R@1,0.5.
    ``trec_pairs``: the adjacent pairs from the top of the TREC-8 ordering (0: all).
    """
    from fireeval.datasets import choose_source

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
        # One decision per benchmark, never a silent fallback: a file failing its checksum, a partial set,
        # or data the reader named but that are missing stop the chapter (choose -p benchmarks to skip one).
        mine = {"trec8": {"extra_runs": extra_runs}, "charades_sta": {"predictions": predictions}}.get(key, {})
        real = choose_source(data_source, files[key](), root=data_dir, reader_inputs=mine,
                             what=f"the {key} benchmark") == "real"
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
    from fireeval.core.parsed_cache import read_runset
    from fireeval.core.runset import RunSet
    from fireeval.core.trec import read_run

    notes = []
    src = _trec8_real(data_dir, trec_pairs, bool(extra_runs)) if real else _trec8_synthetic(seed)
    table, needed, paths, qrels, pool_depth = (src[k] for k in ("table", "needed", "paths", "qrels", "pool_depth"))
    frames_extra = _reader_frames(extra_runs, needed)
    if real and not frames_extra:  # the official runs alone: parsed once per machine (the parsed-runs cache)
        runs = read_runset(dict(zip(needed, paths)))
    else:
        frames = ({name: read_run(p, check_duplicates=False) for name, p in zip(needed, paths)} if real
                  else src["frames"])
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
    keep = _trec8_keep(names, published, means, src["ranked"], frames_extra, trec_pairs, notes)
    names_k = [names[i] for i in keep]
    if frames_extra:
        notes.append(f"{len(frames_extra)} reader run(s) scored on the official qrels and placed by MAP: "
                     + ", ".join(f"{n} (MAP {means[names.index(n)]:.4f})" for n in frames_extra))
    conditions = [
        Condition("each run scored with its own run left out of the pool", "pool bias", lo.run_out[keep]),
        Condition("each run scored with its own group left out of the pool", "pool bias", lo.group_out[keep])]
    return Board("trec8", "TREC-8", "MAP", "topics", names_k, lo.original[keep], published[keep], 1.0, src["source"],
                 5e-5, src["data"] + (f"; {len(names_k)} runs from the top of the ordering" if trec_pairs else ""),
                 "original", conditions, notes, [n for n in names_k if n in frames_extra],
                 facts={"runs": int(len(table)), "pooled": int(table["pooled"].astype(bool).sum()),
                        "pool_depth": int(pool_depth)})


def _trec8_real(data_dir, trec_pairs, reader_runs: bool) -> dict:
    """TREC-8's official runs table (with the official MAP as ``published``), the runs to read and NIST's qrels."""
    from fireeval.datasets import data_path, trec8

    table = trec8.load_runs_table(root=data_dir)
    official = trec8.load_official_map(root=data_dir)
    table["published"] = table["run"].map(official)
    ranked = table.sort_values(["published", "run"], ascending=[False, True])["run"].tolist()
    n = len(ranked) if not trec_pairs else min(len(ranked), trec_pairs + 1)
    # A reader's run may land anywhere in the ordering: then every run is read, so its neighbours are there.
    needed = sorted(ranked if reader_runs else set(ranked[:n]) | set(table.loc[table["pooled"], "run"]))
    return {"table": table, "ranked": ranked, "needed": needed, "qrels": trec8.load_qrels(root=data_dir),
            "paths": [data_path(f"trec8_adhoc/runs/input.{r}.gz", data_dir) for r in needed], "pool_depth": 100,
            "data": "real: TREC-8 Ad Hoc, official runs and NIST's qrels",
            "source": "TREC-8 official MAP (NIST official-scores.map, 4 decimals)"}


def _trec8_synthetic(seed) -> dict:
    """The seeded TREC-style stand-in: its runs (``frames``), runs table and qrels; no published scores."""
    from fireeval.core.judgements import Qrels
    from fireeval.synthetic.trec_collection import simulate_pooled_trec

    frames, qrels_frame, table, _ = simulate_pooled_trec(n_topics=50, n_groups=8, runs_per_group=3,
                                                         n_docs=3000, depth=300, pool_depth=50, seed=seed)
    table["published"] = np.nan
    return {"table": table, "ranked": None, "needed": list(frames), "frames": frames, "paths": None,
            "qrels": Qrels(qrels_frame), "pool_depth": 50,
            "data": "stand-in: synthetic TREC-style collection (24 simulated runs, 16 pooled to depth 50)",
            "source": "none: the synthetic runs have no published scores; ordered by their MAP here"}


def _reader_frames(extra_runs, needed) -> dict:
    """The reader's runs read, each named by its tag (with its path when the tag is taken)."""
    from fireeval.core.trec import read_run

    frames_extra = {}
    for path in extra_runs:
        frame = read_run(path)
        tag = str(frame["tag"].iloc[0])
        name = tag if tag not in needed and tag not in frames_extra else f"{tag} ({path})"
        frames_extra[name] = frame
    return frames_extra


def _trec8_keep(names, published, means, ranked, frames_extra, trec_pairs, notes) -> list:
    """The indices into ``names`` of the tested runs in published order: official MAP, a reader's run placed by
    its own MAP (synthetic: all by MAP); the top ``trec_pairs`` + 1, reaching down to the reader's runs (noted)."""
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
    return order if not trec_pairs else order[:top]


def _msrvtt(real, data_dir, seed, thresholds, primary, synthetic_size) -> Board:
    from fireeval.stats.significance import scores_from_similarity
    from fireeval.t2v import false_negatives as fire

    thresholds = sorted({float(t) for t in thresholds} | {float(primary)})
    if real:
        from fireeval.datasets import msrvtt

        qframe = msrvtt.load_queries(data_dir)
        queries = qframe["sentence"].tolist()
        captions = msrvtt.load_video_captions_1ka(data_dir)
        # InternVideo2's top-128 cut is the "tie rule" threat of this board (and the semantic chapter's report);
        # GRAM and VAST enter by their diagonal; no second warning on stderr here
        full = {m: msrvtt.load_similarity(m, data_dir, check_ties=False) for m in ("clip4clip", "InternVideo2")}
        diag = {m: msrvtt.load_similarity(m, data_dir, diagonal_only_ok=True, check_ties=False)
                for m in sorted(msrvtt.DIAGONAL_ONLY)}
        published = dict(MSRVTT_PUBLISHED)
        data = "real: MSR-VTT 1k-A, 1000 queries, the four runs' similarity matrices"
        source = "R@1 (%) listed with the runs (shared data README; source repository mohammad2012191/ViC)"
    else:
        from fireeval.synthetic.fire_study import simulate_fire

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
    agreement = _read_once(("msrvtt agreement", str(data_dir), real, synthetic_size if not real else None, seed),
                           lambda: fire.caption_agreement(queries, captions, proxy="bow", aggregate="max",
                                                          own_video=np.arange(n)))
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
    everything = {**full, **diag}
    for rule, words in (("pessimistic", "after every tied video"), ("optimistic", "before every tied video")):
        v = np.stack([_r1_tie_rule(everything[m], rule) for m in names])
        conditions.append(Condition(f"{rule} tie rule (the positive ranked {words})", "tie rule", v))
    detail = _tie_detail(names, values, pub, conditions[-2].values, "InternVideo2") if real else ""
    return Board("msrvtt", "MSR-VTT 1k-A", "R@1", "queries", names, values, pub, 100.0, source, 0.05, data,
                 "original", conditions, detail=detail)


def _tie_detail(names, values, published, pessimistic, system: str) -> str:
    """What the tie rule does to ``system``'s listed R@1 (%): the stable rule's and the pessimistic rule's, computed.

    >>> _tie_detail(["A"], np.array([[1.0, 0.0]]), np.array([50.0]), np.array([[0.0, 0.0]]), "A")
    "A's matrix holds exact ties; the book ranks with a stable tie rule (lower column first), which gives it 50.0; the pessimistic rule (every tied video ranked above the positive) gives 0.0; 50 is listed: reproduced exactly by the stable rule"
    """
    if system not in names or not np.isfinite(published[names.index(system)]):
        return ""
    k = names.index(system)
    stable, pess, listed = 100 * values[k].mean(), 100 * np.asarray(pessimistic)[k].mean(), published[k]
    exact = [rule for rule, v in (("stable", stable), ("pessimistic", pess)) if round(v, 1) == round(listed, 1)]
    return (f"{system}'s matrix holds exact ties; the book ranks with a stable tie rule (lower column first), which "
            f"gives it {stable:.1f}; the pessimistic rule (every tied video ranked above the positive) gives "
            f"{pess:.1f}; {listed:g} is listed: " + (f"reproduced exactly by the {' and '.join(exact)} rule"
                                                     if exact else "reproduced by neither rule"))


def _r1_tie_rule(sim, rule: str) -> np.ndarray:
    """Per-query R@1 of a square similarity matrix (positive on the diagonal) with ties ranked
    ``pessimistic`` (every tied video above the positive) or ``optimistic`` (none).

    >>> _r1_tie_rule(np.array([[0.5, 0.5], [0.1, 0.9]]), "pessimistic").tolist()
    [0.0, 1.0]
    """
    s = np.asarray(sim, dtype=float)
    own = np.diagonal(s)[:, None]
    above = (s > own).sum(axis=1)
    tied = (s == own).sum(axis=1) - 1
    rank = 1 + above + (tied if rule == "pessimistic" else 0)
    return (rank <= 1).astype(float)


def _charades(real, data_dir, seed, predictions, synthetic_size) -> Board:
    from fireeval.stats.significance import scores_from_moments
    from fireeval.vmr.noise import aggregate_raters

    measure = "R@1,0.5"
    if real:
        from fireeval.datasets import charades

        gt_frame = charades.load_ground_truth("test", root=data_dir)
        preds = dict(_read_once(("charades predictions", str(data_dir)),
                                lambda: charades.load_all_predictions(charades.SYSTEMS, root=data_dir)))
        if predictions:  # the reader of `fireeval evaluate-moments` and of the AxIoU chapters
            from fireeval.book.inputs.moment_inputs import read_reader_predictions

            preds.update(read_reader_predictions(predictions, gt_frame, taken=set(preds) | set(charades.ALL_SYSTEMS))[0])
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
        from fireeval.synthetic.moment_collection import simulate_moments
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
    q = len(queries)
    slots = np.stack([scores_from_moments(sub, raters[r], measure).values for r in range(len(raters))])
    conditions = [Condition(f"original annotation, the {q} re-annotated queries only", "subset",
                            scores_from_moments(sub, gt[queries], measure).values),
                  Condition(f"re-annotations, per query the mean score over its {len(raters)} ratings ({q} queries)",
                            "label noise", slots.mean(axis=0)),
                  Condition(f"re-annotations, per query the majority of its {len(raters)} ratings ({q} queries)",
                            "label noise", (slots.sum(axis=0) > len(raters) / 2).astype(float)),
                  # the AxIoU paper's own aggregate (§6.4; the authors' generate_noisy_dataset): one window per query
                  Condition(f"re-annotations, per query the median start + median length of its {len(raters)} "
                            f"ratings, the AxIoU paper's aggregate ({q} queries)", "label noise",
                            scores_from_moments(sub, aggregate_raters(raters), measure).values),
                  Condition("strict IoU > 0.5 (the AxIoU reference code's comparison), original annotation",
                            "IoU convention", scores_from_moments(preds, gt, measure, strict=True).values[order])]
    return Board("charades_sta", "Charades-STA", measure, "queries", names, scores.values[order],
                 np.full(len(names), np.nan), 1.0, source, 0.005, data, "original", conditions,
                 own=[n for n in names if n in predictions], slots=slots)


def _qvhighlights(real, data_dir, seed, synthetic_size) -> Board:
    from fireeval.stats.significance import scores_from_moments

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
        from fireeval.synthetic.moment_collection import simulate_moments

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
