"""Moment-retrieval metrics over arrays of shape (queries, K).

Predictions are ``(n_queries, K, 2)`` arrays of [start, end] in seconds, in rank
order, padded with NaN where a system returned fewer than K moments; ground truth is
``(n_queries, 2)``. Every measure first computes temporal IoU once
(:func:`temporal_iou`) and then works on the ``(n_queries, K)`` IoU matrix, so the
12 measures of the AxIoU paper cost one IoU computation.

Conventions (Togashi et al. 2022 and its reference code riktor/vmr-axiou):

* IoU of [a, b] and [c, d] = overlap / (max(b, d) - min(a, c)); 0 when disjoint;
  a missing (NaN) moment has IoU 0.
* R@K,θ uses IoU >= θ as in the paper; ``strict=True`` gives the reference code's
  IoU > θ.
* AxIoU@K divides by K even when fewer than K moments were returned; a query with
  no prediction (missing or empty list) scores 0 on every measure.
* Several ground-truth windows per query (QVHighlights): a moment's IoU is its
  largest IoU with any of the query's windows (:func:`max_temporal_iou`), the
  "hit any relevant window" reading of R@K,θ used by Moment-DETR's R1@θ.

Beyond the per-query measures, the module holds the AxIoU paper's analyses on
per-query score arrays of shape (measures, systems, queries): subset stability
(:func:`subset_stability`, vectorised over thousands of trials), the all-tied ratio
(:func:`all_tied_ratio`) and the analytic noise bias/variance of App. C
(:func:`noisy_iou_bias_variance`).
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["temporal_iou", "max_temporal_iou", "recall_at_k_iou", "axiou_at_k", "ap_at_k_iou", "dcg_at_k_iou",
           "MEASURES", "measure_names", "measure_function", "score_all", "score_systems", "mean_table",
           "all_tied_ratio", "noisy_iou_bias_variance",
           "simulate_noisy_iou"]


def temporal_iou(pred, gt) -> np.ndarray:
    """Temporal IoU between each predicted moment and its query's ground truth.

    .. math:: \\mathrm{IoU}([a,b],[c,d]) = \\frac{\\max(0, \\min(b,d) - \\max(a,c))}{\\max(b,d) - \\min(a,c)}

    ``pred``: (..., K, 2); ``gt``: (..., 2). Returns (..., K); NaN moments give 0.

    >>> temporal_iou([[[0, 2], [1, 3], [5, 6]]], [[0, 2]])
    array([[1.        , 0.33333333, 0.        ]])
    """
    pred = np.asarray(pred, dtype=float)
    gt = np.asarray(gt, dtype=float)[..., None, :]
    inter = np.minimum(pred[..., 1], gt[..., 1]) - np.maximum(pred[..., 0], gt[..., 0])
    union = np.maximum(pred[..., 1], gt[..., 1]) - np.minimum(pred[..., 0], gt[..., 0])
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where(union > 0, np.clip(inter, 0, None) / union, 0.0)
    return np.nan_to_num(iou, nan=0.0)


def max_temporal_iou(pred, gt_windows) -> np.ndarray:
    """IoU of each predicted moment with the best-matching of several ground-truth windows.

    .. math:: \\mathrm{IoU}_i = \\max_{g} \\mathrm{IoU}(\\hat m_i, m_g)

    ``pred``: (Q, K, 2); ``gt_windows``: (Q, G, 2), NaN rows padding queries with fewer
    than G windows. Returns (Q, K). With G = 1 this equals :func:`temporal_iou`.

    >>> max_temporal_iou([[[0, 2], [5, 6]]], [[[0, 1], [5, 6]]])
    array([[0.5, 1. ]])
    """
    pred = np.asarray(pred, dtype=float)
    gt = np.asarray(gt_windows, dtype=float)
    if gt.ndim == pred.ndim - 1:
        return temporal_iou(pred, gt)
    # (Q, G, K) IoUs against each window, then the best window per moment.
    per_window = temporal_iou(pred[:, None, :, :], gt)
    return per_window.max(axis=1)


def recall_at_k_iou(iou, k: int, theta: float, strict: bool = False) -> np.ndarray:
    """R@K,θ per query: 1 if any of the top K moments has IoU >= θ (> θ with ``strict``).

    .. math:: R@K,\\theta = \\mathbb{1}\\left[\\max_{i \\le K} \\mathrm{IoU}_i \\ge \\theta\\right]

    >>> recall_at_k_iou([[0.2, 0.5], [0.7, 0.1]], k=1, theta=0.5)
    array([0., 1.])
    """
    top = np.asarray(iou, dtype=float)[..., :k]
    hit = top > theta if strict else top >= theta
    return hit.any(axis=-1).astype(float)


def axiou_at_k(iou, k: int, lower_bound: float = 0.0) -> np.ndarray:
    """AxIoU@K per query: the mean over k = 1..K of the best IoU within the top k.

    .. math:: \\mathrm{AxIoU@K} = \\frac{1}{K} \\sum_{k=1}^{K} \\max_{i \\le k} \\mathrm{rel}(\\mathrm{IoU}_i),
       \\quad \\mathrm{rel}(x) = \\max(x - lb, 0) / (1 - lb)

    ``lower_bound`` (lb) is the reference code's option; 0 is the paper's measure.
    Lists shorter than K still divide by K (missing moments have IoU 0).

    >>> axiou_at_k([[0.2, 0.5, 0.1]], k=3)   # (0.2 + 0.5 + 0.5) / 3
    array([0.4])
    """
    top = np.asarray(iou, dtype=float)[..., :k]
    rel = np.clip(top - lower_bound, 0, None) / (1 - lower_bound)
    best = np.maximum.accumulate(rel, axis=-1)
    # A list narrower than K keeps its best IoU for the missing ranks (as with NaN padding).
    tail = (k - best.shape[-1]) * best[..., -1] if 0 < best.shape[-1] < k else 0.0
    return (best.sum(axis=-1) + tail) / k


def ap_at_k_iou(iou, k: int, theta: float) -> np.ndarray:
    """AP@K,θ: average precision of the top K with "relevant" = IoU >= θ, normalised by the hits.

    One ground-truth moment can be matched by several predictions, so the usual
    normaliser is the number of hits in the top K (0 when none). Used only to show
    that AP violates INV-k.
    """
    hits = (np.asarray(iou, dtype=float)[..., :k] >= theta).astype(float)
    prec = np.cumsum(hits, axis=-1) / np.arange(1, hits.shape[-1] + 1)
    n = hits.sum(axis=-1)
    return np.divide((prec * hits).sum(axis=-1), n, out=np.zeros_like(n), where=n > 0)


def dcg_at_k_iou(iou, k: int) -> np.ndarray:
    """DCG@K with the IoU itself as the gain: sum_i IoU_i / log2(i + 1). Violates INV-k."""
    top = np.asarray(iou, dtype=float)[..., :k]
    return (top / np.log2(np.arange(2, top.shape[-1] + 2))).sum(axis=-1)


KS = (1, 5, 10)
THETAS = (0.3, 0.5, 0.7)


def measure_names(ks=KS, thetas=THETAS) -> list[str]:
    """The paper's 12 measures in a fixed order: R@K,θ for every K and θ, then AxIoU@K."""
    return [f"R@{k},{t}" for k in ks for t in thetas] + [f"AxIoU@{k}" for k in ks]


