"""A page to read: an executed chapter as one offline HTML file, and a short summary of its headline.

:func:`write_page` renders an executed notebook (what ``fireeval run`` writes) as a
self-contained HTML page, as the book shows it: cells tagged ``remove-cell`` left out,
``remove-input`` / ``hide-input`` without their code, ``remove-output`` without
outputs; every ``{glue:text}`key:fmt``` / ``{glue}`key``` role and ``{glue:}`` /
``{glue:figure}`` directive replaced by the value the chapter glued (formatted as
myst-nb formats them (its ``format_plain_text`` rule, without importing myst-nb), so the numbers read
as in the built book); charts as their static SVG (``fireeval.book.plotting``'s chart
bundle), with every ``<script>`` removed. It needs no network and no JavaScript.
Markdown is rendered with markdown-it (the parser MyST uses); other MyST roles show
their text, admonitions become boxes, math stays as typed.

:func:`summary` is what ``fireeval run`` prints: where the files are, the headline's
scalar keys and the claims table (id, label, found).
"""
from __future__ import annotations

from collections.abc import Mapping
import html
import os
import re
from pathlib import Path
from fireeval.core.validation import STR, Instance, validate_params

__all__ = ["write_page", "render_page", "glued_outputs", "run_summary", "claims_rows", "reader_warnings"]

#: ``{glue:text}`key:fmt```, ``{glue}`key```, ``{glue:}`key```, ``{glue:md}`key```, ``{glue:any}`key```.
_ROLE = re.compile(r"\{glue(?::(text|md|any|math|))?\}`([^`]+)`")
#: Any other MyST role: ``{cite}`key```, ``{ref}`label```, ``{doc}`path``` ... shown as its text.
_OTHER_ROLE = re.compile(r"\{([a-zA-Z][\w:-]*)\}`([^`]+)`")
_TITLED = re.compile(r"^\s*(.*?)\s*<[^<>]+>\s*$", re.S)  # a cross-reference's "title <target>"
#: A directive fence: ```{name} argument ... ``` (three or more backticks or colons).
_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]*)\}[ \t]*(?P<arg>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                    re.M | re.S)
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>", re.S | re.I)
_ADMONITIONS = {"note", "warning", "tip", "important", "caution", "attention", "danger", "error", "hint",
                "seealso", "admonition", "dropdown"}

_CSS = """
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:60rem;margin:0 auto;padding:2rem 1.5rem;background:#fff}
h1,h2,h3{line-height:1.25}pre{background:#f4f4f4;padding:.6rem .8rem;overflow-x:auto;font-size:13px}
.input pre{border-left:3px solid #0072B2}.output{margin:.4rem 0 1rem}.output pre{background:#fff;border:1px solid #eee}
table{border-collapse:collapse;font-size:14px;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem}
.admonition{border-left:4px solid #0072B2;background:#f3f8fc;padding:.4rem 1rem;margin:1rem 0}
.admonition.warning,.admonition.caution,.admonition.danger,.admonition.error{border-color:#D55E00;background:#fdf4ee}
.admonition-title{font-weight:600}.error{color:#b00}.fireeval-chart-live{display:none}
svg{max-width:100%;height:auto}.source{color:#666;font-size:13px}.scroll{overflow-x:auto;max-width:100%}
footer{margin-top:2rem;border-top:1px solid #eee}main{overflow-wrap:break-word}
"""


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"))
def glued_outputs(nb) -> dict:
    """``{key: mime bundle}`` of every value the executed notebook glued (myst-nb's ``scrapbook`` outputs).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook.

    Returns
    -------
    dict

    Examples
    --------
    >>> import nbformat
    >>> record = {"application/papermill.record/text/plain": "0.25"}
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# Toy\\n\\nThe share is {glue:text}`share:.2f`; {glue:text}`absent`."),
    ...     nbformat.v4.new_code_cell("glue('share', 0.25)", outputs=[nbformat.v4.new_output(
    ...         "display_data", data=record, metadata={"scrapbook": {"name": "share"}})])])
    >>> glued_outputs(nb)
    {'share': {'text/plain': '0.25'}}
    """
    out = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                # myst-nb stores them under "application/papermill.record/<mime>"
                out[name] = {mime.split("papermill.record/", 1)[-1]: value
                             for mime, value in output.get("data", {}).items()}
    return out


