"""trec_eval 10.0's rank-biased measures: ``rbp.p=P``, ``rbp_resid.p=P`` (Moffat & Zobel 2008) and
``unj_K`` (unjudged documents in the top K). Not in 9.0.7."""
import dataclasses

import numpy as np

from fireeval.core.measures.base import REL, Family, Measure, Param, float_param, pad

V10 = frozenset({"grades", "judged", "retrieved"})


def _powers(p, depth):
    # p^i as trec_eval forms it, by repeated multiplication (not pow): the same doubles
    return np.cumprod(np.r_[1.0, np.full(depth, p)])


def rbp(ctx, k=None):
    """RBP: (1 - p) times the sum of gain p^(rank-1); a grade is its own gain, scaled into [0, 1] by the
    topic's largest grade when that exceeds 1; unjudged and negative grades gain 0.

    .. math:: \\mathrm{RBP} = (1 - p) \\sum_j g_j\\, p^{j-1}

    >>> from fireeval.core.measures import score
    >>> score("rbp.p=0.5", [[1, 0, 1]]).tolist()   # 0.5 * (1 + 0.25)
    [0.625]
    """
    p = 0.9 if k is None else float(k)
    top = pad(ctx.need_ideal(), 1)[..., :1]  # the topic's largest positive grade (0 when none)
    gain = np.where(ctx.grades > 0, ctx.grades, 0.0)
    gain = np.where(top > 1, gain / np.where(top > 1, top, 1.0), gain)
    gain = np.where(ctx.retrieved(), gain, 0.0)
    terms = gain * _powers(p, ctx.depth)[:ctx.depth]
    return (1.0 - p) * np.cumsum(terms, axis=-1)[..., -1]  # summed in rank order, as trec_eval


def rbp_residual(ctx, k=None):
    """RBP's residual: p^num_ret + (1 - p) times the sum of p^(rank-1) over unjudged retrieved documents;
    0 when every retrieved document is judged.

    .. math:: \\mathrm{resid} = p^{|\\mathrm{ret}|} + (1 - p) \\sum_{j : d_j \\text{ unjudged}} p^{j-1}

    >>> from fireeval.core.measures import score
    >>> score("rbp_resid.p=0.5", [[1, float("nan")]], n_retrieved=[2]).tolist()   # 0.25 + 0.5 * 0.5
    [0.5]
    """
    p = 0.9 if k is None else float(k)
    powers = _powers(p, ctx.depth)
    unjudged = (np.isnan(ctx.grades) | (ctx.grades < 0)) & ctx.retrieved()
    total = np.cumsum(np.where(unjudged, powers[:ctx.depth], 0.0), axis=-1)[..., -1]
    tail = powers[np.minimum(np.asarray(ctx.n_ret, dtype=np.int64), ctx.depth)]
    return np.where(unjudged.any(axis=-1), tail + (1.0 - p) * total, 0.0)


def unjudged(ctx, k):
    """Unjudged documents (absent from the qrels, or with a negative grade) in the top K, over K.

    .. math:: \\mathrm{unj@K} = \\frac{1}{K} |\\{j \\le K : d_j \\text{ unjudged}\\}|

    >>> from fireeval.core.measures import score
    >>> score("unj_2", [[1, float("nan"), 0]]).tolist()
    [0.5]
    """
    top = ctx.grades[..., :k]
    missing = (np.isnan(top) | (top < 0)) & ctx.retrieved()[..., :k]
    return missing.sum(axis=-1) / float(k)


def rbp_binary(ctx, k, p=0.8):
    """ir_measures' ``RBP(rel=R,p=P)@K``: rank-biased precision of the top K with binary relevance (grade >= R).

    .. math:: \\mathrm{RBP@K} = (1 - p) \\sum_{j \\le K} \\mathrm{rel}_j\\, p^{j-1}

    >>> from fireeval.core.measures import score
    >>> score("RBP(rel=1,p=0.5)@2", [[1, 0, 1]]).tolist()   # 0.5 * 1
    [0.5]
    """
    return (1.0 - p) * (ctx.rel[..., :k] * _powers(p, ctx.depth)[:ctx.depth][:k]).sum(axis=-1)


def _parse_persistence(root):
    def parse(text, low, printing=False):
        head, dot, _ = low.partition(".")
        if head != root:
            return None
        if not dot:
            return [Measure(root, 0.9)]
        given = text.split(".", 1)[1]
        key, eq, value = given.partition("=")
        if key != "p" or not eq:
            raise ValueError(f"-m {text}: {root} takes one parameter, p=VALUE (persistence). Fix: write e.g. "
                             f"{root}.p=0.95")
        return [Measure(root, float_param(value, text, 0.0, 1.0), param_text=given)]
    return parse


ALL10 = frozenset({"all_trec"})
FAMILIES = (
    Family("rbp", "rbp", rbp, needs=frozenset({"grades", "ideal", "retrieved"}), nicknames=ALL10, print_rank=36,
           since="10.0", parse=_parse_persistence("rbp"), examples=("rbp", "rbp.p=0.95")),
    Family("rbp_resid", "rbp_resid", rbp_residual, needs=V10, nicknames=ALL10, print_rank=37, since="10.0",
           parse=_parse_persistence("rbp_resid"), examples=("rbp_resid", "rbp_resid.p=0.8")),
    Family("RBP", "ir_rbp", rbp_binary, ir_names=("RBP",), param=Param("K", int, (10,), doc="cut-off"),
           options=(dataclasses.replace(REL, required=True, doc="binary relevance from this grade on; ir_measures' "
                                        "RBP without rel takes its provider's graded gains, which fireeval does not "
                                        "reproduce"),
                    Param("p", float, 0.8, low=0.0, high=1.0, doc="persistence")),
           trec_forms=False, gains_based=False, examples=("RBP(rel=1)@10",)),
    Family("unj", "unj", unjudged, param=Param("K", int, (5, 10, 20), doc="cut-off"), needs=V10, nicknames=ALL10,
           print_rank=38, since="10.0"),
)
