"""The pool_depth chapter's claims, one record per statement: Westerveld's depth-3 statement (TRECVID 2003:
not testable here; its TREC-8 result is the record's ``here`` row), the book's per-measure finding (one
family claim, a condition per measure), the book's tests of bpref, infAP and the condensed-list measures on
random samples of the judgements, and the book's explanation of the gap.

How the sensitivity rows weigh (the chapter says the same):

* the exact realised τ-b on these topics has **equal** standing with the bootstrap interval: the paper
  prints realised τ on its own topics, not an estimate for a population of topics;
* ranking **all runs** (unpooled ones included) has **equal** standing: the paper re-evaluated all
  submissions, and every one had built the pool ("the top K results from each of the submissions"), so
  there the pooled runs and all runs were one set; on TREC-8 they split and the words fit both (the
  pool_leave_out chapter weighs its pooled-runs rows the same way);
* the percentile interval and a second bootstrap seed re-estimate the same reading (at most *inconclusive*
  when they flip).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fireeval.book.chapters.trec_claims import is_synthetic, stand_in_label, tau_estimates, width_note, only_can_pass
from fireeval.book.papers.westerveld import WESTERVELD, NO_TRECVID, DEPTH_QUOTE
from fireeval.stats.reliability import bootstrap_agreement, jackknife_agreement
from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test
from fireeval.core.validation import (ANY, ARRAY, CALLABLE, COLLECTION, NUMBER, SEED, STR, Array, Instance, Int, Real,
                                      validate_params)

__all__ = ['depth_claims', 'tau_readings', 'condition_labels', 'control_rate', 'sampling_claims',
           'explanation_claim', 'holds_sentence', 'ALL_RUNS_REASON', 'EXACT_TAU_NAME', 'EXACT_TAU_REASON']

#: Why ranking every run (unpooled ones too) has equal standing in the depth claims.
ALL_RUNS_REASON = ("the paper re-evaluated all submissions, and every TRECVID 2003 submission built the pool ('the "
                   "top K results from each of the submissions'): there the pooled runs and all runs were one set; "
                   "on TREC-8 they split and the words fit both")
EXACT_TAU_NAME = "exact realised τ-b on these topics (as the paper prints τ)"
#: Why the exact realised τ-b has equal standing with the bootstrap interval.
EXACT_TAU_REASON = ("the paper prints τ as a realised value on its own topics, not as an estimate for a population "
                    "of topics")
_TEST = Test(">", 0.90)


@validate_params(values=ARRAY, reference=ARRAY, n_resamples=Int(1), rng=SEED)
def tau_readings(values, reference, n_resamples: int, rng: int = 0) -> dict:
    """τ-b of the rankings by mean score, read four ways: ``primary`` (BCa, or the jackknife normal interval
    where BCa is unstable, saying so), ``percentile`` (same replicates), ``seed`` (BCa with the next bootstrap
    seed) and ``exact`` (the realised value, no interval).

    >>> s = np.array([[.1, .2, .3, .2], [.4, .5, .6, .5], [.7, .8, .9, .8]])
    >>> sorted(tau_readings(s, s, 20)), tau_readings(s, s, 20)["exact"].has_interval
    (['exact', 'percentile', 'primary', 'seed'], False)
    """
    bca, pct = tau_estimates(values, reference, n_resamples, rng)
    other, _ = tau_estimates(values, reference, n_resamples, rng + 1)
    exact = Estimate(bca.value, method=f"exact: the realised τ-b on these {np.shape(values)[-1]} topics")
    return {"primary": bca, "percentile": pct, "seed": other, "exact": exact}


def _rows(read: dict, every: dict | None, rng: int, conditions: bool = False) -> list[Alternative]:
    """The depth claims' sensitivity rows, each with its weight and the reason (see the module docstring).

    ``read``/``every``: :func:`tau_readings` of the pooled runs / of all runs (None: no unpooled run), or, with
    ``conditions``, ``{condition: readings}`` for a family claim."""
    def arg(key, source):
        if conditions:
            return {"conditions": {c: r[key] for c, r in source.items()}}
        return {"estimate": source[key]}

    rows = [Alternative("percentile interval (same resamples)", **arg("percentile", read), kind="interval method"),
            Alternative(f"bootstrap seed {rng + 1}", **arg("seed", read), kind="seed"),
            Alternative(EXACT_TAU_NAME, **arg("exact", read), kind="exact value", weight="equal",
                        reason=EXACT_TAU_REASON)]
    if every is not None:
        rows.insert(0, Alternative("all runs ranked (unpooled runs included)", **arg("primary", every), kind="subset",
                                   weight="equal", reason=ALL_RUNS_REASON))
    return rows


def _depth_control(sweep, m, k, depth, pooled, n_resamples, rng, primary) -> Power:
    """Rule, fixed before the data: the deepest re-scored depth below the full pool (and deeper than ``k``),
    ranked and bootstrapped as the claim is; without one, the τ = 1 control that shows only that it can pass."""
    deeper = [int(d) for d in sweep.depths if k < d < depth]
    note = width_note(primary, _TEST)
    if not deeper:
        return only_can_pass(f"the full depth-{depth} pool re-scored the same way; {note}")
    d = max(deeper)
    j = list(sweep.depths).index(d)
    rows = slice(None) if pooled is None else pooled
    control, _ = tau_estimates(sweep.values[m][j][rows], sweep.reference[m][rows], n_resamples, rng)
    return Power.positive_control(f"a depth-{d} pool (the deepest re-scored depth below the full pool, chosen by "
                                  f"that rule) ranked and bootstrapped as the claim is; {note}", control)


def _depth_readings(sweep, measures, i: int, k: int, depth: int, pooled, n_resamples: int, rng):
    """Per measure: the τ readings at depth index ``i`` (of the ``pooled`` runs when given), of all runs
    (only when ``pooled`` is given), and the positive control; three dicts."""
    read, every, power = {}, {}, {}
    for m in measures:
        values, reference = sweep.values[m][i], sweep.reference[m]
        if pooled is not None:
            read[m] = tau_readings(values[pooled], reference[pooled], n_resamples, rng)
            every[m] = tau_readings(values, reference, n_resamples, rng)
        else:
            read[m] = tau_readings(values, reference, n_resamples, rng)
        power[m] = _depth_control(sweep, m, k, depth, pooled, n_resamples, rng, read[m]["primary"])
    return read, every, power


def _depth_map_record(who: str, k: int, data: str, label, read: dict, every, power, rng) -> dict:
    """:func:`depth_claims`' record of Westerveld's MAP statement (not testable here: TRECVID 2003 is absent),
    the result on ``data`` its ``here`` row."""
    claim = Claim("depth_map", paper=WESTERVELD, section="§4.1, Fig. 3", quote=DEPTH_QUOTE,
                  quantity=f"Kendall τ-b between rankings of {who} by {label('map')}, depth-{k} pool vs full pool",
                  test=_TEST, data=stand_in_label(data), standing="stand-in",
                  paper_value="τ > 0.90 (MAP, K = 3)", evidence=NO_TRECVID,
                  reading=Reading("'high correlation' is the paper's own bound: τ > 0.90 at K = 3, "
                                  "submissions ranked by MAP", DEPTH_QUOTE, "paper's definition", "§4.1, Fig. 3"),
                  short="A depth-3 pool ranks TRECVID 2003 runs by MAP at τ > 0.90.",
                  notes="TREC-8 stands in for TRECVID 2003: the mechanism carries over, the depth at which "
                        "τ passes 0.90 does not (collection size, runs, relevant per topic differ)")
    record = claim.evaluate(read["primary"], power=power, sensitivity=_rows(read, every, rng))
    for row in record["here"]:  # the data the book ran on, not the claim's "(for TRECVID 2003)" label
        row["data"] = data.split(":", 1)[-1].strip() if ":" in data else data
    return record


@validate_params(sweep=ANY, k=Int(1), data=STR, label=CALLABLE, pooled=ANY, n_resamples=Int(1), rng=SEED,
                 measures=[COLLECTION, None], pool_depth=[Int(1), None])
def depth_claims(sweep, k: int = 3, data: str = "", label=str, pooled=None, n_resamples: int = 1000, rng: int = 0,
                 measures=None, pool_depth: int | None = None) -> list[dict]:
    """Westerveld's depth-``k`` statement (MAP, τ-b > 0.90) and the book's finding for the other measures.

    ``depth_map`` is the paper's statement: TRECVID 2003 is not here, so it is "not testable here" and its
    TREC-8 result is its ``here`` row. ``depth_measures`` is the book's own question -- does the paper's bound
    hold for each other measure? -- as one family claim, a condition per measure (each with its own interval),
    needing every measure. The ranking is of the pooled runs when ``pooled`` (a mask over ``sweep.runs``)
    leaves some out; all runs are a row of equal standing (:data:`ALL_RUNS_REASON`). infAP is left out: with every
    pooled document judged it is AP up to ε (the chapter shows this once).
    """
    i = list(sweep.depths).index(k)
    depth = pool_depth or int(max(sweep.depths))
    pooled = None if pooled is None else np.asarray(pooled, dtype=bool)
    split = pooled is not None and 1 < pooled.sum() < len(pooled)
    measures = [m for m in dict.fromkeys(measures or sweep.values) if m != "infAP"]
    who = f"the {int(pooled.sum())} pooled runs" if split else "all runs"
    read, every, power = _depth_readings(sweep, measures, i, k, depth, pooled if split else None, n_resamples, rng)
    out = []
    if "map" in read:
        out.append(_depth_map_record(who, k, data, label, read["map"], every.get("map"), power["map"], rng))
    others = [m for m in measures if m != "map"]
    if others:
        names = {m: label(m) for m in others}
        cond = {names[m]: read[m] for m in others}
        claim = Claim("depth_measures", paper="this book", section=f"after {WESTERVELD}, §4.1",
                      quote=f"on TREC-8, a depth-{k} pool ranks the runs by each of {', '.join(names.values())} as "
                            "the full pool does, τ-b > 0.90 (the paper's MAP bound, applied to other measures)",
                      quantity=f"per measure: Kendall τ-b between rankings of {who}, depth-{k} pool vs full pool",
                      test=_TEST, data=data, standing="stand-in" if is_synthetic(data) else "original",
                      reading=Reading("Westerveld's bound for MAP (τ > 0.90 at K = 3) applied to each other measure, "
                                      "each measure a condition with its own interval; the statement needs every "
                                      "measure", DEPTH_QUOTE, "book's own question", "§4.1"),
                      evidence=Evidence.none("the paper reports MAP only"),
                      short=f"On TREC-8, a depth-{k} pool ranks runs at τ-b > 0.90 by every other measure.")
        fam_power = _family_control({m: power[m] for m in others}, names, _TEST)
        record = claim.evaluate_family(
            {c: r["primary"] for c, r in cond.items()}, need="all", power=fam_power,
            multiplicity="none needed for 'holds at every measure' (an intersection-union test: each measure's own "
                         "95% interval keeps the error of the family's statement at 5%); a single 'fails at' is read "
                         "at 95% for that measure, unadjusted",
            sensitivity=_rows(cond, {names[m]: every[m] for m in others} if split else None, rng, conditions=True))
        record["per_condition"] = condition_labels(record)
        out.append(record)
    return out


@validate_params(record=Instance(Mapping))
def condition_labels(record: dict) -> dict:
    """Per condition of a family claim: the label its own sensitivity rows allow (the mechanism's, so that the
    box, the intro and this chapter's table say one word per measure), ``{condition: {"label", "primary", "why"}}``.

    >>> rec = {"family": {"conditions": [{"condition": "a", "label": "inconclusive", "primary_label": "reproduced",
    ...                                   "why": "reproduced by its interval; pct: inconclusive"}]}}
    >>> condition_labels(rec)["a"]["label"]
    'inconclusive'
    """
    return {c["condition"]: {"label": c["label"], "primary": c.get("primary_label", c["label"]), "why": c.get("why", "")}
            for c in record["family"]["conditions"]}


# The measures' papers are not in this project's corpus: each statement is the book's paraphrase, named as such.
# One record per paper statement: Sakai's statement covers both condensed-list measures, so it is one family claim
# with a condition per measure; Buckley & Voorhees' and Yilmaz & Aslam's are separate statements (other papers,
# other rivals, and for infAP another reference ranking).
# id: (source, {measure: rival}, paraphrase, other rivals, reference ranking (None: each measure against itself
# with every judgement), weight of the stratified design)
_ROBUST = {
    "robust_bpref": ("Buckley & Voorhees 2004", {"bpref": "map"},
                     "bpref ranks systems more stably than MAP when judgements are incomplete", (), None, "equal"),
    "robust_infAP": ("Yilmaz & Aslam 2006", {"infAP": "bpref"},
                     "infAP, computed from a uniform random sample of the pool, ranks systems closer to "
                     "full-judgement AP than bpref does", ("map_judged", "map"), "map", "secondary"),
    "robust_condensed": ("Sakai 2007", {"map_judged": "bpref", "ndcg_judged": "bpref"},
                         "condensed-list measures (AP′, nDCG′) are more robust to incomplete judgements than bpref",
                         ("map",), None, "equal"),
}
_STRATIFIED_REASON = ("infAP is built for a uniform random sample of the pool (Yilmaz & Aslam's design, the primary "
                      "reading); drawing relevant and non-relevant documents separately is another design")
_SAMPLE_REASON = ("one random sample of the judgements alone, a diagnostic: the claim is the mean over every sample, "
                  "and its interval already redraws the samples")
_MILDER_REASON = ("milder incompleteness than the claim's rate, a dose-response diagnostic: the papers' point is heavy "
                  "incompleteness, and as more judgements are kept both measures approach their full ranking")
_RIVAL_REASON = "another comparison than the one the statement names"
_REFERENCE_REASON = ("Yilmaz & Aslam compare infAP with the actual (full-judgement) AP; each measure against its own "
                     "full ranking is another question")


def _paired(a_boot, b_boot, a_jack, b_jack, value, how, seeds=None, rng=0, percentile=False):
    """BCa estimate of a seed-averaged difference from paired replicates, (n_seeds, n_resamples).

    Each bootstrap replicate also redraws the sampling seeds with replacement (a two-stage
    bootstrap: topics, then samples), so the seed-to-seed spread is in the interval, not only
    the topics'. ``seeds``: the seeds to use (one seed alone: topics only). With ``percentile``,
    ``(BCa, percentile)`` from the same replicates.
    """
    sl = slice(None) if seeds is None else seeds
    diff = np.asarray(a_boot)[sl] - np.asarray(b_boot)[sl]
    diff = diff[None] if diff.ndim == 1 else diff
    n_seeds, n = diff.shape
    if n_seeds > 1:
        pick = np.random.default_rng(rng).integers(0, n_seeds, (n_seeds, n))
        replicates = np.take_along_axis(diff, pick, axis=0).mean(0)
        how = f"{how}; the {n_seeds} samples redrawn with replacement in each replicate"
    else:
        replicates = diff[0]
    jack = np.asarray(a_jack)[sl] - np.asarray(b_jack)[sl]
    bca = Estimate.bca(value, replicates, jack.mean(0) if jack.ndim > 1 else jack, how)
    if percentile:
        return bca, Estimate.from_samples(value, replicates, f"95% percentile bootstrap; {how}")
    return bca


@validate_params(rates=Array(0, 1), rate=Real(0, 1))
def control_rate(rates, rate: float) -> float | None:
    """The positive control's sampling rate, by a rule fixed before seeing any τ: the next rate above ``rate``.

    >>> control_rate([0.05, 0.1, 0.25, 0.5, 1.0], 0.1), control_rate([0.5, 1.0], 1.0)
    (0.25, None)
    """
    above = sorted(float(r) for r in rates if float(r) > float(rate))
    return above[0] if above else None


def _replicates(exp, boot, jack, m, rival, others, against, i, n, rng):
    """``(tau, bootstrap, jackknife)`` of the claim's measures: each against its own full ranking (``boot``,
    ``jack`` as given), or both sides against ``against``'s (fresh replicates, paired by ``rng``)."""
    if against is None:
        return {x: exp.tau(x) for x in (m, rival, *others) if x in exp.values}, boot, jack
    tau = {x: exp.tau(x, against) for x in (m, rival, *others) if x in exp.values}
    # the claim's two measures at every rate (the sampling-rate rows, the control); another rival only
    # at the claim's rate, the one its row reads ({rate index: replicates}; each slice is resampled
    # alone exactly as in the whole batch)
    bt = {x: exp.bootstrap(x, n, rng, against) if x in (m, rival)
          else {i: bootstrap_agreement(exp.values[x][i], exp.reference[against], n, rng)} for x in tau}
    jk = {x: exp.jackknife(x, against) if x in (m, rival)
          else {i: jackknife_agreement(exp.values[x][i], exp.reference[against])} for x in tau}
    return tau, bt, jk


