"""Open the built book in headless Chromium, offline, and fail on anything a reader would see broken.

    python scripts/check_book.py _build/html [PAGE ...]

PAGE (e.g. ``notebooks/pool_depth.html``) limits the browser checks to those pages, for a quick
look at one chapter; without it every page is checked, with the scoreboard and glossary links.

Every page is served from 127.0.0.1 and loaded in Debian's chromium (playwright); a
request that leaves the machine is blocked and fails the check. Two browsers, each in a process
of its own, check every other page (``BROWSERS``). On every page:

* no console error, page error or failed request;
* every chart (a ``fireeval-chart`` block from ``fireeval.book.plotting``) drew live with
  the book's own script: it has marks with a visible size (a blank chart fails), every
  axis has ticks or labels, no axis or legend text is cut with an ellipsis (truncated
  legends), no two entries of a legend share one glyph (same shape, fill, stroke and
  dash: indistinguishable series), the chart declares tooltips and hovering its marks
  shows one, a declared control (knob) is shown; its static SVG fallback (print, no
  JavaScript) has marks too;
* every chart, and each of its legends, lies inside the text column (the article's
  content box) at 1024 px and at 1400 px viewport width, and no label is cut by the
  chart's own frame (``FIT_CHECK``: a chart that merely scrolls inside its box counts
  as overflowing: a reader sees it cut);
* no table is wider than the text column at 1024 and 1400 px, folded tables opened (a table
  that scrolls inside its own box counts as overflowing; one cut off by ``overflow: hidden``
  is reported as clipped); at 400 px every claims box reads as stacked cards;
* a chapter page shows at most 5,000 words without opening a fold, and no table before its
  first chart;
* no unrendered Markdown in the text: ``*word*``, ``**word**``, a literal backtick or
  an unresolved ``{glue...}`` role outside code;
* the introduction's scoreboard has a row for every chapter of the table of contents, and
  each row's link lands on that claim's row (``id="claim-<id>"``) in the chapter's box;
  every link into the glossary lands on a definition;
* a page built from a notebook shows as many charts as its executed notebook produced
  (``_build/jupyter_execute``), and a chapter page (``notebooks/*``) links its executed
  notebook and headline JSON, both downloadable.
"""
from __future__ import annotations

import functools
import http.server
import json
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
CHART_MIMES = ("image/svg+xml", "image/png")
CHART_MARKER = 'class="fireeval-chart"'
# Pages that must show at least one chart whatever the notebooks say.
MUST_HAVE_CHARTS = ["book/intro.html", "notebooks/metrics.html"]
CHART_TIMEOUT_MS = 20_000
# Viewport widths at which every chart and its legend must fit the text column (the main
# check runs at the first; the fit check at each). At 1280 px the column is narrower still
# (the page's table of contents appears): see plotting.MAX_WIDTH.
VIEWPORT = 1280
FIT_WIDTHS = (1024, 1400)
# Pages checked at once, each in a browser of its own: about half of a page's check is waiting (chart drawing,
# layout settling after each viewport change), so two browsers on two cores take a little over half the time.
BROWSERS = 2

