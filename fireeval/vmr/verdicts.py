"""The AxIoU chapters' claims: each finding of Togashi et al. (CVPR 2022) as a :class:`~fireeval.stats.claims.Claim`.

The chapters compute the numbers; this module states what the paper claims about
them (its words, its section), the test, and builds the records with
:meth:`Claim.evaluate`, so the notebooks stay short and every verdict is computed.
Intervals are made where the numbers are made; each :class:`Estimate` says how.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from fireeval.stats.claims import Claim, Estimate, Test, verdict

__all__ = ["PAPER", "CONVENTION_NAMES", "ORDERING_QUOTES", "noise_ordering_claims", "noise_ordering_by_sigma",
           "real_rater_claims", "selection_claims", "agreement_claims"]

PAPER = "Togashi et al. 2022"
# Short names (they become glue keys: no colon); the quantity says what each convention is.
CONVENTION_NAMES = {"code": "reference code", "paper": "paper text"}

# The parts of §6.4's ordering claim (fireeval.vmr.noise.ORDERING_PARTS), in the paper's words.
ORDERING_QUOTES = {
    "r07_above_axiou": ("In all datasets and all σ, the AxIoU instances show lower errors than the R@K,θ instances "
                        "[with high θ]: R@K,0.7"),
    "r05_above_axiou": "... lower errors than the R@K,θ instances [with high θ]: R@K,0.5",
    "r03_not_above_axiou": "the instances of R@K,θ with θ = 0.3 show comparable or lower errors than the AxIoU instances",
    "r07_above_r05": "In particular, the R@K,0.7 instances show severely high errors",
}
_GAP_NAMES = {"r07_above_axiou": "error of R@K,0.7 minus AxIoU@K", "r05_above_axiou": "error of R@K,0.5 minus AxIoU@K",
              "r03_not_above_axiou": "error of AxIoU@K minus R@K,0.3", "r07_above_r05": "error of R@K,0.7 minus R@K,0.5"}


def _test(part):
    from fireeval.vmr.noise import ORDERING_PARTS

    return Test(ORDERING_PARTS[part][2], 0.0)


def noise_ordering_claims(gaps: dict, datasets: dict, error: str = "abs") -> list[dict]:
    """One claim per part of the §6.4 ordering and per dataset, "at every σ": the minimum gap over σ.

    ``gaps``: ``{dataset: {convention: fireeval.vmr.noise.ordering_gaps(...)}}``;
    ``datasets``: ``{dataset: data description}`` ("real: ..." or "stand-in: ...").
    The verdict is computed under each length convention; it is ``depends`` when they
    disagree. Interval: percentile of the minimum over σ across bootstrap resamples of
    the Monte-Carlo trials (paired across σ).
    """
    records = []
    for ds, by_conv in gaps.items():
        for part, quote in ORDERING_QUOTES.items():
            convs = {CONVENTION_NAMES[c]: Estimate.from_samples(
                g[part]["min"], g[part]["min_samples"],
                f"{len(g[part]['min_samples'])} bootstrap resamples of the Monte-Carlo trials (σ paired)")
                for c, g in by_conv.items()}
            sigmas = by_conv[next(iter(by_conv))][part].get("sigmas")
            grid = f"σ ∈ {{{', '.join(f'{s:g}' for s in sigmas)}}} s" if sigmas is not None else "every σ"
            claim = Claim(f"noise.{part}.{ds}", paper=PAPER, section="§6.4, Fig. 7", quote=quote,
                          quantity=f"smallest over {grid} of the {_GAP_NAMES[part]} ({error} error, mean over systems "
                                   f"and K), {ds}; reference code: rater length = true length + Exp(1), paper text: Exp with mean e − s",
                          test=_test(part), data=datasets[ds], fmt=".4f")
            records.append(claim.evaluate(convs))
    return records


def noise_ordering_by_sigma(gaps: dict, sigmas) -> pd.DataFrame:
    """Each part of the ordering at each σ, dataset and convention: gap [interval] and its verdict.

    The detail behind :func:`noise_ordering_claims`: one row per (part, σ), one column
    per (dataset, convention).
    """
    rows = []
    for ds, by_conv in gaps.items():
        for c, g in by_conv.items():
            for part in ORDERING_QUOTES:
                for i, s in enumerate(sigmas):
                    est = Estimate.from_samples(g[part]["by_sigma"][i], g[part]["by_sigma_samples"][:, i], "mc")
                    v = verdict(est, _test(part))[0]
                    rows.append({"part": f"{_GAP_NAMES[part]} {_test(part)}", "σ (s)": s, "dataset": ds,
                                 "convention": c, "cell": f"{est.value:+.4f} [{est.low:+.4f}, {est.high:+.4f}] {v}"})
    table = pd.DataFrame(rows)
    return table.pivot_table(index=["part", "σ (s)"], columns=["dataset", "convention"], values="cell",
                             aggfunc="first", sort=False)


def real_rater_claims(real: dict, datasets: dict) -> list[dict]:
    """The ordering parts tested against the real re-annotations: one claim per part and dataset.

    ``real``: ``{dataset: fireeval.vmr.noise.real_rater_bootstrap(...)}``; the interval is
    a bootstrap over the re-annotated queries. The paper's claim is about simulated
    noise; this asks whether the same order holds when the "noise" is a real second
    annotation.
    """
    from fireeval.vmr.noise import ORDERING_PARTS, family_gap

    records = []
    for ds, rb in real.items():
        for part, quote in ORDERING_QUOTES.items():
            high, low, _ = ORDERING_PARTS[part]
            est = Estimate.from_samples(float(family_gap(rb["error"], high, low)),
                                        family_gap(rb["error_samples"], high, low),
                                        f"{len(rb['error_samples'])} bootstrap resamples of the re-annotated queries")
            claim = Claim(f"raters.{part}.{ds}", paper=PAPER, section="§6.4 (simulated noise; here: real raters)",
                          quote=quote, quantity=f"{_GAP_NAMES[part]}, original vs 5 real raters' median, {ds}",
                          test=_test(part), data=datasets[ds], fmt=".4f")
            records.append(claim.evaluate(est))
    return records


def selection_claims(results: dict, data: str, paper_measure: str = "AxIoU@10") -> list[dict]:
    """§6.6's finding tested on each stand-in variant family (the family is the "convention").

    ``results``: ``{family name: {"above": (n_splits,) per-split share of tie draws in
    which the measure's pick is above average everywhere, for paper_measure,
    "best_other": (n_splits,) the same for the best other measure}}``.
    Two claims: the paper measure's pick is above average on every test measure in
    most splits (share > 0.5), and more often than any other measure's pick.
    """
    rate, lead = {}, {}
    for fam, r in results.items():
        above, other = np.asarray(r["above"], float), np.asarray(r["best_other"], float)
        n = len(above)
        rng = np.random.default_rng(0)
        idx = rng.integers(0, n, size=(2000, n))
        method = f"bootstrap over the {n} splits (2000 resamples; splits share queries, so this is optimistic)"
        if np.isin(above, (0.0, 1.0)).all():  # whole successes: the exact binomial interval, never [0, 0]
            rate[fam] = Estimate.proportion(int(above.sum()), n, f"{n} splits (they share queries: optimistic)")
        else:
            rate[fam] = Estimate.from_samples(above.mean(), above[idx].mean(axis=1), method)
        lead[fam] = Estimate.from_samples(above.mean() - other.mean(),
                                          above[idx].mean(axis=1) - other[idx].mean(axis=1), method)
    quote = f"only {paper_measure} selected a model above average on every test measure [one split]"
    return [
        Claim("selection.axiou10_above_average", paper=PAPER, section="§6.6, Fig. 8", quote=quote,
              quantity=f"share of validation/test splits in which {paper_measure}'s pick has z > 0 on every test "
                       "measure (exact ties broken at random, averaged over draws); the paper saw it on its one split, "
                       "this book asks for most splits (> 0.5)",
              test=Test(">", 0.5), data=data, fmt=".2f").evaluate(rate),
        Claim("selection.axiou10_best", paper=PAPER, section="§6.6, Fig. 8", quote=quote,
              quantity=f"{paper_measure}'s share minus the highest share among the other 11 validation measures",
              test=Test(">", 0.0), data=data, fmt=".2f").evaluate(lead),
    ]


def agreement_claims(tau_point, tau_samples, measures, blocks: dict, data: str, threshold: float = 0.8,
                     n_boot: int | None = None) -> list[dict]:
    """§6.2's agreement findings as claims on the minimum and median Kendall τ of a block of measure pairs.

    ``tau_point``: (n_measures, n_measures) τ between the measures' system rankings;
    ``tau_samples``: (n_boot, n_measures, n_measures) on bootstrap resamples of the
    queries. ``blocks``: ``{claim id: (quote, pairs description, [(i, j), ...])}``.
    For each block two claims: min τ and median τ over the pairs, each > ``threshold``
    (the paper's numbers are lost from our text copy; 0.8 is this book's reading of
    "agrees well", stated in the quantity).
    """
    records = []
    n_boot = n_boot or len(tau_samples)
    method = f"{n_boot} bootstrap resamples of the queries (systems re-ranked on each)"
    for cid, (quote, what, pairs) in blocks.items():
        i, j = np.array(pairs).T
        vals, samp = tau_point[i, j], tau_samples[:, i, j]
        for stat, fn in (("min", np.nanmin), ("median", np.nanmedian)):
            est = Estimate.from_samples(float(fn(vals)), fn(samp, axis=1), method)
            records.append(Claim(f"agreement.{cid}.{stat}", paper=PAPER, section="§6.2, Fig. 4", quote=quote,
                                 quantity=f"{stat} Kendall τ-b over {len(pairs)} pairs: {what}",
                                 test=Test(">=", threshold), data=data, fmt=".3f").evaluate(est))
    return records
