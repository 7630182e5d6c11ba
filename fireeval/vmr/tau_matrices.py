"""Kendall τ-b between measures' system rankings, with its uncertainty over queries and over systems.

The analyses behind the agreement findings of the AxIoU chapters (and any other set of
measures): the τ-b matrix of every pair of measures and its bootstrap over queries
(:func:`bootstrap_tau_matrix`), its leave-one-query-out jackknife (:func:`jackknife_tau_matrix`,
for BCa intervals), its leave-one-system-out matrices (:func:`leave_one_system_out_tau`: how
much a τ depends on which systems were ranked), the blocks of pairs a claim is about
(:func:`agreement_blocks`) and a summary table (:func:`agreement_summary`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from fireeval.stats.claims import Estimate
from fireeval.core.validation import ARRAY, COLLECTION, SEED, Int, validate_params

__all__ = ["bootstrap_tau_matrix", "jackknife_tau_matrix", "leave_one_system_out_tau", "agreement_blocks",
           "agreement_summary", "same_ranking_cells"]


@validate_params(per_query=ARRAY, n_boot=Int(1), seed=SEED)
def bootstrap_tau_matrix(per_query, n_boot: int = 1000, seed=0) -> tuple[np.ndarray, np.ndarray]:
    r"""Kendall τ-b between every two measures' system rankings, and on bootstrap resamples of the queries.

    Each resample re-ranks the systems by their mean over the same resampled queries for
    every measure (paired): with :math:`\bar x_{m,s}` measure m's mean for system s,
    :math:`T_{a,b} = \tau_b\big((\bar x_{a,s})_s, (\bar x_{b,s})_s\big)`.
    Two means within :data:`fireeval.stats.resampling.TIE_RTOL` (relative, at least 1e-9) tie: systems
    equal on every drawn query have mathematically equal means, which the matrix product adds in an
    order that follows the machine's BLAS threads, so an exact comparison ordered them by float noise.

    Parameters
    ----------
    per_query : array_like (n_measures, n_systems, n_queries)
        Each measure's per-query scores of each system.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resamples.

    Returns
    -------
    tau : numpy.ndarray (M, M)
        τ-b on all queries, ones on the diagonal.
    samples : numpy.ndarray (n_boot, M, M)
        τ-b on each resample.

    Examples
    --------
    >>> pq = np.array([[[0.1, 0.2, 0.3], [0.5, 0.6, 0.7], [0.9, 0.8, 1.0]],
    ...                [[0.3, 0.1, 0.2], [0.2, 0.3, 0.4], [0.8, 0.9, 0.7]]])  # 2 measures, 3 systems
    >>> tau, samples = bootstrap_tau_matrix(pq, n_boot=5)
    >>> tau.tolist(), samples.shape
    ([[1.0, 1.0], [1.0, 1.0]], (5, 2, 2))
    """
    from fireeval.stats.agreement import kendall_tau_batch
    from fireeval.stats.resampling import TIE_RTOL
    from fireeval.stats.resampling import bootstrap_indices

    pq = np.asarray(per_query, dtype=float)
    m, _, q = pq.shape
    idx = bootstrap_indices(q, q, n_boot, seed)
    counts = np.zeros((n_boot, q))
    np.add.at(counts, (np.arange(n_boot)[:, None], idx), 1.0)
    means = np.concatenate([pq.mean(-1)[..., None], pq @ counts.T / q], axis=-1)  # (M, S, 1 + B)
    i, j = np.triu_indices(m, k=1)
    # means equal up to the summation order (BLAS's, which follows the machine's threads) tie
    tau = kendall_tau_batch(np.swapaxes(means[i], -1, -2), np.swapaxes(means[j], -1, -2), rtol=TIE_RTOL)  # (pairs, 1 + B)
    full = np.ones((1 + n_boot, m, m))
    full[:, i, j] = full[:, j, i] = tau.T
    return full[0], full[1:]


@validate_params(measures=COLLECTION)
def agreement_blocks(measures) -> dict:
    """The pairs of measures each §6.2 claim is about, and the degenerate K = 1 block.

    Parameters
    ----------
    measures : sequence of str
        Measure names (``AxIoU@K`` and ``R@K,θ``).

    Returns
    -------
    dict of str to list of (int, int)
        Index pairs (i < j): ``axiou_vs_r`` AxIoU@K against every R@K,θ;
        ``axiou_vs_r_same_k`` the same at equal K; ``axiou_vs_axiou`` AxIoU@K among
        themselves; ``r_vs_r`` R@K,θ among themselves; ``k1_vs_deeper`` pairs with exactly
        one K = 1 measure -- where two systems with identical top-1 moments tie on one side
        only, so τ-b cannot reach 1.

    Examples
    --------
    >>> b = agreement_blocks(["AxIoU@1", "AxIoU@5", "R@1,0.5", "R@5,0.5"])
    >>> b["axiou_vs_r_same_k"], b["k1_vs_deeper"]
    ([(0, 2), (1, 3)], [(0, 1), (0, 3), (1, 2), (2, 3)])
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