# Runs in the page at a given viewport width; returns where a chart, its legend or a label
# leaves the text column (the article's content box), or is cut by the chart's own frame.
FIT_CHECK = r"""([width, strict]) => {
  const problems = [];
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const a = article.getBoundingClientRect(), s = getComputedStyle(article);
  const left = a.left + parseFloat(s.paddingLeft || 0), right = a.right - parseFloat(s.paddingRight || 0);
  const column = Math.round(right - left);
  const px = x => Math.round(x);
  document.querySelectorAll('main .fireeval-chart').forEach((box, i) => {
    let title = '';
    try { const t = JSON.parse(box.querySelector('script.fireeval-chart-spec').textContent).title;
          title = typeof t === 'string' ? t : (t && t.text) || '';
          if (Array.isArray(title)) title = title.join(' '); } catch (e) {}
    const label = `chart ${i + 1}${title ? ` "${String(title).slice(0, 60)}"` : ''}`;
    const svg = box.querySelector(box.classList.contains('is-live') ? '.fireeval-chart-live svg' : '.fireeval-chart-static svg');
    if (!svg) return;
    const r = svg.getBoundingClientRect();
    if (r.width === 0) return;
    if (r.right > right + 1 || r.left < left - 1)
      problems.push(`${label}: at ${width} px the chart is ${px(r.width)} px wide and ends ${px(r.right - right)} px ` +
                    `right of the ${column} px text column (overflow +${px(r.right - right)} px)`);
    svg.querySelectorAll('g.role-legend').forEach((legend, j) => {
      const g = legend.getBoundingClientRect();
      if (g.width > 0 && g.right > right + 1)
        problems.push(`${label}: at ${width} px legend ${j + 1} ends ${px(g.right - right)} px outside the ` +
                      `${column} px text column (overflow +${px(g.right - right)} px)`);
    });
    // Text the chart's own frame cuts (a label wider than the space Vega left for it).
    svg.querySelectorAll('text').forEach(t => {
      const b = t.getBoundingClientRect();
      if (!t.textContent.trim() || (b.width === 0 && b.height === 0)) return;
      if (b.right > r.right + 1 || b.left < r.left - 1 || b.bottom > r.bottom + 1 || b.top < r.top - 1)
        problems.push(`${label}: label "${t.textContent.trim().slice(0, 40)}" is clipped by the chart's frame`);
    });
  });
  // Every table, folded ones opened, fits the text column with no horizontal scroll (its own scroll box
  // counts as overflow too: a reader sees it cut).
  if (!strict) return problems;
  const closed = [...article.querySelectorAll('details:not([open])')];
  closed.forEach(d => d.open = true);
  article.querySelectorAll('table').forEach((table, i) => {
    const r = table.getBoundingClientRect();
    if (r.width === 0) return;
    let wide = r.right > right + 1 || r.left < left - 1;
    for (let el = table.parentElement; el && el !== article; el = el.parentElement)
      if (el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX)) wide = true;
    const head = (table.querySelector('th, td') || {textContent: ''}).textContent.trim().slice(0, 40);
    if (wide) problems.push(`table ${i + 1} ("${head}"): at ${width} px it is ${px(Math.max(r.width, table.scrollWidth))} px ` +
                            `wide, wider than the ${column} px text column`);
  });
  closed.forEach(d => d.open = false);
  return problems;
}"""

# On a phone (CARD_WIDTH px) a claims box reads as stacked cards: its rows are blocks, none wider than the screen.
CARD_CHECK = r"""(width) => {
  const problems = [];
  document.querySelectorAll('main .fireeval-claims table').forEach((table, i) => {
    const rows = [...table.querySelectorAll('tbody tr')];
    if (!rows.length || table.getBoundingClientRect().width === 0) return;
    if (rows.some(r => getComputedStyle(r).display !== 'block'))
      problems.push(`claims box ${i + 1}: at ${width} px its rows are not stacked cards`);
    if (table.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      problems.push(`claims box ${i + 1}: at ${width} px it is wider than the screen`);
  });
  return problems;
}"""

# Words a reader sees without opening a fold (closed <details> and hidden elements leave innerText), and
# whether any table comes before the page's first chart.
READING_CHECK = r"""() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const words = (article.innerText || '').split(/\s+/).filter(w => /\w/.test(w)).length;
  const chart = article.querySelector('.fireeval-chart, .cell_output img');
  const tables = [...article.querySelectorAll('table')].filter(t => t.getBoundingClientRect().height > 0 &&
                                                                !t.closest('.admonition'));
  const early = chart ? tables.filter(t => t.compareDocumentPosition(chart) & Node.DOCUMENT_POSITION_FOLLOWING) : [];
  return {words, table_before_chart: early.length ? (early[0].querySelector('th, td') || {textContent: ''}).textContent.trim().slice(0, 40) : null};
}"""
#: What a chapter page may show without opening a fold (issue 33: QuantEcon lectures run 3,600-6,400 words).
MAX_UNFOLDED_WORDS = 5000
CARD_WIDTH = 400

