"""Discounted cumulative gain: ``ndcg`` (ir_measures ``nDCG``), ``ndcg_cut_K`` (``nDCG@K``), ``dcg``,
``ideal_dcg``, ``ndcg_rel``, ``Rndcg`` (trec_eval) and ``ndcg_exp`` / ``ndcg_exp_cut_K`` (gain 2^g - 1).

Gains are the grades themselves (trec_eval's, linear); negative grades and unjudged
documents gain 0; the ideal list is the qrels' positive grades sorted descending.
"""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import Family, Param, pad

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
IDEAL = frozenset({"grades", "ideal"})


def ndcg(ctx, k=None):
    """nDCG: DCG of the ranking over DCG of the ideal ranking, both cut at K (whole lists without K).

    .. math:: nDCG@K = \\frac{\\sum_{j \\le K} g_j / \\log_2(j+1)}{\\sum_{j \\le K} g^*_j / \\log_2(j+1)}

    >>> from fireeval.core.measures import score
    >>> score("nDCG@2", [[0, 1]], ideal=[[1]]).round(4).tolist()
    [0.6309]
    """
    return ranking.ndcg(ctx.grades, ctx.need_ideal(), k=k)


def ndcg_exponential(ctx, k=None):
    """nDCG with exponential gain 2^g - 1 (Burges et al.).

    .. math:: nDCG_{exp}@K = \\frac{\\sum_{j \\le K} (2^{g_j} - 1) / \\log_2(j+1)}{\\sum_{j \\le K} (2^{g^*_j} - 1) / \\log_2(j+1)}

    >>> from fireeval.core.measures import score
    >>> score("ndcg_exp", [[1, 2]]).round(4).tolist()
    [0.7967]
    """
    return ranking.ndcg(ctx.grades, ctx.need_ideal(), k=k, gain="exponential")


def dcg(ctx, k=None):
    """DCG of the whole ranking.

    .. math:: DCG = \\sum_j g_j / \\log_2(j + 1)

    >>> from fireeval.core.measures import score
    >>> score("dcg", [[1, 0, 1]]).tolist()
    [1.5]
    """
    return ranking.dcg(ctx.grades)


def ideal_dcg(ctx, k=None):
    """DCG of the ideal ranking (the qrels' positive grades sorted descending).

    .. math:: DCG^* = \\sum_j g^*_j / \\log_2(j + 1)

    >>> from fireeval.core.measures import score
    >>> score("ideal_dcg", [[0, 1, 1]]).tolist()
    [1.6309297535714575]
    """
    return np.broadcast_to(ranking.dcg(ctx.need_ideal()), ctx.shape).astype(float)


def ndcg_rel(ctx, k=None):
    """trec_eval's ndcg_rel: the mean, over the R' documents of positive gain, of nDCG at the rank
    where each is retrieved (the final nDCG for those not retrieved).

    .. math:: \\mathrm{ndcg\\_rel} = \\frac{1}{R'} \\sum_{d : g(d) > 0} nDCG@\\mathrm{rank}(d)

    >>> from fireeval.core.measures import score
    >>> score("ndcg_rel", [[1, 1]]).tolist()
    [1.0]
    """
    ideal = ctx.need_ideal()
    gain = ranking.gain_values(ctx.grades)
    width = max(ctx.depth, ideal.shape[-1])
    disc = 1.0 / np.log2(np.arange(2, width + 2))
    rdcg = np.cumsum(pad(gain, width) * disc, axis=-1)
    idcg = np.cumsum(pad(ideal, width) * disc, axis=-1)
    n_pos = (ideal > 0).sum(axis=-1)
    at_rel = ranking.safe_divide(rdcg, np.broadcast_to(idcg, rdcg.shape))
    pos_ret = gain > 0
    total = np.where(pad(pos_ret.astype(float), width) > 0, at_rel, 0.0).sum(axis=-1)
    final = ranking.safe_divide(rdcg[..., -1], idcg[..., -1])
    total = total + (n_pos - pos_ret.sum(axis=-1)) * final
    return ranking.safe_divide(total, n_pos)


def rndcg(ctx, k=None):
    """trec_eval's Rndcg (m_Rndcg.c): the mean nDCG at each rank where the ideal gain changes level,
    plus a final point at num_ret beyond the positives.

    .. math:: \\mathrm{Rndcg} = \\frac{1}{|B|} \\sum_{b \\in B} nDCG@b

    >>> from fireeval.core.measures import score
    >>> score("Rndcg", [[2, 1]]).tolist()
    [1.0]
    """
    ideal = ctx.need_ideal()
    gain = ranking.gain_values(ctx.grades)
    width = max(ctx.depth, ideal.shape[-1]) + 1
    disc = 1.0 / np.log2(np.arange(2, width + 2))
    rdcg = np.cumsum(pad(gain, width) * disc, axis=-1)
    ideal_p = pad(ideal, width)
    idcg = np.cumsum(ideal_p * disc, axis=-1)
    idcg = np.broadcast_to(idcg, rdcg.shape)
    ideal_b = np.broadcast_to(ideal_p, rdcg.shape)
    n_pos = (ideal_b > 0).sum(axis=-1)
    # boundary b (1-based cut-off) where ideal gain b differs from b-1, for b <= n_pos
    change = np.zeros(rdcg.shape, dtype=bool)
    change[..., 1:] = ideal_b[..., 1:] != ideal_b[..., :-1]
    ndcg_at = ranking.safe_divide(rdcg, idcg)  # index j: cut-off j + 1
    prev = np.zeros(rdcg.shape)
    prev[..., 1:] = ndcg_at[..., :-1]  # value at cut-off b = index b - 1
    total = np.where(change, prev, 0.0).sum(axis=-1)
    count = change.sum(axis=-1)
    extra = ctx.n_ret > n_pos + 1  # trec_eval's final point at num_ret
    full = ranking.safe_divide(rdcg[..., -1], idcg[..., -1])
    total = total + np.where(extra, full, 0.0)
    count = count + extra
    return np.where(ctx.n_rel > 0, ranking.safe_divide(total, count), 0.0)


CUT = Param("K", int, TREC_CUTOFFS, doc="cut-off")
FAMILIES = (
    Family("ndcg", "ndcg", ndcg, ir_names=("nDCG",), needs=IDEAL, nicknames=frozenset({"all_trec"}), print_rank=23),
    Family("ndcg_cut", "ndcg", ndcg, ir_names=("nDCG",), param=CUT, needs=IDEAL, nicknames=frozenset({"all_trec"}),
           print_rank=26),
    Family("ndcg_exp", "ndcg_exp", ndcg_exponential, needs=IDEAL, print_rank=26),
    Family("ndcg_exp_cut", "ndcg_exp", ndcg_exponential, ir_names=("ndcg_exp",), param=CUT, needs=IDEAL,
           print_rank=26),
    Family("dcg", "dcg", dcg, print_rank=21),
    Family("ideal_dcg", "ideal_dcg", ideal_dcg, needs=IDEAL, print_rank=22),
    Family("ndcg_rel", "ndcg_rel", ndcg_rel, needs=IDEAL, nicknames=frozenset({"all_trec"}), print_rank=24),
    Family("Rndcg", "Rndcg", rndcg, needs=frozenset({"grades", "ideal", "retrieved"}), nicknames=frozenset({"all_trec"}),
           print_rank=25),
)