def _robust_member(exp, boot, jack, m, rival, others, against, stratified, strat_weight, rate, control, label,
                   rng, n, how):
    """One measure's primary estimate, its sensitivity rows ``(name, kind, weight, reason, estimate)`` and its
    positive control, for the statement ``m`` beats ``rival``."""
    rates = [float(r) for r in exp.rates]
    i = rates.index(float(rate))
    tau, bt, jk = _replicates(exp, boot, jack, m, rival, others, against, i, n, rng)

    def diff(a, b, j, seeds=None, percentile=False):
        sl = slice(None) if seeds is None else seeds
        v = float((tau[a][j, sl] - tau[b][j, sl]).mean())
        return _paired(bt[a][j], bt[b][j], jk[a][j], jk[b][j], v, how if seeds is None else
                       f"{n} resamples, seed {exp.seeds[seeds[0]]}", seeds, rng, percentile)

    primary, pct = diff(m, rival, i, percentile=True)
    rows = [("percentile interval (same replicates)", "interval method", "equal", None, pct)]
    # the same reading re-estimated with the next bootstrap seed: new topic resamples at the claim's rate
    again = {x: bootstrap_agreement(exp.values[x][i], exp.reference[against or x], n, rng + 1) for x in (m, rival)}
    rows.append((f"bootstrap seed {rng + 1}", "seed", "equal", None,
                 _paired(again[m], again[rival], jk[m][i], jk[rival][i], primary.value,
                         how.replace(f"{n} resamples", f"{n} resamples (seed {rng + 1})"), rng=rng + 1)))
    rows += _replicate_rows(diff, exp.seeds, rates, i, m, rival, [o for o in others if o in tau], label)
    if against is not None:
        v = float((exp.tau(m)[i] - exp.tau(rival)[i]).mean())
        rows.append((f"each measure against its own full-judgement ranking (not {label(against)}'s)",
                     "reference ranking", "secondary", _REFERENCE_REASON,
                     _paired(boot[m][i], boot[rival][i], jack[m][i], jack[rival][i], v, how, rng=rng)))
    if stratified is not None and m in stratified.values and rival in stratified.values:
        rows.append(_stratified_row(stratified, m, rival, rate, against, strat_weight, n, rng, how))
    if control is not None and control in rates:
        c = rates.index(control)
        power = Power.positive_control(
            f"{label(rival)} with {control:.0%} of the judgements against {label(rival)} with {rate:.0%} (more "
            "judgements rank closer to the full ranking), measured the same way; the control's rate is the "
            "next sampling rate above the claim's, a rule fixed before any τ was seen",
            _paired(bt[rival][c], bt[rival][i], jk[rival][c], jk[rival][i],
                    float((tau[rival][c] - tau[rival][i]).mean()), how, rng=rng))
    else:
        power = Power.no_control("no sampling rate above the claim's to compare with")
    return primary, rows, power


