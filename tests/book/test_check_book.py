"""scripts/check_book.py catches what a reader would see broken, on a small site built here.

One page is good (live charts with tooltips, a wide table in its own scroll box); one
page carries every defect the book has had: a blank chart, a truncated legend, two
legend entries with the same glyph, a chart without tooltips, a clipped table, a table
wider than the text column, a literal ``*gain*``, an unresolved glue role, a request
that leaves the machine, a legend outside the text column, a chart wider than it and a
label cut by the chart's frame. Needs Debian's chromium (scripts/setup.sh installs it).
"""
import importlib.util
import shutil
import sys
from pathlib import Path

import altair as alt
import pandas as pd
import pytest

from fireeval.book import plotting

ROOT = Path(__file__).resolve().parents[2]


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


check_book = _module(ROOT / "scripts" / "check_book.py")
offline_book = _module(ROOT / "book" / "_ext" / "offline_book.py")

pytestmark = pytest.mark.skipif(not Path(check_book.CHROMIUM).is_file(), reason="Debian chromium not installed")

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="{css}">
<script>const _ = "Sphinx's doctools.js declares this global";</script><script src="{js}"></script>
<style>article.bd-article {{ width: 700px; }}</style></head>
<body><main><article class="bd-article"><h1>{title}</h1>{body}</article></main></body></html>"""


def _chart(chart, fit: bool = True) -> str:
    return plotting.chart_bundle(chart.to_dict(), fit=fit)["text/html"]


def _wide_table() -> str:
    cells = "".join(f"<td>column number {i} with a long value</td>" for i in range(14))
    return f"<table><tr><th>wide</th>{cells}</tr></table>"


@pytest.fixture(scope="session")
def site(tmp_path_factory, once_per_session):
    """The small site, built once per test session and shared by both xdist workers (``once_per_session``; the
    build takes 15-30 s: the chart script's bundle, every chart fitted): tests read it and never change it (copy
    it first)."""
    from conftest import session_folder

    root = session_folder(tmp_path_factory) / "check-book-site"
    return Path(once_per_session("check-book-site", lambda: str(_build_site(root))))


def _build_site(root: Path) -> Path:
    import vl_convert

    if root.exists():  # a build cut short (it raised): start again
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / "_static").mkdir()
    (root / "_static" / "charts.js").write_text(
        offline_book.charts_script(vl_convert.javascript_bundle(offline_book.CHARTS_SNIPPET,
                                                                vl_version=plotting.VEGALITE_VERSION)))
    (root / "_static" / "charts.css").write_text(offline_book.CHARTS_STYLE)
    plotting.setup()
    data = pd.DataFrame({"K": [1, 2, 3, 1, 2, 3], "tau": [0.5, 0.8, 0.9, 0.4, 0.7, 0.95],
                         "measure": ["MAP"] * 3 + ["a measure whose name is far too long for the legend"] * 3})
    line = alt.Chart(data).mark_line(point=True).encode(x=alt.X("K:Q", title="pool depth K"), y="tau:Q",
                                                        color="measure:N", tooltip=["K", "tau", "measure"])
    k = plotting.knob("K", 2, options=[1, 2, 3])
    good = _chart(plotting.titled(line.encode(color=alt.Color("measure:N", legend=alt.Legend(orient="bottom"))),
                                  "Good", "Fine."))
    knobbed = _chart(alt.Chart(data).mark_bar().encode(x="measure:N", y="tau:Q", tooltip=["tau"])
                     .encode(x=alt.X("measure:N", axis=alt.Axis(labelLimit=0)))
                     .add_params(k).transform_filter(alt.datum.K == k))
    pages = {
        "good.html": good + knobbed + f'<div style="overflow-x: auto">{_wide_table()}</div><p>Plain <em>gain</em>.</p>',
        "blank.html": _chart(alt.Chart(pd.DataFrame({"x": [], "y": []})).mark_point().encode(
            x="x:Q", y="y:Q", tooltip=["x"])),
        "truncated.html": _chart(line.encode(color=alt.Color("measure:N", legend=alt.Legend(labelLimit=60)))),
        "same_glyph.html": _chart(line.encode(color=alt.Color("measure:N", scale=alt.Scale(range=["#000", "#000"])))),
        "no_tooltip.html": _chart(alt.Chart(data).mark_point().encode(x="K:Q", y="tau:Q")),
        "clipped.html": f'<div style="overflow: hidden; width: 700px">{_wide_table()}</div>',
        "wide.html": _wide_table(),
        "literal.html": "<p>The *gain* is linear; see {glue:text} here.</p>",
        "network.html": '<img src="http://example.invalid/logo.png" alt="">',
        # Fit: a legend on the right past the 700 px column; a chart wider than the column; a
        # label cut by the chart's own frame (no autosize: the y labels fall outside the SVG).
        "legend_outside.html": _chart(line.encode(color=alt.Color("measure:N", legend=alt.Legend(orient="right"))),
                                      fit=False),
        "wide_chart.html": _chart(line.properties(width=900), fit=False),
        # The same two charts as the book draws them (plotting.fit_to_column): they fit.
        "fitted.html": _chart(line.encode(color=alt.Color("measure:N", legend=alt.Legend(orient="right"))))
                       + _chart(line.properties(width=900)),
        "clipped_label.html": _chart(alt.Chart(data).mark_bar().encode(
            y=alt.Y("measure:N", title=None, axis=alt.Axis(labelLimit=0)), x="tau:Q", tooltip=["tau"]).properties(
            width=300, autosize={"type": "none"}, padding=0)),
    }
    # Answer-first pages (issue 33): a claims box that fits and stacks as cards; a wide table in its own
    # scroll box (fine on an older page, overflow here); a chapter with a table before its first chart and
    # too many words unfolded (the folded ones do not count).
    from fireeval.book import report
    from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test, summary_rows

    record = Claim("c", paper="P", section="§1", quote="a claim about a long thing " * 4, quantity="τ",
                   test=Test(">", 0.9), data="stand-in: TREC-8", standing="stand-in",
                   reading=Reading("as written", "τ > 0.9", "paper's definition")).evaluate(
        Estimate(0.95, 0.91, 0.97, "b"), evidence=Evidence.none("-"), power=Power.no_control("-"))
    box = report.ClaimsTable(summary_rows([record]))._repr_html_()
    words = " ".join(["word"] * 5200)
    pages.update({
        "notebooks/cards.html": good + box + "<details><summary>more</summary><p>" + words + "</p></details>",
        "notebooks/scrolled.html": good + f'<div style="overflow-x: auto">{_wide_table()}</div>',
        "notebooks/long.html": "<table><tr><td>first</td></tr></table>" + good + f"<p>{words}</p>",
    })
    (root / "notebooks").mkdir()
    for suffix in ("ipynb", "json"):  # a chapter page links its executed notebook and headline
        (root / "notebooks" / f"x.{suffix}").write_text("{}")
    downloads = '<div class="fireeval-downloads"><a href="x.ipynb">notebook</a> <a href="x.json">headline</a></div>'
    pages.update({name: body + downloads for name, body in pages.items() if name.startswith("notebooks/")})
    for name, body in pages.items():
        up = "../" * name.count("/")
        page = PAGE if not up else PAGE.replace("width: 700px", "max-width: 700px")  # a phone narrows the column
        (root / name).write_text(page.format(css=f"{up}_static/charts.css", js=f"{up}_static/charts.js", title=name,
                                             body=body))
    return root


@pytest.fixture(scope="session")
def found(request, once_per_session):
    """The problems check_book finds on the small site, by page: the site is checked in the browser once per test
    session and the result shared by both xdist workers (``once_per_session``, tests/conftest.py; checking it
    took 80 s under load, and a module fixture did it once in each worker)."""
    def check() -> dict:
        site = request.getfixturevalue("site")  # built only in the worker that checks it
        problems = check_book.check(site, expected={"good.html": 2, "notebooks/cards.html": 1,
                                                    "notebooks/scrolled.html": 1, "notebooks/long.html": 1},
                                    strict_pages={"notebooks/cards.html", "notebooks/scrolled.html",
                                                  "notebooks/long.html"})
        by_page = {}
        for problem in problems:
            page, _, what = problem.partition(": ")
            by_page.setdefault(page, []).append(what)
        return by_page

    return once_per_session("check_book_found", check)


def test_a_good_page_passes(found):
    assert "good.html" not in found, found.get("good.html")


def test_an_answer_first_page_with_a_claims_box_passes(found):
    """The claims box fits the column at 1024 px and stacks as cards at 400 px; folded words do not count."""
    assert "notebooks/cards.html" not in found, found.get("notebooks/cards.html")


@pytest.mark.parametrize("page, expected", [
    ("notebooks/scrolled.html", "at 1024 px it is"),
    ("notebooks/long.html", "words shown without opening a fold"),
    ("notebooks/long.html", 'a table ("first") comes before the first chart'),
])
def test_answer_first_rules_are_checked(found, page, expected):
    assert any(expected in p for p in found.get(page, [])), found.get(page)


def test_charts_fitted_by_the_theme_pass(found):
    """The book's renderer moves a legend below the plot or narrows the plot until the chart fits."""
    assert "fitted.html" not in found, found.get("fitted.html")


