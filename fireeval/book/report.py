"""Glue a notebook's key numbers so prose, the CLI and tests read the same values.

Every notebook ends its analysis with ``headline({...})``: one JSON-serialisable dict
of its key numbers. It is glued (myst-nb) under the name ``headline`` with an
``application/json`` representation, which ``fireeval run`` extracts into
``<name>.headline.json``. Prose cites single numbers glued with :func:`glue`.
"""
from __future__ import annotations

import json
import math
from numbers import Integral, Real

import numpy as np

__all__ = ["headline", "glue", "claims", "ClaimsTable", "to_jsonable", "HEADLINE_MIME"]

# Ends in "+json" so nbformat stores it as JSON even behind myst-nb's glue prefix.
HEADLINE_MIME = "application/vnd.fireeval.headline+json"


def to_jsonable(value):
    """Convert numpy scalars/arrays, tuples and non-string keys to plain JSON types.

    NaN and infinities become None (JSON has no NaN); keys become strings.
    """
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [to_jsonable(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real):
        value = float(value)
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"headline value {value!r} of type {type(value).__name__} is not JSON-serialisable")


class _Headline:
    def __init__(self, data):
        self.data = data

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {HEADLINE_MIME: self.data, "text/plain": repr(self)}

    def __repr__(self):
        return json.dumps(self.data, indent=1)


def headline(data: dict) -> dict:
    """Glue ``data`` as this notebook's ``headline`` and return its JSON-safe form."""
    clean = to_jsonable(data)
    json.dumps(clean)  # fail here, not in the CLI, if anything slipped through
    _glue("headline", _Headline(clean))
    return clean


def glue(name: str, value, display: bool = False) -> None:
    """Glue one value for the prose (``{glue:text}`name:.3f```); numpy scalars become Python numbers.

    Returns None, so a hidden cell ending in ``glue(...)`` shows no output.
    """
    if isinstance(value, (np.generic,)):
        value = value.item()
    _glue(name, value, display)


def _glue(name, value, display=False):
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # plain Python use: nothing to glue into
        return
    myst_glue(name, value, display=display)


def claims(records: list[dict], title: str = "Paper vs here") -> list[dict]:
    """Glue a chapter's evaluated claims and return them for the headline's ``claims`` list.

    ``records`` come from :meth:`fireeval.stats.claims.Claim.evaluate`. For each claim
    this glues ``claim.<id>.verdict``, ``claim.<id>.found`` (number with interval, per
    convention) and, per convention, ``claim.<id>.<convention>.verdict`` and ``.value``,
    so the prose takes verdict words and numbers from glue only. It also glues
    ``claims_table``: the "paper vs here" box shown at the top of the chapter and pasted
    into the book's scoreboard.
    """
    from fireeval.stats.claims import VERDICTS, summary_rows

    seen = set()
    for r in records:
        if r["verdict"] not in VERDICTS:
            raise ValueError(f"claim {r['id']}: verdict {r['verdict']!r} is not one of {VERDICTS}")
        if r["id"] in seen:
            raise ValueError(f"claim id {r['id']!r} is used twice")
        seen.add(r["id"])
    rows = summary_rows(records)
    for r, row in zip(records, rows):
        glue(f"claim.{r['id']}.verdict", r["verdict"])
        glue(f"claim.{r['id']}.found", row["found here"])
        for name, c in r["conventions"].items():
            key = f"claim.{r['id']}.{name}" if name else f"claim.{r['id']}"
            if name:
                glue(f"{key}.verdict", c["verdict"])
            glue(f"{key}.value", c["value"])
    _glue("claims_table", ClaimsTable(rows, title))
    return to_jsonable(records)


class ClaimsTable:
    """A chapter's claims as an HTML table (claim | found here | verdict | data)."""

    _COLOURS = {"reproduced": "#1a7f37", "not reproduced": "#b42318", "depends": "#9a6700",
                "not testable here": "#57606a"}

    def __init__(self, rows: list[dict], title: str = "Paper vs here"):
        self.rows, self.title = rows, title

    def _repr_html_(self):
        from html import escape

        body = "".join(
            f"<tr><td>{escape(r['claim'])}</td><td>{escape(r['found here'])}</td>"
            f"<td><strong style=\"color:{self._COLOURS[r['verdict']]}\">{escape(r['verdict'])}</strong>"
            + (f"<br><small>{escape(r['basis'])}</small>" if r.get("basis") else "") + "</td>"
            f"<td>{escape(r['data'])}</td></tr>" for r in self.rows)
        return (f'<div class="fireeval-claims"><table class="table">'
                f"<caption>{escape(self.title)}: each verdict is computed from the number beside it</caption>"
                "<thead><tr><th>paper's claim</th><th>found here (95% interval)</th><th>verdict</th>"
                f"<th>data</th></tr></thead><tbody>{body}</tbody></table></div>")

    def __repr__(self):
        return "\n".join(f"[{r['verdict']}{'; ' + r['basis'] if r.get('basis') else ''}] {r['claim']} -- "
                         f"{r['found here']} ({r['data']})" for r in self.rows)
