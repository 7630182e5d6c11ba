"""Score many runs on many topics with named measures (the code behind ``fireeval evaluate``).

Measure names
-------------
* trec_eval's, every numeric measure of ``-m all_trec`` (9.x and 10.0): ``num_q``,
  ``num_ret``, ``num_rel``, ``num_rel_ret``, ``map``, ``gm_map``, ``Rprec``, ``bpref``,
  ``recip_rank``, ``iprec_at_recall_0.10``, ``P_10``, ``recall_10``, ``infAP``,
  ``gm_bpref``, ``Rprec_mult_0.20``, ``utility``, ``11pt_avg``, ``binG``, ``G``, ``dcg``,
  ``ideal_dcg``, ``ndcg``, ``ndcg_rel``, ``Rndcg``, ``ndcg_cut_10``, ``map_cut_10``,
  ``relative_P_10``, ``success_5``, ``set_P``, ``set_relative_P``, ``set_recall``,
  ``set_map``, ``set_F``, ``num_nonrel_judged_ret``. A bare family name (``P``,
  ``ndcg_cut``, ``iprec_at_recall``...) gives trec_eval's default cut-offs; the dotted
  forms trec_eval accepts give your own (``P.10``, ``ndcg_cut.10,20``,
  ``utility.1,-1,0,0``, ``set_F.0.5``). ``official`` and ``all_trec`` expand as in
  trec_eval.
* ir_measures': ``AP``, ``P@10``, ``R@10``, ``nDCG``, ``nDCG@10``, ``RR``, ``Bpref``,
  ``infAP``, ``Judged@10``, ``Success@5``, ``Rprec``/``R-Prec``, ``NumRet``,
  ``NumRel``, ``NumRelRet``, ``SetP``, ``SetR``, ``SetF`` -- reported under the
  trec_eval name.
* the video-retrieval ``correct@K`` (alias ``C@K``): trec_eval's ``success_K``, reported
  under the name you asked for. Exponential-gain nDCG: ``ndcg_exp`` / ``ndcg_exp_cut_K``.

Every name is read by the measure registry, :mod:`fireeval.core.measures` (its package
docstring gives the one grammar); each family lives in one module there.

Conventions (trec_eval's): a document is relevant when its grade is >= the relevance
level (``-l``, default 1); gains for the nDCG family are the grades themselves; topics
are those in both run and qrels unless ``complete`` (``-c``); ``judged_only`` (``-J``)
removes unjudged documents before anything is computed (the condensed list of Sakai
2007); ``max_retrieved`` (``-M``) keeps each topic's top documents. Summaries over topics
are means, except the counts (sums), ``num_q``, and the ``gm_*`` measures (geometric mean
with trec_eval's floor of 1e-5 per topic).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fireeval.core import measures as registry
from fireeval.core import ranking
from fireeval.core.measures.base import GM_EPSILON, Context, Measure, summarise
from fireeval.core.measures.text import relstrings

# RunSet and Qrels (pandas) are imported inside score_run_set(): the streaming command
# (fireeval.core.stream) uses the measures without them.

from fireeval.core.validation import ANY, ARRAY, BOOL, Int, STR, validate_params

__all__ = ["Measure", "parse_measure", "parse_measures", "score_run_set", "Scores", "DEFAULT_MEASURES",
           "TREC_CUTOFFS", "ALL_TREC", "OFFICIAL", "GM_EPSILON", "TREC_EVAL_VERSIONS", "check_trec_eval_version",
           "relstrings", "trec_eval_order", "summarise"]

DEFAULT_MEASURES = ["map", "P_5", "P_10", "recall_10", "ndcg", "ndcg_cut_10", "recip_rank",
                    "correct@1", "correct@5", "correct@10"]
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval's ``official`` and 9.x's ``all_trec`` (numeric measures), as family roots, in print order.
OFFICIAL = registry.nickname("official")
ALL_TREC = registry.nickname("all_trec")
TREC_EVAL_VERSIONS = registry.TREC_EVAL_VERSIONS
check_trec_eval_version = registry.check_version
trec_eval_order = registry.trec_eval_order


@validate_params(name=STR, version=STR, printing=BOOL)
def parse_measures(name: str, version: str = "9.0.7", *, printing: bool = False) -> list:
    """All measures a name stands for: :func:`fireeval.core.measures.parse` (one grammar for all).

    Parameters
    ----------
    name : str
        A measure name, family or nickname in the registry's grammar.
    version : {"9.0.7", "10.0"}
        The trec_eval release whose measures and nicknames apply.
    printing : bool
        Name the measures as written (``P@10``) rather than as trec_eval does (``P_10``).

    Returns
    -------
    list of Measure
        In trec_eval's order for a family (``P`` -> P_5 ... P_1000).

    Examples
    --------
    >>> [m.name for m in parse_measures("P.5,10")]
    ['P_5', 'P_10']
    >>> [m.name for m in parse_measures("set_F.0.5")], [m.name for m in parse_measures("unj", "10.0")]
    (['set_F_0.5'], ['unj_5', 'unj_10', 'unj_20'])
    """
    return registry.parse(name, version, printing=printing)


@validate_params(name=STR)
def parse_measure(name: str) -> Measure:
    """Parse one measure name (trec_eval or ir_measures style, case-insensitive).

    Returns
    -------
    Measure
        The measure (its ``name`` as trec_eval prints it).

    Parameters
    ----------
    name : str
        A name that stands for exactly one measure.

    Examples
    --------
    >>> parse_measure("P@10").name, parse_measure("nDCG@10").name, parse_measure("C@5").name
    ('P_10', 'ndcg_cut_10', 'C@5')
    """
    measures = parse_measures(name)
    if len(measures) != 1:
        raise ValueError(f"{name!r} stands for {len(measures)} measures; use parse_measures")
    return measures[0]


# ---------------------------------------------------------------- scores
@dataclass(frozen=True)
class Scores:
    """Per-run, per-topic scores: ``values[measure]`` has shape (n_runs, n_topics).

    ``aggregates`` maps each measure name to how trec_eval summarises it over topics
    (``mean``, ``sum``, ``gm`` or ``count``); ``n_topics`` is the number to average over
    (all qrels topics with ``complete``).

    Parameters
    ----------
    runs : list of str
        The runs (rows).
    topics : numpy.ndarray
        The evaluation topics (columns).
    values : dict
        ``{measure: array (n_runs, n_topics)}``.
    aggregates : dict
        ``{measure: summary}``.

    Examples
    --------
    >>> s = Scores(["r"], np.array(["1", "2"]), {"map": np.array([[0.5, 1.0]])}, {"map": "mean"})
    >>> float(s.values["map"].mean())
    0.75
    """

    runs: list
    topics: np.ndarray
    values: dict
    aggregates: dict = field(default_factory=dict)

    def summary(self):
        """trec_eval's "all" line per run and measure: DataFrame, rows = runs, columns = measures."""
        import pandas as pd

        return pd.DataFrame({m: summarise(v, self.aggregates.get(m, "mean")) for m, v in self.values.items()},
                            index=pd.Index(self.runs, name="run"))

    def mean(self):
        """Summary over topics (trec_eval's: mean, or sum for counts, geometric mean for gm_*)."""
        return self.summary()

    def to_frame(self):
        """Long format: run, measure, topic, value."""
        import pandas as pd

        parts = []
        for measure, values in self.values.items():
            parts.append(pd.DataFrame({
                "run": np.repeat(self.runs, len(self.topics)),
                "measure": measure,
                "topic": np.tile(self.topics, len(self.runs)),
                "value": values.ravel(),
            }))
        return pd.concat(parts, ignore_index=True)


