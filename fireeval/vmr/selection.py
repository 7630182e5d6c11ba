"""Model selection with a validation measure, judged by test measures (AxIoU paper, Fig. 8).

Protocol, for each of many random splits of the test queries **by video** (all
queries of a video fall on the same side, so validation and test share no video):

1. every validation measure picks the variant with the highest mean on validation
   (exact ties: ``ties="random"`` draws one of the tied variants uniformly, repeated
   ``n_tie_draws`` times with a seed and averaged; ``ties="first"`` takes the first in
   family order, which favours whatever the family lists first);
2. the picked variants -- one per validation measure, possibly the same variant
   several times -- are scored on the test half with every test measure;
3. per test measure, the picks' test scores are turned into z-scores across the
   picks, z = (x − mean) / std (population std; all z = 0 when every pick scores the
   same);
4. a validation measure's pick is *above average everywhere* on a split when its
   z-score is > 0 for every test measure.

Per-query scores are computed once; a split only re-weights them. Queries are
summed per video first, so each split costs one (variants·measures) × videos matrix
product.
"""
from __future__ import annotations

from collections.abc import Mapping
import hashlib

import numpy as np
import pandas as pd

from fireeval.core.validation import ANY, ARRAY, COLLECTION, SEED, STR, Instance, Int, Options, Real, validate_params

__all__ = ["video_splits", "group_sums", "split_means", "pick_best", "pick_random_tie", "zscores",
           "above_average_everywhere", "unique_variants", "selection_experiment", "pick_summary", "TIES", "family_claim_inputs"]

TIES = ("random", "first")


@validate_params(videos=COLLECTION, n_splits=Int(1), seed=SEED, fraction=Real(0, 1, closed="neither"))
def video_splits(videos, n_splits: int = 100, seed=0, fraction: float = 0.5) -> np.ndarray:
    """Validation masks, True = validation.

    Each split sends a random ``round(fraction · n_videos)`` of the distinct videos
    to validation; a query follows its video.

    Parameters
    ----------
    videos : sequence (n_queries,)
        Each query's video id (no missing values).
    n_splits : int
        Random splits.
    seed : int
        Seed of the splits.
    fraction : float
        Share of the videos sent to validation; both sides must be non-empty.

    Returns
    -------
    numpy.ndarray of bool (n_splits, n_queries)
        True where the query is on the validation side.

    Raises
    ------
    ValueError
        For a missing video id, or a fraction that leaves one side empty.

    Examples
    --------
    >>> m = video_splits(["a", "a", "b", "c"], n_splits=3, seed=0)
    >>> bool((m[:, 0] == m[:, 1]).all()), m.shape
    (True, (3, 4))
    """
    codes, uniques = pd.factorize(np.asarray(videos))
    if (codes < 0).any():
        raise ValueError("video ids must not be missing (NaN/None); give every query its video id")
    n_v = len(uniques)
    n_val = int(round(fraction * n_v))
    if not 0 < n_val < n_v:
        raise ValueError(f"a {fraction:g} split of {n_v} videos leaves one side empty; use more videos or another fraction")
    rng = np.random.default_rng(seed)
    rank = np.argsort(np.argsort(rng.random((n_splits, n_v)), axis=1), axis=1)
    return (rank < n_val)[:, codes]


@validate_params(scores=ARRAY, videos=COLLECTION)
def group_sums(scores, videos) -> tuple[np.ndarray, np.ndarray]:
    r"""Sum the last (query) axis of ``scores`` per video.

    Parameters
    ----------
    scores : array_like (..., n_queries)
        Per-query scores (any leading axes, e.g. variants and measures).
    videos : sequence (n_queries,)
        Each query's video id; videos are numbered in order of first appearance.

    Returns
    -------
    sums : numpy.ndarray (..., n_videos)
        :math:`\sum_{q \in v} s_q` for each video :math:`v`, as float64.
    codes : numpy.ndarray (n_queries,)
        Each query's video number (index into the last axis of ``sums``).

    Examples
    --------
    >>> sums, codes = group_sums([1.0, 2.0, 4.0], ["a", "b", "a"])
    >>> sums.tolist(), codes.tolist()
    ([5.0, 2.0], [0, 1, 0])
    """
    codes, _ = pd.factorize(np.asarray(videos))
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    s = np.asarray(scores)
    sums = np.add.reduceat(s[..., order].astype(np.float64), starts, axis=-1)
    return sums, codes


