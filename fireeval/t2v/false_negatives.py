"""FIRE (Rodriguez et al., EACL Findings 2023): correcting false negatives by pooling.

A text-to-video benchmark such as MSR-VTT 1k-A has one *original positive* per
query (the video the caption was written for). FIRE pools the top 10 predictions of
several models, has people judge every pooled (caption, video) pair, and scores each
model against the *corrected* positives: the original positive plus every pooled pair
judged relevant.

Everything here works on dense arrays over queries x items (1000 x 1000 for MSR-VTT):

- ``lists``: ranked item ids, shape ``(..., n_queries, depth)`` (from
  :func:`ranked_lists`); ``-1`` means no item.
- ``original`` / ``positives``: boolean ``(n_queries, n_items)``.
- :class:`Judgements`: who pooled each pair (``contributed``, ``(n_models, Q, V)``),
  which pairs were judged and which were judged relevant.

Conventions (those of FIRE's code, facebookresearch/mm-retrieval-evaluation,
``mmr/analysis.py``):

- Ranking: similarity descending; ties keep the lower item index first (stable sort).
- Correct@K: any positive in the top K. ``AP@20``: the mean of precision at the ranks
  of the positives *retrieved in the top 20*, 0 when none is retrieved -- FIRE's code
  divides by the positives retrieved, not by all positives (``ap="fire"``). The
  textbook version, which divides by all positives, is ``ap="trec"``.
- "New" (FIRE Table 4): a model scored with only the *other* models' judgements, i.e.
  judged-relevant pairs that some other pooled model also retrieved.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from fireeval.core.judgements import Judgements
from fireeval.core.validation import ARRAY, SEED, STR, Array, Check, Instance, Int, Options, ParamError, Real, validate_params
from fireeval.t2v.param_checks import CUTOFFS, TEXTS

if TYPE_CHECKING:  # (pandas and scipy.stats are imported where they are used: scoring a matrix needs neither)
    import pandas as pd

__all__ = [
    "METRICS",
    "ranked_lists",
    "pool",
    "Judgements",
    "judge_pool",
    "gains_of",
    "per_query_scores",
    "score_table",
    "table1",
    "leave_model_out",
    "prediction_overlap",
    "positive_ranks",
    "correctness_groups",
    "caption_agreement",
    "rank_rows",
    "proxy_verdicts",
    "caption_lengths",
    "threshold_sweep",
    "verdict_sample",
    "proxy_calibration",
    "calibrated_threshold",
    "verdict_overlap",
    "verdict_accuracy",
    "stratified_verdicts",
    "table1_nested",
    "table1_comparison",
    "leave_model_out_nested",
    "per_query_array",
    "correctness_by_labels",
    "calibrated_annotators",
    "containment_matrix",
    "agreement_for",
    "share_calibrated_threshold",
    "recall_by_length",
    "original_rank_under_ties",
    "tie_table",
    "paired_difference",
    "bootstrap_spearman",
    "corrected_by_threshold",
    "positive_loses_ties",
    "deviation_quantile_interval",
    "correction_band",
]

METRICS = ("C@1", "C@5", "C@10", "AP@20")

# The parameters' declarations shared by this module's functions (issue 36).
_RUNS = Instance(Mapping, fix="pass {model: ranked ids (Q, depth)}")
_CALLABLE = Instance(Callable, fix="pass a function")
_JUDGEMENTS = Instance(Judgements, fix="pass the pooled fireeval.core.judgements.Judgements (judge_pool)")
_THRESHOLDS = Array(0, 1)  # thresholds of caption agreement, which lies in [0, 1]
_BY_PROXY = Instance(Mapping, fix="pass {proxy: scores (Q, V)}")
_OWN_VIDEO = [Instance(Sequence, np.ndarray, fix="pass each query's own video (a list, range or array of int)"), None]
_THRESHOLD_OF = Instance(Mapping, fix="pass {proxy: threshold}")
# (fireeval.t2v.similarity.PROXIES: that module loads scipy, which scoring a matrix does not need)
_PROXIES = ("bow", "pos", "syn", "meteor")
# a proxy's name where a ``similarity`` function may replace it (then only a label): similarity_matrix checks it
_PROXY = STR


def _check_frame(name, value, optional=False):
    """A DataFrame (duck-typed: pandas is imported where it is used)."""
    if (optional and value is None) or (hasattr(value, "columns") and hasattr(value, "loc")):
        return
    raise ParamError(f"{name}={value!r:.60} is a {type(value).__name__}, not a DataFrame. "
                     "Fix: pass the DataFrame this module's table functions return" + " or None" * optional)


_FRAME = Check(_check_frame, fix="pass a DataFrame")
_FRAME_OR_NONE = Check(lambda name, value: _check_frame(name, value, optional=True), fix="pass a DataFrame or None")


# --------------------------------------------------------------------------- ranked lists
@validate_params(similarity=ARRAY, depth=[Int(1), None])
def ranked_lists(similarity, depth: int | None = None) -> np.ndarray:
    """Item ids of each query's ranking by similarity: shape ``(n_queries, depth)``.

    Similarity descending; ties keep the lower item index first (a stable sort of
    ``-similarity``), so the result does not depend on numpy's sort algorithm.
    ``similarity`` may have leading axes (models): ``(..., n_queries, n_items)``.

    Parameters
    ----------
    similarity : array_like (..., n_queries, n_items)
        Scores, higher = better.
    depth : int, optional
        Items kept per query (default: all).

    Returns
    -------
    int ndarray (..., n_queries, depth)

    >>> ranked_lists([[0.1, 0.9, 0.9, 0.0]], depth=3)
    array([[1, 2, 0]])
    """
    sim = np.asarray(similarity)
    if sim.ndim < 2:
        raise ValueError(f"similarity must be (n_queries, n_items), got shape {sim.shape}")
    if not np.isfinite(sim).all():
        bad = np.argwhere(~np.isfinite(sim))[0]
        raise ValueError(f"similarity has a non-finite value at index {tuple(bad.tolist())}; "
                         "fix: replace NaN/inf scores (e.g. by -1e9 for items that must rank last)")
    order = np.argsort(-sim, axis=-1, kind="stable")
    return order[..., :depth] if depth else order


@validate_params(lists=ARRAY, n_items=Int(1), depth=Int(1))
def pool(lists, n_items: int, depth: int = 10) -> np.ndarray:
    """Which (query, item) pairs each model puts in its top ``depth``: bool ``(n_models, Q, n_items)``.

    ``lists`` is ``(n_models, n_queries, >= depth)``; ``-1`` entries are ignored.

    Parameters
    ----------
    lists : array_like of int (n_models, n_queries, >= depth)
        Ranked item ids.
    n_items : int
        Items in the collection.
    depth : int
        Pool depth.

    Returns
    -------
    bool ndarray (n_models, n_queries, n_items)

    >>> pool([[[2, 0]], [[1, 2]]], n_items=3, depth=1).astype(int)
    array([[[0, 0, 1]],
    <BLANKLINE>
           [[0, 1, 0]]])
    """
    top = np.asarray(lists)[..., :depth]
    if top.ndim != 3:
        raise ValueError(f"lists must be (n_models, n_queries, depth), got shape {top.shape}")
    if top.max(initial=-1) >= n_items:
        raise ValueError(f"lists hold item id {top.max()} but n_items is {n_items}")
    n_models, n_queries, _ = top.shape
    mask = np.zeros((n_models, n_queries, n_items), dtype=bool)
    m, q, r = np.nonzero(top >= 0)
    mask[m, q, top[m, q, r]] = True
    return mask


@validate_params(lists=[_RUNS, ARRAY], n_items=Int(1), annotator=[ARRAY, _CALLABLE], depth=Int(1),
                 models=[Instance(list, tuple, fix="pass the model names as a list"), None])
def judge_pool(lists: Mapping[str, np.ndarray] | np.ndarray, n_items: int, annotator: Callable | np.ndarray,
               depth: int = 10, models: Sequence[str] | None = None) -> Judgements:
    """Pool each model's top ``depth`` and judge every pooled pair with ``annotator``.

    ``lists`` maps model name -> ``(n_queries, >= depth)`` ranked ids (or is a
    ``(n_models, Q, depth)`` array with ``models`` naming its rows). ``annotator`` is
    either a bool ``(Q, n_items)`` verdict matrix or a callable ``f(q_idx, v_idx) -> bool
    array`` that judges only the pooled pairs (FIRE never judges anything else).

    Parameters
    ----------
    lists : dict or ndarray
        As above.
    n_items : int
        Items in the collection.
    annotator : bool ndarray (Q, n_items) or callable
        As above.
    depth : int
        Pool depth.
    models : sequence of str, optional
        The model names of an array ``lists``.

    Returns
    -------
    fireeval.core.judgements.Judgements

    Examples
    --------
    Two models pool their top 1; the annotator knows the truth (two false negatives):

    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> truth = original.copy(); truth[0, 1] = truth[1, 2] = True
    >>> judgements = judge_pool(lists, 3, truth, depth=1)
    >>> judgements.models, judgements.judged.astype(int).tolist(), judgements.relevant.astype(int).tolist()
    (('A', 'B'), [[1, 1, 0], [0, 1, 1], [0, 1, 1]], [[1, 1, 0], [0, 1, 1], [0, 0, 1]])
    """
    if isinstance(lists, Mapping):
        models = list(lists)
        stacked = np.stack([np.asarray(lists[m])[:, :depth] for m in models])
    else:
        stacked = np.asarray(lists)[..., :depth]
        models = list(models) if models is not None else [f"model{i}" for i in range(len(stacked))]
    contributed = pool(stacked, n_items, depth)
    judged = contributed.any(axis=0)
    relevant = np.zeros_like(judged)
    q, v = np.nonzero(judged)
    if callable(annotator):
        relevant[q, v] = np.asarray(annotator(q, v), dtype=bool)
    else:
        verdicts = np.asarray(annotator, dtype=bool)
        if verdicts.shape != judged.shape:
            raise ValueError(f"annotator verdicts have shape {verdicts.shape}, expected {judged.shape}")
        relevant[q, v] = verdicts[q, v]
    return Judgements(tuple(models), contributed, judged, relevant)


# --------------------------------------------------------------------------- scoring
@validate_params(lists=ARRAY, positives=ARRAY)
def gains_of(lists, positives) -> np.ndarray:
    """Binary gains (1 = positive) of ranked ``lists`` (..., Q, depth) under ``positives`` (Q, V).

    Parameters
    ----------
    lists : array_like of int (..., Q, depth)
        Ranked item ids (``-1``: none).
    positives : array_like of bool (Q, V)
        The positives.

    Returns
    -------
    int ndarray (..., Q, depth)

    Examples
    --------
    >>> gains_of([[0, 1, 2], [2, 1, 0]], [[True, True, False], [True, False, False]]).tolist()
    [[1, 1, 0], [0, 0, 1]]
    """
    lists = np.asarray(lists)
    positives = np.asarray(positives, dtype=bool)
    q = np.arange(lists.shape[-2])[:, None]
    return np.where(lists >= 0, positives[q, np.maximum(lists, 0)], False).astype(np.int8)


@validate_params(lists=ARRAY, positives=ARRAY, ks=CUTOFFS, ap_depth=Int(1), ap=Options("fire", "trec"))
def per_query_scores(lists, positives, ks: Sequence[int] = (1, 5, 10), ap_depth: int = 20,
                     ap: str = "fire") -> dict[str, np.ndarray]:
    """Per-query C@K for each K and AP@K at K = ``ap_depth``: ``{name: array (..., n_queries)}``.

    ``ap="fire"`` (FIRE's code): mean precision at the positives retrieved in the top
    ``ap_depth``; ``ap="trec"``: divided by all positives of the query instead.

    .. math:: C@K = [\\min_i \\mathrm{rank}(p_i) \\le K], \\qquad
              AP@D = \\frac{1}{|\\{i \\le D : g_i = 1\\}|} \\sum_{i \\le D,\\, g_i = 1} P@i

    (the denominator is the query's positives with ``ap="trec"``).

    Parameters
    ----------
    lists : array_like of int (..., Q, depth)
        Ranked item ids.
    positives : array_like of bool (Q, V)
        The positives.
    ks : sequence of int
        The cut-offs of C@K.
    ap_depth : int
        The depth of AP.
    ap : {"fire", "trec"}
        AP's denominator.

    Returns
    -------
    dict
        ``{"C@K": ..., "AP@D": ...}``, arrays ``(..., Q)``.

    >>> pos = np.array([[False, True, True]])
    >>> s = per_query_scores([[1, 0, 2]], pos, ks=(1,), ap_depth=3)
    >>> s["C@1"], s["AP@3"]            # (1/1 + 2/3) / 2
    (array([1.]), array([0.83333333]))
    """
    from fireeval.core import measures

    # (the checks of gains_of and measures.score are skipped: their arguments are built here from checked ones,
    # and a chapter calls this per model, threshold and labelling)
    gains = gains_of.__wrapped__(lists, positives)
    score = measures.score.__wrapped__
    n_positive = np.broadcast_to(np.asarray(positives, dtype=bool).sum(axis=-1), gains.shape[:-1])
    # The registered measures: C@K is trec_eval's success_K; FIRE's AP@K averages over the positives
    # found in the top K (FIRE_AP@K), trec_eval's over all of them (map_cut_K).
    out = {f"C@{k}": score(f"C@{k}", gains, n_positive) for k in ks}
    ap_name = f"FIRE_AP@{ap_depth}" if ap == "fire" else f"map_cut_{ap_depth}"
    out[f"AP@{ap_depth}"] = score(ap_name, gains, n_positive)
    return out


@validate_params(lists=_RUNS, positives=[ARRAY, Instance(Mapping, fix="pass {model: positives (Q, V)}")])
def score_table(lists: Mapping[str, np.ndarray], positives: Mapping[str, np.ndarray] | np.ndarray,
                **kwargs) -> pd.DataFrame:
    """Mean scores: rows = models, columns = metrics. ``positives`` may be per model.

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, depth)}``.
    positives : bool ndarray (Q, V) or dict of them
        The positives (per model when a dict).
    **kwargs
        Options of :func:`per_query_scores`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> score_table(lists, original, ks=(1,), ap_depth=2).round(3).to_dict("index")
    {'A': {'C@1': 0.333, 'AP@2': 0.667}, 'B': {'C@1': 0.667, 'AP@2': 0.833}}
    """
    import pandas as pd

    rows = {}
    for name, lst in lists.items():
        pos = positives[name] if isinstance(positives, Mapping) else positives
        rows[name] = {k: float(v.mean()) for k, v in per_query_scores(lst, pos, **kwargs).items()}
    return pd.DataFrame.from_dict(rows, orient="index")


@validate_params(lists=_RUNS, original=ARRAY, corrected=ARRAY)
def table1(lists: Mapping[str, np.ndarray], original, corrected, **kwargs) -> pd.DataFrame:
    """FIRE Table 1: each model's scores with original and corrected positives, and the delta.

    Long frame with columns model, metric, original, corrected, delta (corrected - original).

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, depth)}``.
    original, corrected : bool ndarray (Q, V)
        The two sets of positives.
    **kwargs
        Options of :func:`per_query_scores`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> truth = original.copy(); truth[0, 1] = truth[1, 2] = True
    >>> table1(lists, original, truth, ks=(1,), ap_depth=2).round(3).values.tolist()
    [['A', 'C@1', 0.333, 0.667, 0.333], ['A', 'AP@2', 0.667, 0.833, 0.167], ['B', 'C@1', 0.667, 1.0, 0.333], ['B', 'AP@2', 0.833, 1.0, 0.167]]
    """
    import pandas as pd

    orig = score_table(lists, original, **kwargs)
    corr = score_table(lists, corrected, **kwargs)
    frame = pd.DataFrame({"original": orig.stack(), "corrected": corr.stack()})
    frame["delta"] = frame["corrected"] - frame["original"]
    return frame.rename_axis(["model", "metric"]).reset_index()


@validate_params(t1=_FRAME)
def table1_nested(t1: pd.DataFrame) -> dict:
    """A :func:`table1` frame as ``{model: {metric: {"original", "corrected", "delta"}}}`` (fractions).

    Parameters
    ----------
    t1 : pandas.DataFrame
        A :func:`table1` frame.

    Returns
    -------
    dict

    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["m"], "metric": ["C@1"], "original": [0.5], "corrected": [0.75],
    ...                   "delta": [0.25]})
    >>> table1_nested(t)
    {'m': {'C@1': {'original': 0.5, 'corrected': 0.75, 'delta': 0.25}}}
    """
    return {m: {r.metric: {"original": r.original, "corrected": r.corrected, "delta": r.delta}
                for r in g.itertuples()} for m, g in t1.groupby("model", sort=False)}


@validate_params(t1=_FRAME, paper=Instance(Mapping, fix="pass {model: {metric: (original, corrected)}}"), source=STR,
                 truth=_FRAME_OR_NONE, metrics=[Instance(list, tuple, fix="pass the metrics as a list"), None])
def table1_comparison(t1: pd.DataFrame, paper: Mapping[str, Mapping[str, tuple]], source: str,
                      truth: pd.DataFrame | None = None, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Our Table 1 beside the paper's, in percent: rows (source, model), columns (metric, quantity).

    ``t1`` is a :func:`table1` frame (fractions), labelled ``source``; ``paper`` is
    ``{model: {metric: (corrected %, original %, delta %)}}`` as printed (quote the
    paper's three numbers: recomputing corrected = original + delta from rounded parts
    can miss the printed value by 0.1), or ``(original %, delta %)`` when only those
    are printed, labelled "FIRE paper (human labels)"; ``truth`` (optional, fractions) is a
    :func:`score_table` against every truly relevant item (simulations), labelled
    "simulation truth" with only the corrected column. Columns keep ``metrics`` order
    (default: the order of ``t1``), restricted to metrics present in ``t1``; each with
    original, corrected, delta.

    Parameters
    ----------
    t1 : pandas.DataFrame
        A :func:`table1` frame.
    paper : dict
        The paper's printed numbers, as above.
    source : str
        The label of ``t1``'s rows.
    truth : pandas.DataFrame, optional
        A :func:`score_table` against the truth.
    metrics : sequence of str, optional
        The metrics shown.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> truth = original.copy(); truth[0, 1] = truth[1, 2] = True
    >>> t1 = table1(lists, original, truth, ks=(1,), ap_depth=2)
    >>> table1_comparison(t1, {"A": {"C@1": (100.0, 66.7, 33.3)}}, "ours", metrics=["C@1"]).round(1).values.tolist()
    [[33.3, 66.7, 33.3], [66.7, 100.0, 33.3], [66.7, 100.0, 33.3]]
    """
    import pandas as pd

    ours = t1.assign(**{c: t1[c] * 100 for c in ("original", "corrected", "delta")})
    ours["source"] = source
    def printed(values):
        return dict(zip(("corrected", "original", "delta"), values)) if len(values) == 3 else \
            {"original": values[0], "delta": values[1], "corrected": values[0] + values[1]}

    rows = pd.DataFrame([{"model": m, "metric": k, **printed(v), "source": "FIRE paper (human labels)"}
                         for m, vals in paper.items() for k, v in vals.items()])
    if truth is not None:
        stacked = truth.stack().mul(100)
        ours = pd.concat([ours, pd.DataFrame({"model": stacked.index.get_level_values(0),
                                              "metric": stacked.index.get_level_values(1),
                                              "corrected": stacked.values, "source": "simulation truth"})])
    metrics = list(dict.fromkeys(t1["metric"])) if metrics is None else list(metrics)
    present = set(ours["metric"])
    return (pd.concat([ours, rows]).pivot_table(index=["source", "model"], columns="metric",
                                                values=["original", "corrected", "delta"], sort=False)
            .swaplevel(axis=1).reindex(columns=pd.MultiIndex.from_product(
                [[m for m in metrics if m in present], ["original", "corrected", "delta"]])))


