"""The pooling chapters' claims: each finding of Westerveld (and of the measures' authors) as a test.

Functions here turn bootstrap samples computed by the chapters into
:class:`fireeval.stats.claims.Claim` records (``Claim(...).evaluate(...)``), so the
verdict words of the chapters are computed, never typed. Intervals are 95 %
percentile bootstrap over topics (paired: the same resamples for every measure).
"""
from __future__ import annotations

import numpy as np

from fireeval.stats.agreement import kendall_tau
from fireeval.stats.claims import Claim, Estimate, Test
from fireeval.stats.reliability import bootstrap_agreement

__all__ = ["WESTERVELD", "depth_claims", "robustness_claims", "explanation_claim", "leave_out_claims",
           "manual_claim", "reer_claim", "warning_claim", "holds_sentence"]

WESTERVELD = "Westerveld et al. (TRECVID reusability)"
_DEPTH_QUOTE = ("Even a pool depth of K=3, (i.e., only the first three documents of each submission get judged), "
                "shows high correlation to the original ranking τ>0.90")


def _boot(value, samples, n):
    return Estimate.from_samples(value, samples, f"95% percentile bootstrap over topics, {n} resamples")


def depth_claims(sweep, samples: dict, k: int = 3, data: str = "", label=str, pooled=None, rng=0) -> list[dict]:
    """τ-b at depth ``k`` > 0.90, one claim per measure of ``samples`` (:meth:`DepthSweep.bootstrap`).

    The paper tests MAP only; for the other measures the claim is the paper's applied to
    them (said in the record's quantity and notes).

    ``pooled`` (boolean mask over ``sweep.runs``): when some runs were not pooled, the claim
    is evaluated under two conventions, "all runs ranked" and "pooled runs only". In
    TRECVID 2003 every submission was pooled ("the top K results from each of the
    submissions"), so ranking only the pooled runs is the closer analogue; ranking all
    runs adds runs whose documents never entered the pool. The pooled-only bootstrap uses
    seed ``rng`` with as many resamples as ``samples``.
    """
    i = list(sweep.depths).index(k)
    pooled = None if pooled is None else np.asarray(pooled, dtype=bool)
    split = pooled is not None and 1 < pooled.sum() < len(pooled)
    out = []
    for m, s in samples.items():
        paper = m == "map"
        claim = Claim(
            f"depth_{m}", paper=WESTERVELD, section="§4.1, Fig. 3",
            quote=_DEPTH_QUOTE if paper else f"(the paper's depth-{k} claim, applied to {label(m)})",
            quantity=f"Kendall τ-b between run rankings by {label(m)}, depth-{k} pool vs full pool",
            test=Test(">", 0.90), data=data, paper_value="τ > 0.90 (MAP)" if paper else None,
            notes="" if paper else "the paper reports MAP only")
        every = _boot(float(sweep.tau(m).iloc[i]), s[i], s.shape[-1])
        if not split:
            out.append(claim.evaluate(every))
            continue
        values, reference = sweep.values[m][i][pooled], sweep.reference[m][pooled]
        tau = kendall_tau(values.mean(-1), reference.mean(-1))
        only = _boot(tau, bootstrap_agreement(values, reference, s.shape[-1], rng), s.shape[-1])
        out.append(claim.evaluate({"all runs ranked": every, "pooled runs only": only}))
    return out


# Paraphrases (the papers are not in this project's corpus), marked as such in the records.
_ROBUST = {
    "bpref": ("Buckley & Voorhees 2004", "(paraphrase) bpref is more robust to incomplete judgements than MAP",
              "map"),
    "infAP": ("Yilmaz & Aslam 2006", "(paraphrase) infAP estimates AP robustly from incomplete judgements", "map"),
    "map_judged": ("Sakai 2007", "(paraphrase) condensed-list AP is more robust to incompleteness than bpref",
                   "bpref"),
    "ndcg_judged": ("Sakai 2007", "(paraphrase) condensed-list nDCG is more robust to incompleteness than bpref",
                    "bpref"),
}


