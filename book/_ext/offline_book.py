"""Make the built book work with no network.

* MathJax is served from the book itself: the MathJax 3 bundle comes from the PyPI
  package django-static-mathjax (files only, no Django needed); tex-svg.js is
  self-contained (no web fonts to fetch).
* sphinx-thebe's scripts are dropped: live code cells would load thebe from a CDN,
  and Jupyter Book 1.0 includes its loader twice (a page error in every browser).
"""
import shutil
from pathlib import Path

BUNDLE = "mathjax/tex-svg.js"


def _source() -> Path:
    import mathjax  # django-static-mathjax

    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"


def _copy(app, exception):
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / BUNDLE
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_source(), target)


def _drop_thebe(app, pagename, templatename, context, doctree):
    def keep(asset):
        filename = getattr(asset, "filename", None) or ""
        body = (getattr(asset, "attributes", None) or {}).get("body", "")
        return "thebe" not in f"{filename} {body}".lower()

    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [a for a in context[key] if keep(a)]


def setup(app):
    if not _source().is_file():
        raise RuntimeError("MathJax bundle missing: pip install django-static-mathjax (see pyproject.toml [book])")
    app.config.mathjax_path = BUNDLE
    app.connect("build-finished", _copy)
    app.connect("html-page-context", _drop_thebe)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