# Runs in the page; returns a list of problems (strings) found in the rendered DOM.
PAGE_CHECK = r"""() => {
  const problems = [];
  const main = document.querySelector('main') || document.body;
  const article = document.querySelector('article.bd-article') || main;
  const cs = el => getComputedStyle(el);
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 || r.height > 0; };
  const drawn = el => { try { const b = el.getBBox(); return b.width > 0 || b.height > 0; } catch (e) { return false; } };
  const name = (box, i) => {
    let title = '';
    try { const t = JSON.parse(box.querySelector('script.fireeval-chart-spec').textContent).title;
          title = typeof t === 'string' ? t : (t && t.text) || '';
          if (Array.isArray(title)) title = title.join(' '); } catch (e) {}
    return `chart ${i + 1}${title ? ` "${String(title).slice(0, 60)}"` : ''}`;
  };
  const markItems = svg => [...svg.querySelectorAll('g.role-mark')]
      .filter(g => !g.classList.contains('mark-group'))
      .flatMap(g => [...g.children]);
  const charts = [...main.querySelectorAll('.fireeval-chart')];
  charts.forEach((box, i) => {
    const label = name(box, i);
    const stat = box.querySelector('.fireeval-chart-static svg');
    if (!stat || !markItems(stat).length) problems.push(`${label}: static SVG fallback has no marks`);
    if (!box.classList.contains('is-live')) { problems.push(`${label}: did not render live (vega-embed)`); return; }
    const svg = box.querySelector('.fireeval-chart-live svg');
    if (!svg) { problems.push(`${label}: live view drew no SVG`); return; }
    const items = markItems(svg).filter(el => !el.closest('.mark-text'));
    if (!items.filter(drawn).length) problems.push(`${label}: blank chart (no mark drawn)`);
    // Vega-Lite draws grid lines as a separate axis beneath the marks: those have no ticks by design.
    const axes = [...svg.querySelectorAll('g.role-axis')].filter(a => !a.querySelector('.role-axis-grid') ||
        a.querySelector('.role-axis-domain, .role-axis-tick, .role-axis-label, .role-axis-title'));
    if (!axes.length && !svg.querySelector('g.mark-arc')) problems.push(`${label}: no axis`);
    axes.forEach((axis, j) => {
      const ticks = axis.querySelectorAll('.role-axis-tick > *, .role-axis-label > text').length;
      if (!ticks) problems.push(`${label}: axis ${j + 1} has no ticks or labels`);
    });
    svg.querySelectorAll('.role-axis-label text, .role-axis-title text, .role-legend-label text, .role-legend-title text')
      .forEach(t => { if (t.textContent.trim().endsWith('\u2026'))
        problems.push(`${label}: truncated text "${t.textContent.trim()}"`); });
    svg.querySelectorAll('g.role-legend').forEach(legend => {
      const glyphs = [...legend.querySelectorAll('.role-legend-symbol > path')];
      const labels = [...legend.querySelectorAll('.role-legend-label > text')].map(t => t.textContent.trim());
      const seen = new Map();
      glyphs.forEach((g, k) => {
        const key = ['d', 'fill', 'stroke', 'stroke-dasharray', 'opacity', 'fill-opacity', 'stroke-width']
          .map(a => g.getAttribute(a)).join('|');
        if (seen.has(key) && labels[k] !== labels[seen.get(key)])
          problems.push(`${label}: legend entries "${labels[seen.get(key)]}" and "${labels[k]}" have the same glyph`);
        else seen.set(key, k);
      });
    });
    const spec = box.querySelector('script.fireeval-chart-spec');
    if (!spec || !spec.textContent.includes('"tooltip"')) problems.push(`${label}: no tooltip`);
    if (spec && spec.textContent.includes('"bind"') && !box.querySelector('.vega-bindings input, .vega-bindings select'))
      problems.push(`${label}: declares a control (bound parameter) but shows none`);
  });

  // Tables wider than the text column must scroll on their own; never be clipped.
  const column = article.getBoundingClientRect();
  main.querySelectorAll('table').forEach((table, i) => {
    if (!visible(table)) return;
    const r = table.getBoundingClientRect();
    if (r.width <= column.width + 1 && r.right <= column.right + 1) return;
    let scroller = null, clipper = null;
    for (let el = table.parentElement; el && el !== article.parentElement; el = el.parentElement) {
      const ox = cs(el).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && el.clientWidth <= column.width + 1) { scroller = el; break; }
      if ((ox === 'hidden' || ox === 'clip') && !clipper) clipper = el;
    }
    const head = (table.querySelector('th, td') || {textContent: ''}).textContent.trim().slice(0, 40);
    if (scroller) return;
    problems.push(clipper ? `table ${i + 1} ("${head}") is clipped: ${Math.round(r.width)} px in a ${Math.round(column.width)} px column`
                          : `table ${i + 1} ("${head}") is ${Math.round(r.width)} px wide, wider than the ${Math.round(column.width)} px text column, and has no scroll`);
  });

  // Unrendered Markdown in visible text (outside code, maths and scripts).
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const skip = 'pre, code, script, style, .highlight, .math, mjx-container, textarea, .fireeval-chart-spec, .fireeval-chart-static, .vega-bindings';
  const literal = [[/(^|[\s(>"'])\*\*?[A-Za-z][^*\n]{0,80}?\*\*?(?=$|[\s.,;:!?)'"])/, 'Markdown emphasis'],
                   [/`[^`\n]+`/, 'Markdown code'], [/\{glue(:\w+)?\}/, 'unresolved glue role']];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip)) continue;
    for (const [re, what] of literal) {
      const m = node.textContent.match(re);
      if (m) problems.push(`literal ${what} in the text: "${m[0].trim()}"`);
    }
  }
  return {problems, charts: charts.length,
          images: [...main.querySelectorAll('.cell_output img, .output img')].map(i => i.complete && i.naturalWidth > 0)};
}"""

