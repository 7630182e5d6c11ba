"""Interpolated precision: ``iprec_at_recall_X`` and ``11pt_avg`` (trec_eval).

The cut-off for recall level X is the c-th relevant document, c = (long)(X R + 0.9) in
trec_eval 9.x; 10.0 rounds XR to nearest (``Context.rounding == "nearest"``).
"""
import numpy as np

from fireeval.core.measures.base import REL, Family, Measure, Param, float_param

RECALL_LEVELS = tuple(round(0.1 * i, 2) for i in range(11))


def interpolated_precisions(ctx, levels) -> list:
    """Interpolated precision at each recall level: the best precision at or after the rank
    where the c-th relevant document is retrieved. All levels at once: the c-th relevant
    document of every list is found by one binary search of the lists' running counts."""
    best_after = ctx.best_precision_from  # max precision from rank j on; shared by all 11 levels and 11pt_avg
    csum = ctx.relevant_in_top[..., 1:]
    depth = csum.shape[-1]
    shape = np.broadcast_shapes(csum.shape[:-1], np.shape(ctx.n_rel))  # (n_rel may broadcast over the lists)
    csum, best_after = np.broadcast_to(csum, shape + (depth,)), np.broadcast_to(best_after, shape + (depth + 1,))
    levels = np.asarray(levels, dtype=float)
    x = np.broadcast_to(ctx.n_rel, shape)[..., None] * levels  # (..., levels), in double as trec_eval
    if ctx.rounding == "nearest":  # 10.0: lround, halves away from zero (x >= 0)
        need = np.floor(x) + (x - np.floor(x) >= 0.5)
    else:
        need = np.floor(x + 0.9)
    need = need.astype(np.int64)
    # 0-based rank of the need-th relevant document (depth: never reached; need 0: the first rank). Each
    # list's counts are shifted by (depth + 1) x its row so that one sorted array holds them all.
    lists = int(np.prod(shape))
    shift = np.arange(lists, dtype=np.int64)[:, None] * (depth + 1)
    counts = (csum.reshape(lists, depth) + shift).ravel()
    targets = np.minimum(np.maximum(need, 1), depth + 1).reshape(lists, len(levels)) + shift
    first = np.searchsorted(counts, targets.ravel()).reshape(lists, len(levels)) - np.arange(lists)[:, None] * depth
    first = np.where(need == 0, 0, first.reshape(need.shape))
    value = np.take_along_axis(best_after, first, axis=-1)
    # trec_eval starts from num_rel_ret / num_ret: with nothing retrieved (-J and no judged document)
    # that is 0/0, which stays the value of a cut-off of 0 relevant documents (NaN, printed -nan)
    value = np.where((np.broadcast_to(ctx.n_ret, shape) == 0)[..., None] & (need == 0), np.nan, value)
    return [value[..., i] for i in range(len(levels))]


def iprec_at_recall(ctx, k):
    """Interpolated precision at recall level X.

    .. math:: \\mathrm{iprec}(X) = \\max_{j \\ge j_c} P@j, \\quad j_c = \\text{rank of the } c\\text{-th relevant},\\ c = \\lfloor XR + 0.9 \\rfloor

    >>> from fireeval.core.measures import score
    >>> score("iprec_at_recall_0.50", [[0, 1, 1]], n_relevant=[2]).tolist()
    [0.6666666666666666]
    """
    if k in RECALL_LEVELS:  # trec_eval's eleven levels: computed together once per context
        return ctx.shared("iprec_at_recall", lambda: interpolated_precisions(ctx, RECALL_LEVELS))[
            RECALL_LEVELS.index(k)]
    return interpolated_precisions(ctx, [k])[0]


