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

__all__ = ["WESTERVELD", "tau_estimates", "needed_value", "depth_claims", "control_rate", "sampling_claims",
           "explanation_claim", "leave_out_claims", "manual_claim", "reer_claim", "reer_control", "warning_claim",
           "holds_sentence"]

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
#: 'very close' (τ = 0.99 printed) between the paper's 'high' (0.90) and just under its printed 0.99.
_MANUAL_RANGE = (0.90, 0.95, 0.98, 0.985)
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
    return (_untouched(Estimate.bca(value, boot, jack, how), jack, how),
            Estimate.from_samples(value, boot, f"95% percentile bootstrap; {how}"))


def _untouched(estimate: Estimate, jack, how: str) -> Estimate:
    """The BCa estimate, or the jackknife normal interval when its BCa interval touches the estimate up to
    floating-point rounding (the mechanism's exact comparison lets a touch by 1e-16 through).

    >>> jack = np.array([0.97, 0.98, 0.99])
    >>> _untouched(Estimate(0.98, 0.98 - 1e-16, 0.99, "95% BCa bootstrap (z0 = 1.90); x"), jack, "x").method[:28]
    '95% jackknife normal interva'
    """
    e = estimate
    if not (e.has_interval and e.method.startswith("95% BCa")):
        return e
    tol = 1e-9 * max(1.0, abs(e.value))
    if min(abs(e.low - e.value), abs(e.high - e.value)) > tol:
        return e
    jack = np.asarray(jack, float).ravel()
    jack = jack[np.isfinite(jack)]
    se = float(np.sqrt((len(jack) - 1) / len(jack) * np.sum((jack - jack.mean()) ** 2))) if len(jack) > 1 else 0.0
    if se <= 0:
        return e
    z = 1.959963984540054
    return Estimate(e.value, e.value - z * se, e.value + z * se,
                    f"95% jackknife normal interval (BCa unstable: {e.method.split(';')[0][4:]} touches the estimate "
                    f"up to rounding); {how}")


_EXACT = ("exact realised τ (the paper's τ is a realised value on its own topics, not an estimate for a "
          "population of topics)")


def _tau_rows(per_topic, reference, n_resamples, rng, prefix="", replaces=None):
    """Primary BCa estimate and its sensitivity rows: percentile interval, another seed, the exact realised τ.

    ``replaces``: the reading these rows stand in for (a claim with several readings).
    """
    bca, pct = tau_estimates(per_topic, reference, n_resamples, rng)
    other, _ = tau_estimates(per_topic, reference, n_resamples, rng + 1)
    exact = Estimate(bca.value, method=f"exact: the realised τ-b on these {np.shape(per_topic)[-1]} topics")
    return bca, [Alternative(f"{prefix}percentile interval", pct, kind="interval method", replaces=replaces),
                 Alternative(f"{prefix}bootstrap seed {rng + 1}", other, kind="seed", replaces=replaces),
                 Alternative(f"{prefix}{_EXACT}", exact, kind="exact value", replaces=replaces)]


def needed_value(estimate: Estimate, test: Test) -> float:
    """The value the estimate would need for its whole interval to pass ``test``, its interval's shape kept.

    >>> round(needed_value(Estimate(0.913, 0.88, 0.94, "b"), Test(">", 0.9)), 3)
    0.933
    >>> round(needed_value(Estimate(0.05, 0.02, 0.09, "b"), Test("<", 0.1)), 3)
    0.06
    """
    if not estimate.has_interval:
        return float(test.threshold)
    if test.op in (">", ">="):
        return float(test.threshold + (estimate.value - estimate.low))
    return float(test.threshold - (estimate.high - estimate.value))


def _width_note(estimate: Estimate, test: Test, what: str = "τ-b") -> str:
    return (f"with this interval's shape ({estimate.value - estimate.low:.3f} below the estimate, "
            f"{estimate.high - estimate.value:.3f} above), the test passes only when {what} is at least "
            f"{needed_value(estimate, test):.3f}")