@validate_params(tau_point=ARRAY, tau_samples=ARRAY, measures=COLLECTION)
def agreement_summary(tau_point, tau_samples, measures) -> pd.DataFrame:
    """min and median τ per block, with and without the K = 1 vs deeper pairs, 95 % bootstrap intervals.

    Parameters
    ----------
    tau_point : numpy.ndarray (M, M)
        τ-b matrix (e.g. from :func:`bootstrap_tau_matrix`).
    tau_samples : numpy.ndarray (n_boot, M, M)
        Its bootstrap samples.
    measures : sequence of str
        The measures' names, in the matrices' order.

    Returns
    -------
    pandas.DataFrame
        One row per (block of :func:`agreement_blocks`, pair subset, statistic): columns block,
        pairs, "n pairs", statistic, "τ-b" and "95% interval" (percentile bootstrap).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> pq = rng.random((3, 4, 10))
    >>> tau, samples = bootstrap_tau_matrix(pq, n_boot=50)
    >>> s = agreement_summary(tau, samples, ["AxIoU@5", "R@5,0.5", "R@5,0.7"])
    >>> s[["block", "pairs", "statistic"]].values.tolist()[:2]
    [['axiou_vs_r', 'all pairs', 'min'], ['axiou_vs_r', 'all pairs', 'median']]
    """
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


@validate_params(per_query=ARRAY)
def jackknife_tau_matrix(per_query) -> np.ndarray:
    r"""Leave-one-query-out τ-b matrices, the jackknife beside :func:`bootstrap_tau_matrix`.

    Row q ranks the systems by their mean over every query but q:
    :math:`\bar x^{(-q)}_{m,s} = (\sum_{q'} x_{m,s,q'} - x_{m,s,q}) / (n - 1)`.

    Parameters
    ----------
    per_query : array_like (n_measures, n_systems, n_queries)
        Each measure's per-query scores of each system.

    Returns
    -------
    numpy.ndarray (n_queries, M, M)
        τ-b matrices, ones on the diagonal.

    Examples
    --------
    >>> pq = np.array([[[0.1, 0.2, 0.3], [0.5, 0.6, 0.7], [0.9, 0.8, 1.0]],
    ...                [[0.3, 0.1, 0.2], [0.2, 0.3, 0.4], [0.8, 0.9, 0.7]]])
    >>> jk = jackknife_tau_matrix(pq)
    >>> jk.shape, jk[:, 0, 1].round(3).tolist()
    ((3, 2, 2), [1.0, 1.0, 1.0])
    """
    from fireeval.stats.agreement import kendall_tau_batch
    from fireeval.stats.resampling import TIE_RTOL

    pq = np.asarray(per_query, dtype=float)
    m, _, q = pq.shape
    means = (pq.sum(-1, keepdims=True) - pq) / (q - 1)  # (M, S, Q)
    i, j = np.triu_indices(m, k=1)
    tau = kendall_tau_batch(np.swapaxes(means[i], -1, -2), np.swapaxes(means[j], -1, -2), rtol=TIE_RTOL)  # (pairs, Q)
    full = np.ones((q, m, m))
    full[:, i, j] = full[:, j, i] = tau.T
    return full



