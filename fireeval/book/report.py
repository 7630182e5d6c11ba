"""Glue a notebook's key numbers so prose, the CLI and tests read the same values.

Every notebook ends its analysis with ``headline({...})``: one JSON-serialisable dict
of its key numbers. It is glued (myst-nb) under the name ``headline`` with an
``application/json`` representation, which ``fireeval run`` extracts into
``<name>.headline.json``. Prose cites single numbers glued with :func:`glue`.
"""
from __future__ import annotations

from collections.abc import Mapping
import json
import math
from numbers import Integral, Real

import numpy as np

from fireeval.core.validation import ANY, BOOL, COLLECTION, STR, Instance, validate_params

__all__ = ["headline", "glue", "claims", "ClaimsTable", "found_html", "verdict_html", "CLAIMS_STYLE", "to_jsonable",
           "HEADLINE_MIME"]

# Ends in "+json" so nbformat stores it as JSON even behind myst-nb's glue prefix.
HEADLINE_MIME = "application/vnd.fireeval.headline+json"


@validate_params(value=ANY)
def to_jsonable(value):
    """Convert numpy scalars/arrays, tuples and non-string keys to plain JSON types.

    NaN and infinities become None (JSON has no NaN); keys become strings.

    Parameters
    ----------
    value : object
        Numbers, arrays, containers.

    Returns
    -------
    object
        Plain JSON types.

    Examples
    --------
    >>> import numpy as np
    >>> to_jsonable({1: np.float32(0.5), "a": (np.int64(2), float("nan")), "b": np.arange(2)})
    {'1': 0.5, 'a': [2, None], 'b': [0, 1]}
    """
    return _jsonable(value)


def _jsonable(value):  # (the recursion, without the declared check at every level)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
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


@validate_params(data=Instance(Mapping))
def headline(data: dict) -> dict:
    """Glue ``data`` as this notebook's ``headline`` and return its JSON-safe form.

    Parameters
    ----------
    data : dict
        The chapter's headline keys.

    Returns
    -------
    dict
        ``data`` as plain JSON types.

    Examples
    --------
    Outside a notebook nothing is displayed:

    >>> import numpy as np
    >>> headline({"n": np.int64(3), "tau": np.float32(0.5)})
    {'n': 3, 'tau': 0.5}
    """
    clean = to_jsonable(data)
    json.dumps(clean)  # fail here, not in the CLI, if anything slipped through
    _glue("headline", _Headline(clean))
    return clean


