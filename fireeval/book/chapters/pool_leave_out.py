"""The pool_leave_out chapter's claims: Westerveld's leave-out and interactive-run statements, Hauptmann
& Lin's REER threshold (which he quotes), and the book's judged@100 warning, one record per statement.

Westerveld's paper is about TRECVID 2003, whose runs are not public: his statements are "not testable
here", and what TREC-8 (the stand-in) shows is each claim's ``here`` row (:meth:`Claim.evaluate` puts it
there). The weights of the sensitivity rows, decided here from the paper's text and setting:

* the two definitions of a unit's "own" documents (no other *pooled* run has it / no other run at all
  has it, NIST's) -- equal: the paper does not say which it used;
* the exact realised τ-b on TREC-8's topics -- equal (:data:`EXACT_REASON`);
* the ranking of the pooled runs alone -- equal (:data:`POOLED_REASON`);
* the percentile interval and a second bootstrap seed re-estimate the same reading (a flip there
  leaves the claim no firmer than *inconclusive*);
* the warning's "more likely than not" -- secondary (:data:`STRICT_REASON`).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fireeval.book.chapters.trec_claims import (is_synthetic, stand_in_label, tau_estimates, tau_family_rows,
                                                tau_rows, width_note, only_can_pass)
from fireeval.book.papers.westerveld import (WESTERVELD, NO_TRECVID, DEPTH_QUOTE, LEAVE_QUOTE, MANUAL_QUOTE,
                                             MANUAL_RANGE, REER_QUOTE)
from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test
from fireeval.core.validation import ANY, ARRAY, NUMBER, SEED, STR, Instance, Int, Real, validate_params

__all__ = ['EXACT_REASON', 'POOLED_REASON', 'STRICT_REASON', 'UNITS', 'leave_out_claim', 'manual_claim',
           'reer_claim', 'reer_control', 'warning_claim']

#: The leave-outs the paper's one sentence covers ("original MAPs and modified MAPs", §4.2): its conditions.
UNITS = {"run": "run left out", "group": "group left out"}

EXACT_REASON = ("equal standing: Westerveld's τ is the realised value on TRECVID 2003's own topics, printed "
                "without an interval; read the same way, the words ask about TREC-8's 50 topics, while the "
                "bootstrap asks about topic sets like them: neither reading is ruled out by the paper")

POOLED_REASON = ("equal standing: in TRECVID 2003 every submission was pooled (§4.1: 'the top K results from "
                 "each of the submissions'), so 'all submissions' and 'the pooled runs' were one set; on TREC-8 "
                 "(not every run pooled) they split, and the paper's words fit both")

STRICT_REASON = ("the claim is the book's own, and its words ('risks losing') are defined by the book "
                 "as a raised risk, a precision above the base rate; 'more likely than not' is a stricter bar the "
                 "claim does not make, shown as a diagnostic of how often a flagged run really loses")


def _multiplicity(n: int) -> str:
    return (f"none: the statement needs all {n} conditions, an intersection-union test, so each 95% interval at its "
            "own level keeps the error of 'holds at every condition' at 5% (a failure at one condition is read at "
            "95% too; Bonferroni would widen each interval to 97.5%)")


@validate_params(original=ANY, per_topic=Instance(Mapping), n_resamples=Int(1), rng=SEED, data=STR, pooled=ANY)
def leave_out_claim(original, per_topic: dict, n_resamples: int = 1000, rng: int = 0, data: str = "",
                    pooled=None) -> dict:
    """Westerveld's leave-out statement, τ > 0.98, one claim with a row per leave-out (run, group).

    The paper says it in one sentence about both modified pools ("the correlation between system
    rankings based on original MAPs and modified MAPs is very high: τ > 0.98"), so run and group
    leave-out are the conditions of one statement (:meth:`Claim.evaluate_family`, every condition
    needed). ``per_topic[(unit, definition)]``: (runs, topics) scores with each run's ``unit``
    (``"run"``, ``"group"``) left out, per definition of a unit's own documents (``"pooled"``, the
    primary; ``"all runs"``, NIST's): the second definition is a family row of equal standing.
    ``pooled`` (a mask over the runs): the ranking of the pooled runs alone, a row of equal standing.
    """
    original = np.asarray(original, float)
    pooled = None if pooled is None else np.asarray(pooled, dtype=bool)
    definitions = list(dict.fromkeys(d for (_, d) in per_topic))
    units = [u for u in UNITS if any((u, d) in per_topic for d in definitions)]
    if not units:
        raise ValueError("leave_out_claim: per_topic holds no run or group leave-out. Fix: give "
                         "{('run' or 'group', definition): (runs, topics) scores}")
    claim = Claim("leave_out", paper=WESTERVELD, section="§4.2, Fig. 4", quote=LEAVE_QUOTE,
                  quantity="Kendall τ-b, MAP, all runs: full qrels vs each run's run (group) left out",
                  test=Test(">", 0.98), data=stand_in_label(data), paper_value="τ > 0.98", fmt=".4f",
                  standing="stand-in", evidence=NO_TRECVID,
                  reading=Reading("'very high' is the paper's own bound, τ > 0.98, said once of both modified "
                                  "pools (run and group left out): one statement, both conditions needed",
                                  LEAVE_QUOTE, "paper's definition", "§4.2"),
                  short="Leaving a run's or its group's unique documents out keeps TRECVID 2003's MAP ranking at "
                        "τ > 0.98.")
    families, rows = {}, []
    subset = pooled is not None and 1 < pooled.sum() < len(pooled)
    for d in definitions:
        have = {UNITS[u]: (per_topic[u, d], original) for u in units if (u, d) in per_topic}
        families[d], more = tau_family_rows(have, n_resamples, rng, f"{d}, ", exact_reason=EXACT_REASON)
        if d != definitions[0]:
            rows.append(Alternative(f"{d} (NIST's definition of a unit's own documents)" if d == "all runs" else d,
                                    conditions=families[d], kind="convention",
                                    reason="equal standing: the paper does not say which runs' documents count "
                                           "as another's"))
        rows += more
        if subset:
            sub = {name: tau_estimates(np.asarray(x)[pooled], ref[pooled], n_resamples, rng)[0]
                   for name, (x, ref) in have.items()}
            rows.append(Alternative(f"{d}, pooled runs only ranked", conditions=sub, kind="subset",
                                    reason=POOLED_REASON))
    primary = families[definitions[0]]
    first = next(iter(primary.values()))
    power = only_can_pass(f"the full qrels, nothing left out; {width_note(first, claim.test)} "
                          f"(reading '{definitions[0]}', {next(iter(primary))})")
    return claim.evaluate_family(primary, multiplicity=_multiplicity(len(primary)), need="all", power=power,
                                 sensitivity=rows)


@validate_params(original=ANY, per_topic=Instance(Mapping), n_resamples=Int(1), rng=SEED, data=STR, pooled=ANY)
def manual_claim(original, per_topic: dict, n_resamples: int = 1000, rng: int = 0, data: str = "",
                 pooled=None) -> dict:
    """The interactive-run statement, with TREC-8's manual runs as the analogue: one claim.

    ``per_topic[definition]``: (runs, topics) scores without the documents only manual runs
    contributed, per definition of "only" (as in :func:`leave_out_claim`: readings of equal
    standing). 'Very close' has no bound in the paper, so the verdict runs over
    :data:`fireeval.book.papers.westerveld.MANUAL_RANGE`.
    """
    original = np.asarray(original, float)
    pooled = None if pooled is None else np.asarray(pooled, dtype=bool)
    estimates, rows = {}, []
    for d, values in per_topic.items():
        estimates[d], more = tau_rows(values, original, n_resamples, rng, f"{d}, ", replaces=d)
        rows += [Alternative(r.name, r.estimate, kind=r.kind, replaces=d, reason=EXACT_REASON)
                 if r.kind == "exact value" else r for r in more]
        if pooled is not None and 1 < pooled.sum() < len(pooled):
            sub, _ = tau_estimates(np.asarray(values)[pooled], original[pooled], n_resamples, rng)
            rows.append(Alternative(f"{d}, pooled runs only ranked", sub, kind="subset", replaces=d,
                                    reason=POOLED_REASON))
    claim = Claim("leave_out_manual", paper=WESTERVELD, section="§5", quote=MANUAL_QUOTE,
                  quantity="Kendall τ-b, MAP, all runs: full qrels vs qrels without the documents only manual "
                           "runs contributed", test=Test(">", 0.98), data=stand_in_label(data), paper_value="τ = 0.99",
                  fmt=".4f", standing="stand-in", evidence=NO_TRECVID,
                  reading=Reading("'very close' has no bound in the paper: it prints τ = 0.99 for this test, calls "
                                  "τ > 0.98 'very high' (§4.2) and τ > 0.90 'high correlation' (§4.1), so the "
                                  "test runs over thresholds from 0.90 to 0.985 (0.98 shown as the primary)",
                                  MANUAL_QUOTE + "; " + LEAVE_QUOTE + "; " + DEPTH_QUOTE, "no guidance: range",
                                  "§5, §4.2, §4.1", thresholds=MANUAL_RANGE),
                  short="Without documents only interactive runs found, TRECVID 2003's ranking stays at τ ≈ 0.99.",
                  notes="TREC-8's manual runs stand in for TRECVID's interactive runs")
    first = next(iter(estimates.values()))
    power = only_can_pass(f"the full qrels, nothing left out; {width_note(first, claim.test)} "
                          f"(reading '{next(iter(estimates))}')")
    return claim.evaluate(estimates, power=power, sensitivity=rows)


@validate_params(per_bin=NUMBER, cumulative=NUMBER, half=Int(0), trials=Int(1), data=STR, samples=ANY,
                 boot_trials=[Int(1), None], control=[Instance(Estimate), None], control_what=STR)
def reer_claim(per_bin: float, cumulative: float, half: int, trials: int, data: str = "", samples=None,
               boot_trials: int | None = None, control: Estimate | None = None,
               control_what: str = "") -> dict:
    """Hauptmann & Lin's threshold as Westerveld quotes it: one claim, its TREC-8 result the ``here`` row.

    What transfers from TRECVID 2003/04 to another collection is the method (swap rate by score
    difference between disjoint topic sets) and how the threshold scales (with the per-topic spread
    of score differences and the number of topics); the 0.02 itself belongs to those runs and topics.

    ``samples``: (n_resamples, 2) per-bin and cumulative thresholds from
    :func:`fireeval.stats.reliability.bootstrap_reer_difference`. Without them the estimates have no
    interval (topic sampling not covered). ``control``: the threshold measured the same way on a
    collection whose threshold is known to be below 0.02 (:func:`reer_control`), ``control_what``
    describing it; the test has power when it passes. No power is computed from the observed threshold.
    """
    claim = Claim("reer", paper="Hauptmann & Lin, quoted by " + WESTERVELD, section="§3", quote=REER_QUOTE,
                  quantity=f"smallest MAP difference with swap rate < 0.05, two disjoint sets of {half} topics",
                  test=Test("<=", 0.02), data=stand_in_label(data), paper_value="0.02", fmt=".2f", standing="stand-in",
                  evidence=Evidence.none("Hauptmann & Lin's swap-rate curves for TRECVID 2003/04 are not in this "
                                         "book's corpus, and the runs are not public"),
                  reading=Reading("the threshold as the paper states it: REER < 0.05 from a MAP difference of 0.02; "
                                  "the rate per 0.01 bin and over all pairs at least d apart are readings of equal "
                                  "standing (the paper does not say which)", REER_QUOTE, "paper's definition", "§3"),
                  short="On TRECVID 2003/04, MAP differences above 0.02 keep the swap rate below 0.05.",
                  notes="what transfers is the method and its scaling with topic count and per-topic spread "
                        "(Lin & Hauptmann's analysis), not the 0.02: it belongs to TRECVID 2003/04's runs and topics")
    rows = []
    if samples is None:
        method = f"bin edge over {trials} random splits; topic sampling not covered"
        estimates = {"per-bin": Estimate(per_bin, method=method), "cumulative": Estimate(cumulative, method=method)}
    else:
        samples = np.asarray(samples, dtype=float)
        method = (f"bin edge over {trials} random splits; 95% percentile bootstrap over topics, {len(samples)} "
                  f"resamples of {boot_trials or trials} splits each")
        estimates = {"per-bin": Estimate.from_samples(per_bin, samples[:, 0], method),
                     "cumulative": Estimate.from_samples(cumulative, samples[:, 1], method)}
        for c, (name, value) in enumerate([("per-bin", per_bin), ("cumulative", cumulative)]):
            s = samples[:, c][np.isfinite(samples[:, c])]
            if len(s):
                lo, hi = np.quantile(s, [0.025, 0.975])
                rows.append(Alternative(f"{name}, basic bootstrap interval", Estimate(
                    value, min(2 * value - hi, value), max(2 * value - lo, value), "95% basic bootstrap: 2θ − q"),
                    kind="interval method", replaces=name))
    power = (Power.no_control("no collection with a known threshold was built") if control is None else
             Power.positive_control(control_what, control))
    return claim.evaluate(estimates, power=power, sensitivity=rows)


@validate_params(per_topic=ARRAY, half=Int(0), trials=Int(1), bins=ANY, target=Real(0, 1), rng=SEED)
def reer_control(per_topic, half: int, trials: int, bins, target: float = 0.01, rng: int = 0) -> tuple[Estimate, str]:
    """A positive control for the REER threshold: the same runs with each run's per-topic deviations from its
    mean shrunk so that the normal model (:func:`fireeval.stats.reliability.normal_swap_difference`) puts the
    threshold at ``target`` (below 0.02), measured as the claim is (per-bin rate, 100 pairs a bin at least).

    The normal model's threshold scales with the per-topic spread, so the shrink factor is known in advance.
    """
    from fireeval.stats import reliability

    x = np.asarray(per_topic, dtype=float)
    model = reliability.normal_swap_difference(x, half, 0.05)
    factor = target / model["difference"]
    means = x.mean(-1, keepdims=True)
    shrunk = means + factor * (x - means)
    swaps = reliability.swap_rates(shrunk, half, trials, bins=bins, rng=rng)
    value = reliability.difference_for_error_rate(swaps, 0.05, min_pairs=100)
    what = (f"the same runs with per-topic deviations shrunk by {factor:.2f}, so that the normal model's threshold is "
            f"{target:g} (known, below 0.02), measured the same way over {trials} splits")
    return Estimate(value, method=f"exact: bin edge over {trials} random splits of the shrunk collection"), what


@validate_params(flagged_losers=Int(0), flagged=Int(0), data=STR, k=Int(1), max_loss=Real(0, 1), useful=Real(0, 1),
                 base_rate=[Real(0, 1), None])
def warning_claim(flagged_losers: int, flagged: int, data: str = "", k: int = 100, max_loss: float = 0.02,
                  useful: float = 0.5, base_rate: float | None = None) -> dict:
    """This book's judged@k warning, validated by leaving one group out at a time (a claim of the book's).

    "Risks losing" is a statement about risk: a warning sign is useful when a flagged run loses
    ``max_loss`` or more often than a run drawn at random does, so the test is the precision
    (fitted without the run's group) above the ``base_rate`` (the share of all runs that lost that
    much). "More likely than not" (precision > ``useful``) is a secondary row (:data:`STRICT_REASON`).
    Without ``base_rate`` the 0.5 bar is the test itself.
    """
    quote = (f"a run whose judged@{k} is below the fitted level risks losing more than {max_loss:.0%} of its MAP")
    strict = Test(">", useful)
    test = strict if base_rate is None else Test(">", base_rate)
    reading = (Reading(f"'risks losing' read as: a flagged run loses {max_loss:.0%} or more often than a run "
                       f"drawn at random (precision above the base rate, {base_rate:.3f}): a warning sign is a "
                       f"raised risk; 'more likely than not' (precision > {useful:g}) is a secondary row",
                       quote, "book's own question", "this chapter") if base_rate is not None else
               Reading(f"'risks losing' read as: a flagged run loses {max_loss:.0%} or more often "
                       f"than not (precision > {useful:g})", quote, "book's own question", "this chapter"))
    claim = Claim("warning", paper="this book (pool_leave_out chapter)", section="judged@100 warning",
                  quote=quote,
                  quantity=f"precision of the warning fitted without the run's group: flagged runs that lost "
                           f"≥ {max_loss:.0%}", test=test, data=data,
                  standing="stand-in" if is_synthetic(data) else "original", reading=reading,
                  evidence=Evidence.none("a claim of the book's; no paper's number"),
                  power=Power.no_control("no run set with a known useful warning is at hand"),
                  short=f"A low judged@{k} flags runs more likely than others to lose {max_loss:.0%} of MAP.",
                  notes="runs of one group are not independent, so the interval is optimistic")
    estimate = Estimate.proportion(flagged_losers, flagged, "leave-one-group-out")
    rows = [] if base_rate is None else [Alternative(f"more likely than not (precision > {useful:g})", estimate,
                                                     kind="threshold", test=strict, weight="secondary",
                                                     reason=STRICT_REASON)]
    return claim.evaluate(estimate, sensitivity=rows)
