"""Audit a new run against an existing pooled collection: how much of its score rests on unjudged documents.

A run that did not help build the pool finds documents nobody judged; they count as
non-relevant, so its MAP may understate it. :func:`audit_run` reports, for one run:

* **coverage**: per topic, the share of its top ``k`` that is judged (judged@k) and the
  number of unjudged documents there, for k = 10 and the pool depth;
* **scores under four conventions**: MAP (unjudged = non-relevant, the official score),
  bpref and infAP (made for incomplete judgements), condensed-list MAP (AP′,
  ``trec_eval -J``: unjudged documents removed), and MAP if every unjudged document in
  its top ``pool_depth`` were relevant (an upper bound). Their spread is how far the
  unjudged documents could move it;
* **pool bias**, when other runs of the collection are given: the leave-out
  experiment on them (each pooled run, or each group, re-scored without what it alone
  contributed) gives, for runs of similar judged@K, the relative MAP loss a run suffers
  for not having been pooled. :class:`DropModel` turns it into a prediction for the
  new run: the median and 90th percentile of the losses of the ``n_neighbours``
  reference runs nearest in judged@K. The pool_leave_out chapter validates it by
  leaving one group out at a time (:func:`cross_validate`);
* a **risk line** in plain words with the evidence behind it.

The logic of ``fireeval audit`` (see :mod:`fireeval.cli.audit`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fireeval.core import ranking
from fireeval.core.api import evaluate
from fireeval.core.judgements import Qrels
from fireeval.core.runset import RunSet
from fireeval.pooling.pools import build_pool, compare_leave_outs
from fireeval.stats.claims import Estimate
from fireeval.stats.reliability import warning_threshold
from fireeval.core.validation import ANY, ARRAY, COUNTS, STR, Array, Instance, Int, Options, Real, validate_params

__all__ = ["DropModel", "fit_drop_model", "reference_losses", "cross_validate", "validation_summary",
           "RunAudit", "audit_run", "coverage", "score_range", "runs_fully_judged", "RISKS"]

#: Risk levels of :attr:`RunAudit.risk`, from the predicted relative MAP loss.
RISKS = ("low", "moderate", "high", "unknown")


@dataclass(frozen=True)
class DropModel:
    """Relative MAP loss after leave-out against judged@K: the losses of the nearest reference runs.

    ``predict(s)`` returns the median and the ``quantile`` of the losses of the
    ``n_neighbours`` reference runs whose judged@K is closest to ``s`` (ties by order).
    No functional form is assumed: the reference runs speak for themselves, and the
    spread of their losses is reported with the median.

    Parameters
    ----------
    share : ndarray
        The reference runs' judged@K after leave-out.
    loss : ndarray
        Their relative losses.
    n_neighbours : int
        Reference runs a prediction is made from.
    quantile : float
        The upper prediction's quantile.

    >>> model = fit_drop_model([0.99, 0.98, 0.90, 0.80], [0.00, 0.01, 0.03, 0.10], n_neighbours=2)
    >>> [np.round(v, 3).tolist() for v in model.predict([0.985, 0.85])]
    [[0.005, 0.065], [0.009, 0.093]]
    """

    share: np.ndarray
    loss: np.ndarray
    n_neighbours: int = 15
    quantile: float = 0.9

    def neighbours(self, share) -> np.ndarray:
        """Indices of the nearest reference runs for each value of ``share``: (len(share), n)."""
        share = np.atleast_1d(np.asarray(share, dtype=float))
        n = min(self.n_neighbours, len(self.share))
        distance = np.abs(share[:, None] - self.share[None, :])
        return np.argsort(distance, axis=1, kind="stable")[:, :n]

    def predict(self, share) -> tuple[np.ndarray, np.ndarray]:
        """(median, upper quantile) of the neighbours' relative losses, one per value of ``share``."""
        losses = self.loss[self.neighbours(share)]
        return np.median(losses, axis=1), np.quantile(losses, self.quantile, axis=1)


