"""The package's layout: imports flow one way, names are plain and unique.

Every ``import``/``from ... import`` in every module (including those inside
functions) is read with :mod:`ast`; a cycle between modules, or an import that points
up the layers, fails with the offending edge named. Each folder's ``__init__.pyi`` lists
exactly its modules' ``__all__`` (and every name resolves); no module uses another's
private names; no two modules share a name.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "fireeval"

# Which top-level folders each layer may import (besides itself).
ALLOWED = {
    "core": set(),
    "stats": {"core"},
    "datasets": {"core"},
    "t2v": {"core", "stats", "datasets"},
    "pooling": {"core", "stats", "datasets"},
    "vmr": {"core", "stats", "datasets"},
    "synthetic": {"core", "stats", "t2v", "pooling", "vmr"},
    "book": {"core", "stats", "datasets", "t2v", "pooling", "vmr", "synthetic"},
    "cli": {"core", "stats", "datasets", "t2v", "pooling", "vmr", "synthetic", "book"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """fireeval modules that ``name`` imports (resolving relative imports and ``from pkg import mod``)."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("fireeval")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("fireeval"):
                continue
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                found.add(sub if sub in known else mod)
    return {m for m in found if m in known and m != name}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fireeval"


def _graph():
    mods = _modules()
    return {n: _imports(n, p, set(mods)) for n, p in mods.items()}


def test_every_import_points_down_the_layers():
    bad = []
    for module, deps in _graph().items():
        layer = _layer(module)
        if layer in ("fireeval", "__main__"):
            continue
        for dep in deps:
            target = _layer(dep)
            if target == layer:
                continue
            if target not in ALLOWED[layer]:
                bad.append(f"{module} imports {dep} ({layer} may import only {sorted(ALLOWED[layer]) or 'itself'})")
    assert not bad, "imports pointing up the layers:\n" + "\n".join(bad)


def test_no_import_cycle():
    graph = _graph()
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if not state.get(nxt):
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if not state.get(node):
            visit(node, [node])


def test_every_folder_is_a_known_layer_with_a_docstring():
    inits = [p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE]
    folders = {p.relative_to(PACKAGE).parts[0] for p in inits}  # a sub-folder (book/inputs) is in its layer
    assert folders <= set(ALLOWED), f"add the new folder(s) {sorted(folders - set(ALLOWED))} to ALLOWED"
    for init in inits:
        doc = ast.get_docstring(ast.parse(init.read_text()))
        where = init.parent.relative_to(PACKAGE)
        assert doc and len(doc) > 40, f"fireeval/{where}/__init__.py must say what the folder holds"


def test_the_checker_catches_a_cycle_and_an_upward_import(tmp_path, monkeypatch):
    # A checker that cannot fail proves nothing: build a tiny package that breaks both rules.
    pkg = tmp_path / "fireeval"
    (pkg / "core").mkdir(parents=True)
    (pkg / "t2v").mkdir()
    for f in ("__init__.py", "core/__init__.py", "t2v/__init__.py"):
        (pkg / f).write_text('"""x"""\n')
    (pkg / "core" / "a.py").write_text("from fireeval.t2v import b\n")
    (pkg / "t2v" / "b.py").write_text("from fireeval.core.a import thing\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", pkg)
    with pytest.raises(AssertionError, match="core.a imports fireeval.t2v.b"):
        test_every_import_points_down_the_layers()
    with pytest.raises(pytest.fail.Exception, match="import cycle"):
        test_no_import_cycle()


# --------------------------------------------------------------------------- re-exports (__init__.pyi)
STUBBED = ("core", "stats", "t2v", "pooling", "vmr", "synthetic", "book")


