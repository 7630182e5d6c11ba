"""The book's chart theme and offline rendering.

Charts are altair specifications rendered to SVG by vl-convert inside the kernel,
so the built book shows them with no JavaScript and no network. Call :func:`setup`
once per notebook; build charts with a title and a one-line caption via
:func:`titled`.
"""
from __future__ import annotations

import altair as alt

__all__ = ["setup", "titled", "PALETTE"]

# Colour-blind-safe (Okabe-Ito), in the order series are usually added.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]


def _theme():
    return alt.theme.ThemeConfig({
        "config": {
            "font": "DejaVu Sans, Helvetica, Arial, sans-serif",
            "view": {"continuousWidth": 480, "continuousHeight": 300, "stroke": None},
            "range": {"category": PALETTE},
            "title": {"anchor": "start", "fontSize": 15, "subtitleFontSize": 12,
                      "subtitleColor": "#555555", "offset": 10},
            "axis": {"labelFontSize": 11, "titleFontSize": 12, "grid": True, "gridColor": "#eeeeee"},
            "legend": {"labelFontSize": 11, "titleFontSize": 12},
        }
    })


def setup(renderer: str = "svg") -> None:
    """Register and enable the theme; render charts as static SVG (offline) by default."""
    alt.theme.register("fireeval", enable=True)(_theme)
    alt.renderers.enable(renderer)
    alt.data_transformers.disable_max_rows()


def titled(chart, title: str, caption: str):
    """Give ``chart`` a title and a one-line caption that says what to look at."""
    return chart.properties(title=alt.TitleParams(text=title, subtitle=caption))