@validate_params(share=Array(0, 1), loss=ARRAY, n_neighbours=Int(1), quantile=Real(0, 1))
def fit_drop_model(share, loss, n_neighbours: int = 15, quantile: float = 0.9) -> DropModel:
    """A :class:`DropModel` from reference runs' judged@K (after leave-out) and relative losses.

    Parameters
    ----------
    share, loss : array_like
        The reference runs' judged@K and relative losses.
    n_neighbours : int
        Neighbours per prediction.
    quantile : float
        The upper prediction's quantile.

    Returns
    -------
    DropModel

    Examples
    --------
    >>> model = fit_drop_model([0.9, 0.8, 0.5], [0.01, 0.02, 0.2], n_neighbours=1)
    >>> [v.tolist() for v in model.predict([0.85, 0.4])]
    [[0.01, 0.2], [0.01, 0.2]]
    """
    share, loss = np.asarray(share, dtype=float), np.asarray(loss, dtype=float)
    keep = np.isfinite(share) & np.isfinite(loss)
    if not keep.any():
        raise ValueError("no reference run with a finite judged share and loss to fit the drop model on")
    return DropModel(share[keep], loss[keep], int(n_neighbours), float(quantile))


@validate_params(runs=Instance(RunSet), qrels=Instance(Qrels), pool_depth=Int(1), pooled=ANY, groups=ANY, measure=STR)
def reference_losses(runs: RunSet, qrels: Qrels, pool_depth: int = 100, pooled=None, groups=None,
                     measure: str = "map") -> pd.DataFrame:
    """The leave-out experiment on reference runs: per run, judged@K after leave-out and relative loss.

    ``pooled`` (mask or names) defaults to the runs whose top ``pool_depth`` is judged on
    every topic (they must have been pooled). With ``groups`` each group is left out
    (what a group that never took part would lose), else each run. Columns: ``group``,
    ``pooled``, ``original``, ``left out``, ``relative drop``, ``judged@K`` (mean over
    topics of the share of the top K judged once the unit is left out).

    Parameters
    ----------
    runs : RunSet
        The reference runs.
    qrels : Qrels
        The judgements.
    pool_depth : int
        The pool depth K.
    pooled : mask or names, optional
        The pooled runs.
    groups : dict, optional
        ``{run: group}``.
    measure : str
        The measure.

    Returns
    -------
    pandas.DataFrame
        One row per run (index ``run``).

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> table = reference_losses(runs, qrels, pool_depth=5, groups=groups)
    >>> table.round(3).values.tolist()[:2]
    [['g0', True, 0.197, 0.174, 0.115, 0.55], ['g0', True, 0.179, 0.055, 0.695, 0.5]]
    """
    if pooled is None:
        pooled = runs_fully_judged(runs, qrels, pool_depth)
    pool = build_pool(runs, pooled=pooled, groups=groups, depth=pool_depth)
    by = "group" if groups is not None else "run"
    table = compare_leave_outs(pool, qrels, measure).table
    column = f"{by} left out"
    out = table[["group", "pooled", "original"]].assign(**{"left out": table[column]})
    out["relative drop"] = ((out["original"] - out["left out"]) / out["original"].replace(0.0, np.nan)).fillna(0.0)
    out[f"judged@{pool_depth}"] = pool.judged_share(qrels, pool_depth, leave_out=by).mean(-1)
    out.attrs.update(by=by, pool_depth=pool_depth)
    return out


@validate_params(runs=Instance(RunSet), qrels=Instance(Qrels), depth=Int(1))
def runs_fully_judged(runs: RunSet, qrels: Qrels, depth: int) -> np.ndarray:
    """Per run: is every document of its top ``depth`` judged, on every qrels topic?

    Parameters
    ----------
    runs : RunSet
        The runs.
    qrels : Qrels
        The judgements.
    depth : int
        The depth checked.

    Returns
    -------
    bool ndarray (n_runs,)

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> bool(runs_fully_judged(runs, qrels, 5).all()), runs_fully_judged(runs, qrels, 6).tolist()
    (True, [True, False, True, False, False, False])
    """
    topics = qrels.topics
    grades = runs.grades(qrels, topics)[..., :depth]
    return ~(_present(runs, topics, depth) & np.isnan(grades)).any(axis=(1, 2))


def _present(runs, topics, depth):
    cols = pd.Index(runs.topics).get_indexer(topics)
    out = np.zeros((len(runs.names), len(topics), min(depth, runs.docs.shape[-1])), dtype=bool)
    out[:, cols >= 0] = runs.docs[:, cols[cols >= 0], :depth] >= 0
    return out


@validate_params(table=Instance(pd.DataFrame), share=STR, loss=STR, by=STR, max_loss=Real(0, 1), n_neighbours=Int(1),
                 fit_on=[Options("pooled"), None])
