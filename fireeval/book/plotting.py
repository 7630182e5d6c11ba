"""The book's chart theme, and charts that are interactive in the built book yet work offline.

Call :func:`setup` once per notebook and build charts with a title and a one-line
caption via :func:`titled`. Each chart is shown as one HTML block holding

* a static SVG drawn by vl-convert inside the kernel: what a reader sees with no
  JavaScript, in print, in a plain notebook viewer, and what ``nbval`` compares;
* the Vega-Lite specification (JSON, in a ``<script type="application/json">``), which
  the book's one shared script (``_static/fireeval-charts.js``: Vega, Vega-Lite and
  vega-embed from ``vl_convert.javascript_bundle``, written by ``book/_ext``) turns into
  a live chart with tooltips and parameter controls, no network needed.

A chapter adds a control with :func:`knob` (a slider or a drop-down bound to a
Vega-Lite parameter) and filters on it; the static SVG shows the knob's start value.

>>> import altair as alt, pandas as pd
>>> setup()
>>> k = knob("K", 2, options=[1, 2, 3], label="pool depth K")
>>> chart = alt.Chart(pd.DataFrame({"K": [1, 2, 3], "tau": [0.5, 0.8, 0.9]})).mark_point().encode(
...     x="K:Q", y="tau:Q", tooltip=["K", "tau"]).add_params(k).transform_filter(alt.datum.K == k)
>>> bundle = chart_bundle(titled(chart, "Agreement", "Higher is better.").to_dict())
>>> sorted(bundle)
['text/html', 'text/plain']
>>> 'class="fireeval-chart"' in bundle["text/html"] and "<svg" in bundle["text/html"]
True
"""
from __future__ import annotations

from collections.abc import Mapping
import functools
import hashlib
import html
import json
import re
from pathlib import Path

import altair as alt
from fireeval.core.validation import ANY, BOOL, COLLECTION, NUMBER, STR, Instance, Int, Options, Real, validate_params

__all__ = ["setup", "titled", "legend_below", "knob", "ordering_chart", "chart_bundle", "fit_to_column", "PALETTE", "VEGALITE_VERSION",
           "CHART_CLASS", "MAX_WIDTH"]

#: a chart's title or caption: one line, or a list of lines
_TEXT = Instance(str, list, tuple, fix="pass a str or a list of lines")

# Colour-blind-safe (Okabe-Ito), in the order series are usually added.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

# vl-convert's name for the Vega-Lite version altair writes ("6.4" for schema v6.4.1); the
# book's script bundle (book/_ext) is built for the same version.
VEGALITE_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
CHART_CLASS = "fireeval-chart"
#: Widest a chart may be drawn, in px: the book's text column is 688 px at a 1280 px viewport
#: (its narrowest: the page's table of contents shows), 755 px at 1024 and 784 px at 1400
#: (scripts/check_book.py checks 1024 and 1400); a little is left for font differences
#: between vl-convert and the reader's browser.
MAX_WIDTH = 640
#: A title or caption (subtitle) longer than this many characters is broken into lines
#: (15 px bold and 12 px type: about 600 px).
TITLE_CHARS, CAPTION_CHARS = 66, 88
#: In a chart that is too wide, an axis title longer than this is broken into lines.
AXIS_TITLE_CHARS = 30


def _theme():
    return alt.theme.ThemeConfig({
        "config": {
            "font": "DejaVu Sans, Helvetica, Arial, sans-serif",
            "view": {"continuousWidth": 480, "continuousHeight": 300, "stroke": None},
            "range": {"category": PALETTE},
            "title": {"anchor": "start", "fontSize": 15, "subtitleFontSize": 12,
                      "subtitleColor": "#555555", "offset": 10},
            "axis": {"labelFontSize": 11, "titleFontSize": 12, "grid": True, "gridColor": "#eeeeee"},
            # Long labels are shown whole (Vega's default cuts them at 160 px with an ellipsis).
            "legend": {"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 0, "titleLimit": 0},
        }
    })


def _static_svg(svg: str, key: str) -> str:
    """The drawn SVG made ready to sit inline in a page beside others."""
    svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg)
    # Several SVGs inline in one page share one id space: make clip-path ids unique per chart.
    return re.sub(r'(id="|url\(#)([^")]+)', lambda m: f"{m.group(1)}{key}-{m.group(2)}", svg)


