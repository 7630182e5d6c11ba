"""What changed between two runs of a chapter: ``fireeval diff A.headline.json B.headline.json``.

Claims are matched by ``id``. A claim is listed when its verdict, its shown label or
any convention's value (or interval) changed, or when it is in one headline only. The
other headline keys are flattened to dotted paths (``toy.ap``, ``oracle.map``) and
listed when their values differ; values are compared exactly (a re-run with the same
parameters gives identical numbers), except that ``seconds``/``elapsed`` timings are
left out unless ``timings=True``.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["load_headline", "diff_headlines", "format_diff"]


def load_headline(path) -> dict:
    """A headline JSON file (what ``fireeval run`` writes) as a dict, with one-line errors."""
    from fireeval.datasets import read_json

    doc = read_json(path, "headline JSON file (DIR/<chapter>.headline.json written by fireeval run)")
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: a headline is a JSON object, got {type(doc).__name__}. "
                         "Fix: give a <chapter>.headline.json written by fireeval run.")
    return doc


def _claim_values(claim: dict) -> dict:
    out = {}
    for name, c in (claim.get("conventions") or {}).items():
        if isinstance(c, dict):
            out[name or "value"] = (c.get("value"), c.get("low"), c.get("high"))
    return out


def _flatten(value, prefix="", out=None) -> dict:
    out = {} if out is None else out
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = value
    return out


def _is_timing(key: str) -> bool:
    return any(word in key for word in ("seconds", "elapsed"))


def diff_headlines(a: dict, b: dict, timings: bool = False) -> dict:
    """``{"claims": [...], "only_a": [...], "only_b": [...], "keys": [...]}``: what differs from ``a`` to ``b``.

    Each claim row: ``{id, verdict: [a, b], label: [a, b], values: {convention: [[v, lo, hi], [v, lo, hi]]}}``
    with only the changed parts filled; each key row ``{key, a, b}`` (missing = None, with ``missing`` naming
    the side).

    >>> a = {"n": 1, "claims": [{"id": "c", "verdict": "reproduced", "label": "reproduced",
    ...                          "conventions": {"": {"value": 0.5}}}]}
    >>> b = {"n": 2, "claims": [{"id": "c", "verdict": "not reproduced", "label": "contradicted",
    ...                          "conventions": {"": {"value": 0.1}}}]}
    >>> d = diff_headlines(a, b)
    >>> d["claims"][0]["verdict"], d["keys"]
    (['reproduced', 'not reproduced'], [{'key': 'n', 'a': 1, 'b': 2}])
    """
    claims_a = {c.get("id"): c for c in a.get("claims") or [] if isinstance(c, dict)}
    claims_b = {c.get("id"): c for c in b.get("claims") or [] if isinstance(c, dict)}
    rows = []
    for cid in [c for c in claims_a if c in claims_b]:
        ca, cb = claims_a[cid], claims_b[cid]
        row = {"id": cid}
        for field in ("verdict", "label"):
            if ca.get(field) != cb.get(field):
                row[field] = [ca.get(field), cb.get(field)]
        va, vb = _claim_values(ca), _claim_values(cb)
        changed = {k: [list(va.get(k) or ()), list(vb.get(k) or ())] for k in dict.fromkeys([*va, *vb])
                   if va.get(k) != vb.get(k)}
        if changed:
            row["values"] = changed
        if len(row) > 1:
            row.setdefault("verdict", [ca.get("verdict")] * 2)
            row.setdefault("label", [ca.get("label")] * 2)
            rows.append(row)
    flat_a = _flatten({k: v for k, v in a.items() if k != "claims"})
    flat_b = _flatten({k: v for k, v in b.items() if k != "claims"})
    keys = []
    for key in dict.fromkeys([*flat_a, *flat_b]):
        if not timings and _is_timing(key):
            continue
        if key not in flat_b:
            keys.append({"key": key, "a": flat_a[key], "b": None, "missing": "b"})
        elif key not in flat_a:
            keys.append({"key": key, "a": None, "b": flat_b[key], "missing": "a"})
        elif flat_a[key] != flat_b[key]:
            keys.append({"key": key, "a": flat_a[key], "b": flat_b[key]})
    return {"claims": rows, "only_a": [c for c in claims_a if c not in claims_b],
            "only_b": [c for c in claims_b if c not in claims_a], "keys": keys}


def _show(value, width: int = 48) -> str:
    text = f"{value:.6g}" if isinstance(value, float) else json.dumps(value) if not isinstance(value, str) else value
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _interval(v) -> str:
    if not v:
        return "—"
    value, lo, hi = (list(v) + [None, None, None])[:3]
    return _show(value) + (f" [{_show(lo)}, {_show(hi)}]" if lo is not None and hi is not None else "")


def format_diff(d: dict, name_a: str = "A", name_b: str = "B") -> str:
    """The diff as text: one block per changed claim, then the changed keys; "no change" when equal."""
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
                lines.append(f"      {conv}: {_interval(old)} -> {_interval(new)}")
        lines += [f"  {cid}: only in {name_a}" for cid in d["only_a"]]
        lines += [f"  {cid}: only in {name_b}" for cid in d["only_b"]]
    if d["keys"]:
        lines.append(f"other headline keys changed ({len(d['keys'])}):")
        for row in d["keys"]:
            if row.get("missing"):
                lines.append(f"  {row['key']}: only in {name_a if row['missing'] == 'b' else name_b}")
            else:
                lines.append(f"  {row['key']}: {_show(row['a'])} -> {_show(row['b'])}")
    return "\n".join(lines) if lines else "no change: same claims, verdicts and values"


def diff_files(path_a, path_b, timings: bool = False) -> dict:
    """:func:`diff_headlines` of two headline files."""
    return diff_headlines(load_headline(Path(path_a)), load_headline(Path(path_b)), timings=timings)
