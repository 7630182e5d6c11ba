"""The pooling chapters' claims: Westerveld's findings, the book's findings on TREC-8, and the book's
tests of the incomplete-judgement measures, each as a computed verdict.

Westerveld (*TRECVID as a re-usable test collection for video retrieval*, one author)
measured TRECVID 2003, whose runs are not public. TREC-8 Ad Hoc stands in for it, so
every claim about his paper (and about Hauptmann & Lin's REER threshold, which he
quotes) has ``standing="stand-in"``: its verdict is "not testable here", and what TREC-8
shows is a separate claim of the book's (:meth:`fireeval.stats.claims.Claim.book_finding`,
id ``<claim>.here``) with its own verdict.

Intervals for Kendall τ are BCa bootstrap intervals over topics
(:meth:`fireeval.stats.claims.Estimate.bca` from
:func:`fireeval.stats.reliability.bootstrap_agreement` and
:func:`~fireeval.stats.reliability.jackknife_agreement`): τ near 1 is skewed, and most
percentile replicates fall below the estimate. The percentile interval and a second
bootstrap seed are sensitivity rows.

The robustness claims of bpref, infAP, AP′ and nDCG′ are the book's tests of those
measures on the experiment they were designed for (random samples of the judgements,
:mod:`fireeval.pooling.sampling`); each names the paper it paraphrases.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from fireeval.stats.agreement import kendall_tau
from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test
from fireeval.stats.reliability import bootstrap_agreement, jackknife_agreement

__all__ = ["WESTERVELD", "tau_estimates", "depth_claims", "sampling_claims", "explanation_claim",
           "leave_out_claims", "manual_claim", "reer_claim", "warning_claim", "holds_sentence"]

WESTERVELD = "Westerveld (TRECVID reusability)"
_FOR = "for TRECVID 2003"
_NO_TRECVID = Evidence.none("TRECVID 2003's runs and per-topic scores are not public: no value the paper prints can "
                            "be recomputed here (the paper gives its τ only as a bound, read from its figures)")
_DEPTH_QUOTE = ("Even a pool depth of K=3, (i.e., only the first three documents of each submission get judged), "
                "shows high correlation to the original ranking τ>0.90")
_LEAVE_QUOTE = ("The correlation between system rankings based on original MAPs and modified MAPs is very high: "
                "τ > 0.98")
_MANUAL_QUOTE = ("Even when all documents that are found by interactive submissions only are removed from the pool, "
                 "the resulting ranking of submission is very close to the ranking based on the original pool "
                 "(τ=0.99)")
_REER_QUOTE = "for REER to be smaller than 0.05, a difference in MAP scores should be greater than 0.02"


def _synthetic(data: str) -> bool:
    return "synthetic" in data.split(",")[0]


def _stand_in(data: str) -> str:
    """The data label of a claim about the paper: always a stand-in for TRECVID 2003."""
    on = data.split(":", 1)[-1].strip() if ":" in data else data
    return f"stand-in: {on} ({_FOR})"


def _finding(claim: Claim, data: str, short: str, quote: str | None = None) -> Claim:
    """``claim.book_finding`` (id ``<claim>.here``) on ``data``, the label of the data the book ran on
    (the paper's claim carries the stand-in label); a finding on synthetic data stays a stand-in."""
    return replace(claim.book_finding(f"{claim.id}.here", quote, short), data=data)


def tau_estimates(per_topic, reference, n_resamples: int, rng=0, what: str = "topics") -> tuple[Estimate, Estimate]:
    """(BCa, percentile) estimates of Kendall τ-b between the rankings by mean score.

    ``per_topic``/``reference``: (n_systems, n_topics). The same ``rng`` draws the same
    topic resamples as :func:`fireeval.stats.reliability.bootstrap_agreement`.

    >>> s = np.array([[.1, .2, .3, .2], [.4, .5, .6, .5], [.7, .8, .9, .8]])
    >>> bca, pct = tau_estimates(s, s, 20)
    >>> bca.value, pct.value
    (1.0, 1.0)
    """
    per_topic, reference = np.asarray(per_topic, float), np.asarray(reference, float)
    value = kendall_tau(per_topic.mean(-1), reference.mean(-1))
    boot = bootstrap_agreement(per_topic, reference, n_resamples, rng)
    jack = jackknife_agreement(per_topic, reference)
    how = f"{n_resamples} resamples of the {per_topic.shape[-1]} {what} (seed {rng})"
    return (Estimate.bca(value, boot, jack, how),
            Estimate.from_samples(value, boot, f"95% percentile bootstrap; {how}"))


def _tau_rows(per_topic, reference, n_resamples, rng, prefix=""):
    """Primary BCa estimate and its sensitivity rows: percentile interval, another seed."""
    bca, pct = tau_estimates(per_topic, reference, n_resamples, rng)
    other, _ = tau_estimates(per_topic, reference, n_resamples, rng + 1)
    return bca, [Alternative(f"{prefix}percentile interval", pct, kind="interval method"),
                 Alternative(f"{prefix}bootstrap seed {rng + 1}", other, kind="seed")]


def _full_pool_control(depth) -> Power:
    return Power.positive_control(f"the full depth-{depth} pool re-scored the same way (its ranking is the original: "
                                  "τ = 1); the test can pass", Estimate(1.0, method="exact: the original ranking"))


def depth_claims(sweep, k: int = 3, data: str = "", label=str, pooled=None, n_resamples: int = 1000, rng: int = 0,
                 measures=None, pool_depth: int | None = None) -> list[dict]:
    """Westerveld's depth-``k`` claim (MAP, τ-b > 0.90) and the book's findings per measure.

    The primary ranking is of the pooled runs only when ``pooled`` (a mask over
    ``sweep.runs``) leaves some runs out: in TRECVID 2003 every submission was pooled
    ("the top K results from each of the submissions"), so ranking all runs, some of
    which never built the pool, is a sensitivity row. For MAP the records are the
    paper's claim (a stand-in: "not testable here") and the book's finding on the data
    (``depth_map.here``); for the other measures the paper says nothing, so only the
    book's finding (``depth_<m>``) is made. infAP is left out: with every pooled
    document judged it is AP up to ε (the chapter shows this once).
    """
    i = list(sweep.depths).index(k)
    depth = pool_depth or int(max(sweep.depths))
    pooled = None if pooled is None else np.asarray(pooled, dtype=bool)
    split = pooled is not None and 1 < pooled.sum() < len(pooled)
    measures = [m for m in dict.fromkeys(measures or sweep.values) if m != "infAP"]
    out = []
    for m in measures:
        values, reference = sweep.values[m][i], sweep.reference[m]
        if split:
            primary, rows = _tau_rows(values[pooled], reference[pooled], n_resamples, rng, "pooled runs only, ")
            every, _ = tau_estimates(values, reference, n_resamples, rng)
            rows = [Alternative("all runs ranked (unpooled runs included)", every, kind="subset"), *rows]
            who = f"the {int(pooled.sum())} pooled runs"
        else:
            primary, rows = _tau_rows(values, reference, n_resamples, rng)
            who = "all runs"
        quantity = f"Kendall τ-b between rankings of {who} by {label(m)}, depth-{k} pool vs full pool"
        power = _full_pool_control(depth)
        if m == "map":
            claim = Claim("depth_map", paper=WESTERVELD, section="§4.1, Fig. 3", quote=_DEPTH_QUOTE,
                          quantity=quantity, test=Test(">", 0.90), data=_stand_in(data), standing="stand-in",
                          paper_value="τ > 0.90 (MAP, K = 3)", evidence=_NO_TRECVID,
                          reading=Reading("'high correlation' is the paper's own bound: τ > 0.90 at K = 3, "
                                          "submissions ranked by MAP", _DEPTH_QUOTE, "paper's definition",
                                          "§4.1, Fig. 3"),
                          short="A depth-3 pool ranks TRECVID 2003 runs by MAP at τ > 0.90.",
                          notes="TREC-8 stands in for TRECVID 2003: the mechanism carries over, the depth at which "
                                "τ passes 0.90 does not (collection size, runs, relevant per topic differ)")
            out.append(claim.evaluate(primary, power=power, sensitivity=rows))
            finding = _finding(claim, data, short=f"On TREC-8, a depth-{k} pool ranks runs by MAP at τ-b > 0.90.",
                               quote=f"on TREC-8, a depth-{k} pool ranks the runs by MAP as the full pool does, "
                                     "τ-b > 0.90 (Westerveld's test, applied here)")
            out.append(finding.evaluate(primary, power=power, sensitivity=rows))
            continue
        claim = Claim(f"depth_{m}", paper="this book", section=f"after {WESTERVELD}, §4.1",
                      quote=f"on TREC-8, a depth-{k} pool ranks the runs by {label(m)} as the full pool does, "
                            "τ-b > 0.90 (the paper's MAP bound, applied to another measure)",
                      quantity=quantity, test=Test(">", 0.90), data=data,
                      standing="stand-in" if _synthetic(data) else "original",
                      reading=Reading(f"Westerveld's bound for MAP (τ > 0.90) applied to {label(m)}", _DEPTH_QUOTE,
                                      "book's own question", "§4.1"),
                      evidence=Evidence.none("the paper reports MAP only"),
                      short=f"On TREC-8, a depth-{k} pool ranks runs by {label(m)} at τ-b > 0.90.")
        out.append(claim.evaluate(primary, power=power, sensitivity=rows))
    return out


# The measures' papers are not in this project's corpus: each claim is the book's paraphrase, named as such.
_ROBUST = {
    "bpref": ("Buckley & Voorhees 2004", "map",
              "bpref ranks systems more stably than MAP when judgements are incomplete", ()),
    "infAP": ("Yilmaz & Aslam 2006", "bpref",
              "infAP, computed from a uniform random sample of the pool, ranks systems closer to full-judgement AP "
              "than bpref does", ("map_judged", "map")),
    "map_judged": ("Sakai 2007", "bpref",
                   "condensed-list AP (AP′) is more robust to incomplete judgements than bpref", ("map",)),
    "ndcg_judged": ("Sakai 2007", "bpref",
                    "condensed-list nDCG (nDCG′) is more robust to incomplete judgements than bpref", ("map",)),
}


def _paired(a_boot, b_boot, a_jack, b_jack, value, how, seeds=None) -> Estimate:
    """BCa estimate of a seed-averaged difference from paired replicates (seeds, ...)."""
    sl = slice(None) if seeds is None else seeds
    return Estimate.bca(value, (a_boot[sl] - b_boot[sl]).mean(0), (a_jack[sl] - b_jack[sl]).mean(0), how)


def sampling_claims(exp, boot: dict, jack: dict, rate: float, control_rate: float | None = None, data: str = "",
                    label=str) -> list[dict]:
    """The book's tests of bpref, infAP, AP′ and nDCG′ on random samples of the judgements.

    ``exp``: :class:`fireeval.pooling.sampling.SampledJudgements`; ``boot[m]`` (n_rates,
    n_seeds, n_resamples) from ``exp.bootstrap(m, n, rng)`` with one ``rng`` for all
    measures (paired); ``jack[m]`` (n_rates, n_seeds, n_topics) from ``exp.jackknife(m)``.
    Each claim: τ-b(measure) − τ-b(rival) > 0 at sampling rate ``rate``, averaged over the
    seeds, with a BCa interval over topics. Sensitivity: the percentile interval, each
    seed alone, every other rate, and (infAP) other rivals. Power: the rival with
    ``control_rate`` of the judgements against the rival at ``rate`` (more judgements rank
    closer to the full ranking) must pass the same test.
    """
    rates = [float(r) for r in exp.rates]
    i = rates.index(float(rate))
    tau = {m: exp.tau(m) for m in exp.values}
    n = boot[next(iter(boot))].shape[-1]
    how = f"{n} resamples of the {len(exp.topics)} topics, τ averaged over {len(exp.seeds)} seeds"
    out = []
    for m, (source, rival, paraphrase, others) in _ROBUST.items():
        if m not in tau or rival not in tau:
            continue
        value = float((tau[m][i] - tau[rival][i]).mean())
        primary = _paired(boot[m][i], boot[rival][i], jack[m][i], jack[rival][i], value, how)
        rows = [Alternative("percentile interval", Estimate.from_samples(
            value, (boot[m][i] - boot[rival][i]).mean(0), f"95% percentile bootstrap; {how}"), kind="interval method")]
        for s, seed in enumerate(exp.seeds):
            v = float(tau[m][i, s] - tau[rival][i, s])
            rows.append(Alternative(f"sample seed {seed} alone", _paired(
                boot[m][i], boot[rival][i], jack[m][i], jack[rival][i], v, f"{n} resamples, seed {seed}", [s]),
                kind="seed"))
        for j, r in enumerate(rates):
            if j == i or r >= 1:
                continue
            v = float((tau[m][j] - tau[rival][j]).mean())
            rows.append(Alternative(f"sampling rate {r:.0%}", _paired(boot[m][j], boot[rival][j], jack[m][j],
                                                                      jack[rival][j], v, how), kind="sampling rate"))
        for o in others:
            if o in tau:
                v = float((tau[m][i] - tau[o][i]).mean())
                rows.append(Alternative(f"against {label(o)} instead of {label(rival)}", _paired(
                    boot[m][i], boot[o][i], jack[m][i], jack[o][i], v, how), kind="rival measure"))
        power = Power.no_control("no second sampling rate to compare with")
        if control_rate is not None and float(control_rate) in rates:
            c = rates.index(float(control_rate))
            v = float((tau[rival][c] - tau[rival][i]).mean())
            power = Power.positive_control(
                f"{label(rival)} with {rates[c]:.0%} of the judgements against {label(rival)} with {rate:.0%} (more "
                "judgements rank closer to the full ranking), measured the same way",
                _paired(boot[rival][c], boot[rival][i], jack[rival][c], jack[rival][i], v, how))
        claim = Claim(f"robust_{m}", paper=f"this book (testing {source})", section="random samples of the judgements",
                      quote=f"(paraphrase of {source}) {paraphrase}",
                      quantity=f"τ-b({label(m)}) − τ-b({label(rival)}), each against its full-judgement ranking, "
                               f"{rate:.0%} of each topic's judgements sampled at random",
                      test=Test(">", 0.0), data=data, standing="stand-in" if _synthetic(data) else "original",
                      reading=Reading(f"'more robust' read as a higher Kendall τ-b against the full-judgement ranking "
                                      f"when {rate:.0%} of the judgements are kept, averaged over sampling seeds",
                                      f"(paraphrase of {source}) {paraphrase}", "book's own question",
                                      f"{source} (not in this book's corpus: paraphrased)"),
                      evidence=Evidence.none(f"{source} is paraphrased (not in this book's corpus); its printed "
                                             "numbers are not compared"),
                      short=f"Book's test of {source}: {label(m)} beats {label(rival)} on sampled judgements.",
                      notes="all runs ranked; unsampled judgements are -1 in the qrels (trec_eval's convention)")
        out.append(claim.evaluate(primary, power=power, sensitivity=rows))
    return out


def explanation_claim(association: dict, k: int, data: str = "", measure: str = "MAP") -> dict:
    """The book's explanation: topics with many relevant documents lose more of their ranking in a
    shallow pool. Two readings of equal standing, from
    :func:`fireeval.pooling.pools.relevant_count_association`: the per-topic Spearman ρ
    between relevant count and single-topic τ-b, and the median split τ-b(many) − τ-b(few);
    the explanation says both are negative.
    """
    a = association
    claim = Claim("explanation", paper="this book (pool_depth chapter)", section="explanation of the gap",
                  quote="a shallow pool disturbs the ranking more on topics with many relevant documents",
                  quantity=f"association between a topic's relevant documents and its τ-b ({measure}, depth {k}): "
                           "per-topic Spearman ρ, or τ-b(topics above the median) − τ-b(the others)",
                  test=Test("<", 0.0), data=data, standing="stand-in" if _synthetic(data) else "original",
                  reading=Reading("'more disturbed with many relevant documents' read as a negative association, "
                                  "measured two ways of equal standing: topic by topic (Spearman) and by a median split",
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
    rows = [Alternative("Spearman ρ, percentile interval", Estimate.from_samples(
                a["rho"], a["rho_boot"], "95% percentile bootstrap"), kind="interval method"),
            Alternative("median split, percentile interval", Estimate.from_samples(
                a["split"], a["split_boot"], "95% percentile bootstrap"), kind="interval method")]
    return claim.evaluate({"per-topic Spearman ρ": spearman, "median split": split}, sensitivity=rows)


def leave_out_claims(original, per_topic: dict, n_resamples: int = 1000, rng: int = 0, data: str = "") -> list[dict]:
    """Run and group leave-out τ-b > 0.98: the paper's claims (stand-ins) and the book's findings.

    ``per_topic[(unit, convention)]``: (runs, topics) scores with each run's ``unit``
    (``"run"``, ``"group"``) left out, under each definition of a unit's "own" documents
    (``"pooled"``: no other pooled run has it; ``"all runs"``: no other run at all has it,
    NIST's convention). The paper does not say which it used and no output of its author
    settles it, so the two are readings of equal standing ("depends" if they disagree).
    """
    out = []
    for unit in ("run", "group"):
        convs = [c for (u, c) in per_topic if u == unit]
        estimates, rows = {}, []
        for conv in convs:
            estimates[conv], more = _tau_rows(per_topic[unit, conv], original, n_resamples, rng, f"{conv}, ")
            rows += more
        claim = Claim(f"leave_out_{unit}", paper=WESTERVELD, section="§4.2, Fig. 4", quote=_LEAVE_QUOTE,
                      quantity=f"Kendall τ-b, MAP, all runs: full qrels vs each run's {unit} left out",
                      test=Test(">", 0.98), data=_stand_in(data), paper_value="τ > 0.98", fmt=".4f",
                      standing="stand-in", evidence=_NO_TRECVID,
                      reading=Reading("'very high' is the paper's own bound: τ > 0.98", _LEAVE_QUOTE,
                                      "paper's definition", "§4.2"),
                      short=f"Removing a {unit}'s unique documents keeps TRECVID 2003's MAP ranking at τ > 0.98.")
        power = Power.positive_control("the full qrels (nothing left out: τ = 1); the test can pass",
                                       Estimate(1.0, method="exact: the original ranking"))
        out.append(claim.evaluate(estimates, power=power, sensitivity=rows))
        finding = _finding(claim, data, short=f"On TREC-8, {unit} leave-out keeps the MAP ranking at τ-b > 0.98.",
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
        estimates[conv], more = _tau_rows(values, original, n_resamples, rng, f"{conv}, ")
        rows += more
    claim = Claim("leave_out_manual", paper=WESTERVELD, section="§5", quote=_MANUAL_QUOTE,
                  quantity="Kendall τ-b, MAP, all runs: full qrels vs qrels without the documents only manual "
                           "runs contributed", test=Test(">", 0.98), data=_stand_in(data), paper_value="τ = 0.99",
                  fmt=".4f", standing="stand-in", evidence=_NO_TRECVID,
                  reading=Reading("'very close' read with the paper's leave-out bound, τ > 0.98 (it reports τ = 0.99)",
                                  _MANUAL_QUOTE + "; " + _LEAVE_QUOTE, "paper's usage", "§5 and §4.2"),
                  short="Without documents only interactive runs found, TRECVID 2003's ranking stays at τ ≈ 0.99.",
                  notes="TREC-8's 13 manual runs stand in for TRECVID's interactive runs")
    power = Power.positive_control("the full qrels (nothing left out: τ = 1); the test can pass",
                                   Estimate(1.0, method="exact: the original ranking"))
    finding = _finding(claim, data, short="On TREC-8, removing documents only manual runs found keeps τ-b > 0.98.",
                       quote="on TREC-8, removing the documents only the manual runs contributed keeps the MAP "
                             "ranking of all runs at τ-b > 0.98 (Westerveld's interactive-run test, applied here)")
    return [claim.evaluate(estimates, power=power, sensitivity=rows),
            finding.evaluate(estimates, power=power, sensitivity=rows)]


def reer_claim(per_bin: float, cumulative: float, half: int, trials: int, data: str = "", samples=None,
               boot_trials: int | None = None) -> list[dict]:
    """Hauptmann & Lin's threshold, quoted by Westerveld: the paper's claim (a stand-in) and the finding.

    What transfers from TRECVID 2003/04 to another collection is the method (swap rate
    by score difference between disjoint topic sets) and how the threshold scales (with
    the per-topic spread of score differences and the number of topics); the 0.02 itself
    belongs to those runs and topics. So the claim about the paper is "not testable
    here", and the book's finding is TREC-8's own threshold.

    ``samples``: (n_resamples, 2) per-bin and cumulative thresholds from
    :func:`fireeval.stats.reliability.bootstrap_reer_difference`. Without them the
    estimates have no interval (topic sampling not covered).
    """
    claim = Claim("reer", paper="Hauptmann & Lin, quoted by " + WESTERVELD, section="§3", quote=_REER_QUOTE,
                  quantity=f"smallest MAP difference with swap rate < 0.05, two disjoint sets of {half} topics",
                  test=Test("<=", 0.02), data=_stand_in(data), paper_value="0.02", fmt=".2f", standing="stand-in",
                  evidence=Evidence.none("Hauptmann & Lin's swap-rate curves for TRECVID 2003/04 are not in this "
                                         "book's corpus, and the runs are not public"),
                  reading=Reading("the threshold as the paper states it: REER < 0.05 from a MAP difference of 0.02",
                                  _REER_QUOTE, "paper's definition", "§3"),
                  power=Power.no_control("no collection with a known threshold is at hand"),
                  short="With 25 TRECVID topics, MAP differences above 0.02 keep the swap rate below 0.05.",
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
    finding = _finding(claim, data, short=f"On TREC-8, a MAP difference of 0.02 keeps REER below 0.05 ({half} topics).",
                       quote=f"on TREC-8, with two disjoint sets of {half} topics, a MAP difference above 0.02 "
                             "keeps the swap rate below 0.05")
    return [claim.evaluate(estimates, sensitivity=rows), finding.evaluate(estimates, sensitivity=rows)]


def warning_claim(flagged_losers: int, flagged: int, data: str = "", k: int = 100, max_loss: float = 0.02,
                  useful: float = 0.5) -> dict:
    """This book's judged@k warning, validated by leaving one group out at a time.

    A warning is useful when a flagged run more likely than not loses ``max_loss`` or
    more: its precision (fitted without the run's group) must exceed ``useful``.
    """
    quote = (f"a run whose judged@{k} is below the fitted level risks losing more than {max_loss:.0%} of its MAP")
    claim = Claim("warning", paper="this book (earlier pool_leave_out chapter)", section="judged@100 warning",
                  quote=quote,
                  quantity=f"precision of the warning fitted without the run's group: flagged runs that lost "
                           f"≥ {max_loss:.0%}", test=Test(">", useful), data=data,
                  standing="stand-in" if _synthetic(data) else "original",
                  reading=Reading(f"'risks losing' read as: a flagged run loses {max_loss:.0%} or more more often "
                                  f"than not (precision > {useful:g})", quote, "book's own question", "this chapter"),
                  evidence=Evidence.none("a claim of the book's; no paper's number"),
                  power=Power.no_control("no run set with a known useful warning is at hand"),
                  short=f"A low judged@{k} flags runs that lose {max_loss:.0%} of MAP more often than not.",
                  notes="runs of one group are not independent, so the interval is optimistic")
    return claim.evaluate(Estimate.proportion(flagged_losers, flagged, "leave-one-group-out"))


def holds_sentence(records, measures, label=str, prefix: str = "depth_") -> str:
    """For which measures a per-measure finding holds: reproduced ones, then those whose verdict
    depends on the reading, each with the readings under which it holds.

    >>> recs = [{"id": "depth_a", "verdict": "reproduced", "conventions": {}},
    ...         {"id": "depth_b", "verdict": "depends", "conventions": {
    ...             "all runs": {"verdict": "not reproduced"}, "pooled only": {"verdict": "reproduced"}}},
    ...         {"id": "depth_c", "verdict": "not reproduced", "conventions": {}}]
    >>> holds_sentence(recs, ["a", "b", "c"])
    'a; depending on the convention, b (reproduced with pooled only; not reproduced with all runs)'
    >>> holds_sentence([{"id": "depth_a.here", "verdict": "reproduced", "conventions": {}}], ["a"])
    'a'
    """
    by_id = {r["id"]: r for r in records}
    held, depends = [], []
    for m in measures:
        r = by_id.get(f"{prefix}{m}.here", by_id.get(prefix + m))
        if r is None:
            continue
        if r["verdict"] == "reproduced":
            held.append(label(m))
        elif r["verdict"] == "depends":
            convs = r["conventions"]
            yes = [c for c, v in convs.items() if v["verdict"] == "reproduced"]
            no = [f"{v['verdict']} with {c}" for c, v in convs.items() if v["verdict"] != "reproduced"]
            depends.append(f"{label(m)} (reproduced with {', '.join(yes) or 'no convention'}; {'; '.join(no)})")
    out = ", ".join(held) if held else "no measure under every convention"
    if depends:
        out += "; depending on the convention, " + ", ".join(depends)
    return out
