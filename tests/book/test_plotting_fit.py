"""plotting.fit_to_column: charts come out no wider than the text column, and charts that fit are left alone.

Widths are those of vl-convert's SVG, the static chart the book shows; the live chart
uses the same specification (scripts/check_book.py measures it in Chromium).
"""
from __future__ import annotations

import altair as alt
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.book import plotting

plotting.setup()


def _width(spec) -> float:
    return plotting._svg_width(plotting._static_svg_raw(spec))


def _lines(n_series: int, label_chars: int, width: int, title_chars: int = 20):
    data = pd.DataFrame({"x": [1, 2, 3] * n_series, "y": list(range(3 * n_series)),
                         "series": [f"{i}-" + "x" * label_chars for i in range(n_series) for _ in range(3)]})
    chart = alt.Chart(data).mark_line().encode(x="x:Q", y="y:Q", color="series:N", tooltip=["series"])
    return plotting.titled(chart.properties(width=width), "T" * title_chars, "a caption").to_dict()


@settings(max_examples=12, deadline=None)
@given(n_series=st.integers(1, 8), label_chars=st.integers(3, 50), width=st.integers(150, 900))
def test_a_line_chart_with_a_legend_fits(n_series, label_chars, width):
    spec = _lines(n_series, label_chars, width)
    fitted, svg = plotting.fit_to_column(spec)
    drawn = plotting._svg_width(svg)
    assert drawn <= plotting.MAX_WIDTH, fitted.get("usermeta")
    if _width(spec) <= plotting.MAX_WIDTH:
        assert fitted == spec, "a chart that fits is not changed"
    else:
        note = fitted["usermeta"]["fireeval_fit"]
        assert note["natural_width"] > plotting.MAX_WIDTH >= note["drawn_width"] == round(drawn)
    assert abs(_width(fitted) - drawn) < 1, "the SVG returned is the one of the spec returned"


def test_side_by_side_panels_and_a_long_discrete_axis_fit():
    data = pd.DataFrame({"rank": list(range(1, 61)), "n": [i % 7 for i in range(60)]})
    bars = alt.Chart(data).mark_bar().encode(x="rank:O", y="n:Q", tooltip=["n"])
    pair = alt.hconcat(bars.properties(width=400), bars.properties(width=400))
    for chart in (bars, pair):
        spec = plotting.titled(chart, "Ranks", "caption").to_dict()
        assert _width(spec) > plotting.MAX_WIDTH
        assert plotting._svg_width(plotting.fit_to_column(spec)[1]) <= plotting.MAX_WIDTH


def test_long_titles_and_axis_titles_are_broken_into_lines():
    data = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    long = "a very long axis title that says what is measured and in which unit"
    panel = alt.Chart(data).mark_point().encode(x=alt.X("a:Q", title=long), y="b:Q", tooltip=["a"]).properties(width=200)
    spec = plotting.titled(alt.hconcat(panel.properties(width=300), panel.properties(width=300)), "a title " * 12, "a caption " * 20).to_dict()
    assert isinstance(spec["title"]["text"], list) and isinstance(spec["title"]["subtitle"], list)
    fitted, svg = plotting.fit_to_column(spec)
    assert plotting._svg_width(svg) <= plotting.MAX_WIDTH
    assert isinstance(fitted["hconcat"][0]["encoding"]["x"]["title"], list)


def test_chart_bundle_fits_unless_told_not_to():
    spec = _lines(4, 40, 480)
    assert _width(spec) > plotting.MAX_WIDTH
    assert "fireeval_fit" in plotting.chart_bundle(spec)["text/html"]
    assert "fireeval_fit" not in plotting.chart_bundle(spec, fit=False)["text/html"]
