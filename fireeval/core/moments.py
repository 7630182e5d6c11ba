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
per-query score arrays of shape (measures, systems, queries): summaries of the
subset-stability experiment (computed by :func:`fireeval.stats.reliability.subset_stability`;
:func:`stability_frame`, :func:`stability_findings`, :func:`expected_swaps`), the
all-tied ratio (:func:`all_tied_ratio`) and the noise bias/variance of App. C
(:func:`noisy_iou_bias_variance`, :func:`simulate_noisy_iou`, :func:`noisy_iou_table`).
"""
from __future__ import annotations

import re

import numpy as np

from fireeval.core.validation import ANY, ARRAY, BOOL, Instance, Int, Real, SEED, STR, validate_params

__all__ = ["check_moments", "temporal_iou", "max_temporal_iou", "recall_at_k_iou", "axiou_at_k", "ap_at_k_iou", "dcg_at_k_iou",
           "MEASURES", "measure_names", "measure_function", "score_all", "score_systems", "mean_table",
           "all_tied_ratio", "noisy_iou_bias_variance",
           "simulate_noisy_iou", "noisy_iou_table", "expected_swaps", "stability_frame", "stability_findings"]


@validate_params(moments=ANY, source=STR)
def check_moments(moments, source: str = "moments") -> np.ndarray:
    """``moments`` as a float array (..., 2) of [start, end] seconds, or a ValueError naming ``source``.

    Refuses NaN or infinite bounds and reversed moments (start > end); zero-length
    moments are allowed (their IoU is defined). Use it on data read from a user's file:
    NaN is this module's padding for "no moment", so a NaN in a file would be scored
    as a missing moment instead of being reported.

    Parameters
    ----------
    moments : array_like (..., 2)
        [start, end] seconds.
    source : str
        Where they come from, for the error message.

    Returns
    -------
    numpy.ndarray of float (..., 2)
        The moments.

    Examples
    --------
    >>> check_moments([[0, 1.5], [2, 2]]).tolist()
    [[0.0, 1.5], [2.0, 2.0]]
    >>> check_moments([[3, 1]], "p.json entry 4")
    Traceback (most recent call last):
    ...
    ValueError: p.json entry 4: moment 1 is [3.0, 1.0], start after end. Fix: give each moment as [start, end] seconds with start <= end.
    """
    from fireeval.core.ranking import real_numbers

    # A numeric array is never ragged: its text (array2string, slow) is made only for other input.
    numeric = isinstance(moments, np.ndarray) and moments.dtype != object
    arr = real_numbers(moments, f"{source}: a time",  # booleans and text such as "4" are refused, not read
                       ragged=None if numeric else f"{source}: moments are not [[start, end], ...] numbers: "
                                                   f"{str(moments)[:80]}. Fix: give each moment as [start, end] seconds")
    if arr.ndim < 1 or arr.shape[-1] != 2:
        raise ValueError(f"{source}: moments must be [[start, end], ...], got shape {arr.shape}. "
                         "Fix: give each moment as two numbers, [start, end] seconds")
    flat = arr.reshape(-1, 2)
    bad = ~np.isfinite(flat).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{source}: moment {i + 1} is {flat[i].tolist()}, not finite. "
                         "Fix: give each moment as [start, end] seconds, finite numbers.")
    negative = flat[:, 0] < 0
    if negative.any():
        i = int(np.argmax(negative))
        raise ValueError(f"{source}: moment {i + 1} is {flat[i].tolist()}, a negative time. "
                         "Fix: give each moment as [start, end] seconds from the video's start (>= 0).")
    rev = flat[:, 0] > flat[:, 1]
    if rev.any():
        i = int(np.argmax(rev))
        raise ValueError(f"{source}: moment {i + 1} is {flat[i].tolist()}, start after end. "
                         "Fix: give each moment as [start, end] seconds with start <= end.")
    return arr


@validate_params(pred=ARRAY, gt=ARRAY)
def temporal_iou(pred, gt) -> np.ndarray:
    """Temporal IoU between each predicted moment and its query's ground truth.

    .. math:: \\mathrm{IoU}([a,b],[c,d]) = \\frac{\\max(0, \\min(b,d) - \\max(a,c))}{\\max(b,d) - \\min(a,c)}

    ``pred``: (..., K, 2); ``gt``: (..., 2). Returns (..., K); NaN moments give 0.

    Parameters
    ----------
    pred : array_like (..., K, 2)
        Predicted [start, end] moments (NaN: none).
    gt : array_like (..., 2)
        The query's ground-truth moment.

    Returns
    -------
    numpy.ndarray (..., K)
        The IoU of each prediction.

    Examples
    --------
    >>> temporal_iou([[[0, 2], [1, 3], [5, 6]]], [[0, 2]])
    array([[1.        , 0.33333333, 0.        ]])
    """
    pred = np.asarray(pred, dtype=float)
    gt = np.asarray(gt, dtype=float)[..., None, :]
    inter = np.minimum(pred[..., 1], gt[..., 1])
    inter -= np.maximum(pred[..., 0], gt[..., 0])
    np.maximum(inter, 0.0, out=inter)  # NaN stays NaN; the where= below maps it to 0
    union = np.maximum(pred[..., 1], gt[..., 1])
    union -= np.minimum(pred[..., 0], gt[..., 0])
    # A NaN (missing) moment has a NaN union, so `union > 0` is False and its IoU stays 0.
    with np.errstate(invalid="ignore"):
        return np.divide(inter, union, out=np.zeros(inter.shape), where=union > 0)


@validate_params(pred=ARRAY, gt_windows=ARRAY)
def max_temporal_iou(pred, gt_windows) -> np.ndarray:
    """IoU of each predicted moment with the best-matching of several ground-truth windows.

    .. math:: \\mathrm{IoU}_i = \\max_{g} \\mathrm{IoU}(\\hat m_i, m_g)

    ``pred``: (Q, K, 2); ``gt_windows``: (Q, G, 2), NaN rows padding queries with fewer
    than G windows. Returns (Q, K). With G = 1 this equals :func:`temporal_iou`.

    Parameters
    ----------
    pred : array_like (Q, K, 2)
        Predicted moments.
    gt_windows : array_like (Q, G, 2)
        Ground-truth windows, NaN rows as padding.

    Returns
    -------
    numpy.ndarray (Q, K)
        The best IoU of each prediction.

    Examples
    --------
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


