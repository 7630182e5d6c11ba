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

from fireeval.core.validation import ARRAY, SEED, Array, Int, Real, validate_params

__all__ = ["normalised_moments", "candidate_grid", "prior_density", "blind_prior", "random_moments",
           "sliding_windows", "full_video", "nms_keep", "compact", "activitynet_baselines"]


@validate_params(gt=ARRAY, durations=ARRAY)
def normalised_moments(gt, durations) -> tuple[np.ndarray, np.ndarray]:
    r"""Training moments as (normalised start, normalised length), clipped to [0, 1].

    End times past the video's duration (they occur in both Charades-STA and
    ActivityNet) are clipped to the duration first.

    Parameters
    ----------
    gt : array_like (n, 2)
        Ground-truth moments [start, end] in seconds.
    durations : array_like (n,)
        Each moment's video duration in seconds (> 0).

    Returns
    -------
    start, length : numpy.ndarray (n,)
        :math:`s = \min(1, t_0/d)` and :math:`\ell = \min(1, t_1/d) - s`, both in [0, 1].

    Raises
    ------
    ValueError
        When the shapes disagree or a duration is not positive.

    Examples
    --------
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


@validate_params(step=Real(0, 1, closed="right"))
def candidate_grid(step: float = 1 / 32) -> np.ndarray:
    r"""All normalised moments [i·step, j·step] with i < j on a regular grid.

    Parameters
    ----------
    step : float
        Grid spacing, a fraction of the video (1/step grid cells).

    Returns
    -------
    numpy.ndarray (n, 2)
        The candidates [start, end], :math:`n = m(m+1)/2` with :math:`m = 1/\text{step}`.

    Examples
    --------
    >>> candidate_grid(0.5).tolist()
    [[0.0, 0.5], [0.0, 1.0], [0.5, 1.0]]
    """
    n = int(round(1 / step))
    i, j = np.triu_indices(n + 1, k=1)
    return np.stack([i * step, j * step], axis=1)


@validate_params(candidates=ARRAY, train_start=ARRAY, train_length=ARRAY, bandwidth=Real(0, closed="neither"))
def prior_density(candidates, train_start, train_length, bandwidth: float) -> np.ndarray:
    r"""Gaussian-kernel density of the training (start, length) at each candidate (up to a constant).

    .. math:: \hat f(s, \ell) \propto \sum_i \exp\left(-\frac{(s - s_i)^2 + (\ell - \ell_i)^2}{2h^2}\right)

    Parameters
    ----------
    candidates : array_like (n, 2)
        Normalised candidate moments [start, end] (e.g. :func:`candidate_grid`).
    train_start, train_length : array_like (n_train,)
        The training moments' normalised starts :math:`s_i` and lengths :math:`\ell_i`.
    bandwidth : float
        The kernel's bandwidth :math:`h` (> 0), a fraction of the video.

    Returns
    -------
    numpy.ndarray (n,)
        The unnormalised density at each candidate.

    Raises
    ------
    ValueError
        When ``bandwidth`` is not positive.

    Examples
    --------
    >>> prior_density([[0.0, 0.5], [0.5, 1.0]], [0.0], [0.5], bandwidth=0.5).round(4).tolist()
    [1.0, 0.6065]
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


