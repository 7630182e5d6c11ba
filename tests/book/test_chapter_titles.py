"""Chart titles never state a verdict by hand (the claims box computes verdicts).

A title passed to ``plotting.titled`` as a plain string literal is fixed whatever the data
say; if it reads like a finding ("... reproduces ..."), it can contradict the computed
verdict (the metrics chapter's MAP chart did, while one run missed the official file).
"""
import ast
import re

import pytest

from fireeval.book.notebooks import NOTEBOOK_DIR, load

CHAPTERS = ["false_negatives", "semantic_similarity", "metrics"]
VERDICT_WORDS = re.compile(r"reproduc|contradict|confirm|\bholds?\b|\bverified\b", re.IGNORECASE)


def _literal_titles(source: str):
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "titled"
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)):
            yield node.args[1].value


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_literal_chart_title_states_a_verdict(name):
    nb = load(NOTEBOOK_DIR / f"{name}.md")
    bad = [t for cell in nb.cells if cell.cell_type == "code" for t in _literal_titles(cell.source)
           if VERDICT_WORDS.search(t)]
    assert not bad, f"{name}.md: chart titles typed as findings: {bad}; compute them from the data"


def test_the_check_catches_a_typed_verdict():
    assert list(_literal_titles('plotting.titled(chart, "fireeval reproduces the official MAP", "c")'))
