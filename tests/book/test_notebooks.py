"""Execute every book notebook with its small test parameters, check its headline, and re-execute it with nbval.

Each notebook declares ``fireeval.test_parameters`` and ``fireeval.headline_keys`` in
its front matter; it is executed once per test session as ``fireeval run CHAPTER -p ...`` with
those parameters (the ``chapter_runs`` fixture of ``tests/conftest.py``, whose run
tests/book/test_commands.py's exercise checks read too). The executed notebook is then re-executed by ``pytest --nbval``
(strict, not ``--nbval-lax``), which compares every output of every cell with the first
execution: a chapter is reproducible from its seed. Outputs that legitimately vary
(wall-clock timings, pandas' random table ids) are sanitised by ``tests/nbval_sanitize.cfg``;
``tests/nbval_plugin.py`` lets it name glued values and executes cells as Jupyter does.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fireeval.book.notebooks import NOTEBOOK_DIR, execute, kernel_environment, load

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.md"))
HERE = Path(__file__).resolve().parents[1]  # tests/: the nbval plugin and its sanitiser
SANITIZE = HERE / "nbval_sanitize.cfg"  # with the plugin HERE / "nbval_plugin.py"


def nbval(notebook: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    """``pytest --nbval`` on one executed notebook, in its own process (the kernel runs in this venv).

    Only nbval's plugin and ours are loaded: pytest's automatic loading of every installed plugin
    (hypothesis, xdist, ...) cost each of these processes about 1.2 CPU-s before any cell ran (issue 38)."""
    command = [sys.executable, "-m", "pytest", "-p", "nbval.plugin", "--nbval", "--nbval-current-env",
               "--nbval-sanitize-with", str(SANITIZE), "--nbval-cell-timeout", str(timeout), "-p", "nbval_plugin",
               "-p", "no:cacheprovider", "-o", "addopts=",
               "-q", "--no-header", "--rootdir", str(notebook.parent), str(notebook)]
    env = {**kernel_environment(),  # the kernel `fireeval run` started: one BLAS thread, the same sums
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(command, cwd=notebook.parent, capture_output=True, text=True, timeout=4 * timeout, env=env)


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_glues_headline_and_reproduces(path: Path, tmp_path, chapter_runs):
    meta = load(path).metadata.get("fireeval", {})
    run = chapter_runs.with_test_parameters(path.stem)  # executed once per session, shared with test_commands
    assert run.returncode == 0, f"{path.name} with its test parameters failed ({run.failure()})"
    result = run.headline
    missing = ({"claims"} | set(meta.get("headline_keys", []))) - set(result)
    assert not missing, f"{path.name}: headline lacks {sorted(missing)}"
    assert_fair_verdict_fields(path.name, result["claims"])
    assert run.notebook.is_file() and (run.out / f"{path.stem}.html").is_file()
    executed = tmp_path / f"{path.stem}.ipynb"  # a copy: nbval runs its kernel beside it, the shared run stays as it is
    shutil.copyfile(run.notebook, executed)
    again = nbval(executed)
    assert again.returncode == 0, (f"{path.name}: a second execution (pytest --nbval) differs from the first or "
                                   f"fails; make the output reproducible from the seed, or sanitise a legitimately "
                                   f"varying output in {SANITIZE.name}:\n{again.stdout[-8000:]}\n"
                                   f"{again.stderr[-2000:]}")


def test_the_nbval_reexecution_fails_on_an_output_that_differs(tmp_path):
    """nbval runs with only its plugin and ours loaded; it still compares every output with the first execution."""
    import json

    source = tmp_path / "tiny.md"
    source.write_text("---\nkernelspec: {display_name: Python 3, language: python, name: python3}\n---\n"
                      "```{code-cell} ipython3\nprint(6 * 7)\n```\n\n```{code-cell} ipython3\n"
                      "from fireeval.book import report\nreport.headline({'n': 42})\n```\n")
    execute(source, output_dir=tmp_path / "out")
    same = tmp_path / "same.ipynb"
    shutil.copyfile(tmp_path / "out" / "tiny.ipynb", same)
    assert nbval(same).returncode == 0, nbval(same).stdout[-3000:]
    nb = json.loads(same.read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    cell["outputs"][0]["text"] = ["41\n"]
    other = tmp_path / "other.ipynb"
    other.write_text(json.dumps(nb))
    done = nbval(other)
    assert done.returncode != 0 and "41" in done.stdout, done.stdout[-3000:]


def assert_fair_verdict_fields(name: str, claims: list) -> None:
    """Every claim of a chapter carries the five fair-verdict fields and a shown label; a stand-in never speaks
    about the paper (the fair-verdict rules of fireeval.stats.claims)."""
    from fireeval.stats.claims import FIELDS, LABELS

    for c in claims:
        lacking = [f for f in FIELDS if c.get(f) is None]
        assert not lacking, f"{name}: claim {c['id']} lacks {lacking}"
        assert c["label"] in LABELS, f"{name}: claim {c['id']} shows {c['label']!r}"
        assert c["standing"] in ("original", "stand-in"), f"{name}: claim {c['id']} standing {c['standing']!r}"
        if c["standing"] == "stand-in":
            assert c["verdict"] == "not testable here", f"{name}: stand-in claim {c['id']} says {c['verdict']!r}"
        if c["data"].startswith(("synthetic", "stand-in: synthetic")):
            assert c["standing"] == "stand-in", f"{name}: claim {c['id']} on synthetic data is not a stand-in"


def _all_synthetic(value) -> bool:
    if isinstance(value, dict):
        return all(_all_synthetic(v) for v in value.values())
    return value == "synthetic"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_without_any_data_runs_synthetic_and_says_so(path: Path, tmp_path, monkeypatch):
    """As on a machine with no data and no network: the default falls back to synthetic."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("FIREEVAL_SHARED_DATA", str(empty))
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))  # no cached copies from earlier runs
    params = dict(load(path).metadata.get("fireeval", {}).get("test_parameters", {}))
    params.pop("data_source", None)
    result = execute(path, params, tmp_path / "out", timeout=900)
    assert _all_synthetic(result["data_source"]), result["data_source"]
    assert result["data_folder"] is None  # issue 39: no folder was read, and the headline says so
    assert_fair_verdict_fields(path.name, result["claims"])