@validate_params(iou=ARRAY, k=Int(1), theta=Real(0, 1, closed='right'), strict=BOOL)
def recall_at_k_iou(iou, k: int, theta: float, strict: bool = False) -> np.ndarray:
    """R@K,θ per query: 1 if any of the top K moments has IoU >= θ (> θ with ``strict``).

    .. math:: R@K,\\theta = \\mathbb{1}\\left[\\max_{i \\le K} \\mathrm{IoU}_i \\ge \\theta\\right]

    Parameters
    ----------
    iou : array_like (..., K)
        IoU of each ranked moment with the ground truth (0 for a missing moment).
    k : int
        The cut-off K.
    theta : float
        The IoU threshold θ.
    strict : bool
        IoU > θ instead of >= θ.

    Returns
    -------
    numpy.ndarray (...)
        One value per query.

    Examples
    --------
    >>> recall_at_k_iou([[0.2, 0.5], [0.7, 0.1]], k=1, theta=0.5)
    array([0., 1.])
    """
    top = np.asarray(iou, dtype=float)[..., :_check_k(k)]
    theta = _check_theta(theta)  # θ = -1 would count every moment a hit
    hit = top > theta if strict else top >= theta
    return hit.any(axis=-1).astype(float)


@validate_params(iou=ARRAY, k=Int(1), lower_bound=Real(0, 1, closed='left'))
def axiou_at_k(iou, k: int, lower_bound: float = 0.0) -> np.ndarray:
    """AxIoU@K per query: the mean over k = 1..K of the best IoU within the top k.

    .. math:: \\mathrm{AxIoU@K} = \\frac{1}{K} \\sum_{k=1}^{K} \\max_{i \\le k} \\mathrm{rel}(\\mathrm{IoU}_i),
       \\quad \\mathrm{rel}(x) = \\max(x - lb, 0) / (1 - lb)

    ``lower_bound`` (lb) is the reference code's option; 0 is the paper's measure.
    Lists shorter than K still divide by K (missing moments have IoU 0).

    Parameters
    ----------
    iou : array_like (..., K)
        IoU of each ranked moment with the ground truth (0 for a missing moment).
    k : int
        The cut-off K.
    lower_bound : float
        lb above (0: the paper's measure).

    Returns
    -------
    numpy.ndarray (...)
        One value per query.

    Examples
    --------
    >>> axiou_at_k([[0.2, 0.5, 0.1]], k=3)   # (0.2 + 0.5 + 0.5) / 3
    array([0.4])
    """
    top = np.asarray(iou, dtype=float)[..., :_check_k(k)]
    if not 0 <= lower_bound < 1:  # 1 divides by zero (NaN), NaN poisons everything
        raise ValueError(f"lower_bound must be in [0, 1), got {lower_bound!r}. Fix: use 0 (the paper's AxIoU)")
    rel = np.clip(top - lower_bound, 0, None) / (1 - lower_bound)
    best = np.maximum.accumulate(rel, axis=-1)
    # A list narrower than K keeps its best IoU for the missing ranks (as with NaN padding).
    if best.shape[-1] == 0:
        return np.zeros(best.shape[:-1])
    tail = (k - best.shape[-1]) * best[..., -1]
    # cumsum (sequential), not sum (pairwise): the same additions as score_all, so equal bit for bit.
    return (np.cumsum(best, axis=-1)[..., -1] + tail) / k


