"""Seeded synthetic stand-ins so every notebook runs anywhere, with known ground truth.

:func:`simulate_trec` builds an ad hoc collection: topics with known relevant
documents and runs of graded quality from several groups (runs of one group share
a retrieval model, so they retrieve similar documents, as real groups do).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from fireeval.core.validation import Int, Real, validate_params

__all__ = ["simulate_trec", "simulate_pooled_trec"]


@validate_params(n_topics=Int(1), n_groups=Int(1), runs_per_group=Int(1), n_docs=Int(1), depth=Int(1),
                 relevant_rate=Real(0, 1), seed=Int(0))
def simulate_trec(n_topics: int = 25, n_groups: int = 8, runs_per_group: int = 3, n_docs: int = 2000,
                  depth: int = 200, relevant_rate: float = 0.02, seed: int = 0):
    """Simulate runs over a collection with complete relevance judgements.

    Each document has a latent relevance signal; a group's model sees it with its own
    noise level and bias, and each run of the group adds a little noise of its own.
    Returns ``(runs, qrels, table)``: ``{name: frame(query, docno, score)}``, a
    complete qrels frame (query, docno, relevance), and a run table (run, group,
    quality) -- quality is the group's signal-to-noise ratio, so better runs are known.

    Parameters
    ----------
    n_topics, n_groups, runs_per_group, n_docs : int
        The collection's size.
    depth : int
        Documents retrieved per topic by each run.
    relevant_rate : float
        Share of relevant documents (each topic gets at least one).
    seed : int
        Seed.

    Returns
    -------
    (dict, pandas.DataFrame, pandas.DataFrame)
        ``runs``, ``qrels``, ``table`` as above.

    Examples
    --------
    >>> runs, qrels, table = simulate_trec(n_topics=2, n_groups=2, runs_per_group=2, n_docs=50, depth=10)
    >>> sorted(runs), qrels.shape, table.columns.tolist()
    (['g00r0', 'g00r1', 'g01r0', 'g01r1'], (100, 3), ['run', 'group', 'quality'])
    >>> first = runs["g00r0"].iloc[0]
    >>> first["query"], first["docno"], float(first["score"])
    ('T001', 'D00019', 2.7715)
    """
    rng = np.random.default_rng(seed)
    topics = [f"T{t:03d}" for t in range(1, n_topics + 1)]
    docnos = np.array([f"D{d:05d}" for d in range(n_docs)])
    relevant = rng.random((n_topics, n_docs)) < relevant_rate
    relevant[np.arange(n_topics), rng.integers(0, n_docs, n_topics)] = True  # >= 1 relevant per topic
    qrels = pd.DataFrame({"query": np.repeat(topics, n_docs), "docno": np.tile(docnos, n_topics),
                          "relevance": relevant.ravel().astype(int)})
    runs, rows = {}, []
    for g in range(n_groups):
        quality = rng.uniform(0.5, 3.0)
        group_view = rng.normal(size=(n_topics, n_docs))  # what this group's model gets wrong
        for r in range(runs_per_group):
            name = f"g{g:02d}r{r}"
            noise = 0.8 * group_view + 0.6 * rng.normal(size=(n_topics, n_docs))
            score = quality * relevant + noise
            top = np.argsort(-score, axis=1)[:, :depth]
            runs[name] = pd.DataFrame({
                "query": np.repeat(topics, depth),
                "docno": docnos[top].ravel(),
                "score": np.take_along_axis(score, top, axis=1).ravel().round(4),
            })
            rows.append({"run": name, "group": f"group{g:02d}", "quality": quality})
    return runs, qrels, pd.DataFrame(rows)


@validate_params(n_topics=Int(1), n_groups=Int(1), runs_per_group=Int(1), pooled_per_group=Int(0), pool_depth=Int(1),
                 n_docs=Int(1), depth=Int(1), relevant_rate=Real(0, 1), seed=Int(0))
def simulate_pooled_trec(n_topics: int = 25, n_groups: int = 8, runs_per_group: int = 3, pooled_per_group: int = 2,
                         pool_depth: int = 20, n_docs: int = 2000, depth: int = 200, relevant_rate: float = 0.02,
                         seed: int = 0):
    """A pooled test collection built like TREC's, over :func:`simulate_trec` runs.

    The first ``pooled_per_group`` runs of every group are pooled: the union of their
    top ``pool_depth`` documents per topic (trec_eval order: score descending, ties by
    docno descending) is "judged" with the complete relevance, and nothing else is.
    The pool is built here with plain pandas, independently of
    :mod:`fireeval.pooling.pools`, so rebuilding it there is a real check.

    Returns ``(runs, qrels, table, complete)``: ``{name: frame}``, the pooled judgements
    (query, docno, relevance), the run table (run, group, quality, pooled) and the
    complete judgements.

    Parameters
    ----------
    n_topics, n_groups, runs_per_group, n_docs, depth, relevant_rate, seed
        As :func:`simulate_trec`.
    pooled_per_group : int
        Runs of each group in the pool.
    pool_depth : int
        Pool depth.

    Returns
    -------
    (dict, pandas.DataFrame, pandas.DataFrame, pandas.DataFrame)
        ``runs``, ``qrels``, ``table``, ``complete`` as above.

    Examples
    --------
    >>> runs, qrels, table, complete = simulate_pooled_trec(n_topics=2, n_groups=2, runs_per_group=2,
    ...                                                     pooled_per_group=1, pool_depth=5, n_docs=50, depth=10)
    >>> len(qrels), len(complete), table["pooled"].tolist()
    (20, 100, [True, False, True, False])
    """
    from fireeval.core.trec import trec_order

    runs, complete, table = simulate_trec(n_topics=n_topics, n_groups=n_groups, runs_per_group=runs_per_group,
                                          n_docs=n_docs, depth=depth, relevant_rate=relevant_rate, seed=seed)
    table["pooled"] = table["run"].str[-1].astype(int) < pooled_per_group
    ordered = [trec_order(runs[name]) for name in table.loc[table["pooled"], "run"]]
    tops = [frame.loc[frame["rank"] <= pool_depth, ["query", "docno"]] for frame in ordered]
    judged = pd.concat(tops).drop_duplicates()
    qrels = complete.merge(judged, on=["query", "docno"]).reset_index(drop=True)
    return runs, qrels, table, complete