def _member_rows(got: dict, members, label) -> list:
    """A family claim's sensitivity rows: each row of the first member that every member has (same name, same
    place), its per-member estimates as conditions (``got``: member -> :func:`_robust_member`'s result)."""
    names_rows = [r[:4] for r in got[next(iter(members))][1]]
    family_rows = []
    for k, (name, kind, w, why) in enumerate(names_rows):
        per = {label(m): got[m][1][k][4] for m in members if k < len(got[m][1]) and got[m][1][k][0] == name}
        if len(per) == len(members):
            family_rows.append(Alternative(name, kind=kind, weight=w, reason=why, conditions=per))
    return family_rows


def _weakest(powers: dict):
    """The member whose positive control has the lowest interval (a control without one counts as 1)."""
    return min(powers, key=lambda m: (powers[m].estimate.low if powers[m].estimate is not None
                                      and powers[m].estimate.low is not None else 1.0))


def _family_control(powers: dict, names: dict, test) -> Power:
    """A family claim's positive control: the weakest member's (:func:`_weakest`), saying which members' controls
    fail ``test`` (it passes only if every member's does); ``names``: member -> its name in the text."""
    worst = _weakest(powers)
    p = powers[worst]
    if all(q.passes(test) for q in powers.values()):
        return Power.positive_control(f"per measure, {p.control} -- shown for the measure whose control has the "
                                      f"lowest interval ({names[worst]}); it passes only if every measure's "
                                      "control passes", p.estimate)
    return Power.positive_control(f"per measure, {p.control}; the control fails for "
                                  + ", ".join(names[m] for m, q in powers.items() if not q.passes(test)), p.estimate)


