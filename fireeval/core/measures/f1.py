"""F1 at a cut-off: ranx's ``f1@K`` (the harmonic mean of P@K and R@K)."""
from fireeval.core import ranking
from fireeval.core.measures.base import REL, Family, Param


def f1_at_k(ctx, k):
    """F1@K: 2 P@K R@K / (P@K + R@K), 0 when both are 0 (or R = 0).

    .. math:: F1@K = \\frac{2\\, P@K \\cdot R@K}{P@K + R@K}

    >>> from fireeval.core.measures import score
    >>> score("f1@2", [[1, 0, 1]], n_relevant=[2]).tolist()   # P = 1/2, R = 1/2
    [0.5]
    """
    precision = ranking.precision_at_k(ctx.grades, k, ctx.level)
    recall = ranking.recall_at_k(ctx.grades, ctx.n_rel, k, ctx.level)
    return ranking.safe_divide(2 * precision * recall, precision + recall)


FAMILIES = (
    Family("F1", "f1", f1_at_k, ranx_names=("f1",), param=Param("K", int, (10,), doc="cut-off"), options=(REL,),
           trec_forms=False, gains_based=False),
)