def cross_validate(table: pd.DataFrame, share: str = "judged@100", loss: str = "relative drop",
                   by: str = "group", max_loss: float = 0.02, n_neighbours: int = 15,
                   fit_on: str | None = "pooled") -> pd.DataFrame:
    """Leave one group out at a time: fit on the other groups' runs, predict for the group's runs.

    ``table`` has one row per run with the columns ``by``, ``share``, ``loss`` (and
    ``pooled`` when ``fit_on="pooled"``: fit only on pooled runs, whose leave-out loss
    is the bias of not having been pooled). For each run: ``threshold`` (the judged
    share :func:`fireeval.stats.reliability.warning_threshold` fits without its group),
    ``flagged`` (its share is below that threshold), ``loser`` (its loss is at least
    ``max_loss``), ``predicted`` and ``upper`` (:class:`DropModel` fitted without its group).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`reference_losses`' table.
    share, loss, by : str
        Its columns of judged share, loss and group.
    max_loss : float
        The loss that makes a run a loser.
    n_neighbours : int
        As :func:`fit_drop_model`.
    fit_on : {"pooled", None}
        Fit on the pooled runs only, or on all.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> table = reference_losses(runs, qrels, pool_depth=5, groups=groups)
    >>> cv = cross_validate(table, share="judged@5", max_loss=0.05, n_neighbours=2)
    >>> cv[["loser", "predicted", "upper"]].round(3).values.tolist()[:2]
    [[True, 0.47, 0.561], [True, 0.504, 0.568]]
    """
    rows = []
    for unit, test in table.groupby(by, sort=False):
        train = table[table[by] != unit]
        fit = train[train["pooled"].astype(bool)] if fit_on == "pooled" and "pooled" in train else train
        threshold = warning_threshold(train[share], train[loss], max_loss=max_loss).threshold
        model = fit_drop_model(fit[share], fit[loss], n_neighbours)
        median, upper = model.predict(test[share].to_numpy())
        rows.append(pd.DataFrame({
            by: unit, share: test[share], loss: test[loss],
            "threshold": np.nan if threshold is None else threshold,
            "flagged": (test[share] < threshold).to_numpy() if threshold is not None else False,
            "loser": (test[loss] >= max_loss).to_numpy(), "predicted": median, "upper": upper,
        }, index=test.index))
    return pd.concat(rows).reindex(table.index)


@validate_params(cv=Instance(pd.DataFrame), max_loss=Real(0, 1))
def validation_summary(cv: pd.DataFrame, max_loss: float = 0.02) -> dict:
    """Precision and recall of the warning, and calibration of the drop model, from :func:`cross_validate`.

    ``precision`` / ``recall`` / ``coverage`` are :class:`~fireeval.stats.claims.Estimate`
    proportions with exact binomial intervals (over runs; runs of a group are not
    independent, so read the intervals as optimistic). ``coverage``: share of runs whose
    loss is at most the model's upper (90th percentile) prediction; ``mae``: mean
    absolute error of the median prediction; ``n_losers_covered``: runs losing at least
    ``max_loss`` whose loss the upper prediction still covered (the cases that matter).

    Parameters
    ----------
    cv : pandas.DataFrame
        :func:`cross_validate`'s table.
    max_loss : float
        The loss that makes a run a loser.

    Returns
    -------
    dict

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> table = reference_losses(runs, qrels, pool_depth=5, groups=groups)
    >>> cv = cross_validate(table, share="judged@5", max_loss=0.05, n_neighbours=2)
    >>> summary = validation_summary(cv, max_loss=0.05)
    >>> summary["n_runs"], summary["n_losers"], summary["n_losers_covered"], round(summary["coverage"].value, 3)
    (6, 6, 5, 0.833)
    """
    flagged, loser = cv["flagged"].astype(bool), cv["loser"].astype(bool)
    tp = int((flagged & loser).sum())
    loss = cv.columns[2]
    return {
        "n_runs": len(cv), "n_losers": int(loser.sum()), "n_flagged": int(flagged.sum()), "n_flagged_losers": tp,
        "base_rate": float(loser.mean()), "max_loss": max_loss,
        "precision": Estimate.proportion(tp, int(flagged.sum()), "runs flagged, leave-one-group-out"),
        "recall": Estimate.proportion(tp, int(loser.sum()), f"runs losing >= {max_loss:.0%}, leave-one-group-out"),
        "coverage": Estimate.proportion(int((cv[loss] <= cv["upper"] + 1e-12).sum()), len(cv),
                                        "runs within the 90th-percentile prediction, leave-one-group-out"),
        "mae": float((cv[loss] - cv["predicted"]).abs().mean()),
        "n_losers_covered": int((loser & (cv[loss] <= cv["upper"] + 1e-12)).sum()),
    }


