"""A family of moment-retrieval system variants built from real ranked lists.

The AxIoU paper selects among 640 trained 2D-TAN variants (learning rate, NMS
threshold, ...); those models and their predictions were never released. This
module builds a stand-in family from lists that do exist, by post-processing them:

* **temporal NMS** at several thresholds on lists produced without NMS
  (:func:`nms_variants`; a threshold of 1 leaves a list unchanged);
* **boundary rescaling**: every moment's width multiplied by a factor about its
  centre, then clipped to the video (:func:`rescale`; factor 1 is the identity and
  is not clipped, so it reproduces the original list exactly);
* **truncation depth**: only the top d moments are kept (:func:`truncate_iou`);
* **blind priors** with several kernel bandwidths and NMS thresholds, built from
  training-set statistics only (:func:`fireeval.vmr.baselines.blind_prior`).

:func:`family_scores` scores every variant on all 12 measures in one pass per
(rescaling factor, depth), vectorised over lists and queries, and returns per-query
scores so that splits and resamples never re-evaluate anything.

What this family is not: the variants differ in post-processing of a few fixed
models, not in training. Selection among them can show whether a measure picks a
post-processing whose advantage holds on the other half of the queries; it cannot show the effect of
training hyper-parameters or of models overfitting their validation data.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from fireeval.vmr.baselines import blind_prior, compact, nms_keep
from fireeval.core.moments import KS, THETAS, measure_names, score_all, temporal_iou
from fireeval.core.validation import (ARRAY, BOOL, COLLECTION, COUNTS, STR, Array, Instance, Int, Options, Real,
                                      validate_params)

__all__ = ["DEFAULT_NMS_THRESHOLDS", "nms_thresholds", "nms_variants", "rescale", "truncate_iou", "family_scores",
           "distinct_family_scores", "VARIANT_FAMILIES", "build_family"]

DEFAULT_NMS_THRESHOLDS = tuple(np.round(np.linspace(0.05, 1.0, 20), 2).tolist())


@validate_params(n=Int())
def nms_thresholds(n: int) -> tuple:
    """``n`` NMS thresholds evenly spaced from 0.05 to 1.0 (rounded to 3 decimals).

    Parameters
    ----------
    n : int
        How many thresholds; ``n <= 1`` gives ``(1.0,)`` (no NMS).

    Returns
    -------
    tuple of float
        The thresholds, increasing.

    Examples
    --------
    >>> nms_thresholds(3), nms_thresholds(1)
    ((0.05, 0.525, 1.0), (1.0,))
    """
    return tuple(np.round(np.linspace(0.05, 1.0, n), 3).tolist()) if n > 1 else (1.0,)


@validate_params(moments=ARRAY, thresholds=Array(0, 1))
def nms_variants(moments, thresholds=DEFAULT_NMS_THRESHOLDS) -> np.ndarray:
    """Temporal NMS of every list at every threshold.

    A moment is dropped when its IoU with a kept higher-ranked moment exceeds the
    threshold; survivors keep their rank order and move to the front.

    Parameters
    ----------
    moments : array_like (n_queries, N, 2)
        Ranked lists in seconds, NaN-padded.
    thresholds : sequence of float
        IoU thresholds (1.0 leaves a list unchanged).

    Returns
    -------
    numpy.ndarray (n_thresholds, n_queries, N, 2)
        The lists after NMS, NaN-padded.

    Raises
    ------
    ValueError
        When ``moments`` is not (n_queries, N, 2).

    Examples
    --------
    >>> m = np.array([[[0, 10], [1, 10], [20, 30]]], dtype=float)
    >>> nms_variants(m, [0.5, 1.0])[:, 0, :, 0].tolist()
    [[0.0, 20.0, nan], [0.0, 1.0, 20.0]]
    """
    m = np.asarray(moments, dtype=float)
    if m.ndim != 3 or m.shape[-1] != 2:
        raise ValueError(f"moments must have shape (n_queries, N, 2), got {m.shape}")
    keep = nms_keep(m, np.asarray(thresholds, dtype=float))  # (T, Q, N)
    return compact(np.broadcast_to(m, keep.shape + (2,)), keep)


@validate_params(moments=ARRAY, factor=Real(0, closed="neither"), durations=[ARRAY, None])
def rescale(moments, factor: float, durations=None) -> np.ndarray:
    r"""Multiply each moment's width by ``factor`` about its centre; clip to [0, duration].

    With centre :math:`c = (t_0 + t_1)/2`, the moment becomes
    :math:`[c + f(t_0 - c),\ c + f(t_1 - c)]`, clipped. Factor 1 returns the moments unchanged
    (no clipping), so the original list is one of the variants.

    Parameters
    ----------
    moments : array_like (..., n_queries, N, 2)
        Moments in seconds.
    factor : float
        Width factor :math:`f` (> 0).
    durations : array_like (n_queries,), optional
        Video durations to clip to; None clips at 0 only.

    Returns
    -------
    numpy.ndarray
        The rescaled moments, same shape.

    Raises
    ------
    ValueError
        When ``factor`` is not positive.

    Examples
    --------
    >>> rescale([[[2.0, 6.0]]], 1.5, [10.0]).tolist()
    [[[1.0, 7.0]]]
    """
    m = np.asarray(moments, dtype=float)
    if factor <= 0:
        raise ValueError(f"rescaling factor must be > 0, got {factor}")
    if factor == 1:
        return m
    centre = m.mean(axis=-1, keepdims=True)
    out = centre + (m - centre) * factor
    lo = 0.0
    hi = np.inf if durations is None else np.asarray(durations, dtype=float)[:, None, None]
    return np.clip(out, lo, hi)


@validate_params(iou=ARRAY, depth=Int(1))
def truncate_iou(iou, depth: int) -> np.ndarray:
    """IoU with every moment below rank ``depth`` removed (IoU 0, as a missing moment).

    Parameters
    ----------
    iou : array_like (..., N)
        Each ranked moment's IoU with the ground truth.
    depth : int
        How many top-ranked moments to keep.

    Returns
    -------
    numpy.ndarray (..., N)
        The IoU, 0 from rank ``depth`` on.

    Examples
    --------
    >>> truncate_iou([[0.2, 0.9, 0.4]], 2).tolist()
    [[0.2, 0.9, 0.0]]
    """
    iou = np.asarray(iou, dtype=float)
    return np.where(np.arange(iou.shape[-1]) < depth, iou, 0.0)


@validate_params(lists=Instance(Mapping), gt=ARRAY, durations=ARRAY, nms_bases=COLLECTION, nms_thresholds=Array(0, 1),
                 scales=Array(0, np.inf), depths=COUNTS, prior=[Instance(tuple, list), None],
                 bandwidths=Array(0, np.inf), prior_nms=Array(0, 1), k=Int(1), ks=COUNTS, thetas=Array(0, 1),
                 strict=BOOL)
def family_scores(lists: dict, gt, durations, nms_bases=(), nms_thresholds=DEFAULT_NMS_THRESHOLDS,
                  scales=(0.8, 0.9, 1.0, 1.1, 1.25), depths=(3, 5, 10), prior=None,
                  bandwidths=(0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3), prior_nms=(0.3, 0.5, 0.7),
                  k: int = 10, ks=KS, thetas=THETAS, strict: bool = False):
    """Per-query scores of every variant on every measure.

    Parameters
    ----------
    lists : dict of str to array_like (n_queries, N, 2)
        Real ranked lists (seconds, NaN-padded).
    gt : array_like (n_queries, 2)
        Ground truth in seconds.
    durations : array_like (n_queries,)
        Video lengths in seconds.
    nms_bases : sequence of str
        Names in ``lists`` that get NMS at every threshold (lists produced without NMS);
        the others are used as they are.
    nms_thresholds : sequence of float
        The NMS thresholds of :func:`nms_variants`.
    scales, depths : sequence of float, sequence of int
        Boundary rescaling factors and truncation depths applied to every list (real or NMS'd).
    prior : tuple of array_like, optional
        ``(train_start, train_length)`` normalised training moments, or None for no
        blind-prior variants; each (bandwidth, prior NMS) pair gives one variant,
        scored unscaled at full depth.
    bandwidths, prior_nms : sequence of float
        The blind priors' kernel bandwidths and NMS thresholds.
    k : int
        List depth (lists are cut or NaN-padded to ``k``).
    ks, thetas : sequence
        The measures' depths K and IoU thresholds θ.
    strict : bool
        Passed to :func:`fireeval.core.moments.score_all` (IoU > θ instead of ≥ θ).

    Returns
    -------
    table : pandas.DataFrame
        One row per variant (variant, base, nms, scale, depth, bandwidth).
    scores : numpy.ndarray of float32 (n_variants, n_measures, n_queries)
        Measures in :func:`fireeval.core.moments.measure_names` order.

    Raises
    ------
    KeyError
        When an NMS base is not among the lists.
    ValueError
        When a list is not aligned to the ground truth.

    Examples
    --------
    >>> lists = {"sys": [[[0.0, 5.0], [4.0, 9.0]], [[1.0, 3.0], [2.0, 8.0]]]}
    >>> table, scores = family_scores(lists, [[0.0, 5.0], [2.0, 8.0]], [10.0, 10.0],
    ...                               scales=(1.0,), depths=(1, 2), k=2, ks=(1,), thetas=(0.5,))
    >>> table["variant"].tolist(), scores.shape
    (['sys | scale=1 | depth=1', 'sys | scale=1 | depth=2'], (2, 2, 2))
    """
    gt = np.asarray(gt, dtype=float)
    durations = np.asarray(durations, dtype=float)
    missing = [b for b in nms_bases if b not in lists]
    if missing:
        raise KeyError(f"NMS bases {missing} are not among the lists {sorted(lists)}")
    names = measure_names(ks, thetas)
    stack, rows = [], []
    for name, m in lists.items():
        m = np.asarray(m, dtype=float)
        if m.shape[:1] != gt.shape[:1] or m.shape[-1] != 2:
            raise ValueError(f"list {name!r} has shape {m.shape}; expected ({len(gt)}, N, 2) aligned to the ground truth")
        m = _fit(m, k)
        if name in nms_bases:
            stack.append(nms_variants(m, nms_thresholds))
            rows += [(name, float(t)) for t in nms_thresholds]
        else:
            stack.append(m[None])
            rows.append((name, np.nan))
    base = np.concatenate(stack)  # (n_lists, Q, k, 2)
    table, blocks = [], []
    for f in scales:
        iou = temporal_iou(rescale(base, f, durations), gt)  # (n_lists, Q, k)
        for d in depths:
            sc = score_all(truncate_iou(iou, d), ks, thetas, strict)
            blocks.append(np.stack([sc[n] for n in names], axis=1).astype(np.float32))
            table += [dict(base=b, nms=t, scale=float(f), depth=int(d), bandwidth=np.nan) for b, t in rows]
    if prior is not None:
        start, length = prior
        pri = np.stack([blind_prior(start, length, durations, k, bandwidth=h, nms_threshold=t)
                        for h in bandwidths for t in prior_nms])
        sc = score_all(temporal_iou(pri, gt), ks, thetas, strict)
        blocks.append(np.stack([sc[n] for n in names], axis=1).astype(np.float32))
        table += [dict(base="blind prior", nms=float(t), scale=1.0, depth=k, bandwidth=float(h))
                  for h in bandwidths for t in prior_nms]
    table = pd.DataFrame(table)
    table.insert(0, "variant", [_label(r) for r in table.itertuples()])
    return table, np.concatenate(blocks)


def _fit(m, k):
    """Cut or NaN-pad a list to exactly k moments."""
    if m.shape[1] >= k:
        return m[:, :k]
    out = np.full((m.shape[0], k, 2), np.nan)
    out[:, : m.shape[1]] = m
    return out


def _label(r) -> str:
    parts = [r.base]
    if r.base == "blind prior":
        parts.append(f"h={r.bandwidth:g}")
    if np.isfinite(r.nms):
        parts.append(f"nms={r.nms:g}")
    parts += [f"scale={r.scale:g}", f"depth={r.depth}"]
    return " | ".join(parts)


@validate_params(lists=Instance(Mapping), gt=ARRAY, durations=ARRAY)
def distinct_family_scores(lists: dict, gt, durations, **kwargs):
    """:func:`family_scores` without duplicates: variants whose per-query scores equal an earlier one's are dropped.

    Post-processing often leaves a list unchanged (NMS that suppresses nothing, a depth
    beyond what NMS left); such variants are one system, not several
    (:func:`fireeval.vmr.selection.unique_variants`, first variant kept).

    Parameters
    ----------
    lists : dict of str to array_like (n_queries, N, 2)
        Real ranked lists (seconds, NaN-padded).
    gt : array_like (n_queries, 2)
        Ground truth in seconds.
    durations : array_like (n_queries,)
        Video lengths in seconds.
    **kwargs
        Passed to :func:`family_scores`.

    Returns
    -------
    table : pandas.DataFrame
        The distinct variants (re-indexed from 0).
    scores : numpy.ndarray (n_distinct, n_measures, n_queries)
        Their per-query scores.
    n_built : int
        How many variants were built before dropping duplicates.

    Examples
    --------
    >>> lists = {"sys": [[[0.0, 5.0]], [[1.0, 3.0]]]}
    >>> table, scores, n_built = distinct_family_scores(lists, [[0.0, 5.0], [2.0, 8.0]], [10.0, 10.0],
    ...                                                 scales=(1.0,), depths=(1, 2), k=1, ks=(1,), thetas=(0.5,))
    >>> len(table), n_built
    (1, 2)
    """
    from fireeval.vmr.selection import unique_variants

    table, scores = family_scores(lists, gt, durations, **kwargs)
    distinct = unique_variants(scores)
    return table.iloc[distinct].reset_index(drop=True), scores[distinct], len(table)


VARIANT_FAMILIES = {
    "full": "post-processings of every real list (NMS × rescaling × truncation) plus blind priors",
    "nondegenerate": "the same without truncated lists and blind priors (full depth, lists that look at the video)",
    "single_base": "one base system's hyper-parameters only: NMS threshold × boundary rescaling, full depth",
}


@validate_params(kind=Options(*VARIANT_FAMILIES), lists=Instance(Mapping), gt=ARRAY, durations=ARRAY,
                 nms_bases=COLLECTION, nms_thresholds=Array(0, 1), scales=Array(0, np.inf), depths=COUNTS,
                 prior=[Instance(tuple, list), None], bandwidths=Array(0, np.inf), prior_nms=Array(0, 1),
                 single_base=[STR, None], k=Int(1), strict=BOOL)
def build_family(kind: str, lists: dict, gt, durations, nms_bases=(), nms_thresholds=DEFAULT_NMS_THRESHOLDS,
                 scales=(0.8, 0.9, 1.0, 1.1, 1.25), depths=(3, 5, 10), prior=None,
                 bandwidths=(0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3), prior_nms=(0.3, 0.5, 0.7),
                 single_base: str | None = None, k: int = 10, strict: bool = False):
    """One of the stand-in variant families of :data:`VARIANT_FAMILIES`, without duplicate variants.

    ``full`` is :func:`distinct_family_scores` with every argument; ``nondegenerate``
    drops truncation (depth ``k`` only) and the blind priors; ``single_base`` keeps only
    ``single_base`` (default: the first of ``nms_bases``), re-NMSed at every threshold
    and rescaled, at depth ``k`` -- the nearest thing to the paper's hyper-parameter
    grid of one model that released lists allow.

    Parameters
    ----------
    kind : {"full", "nondegenerate", "single_base"}
        The family.
    lists, gt, durations, nms_bases, nms_thresholds, scales, depths, prior, bandwidths, prior_nms, k, strict
        As in :func:`family_scores`.
    single_base : str, optional
        The base list of the ``single_base`` family.

    Returns
    -------
    table : pandas.DataFrame
        The distinct variants.
    scores : numpy.ndarray (n_distinct, n_measures, n_queries)
        Their per-query scores on the 12 measures.
    n_built : int
        Variants built before dropping duplicates.

    Raises
    ------
    ValueError
        For an unknown ``kind``.
    KeyError
        When ``single_base`` is not among the lists.

    Examples
    --------
    >>> lists = {"a": [[[0.0, 5.0], [4.0, 9.0]], [[1.0, 3.0], [2.0, 8.0]]]}
    >>> table, scores, n_built = build_family("single_base", lists, [[0.0, 5.0], [2.0, 8.0]], [10.0, 10.0],
    ...                                       nms_thresholds=(0.5, 1.0), scales=(1.0,), k=2)
    >>> table["variant"].tolist(), scores.shape[1:], n_built
    (['a | nms=0.5 | scale=1 | depth=2'], (12, 2), 2)
    """
    if kind not in VARIANT_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(VARIANT_FAMILIES)}, got {kind!r}")
    common = dict(nms_thresholds=nms_thresholds, scales=scales, k=k, strict=strict)
    if kind == "full":
        return distinct_family_scores(lists, gt, durations, nms_bases=nms_bases, depths=depths, prior=prior,
                                      bandwidths=bandwidths, prior_nms=prior_nms, **common)
    if kind == "nondegenerate":
        return distinct_family_scores(lists, gt, durations, nms_bases=nms_bases, depths=(k,), prior=None, **common)
    base = single_base or (list(nms_bases) or list(lists))[0]
    if base not in lists:
        raise KeyError(f"single_base {base!r} is not among the lists {sorted(lists)}")
    return distinct_family_scores({base: lists[base]}, gt, durations, nms_bases=[base], depths=(k,), prior=None,
                                  **common)
