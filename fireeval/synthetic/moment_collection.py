"""Seeded synthetic moment-retrieval data: videos, ground-truth moments, systems of graded quality.

The stand-in mimics Charades-STA's shape: videos of about 30 s, one annotated moment
per query covering about a quarter of the video, and systems that return 10 ranked
moments. A system of quality ``q`` places each candidate near the true moment with
probability ``q`` (boundary noise shrinking with ``q``) and elsewhere at random, then
ranks candidates by a noisy estimate of their IoU, so better systems are better on
every measure in expectation, while per-query scores still vary and tie. Half of the
systems snap their boundaries to a 16-clip grid, as proposal-based systems such as
2D-TAN do, which makes exact ties between systems as common as in the real data.

>>> gt, lengths, preds = simulate_moments(5, 3, seed=0)
>>> gt.shape, lengths.shape, sorted(preds)[0], preds["system_1"].shape
((5, 2), (5,), 'system_1', (5, 10, 2))
"""
from __future__ import annotations

import numpy as np

from fireeval.core.validation import SEED, Int, Real, validate_params

__all__ = ["activitynet_label_noise_inputs", "simulate_moments", "system_qualities"]


@validate_params(n_systems=Int(1))
def system_qualities(n_systems: int) -> np.ndarray:
    """Quality of each simulated system, best first: evenly spaced in [0.15, 0.7].

    Parameters
    ----------
    n_systems : int
        How many systems.

    Returns
    -------
    ndarray (n_systems,)

    Examples
    --------
    >>> system_qualities(3).tolist(), system_qualities(1).tolist()
    ([0.7, 0.425, 0.15], [0.5])
    """
    return np.linspace(0.7, 0.15, n_systems) if n_systems > 1 else np.array([0.5])


@validate_params(n_queries=Int(1), n_systems=Int(1), seed=SEED, k=Int(1), mean_length=Real(0, None, closed="neither"))
def simulate_moments(n_queries: int = 3720, n_systems: int = 6, seed=0, k: int = 10,
                     mean_length: float = 30.0):
    """Simulate ground truth and ``n_systems`` ranked top-``k`` prediction lists.

    Returns ``(gt, lengths, predictions)``: ``gt`` (n_queries, 2) [start, end] seconds,
    ``lengths`` (n_queries,) video lengths in seconds, and ``predictions``
    ``{"system_1": (n_queries, k, 2), ...}`` with ``system_1`` the best
    (:func:`system_qualities`). All moments lie inside the video.

    Parameters
    ----------
    n_queries, n_systems, k : int
        Queries, systems and predictions per query.
    seed : int or numpy.random.Generator
        Seed.
    mean_length : float
        Mean video length in seconds.

    Returns
    -------
    (ndarray, ndarray, dict)
        ``gt``, ``lengths``, ``predictions`` as above.

    Examples
    --------
    >>> gt, lengths, predictions = simulate_moments(5, 2, seed=0, k=3)
    >>> gt.shape, {name: p.shape for name, p in predictions.items()}, bool((gt[:, 1] <= lengths).all())
    ((5, 2), {'system_1': (5, 3, 2), 'system_2': (5, 3, 2)}, True)
    """
    rng = np.random.default_rng(seed)
    lengths = np.round(rng.uniform(0.5, 1.5, n_queries) * mean_length, 2)
    frac = np.clip(rng.beta(2.5, 6.0, n_queries), 0.05, 0.9)  # moment covers ~ 30 % of the video
    dur = frac * lengths
    start = rng.uniform(0, 1, n_queries) * (lengths - dur)
    gt = np.round(np.stack([start, start + dur], axis=1), 1)
    gt[:, 1] = np.minimum(gt[:, 1], lengths)  # rounding must not push the end past the video
    predictions = {}
    for s, q in enumerate(system_qualities(n_systems), 1):
        near = rng.random((n_queries, k)) < 0.7 * q
        noise = (1.5 - q) * 0.8 * dur[:, None, None] * rng.normal(size=(n_queries, k, 2))
        around = gt[:, None, :] + noise
        a = rng.uniform(0, 1, (n_queries, k, 2)) * lengths[:, None, None]
        random = np.sort(a, axis=-1)
        cand = np.where(near[..., None], around, random)
        cand = np.clip(np.sort(cand, axis=-1), 0, lengths[:, None, None])
        if s % 2 == 0:  # grid-snapped system, as proposal-based models are
            step = lengths[:, None, None] / 16
            cand = np.round(cand / step) * step
        # Make every moment have positive length.
        cand[..., 1] = np.maximum(cand[..., 1], np.minimum(cand[..., 0] + 0.1, lengths[:, None]))
        cand[..., 0] = np.minimum(cand[..., 0], cand[..., 1] - 0.05)
        inter = np.clip(np.minimum(cand[..., 1], gt[:, None, 1]) - np.maximum(cand[..., 0], gt[:, None, 0]), 0, None)
        union = np.maximum(cand[..., 1], gt[:, None, 1]) - np.minimum(cand[..., 0], gt[:, None, 0])
        est = inter / union + (1.2 - q) * 0.6 * rng.normal(size=(n_queries, k))
        order = np.argsort(-est, axis=1)
        predictions[f"system_{s}"] = np.take_along_axis(cand, order[..., None], axis=1)
    return gt, lengths, predictions


@validate_params(n_queries=Int(1), seed=Int(0), n_rated=Int(0))
def activitynet_label_noise_inputs(n_queries: int = 3000, seed: int = 0, n_rated: int = 500) -> dict:
    """A labelled synthetic stand-in with the same keys as :func:`fireeval.datasets.activitynet.label_noise_inputs`.

    ``n_queries`` simulated moments in ActivityNet-length videos (mean 120 s,
    ``seed + 7``), 5000 training moments (``seed + 8``), and 5 raters on the first
    ``n_rated`` queries drawn from the noise model at σ = 6 s plus a shared 3 s shift
    (``seed + 9``), so that raters disagree with the original more than with each other.

    Parameters
    ----------
    n_queries : int
        Simulated test queries.
    seed : int
        Base seed.
    n_rated : int
        Queries with five raters.

    Returns
    -------
    dict
        ``gt``, ``durations``, ``train_gt``, ``train_durations``, ``rater_queries``, ``raters``, ``note``.

    >>> d = activitynet_label_noise_inputs(20, n_rated=5)
    >>> d["gt"].shape, d["raters"].shape, d["note"].startswith("SYNTHETIC")
    ((20, 2), (5, 5, 2), True)
    """
    from fireeval.vmr.noise import simulate_raters

    gt, lengths, _ = simulate_moments(n_queries, 1, seed=seed + 7, mean_length=120.0)
    train_gt, train_lengths, _ = simulate_moments(5000, 1, seed=seed + 8, mean_length=120.0)
    raters = simulate_raters(gt[:n_rated], 6.0, 1, 5, rng=seed + 9)[0] + 3.0
    return {"gt": gt, "durations": lengths, "train_gt": train_gt, "train_durations": train_lengths,
            "rater_queries": np.arange(n_rated), "raters": raters, "note": "SYNTHETIC stand-in for ActivityNet Captions"}
