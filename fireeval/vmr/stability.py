"""The AxIoU authors' stability protocol (their Fig. 6): a random subset against the whole test set.

The authors' notebook draws, for n = 100, 200, ..., 3,700, a random permutation of
the 3,720 test queries, keeps its first n, ranks the six systems by their mean on
them, and compares that ranking with the ranking on all queries (Kendall τ-b):
5,000 draws per n. (:func:`fireeval.stats.reliability.subset_stability` is the other
protocol, two *disjoint* subsets, which the paper's text describes.) Here a draw's
subsets for every n come from one permutation, as in the authors' code, and the
subset means are prefix sums of the permuted per-query scores.
"""
from __future__ import annotations

import numpy as np

from fireeval.core.validation import ARRAY, COLLECTION, COUNTS, SEED, Int, validate_params

__all__ = ["AUTHOR_SIZES", "subset_vs_full", "same_k_pairs", "win_shares", "win_share_estimates", "stability_wins",
           "leave_one_system_out_shares"]

#: n = 100, 200, ..., 3,700: the authors' subset sizes for the 3,720 Charades-STA test queries.
AUTHOR_SIZES = tuple(range(100, 3720, 100))


@validate_params(per_query=ARRAY, sizes=COUNTS, n_trials=Int(1), seed=SEED, chunk=Int(1))
def subset_vs_full(per_query, sizes=AUTHOR_SIZES, n_trials: int = 5000, seed=0, chunk: int = 8) -> np.ndarray:
    r"""τ-b between each measure's ranking on a random n-query subset and on all queries.

    One permutation per trial; its first n queries are the subset for size n. The
    subset sums are block sums of the permuted scores accumulated over the sizes, so
    nothing is re-scored or summed twice.

    Parameters
    ----------
    per_query : array_like (n_measures, n_systems, n_queries)
        Each measure's per-query scores of each system.
    sizes : sequence of int
        Subset sizes; sizes outside 1..n_queries are dropped.
    n_trials : int
        Random permutations (trials).
    seed : int
        Seed of the permutations.
    chunk : int
        Trials processed at once (memory, not results).

    Returns
    -------
    numpy.ndarray (n_measures, n_sizes, n_trials)
        :math:`\tau_b(\bar x^{\text{subset}}, \bar x^{\text{all}})` per measure, size and trial;
        NaN where the subset ties every system.

    Examples
    --------
    >>> pq = np.array([[[0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]])  # 1 measure, 2 systems, 4 queries
    >>> subset_vs_full(pq, sizes=[4], n_trials=2)[0, 0].tolist()
    [1.0, 1.0]
    """
    from fireeval.stats.agreement import kendall_tau_against

    scores = np.asarray(per_query, dtype=float)
    n_m, n_s, n_q = scores.shape
    sizes = sorted(int(n) for n in sizes if 0 < int(n) <= n_q)
    full = scores.mean(-1)  # (M, S)
    rng = np.random.default_rng(seed)
    flat = scores.reshape(n_m * n_s, n_q)
    cuts = np.array([0, *sizes[:-1]], dtype=np.intp)  # block starts: ranks [0, n1), [n1, n2), ...; the last block ends at the largest n
    tau = np.empty((n_m, len(sizes), n_trials))
    for start in range(0, n_trials, chunk):
        stop = min(start + chunk, n_trials)
        perms = np.stack([rng.permutation(n_q) for _ in range(stop - start)])  # (T, Q)
        permuted = flat[:, perms[:, :sizes[-1]]]  # (M*S, T, n_max)
        blocks = np.add.reduceat(permuted, cuts, axis=-1)  # per-block sums
        means = np.cumsum(blocks, axis=-1) / np.array(sizes)  # the subset of the first n queries, each n
        means = np.moveaxis(means.reshape(n_m, n_s, stop - start, len(sizes)), 1, -1)  # (M, T, sizes, S)
        # the full ranking's pair signs taken once, not once per subset
        tau[:, :, start:stop] = np.moveaxis(kendall_tau_against(means, full[:, None, None, :], atol=1e-12), 1, 2)
    return tau


