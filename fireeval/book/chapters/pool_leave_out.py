"""The pool_leave_out chapter's claims: Westerveld's leave-out and interactive-run statements, Hauptmann
& Lin's REER threshold (which he quotes), and the book's judged@100 warning, each as a computed verdict.
"""
from __future__ import annotations


import numpy as np

from fireeval.book.chapters.trec_claims import is_synthetic, stand_in_label, finding_twin, tau_estimates, tau_rows, width_note, only_can_pass
from fireeval.book.papers.westerveld import WESTERVELD, NO_TRECVID, DEPTH_QUOTE, LEAVE_QUOTE, MANUAL_QUOTE, MANUAL_RANGE, REER_QUOTE
from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test

__all__ = ['leave_out_claims', 'manual_claim', 'reer_claim', 'reer_control', 'warning_claim']

def leave_out_claims(original, per_topic: dict, n_resamples: int = 1000, rng: int = 0, data: str = "",
                     pooled=None) -> list[dict]:
    """Run and group leave-out τ-b > 0.98: the paper's claims (stand-ins) and the book's findings.

    ``per_topic[(unit, convention)]``: (runs, topics) scores with each run's ``unit``
    (``"run"``, ``"group"``) left out, under each definition of a unit's "own" documents
    (``"pooled"``: no other pooled run has it; ``"all runs"``: no other run at all has it,
    NIST's convention). The paper does not say which it used and no output of its author
    settles it, so the two are readings of equal standing ("depends" if they disagree).
    ``pooled`` (a mask over the runs): the paper pooled every submission, so the ranking of
    the pooled runs alone is a sensitivity row of each reading.
    """
    out = []
    original = np.asarray(original, float)
    pooled = None if pooled is None else np.asarray(pooled, dtype=bool)
    for unit in ("run", "group"):
        convs = [c for (u, c) in per_topic if u == unit]
        if not convs:
            continue
        estimates, rows = {}, []
        for conv in convs:
            estimates[conv], more = tau_rows(per_topic[unit, conv], original, n_resamples, rng, f"{conv}, ",
                                              replaces=conv)
            rows += more
            if pooled is not None and 1 < pooled.sum() < len(pooled):
                sub, _ = tau_estimates(np.asarray(per_topic[unit, conv])[pooled], original[pooled], n_resamples, rng)
                rows.append(Alternative(f"{conv}, pooled runs only ranked (the paper pooled every submission)", sub,
                                        kind="subset", replaces=conv))
        claim = Claim(f"leave_out_{unit}", paper=WESTERVELD, section="§4.2, Fig. 4", quote=LEAVE_QUOTE,
                      quantity=f"Kendall τ-b, MAP, all runs: full qrels vs each run's {unit} left out",
                      test=Test(">", 0.98), data=stand_in_label(data), paper_value="τ > 0.98", fmt=".4f",
                      standing="stand-in", evidence=NO_TRECVID,
                      reading=Reading("'very high' is the paper's own bound: τ > 0.98", LEAVE_QUOTE,
                                      "paper's definition", "§4.2"),
                      short=f"Removing a {unit}'s unique documents keeps TRECVID 2003's MAP ranking at τ > 0.98.")
        first = next(iter(estimates.values()))
        power = only_can_pass(f"the full qrels, nothing left out; {width_note(first, claim.test)} "
                               f"(reading '{next(iter(estimates))}')")
        out.append(claim.evaluate(estimates, power=power, sensitivity=rows))
        finding = finding_twin(claim, data, short=f"On TREC-8, {unit} leave-out keeps the MAP ranking at τ-b > 0.98.",
                           quote=f"on TREC-8, leaving each run's {unit} out of the pool keeps the MAP ranking at "
                                 "τ-b > 0.98 (Westerveld's test, applied here)")
        out.append(finding.evaluate(estimates, power=power, sensitivity=rows))
    return out


def manual_claim(original, per_topic: dict, n_resamples: int = 1000, rng: int = 0, data: str = "") -> list[dict]:
    """The interactive-run test with TREC-8's manual runs as the analogue: the paper's claim and the finding.

    ``per_topic[convention]``: (runs, topics) scores without the documents only manual runs
    contributed, per definition of "only" (as in :func:`leave_out_claims`).
    """
    estimates, rows = {}, []
    for conv, values in per_topic.items():
        estimates[conv], more = tau_rows(values, original, n_resamples, rng, f"{conv}, ", replaces=conv)
        rows += more
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
                  notes="TREC-8's 13 manual runs stand in for TRECVID's interactive runs")
    first = next(iter(estimates.values()))
    power = only_can_pass(f"the full qrels, nothing left out; {width_note(first, claim.test)} "
                           f"(reading '{next(iter(estimates))}')")
    finding = finding_twin(claim, data, short="On TREC-8, removing documents only manual runs found keeps τ-b near 0.99.",
                       quote="on TREC-8, removing the documents only the manual runs contributed keeps the MAP "
                             "ranking of all runs very close to the original, τ-b above thresholds from 0.90 to "
                             "0.985 (Westerveld's interactive-run test, applied here)")
    return [claim.evaluate(estimates, power=power, sensitivity=rows),
            finding.evaluate(estimates, power=power, sensitivity=rows)]


