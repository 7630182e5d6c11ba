"""Recall at a cut-off: trec_eval ``recall_K``, ir_measures ``R@K`` (textbook recall, not the video R@K)."""
from fireeval.core import ranking
from fireeval.core.measures.base import REL, Family, Param

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def recall(ctx, k):
    """Recall@K: relevant documents in the top K over R (0 when R = 0).

    .. math:: R@K = \\frac{1}{R} \\sum_{j=1}^{K} \\mathrm{rel}_j

    >>> from fireeval.core.measures import score
    >>> score("R@2", [[1, 0, 1]], n_relevant=[4]).tolist()
    [0.25]
    """
    return ranking.recall_at_k(ctx.grades, ctx.n_rel, k, ctx.level)


FAMILIES = (
    Family("recall", "recall", recall, ir_names=("R",), param=Param("K", int, TREC_CUTOFFS, doc="cut-off"),
           options=(REL,), ranx_names=("recall",),
           nicknames=frozenset({"all_trec"}), print_rank=13),
)