def _format_plain_text(text: str, fmt_spec: str) -> str:
    """A glued value's plain text as ``{glue:text}`key:FMT``` shows it in the book: myst-nb's rule
    (``myst_nb.core.variables.format_plain_text``, the same steps), here so that writing a page does not
    import myst-nb's renderer, Sphinx and jupyter-cache (2 s of every ``fireeval run``);
    ``tests/book/test_page_format.py`` holds it equal to myst-nb's on every kind of value and format.

    >>> _format_plain_text("0.123456", ".2f"), _format_plain_text("'text'", ""), _format_plain_text("12", "d")
    ('0.12', 'text', '12')
    """
    from ast import literal_eval

    try:
        value = literal_eval(text)  # the repr of a str loses its quotes
    except (SyntaxError, ValueError):
        value = text
    if fmt_spec == "":
        return str(value)
    type_char = fmt_spec[-1]
    if type_char == "s":
        value = str(value)
    elif type_char in ("b", "c", "d", "o", "x", "X"):
        value = int(value)
    elif type_char in ("e", "E", "f", "F", "g", "G", "n", "%"):
        value = float(value)
    return format(value, fmt_spec)


def _plain(bundle: dict, fmt: str, key: str) -> str:
    text = bundle.get("text/plain")
    if text is None:
        raise KeyError(key)
    text = "".join(text) if isinstance(text, list) else text
    return html.escape(_format_plain_text(text, fmt))


def _rich(bundle: dict, md) -> str:
    """The best HTML for a glued bundle: HTML, SVG, PNG, Markdown, then plain text."""
    def joined(v):
        return "".join(v) if isinstance(v, list) else v
    for mime in bundle:
        if mime.endswith("text/html") or mime == "text/html":
            # a wide table scrolls in its own box, never the page (a phone reads the rest of it)
            return f'<div class="scroll">{_SCRIPT.sub("", joined(bundle[mime]))}</div>'
    if "image/svg+xml" in bundle:
        return joined(bundle["image/svg+xml"])
    if "image/png" in bundle:
        return f'<img alt="figure" src="data:image/png;base64,{joined(bundle["image/png"]).strip()}">'
    if "text/markdown" in bundle:
        return md.render(joined(bundle["text/markdown"]))
    if "text/plain" in bundle:
        return f"<pre>{html.escape(joined(bundle['text/plain']))}</pre>"
    return ""


def _substitute_roles(text: str, glued: dict, missing: list) -> str:
    def role(m):
        kind, content = m.group(1), m.group(2).strip()
        key, fmt = (content.rsplit(":", 1) + [""])[:2] if kind == "text" and ":" in content else (content, "")
        bundle = glued.get(key)
        if bundle is None:
            missing.append(key)
            return f"<mark>[{html.escape(key)}: not glued]</mark>"
        if kind == "text":
            return _plain(bundle, fmt, key)
        if kind == "md" and "text/markdown" in bundle:
            value = bundle["text/markdown"]
            return "".join(value) if isinstance(value, list) else value
        rich = [m for m in bundle if m != "text/plain"]
        return _rich(bundle, _markdown_renderer()) if rich else _plain(bundle, "", key)
    text = _ROLE.sub(role, text)

    def other(m):
        kind, content = m.group(1), _TITLED.sub(r"\1", m.group(2))  # {term}`runs <run>` shows "runs"
        if kind == "term":
            return html.escape(content)
        if kind in ("ref", "doc", "numref", "download", "eq"):
            return f"<code>{html.escape(content)}</code>"
        return html.escape(content) if kind != "cite" else f"[{html.escape(content)}]"
    return _OTHER_ROLE.sub(other, text)