_WIDTH = re.compile(r'<svg[^>]*?\swidth="([0-9.]+)"')
# Keys under which a view specification never holds a chart's own width.
_NOT_VIEWS = {"data", "datasets", "encoding", "transform", "params", "title", "config", "projection", "selection"}


def _svg_width(svg: str) -> float:
    found = _WIDTH.search(svg)
    return float(found.group(1)) if found else 0.0


def _scale_widths(node, factor: float) -> None:
    """Multiply every view's ``width`` (a number or ``{"step": n}``) in a spec, in place."""
    if isinstance(node, list):
        for item in node:
            _scale_widths(item, factor)
        return
    if not isinstance(node, dict):
        return
    width = node.get("width")
    if isinstance(width, (int, float)) and not isinstance(width, bool):
        node["width"] = max(40, int(width * factor))
    elif isinstance(width, dict) and isinstance(width.get("step"), (int, float)):
        node["width"] = {**width, "step": max(4, int(width["step"] * factor))}
    for key, value in node.items():
        if key not in _NOT_VIEWS and isinstance(value, (dict, list)):
            _scale_widths(value, factor)


def _wrap_axis_titles(node, chars: int) -> bool:
    """Break x and y titles longer than ``chars`` characters into lines, in place; whether any was."""
    if isinstance(node, list):
        return any([_wrap_axis_titles(x, chars) for x in node])
    if not isinstance(node, dict):
        return False
    changed = False
    for channel in ("x", "y"):
        enc = (node.get("encoding") or {}).get(channel)
        if isinstance(enc, dict) and isinstance(enc.get("title"), str) and len(enc["title"]) > chars:
            enc["title"] = _lines(enc["title"], chars)
            changed = True
    for key, value in node.items():
        if key not in _NOT_VIEWS and isinstance(value, (dict, list)):
            changed = _wrap_axis_titles(value, chars) or changed
    return changed


