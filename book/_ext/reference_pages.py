"""The book's reference pages, generated at build time: ``{fireeval-api} FOLDER`` and ``{fireeval-measures}``.

**API reference** (``{fireeval-api} core``): for every module a folder's ``__all__`` lists, a
summary table of its public functions and classes (``autosummary``) and each one's
documentation (``automodule``, members as the module's ``__all__`` lists them), read from the
docstrings by Sphinx's autodoc (numpydoc sections through napoleon). A new module or public name
appears without editing the page.

**Measures** (``{fireeval-measures}``): one row per measure family of
:data:`fireeval.core.measures.REGISTRY` (what ``fireeval evaluate -m`` and :func:`fireeval.evaluate`
accept): the names the parser takes (grouped from :func:`fireeval.core.measures.names`, so a new
name shows up by itself), its aliases, parameter, how it is summarised over topics, the trec_eval
releases that have it, whose measure it is, then each family's formula, read from its
computation's docstring (``.. math::``). Nothing is typed by hand: adding a measure file adds its row.

Both write reStructuredText and parse it as such (the pages are MyST markdown), as MyST's
``{eval-rst}`` does.
"""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

from docutils.parsers.rst import Directive

#: Modules left out of the reference: claim builders of the chapters (book plumbing, not API).
SKIP = {"fireeval.vmr.axiou_claims"}


def modules(folder: str) -> list[str]:
    """The dotted names of the folder's modules, as its ``__all__`` lists them (the folder itself
    when it defines names directly, like ``fireeval.datasets``)."""
    package = importlib.import_module(f"fireeval.{folder}")
    names = [f"fireeval.{folder}.{n}" for n in package.__all__ if inspect.ismodule(getattr(package, n))]
    own = [n for n in package.__all__ if not inspect.ismodule(getattr(package, n))
           and getattr(getattr(package, n), "__module__", None) == package.__name__]
    return [m for m in ([package.__name__] if own else []) + names if m not in SKIP]


def members(folder: str) -> dict[str, list[str]]:
    """``{module: [its public functions and classes]}``, each object listed once: under the module
    that defines it when the folder lists that module, else under the first that exports it
    (``fireeval.core.measures.Measure``, defined in the unlisted ``measures.base``)."""
    listed = modules(folder)
    out: dict[str, list[str]] = {name: [] for name in listed}
    placed = set()
    for pass_ in ("home", "export"):
        for module_name in listed:
            module = importlib.import_module(module_name)
            for n in getattr(module, "__all__", []):
                obj = getattr(module, n, None)
                if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in placed:
                    continue
                home = getattr(obj, "__module__", None)
                # re-exports of another folder's names are documented there (``t2v`` re-exports core's Judgements)
                ours = str(home).startswith(f"fireeval.{folder}.") or home == f"fireeval.{folder}"
                if (pass_ == "home" and home == module_name) or (pass_ == "export" and home not in listed and ours):
                    out[module_name].append(n)
                    placed.add(id(obj))
    return out


def render_api(folder: str) -> str:
    lines = []
    for name, names in members(folder).items():
        lines += [f".. rubric:: ``{name}``", ""]
        if names:
            lines += [".. autosummary::", "   :nosignatures:", ""] + [f"   {name}.{n}" for n in names] + [""]
        lines += [f".. automodule:: {name}", f"   :members: {', '.join(names)}" if names else "   :no-members:", ""]
    return "\n".join(lines) + "\n"


_MATH = re.compile(r"^(\s*)\.\. math::(.*)$")


def formulas(doc: str) -> list[str]:
    """Every ``.. math::`` block of a docstring, each as one LaTeX string (multi-line blocks joined)."""
    out, lines = [], inspect.cleandoc(doc or "").splitlines()
    i = 0
    while i < len(lines):
        match = _MATH.match(lines[i])
        i += 1
        if not match:
            continue
        body = [match.group(2).strip()] if match.group(2).strip() else []
        indent = len(match.group(1))
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            if lines[i].strip() and not lines[i].strip().startswith(":"):
                body.append(lines[i].strip())
            i += 1
        if body:
            out.append(" ".join(body))
    return out


def family_names() -> dict[str, list[str]]:
    """``{root: [every example name of the family the parser accepts]}``, from the registry's ``names()``."""
    from fireeval.core import measures

    grouped: dict[str, list[str]] = {root: [] for root in measures.REGISTRY}
    # a family's own examples are its names (``correct@5`` is scored as ``success``, but declared by ``correct``)
    declared = {name: root for root, family in measures.REGISTRY.items() for name in family.examples}
    for name in measures.names():
        if name in measures.NICKNAMES:
            continue
        if name in declared:
            grouped[declared[name]].append(name)
            continue
        parsed = measures.parse(name, measures.TREC_EVAL_VERSIONS[-1])  # the newest: it knows every measure
        if parsed:
            grouped.setdefault(parsed[0].family.root, []).append(name)
    return grouped


