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

__all__ = ["PAPER", "CONVENTION_NAMES", "ORDERING_QUOTES", "ORDERING_SCOPE", "noise_ordering_claims", "noise_ordering_by_sigma",
           "real_rater_claims", "selection_claims", "agreement_claims", "bootstrap_tau_matrix", "agreement_blocks",
           "agreement_summary", "axiom_claim"]

PAPER = "Togashi et al. 2022"
# Short names (they become glue keys: no colon); the quantity says what each convention is.
CONVENTION_NAMES = {"code": "reference code", "paper": "paper text"}

# The parts of §6.4's ordering claim (fireeval.vmr.noise.ORDERING_PARTS), in the paper's words.
ORDERING_QUOTES = {
    "r07_above_axiou": ("In all datasets and all σ, the AxIoU instances show lower errors than the R@K,θ instances "
                        "[with high θ]: R@K,0.7"),
    "r05_above_axiou": "... lower errors than the R@K,θ instances [with high θ]: R@K,0.5",
    "r03_not_above_axiou": ("[the AxIoU instances show] higher errors than R@K,0.3 instances in a wide range of noise "
                            "levels ... the instances of R@K,θ with θ = 0.3 show comparable or lower errors than the "
                            "AxIoU instances"),
    "r07_above_r05": "In particular, the R@K,0.7 instances show severely high errors",
}
_DATASET_NAMES = {"charades_sta": "Charades-STA", "activitynet_captions": "ActivityNet Captions"}
# Over which σ each part is claimed: the paper's "in all datasets and all σ" governs the comparison with high θ;
# the R@K,0.3 part is claimed "in a wide range of noise levels" only, so it is tested at a strict majority of σ.
ORDERING_SCOPE = {"r07_above_axiou": "min", "r05_above_axiou": "min", "r03_not_above_axiou": "majority",
                  "r07_above_r05": "min"}
_GAP_NAMES = {"r07_above_axiou": "error of R@K,0.7 minus AxIoU@K", "r05_above_axiou": "error of R@K,0.5 minus AxIoU@K",
              "r03_not_above_axiou": "error of AxIoU@K minus R@K,0.3", "r07_above_r05": "error of R@K,0.7 minus R@K,0.5"}


def _test(part):
    from fireeval.vmr.noise import ORDERING_PARTS

    return Test(ORDERING_PARTS[part][2], 0.0)


def noise_ordering_claims(gaps: dict, datasets: dict, error: str = "abs") -> list[dict]:
    """One claim per part of the §6.4 ordering and per dataset, over σ as the paper scopes each part.

    ``gaps``: ``{dataset: {convention: fireeval.vmr.noise.ordering_gaps(...)}}``;
    ``datasets``: ``{dataset: data description}`` ("real: ..." or "stand-in: ...").
    Parts claimed "at all σ" are tested on the minimum gap over σ; the R@K,0.3 part,
    claimed "in a wide range of noise levels", on the gap at a strict majority of σ
    (:data:`ORDERING_SCOPE`, :func:`fireeval.vmr.noise.majority_gap`). The verdict is
    computed under each length convention; it is ``depends`` when they disagree.
    Interval: percentile of that statistic across bootstrap resamples of the
    Monte-Carlo trials (paired across σ); it does not cover resampling the queries.
    """
    records = []
    for ds, by_conv in gaps.items():
        for part, quote in ORDERING_QUOTES.items():
            stat = ORDERING_SCOPE[part]
            convs = {CONVENTION_NAMES[c]: Estimate.from_samples(
                g[part][stat], g[part][f"{stat}_samples"],
                f"{len(g[part][f'{stat}_samples'])} bootstrap resamples of the Monte-Carlo trials (σ paired; "
                "queries and systems fixed: not a sampling interval over queries)")
                for c, g in by_conv.items()}
            sigmas = by_conv[next(iter(by_conv))][part].get("sigmas")
            grid = f"σ ∈ {{{', '.join(f'{s:g}' for s in sigmas)}}} s" if sigmas is not None else "every σ"
            scope, how = (("every σ", f"smallest over {grid}") if stat == "min" else
                          ("a strict majority of σ", f"value at a strict majority of {grid} (the (n−1)//2-th smallest)"))
            claim = Claim(f"noise.{part}.{ds}", paper=PAPER, section="§6.4, Fig. 7",
                          quote=f"{quote} [simulated noise, {scope}; {_DATASET_NAMES.get(ds, ds)}]",
                          quantity=f"{how} of the {_GAP_NAMES[part]} ({error} error, mean over systems "
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
                          quote=f"{quote} [real re-annotation; {_DATASET_NAMES.get(ds, ds)}]", quantity=f"{_GAP_NAMES[part]}, original vs 5 real raters' median, {ds}",
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
        Claim("selection.axiou10_above_average", paper=PAPER, section="§6.6, Fig. 8",
              quote=quote + f" [here: {paper_measure}'s pick, in most of many splits]",
              quantity=f"share of validation/test splits in which {paper_measure}'s pick has z > 0 on every test "
                       "measure (exact ties broken at random, averaged over draws); the paper saw it on its one split, "
                       "this book asks for most splits (> 0.5)",
              test=Test(">", 0.5), data=data, fmt=".2f").evaluate(rate),
        Claim("selection.axiou10_best", paper=PAPER, section="§6.6, Fig. 8",
              quote=quote + f" [here: {paper_measure} more often than any other measure]",
              quantity=f"{paper_measure}'s share minus the highest share among the other 11 validation measures",
              test=Test(">", 0.0), data=data, fmt=".2f").evaluate(lead),
    ]


