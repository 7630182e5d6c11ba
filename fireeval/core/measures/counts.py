"""Counts: ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret`` (trec_eval).

Summed over topics (``num_q`` counts the topics). ir_measures: ``NumQ``, ``NumRet``,
``NumRel``, ``NumRelRet``.
"""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import Family

TREC = frozenset({"all_trec", "official", "set"})


def num_q(ctx, k=None):
    """Topics evaluated: 1 per topic, summed.

    .. math:: \\mathrm{num\\_q} = |Q|

    >>> from fireeval.core.measures import score
    >>> score("num_q", [[1, 0]]).tolist()
    [1.0]
    """
    return np.ones(ctx.shape)


def num_ret(ctx, k=None):
    """Documents retrieved.

    .. math:: \\mathrm{num\\_ret} = |\\mathrm{ret}|

    >>> from fireeval.core.measures import score
    >>> score("num_ret", [[1, 0, 0]]).tolist()
    [3.0]
    """
    return np.broadcast_to(ctx.n_ret, ctx.shape).astype(float)


def num_rel(ctx, k=None):
    """Relevant documents in the qrels (grade >= level).

    .. math:: \\mathrm{num\\_rel} = |\\mathrm{Rel}|

    >>> from fireeval.core.measures import score
    >>> score("num_rel", [[1, 0]], n_relevant=[4]).tolist()
    [4.0]
    """
    return np.broadcast_to(ctx.n_rel, ctx.shape).astype(float)


def num_rel_ret(ctx, k=None):
    """Relevant documents retrieved.

    .. math:: \\mathrm{num\\_rel\\_ret} = |\\mathrm{Rel} \\cap \\mathrm{ret}|

    >>> from fireeval.core.measures import score
    >>> score("num_rel_ret", [[1, 0, 2]]).tolist()
    [2.0]
    """
    return ctx.n_rel_ret.astype(float)


def num_nonrel_judged_ret(ctx, k=None):
    """Judged non-relevant documents retrieved (0 <= grade < level; unjudged and negative grades excluded).

    .. math:: |\\{d \\in \\mathrm{ret} : 0 \\le g(d) < \\ell\\}|

    >>> from fireeval.core.measures import score
    >>> score("num_nonrel_judged_ret", [[1, 0, float("nan"), -1]]).tolist()
    [1.0]
    """
    return ranking.nonrelevant_judged(ctx.grades, ctx.level).sum(axis=-1).astype(float)


FAMILIES = (
    Family("num_q", "num_q", num_q, ir_names=("NumQ",), summary="count", nicknames=TREC, print_rank=1),
    Family("num_ret", "num_ret", num_ret, ir_names=("NumRet",), summary="sum", needs=frozenset({"retrieved"}),
           nicknames=TREC, print_rank=2),
    Family("num_rel", "num_rel", num_rel, ir_names=("NumRel",), summary="sum", nicknames=TREC, print_rank=3),
    Family("num_rel_ret", "num_rel_ret", num_rel_ret, ir_names=("NumRelRet",), summary="sum", nicknames=TREC,
           print_rank=4),
    Family("num_nonrel_judged_ret", "num_nonrel_judged_ret", num_nonrel_judged_ret, summary="sum",
           needs=frozenset({"grades", "judged"}), nicknames=frozenset({"all_trec"}), print_rank=35),
)