def robustness_claims(sweep, samples: dict, k: int = 3, data: str = "", label=str) -> list[dict]:
    """Each incomplete-judgement measure's authors' claim, tested on shallow pools: τ-b at depth
    ``k`` of the measure minus τ-b of the measure it claims to beat is > 0 (paired bootstrap).

    Those papers tested random samples of judgements; a shallow pool is a different kind
    of incompleteness (the unjudged documents are the deep ones), said in the notes.
    """
    i = list(sweep.depths).index(k)
    out = []
    for m, (paper, quote, rival) in _ROBUST.items():
        if m not in samples or rival not in samples:
            continue
        value = float(sweep.tau(m).iloc[i] - sweep.tau(rival).iloc[i])
        diff = samples[m][i] - samples[rival][i]
        # When the two measures rank the runs identically in the point estimate and in the whole
        # interval (infAP on a pool whose every document is judged, as a truncated pool is, is AP
        # up to a smoothing constant), the data cannot speak to a claim about sampled judgements:
        # untestable, not contradicted.
        estimate = _boot(value, diff, diff.shape[-1])
        same = estimate.value == estimate.low == estimate.high == 0
        claim = Claim(f"robust_{m}", paper=paper, section="(measure's definition paper)", quote=quote,
                      quantity=f"τ-b({label(m)}) − τ-b({label(rival)}) at pool depth {k}",
                      test=Test(">", 0.0), data=data, fmt=".3f",
                      notes="tested on shallow pools, not on random samples of the judgements",
                      untestable=(f"{label(m)} and {label(rival)} rank the runs identically here, interval included "
                                  "(with every pooled document judged the two coincide); the claim concerns "
                                  "sampled judgements") if same else None)
        out.append(claim.evaluate(estimate))
    return out


def explanation_claim(value: float, samples, k: int, median: float, data: str = "", measure: str = "MAP") -> dict:
    """This book's explanation: topics with many relevant documents lose more of their ranking in a
    shallow pool. ``value``/``samples``: τ-b(few) − τ-b(many) at depth ``k``."""
    claim = Claim("explanation", paper="this book (pool_depth chapter)", section="explanation of the gap",
                  quote="a shallow pool disturbs the ranking more on topics with many relevant documents",
                  quantity=f"τ-b({measure}, depth {k}) on topics with ≤ {median:g} relevant minus on topics with "
                           f"more", test=Test(">", 0.0), data=data)
    return claim.evaluate(_boot(value, samples, np.shape(samples)[-1]))


_LEAVE_QUOTE = ("The correlation between system rankings based on original MAPs and modified MAPs is very high: "
                "τ > 0.98")


def leave_out_claims(values: dict, samples: dict, data: str = "") -> list[dict]:
    """Run and group leave-out τ-b > 0.98.

    ``values[unit][convention]`` / ``samples[unit][convention]`` for unit ``"run"`` and
    ``"group"``: the point τ-b and its bootstrap resamples under each definition of a
    unit's "own" documents (e.g. ``"pooled"``: no other pooled run has it;
    ``"all runs"``: no other run at all has it, NIST's convention). The paper does not
    say which it used, so the verdict is computed under each.
    """
    out = []
    for unit in ("run", "group"):
        claim = Claim(f"leave_out_{unit}", paper=WESTERVELD, section="§4.2, Fig. 4", quote=_LEAVE_QUOTE,
                      quantity=f"Kendall τ-b, MAP, full qrels vs each run's {unit} left out",
                      test=Test(">", 0.98), data=data, paper_value="τ > 0.98", fmt=".4f")
        out.append(claim.evaluate({conv: _boot(v, samples[unit][conv], len(samples[unit][conv]))
                                   for conv, v in values[unit].items()}))
    return out


def manual_claim(values, samples, data: str = "") -> dict:
    """The interactive-run test, with TREC-8's manual runs as the analogue.

    ``values``/``samples``: the point τ-b and its bootstrap resamples, either one of each
    or dicts keyed by the definition of the manual runs' own documents (``"pooled"``: no
    non-manual pooled run has it; ``"all runs"``: no non-manual run at all has it,
    NIST's rule), as in :func:`leave_out_claims`.
    """
    claim = Claim("leave_out_manual", paper=WESTERVELD, section="§5",
                  quote="Even when all documents that are found by interactive submissions only are removed from "
                        "the pool, the resulting ranking of submission is very close to the ranking based on the "
                        "original pool (τ=0.99)",
                  quantity="Kendall τ-b, MAP, all runs: full qrels vs qrels without the documents only manual "
                           "runs contributed", test=Test(">", 0.98), data=data, paper_value="τ = 0.99",
                  fmt=".4f", notes="TREC-8's 13 manual runs stand in for TRECVID's interactive runs; threshold: "
                                   "the paper's leave-out level 0.98")
    if not isinstance(values, dict):
        return claim.evaluate(_boot(values, samples, len(samples)))
    return claim.evaluate({conv: _boot(v, samples[conv], len(samples[conv])) for conv, v in values.items()})