MEASURES = measure_names()


def score_all(iou, ks=KS, thetas=THETAS, strict: bool = False) -> dict:
    """Per-query scores of every measure: ``{name: array (..., n_queries)}`` from one IoU matrix."""
    iou = np.asarray(iou, dtype=float)
    out = {f"R@{k},{t}": recall_at_k_iou(iou, k, t, strict) for k in ks for t in thetas}
    out.update({f"AxIoU@{k}": axiou_at_k(iou, k) for k in ks})
    return out


_NAME = re.compile(r"^(R|AP|AxIoU|DCG)@(\d+)(?:,([0-9.]+))?$")


def measure_function(name: str, strict: bool = False):
    """The per-query function ``iou (..., K) -> (...)`` of a measure named like ``R@5,0.7``.

    Accepts ``R@K,θ``, ``AP@K,θ``, ``AxIoU@K`` and ``DCG@K``.

    >>> measure_function("R@1,0.5")([[0.5, 0.9]])
    array([1.])
    """
    m = _NAME.match(name.strip())
    if not m or (m.group(1) in ("R", "AP")) != (m.group(3) is not None):
        raise ValueError(f"unknown measure {name!r}: use R@K,θ, AP@K,θ, AxIoU@K or DCG@K (e.g. 'R@5,0.7')")
    kind, k, theta = m.group(1), int(m.group(2)), m.group(3)
    if kind == "R":
        return lambda iou: recall_at_k_iou(iou, k, float(theta), strict)
    if kind == "AP":
        return lambda iou: ap_at_k_iou(iou, k, float(theta))
    if kind == "AxIoU":
        return lambda iou: axiou_at_k(iou, k)
    return lambda iou: dcg_at_k_iou(iou, k)