def _members_power(got: dict, members, test, label) -> Power:
    """A family claim's power (:func:`_family_control`); the weakest member's own when it has no estimate."""
    powers = {m: got[m][2] for m in members}
    p = powers[_weakest(powers)]
    return p if p.estimate is None else _family_control(powers, {m: label(m) for m in members}, test)


def _replicate_rows(diff, seeds, rates, i, m, rival, others, label) -> list:
    """:func:`_robust_member`'s rows of each sample seed alone, each other sampling rate below 1 (a heavier
    cut of equal weight, a milder one secondary) and each other rival measure (``diff(a, b, rate index,
    seeds)``: the paired difference)."""
    rows = []
    for s, seed in enumerate(seeds):
        rows.append((f"sample seed {seed} alone", "single sample", "secondary", _SAMPLE_REASON, diff(m, rival, i, [s])))
    for j, r in enumerate(rates):
        if j != i and r < 1:
            heavier = r < rates[i]
            rows.append((f"sampling rate {r:.0%}", "sampling rate", "equal" if heavier else "secondary",
                         None if heavier else _MILDER_REASON, diff(m, rival, j)))
    for o in others:
        rows.append((f"against {label(o)} instead of {label(rival)}", "rival measure", "secondary", _RIVAL_REASON,
                     diff(m, o, i)))
    return rows