@validate_params(iou=ARRAY, k=Int(1), theta=Real(0, 1, closed='right'))
def ap_at_k_iou(iou, k: int, theta: float) -> np.ndarray:
    """AP@K,θ: average precision of the top K with "relevant" = IoU >= θ, normalised by the hits.

    One ground-truth moment can be matched by several predictions, so the usual
    normaliser is the number of hits in the top K (0 when none). Used only to show
    that AP violates INV-k.

    Parameters
    ----------
    iou : array_like (..., K)
        IoU of each ranked moment with the ground truth (0 for a missing moment).
    k : int
        The cut-off K.
    theta : float
        The IoU threshold θ.

    Returns
    -------
    numpy.ndarray (...)
        One value per query.

    Examples
    --------
    >>> ap_at_k_iou([[0.6, 0.1, 0.7]], k=3, theta=0.5)   # hits at ranks 1 and 3: (1 + 2/3) / 2
    array([0.83333333])
    """
    hits = (np.asarray(iou, dtype=float)[..., :_check_k(k)] >= _check_theta(theta)).astype(float)
    prec = np.cumsum(hits, axis=-1) / np.arange(1, hits.shape[-1] + 1)
    n = hits.sum(axis=-1)
    return np.divide((prec * hits).sum(axis=-1), n, out=np.zeros_like(n), where=n > 0)


@validate_params(iou=ARRAY, k=Int(1))
def dcg_at_k_iou(iou, k: int) -> np.ndarray:
    """DCG@K with the IoU itself as the gain: sum_i IoU_i / log2(i + 1). Violates INV-k.

    Parameters
    ----------
    iou : array_like (..., K)
        IoU of each ranked moment with the ground truth (0 for a missing moment).
    k : int
        The cut-off K.

    Returns
    -------
    numpy.ndarray (...)
        One value per query.

    Examples
    --------
    >>> dcg_at_k_iou([[1.0, 0.0, 0.5]], k=3)   # 1/log2(2) + 0.5/log2(4)
    array([1.25])
    """
    top = np.asarray(iou, dtype=float)[..., :_check_k(k)]
    return (top / np.log2(np.arange(2, top.shape[-1] + 2))).sum(axis=-1)


KS = (1, 5, 10)
THETAS = (0.3, 0.5, 0.7)


@validate_params(ks=ARRAY, thetas=ARRAY)
def measure_names(ks=KS, thetas=THETAS) -> list[str]:
    """The paper's 12 measures in a fixed order: R@K,θ for every K and θ, then AxIoU@K.

    Parameters
    ----------
    ks : sequence of int
        The cut-offs K.
    thetas : sequence of float
        The IoU thresholds θ.

    Returns
    -------
    list of str
        ``R@K,θ`` for every K and θ, then ``AxIoU@K`` for every K.

    Examples
    --------
    >>> measure_names(ks=(1, 5), thetas=(0.5,))
    ['R@1,0.5', 'R@5,0.5', 'AxIoU@1', 'AxIoU@5']
    """
    return [f"R@{k},{t}" for k in ks for t in thetas] + [f"AxIoU@{k}" for k in ks]


MEASURES = measure_names()


@validate_params(iou=ARRAY, ks=ARRAY, thetas=ARRAY, strict=BOOL)
def score_all(iou, ks=KS, thetas=THETAS, strict: bool = False) -> dict:
    """Per-query scores of every measure: ``{name: array (..., n_queries)}`` from one IoU matrix.

    One running maximum over ranks serves every measure: R@K,θ tests the running
    maximum at rank K, AxIoU@K is the cumulative sum of the running maximum at rank K
    over K. Lists narrower than K keep their best IoU for the missing ranks, as
    :func:`recall_at_k_iou` and :func:`axiou_at_k` do.

    Parameters
    ----------
    iou : array_like (..., K)
        IoU of each ranked moment with the ground truth (0 for a missing moment).
    ks : sequence of int
        The cut-offs K.
    thetas : sequence of float
        The IoU thresholds θ.
    strict : bool
        IoU > θ instead of >= θ.

    Returns
    -------
    dict
        ``{name: array (..., n_queries)}`` for every R@K,θ and AxIoU@K.

    Examples
    --------
    >>> s = score_all([[0.2, 0.5, 0.1]], ks=(1, 3), thetas=(0.5,))
    >>> s["R@1,0.5"], s["R@3,0.5"], s["AxIoU@3"]
    (array([0.]), array([1.]), array([0.4]))
    """
    iou = np.asarray(iou, dtype=float)
    ks = [_check_k(k) for k in ks]
    for t in thetas:
        _check_theta(t)
    width = iou.shape[-1]
    kmax = min(max(ks), width) if ks else 0
    best = np.maximum.accumulate(iou[..., :kmax], axis=-1) if kmax else np.zeros(iou.shape[:-1] + (1,))
    total = np.cumsum(best, axis=-1)
    out = {}
    for k in ks:
        j = min(k, width) - 1
        at_k = best[..., j] if j >= 0 else np.zeros(iou.shape[:-1])
        for t in thetas:
            out[f"R@{k},{t}"] = (at_k > t if strict else at_k >= t).astype(float)
    for k in ks:
        j = min(k, width) - 1
        if j < 0:
            out[f"AxIoU@{k}"] = np.zeros(iou.shape[:-1])
            continue
        # Ranks beyond the list's width carry its best IoU (as NaN padding would).
        out[f"AxIoU@{k}"] = (total[..., j] + (k - 1 - j) * best[..., j]) / k
    return out


