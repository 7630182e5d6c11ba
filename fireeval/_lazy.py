"""Lazy re-exports for the subpackages' ``__init__``.

Each subpackage re-exports the public names of its modules (their ``__all__``), but
imports a module only when one of its names is first used: ``fireeval --help`` and
``evaluate-moments`` must not pay for pandas. The names are read from the modules'
source with :mod:`ast`, so a module's ``__all__`` is the one list to keep up to date.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

__all__ = ["attach"]


def _declared_all(path: Path) -> list[str]:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise ImportError(f"{path} declares no literal __all__; a re-exported module must list its public names")


def attach(package: str, package_file: str, modules: list[str]):
    """``(__getattr__, __dir__)`` for ``package``, re-exporting ``modules``' public names.

    A module name itself is also an attribute (``fireeval.core.moments``). When two
    modules export one name, the first listed wins. The modules' sources are read on
    the first look-up (or ``__all__``/``dir()``), not at import.
    """
    here = Path(package_file).parent
    cache: dict[str, str] = {}

    def owners() -> dict[str, str]:
        if not cache:
            for module in modules:
                for name in _declared_all(here / f"{module}.py"):
                    cache.setdefault(name, module)
        return cache

    def __getattr__(name: str):
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        if name == "__all__":
            return sorted(set(owners()) | set(modules))
        owner = owners().get(name)
        if owner is not None:
            return getattr(importlib.import_module(f"{package}.{owner}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(owners()) | set(modules))

    return __getattr__, __dir__
