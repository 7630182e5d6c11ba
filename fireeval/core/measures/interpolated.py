"""Interpolated precision: ``iprec_at_recall_X`` and ``11pt_avg`` (trec_eval).

The cut-off for recall level X is the c-th relevant document, c = (long)(X R + 0.9) in
trec_eval 9.x; 10.0 rounds XR to nearest (``Context.rounding == "nearest"``).
"""
import numpy as np

from fireeval.core.measures.base import Family, Param

RECALL_LEVELS = tuple(round(0.1 * i, 2) for i in range(11))


def interpolated_precisions(ctx, levels):
    """Interpolated precision at each recall level: the best precision at or after the rank
    where the c-th relevant document is retrieved."""
    best_after = ctx.best_precision_from  # max precision from rank j on; shared by all 11 levels and 11pt_avg
    csum = ctx.relevant_in_top[..., 1:]
    out = []
    for level in levels:
        x = level * ctx.n_rel
        if ctx.rounding == "nearest":  # 10.0: lround, halves away from zero (x >= 0)
            need = np.floor(x) + (x - np.floor(x) >= 0.5)
        else:
            need = np.floor(x + 0.9)
        need = need.astype(np.int64)
        # position of the need-th relevant document (need 0: the first rank)
        reached = csum >= np.maximum(need, 1)[..., None]
        first = np.where(reached.any(axis=-1), np.argmax(reached, axis=-1), ctx.depth)
        first = np.where(need == 0, 0, first)
        value = np.take_along_axis(best_after, first[..., None], axis=-1)[..., 0]
        # trec_eval starts from num_rel_ret / num_ret: with nothing retrieved (-J and no judged document)
        # that is 0/0, which stays the value of a cut-off of 0 relevant documents (NaN, printed -nan)
        out.append(np.where((np.asarray(ctx.n_ret) == 0) & (need == 0), np.nan, value))
    return out


def iprec_at_recall(ctx, k):
    """Interpolated precision at recall level X.

    .. math:: \\mathrm{iprec}(X) = \\max_{j \\ge j_c} P@j, \\quad j_c = \\text{rank of the } c\\text{-th relevant},\\ c = \\lfloor XR + 0.9 \\rfloor

    >>> from fireeval.core.measures import score
    >>> score("iprec_at_recall_0.50", [[0, 1, 1]], n_relevant=[2]).tolist()
    [0.6666666666666666]
    """
    return interpolated_precisions(ctx, [k])[0]


def eleven_point_average(ctx, k=None):
    """Mean interpolated precision at recall 0.0, 0.1, ..., 1.0 (added from 1.0 down, as trec_eval).

    .. math:: \\mathrm{11pt} = \\frac{1}{11} \\sum_{X \\in \\{0, 0.1, \\dots, 1\\}} \\mathrm{iprec}(X)

    >>> from fireeval.core.measures import score
    >>> score("11pt_avg", [[1, 1]], n_relevant=[2]).tolist()
    [1.0]
    """
    points = interpolated_precisions(ctx, RECALL_LEVELS)
    total = np.zeros_like(points[0])
    for value in points[::-1]:
        total = total + value
    return total / len(points)


FAMILIES = (
    Family("iprec_at_recall", "iprec_at_recall", iprec_at_recall,
           param=Param("X", float, RECALL_LEVELS, low=0.0, high=1e6, doc="recall level"),
           needs=frozenset({"grades", "retrieved"}), nicknames=frozenset({"all_trec", "official"}), print_rank=10),
    Family("11pt_avg", "11pt_avg", eleven_point_average, needs=frozenset({"grades", "retrieved"}),
           nicknames=frozenset({"all_trec"}), print_rank=18),
)
