"""The package's import graph flows one way: core <- stats <- studies <- synthetic <- book/cli.

Every ``import``/``from ... import`` in every module (including those inside
functions) is read with :mod:`ast`; a cycle between modules, or an import that points
up the layers, fails with the offending edge named.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fireeval"

# Which top-level folders each layer may import (besides itself and fireeval._lazy).
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
        if layer in ("fireeval", "_lazy", "__main__"):
            continue
        for dep in deps:
            target = _layer(dep)
            if target in (layer, "_lazy"):
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


@pytest.mark.parametrize("package", ["core", "stats", "t2v", "pooling", "vmr", "synthetic", "book"])
def test_package_reexports_its_modules_public_names(package):
    import importlib

    pkg = importlib.import_module(f"fireeval.{package}")
    for name in pkg.__all__:
        assert getattr(pkg, name) is not None