_MAX_K = 2**31 - 1  # beyond any ranking; larger numbers are typos that overflow array sizes


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= _MAX_K:
        shown = repr(k) if len(repr(k)) < 40 else f"a {len(str(k))}-digit number"
        raise ValueError(f"cut-off K must be an integer >= 1 (and at most {_MAX_K}), got {shown}. "
                         "Fix: give a whole number such as 1, 5 or 10")
    return int(k)


def _check_theta(theta) -> float:
    try:
        theta = float(theta)
    except (TypeError, ValueError):
        raise ValueError(f"IoU threshold θ must be in (0, 1], got {theta!r}. Fix: give e.g. 0.5") from None
    if not 0 < theta <= 1:  # also refuses NaN
        raise ValueError(f"IoU threshold θ must be in (0, 1], got {theta!r}. Fix: give e.g. 0.5")
    return theta


def _parse_name(name: str):
    """(kind, K, θ or None) of a moment measure name, read by the measure registry's grammar."""
    from fireeval.core import measures as registry

    fix = "Fix: use R@K,θ, AP@K,θ, AxIoU@K or DCG@K (e.g. 'R@5,0.7'), K from 1, θ in (0, 1]"
    try:
        parsed = registry.parse(str(name))
    except ValueError as err:
        if "unknown measure" in str(err):
            raise ValueError(f"-m {name}: unknown measure {name!r}. {fix}") from None
        detail = str(err)
        parts = re.fullmatch(r"\w+@([0-9]+)(?:,(.*))?", str(name).strip())
        try:  # say it in this module's words (K, θ)
            if parts:
                _check_k(int(parts[1]))
                if parts[2] is not None:
                    _check_theta(parts[2])
        except ValueError as own:
            detail = str(own)
        detail = detail.split(" Fix:")[0].rstrip(".")  # one Fix, this module's
        raise ValueError(f"-m {name}: measure {name!r}: {detail}. {fix}") from None
    if len(parsed) != 1 or "moments" not in parsed[0].family.needs:
        raise ValueError(f"-m {name}: unknown measure {name!r} (not a moment measure). {fix}")
    m = parsed[0]
    k, theta = m.k if isinstance(m.k, tuple) else (m.k, None)
    return {"moment_recall": "R", "moment_ap": "AP", "axiou": "AxIoU", "moment_dcg": "DCG"}[m.kind], k, theta


@validate_params(name=STR, strict=BOOL)
def measure_function(name: str, strict: bool = False):
    """The per-query function ``iou (..., K) -> (...)`` of a measure named like ``R@5,0.7``.

    Accepts ``R@K,θ``, ``AP@K,θ``, ``AxIoU@K`` and ``DCG@K`` (the registry's moment families,
    :mod:`fireeval.core.measures.moment_measures`).

    Parameters
    ----------
    name : str
        ``R@K,θ``, ``AP@K,θ``, ``AxIoU@K`` or ``DCG@K``.
    strict : bool
        IoU > θ instead of >= θ (R@K,θ and AP@K,θ).

    Returns
    -------
    callable
        ``iou (..., K) -> (...)``.

    Examples
    --------
    >>> measure_function("R@1,0.5")([[0.5, 0.9]])
    array([1.])
    """
    kind, k, theta = _parse_name(name)
    if kind == "R":
        return lambda iou: recall_at_k_iou(iou, k, float(theta), strict)
    if kind == "AP":
        return lambda iou: ap_at_k_iou(iou, k, float(theta))
    if kind == "AxIoU":
        return lambda iou: axiou_at_k(iou, k)
    return lambda iou: dcg_at_k_iou(iou, k)


