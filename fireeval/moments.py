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
"""
from __future__ import annotations

import numpy as np

__all__ = ["temporal_iou", "recall_at_k_iou", "axiou_at_k", "ap_at_k_iou", "dcg_at_k_iou",
           "MEASURES", "measure_names", "score_all"]


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
    return best.sum(axis=-1) / k


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
