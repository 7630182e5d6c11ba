"""Score many runs on many topics with named measures (the code behind ``fireeval evaluate``).

Measure names
-------------
* trec_eval's, every numeric measure of ``-m all_trec`` (9.x and 10.0): ``num_q``,
  ``num_ret``, ``num_rel``, ``num_rel_ret``, ``map``, ``gm_map``, ``Rprec``, ``bpref``,
  ``recip_rank``, ``iprec_at_recall_0.10``, ``P_10``, ``recall_10``, ``infAP``,
  ``gm_bpref``, ``Rprec_mult_0.20``, ``utility``, ``11pt_avg``, ``binG``, ``G``, ``dcg``,
  ``ideal_dcg``, ``ndcg``, ``ndcg_rel``, ``Rndcg``, ``ndcg_cut_10``, ``map_cut_10``,
  ``relative_P_10``, ``success_5``, ``set_P``, ``set_relative_P``, ``set_recall``,
  ``set_map``, ``set_F``, ``num_nonrel_judged_ret``. A bare family name (``P``,
  ``ndcg_cut``, ``iprec_at_recall``...) gives trec_eval's default cut-offs; the dotted
  forms trec_eval accepts give your own (``P.10``, ``ndcg_cut.10,20``,
  ``utility.1,-1,0,0``, ``set_F.0.5``). ``official`` and ``all_trec`` expand as in
  trec_eval.
* ir_measures': ``AP``, ``P@10``, ``R@10``, ``nDCG``, ``nDCG@10``, ``RR``, ``Bpref``,
  ``infAP``, ``Judged@10``, ``Success@5``, ``Rprec``/``R-Prec``, ``NumRet``,
  ``NumRel``, ``NumRelRet``, ``SetP``, ``SetR``, ``SetF`` -- reported under the
  trec_eval name.
* the video-retrieval ``correct@K`` (alias ``C@K``): trec_eval's ``success_K``, reported
  under the name you asked for. Exponential-gain nDCG: ``ndcg_exp`` / ``ndcg_exp_cut_K``.

Conventions (trec_eval's): a document is relevant when its grade is >= the relevance
level (``-l``, default 1); gains for the nDCG family are the grades themselves; topics
are those in both run and qrels unless ``complete`` (``-c``); ``judged_only`` (``-J``)
removes unjudged documents before anything is computed (the condensed list of Sakai
2007); ``max_retrieved`` (``-M``) keeps each topic's top documents. Summaries over topics
are means, except the counts (sums), ``num_q``, and the ``gm_*`` measures (geometric mean
with trec_eval's floor of 1e-5 per topic).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from fireeval.core import ranking

# RunSet and Qrels (pandas) are imported inside evaluate(): the streaming command
# (fireeval.core.stream) uses the measures without them.

__all__ = ["Measure", "parse_measure", "parse_measures", "Scores", "DEFAULT_MEASURES",
           "TREC_CUTOFFS", "ALL_TREC", "OFFICIAL", "GM_EPSILON", "TREC_EVAL_VERSIONS", "check_trec_eval_version", "relstrings",
           "trec_eval_order"]

DEFAULT_MEASURES = ["map", "P_5", "P_10", "recall_10", "ndcg", "ndcg_cut_10", "recip_rank",
                    "correct@1", "correct@5", "correct@10"]
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
GM_EPSILON = 0.00001  # trec_eval's MIN_GEO_MEAN: a topic scoring 0 counts as 1e-5 in gm_*
_DEFAULT_PARAMS = {
    "P": TREC_CUTOFFS, "recall": TREC_CUTOFFS, "ndcg_cut": TREC_CUTOFFS, "map_cut": TREC_CUTOFFS,
    "relative_P": TREC_CUTOFFS, "success": (1, 5, 10), "unj": (5, 10, 20),
    "iprec_at_recall": tuple(round(0.1 * i, 2) for i in range(11)),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}
_SCALAR = {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
           "infAP", "gm_bpref", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg",
           "set_P", "set_relative_P", "set_recall", "set_map", "num_nonrel_judged_ret", "ndcg_exp"}
_COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
# trec_eval's measure order (measures.c) and its nicknames.
_ORDER = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
          "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
          "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
          "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
OFFICIAL = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P"]
# 9.x's all_trec, numeric measures only (dcg and ideal_dcg are accepted by name).
ALL_TREC = [m for m in _ORDER if m not in ("dcg", "ideal_dcg")]
#: The trec_eval releases whose output ``fireeval evaluate`` reproduces (``--trec-eval``).
TREC_EVAL_VERSIONS = ("9.0.7", "10.0")
_ONLY_10 = ("rbp", "rbp_resid", "unj")  # measures 10.0 added (all three in its all_trec)
_STRINGS = ("runid", "relstring")  # printed as text: runid on the summary only, relstring per topic only
# The nicknames with the text measures, in trec_eval's print order (measures.c), per version.
_PRINT_ORDER = ["runid"] + _ORDER[:11] + ["relstring"] + _ORDER[11:] + list(_ONLY_10)
_NICKNAMES = {
    "all_trec": ["runid", "relstring"] + ALL_TREC + list(_ONLY_10),
    "official": ["runid"] + OFFICIAL,
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
}


def check_trec_eval_version(version: str) -> str:
    """``version`` if it is one of :data:`TREC_EVAL_VERSIONS`, else a ValueError saying which are.

    Parameters
    ----------
    version : str
        ``"9.0.7"`` or ``"10.0"``.

    Examples
    --------
    >>> check_trec_eval_version("10.0")
    '10.0'
    """
    if version not in TREC_EVAL_VERSIONS:
        raise ValueError(f"trec_eval version {version!r} is not one fireeval reproduces. Fix: use one of "
                         f"{', '.join(TREC_EVAL_VERSIONS)}")
    return version


def _fmt_param(kind, p):
    if kind in ("iprec_at_recall", "Rprec_mult"):
        return f"{p:.2f}"
    return str(p)


@dataclass(frozen=True)
class Measure:
    """A measure with its parameter: ``kind`` (trec_eval's root name) and ``k``.

    ``k`` is the cut-off (``P``, ``recall``, ``ndcg_cut`` ...), the recall level
    (``iprec_at_recall``), the multiple of R (``Rprec_mult``), beta (``set_F``), or
    the (a, b, c, d) tuple of ``utility``. ``label`` overrides the printed name (aliases
    such as ``correct@5`` print as asked).
    """

    kind: str
    k: object = None
    label: str | None = field(default=None, compare=False)
    #: the parameter as written (``set_F.0.5`` -> ``"0.5"``): trec_eval prints it after the name
    param_text: str | None = None

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        kind = {"correct": "success"}.get(self.kind, self.kind)
        if kind in ("set_F", "utility", "rbp", "rbp_resid", "relstring"):
            return f"{kind}_{self.param_text}" if self.param_text else kind
        if kind == "ndcg" and self.k is not None:
            return f"ndcg_cut_{self.k}"
        if kind == "ndcg_exp" and self.k is not None:
            return f"ndcg_exp_cut_{self.k}"
        if kind == "judged":
            return f"Judged@{self.k}"
        if kind in ("utility", "set_F") or self.k is None:
            return kind
        return f"{kind}_{_fmt_param(kind, self.k)}"

    @property
    def aggregate(self) -> str:
        """How trec_eval summarises the measure over topics: mean, sum, gm or count."""
        if self.kind in _COUNTS:
            return "sum"
        if self.kind in ("gm_map", "gm_bpref"):
            return "gm"
        if self.kind == "num_q":
            return "count"
        if self.kind in _STRINGS:
            return "none"
        return "mean"

    @property
    def needs_judged(self) -> bool:
        """Whether the measure tells unjudged documents from judged non-relevant ones."""
        return self.kind in ("bpref", "gm_bpref", "infAP", "judged", "num_nonrel_judged_ret")

    def __call__(self, gains, n_relevant, ideal=None, *, level: int = 1, n_nonrelevant=None,
                 n_retrieved=None):
        """Per-topic values from rank-ordered ``gains`` (or ``grades``, NaN = unjudged)."""
        gains = np.asarray(gains, dtype=float)
        if n_retrieved is None:
            n_retrieved = _n_retrieved(gains)
        ctx = _Context(gains, np.asarray(n_relevant), ideal, level, n_nonrelevant, np.asarray(n_retrieved))
        return _compute(self, ctx)


def _n_retrieved(gains):
    """Without a count, a list's length is up to its last non-NaN entry (zeros count)."""
    present = ~np.isnan(gains)
    if present.all():
        return np.full(gains.shape[:-1], gains.shape[-1])
    last = gains.shape[-1] - np.argmax(present[..., ::-1], axis=-1)
    return np.where(present.any(axis=-1), last, 0)


@dataclass
class _Context:
    grades: np.ndarray      # (..., depth), NaN where unjudged or no document
    n_rel: np.ndarray       # (...) relevant in the qrels (grade >= level)
    ideal: np.ndarray | None  # (..., width) positive grades sorted descending
    level: int
    n_nonrel: np.ndarray | None  # judged non-relevant in the qrels
    n_ret: np.ndarray       # (...) documents retrieved
    rounding: str = "trec_eval9"  # iprec_at_recall cut-offs: 9.x adds 0.9 and truncates, 10.0 rounds

    def __post_init__(self):
        self.rel = ranking._binary(self.grades, self.level)
        self.depth = self.grades.shape[-1]
        self.rank = np.arange(1, self.depth + 1)
        self.n_rel_ret = self.rel.sum(axis=-1)

    def rel_at(self, cut):
        """Relevant documents in the top ``cut`` (array of cut-offs, any >= 0)."""
        csum = np.concatenate([np.zeros(self.rel.shape[:-1] + (1,)), np.cumsum(self.rel, axis=-1)], axis=-1)
        cut = np.clip(np.asarray(cut, dtype=np.int64), 0, self.depth)
        cut = np.broadcast_to(cut, self.rel.shape[:-1])
        return np.take_along_axis(csum, cut[..., None], axis=-1)[..., 0]

    def need_ideal(self):
        if self.ideal is None:
            raise ValueError("this measure needs the ideal gains (Qrels.ideal_gains)")
        return self.ideal


def _pad(a, width):
    if a.shape[-1] >= width:
        return a
    return np.concatenate([a, np.zeros(a.shape[:-1] + (width - a.shape[-1],))], axis=-1)


def _gain(grades):
    return np.where(grades > 0, grades, 0.0)


def _iprec(ctx, levels):
    """Interpolated precision at recall levels: the best precision at or after the rank where
    the c-th relevant document is retrieved, c = (long)(level * R + 0.9) as in trec_eval 9.x
    (10.0 rounds to nearest: ``ctx.rounding == "nearest"``)."""
    prec = np.where(ctx.rel, np.cumsum(ctx.rel, axis=-1) / ctx.rank, 0.0)
    best_after = np.maximum.accumulate(prec[..., ::-1], axis=-1)[..., ::-1]  # max precision from rank j on
    best_after = np.concatenate([best_after, np.zeros(best_after.shape[:-1] + (1,))], axis=-1)
    csum = np.cumsum(ctx.rel, axis=-1)
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


def _rprec_mult(ctx, mult):
    cut = (mult * ctx.n_rel + 0.9).astype(np.int64)  # trec_eval's rounding
    return ranking._safe_divide(ctx.rel_at(cut), cut)


def _map_cut(ctx, k):
    hits = ctx.rel[..., :k]
    prec = np.cumsum(hits, axis=-1) / ctx.rank[:k]
    return ranking._safe_divide(ranking._sum_in_order(prec * hits), ctx.n_rel)


def _ndcg_rel(ctx):
    ideal = ctx.need_ideal()
    gain = _gain(ctx.grades)
    width = max(ctx.depth, ideal.shape[-1])
    disc = 1.0 / np.log2(np.arange(2, width + 2))
    rdcg = np.cumsum(_pad(gain, width) * disc, axis=-1)
    idcg = np.cumsum(_pad(ideal, width) * disc, axis=-1)
    n_pos = (ideal > 0).sum(axis=-1)
    at_rel = ranking._safe_divide(rdcg, np.broadcast_to(idcg, rdcg.shape))
    pos_ret = gain > 0
    total = np.where(_pad(pos_ret.astype(float), width) > 0, at_rel, 0.0).sum(axis=-1)
    final = ranking._safe_divide(rdcg[..., -1], idcg[..., -1])
    total = total + (n_pos - pos_ret.sum(axis=-1)) * final
    return ranking._safe_divide(total, n_pos)


def _rndcg(ctx):
    """trec_eval's Rndcg: mean nDCG at each change of ideal gain level (see m_Rndcg.c)."""
    ideal = ctx.need_ideal()
    gain = _gain(ctx.grades)
    width = max(ctx.depth, ideal.shape[-1]) + 1
    disc = 1.0 / np.log2(np.arange(2, width + 2))
    rdcg = np.cumsum(_pad(gain, width) * disc, axis=-1)
    ideal_p = _pad(ideal, width)
    idcg = np.cumsum(ideal_p * disc, axis=-1)
    idcg = np.broadcast_to(idcg, rdcg.shape)
    ideal_b = np.broadcast_to(ideal_p, rdcg.shape)
    n_pos = (ideal_b > 0).sum(axis=-1)
    # boundary b (1-based cut-off) where ideal gain b differs from b-1, for b <= n_pos
    change = np.zeros(rdcg.shape, dtype=bool)
    change[..., 1:] = ideal_b[..., 1:] != ideal_b[..., :-1]
    ndcg_at = ranking._safe_divide(rdcg, idcg)  # index j: cut-off j + 1
    prev = np.zeros(rdcg.shape)
    prev[..., 1:] = ndcg_at[..., :-1]  # value at cut-off b = index b - 1
    total = np.where(change, prev, 0.0).sum(axis=-1)
    count = change.sum(axis=-1)
    extra = ctx.n_ret > n_pos + 1  # trec_eval's final point at num_ret
    full = ranking._safe_divide(rdcg[..., -1], idcg[..., -1])
    total = total + np.where(extra, full, 0.0)
    count = count + extra
    return np.where(ctx.n_rel > 0, ranking._safe_divide(total, count), 0.0)


def _g(ctx):
    """trec_eval's G (m_G.c): gain / log2(2 + ideal cost so far - gain so far), over max ideal gain."""
    ideal = ctx.need_ideal()
    gain = _gain(ctx.grades)
    cost = np.cumsum(np.maximum(_pad(ideal, ctx.depth)[..., :ctx.depth], 1.0), axis=-1)
    got = np.cumsum(gain, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(gain != 0, gain / np.log2(2 + cost - got), 0.0)
    return ranking._safe_divide(g.sum(axis=-1), ideal.sum(axis=-1))


def _bin_g(ctx):
    nonrel_before = ctx.rank - np.cumsum(ctx.rel, axis=-1)
    return ranking._safe_divide(np.where(ctx.rel, 1.0 / np.log2(2 + nonrel_before), 0.0).sum(axis=-1), ctx.n_rel)


def _dcg_all(ctx, ideal=False):
    if ideal:
        g = ctx.need_ideal()
        return ranking.dcg(g)
    return ranking.dcg(ctx.grades)


def _retrieved(ctx):
    """Mask of the retrieved ranks (a grade array is NaN-padded past each topic's last document)."""
    return ctx.rank <= np.asarray(ctx.n_ret)[..., None]


def _unjudged(ctx, k):
    """trec_eval 10.0's unj_k: unjudged documents (absent from the qrels, or with a negative grade) in the
    top k, over k (missing ranks count as judged)."""
    top = ctx.grades[..., :k]
    unjudged = (np.isnan(top) | (top < 0)) & _retrieved(ctx)[..., :k]
    return unjudged.sum(axis=-1) / float(k)


def _powers(p, depth):
    # p^i as trec_eval forms it, by repeated multiplication (not pow): the same doubles
    return np.cumprod(np.r_[1.0, np.full(depth, p)])


def _rbp(ctx, p):
    """trec_eval 10.0's rbp: (1 - p) * sum of gain * p^(rank-1); a grade is its own gain, scaled into
    [0, 1] by the topic's largest qrels grade when that exceeds 1; unjudged and negative grades gain 0."""
    top = _pad(ctx.need_ideal(), 1)[..., :1]  # the topic's largest positive grade (0 when none)
    gain = np.where(ctx.grades > 0, ctx.grades, 0.0)
    gain = np.where(top > 1, gain / np.where(top > 1, top, 1.0), gain)
    gain = np.where(_retrieved(ctx), gain, 0.0)
    terms = gain * _powers(p, ctx.depth)[:ctx.depth]
    return (1.0 - p) * np.cumsum(terms, axis=-1)[..., -1]  # summed in rank order, as trec_eval


def _rbp_resid(ctx, p):
    """trec_eval 10.0's rbp_resid: p^num_ret + (1 - p) * sum of p^(rank-1) over unjudged retrieved
    documents; 0 when every retrieved document is judged."""
    powers = _powers(p, ctx.depth)
    unjudged = (np.isnan(ctx.grades) | (ctx.grades < 0)) & _retrieved(ctx)
    total = np.cumsum(np.where(unjudged, powers[:ctx.depth], 0.0), axis=-1)[..., -1]
    tail = powers[np.minimum(np.asarray(ctx.n_ret, dtype=np.int64), ctx.depth)]
    return np.where(unjudged.any(axis=-1), tail + (1.0 - p) * total, 0.0)


def relstrings(grades, n_ret, n: int = 10) -> list:
    """trec_eval's relstring: the grades of the first ``n`` retrieved documents as characters.

    A digit for grades 0-9, ``>`` above 9, ``-`` for a document absent from the qrels
    (NaN), ``.`` for one pooled but unjudged (a negative grade).

    Parameters
    ----------
    grades : array (topics, depth)
        Grades in rank order, NaN where the qrels do not judge the document.
    n_ret : array (topics,)
        Documents retrieved per topic.
    n : int
        How many ranks to show.

    Examples
    --------
    >>> relstrings(np.array([[1, 0, np.nan, -1, 12]]), [5], n=10)
    ['10-.>']
    """
    grades = np.asarray(grades, dtype=float)
    out = []
    for row, count in zip(grades, np.asarray(n_ret)):
        chars = []
        for g in row[:max(0, min(int(n), int(count)))]:
            chars.append("-" if np.isnan(g) else "." if g < 0 else ">" if g > 9 else str(int(g)))
        out.append("".join(chars))
    return out


def _compute(m: Measure, ctx: _Context) -> np.ndarray:
    kind, k, level = m.kind, m.k, ctx.level
    shape = ctx.grades.shape[:-1]
    if kind == "num_q":
        return np.ones(shape)
    if kind == "num_ret":
        return np.broadcast_to(ctx.n_ret, shape).astype(float)
    if kind == "num_rel":
        return np.broadcast_to(ctx.n_rel, shape).astype(float)
    if kind == "num_rel_ret":
        return ctx.n_rel_ret.astype(float)
    if kind == "num_nonrel_judged_ret":
        return ranking._nonrelevant_judged(ctx.grades, level).sum(axis=-1).astype(float)
    if kind in ("map", "gm_map"):
        return ranking.average_precision(ctx.grades, ctx.n_rel, level)
    if kind == "map_cut":
        return _map_cut(ctx, k)
    if kind == "Rprec":
        return ranking._safe_divide(ctx.rel_at(ctx.n_rel), ctx.n_rel)
    if kind == "Rprec_mult":
        return _rprec_mult(ctx, k)
    if kind in ("bpref", "gm_bpref"):
        if ctx.n_nonrel is None:
            raise ValueError("bpref needs the number of judged non-relevant documents per topic")
        return ranking.bpref(ctx.grades, ctx.n_rel, ctx.n_nonrel, level)
    if kind == "infAP":
        return ranking.inferred_ap(ctx.grades, ctx.n_rel, level)
    if kind == "judged":
        return ranking.judged_at_k(ctx.grades, ctx.n_ret, k)
    if kind == "recip_rank":
        return ranking.reciprocal_rank(ctx.grades, level)
    if kind == "iprec_at_recall":
        return _iprec(ctx, [k])[0]
    if kind == "11pt_avg":  # trec_eval adds the points from recall 1.0 down to 0.0, then divides
        points = _iprec(ctx, _DEFAULT_PARAMS["iprec_at_recall"])
        total = np.zeros_like(points[0])
        for value in points[::-1]:
            total = total + value
        return total / len(points)
    if kind == "P":
        return ranking.precision_at_k(ctx.grades, k, level)
    if kind == "recall":
        return ranking.recall_at_k(ctx.grades, ctx.n_rel, k, level)
    if kind == "relative_P":
        return ranking._safe_divide(ctx.rel_at(k), np.minimum(k, ctx.n_rel))
    if kind in ("success", "correct"):
        return ranking.correct_at_k(ctx.grades, k, level)
    if kind == "utility":
        a, b, c, d = k
        rel_ret = ctx.n_rel_ret
        nonrel_ret = ctx.n_ret - rel_ret
        rel_nonret = ctx.n_rel - rel_ret
        return (a * rel_ret + b * nonrel_ret + c * rel_nonret).astype(float)
    if kind == "set_P":
        return ranking._safe_divide(ctx.n_rel_ret, ctx.n_ret)
    if kind == "set_recall":
        return ranking._safe_divide(ctx.n_rel_ret, ctx.n_rel)
    if kind == "set_relative_P":
        return ranking._safe_divide(ctx.n_rel_ret, np.minimum(ctx.n_ret, ctx.n_rel))
    if kind == "set_map":  # (rel_ret * rel_ret) / (ret * rel), trec_eval's order: the same double at %.4f
        rr = ctx.n_rel_ret.astype(float)
        return ranking._safe_divide(rr * rr, ctx.n_ret.astype(float) * ctx.n_rel)
    if kind == "set_F":  # trec_eval's weighting: (x + 1) P R / (x P + R), x = the parameter (default 1)
        x = 1.0 if k is None else float(k)
        p = ranking._safe_divide(ctx.n_rel_ret, ctx.n_ret)
        r = ranking._safe_divide(ctx.n_rel_ret, ctx.n_rel)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(ctx.n_rel_ret > 0, ranking._safe_divide((x + 1.0) * p * r, x * p + r), 0.0)
    if kind == "unj":
        return _unjudged(ctx, k)
    if kind == "rbp":
        return _rbp(ctx, 0.9 if k is None else float(k))
    if kind == "rbp_resid":
        return _rbp_resid(ctx, 0.9 if k is None else float(k))
    if kind == "binG":
        return _bin_g(ctx)
    if kind == "G":
        return _g(ctx)
    if kind == "dcg":
        return _dcg_all(ctx)
    if kind == "ideal_dcg":
        return np.broadcast_to(_dcg_all(ctx, ideal=True), shape).astype(float)
    if kind in ("ndcg", "ndcg_exp"):
        gain = "exponential" if kind == "ndcg_exp" else "linear"
        return ranking.ndcg(ctx.grades, ctx.need_ideal(), k=k, gain=gain)
    if kind == "ndcg_rel":
        return _ndcg_rel(ctx)
    if kind == "Rndcg":
        return _rndcg(ctx)
    if kind in _STRINGS:
        raise ValueError(f"{kind} is text, not a number. Fix: use fireeval evaluate or "
                         "fireeval.core.stream.score_run, which print and return it")
    raise ValueError(f"unknown measure kind {kind!r}. Fix: parse names with parse_measures")


# ---------------------------------------------------------------- names
_FAMILIES = {  # lower-case root -> trec_eval root; params parsed as int unless listed in _FLOAT
    "p": "P", "recall": "recall", "ndcg_cut": "ndcg", "map_cut": "map_cut", "relative_p": "relative_P",
    "success": "success", "iprec_at_recall": "iprec_at_recall", "rprec_mult": "Rprec_mult",
    "ndcg_exp_cut": "ndcg_exp", "unj": "unj",
}
_FLOAT = {"iprec_at_recall", "Rprec_mult"}
_SCALAR_LOWER = {name.lower(): name for name in _SCALAR} | {"11pt_avg": "11pt_avg"}
_IR_MEASURES = {  # ir_measures name (lower case) -> trec_eval kind
    "ap": "map", "rr": "recip_rank", "mrr": "recip_rank", "ndcg": "ndcg", "bpref": "bpref", "infap": "infAP",
    "rprec": "Rprec", "r-prec": "Rprec", "numret": "num_ret", "numrel": "num_rel", "numrelret": "num_rel_ret",
    "numq": "num_q", "setp": "set_P", "setr": "set_recall", "setf": "set_F", "setap": "set_map",
}
_IR_AT = {"p": "P", "r": "recall", "ndcg": "ndcg", "success": "success", "judged": "judged", "ap": "map_cut",
          "rr": None, "ndcg_exp": "ndcg_exp", "setp": None}
_HELP = ("Fix: use e.g. map, P_10, P.5,10, recall_10, ndcg, ndcg_cut_10, recip_rank, bpref, infAP, success_5, "
         "correct@5, all_trec (or ir_measures names AP, P@10, R@10, nDCG@10, RR, Bpref, Judged@10)")
_MAX_CUTOFF = 2**31 - 1  # a rank beyond any run; larger numbers are a typo (and overflow int64 sums)
# ASCII only, as C's atol/atof read them: Python's int() and float() also take "1_0", "٣" or "５"
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _int_param(text, name):
    if not _INT_TEXT.fullmatch(text):
        raise ValueError(f"-m {name}: cut-off {text!r} is not a whole number. {_HELP}")
    value = int(text)
    if not 1 <= value <= _MAX_CUTOFF:
        raise ValueError(f"-m {name}: cut-off {text} is outside 1..{_MAX_CUTOFF}. Fix: give a cut-off of at "
                         f"least 1 and at most {_MAX_CUTOFF}")
    return value


def _float_param(text, name, low=0.0, high=float("inf"), signed=False):
    if not _FLOAT_TEXT.fullmatch(text) or (not signed and text.startswith("-")):
        raise ValueError(f"-m {name}: parameter {text!r} is not a plain decimal number. {_HELP}")
    value = float(text)
    if not np.isfinite(value) or not low <= value <= high:
        raise ValueError(f"-m {name}: parameter {text} is outside [{low:g}, {high:g}]. Fix: give a finite "
                         f"number from {low:g} to {high:g}")
    return value


def parse_measures(name: str, version: str = "9.0.7", *, printing: bool = False) -> list:
    """All measures a name stands for, as trec_eval's ``-m`` reads it (case-insensitive).

    Parameters
    ----------
    name : str
        A trec_eval name (``map``, ``P.5,10``, ``set_F.0.5``), a nickname (``all_trec``,
        ``official``, ``set``), an ir_measures name (``AP``, ``nDCG@10``) or ``correct@K``.
        Names that are not trec_eval's print as written.
    version : {"9.0.7", "10.0"}
        The trec_eval whose measures and nicknames to follow (10.0 adds ``rbp``,
        ``rbp_resid`` and ``unj``, also in its ``all_trec``).
    printing : bool
        As ``fireeval evaluate`` prints: nicknames keep the text measures ``runid`` and
        ``relstring``, and ir_measures names are labelled as written (``P@10`` prints as
        ``P@10``). Without it (the numeric API) those two are left out and every measure is
        named as trec_eval names it.

    Examples
    --------
    >>> [m.name for m in parse_measures("P.5,10")]
    ['P_5', 'P_10']
    >>> [m.name for m in parse_measures("iprec_at_recall")][:2]
    ['iprec_at_recall_0.00', 'iprec_at_recall_0.10']
    >>> [m.name for m in parse_measures("nDCG@10")], [m.name for m in parse_measures("correct@5")]
    (['ndcg_cut_10'], ['correct@5'])
    >>> [m.name for m in parse_measures("nDCG@10", printing=True)]
    ['nDCG@10']
    >>> [m.name for m in parse_measures("set_F.0.5")], [m.name for m in parse_measures("unj", "10.0")]
    (['set_F_0.5'], ['unj_5', 'unj_10', 'unj_20'])
    """
    check_trec_eval_version(version)
    text = name.strip()
    low = text.lower()
    if low in _NICKNAMES:
        roots = [r for r in _PRINT_ORDER if r in _NICKNAMES[low] and (version == "10.0" or r not in _ONLY_10)
                 and (printing or r not in _STRINGS)]
        return [m for root in roots for m in parse_measures(root, version, printing=printing)]
    root_low, dot, rest = low.partition(".")
    if root_low in ("rbp", "rbp_resid", "unj") and version != "10.0":
        raise ValueError(f"-m {name}: {root_low} is a trec_eval 10.0 measure, unknown to 9.0.7. Fix: add "
                         "--trec-eval 10.0, or leave the measure out")
    match = re.fullmatch(r"(correct|c)(?:@|_)(\w+)", low)
    if match:  # the project's alias of success_K, printed as asked
        return [Measure("success", _int_param(match[2], text), label=text)]
    if low == "runid":
        return [Measure("runid")]
    if root_low == "relstring":
        if not dot:
            return [Measure("relstring", 10)]
        return [Measure("relstring", _int_param(rest, text), param_text=text.split(".", 1)[1])]
    if root_low in ("rbp", "rbp_resid"):
        if not dot:
            return [Measure(root_low, 0.9)]
        given = text.split(".", 1)[1]
        key, eq, value = given.partition("=")
        if key != "p" or not eq:
            raise ValueError(f"-m {name}: {root_low} takes one parameter, p=VALUE (persistence). Fix: write e.g. "
                             f"{root_low}.p=0.95")
        return [Measure(root_low, _float_param(value, text, 0.0, 1.0), param_text=given)]
    if low in _SCALAR_LOWER:
        return [Measure(_SCALAR_LOWER[low])]
    if low == "utility":
        return [Measure("utility", (1.0, -1.0, 0.0, 0.0))]
    if low == "set_f":
        return [Measure("set_F", 1.0)]
    if low.startswith("utility."):
        given = text.split(".", 1)[1]
        parts = given.split(",")
        if len(parts) != 4:
            raise ValueError(f"-m {name}: utility takes four numbers a,b,c,d. Fix: write e.g. utility.1,-1,0,0")
        params = tuple(_float_param(p, text, -1e300, 1e300, signed=True) for p in parts)
        if params[3] != 0:  # d weighs non-relevant documents not retrieved: needs the collection size
            raise ValueError(f"-m {name}: utility's d coefficient needs the collection size (trec_eval -N), "
                             "which fireeval does not take. Fix: use d = 0")
        return [Measure("utility", params, param_text=given)]
    if low.startswith("set_f."):
        given = text.split(".", 1)[1]
        return [Measure("set_F", _float_param(given, text, 0.0, 1e300), param_text=given)]
    if low in _IR_MEASURES:
        kind = _IR_MEASURES[low]
        label = text if printing and low != kind.lower() else None
        return [Measure(kind, 1.0 if kind == "set_F" else None, label=label)]
    # family with default cut-offs, dotted list, or trec_eval's underscore form
    for root_low, root in sorted(_FAMILIES.items(), key=lambda kv: -len(kv[0])):
        if low == root_low:
            key = {"ndcg": "ndcg_cut", "ndcg_exp": "ndcg_cut"}.get(root, root)
            return [Measure(root, p) for p in _DEFAULT_PARAMS[key]]
        for sep in (".", "_"):
            if low.startswith(root_low + sep):
                rest = low[len(root_low) + 1:]
                parts = rest.split(",") if sep == "." else [rest]
                parse = (lambda t, n: _float_param(t, n, 0.0, 1e6)) if root in _FLOAT else _int_param
                # trec_eval sorts a list of cut-offs (P.10,5 prints P_5 then P_10) and prints each once
                values = sorted({parse(p, text) for p in parts if p != ""})
                return [Measure(root, v) for v in values] or _unknown(name)
    match = re.fullmatch(r"([a-z_]+)@(\w+)", low)
    if match and _IR_AT.get(match[1]):
        return [Measure(_IR_AT[match[1]], _int_param(match[2], text), label=text if printing else None)]
    return _unknown(name)


def trec_eval_order(measures) -> list:
    """``measures`` in the order trec_eval prints them (its fixed measure order, whatever the order of
    ``-m``); names trec_eval does not know (ir_measures names, ``correct@K``, ``Judged@K``) follow, in
    the order given. The sort is stable: parameters of one measure keep their order.

    Parameters
    ----------
    measures : list of Measure

    Examples
    --------
    >>> [m.name for m in trec_eval_order(parse_measures("P_10") + parse_measures("correct@5") + parse_measures("map"))]
    ['map', 'P_10', 'correct@5']
    """
    rank = {kind: i for i, kind in enumerate(_PRINT_ORDER)}
    rank["ndcg_exp"] = rank["ndcg_cut"]

    def key(m):
        kind = "ndcg_cut" if m.kind == "ndcg" and m.k is not None else m.kind
        return rank.get(kind, len(rank)) if m.label is None else len(rank)
    return sorted(measures, key=key)


def _unknown(name):
    raise ValueError(f"-m {name}: unknown measure. {_HELP}")


def parse_measure(name: str) -> Measure:
    """Parse one measure name (trec_eval or ir_measures style, case-insensitive).

    >>> parse_measure("P@10").name, parse_measure("nDCG@10").name, parse_measure("C@5").name
    ('P_10', 'ndcg_cut_10', 'C@5')
    """
    measures = parse_measures(name)
    if len(measures) != 1:
        raise ValueError(f"{name!r} stands for {len(measures)} measures; use parse_measures")
    return measures[0]


# ---------------------------------------------------------------- scores
@dataclass(frozen=True)
class Scores:
    """Per-run, per-topic scores: ``values[measure]`` has shape (n_runs, n_topics).

    ``aggregates`` maps each measure name to how trec_eval summarises it over topics
    (``mean``, ``sum``, ``gm`` or ``count``); ``n_topics`` is the number to average over
    (all qrels topics with ``complete``).
    """

    runs: list
    topics: np.ndarray
    values: dict
    aggregates: dict = field(default_factory=dict)

    def summary(self):
        """trec_eval's "all" line per run and measure: DataFrame, rows = runs, columns = measures."""
        import pandas as pd

        return pd.DataFrame({m: summarise(v, self.aggregates.get(m, "mean")) for m, v in self.values.items()},
                            index=pd.Index(self.runs, name="run"))

    def mean(self):
        """Summary over topics (trec_eval's: mean, or sum for counts, geometric mean for gm_*)."""
        return self.summary()

    def to_frame(self):
        """Long format: run, measure, topic, value."""
        import pandas as pd

        parts = []
        for measure, values in self.values.items():
            parts.append(pd.DataFrame({
                "run": np.repeat(self.runs, len(self.topics)),
                "measure": measure,
                "topic": np.tile(self.topics, len(self.runs)),
                "value": values.ravel(),
            }))
        return pd.concat(parts, ignore_index=True)


def summarise(values, how: str = "mean") -> np.ndarray:
    """Summarise (n_runs, n_topics) values over topics as trec_eval does."""
    values = np.asarray(values, dtype=float)
    if how == "sum":
        return values.sum(axis=-1)
    if how == "count":
        return np.full(values.shape[:-1], float(values.shape[-1]))
    if how == "gm" and values.shape[-1]:
        return np.exp(np.cumsum(np.log(np.maximum(values, GM_EPSILON)), axis=-1)[..., -1] / values.shape[-1])
    if how == "gm":
        return np.exp(np.log(np.maximum(values, GM_EPSILON)).mean(axis=-1))
    if how == "none" or values.shape[-1] == 0:
        return values.mean(axis=-1) if how != "none" else np.zeros(values.shape[:-1])
    # trec_eval adds topic after topic and divides once: a sequential sum gives its double
    return np.cumsum(values, axis=-1)[..., -1] / values.shape[-1]


def evaluate(runs: "RunSet", qrels: "Qrels", measures=DEFAULT_MEASURES, complete: bool = False,
             gains: np.ndarray | None = None, *, judged_only: bool = False, relevance_level: int | None = None,
             max_retrieved: int | None = None) -> Scores:
    """Score every run on every evaluation topic, vectorised over runs and topics.

    Parameters
    ----------
    runs, qrels
        The runs and the judgements.
    measures : list of str or Measure
        Names as in the module docstring; families expand (``P`` -> P_5 ... P_1000).
    complete : bool
        trec_eval ``-c``: average over every qrels topic; topics a run lacks score 0.
    judged_only : bool
        trec_eval ``-J``: drop unjudged documents from every ranking first (Sakai's
        condensed list), so ``map`` is condensed-list AP, ``ndcg`` condensed nDCG...
    relevance_level : int, optional
        trec_eval ``-l``; default the qrels' own (``Qrels.relevance_level``, 1).
    max_retrieved : int, optional
        trec_eval ``-M``: keep each topic's top ``max_retrieved`` documents.
    gains : array, optional
        Precomputed :meth:`RunSet.grades` (or ``gains``) over the evaluation topics.
    """
    from fireeval.core.runset import evaluation_topics

    parsed = []
    for m in measures:
        parsed.extend([m] if isinstance(m, Measure) else parse_measures(m))
    level = qrels.relevance_level if relevance_level is None else int(relevance_level)
    topics = evaluation_topics(runs, qrels, complete)
    if gains is None:
        grades = runs.grades(qrels, topics)
    else:
        grades = np.asarray(gains, dtype=float)
    n_ret = runs.retrieved_counts(topics)
    if max_retrieved is not None:
        if max_retrieved < 1:
            raise ValueError(f"max_retrieved must be >= 1, not {max_retrieved}")
        grades, n_ret = grades[..., :max_retrieved], np.minimum(n_ret, max_retrieved)
    if judged_only:
        grades, n_ret = ranking.condense(grades)
    if gains is not None and not judged_only and any(m.needs_judged for m in parsed) and not np.isnan(grades).any():
        # 0-filled gains cannot tell unjudged from judged non-relevant
        grades = np.where(np.arange(grades.shape[-1]) < n_ret[..., None], grades, np.nan)
    n_rel = qrels.n_relevant(topics, level)
    need_ideal = any(m.kind in ("ndcg", "ndcg_exp", "ndcg_rel", "Rndcg", "G", "ideal_dcg") for m in parsed)
    ideal = qrels.ideal_gains(topics) if need_ideal else None
    n_nonrel = qrels.n_nonrelevant(topics, level) if any(m.kind in ("bpref", "gm_bpref") for m in parsed) else None
    ctx = _Context(grades, n_rel, ideal, level, n_nonrel, n_ret)
    values, aggregates = {}, {}
    for m in parsed:
        values[m.name] = np.ascontiguousarray(np.broadcast_to(_compute(m, ctx), grades.shape[:-1]), dtype=float)
        aggregates[m.name] = m.aggregate
    return Scores(list(runs.names), topics, values, aggregates)