@validate_params(lists=_RUNS, original=ARRAY, judgements=_JUDGEMENTS)
def leave_model_out(lists: Mapping[str, np.ndarray], original, judgements: Judgements,
                    **kwargs) -> pd.DataFrame:
    """FIRE Table 4: every model scored with all judgements ("All") and without its own ("New").

    A model that was not pooled gets the same All and New. Columns: model, data, metrics.

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, depth)}``.
    original : bool ndarray (Q, V)
        The original positives.
    judgements : fireeval.core.judgements.Judgements
        The pooled judgements.
    **kwargs
        Options of :func:`per_query_scores`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    Without its own judgements, model A loses the false negative only it found:

    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> truth = original.copy(); truth[0, 1] = truth[1, 2] = True
    >>> judgements = judge_pool(lists, 3, truth, depth=1)
    >>> leave_model_out(lists, original, judgements, ks=(1,), ap_depth=2).round(3).values.tolist()
    [['A', 'All', 0.667, 0.833], ['A', 'New', 0.333, 0.667], ['B', 'All', 1.0, 1.0], ['B', 'New', 0.667, 0.833]]
    """
    import pandas as pd

    rows = []
    for name, lst in lists.items():
        for data, pos in (("All", judgements.positives(original)), ("New", judgements.leave_out(original, name))):
            scores = per_query_scores(lst, pos, **kwargs)
            rows.append({"model": name, "data": data, **{k: float(v.mean()) for k, v in scores.items()}})
    return pd.DataFrame(rows)


