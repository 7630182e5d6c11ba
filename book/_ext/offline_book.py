"""Make the built book work with no network, with live charts and per-chapter downloads.

* MathJax is served from the book itself: the MathJax 3 bundle comes from the PyPI
  package django-static-mathjax (files only, no Django needed); tex-svg.js is
  self-contained (no web fonts to fetch).
* Charts: one shared script, ``_static/fireeval-charts.js``, holds Vega, Vega-Lite and
  vega-embed (``vl_convert.javascript_bundle``, the version altair writes) and a few
  lines that turn each chart block written by ``fireeval.book.plotting`` into a live
  chart (tooltips, parameter controls). It and ``fireeval-charts.css`` are added only to
  pages that show a chart. Without JavaScript, and in print, the static SVG shows.
* Downloads: each chapter page (``notebooks/*``) offers its executed notebook and its
  headline numbers as JSON (``downloads/<chapter>.ipynb``, ``.headline.json``), in the
  page's download menu and in a line at the end of the page. The notebook begins with a
  cell that says how to install what it needs (``fireeval.book.notebooks.with_install_cell``).
* sphinx-thebe's scripts are dropped: live code cells would load thebe from a CDN,
  and Jupyter Book 1.0 includes its loader twice (a page error in every browser).
"""
import json
import shutil
from pathlib import Path

BUNDLE = "mathjax/tex-svg.js"
CHARTS_JS = "fireeval-charts.js"
CHARTS_CSS = "fireeval-charts.css"
DOWNLOADS = "downloads"

# Runs after the bundle has defined vegaEmbed: every chart block gets a live view; the
# static SVG stays in the page for print and is hidden on screen once the view is drawn.
CHARTS_SNIPPET = r"""
window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;
function fireevalCharts() {
  document.querySelectorAll('.fireeval-chart:not(.is-live)').forEach(function (box) {
    var specNode = box.querySelector('script.fireeval-chart-spec');
    var target = box.querySelector('.fireeval-chart-live');
    if (!specNode || !target) { return; }
    var spec = JSON.parse(specNode.textContent);
    vegaEmbed(target, spec, {renderer: 'svg', actions: {export: true, source: false, compiled: false, editor: false}})
      .then(function (result) { box.classList.add('is-live'); box.fireevalView = result.view; })
      .catch(function (err) { box.classList.add('is-failed'); console.error('fireeval chart ' + box.dataset.chart + ': ' + err); });
  });
}
if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', fireevalCharts); }
else { fireevalCharts(); }
"""

CHARTS_STYLE = """
.fireeval-chart { overflow-x: auto; margin: 0.5em 0; }
/* wide claims tables scroll inside their own box, never past the text column */
.fireeval-claims, .fireeval-scoreboard { overflow-x: auto; }
.fireeval-chart .fireeval-chart-live:empty { display: none; }
.fireeval-chart.is-live .fireeval-chart-static { display: none; }
.fireeval-chart .vega-bindings { margin: 0.25em 0 0.5em; font-size: 0.9em; }
.fireeval-chart .vega-bind { display: inline-block; margin-right: 1.5em; }
.fireeval-chart .vega-bind-name { font-weight: 600; margin-right: 0.3em; }
.fireeval-downloads { margin-top: 2em; font-size: 0.9em; }
@media print {
  .fireeval-chart.is-live .fireeval-chart-static { display: block; }
  .fireeval-chart .fireeval-chart-live { display: none; }
}
"""


def charts_script(bundle: str) -> str:
    """The bundle in its own function scope: its top-level names (``_``, ...) would clash with Sphinx's globals."""
    return f"(function () {{\n{bundle}\n}})();\n"


def _mathjax_source() -> Path:
    import mathjax  # django-static-mathjax

    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"