def score_systems(predictions: dict, gt, measures=None, strict: bool = False) -> np.ndarray:
    """Per-query scores of several systems: array (measures, systems, queries).

    ``predictions`` is ``{system: (Q, K, 2)}``; ``gt`` is (Q, 2) or (Q, G, 2) (several
    windows, see :func:`max_temporal_iou`); ``measures`` defaults to the 12 of
    :data:`MEASURES`. IoU is computed once per system.
    """
    measures = list(measures or MEASURES)
    fns = [measure_function(m, strict) for m in measures]
    out = np.empty((len(measures), len(predictions), len(np.asarray(gt))))
    for j, pred in enumerate(predictions.values()):
        iou = max_temporal_iou(pred, gt)
        for i, fn in enumerate(fns):
            out[i, j] = fn(iou)
    return out


def mean_table(per_query, systems, measures=None):
    """Mean over queries as a DataFrame (systems x measures) from (measures, systems, queries)."""
    import pandas as pd

    measures = list(measures or MEASURES)
    return pd.DataFrame(np.asarray(per_query).mean(axis=-1).T, index=list(systems), columns=measures)


def all_tied_ratio(per_query) -> np.ndarray:
    """Share of queries on which every system gets exactly the same score (AxIoU paper App. B).

    ``per_query`` is (..., systems, queries); returns (...). Such queries cannot
    separate the systems, whatever their weight.

    >>> float(all_tied_ratio([[1, 0, 1], [1, 1, 1]]))
    0.6666666666666666
    """
    s = np.asarray(per_query, dtype=float)
    return (s == s[..., :1, :]).all(axis=-2).mean(axis=-1)


def noisy_iou_bias_variance(x, theta: float, sigma: float, strict: bool = False) -> dict:
    """Analytic bias, variance and MSE of AxIoU@1 and R@1,θ when the observed IoU is noisy.

    Model (AxIoU paper App. C): the observed top-1 IoU is ``x + e`` with
    ``e ~ Normal(0, σ²)`` around the true IoU ``x``. AxIoU@1 is the IoU itself, so it is
    unbiased with variance σ². R@1,θ is ``1[x + e ≥ θ]``, a Bernoulli with
    ``p = Φ((x − θ)/σ)``: bias ``p − 1[x ≥ θ]`` (``1[x > θ]`` with ``strict``),
    variance ``p(1 − p)``. MSE = bias² + variance. (The noise is not clipped to [0, 1];
    see :func:`simulate_noisy_iou` for the clipped variant.)

    >>> r = noisy_iou_bias_variance([0.5], theta=0.5, sigma=0.1)
    >>> float(r["R"]["bias"][0]), float(r["R"]["variance"][0])
    (-0.5, 0.25)
    """
    from scipy.stats import norm

    x = np.asarray(x, dtype=float)
    p = norm.cdf((x - theta) / sigma)
    truth = (x > theta) if strict else (x >= theta)
    bias_r = p - truth
    var_r = p * (1 - p)
    zeros = np.zeros_like(x)
    return {"AxIoU": {"bias": zeros, "variance": zeros + sigma ** 2, "mse": zeros + sigma ** 2},
            "R": {"bias": bias_r, "variance": var_r, "mse": bias_r ** 2 + var_r}}


def simulate_noisy_iou(x, theta: float, sigma: float, n: int = 10_000, rng=0, clip: bool = False,
                       strict: bool = False) -> dict:
    """Monte Carlo counterpart of :func:`noisy_iou_bias_variance`: same keys, (len(x),) arrays.

    ``clip=True`` clips the observed IoU to [0, 1], as a real IoU is, which biases
    AxIoU@1 near 0 and 1.
    """
    x = np.asarray(x, dtype=float)
    rng = np.random.default_rng(rng)
    obs = x[:, None] + sigma * rng.normal(size=(len(x), n))
    if clip:
        obs = np.clip(obs, 0, 1)
    hit = (obs > theta) if strict else (obs >= theta)
    truth = (x > theta) if strict else (x >= theta)
    out = {}
    for name, est, true in (("AxIoU", obs, x), ("R", hit.astype(float), truth.astype(float))):
        err = est - true[:, None]
        out[name] = {"bias": err.mean(axis=1), "variance": est.var(axis=1), "mse": (err ** 2).mean(axis=1)}
    return out