def reer_claim(per_bin: float, cumulative: float, half: int, trials: int, data: str = "", samples=None,
               boot_trials: int | None = None) -> dict:
    """Hauptmann & Lin's threshold: REER < 0.05 needs a MAP difference > 0.02, under both rate definitions.

    ``samples``: (n_resamples, 2) per-bin and cumulative thresholds from
    :func:`fireeval.stats.reliability.bootstrap_reer_difference` (bootstrap over topics,
    ``boot_trials`` splits each). Without them the record has no interval and says that
    only the point value (whose split noise is below the bin width) is known: the
    sampling of the topics is then not covered.
    """
    claim = Claim("reer", paper="Hauptmann & Lin, quoted by " + WESTERVELD, section="§3",
                  quote="for REER to be smaller than 0.05, a difference in MAP scores should be greater than 0.02",
                  quantity=f"smallest MAP difference with swap rate < 0.05, two disjoint sets of {half} topics",
                  test=Test("<=", 0.02), data=data, paper_value="0.02", fmt=".2f",
                  notes="bin edge of 0.01-wide bins; the interval is over bin edges" if samples is not None else
                        "bin edge of 0.01-wide bins; NO interval: the sampling of the topics is not covered")
    if samples is None:
        method = f"bin edge over {trials} random splits; topic sampling not covered"
        return claim.evaluate({"per-bin": Estimate(per_bin, method=method),
                               "cumulative": Estimate(cumulative, method=method)})
    samples = np.asarray(samples, dtype=float)
    method = (f"bin edge over {trials} random splits; 95% percentile bootstrap over topics, {len(samples)} "
              f"resamples of {boot_trials or trials} splits each")
    return claim.evaluate({"per-bin": Estimate.from_samples(per_bin, samples[:, 0], method),
                           "cumulative": Estimate.from_samples(cumulative, samples[:, 1], method)})


def warning_claim(flagged_losers: int, flagged: int, data: str = "", k: int = 100, max_loss: float = 0.02,
                  useful: float = 0.5) -> dict:
    """This book's earlier judged@k warning, validated by leaving one group out at a time.

    A warning is useful when a flagged run more likely than not loses ``max_loss`` or
    more: its precision (fitted without the run's group) must exceed ``useful``.
    """
    claim = Claim("warning", paper="this book (earlier pool_leave_out chapter)", section="judged@100 warning",
                  quote=f"a run whose judged@{k} is below the fitted level risks losing more than "
                        f"{max_loss:.0%} of its MAP",
                  quantity=f"precision of the warning fitted without the run's group: flagged runs that lost "
                           f"≥ {max_loss:.0%}", test=Test(">", useful), data=data,
                  notes="runs of one group are not independent, so the interval is optimistic")
    return claim.evaluate(Estimate.proportion(flagged_losers, flagged, "leave-one-group-out"))


def holds_sentence(records, measures, label=str, prefix: str = "depth_") -> str:
    """For which measures a per-measure claim holds: reproduced ones, then those whose verdict
    depends on the convention, each with the conventions under which it holds.

    >>> recs = [{"id": "depth_a", "verdict": "reproduced", "conventions": {}},
    ...         {"id": "depth_b", "verdict": "depends", "conventions": {
    ...             "all runs": {"verdict": "not reproduced"}, "pooled only": {"verdict": "reproduced"}}},
    ...         {"id": "depth_c", "verdict": "not reproduced", "conventions": {}}]
    >>> holds_sentence(recs, ["a", "b", "c"])
    'a; depending on the convention, b (reproduced with pooled only; not reproduced with all runs)'
    """
    by_id = {r["id"]: r for r in records}
    held, depends = [], []
    for m in measures:
        r = by_id.get(prefix + m)
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
