"""Reciprocal rank: trec_eval ``recip_rank``, ir_measures ``RR`` (``MRR`` averaged)."""
from fireeval.core import ranking
from fireeval.core.measures.base import REL, Family, Param


def reciprocal_rank(ctx, k=None):
    """1 over the rank of the first relevant document, 0 if none is retrieved.

    .. math:: RR = 1 / \\min\\{j : \\mathrm{rel}_j\\}

    >>> from fireeval.core.measures import score
    >>> score("RR", [[0, 0, 1]]).round(4).tolist()
    [0.3333]
    """
    return ranking.reciprocal_rank(ctx.grades, ctx.level)


def reciprocal_rank_cut(ctx, k):
    """1 over the rank of the first relevant document in the top K, 0 if none is there (ir_measures'
    ``RR@K``, ranx's ``mrr@K``).

    .. math:: RR@K = 1 / \\min\\{j \\le K : \\mathrm{rel}_j\\}

    >>> from fireeval.core.measures import score
    >>> score("RR@2", [[0, 0, 1], [0, 1, 0]]).tolist()
    [0.0, 0.5]
    """
    return ranking.reciprocal_rank(ctx.grades[..., :k], ctx.level)


FAMILIES = (
    Family("recip_rank_cut", "recip_rank_cut", reciprocal_rank_cut, ir_names=("RR", "MRR"), ranx_names=("mrr",),
           param=Param("K", int, (10,), doc="cut-off"), options=(REL,), trec_forms=False, gains_based=False),
    Family("recip_rank", "recip_rank", reciprocal_rank, ir_names=("RR", "MRR"), options=(REL,),
           nicknames=frozenset({"all_trec", "official"}), print_rank=9),
)
