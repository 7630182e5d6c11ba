"""A chart fitted to the text column is drawn once per machine (plotting._fitted_once, issue 38): the same
bundle from the cache, drawn again when the spec, the fitting code or vl-convert change, and never kept with
FIREEVAL_NO_CACHE or inside a data folder."""
from __future__ import annotations

import os

import altair as alt
import pandas as pd
import pytest

from fireeval.book import plotting

plotting.setup()


def _wide_spec(label: str = "a long series name "):
    data = pd.DataFrame({"x": [1, 2] * 6, "y": range(12), "series": [label * 3 + str(i) for i in range(6) for _ in (1, 2)]})
    chart = alt.Chart(data).mark_line().encode(x="x:Q", y="y:Q", color="series:N")
    return plotting.titled(chart.properties(width=700), "A chart too wide for the column", "the legend moves").to_dict()


@pytest.fixture
def drawings(monkeypatch, tmp_path):
    """The number of vl-convert drawings made, with an empty cache folder."""
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    made = []
    real = plotting._static_svg_raw
    monkeypatch.setattr(plotting, "_static_svg_raw", lambda spec: made.append(1) or real(spec))
    return made


def test_a_fitted_chart_is_drawn_once_and_its_bundle_is_the_same(drawings, tmp_path):
    spec = _wide_spec()
    first = plotting.chart_bundle(spec)
    assert len(drawings) > 2  # too wide: fitting drew it several times
    assert len(list((tmp_path / "cache" / "charts").glob("*.json"))) == 1
    drawn = len(drawings)
    again = plotting.chart_bundle(_wide_spec())
    assert len(drawings) == drawn and again == first  # from the cache, to the byte
    other = plotting.chart_bundle(_wide_spec("another long name "))
    assert len(drawings) > drawn and other != first  # another spec: drawn


def test_a_changed_drawing_version_or_a_damaged_entry_draws_again(drawings, tmp_path, monkeypatch):
    first = plotting.chart_bundle(_wide_spec())
    (entry,) = (tmp_path / "cache" / "charts").glob("*.json")
    entry.write_text("{not json")
    drawn = len(drawings)
    assert plotting.chart_bundle(_wide_spec()) == first and len(drawings) > drawn
    monkeypatch.setattr(plotting, "_drawing_version", lambda: "another vl-convert")
    drawn = len(drawings)
    assert plotting.chart_bundle(_wide_spec()) == first and len(drawings) > drawn
    assert len(list((tmp_path / "cache" / "charts").glob("*.json"))) == 2


def test_no_cache_and_a_cache_inside_a_data_folder_keep_nothing(drawings, tmp_path, monkeypatch):
    monkeypatch.setenv("FIREEVAL_NO_CACHE", "1")
    plotting.chart_bundle(_wide_spec())
    drawn = len(drawings)
    plotting.chart_bundle(_wide_spec())
    assert len(drawings) == 2 * drawn and not (tmp_path / "cache").exists()
    monkeypatch.delenv("FIREEVAL_NO_CACHE")
    data = tmp_path / "data"
    monkeypatch.setenv("FIREEVAL_DATA", str(data))
    monkeypatch.setenv("FIREEVAL_CACHE", str(data / "cache"))
    plotting.chart_bundle(_wide_spec())
    assert not (data / "cache").exists()


def test_a_kind_keeps_at_most_its_limit_the_newest(tmp_path):
    from fireeval.book import _kept

    for i in range(7):
        _kept.keep(tmp_path, f"e{i}.json", str(i), limit=5)
        os.utime(tmp_path / f"e{i}.json", ns=(i * 10**9, i * 10**9))  # written in this order
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"e{i}.json" for i in range(2, 7)]
    assert _kept.read(tmp_path, "e6.json") == "6" and _kept.read(tmp_path, "e0.json") is None
