"""Condensed-list measures (Sakai 2007): AP′ (``map_judged``, ``AP'``) and nDCG′ (``ndcg_judged``,
``nDCG'``): AP and nDCG of each list with its unjudged (and negative-grade) documents removed.

R and the ideal list come from the qrels as usual; the same as ``map`` / ``ndcg`` under
trec_eval's ``-J``. The pooled-judgement chapters use them.
"""
from fireeval.core import ranking
from fireeval.core.measures.base import Family

JUDGED = frozenset({"grades", "judged"})


def condensed_ap(ctx, k=None):
    """AP′: AP of the condensed list (judged documents only, in their order).

    .. math:: AP' = \\frac{1}{R} \\sum_{j : \\mathrm{rel}'_j} P'@j

    >>> from fireeval.core.measures import score
    >>> score("AP'", [[float("nan"), 0, 1]], n_relevant=[1]).tolist()   # condensed: [0, 1]
    [0.5]
    """
    condensed, _ = ranking.condense(ctx.grades)
    return ranking.average_precision(condensed, ctx.n_rel, ctx.level)


def condensed_ndcg(ctx, k=None):
    """nDCG′: nDCG of the condensed list against the qrels' ideal list.

    .. math:: nDCG' = \\frac{\\sum_j g'_j / \\log_2(j+1)}{\\sum_j g^*_j / \\log_2(j+1)}

    >>> from fireeval.core.measures import score
    >>> score("nDCG'", [[float("nan"), 1]], ideal=[[1]]).tolist()
    [1.0]
    """
    condensed, _ = ranking.condense(ctx.grades)
    return ranking.ndcg(condensed, ctx.need_ideal())


FAMILIES = (
    Family("map_judged", "map_judged", condensed_ap, aliases=("AP'", "map'", "ap_judged"), needs=JUDGED),
    Family("ndcg_judged", "ndcg_judged", condensed_ndcg, aliases=("nDCG'", "ndcg'"),
           needs=frozenset({"grades", "judged", "ideal"})),
)