# Hover the marks of each chart that declares tooltips until vega-tooltip shows one.
HOVER_TARGETS = r"""(i) => {
  const box = document.querySelectorAll('main .fireeval-chart')[i];
  const svg = box && box.querySelector('.fireeval-chart-live svg');
  if (!svg) return [];
  // Not text marks (labels often sit on top of the marks they describe); centre and an inset corner of each.
  const items = [...svg.querySelectorAll('g.role-mark')]
    .filter(g => !g.classList.contains('mark-group') && !g.classList.contains('mark-text'))
    .flatMap(g => [...g.children]);
  const step = Math.max(1, Math.floor(items.length / 12));
  const out = [];
  for (let k = 0; k < items.length && out.length < 36; k += step) {
    const el = items[k];
    if (el.closest('.mark-line, .mark-rule, .mark-trail') && el.getTotalLength && el.getScreenCTM()) {
      // A stroke: points along it (the centre of its box is usually off the line).
      const length = el.getTotalLength();
      for (const f of [0.5, 0.25, 0.75]) {
        const p = new DOMPoint(el.getPointAtLength(length * f).x, el.getPointAtLength(length * f).y)
          .matrixTransform(el.getScreenCTM());
        out.push([p.x, p.y]);
      }
      continue;
    }
    const r = el.getBoundingClientRect();
    if (r.width > 0 || r.height > 0) {
      out.push([r.left + r.width / 2, r.top + r.height / 2]);
      out.push([r.left + Math.min(r.width / 2, Math.max(1, r.width * 0.2)), r.top + Math.min(r.height / 2, Math.max(1, r.height * 0.2))]);
    }
  }
  return out;
}"""


def _chart_outputs(nb: dict) -> int:
    n = 0
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            n += CHART_MARKER in html or any(m in data for m in CHART_MIMES)
    return n


