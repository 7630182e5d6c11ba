"""Discounted cumulative gain: ``ndcg`` (ir_measures ``nDCG``), ``ndcg_cut_K`` (``nDCG@K``), ``dcg``,
``ideal_dcg``, ``ndcg_rel``, ``Rndcg`` (trec_eval) and ``ndcg_exp`` / ``ndcg_exp_cut_K`` (gain 2^g - 1).

Gains are the grades themselves (trec_eval's, linear); negative grades and unjudged
documents gain 0; the ideal list is the qrels' positive grades sorted descending.
"""
import numpy as np

from fireeval.core import ranking
from fireeval.core.measures.base import Family, Measure, Param, float_param, pad

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
IDEAL = frozenset({"grades", "ideal"})


def ndcg(ctx, k=None):
    """nDCG: DCG of the ranking over DCG of the ideal ranking, both cut at K (whole lists without K).

    .. math:: nDCG@K = \\frac{\\sum_{j \\le K} g_j / \\log_2(j+1)}{\\sum_{j \\le K} g^*_j / \\log_2(j+1)}

    With trec_eval's gain values (``ndcg.1=0,2=1,3=5``: ``k`` the (grade, gain) pairs) see
    :func:`ndcg_with_gains`.

    >>> from fireeval.core.measures import score
    >>> score("nDCG@2", [[0, 1]], ideal=[[1]]).round(4).tolist()
    [0.6309]
    """
    if isinstance(k, tuple):
        return ndcg_with_gains(ctx, k)
    return ranking.ndcg(ctx.grades, ctx.need_ideal(), k=k)


def _c_msort(items, compare):
    """``items`` sorted as glibc's qsort sorts them (its top-down merge sort), with a C comparator that may
    call unequal items equal (trec_eval compares gains as ``(int) (g1 - g2)``)."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _c_msort(items[:half], compare), _c_msort(items[half:], compare)
    out = []
    while left and right:
        out.append(left.pop(0) if compare(left[0], right[0]) <= 0 else right.pop(0))
    return out + left + right


def _trec_gain_levels(pairs, counts):
    """trec_eval's setup_gains (m_ndcg.c): ``[(grade, gain, judged documents of that grade)]`` in its order
    (gain ascending as ``(int) (g1 - g2)`` compares them), from the (grade, gain) parameters and the number of
    judged documents of each grade 0, 1, ... of a topic."""
    levels = [[grade, gain, 0] for grade, gain in pairs]
    for grade, count in enumerate(counts):
        for level in levels:
            if level[0] == grade:
                level[2] = count
                break
        else:
            levels.append([grade, float(grade), count])
    return _c_msort(levels, lambda a, b: int(a[1] - b[1]))


def ndcg_with_gains(ctx, pairs):
    """trec_eval's ``ndcg.G1=V1,G2=V2...`` (m_ndcg.c): grade G gains V (other grades gain their grade,
    documents not in the qrels or with a negative grade 0 unless given), the ideal ranking takes the judged
    documents level by level from the highest gain down and stops at the first level of gain <= 0; gains
    are ordered as trec_eval's comparator truncates their difference to an integer.

    .. math:: nDCG = \\frac{\\sum_j \\mathrm{gain}(g_j) / \\log_2(j+1)}{\\sum_j \\mathrm{gain}^*_j / \\log_2(j+1)}

    >>> from fireeval.core.measures import score
    >>> score("ndcg.1=0,2=1,3=5", [[1, 3, 2]]).round(4).tolist()   # (5/log2 3 + 1/2) / (5 + 1/log2 3)
    [0.649]
    """
    ideal = np.broadcast_to(ctx.need_ideal(), ctx.shape + ctx.need_ideal().shape[-1:])
    if ctx.n_nonrel is None:
        raise ValueError("ndcg with gain values needs the number of judged documents of grade 0 per topic")
    n_rel, n_nonrel = np.broadcast_to(ctx.n_rel, ctx.shape), np.broadcast_to(ctx.n_nonrel, ctx.shape)
    n_ret = np.broadcast_to(ctx.n_ret, ctx.shape)
    out = np.zeros(ctx.shape)
    for idx in np.ndindex(ctx.shape):
        positive = ideal[idx][ideal[idx] > 0].astype(np.int64)
        grades = np.bincount(positive) if len(positive) else np.zeros(1, np.int64)
        if ctx.level >= 1:  # judged documents of grade 0: the non-relevant ones less those of grade 1 .. level-1
            grades[0] = int(n_nonrel[idx]) - int(grades[1:ctx.level].sum())
        else:
            grades[0] = int(n_rel[idx]) - len(positive)
        counts = grades[:np.flatnonzero(grades)[-1] + 1] if grades.any() else grades[:0]
        levels = _trec_gain_levels(pairs, counts.tolist())
        ideal_gains = []
        if levels and levels[-1][1] > 0:
            for _, gain, count in reversed(levels):
                if count:
                    if gain <= 0:
                        break
                    ideal_gains += [gain] * count
        first_gain = {}
        for grade, gain, _ in levels:  # a grade's gain is its first level in that order
            first_gain.setdefault(grade, gain)
        row = ctx.grades[idx][:int(n_ret[idx])]
        codes = np.where(np.isnan(row), -1, np.where(row < 0, -2, row))  # trec_eval: not in the qrels -1, negative -2
        gains = np.array([first_gain.get(int(c), 0.0) for c in codes.tolist()], dtype=float)
        disc = np.log2(np.arange(2, max(len(gains), len(ideal_gains)) + 2))
        dcg = np.cumsum(np.where(gains != 0, gains / disc[:len(gains)], 0.0))[-1] if len(gains) else 0.0
        best = np.cumsum(np.asarray(ideal_gains) / disc[:len(ideal_gains)])[-1] if ideal_gains else 0.0
        out[idx] = dcg / best if best > 0 else 0.0
    return out


def parse_ndcg(text, low, printing=False):
    """``ndcg`` / ``nDCG`` and trec_eval's ``ndcg.GRADE=GAIN,...`` (gain values); None for other names."""
    if low == "ndcg":
        return [Measure("ndcg", label=text if printing and text != "ndcg" else None)]
    if not low.startswith("ndcg."):
        return None
    given = text.split(".", 1)[1]
    pairs = []
    for part in given.split(","):
        grade, sep, gain = part.partition("=")
        if not sep or not grade.strip("+-").isdigit() or not grade.isascii():
            raise ValueError(f"-m {text}: {part!r} is not GRADE=GAIN. Fix: write the gains as trec_eval takes them, "
                             "e.g. ndcg.1=0,2=1,3=5 (grade 1 gains 0, grade 2 gains 1, grade 3 gains 5)")
        pairs.append((int(grade), float_param(gain, text, -1e300, 1e300, signed=True)))
    return [Measure("ndcg", tuple(pairs), param_text=given)]


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