@validate_params(runs=ANY, qrels=ANY, measures=ANY, complete=BOOL, gains=[ARRAY, None], judged_only=BOOL, relevance_level=[Int(0), None], max_retrieved=[Int(), None])
def score_run_set(runs: "RunSet", qrels: "Qrels", measures=DEFAULT_MEASURES, complete: bool = False,
                  gains: np.ndarray | None = None, *, judged_only: bool = False, relevance_level: int | None = None,
                  max_retrieved: int | None = None) -> Scores:
    """Score every run of a RunSet on every evaluation topic, vectorised over runs and topics.

    The in-memory engine behind :func:`fireeval.evaluate` (which takes every input form and
    validates it first; use that). Here ``runs`` and ``qrels`` must already be a
    :class:`~fireeval.core.runset.RunSet` and a :class:`~fireeval.core.judgements.Qrels`.

    Parameters
    ----------
    runs, qrels
        The runs and the judgements.
    measures : list of str or Measure
        Names as in the module docstring; families expand (``P`` -> P_5 ... P_1000).
    complete : bool
        trec_eval ``-c``: average over every qrels topic; topics a run lacks score 0.
    judged_only : bool
        trec_eval ``-J``: drop unjudged documents from every ranking first (Sakai's
        condensed list), so ``map`` is condensed-list AP, ``ndcg`` condensed nDCG...
    relevance_level : int, optional
        trec_eval ``-l``; default the qrels' own (``Qrels.relevance_level``, 1).
    max_retrieved : int, optional
        trec_eval ``-M``: keep each topic's top ``max_retrieved`` documents.
    gains : array, optional
        Precomputed :meth:`RunSet.grades` (or ``gains``) over the evaluation topics.

    Returns
    -------
    Scores
        ``values[measure]`` of shape (n_runs, n_topics) and how each is summarised.

    Examples
    --------
    >>> import pandas as pd
    >>> from fireeval.core.judgements import Qrels
    >>> from fireeval.core.runset import RunSet
    >>> qrels = Qrels.from_pairs(["1", "1"], ["a", "b"], [1, 0])
    >>> runs = RunSet.from_frames({"r": pd.DataFrame({"query": ["1", "1"], "docno": ["a", "b"], "score": [0.2, 0.9]})})
    >>> score_run_set(runs, qrels, ["recip_rank"]).values["recip_rank"].tolist()
    [[0.5]]
    """
    from fireeval.core.runset import evaluation_topics

    if isinstance(measures, (str, Measure)):  # one name, not its letters
        measures = [measures]
    parsed = []
    for m in measures:
        parsed.extend([m] if isinstance(m, Measure) else parse_measures(m))
    level = qrels.relevance_level if relevance_level is None else int(relevance_level)
    topics = evaluation_topics(runs, qrels, complete)
    if gains is None:
        grades = runs.grades(qrels, topics)
    else:
        grades = np.asarray(gains, dtype=float)
    n_ret = runs.retrieved_counts(topics)
    if max_retrieved is not None:
        if max_retrieved < 1:
            raise ValueError(f"max_retrieved must be >= 1, not {max_retrieved}")
        grades, n_ret = grades[..., :max_retrieved], np.minimum(n_ret, max_retrieved)
    if judged_only:
        grades, n_ret = ranking.condense(grades)
    if gains is not None and not judged_only and any(m.needs_judged for m in parsed) and not np.isnan(grades).any():
        # 0-filled gains cannot tell unjudged from judged non-relevant
        grades = np.where(np.arange(grades.shape[-1]) < n_ret[..., None], grades, np.nan)
    n_rel = qrels.n_relevant(topics, level)
    needs = set().union(*(m.needs for m in parsed))
    ideal = qrels.ideal_gains(topics) if "ideal" in needs else None
    n_nonrel = qrels.n_nonrelevant(topics, level) if "nonrel" in needs else None
    ctx = Context(grades, n_rel, ideal, level, n_nonrel, n_ret)
    values, aggregates = {}, {}
    for m in parsed:
        values[m.name] = np.ascontiguousarray(np.broadcast_to(m.compute(ctx), grades.shape[:-1]), dtype=float)
        aggregates[m.name] = m.aggregate
    return Scores(list(runs.names), topics, values, aggregates)