def expected_charts(build: Path) -> dict[str, int]:
    """{page path relative to the html root: number of chart outputs in its executed notebook}.

    The executed notebooks come from Jupyter Book's execution cache (``_build/.jupyter_cache``),
    matched to the sources beside ``_build``; myst-nb's own copies in ``_build/jupyter_execute``
    lack the outputs of notebooks taken from the cache, so they serve only as a fallback.
    """
    counts = {}
    executed = build.parent / "jupyter_execute"
    cache = None
    try:
        from jupyter_cache import get_cache
        from myst_nb.core.read import myst_nb_reader_plugin

        if (build.parent / ".jupyter_cache").is_dir():
            cache = get_cache(str(build.parent / ".jupyter_cache"))
    except ImportError:
        pass
    for nb_path in executed.rglob("*.ipynb"):
        page = nb_path.relative_to(executed).with_suffix("")
        nb = json.loads(nb_path.read_text())
        source = build.parent.parent / f"{page}.md"
        if cache is not None and source.is_file():
            try:
                nb = cache.merge_match_into_notebook(myst_nb_reader_plugin(str(source)))[1]
            except KeyError:
                pass
        counts[f"{page}.html"] = _chart_outputs(nb)
    return counts


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _check_tooltips(page, n_charts: int) -> list[str]:
    problems = []
    for i in range(n_charts):
        has_tooltip = page.evaluate("""(i) => { const b = document.querySelectorAll('main .fireeval-chart')[i];
            const s = b.querySelector('script.fireeval-chart-spec');
            return b.classList.contains('is-live') && !!s && s.textContent.includes('"tooltip"'); }""", i)
        if not has_tooltip:
            continue  # reported by PAGE_CHECK
        shown = False
        # A second, slower pass: after the viewport changes of check_fit and check_reading a chart may still be
        # re-drawing itself to its new width, so the first pass can hover marks that are being replaced.
        for settle_ms, hover_ms in ((0, 30), (800, 250)):
            page.wait_for_timeout(settle_ms)
            page.evaluate("(i) => document.querySelectorAll('main .fireeval-chart')[i].scrollIntoView()", i)
            for x, y in page.evaluate(HOVER_TARGETS, i):
                page.mouse.move(x, y)
                page.wait_for_timeout(hover_ms)
                shown = page.evaluate("""() => { const t = document.getElementById('vg-tooltip-element');
                    return !!t && t.classList.contains('visible') && t.textContent.trim().length > 0; }""")
                if shown:
                    break
            page.mouse.move(0, 0)
            if shown:
                break
        if not shown:
            problems.append(f"chart {i + 1}: hovering its marks shows no tooltip")
    return problems


def _check_downloads(page, page_path: str) -> list[str]:
    """A chapter page links its executed notebook and headline JSON, and both are served.

    Fetched from Python, not the page: Chromium aborts a fetch that answers as a download.
    """
    import urllib.error
    import urllib.request

    if not page_path.startswith("notebooks/"):
        return []
    links = page.evaluate("() => [...document.querySelectorAll('main .fireeval-downloads a')].map(a => a.href)")
    problems, kinds = [], set()
    for href in links:
        try:
            with urllib.request.urlopen(href, timeout=10) as response:
                body = response.read()
            json.loads(body)
            kinds.add(href.rsplit(".", 1)[-1])
        except (urllib.error.URLError, ValueError) as err:
            problems.append(f"download {href} is not served as JSON: {err}")
    if not {"ipynb", "json"} <= kinds:
        problems.append(f"no download of its executed notebook and headline JSON (found {sorted(kinds)})")
    return problems


def check_fit(page, widths=FIT_WIDTHS, strict: bool = True) -> list[str]:
    """Charts, legends and labels inside the text column at each viewport width (restored after)."""
    problems = []
    original = page.viewport_size
    for width in widths:
        page.set_viewport_size({"width": width, "height": original["height"] if original else 900})
        page.wait_for_timeout(150)  # the theme's layout settles (no chart re-draws: their widths are fixed)
        problems += page.evaluate(FIT_CHECK, [width, strict])
    if original:
        page.set_viewport_size(original)
        page.wait_for_timeout(50)
    return problems


def answer_first(build: Path, page_path: str) -> bool:
    """Whether a page follows the answer-first layout (issue 33): the intro, and every chapter whose front matter
    says ``fireeval: {layout: answer-first}``. Chapters not yet rewritten keep the older checks."""
    import yaml

    if page_path == "book/intro.html":
        return True
    if not page_path.startswith("notebooks/"):
        return False
    source = build.parent.parent / "notebooks" / f"{Path(page_path).stem}.md"
    if not source.is_file():
        return False
    text = source.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    front = yaml.safe_load(text.split("---", 2)[1]) or {}
    return (front.get("fireeval") or {}).get("layout") == "answer-first"