@validate_params(runs=Instance(RunSet), qrels=Instance(Qrels), ks=COUNTS)
def coverage(runs: RunSet, qrels: Qrels, ks=(10, 100)) -> pd.DataFrame:
    """Per run and topic: judged@k (share of the top k judged) and unjudged@k (count), for each k.

    Index (run, topic) over every qrels topic; a topic the run does not answer has
    judged share 1 and 0 unjudged (nothing retrieved, nothing to doubt).

    Parameters
    ----------
    runs : RunSet
        The runs.
    qrels : Qrels
        The judgements.
    ks : sequence of int
        The depths.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> coverage(runs, qrels, ks=(5, 10)).loc["g0r0"].round(2).values.tolist()
    [[1.0, 0.0, 0.7, 3.0], [1.0, 0.0, 0.8, 2.0], [1.0, 0.0, 0.8, 2.0], [1.0, 0.0, 1.0, 0.0]]
    """
    topics = qrels.topics
    grades = runs.grades(qrels, topics)
    present = _present(runs, topics, grades.shape[-1])
    unjudged = present & np.isnan(grades)
    columns = {}
    for k in ks:
        n_ret = present[..., :k].sum(-1)
        n_unj = unjudged[..., :k].sum(-1)
        columns[f"judged@{k}"] = np.where(n_ret > 0, 1 - n_unj / np.maximum(n_ret, 1), 1.0).ravel()
        columns[f"unjudged@{k}"] = n_unj.ravel()
    index = pd.MultiIndex.from_product([runs.names, topics], names=["run", "topic"])
    return pd.DataFrame(columns, index=index)


@validate_params(runs=Instance(RunSet), qrels=Instance(Qrels), pool_depth=Int(1))
def score_range(runs: RunSet, qrels: Qrels, pool_depth: int = 100) -> pd.DataFrame:
    """Per run, mean over every qrels topic: MAP, bpref, infAP, AP′ (condensed MAP) and the MAP upper bound.

    ``map`` counts unjudged documents non-relevant (the official score);
    ``map_unjudged_relevant`` counts every unjudged document in the top ``pool_depth``
    relevant (and adds it to the topic's relevant count): the other extreme. It is not
    a strict upper bound (a relevant document deep in the list adds to the denominator
    more than to the sum), but it shows how far the unjudged documents could move MAP.

    Parameters
    ----------
    runs : RunSet
        The runs.
    qrels : Qrels
        The judgements.
    pool_depth : int
        The depth of ``map_unjudged_relevant``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> score_range(runs, qrels, pool_depth=5).round(3).loc["g0r0"].to_dict()
    {'map': 0.197, 'bpref': 0.21, 'infAP': 0.197, 'map_judged': 0.198, 'map_unjudged_relevant': 0.197}
    """
    base = pd.DataFrame.from_dict(evaluate(qrels, runs, ["map", "bpref", "infAP"], complete=True, output="dict"),
                                  orient="index").rename_axis("run")  # runs x measures, in the runs' order
    condensed = pd.Series({r: v["map"] for r, v in evaluate(qrels, runs, "map", complete=True, judged_only=True,
                                                            output="dict").items()})
    topics = qrels.topics
    grades = runs.grades(qrels, topics)
    unjudged = _present(runs, topics, grades.shape[-1]) & np.isnan(grades)
    unjudged[..., pool_depth:] = False
    optimistic = np.where(unjudged, 1.0, np.nan_to_num(grades, nan=0.0))
    n_rel = qrels.n_relevant(topics)[None, :] + unjudged.sum(-1)
    upper = ranking.average_precision(optimistic, n_rel, qrels.relevance_level).mean(-1)
    out = base[["map", "bpref", "infAP"]].assign(map_judged=condensed.to_numpy(), map_unjudged_relevant=upper)
    return out