def _wrap_titles_to_views(node, width=None, height=None) -> None:
    """Break each x (y) title that is longer than its view is wide (high) into lines, in place.

    Vega centres an axis title on its view; a longer one spills over the neighbouring
    panel (hconcat, facet) or past the chart's frame. About 7 px per character (12 px bold).
    """
    if isinstance(node, list):
        for item in node:
            _wrap_titles_to_views(item, width, height)
        return
    if not isinstance(node, dict):
        return
    width = node["width"] if isinstance(node.get("width"), (int, float)) else width
    height = node["height"] if isinstance(node.get("height"), (int, float)) else height
    for channel, room in (("x", width), ("y", height)):
        enc = (node.get("encoding") or {}).get(channel)
        if room and isinstance(enc, dict) and isinstance(enc.get("title"), str) and len(enc["title"]) * 7 > room:
            enc["title"] = _lines(enc["title"], max(12, int(room // 7)))
    for key, value in node.items():
        if key not in _NOT_VIEWS and isinstance(value, (dict, list)):
            _wrap_titles_to_views(value, width, height)


def _has_legend_encoding(node) -> bool:
    """Whether some view encodes a field with a legend on colour, shape, size, dash or opacity."""
    channels = ("color", "fill", "stroke", "shape", "size", "strokeDash", "opacity", "fillOpacity", "strokeOpacity")
    if isinstance(node, list):
        return any(_has_legend_encoding(x) for x in node)
    if not isinstance(node, dict):
        return False
    enc = node.get("encoding") or {}
    for ch in channels:
        e = enc.get(ch)
        if isinstance(e, dict) and ("field" in e or "aggregate" in e) and e.get("legend", {}) is not None:
            return True
    return any(_has_legend_encoding(v) for k, v in node.items() if k not in _NOT_VIEWS and isinstance(v, (dict, list)))


@validate_params(spec=Instance(Mapping), max_width=Int(1), svg=[STR, None])
def fit_to_column(spec: dict, max_width: int = MAX_WIDTH, svg: str | None = None) -> tuple[dict, str]:
    """``(spec, static SVG)`` of a chart no wider than ``max_width`` px, changed as little as needed.

    The chart is drawn (vl-convert) and measured. When it is too wide,

    1. a title or caption longer than a line is broken into lines;
    2. legends that the chart does not place itself move below the plot, in as many
       columns as fit (``config.legend``: orient bottom, horizontal, ``columns``);
    3. long x and y titles are broken into lines;
    4. then, if still too wide, every view's width shrinks in proportion (down to half).

    Each step is kept only if it makes the chart narrower.

    A chart that fits is returned unchanged, so most charts look as their chapter made
    them. A fitted chart records what changed in ``usermeta.fireeval_fit`` (its natural
    and drawn widths, the legend's new place, the width factor). The SVG returned is the
    one of the spec returned.

    Parameters
    ----------
    spec : dict
        A Vega-Lite specification.
    max_width : int
        The column's width in px.
    svg : str, optional
        The chart's SVG, when already drawn.

    Returns
    -------
    (dict, str)

    >>> import pandas as pd
    >>> setup()
    >>> data = pd.DataFrame({"x": [1, 2] * 3, "y": [1, 2, 2, 3, 3, 4], "series": ["a long series name " * 3 + str(i)
    ...                      for i in (1, 2, 3) for _ in (1, 2)]})
    >>> wide = alt.Chart(data).mark_line().encode(x="x:Q", y="y:Q", color="series:N").to_dict()
    >>> fitted, svg = fit_to_column(wide)
    >>> note = fitted["usermeta"]["fireeval_fit"]
    >>> note["natural_width"] > MAX_WIDTH >= note["drawn_width"] == round(_svg_width(svg)), note["legend"]
    (True, 'below the plot, 1 column(s)')
    >>> fit_to_column(fitted)[0] == fitted   # a chart that fits is left alone
    True
    """
    import copy

    svg = svg if svg is not None else _static_svg_raw(spec)
    if _svg_width(svg) <= max_width:
        return spec, svg
    out = copy.deepcopy(spec)
    note = {"natural_width": round(_svg_width(svg)), "max_width": max_width}
    svg = _fit_title(out, svg, note)
    svg = _fit_legend(out, svg, note, max_width)
    out, svg = _fit_axis_titles(out, svg, note, max_width)
    out, svg, factor = _fit_shrink(out, svg, max_width)
    if factor < 1:
        note["width_factor"] = round(factor, 3)
        out, svg = _fit_legend_back(out, svg, note, max_width)
    out, svg = _fit_titles_to_views(out, svg, note, max_width)
    note["drawn_width"] = round(_svg_width(svg))
    # What was changed, kept in the chart's own metadata (Vega-Lite ignores usermeta).
    out.setdefault("usermeta", {})["fireeval_fit"] = note
    return out, svg


def _fit_title(out: dict, svg: str, note: dict) -> str:
    """:func:`fit_to_column`'s step 1, in place: a long title or caption made elsewhere broken into lines."""
    title = out.get("title")
    if not isinstance(title, (str, dict)):
        return svg
    title = {"text": title} if isinstance(title, str) else dict(title)
    for key, chars in (("text", TITLE_CHARS), ("subtitle", CAPTION_CHARS)):
        if isinstance(title.get(key), str):
            title[key] = _lines(title[key], chars)
    if title != (out["title"] if isinstance(out["title"], dict) else {"text": out["title"]}):
        out["title"] = title
        svg = _static_svg_raw(out)
        note["title"] = "broken into lines"
    return svg


def _fit_legend(out: dict, svg: str, note: dict, max_width: int) -> str:
    """Step 2, in place: legends below the plot, in the most columns that fit (fewest rows)."""
    if not _has_legend_encoding(out):
        return svg
    legend = out.setdefault("config", {}).setdefault("legend", {})
    legend.update({"orient": "bottom", "direction": "horizontal", "titleOrient": "top"})
    # The most columns that fit (fewest rows); width falls as columns do.
    before = _svg_width(svg)
    for columns in (8, 6, 5, 4, 3, 2, 1):
        legend["columns"] = columns
        trial = _static_svg_raw(out)
        if _svg_width(trial) <= max_width or (columns == 8 and _svg_width(trial) == before):
            break  # fits; or the chart places its legends itself (the theme changes nothing)
    if _svg_width(trial) < before:
        note["legend"] = f"below the plot, {columns} column(s)"
    return trial


def _fit_axis_titles(out: dict, svg: str, note: dict, max_width: int):
    """Step 3: long x and y titles broken into lines, kept when the chart is still too wide and it helps."""
    import copy

    if _svg_width(svg) <= max_width:
        return out, svg
    trial = copy.deepcopy(out)
    if _wrap_axis_titles(trial, AXIS_TITLE_CHARS):
        trial_svg = _static_svg_raw(trial)
        if _svg_width(trial_svg) < _svg_width(svg):
            note["axis_titles"] = "broken into lines"
            return trial, trial_svg
    return out, svg


def _fit_shrink(out: dict, svg: str, max_width: int):
    """Step 4: every view's width shrunk in proportion (down to half), while that makes the chart narrower;
    returns ``(spec, svg, factor)``."""
    import copy

    factor = 1.0
    for _ in range(4):
        width = _svg_width(svg)
        if width <= max_width or factor <= 0.5:
            break
        step = max(0.5 / factor, max_width / width * 0.97)
        trial = copy.deepcopy(out)
        _scale_widths(trial, step)
        view = trial.setdefault("config", {}).setdefault("view", {})
        view["continuousWidth"] = max(40, int(view.get("continuousWidth", 300) * step))
        discrete = view.get("discreteWidth", {"step": 20})  # Vega-Lite's default band: 20 px per category
        if isinstance(discrete, dict) and isinstance(discrete.get("step"), (int, float)):
            view["discreteWidth"] = {**discrete, "step": max(4, int(discrete["step"] * step))}
        trial_svg = _static_svg_raw(trial)
        if _svg_width(trial_svg) >= width - 1:
            break  # narrower views do not make it narrower (a title, or labels, set the width): keep them
        out, svg, factor = trial, trial_svg, factor * step
    return out, svg, factor


def _fit_legend_back(out: dict, svg: str, note: dict, max_width: int):
    """After shrinking: narrower views leave room, so the moved legend goes back in as few rows as now fit."""
    import copy

    legend = out.get("config", {}).get("legend", {})
    if not (note.get("legend") and legend.get("columns", 8) < 8 and _svg_width(svg) <= max_width):
        return out, svg
    for columns in (8, 6, 5, 4, 3, 2):
        if columns <= legend["columns"]:
            break
        trial = copy.deepcopy(out)
        trial["config"]["legend"]["columns"] = columns
        trial_svg = _static_svg_raw(trial)
        if _svg_width(trial_svg) <= max_width:
            note["legend"] = f"below the plot, {columns} column(s)"
            return trial, trial_svg
    return out, svg


def _fit_titles_to_views(out: dict, svg: str, note: dict, max_width: int):
    """Last: titles wrapped to their views' widths, kept only while the chart still fits (two lines of a y
    title take more width)."""
    import copy

    trial = copy.deepcopy(out)
    _wrap_titles_to_views(trial)
    if trial != out:
        trial_svg = _static_svg_raw(trial)
        if _svg_width(trial_svg) <= max(max_width, _svg_width(svg)):
            note["axis_titles"] = "broken into lines"
            return trial, trial_svg
    return out, svg


def _static_svg_raw(spec: dict) -> str:
    import vl_convert

    return vl_convert.vegalite_to_svg(spec, vl_version=VEGALITE_VERSION)


@validate_params(spec=Instance(Mapping), fit=BOOL)
def chart_bundle(spec: dict, fit: bool = True) -> dict:
    """The mime bundle of one chart: HTML with the static SVG and the live specification.

    The chart is first fitted to the book's text column (:func:`fit_to_column`), unless
    ``fit=False`` (the page checker's tests draw charts that overflow on purpose).
    Deterministic for a given ``spec`` (no random ids), so re-executing a notebook gives
    identical output.

    Parameters
    ----------
    spec : dict
        A Vega-Lite specification.
    fit : bool
        Fit it to the column first.

    Returns
    -------
    dict
        ``{"text/html", "text/plain"}``.

    Examples
    --------
    >>> import pandas as pd
    >>> chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_point().encode(x="x:Q", y="y:Q")
    >>> bundle = chart_bundle(titled(chart, "Two points", "look at them").to_dict())
    >>> bundle["text/plain"], bundle["text/html"].startswith('<div class="fireeval-chart"')
    ('<chart: Two points>', True)
    """
    spec, raw_svg = _fitted_once(spec) if fit else (spec, _static_svg_raw(spec))
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), allow_nan=False)
    key = "c" + hashlib.sha1(text.encode()).hexdigest()[:10]
    # "<" only occurs inside JSON strings, where \u003c is the same character: the script
    # element can then never be closed early by the data.
    payload = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = spec.get("title", {})
    title = title.get("text", "") if isinstance(title, dict) else title or ""
    title = " ".join(title) if isinstance(title, list) else str(title)  # a wrapped title is a list of lines
    body = (f'<div class="{CHART_CLASS}" data-chart="{key}">'
            f'<div class="{CHART_CLASS}-static">{_static_svg(raw_svg, key)}</div>'
            f'<div class="{CHART_CLASS}-live"></div>'
            f'<script type="application/json" class="{CHART_CLASS}-spec">{payload}</script></div>')
    return {"text/html": body, "text/plain": f"<chart: {html.unescape(str(title))}>"}


#: Bump when what a kept chart holds changes.
CHART_CACHE_FORMAT = 1


@functools.lru_cache(maxsize=1)
def _drawing_version() -> str:
    """What a fitted chart depends on besides its spec: this module's code (the fitting steps), vl-convert's
    version (the drawing and its text metrics), Vega-Lite's and the column's width."""
    import vl_convert

    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return f"{CHART_CACHE_FORMAT}|{code}|vl-convert {vl_convert.__version__}|{VEGALITE_VERSION}|{MAX_WIDTH}"


def _fitted_once(spec: dict) -> tuple[dict, str]:
    """:func:`fit_to_column` of ``spec``, drawn once per machine (issue 38).

    Fitting a chart that is too wide draws it up to a dozen times with vl-convert (about 0.2 s a drawing, and
    1.3 s to start vl-convert in a process), and a chapter's charts come out the same whenever its data and
    parameters do: a re-execution, a test's second run, an exercise that changes another section. The
    fitted spec and its SVG are kept in the user's cache folder (:mod:`fireeval.book._kept`, kind
    ``charts``) under a digest of the spec and :func:`_drawing_version`; ``FIREEVAL_NO_CACHE=1`` draws
    every time."""
    from fireeval.book import _kept

    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    name = hashlib.sha256(f"{_drawing_version()}\0{text}".encode()).hexdigest()[:40] + ".json"
    where = _kept.folder("charts")
    kept = _kept.read(where, name)
    if kept is not None:
        try:
            entry = json.loads(kept)
            return entry["spec"], entry["svg"]
        except (ValueError, KeyError, TypeError):  # a damaged entry: drawn again
            pass
    fitted, svg = fit_to_column(spec)
    _kept.keep(where, name, json.dumps({"spec": fitted, "svg": svg}))
    return fitted, svg


def _renderer(spec: dict, **metadata) -> dict:
    return chart_bundle(spec)


@validate_params(renderer=Options("fireeval", "svg"))
def setup(renderer: str = "fireeval") -> None:
    """Register and enable the theme; show charts as static SVG plus their live specification.

    ``renderer="svg"`` gives altair's plain static SVG instead.

    Parameters
    ----------
    renderer : {"fireeval", "svg"}
        How charts are shown.

    Returns
    -------
    None

    Examples
    --------
    >>> setup()
    >>> alt.renderers.active, alt.theme.active
    ('fireeval', 'fireeval')
    """
    alt.theme.register("fireeval", enable=True)(_theme)
    alt.renderers.register("fireeval", _renderer)
    alt.renderers.enable(renderer)
    alt.data_transformers.disable_max_rows()


@validate_params(columns=Int(1))
def legend_below(columns: int = 8) -> alt.Legend:
    """A legend below the plot, laid out in rows of up to ``columns`` entries.

    This is what :func:`fit_to_column` does to a chart whose legend on the right makes it too wide; a chart
    made so from the start fits at once and is drawn once instead of up to a dozen times (issue 38).

    Parameters
    ----------
    columns : int
        Entries per row.

    Returns
    -------
    altair.Legend

    Examples
    --------
    >>> legend_below(2).to_dict()["orient"]
    'bottom'
    """
    return alt.Legend(orient="bottom", direction="horizontal", titleOrient="top", columns=columns)


@validate_params(chart=ANY, title=_TEXT, caption=_TEXT)
def titled(chart, title: str, caption: str):
    """Give ``chart`` a title and a one-line caption that says what to look at.

    A title longer than :data:`TITLE_CHARS` characters, or a caption longer than
    :data:`CAPTION_CHARS`, is broken into lines (between words), so that neither makes
    the chart wider than the text column.

    Parameters
    ----------
    chart : altair.Chart
        The chart.
    title, caption : str
        Its title and caption.

    Returns
    -------
    altair.Chart

    >>> titled(alt.Chart().mark_point(), "T", "word " * 30).to_dict()["title"]["subtitle"]
    ['word word word ... word', 'word word ... word']
    """
    return chart.properties(title=alt.TitleParams(text=_lines(title, TITLE_CHARS),
                                                  subtitle=_lines(caption, CAPTION_CHARS)))


def _lines(text: str, width: int):
    """``text`` broken between words into lines of at most ``width`` characters (a list), or itself if one line."""
    import textwrap

    if not isinstance(text, str):  # already broken into lines by the chart's author
        return text
    wrapped = textwrap.wrap(text, width, break_long_words=False) or [text]
    return wrapped if len(wrapped) > 1 else text


@validate_params(name=STR, value=ANY, options=[COLLECTION, None], labels=[COLLECTION, None], min=[NUMBER, None],
                 max=[NUMBER, None], step=[Real(0, closed="neither"), None], label=[STR, None])
def knob(name: str, value, *, options=None, labels=None, min=None, max=None, step=None, label: str | None = None):
    """A Vega-Lite parameter bound to a control: a drop-down over ``options`` or a slider over ``[min, max]``.

    Add it to a chart with ``chart.add_params(k)`` and use it in a filter or an encoding,
    e.g. ``.transform_filter(alt.datum.K == k)``. The static SVG shows ``value``.

    Parameters
    ----------
    name : str
        The parameter's name in expressions.
    value : object
        Its start value.
    options, labels : sequence, optional
        A drop-down's values and their labels.
    min, max, step : float, optional
        A slider's range and step.
    label : str, optional
        The control's label (default ``name``).

    Returns
    -------
    altair.Parameter

    Examples
    --------
    >>> k = knob("K", 10, options=[1, 5, 10])
    >>> k.name, k.param.value
    ('K', 10)
    >>> knob("K", 3, options=[1, 5])
    Traceback (most recent call last):
    ...
    ValueError: knob K: start value 3 is not one of [1, 5]
    """
    name_shown = label or name
    if options is not None:
        options = list(options)
        if value not in options:
            raise ValueError(f"knob {name}: start value {value!r} is not one of {options}")
        extra = {"labels": [str(x) for x in labels]} if labels is not None else {}
        bind = alt.binding_select(options=options, name=f"{name_shown} ", **extra)
    elif min is not None and max is not None:
        if not min <= value <= max:
            raise ValueError(f"knob {name}: start value {value!r} is outside [{min}, {max}]")
        bind = alt.binding_range(min=min, max=max, step=step, name=f"{name_shown} ")
    else:
        raise ValueError(f"knob {name}: give options=[...] for a drop-down or min= and max= for a slider")
    return alt.param(name=name, value=value, bind=bind)


@validate_params(comparison=ANY, adjust=[Options("holm", "tukey", "none", "t", "t-holm"), None], title=[STR, None],
                 caption=[STR, None])
def ordering_chart(comparison, adjust: str | None = None, *, title: str | None = None, caption: str | None = None):
    """The ordering of a :class:`fireeval.stats.significance.Comparison` with its letters (compact letter display).

    One row per system, best on top: its mean (a point), the span of means of the systems
    it is not significantly different from (a bar: its significance neighbourhood), its
    group label, and in the tooltip the systems it beats. Points are coloured by whether
    the system is in the best system's group. ``adjust`` picks the test (default: the
    comparison's own).

    Parameters
    ----------
    comparison : fireeval.stats.significance.Comparison
        The comparison.
    adjust : str, optional
        The test.
    title, caption : str, optional
        The chart's title and caption.

    Returns
    -------
    altair.LayerChart

    >>> import numpy as np
    >>> from fireeval.stats.significance import compare
    >>> c = compare(np.array([[0.9, 0.8, 0.85, 0.7], [0.3, 0.2, 0.25, 0.3], [0.35, 0.2, 0.3, 0.25]]), ["A", "B", "C"],
    ...             n_bootstrap=0, adjust="none")
    >>> spec = ordering_chart(c).to_dict()
    >>> len(spec["layer"]), spec["layer"][0]["encoding"]["y"]["field"]
    (3, 'system')
    """
    import numpy as np
    import pandas as pd

    rows = comparison.ranking(adjust)
    p = comparison.pvalue_matrix(adjust)
    means = comparison.means
    index = {name: i for i, name in enumerate(comparison.names)}
    best = rows[0]["group_ids"]
    records = []
    for r in rows:
        i = index[r["system"]]
        same = np.flatnonzero(p[i] >= comparison.alpha)  # includes i itself (p = 1)
        records.append({"rank": r["rank"], "system": r["system"], "mean": r["mean"], "group": r["groups"],
                        "low": float(means[same].min()), "high": float(means[same].max()),
                        "in top group": bool(set(r["group_ids"]) & set(best)),
                        "beats": len(r["beats"]), "beaten systems": ", ".join(r["beats"][:12])
                        + (" ..." if len(r["beats"]) > 12 else "")})
    frame = pd.DataFrame(records)
    order = list(frame["system"])
    y = alt.Y("system:N", sort=order, title=None)
    measure = comparison.measure
    tooltip = ["rank", "system", alt.Tooltip("mean:Q", format=".4f"), "group", "beats", "beaten systems"]
    base = alt.Chart(frame).properties(height=max(120, 14 * len(frame)))
    span = base.mark_rule(color="#bbbbbb", strokeWidth=6).encode(
        y=y, x=alt.X("low:Q", title=f"mean {measure} over {len(comparison.topics)} topics"), x2="high:Q",
        tooltip=tooltip)
    dots = base.mark_point(filled=True, size=60).encode(
        y=y, x="mean:Q", tooltip=tooltip,
        color=alt.Color("in top group:N", title="not significantly below the best",
                        scale=alt.Scale(domain=[True, False], range=[PALETTE[0], PALETTE[1]])))
    labels = base.mark_text(align="left", dx=8, fontSize=10).encode(y=y, x="high:Q", text="group:N")
    chart = alt.layer(span, dots, labels)
    if title is not None:
        chart = titled(chart, title, caption or "Grey bar: the means of the systems not significantly different "
                                                "from this one; label: its letters (no letter in common: a "
                                                "significant difference).")
    return chart
