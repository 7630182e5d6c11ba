"""The axiou_model_selection chapter's claims: §6.6 of Togashi et al. (CVPR 2022), Fig. 8.

Each question is one claim with a row per stand-in family of variants
(:meth:`~fireeval.stats.claims.Claim.evaluate_family`: "holds at k of 4"), the two tie rules
as readings of equal standing. None of the families is the paper's (its 640 variants are
unreleased checkpoints × NMS thresholds), so each record is "not testable here" about the
paper and carries what the families show as its ``here`` row. The experiment is
:mod:`fireeval.vmr.selection`; the paper's words and what its notebook does in
:mod:`fireeval.book.papers.togashi`.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fireeval.book.papers.togashi import GLOB_FIRST, PAPER, SELECTION_QUOTE
from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test
from fireeval.core.validation import STR, Instance, validate_params

__all__ = ["SELECTION_FAMILY_PRIMARY", "PRIMARY_FAMILY_NOTE", "EXISTS_NEED_REASON", "seed_spread", "selection_claims"]


def _selection_estimates(r, seed=0, level: float = 0.95):
    """(exists, rate, lead) estimates of one family's per-split shares (see :func:`selection_claims`)."""
    above, other = np.asarray(r["above"], float), np.asarray(r["best_other"], float)
    n = len(above)
    idx = np.random.default_rng(seed).integers(0, n, size=(2000, n))
    method = f"bootstrap over the {n} splits (2000 resamples; splits share queries, so this is optimistic)"
    if np.isin(above, (0.0, 1.0)).all():  # whole successes: the exact binomial interval, never [0, 0]
        rate = Estimate.proportion(int(above.sum()), n, f"{n} splits (they share queries: optimistic)", level)
    else:
        rate = Estimate.from_samples(above.mean(), above[idx].mean(axis=1), method, level)
    exists = None
    if "only" in r:
        exists = Estimate.proportion(int((np.asarray(r["only"], float) > 0.5).sum()), n,
                                     f"{n} splits, a split counted when most of its tie draws give the outcome "
                                     "(splits share queries: optimistic)", level)
    lead = Estimate.from_samples(above.mean() - other.mean(), above[idx].mean(axis=1) - other[idx].mean(axis=1),
                                 method, level)
    return exists, rate, lead, idx, method


def _selection_power(r, kind: str, fam: str, idx, method, paper: str = "AxIoU@10") -> Power:
    """Can anything pass this family's test? Asked of the statistic each question tests.

    Where no measure's pick is ever above average everywhere, nothing can pass any
    question. The rate question (> 0.5) asks whether any validation measure's rate can
    exceed 0.5: the best measure's rate is the control, and where its whole interval is
    at or below 0.5 no measure can pass.
    """
    if "any" in r and not np.any(np.asarray(r["any"], float) > 0):
        return Power.none_possible(f"in the {fam} family no validation measure's pick is above average on every "
                                   f"test measure in any of the {len(r['any'])} splits: no measure can pass")
    if kind == "rate" and "best" in r:
        best = np.asarray(r["best"], float)
        n = len(best)
        name = r.get("best_measure", "the best measure")
        e = (Estimate.proportion(int(best.sum()), n, f"{n} splits (they share queries: optimistic)")
             if np.isin(best, (0.0, 1.0)).all() else Estimate.from_samples(best.mean(), best[idx].mean(axis=1), method))
        if e.high is not None and e.high <= 0.5:
            return Power.none_possible(f"in the {fam} family the highest rate any validation measure reaches is "
                                       f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}] ({name}): no measure's pick is "
                                       "above average everywhere in most splits, so none can pass a test of > 0.5")
        if name == paper:  # the best measure is the one under test: it is no control, but the test can pass
            return Power.no_control(f"in the {fam} family the highest rate is {name}'s own, {e.value:.3f} [{e.low:.3f}, "
                                    f"{e.high:.3f}]: the test can pass, and no other measure is a control")
        return Power.positive_control(f"the validation measure with the highest rate in the {fam} family ({name})", e)
    if kind == "exists" and "any" in r:
        anyv = np.asarray(r["any"], float)
        n = len(anyv)
        return Power.positive_control(f"some validation measure's pick is above average everywhere, in some split "
                                      f"({fam} family)", Estimate.proportion(int((anyv > 0.5).sum()), n, f"{n} splits"))
    return Power.no_control(f"in the {fam} family some measure's pick is above average everywhere in some split, so "
                            "the test can pass; no measure is known in advance to lead")


