"""Binary preference: trec_eval ``bpref`` (ir_measures ``Bpref``) and ``gm_bpref`` (geometric mean)."""
from fireeval.core import ranking
from fireeval.core.measures.base import Family

NEEDS = frozenset({"grades", "judged", "nonrel"})


def bpref(ctx, k=None):
    """bpref (Buckley & Voorhees 2004): each retrieved relevant document loses the share of judged
    non-relevant documents ranked above it; unjudged documents are ignored.

    .. math:: \\mathrm{bpref} = \\frac{1}{R} \\sum_{r} \\left(1 - \\frac{\\min(|n \\text{ above } r|, R)}{\\min(R, N)}\\right)

    >>> from fireeval.core.measures import score
    >>> score("bpref", [[1, float("nan"), 0, 1]], n_relevant=[2], n_nonrelevant=[3]).tolist()
    [0.75]
    """
    return ranking.bpref(ctx.grades, ctx.n_rel, ctx.n_nonrel, ctx.level)


FAMILIES = (
    Family("bpref", "bpref", bpref, ir_names=("Bpref",), needs=NEEDS, nicknames=frozenset({"all_trec", "official"}),
           print_rank=8),
    Family("gm_bpref", "gm_bpref", bpref, summary="gm", needs=NEEDS, nicknames=frozenset({"all_trec"}),
           print_rank=15),
)