def _markdown_cell(source: str, glued: dict, md, missing: list) -> str:
    """One markdown cell as HTML: directive fences first (glue, admonitions), then roles, then markdown."""
    blocks, token = {}, "FIREEVALBLOCK{}X"

    def fence(m):
        name, arg, body = m.group("name"), m.group("arg").strip(), m.group("body")
        lines = [ln for ln in body.splitlines() if not re.match(r"^:\w[\w-]*:", ln)]  # drop directive options
        inner = "\n".join(lines)
        if name.startswith("glue"):
            key = arg or inner.strip().splitlines()[0] if (arg or inner.strip()) else ""
            bundle = glued.get(key)
            if bundle is None:
                missing.append(key)
                rendered = f"<mark>[{html.escape(key)}: not glued]</mark>"
            else:
                caption = md.render(_substitute_roles(inner, glued, missing)) if arg and inner.strip() else ""
                rendered = f'<figure>{_rich(bundle, md)}{f"<figcaption>{caption}</figcaption>" if caption else ""}</figure>'
        elif name in _ADMONITIONS:
            title = (arg if name in ("admonition", "dropdown") else name.capitalize()) or name.capitalize()
            title = _substitute_roles(html.escape(title), glued, missing)
            inside = _markdown_cell(inner, glued, md, missing)
            # a dropdown stays folded on the page, as in the book
            folded = name == "dropdown" or re.search(r"^:class:.*\bdropdown\b", body, re.M)
            rendered = (f'<details class="admonition {name}"><summary class="admonition-title">{title}</summary>'
                        f"{inside}</details>" if folded else
                        f'<div class="admonition {name}"><p class="admonition-title">{title}</p>{inside}</div>')
        elif name in ("math",):
            rendered = f"<pre>{html.escape(inner)}</pre>"
        else:  # code-block, bibliography, toctree, ...: show the body as text
            rendered = f"<pre>{html.escape(inner)}</pre>" if inner.strip() else ""
        blocks[token.format(len(blocks))] = rendered
        return f"\n\n{token.format(len(blocks) - 1)}\n\n"

    text = _FENCE.sub(fence, source)
    text = re.sub(r"^\(([\w:.-]+)\)=\s*$", "", text, flags=re.M)  # MyST target labels
    text = _substitute_roles(text, glued, missing)
    rendered = md.render(text)
    for key, value in blocks.items():
        rendered = rendered.replace(f"<p>{key}</p>", value).replace(key, value)
    return rendered


def _code_html(source: str) -> str:
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        return highlight(source, PythonLexer(), HtmlFormatter(noclasses=True, nowrap=False))
    except ImportError:
        return f"<pre>{html.escape(source)}</pre>"


def _outputs_html(outputs, md) -> str:
    from fireeval.book.report import HEADLINE_MIME

    parts = []
    for output in outputs:
        kind = output.get("output_type")
        if output.get("metadata", {}).get("scrapbook"):
            continue  # glued values appear where the prose pastes them
        if kind == "stream":
            text = output.get("text", "")
            text = "".join(text) if isinstance(text, list) else text
            if output.get("name") == "stderr" and ("WARNING" in text and "Kernel" in text):
                continue
            if output.get("name") == "stderr":
                text = reader_warnings(text)
            parts.append(f"<pre>{html.escape(text)}</pre>")
        elif kind == "error":
            parts.append(f'<pre class="error">{html.escape(output.get("ename", ""))}: '
                         f'{html.escape(str(output.get("evalue", "")))}</pre>')
        elif kind in ("display_data", "execute_result"):
            data = {k: v for k, v in output.get("data", {}).items() if not k.endswith(HEADLINE_MIME)}
            if data:
                parts.append(_rich(data, md))
    return "".join(parts)


_WARNING = re.compile(r"^(?P<where>\S.*?):(?P<line>\d+): (?P<kind>\w*Warning): (?P<text>.*)$")