@validate_params(t4=_FRAME)
def leave_model_out_nested(t4: pd.DataFrame) -> dict:
    """A :func:`leave_model_out` frame as ``{model: {"All"|"New": {metric: score}}}``.

    Parameters
    ----------
    t4 : pandas.DataFrame
        A :func:`leave_model_out` frame.

    Returns
    -------
    dict

    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["m", "m"], "data": ["All", "New"], "C@1": [0.5, 0.25]})
    >>> leave_model_out_nested(t)
    {'m': {'All': {'C@1': 0.5}, 'New': {'C@1': 0.25}}}
    """
    metric_cols = [c for c in t4.columns if c not in ("model", "data")]
    return {m: {d: {c: float(g.loc[g["data"] == d, c].iloc[0]) for c in metric_cols} for d in ("All", "New")}
            for m, g in t4.groupby("model", sort=False)}


@validate_params(lists=_RUNS, positives=ARRAY, metrics=Instance(list, tuple, fix="pass the metrics as a list"))
def per_query_array(lists: Mapping[str, np.ndarray], positives, metrics: Sequence[str], **kwargs) -> np.ndarray:
    """Per-query scores of every model and metric as one array ``(n_models, n_metrics, n_queries)``.

    ``metrics`` are names produced by :func:`per_query_scores` with ``kwargs`` (e.g.
    ``["C@1", "AP@20"]`` with ``ks=(1,), ap_depth=20``); the layout is the one
    :func:`fireeval.stats.resampling.bootstrap_deviation_quantile` resamples.

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, depth)}``.
    positives : bool ndarray (Q, V)
        The positives.
    metrics : sequence of str
        The metrics, in order.
    **kwargs
        Options of :func:`per_query_scores`.

    Returns
    -------
    ndarray (n_models, n_metrics, n_queries)

    >>> per_query_array({"m": [[0, 1], [0, 1]]}, np.eye(2, dtype=bool), ["C@1"], ks=(1,)).tolist()
    [[[1.0, 0.0]]]
    """
    out = []
    for lst in lists.values():
        scores = per_query_scores(lst, positives, **kwargs)
        missing = [m for m in metrics if m not in scores]
        if missing:
            raise ValueError(f"metrics {missing} are not computed with {kwargs}; available: {list(scores)}")
        out.append(np.stack([scores[m] for m in metrics]))
    return np.stack(out)


@validate_params(lists=_RUNS, k=Int(1), p=Real(0, 1, closed="neither"))
def prediction_overlap(lists: Mapping[str, np.ndarray], k: int = 10, p: float = 0.9) -> pd.DataFrame:
    """FIRE Table 3: mean top-K overlap and RBO between every pair of models.

    RBO is Webber et al.'s truncated sum to depth K (``rbo``, at most 1 - p^K = 0.651
    for K = 10, p = 0.9) and the extrapolated RBO_EXT (``rbo_ext``). FIRE does not say
    which it reports.

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, >= k)}``.
    k : int
        Depth compared.
    p : float
        RBO's persistence.

    Returns
    -------
    pandas.DataFrame
        Columns pair, overlap, rbo, rbo_ext.

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> prediction_overlap(lists, k=2).round(3).values.tolist()
    [['A & B', 1.0, 0.09, 0.9]]
    """
    import pandas as pd
    from fireeval.stats import agreement

    names = list(lists)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            la, lb = np.asarray(lists[a])[:, :k], np.asarray(lists[b])[:, :k]
            rows.append({"pair": f"{a} & {b}", "overlap": float(agreement.topk_overlap(la, lb, k).mean()),
                         "rbo": float(agreement.rank_biased_overlap(la, lb, p=p, k=k).mean()),
                         "rbo_ext": float(agreement.rank_biased_overlap(la, lb, p=p, k=k, extrapolated=True).mean())})
    return pd.DataFrame(rows)


@validate_params(lists=ARRAY, original=ARRAY, corrected=ARRAY, max_rank=Int(1))
def positive_ranks(lists, original, corrected, max_rank: int = 50) -> pd.DataFrame:
    """FIRE Fig. 12: rank (1-based, up to ``max_rank``) of every positive, labelled original or new.

    Parameters
    ----------
    lists : array_like of int (Q, depth)
        One model's ranked ids.
    original, corrected : array_like of bool (Q, V)
        The positives before and after correction.
    max_rank : int
        The deepest rank reported.

    Returns
    -------
    pandas.DataFrame
        Columns query, rank, kind.

    >>> positive_ranks([[2, 0, 1]], [[1, 0, 0]], [[1, 0, 1]]).values.tolist()
    [[0, 1, 'new'], [0, 2, 'original']]
    """
    import pandas as pd

    top = np.asarray(lists)[:, :max_rank]
    orig = gains_of(top, original).astype(bool)
    new = gains_of(top, corrected).astype(bool) & ~orig
    rows = []
    for label, hits in (("new", new), ("original", orig)):
        q, r = np.nonzero(hits)
        rows.append(pd.DataFrame({"query": q, "rank": r + 1, "source": label}))
    return pd.concat(rows, ignore_index=True).sort_values(["query", "rank"], ignore_index=True)


@validate_params(correct_a=ARRAY, correct_b=ARRAY, name_a=STR, name_b=STR)
def correctness_groups(correct_a, correct_b, name_a: str, name_b: str) -> np.ndarray:
    """FIRE Fig. 3 groups per query: "Both", "<a> only", "<b> only" or "None".

    Parameters
    ----------
    correct_a, correct_b : array_like of bool
        Per query, whether each model is correct.
    name_a, name_b : str
        The models' names.

    Returns
    -------
    ndarray of str

    >>> correctness_groups([1, 1, 0, 0], [1, 0, 1, 0], "A", "B").tolist()
    ['Both', 'A only', 'B only', 'None']
    """
    a = np.asarray(correct_a) > 0
    b = np.asarray(correct_b) > 0
    labels = np.array(["None", f"{name_b} only", f"{name_a} only", "Both"], dtype=object)
    return labels[a.astype(int) * 2 + b.astype(int)]


@validate_params(lists=_RUNS, positives=Instance(Mapping, fix="pass {labelling: positives (Q, V)}"), k=Int(1))
def correctness_by_labels(lists: Mapping[str, np.ndarray], positives: Mapping[str, np.ndarray], k: int,
                          **columns) -> pd.DataFrame:
    """FIRE Figs. 3 and 8: which of the first two models is correct at ``k``, per query and labelling.

    ``positives`` maps a labelling name (e.g. "original", "corrected") to a boolean
    ``(Q, V)`` matrix. One block of rows per labelling, stacked in that order with the
    query index as index; columns: the extra per-query ``columns`` (e.g. caption length),
    ``group`` (:func:`correctness_groups`: "Both", "<a> only", "<b> only", "None") and
    ``labels``.

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, >= k)}``; the first two are compared.
    positives : dict
        ``{labelling: bool (Q, V)}``.
    k : int
        The cut-off.
    **columns
        Per-query columns to carry.

    Returns
    -------
    pandas.DataFrame

    >>> lists = {"A": [[0, 1], [0, 1]], "B": [[1, 0], [1, 0]]}
    >>> correctness_by_labels(lists, {"original": np.eye(2, dtype=bool)}, 1, words=[3, 5]).values.tolist()
    [[3, 'A only', 'original'], [5, 'B only', 'original']]
    """
    import pandas as pd

    names = list(lists)[:2]
    if len(names) < 2:
        raise ValueError(f"need two models to compare, got {names}")
    a, b = names
    frames = []
    for label, pos in positives.items():
        sa = per_query_scores(lists[a], pos, ks=(k,))[f"C@{k}"]
        sb = per_query_scores(lists[b], pos, ks=(k,))[f"C@{k}"]
        frames.append(pd.DataFrame({**columns, "group": correctness_groups(sa, sb, a, b), "labels": label}))
    return pd.concat(frames)