SELECTION_FAMILY_PRIMARY = "single_base"
#: Why the single_base family is named in every claim: of the stand-in families, it is the closest to the paper's.
PRIMARY_FAMILY_NOTE = ("closest to the paper's 640 variants: one model's NMS thresholds × boundary rescalings at full "
                       "depth, as the paper's are one model's checkpoints × NMS thresholds")
#: Why the paper's own statement needs one family, not every one: what its sentence asserts.
EXISTS_NEED_REASON = ("the sentence reports what happened on the paper's one split of its one, unreleased family of "
                      "variants: that the outcome occurs. Each family here is a stand-in of equal standing for that "
                      "family, so one family where it occurs shows what the sentence asserts; 'in every family' is "
                      "a generality the sentence does not state, asked by the two stricter questions")


def _first_index_rows(first_conds: dict) -> list:
    """:func:`selection_claims`' sensitivity row of first-index tie-breaking (none without its conditions)."""
    if not first_conds:
        return []
    return [Alternative("first-index tie-breaking (the authors' argmax)", kind="tie rule",
                        conditions=first_conds, weight="equal",
                        reason="the authors' own rule; which tied variant it returns depends on the "
                               "family's order, which is ours, not theirs")]


#: Why the paper's own statement read on the primary family alone is a reading of equal standing.
PRIMARY_ALONE_REASON = ("the chapter names this family the closest to the paper's (one model's post-processings, as "
                        "the paper's are one model's checkpoints); the paper's one split of its one family read on "
                        "the nearest stand-in alone is as close to the sentence as 'in some family'")


def _primary_alone_rows(primary_conds: dict, primary: str) -> list:
    """The existence question read on the primary family alone (an equal row; none when it is the only family)."""
    name = _condition_name(primary)
    if name not in primary_conds or len(primary_conds) < 2:
        return []
    return [Alternative(f"the {primary} family alone (the closest to the paper's)", kind="scope",
                        conditions={name: primary_conds[name]}, weight="equal", reason=PRIMARY_ALONE_REASON)]


def _seed_rows(by_seed: dict, conds_of) -> list:
    """One sensitivity row per other split seed (kind "seed": a flip makes the claim at most inconclusive)."""
    return [Alternative(f"split seed {s} (another draw of the random validation/test splits)", kind="seed",
                        conditions=conds_of(s), weight="equal",
                        reason="the same reading on other random splits: a re-estimate, not another reading")
            for s in by_seed]


@validate_params(rates=Instance(Mapping), family=STR, measure=STR)
def seed_spread(rates: dict, family: str, measure: str = "AxIoU@10") -> dict:
    """Where the primary seed's rate of ``measure`` in ``family`` lies among the split seeds' rates.

    Parameters
    ----------
    rates : dict
        ``{seed: {family: {measure: rate}}}``, the primary seed first (as the chapter runs them).
    family, measure : str
        Which rate.

    Returns
    -------
    dict
        ``value`` (the primary seed's), ``low``/``high`` (the range over seeds), ``seeds``, ``rank``
        (1 = the highest of the seeds) and ``best``: whether the primary seed's is the highest.

    Examples
    --------
    >>> r = seed_spread({0: {"f": {"AxIoU@10": 0.55}}, 1: {"f": {"AxIoU@10": 0.41}}, 2: {"f": {"AxIoU@10": 0.5}}}, "f")
    >>> r["value"], r["low"], r["high"], r["rank"], r["best"]
    (0.55, 0.41, 0.55, 1, True)
    """
    seeds = list(rates)
    values = np.array([float(rates[s][family][measure]) for s in seeds])
    value = float(values[0])
    return {"value": value, "low": float(values.min()), "high": float(values.max()), "seeds": seeds,
            "rank": int((values > value).sum()) + 1, "best": bool(value >= values.max())}


