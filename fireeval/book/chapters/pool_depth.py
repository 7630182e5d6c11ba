"""The pool_depth chapter's claims: Westerveld's depth-3 statement, and the book's tests of bpref, infAP,
AP′ and nDCG′ on random samples of the judgements, each as a computed verdict.
"""
from __future__ import annotations


import numpy as np

from fireeval.book.chapters.trec_claims import is_synthetic, stand_in_label, finding_twin, tau_estimates, tau_rows, width_note, only_can_pass
from fireeval.book.papers.westerveld import WESTERVELD, NO_TRECVID, DEPTH_QUOTE
from fireeval.stats.claims import Alternative, Claim, Estimate, Evidence, Power, Reading, Test

__all__ = ['depth_claims', 'control_rate', 'sampling_claims', 'explanation_claim', 'holds_sentence']

def _depth_control(sweep, m, k, depth, pooled, n_resamples, rng, primary, test) -> Power:
    """Rule, fixed before the data: the deepest re-scored depth below the full pool (and deeper than ``k``),
    ranked and bootstrapped as the claim is; without one, the τ = 1 control that shows only that it can pass."""
    deeper = [int(d) for d in sweep.depths if k < d < depth]
    note = width_note(primary, test)
    if not deeper:
        return only_can_pass(f"the full depth-{depth} pool re-scored the same way; {note}")
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
            primary, rows = tau_rows(values[pooled], reference[pooled], n_resamples, rng, "pooled runs only, ")
            every, _ = tau_estimates(values, reference, n_resamples, rng)
            rows = [Alternative("all runs ranked (unpooled runs included)", every, kind="subset"), *rows]
            who = f"the {int(pooled.sum())} pooled runs"
        else:
            primary, rows = tau_rows(values, reference, n_resamples, rng)
            who = "all runs"
        quantity = f"Kendall τ-b between rankings of {who} by {label(m)}, depth-{k} pool vs full pool"
        power = _depth_control(sweep, m, k, depth, pooled if split else None, n_resamples, rng, primary,
                               Test(">", 0.90))
        if m == "map":
            claim = Claim("depth_map", paper=WESTERVELD, section="§4.1, Fig. 3", quote=DEPTH_QUOTE,
                          quantity=quantity, test=Test(">", 0.90), data=stand_in_label(data), standing="stand-in",
                          paper_value="τ > 0.90 (MAP, K = 3)", evidence=NO_TRECVID,
                          reading=Reading("'high correlation' is the paper's own bound: τ > 0.90 at K = 3, "
                                          "submissions ranked by MAP", DEPTH_QUOTE, "paper's definition",
                                          "§4.1, Fig. 3"),
                          short="A depth-3 pool ranks TRECVID 2003 runs by MAP at τ > 0.90.",
                          notes="TREC-8 stands in for TRECVID 2003: the mechanism carries over, the depth at which "
                                "τ passes 0.90 does not (collection size, runs, relevant per topic differ)")
            out.append(claim.evaluate(primary, power=power, sensitivity=rows))
            finding = finding_twin(claim, data, short=f"On TREC-8, a depth-{k} pool ranks runs by MAP at τ-b > 0.90.",
                               quote=f"on TREC-8, a depth-{k} pool ranks the runs by MAP as the full pool does, "
                                     "τ-b > 0.90 (Westerveld's test, applied here)")
            out.append(finding.evaluate(primary, power=power, sensitivity=rows))
            continue
        claim = Claim(f"depth_{m}", paper="this book", section=f"after {WESTERVELD}, §4.1",
                      quote=f"on TREC-8, a depth-{k} pool ranks the runs by {label(m)} as the full pool does, "
                            "τ-b > 0.90 (the paper's MAP bound, applied to another measure)",
                      quantity=quantity, test=Test(">", 0.90), data=data,
                      standing="stand-in" if is_synthetic(data) else "original",
                      reading=Reading(f"Westerveld's bound for MAP (τ > 0.90) applied to {label(m)}", DEPTH_QUOTE,
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
                      test=Test(">", 0.0), data=data, standing="stand-in" if is_synthetic(data) else "original",
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
                  test=Test("<", 0.0), data=data, standing="stand-in" if is_synthetic(data) else "original",
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