def check_reading(page, page_path: str, strict: bool = True) -> list[str]:
    """A chapter page: at most MAX_UNFOLDED_WORDS words unfolded, no table before its first chart; every page's
    claims boxes read as cards at CARD_WIDTH px."""
    problems = []
    if strict and page_path.startswith("notebooks/"):
        found = page.evaluate(READING_CHECK)
        if found["words"] > MAX_UNFOLDED_WORDS:
            problems.append(f"{found['words']} words shown without opening a fold (at most {MAX_UNFOLDED_WORDS}): fold "
                            "details into dropdowns")
        if found["table_before_chart"] is not None:
            problems.append(f"a table (\"{found['table_before_chart']}\") comes before the first chart")
    original = page.viewport_size
    page.set_viewport_size({"width": CARD_WIDTH, "height": 800})
    page.wait_for_timeout(150)
    problems += page.evaluate(CARD_CHECK, CARD_WIDTH)
    if original:
        page.set_viewport_size(original)
        page.wait_for_timeout(50)
    return problems


def check_page(page, url: str, page_path: str, want_charts: int, fit_widths=FIT_WIDTHS,
               strict: bool = True) -> tuple[list[str], int]:
    events = []
    page.on("console", lambda m, ev=events: m.type == "error" and ev.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e, ev=events: ev.append(f"page error: {e}"))
    page.on("requestfailed", lambda r, ev=events: ev.append(f"request failed: {r.url} ({r.failure})"))

    def block_outside(route):
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
            return route.continue_()
        events.append(f"request leaves the machine: {route.request.url}")
        return route.abort()

    page.route("**/*", block_outside)
    page.goto(url, wait_until="load")
    try:
        page.wait_for_function("""() => [...document.querySelectorAll('.fireeval-chart')]
            .every(b => b.classList.contains('is-live') || b.classList.contains('is-failed'))""",
                               timeout=CHART_TIMEOUT_MS)
    except Exception:  # reported per chart below
        pass
    page.wait_for_timeout(300)  # let MathJax and late console errors surface
    found = page.evaluate(PAGE_CHECK)
    problems = list(found["problems"])
    problems += check_fit(page, fit_widths, strict)
    problems += check_reading(page, page_path, strict)
    problems += _check_tooltips(page, found["charts"])
    problems += _check_downloads(page, page_path)
    broken = found["images"].count(False)
    if broken:
        problems.append(f"{broken} chart image(s) failed to load")
    shown = found["charts"] + found["images"].count(True)
    if shown < want_charts:
        problems.append(f"shows {shown} chart(s), its notebook produced {want_charts}")
    return events + problems, shown


def check_scoreboard(build: Path, intro: str = "book/intro.html") -> list[str]:
    """Every chapter has rows in the introduction's scoreboard, and every row's link finds its claim."""
    import re

    page = build / intro
    if not page.is_file():
        return [f"{intro}: page missing from the build"]
    text = page.read_text()
    if not re.search(r'class="[^"]*\bfireeval-scoreboard\b', text):
        return [f"{intro}: no scoreboard table"]
    problems, seen = [], set()
    for href in re.findall(r'href="\.\./notebooks/([^"#]+)\.html#(claim-[^"]+)"', text):
        chapter, anchor = href
        seen.add(chapter)
        target = build / "notebooks" / f"{chapter}.html"
        if not target.is_file() or f'id="{anchor}"' not in target.read_text():
            problems.append(f"{intro}: scoreboard link notebooks/{chapter}.html#{anchor} finds no such claim row")
    toc = [p.stem for p in (build / "notebooks").glob("*.html")]
    problems += [f"{intro}: the scoreboard has no claim of chapter {c}" for c in sorted(set(toc) - seen)]
    return problems


def check_glossary_links(build: Path, glossary: str = "book/glossary.html") -> list[str]:
    """Every link into the glossary (``{term}`` roles and the claims boxes' words) lands on a definition."""
    import re

    target = build / glossary
    if not target.is_file():
        return [f"{glossary}: page missing from the build"]
    anchors = set(re.findall(r'id="(term-[^"]+)"', target.read_text()))
    problems = []
    for page in sorted(build.rglob("*.html")):
        for anchor in sorted(set(re.findall(r'href="[^"#]*glossary\.html#(term-[^"]+)"', page.read_text()))):
            if anchor not in anchors:
                problems.append(f"{page.relative_to(build)}: glossary link #{anchor} finds no definition")
    return problems