def _stratified_row(stratified, m, rival, rate, against, strat_weight, n, rng, how):
    """:func:`_robust_member`'s row of stratified sampling: ``m`` minus ``rival`` at ``rate`` when relevant and
    non-relevant judgements are drawn separately (Buckley & Voorhees's design)."""
    si = [float(r) for r in stratified.rates].index(float(rate))
    ta, tb = stratified.tau(m, against)[si], stratified.tau(rival, against)[si]
    return ("stratified sampling (relevant and non-relevant drawn separately, as Buckley & Voorhees did)",
            "sampling design", strat_weight, None if strat_weight == "equal" else _STRATIFIED_REASON,
            _paired(stratified.bootstrap(m, n, rng, against)[si],
                    stratified.bootstrap(rival, n, rng, against)[si], stratified.jackknife(m, against)[si],
                    stratified.jackknife(rival, against)[si], float((ta - tb).mean()), how, rng=rng))


@validate_params(exp=ANY, boot=Instance(Mapping), jack=Instance(Mapping), rate=Real(0, 1), control=[NUMBER, None],
                 data=STR, label=CALLABLE, rng=SEED, stratified=ANY)
def sampling_claims(exp, boot: dict, jack: dict, rate: float, control: float | None = None, data: str = "",
                    label=str, rng: int = 0, stratified=None) -> list[dict]:
    """The book's tests of bpref, infAP and the condensed-list measures on random samples of the judgements.

    ``exp``: :class:`fireeval.pooling.sampling.SampledJudgements`; ``boot[m]`` (n_rates, n_seeds, n_resamples)
    from ``exp.bootstrap(m, n, rng)`` with one ``rng`` for all measures (paired); ``jack[m]`` (n_rates, n_seeds,
    n_topics) from ``exp.jackknife(m)``. One record per paper statement (:data:`_ROBUST`): τ-b(measure) −
    τ-b(rival) > 0 at sampling rate ``rate``, averaged over the seeds, with a BCa interval over topics and
    seeds (:func:`_paired`); Sakai's statement is one family claim, a condition per condensed-list measure.
    infAP's claim compares both measures with the full-judgement *AP* ranking, as its paraphrase says.
    Sensitivity, each row weighed: the percentile interval of the same replicates and a second bootstrap
    seed (at most *inconclusive* if either disagrees); heavier sampling rates
    (equal) and milder ones (secondary); each sample alone, other rivals, other reference rankings
    (secondary); with ``stratified`` (relevant and non-relevant drawn separately, rate ``rate``), that design
    (equal where the statement's paper used it). Power: the rival at the ``control`` rate (default
    :func:`control_rate`, the next rate above ``rate``, a rule fixed in advance) against the rival at
    ``rate`` must pass the test.
    """
    rates = [float(r) for r in exp.rates]
    n = boot[next(iter(boot))].shape[-1]
    control = control_rate(rates, rate) if control is None else float(control)
    how = f"{n} resamples of the {len(exp.topics)} topics, τ averaged over {len(exp.seeds)} seeds"
    out = []
    for cid, (source, members, paraphrase, others, against, strat_weight) in _ROBUST.items():
        members = {m: r for m, r in members.items() if m in exp.values and r in exp.values}
        if not members:
            continue
        got = {m: _robust_member(exp, boot, jack, m, r, others, against, stratified, strat_weight, rate, control,
                                 label, rng, n, how) for m, r in members.items()}
        rival = next(iter(members.values()))
        names = " and ".join(label(m) for m in members)
        ref = f"the full-judgement {label(against)} ranking" if against else "its own full-judgement ranking"
        claim = Claim(cid, paper=f"this book (testing {source})", section="random samples of the judgements",
                      quote=f"(paraphrase of {source}) {paraphrase}",
                      quantity=("per measure: " if len(members) > 1 else "")
                      + f"τ-b({names}) − τ-b({label(rival)}), each against {ref}, "
                        f"{rate:.0%} of each topic's judgements sampled at random",
                      test=Test(">", 0.0), data=data, standing="stand-in" if is_synthetic(data) else "original",
                      reading=Reading(f"'{'closer' if against else 'more robust'}' read as a higher Kendall τ-b "
                                      f"against {ref} when {rate:.0%} of the judgements are kept, averaged over "
                                      "sampling seeds (the seeds' spread in the interval)"
                                      + ("; the statement covers every condensed-list measure tested here, each a "
                                         "condition" if len(members) > 1 else ""),
                                      f"(paraphrase of {source}) {paraphrase}", "book's own question",
                                      f"{source} (not in this book's corpus: paraphrased)"),
                      evidence=Evidence.none(f"{source} is paraphrased (not in this book's corpus); its printed "
                                             "numbers are not compared"),
                      short=f"Book's test of {source}: {names} beat{'s' if len(members) == 1 else ''} "
                            f"{label(rival)} on sampled judgements.",
                      notes="all runs ranked; unsampled judgements are -1 in the qrels (trec_eval's convention)")
        if len(members) == 1:
            (m,) = members
            primary, rows, power = got[m]
            out.append(claim.evaluate(primary, power=power, sensitivity=[
                Alternative(name, est, kind=kind, weight=w, reason=why) for name, kind, w, why, est in rows]))
            continue
        cond = {label(m): got[m][0] for m in members}
        record = claim.evaluate_family(
            cond, need="all", power=_members_power(got, members, claim.test, label),
            sensitivity=_member_rows(got, members, label),
            multiplicity="none needed for 'holds for every condensed-list measure' (an intersection-union test: "
                         "each measure's own 95% interval keeps the error of the statement at 5%)")
        record["per_condition"] = condition_labels(record)
        out.append(record)
    return out