def _write_static(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    import vl_convert

    from fireeval.book.plotting import VEGALITE_VERSION

    static = Path(app.outdir) / "_static"
    (static / BUNDLE).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_mathjax_source(), static / BUNDLE)
    (static / CHARTS_JS).write_text(charts_script(vl_convert.javascript_bundle(CHARTS_SNIPPET,
                                                                               vl_version=VEGALITE_VERSION)))
    (static / CHARTS_CSS).write_text(CHARTS_STYLE)


def _drop_thebe(app, pagename, templatename, context, doctree):
    def keep(asset):
        filename = getattr(asset, "filename", None) or ""
        body = (getattr(asset, "attributes", None) or {}).get("body", "")
        return "thebe" not in f"{filename} {body}".lower()

    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [a for a in context[key] if keep(a)]


def _add_charts(app, pagename, templatename, context, doctree):
    body = context.get("body", "")
    if "fireeval-chart" in body:
        app.add_js_file(CHARTS_JS)
    if any(name in body for name in ("fireeval-chart", "fireeval-claims", "fireeval-scoreboard")):
        app.add_css_file(CHARTS_CSS)


def _executed_notebook(app, pagename):
    """The page's notebook with its outputs: from the execution cache, else myst-nb's copy."""
    import nbformat

    try:
        from jupyter_cache import get_cache
        from myst_nb.core.read import myst_nb_reader_plugin

        source = app.env.doc2path(pagename)
        cache = get_cache(app.env.mystnb_config.execution_cache_path)
        _, notebook = cache.merge_match_into_notebook(myst_nb_reader_plugin(str(source)))
        return notebook
    except (KeyError, OSError, AttributeError):
        # myst-nb writes the notebook it rendered here; with a cache hit it has no outputs.
        executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
        return nbformat.read(executed, as_version=4) if executed.is_file() else None


def _add_downloads(app, pagename, templatename, context, doctree):
    """Write a chapter's executed notebook and headline into downloads/ and link them."""
    if not pagename.startswith("notebooks/") or "body" not in context:
        return
    import nbformat

    from fireeval.book.notebooks import extract_headline, with_install_cell

    notebook = _executed_notebook(app, pagename)
    if notebook is None:
        return
    stem = Path(pagename).name
    target = Path(app.outdir) / DOWNLOADS
    target.mkdir(parents=True, exist_ok=True)
    # The download opens with a cell that says how to install what it needs (not in the .md source).
    nbformat.write(with_install_cell(notebook, stem), target / f"{stem}.ipynb")
    links = [(f"{stem}.ipynb", "executed notebook (.ipynb)", "fas fa-book")]
    headline = extract_headline(notebook)
    if headline is not None:
        (target / f"{stem}.headline.json").write_text(json.dumps(headline, indent=1) + "\n")
        links.append((f"{stem}.headline.json", "headline numbers (.json)", "fas fa-list"))
    pathto = context["pathto"]
    anchors = " · ".join(f'<a class="reference download" href="{pathto(f"{DOWNLOADS}/{name}", 1)}" download>{text}</a>'
                         for name, text, _ in links)
    context["body"] += (f'<p class="fireeval-downloads"><strong>Downloads:</strong> {anchors}. '
                        f'Re-run this chapter with your own parameters: '
                        f'<code>fireeval run {stem} -p NAME VALUE --output DIR</code>.</p>')
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"][:0] = [{"type": "link", "url": pathto(f"{DOWNLOADS}/{name}", 1), "text": text,
                                     "icon": icon, "tooltip": f"Download the {text}",
                                     "label": f"download-{name.replace('.', '-')}-button"}
                                    for name, text, icon in links]


def setup(app):
    if not _mathjax_source().is_file():
        raise RuntimeError("MathJax bundle missing: pip install django-static-mathjax (see pyproject.toml [book])")
    app.config.mathjax_path = BUNDLE
    app.connect("build-finished", _write_static)
    # Before _drop_thebe, which replaces the page's script list by a filtered copy.
    app.connect("html-page-context", _add_charts, priority=400)
    app.connect("html-page-context", _drop_thebe)
    # After sphinx-book-theme has built its header buttons (priority 501).
    app.connect("html-page-context", _add_downloads, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
