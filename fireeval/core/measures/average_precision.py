"""Average precision: ``map`` (ir_measures ``AP``), ``gm_map``, ``map_cut_K`` (ir_measures ``AP@K``).

All three are :func:`fireeval.core.ranking.average_precision` (one copy, also used by the
pooled-judgement depth sweeps through :func:`~fireeval.core.ranking.average_precision_of_cells`).
``gm_map`` is summarised by the geometric mean with trec_eval's floor 1e-5. ``yaap`` is
trec_eval's Yet Another Average Precision (Robertson), in no nickname.
"""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import REL, Family, Param

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def average_precision(ctx, k=None):
    """AP: precision at each relevant retrieved document, summed, over R.

    .. math:: AP = \\frac{1}{R} \\sum_{j : \\mathrm{rel}_j} P@j

    Unretrieved relevant documents count 0; 0 when R = 0.

    >>> from fireeval.core.measures import score
    >>> score("AP", [[1, 0, 1]], n_relevant=[3]).round(4).tolist()   # (1/1 + 2/3) / 3
    [0.5556]
    """
    return ranking.average_precision(ctx.grades, ctx.n_rel, ctx.level)


def average_precision_cut(ctx, k):
    """AP of the top K: the terms of ranks <= K, still over R (trec_eval's ``map_cut_K``).

    .. math:: AP@K = \\frac{1}{R} \\sum_{j \\le K : \\mathrm{rel}_j} P@j

    >>> from fireeval.core.measures import score
    >>> score("map_cut_2", [[1, 0, 1]], n_relevant=[3]).round(4).tolist()
    [0.3333]
    """
    return ranking.average_precision(ctx.grades[..., :k], ctx.n_rel, ctx.level)


def yaap(ctx, k=None):
    """trec_eval's yaap (m_yaap.c, Robertson's smoothed AP): with S the sum of the precisions at the relevant
    retrieved documents (AP's numerator),

    .. math:: \\mathrm{yaap} = \\log \\frac{1 + S}{1 + R - S}

    0 when nothing relevant is retrieved and R = 0.

    >>> from fireeval.core.measures import score
    >>> score("yaap", [[1, 0, 1]], n_relevant=[2]).round(4).tolist()   # S = 1 + 2/3: log(2 2/3 / 1 1/3)
    [0.6931]
    """
    precision = np.where(ctx.rel, ctx.relevant_in_top[..., 1:] / ctx.rank, 0.0)
    total = np.cumsum(precision, axis=-1)[..., -1] if ctx.depth else np.zeros(ctx.shape)  # added rank by rank
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log((1.0 + total) / (1.0 + np.asarray(ctx.n_rel, dtype=float) - total))


FAMILIES = (
    Family("map", "map", average_precision, ir_names=("AP",), options=(REL,), nicknames=frozenset({"all_trec", "official"}),
           print_rank=5),
    Family("gm_map", "gm_map", average_precision, summary="gm", nicknames=frozenset({"all_trec", "official"}),
           print_rank=6),
    Family("map_cut", "map_cut", average_precision_cut, ir_names=("AP",), options=(REL,), ranx_names=("map",),
           param=Param("K", int, TREC_CUTOFFS, doc="cut-off"), nicknames=frozenset({"all_trec"}), print_rank=27),
    Family("yaap", "yaap", yaap, print_rank=35.5),  # after num_nonrel_judged_ret, before rbp (measures.c)
)