@validate_params(name=STR, value=ANY, display=BOOL)
def glue(name: str, value, display: bool = False) -> None:
    """Glue one value for the prose (``{glue:text}`name:.3f```); numpy scalars become Python numbers.

    Returns None, so a hidden cell ending in ``glue(...)`` shows no output.

    Parameters
    ----------
    name : str
        The glue name.
    value : object
        The value.
    display : bool
        Also show it in the cell's output.

    Returns
    -------
    None

    Examples
    --------
    >>> import numpy as np
    >>> glue("share", np.float64(0.25)) is None
    True
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


@validate_params(records=COLLECTION, title=STR, legacy_twins=BOOL)
def claims(records: list[dict], title: str = "Claims and verdicts", legacy_twins: bool = False) -> list[dict]:
    """Glue a chapter's evaluated claims and return them for the headline's ``claims`` list.

    ``records`` come from :meth:`fireeval.stats.claims.Claim.evaluate`. Every record must
    carry the five fair-verdict fields (:data:`fireeval.stats.claims.FIELDS`); a chapter
    that forgets one fails here, naming the claim. For each claim this glues
    ``claim.<id>.verdict`` and ``claim.<id>.label`` (both the shown word: contradicted or
    inconclusive for "not reproduced"; the headline keeps the internal verdict), ``claim.<id>.found``
    (number with interval, per convention) and, per convention, ``claim.<id>.<convention>.verdict``
    (its shown word) and ``.value``,
    so the prose takes verdict words and numbers from glue only. It also glues
    ``claims_table``: the "paper vs here" box shown at the top of the chapter.

    Parameters
    ----------
    records : list of dict
        Evaluated claims.
    title : str
        The box's caption.
    legacy_twins : bool
        Accept ``.here`` twin records of older chapters.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> [(r["id"], r["verdict"]) for r in claims([record])]
    [('fn.c1', 'reproduced')]
    """
    from fireeval.stats.claims import FIELDS, LABELS, VERDICTS, check_record, label, merge_twins, summary_rows

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
        # a page shows only the five words a reader is taught: the ``.verdict`` glue is the shown word too
        # (the headline keeps the internal verdict)
        glue(f"claim.{r['id']}.verdict", r["label"])
        glue(f"claim.{r['id']}.label", r["label"])
        glue(f"claim.{r['id']}.found", row["found here"])
        for name, c in r["conventions"].items():
            key = f"claim.{r['id']}.{name}" if name else f"claim.{r['id']}"
            if name:
                glue(f"{key}.verdict", label(c))
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
    # the book's own findings compare with published numbers (NIST's scores, a repository's metric files), not a paper's
    numbers = "published numbers" if str(row.get("paper", "")).startswith("this book") else "paper's numbers"
    ev = _evidence_html(row.get("evidence") or {}, f"the {numbers}")
    reading = _reading_html(row.get("reading") or {}, _passage_label(row))
    power = _power_html(row.get("power") or {})
    sens = _sensitivity_html(row.get("sensitivity", []))
    return ("<details><summary>evidence, reading, power, sensitivity</summary><dl>"
            f"<dt>{numbers} ({glossary_link('evidence')})</dt><dd>{ev}</dd><dt>reading</dt><dd>{reading}</dd>"
            f"<dt>{glossary_link('power')}</dt><dd>{power}</dd>"
            f"<dt>{glossary_link('sensitivity rows', 'sensitivity-row')}</dt>"
            f"<dd>{'<ul>' + sens + '</ul>' if sens else 'no alternative reading'}</dd>"
            "</dl></details>")


def _evidence_html(e: dict, whose: str = "the paper's numbers") -> str:
    """A claim's evidence field: the printed values (``whose``) compared and whether they reproduce, else its detail."""
    from html import escape

    if not e.get("cells"):
        return escape(e.get("detail") or e.get("source") or "")
    ok = {True: f"{whose} reproduce", False: f"{whose} do not reproduce", None: ""}[e.get("numbers_reproduce")]
    ev = (f"{e['cells']} value(s) of {escape(e['source'])} compared; largest difference "
          f"{e['max_abs_diff']:.4g} (tolerance {e['tolerance']:g}): {ok}")
    return ev + (f". {escape(e['detail'])}" if e.get("detail") else "")


def _passage_label(row) -> str:
    """Whose words a reading quotes: "the book's claim" for the book's own findings, else "the paper"."""
    return "the book's claim" if str(row.get("paper", "")).startswith("this book") else "the paper"


def _reading_html(rd: dict, whose: str = "the paper") -> str:
    """A claim's reading field: the rule, its source (and where), and the quoted passage (``whose`` words)."""
    from html import escape

    return (f"{escape(rd.get('rule', ''))} <em>({escape(rd.get('source', ''))}"
            + (f", {escape(rd['where'])}" if rd.get("where") else "") + ")</em>"
            + (f"<br>{whose}: “{escape(rd['passage'])}”" if rd.get("passage") else ""))


def _power_html(pw: dict) -> str:
    """A claim's power field: impossible, against a stated effect, a positive control, or none."""
    from html import escape

    from fireeval.stats.claims import format_estimate

    if pw.get("impossible"):
        return f"none: {escape(pw['impossible'])}"
    if pw.get("effect") is not None:
        return (f"against a stated effect of {pw['effect']:.4g} ({escape(pw.get('effect_source') or '')}): the "
                f"smallest difference this test detects is {pw.get('detectable') or float('nan'):.4g}, so it "
                f"{'can' if pw.get('passes') else 'cannot'} detect that effect")
    if pw.get("control"):
        est = format_estimate(pw["estimate"]) if pw.get("estimate") else ""
        return (f"{glossary_link('positive control')}: {escape(pw['control'])} = {est} "
                f"({'passes' if pw.get('passes') else 'does not pass'} {escape(str(pw.get('test')))})")
    return f"no positive control: {escape(pw.get('why_none') or '')}"


def _sensitivity_weight(s: dict) -> str:
    """A sensitivity row's standing: secondary (with its reason), re-estimated, or equal."""
    from html import escape

    if s.get("weight") == "secondary":
        return f"secondary: {escape(s.get('reason') or '')}"
    return "same reading, re-estimated" if s.get("stability") else "equal standing"