def check(build: Path, pages: list[str] | None = None, expected: dict[str, int] | None = None,
          fit_widths=FIT_WIDTHS, strict_pages=None, browsers: int = BROWSERS) -> list[str]:
    """Every problem a reader would see, one line each (``page: what``). ``strict_pages``: the pages held to the
    answer-first rules (default: :func:`answer_first`); ``browsers``: pages checked at once, each browser in a
    process of its own taking every ``browsers``-th page."""
    problems = []
    # index.html is Jupyter Book's redirect to the root page, which is checked itself.
    all_pages = sorted(str(p.relative_to(build)) for p in build.rglob("*.html")
                       if not p.relative_to(build).parts[0].startswith(("_", ".", "genindex", "search", "index.html")))
    pages = all_pages if pages is None else pages
    charts = expected_charts(build) if expected is None else dict(expected)
    if expected is None:
        for page in MUST_HAVE_CHARTS:
            if page not in all_pages:
                problems.append(f"{page}: page missing from the build")
            charts[page] = max(charts.get(page, 0), 1)
    jobs = [(page_path, charts.get(page_path, 0),
             page_path in strict_pages if strict_pages is not None else answer_first(build, page_path))
            for page_path in pages]
    server = serve(build)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        shares = [jobs[i::browsers] for i in range(min(max(browsers, 1), len(jobs)))]
        found = _check_pages(base, jobs, fit_widths) if len(shares) <= 1 else _in_processes(base, shares, fit_widths)
    finally:
        server.shutdown()
    by_page = {page_path: [] for page_path, _, _ in jobs}
    for page_path, problem in found:
        by_page[page_path].append(problem)
    return problems + [f"{page_path}: {p}" for page_path, found_here in by_page.items() for p in found_here]


def _in_processes(base: str, shares: list, fit_widths) -> list[tuple[str, str]]:
    """:func:`_check_pages` of each share in a process of its own (this script again, ``--pages``: a fresh
    interpreter, so neither this process's threads nor how it imported this script matter)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        outputs = [Path(folder) / f"share{i}.json" for i in range(len(shares))]
        workers = [subprocess.Popen([sys.executable, __file__, "--pages", base, json.dumps([share, list(fit_widths)]),
                                     str(out)]) for share, out in zip(shares, outputs)]
        codes = [w.wait() for w in workers]
        if any(codes):
            raise RuntimeError(f"check_book: a page-checking process exited {max(codes)}; its error is printed above")
        return [tuple(p) for out in outputs for p in json.loads(out.read_text())]


def _check_pages(base: str, jobs: list, fit_widths) -> list[tuple[str, str]]:
    """``(page, problem)`` of each page of ``jobs`` (``(page, charts expected, strict)``), in one browser."""
    from playwright.sync_api import sync_playwright

    found = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for page_path, want, strict in jobs:
            page = browser.new_page(viewport={"width": VIEWPORT, "height": 900})
            problems, shown = check_page(page, base + page_path, page_path, want, fit_widths, strict)
            found += [(page_path, p) for p in problems]
            print(f"checked {page_path}: {shown} chart(s), expected {want}, {'OK' if not problems else 'PROBLEMS'}",
                  flush=True)
            page.close()
        browser.close()
    return found


def main(argv):
    if len(argv) == 5 and argv[1] == "--pages":  # one share of the pages (_in_processes)
        jobs, fit_widths = json.loads(argv[3])
        Path(argv[4]).write_text(json.dumps(_check_pages(argv[2], jobs, tuple(fit_widths))))
        return 0
    build = Path(argv[1] if len(argv) > 1 else "_build/html").resolve()
    if not (build / "index.html").is_file():
        print(f"check_book: {build} has no index.html; build the book first (bash scripts/book.sh)")
        return 2
    only = argv[2:]
    missing = [p for p in only if not (build / p).is_file()]
    if missing:
        print(f"check_book: {build / missing[0]} is not in the build. Fix: name a page as notebooks/CHAPTER.html")
        return 2
    problems = (check(build, pages=only) if only
                else check(build) + check_scoreboard(build) + check_glossary_links(build))
    for p in problems:
        print("FAIL", p)
    print(f"check_book: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