def _release(version: str) -> tuple:
    """``"10.0"`` -> ``(10, 0)``: releases compared as numbers, not text."""
    return tuple(int(part) for part in version.split("."))


def _literal(names) -> str:
    return ", ".join(f"``{n}``" for n in dict.fromkeys(names)) or "—"


def rows() -> list[dict]:
    """One dict per family: the table's columns as reStructuredText, and its formulas."""
    from fireeval.core import measures

    names = family_names()
    out = []
    for root, family in measures.REGISTRY.items():
        param = family.param
        in_trec_eval = root in measures.TREC_EVAL_ROOTS
        versions = [v for v in measures.TREC_EVAL_VERSIONS if _release(v) >= _release(family.since)] \
            if in_trec_eval else []
        owner = ("trec_eval" if in_trec_eval else "fireeval") + (
            "; ir_measures' name " + _literal(n for n in family.ir_names) if family.ir_names else "")
        out.append({
            "root": root,
            "summary_line": " ".join((inspect.getdoc(family.compute) or "").split("\n\n")[0].split()),
            "names": _literal(names.get(root, [])),
            "aliases": _literal(family.aliases),
            "parameter": (f"{param.name} from {param.low:g}" + (f" to {param.high:g}" if param.high < 2**31 - 1 else "")
                          + f"; ``{root}`` alone: {', '.join(param.text(d) for d in param.defaults)}"
                          if param is not None else "—"),
            "over_topics": family.summary,
            "trec_eval": ", ".join(versions) if versions else "not in trec_eval",
            "owner": owner,
            "formulas": formulas(family.compute.__doc__),
        })
    return out


def render_measures() -> str:
    """The page body as reStructuredText: the table, then each family's formula."""
    from fireeval.core import measures

    lines = [f"{len(measures.REGISTRY)} measure families, as the registry declares them "
             f"(trec_eval releases: {', '.join(measures.TREC_EVAL_VERSIONS)}).", "",
             ".. list-table::", "   :header-rows: 1", "   :class: fireeval-measures", "",
             "   * - Family", "     - Names accepted (examples)", "     - Aliases", "     - Parameter",
             "     - Over topics", "     - trec_eval", "     - Whose measure"]
    table = rows()
    anchor = _anchors([row["root"] for row in table])
    for row in table:
        lines += [f"   * - :ref:`{row['root']} <measure-{anchor[row['root']]}>`", f"     - {row['names']}",
                  f"     - {row['aliases']}", f"     - {row['parameter']}", f"     - {row['over_topics']}",
                  f"     - {row['trec_eval']}", f"     - {row['owner']}"]
    lines.append("")
    for row in table:
        lines += [f".. _measure-{anchor[row['root']]}:", "", f".. rubric:: {row['root']}", ""]
        if row["summary_line"]:
            lines += [row["summary_line"], ""]
        for latex in row["formulas"]:
            lines += [".. math::", "", f"   {latex}", ""]
    return "\n".join(lines) + "\n"


def _anchor(root: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", root.lower()).strip("-") or "measure"


def _anchors(roots) -> dict[str, str]:
    """A label per family, unique although Sphinx lowercases labels (trec_eval's ``rbp`` beside ir_measures'
    ``RBP``: the second is ``rbp-2``)."""
    out, seen = {}, {}
    for root in roots:
        base = _anchor(root)
        seen[base] = seen.get(base, 0) + 1
        out[root] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    return out


def parse_rst(directive: Directive, text: str, source: str) -> list:
    """``text`` parsed as reStructuredText into nodes of the directive's page (as MyST's ``{eval-rst}``)."""
    from docutils.utils import new_document
    from sphinx.parsers import RSTParser

    document = directive.state.document
    newdoc = new_document(source, document.settings)
    newdoc.reporter = document.reporter
    parser = RSTParser()
    parser.set_application(document.settings.env.app)
    parser.parse(text, newdoc)
    for node in newdoc.children:
        if node.get("names"):
            document.note_explicit_target(node, node)
    return list(newdoc.children)


class ApiDirective(Directive):
    """``{fireeval-api} FOLDER``: every module of ``fireeval.FOLDER``, documented from its docstrings."""

    required_arguments = 1
    has_content = False

    def run(self):
        self.state.document.settings.env.note_dependency(__file__)  # autodoc notes the modules themselves
        return parse_rst(self, render_api(self.arguments[0]), f"fireeval.{self.arguments[0]}")


class MeasuresDirective(Directive):
    """``{fireeval-measures}``: the registry's table and formulas."""

    has_content = False

    def run(self):
        # re-read the page when a measure file (or this generator) changes, not only its own text
        from fireeval.core import measures

        env = self.state.document.settings.env
        for path in sorted(Path(measures.__file__).parent.glob("*.py")) + [Path(__file__)]:
            env.note_dependency(str(path))
        return parse_rst(self, render_measures(), "fireeval.core.measures.REGISTRY")


def setup(app):
    app.add_directive("fireeval-api", ApiDirective)
    app.add_directive("fireeval-measures", MeasuresDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
