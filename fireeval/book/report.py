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


def claims(records: list[dict], title: str = "Claims and verdicts", legacy_twins: bool = False) -> list[dict]:
    """Glue a chapter's evaluated claims and return them for the headline's ``claims`` list.

    ``records`` come from :meth:`fireeval.stats.claims.Claim.evaluate`. Every record must
    carry the five fair-verdict fields (:data:`fireeval.stats.claims.FIELDS`); a chapter
    that forgets one fails here, naming the claim. For each claim this glues
    ``claim.<id>.verdict``, ``claim.<id>.label`` (the shown word: contradicted or
    inconclusive for "not reproduced"), ``claim.<id>.found`` (number with interval, per
    convention) and, per convention, ``claim.<id>.<convention>.verdict`` and ``.value``,
    so the prose takes verdict words and numbers from glue only. It also glues
    ``claims_table``: the "paper vs here" box shown at the top of the chapter.
    """
    from fireeval.stats.claims import FIELDS, LABELS, VERDICTS, check_record, merge_twins, summary_rows

    twins = {r["id"]: r for r in records if r["id"].endswith(".here")} if legacy_twins else {}
    seen = set()
    for r in records:
        check_record(r, legacy_twins=legacy_twins)
        if r["verdict"] not in VERDICTS:
            raise ValueError(f"claim {r['id']}: verdict {r['verdict']!r} is not one of {VERDICTS}")
        if r.get("label") not in LABELS:
            raise ValueError(f"claim {r['id']}: label {r.get('label')!r} is not one of {LABELS}")
        missing = [f for f in FIELDS if r.get(f) is None] + list(r.get("missing") or ())
        if missing:
            raise ValueError(f"claim {r['id']}: fill the fair-verdict field(s) {', '.join(sorted(set(missing)))} "
                             "(see fireeval.stats.claims)")
        if r["id"] in seen:
            raise ValueError(f"claim id {r['id']!r} is used twice")
        seen.add(r["id"])
    for r, row in zip(records, summary_rows(records)):
        glue(f"claim.{r['id']}.verdict", r["verdict"])
        glue(f"claim.{r['id']}.label", r["label"])
        glue(f"claim.{r['id']}.found", row["found here"])
        for name, c in r["conventions"].items():
            key = f"claim.{r['id']}.{name}" if name else f"claim.{r['id']}"
            if name:
                glue(f"{key}.verdict", c["verdict"])
            glue(f"{key}.value", c["value"])
    # A chapter not yet rewritten to one row per statement keeps its '.here' twins (and their glue names)
    # for its prose; its box and the book's scoreboard fold each twin into its paper's claim.
    _glue("claims_table", ClaimsTable(summary_rows(merge_twins(records) if twins else records), title))
    return to_jsonable(records)


PAPERS_NUMBER = "paper's number"
#: One colour per shown label (colour-blind safe: Okabe-Ito), used by the boxes and the scoreboard chart.
LABEL_COLOURS = {"reproduced": "#009E73", "contradicted": "#D55E00", "inconclusive": "#E69F00",
                 "depends": "#0072B2", "not testable here": "#999999"}


