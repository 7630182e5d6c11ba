"""The book's generated reference pages (book/_ext/reference_pages.py): the measures page has every
family of the registry with its names and formula; the API page reaches every public name."""
import importlib
import importlib.util
import inspect
from pathlib import Path

import pytest

pytest.importorskip("docutils")  # the book extra

import fireeval  # noqa: E402
from fireeval.core import measures  # noqa: E402

_SPEC = importlib.util.spec_from_file_location(
    "reference_pages", Path(__file__).resolve().parents[2] / "book" / "_ext" / "reference_pages.py")
pages = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(pages)

FOLDERS = ("core", "stats", "pooling", "t2v", "vmr", "synthetic", "datasets")


def test_every_family_has_a_row_its_names_and_a_formula():
    rows = {row["root"]: row for row in pages.rows()}
    assert list(rows) == list(measures.REGISTRY)
    assert all(row["formulas"] for row in rows.values()), [r for r, row in rows.items() if not row["formulas"]]
    shown = " ".join(row["names"] for row in rows.values())
    missing = [n for n in measures.names() if n not in measures.NICKNAMES and f"``{n}``" not in shown]
    assert missing == []
    assert rows["rbp"]["trec_eval"] == "10.0" and rows["map"]["trec_eval"] == "9.0.7, 10.0"
    assert rows["map_judged"]["trec_eval"] == "not in trec_eval"
    assert "``AP``" in rows["map"]["owner"]


def test_formulas_are_read_from_math_blocks():
    doc = """Title.

    .. math:: a = b

    .. math::
       :label: x

       c = d
       + e
    """
    assert pages.formulas(doc) == ["a = b", "c = d + e"]


def test_the_measures_page_is_restructuredtext_with_one_rubric_per_family():
    text = pages.render_measures()
    assert text.count(".. rubric::") == len(measures.REGISTRY)
    assert text.count(".. math::") >= len(measures.REGISTRY)


def test_the_api_page_reaches_every_public_function_and_class_once():
    listed = {}
    for folder in FOLDERS:
        for module, names in pages.members(folder).items():
            for name in names:
                obj = getattr(importlib.import_module(module), name)
                assert id(obj) not in listed, f"{module}.{name} documented twice"
                listed[id(obj)] = f"{module}.{name}"
    for folder in FOLDERS:
        package = getattr(fireeval, folder)
        for name in package.__all__:
            obj = getattr(package, name)
            home = getattr(obj, "__module__", "")
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and home not in pages.SKIP:
                assert id(obj) in listed, f"fireeval.{folder}.{name} is not on the API page"


def test_the_api_page_renders_autosummary_and_automodule():
    text = pages.render_api("stats")
    assert ".. automodule:: fireeval.stats.significance" in text
    assert "   fireeval.stats.significance.compare" in text


def test_every_measure_family_gets_its_own_label_although_sphinx_lowercases_them():
    import re

    text = pages.render_measures()
    labels = re.findall(r"^\.\. _(measure-[^:]+):", text, flags=re.M)
    assert len(labels) == len({label.lower() for label in labels}), sorted(labels)