@validate_params(association=Instance(Mapping), k=Int(1), data=STR, measure=STR, runs=STR)
def explanation_claim(association: dict, k: int, data: str = "", measure: str = "MAP", runs: str = "") -> dict:
    """The book's explanation: topics with many relevant documents lose more of their ranking in a
    shallow pool, from :func:`fireeval.pooling.pools.relevant_count_association`.

    The primary reading is the per-topic Spearman ρ between relevant count and single-topic
    τ-b (it uses every topic's count); the median split τ-b(many) − τ-b(few) throws away all
    but which side of the median a topic is on -- a coarser diagnostic of the same idea -- so it is
    a secondary row, with its one-sided permutation p. ``runs``: which runs are ranked.
    """
    a = association
    who = f", {runs}" if runs else ""
    claim = Claim("explanation", paper="this book (pool_depth chapter)", section="explanation of the gap",
                  quote="a shallow pool disturbs the ranking more on topics with many relevant documents",
                  quantity=f"Spearman ρ between a topic's relevant documents and its single-topic τ-b "
                           f"({measure}, depth {k}{who})",
                  test=Test("<", 0.0), data=data, standing="stand-in" if is_synthetic(data) else "original",
                  reading=Reading("'more disturbed with many relevant documents' read as a negative association "
                                  "topic by topic (Spearman ρ over every topic's count); the median split, which "
                                  "keeps only the side of the median, is a coarser diagnostic and a secondary row",
                                  "a shallow pool disturbs the ranking more on topics with many relevant documents",
                                  "book's own question", "this chapter"),
                  evidence=Evidence.none("the book's own explanation; the paper gives no per-topic relevant counts"),
                  power=Power.no_control("no collection here is known to make τ depend on the relevant count"),
                  short="Topics with many relevant documents lose more ranking agreement in a shallow pool.",
                  notes=f"median split: one-sided permutation p = {a['split_p']:.3f} ({a['n_permutations']} "
                        "relabellings of the topics)")
    spearman = Estimate.bca(a["rho"], a["rho_boot"], a["rho_jack"],
                            f"{len(a['rho_boot'])} resamples of the topics (pairs)")
    split = Estimate.bca(a["split"], a["split_boot"], a["split_jack"],
                         f"{len(a['split_boot'])} resamples of each half; one-sided permutation p = {a['split_p']:.3f}")
    coarse = ("keeps only which side of the median a topic's count is on: a coarser, less powerful diagnostic of the "
              "same idea than the correlation over every topic's count")
    rows = [Alternative(f"median split τ-b(many) − τ-b(few) (permutation p = {a['split_p']:.3f})", split,
                        kind="statistic", weight="secondary", reason=coarse),
            Alternative("percentile interval", Estimate.from_samples(
                a["rho"], a["rho_boot"], "95% percentile bootstrap"), kind="interval method"),
            Alternative("median split, percentile interval", Estimate.from_samples(
                a["split"], a["split_boot"], "95% percentile bootstrap"), kind="statistic", weight="secondary",
                reason=coarse)]
    return claim.evaluate(spearman, sensitivity=rows)