def _only_can_pass(what: str) -> Power:
    """A control that shows only that the test can pass (an exact τ = 1, no interval)."""
    return Power.positive_control(f"{what} (τ = 1 by construction, no interval): this control shows only that the "
                                  "test can pass, not that it can detect a τ just above the threshold",
                                  Estimate(1.0, method="exact: the original ranking, by construction"))


def _depth_control(sweep, m, k, depth, pooled, n_resamples, rng, primary, test) -> Power:
    """Rule, fixed before the data: the deepest re-scored depth below the full pool (and deeper than ``k``),
    ranked and bootstrapped as the claim is; without one, the τ = 1 control that shows only that it can pass."""
    deeper = [int(d) for d in sweep.depths if k < d < depth]
    note = _width_note(primary, test)
    if not deeper:
        return _only_can_pass(f"the full depth-{depth} pool re-scored the same way; {note}")
    d = max(deeper)
    j = list(sweep.depths).index(d)
    rows = slice(None) if pooled is None else pooled
    control, _ = tau_estimates(sweep.values[m][j][rows], sweep.reference[m][rows], n_resamples, rng)
    return Power.positive_control(f"a depth-{d} pool (the deepest re-scored depth below the full pool, chosen by "
                                  f"that rule) ranked and bootstrapped as the claim is; {note}", control)


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
        power = _depth_control(sweep, m, k, depth, pooled if split else None, n_resamples, rng, primary,
                               Test(">", 0.90))
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
# (source, rival, paraphrase, other rivals, reference): ``reference`` is the full-judgement ranking both
# sides are compared with (None: each measure against itself with every judgement).
_ROBUST = {
    "bpref": ("Buckley & Voorhees 2004", "map",
              "bpref ranks systems more stably than MAP when judgements are incomplete", (), None),
    "infAP": ("Yilmaz & Aslam 2006", "bpref",
              "infAP, computed from a uniform random sample of the pool, ranks systems closer to full-judgement AP "
              "than bpref does", ("map_judged", "map"), "map"),
    "map_judged": ("Sakai 2007", "bpref",
                   "condensed-list AP (AP′) is more robust to incomplete judgements than bpref", ("map",), None),
    "ndcg_judged": ("Sakai 2007", "bpref",
                    "condensed-list nDCG (nDCG′) is more robust to incomplete judgements than bpref", ("map",), None),
}


