"""Packaging: ranges in pyproject.toml, the book stack in an extra, the lock file and its mirrors,
and the library working without the book extra (its modules refused by an import hook)."""
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
TREC = ROOT / "tests" / "data" / "trec_eval"

# An interpreter in which the book extra is not installed: every import of one of its modules fails
# as it would there (ModuleNotFoundError), whatever the environment holds.
BLOCKER = textwrap.dedent("""
    import importlib.abc, sys
    from fireeval.cli import BOOK_EXTRA_MODULES
    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BOOK_EXTRA_MODULES:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, Refuse())
""")


def _without_book(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + textwrap.dedent(code), *args], capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)


def _cli_without_book(*args: str) -> subprocess.CompletedProcess:
    return _without_book("import sys; from fireeval.cli import main; sys.exit(main(sys.argv[1:]))", *args)


def test_the_blocker_blocks():
    """The hook really refuses the book's modules (else the tests below could not fail)."""
    done = _without_book("import altair")
    assert done.returncode == 1 and "No module named 'altair'" in done.stderr


def test_library_imports_without_the_book_extra():
    done = _without_book("""
        import sys
        import fireeval
        from fireeval import evaluate, compare
        for folder in ("core", "stats", "t2v", "pooling", "vmr", "synthetic", "datasets"):
            module = getattr(fireeval, folder)
            for name in module.__all__:
                getattr(module, name)          # imports every module of the folder
        scores = evaluate({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 2.0, "d2": 1.0}}, ["P@1", "AP"], output="dict")
        print(sorted(scores["run"].items()))
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in
                        {"altair", "papermill", "myst_nb", "jupytext", "vl_convert", "nbformat"})
        print("loaded:", loaded)
    """)
    assert done.returncode == 0, done.stderr
    assert "('AP', 1.0), ('P@1', 1.0)" in done.stdout and "loaded: []" in done.stdout


def test_commands_work_without_the_book_extra(tmp_path):
    qrels, run = TREC / "qrels-302.test", TREC / "results-302.test"
    done = _cli_without_book("evaluate", str(qrels), str(run), "-m", "map", "-m", "P_10")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["map", "all"]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {int(d < 3)}\n" for q in range(1, 13) for d in range(6)))
    runs = []
    for name, shift in (("a", 0), ("b", 2)):
        runs.append(tmp_path / name)
        runs[-1].write_text("".join(f"{q} Q0 d{(d + shift * (q % 3)) % 6} {d + 1} {6 - d} {name}\n"
                                    for q in range(1, 13) for d in range(6)))
    done = _cli_without_book("compare", str(qrels), *map(str, runs), "-m", "P_3", "--format", "json",
                             "--permutations", "200", "--bootstrap", "200")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)
    assert _cli_without_book("--help").returncode == 0


def test_run_without_the_book_extra_says_how_to_get_it(tmp_path):
    done = _cli_without_book("run", "metrics", "--quick", "--output", str(tmp_path / "out"))
    assert done.returncode == 2
    # The module named is the first of the book extra the run imports (nbformat, to read the chapter).
    from fireeval.cli import BOOK_EXTRA_MODULES

    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and re.fullmatch(r"fireeval run: metrics: needs the book extra \((\w+) is not installed\)\. "
                                            r"Fix: pip install 'fireeval\[book\]'", lines[0]), lines
    assert re.search(r"\((\w+) is", lines[0]).group(1) in BOOK_EXTRA_MODULES


def test_runtime_dependencies_are_ranges_and_the_book_stack_is_an_extra():
    from packaging.requirements import Requirement

    runtime = [Requirement(r) for r in PROJECT["dependencies"]]
    pinned = [str(r) for r in runtime if any(s.operator == "==" for s in r.specifier)]
    assert pinned == [], f"pinned, not ranges: {pinned}"
    assert all(any(s.operator == ">=" for s in r.specifier) for r in runtime)
    book_stack = {"altair", "vl-convert-python", "papermill", "jupytext", "myst-nb", "ipykernel", "jupyter-book",
                  "jupyter-cache"}
    names = {r.name.lower() for r in runtime}
    assert not names & book_stack
    assert book_stack <= {Requirement(r).name.lower() for r in PROJECT["optional-dependencies"]["book"]}


def test_lock_environment_and_lower_bounds_are_in_step():
    """requirements-lock.txt satisfies every range; environment.yml and requirements-lower.txt are generated."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import sync_environment
    finally:
        sys.path.pop(0)
    assert sync_environment.problems() == []
    with pytest.raises(ValueError, match="no single lower bound"):
        sync_environment.lower_bound("numpy<3")
    assert sync_environment.lower_bound("numpy>=1.26,<3") == "numpy==1.26"


def test_setup_installs_with_the_lock_as_constraints():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert 'uv pip install -q --compile-bytecode --python .venv/bin/python -c requirements-lock.txt -e ".[book,test]"' \
        in setup
    assert 'pip install -q -c requirements-lock.txt -e ".[book,test]"' in setup.split("else", 1)[1]  # pip: the same
    assert "cat pyproject.toml requirements-lock.txt | sha256sum" in setup