def eleven_point_average(ctx, k=None):
    """Mean interpolated precision at recall 0.0, 0.1, ..., 1.0 (added from 1.0 down, as trec_eval); at the
    levels ``k`` (``11pt_avg.0.2,0.5,0.8``) as :func:`eleven_point_levels`.

    .. math:: \\mathrm{11pt} = \\frac{1}{11} \\sum_{X \\in \\{0, 0.1, \\dots, 1\\}} \\mathrm{iprec}(X)

    >>> from fireeval.core.measures import score
    >>> score("11pt_avg", [[1, 1]], n_relevant=[2]).tolist()
    [1.0]
    """
    if k is not None:
        return eleven_point_levels(ctx, k)
    points = ctx.shared("iprec_at_recall", lambda: interpolated_precisions(ctx, RECALL_LEVELS))
    total = np.zeros_like(points[0])
    for value in points[::-1]:
        total = total + value
    return total / len(points)


def _cut_off(level: float, n_rel: int, rounding: str) -> int:
    """The number of relevant documents of a recall level, as trec_eval 9.x ((long) (x + 0.9)) or 10.0 (lround)."""
    x = level * n_rel
    if rounding == "nearest":
        return int(np.copysign(np.floor(abs(x) + 0.5), x))
    return int(x + 0.9)  # (C's cast truncates toward zero, as int())


def eleven_point_levels(ctx, levels):
    """trec_eval's ``11pt_avg`` at the recall levels given, in the order given (m_11pt_avg.c, its loop run
    as it is: the interpolated precision at each level's cut-off, found walking up from the last
    retrieved document, summed and divided by the number of levels; trec_eval expects them ascending).

    .. math:: \\mathrm{11pt}(X_1 \\dots X_n) = \\frac{1}{n} \\sum_i \\mathrm{iprec}(X_i)

    >>> from fireeval.core.measures import score
    >>> score("11pt_avg.0.5,1", [[1, 0, 1]], n_relevant=[2]).round(4).tolist()   # (1 + 2/3) / 2
    [0.8333]
    """
    shape = ctx.shape
    n_rel, n_ret = np.broadcast_to(ctx.n_rel, shape), np.broadcast_to(ctx.n_ret, shape)
    rel = np.broadcast_to(ctx.rel, shape + (ctx.depth,))
    out = np.zeros(shape)
    for idx in np.ndindex(shape):
        retrieved = int(n_ret[idx])
        relevant = rel[idx][:retrieved].tolist()
        cuts = [_cut_off(level, int(n_rel[idx]), ctx.rounding) for level in levels]
        rel_so_far = sum(relevant)
        current = len(cuts) - 1
        while current >= 0 and cuts[current] > rel_so_far:
            current -= 1
        best = rel_so_far / retrieved if retrieved else float("nan")  # C's 0.0 / 0.0
        total = 0.0
        for i in range(retrieved, 0, -1):
            if rel_so_far <= 0:
                break
            if best < rel_so_far / i:  # (a NaN stays: C's "<" is false)
                best = rel_so_far / i
            if relevant[i - 1]:
                while current >= 0 and rel_so_far == cuts[current]:
                    total += best
                    current -= 1
                rel_so_far -= 1
        while current >= 0:
            total += best
            current -= 1
        out[idx] = total / len(levels)
    return out


def parse_eleven_point(text, low, printing=False):
    """``11pt_avg`` and trec_eval's ``11pt_avg.X1,X2...`` (recall levels, printed as written); None for other names."""
    if low == "11pt_avg":
        return [Measure("11pt_avg")]
    if not low.startswith("11pt_avg."):
        return None
    given = text.split(".", 1)[1]
    levels = tuple(float_param(part, text, -1e300, 1e300, signed=True) for part in given.split(","))
    return [Measure("11pt_avg", levels, param_text=given)]


FAMILIES = (
    Family("iprec_at_recall", "iprec_at_recall", iprec_at_recall, ir_names=("IPrec",), options=(REL,),
           param=Param("X", float, RECALL_LEVELS, low=0.0, high=1e6, doc="recall level"),
           needs=frozenset({"grades", "retrieved"}), nicknames=frozenset({"all_trec", "official"}), print_rank=10),
    Family("11pt_avg", "11pt_avg", eleven_point_average, needs=frozenset({"grades", "retrieved"}),
           nicknames=frozenset({"all_trec"}), print_rank=18, parse=parse_eleven_point,
           examples=("11pt_avg", "11pt_avg.0.2,0.5,0.8")),
)