# Book conventions (COMMON.md), checked on the text without executing anything.
CLAIMS_BOX = re.compile(r"\{glue(?::\w*)?\}`?\s*claims_table")
SECTION = re.compile(r"^## ", re.M)


def _answer_first(path: Path) -> bool:
    """A chapter rewritten to the answer-first layout (issue 33) says so in its front matter."""
    import yaml

    front = yaml.safe_load(path.read_text().split("---", 2)[1]) or {}
    return (front.get("fireeval") or {}).get("layout") == "answer-first"


ANSWER_FIRST = [p for p in NOTEBOOKS if _answer_first(p)]
#: The TREC chapters are the model of the answer-first layout (issue 33); the others follow in issues 34 and 35.
MODEL_CHAPTERS = ("metrics", "pool_depth", "pool_leave_out")


def test_the_trec_chapters_are_answer_first():
    assert {p.stem for p in ANSWER_FIRST} >= set(MODEL_CHAPTERS)


@pytest.mark.parametrize("path", ANSWER_FIRST, ids=[p.stem for p in ANSWER_FIRST])
def test_chapter_opens_with_its_answer_and_ends_with_its_claims(path: Path):
    """Objectives, the question, '## The answer here' (computed sentences and the key chart), data, method and
    results, then '## Claims and verdicts' (the box) near the end, then the exercises."""
    text = path.read_text()
    sections = [m.group(1).strip() for m in re.finditer(r"^## (.+)$", text, re.M)]
    assert sections[0] == "The answer here", f"{path.name}: the first section is {sections[0]!r}"
    assert "Claims and verdicts" in sections, f"{path.name}: no '## Claims and verdicts' section"
    claims_at = sections.index("Claims and verdicts")
    assert claims_at >= len(sections) - 3, f"{path.name}: the claims come too early ({sections})"
    assert sections[-1] == "Exercises" or sections[claims_at + 1:] == ["Exercises"], sections
    answer = text.split("## The answer here", 1)[1].split("\n## ", 1)[0]
    assert "{glue" in answer, f"{path.name}: the answer's sentences cite no computed number"
    box = CLAIMS_BOX.search(text)
    assert box and box.start() > text.index("## Claims and verdicts"), f"{path.name}: the box is not in its section"


