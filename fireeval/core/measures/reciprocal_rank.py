"""Reciprocal rank: trec_eval ``recip_rank``, ir_measures ``RR`` (``MRR`` averaged)."""
from fireeval.core import ranking
from fireeval.core.measures.base import Family


def reciprocal_rank(ctx, k=None):
    """1 over the rank of the first relevant document, 0 if none is retrieved.

    .. math:: RR = 1 / \\min\\{j : \\mathrm{rel}_j\\}

    >>> from fireeval.core.measures import score
    >>> score("RR", [[0, 0, 1]]).round(4).tolist()
    [0.3333]
    """
    return ranking.reciprocal_rank(ctx.grades, ctx.level)


FAMILIES = (
    Family("recip_rank", "recip_rank", reciprocal_rank, ir_names=("RR", "MRR"),
           nicknames=frozenset({"all_trec", "official"}), print_rank=9),
)