@validate_params(predictions=Instance(dict), gt=ANY, measures=ANY, strict=BOOL)
def score_systems(predictions: dict, gt, measures=None, strict: bool = False) -> np.ndarray:
    """Per-query scores of several systems: array (measures, systems, queries).

    ``predictions`` is ``{system: (Q, K, 2)}``; ``gt`` is (Q, 2) or (Q, G, 2) (several
    windows, see :func:`max_temporal_iou`); ``measures`` defaults to the 12 of
    :data:`MEASURES`. IoU is computed once per system.

    Parameters
    ----------
    predictions : dict
        ``{system: array (Q, K, 2)}`` of ranked [start, end] moments, NaN-padded.
    gt : array_like (Q, 2) or (Q, G, 2)
        The ground-truth window(s) of each query.
    measures : sequence of str, optional
        Names such as ``R@5,0.7`` or ``AxIoU@10`` (default: :data:`MEASURES`).
    strict : bool
        IoU > θ instead of >= θ.

    Returns
    -------
    numpy.ndarray (measures, systems, queries)
        Per-query scores.

    Examples
    --------
    >>> gt = np.array([[0.0, 10.0]])
    >>> score_systems({"A": np.array([[[0.0, 9.0]]])}, gt, ["R@1,0.5", "AxIoU@1"]).tolist()
    [[[1.0]], [[0.9]]]
    """
    measures = list(measures or MEASURES)
    fns = [measure_function(m, strict) for m in measures]
    # R@K,θ and AxIoU@K come from one score_all call per system (one running maximum).
    parsed = [_parse_name(m) for m in measures]
    shared = [i for i, (kind, _, _) in enumerate(parsed) if kind in ("R", "AxIoU")]
    ks = sorted({int(parsed[i][1]) for i in shared})
    thetas = sorted({float(parsed[i][2]) for i in shared if parsed[i][0] == "R"})
    keys = {i: f"R@{int(parsed[i][1])},{float(parsed[i][2])}" if parsed[i][0] == "R" else f"AxIoU@{int(parsed[i][1])}"
            for i in shared}
    out = np.empty((len(measures), len(predictions), len(np.asarray(gt))))
    for j, pred in enumerate(predictions.values()):
        iou = max_temporal_iou(pred, gt)
        common = score_all(iou, ks, thetas, strict) if shared else {}
        for i, fn in enumerate(fns):
            out[i, j] = common[keys[i]] if i in keys else fn(iou)
    return out


@validate_params(per_query=ARRAY, systems=ANY, measures=ANY)
def mean_table(per_query, systems, measures=None):
    """Mean over queries as a DataFrame (systems x measures) from (measures, systems, queries).

    Parameters
    ----------
    per_query : array_like (measures, systems, queries)
        As :func:`score_systems` returns it.
    systems : sequence of str
        The systems' names.
    measures : sequence of str, optional
        The measures' names (default: :func:`measure_names`).

    Returns
    -------
    pandas.DataFrame
        Systems x measures.

    Examples
    --------
    >>> mean_table(np.array([[[1.0, 0.0]]]), ["A"], ["R@1,0.5"])
       R@1,0.5
    A      0.5
    """
    import pandas as pd

    measures = list(measures or MEASURES)
    return pd.DataFrame(np.asarray(per_query).mean(axis=-1).T, index=list(systems), columns=measures)


@validate_params(per_query=ARRAY)
def all_tied_ratio(per_query) -> np.ndarray:
    """Share of queries on which every system gets exactly the same score (AxIoU paper App. B).

    ``per_query`` is (..., systems, queries); returns (...). Such queries cannot
    separate the systems, whatever their weight.

    Parameters
    ----------
    per_query : array_like (..., systems, queries)
        Per-query scores.

    Returns
    -------
    numpy.ndarray (...)
        The share of queries on which all systems tie.

    Examples
    --------
    >>> float(all_tied_ratio([[1, 0, 1], [1, 1, 1]]))
    0.6666666666666666
    """
    s = np.asarray(per_query, dtype=float)
    return (s == s[..., :1, :]).all(axis=-2).mean(axis=-1)