@validate_params(per_query=ARRAY)
def leave_one_system_out_tau(per_query) -> np.ndarray:
    r"""τ-b matrices with each system left out in turn: (n_systems, M, M).

    ``per_query``: (n_measures, n_systems, n_queries). Resampling queries cannot show how a
    τ between two measures depends on which systems were ranked; with six systems one system
    more or less moves τ by whole steps. Row ``s`` ranks every system but ``s``: with
    :math:`\bar x_{m,t}` measure m's mean over the queries for system t,

    .. math:: T_{s,a,b} = \tau_b\big((\bar x_{a,t})_{t \ne s},\ (\bar x_{b,t})_{t \ne s}\big),
              \qquad T_{s,a,a} = 1.

    Parameters
    ----------
    per_query : array_like (n_measures, n_systems, n_queries)
        Each measure's per-query scores of each system.

    Returns
    -------
    numpy.ndarray (n_systems, n_measures, n_measures)
        Kendall's τ-b between each two measures' rankings of the systems left; ones on the diagonal
        (NaN where a measure ties every system left).

    Examples
    --------
    >>> pq = np.array([[[1.0], [2.0], [3.0]], [[1.0], [3.0], [2.0]]])  # 2 measures, 3 systems, 1 query
    >>> leave_one_system_out_tau(pq)[:, 0, 1].tolist()
    [-1.0, 1.0, 1.0]
    """
    from fireeval.stats.agreement import kendall_tau_batch
    from fireeval.stats.resampling import TIE_RTOL

    pq = np.asarray(per_query, dtype=float)
    m, s, _ = pq.shape
    means = pq.mean(-1)  # (M, S)
    keep = ~np.eye(s, dtype=bool)  # (S, S): row s keeps every system but s
    sub = np.stack([means[:, k] for k in keep])  # (S, M, S - 1)
    i, j = np.triu_indices(m, k=1)
    tau = kendall_tau_batch(sub[:, i], sub[:, j], rtol=TIE_RTOL)  # (S, pairs)
    full = np.ones((s, m, m))
    full[:, i, j] = full[:, j, i] = tau
    return full


@validate_params(per_query=ARRAY, measures=COLLECTION)
def same_ranking_cells(per_query, measures) -> dict:
    """For each measure, the first measure (in ``measures`` order) that ranks the systems identically.

    Two measures whose system means are in the same order (ties included) give the same τ-b
    with any third measure: a cell (a, b) then *is* the cell (a', b'), which matters when a
    test's bar was read off one of them (a bar never comes from the cell it tests).

    Parameters
    ----------
    per_query : array_like (n_measures, n_systems, n_queries)
        Each measure's per-query scores; the systems are ranked by their means.
    measures : sequence of str
        The measures' names, in ``per_query``'s order.

    Returns
    -------
    dict of str to str
        ``{measure: the first measure ranking the systems as it does}`` (itself when none comes before it).

    Examples
    --------
    >>> pq = np.array([[[0.1], [0.5], [0.9]], [[0.2], [0.3], [0.4]], [[0.9], [0.5], [0.1]]])
    >>> same_ranking_cells(pq, ["AP", "nDCG", "P@1"])
    {'AP': 'AP', 'nDCG': 'AP', 'P@1': 'P@1'}
    """
    means = np.asarray(per_query, dtype=float).mean(-1)
    measures = list(measures)
    sign = np.sign(means[:, :, None] - means[:, None, :])  # (M, S, S)
    return {m: measures[next(k for k in range(len(measures)) if np.array_equal(sign[k], sign[i]))]
            for i, m in enumerate(measures)}
