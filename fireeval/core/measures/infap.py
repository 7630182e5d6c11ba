"""Inferred AP: trec_eval ``infAP``, ir_measures ``infAP`` (Yilmaz & Aslam 2006).

A negative grade is trec_eval's "pooled but not judged"; documents absent from the qrels
are outside the pool. With every pooled document judged, infAP equals AP up to
:data:`fireeval.core.ranking.INFAP_EPSILON`.
"""
from fireeval.core import ranking
from fireeval.core.measures.base import Family


def inferred_ap(ctx, k=None):
    """infAP: the expected precision at each relevant document, estimated from the judged ones above it.

    .. math:: E[P@i] = \\frac{1}{i} + \\frac{i-1}{i}\\cdot\\frac{|d_{<i}|}{i-1}\\cdot\\frac{r_{<i} + \\epsilon}{r_{<i} + n_{<i} + 2\\epsilon},
              \\quad \\mathrm{infAP} = \\frac{1}{R}\\sum_{i : \\mathrm{rel}_i} E[P@i]

    >>> from fireeval.core.measures import score
    >>> score("infAP", [[1, 0, 1]], n_relevant=[2]).round(4).tolist()   # complete judgements: AP
    [0.8333]
    """
    return ranking.inferred_ap(ctx.grades, ctx.n_rel, ctx.level)


FAMILIES = (
    Family("infAP", "infAP", inferred_ap, ir_names=("infAP",), needs=frozenset({"grades", "judged"}),
           nicknames=frozenset({"all_trec"}), print_rank=14),
)
