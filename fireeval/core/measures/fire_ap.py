"""FIRE's AP@K (``FIRE_AP@K``; facebookresearch/mm-retrieval-evaluation): precision at the relevant
documents of the top K, averaged over those documents -- not over all R as ir_measures' ``AP@K``
(trec_eval's ``map_cut_K``) does. :func:`fireeval.t2v.false_negatives.per_query_scores` labels it ``AP@20`` in
its tables (``ap="fire"``); in the registry's grammar ``AP@20`` is ir_measures' measure.
"""
from fireeval.core import ranking
from fireeval.core.measures.base import Family, Param


def fire_average_precision(ctx, k):
    """AP of the top K over the relevant documents retrieved in the top K (0 when none).

    .. math:: \\mathrm{FIRE\\ AP@K} = \\frac{1}{|\\{j \\le K : \\mathrm{rel}_j\\}|} \\sum_{j \\le K : \\mathrm{rel}_j} P@j

    >>> from fireeval.core.measures import score
    >>> score("FIRE_AP@3", [[1, 0, 1]], n_relevant=[5]).round(4).tolist()   # (1/1 + 2/3) / 2
    [0.8333]
    """
    return ranking.average_precision(ctx.grades[..., :k], ctx.rel_at(k), ctx.level)


FAMILIES = (
    Family("FIRE_AP", "fire_ap", fire_average_precision, ir_names=("FIRE_AP",),
           param=Param("K", int, (20,), doc="cut-off"), trec_forms=False),
)
