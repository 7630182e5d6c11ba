"""Precision: ``P_K`` (ir_measures ``P@K``), ``relative_P_K``, ``Rprec`` (``R-Prec``), ``Rprec_mult_X``.

trec_eval divides P@K by K even when fewer than K documents were retrieved.
"""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import REL, Family, Param

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def precision(ctx, k):
    """P@K: relevant documents in the top K over K.

    .. math:: P@K = \\frac{1}{K} \\sum_{j=1}^{K} \\mathrm{rel}_j

    >>> from fireeval.core.measures import score
    >>> score("P@4", [[1, 0, 1]]).tolist()
    [0.5]
    """
    return ranking.precision_at_k(ctx.grades, k, ctx.level)


def relative_precision(ctx, k):
    """Relative precision: relevant in the top K over min(K, R).

    .. math:: \\mathrm{relative\\_P@K} = \\frac{\\sum_{j \\le K} \\mathrm{rel}_j}{\\min(K, R)}

    >>> from fireeval.core.measures import score
    >>> score("relative_P_5", [[1, 0, 1]], n_relevant=[2]).tolist()
    [1.0]
    """
    return ranking.safe_divide(ctx.rel_at(k), np.minimum(k, ctx.n_rel))


def r_precision(ctx, k=None):
    """R-precision: precision at rank R.

    .. math:: R\\text{-}prec = \\frac{1}{R} \\sum_{j=1}^{R} \\mathrm{rel}_j

    >>> from fireeval.core.measures import score
    >>> score("Rprec", [[1, 0, 1]], n_relevant=[2]).tolist()
    [0.5]
    """
    return ranking.safe_divide(ctx.rel_at(ctx.n_rel), ctx.n_rel)


def r_precision_multiple(ctx, k):
    """Precision at rank c = (long)(X R + 0.9) (trec_eval's rounding), X the multiple of R.

    .. math:: \\mathrm{Rprec\\_mult}_X = \\frac{1}{c} \\sum_{j=1}^{c} \\mathrm{rel}_j, \\quad c = \\lfloor XR + 0.9 \\rfloor

    >>> from fireeval.core.measures import score
    >>> score("Rprec_mult_2.0", [[1, 0, 1, 0]], n_relevant=[2]).tolist()
    [0.5]
    """
    cut = (k * ctx.n_rel + 0.9).astype(np.int64)  # trec_eval's rounding
    return ranking.safe_divide(ctx.rel_at(cut), cut)


FAMILIES = (
    Family("P", "P", precision, ir_names=("P",), param=Param("K", int, TREC_CUTOFFS, doc="cut-off"),
           options=(REL,), ranx_names=("precision",), nicknames=frozenset({"all_trec", "official"}), print_rank=11),
    Family("relative_P", "relative_P", relative_precision, param=Param("K", int, TREC_CUTOFFS, doc="cut-off"),
           nicknames=frozenset({"all_trec"}), print_rank=28),
    Family("Rprec", "Rprec", r_precision, ir_names=("Rprec", "R-Prec"), options=(REL,), nicknames=frozenset({"all_trec", "official"}),
           print_rank=7),
    Family("Rprec_mult", "Rprec_mult", r_precision_multiple,
           param=Param("X", float, R_MULTIPLES, low=0.0, high=1e6, doc="multiple of R"),
           nicknames=frozenset({"all_trec"}), print_rank=16),
)
