"""What every measure family is built from: :class:`Family`, :class:`Param`, :class:`Measure`, :class:`Context`.

A family module (one file per family, in this package) declares one or more
:class:`Family` objects in a tuple ``FAMILIES``; :mod:`fireeval.core.measures` finds
them. Nothing here knows any particular measure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from fireeval.core import ranking

from fireeval.core.validation import ANY, ARRAY, BOOL, Int, NUMBER, Options, STR, validate_params

__all__ = ["Family", "Param", "Measure", "Context", "summarise", "n_retrieved_of", "GM_EPSILON", "SUMMARIES", "NEEDS",
           "MAX_CUTOFF", "HELP", "int_param", "float_param", "pad", "family_of", "REGISTERED",
           "REGISTERED_KINDS", "REL"]

#: trec_eval's MIN_GEO_MEAN: a topic scoring 0 counts as 1e-5 in the gm_* summaries.
GM_EPSILON = 0.00001
#: How a family is summarised over topics: trec_eval's mean, sum (counts), count (``num_q``),
#: geometric mean with the floor :data:`GM_EPSILON` (``gm``), or not at all (text measures).
SUMMARIES = ("mean", "sum", "count", "gm", "none")
#: What a family reads: ``grades`` (rank-ordered grades, NaN = unjudged), ``judged`` (tells unjudged from
#: judged non-relevant), ``ideal`` (the qrels' ideal gains), ``nonrel`` (judged non-relevant count per topic),
#: ``retrieved`` (list lengths), ``moments`` (IoU of ranked temporal windows, not grades), ``text`` (prints text).
NEEDS = frozenset({"grades", "judged", "ideal", "nonrel", "retrieved", "moments", "text"})
MAX_CUTOFF = 2**31 - 1  # a rank beyond any run; larger numbers are a typo (and overflow int64 sums)
HELP = ("Fix: use e.g. map, P_10, P.5,10, recall_10, ndcg, ndcg_cut_10, recip_rank, bpref, infAP, success_5, "
        "correct@5, all_trec (or ir_measures names AP, P@10, R@10, nDCG@10, RR, Bpref, Judged@10)")
# ASCII only, as C's atol/atof read them: Python's int() and float() also take "1_0", "٣" or "５"
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@validate_params(text=STR, name=STR, low=Int(), high=Int())
def int_param(text: str, name: str, low: int = 1, high: int = MAX_CUTOFF) -> int:
    """A cut-off written in a measure name, as C's ``atol`` reads it, within ``low..high``.

    >>> int_param("10", "P_10")
    10
    """
    if not _INT_TEXT.fullmatch(text):
        raise ValueError(f"-m {name}: cut-off {text!r} is not a whole number. {HELP}")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"-m {name}: cut-off {text} is outside {low}..{high}. Fix: give a cut-off of at "
                         f"least {low} and at most {high}")
    return value


_int_param = int_param.__wrapped__  # (for a Param's own parse: its text is a matched str, its bounds ints)


@validate_params(text=STR, name=STR, low=NUMBER, high=NUMBER, signed=BOOL)
def float_param(text: str, name: str, low: float = 0.0, high: float = float("inf"), signed: bool = False) -> float:
    """A real parameter written in a measure name, as C's ``atof`` reads it, within ``[low, high]``.

    >>> float_param("0.5", "set_F.0.5")
    0.5
    """
    if not _FLOAT_TEXT.fullmatch(text) or (not signed and text.startswith("-")):
        raise ValueError(f"-m {name}: parameter {text!r} is not a plain decimal number. {HELP}")
    value = float(text)
    if not np.isfinite(value) or not low <= value <= high:
        raise ValueError(f"-m {name}: parameter {text} is outside [{low:g}, {high:g}]. Fix: give a finite "
                         f"number from {low:g} to {high:g}")
    return value


@dataclass(frozen=True)
class Param:
    """A family's parameter: its name, type, default(s) and allowed range (inclusive).

    ``default`` is a tuple when the bare family name expands to several measures
    (``P`` -> P_5 ... P_1000, trec_eval's default cut-offs). ``low``/``high`` bound
    each value; ``text`` is how a value is printed in the measure's name.
    """

    name: str
    type: type
    default: object
    low: float = 1
    high: float = MAX_CUTOFF
    doc: str = ""
    #: an option of the ``NAME(option=V)`` form that must be given (``rel`` of ir_measures' ``RBP``)
    required: bool = False

    def parse(self, text: str, measure: str):
        """One value of the parameter as written in ``measure``."""
        if self.type is int:
            return _int_param(text, measure, int(self.low), int(self.high))
        return float_param(text, measure, self.low, self.high, signed=self.low < 0)

    def text(self, value) -> str:
        return f"{value:.2f}" if self.type is float else str(value)

    @property
    def defaults(self) -> tuple:
        return self.default if isinstance(self.default, tuple) else (self.default,)


@dataclass(frozen=True)
class Family:
    """One measure family, declared once.

    Parameters
    ----------
    root : str
        trec_eval's name of the family (``P``, ``ndcg_cut``, ``map``); for measures
        trec_eval lacks, the project's (``Judged``, ``map_judged``, ``R@K,θ``).
    kind : str
        :attr:`Measure.kind` of its measures (``ndcg_cut`` measures are kind ``ndcg``
        with a cut-off).
    compute : callable
        ``compute(ctx, k) -> array (...)``: per-topic values from a :class:`Context`
        (``k`` the parameter value or None); for ``needs={"moments"}`` ``ctx`` is an
        IoU array (..., depth). Its docstring holds the formula and a doctest.
    ir_names : tuple of str
        ir_measures' names (``AP``, ``nDCG``): parametrised ones are written ``NAME@K``.
    aliases : tuple of str
        Other accepted names (``correct`` for ``success``, ``R-prec`` for ``Rprec``).
    param : Param or None
        The parameter, if the family has one.
    summary : one of SUMMARIES
        How trec_eval (or the measure's authors) summarise it over topics.
    needs : frozenset of NEEDS
        What the computation reads besides ``grades``.
    nicknames : frozenset
        trec_eval's nicknames (``all_trec``, ``official``, ``set``) that include it.
    print_rank : float or None
        Position in trec_eval's print order (measures.c); None: after trec_eval's, as given.
    since : str
        The first trec_eval release that has it (``10.0`` for rbp, rbp_resid, unj).
    gains_based : bool
        Computed from grades alone, comparable with pytrec_eval (the property test's list).
    parse : callable, optional
        ``parse(text, lower_text, printing) -> list[Measure] | None`` for names the generic grammar
        does not cover (``utility.1,-1,0,0``, ``rbp.p=0.95``, ``R@1,0.5``); None: not its name.
    trec_forms : bool
        Whether ``root``, ``root_V`` and ``root.V`` are accepted (False: only ``NAME@K``).
    options : tuple of Param
        ir_measures' options of the ``NAME(option=V)@K`` form it takes: ``rel`` (:data:`REL`, the least grade
        that counts as relevant, for this measure alone) or a keyword of ``compute`` (``p`` of ``RBP``).
    ranx_names : tuple of str
        ranx's names (``map`` of ``map@100``), case as ranx writes them; a measure so named says which of
        fireeval's conventions differ from ranx's (:attr:`Measure.owner`).
    examples : tuple of str
        Names of the family for :func:`fireeval.core.measures.names` beyond the generic forms.
    """

    root: str
    kind: str
    compute: Callable
    ir_names: tuple = ()
    aliases: tuple = ()
    param: Param | None = None
    summary: str = "mean"
    needs: frozenset = frozenset({"grades"})
    nicknames: frozenset = frozenset()
    print_rank: float | None = None
    since: str = "9.0.7"
    gains_based: bool = True
    parse: Callable | None = None
    trec_forms: bool = True
    options: tuple = ()
    ranx_names: tuple = ()
    examples: tuple = ()

    def __post_init__(self):
        if self.summary not in SUMMARIES:
            raise ValueError(f"{self.root}: summary {self.summary!r} is not one of {SUMMARIES}")
        if not set(self.needs) <= NEEDS:
            raise ValueError(f"{self.root}: needs {sorted(set(self.needs) - NEEDS)} are not among {sorted(NEEDS)}")

    @property
    def formula(self) -> str:
        """The formula and conventions: the computation's docstring."""
        return self.compute.__doc__ or ""

    def measures(self, values=None, label=None, param_text=None) -> list:
        """The measures of this family for parameter ``values`` (default: its defaults)."""
        if self.param is None:
            return [Measure(self.kind, None, label=label, param_text=param_text)]
        values = self.param.defaults if values is None else values
        return [Measure(self.kind, v, label=label, param_text=param_text) for v in values]


@dataclass(frozen=True)
class Measure:
    """A measure with its parameter: ``kind`` (trec_eval's root name) and ``k``.

    ``k`` is the cut-off (``P``, ``recall``, ``ndcg_cut`` ...), the recall level
    (``iprec_at_recall``), the multiple of R (``Rprec_mult``), beta (``set_F``), or
    the (a, b, c, d) tuple of ``utility``. ``label`` overrides the printed name (aliases
    such as ``correct@5`` print as asked).

    Parameters
    ----------
    kind : str
        trec_eval's root name of the family (``"P"``, ``"map"``, ``"ndcg_cut"`` ...).
    k : object, optional
        The parameter (see above); None for a measure without one.
    label : str, optional
        The name to print instead of the canonical one.
    param_text : str, optional
        The parameter as written, printed after the name.
    rel : int, optional
        The least grade counted as relevant for this measure alone.
    options : tuple of (str, value)
        Further options of ``NAME(option=V)``.
    owner : str, optional
        The tool whose name was used (``"ranx"``), when its conventions differ.

    Examples
    --------
    A measure is called on rank-ordered gains and each topic's number of relevant documents:

    >>> m = Measure("P", 2)
    >>> m.name, m.aggregate
    ('P_2', 'mean')
    >>> m([[1, 0, 1]], [2]).tolist()
    [0.5]
    """

    kind: str
    k: object = None
    label: str | None = field(default=None, compare=False)
    #: the parameter as written (``set_F.0.5`` -> ``"0.5"``): trec_eval prints it after the name
    param_text: str | None = None
    #: the least grade that counts as relevant for this measure alone (ir_measures' ``rel``); None: the run's level
    rel: int | None = None
    #: the other options of ``NAME(option=V)`` as sorted ``(name, value)`` pairs, keywords of the computation
    options: tuple = ()
    #: the tool whose name was used, when its conventions differ from trec_eval's (``"ranx"``)
    owner: str | None = field(default=None, compare=False)

    @property
    def family(self) -> Family:
        """The registered :class:`Family` computing this measure."""
        return _family_of(self)

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        family = self.family
        if family.param is None or family.parse is not None:
            return f"{family.root}_{self.param_text}" if self.param_text else family.root
        if not family.trec_forms:  # (Judged@10, ERR@10, RR@10, dcg@10: no trec_eval name)
            return f"{(family.ir_names + family.ranx_names)[0]}@{family.param.text(self.k)}"
        return f"{family.root}_{family.param.text(self.k)}"

    @property
    def aggregate(self) -> str:
        """How the measure is summarised over topics (:data:`SUMMARIES`)."""
        return self.family.summary

    @property
    def needs(self) -> frozenset:
        """What the computation reads; a measure with its own ``rel`` also reads the ideal gains (its R)."""
        needs = self.family.needs
        return needs | {"ideal"} if self.rel is not None else needs

    @property
    def needs_judged(self) -> bool:
        """Whether the measure tells unjudged documents from judged non-relevant ones."""
        return "judged" in self.family.needs

    def __call__(self, gains, n_relevant, ideal=None, *, level: int = 1, n_nonrelevant=None, n_retrieved=None):
        """Per-topic values from rank-ordered ``gains`` (or ``grades``, NaN = unjudged)."""
        gains = np.asarray(gains, dtype=float)
        if n_retrieved is None:
            n_retrieved = n_retrieved_of(gains)
        ctx = Context(gains, np.asarray(n_relevant), ideal, level, n_nonrelevant, np.asarray(n_retrieved))
        return self.compute(ctx)

    def compute(self, ctx: "Context") -> np.ndarray:
        """Per-topic values on a :class:`Context`."""
        family = self.family
        if "text" in family.needs:
            raise ValueError(f"{self.kind} is text, not a number. Fix: use fireeval evaluate or "
                             "fireeval.core.stream.score_run, which print and return it")
        if "moments" in family.needs:
            raise ValueError(f"{self.name} scores temporal moments (IoU), not relevance grades. Fix: use "
                             "fireeval.core.moments.score_systems")
        if "nonrel" in family.needs and ctx.n_nonrel is None:
            raise ValueError(f"{self.name} needs the number of judged non-relevant documents per topic")
        if self.rel is not None:
            ctx = ctx.at_level(self.rel)
        return family.compute(ctx, self.k, **dict(self.options))


#: root -> Family, filled once by :mod:`fireeval.core.measures` when it finds the family modules.
REGISTERED: dict = {}
#: kind -> Family (the family named as its kind first), filled with :data:`REGISTERED`.
REGISTERED_KINDS: dict = {}


@validate_params(measure=ANY)
def family_of(measure: Measure) -> Family:
    """The registered family of a parsed :class:`Measure`."""
    if measure.kind in ("ndcg", "ndcg_exp") and measure.k is not None and not isinstance(measure.k, tuple):
        return REGISTERED[measure.kind + "_cut"]
    try:
        return REGISTERED_KINDS[measure.kind]
    except KeyError:
        raise ValueError(f"unknown measure kind {measure.kind!r}. Fix: parse names with "
                         "fireeval.core.measures.parse") from None


#: :func:`family_of` without its declared check, for the engine's own calls (every measure's every property reads
#: it: 27 checked calls in one ``evaluate`` of three measures, issue 38); a user's call is still checked
_family_of = family_of.__wrapped__


@validate_params(gains=ARRAY)
def n_retrieved_of(gains) -> np.ndarray:
    """Without a count, a list's length is up to its last non-NaN entry (zeros count)."""
    gains = np.asarray(gains, dtype=float)
    present = ~np.isnan(gains)
    if present.all():
        return np.full(gains.shape[:-1], gains.shape[-1])
    last = gains.shape[-1] - np.argmax(present[..., ::-1], axis=-1)
    return np.where(present.any(axis=-1), last, 0)



@dataclass
class Context:
    """Everything a measure reads about a block of ranked lists, computed once and shared.

    ``grades`` (..., depth) in rank order, NaN where unjudged or no document; ``n_rel``
    relevant documents in the qrels (grade >= ``level``); ``ideal`` (..., width) each
    topic's positive grades sorted descending; ``n_nonrel`` judged non-relevant documents
    in the qrels; ``n_ret`` documents retrieved; ``rounding`` of ``iprec_at_recall``'s
    cut-offs (``trec_eval9``: + 0.9 and truncate; ``nearest``: 10.0's rounding).
    """

    grades: np.ndarray
    n_rel: np.ndarray
    ideal: np.ndarray | None
    level: int
    n_nonrel: np.ndarray | None
    n_ret: np.ndarray
    rounding: str = "trec_eval9"

    def __post_init__(self):
        self.rel = ranking.binary(self.grades, self.level)
        self.depth = self.grades.shape[-1]
        self.rank = np.arange(1, self.depth + 1)
        self.n_rel_ret = self.rel.sum(axis=-1)

    @property
    def shape(self) -> tuple:
        return self.grades.shape[:-1]

    def shared(self, key: str, compute):
        """``compute()``, once per context: values several measures read (the eleven interpolated
        precisions of ``iprec_at_recall``'s default levels and ``11pt_avg``)."""
        memo = self.__dict__.setdefault("_shared", {})
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    @cached_property
    def relevant_in_top(self) -> np.ndarray:
        """(..., depth + 1): relevant documents in the top j, j = 0 ... depth (computed once per context)."""
        return np.concatenate([np.zeros(self.rel.shape[:-1] + (1,)), np.cumsum(self.rel, axis=-1)], axis=-1)

    @cached_property
    def best_precision_from(self) -> np.ndarray:
        """(..., depth + 1): the best precision at rank j or below (interpolated precision's curve), 0 past the end."""
        prec = np.where(self.rel, self.relevant_in_top[..., 1:] / self.rank, 0.0)
        best = np.maximum.accumulate(prec[..., ::-1], axis=-1)[..., ::-1]
        return np.concatenate([best, np.zeros(best.shape[:-1] + (1,))], axis=-1)

    def rel_at(self, cut):
        """Relevant documents in the top ``cut`` (array of cut-offs, any >= 0)."""
        csum = self.relevant_in_top
        cut = np.clip(np.asarray(cut, dtype=np.int64), 0, self.depth)
        cut = np.broadcast_to(cut, self.rel.shape[:-1])
        return np.take_along_axis(csum, cut[..., None], axis=-1)[..., 0]

    def at_level(self, level: int) -> "Context":
        """The same lists judged at another relevance level (R counted from the ideal gains).

        >>> ctx = Context.of_lists([[2, 1, 0]])
        >>> int(ctx.at_level(2).n_rel[0]), int(ctx.at_level(2).n_nonrel[0])
        (1, 2)
        """
        if level == self.level:
            return self
        n_rel = (self.need_ideal() >= level).sum(axis=-1)
        n_nonrel = None if self.n_nonrel is None else self.n_nonrel + self.n_rel - n_rel  # judged stays judged
        return Context(self.grades, n_rel, self.ideal, level, n_nonrel, self.n_ret, self.rounding)

    def need_ideal(self):
        if self.ideal is None:
            raise ValueError("this measure needs the ideal gains (Qrels.ideal_gains)")
        return self.ideal

    def retrieved(self):
        """Mask of the retrieved ranks (a grade array is NaN-padded past each topic's last document)."""
        return self.rank <= np.asarray(self.n_ret)[..., None]

    @classmethod
    def of_lists(cls, grades, n_relevant=None, *, level: int = 1, n_nonrelevant=None, ideal=None, n_retrieved=None):
        """A context from ranked grades alone: by default the qrels are the judged documents of the lists."""
        grades = np.atleast_2d(np.asarray(grades, dtype=float))
        if n_relevant is None:
            n_relevant = (grades >= level).sum(axis=-1)
        if n_nonrelevant is None:
            n_nonrelevant = ((grades >= 0) & (grades < level)).sum(axis=-1)
        if ideal is None:
            ideal = -np.sort(-np.where(grades > 0, grades, 0.0), axis=-1)
        if n_retrieved is None:
            n_retrieved = n_retrieved_of(grades)
        return cls(grades, np.asarray(n_relevant), np.asarray(ideal, dtype=float), level, np.asarray(n_nonrelevant),
                   np.asarray(n_retrieved))


#: ir_measures' ``rel`` option (``P(rel=2)@10``): the least grade that counts as relevant for one measure.
REL = Param("rel", int, None, low=1, doc="the least grade that counts as relevant (ir_measures' rel)")


@validate_params(a=ARRAY, width=Int(0))
def pad(a, width):
    """``a`` zero-padded on its last axis to ``width``."""
    if a.shape[-1] >= width:
        return a
    return np.concatenate([a, np.zeros(a.shape[:-1] + (width - a.shape[-1],))], axis=-1)


@validate_params(values=ARRAY, how=Options(*SUMMARIES))
def summarise(values, how: str = "mean") -> np.ndarray:
    """Summarise (n_runs, n_topics) values over topics as trec_eval does (``how`` in :data:`SUMMARIES`).

    Parameters
    ----------
    values : array_like (n_runs, n_topics)
        Per-topic values.
    how : str
        One of :data:`SUMMARIES` (``mean``, ``gm``, ``sum``, ...).

    Returns
    -------
    numpy.ndarray (n_runs,)
        One value per run.

    Examples
    --------
    >>> summarise([[0.0, 0.5]], "gm").round(6)   # the 0 counts as 1e-5
    array([0.002236])
    """
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