def _seed_sources(by_seed: dict | None, fams: list, level: float) -> dict:
    """``{seed: (results, estimates)}`` of the other split seeds, as :func:`selection_claims` reads each rule's."""
    return {s: (res, {fam: _selection_estimates(res[fam], level=level) for fam in fams if fam in res})
            for s, res in (by_seed or {}).items()}


def _condition_name(fam: str) -> str:
    """A family's condition in the claims; the single_base family says it is the closest to the paper's."""
    return f"{fam} family" + (f" ({PRIMARY_FAMILY_NOTE.split(':')[0]})" if fam == SELECTION_FAMILY_PRIMARY else "")


def _families_power(powers: list) -> Power:
    """One question's power over the families: the first usable family's positive control (else its first
    usable power); none possible when no family can pass the question (their reasons joined)."""
    usable = [p for p in powers if not p.impossible]
    if not usable:
        return Power.none_possible("in no family can any validation measure pass this question: "
                                   + "; ".join(p.impossible for p in powers))
    return next((p for p in usable if p.estimate is not None), usable[0])


@validate_params(results=Instance(Mapping), data=STR, paper_measure=STR, first=[Instance(Mapping), None], primary=STR,
                 families_note=[Instance(Mapping), None], by_seed=[Instance(Mapping), None])
