"""What changed between two runs of a chapter: ``fireeval diff A.headline.json B.headline.json``.

Claims are matched by ``id``. A claim is listed when its verdict, its shown label,
any convention's value (or interval) or anything else it carries (its sensitivity rows and
conditions, their labels and intervals, its interval method) changed, or when it is in one
headline only. The
other headline keys are flattened to dotted paths (``toy.ap``, ``oracle.map``) and
listed when their values differ; ``seconds``/``elapsed`` timings are left out unless
``timings=True``.

**Numbers are equal within a tolerance**: ``a`` and ``b`` are the same when
``|a - b| <= max(rtol * max(|a|, |b|), atol)`` (``math.isclose``; ``rtol`` 1e-9, ``atol``
1e-12 by default, ``--rtol``/``--atol``), so floating-point noise of a re-run on another
machine (``0.30000000000000004`` vs ``0.3``) is not a change; NaN equals NaN. A true or
false is never equal to a number.

**Strict input**: a headline is a JSON object (or the executed ``.ipynb`` that ``fireeval
run`` or papermill wrote, whose glued headline is read); a key twice in one object,
``claims`` that is not a list of objects, a claim without a string ``id``, an ``id``
listed twice and ``conventions`` that is not an object of objects are refused in one
line naming the file and the fix -- never "last one wins" or "only in A".
"""
from __future__ import annotations

from collections.abc import Mapping
import json
import os
import math
from pathlib import Path
from fireeval.core.validation import BOOL, COLLECTION, STR, Instance, Real, validate_params

__all__ = ["load_headline", "check_headline", "diff_headlines", "format_diff", "RTOL", "ATOL"]

#: Default tolerances of :func:`diff_headlines` (relative, absolute).
RTOL, ATOL = 1e-9, 1e-12

_FIX = "Fix: give a <chapter>.headline.json (or <chapter>.ipynb) written by fireeval run"


class _DuplicateKey(ValueError):
    def __init__(self, key, line):
        super().__init__(key)
        self.key, self.line = key, line


def _strict_loads(text: str):
    """JSON ``text`` parsed with the standard library's pure-Python scanner, refusing a key twice in one object."""
    from json import decoder, scanner

    class Decoder(json.JSONDecoder):
        def __init__(self):
            super().__init__()

            def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook, memo=None, *rest):
                s, start = s_and_end
                pairs, end = decoder.JSONObject(s_and_end, strict, scan_once, None, list, memo, *rest)
                seen = set()
                for key, _ in pairs:
                    if key in seen:
                        raise _DuplicateKey(key, s.count("\n", 0, start) + 1)
                    seen.add(key)
                return dict(pairs), end

            self.parse_object = parse_object
            self.scan_once = scanner.py_make_scanner(self)

    return Decoder().decode(text)


@validate_params(path=Instance(str, os.PathLike))
def load_headline(path) -> dict:
    """A headline (what ``fireeval run`` writes) as a dict, from its ``.headline.json`` or its executed ``.ipynb``.

    One-line errors for anything else (see the module docstring); :func:`check_headline`
    checks the claims.

    Parameters
    ----------
    path : path-like
        A ``.headline.json`` or an executed ``.ipynb``.

    Returns
    -------
    dict

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.headline.json")
    >>> _ = open(path, "w").write('{"n": 1, "claims": [{"id": "c", "verdict": "reproduced"}]}')
    >>> load_headline(path)
    {'n': 1, 'claims': [{'id': 'c', 'verdict': 'reproduced'}]}
    >>> _ = open(path, "w").write('{"n": 1, "n": 2}')
    >>> load_headline(path)
    Traceback (most recent call last):
    ...
    ValueError: /tmp/.../a.headline.json:1: the object that starts on this line has the key 'n' twice (a reader would keep only the last). Fix: give each key once
    """
    from fireeval.datasets import check_readable

    path = check_readable(path, "headline JSON file (DIR/<chapter>.headline.json written by fireeval run)")
    try:
        text = path.read_bytes().decode("utf-8-sig")
        doc = _strict_loads(text)
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason}). {_FIX}.") from None
    except _DuplicateKey as err:
        raise ValueError(f"{path}:{err.line}: the object that starts on this line has the key {err.key!r} twice "
                         "(a reader would keep only the last). Fix: give each key once") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno}). {_FIX}.") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to read. {_FIX}.") from None
    if isinstance(doc, dict) and "cells" in doc and "nbformat" in doc:  # an executed notebook: its glued headline
        from fireeval.book.notebooks import extract_headline

        try:
            headline = extract_headline(doc)
        except (ValueError, TypeError, AttributeError, KeyError):
            headline = None
        if not isinstance(headline, dict):
            raise ValueError(f"{path}: a notebook without a glued headline (not executed, or failed before "
                             "report.headline). Fix: give an executed chapter, or its <chapter>.headline.json")
        doc = headline
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: a headline is a JSON object, got {type(doc).__name__}. {_FIX}.")
    check_headline(doc, str(path))
    return doc