def _paired(a_boot, b_boot, a_jack, b_jack, value, how, seeds=None, rng=0) -> Estimate:
    """BCa estimate of a seed-averaged difference from paired replicates, (n_seeds, n_resamples).

    Each bootstrap replicate also redraws the sampling seeds with replacement (a two-stage
    bootstrap: topics, then samples), so the seed-to-seed spread is in the interval, not only
    the topics'. ``seeds``: the seeds to use (one seed alone: topics only).
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
    return Estimate.bca(value, replicates, jack.mean(0) if jack.ndim > 1 else jack, how)


def control_rate(rates, rate: float) -> float | None:
    """The positive control's sampling rate, by a rule fixed before seeing any τ: the next rate above ``rate``.

    >>> control_rate([0.05, 0.1, 0.25, 0.5, 1.0], 0.1), control_rate([0.5, 1.0], 1.0)
    (0.25, None)
    """
    above = sorted(float(r) for r in rates if float(r) > float(rate))
    return above[0] if above else None


def sampling_claims(exp, boot: dict, jack: dict, rate: float, control: float | None = None, data: str = "",
                    label=str, rng: int = 0, stratified=None) -> list[dict]:
    """The book's tests of bpref, infAP, AP′ and nDCG′ on random samples of the judgements.

    ``exp``: :class:`fireeval.pooling.sampling.SampledJudgements`; ``boot[m]`` (n_rates,
    n_seeds, n_resamples) from ``exp.bootstrap(m, n, rng)`` with one ``rng`` for all
    measures (paired); ``jack[m]`` (n_rates, n_seeds, n_topics) from ``exp.jackknife(m)``.
    Each claim: τ-b(measure) − τ-b(rival) > 0 at sampling rate ``rate``, averaged over the
    seeds, with a BCa interval over topics and seeds (:func:`_paired`). infAP's claim compares
    both measures with the full-judgement *AP* ranking, as its paraphrase says. Sensitivity:
    the percentile interval, each seed alone, every other rate, (infAP) other rivals and each
    measure against its own full ranking, and, with ``stratified`` (the same experiment with
    relevant and non-relevant judgements drawn separately, rate ``rate``), that design.
    Power: the rival at the ``control`` rate (default :func:`control_rate`, the next rate
    above ``rate``, a rule fixed in advance) against the rival at ``rate`` must pass the test.
    """
    rates = [float(r) for r in exp.rates]
    i = rates.index(float(rate))
    n = boot[next(iter(boot))].shape[-1]
    control = control_rate(rates, rate) if control is None else float(control)
    how = f"{n} resamples of the {len(exp.topics)} topics, τ averaged over {len(exp.seeds)} seeds"
    out = []
    for m, (source, rival, paraphrase, others, against) in _ROBUST.items():
        if m not in exp.values or rival not in exp.values:
            continue
        if against is None:
            tau = {x: exp.tau(x) for x in (m, rival, *others) if x in exp.values}
            bt, jk = boot, jack
        else:  # both sides against one full-judgement ranking (fresh replicates, paired by ``rng``)
            tau = {x: exp.tau(x, against) for x in (m, rival, *others) if x in exp.values}
            bt = {x: exp.bootstrap(x, n, rng, against) for x in tau}
            jk = {x: exp.jackknife(x, against) for x in tau}

        def diff(a, b, j, seeds=None):
            sl = slice(None) if seeds is None else seeds
            v = float((tau[a][j, sl] - tau[b][j, sl]).mean())
            return _paired(bt[a][j], bt[b][j], jk[a][j], jk[b][j], v, how if seeds is None else
                           f"{n} resamples, seed {exp.seeds[seeds[0]]}", seeds, rng)

        primary = diff(m, rival, i)
        rows = [Alternative("percentile interval (topics only)", Estimate.from_samples(
            primary.value, (bt[m][i] - bt[rival][i]).mean(0), f"95% percentile bootstrap; {how}"),
            kind="interval method")]
        for s, seed in enumerate(exp.seeds):
            rows.append(Alternative(f"sample seed {seed} alone", diff(m, rival, i, [s]), kind="seed"))
        for j, r in enumerate(rates):
            if j != i and r < 1:
                rows.append(Alternative(f"sampling rate {r:.0%}", diff(m, rival, j), kind="sampling rate"))
        for o in others:
            if o in tau:
                rows.append(Alternative(f"against {label(o)} instead of {label(rival)}", diff(m, o, i),
                                        kind="rival measure"))
        if against is not None:
            v = float((exp.tau(m)[i] - exp.tau(rival)[i]).mean())
            rows.append(Alternative(f"each measure against its own full-judgement ranking (not {label(against)}'s)",
                                    _paired(boot[m][i], boot[rival][i], jack[m][i], jack[rival][i], v, how, rng=rng),
                                    kind="reference ranking"))
        if stratified is not None and m in stratified.values and rival in stratified.values:
            si = [float(r) for r in stratified.rates].index(float(rate))
            ta, tb = stratified.tau(m, against)[si], stratified.tau(rival, against)[si]
            rows.append(Alternative(
                "stratified sampling (relevant and non-relevant drawn separately, as Buckley & Voorhees did)",
                _paired(stratified.bootstrap(m, n, rng, against)[si], stratified.bootstrap(rival, n, rng, against)[si],
                        stratified.jackknife(m, against)[si], stratified.jackknife(rival, against)[si],
                        float((ta - tb).mean()), how, rng=rng), kind="sampling design"))
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
        ref = f"the full-judgement {label(against)} ranking" if against else "its own full-judgement ranking"
        claim = Claim(f"robust_{m}", paper=f"this book (testing {source})", section="random samples of the judgements",
                      quote=f"(paraphrase of {source}) {paraphrase}",
                      quantity=f"τ-b({label(m)}) − τ-b({label(rival)}), each against {ref}, "
                               f"{rate:.0%} of each topic's judgements sampled at random",
                      test=Test(">", 0.0), data=data, standing="stand-in" if _synthetic(data) else "original",
                      reading=Reading(f"'{'closer' if against else 'more robust'}' read as a higher Kendall τ-b "
                                      f"against {ref} when {rate:.0%} of the judgements are kept, averaged over "
                                      "sampling seeds (the seeds' spread in the interval)",
                                      f"(paraphrase of {source}) {paraphrase}", "book's own question",
                                      f"{source} (not in this book's corpus: paraphrased)"),
                      evidence=Evidence.none(f"{source} is paraphrased (not in this book's corpus); its printed "
                                             "numbers are not compared"),
                      short=f"Book's test of {source}: {label(m)} beats {label(rival)} on sampled judgements.",
                      notes="all runs ranked; unsampled judgements are -1 in the qrels (trec_eval's convention)")
        out.append(claim.evaluate(primary, power=power, sensitivity=rows))
    return out


def explanation_claim(association: dict, k: int, data: str = "", measure: str = "MAP", runs: str = "") -> dict:
    """The book's explanation: topics with many relevant documents lose more of their ranking in a
    shallow pool, from :func:`fireeval.pooling.pools.relevant_count_association`.

    The primary reading is the per-topic Spearman ρ between relevant count and single-topic
    τ-b (it uses every topic's count); the median split τ-b(many) − τ-b(few) throws away all
    but which side of the median a topic is on -- the weaker test of the same idea -- so it is
    a sensitivity row, with its one-sided permutation p. ``runs``: which runs are ranked.
    """
    a = association
    who = f", {runs}" if runs else ""
    claim = Claim("explanation", paper="this book (pool_depth chapter)", section="explanation of the gap",
                  quote="a shallow pool disturbs the ranking more on topics with many relevant documents",
                  quantity=f"Spearman ρ between a topic's relevant documents and its single-topic τ-b "
                           f"({measure}, depth {k}{who})",
                  test=Test("<", 0.0), data=data, standing="stand-in" if _synthetic(data) else "original",
                  reading=Reading("'more disturbed with many relevant documents' read as a negative association "
                                  "topic by topic (Spearman ρ over every topic's count); the median split, which "
                                  "keeps only the side of the median, is the weaker test and a sensitivity row",
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
    rows = [Alternative(f"median split τ-b(many) − τ-b(few) (permutation p = {a['split_p']:.3f})", split,
                        kind="statistic"),
            Alternative("percentile interval", Estimate.from_samples(
                a["rho"], a["rho_boot"], "95% percentile bootstrap"), kind="interval method"),
            Alternative("median split, percentile interval", Estimate.from_samples(
                a["split"], a["split_boot"], "95% percentile bootstrap"), kind="interval method")]
    return claim.evaluate(spearman, sensitivity=rows)


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
            estimates[conv], more = _tau_rows(per_topic[unit, conv], original, n_resamples, rng, f"{conv}, ",
                                              replaces=conv)
            rows += more
            if pooled is not None and 1 < pooled.sum() < len(pooled):
                sub, _ = tau_estimates(np.asarray(per_topic[unit, conv])[pooled], original[pooled], n_resamples, rng)
                rows.append(Alternative(f"{conv}, pooled runs only ranked (the paper pooled every submission)", sub,
                                        kind="subset", replaces=conv))
        claim = Claim(f"leave_out_{unit}", paper=WESTERVELD, section="§4.2, Fig. 4", quote=_LEAVE_QUOTE,
                      quantity=f"Kendall τ-b, MAP, all runs: full qrels vs each run's {unit} left out",
                      test=Test(">", 0.98), data=_stand_in(data), paper_value="τ > 0.98", fmt=".4f",
                      standing="stand-in", evidence=_NO_TRECVID,
                      reading=Reading("'very high' is the paper's own bound: τ > 0.98", _LEAVE_QUOTE,
                                      "paper's definition", "§4.2"),
                      short=f"Removing a {unit}'s unique documents keeps TRECVID 2003's MAP ranking at τ > 0.98.")
        first = next(iter(estimates.values()))
        power = _only_can_pass(f"the full qrels, nothing left out; {_width_note(first, claim.test)} "
                               f"(reading '{next(iter(estimates))}')")
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
        estimates[conv], more = _tau_rows(values, original, n_resamples, rng, f"{conv}, ", replaces=conv)
        rows += more
    claim = Claim("leave_out_manual", paper=WESTERVELD, section="§5", quote=_MANUAL_QUOTE,
                  quantity="Kendall τ-b, MAP, all runs: full qrels vs qrels without the documents only manual "
                           "runs contributed", test=Test(">", 0.98), data=_stand_in(data), paper_value="τ = 0.99",
                  fmt=".4f", standing="stand-in", evidence=_NO_TRECVID,
                  reading=Reading("'very close' has no bound in the paper: it prints τ = 0.99 for this test, calls "
                                  "τ > 0.98 'very high' (§4.2) and τ > 0.90 'high correlation' (§4.1), so the "
                                  "test runs over thresholds from 0.90 to 0.985 (0.98 shown as the primary)",
                                  _MANUAL_QUOTE + "; " + _LEAVE_QUOTE + "; " + _DEPTH_QUOTE, "no guidance: range",
                                  "§5, §4.2, §4.1", thresholds=_MANUAL_RANGE),
                  short="Without documents only interactive runs found, TRECVID 2003's ranking stays at τ ≈ 0.99.",
                  notes="TREC-8's 13 manual runs stand in for TRECVID's interactive runs")
    first = next(iter(estimates.values()))
    power = _only_can_pass(f"the full qrels, nothing left out; {_width_note(first, claim.test)} "
                           f"(reading '{next(iter(estimates))}')")
    finding = _finding(claim, data, short="On TREC-8, removing documents only manual runs found keeps τ-b near 0.99.",
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
    claim = Claim("reer", paper="Hauptmann & Lin, quoted by " + WESTERVELD, section="§3", quote=_REER_QUOTE,
                  quantity=f"smallest MAP difference with swap rate < 0.05, two disjoint sets of {half} topics",
                  test=Test("<=", 0.02), data=_stand_in(data), paper_value="0.02", fmt=".2f", standing="stand-in",
                  evidence=Evidence.none("Hauptmann & Lin's swap-rate curves for TRECVID 2003/04 are not in this "
                                         "book's corpus, and the runs are not public"),
                  reading=Reading("the threshold as the paper states it: REER < 0.05 from a MAP difference of 0.02",
                                  _REER_QUOTE, "paper's definition", "§3"),
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
    finding = _finding(claim, data, short=f"On TREC-8, a MAP difference of 0.02 keeps REER below 0.05 ({half} topics).",
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
                  standing="stand-in" if _synthetic(data) else "original", reading=reading,
                  evidence=Evidence.none("a claim of the book's; no paper's number"),
                  power=Power.no_control("no run set with a known useful warning is at hand"),
                  short=f"A low judged@{k} flags runs more likely than others to lose {max_loss:.0%} of MAP.",
                  notes="runs of one group are not independent, so the interval is optimistic")
    estimate = Estimate.proportion(flagged_losers, flagged, "leave-one-group-out")
    rows = [] if base_rate is None else [Alternative(f"more likely than not (precision > {useful:g})", estimate,
                                                     kind="threshold", test=strict)]
    return claim.evaluate(estimate, sensitivity=rows)


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
