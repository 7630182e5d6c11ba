"""Every measure fireeval computes, one module per family, read through one registry.

Each module of this package (``precision``, ``average_precision``, ``dcg`` ...) declares
its families in a tuple ``FAMILIES`` of :class:`~fireeval.core.measures.base.Family`:
names (trec_eval's root and ir_measures'), parameter with type, defaults and range,
summary over topics, what it needs, and its computation, whose docstring holds the
formula and a doctest. The registry below finds the modules itself: adding a measure
is adding one file (CONTRIBUTING.md, "Adding a measure").

Everything that names a measure reads this registry: the parser (``fireeval evaluate
-m``), the nicknames, the dense engine (:func:`fireeval.core.evaluation.score_run_set`), the
streaming engine (:func:`fireeval.core.stream.score_run`), the pooled-judgement scoring
(:mod:`fireeval.pooling.incomplete`, :mod:`fireeval.pooling.pools`) and the moment
measures.

The name grammar (one for all; case-insensitive)
------------------------------------------------
``ROOT``
    a family without parameter (``map``, ``ndcg``, ``bpref``, ``AP``, ``RR``, ``AP'``), or
    one with parameters at trec_eval's defaults (``P`` -> P_5 ... P_1000).
``ROOT_V`` / ``ROOT.V1,V2``
    trec_eval's forms with your parameter(s) (``P_10``, ``ndcg_cut.10,20``,
    ``iprec_at_recall_0.10``); special parameter forms: ``utility.a,b,c,d``,
    ``set_F.beta``, ``rbp.p=0.95``, ``relstring.N``.
``NAME@K``
    ir_measures' form (``P@10``, ``R@10``, ``nDCG@10``, ``AP@20``, ``Success@5``,
    ``Judged@10``, ``RR@10``, ``ERR@10``, ``IPrec@0.5``), ranx's (``map@100``, ``mrr@10``,
    ``hit_rate@10``, ``precision@10``, ``recall@100``, ``f1@10``, ``ndcg@10``,
    ``ndcg_burges@10``, ``dcg@10``: case as ranx writes them) and the video-retrieval
    ``C@K`` / ``correct@K`` (trec_eval's ``success_K``, printed as written).
``NAME(option=V,...)`` / ``NAME(option=V,...)@K``
    ir_measures' options (``P(rel=2)@10``, ``RR(rel=2)``, ``AP(rel=2)``, ``RBP(rel=1,p=0.8)@10``):
    the options a family declares (:attr:`Family.options`), each name printed as written.
``R@K,θ`` / ``AxIoU@K``
    the moment measures (IoU of temporal windows, not grades).
``all_trec`` / ``official`` / ``set``
    trec_eval's nicknames, per trec_eval version.

Measures are named as trec_eval names them (``P@10`` -> ``P_10``) unless printed as
asked (``printing=True``, the command's output: ``nDCG``, ``MAP`` and ``Bpref`` print as
written). A name with options has no trec_eval name and always keeps the one written.

Examples
--------
>>> [m.name for m in parse("P.5,10")]
['P_5', 'P_10']
>>> get("nDCG@10").root, get("AP'").root
('ndcg_cut', 'map_judged')
>>> score("P_2", [[1, 0, 1]]).tolist()
[0.5]
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from types import MappingProxyType

import numpy as np

from fireeval.core.measures import base
from fireeval.core.measures.base import GM_EPSILON, HELP, Context, Family, Measure, Param, family_of, summarise

from fireeval.core.validation import ANY, ARRAY, BOOL, Instance, Int, STR, validate_params

__all__ = ["REGISTRY", "Family", "Param", "Measure", "Context", "get", "family_of", "names", "parse", "score",
           "nickname", "NICKNAMES", "TREC_EVAL_VERSIONS", "check_version", "trec_eval_order", "summarise",
           "GM_EPSILON", "parse_strict", "TREC_EVAL_ROOTS"]

#: The trec_eval releases whose output ``fireeval evaluate`` reproduces (``--trec-eval``).
TREC_EVAL_VERSIONS = ("9.0.7", "10.0")
#: trec_eval's nicknames for lists of measures.
NICKNAMES = ("all_trec", "official", "set")
_NOT_FAMILIES = {"base"}


def _discover() -> dict:
    registry = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name in _NOT_FAMILIES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for family in getattr(module, "FAMILIES", ()):
            if family.root in registry:
                raise RuntimeError(f"measure family {family.root!r} is declared twice ({module.__name__})")
            registry[family.root] = family
    return registry


#: root name -> Family, every registered family.
base.REGISTERED.update(_discover())
REGISTRY = MappingProxyType(base.REGISTERED)
for _f in sorted(REGISTRY.values(), key=lambda f: f.root != f.kind):  # the family named as its kind first
    base.REGISTERED_KINDS.setdefault(_f.kind, _f)
_EXACT = {}   # lower-case name -> (family, is trec_eval's own name)
_AT = {}      # lower-case NAME of NAME@K -> family
_DOTTED = {}  # lower-case root of ROOT, ROOT_V, ROOT.V -> family (generic parameter grammar)
_RANX = {}    # ranx's NAME of NAME@K, case as ranx writes it -> family
for _f in REGISTRY.values():
    for _n in _f.ranx_names:
        _RANX[_n] = _f
    if _f.parse is not None:
        continue
    if _f.param is None:
        if _f.trec_forms:
            _EXACT[_f.root.lower()] = (_f, True)
        for _n in _f.ir_names + _f.aliases:
            _EXACT.setdefault(_n.lower(), (_f, False))
    else:
        if _f.trec_forms:
            _DOTTED[_f.root.lower()] = _f
        for _n in _f.ir_names + _f.aliases:
            _AT[_n.lower()] = _f


@validate_params(version=ANY)
def check_version(version: str) -> str:
    """``version`` if it is one of :data:`TREC_EVAL_VERSIONS`, else a ValueError saying which are.

    Parameters
    ----------
    version : str
        A trec_eval release.

    Returns
    -------
    str
        ``version``.

    Examples
    --------
    >>> check_version("10.0")
    '10.0'
    """
    if version not in TREC_EVAL_VERSIONS:
        raise ValueError(f"trec_eval version {version!r} is not one fireeval reproduces. Fix: use one of "
                         f"{', '.join(TREC_EVAL_VERSIONS)}")
    return version


#: :func:`check_version`'s body (its declaration takes any value: the body is the check), for this module's own calls
_check_version = check_version.__wrapped__


@validate_params()
def names() -> list:
    """Every name the parser accepts, one example per form (``P``, ``P_5``, ``P.5``, ``P@5``...).

    >>> "nDCG@5" in names() and "map" in names() and "all_trec" in names()
    True
    """
    out = list(NICKNAMES)
    for f in REGISTRY.values():
        if f.parse is None and f.trec_forms:
            out.append(f.root)
        if f.param is not None and f.parse is None:
            v = f.param.text(f.param.defaults[0])
            if f.trec_forms:
                out += [f"{f.root}_{v}", f"{f.root}.{v}"]
            if not any(option.required for option in f.options):  # (RBP@10 needs rel=: its examples)
                out += [f"{n}@{v}" for n in f.ir_names + f.aliases + f.ranx_names]
        elif f.parse is None:
            out += list(f.ir_names + f.aliases)
        out += list(f.examples)
    return list(dict.fromkeys(out))


@validate_params(name=STR, version=STR, printing=BOOL)
def nickname(name: str, version: str = "9.0.7", printing: bool = False) -> list:
    """The family roots a trec_eval nickname stands for, in trec_eval's print order.

    >>> nickname("official")[:4]
    ['num_q', 'num_ret', 'num_rel', 'num_rel_ret']
    """
    _check_version(version)
    members = [f for f in REGISTRY.values() if name.lower() in f.nicknames and (version == "10.0" or f.since != "10.0")
               and (printing or "text" not in f.needs)]
    return [f.root for f in sorted(members, key=lambda f: f.print_rank)]


def _unknown(name):
    import difflib  # (only for an unknown name's suggestions)

    close = difflib.get_close_matches(name, names(), n=4, cutoff=0.6)
    close_lower = [n for n in names() if n.lower() == name.lower()]
    hint = f" Closest names: {', '.join(dict.fromkeys(close_lower + close))}." if close or close_lower else ""
    raise ValueError(f"-m {name}: unknown measure. {HELP}.{hint}")


@validate_params(name=ANY, version=STR, printing=BOOL)
def parse(name: str, version: str = "9.0.7", *, printing: bool = False) -> list:
    """All measures a name stands for, in the grammar of the package docstring.

    Parameters
    ----------
    name : str
        A trec_eval name (``map``, ``P.5,10``, ``set_F.0.5``), a nickname (``all_trec``,
        ``official``, ``set``), an ir_measures name (``AP``, ``nDCG@10``), ``C@K``, a
        condensed-list name (``AP'``) or a moment measure (``R@1,0.5``).
    version : {"9.0.7", "10.0"}
        The trec_eval whose measures and nicknames to follow (10.0 adds ``rbp``,
        ``rbp_resid`` and ``unj``, also in its ``all_trec``).
    printing : bool
        As ``fireeval evaluate`` prints: nicknames keep the text measures ``runid`` and
        ``relstring``, and ir_measures names are labelled as written.

    Examples
    --------
    >>> [m.name for m in parse("iprec_at_recall")][:2]
    ['iprec_at_recall_0.00', 'iprec_at_recall_0.10']
    >>> [m.name for m in parse("nDCG@10")], [m.name for m in parse("nDCG@10", printing=True)]
    (['ndcg_cut_10'], ['nDCG@10'])
    >>> [m.name for m in parse("unj", "10.0")]
    ['unj_5', 'unj_10', 'unj_20']
    """
    _check_version(version)
    if not isinstance(name, str):
        raise TypeError(f"a measure name is a str, not {type(name).__name__} ({name!r}). Fix: pass e.g. 'map'")
    text = name.strip()
    low = text.lower()
    if low in NICKNAMES:
        return [m for root in nickname(low, version, printing) for m in parse(root, version, printing=printing)]
    measures = _parse_one(text, low, printing)
    if version != "10.0":
        for m in measures:
            if m.family.since == "10.0":
                raise ValueError(f"-m {name}: {m.family.root} is a trec_eval 10.0 measure, unknown to 9.0.7. Fix: "
                                 "add --trec-eval 10.0, or leave the measure out")
    return measures


def _parse_one(text, low, printing):
    for f in REGISTRY.values():  # families with their own parameter forms
        if f.parse is not None:
            found = f.parse(text, low, printing)
            if found is not None:
                return found
    options = _OPTION_FORM.fullmatch(text)
    if options:
        return _with_options(text, *options.groups())
    if low in _EXACT:
        f = _EXACT[low][0]
        return f.measures(label=text if printing and text != f.root else None)
    found = _parse_dotted(text, low)
    if found is not None:
        return found
    match = _AT_FORM.fullmatch(text)
    return _parse_at(text, match[1], match[2], printing) if match else _unknown(text)


def _parse_dotted(text, low):
    """trec_eval's ``ROOT``, ``ROOT_V`` and ``ROOT.V1,V2`` of a family with a parameter; None for other names."""
    for root_low, f in sorted(_DOTTED.items(), key=lambda kv: -len(kv[0])):
        if low == root_low:
            return f.measures()
        for sep in (".", "_"):
            if low.startswith(root_low + sep):
                rest = low[len(root_low) + 1:]
                parts = rest.split(",") if sep == "." else [rest]
                # trec_eval sorts a list of cut-offs (P.10,5 prints P_5 then P_10) and prints each once
                values = sorted({f.param.parse(p, text) for p in parts if p != ""})
                return f.measures(values) if values else _unknown(text)
    return None


def _parse_at(text, name, cut, printing):
    """``NAME@K``: ranx's names (case as ranx writes them; its conventions are said beside the value), then
    ir_measures' and fireeval's (any case)."""
    if name in _RANX:
        f = _RANX[name]
        return [dataclasses.replace(m, owner="ranx")
                for m in f.measures([f.param.parse(cut, text)], label=text if printing else None)]
    f = _AT.get(name.lower())
    if f is None:
        return _unknown(text)
    required = [p for p in f.options if p.required]
    if required:
        raise ValueError(f"-m {text}: {name} needs {required[0].name}= ({required[0].doc}). Fix: e.g. "
                         f"{name}({required[0].name}=1)@{cut}")
    return f.measures([f.param.parse(cut, text)], label=text if printing else None)


_AT_FORM = re.compile(r"(.+)@([\w.]+)")
_OPTION_FORM = re.compile(r"([^()@]+)\(([^()]*)\)(?:@([^@()]+))?")


def _option_values(text, name, given, options, cut) -> dict:
    """``{option: value}`` of ``NAME(option=V,...)``: each one the family takes, given once, required ones given."""
    accepted = {p.name: p for p in options}
    values = {}
    for part in filter(None, (p.strip() for p in given.split(","))):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or key not in accepted or key in values:
            raise ValueError(f"-m {text}: option {part!r} is not one {name} takes (once each). Fix: give "
                             f"{', '.join(f'{p}=V' for p in accepted)}")
        values[key] = accepted[key].parse(value, text)
    missing = [p for p in options if p.required and p.name not in values]
    if missing:
        raise ValueError(f"-m {text}: {name} needs {missing[0].name}= ({missing[0].doc}). Fix: e.g. "
                         f"{name}({missing[0].name}=1){'@' + cut if cut else ''}")
    return values


def _with_options(text, name, given, cut):
    """The measure of ir_measures' ``NAME(option=V,...)[@K]``, named as written."""
    f = (_AT if cut is not None else {n: fam for n, (fam, _) in _EXACT.items()}).get(name.lower())
    if f is None or not f.options:
        takes = sorted({n for fam in REGISTRY.values() if fam.options for n in fam.ir_names})
        raise ValueError(f"-m {text}: {name}{'@K' if cut is not None else ''} takes no options here. Fix: write "
                         f"it without (...), or use one of {', '.join(takes)} with its options (e.g. P(rel=2)@10)")
    values = _option_values(text, name, given, f.options, cut)
    rel = values.pop("rel", None)
    found = f.measures(None if cut is None else [f.param.parse(cut, text)], label=text)
    return [dataclasses.replace(m, rel=rel, options=tuple(sorted(values.items()))) for m in found]


@validate_params(name=ANY)
def get(name: str) -> Family:
    """The family of a measure name (any form of the grammar; one measure or one family).

    >>> get("P@10").root, get("correct@5").kind
    ('P', 'success')
    """
    text = str(name).strip()
    if text in REGISTRY:
        return REGISTRY[text]
    measures = parse(text, "10.0")
    families = {id(m.family): m.family for m in measures}
    if len(families) != 1:
        raise ValueError(f"{name!r} names {len(families)} measure families. Fix: name one family")
    return next(iter(families.values()))


@validate_params(measures=Instance(list, tuple))
def trec_eval_order(measures) -> list:
    """``measures`` in the order trec_eval prints them; names trec_eval does not know (ir_measures
    names, ``correct@K``, ``Judged@K``) follow, in the order given (a stable sort).

    Parameters
    ----------
    measures : list of Measure
        Parsed measures.

    Returns
    -------
    list of Measure
        In trec_eval's print order.

    Examples
    --------
    >>> [m.name for m in trec_eval_order(parse("P_10") + parse("correct@5") + parse("map"))]
    ['map', 'P_10', 'correct@5']
    """
    last = float("inf")

    def key(m):
        rank = m.family.print_rank
        return last if m.label is not None or rank is None else rank
    return sorted(measures, key=key)


@validate_params(name=STR, grades=ARRAY, n_relevant=[ARRAY, None], level=Int(), n_nonrelevant=[ARRAY, None], ideal=[ARRAY, None], n_retrieved=[ARRAY, None])
def score(name: str, grades, n_relevant=None, *, level: int = 1, n_nonrelevant=None, ideal=None,
          n_retrieved=None) -> np.ndarray:
    """One measure on ranked grades, for examples and exercises (the engines batch many measures).

    By default the qrels are the judged documents of the lists themselves (R = relevant
    ones listed, ideal = their grades sorted).

    >>> score("map", [[1, 0, 1]], n_relevant=[3]).round(4).tolist()
    [0.5556]
    """
    (measure,) = parse(name, "10.0")
    ctx = Context.of_lists(grades, n_relevant, level=level, n_nonrelevant=n_nonrelevant, ideal=ideal,
                           n_retrieved=n_retrieved)
    return np.asarray(measure.compute(ctx), dtype=float)


#: The measures trec_eval itself has (measures.c of 9.0.7; 10.0 adds those declared ``since="10.0"``): the names
#: ``fireeval evaluate --strict`` takes, as trec_eval does, case and all.
TREC_EVAL_ROOTS = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                   "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
                   "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
                   "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                   "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj")
_C_LONG = re.compile(r"\s*([+-]?[0-9]*)")
_C_DOUBLE = re.compile(r"\s*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def _atol(text: str) -> int:
    """C's ``atol``: the leading whole number of ``text`` (``23.4`` -> 23), 0 when there is none."""
    digits = _C_LONG.match(text)[1]
    return int(digits) if digits.strip("+-") else 0


def _atof(text: str) -> float:
    """C's ``atof`` for decimal text: the leading number of ``text``, 0.0 when there is none."""
    found = _C_DOUBLE.match(text)
    return float(found[1]) if found else 0.0


@validate_params(arguments=Instance(list, tuple), version=STR)
def parse_strict(arguments, version: str = "9.0.7") -> list:
    """The measures trec_eval computes for its ``-m`` arguments, in its print order (``fireeval evaluate --strict``).

    As trec_eval's ``mark_measure`` and ``init_meas``: no argument means ``official``; each argument
    is a measure or nickname (``official``, ``set``, ``all_trec``) of trec_eval's own, named as
    trec_eval names it (``P``, not ``P_10`` or ``P@10``), optionally followed by ``.PARAMETERS``; a
    measure asked several times is computed once, with the parameters of the first argument that
    gave it any (``-m P.1,2 -m P.5`` is P_1 and P_2; ``-m official -m P.7`` is P_7 alone), its
    cut-offs read as C's ``atol`` reads them (``ndcg_cut.23.4`` is ndcg_cut_23) and sorted. What
    trec_eval refuses (an unknown name, a cut-off of 0 or less, one given twice) raises a
    ValueError naming the argument and the fix.

    >>> [m.name for m in parse_strict(["P.10,5", "P.7", "map.3"])]
    ['map', 'P_5', 'P_10']
    >>> [m.name for m in parse_strict([])][:6]
    ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map']
    """
    _check_version(version)
    known = [root for root in TREC_EVAL_ROOTS if version == "10.0" or REGISTRY[root].since != "10.0"]
    marked, given = set(), {}
    for argument in list(arguments) or ["official"]:
        name, dot, params = argument.partition(".")
        if dot and not params:
            raise ValueError(f"-m {argument}: no parameter after the '.' (trec_eval refuses it). Fix: write "
                             f"-m {name}, or give the parameters, e.g. -m P.10")
        if dot:
            given.setdefault(name, (argument, params))  # trec_eval uses the first parameters given for a name
        marked.update(_strict_roots(argument, name, known, version))
    out = []
    for root in sorted(marked, key=lambda r: REGISTRY[r].print_rank):
        family = REGISTRY[root]
        argument, params = given.get(root, (root, None))
        if params is None or root in ("runid",) or (family.param is None and family.parse is None):
            out += parse(root, version, printing=True)  # (a parameter for a measure that takes none is ignored)
        elif family.param is not None and family.parse is None:
            out += _strict_cutoffs(family, argument, params)
        else:
            out += parse(f"{root}.{params}", version, printing=True)
    return out


def _strict_roots(argument, name, known, version) -> list:
    """The roots one ``--strict`` argument marks: a nickname's or the measure's own; else a one-line error."""
    if name in NICKNAMES:
        return nickname(name, version, printing=True)
    if name in known:
        return [name]
    close = [root for root in known if root.lower() == name.lower().split("_")[0].split("@")[0]]
    hint = f" (trec_eval's name: {close[0]})" if close else ""
    raise ValueError(f"-m {argument}: trec_eval {version} has no measure {name!r}{hint}; --strict takes "
                     "trec_eval's own names and nicknames (official, set, all_trec), case and all. Fix: "
                     "write it as trec_eval does (P.10, not P_10 or P@10), or leave out --strict")


def _strict_cutoffs(family, argument, params) -> list:
    """The measures of ``ROOT.V1,V2`` as trec_eval reads them: C's atol/atof, sorted, none twice, cut-offs >= 1."""
    if family.param.type is int:
        values = sorted(_atol(p) for p in params.split(","))
        if values[0] <= 0:
            raise ValueError(f"-m {argument}: a cut-off of {values[0]} (trec_eval reads the parameters as C's "
                             "atol does and refuses cut-offs of 0 or less). Fix: give cut-offs of 1 or more")
    else:
        values = sorted(_atof(p) for p in params.split(","))
    if len(set(values)) < len(values):
        raise ValueError(f"-m {argument}: a cut-off given twice (trec_eval stops: duplicate cutoffs "
                         "detected). Fix: give each cut-off once")
    return family.measures([family.param.parse(repr(v) if isinstance(v, float) else str(v), argument)
                            for v in values])