@pytest.mark.parametrize("path", ANSWER_FIRST, ids=[p.stem for p in ANSWER_FIRST])
def test_chapter_shows_six_short_teaching_cells_and_stays_short(path: Path):
    """QuantEcon's visible thin code: at least six visible cells of at most 12 lines; the source a reader sees
    unfolded stays well under the 5,000 words the built page may show (check_book counts the page)."""
    from fireeval.book import teaching

    cells = teaching.visible_code_cells(path)
    short = [n for n in cells if n <= 12]
    assert len(short) >= 6, f"{path.name}: {len(short)} visible code cells of at most 12 lines: {cells}"
    assert all(n <= 12 for n in cells), f"{path.name}: a visible cell has more than 12 lines: {cells}"
    assert teaching.unfolded_words(path) <= 4000, teaching.unfolded_words(path)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p not in ANSWER_FIRST],
                         ids=[p.stem for p in NOTEBOOKS if p not in ANSWER_FIRST])
def test_chapter_shows_paper_vs_here_box_at_the_top(path: Path):
    """Convention 1 (chapters not held to the answer-first checks yet): the claims table is pasted before the
    second section, or, for a chapter already ordered answer first, inside '## Claims and verdicts' right
    before the exercises."""
    text = path.read_text()
    box = CLAIMS_BOX.search(text)
    assert box, f"{path.name}: no glue paste of claims_table (the 'paper vs here' box)"
    titles = [m.group(1).strip() for m in re.finditer(r"^## (.+)$", text, re.M)]
    if titles and titles[0] == "The answer here":
        assert "Claims and verdicts" in titles, f"{path.name}: no '## Claims and verdicts' section"
        start = text.index("\n## Claims and verdicts")
        end = text.find("\n## ", start + 5)
        assert start < box.start() < (end if end > 0 else len(text)), f"{path.name}: the box is not in its section"
        return
    sections = [(m.start(), text[m.start():text.index("\n", m.start())]) for m in SECTION.finditer(text)]
    verdicts = [start for start, title in sections if title.strip() == "## Claims and verdicts"]
    if verdicts:
        after = [start for start, _ in sections if start > verdicts[0]]
        end = after[0] if after else len(text)
        assert verdicts[0] < box.start() < end, (
            f"{path.name}: the claims box must be inside the '## Claims and verdicts' section")
        assert [t for s, t in sections if s > verdicts[0]][:1] in ([], ["## Exercises"]), (
            f"{path.name}: '## Claims and verdicts' comes near the end, right before '## Exercises'")
        return
    limit = sections[1][0] if len(sections) > 1 else len(text)
    assert box.start() < limit, f"{path.name}: the 'paper vs here' box must come before the second '## ' section"


def test_answer_first_layout_rule_catches_a_box_at_the_top(tmp_path):
    top = ("# T\n\n## The answer here\n\nWe find {glue:text}`x`.\n\n```{glue:} claims_table\n```\n\n## Data\n\n"
           "## Claims and verdicts\n\nWords.\n\n## Exercises\n")
    (tmp_path / "x.md").write_text(top)
    with pytest.raises(AssertionError, match="the box is not in its section"):
        test_chapter_opens_with_its_answer_and_ends_with_its_claims(tmp_path / "x.md")
    (tmp_path / "y.md").write_text(top.replace("```{glue:} claims_table\n```\n\n", "").replace(
        "## Claims and verdicts\n\n", "## Claims and verdicts\n\n```{glue:} claims_table\n```\n\n"))
    test_chapter_opens_with_its_answer_and_ends_with_its_claims(tmp_path / "y.md")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_chapter_shows_its_analysis_code(path: Path):
    """Convention 3: boilerplate (imports, glue) is removed, the analysis steps show their code (folded or not).

    A chapter that hides its code (the issue: pool_depth removed 8 of 9 code cells) fails:
    at least three code cells, and at least a third of them, must show their input.
    """
    cells = [c for c in load(path).cells if c.cell_type == "code" and "parameters" not in c.metadata.get("tags", [])]
    hidden = [c for c in cells if {"remove-cell", "remove-input"} & set(c.metadata.get("tags", []))]
    shown = len(cells) - len(hidden)
    assert shown >= max(3, len(cells) / 3), (
        f"{path.name}: only {shown} of {len(cells)} code cells show their code; show each analysis step as a short "
        f"cell of fireeval calls tagged hide-input")