@dataclass
class RunAudit:
    """What :func:`audit_run` found for one run; :meth:`report` prints it, :meth:`to_json` stores it.

    Parameters
    ----------
    run : str
        The run's name.
    pool_depth : int
        The pool depth.
    per_topic : pandas.DataFrame
        Coverage per topic.
    scores : dict
        Mean scores (:func:`score_range`).
    bias : dict or None
        The pool-bias estimate.
    risk : str
        ``"low"``, ``"moderate"``, ``"high"`` or ``"unknown"``.
    evidence : list of str
        The reasons.

    Examples
    --------
    Made by :func:`audit_run`:

    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> new = RunSet.from_frames({"new": pd.DataFrame({"query": "1", "docno": ["d0", "d1", "d29", "d28", "d3"],
    ...                                                "score": [5.0, 4, 3, 2, 1]})})
    >>> audit = audit_run(qrels, new, pool_depth=5, reference=runs, groups=groups, n_neighbours=2)
    >>> audit.risk, round(audit.scores["map"], 4), sorted(audit.to_json())[:3]
    ('high', 0.0069, ['bias', 'evidence', 'per_topic'])
    """

    run: str
    pool_depth: int
    per_topic: pd.DataFrame
    scores: dict
    bias: dict | None
    risk: str
    evidence: list = field(default_factory=list)

    @property
    def risk_line(self) -> str:
        """One plain sentence: the risk level and the number it rests on."""
        head = f"Risk that unjudged documents understate {self.run}'s MAP: {self.risk.upper()}"
        if self.bias:
            return (head + f" (runs like it lost a median {self.bias['predicted']:.1%}, 90th percentile "
                    f"{self.bias['upper']:.1%}, of their MAP for not being pooled). Evidence:")
        return head + " (no reference runs to estimate it from). Evidence:"

    def report(self, per_topic: bool = True) -> str:
        """The audit as text: coverage, scores, pool bias, risk and evidence, then one line per topic."""
        k = self.pool_depth
        t = self.per_topic
        lines = [f"fireeval audit: run {self.run}, pool depth {k}, {len(t)} topics", "",
                 "coverage (per topic; mean, min):",
                 f"  judged@10  {t['judged@10'].mean():.3f}  {t['judged@10'].min():.3f}   "
                 f"unjudged in top 10: {int(t['unjudged@10'].sum())} in all",
                 f"  judged@{k} {t[f'judged@{k}'].mean():.3f}  {t[f'judged@{k}'].min():.3f}   "
                 f"unjudged in top {k}: {int(t[f'unjudged@{k}'].sum())} in all",
                 "", "scores (mean over topics):"]
        names = {"map": "MAP (unjudged = non-relevant, official)", "bpref": "bpref", "infAP": "infAP",
                 "map_judged": "AP' condensed (judged only, trec_eval -J)",
                 "map_unjudged_relevant": f"MAP if every unjudged doc in its top {k} were relevant"}
        lines += [f"  {names[m]:<68} {v:.4f}" for m, v in self.scores.items()]
        if self.bias:
            b = self.bias
            lines += ["", f"pool bias (leave-one-{b['by']}-out on {b['n_reference']} reference runs, "
                          f"{b['n_fit']} of them pooled or fully judged to depth {k}, fitted):",
                      f"  runs with judged@{k} near {b['judged']:.3f} lost a median {b['predicted']:.1%} of MAP "
                      f"(90th percentile {b['upper']:.1%}) when they were not pooled"]
            if b.get("threshold") is not None:
                v, loss = b.get("validation") or {}, b.get("max_loss", 0.02)
                checked = (f"; leave-one-group-out, {v['n_flagged_losers']} of the {v['n_flagged']} runs below it "
                           f"lost {loss:.0%} or more" if v else "")
                lines.append(f"  judged@{k} level below which every reference run that lost {loss:.0%} or more "
                             f"lies: {b['threshold']:.2f} (this run: "
                             f"{'below' if b['judged'] < b['threshold'] else 'not below'}{checked})")
        lines += ["", self.risk_line] + [f"  - {e}" for e in self.evidence]
        if per_topic:
            lines += ["", f"per topic:   judged@10 unjudged@10  judged@{k} unjudged@{k}"]
            lines += [f"  {topic:<10} {row['judged@10']:9.2f} {int(row['unjudged@10']):11d} "
                      f"{row[f'judged@{k}']:10.2f} {int(row[f'unjudged@{k}']):11d}" for topic, row in t.iterrows()]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"run": self.run, "pool_depth": self.pool_depth, "scores": self.scores, "bias": self.bias,
                "risk": self.risk, "evidence": self.evidence,
                "per_topic": self.per_topic.reset_index().to_dict("records")}