@validate_params(scores=ARRAY, videos=COLLECTION, val_mask=ARRAY, video_sums=ANY)
def split_means(scores, videos, val_mask, video_sums=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean per-query score on the validation and the test side of every split.

    Parameters
    ----------
    scores : array_like (n_variants, n_measures, n_queries)
        Per-query scores of every variant on every measure.
    videos : sequence (n_queries,)
        Each query's video id.
    val_mask : array_like of bool (n_splits, n_queries)
        True = validation, from :func:`video_splits` (constant within a video).
    video_sums : tuple, optional
        ``group_sums(scores, videos)``, when already computed: a family's per-video sums do not change
        with the splits, so experiments over several split seeds compute them once (issue 38).

    Returns
    -------
    val, test : numpy.ndarray (n_splits, n_variants, n_measures)
        :math:`\bar s_{\text{val}} = \sum_{q \in \text{val}} s_q / |\text{val}|` and the same over the
        test queries.

    Raises
    ------
    ValueError
        When the masks and the scores cover different numbers of queries.

    Examples
    --------
    >>> val, test = split_means([[[1.0, 3.0, 5.0]]], ["a", "a", "b"], [[True, True, False]])
    >>> val.tolist(), test.tolist()
    ([[[2.0]]], [[[5.0]]])
    """
    scores = np.asarray(scores)
    val_mask = np.asarray(val_mask, dtype=bool)
    if val_mask.shape[-1] != scores.shape[-1]:
        raise ValueError(f"split masks cover {val_mask.shape[-1]} queries, scores {scores.shape[-1]}")
    sums, codes = _group_sums(scores, videos) if video_sums is None else _checked_sums(video_sums, scores)  # (V, M, n_videos)
    n_v = sums.shape[-1]
    video_val = np.zeros((len(val_mask), n_v), dtype=bool)
    video_val[:, codes] = val_mask  # the mask is per video, so any query of the video gives its side
    q_per_video = np.bincount(codes, minlength=n_v).astype(float)
    flat = sums.reshape(-1, n_v)
    w_val = video_val.astype(float)
    val = flat @ w_val.T / (w_val @ q_per_video)
    test = flat @ (1 - w_val).T / ((1 - w_val) @ q_per_video)
    shape = scores.shape[:2] + (len(val_mask),)
    return np.moveaxis(val.reshape(shape), -1, 0), np.moveaxis(test.reshape(shape), -1, 0)


_group_sums = group_sums.__wrapped__  # the library's own calls: arguments already checked
_split_means = split_means.__wrapped__


def _checked_sums(video_sums, scores) -> tuple[np.ndarray, np.ndarray]:
    """``video_sums`` when it is ``group_sums`` of arrays shaped as ``scores``; a one-line error otherwise."""
    try:
        sums, codes = video_sums
        ok = sums.shape[:-1] == scores.shape[:-1] and codes.shape == scores.shape[-1:]
    except (TypeError, ValueError, AttributeError):
        ok = False
    if not ok:
        raise ValueError(f"video_sums does not match scores of shape {scores.shape}. "
                         "Fix: pass group_sums(scores, videos) of these scores, or leave video_sums out")
    return sums, codes


@validate_params(val=ARRAY)
def pick_best(val) -> np.ndarray:
    r"""Index of the best variant per split and measure (the first one on ties).

    Parameters
    ----------
    val : array_like (n_splits, n_variants, n_measures)
        Validation means, e.g. from :func:`split_means`.

    Returns
    -------
    numpy.ndarray of int (n_splits, n_measures)
        :math:`\arg\max_v \text{val}[s, v, m]`.

    Examples
    --------
    >>> pick_best([[[0.1, 0.5], [0.3, 0.5]]]).tolist()
    [[1, 0]]
    """
    return np.argmax(np.asarray(val), axis=-2)


@validate_params(val=ARRAY, rng=SEED)
def pick_random_tie(val, rng=0) -> np.ndarray:
    """Index of the best variant per split and measure, exact ties broken uniformly at random.

    Every variant whose validation mean equals the maximum is equally likely, whatever its
    place in the family.

    Parameters
    ----------
    val : array_like (n_splits, n_variants, n_measures)
        Validation means.
    rng : int or numpy.random.Generator
        Seed or generator of the tie draws.

    Returns
    -------
    numpy.ndarray of int (n_splits, n_measures)
        The picked variant of each split and measure.

    Examples
    --------
    >>> picks = np.stack([pick_random_tie([[[0.5], [0.5], [0.1]]], rng=s) for s in range(200)]).ravel()
    >>> sorted(set(picks.tolist())), bool(0.3 < (picks == 0).mean() < 0.7)
    ([0, 1], True)
    """
    val = np.asarray(val, dtype=float)
    rng = np.random.default_rng(rng)
    best = val == val.max(axis=-2, keepdims=True)
    key = np.where(best, rng.random(val.shape), -1.0)
    return np.argmax(key, axis=-2)


@validate_params(values=ARRAY, axis=Int())
def zscores(values, axis: int = -2) -> np.ndarray:
    r"""z-scores along ``axis`` with the population std; 0 where all values are equal.

    .. math:: z_i = (x_i - \bar x) / \sigma, \quad \sigma = \sqrt{\tfrac1n \sum_i (x_i - \bar x)^2}

    Parameters
    ----------
    values : array_like
        The values (e.g. the picks' test scores, (n_splits, n_picks, n_measures)).
    axis : int
        The axis to standardise along.

    Returns
    -------
    numpy.ndarray
        The z-scores, same shape as ``values``; 0 where the spread is below float noise.

    Examples
    --------
    >>> zscores([[1.0], [3.0]]).ravel().tolist()
    [-1.0, 1.0]
    """
    v = np.asarray(values, dtype=float)
    mean = v.mean(axis=axis, keepdims=True)
    std = v.std(axis=axis, keepdims=True)
    # Spread below float noise means the picks score the same: z = 0, not noise / noise.
    tiny = std <= 1e-12 * np.maximum(1.0, np.abs(mean))
    return np.where(tiny, 0.0, (v - mean) / np.where(tiny, 1.0, std))


@validate_params(z=ARRAY)
def above_average_everywhere(z) -> np.ndarray:
    r"""True where a pick's z-score is > 0 on every test measure (last axis).

    Parameters
    ----------
    z : array_like (..., n_test_measures)
        z-scores from :func:`zscores`.

    Returns
    -------
    numpy.ndarray of bool (...)
        :math:`\forall m: z_m > 0`.

    Examples
    --------
    >>> above_average_everywhere([[0.5, 1.0], [0.5, 0.0]]).tolist()
    [True, False]
    """
    return (np.asarray(z) > 0).all(axis=-1)


@validate_params(scores=ARRAY)
def unique_variants(scores) -> np.ndarray:
    """Indices of the first variant of each group with identical per-query scores on every measure.

    Post-processing often leaves a list unchanged (e.g. NMS that suppresses nothing);
    such duplicates are one system, not several.

    Parameters
    ----------
    scores : array_like (n_variants, ...)
        Per-variant scores (e.g. (n_variants, n_measures, n_queries)).

    Returns
    -------
    numpy.ndarray of int
        Indices of the distinct variants, in family order.

    Examples
    --------
    >>> unique_variants([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).tolist()
    [0, 2]
    """
    s = np.ascontiguousarray(np.asarray(scores))
    seen, keep = set(), []
    for i in range(len(s)):  # one hash per variant, not per query
        h = hashlib.blake2b(s[i].tobytes(), digest_size=16).digest()
        if h not in seen:
            seen.add(h)
            keep.append(i)
    return np.array(keep, dtype=int)


@validate_params(scores=ARRAY, videos=COLLECTION, measures=COLLECTION, val_measures=[COLLECTION, None],
                 test_measures=[COLLECTION, None], n_splits=Int(1), seed=SEED, fraction=Real(0, 1, closed="neither"),
                 ties=Options(*TIES), n_tie_draws=Int(1), video_sums=ANY)
def selection_experiment(scores, videos, measures, val_measures=None, test_measures=None,
                         n_splits: int = 100, seed=0, fraction: float = 0.5, ties: str = "first",
                         n_tie_draws: int = 1, video_sums=None) -> dict:
    """Run the Fig. 8 protocol over ``n_splits`` video-grouped splits.

    Parameters
    ----------
    scores : array_like (n_variants, n_measures, n_queries)
        Per-query scores named by ``measures``.
    videos : sequence (n_queries,)
        Each query's video id (splits are by video).
    measures : sequence of str
        The measures' names, in ``scores``' order.
    val_measures : sequence of str, optional
        The validation measures; default all measures.
    test_measures : sequence of str, optional
        The test measures; default every R@K,θ except R@10,0.3 (the paper drops one
        saturated R@ from the 9, leaving 8 test measures).
    n_splits : int
        Random splits.
    seed : int
        Seed of the splits (and of the tie draws, on their own stream).
    fraction : float
        Share of the videos sent to validation.
    ties : {"first", "random"}
        ``"first"``: first variant in family order; ``"random"``: uniform among the tied
        variants, ``n_tie_draws`` independent draws.
    n_tie_draws : int
        Tie draws per split with ``ties="random"``.
    video_sums : tuple, optional
        ``group_sums(scores, videos)``, computed once for experiments on the same scores (see
        :func:`split_means`).

    Returns
    -------
    dict
        ``picks`` (draws·splits, val), ``test_scores`` (draws·splits, val, test) of the picks,
        ``z`` (draws·splits, val, test), ``above`` (draws·splits, val), ``above_by_split``
        (splits, val: share of tie draws above average everywhere), ``tied`` (share of
        (split, validation measure) cases whose maximum is shared by several variants) and
        ``rate`` {validation measure: share of splits (and draws) where its pick is above
        average on every test measure}, plus ``val_measures``, ``test_measures``,
        ``val_mask``, ``val_means``, ``test_means``, ``ties``, ``n_tie_draws``. With one
        draw the first axis is the splits.

    Raises
    ------
    ValueError
        For an unknown ``ties`` rule.
    KeyError
        For validation or test measures not in ``measures``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.random((3, 2, 8))  # 3 variants, 2 measures, 8 queries
    >>> out = selection_experiment(s, list("aabbccdd"), ["AxIoU@1", "R@1,0.5"], n_splits=4)
    >>> out["picks"].shape, out["z"].shape, sorted(out["rate"])
    ((4, 2), (4, 2, 1), ['AxIoU@1', 'R@1,0.5'])
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    measures = list(measures)
    val_measures = list(val_measures or measures)
    test_measures = list(test_measures or [m for m in measures if m.startswith("R@") and m != "R@10,0.3"])
    unknown = sorted(set(val_measures + test_measures) - set(measures))
    if unknown:
        raise KeyError(f"measures {unknown} are not in the score array's measures {measures}")
    vi = [measures.index(m) for m in val_measures]
    ti = [measures.index(m) for m in test_measures]
    mask = video_splits(videos, n_splits, seed, fraction)
    val, test = _split_means(np.asarray(scores), videos, mask, video_sums)  # (S, V, M)
    vals = val[:, :, vi]
    tied = float(((vals == vals.max(axis=1, keepdims=True)).sum(axis=1) > 1).mean())
    draws = 1 if ties == "first" else int(n_tie_draws)
    rng = np.random.default_rng([int(seed), 1])  # its own stream: the splits do not change with the draws
    split_idx = np.arange(n_splits)[:, None]
    parts = []
    for _ in range(draws):
        picks = pick_best(vals) if ties == "first" else pick_random_tie(vals, rng)  # (S, n_val)
        test_scores = test[split_idx, picks][:, :, ti]  # (S, n_val, n_test)
        z = zscores(test_scores, axis=1)
        parts.append((picks, test_scores, z, above_average_everywhere(z)))
    picks, test_scores, z, above = (np.concatenate(x) for x in zip(*parts))
    above_by_split = above.reshape(draws, n_splits, -1).mean(axis=0)
    return {"picks": picks, "test_scores": test_scores, "z": z, "above": above, "above_by_split": above_by_split,
            "tied": tied, "ties": ties, "n_tie_draws": draws,
            "rate": dict(zip(val_measures, above.mean(axis=0).tolist())),
            "val_measures": val_measures, "test_measures": test_measures, "val_mask": mask,
            "val_means": val, "test_means": test}


@validate_params(out=Instance(Mapping), table=Instance(pd.DataFrame), max_depth=Int(1), paper_measure=STR)
def pick_summary(out: dict, table, max_depth: int, paper_measure: str = "AxIoU@10") -> dict:
    """What the validation measures picked in :func:`selection_experiment`, as values for the prose.

    Parameters
    ----------
    out : dict
        The experiment's dict.
    table : pandas.DataFrame
        The variants (columns ``variant`` and ``depth``, rows in score order, e.g. from
        :func:`fireeval.vmr.variants.family_scores`); a pick is *truncated* when its depth is
        below ``max_depth``; blind priors are the variants whose name starts with "blind prior".
    max_depth : int
        The full list depth.
    paper_measure : str
        The measure the paper found best (AxIoU@10).

    Returns
    -------
    dict
        ``rate`` (Series: share of splits above average everywhere, per validation
        measure), ``best_measure``/``best_rate`` (highest rate, first on ties),
        ``axiou10_rate`` (the paper measure's rate, NaN if absent), ``n_nonzero`` and
        ``nonzero_list`` ("M (0.42), …" by decreasing rate, or "none"), ``top_pick`` and
        ``top_share`` (Series: each measure's most frequent pick and its share of splits),
        ``n_prior_picks``/``prior_pickers`` and ``truncated_pickers`` (measures whose most
        frequent pick is a blind prior / a truncated list; "none" when empty),
        ``none_rate`` (share of splits where no pick is above average everywhere),
        ``only_ax10_rate`` (the paper's outcome: the paper measure and no other),
        ``paper_cmp`` (a sentence comparing with the paper), ``ax10_pick`` and
        ``ax10_pick_share``.

    Examples
    --------
    >>> s = np.array([[[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]],
    ...               [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]])
    >>> out = selection_experiment(s, list("aabb"), ["AxIoU@10", "R@1,0.5"], n_splits=2)
    >>> table = pd.DataFrame({"variant": ["full", "blind prior"], "depth": [10, 10]})
    >>> summary = pick_summary(out, table, max_depth=10)
    >>> summary["best_measure"], summary["prior_pickers"]
    ('R@1,0.5', 'AxIoU@10')
    """
    val_measures = list(out["val_measures"])
    rate = pd.Series(out["rate"])
    best = rate.idxmax()
    names = table["variant"].to_numpy()
    picked = pd.DataFrame({m: names[out["picks"][:, j]] for j, m in enumerate(val_measures)})
    top_pick = picked.apply(lambda c: c.value_counts().index[0])
    top_share = picked.apply(lambda c: c.value_counts().iloc[0] / len(c))
    pick_depth = table.set_index("variant")["depth"]
    above = out["above"]  # (splits, validation measures)
    ax10 = val_measures.index(paper_measure) if paper_measure in val_measures else None
    only = float((above[:, ax10] & (above.sum(axis=1) == 1)).mean()) if ax10 is not None else 0.0
    paper_cmp = ((f"The direction agrees with the paper: {paper_measure} has the highest rate. " if best == paper_measure
                  else f"Unlike the paper, the highest rate is {best}'s, not {paper_measure}'s. ")
                 + ("But with these variants the paper's single-split outcome is the exception, not the rule." if only < 0.5
                    else "The paper's single-split outcome is the most common one here too."))
    return {
        "rate": rate, "best_measure": best, "best_rate": float(rate.max()),
        "axiou10_rate": float(rate.get(paper_measure, np.nan)), "n_nonzero": int((rate > 0).sum()),
        "nonzero_list": ", ".join(f"{m} ({v:.2f})" for m, v in rate[rate > 0].sort_values(ascending=False).items())
        or "none",
        "top_pick": top_pick, "top_share": top_share,
        "n_prior_picks": int(sum(v.startswith("blind prior") for v in top_pick)),
        "prior_pickers": ", ".join(m for m, v in top_pick.items() if v.startswith("blind prior")) or "none",
        "truncated_pickers": ", ".join(m for m, v in top_pick.items() if pick_depth[v] < max_depth) or "none",
        "none_rate": float((~above.any(axis=1)).mean()), "only_ax10_rate": only, "paper_cmp": paper_cmp,
        "ax10_pick": top_pick.get(paper_measure, "none"), "ax10_pick_share": float(top_share.get(paper_measure, np.nan)),
    }


@validate_params(runs=Instance(Mapping), paper_measure=STR)
def family_claim_inputs(runs: dict, paper_measure: str = "AxIoU@10") -> dict:
    """Per family, the per-split shares the claims need.

    The claims are built by :func:`fireeval.book.chapters.axiou_model_selection.selection_claims`.

    Parameters
    ----------
    runs : dict
        ``{family: selection_experiment(...)}``.
    paper_measure : str
        The measure the paper found best; must be a validation measure of every run.

    Returns
    -------
    dict
        ``{family: {"above": (n_splits,) share of tie draws in which ``paper_measure``'s
        pick is above average everywhere, "best_other": (n_splits,) the same for the other
        validation measure with the highest overall rate, "best_other_measure": its name,
        "only": (n_splits,) share of tie draws in which ``paper_measure``'s pick and no other
        measure's is above average everywhere -- the paper's single-split outcome, "any":
        the same for *some* measure's pick (the claims' power: where it is 0 in every
        split, no measure can pass), "best" / "best_measure": the measure with the highest
        rate and its per-split shares, "runner_up": the next one's}}``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> out = selection_experiment(rng.random((3, 2, 8)), list("aabbccdd"), ["AxIoU@10", "R@1,0.5"], n_splits=4)
    >>> inputs = family_claim_inputs({"nms": out})
    >>> inputs["nms"]["above"].shape, inputs["nms"]["best_other_measure"]
    ((4,), 'R@1,0.5')
    """
    out = {}
    for fam, r in runs.items():
        measures = list(r["val_measures"])
        j = measures.index(paper_measure)
        by_split = np.asarray(r["above_by_split"], dtype=float)
        others = [i for i in range(len(measures)) if i != j]
        best = others[int(np.argmax(by_split[:, others].mean(axis=0)))]
        above = np.asarray(r["above"], dtype=bool).reshape(int(r["n_tie_draws"]), by_split.shape[0], -1)
        only = (above[..., j] & (above.sum(axis=-1) == 1)).mean(axis=0)  # (splits,): share of tie draws
        top = int(np.argmax(by_split.mean(axis=0)))  # the measure with the highest rate (first on ties)
        rest = [i for i in range(len(measures)) if i != top]
        runner = rest[int(np.argmax(by_split[:, rest].mean(axis=0)))]
        out[fam] = {"above": by_split[:, j], "best_other": by_split[:, best], "best_other_measure": measures[best],
                    "only": only, "any": above.any(axis=-1).mean(axis=0), "best": by_split[:, top],
                    "best_measure": measures[top], "runner_up": by_split[:, runner]}
    return out