@validate_params(text=STR)
def reader_warnings(text: str) -> str:
    """A kernel's stderr with each Python warning as the reader should see it, ``warning: message``: without
    the kernel's temporary file (``/tmp/ipykernel_123/456.py:7: UserWarning: ...``), the module's path
    and the source line that Python prints under it.

    Parameters
    ----------
    text : str
        The kernel's stderr.

    Returns
    -------
    str

    >>> reader_warnings("/tmp/ipykernel_9/12.py:3: UserWarning: extra_runs: x.run: 2 topics ignored.\\n"
    ...                 "  warnings.warn(message)\\n")
    'warning: extra_runs: x.run: 2 topics ignored.\\n'
    """
    lines = text.splitlines(keepends=True)
    out, skip_source = [], False
    for line in lines:
        match = _WARNING.match(line.rstrip("\n"))
        if match:
            out.append(f"warning: {match['text']}\n")
            skip_source = True
            continue
        if skip_source and line.startswith("  "):  # the source line Python shows under a warning
            skip_source = False
            continue
        skip_source = False
        out.append(line)
    return "".join(out)


def _markdown_renderer():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"), title=[STR, None],
                 source=[STR, None], data=STR)
def render_page(nb, title: str | None = None, source: str | None = None, data: str = "") -> tuple[str, list]:
    """``(html, missing)``: the page of executed notebook ``nb`` and the glue keys the prose names but
    the notebook did not glue (shown marked in the page). ``data`` is the page's data line (which
    folder the run read).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook.
    title : str, optional
        The page's title (default: the first heading).
    source : str, optional
        The chapter's file, named in the footer.
    data : str
        The data line.

    Returns
    -------
    (str, list of str)

    Examples
    --------
    >>> import nbformat
    >>> record = {"application/papermill.record/text/plain": "0.25"}
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# Toy\\n\\nThe share is {glue:text}`share:.2f`; {glue:text}`absent`."),
    ...     nbformat.v4.new_code_cell("glue('share', 0.25)", outputs=[nbformat.v4.new_output(
    ...         "display_data", data=record, metadata={"scrapbook": {"name": "share"}})])])
    >>> page, missing = render_page(nb)
    >>> missing, "<title>Toy</title>" in page, "The share is 0.25" in page
    (['absent'], True, True)
    """
    md = _markdown_renderer()
    glued = glued_outputs(nb)
    missing: list = []
    body = []
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            body.append(_markdown_cell(cell.source, glued, md, missing))
        elif cell.cell_type == "code":
            if not tags & {"remove-input", "hide-input", "parameters", "injected-parameters"} and cell.source.strip():
                body.append(f'<div class="input">{_code_html(cell.source)}</div>')
            elif "injected-parameters" in tags:
                body.append(f'<div class="input"><p class="source">Parameters of this run:</p>'
                            f'{_code_html(cell.source)}</div>')
            if "remove-output" not in tags:
                out = _outputs_html(cell.get("outputs", []), md)
                if out:
                    body.append(f'<div class="output">{out}</div>')
    if title is None:
        heading = next((c.source for c in nb.cells if c.cell_type == "markdown" and c.source.lstrip().startswith("# ")), "")
        title = heading.lstrip()[2:].splitlines()[0].strip() if heading else "fireeval chapter"
    note = f'<p class="source">Executed chapter {html.escape(source)}; written by fireeval.</p>' if source else ""
    if data:
        note += f'<p class="source">{html.escape(data)}</p>'
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
            f"<body><main>{''.join(body)}<footer>{note}</footer></main></body></html>\n")
    return page, sorted(set(missing))