@validate_params(measures=COLLECTION)
def same_k_pairs(measures) -> list[tuple[int, int]]:
    """(AxIoU@K, R@K,θ) index pairs at the same K.

    Parameters
    ----------
    measures : sequence of str
        Measure names.

    Returns
    -------
    list of (int, int)
        ``(index of AxIoU@K, index of R@K,θ)`` for every R@K,θ whose AxIoU@K is present.

    Examples
    --------
    >>> same_k_pairs(["AxIoU@1", "R@1,0.5", "R@1,0.7", "R@5,0.5"])
    [(0, 1), (0, 2)]
    """
    measures = list(measures)
    out = []
    for j, m in enumerate(measures):
        if m.startswith("AxIoU"):
            continue
        ax = f"AxIoU@{m.split('@')[1].split(',')[0]}"
        if ax in measures:
            out.append((measures.index(ax), j))
    return out


@validate_params(mean_tau=ARRAY, pairs=COLLECTION)
def win_shares(mean_tau, pairs) -> dict:
    r"""Share of (pair, size) comparisons AxIoU@K wins, three tie rules: ``>=``, ``>`` and ties left out.

    With :math:`a, b` the two measures' mean τ over the P pairs and S sizes,
    :math:`\text{share}_{\ge} = \frac{1}{PS}\sum [a \ge b]`, :math:`\text{share}_{>}` likewise, ties
    :math:`= \text{share}_{\ge} - \text{share}_{>}` and "ties excluded"
    :math:`= \text{share}_{>} / (1 - \text{ties})` (NaN when every comparison ties).

    Parameters
    ----------
    mean_tau : array_like (n_measures, n_sizes, ...)
        Mean τ per measure and size (trailing axes: replicates).
    pairs : sequence of (int, int)
        (AxIoU@K, R@K,θ) index pairs, e.g. from :func:`same_k_pairs`.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{">=": share, ">": share, "ties excluded": share, "ties": share of ties}``,
        each of shape ``mean_tau.shape[2:]``.

    Examples
    --------
    >>> m = np.array([[1.0, 0.9], [1.0, 0.8]])  # AxIoU, R; two sizes
    >>> {k: float(v) for k, v in win_shares(m, [(0, 1)]).items()}
    {'>=': 1.0, '>': 0.5, 'ties excluded': 1.0, 'ties': 0.5}
    """
    mt = np.asarray(mean_tau, dtype=float)
    ax, r = np.array(pairs).T
    a, b = mt[ax], mt[r]  # (pairs, sizes, ...)
    ge, gt = (a >= b), (a > b)
    n = ge[..., :].reshape(-1, *ge.shape[2:]).shape[0]
    ge_s = ge.reshape(n, *ge.shape[2:]).mean(0)
    gt_s = gt.reshape(n, *gt.shape[2:]).mean(0)
    ties = ge_s - gt_s
    with np.errstate(invalid="ignore", divide="ignore"):
        excl = np.where(ties < 1, gt_s / (1 - ties), np.nan)
    return {">=": ge_s, ">": gt_s, "ties excluded": excl, "ties": ties}


@validate_params(tau=ARRAY, measures=COLLECTION, n_boot=Int(1), seed=SEED)
def win_share_estimates(tau, measures, n_boot: int = 1000, seed=0) -> dict:
    """The three win shares with bootstrap replicates and jackknife values over the trials.

    The bootstrap resamples the trials (the same for every measure and size: paired); the
    jackknife leaves one trial out.

    Parameters
    ----------
    tau : array_like (n_measures, n_sizes, n_trials)
        τ per trial, e.g. from :func:`subset_vs_full`; NaN trials left out.
    measures : sequence of str
        The measures' names.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resamples.

    Returns
    -------
    dict
        ``{rule: (point, bootstrap samples (n_boot,), jackknife values (trials,))}`` for the
        rules ``">="``, ``">"``, ``"ties excluded"`` of :func:`win_shares`, plus ``"ties"``
        (point share of ties) and ``"n"`` (the number of comparisons).

    Examples
    --------
    >>> t = np.array([[[0.9, 0.8, 0.7]], [[0.5, 0.6, 0.9]]])  # AxIoU@1, R@1,0.5; one size, three trials
    >>> est = win_share_estimates(t, ["AxIoU@1", "R@1,0.5"], n_boot=4)
    >>> est[">="][0], est[">="][1].shape, est[">="][2].tolist(), est["n"]
    (1.0, (4,), [1.0, 1.0, 1.0], 1)
    """
    from fireeval.vmr.noise import trial_counts

    tau = np.asarray(tau, dtype=float)
    valid = np.isfinite(tau)
    x = np.where(valid, tau, 0.0)
    n_t = tau.shape[-1]
    counts = trial_counts(n_t, n_boot, seed)  # (B, T)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = x.sum(-1) / valid.sum(-1)
        boot = (x @ counts.T) / (valid @ counts.T)  # (M, sizes, B)
        jack = (x.sum(-1, keepdims=True) - x) / (valid.sum(-1, keepdims=True) - valid)  # (M, sizes, T)
    pairs = same_k_pairs(measures)
    p, b, j = win_shares(point, pairs), win_shares(boot, pairs), win_shares(jack, pairs)
    out = {rule: (float(p[rule]), b[rule], j[rule]) for rule in (">=", ">", "ties excluded")}
    out["ties"] = float(p["ties"])
    out["n"] = len(pairs) * tau.shape[1]
    return out


