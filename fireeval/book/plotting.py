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

import hashlib
import html
import json
import re

import altair as alt

__all__ = ["setup", "titled", "knob", "chart_bundle", "PALETTE", "VEGALITE_VERSION", "CHART_CLASS"]

# Colour-blind-safe (Okabe-Ito), in the order series are usually added.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

# vl-convert's name for the Vega-Lite version altair writes ("6.4" for schema v6.4.1); the
# book's script bundle (book/_ext) is built for the same version.
VEGALITE_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
CHART_CLASS = "fireeval-chart"


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


def _static_svg(spec: dict, key: str) -> str:
    import vl_convert

    svg = vl_convert.vegalite_to_svg(spec, vl_version=VEGALITE_VERSION)
    svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg)
    # Several SVGs inline in one page share one id space: make clip-path ids unique per chart.
    return re.sub(r'(id="|url\(#)([^")]+)', lambda m: f"{m.group(1)}{key}-{m.group(2)}", svg)


def chart_bundle(spec: dict) -> dict:
    """The mime bundle of one chart: HTML with the static SVG and the live specification.

    Deterministic for a given ``spec`` (no random ids), so re-executing a notebook gives
    identical output.
    """
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), allow_nan=False)
    key = "c" + hashlib.sha1(text.encode()).hexdigest()[:10]
    # "<" only occurs inside JSON strings, where \u003c is the same character: the script
    # element can then never be closed early by the data.
    payload = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = spec.get("title", {})
    title = title.get("text", "") if isinstance(title, dict) else str(title or "")
    body = (f'<div class="{CHART_CLASS}" data-chart="{key}">'
            f'<div class="{CHART_CLASS}-static">{_static_svg(spec, key)}</div>'
            f'<div class="{CHART_CLASS}-live"></div>'
            f'<script type="application/json" class="{CHART_CLASS}-spec">{payload}</script></div>')
    return {"text/html": body, "text/plain": f"<chart: {html.unescape(str(title))}>"}


def _renderer(spec: dict, **metadata) -> dict:
    return chart_bundle(spec)


def setup(renderer: str = "fireeval") -> None:
    """Register and enable the theme; show charts as static SVG plus their live specification.

    ``renderer="svg"`` gives altair's plain static SVG instead.
    """
    alt.theme.register("fireeval", enable=True)(_theme)
    alt.renderers.register("fireeval", _renderer)
    alt.renderers.enable(renderer)
    alt.data_transformers.disable_max_rows()


def titled(chart, title: str, caption: str):
    """Give ``chart`` a title and a one-line caption that says what to look at."""
    return chart.properties(title=alt.TitleParams(text=title, subtitle=caption))


def knob(name: str, value, *, options=None, labels=None, min=None, max=None, step=None, label: str | None = None):
    """A Vega-Lite parameter bound to a control: a drop-down over ``options`` or a slider over ``[min, max]``.

    Add it to a chart with ``chart.add_params(k)`` and use it in a filter or an encoding,
    e.g. ``.transform_filter(alt.datum.K == k)``. The static SVG shows ``value``.
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