def dcg_cut(ctx, k):
    """DCG of the top K (ranx's ``dcg@K``, Järvelin and Kekäläinen's linear gains).

    .. math:: DCG@K = \\sum_{j \\le K} g_j / \\log_2(j + 1)

    >>> from fireeval.core.measures import score
    >>> score("dcg@2", [[1, 0, 1]]).tolist()
    [1.0]
    """
    return ranking.dcg(ctx.grades[..., :k])


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
    # R > 0 and no point (every relevant document of grade 0, -l 0): trec_eval divides 0 by 0 (-nan)
    mean = np.where(count > 0, ranking.safe_divide(total, count), np.nan)
    return np.where(ctx.n_rel > 0, mean, 0.0)


CUT = Param("K", int, TREC_CUTOFFS, doc="cut-off")
FAMILIES = (
    Family("ndcg", "ndcg", ndcg, ir_names=("nDCG",), needs=IDEAL, nicknames=frozenset({"all_trec"}), print_rank=23,
           parse=parse_ndcg, examples=("ndcg", "nDCG", "ndcg.1=0,2=1,3=5")),
    Family("ndcg_cut", "ndcg", ndcg, ir_names=("nDCG",), ranx_names=("ndcg",), param=CUT, needs=IDEAL, nicknames=frozenset({"all_trec"}),
           print_rank=26),
    Family("ndcg_exp", "ndcg_exp", ndcg_exponential, needs=IDEAL, print_rank=26),
    Family("ndcg_exp_cut", "ndcg_exp", ndcg_exponential, ir_names=("ndcg_exp",), ranx_names=("ndcg_burges",), param=CUT, needs=IDEAL,
           print_rank=26),
    Family("dcg", "dcg", dcg, print_rank=21),
    Family("dcg_cut", "dcg_cut", dcg_cut, ranx_names=("dcg",), param=CUT, trec_forms=False, gains_based=False),
    Family("ideal_dcg", "ideal_dcg", ideal_dcg, needs=IDEAL, print_rank=22),
    Family("ndcg_rel", "ndcg_rel", ndcg_rel, needs=IDEAL, nicknames=frozenset({"all_trec"}), print_rank=24),
    Family("Rndcg", "Rndcg", rndcg, needs=frozenset({"grades", "ideal", "retrieved"}), nicknames=frozenset({"all_trec"}),
           print_rank=25),
)
