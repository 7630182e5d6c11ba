"""Every public function and class (``fireeval.__all__`` and each folder's ``__all__``) documents its
Parameters, what it Returns and an Example that runs as a doctest (``pytest --doctest-modules fireeval``).

Names still missing a section are listed in ``tests/data/docstrings_todo.txt``: the list may only
shrink (a name documented since must leave it, a new public name must be documented).
"""
import importlib
import inspect
import re
from pathlib import Path

import pytest

import fireeval

TODO = Path(__file__).parents[1] / "data" / "docstrings_todo.txt"
FOLDERS = ("core", "stats", "pooling", "t2v", "vmr", "synthetic", "datasets", "book")


def public_objects() -> dict[str, object]:
    """``{dotted name: object}``: the functions and classes of ``fireeval.__all__`` and each folder's."""
    out = {}
    for name in fireeval.__all__:
        obj = getattr(fireeval, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            out[f"fireeval.{name}"] = obj
    for folder in FOLDERS:
        package = importlib.import_module(f"fireeval.{folder}")
        for name in package.__all__:
            obj = getattr(package, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out[f"fireeval.{folder}.{name}"] = obj
    return out


def _section(doc: str, title: str) -> str | None:
    """The text of a numpydoc section (``Title`` underlined with dashes), None when absent."""
    match = re.search(rf"^{title}\n-{{{len(title)}}}-*\n(.*?)(?=^\S[^\n]*\n-{{3,}}\n|\Z)", doc, re.M | re.S)
    return match.group(1) if match else None


def _takes_arguments(obj) -> bool:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return any(p.name not in ("self", "cls") for p in signature.parameters.values())


def missing_sections(obj) -> list[str]:
    """The sections ``obj``'s docstring lacks: Parameters (when it takes any), Returns (functions),
    Examples (a doctest: pytest runs it)."""
    doc = inspect.getdoc(obj) or ""
    missing = []
    if _takes_arguments(obj) and _section(doc, "Parameters") is None:
        missing.append("Parameters")
    if inspect.isfunction(obj) and _section(doc, "Returns") is None and _section(doc, "Yields") is None:
        missing.append("Returns")
    if ">>>" not in doc:  # an Examples section, or a doctest in the text
        missing.append("Examples")
    return missing


def test_the_check_finds_what_is_missing():
    def documented(a, b=1):
        """Add.

        Parameters
        ----------
        a, b : int

        Returns
        -------
        int

        Examples
        --------
        >>> documented(1)
        2
        """
        return a + b

    def bare(a):
        """Add nothing."""
        return a

    assert missing_sections(documented) == []
    assert missing_sections(bare) == ["Parameters", "Returns", "Examples"]


def test_public_names_have_parameters_returns_and_examples():
    todo = {line.split("#")[0].strip() for line in TODO.read_text().splitlines()} - {""}
    objects = public_objects()
    lacking = {name: missing_sections(obj) for name, obj in objects.items()}
    lacking = {name: sections for name, sections in lacking.items() if sections}
    new = sorted(set(lacking) - todo)
    assert not new, ("public names without a Parameters, Returns or Examples section: "
                     + "; ".join(f"{n} ({', '.join(lacking[n])})" for n in new)
                     + ". Fix: write them (numpydoc sections; the example runs as a doctest)")
    done = sorted(todo - set(lacking))
    assert not done, (f"{TODO.name} lists names that are documented now (or no longer public): {done}. "
                      "Fix: remove them from the list")


@pytest.mark.parametrize("name", ["fireeval.evaluate", "fireeval.compare"])
def test_the_top_level_functions_are_complete(name):
    """``fireeval.__all__``: never on the to-do list."""
    assert missing_sections(public_objects()[name]) == []