@validate_params(x=ARRAY, theta=Real(0, 1, closed='right'), sigma=Real(0, None), strict=BOOL)
def noisy_iou_bias_variance(x, theta: float, sigma: float, strict: bool = False) -> dict:
    """Analytic bias, variance and MSE of AxIoU@1 and R@1,θ when the observed IoU is noisy.

    Model (AxIoU paper App. C): the observed top-1 IoU is ``x + e`` with
    ``e ~ Normal(0, σ²)`` around the true IoU ``x``. AxIoU@1 is the IoU itself, so it is
    unbiased with variance σ². R@1,θ is ``1[x + e ≥ θ]``, a Bernoulli with
    ``p = Φ((x − θ)/σ)``: bias ``p − 1[x ≥ θ]`` (``1[x > θ]`` with ``strict``),
    variance ``p(1 − p)``. MSE = bias² + variance. (The noise is not clipped to [0, 1];
    see :func:`simulate_noisy_iou` for the clipped variant.)

    Parameters
    ----------
    x : array_like
        True top-1 IoUs.
    theta : float
        The threshold of R@1,θ.
    sigma : float
        SD of the noise.
    strict : bool
        R@1,θ as IoU > θ.

    Returns
    -------
    dict
        ``{"AxIoU": {...}, "R": {...}}``, each with ``bias``, ``variance`` and ``mse`` arrays.

    Examples
    --------
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


@validate_params(x=ARRAY, theta=Real(0, 1, closed='right'), sigma=Real(0, None), n=Int(1), rng=SEED, clip=BOOL, strict=BOOL)
def simulate_noisy_iou(x, theta: float, sigma: float, n: int = 10_000, rng=0, clip: bool = False,
                       strict: bool = False) -> dict:
    """Monte Carlo counterpart of :func:`noisy_iou_bias_variance`: same keys, (len(x),) arrays.

    ``clip=True`` clips the observed IoU to [0, 1], as a real IoU is, which biases
    AxIoU@1 near 0 and 1.

    Parameters
    ----------
    x : array_like
        True IoUs.
    theta : float
        The threshold of R@1,θ.
    sigma : float
        SD of the noise on the observed IoU.
    n : int
        Draws per true IoU.
    rng : int or numpy.random.Generator
        Seed or generator.
    clip : bool
        Clip the observed IoU to [0, 1].
    strict : bool
        R@1,θ as IoU > θ.

    Returns
    -------
    dict
        ``{"AxIoU": {...}, "R": {...}}``, each with ``bias``, ``variance`` and ``mse`` arrays (len(x),).

    Examples
    --------
    >>> r = simulate_noisy_iou([0.5], theta=0.5, sigma=0.1, n=4000)
    >>> round(float(r["R"]["variance"][0]), 1)
    0.2
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


@validate_params(x=ARRAY, theta=Real(0, 1, closed='right'), sigmas=ARRAY, n=Int(1), rng=SEED, strict=BOOL)
def noisy_iou_table(x, theta: float, sigmas, n: int = 10_000, rng=0, strict: bool = False):
    """App. C analytic and simulated bias, variance and MSE in one long table.

    For every σ in ``sigmas`` runs :func:`noisy_iou_bias_variance` and
    :func:`simulate_noisy_iou` (each σ with the same ``rng`` seed) on the true IoUs
    ``x``. Returns ``(table, max_gap)``: ``table`` has one row per (σ, measure,
    statistic, true IoU) with columns ``σ, measure, statistic, true IoU, analytic,
    simulated`` (measures ``AxIoU@1`` and ``R@1,θ``; statistics bias, variance, mse),
    and ``max_gap`` is the largest ``|analytic − simulated|`` over all rows.

    Parameters
    ----------
    x : array_like
        True IoUs.
    theta : float
        The threshold of R@1,θ.
    sigmas : sequence of float
        Noise SDs.
    n : int
        Draws per true IoU.
    rng : int
        Seed, the same for every σ.
    strict : bool
        R@1,θ as IoU > θ.

    Returns
    -------
    table : pandas.DataFrame
        One row per (σ, measure, statistic, true IoU).
    max_gap : float
        The largest analytic-simulated gap.

    Examples
    --------
    >>> t, gap = noisy_iou_table([0.5], theta=0.5, sigmas=[0.1], n=2000)
    >>> len(t), sorted(set(t["measure"])), gap < 0.05
    (6, ['AxIoU@1', 'R@1,0.5'], True)
    """
    import pandas as pd

    x = np.asarray(x, dtype=float)
    rows, max_gap = [], 0.0
    for sigma in sigmas:
        ana = noisy_iou_bias_variance(x, theta, sigma, strict=strict)
        sim = simulate_noisy_iou(x, theta, sigma, n=n, rng=rng, strict=strict)
        for m, label in (("AxIoU", "AxIoU@1"), ("R", f"R@1,{theta}")):
            for stat in ("bias", "variance", "mse"):
                max_gap = max(max_gap, float(np.abs(ana[m][stat] - sim[m][stat]).max()))
                rows += [{"σ": sigma, "measure": label, "statistic": stat, "true IoU": xi, "analytic": a, "simulated": s}
                         for xi, a, s in zip(x, ana[m][stat], sim[m][stat])]
    return pd.DataFrame(rows), max_gap