def tau_replicates(tau, n_boot: int = 1000, seed=0) -> dict:
    """Mean and variance of τ per (measure, size): point, bootstrap and jackknife over the trials.

    ``tau``: (measures, sizes, trials), NaN trials left out. Returns ``{"mean": (point
    (M, S), boot (M, S, B), jack (M, S, T)), "var": (...)}``, resampling the trials as
    :func:`win_share_estimates` does (same seed: same resamples).
    """
    from fireeval.vmr.noise import trial_counts

    tau = np.asarray(tau, dtype=float)
    valid = np.isfinite(tau)
    x = np.where(valid, tau, 0.0)
    counts = trial_counts(tau.shape[-1], n_boot, seed)  # (B, T)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        n, nb = valid.sum(-1), valid @ counts.T
        nj = n[..., None] - valid
        m = (x.sum(-1) / n, (x @ counts.T) / nb, (x.sum(-1, keepdims=True) - x) / nj)
        x2 = x ** 2
        m2 = (x2.sum(-1) / n, (x2 @ counts.T) / nb, (x2.sum(-1, keepdims=True) - x2) / nj)
    out["mean"] = m
    out["var"] = tuple(np.maximum(b - a ** 2, 0.0) for a, b in zip(m, m2))
    return out


def instance_shares(mean_tau, pairs) -> np.ndarray:
    """Share of the (AxIoU@K, R@K,θ) instances AxIoU@K outperforms: higher at more sizes than it is lower.

    The paper's "outperform most of the R@K,θ instances" read per instance: an instance is
    outperformed when AxIoU@K's curve is above it at more subset sizes than below it
    (equal points count for neither). ``mean_tau``: (measures, sizes, ...).

    >>> m = np.array([[1.0, 0.9, 0.8], [1.0, 0.8, 0.9], [0.5, 0.5, 0.5]])  # AxIoU vs two R, three sizes
    >>> float(instance_shares(m, [(0, 1), (0, 2)]))
    0.5
    """
    mt = np.asarray(mean_tau, dtype=float)
    ax, r = np.array(pairs).T
    a, b = mt[ax], mt[r]
    wins, losses = (a > b).sum(1), (a < b).sum(1)
    return (wins > losses).mean(0)