def _declared_all(path: Path) -> list[str]:
    """The module's literal ``__all__``, read as scripts/write_init_stubs.py reads it (one reader for both)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("write_init_stubs", PACKAGE.parent / "scripts" / "write_init_stubs.py")
    stubs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stubs)
    return stubs.declared_all(path)


def _stub(folder: Path) -> tuple[list[str], dict[str, list[str]]]:
    """``(modules, {module: names})`` that ``folder/__init__.pyi`` re-exports."""
    modules, names = [], {}
    for node in ast.parse((folder / "__init__.pyi").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            assert node.level == 1, f"{folder}/__init__.pyi: only `from .module import name as name` lines"
            for alias in node.names:
                assert alias.asname == alias.name, f"{folder}/__init__.pyi: write `{alias.name} as {alias.name}`"
            if node.module:
                names.setdefault(node.module, []).extend(a.name for a in node.names)
            else:
                modules += [a.name for a in node.names]
    return modules, names


@pytest.mark.parametrize("package", STUBBED)
def test_stub_lists_exactly_the_modules_and_their_all(package):
    """The stub is what lazy_loader and type checkers read: it cannot drift from the modules' ``__all__``.
    A name equal to a module's name would be that module (none is, today)."""
    folder = PACKAGE / package
    modules, names = _stub(folder)
    public = sorted([p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")]
                    + [p.parent.name for p in folder.glob("*/__init__.py")])
    fix = "Fix: python scripts/write_init_stubs.py"
    assert sorted(modules) == public, f"fireeval/{package}/__init__.pyi names modules {sorted(modules)}, " \
                                      f"the folder holds {public}. {fix}"
    for module in public:
        if (folder / f"{module}.py").is_file():
            expected = [n for n in _declared_all(folder / f"{module}.py") if n not in public]
            assert names.get(module, []) == expected, f"fireeval/{package}/__init__.pyi out of step with " \
                                                      f"{package}/{module}.py's __all__. {fix}"
    assert set(names) <= set(public)


@pytest.mark.parametrize("package", STUBBED)
def test_no_two_modules_of_a_folder_export_one_name(package):
    """A re-exported name means one thing: ``vmr.FAMILIES`` was a tuple in one module and a dict in another."""
    folder = PACKAGE / package
    owners: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.py")):
        if not path.stem.startswith("_"):
            for name in _declared_all(path):
                owners.setdefault(name, []).append(path.stem)
    clashes = {n: m for n, m in owners.items() if len(m) > 1}
    assert not clashes, f"fireeval.{package}: names exported by several modules (rename one): {clashes}"


@pytest.mark.parametrize("package", STUBBED)
def test_every_stub_name_resolves_to_its_module(package):
    import importlib

    pkg = importlib.import_module(f"fireeval.{package}")
    modules, names = _stub(PACKAGE / package)
    assert sorted(pkg.__all__) == sorted(set(modules) | {n for ns in names.values() for n in ns})
    for module in modules:
        assert getattr(pkg, module) is importlib.import_module(f"fireeval.{package}.{module}")
    for module, exported in names.items():
        source = importlib.import_module(f"fireeval.{package}.{module}")
        for name in exported:
            assert getattr(pkg, name) is getattr(source, name), f"fireeval.{package}.{name}"


def test_import_fireeval_exposes_every_folder_and_imports_none():
    """``import fireeval; fireeval.core`` works, as the package docstring says, without importing at start."""
    import subprocess
    import sys

    folders = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    modules, names = _stub(PACKAGE)
    assert sorted(modules) == folders and names == {"core.api": ["evaluate"], "stats.significance": ["compare"]}
    import fireeval

    assert fireeval.__all__ == sorted(folders + ["compare", "evaluate"]), "fireeval/__init__.py and __init__.pyi disagree"
    code = ("import sys, fireeval\n"
            "print(sorted(m for m in sys.modules if m.startswith('fireeval.')))\n"
            f"print([type(getattr(fireeval, f)).__name__ for f in {folders!r}], fireeval.compare.__module__, "
            "fireeval.evaluate.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]", f"import fireeval imported {out[0]}"
    assert out[1] == f"{['module'] * len(folders)} fireeval.stats.significance fireeval.core.api"


# --------------------------------------------------------------------------- private names stay in their module
#: Known reach-ins, each ``(module, its source module, private name)``, with why they are still here.
KNOWN_PRIVATE_USES: dict = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(name: str, path: Path, known: set[str]) -> set[tuple[str, str, str, int]]:
    """``(module, source module, private name, line)`` for each private name of another fireeval module used in
    ``name``: ``from fireeval.x import _y``, or ``_y`` read off a module (``x._y``, ``fireeval.x._y``)."""
    found, aliases = set(), {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("fireeval"):
                continue
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                elif _private(alias.name) and source != name:
                    found.add((name, source, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("fireeval"):
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or "fireeval"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            dotted, value = [], node.value
            while isinstance(value, ast.Attribute):
                dotted.insert(0, value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                source = ".".join([aliases[value.id], *dotted])
                if source in known and source != name:
                    found.add((name, source, node.attr, node.lineno))
    return found


def _all_private_uses() -> set[tuple[str, str, str, int]]:
    mods = _modules()
    return {use for n, p in mods.items() for use in _private_uses(n, p, set(mods))}


def test_no_module_uses_another_modules_private_names():
    """A helper two modules need gets a public name in its module's ``__all__``; ``_name`` stays where it is."""
    uses = _all_private_uses()
    bad = sorted(f"{m}:{line} uses {src}.{n}" for m, src, n, line in uses if (m, src, n) not in KNOWN_PRIVATE_USES)
    assert not bad, "private names used outside their module (give the helper a public name):\n" + "\n".join(bad)
    stale = set(KNOWN_PRIVATE_USES) - {(m, src, n) for m, src, n, _ in uses}
    assert not stale, f"fixed: remove from KNOWN_PRIVATE_USES: {sorted(stale)}"


def test_the_private_name_checker_catches_each_form(tmp_path, monkeypatch):
    pkg = tmp_path / "fireeval"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text("_x = 1\n__all__ = []\n")
    (pkg / "core" / "b.py").write_text("from fireeval.core.a import _x\nfrom fireeval.core import a\n"
                                       "import fireeval.core.a\nimport fireeval.core.a as m\n"
                                       "a._x\nfireeval.core.a._x\nm._x\na.__name__\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", pkg)
    assert sorted(_all_private_uses()) == [("fireeval.core.b", "fireeval.core.a", "_x", line) for line in (1, 5, 6, 7)]


def test_module_names_are_unique_across_the_package():
    """A module's name says what it holds, once: ``fire`` three times, or ``verdicts`` in three folders, made
    every import and traceback ambiguous (cli modules are named after their subcommand)."""
    where: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        # a chapter's claim builder is named after its chapter (book/chapters/false_negatives.py)
        if path.stem not in ("__init__", "__main__") and path.parent.name != "chapters":
            where.setdefault(path.stem, []).append(str(path.relative_to(PACKAGE)))
    clashes = {name: sorted(paths) for name, paths in where.items() if len(paths) > 1}
    assert not clashes, f"module names used more than once (rename one with git mv): {clashes}"


def test_each_cli_module_is_named_after_its_subcommand():
    from fireeval import cli

    assert {command.replace("-", "_") for command in cli.COMMANDS} == set(cli.COMMANDS.values())