@validate_params(doc=Instance(Mapping), name=STR)
def check_headline(doc: dict, name: str = "headline") -> dict:
    """``{id: claim}`` of a headline's ``claims``, or a one-line ValueError naming ``name`` and the claim.

    ``claims`` (optional) is a list of objects, each with a string ``id`` given once; a
    claim's ``conventions`` (optional) is an object whose values are objects.

    Parameters
    ----------
    doc : dict
        A headline.
    name : str
        Its name in errors (the file).

    Returns
    -------
    dict
        ``{id: claim}``.

    Examples
    --------
    >>> check_headline({"claims": [{"id": "c", "verdict": "reproduced"}]})
    {'c': {'id': 'c', 'verdict': 'reproduced'}}
    >>> check_headline({"claims": [{"id": "c"}, {"id": "c"}]}, "a.json")
    Traceback (most recent call last):
    ...
    ValueError: a.json: claim 2: id 'c' is also claim 1. Fix: list each claim once
    """
    if "claims" not in doc:
        return {}
    claims = doc["claims"]
    if not isinstance(claims, list):
        raise ValueError(f"{name}: 'claims' is {type(claims).__name__} {json.dumps(claims)[:40]}, not a list of "
                         f"claims. {_FIX} (claims: [{{\"id\": ..., \"verdict\": ...}}, ...]).")
    out = {}
    for n, claim in enumerate(claims, 1):
        where = f"{name}: claim {n}"
        if not isinstance(claim, dict):
            raise ValueError(f"{where} is {type(claim).__name__}, not an object. {_FIX}.")
        cid = claim.get("id")
        if not isinstance(cid, str) or not cid:
            shown = "has no id" if "id" not in claim else f"has the id {json.dumps(cid)[:40]}, not a text"
            raise ValueError(f"{where} {shown}. Fix: give every claim a text id (claims are matched by id)")
        if cid in out:
            first = next(i for i, c in enumerate(claims, 1) if isinstance(c, dict) and c.get("id") == cid)
            raise ValueError(f"{where}: id {cid!r} is also claim {first}. Fix: list each claim once")
        conventions = claim.get("conventions")
        if conventions is not None and not isinstance(conventions, dict):
            raise ValueError(f"{where} ({cid}): 'conventions' is {type(conventions).__name__}, not an object "
                             "{name: {value, low, high}}. " + _FIX + ".")
        for conv, c in (conventions or {}).items():
            if not isinstance(c, dict):
                raise ValueError(f"{where} ({cid}): convention {conv!r} is {type(c).__name__}, not an object "
                                 "{value, low, high}. " + _FIX + ".")
        out[cid] = claim
    return out


