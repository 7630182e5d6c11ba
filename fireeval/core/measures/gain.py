"""Cumulative gain against the ideal: trec_eval's ``G`` (graded) and ``binG`` (binary)."""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import Family, pad


def g(ctx, k=None):
    """trec_eval's G (m_G.c): each gain over log2(2 + ideal cost so far - gain so far), over the
    total ideal gain (costs are the ideal gains, at least 1 each).

    .. math:: G = \\frac{1}{\\sum_j g^*_j} \\sum_{j : g_j \\ne 0} \\frac{g_j}{\\log_2(2 + C^*_j - \\sum_{i \\le j} g_i)}

    >>> from fireeval.core.measures import score
    >>> score("G", [[1, 1]]).tolist()
    [1.0]
    """
    ideal = ctx.need_ideal()
    gain = ranking.gain_values(ctx.grades)
    cost = np.cumsum(np.maximum(pad(ideal, ctx.depth)[..., :ctx.depth], 1.0), axis=-1)
    got = np.cumsum(gain, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(gain != 0, gain / np.log2(2 + cost - got), 0.0)
    return ranking.safe_divide(terms.sum(axis=-1), ideal.sum(axis=-1))


def bin_g(ctx, k=None):
    """trec_eval's binG: each relevant document discounted by log2(2 + non-relevant above it), over R.

    .. math:: \\mathrm{binG} = \\frac{1}{R} \\sum_{j : \\mathrm{rel}_j} \\frac{1}{\\log_2(2 + n_{<j})}

    >>> from fireeval.core.measures import score
    >>> score("binG", [[0, 1]], n_relevant=[1]).round(4).tolist()
    [0.6309]
    """
    nonrel_before = ctx.rank - np.cumsum(ctx.rel, axis=-1)
    return ranking.safe_divide(np.where(ctx.rel, 1.0 / np.log2(2 + nonrel_before), 0.0).sum(axis=-1), ctx.n_rel)


FAMILIES = (
    Family("binG", "binG", bin_g, nicknames=frozenset({"all_trec"}), print_rank=19),
    Family("G", "G", g, needs=frozenset({"grades", "ideal"}), nicknames=frozenset({"all_trec"}), print_rank=20),
)
