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

__all__ = ["setup", "titled", "knob", "ordering_chart", "chart_bundle", "PALETTE", "VEGALITE_VERSION", "CHART_CLASS"]

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


def ordering_chart(comparison, adjust: str | None = None, *, title: str | None = None, caption: str | None = None):
    """The ordering of a :class:`fireeval.stats.compare.Comparison` with its significance groups.

    One row per system, best on top: its mean (a point), the span of means of the systems
    it is not significantly different from (a bar: its significance neighbourhood), its
    group label, and in the tooltip the systems it beats. Points are coloured by whether
    the system is in the best system's group. ``adjust`` picks the test (default: the
    comparison's own).

    >>> import numpy as np
    >>> from fireeval.stats.compare import compare
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
                                                "from this one; label: its significance groups.")
    return chart