@pytest.mark.parametrize("page, expected", [
    ("blank.html", "blank chart"),
    ("truncated.html", "truncated text"),
    ("same_glyph.html", "have the same glyph"),
    ("no_tooltip.html", "no tooltip"),
    ("clipped.html", "is clipped"),
    ("wide.html", "wider than the"),
    ("literal.html", 'literal Markdown emphasis in the text: "*gain*"'),
    ("literal.html", "unresolved glue role"),
    ("network.html", "request leaves the machine"),
    ("legend_outside.html", "at 1400 px legend 1 ends"),
    ("legend_outside.html", "at 1024 px legend 1 ends"),
    ("wide_chart.html", "at 1024 px the chart is"),
    ("clipped_label.html", 'label "MAP" is clipped by the chart\'s frame'),
])
def test_each_defect_is_caught(found, page, expected):
    assert any(expected in p for p in found.get(page, [])), found.get(page)


def test_missing_charts_and_downloads_are_caught(site, tmp_path):
    copy = shutil.copytree(site, tmp_path / "site")  # the shared site stays as the other tests check it
    shutil.copyfile(copy / "literal.html", copy / "notebooks" / "x.html")
    problems = check_book.check(copy, pages=["notebooks/x.html"], expected={"notebooks/x.html": 1})
    assert any("shows 0 chart(s), its notebook produced 1" in p for p in problems), problems
    assert any("no download of its executed notebook" in p for p in problems), problems


def test_glossary_links_must_land_on_a_definition(tmp_path):
    """A claims box or {term} link to a term the glossary lacks is reported, naming page and anchor."""
    from check_book import check_glossary_links

    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book" / "glossary.html").write_text('<dt id="term-power">power</dt>')
    (tmp_path / "notebooks" / "a.html").write_text('<a href="../book/glossary.html#term-power">power</a>'
                                                   '<a href="../book/glossary.html#term-nowhere">x</a>')
    assert check_glossary_links(tmp_path) == ["notebooks/a.html: glossary link #term-nowhere finds no definition"]