@validate_params(tau=ARRAY, measures=COLLECTION, n_boot=Int(1), seed=SEED)
def stability_wins(tau, measures, n_boot: int = 1000, seed=0) -> tuple[float, np.ndarray, int]:
    r"""Share of (K, θ, subset size) comparisons in which AxIoU@K's mean τ is at least R@K,θ's, and its bootstrap.

    The bootstrap resamples the subset-sampling trials (the same trials for every measure
    and size: paired) and recomputes every mean τ.

    Parameters
    ----------
    tau : array_like (n_measures, n_sizes, n_trials)
        τ per trial, from :func:`fireeval.stats.reliability.subset_stability` (NaN trials left out).
    measures : sequence of str
        The measures' names.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resamples.

    Returns
    -------
    share : float
        :math:`\frac{1}{PS}\sum [\bar\tau_{\text{AxIoU@K}} \ge \bar\tau_{\text{R@K},\theta}]`.
    samples : numpy.ndarray (n_boot,)
        The share on each resample.
    n_comparisons : int
        Pairs × sizes.

    Examples
    --------
    >>> t = np.array([[[0.9, 0.8]], [[0.5, 0.6]]])  # AxIoU@1 vs R@1,0.5, one size, two trials
    >>> stability_wins(t, ["R@1,0.5", "AxIoU@1"], n_boot=5)[0]
    0.0
    """
    from fireeval.vmr.noise import trial_counts

    measures = list(measures)
    tau = np.asarray(tau, dtype=float)
    valid = np.isfinite(tau)
    counts = trial_counts(tau.shape[-1], n_boot, seed)  # (B, T)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.concatenate([(np.where(valid, tau, 0.0).sum(-1) / valid.sum(-1))[..., None],
                                (np.where(valid, tau, 0.0) @ counts.T) / (valid @ counts.T)], axis=-1)  # (M, sizes, 1+B)
    pairs = [(measures.index(f"AxIoU@{m.split('@')[1].split(',')[0]}"), measures.index(m))
             for m in measures if not m.startswith("AxIoU") and f"AxIoU@{m.split('@')[1].split(',')[0]}" in measures]
    ax, r = np.array(pairs).T
    wins = means[ax] >= means[r]  # (pairs, sizes, 1 + B)
    share = wins.reshape(-1, wins.shape[-1]).mean(axis=0)
    return float(share[0]), share[1:], int(wins[..., 0].size)


@validate_params(per_query=ARRAY, measures=COLLECTION, sizes=COUNTS, n_trials=Int(1), seed=SEED)
def leave_one_system_out_shares(per_query, measures, sizes, n_trials: int = 500, seed=0) -> dict:
    """The win shares of :func:`win_shares` on the authors' protocol with each system left out in turn.

    ``per_query``: (measures, systems, queries). For each left-out system, :func:`subset_vs_full`
    on the others (``n_trials`` draws per size), mean τ per (measure, size), then the share of
    same-K comparisons AxIoU@K wins under each tie rule. Returns ``{rule: (n_systems,) shares}``:
    how much the stability finding depends on which systems were ranked, which resampling
    subsets of queries cannot show.

    Parameters
    ----------
    per_query : array_like (n_measures, n_systems, n_queries)
        Each measure's per-query scores.
    measures : sequence of str
        The measures' names (``AxIoU@K`` and ``R@K,θ``), in ``per_query``'s order; AxIoU@K is compared
        with the R@K,θ of the same K (:func:`same_k_pairs`).
    sizes : sequence of int
        The subset sizes (queries) of :func:`subset_vs_full`.
    n_trials : int
        Random subsets per size and left-out system.
    seed : int
        Seed of the subsets (the same for each left-out system).

    Returns
    -------
    dict of str to numpy.ndarray (n_systems,)
        ``{">=": shares, ">": shares, "ties excluded": shares, "ties": shares of ties}`` (the rules of
        :func:`win_shares`), entry ``s`` with system ``s`` left out.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> pq = rng.random((2, 4, 6))  # AxIoU@1 and R@1,0.5; 4 systems, 6 queries
    >>> shares = leave_one_system_out_shares(pq, ["AxIoU@1", "R@1,0.5"], sizes=[2, 4], n_trials=20)
    >>> sorted(shares), shares[">="].shape
    (['>', '>=', 'ties', 'ties excluded'], (4,))
    >>> bool(np.all((shares[">="] >= shares[">"])))
    True
    """
    pq = np.asarray(per_query, dtype=float)
    pairs = same_k_pairs(measures)
    out: dict = {}
    for s in range(pq.shape[1]):
        keep = [k for k in range(pq.shape[1]) if k != s]
        tau = subset_vs_full(pq[:, keep], sizes, n_trials=n_trials, seed=seed)
        with np.errstate(invalid="ignore"):
            shares = win_shares(np.nanmean(tau, axis=-1), pairs)
        for rule, v in shares.items():
            out.setdefault(rule, []).append(float(v))
    return {rule: np.asarray(v) for rule, v in out.items()}