def selection_claims(results: dict, data: str, paper_measure: str = "AxIoU@10", first: dict | None = None,
                     primary: str = SELECTION_FAMILY_PRIMARY, families_note: dict | None = None,
                     by_seed: dict | None = None) -> list[dict]:
    """§6.6's finding asked of stand-in variant families: one claim per question, a row per family.

    ``results``: ``{family: fireeval.vmr.selection.family_claim_inputs(...)[family]}`` (random
    tie-breaking); ``first``: the same with first-index tie-breaking (the authors' argmax). Both
    tie rules are readings of equal standing: the authors' argmax is their rule, but which tied
    variant it returns depends on the order of the family, and our families' order is not the
    authors'; random tie-breaking is order-free. The first-index reading is a sensitivity row
    with its own per-family conditions (it flips the label where it differs).

    Three questions: the paper's own single-split statement as an existence claim (share of
    splits with the paper's outcome > 0, exact binomial intervals), and two stricter readings
    (AxIoU@10's pick is above average everywhere in most splits; more often than any other
    measure's). Each family is a condition, judged with its own interval at 1 − 0.05/m (m the
    families, Bonferroni); the paper's own statement needs one family (:data:`EXISTS_NEED_REASON`),
    the two stricter questions every family (each is a stand-in of equal standing for the paper's
    unreleased variants). A family in which nothing can pass the question (no
    measure's pick is ever above average everywhere, or none reaches half of the splits) is "not
    testable" there (its condition is NaN, the reason in its method), never "contradicted".
    ``primary`` names the family listed first (the nearest to the paper's: one model under NMS
    and rescaling, :data:`PRIMARY_FAMILY_NOTE`; its condition says so). ``by_seed``: ``{seed:
    results}`` of the same families on other split seeds: one row per seed of kind "seed" (a
    re-estimate: where it flips the label, the claim is at most inconclusive).
    """
    from fireeval.book.papers.togashi import FIG8_PROTOCOL

    fams = list(results)
    fams = ([primary] if primary in results else []) + [f for f in fams if f != primary]
    first = first or {}
    m = len(fams)
    level = 1 - 0.05 / m
    est = {fam: _selection_estimates(results[fam], level=level) for fam in fams}
    est_first = {fam: _selection_estimates(first[fam], level=level) for fam in fams if fam in first}
    sources = {"random": (results, est), "first": (first, est_first), **_seed_sources(by_seed, fams, level)}

    def power_of(fam, kind, rule="random"):
        r, e = sources[rule]
        return _selection_power(r[fam], kind, fam, e[fam][3], e[fam][4], paper_measure)

    def conds(kind, pos, rule="random"):
        e = sources[rule][1]
        out = {}
        for fam in fams:
            if fam not in e or e[fam][pos] is None:
                continue
            pw = power_of(fam, kind, rule)
            out[_condition_name(fam)] = (Estimate(float("nan"), method=f"no power: {pw.impossible}") if pw.impossible
                         else e[fam][pos])
        return out

    quote = SELECTION_QUOTE.format(measure=paper_measure)
    questions = [
        ("paper_split_exists", "exists", 0, Test(">", 0.0),
         quote + " [here: the paper's own statement -- some split gives this outcome]",
         f"share of validation/test splits in which {paper_measure}'s pick, and no other validation measure's, has "
         "z > 0 on every test measure (in most tie draws); the paper reports one split, so > 0 is its claim",
         f"Only {paper_measure}'s pick is above average on every test measure, in some split",
         Reading("the paper's single split as an existence claim: some random split gives its outcome, in some "
                 f"family ({EXISTS_NEED_REASON})", quote, "paper's definition", "§6.6, Fig. 8"), "any"),
        ("axiou10_above_average", "rate", 1, Test(">", 0.5),
         quote + f" [here, STRICTER than the paper: {paper_measure}'s pick, in most of many splits]",
         f"share of validation/test splits in which {paper_measure}'s pick has z > 0 on every test measure; stricter "
         "than the paper's single split",
         f"{paper_measure}'s pick is above average on every test measure in most splits",
         Reading("stricter than the paper: in most of many random splits, in every family", quote,
                 "book's own question", "§6.6"), "all"),
        ("axiou10_best", "lead", 2, Test(">", 0.0),
         quote + f" [here, stricter than the paper: {paper_measure} more often than any other measure]",
         f"{paper_measure}'s share minus the highest share among the other 11 validation measures",
         f"{paper_measure}'s pick is above average everywhere more often than any other measure's",
         Reading("stricter than the paper: more often than any other validation measure, in every family", quote,
                 "book's own question", "§6.6"), "all"),
    ]
    records = []
    evidence = Evidence.none("Fig. 8 plots z-scores of the paper's 640 unreleased variants on its one split; "
                             f"no released list reproduces them. Protocol: {FIG8_PROTOCOL}. {GLOB_FIRST}")
    for cid, kind, pos, test, q, quantity, short, reading, need in questions:
        primary_conds = conds(kind, pos)
        if not primary_conds:
            continue
        rows = _first_index_rows(conds(kind, pos, "first") if est_first else {})
        rows += _seed_rows(by_seed or {}, lambda s: conds(kind, pos, s))
        rows += _primary_alone_rows(primary_conds, primary) if kind == "exists" else []
        power = _families_power([power_of(f, kind) for f in fams if f in est and est[f][pos] is not None])
        claim = Claim(f"selection.{cid}", paper=PAPER, section="§6.6, Fig. 8", quote=q,
                      quantity=f"{quantity}; one condition per stand-in family ({', '.join(fams)}), random "
                               "tie-breaking averaged over draws (first-index tie-breaking: a row)",
                      test=test, data=data, fmt=".2f", standing="stand-in", short=short, reading=reading,
                      notes=" ".join((families_note or {}).get(f, "") for f in fams).strip())
        records.append(claim.evaluate_family(primary_conds, multiplicity=f"Bonferroni: each family's interval at "
                                                                         f"{level:.2%} ({m} families)",
                                             need=need, evidence=evidence, power=power, sensitivity=rows))
    return records
