"""Honest moment-retrieval baselines that never look at the video or the query.

When a dataset has ground truth but no released system predictions (ActivityNet
Captions here), an evaluation protocol can still be run on systems whose quality
differs for known reasons. Every baseline below uses only the video duration and
training-set statistics; none is a retrieval model, and notebooks must label them so.

* :func:`blind_prior` -- rank candidate moments on a grid of normalised [start, end]
  by a Gaussian kernel density of the training moments' normalised (start, length),
  then keep the top K after temporal NMS. Every query of a video gets the same list.
* :func:`random_moments` -- uniform random moments (two uniform points, sorted).
* :func:`sliding_windows` -- K windows of one fixed normalised width, evenly spaced.
* :func:`full_video` -- the single moment [0, duration].

Normalised times are fractions of the video duration; lists are returned in seconds
as (n_queries, K, 2), NaN-padded like every prediction array in :mod:`fireeval.core.moments`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["normalised_moments", "candidate_grid", "prior_density", "blind_prior", "random_moments",
           "sliding_windows", "full_video", "nms_keep", "compact", "activitynet_baselines"]


def normalised_moments(gt, durations) -> tuple[np.ndarray, np.ndarray]:
    """Training moments as (normalised start, normalised length), clipped to [0, 1].

    End times past the video's duration (they occur in both Charades-STA and
    ActivityNet) are clipped to the duration first.

    >>> s, l = normalised_moments([[5, 15], [0, 40]], [20, 30])
    >>> s.tolist(), l.tolist()
    ([0.25, 0.0], [0.5, 1.0])
    """
    gt = np.asarray(gt, dtype=float)
    d = np.asarray(durations, dtype=float)
    if gt.shape != (len(d), 2):
        raise ValueError(f"ground truth {gt.shape} and durations {d.shape} disagree: need (n, 2) and (n,)")
    if (d <= 0).any() or not np.isfinite(d).all():
        raise ValueError(f"durations must be positive; rows {np.flatnonzero(~(d > 0))[:5].tolist()} are not")
    start = np.clip(gt[:, 0] / d, 0, 1)
    end = np.clip(gt[:, 1] / d, 0, 1)
    return start, np.clip(end - start, 0, 1)


def candidate_grid(step: float = 1 / 32) -> np.ndarray:
    """All normalised moments [i·step, j·step] with i < j on a regular grid: (n, 2)."""
    n = int(round(1 / step))
    i, j = np.triu_indices(n + 1, k=1)
    return np.stack([i * step, j * step], axis=1)


def prior_density(candidates, train_start, train_length, bandwidth: float) -> np.ndarray:
    """Gaussian-kernel density of the training (start, length) at each candidate (up to a constant).

    .. math:: \\hat f(s, \\ell) \\propto \\sum_i \\exp\\left(-\\frac{(s - s_i)^2 + (\\ell - \\ell_i)^2}{2h^2}\\right)
    """
    if bandwidth <= 0:
        raise ValueError(f"bandwidth must be > 0 (a fraction of the video), got {bandwidth}")
    c = np.asarray(candidates, dtype=float)
    ts, tl = np.asarray(train_start, float), np.asarray(train_length, float)
    # The Gaussian kernel factorises over start and length, and grid candidates take
    # few distinct values of each: density = A @ B.T over distinct values, looked up.
    s_vals, s_idx = np.unique(c[:, 0], return_inverse=True)
    l_vals, l_idx = np.unique(c[:, 1] - c[:, 0], return_inverse=True)
    a = np.exp(-((s_vals[:, None] - ts[None, :]) ** 2) / (2 * bandwidth ** 2))
    b = np.exp(-((l_vals[:, None] - tl[None, :]) ** 2) / (2 * bandwidth ** 2))
    return (a @ b.T)[s_idx, l_idx]


def nms_keep(moments, threshold) -> np.ndarray:
    """Greedy temporal NMS in rank order: which moments survive (boolean, same leading shape).

    ``moments``: (..., N, 2) in rank order (NaN rows are never kept); a moment is
    suppressed when its IoU with an already-kept higher-ranked moment is **greater
    than** ``threshold`` (2D-TAN's convention). ``threshold`` may be an array of
    shape (T,); the result then has shape (T, ..., N). The loop runs over the N
    ranks, each step vectorised over all lists and thresholds.

    >>> nms_keep([[0, 10], [1, 10], [20, 30]], 0.5).tolist()
    [True, False, True]
    """
    m = np.asarray(moments, dtype=float)
    thr = np.asarray(threshold, dtype=float)
    a, b = m[..., :, None, :], m[..., None, :, :]
    inter = np.minimum(a[..., 1], b[..., 1]) - np.maximum(a[..., 0], b[..., 0])
    union = np.maximum(a[..., 1], b[..., 1]) - np.minimum(a[..., 0], b[..., 0])
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.nan_to_num(np.where(union > 0, np.clip(inter, 0, None) / union, 0.0))  # (..., N, N)
    over = iou > thr.reshape(thr.shape + (1,) * iou.ndim)  # (T..., ..., N, N)
    valid = np.isfinite(m).all(axis=-1)
    keep = np.zeros(over.shape[:-1], dtype=bool)
    n = m.shape[-2]
    for i in range(n):
        suppressed = (keep[..., :i] & over[..., i, :i]).any(axis=-1)
        keep[..., i] = valid[..., i] & ~suppressed
    return keep


def compact(moments, keep) -> np.ndarray:
    """Move kept moments to the front (rank order preserved), NaN-pad the rest."""
    order = np.argsort(~keep, axis=-1, kind="stable")
    out = np.take_along_axis(np.where(keep[..., None], moments, np.nan), order[..., None], axis=-2)
    return out


def blind_prior(train_start, train_length, durations, k: int = 10, bandwidth: float = 0.05,
                nms_threshold: float = 0.5, step: float = 1 / 32) -> np.ndarray:
    """The same top-K prior moments for every query, scaled to each video: (n_queries, K, 2) seconds.

    Candidates on :func:`candidate_grid` are ranked by :func:`prior_density`; greedy
    NMS at ``nms_threshold`` (1 = none) removes near-duplicates before the top K are
    kept. Smaller bandwidths follow the most common training moment closely; larger
    ones drift toward long central moments.
    """
    cand = candidate_grid(step)
    density = prior_density(cand, train_start, train_length, bandwidth)
    ranked = cand[np.argsort(-density, kind="stable")]
    # NMS only needs enough top candidates to fill K slots; 50*K is ample on a 1/32 grid.
    head = ranked[: max(50 * k, k)]
    kept = compact(head, nms_keep(head, nms_threshold))[:k]
    d = np.asarray(durations, dtype=float)
    return kept[None, :, :] * d[:, None, None]


def random_moments(durations, k: int = 10, rng=0) -> np.ndarray:
    """K uniform random moments per query: two U(0, duration) points, sorted."""
    d = np.asarray(durations, dtype=float)
    u = np.sort(np.random.default_rng(rng).random((len(d), k, 2)), axis=-1)
    return u * d[:, None, None]


def sliding_windows(durations, k: int = 10, width: float = 0.3) -> np.ndarray:
    """K windows of normalised ``width``, starts evenly spaced from 0 to 1 − width.

    >>> sliding_windows([10.0], k=3, width=0.5)[0].tolist()
    [[0.0, 5.0], [2.5, 7.5], [5.0, 10.0]]
    """
    if not 0 < width <= 1:
        raise ValueError(f"width is a fraction of the video in (0, 1], got {width}")
    starts = np.linspace(0, 1 - width, k) if k > 1 else np.zeros(1)
    win = np.stack([starts, starts + width], axis=1)
    return win[None] * np.asarray(durations, dtype=float)[:, None, None]


def full_video(durations) -> np.ndarray:
    """The whole video as the only moment: (n_queries, 1, 2)."""
    d = np.asarray(durations, dtype=float)
    return np.stack([np.zeros_like(d), d], axis=1)[:, None, :]


def _pad(moments, k):
    out = np.full((len(moments), k, 2), np.nan)
    out[:, : moments.shape[1]] = moments[:, :k]
    return out


def activitynet_baselines(train_gt, train_durations, durations, k: int = 10, seed: int = 0) -> dict:
    """Five labelled baselines of graded, explainable quality: ``{name: (n_queries, k, 2)}``.

    Names say what each is: two blind priors (narrow and wide kernel, NMS 0.5), sliding
    windows of the training median width, the full video, and uniform random moments.
    """
    s, length = normalised_moments(train_gt, train_durations)
    median_width = float(np.clip(np.median(length), 0.05, 1.0))
    return {
        "blind prior (h=0.05)": blind_prior(s, length, durations, k, bandwidth=0.05),
        "blind prior (h=0.2)": blind_prior(s, length, durations, k, bandwidth=0.2),
        f"sliding windows (w={median_width:.2f})": sliding_windows(durations, k, median_width),
        "full video": _pad(full_video(durations), k),
        "uniform random": random_moments(durations, k, seed),
    }
