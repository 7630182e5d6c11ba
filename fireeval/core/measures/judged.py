"""Judged@K (ir_measures): the share of the top K that the qrels judge at all."""
from fireeval.core import ranking
from fireeval.core.measures.base import Family, Param


def judged_at_k(ctx, k):
    """Judged@K: judged documents (any grade, 0 included) in the top K over ``min(K, |ret|)``.

    .. math:: \\mathrm{Judged@K} = \\frac{|\\{j \\le K : d_j \\text{ judged}\\}|}{\\min(K, |\\mathrm{ret}|)}

    >>> from fireeval.core.measures import score
    >>> score("Judged@2", [[1, float("nan"), 0]]).tolist()
    [0.5]
    """
    return ranking.judged_at_k(ctx.grades, ctx.n_ret, k)


FAMILIES = (
    Family("Judged", "judged", judged_at_k, ir_names=("Judged",), param=Param("K", int, (10,), doc="cut-off"),
           needs=frozenset({"grades", "judged", "retrieved"}), trec_forms=False),
)