def bootstrap_tau_matrix(per_query, n_boot: int = 1000, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """Kendall τ-b between every two measures' system rankings, and on bootstrap resamples of the queries.

    ``per_query``: (n_measures, n_systems, n_queries). Returns ``(tau (M, M), samples
    (n_boot, M, M))``; each resample re-ranks the systems by their mean over the same
    resampled queries for every measure (paired).
    """
    from fireeval.stats.agreement import kendall_tau_batch
    from fireeval.stats.resampling import bootstrap_indices

    pq = np.asarray(per_query, dtype=float)
    m, _, q = pq.shape
    idx = bootstrap_indices(q, q, n_boot, seed)
    counts = np.zeros((n_boot, q))
    np.add.at(counts, (np.arange(n_boot)[:, None], idx), 1.0)
    means = np.concatenate([pq.mean(-1)[..., None], pq @ counts.T / q], axis=-1)  # (M, S, 1 + B)
    i, j = np.triu_indices(m, k=1)
    tau = kendall_tau_batch(np.swapaxes(means[i], -1, -2), np.swapaxes(means[j], -1, -2))  # (pairs, 1 + B)
    full = np.ones((1 + n_boot, m, m))
    full[:, i, j] = full[:, j, i] = tau.T
    return full[0], full[1:]


def agreement_blocks(measures) -> dict:
    """The pairs of measures each §6.2 claim is about, and the degenerate K = 1 block.

    ``axiou_vs_r``: AxIoU@K against every R@K,θ; ``axiou_vs_axiou``: AxIoU@K among
    themselves; ``r_vs_r``: R@K,θ among themselves; ``k1_vs_deeper``: pairs with exactly
    one K = 1 measure -- where two systems with identical top-1 moments tie on one side
    only, so τ-b cannot reach 1.
    """
    measures = list(measures)
    is_ax = [m.startswith("AxIoU") for m in measures]
    k1 = [m.split("@")[1].split(",")[0] == "1" for m in measures]
    pairs = [(i, j) for i in range(len(measures)) for j in range(i + 1, len(measures))]
    kk = [m.split("@")[1].split(",")[0] for m in measures]
    return {"axiou_vs_r": [(i, j) for i, j in pairs if is_ax[i] != is_ax[j]],
            "axiou_vs_r_same_k": [(i, j) for i, j in pairs if is_ax[i] != is_ax[j] and kk[i] == kk[j]],
            "axiou_vs_axiou": [(i, j) for i, j in pairs if is_ax[i] and is_ax[j]],
            "r_vs_r": [(i, j) for i, j in pairs if not is_ax[i] and not is_ax[j]],
            "k1_vs_deeper": [(i, j) for i, j in pairs if k1[i] != k1[j]]}


def agreement_summary(tau_point, tau_samples, measures) -> pd.DataFrame:
    """min and median τ per block, with and without the K = 1 vs deeper pairs, 95 % bootstrap intervals."""
    blocks = agreement_blocks(measures)
    k1 = set(blocks["k1_vs_deeper"])
    rows = []
    for name in ("axiou_vs_r", "axiou_vs_r_same_k", "axiou_vs_axiou", "r_vs_r"):
        for subset, pairs in (("all pairs", blocks[name]),
                              ("without K = 1 vs deeper", [p for p in blocks[name] if p not in k1]),
                              ("only K = 1 vs deeper", [p for p in blocks[name] if p in k1])):
            if not pairs:
                continue
            i, j = np.array(pairs).T
            for stat, fn in (("min", np.nanmin), ("median", np.nanmedian)):
                e = Estimate.from_samples(float(fn(tau_point[i, j])), fn(tau_samples[:, i, j], axis=1), "bootstrap")
                rows.append({"block": name, "pairs": subset, "n pairs": len(pairs), "statistic": stat,
                             "τ-b": round(e.value, 3), "95% interval": f"[{e.low:.3f}, {e.high:.3f}]"})
    return pd.DataFrame(rows)


AGREEMENT_QUOTES = {
    "axiou_vs_r": ("In the Charades-STA dataset, AxIoU@K agrees well with all instances of R@K,θ", ">="),
    "axiou_vs_axiou": ("The values of AxIoU@K with different values of K agree reasonably well with one another", ">="),
    "r_vs_r": ("different instances of R@K,θ can conflict with one another", "<"),
}


def agreement_claims(tau_point, tau_samples, measures, data: str, threshold: float = 0.8) -> list[dict]:
    """§6.2's agreement findings as claims on the minimum and median Kendall τ of each block of measure pairs.

    ``tau_point``, ``tau_samples``: from :func:`bootstrap_tau_matrix`. "Agree well" is
    min and median τ ≥ ``threshold``; "can conflict" is min τ < ``threshold``. The
    paper's own τ values are lost from our text copy, so 0.8 is this book's reading of
    "agrees well", stated in every quantity.
    """
    blocks = agreement_blocks(measures)
    method = f"{len(tau_samples)} bootstrap resamples of the queries (systems re-ranked on each)"
    # "all instances of R@K,θ" read two ways: every K against every K, or AxIoU@K against R@K,θ at its own K.
    readings = {"axiou_vs_r": {"every pair": blocks["axiou_vs_r"], "same K": blocks["axiou_vs_r_same_k"]},
                "axiou_vs_axiou": {"": blocks["axiou_vs_axiou"]}, "r_vs_r": {"": blocks["r_vs_r"]}}
    records = []
    for cid, (quote, op) in AGREEMENT_QUOTES.items():
        stats = (("min", np.nanmin), ("median", np.nanmedian)) if op == ">=" else (("min", np.nanmin),)
        for stat, fn in stats:
            ests, sizes = {}, []
            for reading, pairs in readings[cid].items():
                i, j = np.array(pairs).T
                ests[reading] = Estimate.from_samples(float(fn(tau_point[i, j])), fn(tau_samples[:, i, j], axis=1),
                                                      method)
                sizes.append(f"{len(pairs)} pairs" + (f" ({reading})" if reading else ""))
            records.append(Claim(f"agreement.{cid}.{stat}", paper=PAPER, section="§6.2, Fig. 4",
                                 quote=f"{quote} [{stat} τ over the pairs]",
                                 quantity=f"{stat} Kendall τ-b over {' / '.join(sizes)} ({cid.replace('_', ' ')}); "
                                          f"'agree well' read as τ ≥ {threshold:g}",
                                 test=Test(op, threshold), data=data, fmt=".3f").evaluate(ests))
    return records


def axiom_claim(table: pd.DataFrame, grid_note: str) -> dict:
    """App. A's axiom statements (one per measure and axiom) checked by a counter-example search.

    ``table``: :func:`fireeval.vmr.axioms.claims_table`. The quantity is the number of
    statements the search contradicts (a counter-example where the paper says the axiom
    holds, or none where it says it fails); exact, since the search is exhaustive on its
    grid. A search that finds no counter-example is not a proof.
    """
    disagree = int((table["found"] == table["paper: satisfied"]).sum())
    return Claim("axioms.app_a", paper=PAPER, section="§5, App. A",
                 quote="R@K,θ satisfies INV-k only; AP@K,θ and DCG@K violate INV-k; AxIoU@K satisfies both",
                 quantity=f"statements (of {len(table)}) contradicted by an exhaustive search for counter-examples "
                          f"({grid_note}); a search, not a proof",
                 test=Test("<=", 0), data="exact: enumerated IoU lists", fmt=".0f").evaluate(
        Estimate(disagree, method="exact: exhaustive search on a grid"))