@validate_params(per_query=ARRAY, n=Int(1))
def expected_swaps(per_query, n: int) -> np.ndarray:
    """Expected number of system pairs two disjoint n-query halves order differently, per measure.

    Normal approximation: a pair (a, b) swaps with probability 2Φ(z)Φ(−z), where
    ``z = √n · |mean_q (s_a − s_b)| / SD_q(s_a − s_b)`` (population SD; z = ∞, i.e. no
    swap, when the difference is constant). ``per_query``: (measures, systems,
    queries); returns (measures,), the sum over all pairs of systems.

    Parameters
    ----------
    per_query : array_like (measures, systems, queries)
        Per-query scores.
    n : int
        Queries in each half.

    Returns
    -------
    numpy.ndarray (measures,)
        Expected swapped pairs, summed over all pairs of systems.

    Examples
    --------
    >>> expected_swaps([[[1, 0, 1, 0], [0, 1, 0, 1]]], n=10).tolist()  # mean difference 0: a coin flip
    [0.5]
    >>> expected_swaps([[[1, 0, 1, 0], [1, 0, 1, 0]]], n=10).tolist()  # identical systems never swap
    [0.0]
    """
    from scipy import stats

    s = np.asarray(per_query, dtype=float)
    pa, pb = np.triu_indices(s.shape[1], k=1)
    diff = s[:, pa] - s[:, pb]  # (measures, pairs, queries)
    sd = diff.std(axis=-1)
    z = np.divide(np.abs(diff.mean(axis=-1)), sd, out=np.full(sd.shape, np.inf), where=sd > 0) * np.sqrt(n)
    return (2 * stats.norm.cdf(z) * stats.norm.sf(z)).sum(axis=1)


def _family(measure: str) -> str:
    return "AxIoU@K" if measure.startswith("AxIoU") else "R@K,θ"


@validate_params(stability=Instance(dict), sizes=ARRAY, measures=ANY)
def stability_frame(stability: dict, sizes, measures=None):
    """Long table of a subset-stability result, one row per (measure, subset size).

    ``stability`` is :func:`fireeval.stats.reliability.subset_stability`'s dict (``mean``
    and ``var`` of τ-b, each (measures, sizes)). Columns: ``measure, n, mean τ,
    variance of τ, family`` ("AxIoU@K" or "R@K,θ"), ``K`` (label "K = k") and
    ``measure (at this K)`` (the name with its cut-off replaced by K, e.g. "R@K,0.5").

    Parameters
    ----------
    stability : dict
        ``mean`` and ``var`` of τ-b, each (measures, sizes).
    sizes : sequence of int
        The subset sizes.
    measures : sequence of str, optional
        The measures' names (default: :func:`measure_names`).

    Returns
    -------
    pandas.DataFrame
        One row per (measure, subset size).

    Examples
    --------
    >>> f = stability_frame({"mean": np.array([[0.9], [0.8]]), "var": np.zeros((2, 1))}, [50], ["R@5,0.5", "AxIoU@5"])
    >>> f[["measure (at this K)", "K", "mean τ"]].values.tolist()
    [['R@K,0.5', 'K = 5', 0.9], ['AxIoU@K', 'K = 5', 0.8]]
    """
    import pandas as pd

    measures = list(measures or MEASURES)
    stab = pd.DataFrame([{"measure": m, "n": n, "mean τ": stability["mean"][i, j], "variance of τ": stability["var"][i, j]}
                         for i, m in enumerate(measures) for j, n in enumerate(sizes)])
    stab["family"] = stab["measure"].map(_family)
    stab["K"] = stab["measure"].str.extract(r"@(\d+)")[0].astype(int).map(lambda k: f"K = {k}")
    stab["measure (at this K)"] = stab["measure"].str.replace(r"@\d+", "@K", regex=True)
    return stab


def _at_sizes(sizes, mask) -> str:
    """'at every n' / 'at no n' / 'at n = …' for the sizes where ``mask`` holds."""
    hit = [str(n) for n, m in zip(sizes, mask) if m]
    return "at every n" if len(hit) == len(sizes) else "at no n" if not hit else "at n = " + ", ".join(hit)