@validate_params(qrels=Instance(Qrels), run=Instance(RunSet), pool_depth=Int(1), reference=[Instance(RunSet), None],
                 groups=ANY, pooled=ANY, max_loss=Real(0, 1), n_neighbours=Int(1))
def audit_run(qrels: Qrels, run: RunSet, pool_depth: int = 100, reference: RunSet | None = None, groups=None,
              pooled=None, max_loss: float = 0.02, n_neighbours: int = 15) -> RunAudit:
    """Audit the single run in ``run`` against ``qrels`` (see the module docstring).

    ``reference``: the collection's other runs (pooled and not), for the pool-bias
    estimate; ``groups`` maps their names (and the audited run's, if it has one) to
    groups; ``pooled`` says which reference runs were pooled (default: those whose top
    ``pool_depth`` is judged on every topic).

    Parameters
    ----------
    qrels : Qrels
        The judgements.
    run : RunSet
        The one run audited.
    pool_depth : int
        The collection's pool depth.
    reference : RunSet, optional
        The collection's other runs.
    groups : dict, optional
        ``{run: group}``.
    pooled : mask or names, optional
        The pooled reference runs.
    max_loss : float
        The loss that counts.
    n_neighbours : int
        As :func:`fit_drop_model`.

    Returns
    -------
    RunAudit

    Examples
    --------
    >>> from fireeval.core.runset import RunSet
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.pooling.pools import build_pool
    >>> rng = np.random.default_rng(0)
    >>> topics, docs = ["1", "2", "3", "4"], [f"d{i}" for i in range(30)]
    >>> frames = {f"g{g}r{r}": pd.DataFrame({"query": np.repeat(topics, 10), "docno": np.concatenate(
    ...           [rng.permutation(docs)[:10] for _ in topics]), "score": np.tile(np.arange(10.0, 0, -1), 4)})
    ...           for g in range(3) for r in range(2)}
    >>> runs, groups = RunSet.from_frames(frames), {name: name[:2] for name in frames}
    >>> complete = Qrels(pd.DataFrame({"query": np.repeat(topics, 30), "docno": docs * 4,
    ...                                "relevance": [int(i % (t + 2) == 0) for t in range(4) for i in range(30)]}))
    >>> pool = build_pool(runs, groups=groups, depth=5)
    >>> qrels = pool.at_depth(complete, 5)   # six runs of three groups, pooled to depth 5
    >>> new = RunSet.from_frames({"new": pd.DataFrame({"query": "1", "docno": ["d0", "d1", "d29", "d28", "d3"],
    ...                                                "score": [5.0, 4, 3, 2, 1]})})
    >>> audit = audit_run(qrels, new, pool_depth=5, reference=runs, groups=groups, n_neighbours=2)
    >>> print(audit.report(per_topic=False).splitlines()[0])
    fireeval audit: run new, pool depth 5, 4 topics
    """
    if len(run.names) != 1:
        raise ValueError(f"audit one run at a time; the run file holds {len(run.names)} runs ({run.names[:3]} ...)")
    name = run.names[0]
    per_topic = coverage(run, qrels, (10, pool_depth)).loc[name]
    scores = {m: float(v) for m, v in score_range(run, qrels, pool_depth).loc[name].items()}
    judged = float(per_topic[f"judged@{pool_depth}"].mean())
    evidence, bias = [], None
    spread = scores["map_judged"] - scores["map"]
    if reference is not None:
        if name in reference.names:  # e.g. a glob over the collection's runs: audit it against the others
            reference = reference.select([n for n in reference.names if n != name])
            evidence.append(f"{name} was also among the reference runs and was left out of them")
        ref_groups = None
        if groups is not None:
            mapping = groups.set_index("run")["group"] if isinstance(groups, pd.DataFrame) else pd.Series(groups)
            ref_groups = mapping.reindex(reference.names)
            if ref_groups.isna().any():
                missing = list(ref_groups.index[ref_groups.isna()][:5])
                raise ValueError(f"reference run(s) {missing} have no group in the groups table; add a 'run, group' "
                                 "row for each")
        losses = reference_losses(reference, qrels, pool_depth, pooled, ref_groups)
        fit = losses[losses["pooled"]]
        if fit.empty:  # nothing to learn the leave-out loss from (the audited run alone was named pooled)
            raise ValueError(f"no pooled reference run besides {name}: the leave-out estimate needs pooled runs. "
                             "Fix: say which reference runs built the pool (--pooled or --pooled-from)")
        model = fit_drop_model(fit[f"judged@{pool_depth}"], fit["relative drop"], n_neighbours)
        median, upper = (float(v[0]) for v in model.predict([judged]))
        threshold = warning_threshold(losses[f"judged@{pool_depth}"], losses["relative drop"], max_loss=max_loss,
                                      k=pool_depth).threshold
        near = fit.iloc[model.neighbours([judged])[0]]
        # How well the same model and warning level did on the reference runs themselves, each
        # group's runs predicted from the other groups (the pool_leave_out chapter's validation).
        checked = validation_summary(cross_validate(losses, share=f"judged@{pool_depth}", by="group",
                                                    max_loss=max_loss, n_neighbours=n_neighbours), max_loss)
        validation = {key: checked[key] for key in ("n_runs", "n_losers", "n_flagged", "n_flagged_losers",
                                                    "n_losers_covered")}
        validation["n_covered"] = int(round(checked["coverage"].value * checked["n_runs"]))
        bias = {"by": losses.attrs["by"], "n_reference": len(losses), "n_fit": len(fit), "judged": judged,
                "predicted": median, "upper": upper, "threshold": threshold, "validation": validation,
                "max_loss": max_loss,
                "neighbour_judged_range": [float(near[f"judged@{pool_depth}"].min()),
                                           float(near[f"judged@{pool_depth}"].max())],
                "reference_judged_range": [float(fit[f"judged@{pool_depth}"].min()),
                                           float(fit[f"judged@{pool_depth}"].max())]}
        risk = "low" if upper < max_loss else "high" if median >= max_loss else "moderate"
        evidence.append(f"pooled reference runs with judged@{pool_depth} near this run's {judged:.3f} "
                        f"(from {bias['neighbour_judged_range'][0]:.3f} to {bias['neighbour_judged_range'][1]:.3f}) "
                        f"lost a median {median:.1%} of their MAP when left out of the pool, and 90% of them "
                        f"lost at most {upper:.1%}")
        v = validation
        evidence.append(f"checked on the reference runs, each group predicted from the other groups: the 90th "
                        f"percentile covered the actual loss of {v['n_covered']} of {v['n_runs']} runs, but of "
                        f"only {v['n_losers_covered']} of the {v['n_losers']} runs that lost {max_loss:.0%} or "
                        f"more; of the {v['n_flagged']} runs below the judged@{pool_depth} warning level, "
                        f"{v['n_flagged_losers']} lost that much. Read the estimate as a typical loss, not a bound")
        near_lo, near_hi = bias["neighbour_judged_range"]
        if near_hi - near_lo > 0.2:
            evidence.append(f"few reference runs have a judged@{pool_depth} like this run's: the {len(near)} nearest "
                            f"span {near_lo:.3f} to {near_hi:.3f}, so the estimate is coarse")
        lo, hi = bias["reference_judged_range"]
        if not lo <= judged <= hi:
            evidence.append(f"this run's judged@{pool_depth} ({judged:.3f}) lies outside the pooled reference "
                            f"runs' range ({lo:.3f} to {hi:.3f}): the estimate extrapolates")
            if risk == "low":
                risk = "moderate"
    else:
        risk = "unknown"
        evidence.append(f"no reference runs given (--runs), so no leave-out estimate; judged@{pool_depth} is "
                        f"{judged:.3f}")
    judged10 = float(per_topic["judged@10"].mean())
    if judged10 < 0.9:
        evidence.append(f"only {judged10:.0%} of its top 10 is judged on average: the official MAP counts the rest "
                        "as non-relevant without anyone having looked")
    evidence.append(f"scoring only judged documents (AP') moves MAP from {scores['map']:.4f} to "
                    f"{scores['map_judged']:.4f} ({spread:+.4f}); if every unjudged document in its top {pool_depth} "
                    f"were relevant MAP would be {scores['map_unjudged_relevant']:.4f}")
    return RunAudit(name, int(pool_depth), per_topic, scores, bias, risk, evidence)