@validate_params(nb=[Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"), Instance(str, os.PathLike)],
                 path=Instance(str, os.PathLike), source=[STR, None], data=STR)
def write_page(nb, path, source: str | None = None, data: str = "") -> list:
    """Write the page of executed notebook ``nb`` (a node or a path to an .ipynb) to ``path``;
    return the glue keys the prose names that the notebook did not glue.

    Parameters
    ----------
    nb : nbformat.NotebookNode or path-like
        An executed notebook.
    path : path-like
        The HTML file written.
    source, data : str
        As :func:`render_page`.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import nbformat
    >>> record = {"application/papermill.record/text/plain": "0.25"}
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# Toy\\n\\nThe share is {glue:text}`share:.2f`; {glue:text}`absent`."),
    ...     nbformat.v4.new_code_cell("glue('share', 0.25)", outputs=[nbformat.v4.new_output(
    ...         "display_data", data=record, metadata={"scrapbook": {"name": "share"}})])])
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.html")
    >>> write_page(nb, path), open(path).read().startswith("<!DOCTYPE html>")
    (['absent'], True)
    """
    import nbformat

    if not hasattr(nb, "cells"):
        nb = nbformat.read(str(nb), as_version=4)
    page, missing = render_page(nb, source=source, data=data)
    Path(path).write_text(page, encoding="utf-8")
    return missing


def _found(claim: dict):
    """A claim's "found here" text as the chapter's box shows it (:func:`fireeval.stats.claims.summary_rows`)."""
    try:
        from fireeval.stats.claims import summary_rows

        return summary_rows([claim])[0]["found here"]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # an older or partial record
        conventions = claim.get("conventions") or {}
        first = next(iter(conventions.values()), {}) if isinstance(conventions, dict) else {}
        return first.get("value") if isinstance(first, dict) else claim.get("why")


@validate_params(headline=Instance(Mapping))
def claims_rows(headline: dict) -> list[dict]:
    """``[{id, label, verdict, found}]`` from a headline's ``claims`` list (empty without one).

    Parameters
    ----------
    headline : dict
        A headline.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> headline = {"n": 3, "claims": [{"id": "c", "label": "reproduced", "verdict": "reproduced",
    ...                                   "conventions": {"": {"value": 0.5, "low": 0.4, "high": 0.6}}}]}
    >>> claims_rows(headline)
    [{'id': 'c', 'label': 'reproduced', 'verdict': 'reproduced', 'found': 0.5}]
    """
    rows = []
    for claim in headline.get("claims") or []:
        if isinstance(claim, dict):
            rows.append({"id": str(claim.get("id", "?")), "label": str(claim.get("label", claim.get("verdict", "?"))),
                         "verdict": str(claim.get("verdict", "?")), "found": _found(claim)})
    return rows


def _short(value, width: int = 40) -> str:
    if isinstance(value, float):
        text = f"{value:.4g}"
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@validate_params(headline=Instance(Mapping), files=[Instance(Mapping), None])
def run_summary(headline: dict, files: dict | None = None) -> str:
    """The few lines ``fireeval run`` prints: files written, scalar headline keys, the claims table.

    Parameters
    ----------
    headline : dict
        The run's headline.
    files : dict, optional
        ``{what: path}`` of the files written.

    Returns
    -------
    str

    Examples
    --------
    >>> headline = {"n": 3, "claims": [{"id": "c", "label": "reproduced", "verdict": "reproduced",
    ...                                   "conventions": {"": {"value": 0.5, "low": 0.4, "high": 0.6}}}]}
    >>> print(run_summary(headline, {"headline": "out/toy.headline.json"}))
    headline: out/toy.headline.json
    n=3
    claim  label       found
    c      reproduced  0.5
    """
    lines = [f"{what}: {where}" for what, where in (files or {}).items()]
    scalars = {k: v for k, v in headline.items()
               if k not in ("claims", "data_folder") and isinstance(v, (str, int, float, bool))}
    if scalars:
        lines.append("  ".join(f"{k}={_short(v, 24)}" for k, v in list(scalars.items())[:8]))
    rows = claims_rows(headline)
    if rows:
        wid = max(len("claim"), *(len(r["id"]) for r in rows))
        wlab = max(len("label"), *(len(r["label"]) for r in rows))
        lines.append(f"{'claim':<{wid}}  {'label':<{wlab}}  found")
        lines += [f"{r['id']:<{wid}}  {r['label']:<{wlab}}  {_short(r['found'], 60)}" for r in rows]
    return "\n".join(lines)