def _sensitivity_flip(s: dict) -> str:
    """What a sensitivity row that flips the verdict does to it ("" when it does not flip it)."""
    if not s["flips"]:
        return ""
    if s.get("weight") == "secondary":
        return " — flips it, but is secondary: shown, does not decide"
    if s.get("stability"):
        return " — flips it: no firmer than inconclusive"
    if s.get("changes_verdict", True):
        return " — flips it: depends"
    # The label moves, but neither reading reproduces the claim: the verdict stands.
    return " — another label, same verdict (neither reading reproduces the claim): no firmer than inconclusive"


def _sensitivity_html(rows) -> str:
    """A claim's sensitivity rows as ``<li>`` items (a flipping row marked ``fireeval-flip``)."""
    from html import escape

    from fireeval.stats.claims import format_estimate

    return "".join(
        ('<li class="fireeval-flip">' if s["flips"] else "<li>") + f"{escape(s['name'])} ({escape(s['kind'])}; "
        f"{_sensitivity_weight(s)}): "
        + (format_estimate(s) if s.get("value") is not None else escape(s.get("method") or s.get("basis") or ""))
        + f", test {escape(s['test'])}: <strong>{escape(s['label'])}</strong>" + _sensitivity_flip(s) + "</li>"
        for s in rows)


#: Where a chapter page (notebooks/NAME.html) finds the glossary's definitions.
GLOSSARY = "../book/glossary.html"


def glossary_link(text: str, anchor: str | None = None) -> str:
    """``text`` linked to its glossary definition (Sphinx's ``term-`` anchors: spaces become hyphens)."""
    from html import escape

    slug = (anchor or text).replace(" ", "-")
    return f'<a class="fireeval-term" href="{GLOSSARY}#term-{escape(slug)}">{escape(text)}</a>'


#: The claims box's own style: four columns that fit the text column, and stacked cards on a phone.
CLAIMS_STYLE = """<style>
.fireeval-claims table { table-layout: fixed; width: 100%; }
.fireeval-claims th:nth-child(1) { width: 40%; } .fireeval-claims th:nth-child(2) { width: 16%; }
.fireeval-claims th:nth-child(3) { width: 24%; } .fireeval-claims th:nth-child(4) { width: 20%; }
.fireeval-claims td { vertical-align: top; overflow-wrap: anywhere; }
.fireeval-claims details ul { padding-left: 1.1em; }
@media (max-width: 720px) {
  .fireeval-claims thead { display: none; }
  .fireeval-claims table, .fireeval-claims tbody, .fireeval-claims tr, .fireeval-claims td, .fireeval-claims caption {
    display: block; width: 100%; box-sizing: border-box; }
  .fireeval-claims tr { border: 1px solid #ccc; border-radius: 6px; margin: 0 0 0.8em; padding: 0.3em 0.5em; }
  .fireeval-claims td { border: none; padding: 0.2em 0; }
  .fireeval-claims td[data-label]::before { content: attr(data-label); display: block; font-size: 0.8em; color: #555; }
}
</style>"""


@validate_params(row=Instance(Mapping))
def verdict_html(row) -> str:
    """The verdict cell: the label in its colour, and for a stand-in what its data show (the 'here' rows).

    Parameters
    ----------
    row : dict
        A :func:`fireeval.stats.claims.summary_rows` row.

    Returns
    -------
    str

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> from fireeval.stats.claims import summary_rows
    >>> row = summary_rows([record])[0]
    >>> verdict_html(row)
    '<strong style="color:#009E73">reproduced</strong><details><summary><small>why</small></summary><small>the whole interval satisfies the test</small></details>'
    """
    from html import escape

    def word(lab):
        return f'<strong style="color:{LABEL_COLOURS[lab]}">{escape(lab)}</strong>'

    def why(text):  # the reason folds under the word: the box stays short, the reason one click away
        return f"<details><summary><small>why</small></summary><small>{escape(text)}</small></details>" if text else ""

    if row.get("here"):
        out = f"the paper's data: {word(row['label'])}<br><small>its data are not public here</small>"
        for h in row["here"]:
            out += f"<br>here ({escape(h['data'])}): {word(h['label'])}"
            if h.get("label") != "reproduced":
                out += why(h.get("basis"))
        return out
    return word(row["label"]) + why(row.get("basis"))