def reer_claim(per_bin: float, cumulative: float, half: int, trials: int, data: str = "", samples=None,
               boot_trials: int | None = None, control: Estimate | None = None,
               control_what: str = "") -> list[dict]:
    """Hauptmann & Lin's threshold, quoted by Westerveld: the paper's claim (a stand-in) and the finding.

    What transfers from TRECVID 2003/04 to another collection is the method (swap rate
    by score difference between disjoint topic sets) and how the threshold scales (with
    the per-topic spread of score differences and the number of topics); the 0.02 itself
    belongs to those runs and topics. So the claim about the paper is "not testable
    here", and the book's finding is TREC-8's own threshold.

    ``samples``: (n_resamples, 2) per-bin and cumulative thresholds from
    :func:`fireeval.stats.reliability.bootstrap_reer_difference`. Without them the
    estimates have no interval (topic sampling not covered). ``control``: the threshold measured
    the same way on a collection whose threshold is known to be below 0.02 (:func:`reer_control`),
    ``control_what`` describing it; it must pass the test.
    """
    claim = Claim("reer", paper="Hauptmann & Lin, quoted by " + WESTERVELD, section="§3", quote=REER_QUOTE,
                  quantity=f"smallest MAP difference with swap rate < 0.05, two disjoint sets of {half} topics",
                  test=Test("<=", 0.02), data=stand_in_label(data), paper_value="0.02", fmt=".2f", standing="stand-in",
                  evidence=Evidence.none("Hauptmann & Lin's swap-rate curves for TRECVID 2003/04 are not in this "
                                         "book's corpus, and the runs are not public"),
                  reading=Reading("the threshold as the paper states it: REER < 0.05 from a MAP difference of 0.02",
                                  REER_QUOTE, "paper's definition", "§3"),
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
                    kind="interval method"))
    finding = finding_twin(claim, data, short=f"On TREC-8, a MAP difference of 0.02 keeps REER below 0.05 ({half} topics).",
                       quote=f"on TREC-8, with two disjoint sets of {half} topics, a MAP difference above 0.02 "
                             "keeps the swap rate below 0.05")
    power = (Power.no_control("no collection with a known threshold was built") if control is None else
             Power.positive_control(control_what, control))
    return [claim.evaluate(estimates, power=power, sensitivity=rows),
            finding.evaluate(estimates, power=power, sensitivity=rows)]


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


def warning_claim(flagged_losers: int, flagged: int, data: str = "", k: int = 100, max_loss: float = 0.02,
                  useful: float = 0.5, base_rate: float | None = None) -> dict:
    """This book's judged@k warning, validated by leaving one group out at a time.

    "Risks losing" is a statement about risk: a warning sign is useful when a flagged run loses
    ``max_loss`` or more more often than a run drawn at random does, so the primary test is the
    precision (fitted without the run's group) above the ``base_rate`` (the share of all runs
    that lost that much). "More likely than not" (precision > ``useful``, the book's round
    number) is the stricter reading, a sensitivity row. Without ``base_rate`` it is primary.
    """
    quote = (f"a run whose judged@{k} is below the fitted level risks losing more than {max_loss:.0%} of its MAP")
    strict = Test(">", useful)
    test = strict if base_rate is None else Test(">", base_rate)
    reading = (Reading(f"'risks losing' read as: a flagged run loses {max_loss:.0%} or more more often than a run "
                       f"drawn at random (precision above the base rate, {base_rate:.3f}): a warning sign is a "
                       "raised risk; 'more likely than not' (precision > "
                       f"{useful:g}, a round number of the book's) is a sensitivity row",
                       quote, "book's own question", "this chapter") if base_rate is not None else
               Reading(f"'risks losing' read as: a flagged run loses {max_loss:.0%} or more more often "
                       f"than not (precision > {useful:g})", quote, "book's own question", "this chapter"))
    claim = Claim("warning", paper="this book (earlier pool_leave_out chapter)", section="judged@100 warning",
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
                                                     kind="threshold", test=strict)]
    return claim.evaluate(estimate, sensitivity=rows)