@validate_params(record=[Instance(Mapping), None])
def holds_sentence(record: dict | None) -> str:
    """What a family claim's conditions show, by label (:func:`condition_labels`), each with why it is not firmer.

    >>> rec = {"family": {"conditions": [
    ...     {"condition": "a", "label": "reproduced"},
    ...     {"condition": "b", "label": "inconclusive", "primary_label": "reproduced",
    ...      "why": "reproduced by its interval; pct: inconclusive"},
    ...     {"condition": "c", "label": "contradicted"}]}}
    >>> holds_sentence(rec)
    'reproduced for a; inconclusive for b (reproduced by its interval; pct: inconclusive); contradicted for c'
    >>> holds_sentence(None)
    'no measure besides MAP was tested'
    """
    if record is None:
        return "no measure besides MAP was tested"
    per = record.get("per_condition") or condition_labels(record)
    parts = []
    for shown in ("reproduced", "depends", "inconclusive", "contradicted", "not testable here"):
        groups: dict = {}  # measures with the same label and the same reason, said once
        for c, v in per.items():
            if v["label"] == shown:
                groups.setdefault(v["why"], []).append(c)
        for why, names in groups.items():
            parts.append(f"{shown} for {', '.join(names)}" + (f" ({why})" if why else ""))
    return "; ".join(parts)