def _fields_html(row) -> str:
    """The fair-verdict fields of one claim, folded: evidence, reading, standing, power, sensitivity."""
    from html import escape

    from fireeval.stats.claims import format_estimate

    e, rd, pw = row.get("evidence") or {}, row.get("reading") or {}, row.get("power") or {}
    if e.get("cells"):
        ok = {True: "the paper's numbers reproduce", False: "the paper's numbers do not reproduce",
              None: ""}[e.get("numbers_reproduce")]
        ev = (f"{e['cells']} value(s) of {escape(e['source'])} compared; largest difference "
              f"{e['max_abs_diff']:.4g} (tolerance {e['tolerance']:g}): {ok}")
    else:
        ev = escape(e.get("detail") or e.get("source") or "")
    if e.get("cells") and e.get("detail"):
        ev += f". {escape(e['detail'])}"
    reading = (f"{escape(rd.get('rule', ''))} <em>({escape(rd.get('source', ''))}"
               + (f", {escape(rd['where'])}" if rd.get("where") else "") + ")</em>"
               + (f"<br>the paper: “{escape(rd['passage'])}”" if rd.get("passage") else ""))
    if pw.get("impossible"):
        power = f"none: {escape(pw['impossible'])}"
    elif pw.get("control"):
        est = format_estimate(pw["estimate"]) if pw.get("estimate") else ""
        power = (f"{_term('positive control')}: {escape(pw['control'])} = {est} "
                 f"({'passes' if pw.get('passes') else 'does not pass'} {escape(str(pw.get('test')))})")
    else:
        power = f"no positive control: {escape(pw.get('why_none') or '')}"
    sens = "".join(
        ('<li class="fireeval-flip">' if s["flips"] else "<li>") + f"{escape(s['name'])} ({escape(s['kind'])}): "
        + (format_estimate(s) if s.get("value") is not None else escape(s.get("basis") or ""))
        + f", test {escape(s['test'])}: <strong>{escape(s['label'])}</strong>"
        + (" — flips the verdict" if s["flips"] else "") + "</li>" for s in row.get("sensitivity", []))
    return ("<details><summary>evidence, reading, power, sensitivity</summary><dl>"
            f"<dt>paper's numbers ({_term('evidence')})</dt><dd>{ev}</dd><dt>reading</dt><dd>{reading}</dd>"
            f"<dt>{_term('power')}</dt><dd>{power}</dd>"
            f"<dt>{_term('sensitivity rows', 'sensitivity-row')}</dt>"
            f"<dd>{'<ul>' + sens + '</ul>' if sens else 'no alternative reading'}</dd>"
            "</dl></details>")


#: Where a chapter page (notebooks/NAME.html) finds the glossary's definitions.
GLOSSARY = "../book/glossary.html"


def _term(text: str, anchor: str | None = None) -> str:
    """``text`` linked to its glossary definition (Sphinx's ``term-`` anchors: spaces become hyphens)."""
    from html import escape

    slug = (anchor or text).replace(" ", "-")
    return f'<a class="fireeval-term" href="{GLOSSARY}#term-{escape(slug)}">{escape(text)}</a>'


class ClaimsTable:
    """A chapter's claims as an HTML table: claim | paper's number | found here | verdict | data.

    Each row has the anchor ``claim-<id>`` (the book's scoreboard links to it) and folds
    the claim's evidence, reading, power and sensitivity rows under it.
    """

    def __init__(self, rows: list[dict], title: str = "Paper vs here"):
        self.rows, self.title = rows, title

    def _repr_html_(self):
        from html import escape

        body = "".join(
            f"<tr id=\"claim-{escape(r['id'])}\"><td>{escape(r['claim'])}{_fields_html(r)}</td>"
            + f"<td>{escape(r.get(PAPERS_NUMBER) or '')}</td><td>{escape(r['found here'])}"
            + (f"<br><small>{escape(r['interval'])}</small>" if r.get("interval") else "") + "</td>"
            f"<td><strong style=\"color:{LABEL_COLOURS[r['label']]}\">{escape(r['label'])}</strong>"
            + (f"<br><small>{escape(r['basis'])}</small>" if r.get("basis") else "") + "</td>"
            f"<td>{escape(r['data'])}<br><small>{escape(str(r.get('standing')))}</small></td></tr>"
            for r in self.rows)
        return (f'<div class="fireeval-claims" style="overflow-x:auto"><table class="table">'
                f"<caption>{escape(self.title)}: each verdict is computed from the number beside it</caption>"
                "<thead><tr><th>paper's claim</th><th>paper's number</th><th>found here (95% interval)</th>"
                f"<th>{_term('verdict')}</th><th>data ({_term('standing', 'stand-in')})</th></tr></thead>"
                f"<tbody>{body}</tbody></table></div>")

    def __repr__(self):
        return "\n".join(f"[{r['label']}{'; ' + r['basis'] if r.get('basis') else ''}] {r['claim']} -- "
                         f"{r['found here']} ({r['data']})" for r in self.rows)