@validate_params(captions=TEXTS)
def caption_lengths(captions: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Length of each caption in words (whitespace tokens) and in characters (stripped).

    Parameters
    ----------
    captions : sequence of str
        The captions.

    Returns
    -------
    (ndarray, ndarray)
        Words and characters.

    Examples
    --------
    >>> words, chars = caption_lengths(["a man", " a dog runs "])
    >>> words.tolist(), chars.tolist()
    ([2, 3], [5, 10])
    """
    words = np.array([len(c.split()) for c in captions])
    chars = np.array([len(c.strip()) for c in captions])
    return words, chars


# --------------------------------------------------------------------------- proxy annotator
AGGREGATES = ("max", "quorum2", "mean")


@validate_params(queries=TEXTS, video_captions=TEXTS, proxy=_PROXY, aggregate=Options(*AGGREGATES),
                 own_video=_OWN_VIDEO, chunk=Int(1), similarity=[_CALLABLE, None])
def caption_agreement(queries: Sequence[str], video_captions: Sequence[Sequence[str]], proxy: str = "bow",
                      aggregate: str = "max", own_video: Sequence[int] | None = None, chunk: int = 200,
                      similarity: Callable | None = None) -> np.ndarray:
    """How well each query agrees with each video's own captions: ``(n_queries, n_videos)`` in [0, 1].

    For query q and video v with captions c_1..c_n, the proxy similarities
    s_i = S'(q, c_i) (:func:`fireeval.t2v.similarity.similarity_matrix`) are aggregated:

    - ``"max"``: max_i s_i -- relevant as soon as *one* person described the video the
      way the query does (a caption is a complete, true description of its video);
    - ``"quorum2"``: the second largest s_i -- at least two captions must agree, which
      ignores one idiosyncratic or mistaken caption;
    - ``"mean"``: mean_i s_i -- penalises videos whose captions describe different
      aspects, so it under-calls relevance for busy videos.

    ``own_video[q]`` is the video query q was written for: the query is one of that
    video's captions, so that video's best-matching caption (the query's own copy) is
    left out (otherwise the original pair scores 1 trivially); this makes the original
    pairs a check on the proxy's recall.
    Captions of one video must be equally many for "mean" to weigh videos alike.

    Parameters
    ----------
    queries : sequence of str
        The queries.
    video_captions : sequence of sequence of str
        Each video's captions.
    proxy : str
        The proxy (:func:`fireeval.t2v.similarity.similarity_matrix`).
    aggregate : {"max", "quorum2", "mean"}
        How a video's captions are combined.
    own_video : sequence of int, optional
        Each query's own video.
    chunk : int
        Queries per block.
    similarity : callable, optional
        ``(queries, captions) -> matrix``, instead of the proxy.

    Returns
    -------
    ndarray (n_queries, n_videos)

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> agreement.round(3).tolist()
    [[0.667, 0.667, 0.0], [1.0, 0.667, 0.0], [0.0, 0.0, 0.667]]
    """
    from fireeval.t2v import similarity as sim_mod

    queries = list(queries)
    counts = np.array([len(c) for c in video_captions])
    if counts.min(initial=1) < 1:
        raise ValueError(f"video {int(np.argmin(counts))} has no captions")
    flat = [c for caps in video_captions for c in caps]
    # every block of queries meets the same captions: their item sets and binary rows are made once (the same
    # numbers, bit for bit, as similarity_matrix or containment_matrix on each block)
    if similarity is None and proxy in ("bow", "pos", "syn"):
        to_flat = sim_mod.similarity_to(flat, proxy)
        similarity = lambda a, b: to_flat(a)  # noqa: E731  (b is always `flat`)
    elif similarity is containment_matrix:
        words = sim_mod.content_words.__wrapped__  # (unchecked: called per text; the texts are checked above)
        contained_in_flat = sim_mod.set_containment_to([words(c) for c in flat])
        similarity = lambda a, b: contained_in_flat([words(q) for q in a])  # noqa: E731
    similarity = similarity or (lambda a, b: sim_mod.similarity_matrix(a, b, proxy=proxy))
    owner = np.repeat(np.arange(len(video_captions)), counts)
    width = int(counts.max())
    # Pad every video to `width` caption slots so aggregation is one reduction over an axis.
    starts = np.cumsum(counts) - counts
    slot = np.arange(len(flat)) - np.repeat(starts, counts)
    own = None if own_video is None else np.asarray(own_video, dtype=int)
    out = np.empty((len(queries), len(video_captions)))
    for start in range(0, len(queries), chunk):
        stop = min(start + chunk, len(queries))
        s = np.asarray(similarity(queries[start:stop], flat), dtype=float)
        grid = np.full((stop - start, len(video_captions), width), np.nan)
        grid[:, owner, slot] = s
        if own is not None:
            # Drop the own video's best-matching caption: the query itself, also when the
            # benchmark's copy differs in punctuation (12 of MSR-VTT 1k-A's 1000 queries).
            rows = np.arange(stop - start)
            own_rows = grid[rows, own[start:stop]]
            best = np.nanargmax(np.where(np.isnan(own_rows), -np.inf, own_rows), axis=1)
            grid[rows, own[start:stop], best] = np.nan
        out[start:stop] = _aggregate(grid, aggregate)
    return out


def _aggregate(grid, aggregate):
    if aggregate == "mean":
        return np.nanmean(grid, axis=-1)
    if grid.shape[-1] == 0:  # (the sort below raises the usual IndexError)
        filled = np.where(np.isnan(grid), -np.inf, grid)
        ordered = -np.sort(-filled, axis=-1)
        value = ordered[..., min(0 if aggregate == "max" else 1, ordered.shape[-1] - 1)]
    elif aggregate == "max" or grid.shape[-1] == 1:
        value = np.fmax.reduce(grid, axis=-1)  # skips NaN; all-NaN gives NaN, set to 0 below
    else:  # the second largest, NaN as -inf: a partition, not a full sort
        value = np.partition(np.where(np.isnan(grid), -np.inf, grid), -2, axis=-1)[..., -2]
    return np.where(np.isfinite(value), value, 0.0)


@validate_params(agreement_scores=ARRAY, threshold=Real(0, 1))
def proxy_verdicts(agreement_scores, threshold: float) -> np.ndarray:
    """The proxy annotator's verdicts: relevant when the caption agreement reaches ``threshold``.

    Parameters
    ----------
    agreement_scores : array_like
        :func:`caption_agreement`'s scores.
    threshold : float
        The least score called relevant.

    Returns
    -------
    bool ndarray

    Examples
    --------
    >>> proxy_verdicts([[0.2, 0.5, 0.9]], 0.5).tolist()
    [[False, True, True]]
    """
    return np.asarray(agreement_scores) >= threshold


# --------------------------------------------------------------------------- sweeps and samples
@validate_params(lists=_RUNS, original=ARRAY, agreement_scores=ARRAY, thresholds=_THRESHOLDS, depth=Int(1))
def threshold_sweep(lists: Mapping[str, np.ndarray], original, agreement_scores, thresholds: Sequence[float],
                    depth: int = 10, **kwargs) -> pd.DataFrame:
    """Table 1 and pool statistics for every proxy threshold: one row per (threshold, model, metric).

    Extra columns: ``share_relevant`` (proxy-relevant share of the judged pool, FIRE's
    MSR-VTT value is 11.8 %) and ``new_per_query`` (new positives per query).

    Parameters
    ----------
    lists : dict
        ``{model: ranked ids (Q, >= depth)}``.
    original : bool ndarray (Q, V)
        The original positives.
    agreement_scores : ndarray (Q, V)
        :func:`caption_agreement`'s scores.
    thresholds : sequence of float
        The thresholds.
    depth : int
        Pool depth.
    **kwargs
        Options of :func:`per_query_scores`.

    Returns
    -------
    pandas.DataFrame
        Columns threshold, model, metric, original, corrected, delta, share_relevant, new_per_query.

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> sweep = threshold_sweep(lists, original, agreement, [0.5, 0.9], depth=1, ks=(1,), ap_depth=2)
    >>> sweep[["threshold", "model", "metric", "corrected", "share_relevant"]].round(3).values.tolist()[:2]
    [[0.5, 'A', 'C@1', 0.333, 0.667], [0.5, 'A', 'AP@2', 0.667, 0.667]]
    """
    import pandas as pd

    original = np.asarray(original, dtype=bool)
    base = judge_pool(lists, original.shape[1], np.zeros_like(original), depth=depth)  # the pool, once
    frames = []
    for th in thresholds:
        verdicts = proxy_verdicts(agreement_scores, th)
        judged = Judgements(base.models, base.contributed, base.judged, verdicts & base.judged)
        corrected = judged.positives(original)
        t = table1(lists, original, corrected, **kwargs)
        t.insert(0, "threshold", float(th))
        t["share_relevant"] = judged.summary()["share_relevant"]
        t["new_per_query"] = float((corrected & ~original).sum() / original.shape[0])
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


@validate_params(queries=TEXTS, video_captions=TEXTS, judgements=_JUDGEMENTS, agreement_scores=ARRAY, original=ARRAY,
                 n=Int(1), seed=SEED, proxy=_PROXY, similarity=[_CALLABLE, None])
def verdict_sample(queries: Sequence[str], video_captions: Sequence[Sequence[str]], judgements: Judgements,
                   agreement_scores, original, n: int = 12, seed: int = 0, proxy: str = "bow",
                   similarity: Callable | None = None) -> pd.DataFrame:
    """A seeded sample of the proxy's verdicts on pooled pairs (not original positives), half each verdict.

    Columns: query, video (column index), verdict, agreement, the video's caption that
    agrees best with the query, and two more of its captions -- enough to see why
    the proxy said what it said.

    Parameters
    ----------
    queries : sequence of str
        The queries.
    video_captions : sequence of sequence of str
        Each video's captions.
    judgements : fireeval.core.judgements.Judgements
        The pooled pairs.
    agreement_scores : ndarray (Q, V)
        The proxy's scores.
    original : bool ndarray (Q, V)
        The original positives (left out).
    n : int
        Pairs drawn.
    seed : int
        Seed.
    proxy : str
        The proxy that finds the best-matching caption.
    similarity : callable, optional
        Instead of the proxy.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> judgements = judge_pool(lists, 3, agreement >= 0.5, depth=2)
    >>> verdict_sample(queries, captions, judgements, agreement, original, n=2)[["query", "video", "verdict"]].values.tolist()
    [['a man drives a car', 1, 'relevant'], ['a woman sings', 1, 'not relevant']]
    """
    import pandas as pd

    from fireeval.t2v import similarity as sim_mod

    similarity = similarity or (lambda a, b: sim_mod.similarity_matrix(a, b, proxy=proxy))
    rng = np.random.default_rng(seed)
    candidates = judgements.judged & ~np.asarray(original, dtype=bool)
    rows = []
    for verdict in (True, False):
        q, v = np.nonzero(candidates & (judgements.relevant == verdict))
        take = rng.choice(len(q), size=min(n - n // 2 if verdict else n // 2, len(q)), replace=False)
        for i in sorted(take):
            caps = list(video_captions[v[i]])
            s = np.asarray(similarity([queries[q[i]]], caps))[0]
            order = np.argsort(-s, kind="stable")
            rows.append({"query": queries[q[i]], "video": int(v[i]),
                         "verdict": "relevant" if verdict else "not relevant",
                         "agreement": float(agreement_scores[q[i], v[i]]),
                         "best-matching caption of the video": caps[order[0]],
                         "two other captions": " | ".join(caps[j] for j in order[1:][rng.permutation(len(caps) - 1)[:2]])})
    return pd.DataFrame(rows)


@validate_params(agreement_scores=ARRAY, judgements=_JUDGEMENTS, original=ARRAY, thresholds=_THRESHOLDS,
                 truth=[ARRAY, None])
def proxy_calibration(agreement_scores, judgements: Judgements, original, thresholds: Sequence[float],
                      truth=None) -> pd.DataFrame:
    """Per threshold: the proxy's recall on original pairs (own caption held out), its
    relevant share in the judged pool and among all non-original pairs; with ``truth``
    (simulations only) also its precision and recall on the pooled pairs.

    Parameters
    ----------
    agreement_scores : ndarray (Q, V)
        The proxy's scores.
    judgements : fireeval.core.judgements.Judgements
        The pooled pairs.
    original : bool ndarray (Q, V)
        The original positives.
    thresholds : sequence of float
        The thresholds.
    truth : bool ndarray (Q, V), optional
        The true relevance (simulations).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> judgements = judge_pool(lists, 3, agreement >= 0.5, depth=2)
    >>> proxy_calibration(agreement, judgements, original, [0.5, 0.9]).round(3).values.tolist()
    [[0.5, 1.0, 0.333, 0.333], [0.9, 0.0, 0.0, 0.167]]
    """
    import pandas as pd

    original = np.asarray(original, dtype=bool)
    a = np.asarray(agreement_scores)
    pooled = judgements.judged & ~original
    rows = []
    for th in thresholds:
        v = a >= th
        row = {"threshold": float(th), "recall_on_original": float(v[original].mean()),
               "share_relevant_in_pool": float(v[pooled].mean()),
               "share_relevant_all_pairs": float(v[~original].mean())}
        if truth is not None:
            t = np.asarray(truth, dtype=bool)[pooled]
            hit = v[pooled]
            row["precision_in_pool"] = float((hit & t).sum() / hit.sum()) if hit.any() else float("nan")
            row["recall_in_pool"] = float((hit & t).sum() / t.sum()) if t.any() else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- comparing proxy annotators
@validate_params(agreement_scores=ARRAY, pooled=ARRAY, target_share=Real(0, 1), thresholds=_THRESHOLDS)
def calibrated_threshold(agreement_scores, pooled, target_share: float, thresholds: Sequence[float]) -> float:
    """The threshold in ``thresholds`` whose relevant share of the ``pooled`` pairs is closest to ``target_share``.

    Used to put proxies on an equal footing: each is made to call as many pooled pairs
    relevant as FIRE's people did (11.8 % on MSR-VTT); ties go to the stricter threshold.

    Parameters
    ----------
    agreement_scores : array_like
        The proxy's scores.
    pooled : array_like of bool
        The pooled pairs.
    target_share : float
        The relevant share aimed at.
    thresholds : sequence of float
        The candidates.

    Returns
    -------
    float

    >>> calibrated_threshold([[0.1, 0.5, 0.9, 0.3]], [[True] * 4], 0.25, [0.2, 0.4, 0.6])
    0.6
    """
    a = np.asarray(agreement_scores, dtype=float)[np.asarray(pooled, dtype=bool)]
    if a.size == 0:
        raise ValueError("no pooled pairs: cannot calibrate a threshold")
    ths = np.asarray(sorted(thresholds), dtype=float)
    shares = (a[None, :] >= ths[:, None]).mean(axis=1)
    gap = np.abs(shares - target_share)
    return float(ths[np.flatnonzero(gap <= gap.min() + 1e-12)[-1]])


def _verdicts(scores: Mapping[str, np.ndarray], thresholds: Mapping[str, float], mask) -> dict:
    mask = np.asarray(mask, dtype=bool)
    missing = [p for p in scores if p not in thresholds]
    if missing:
        raise ValueError(f"no threshold given for proxies {missing}")
    return {p: np.asarray(s)[mask] >= thresholds[p] for p, s in scores.items()}


def _kappa(a, b) -> float:
    """Cohen's kappa of two boolean verdict vectors (NaN when chance agreement is 1)."""
    po = float((a == b).mean())
    pa, pb = a.mean(), b.mean()
    pe = float(pa * pb + (1 - pa) * (1 - pb))
    return (po - pe) / (1 - pe) if pe < 1 else float("nan")


@validate_params(scores=_BY_PROXY, thresholds=_THRESHOLD_OF, mask=ARRAY)
def verdict_overlap(scores: Mapping[str, np.ndarray], thresholds: Mapping[str, float], mask) -> pd.DataFrame:
    """How far several thresholded proxy annotators agree on the same pairs (``mask``).

    One row per pair of proxies: share of pairs with the same verdict, Cohen's kappa,
    and the Jaccard index of the two sets of pairs called relevant (agreement on the
    *positives*, which the share of equal verdicts hides when most pairs are negative).

    Parameters
    ----------
    scores : dict
        ``{proxy: scores}``.
    thresholds : dict
        ``{proxy: threshold}``.
    mask : array_like of bool
        The pairs compared.

    Returns
    -------
    pandas.DataFrame

    >>> verdict_overlap({"a": np.array([0.9, 0.1, 0.8]), "b": np.array([0.9, 0.2, 0.1])},
    ...                 {"a": 0.5, "b": 0.5}, np.ones(3, bool)).round(3).values.tolist()
    [['a', 'b', 0.667, 0.4, 0.5]]
    """
    import pandas as pd

    v = _verdicts(scores, thresholds, mask)
    names = list(v)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            union = (v[a] | v[b]).sum()
            rows.append({"proxy a": a, "proxy b": b, "same verdict": float((v[a] == v[b]).mean()),
                         "kappa": _kappa(v[a], v[b]),
                         "jaccard of relevant": float((v[a] & v[b]).sum() / union) if union else float("nan")})
    return pd.DataFrame(rows, columns=["proxy a", "proxy b", "same verdict", "kappa", "jaccard of relevant"])


@validate_params(scores=_BY_PROXY, thresholds=_THRESHOLDS, reference=ARRAY, mask=ARRAY)
def verdict_accuracy(scores: Mapping[str, np.ndarray], thresholds: Sequence[float], reference, mask) -> pd.DataFrame:
    """Each proxy at each threshold against reference labels (human labels or a simulation's truth).

    ``reference`` and ``mask`` are boolean ``(Q, V)``: the labels, and which pairs carry
    one. One row per (proxy, threshold): accuracy, precision, recall and Cohen's kappa.

    Parameters
    ----------
    scores : dict
        ``{proxy: scores (Q, V)}``.
    thresholds : sequence of float
        The thresholds.
    reference, mask : bool ndarray (Q, V)
        As above.

    Returns
    -------
    pandas.DataFrame
        Columns proxy, threshold, accuracy, precision, recall, kappa.

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> truth = np.eye(3, dtype=bool); truth[0, 1] = truth[1, 2] = True
    >>> verdict_accuracy({"bow": agreement}, [0.5], truth, np.ones((3, 3), bool)).round(3).values.tolist()
    [['bow', 0.5, 0.778, 0.8, 0.8, 0.55]]
    """
    import pandas as pd

    mask = np.asarray(mask, dtype=bool)
    ref = np.asarray(reference, dtype=bool)[mask]
    rows = []
    for p, s in scores.items():
        values = np.asarray(s, dtype=float)[mask]
        for th in thresholds:
            hit = values >= th
            rows.append({"proxy": p, "threshold": float(th), "accuracy": float((hit == ref).mean()),
                         "precision": float((hit & ref).sum() / hit.sum()) if hit.any() else float("nan"),
                         "recall": float((hit & ref).sum() / ref.sum()) if ref.any() else float("nan"),
                         "kappa": _kappa(hit, ref)})
    return pd.DataFrame(rows)


@validate_params(queries=TEXTS, video_captions=TEXTS, scores=_BY_PROXY, thresholds=_THRESHOLD_OF, candidates=ARRAY,
                 n_per_stratum=Int(1), seed=SEED, n_captions=Int(1))
def stratified_verdicts(queries: Sequence[str], video_captions: Sequence[Sequence[str]],
                        scores: Mapping[str, np.ndarray], thresholds: Mapping[str, float], candidates,
                        n_per_stratum: int = 8, seed: int = 0, n_captions: int = 3) -> pd.DataFrame:
    """A seeded sample of (query, video) pairs stratified by how many proxies call them relevant.

    Strata are 0, 1, ..., P proxies saying "relevant" (P = number of proxies), with up
    to ``n_per_stratum`` pairs each, drawn from ``candidates`` (boolean ``(Q, V)``, e.g.
    pooled non-original pairs). The disagreement strata are where a reader can judge
    which proxy is right. Columns: stratum, query, ``n_captions`` of the video's captions
    (the best BoW match first, then seeded others), each proxy's score, and the
    verdict string ("+" relevant, "-" not) in proxy order.

    Parameters
    ----------
    queries : sequence of str
        The queries.
    video_captions : sequence of sequence of str
        Each video's captions.
    scores : dict
        ``{proxy: scores (Q, V)}``.
    thresholds : dict
        ``{proxy: threshold}``.
    candidates : bool ndarray (Q, V)
        The pairs drawn from.
    n_per_stratum : int
        Pairs per stratum.
    seed : int
        Seed.
    n_captions : int
        Captions shown per video.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> containment = agreement_for(queries, captions, "containment", own_video=[0, 1, 2])
    >>> sample = stratified_verdicts(queries, captions, {"bow": agreement, "cont": containment},
    ...                              {"bow": 0.5, "cont": 0.9}, ~np.eye(3, dtype=bool), n_per_stratum=1)
    >>> sample[["proxies saying relevant", "query", "verdicts"]].values.tolist()
    [['0 of 2', 'a woman sings', 'bow- cont-'], ['1 of 2', 'a man drives a car', 'bow+ cont-'], ['2 of 2', 'a man in a car', 'bow+ cont+']]
    """
    import pandas as pd

    from fireeval.t2v import similarity as sim_mod

    rng = np.random.default_rng(seed)
    candidates = np.asarray(candidates, dtype=bool)
    names = list(scores)
    votes = sum((np.asarray(scores[p]) >= thresholds[p]).astype(int) for p in names)
    rows = []
    for stratum in range(len(names) + 1):
        q, v = np.nonzero(candidates & (votes == stratum))
        for i in sorted(rng.choice(len(q), size=min(n_per_stratum, len(q)), replace=False)):
            caps = list(video_captions[v[i]])
            best = int(np.argmax(sim_mod.similarity_matrix([queries[q[i]]], caps, "bow")[0]))
            others = [j for j in rng.permutation(len(caps)) if j != best][:n_captions - 1]
            row = {"proxies saying relevant": f"{stratum} of {len(names)}", "query": queries[q[i]],
                   "video's captions (best BoW match first)": " | ".join(caps[j] for j in [best, *others])}
            row.update({p: float(scores[p][q[i], v[i]]) for p in names})
            row["verdicts"] = " ".join(f"{p}{'+' if scores[p][q[i], v[i]] >= thresholds[p] else '-'}" for p in names)
            rows.append(row)
    return pd.DataFrame(rows)


@validate_params(queries=TEXTS, video_captions=TEXTS, pool_scores=Instance(Mapping,
                 fix="pass {run: similarity (Q, V)}"), proxies=Instance(list, tuple, fix="pass the proxies as a list"),
                 target_share=Real(0, 1), thresholds=[_THRESHOLDS, None], fixed=[_THRESHOLD_OF, None], depth=Int(1),
                 chunk=Int(1), tie_break_seed=[Int(0), None])
def calibrated_annotators(queries: Sequence[str], video_captions: Sequence[Sequence[str]],
                          pool_scores: Mapping[str, np.ndarray], proxies: Sequence[str], target_share: float,
                          thresholds: Sequence[float] | None, fixed: Mapping[str, float] | None = None,
                          depth: int = 10, chunk: int = 500, tie_break_seed: int | None = None) -> dict:
    """Proxy annotators (max agreement over a video's captions) calibrated on the pooled pairs.

    Pools the top ``depth`` of every run in ``pool_scores`` (similarity matrices over
    the same queries and videos, query ``i``'s own video is column ``i``), leaves the
    original pairs out, computes :func:`caption_agreement` (``aggregate="max"``, own
    caption held out) for each proxy and picks its threshold with
    :func:`calibrated_threshold` so its relevant share of the pooled pairs is closest to
    ``target_share`` (``thresholds=None``: on the finest grid, every distinct score, with
    :func:`share_calibrated_threshold`, so the shares match as nearly as ties allow).
    ``fixed`` overrides the threshold of some proxies. ``tie_break_seed``: calibrate
    *by rank* -- a seeded jitter below 1e-9 is added to every score so equal scores at
    the boundary are split at random and every proxy reaches the target share exactly
    (up to one pair); distinct scores keep their order.

    Returns ``{"pooled": (Q, V) bool, "scores": {proxy: (Q, V)}, "thresholds": {proxy: T},
    "pooled_share": {proxy: share of pooled pairs at or above T}}``.

    Parameters
    ----------
    queries : sequence of str
        The queries.
    video_captions : sequence of sequence of str
        Each video's captions.
    pool_scores : dict
        ``{run: similarity (Q, V)}``.
    proxies : sequence of str
        The proxies (:func:`agreement_for` names).
    target_share : float
        The relevant share aimed at.
    thresholds : sequence of float or None
        The candidates (None: every distinct score).
    fixed : dict, optional
        ``{proxy: threshold}`` used as given.
    depth : int
        Pool depth.
    chunk : int
        Queries per block.
    tie_break_seed : int, optional
        Calibrate by rank (see above).

    Returns
    -------
    dict

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> sims = {"A": np.array([[0.9, 0.5, 0.1], [0.2, 0.8, 0.3], [0.1, 0.7, 0.6]])}
    >>> annotators = calibrated_annotators(queries, captions, sims, ["bow"], 0.5, [0.3, 0.5, 0.9], depth=2)
    >>> annotators["thresholds"], annotators["pooled"].astype(int).tolist()
    ({'bow': 0.5}, [[0, 1, 0], [0, 0, 1], [0, 1, 0]])
    """
    first = np.asarray(next(iter(pool_scores.values())))
    n = first.shape[0]
    lists = np.stack([ranked_lists(s, depth=depth) for s in pool_scores.values()])
    pooled = pool(lists, n, depth=depth).any(axis=0) & ~np.eye(n, dtype=bool)
    scores = {p: caption_agreement(queries, video_captions, proxy=p, aggregate="max", own_video=np.arange(n),
                                   chunk=chunk) for p in proxies}
    if tie_break_seed is not None:
        jitter = np.random.default_rng(tie_break_seed).random((n, n)) * 1e-9
        scores = {p: a + jitter for p, a in scores.items()}
    chosen = {p: (share_calibrated_threshold(a, pooled, target_share) if thresholds is None
                  else calibrated_threshold(a, pooled, target_share, thresholds)) for p, a in scores.items()}
    for p, th in (fixed or {}).items():
        if p in scores:
            chosen[p] = th
    shares = {p: float((a[pooled] >= chosen[p]).mean()) for p, a in scores.items()}
    return {"pooled": pooled, "scores": scores, "thresholds": chosen, "pooled_share": shares}


# --------------------------------------------------------------------------- review additions
@validate_params(queries=TEXTS, captions=TEXTS)
def containment_matrix(queries: Sequence[str], captions: Sequence[str]) -> np.ndarray:
    """Share of each query's content words found in each caption: ``|q ∩ c| / |q|``.

    FIRE's annotators marked a pair relevant only when *every* element of the query is
    in the video; containment scores that rule on captions (1 = every content word of
    the query appears in the caption). Unlike IoU it does not penalise a long caption
    for saying more than the query. A query with no content word scores 0.

    .. math:: C(q, c) = \\frac{|W_q \\cap W_c|}{|W_q|}, \\quad C = 0 \\text{ when } W_q = \\emptyset

    Parameters
    ----------
    queries, captions : sequence of str
        The texts.

    Returns
    -------
    ndarray (len(queries), len(captions))

    >>> containment_matrix(["a man drives a car"], ["the man drives a red car on a road", "a dog"])
    array([[1., 0.]])
    """
    from fireeval.t2v import similarity as sim_mod

    words = sim_mod.content_words.__wrapped__  # (unchecked: called per text)
    qs = [words(q) for q in sim_mod.check_captions(queries, "queries")]
    cs = [words(c) for c in sim_mod.check_captions(captions, "captions")]
    return sim_mod.set_containment_matrix(qs, cs)


@validate_params(queries=TEXTS, video_captions=TEXTS, proxy=Options(*_PROXIES, "containment"), own_video=_OWN_VIDEO)
def agreement_for(queries: Sequence[str], video_captions: Sequence[Sequence[str]], proxy: str,
                  own_video: Sequence[int] | None = None) -> np.ndarray:
    """:func:`caption_agreement` (max over the video's captions) for a proxy name, including ``"containment"``.

    Parameters
    ----------
    queries : sequence of str
        The queries.
    video_captions : sequence of sequence of str
        Each video's captions.
    proxy : str
        A proxy of :func:`caption_agreement`, or ``"containment"``.
    own_video : sequence of int, optional
        Each query's own video (its caption held out).

    Returns
    -------
    ndarray (n_queries, n_videos)

    Examples
    --------
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement_for(queries, captions, "containment", own_video=[0, 1, 2]).round(3).tolist()
    [[0.667, 0.667, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    similarity = containment_matrix if proxy == "containment" else None
    return caption_agreement(queries, video_captions, proxy=proxy, aggregate="max", own_video=own_video,
                             similarity=similarity)


@validate_params(agreement_scores=ARRAY, mask=ARRAY, target_share=Real(0, 1), always=[ARRAY, None])
def share_calibrated_threshold(agreement_scores, mask, target_share: float, always=None) -> float:
    """The threshold, among all distinct scores on ``mask``, whose relevant share is closest to ``target_share``.

    The finest grid there is: every achievable share is tried, so proxies calibrated
    this way call (as nearly as their ties allow) the same share of pairs relevant.
    Ties go to the stricter threshold. ``always`` (bool, same shape) marks pairs counted
    relevant whatever their score (the original pairs in a pool), still in the denominator.

    Parameters
    ----------
    agreement_scores : array_like
        The proxy's scores.
    mask : array_like of bool
        The pairs counted.
    target_share : float
        The relevant share aimed at.
    always : array_like of bool, optional
        Pairs relevant whatever their score.

    Returns
    -------
    float

    >>> share_calibrated_threshold([[0.1, 0.5, 0.9, 0.3]], [[True] * 4], 0.5)
    0.5
    >>> share_calibrated_threshold([[0.1, 0.5, 0.9, 0.3]], [[True] * 4], 0.5, always=[[1, 0, 0, 0]])
    0.9
    """
    mask = np.asarray(mask, dtype=bool)
    a_all = np.asarray(agreement_scores, dtype=float)
    fixed = np.zeros_like(mask) if always is None else np.asarray(always, dtype=bool) & mask
    a = a_all[mask & ~fixed]
    n_total, n_fixed = int(mask.sum()), int(fixed.sum())
    if n_total == 0:
        raise ValueError("no pairs in the mask: cannot calibrate a threshold")
    values = np.unique(a)
    values = values[values > 0]
    if values.size == 0:
        return 1.0
    ordered = np.sort(a)
    shares = (a.size - np.searchsorted(ordered, values, side="left") + n_fixed) / n_total  # share >= each value
    gap = np.abs(shares - target_share)
    return float(values[np.flatnonzero(gap <= gap.min() + 1e-12)[-1]])


@validate_params(agreement_by_proxy=_BY_PROXY, thresholds=_THRESHOLD_OF, words=ARRAY, edges=ARRAY)
def recall_by_length(agreement_by_proxy: Mapping[str, np.ndarray], thresholds: Mapping[str, float], words,
                     edges: Sequence[int] = (0, 6, 9, 12)) -> pd.DataFrame:
    """Each proxy's recall on the original pairs, by query length in words.

    The original pair (query, its own video; own caption held out) is relevant by
    definition, so the share the proxy calls relevant is its recall. If that recall
    falls with length, a proxy-labelled "short captions have more positives" is partly
    the proxy's own bias. Bins are ``[edges[i], edges[i+1])``, the last open.
    Columns: proxy, length (words), queries, recall on original pairs.

    Parameters
    ----------
    agreement_by_proxy : dict
        ``{proxy: scores (Q, V)}`` with query q's own video in column q.
    thresholds : dict
        ``{proxy: threshold}``.
    words : array_like of int
        Each query's length in words.
    edges : sequence of int
        The bins' lower edges.

    Returns
    -------
    pandas.DataFrame

    >>> recall_by_length({"p": np.eye(3) * [1, 1, 0.2]}, {"p": 0.5}, [3, 4, 12], edges=(0, 6))
      proxy length (words)  queries  recall on original pairs
    0     p             0-5        2                       1.0
    1     p              6+        1                       0.0
    """
    import pandas as pd

    words = np.asarray(words)
    edges = list(edges)
    labels = [f"{a}-{b - 1}" for a, b in zip(edges, edges[1:])] + [f"{edges[-1]}+"]
    which = np.searchsorted(edges, words, side="right") - 1
    rows = []
    for p, a in agreement_by_proxy.items():
        hit = np.diagonal(np.asarray(a)) >= thresholds[p]
        for b, label in enumerate(labels):
            sel = which == b
            rows.append({"proxy": p, "length (words)": label, "queries": int(sel.sum()),
                         "recall on original pairs": float(hit[sel].mean()) if sel.any() else float("nan")})
    return pd.DataFrame(rows)


@validate_params(similarity=ARRAY)
def original_rank_under_ties(similarity) -> dict[str, np.ndarray]:
    """Rank (1 = top) of each query's own video (the diagonal) under three tie rules.

    ``"stable"``: ties keep the lower video index first (:func:`ranked_lists`, this
    book's rule); ``"positive last"``: every tied video ranks above the positive
    (pessimistic); ``"positive first"``: the positive ranks above every tied video.

    Parameters
    ----------
    similarity : array_like (Q, Q)
        Scores with query q's own video in column q.

    Returns
    -------
    dict
        ``{rule: ranks (Q,)}``.

    >>> r = original_rank_under_ties([[0.5, 0.5, 0.1], [0.9, 0.5, 0.5], [0.1, 0.2, 0.3]])
    >>> r["stable"].tolist(), r["positive last"].tolist(), r["positive first"].tolist()
    ([1, 2, 1], [2, 3, 1], [1, 2, 1])
    """
    s = np.asarray(similarity, dtype=float)
    own = np.diagonal(s)[:, None]
    above = (s > own).sum(axis=1)
    tied = (s == own).sum(axis=1) - 1
    col = np.arange(s.shape[1])[None, :]
    tied_before = ((s == own) & (col < np.arange(s.shape[0])[:, None])).sum(axis=1)
    return {"stable": 1 + above + tied_before, "positive last": 1 + above + tied, "positive first": 1 + above}


@validate_params(runs=Instance(Mapping, fix="pass {model: similarity (Q, Q)}"), ks=CUTOFFS)
def tie_table(runs: Mapping[str, np.ndarray], ks: Sequence[int] = (1, 5, 10)) -> pd.DataFrame:
    """C@K of the original positive under each tie rule, and how many queries' positives tie.

    One row per (model, tie rule): ``tied queries`` counts queries whose own video
    shares its score with another video ranked at or above it under some rule.

    Parameters
    ----------
    runs : dict
        ``{model: similarity (Q, Q)}``, own video on the diagonal.
    ks : sequence of int
        The cut-offs.

    Returns
    -------
    pandas.DataFrame
        Columns model, tie rule, tied queries, C@K ...

    Examples
    --------
    >>> tie_table({"A": np.array([[0.5, 0.5, 0.1], [0.9, 0.5, 0.5], [0.1, 0.2, 0.3]])}, ks=(1,)).round(3).values.tolist()
    [['A', 'stable', 2, 0.667], ['A', 'positive last', 2, 0.333], ['A', 'positive first', 2, 0.667]]
    """
    import pandas as pd

    rows = []
    for name, s in runs.items():
        ranks = original_rank_under_ties(s)
        n_tied = int((ranks["positive last"] != ranks["positive first"]).sum())
        for rule, r in ranks.items():
            rows.append({"model": name, "tie rule": rule, "tied queries": n_tied,
                         **{f"C@{k}": float((r <= k).mean()) for k in ks}})
    return pd.DataFrame(rows)


@validate_params(per_query_a=ARRAY, per_query_b=ARRAY, n_resamples=Int(1), seed=SEED, size=[Int(1), None])
def paired_difference(per_query_a, per_query_b, n_resamples: int = 10_000, seed: int = 0,
                      size: int | None = None) -> tuple[float, np.ndarray]:
    """Mean of ``a - b`` over queries and its paired bootstrap distribution.

    Both models are scored on the *same* resampled queries, so what they share in
    query difficulty cancels: the spread is that of the difference, smaller than either
    score's when their per-query scores correlate strongly, larger when they barely do.
    Returns ``(observed difference, resampled means)``.

    Parameters
    ----------
    per_query_a, per_query_b : array_like
        The two models' per-query scores.
    n_resamples : int
        Bootstrap resamples.
    seed : int
        Seed.
    size : int, optional
        Queries per resample (default: all).

    Returns
    -------
    (float, ndarray)

    >>> d, samples = paired_difference([1, 1, 0, 1], [1, 0, 0, 1], n_resamples=200, seed=0)
    >>> d, bool(samples.min() >= 0)
    (0.25, True)
    """
    from fireeval.stats import resampling

    d = np.asarray(per_query_a, dtype=float) - np.asarray(per_query_b, dtype=float)
    return float(d.mean()), resampling.bootstrap_means(d, size, n_resamples, seed)


@validate_params(x=ARRAY, y=ARRAY, n_resamples=Int(1), seed=SEED)
def bootstrap_spearman(x, y, n_resamples: int = 1000, seed: int = 0) -> tuple[float, np.ndarray]:
    """Spearman correlation of ``x`` and ``y`` and its bootstrap distribution (pairs resampled).

    Parameters
    ----------
    x, y : array_like
        Paired values.
    n_resamples : int
        Bootstrap resamples.
    seed : int
        Seed.

    Returns
    -------
    (float, ndarray)
        Spearman's rho and its resampled values.

    Examples
    --------
    >>> rho, samples = bootstrap_spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], n_resamples=100)
    >>> round(rho, 3), samples.shape
    (0.8, (100,))
    """
    from scipy.stats import spearmanr

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n_resamples, len(x)))
    # Spearman = Pearson of ranks; rank each resample once (vectorised over resamples).
    return float(spearmanr(x, y).statistic), _rowwise_spearman(x[idx], y[idx])


def _rowwise_spearman(x_rows, y_rows) -> np.ndarray:
    """Spearman correlation of each row pair (Pearson of ranks), NaN where a row is constant."""
    rx, ry = _rank_rows(x_rows), _rank_rows(y_rows)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    denom = np.sqrt((rx ** 2).sum(axis=1) * (ry ** 2).sum(axis=1))
    return np.divide((rx * ry).sum(axis=1), denom, out=np.full(len(rx), np.nan), where=denom > 0)


@validate_params(rows=ARRAY)
def rank_rows(rows) -> np.ndarray:
    """``scipy.stats.rankdata(rows, axis=1)`` (average ranks of ties), the same floats; rows of small integers
    (query lengths, counts of positives: what the bootstrap resamples) are ranked by counting each value.

    An average rank is ``(values below) + (ties + 1) / 2``, a half-integer held exactly, however it is
    computed; counting the values of each row (a table of rows x value range) costs no sort.

    Parameters
    ----------
    rows : array_like (n_rows, n)
        The values.

    Returns
    -------
    ndarray (n_rows, n) of float

    Examples
    --------
    >>> rank_rows([[3, 1, 3, 2], [0.5, 0.25, 0.5, 0.5]]).tolist()
    [[3.5, 1.0, 3.5, 2.0], [3.0, 1.0, 3.0, 3.0]]
    """
    rows = np.asarray(rows)
    if rows.ndim == 2 and rows.size and rows.dtype.kind in "iuf" and np.isfinite(rows).all():
        low, high = rows.min(), rows.max()
        width = int(high - low) + 1 if high - low < 1 << 16 else 0
        if width and rows.shape[0] * width <= 1 << 24 and (rows == np.floor(rows)).all():
            values = (rows - low).astype(np.intp)  # 0 .. width - 1
            cells = (values + (np.arange(rows.shape[0]) * width)[:, None]).ravel()
            counts = np.bincount(cells, minlength=rows.shape[0] * width).reshape(rows.shape[0], width)
            below = np.cumsum(counts, axis=1) - counts
            return np.take_along_axis(below + (counts + 1) / 2, values, axis=1)
    from scipy.stats import rankdata

    return rankdata(rows, axis=1)


_rank_rows = rank_rows.__wrapped__  # (unchecked: this module's calls, per bootstrap)


def recall_adjusted_spearman(words, new_positives, recalled, edges: Sequence[int] = (0, 6, 9, 12),
                             n_resamples: int = 1000, seed: int = 0) -> tuple[float, np.ndarray]:
    """Spearman of query length with new positives divided by the proxy's recall in the query's length bin.

    A proxy that accepts fewer certainly relevant (original) pairs of long queries
    also finds fewer of their other positives. Dividing each query's new positives by
    the share of original pairs the proxy accepts in its length bin (``recalled``: one
    bool per query; bins ``[edges[i], edges[i+1])``, the last open) removes that bias if
    the proxy's recall on other relevant pairs equals its recall on original pairs and
    it makes no false positives. The bin recalls are re-estimated in every bootstrap
    resample (queries resampled jointly). Returns ``(rho, samples)``.

    >>> rho, _ = recall_adjusted_spearman([3, 4, 12, 13], [2, 3, 1, 1], [True, True, True, False],
    ...                                   edges=(0, 6), n_resamples=10)
    >>> round(rho, 3)
    -0.258
    """
    from scipy.stats import spearmanr

    words = np.asarray(words)
    new = np.asarray(new_positives, dtype=float)
    hit = np.asarray(recalled, dtype=float)
    which = np.searchsorted(list(edges), words, side="right") - 1
    n_bins = len(edges)

    def adjusted(rows):  # rows: (r, n) query indices -> (r, n) adjusted counts
        r = np.arange(len(rows))[:, None]
        key = r * n_bins + which[rows]
        size = np.bincount(key.ravel(), minlength=len(rows) * n_bins)
        hits = np.bincount(key.ravel(), weights=hit[rows].ravel(), minlength=len(rows) * n_bins)
        recall = np.divide(hits, size, out=np.zeros_like(hits), where=size > 0)
        return new[rows] / np.maximum(recall[key], 1e-9)  # a bin with no accepted original: huge, ranks last

    rho = float(spearmanr(words, adjusted(np.arange(len(words))[None, :])[0]).statistic)
    rng = np.random.default_rng(seed)
    samples = []
    for start in range(0, n_resamples, 500):  # chunks bound the memory of (resamples, queries) arrays
        rows = rng.integers(0, len(words), size=(min(500, n_resamples - start), len(words)))
        samples.append(_rowwise_spearman(words[rows], adjusted(rows)))
    return rho, np.concatenate(samples) if samples else np.empty(0)


def recall_corrected_gain(gain, recalled, n_resamples: int = 10_000, seed: int = 0) -> tuple[float, np.ndarray]:
    """Mean gain divided by the proxy's recall on original pairs, queries resampled jointly.

    If the proxy accepts a share ``r`` of the truly relevant pairs (measured on the
    original pairs, which are relevant by definition) and makes no false positives, a
    person's labels would add ``gain / r``. Both numerator and denominator are
    re-estimated on every bootstrap resample of the queries. Returns ``(value, samples)``.

    >>> v, s = recall_corrected_gain([0.0, 1.0, 0.0, 1.0], [True, False, True, True], n_resamples=50)
    >>> round(v, 3), s.shape
    (0.667, (50,))
    """
    g = np.asarray(gain, dtype=float)
    hit = np.asarray(recalled, dtype=float)
    rng = np.random.default_rng(seed)
    samples = []
    for start in range(0, n_resamples, 1000):
        rows = rng.integers(0, len(g), size=(min(1000, n_resamples - start), len(g)))
        r = hit[rows].mean(axis=1)
        samples.append(np.divide(g[rows].mean(axis=1), r, out=np.full(len(r), np.nan), where=r > 0))
    value = g.mean() / hit.mean() if hit.mean() > 0 else float("nan")
    return float(value), np.concatenate(samples) if samples else np.empty(0)


def binomial_deviation(p: float, size: int, q: float = 0.95) -> float:
    """Normal approximation to FIRE's budget statistic for a 0/1 score such as C@1.

    The ``q`` quantile of |mean of ``size`` resampled queries − p| is about
    ``z_{(1+q)/2} * sqrt(p (1 − p) / size)``: it depends only on the score level ``p``
    and ``size``, not on anything about false negatives or a second model.

    >>> round(binomial_deviation(0.5, 1000), 4)
    0.031
    """
    from scipy.stats import norm

    return float(norm.ppf((1 + q) / 2) * np.sqrt(p * (1 - p) / size))


@validate_params(lists=_RUNS, original=ARRAY, agreement_scores=ARRAY, thresholds=_THRESHOLDS, depth=Int(1))
def corrected_by_threshold(lists: Mapping[str, np.ndarray], original, agreement_scores, thresholds: Sequence[float],
                           depth: int = 10, **kwargs) -> pd.DataFrame:
    """Corrected scores along a threshold grid, with the pooled relevant share with and without originals.

    :func:`threshold_sweep` plus ``share_with_originals`` (relevant share of all judged
    pairs, originals in the pool included) and ``share_without_originals`` (original
    pairs left out): FIRE's Table 2 does not say which one its 11.8 % is.

    Parameters
    ----------
    lists, original, agreement_scores, thresholds, depth, **kwargs
        As :func:`threshold_sweep`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> lists = {"A": np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]]), "B": np.array([[1, 0, 2], [1, 2, 0], [2, 1, 0]])}
    >>> original = np.eye(3, dtype=bool)
    >>> captions = [["a man drives a car", "a man in a car"], ["a man in a car", "a man in a red car"],
    ...             ["a woman sings", "a woman sings a song"]]
    >>> queries = ["a man drives a car", "a man in a car", "a woman sings"]
    >>> agreement = caption_agreement(queries, captions, own_video=[0, 1, 2])
    >>> swept = corrected_by_threshold(lists, original, agreement, [0.5], depth=1, ks=(1,), ap_depth=2)
    >>> swept[["model", "metric", "share_with_originals", "share_without_originals"]].round(3).values.tolist()[0]
    ['A', 'C@1', 0.667, 0.333]
    """
    original = np.asarray(original, dtype=bool)
    sweep = threshold_sweep(lists, original, agreement_scores, thresholds, depth=depth, **kwargs)
    base = judge_pool(lists, original.shape[1], np.zeros_like(original), depth=depth)
    a = np.asarray(agreement_scores)
    without = base.judged & ~original
    share_wo = {float(t): float((a[without] >= t).mean()) for t in thresholds}
    share_w = {float(t): float(((a >= t) | original)[base.judged].mean()) for t in thresholds}
    sweep["share_without_originals"] = sweep["threshold"].map(share_wo)
    sweep["share_with_originals"] = sweep["threshold"].map(share_w)
    return sweep


@validate_params(similarity=ARRAY)
def positive_loses_ties(similarity) -> np.ndarray:
    """A float64 copy of ``similarity`` whose diagonal is nudged just below its value.

    Every other float32/float64 score that equalled a query's own-video score now ranks
    above it, and no other order changes: the pessimistic tie rule for the original
    positive, for use with :func:`ranked_lists`.

    Parameters
    ----------
    similarity : array_like (Q, Q)
        Scores with the positives on the diagonal.

    Returns
    -------
    float64 ndarray (Q, Q)

    >>> ranked_lists(positive_loses_ties([[0.5, 0.5], [0.5, 0.5]]))
    array([[1, 0],
           [0, 1]])
    """
    s = np.array(similarity, dtype=np.float64)
    d = np.arange(min(s.shape))
    s[d, d] = np.nextafter(s[d, d], -np.inf)
    return s


@validate_params(per_query=ARRAY, size=Int(1), n_resamples=Int(1), seed=SEED, q=Real(0, 1), level=Real(0, 1,
                 closed="neither"))
def deviation_quantile_interval(per_query, size: int, n_resamples: int = 10_000, seed: int = 0, q: float = 0.95,
                                level: float = 0.95) -> tuple[float, float, float]:
    """FIRE's budget statistic for one score vector, with its Monte-Carlo interval.

    The ``q`` quantile of the absolute deviation (mean of a resample of ``size`` queries − full mean) over
    ``n_resamples`` resamples (:func:`fireeval.stats.resampling.bootstrap_deviation_quantile`),
    and a distribution-free ``level`` interval for that quantile from the order
    statistics of the resamples (binomial ranks), so a finite number of resamples is
    not read as an exact value. Deviations are rounded to 1e-12 to drop float noise
    (0/1 scores give multiples of 1/size). Returns ``(value, low, high)``.

    Parameters
    ----------
    per_query : array_like
        One model's per-query scores.
    size : int
        Queries per resample.
    n_resamples : int
        Resamples.
    seed : int
        Seed.
    q : float
        The quantile.
    level : float
        The interval's coverage.

    Returns
    -------
    (float, float, float)

    >>> v, lo, hi = deviation_quantile_interval(np.r_[np.zeros(50), np.ones(50)], 100, n_resamples=2000)
    >>> bool(lo <= v <= hi), round(v, 2)
    (True, 0.1)
    """
    from scipy.stats import binom

    from fireeval.stats import resampling

    scores = np.asarray(per_query, dtype=float)
    # Rounded to 1e-12: for 0/1 scores the deviations are multiples of 1/size, and the float noise of the
    # subtraction (~1e-17) would otherwise put an interval end a hair above a threshold such as 0.029.
    dev = np.sort(np.round(np.abs(resampling.bootstrap_means(scores, size, n_resamples, seed) - scores.mean()), 12))
    value = float(np.quantile(dev, q))
    a = (1 - level) / 2
    lo_rank, hi_rank = binom.ppf([a, 1 - a], n_resamples, q).astype(int)
    return value, float(min(dev[max(lo_rank - 1, 0)], value)), float(max(dev[min(hi_rank, n_resamples - 1)], value))


@validate_params(sweep=_FRAME, calibrated=Instance(Mapping, fix="pass {label: threshold}"))
def correction_band(sweep: pd.DataFrame, calibrated: Mapping[str, float]) -> pd.DataFrame:
    """Table 1 as a band: per (model, metric) the original score, the corrected score at
    each calibrated threshold, and the corrected range over the whole threshold sweep.

    ``sweep`` is a :func:`threshold_sweep` / :func:`corrected_by_threshold` frame that
    contains the ``calibrated`` thresholds (``{label: threshold}``). Fractions.

    Parameters
    ----------
    sweep : pandas.DataFrame
        The threshold sweep.
    calibrated : dict
        ``{label: threshold}``.

    Returns
    -------
    pandas.DataFrame
        Indexed by (model, metric).

    >>> import pandas as pd
    >>> sw = pd.DataFrame({"threshold": [0.3, 0.5, 0.3, 0.5], "model": ["m"] * 4, "metric": ["C@1", "C@1", "AP", "AP"],
    ...                    "original": [0.4, 0.4, 0.3, 0.3], "corrected": [0.6, 0.5, 0.4, 0.35]})
    >>> correction_band(sw, {"cal": 0.5}).loc[("m", "C@1")].tolist()
    [0.4, 0.5, 0.5, 0.6]
    """
    import pandas as pd

    rows = []
    for (model, metric), g in sweep.groupby(["model", "metric"], sort=False):
        by_t = g.set_index("threshold")["corrected"]
        row = {"model": model, "metric": metric, "original": float(g["original"].iloc[0])}
        for label, t in calibrated.items():
            match = by_t[np.isclose(by_t.index.to_numpy(dtype=float), t)]
            row[f"corrected, {label} (T={t:.3f})"] = float(match.iloc[0]) if len(match) else float("nan")
        row["sweep min"], row["sweep max"] = float(by_t.min()), float(by_t.max())
        rows.append(row)
    return pd.DataFrame(rows).set_index(["model", "metric"])