def _condition_text(c) -> str:
    """One condition of a family as its fold lists it: value, label and, when a row moved it, which row (e.g. the
    margin); an untested cell says only why ("untested: this cell sets the bar (0.355)"), no value."""
    from html import escape

    from fireeval.stats.claims import format_estimate

    if str(c.get("label", "")).startswith("untested"):
        return f"<em>{escape(c['label'])}</em>"
    return (f"{format_estimate(c)} <em>{escape(c['label'])}</em>"
            + (f" ({escape(c['why'])})" if c.get("why") else ""))


@validate_params(row=Instance(Mapping))
def found_html(row) -> str:
    """What was found here, with the interval method; a family's conditions are folded under its count.

    Parameters
    ----------
    row : dict
        A :func:`fireeval.stats.claims.summary_rows` row.

    Returns
    -------
    str

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> from fireeval.stats.claims import summary_rows
    >>> row = summary_rows([record])[0]
    >>> found_html(row)
    '0.050 [0.030, 0.070] (test: &gt; 0)<br><small>95% bootstrap</small>'
    """
    from html import escape

    out = escape(row["found here"])
    fam = row.get("family")
    impossible = (row.get("power") or {}).get("impossible")
    if fam and impossible and row.get("label") == "not testable here" and fam.get("conditions") and all(
            c.get("low") is not None and c["low"] == c["high"] == c["value"] for c in fam["conditions"]):
        # every condition is an exact value the test cannot weigh (two systems: τ = ±1): one line, not a list
        values = ", ".join(f"{v:+g}" for v in sorted({c["value"] for c in fam["conditions"]}))
        return escape(f"{len(fam['conditions'])} conditions, each exactly {values}: "
                      f"{impossible.split(':')[0].split(';')[0].strip()}, so none can inform the claim")
    if fam:
        items = "".join(f"<li>{escape(c['condition'])}: {_condition_text(c)}</li>" for c in fam["conditions"])
        out += f"<details><summary>each condition</summary><ul>{items}</ul></details>"
    if row.get("interval"):
        out += f"<br><small>{escape(row['interval'])}</small>"
    return out


class ClaimsTable:
    """A chapter's claims: claim | paper's number | found here (95% interval) | verdict, one row per statement.

    Each row has the anchor ``claim-<id>`` (the book's scoreboard links to it) and folds the
    claim's evidence, reading, power and sensitivity rows under it. A stand-in claim's verdict
    cell says what the paper's data allow ("not testable here" and why) and, beside it, what
    the stand-in shows. At 1024 px the box fits the text column; on a phone each row is a card.

    Parameters
    ----------
    rows : list of dict
        :func:`fireeval.stats.claims.summary_rows` rows.
    title : str
        The caption.

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> from fireeval.stats.claims import summary_rows
    >>> row = summary_rows([record])[0]
    >>> 'id="claim-fn.c1"' in ClaimsTable([row])._repr_html_()
    True
    """

    def __init__(self, rows: list[dict], title: str = "Claims and verdicts"):
        self.rows, self.title = rows, title

    def _repr_html_(self):
        from html import escape

        body = "".join(
            f"<tr id=\"claim-{escape(r['id'])}\"><td data-label=\"claim\">{escape(r.get('short') or r['claim'])}"
            f"<br><small>{escape(r.get('paper', ''))}, {escape(r.get('section', ''))}; {escape(r['data'])}</small>"
            f"{_fields_html(r)}</td>"
            f"<td data-label=\"paper's number\">{escape(r.get(PAPERS_NUMBER) or '—')}</td>"
            f"<td data-label=\"found here (95% interval)\">{found_html(r)}</td>"
            f"<td data-label=\"verdict\">{verdict_html(r)}</td></tr>"
            for r in self.rows)
        return (f'{CLAIMS_STYLE}<div class="fireeval-claims"><table class="table">'
                f"<caption>{escape(self.title)}: each verdict is computed from the number beside it</caption>"
                "<thead><tr><th>claim</th><th>paper's number</th><th>found here (95% interval)</th>"
                f"<th>{glossary_link('verdict')}</th></tr></thead>"
                f"<tbody>{body}</tbody></table></div>")

    def __repr__(self):
        return "\n".join(f"[{r['label']}{'; ' + r['basis'] if r.get('basis') else ''}] {r['claim']} -- "
                         f"{r['found here']} ({r['data']})" for r in self.rows)