@validate_params(moments=ARRAY, threshold=Array(0, 1))
def nms_keep(moments, threshold) -> np.ndarray:
    """Greedy temporal NMS in rank order: which moments survive.

    A moment is suppressed when its IoU with an already-kept higher-ranked moment is
    **greater than** ``threshold`` (2D-TAN's convention). The loop runs over the N ranks,
    each step vectorised over all lists and thresholds.

    Parameters
    ----------
    moments : array_like (..., N, 2)
        Moments in rank order; NaN rows are never kept.
    threshold : float or array_like (T,)
        IoU threshold(s); 1 keeps every valid moment.

    Returns
    -------
    numpy.ndarray of bool (..., N), or (T, ..., N) for an array of thresholds
        True where the moment survives.

    Examples
    --------
    >>> nms_keep([[0, 10], [1, 10], [20, 30]], 0.5).tolist()
    [True, False, True]
    >>> nms_keep([[0, 10], [1, 10]], [0.5, 1.0]).tolist()
    [[True, False], [True, True]]
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


@validate_params(moments=ARRAY, keep=ARRAY)
def compact(moments, keep) -> np.ndarray:
    """Move kept moments to the front (rank order preserved), NaN-pad the rest.

    Parameters
    ----------
    moments : array_like (..., N, 2)
        Moments in rank order.
    keep : numpy.ndarray of bool (..., N)
        Which moments to keep (e.g. from :func:`nms_keep`).

    Returns
    -------
    numpy.ndarray (..., N, 2)
        The kept moments first, then NaN rows.

    Examples
    --------
    >>> m = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    >>> compact(m, np.array([True, False, True])).tolist()
    [[0.0, 1.0], [4.0, 5.0], [nan, nan]]
    """
    order = np.argsort(~keep, axis=-1, kind="stable")
    out = np.take_along_axis(np.where(keep[..., None], moments, np.nan), order[..., None], axis=-2)
    return out


@validate_params(train_start=ARRAY, train_length=ARRAY, durations=ARRAY, k=Int(1),
                 bandwidth=Real(0, closed="neither"), nms_threshold=Real(0, 1), step=Real(0, 1, closed="right"))
def blind_prior(train_start, train_length, durations, k: int = 10, bandwidth: float = 0.05,
                nms_threshold: float = 0.5, step: float = 1 / 32) -> np.ndarray:
    """The same top-K prior moments for every query, scaled to each video.

    Candidates on :func:`candidate_grid` are ranked by :func:`prior_density`; greedy
    NMS at ``nms_threshold`` (1 = none) removes near-duplicates before the top K are
    kept. Smaller bandwidths follow the most common training moment closely; larger
    ones drift toward long central moments.

    Parameters
    ----------
    train_start, train_length : array_like (n_train,)
        Normalised training starts and lengths (:func:`normalised_moments`).
    durations : array_like (n_queries,)
        The test queries' video durations in seconds.
    k : int
        Moments per list.
    bandwidth : float
        Kernel bandwidth of :func:`prior_density`.
    nms_threshold : float
        IoU threshold of :func:`nms_keep`.
    step : float
        Grid spacing of :func:`candidate_grid`.

    Returns
    -------
    numpy.ndarray (n_queries, K, 2)
        Moments in seconds (NaN-padded when NMS leaves fewer than K).

    Examples
    --------
    >>> blind_prior([0.25], [0.5], [10.0, 20.0], k=2, step=0.25).tolist()
    [[[2.5, 7.5], [0.0, 5.0]], [[5.0, 15.0], [0.0, 10.0]]]
    """
    cand = candidate_grid(step)
    density = prior_density(cand, train_start, train_length, bandwidth)
    ranked = cand[np.argsort(-density, kind="stable")]
    # NMS only needs enough top candidates to fill K slots; 50*K is ample on a 1/32 grid.
    head = ranked[: max(50 * k, k)]
    kept = compact(head, nms_keep(head, nms_threshold))[:k]
    d = np.asarray(durations, dtype=float)
    return kept[None, :, :] * d[:, None, None]


@validate_params(durations=ARRAY, k=Int(1), rng=SEED)
def random_moments(durations, k: int = 10, rng=0) -> np.ndarray:
    """K uniform random moments per query: two U(0, duration) points, sorted.

    Parameters
    ----------
    durations : array_like (n_queries,)
        Video durations in seconds.
    k : int
        Moments per query.
    rng : int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    numpy.ndarray (n_queries, k, 2)
        Moments [start, end] in seconds, start ≤ end.

    Examples
    --------
    >>> m = random_moments([10.0, 20.0], k=3, rng=0)
    >>> m.shape, bool((m[..., 0] <= m[..., 1]).all()), bool((m[1] <= 20).all())
    ((2, 3, 2), True, True)
    """
    d = np.asarray(durations, dtype=float)
    u = np.sort(np.random.default_rng(rng).random((len(d), k, 2)), axis=-1)
    return u * d[:, None, None]


@validate_params(durations=ARRAY, k=Int(1), width=Real(0, 1, closed="right"))
def sliding_windows(durations, k: int = 10, width: float = 0.3) -> np.ndarray:
    """K windows of normalised ``width``, starts evenly spaced from 0 to 1 − width.

    Parameters
    ----------
    durations : array_like (n_queries,)
        Video durations in seconds.
    k : int
        Windows per query.
    width : float
        Window width, a fraction of the video in (0, 1].

    Returns
    -------
    numpy.ndarray (n_queries, k, 2)
        The windows in seconds.

    Raises
    ------
    ValueError
        When ``width`` is outside (0, 1].

    Examples
    --------
    >>> sliding_windows([10.0], k=3, width=0.5)[0].tolist()
    [[0.0, 5.0], [2.5, 7.5], [5.0, 10.0]]
    """
    if not 0 < width <= 1:
        raise ValueError(f"width is a fraction of the video in (0, 1], got {width}")
    starts = np.linspace(0, 1 - width, k) if k > 1 else np.zeros(1)
    win = np.stack([starts, starts + width], axis=1)
    return win[None] * np.asarray(durations, dtype=float)[:, None, None]


@validate_params(durations=ARRAY)
def full_video(durations) -> np.ndarray:
    """The whole video as the only moment.

    Parameters
    ----------
    durations : array_like (n_queries,)
        Video durations in seconds.

    Returns
    -------
    numpy.ndarray (n_queries, 1, 2)
        [0, duration] per query.

    Examples
    --------
    >>> full_video([10.0, 4.0]).tolist()
    [[[0.0, 10.0]], [[0.0, 4.0]]]
    """
    d = np.asarray(durations, dtype=float)
    return np.stack([np.zeros_like(d), d], axis=1)[:, None, :]


def _pad(moments, k):
    out = np.full((len(moments), k, 2), np.nan)
    out[:, : moments.shape[1]] = moments[:, :k]
    return out


@validate_params(train_gt=ARRAY, train_durations=ARRAY, durations=ARRAY, k=Int(1), seed=SEED)
def activitynet_baselines(train_gt, train_durations, durations, k: int = 10, seed: int = 0) -> dict:
    """Five labelled baselines of graded, explainable quality.

    Names say what each is: two blind priors (narrow and wide kernel, NMS 0.5), sliding
    windows of the training median width, the full video, and uniform random moments.

    Parameters
    ----------
    train_gt : array_like (n_train, 2)
        Training moments in seconds.
    train_durations : array_like (n_train,)
        Their video durations.
    durations : array_like (n_queries,)
        The test queries' video durations.
    k : int
        Moments per list.
    seed : int
        Seed of the uniform random moments.

    Returns
    -------
    dict of str to numpy.ndarray (n_queries, k, 2)
        ``{name: moments in seconds}``, NaN-padded.

    Examples
    --------
    >>> b = activitynet_baselines([[0, 5], [2, 8]], [10, 10], [20.0], k=3)
    >>> list(b), b["full video"].shape
    (['blind prior (h=0.05)', 'blind prior (h=0.2)', 'sliding windows (w=0.55)', 'full video', 'uniform random'], (1, 3, 2))
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
