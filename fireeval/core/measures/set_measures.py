"""Set measures (the retrieved list as a set): trec_eval's ``set_P`` (ir_measures ``SetP``),
``set_recall`` (``SetR``), ``set_relative_P``, ``set_map`` (``SetAP``), ``set_F`` (``SetF``),
and ``utility.a,b,c,d``.
"""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import Family, Measure, float_param

SET = frozenset({"all_trec", "set"})
RET = frozenset({"grades", "retrieved"})


def set_precision(ctx, k=None):
    """Relevant retrieved over retrieved.

    .. math:: \\mathrm{set\\_P} = |\\mathrm{Rel} \\cap \\mathrm{ret}| / |\\mathrm{ret}|

    >>> from fireeval.core.measures import score
    >>> score("SetP", [[1, 0, 0, 1]]).tolist()
    [0.5]
    """
    return ranking.safe_divide(ctx.n_rel_ret, ctx.n_ret)


def set_recall(ctx, k=None):
    """Relevant retrieved over R.

    .. math:: \\mathrm{set\\_recall} = |\\mathrm{Rel} \\cap \\mathrm{ret}| / R

    >>> from fireeval.core.measures import score
    >>> score("set_recall", [[1, 0]], n_relevant=[4]).tolist()
    [0.25]
    """
    return ranking.safe_divide(ctx.n_rel_ret, ctx.n_rel)


def set_relative_precision(ctx, k=None):
    """Relevant retrieved over min(retrieved, R).

    .. math:: \\mathrm{set\\_relative\\_P} = \\frac{|\\mathrm{Rel} \\cap \\mathrm{ret}|}{\\min(|\\mathrm{ret}|, R)}

    >>> from fireeval.core.measures import score
    >>> score("set_relative_P", [[1, 0, 0]], n_relevant=[1]).tolist()
    [1.0]
    """
    return ranking.safe_divide(ctx.n_rel_ret, np.minimum(ctx.n_ret, ctx.n_rel))


def set_map(ctx, k=None):
    """set_P times set_recall, computed as (rel_ret * rel_ret) / (ret * R), trec_eval's order.

    .. math:: \\mathrm{set\\_map} = \\frac{|\\mathrm{Rel} \\cap \\mathrm{ret}|^2}{|\\mathrm{ret}| \\cdot R}

    >>> from fireeval.core.measures import score
    >>> score("set_map", [[1, 0]], n_relevant=[2]).tolist()
    [0.25]
    """
    rr = ctx.n_rel_ret.astype(float)
    return ranking.safe_divide(rr * rr, ctx.n_ret.astype(float) * ctx.n_rel)


def set_f(ctx, k=None):
    """F with trec_eval's weighting: (x + 1) P R / (x P + R), x the parameter (default 1).

    .. math:: F_x = \\frac{(x + 1)\\, P\\, R}{x P + R}

    >>> from fireeval.core.measures import score
    >>> score("set_F", [[1, 0]], n_relevant=[1]).round(4).tolist()
    [0.6667]
    """
    x = 1.0 if k is None else float(k)
    p = ranking.safe_divide(ctx.n_rel_ret, ctx.n_ret)
    r = ranking.safe_divide(ctx.n_rel_ret, ctx.n_rel)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(ctx.n_rel_ret > 0, ranking.safe_divide((x + 1.0) * p * r, x * p + r), 0.0)


def utility(ctx, k):
    """a * relevant retrieved + b * non-relevant retrieved + c * relevant not retrieved + d * non-relevant not
    retrieved, the last counted as trec_eval counts it from the collection size N (``-N``, default 0, as
    trec_eval's: then d multiplies a negative count). ``k`` is (a, b, c, d) or (a, b, c, d, N).

    .. math:: U = a\\,|\\mathrm{Rel} \\cap \\mathrm{ret}| + b\\,|\\overline{\\mathrm{Rel}} \\cap \\mathrm{ret}| + c\\,|\\mathrm{Rel} \\setminus \\mathrm{ret}| + d\\,(N + |\\mathrm{Rel} \\cap \\mathrm{ret}| - |\\mathrm{ret}| - R)

    >>> from fireeval.core.measures import score
    >>> score("utility", [[1, 0, 0]]).tolist()
    [-1.0]
    """
    a, b, c, d = k[:4]
    size = k[4] if len(k) > 4 else 0
    rel_ret, n_ret, n_rel = ctx.n_rel_ret, ctx.n_ret, ctx.n_rel
    value = (a * rel_ret + b * (n_ret - rel_ret) + c * (n_rel - rel_ret)).astype(float)
    return value + d * (size + rel_ret - n_ret - n_rel) if d else value


def parse_set_f(text, low, printing=False):
    if low in ("set_f", "setf"):
        return [Measure("set_F", 1.0, label=text if printing and low == "setf" else None)]
    if low.startswith("set_f."):
        given = text.split(".", 1)[1]
        return [Measure("set_F", float_param(given, text, 0.0, 1e300), param_text=given)]
    return None


def parse_utility(text, low, printing=False):
    if low == "utility":
        return [Measure("utility", (1.0, -1.0, 0.0, 0.0))]
    if not low.startswith("utility."):
        return None
    given = text.split(".", 1)[1]
    parts = given.split(",")
    if len(parts) != 4:
        raise ValueError(f"-m {text}: utility takes four numbers a,b,c,d. Fix: write e.g. utility.1,-1,0,0")
    params = tuple(float_param(p, text, -1e300, 1e300, signed=True) for p in parts)
    # (d weighs the non-relevant documents not retrieved: with the collection size of -N, 0 by default as in
    # trec_eval)
    return [Measure("utility", params, param_text=given)]


FAMILIES = (
    Family("set_P", "set_P", set_precision, ir_names=("SetP",), needs=RET, nicknames=SET, print_rank=30),
    Family("set_relative_P", "set_relative_P", set_relative_precision, needs=RET, nicknames=SET, print_rank=31),
    Family("set_recall", "set_recall", set_recall, ir_names=("SetR",), nicknames=SET, print_rank=32),
    Family("set_map", "set_map", set_map, ir_names=("SetAP",), needs=RET, nicknames=SET, print_rank=33),
    Family("set_F", "set_F", set_f, needs=RET, nicknames=SET, print_rank=34, parse=parse_set_f,
           examples=("set_F", "set_F.0.5", "SetF")),
    Family("utility", "utility", utility, needs=RET, nicknames=SET, print_rank=17, parse=parse_utility,
           examples=("utility", "utility.1,-1,0,0")),
)