@validate_params(stability=Instance(dict), sizes=ARRAY, per_query=ARRAY, ks=ARRAY, thetas=ARRAY)
def stability_findings(stability: dict, sizes, per_query, ks=KS, thetas=THETAS) -> dict:
    """The subset-stability findings of the AxIoU paper's Fig. 6, as values for the prose.

    ``stability``: :func:`fireeval.stats.reliability.subset_stability` on ``per_query``
    (measures in :func:`measure_names` ``(ks, thetas)`` order, systems, queries) at
    the subset ``sizes``. "Smallest n" below is ``sizes[0]``; AxIoU@K is compared
    with the R@K,θ at the same K. Returns a dict (keys are the notebook's glue names):

    * ``stab_n_small``; ``stab_most``/``stab_least`` and their mean τ
      (``stab_most_tau``, ``stab_least_tau``) at the smallest n;
      ``stab_ax_mean``/``stab_r_mean``: the families' mean τ there;
    * ``stab_order_k{k}``: the measures at cut-off k ordered by mean τ, "A > B > …";
    * ``stab_vs_k{k}``: per θ, the sizes at which R@k,θ has a higher mean τ than AxIoU@k;
    * ``stab_ax_wins`` of ``stab_n_comparisons`` (K, θ, n) comparisons in which
      AxIoU@K has mean τ ≥ the R@K,θ;
    * ``stab_beaten``: a sentence naming the R@K,θ more stable than AxIoU@K at every n;
    * ``stab_top5``: the five most stable measures at the smallest n;
    * ``stab_swap_rho``: Spearman ρ between fewest :func:`expected_swaps` and mean τ
      at the smallest n; ``stab_r07_least``: whether R@K,0.7 is the least stable at every K.

    Parameters
    ----------
    stability : dict
        :func:`fireeval.stats.reliability.subset_stability`'s result.
    sizes : sequence of int
        Its subset sizes.
    per_query : array_like (measures, systems, queries)
        The scores it was computed on.
    ks, thetas : sequences
        The measures' cut-offs and thresholds (:func:`measure_names`).

    Returns
    -------
    dict
        The findings, keyed by the notebook's glue names (see above).

    Examples
    --------
    Two measures (R@1,0.5 and AxIoU@1), four systems, 20 queries:

    >>> import numpy as np
    >>> from fireeval.stats.reliability import subset_stability
    >>> per_query = np.random.default_rng(0).random((2, 4, 20)) + 0.1 * np.arange(4)[None, :, None]
    >>> stability = subset_stability(per_query, [5, 10], n_trials=50, rng=0)
    >>> found = stability_findings(stability, [5, 10], per_query, ks=(1,), thetas=(0.5,))
    >>> found["stab_order_k1"], round(found["stab_most_tau"], 3), found["stab_ax_wins"], found["stab_n_comparisons"]
    ('R@1,0.5 > AxIoU@1', 0.347, 0, 2)
    """
    import pandas as pd
    from scipy import stats

    measures = measure_names(ks, thetas)
    mean_tau = pd.DataFrame(stability["mean"], index=measures, columns=list(sizes))
    smallest = mean_tau[sizes[0]].rename("mean τ")
    ax_names = [m for m in measures if m.startswith("AxIoU")]
    r_names = [m for m in measures if not m.startswith("AxIoU")]

    def at_k(k):
        return smallest[[m for m in measures if f"@{k}," in m or m == f"AxIoU@{k}"]]

    out = {"stab_n_small": sizes[0], "stab_most": smallest.idxmax(), "stab_most_tau": float(smallest.max()),
           "stab_least": smallest.idxmin(), "stab_least_tau": float(smallest.min()),
           "stab_ax_mean": float(smallest[ax_names].mean()), "stab_r_mean": float(smallest[r_names].mean())}
    for k in ks:
        out[f"stab_order_k{k}"] = " > ".join(at_k(k).sort_values(ascending=False).index)
    for k in ks:
        ax = mean_tau.loc[f"AxIoU@{k}"]
        out[f"stab_vs_k{k}"] = "; ".join(f"R@{k},{t} {_at_sizes(sizes, mean_tau.loc[f'R@{k},{t}'] > ax)}" for t in thetas)
    wins = [(mean_tau.loc[f"AxIoU@{k}"] >= mean_tau.loc[f"R@{k},{t}"]).to_numpy() for k in ks for t in thetas]
    out["stab_ax_wins"] = int(np.sum(wins))
    out["stab_n_comparisons"] = int(np.size(wins))
    beaten = [f"R@{k},{t}" for k in ks for t in thetas if (mean_tau.loc[f"R@{k},{t}"] > mean_tau.loc[f"AxIoU@{k}"]).all()]
    out["stab_beaten"] = (
        f"{' and '.join(beaten)} {'is' if len(beaten) == 1 else 'are'} more stable than AxIoU@K at the "
        "same K at every subset size, so the paper's summary that AxIoU@K \"reconciles\" agreement and stability "
        "does not hold at every K here" if beaten else "no R@K,θ is more stable than AxIoU@K at the same K at every "
        "subset size, in line with the paper's summary that AxIoU@K \"reconciles\" agreement and stability")
    out["stab_top5"] = ", ".join(smallest.sort_values(ascending=False).index[:5])
    swaps = pd.Series(expected_swaps(per_query, sizes[0]), index=measures)
    out["stab_swap_rho"] = float(stats.spearmanr(-swaps, smallest[measures]).statistic)
    out["stab_r07_least"] = ("the least stable at every K" if all(at_k(k).idxmin() == f"R@{k},0.7" for k in ks)
                             else "not always the least stable")
    return out