def _claim_values(claim: dict) -> dict:
    return {name or "value": (c.get("value"), c.get("low"), c.get("high"))
            for name, c in (claim.get("conventions") or {}).items()}


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _same(a, b, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether two JSON values are equal, numbers within the tolerance (NaN equals NaN; booleans are not numbers)."""
    if _is_number(a) and _is_number(b):
        if a != a or b != b:
            return a != a and b != b
        return math.isclose(a, b, rel_tol=rtol, abs_tol=atol)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], rtol, atol) for k in a)
    return type(a) is type(b) and a == b


def _flatten(value, prefix="", out=None, lists: bool = False) -> dict:
    """Dotted paths to leaves; with ``lists``, a list's items too (``rows.2.label``), so a claim's sensitivity
    rows and conditions are compared one value at a time."""
    out = {} if out is None else out
    if isinstance(value, dict) and value:
        items = value.items()
    elif lists and isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        items = enumerate(value)
    else:
        out[prefix] = value
        return out
    for k, v in items:
        _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, lists)
    return out


def _is_timing(key: str) -> bool:
    return any(word in key for word in ("seconds", "elapsed"))


@validate_params(a=Instance(Mapping), b=Instance(Mapping), timings=BOOL, rtol=Real(0), atol=Real(0), names=COLLECTION)
def diff_headlines(a: dict, b: dict, timings: bool = False, rtol: float = RTOL, atol: float = ATOL,
                   names=("A", "B")) -> dict:
    """``{"claims": [...], "only_a": [...], "only_b": [...], "keys": [...], "within_tolerance": n, "rtol", "atol"}``.

    Each claim row: ``{id, verdict: [a, b], label: [a, b], values: {convention: [[v, lo, hi], [v, lo, hi]]},
    details: [{key, a, b}]}`` with only the changed parts filled (``details``: the claim's other fields, its
    sensitivity rows and conditions among them, flattened to dotted paths such as ``sensitivity.2.label``); each key row ``{key, a, b}`` (missing = None, with ``missing`` naming
    the side). Numbers are compared within ``rtol``/``atol`` (module docstring); ``within_tolerance``
    counts the values that differ only by that much. ``names`` name the two headlines in errors.

    Parameters
    ----------
    a, b : dict
        Two headlines.
    timings : bool
        Compare timings too (keys naming seconds or elapsed).
    rtol, atol : float
        The tolerance of numbers.
    names : (str, str)
        The headlines' names in errors.

    Returns
    -------
    dict

    >>> a = {"n": 1, "x": 0.1 + 0.2, "claims": [{"id": "c", "verdict": "reproduced", "label": "reproduced",
    ...                                          "conventions": {"": {"value": 0.5}}}]}
    >>> b = {"n": 2, "x": 0.3, "claims": [{"id": "c", "verdict": "not reproduced", "label": "contradicted",
    ...                                    "conventions": {"": {"value": 0.1}}}]}
    >>> d = diff_headlines(a, b)
    >>> d["claims"][0]["verdict"], d["keys"], d["within_tolerance"]
    (['reproduced', 'not reproduced'], [{'key': 'n', 'a': 1, 'b': 2}], 1)
    """
    for value, name in ((rtol, "rtol"), (atol, "atol")):
        if not _is_number(value) or not 0 <= value < 1:
            raise ValueError(f"{name} must be a number in [0, 1), not {value!r}. Fix: give e.g. 1e-9 "
                             "(0 compares exactly)")
    claims_a, claims_b = check_headline(a, names[0]), check_headline(b, names[1])
    noise = 0
    rows = []
    for cid in [c for c in claims_a if c in claims_b]:
        row, n = _claim_row(cid, claims_a[cid], claims_b[cid], rtol, atol)
        noise += n
        if row is not None:
            rows.append(row)
    keys, n = _key_rows(a, b, timings, rtol, atol)
    noise += n
    return {"claims": rows, "only_a": [c for c in claims_a if c not in claims_b],
            "only_b": [c for c in claims_b if c not in claims_a], "keys": keys, "within_tolerance": int(noise),
            "rtol": rtol, "atol": atol}


def _claim_row(cid, ca: dict, cb: dict, rtol: float, atol: float):
    """(the row of :func:`diff_headlines` for claim ``cid``, None when nothing changed beyond tolerance;
    how many of its values differ only within tolerance)."""
    noise = 0
    row = {"id": cid}
    for field in ("verdict", "label"):
        if ca.get(field) != cb.get(field):
            row[field] = [ca.get(field), cb.get(field)]
    va, vb = _claim_values(ca), _claim_values(cb)
    changed = {}
    for k in dict.fromkeys([*va, *vb]):
        if va.get(k) == vb.get(k):
            continue
        if _same(va.get(k), vb.get(k), rtol, atol):
            noise += 1
        else:
            changed[k] = [list(va.get(k) or ()), list(vb.get(k) or ())]
    if changed:
        row["values"] = changed
    # Everything else a claim carries (its sensitivity rows and conditions, their labels and intervals, the
    # interval method): a label inside a row can change while the claim's own label does not.
    rest = [{k: v for k, v in c.items() if k not in ("id", "verdict", "label", "conventions")} for c in (ca, cb)]
    details, n = _changed_paths(_flatten(rest[0], lists=True), _flatten(rest[1], lists=True), True, rtol, atol)
    noise += n
    if details:
        row["details"] = details
    if len(row) == 1:
        return None, noise
    row.setdefault("verdict", [ca.get("verdict")] * 2)
    row.setdefault("label", [ca.get("label")] * 2)
    return row, noise


def _key_rows(a: dict, b: dict, timings: bool, rtol: float, atol: float):
    """(the key rows of :func:`diff_headlines`: the headline keys other than claims, flattened, that differ or
    are missing on one side, timings left out unless ``timings``; how many differ only within tolerance)."""
    return _changed_paths(_flatten({k: v for k, v in a.items() if k != "claims"}),
                          _flatten({k: v for k, v in b.items() if k != "claims"}), timings, rtol, atol)


def _changed_paths(flat_a: dict, flat_b: dict, timings: bool, rtol: float, atol: float):
    """(``[{key, a, b[, missing]}]`` of the paths that differ beyond tolerance or are on one side only; how many
    differ only within tolerance)."""
    keys, noise = [], 0
    for key in dict.fromkeys([*flat_a, *flat_b]):
        if not timings and _is_timing(key):
            continue
        if key not in flat_b:
            keys.append({"key": key, "a": flat_a[key], "b": None, "missing": "b"})
        elif key not in flat_a:
            keys.append({"key": key, "a": None, "b": flat_b[key], "missing": "a"})
        elif flat_a[key] != flat_b[key] or type(flat_a[key]) is not type(flat_b[key]):
            if _same(flat_a[key], flat_b[key], rtol, atol):
                noise += not (_is_number(flat_a[key]) and math.isnan(flat_a[key]))  # NaN and NaN: just equal
            else:
                keys.append({"key": key, "a": flat_a[key], "b": flat_b[key]})
    return keys, noise


def _show(value, width: int = 48, full: bool = False) -> str:
    if isinstance(value, float):
        text = repr(value) if full else f"{value:.6g}"
    else:
        text = value if isinstance(value, str) else json.dumps(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _pair(a, b) -> tuple[str, str]:
    """``a`` and ``b`` shown; in full precision when six significant digits would show them alike."""
    sa, sb = _show(a), _show(b)
    if sa == sb and (isinstance(a, float) or isinstance(b, float)):
        sa, sb = _show(a, full=True), _show(b, full=True)
    return sa, sb


def _interval(v, other=None) -> str:
    if not v:
        return "—"
    value, lo, hi = (list(v) + [None, None, None])[:3]
    ovalue, olo, ohi = (list(other or ()) + [None, None, None])[:3]
    show = (lambda x, y: _pair(x, y)[0])
    return show(value, ovalue) + (f" [{show(lo, olo)}, {show(hi, ohi)}]" if lo is not None and hi is not None else "")


@validate_params(d=Instance(Mapping), name_a=STR, name_b=STR)
def format_diff(d: dict, name_a: str = "A", name_b: str = "B") -> str:
    """The diff as text: one block per changed claim, then the changed keys; "no change" when equal.

    The last line says the tolerance numbers were compared with, and how many values
    differed within it (not listed).

    Parameters
    ----------
    d : dict
        :func:`diff_headlines`' result.
    name_a, name_b : str
        The two headlines' names.

    Returns
    -------
    str

    Examples
    --------
    >>> a = {"n": 1, "claims": [{"id": "c", "verdict": "reproduced", "label": "reproduced",
    ...                          "conventions": {"": {"value": 0.5}}}]}
    >>> b = {"n": 2, "claims": [{"id": "c", "verdict": "not reproduced", "label": "contradicted",
    ...                          "conventions": {"": {"value": 0.1}}}]}
    >>> print(format_diff(diff_headlines(a, b)))
    claims changed (A -> B):
      c: reproduced -> contradicted (verdict reproduced -> not reproduced)
          value: 0.5 -> 0.1
    other headline keys changed (1):
      n: 1 -> 2
    (numbers compared within rtol 1e-09, atol 1e-12)
    """
    lines = []
    if d["claims"] or d["only_a"] or d["only_b"]:
        lines.append(f"claims changed ({name_a} -> {name_b}):")
        for row in d["claims"]:
            va, vb = row["label"]
            head = f"  {row['id']}: {va} -> {vb}" if va != vb else f"  {row['id']}: {va} (unchanged label)"
            if row["verdict"][0] != row["verdict"][1]:
                head += f" (verdict {row['verdict'][0]} -> {row['verdict'][1]})"
            lines.append(head)
            for conv, (old, new) in (row.get("values") or {}).items():
                lines.append(f"      {conv}: {_interval(old, new)} -> {_interval(new, old)}")
            lines += [f"      {line}" for line in _path_lines(row.get("details") or [], name_a, name_b)]
        lines += [f"  {cid}: only in {name_a}" for cid in d["only_a"]]
        lines += [f"  {cid}: only in {name_b}" for cid in d["only_b"]]
    if d["keys"]:
        lines.append(f"other headline keys changed ({len(d['keys'])}):")
        lines += [f"  {line}" for line in _path_lines(d["keys"], name_a, name_b)]
    tolerance = f"numbers compared within rtol {d.get('rtol', RTOL):g}, atol {d.get('atol', ATOL):g}"
    if d.get("within_tolerance"):
        tolerance += f"; {d['within_tolerance']} values differ by less (floating-point noise), not listed"
    if not lines:
        return f"no change: same claims, verdicts and values ({tolerance})"
    return "\n".join(lines + [f"({tolerance})"])


def _path_lines(rows: list, name_a: str, name_b: str) -> list[str]:
    return [f"{row['key']}: only in {name_a if row['missing'] == 'b' else name_b}" if row.get("missing")
            else "{}: {} -> {}".format(row["key"], *_pair(row["a"], row["b"])) for row in rows]


def diff_files(path_a, path_b, timings: bool = False, rtol: float = RTOL, atol: float = ATOL) -> dict:
    """:func:`diff_headlines` of two headline files (``.headline.json`` or executed ``.ipynb``)."""
    return diff_headlines(load_headline(Path(path_a)), load_headline(Path(path_b)), timings=timings, rtol=rtol,
                          atol=atol, names=(str(path_a), str(path_b)))
