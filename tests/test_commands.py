"""Every command the book and the README show runs as written.

Collects each line of every fenced ```bash block in README.md, book/*.md and
notebooks/*.md (the chapters' exercises among them) and runs it:

* ``fireeval ...`` / ``.venv/bin/fireeval ...`` runs through this Python (``-m fireeval``).
  For ``fireeval run CHAPTER`` the chapter's front-matter ``test_parameters`` are added as
  ``-p`` overrides unless the command sets that parameter itself, and ``--output`` goes
  to a temporary folder. Placeholder file names (``QRELS RUN``, ``GT PRED``,
  ``qrels.txt myrun.txt``) become small valid files written by the test.
* Commands in ``EXCLUDED`` are not run, each for the reason given there.
* Any other command fails the test: test it here or exclude it with a reason.

Identical commands (after the overrides) run once. A chapter's exercises are also held
to the book's convention: a final ``## Exercises`` section with 2-4 exercises, each a
``fireeval run CHAPTER`` command and a folded hint.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from fireeval.book.notebooks import NOTEBOOK_DIR, load

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "book").glob("*.md")), *sorted(NOTEBOOK_DIR.glob("*.md"))]
FIREEVAL = ("fireeval", ".venv/bin/fireeval")
EXCLUDED = {
    "bash scripts/": "set-up and whole-book commands: they install system and Python packages and build the "
                     "whole book; CI runs them itself (.ci/run runs scripts/test.sh, which runs setup.sh and book.sh)",
    ".venv/bin/papermill ": "papermill on a chapter as shipped: tests/test_own_data.py runs papermill on "
                            "notebooks/metrics.md and on a small .md chapter with list and dict parameters",
}

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d5 2\n2 0 d3 1\n2 0 d4 0\n"
RUN = "1 Q0 d1 1 3.0 demo\n1 Q0 d2 2 2.0 demo\n1 Q0 d9 3 1.0 demo\n2 Q0 d4 1 2.0 demo\n2 Q0 d3 2 1.0 demo\n"
GT = "VID01 0.0 5.0##a person opens a door.\nVID02 2.0 8.0##someone sits on a chair.\n"
PRED = {"entries": [
    {"vid": "VID01", "query": "a person opens a door.", "moments": [[0.0, 4.0], [1.0, 6.0]], "ratings": [0.9, 0.5]},
    {"vid": "VID02", "query": "someone sits on a chair.", "moments": [[3.0, 9.0], [0.0, 2.0]], "ratings": [0.8, 0.1]},
]}
HEADLINE = {"n": 1, "claims": [{"id": "c", "verdict": "reproduced", "label": "reproduced",
                                "conventions": {"": {"value": 0.5, "low": None, "high": None}}}]}


def _npy(matrix) -> bytes:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.asarray(matrix, dtype=np.float32))
    return buffer.getvalue()


PLACEHOLDERS = {"QRELS": ("qrels.txt", QRELS), "qrels.txt": ("qrels.txt", QRELS), "RUN": ("run.txt", RUN),
                "myrun.txt": ("run.txt", RUN), "GT": ("gt.txt", GT), "PRED": ("pred.json", json.dumps(PRED)),
                "SIM.npy": ("sim.npy", _npy([[0.9, 0.1, 0.3], [0.2, 0.8, 0.1], [0.5, 0.6, 0.4]])),
                "Q.txt": ("q.txt", "v1\tsomeone opens a door\nv2\ta dog runs\nv3\ta man cooks\n"),
                "V.txt": ("v.txt", "v1\nv2\nv3\n"),
                "A.headline.json": ("a.headline.json", json.dumps(HEADLINE)),
                "B.headline.json": ("b.headline.json", json.dumps({**HEADLINE, "n": 2}))}

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})bash[ \t]*\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.M | re.S)


def shown_commands(path: Path) -> list[tuple[int, str]]:
    """``(line number, command)`` for each command line of each ```bash block (continuations joined)."""
    text = path.read_text()
    found = []
    for block in FENCE.finditer(text):
        first = text.count("\n", 0, block.start("body")) + 1
        pending, start = "", None
        for offset, line in enumerate(block.group("body").splitlines()):
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if start is None:
                start = first + offset
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            command = (pending + line).strip()
            pending = ""
            if command and not command.startswith("#"):
                found.append((start, command))
            start = None
    return found


def _chapter_test_parameters() -> dict[str, dict]:
    return {p.stem: dict(load(p).metadata.get("fireeval", {}).get("test_parameters", {}))
            for p in NOTEBOOK_DIR.glob("*.md")}


def prepared(argv: list[str], test_parameters: dict[str, dict]) -> list[str]:
    """The arguments after ``fireeval``, with test parameters added and the output redirected to ``{out}``."""
    args = list(argv[1:])
    if args and args[0] == "run":
        out = []
        given = set()
        i = 1
        while i < len(args):
            if args[i] in ("--output", "-o") and i + 1 < len(args):
                i += 2
                continue
            if args[i].startswith("--output="):
                i += 1
                continue
            if args[i] in ("-p", "--parameter") and i + 2 < len(args):
                given.add(args[i + 1])
            out.append(args[i])
            i += 1
        chapter = Path(out[0]).stem if out else ""
        extra = [x for name, value in test_parameters.get(chapter, {}).items() if name not in given
                 for x in ("-p", name, repr(value))]
        args = ["run", *out, *extra, "--output", "{out}"]
    return [PLACEHOLDERS[a][0] if a in PLACEHOLDERS else a for a in args]


def _collect():
    test_parameters = _chapter_test_parameters()
    runs, seen = [], {}
    for path in DOCUMENTS:
        for line, command in shown_commands(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            try:
                argv = shlex.split(command, comments=True)
            except ValueError as err:
                runs.append(pytest.param(where, command, None, id=where,
                                         marks=pytest.mark.xfail(reason=f"unparseable: {err}", strict=True)))
                continue
            if any(command.startswith(prefix) for prefix in EXCLUDED):
                continue
            args = prepared(argv, test_parameters) if argv and argv[0] in FIREEVAL else None
            key = json.dumps(args) if args is not None else command
            if key in seen:
                continue
            seen[key] = where
            marks = [pytest.mark.notebook] if args and args[0] == "run" else []
            runs.append(pytest.param(where, command, args, id=where, marks=marks))
    return runs


@pytest.mark.parametrize("where, command, args", _collect())
def test_shown_command_runs(where, command, args, tmp_path):
    assert args is not None, (f"{where}: `{command}` is neither a fireeval command nor excluded with a reason in "
                              f"tests/test_commands.py EXCLUDED: test it or exclude it")
    for name, content in PLACEHOLDERS.values():
        if isinstance(content, bytes):
            (tmp_path / name).write_bytes(content)
        else:
            (tmp_path / name).write_text(content)
    argv = [a.replace("{out}", str(tmp_path / "out")) for a in args]
    proc = subprocess.run([sys.executable, "-m", "fireeval", *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1200)
    assert proc.returncode == 0, (f"{where}: `{command}` failed (ran as fireeval {shlex.join(argv)}):\n"
                                  f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    if argv[0] == "run":
        chapter = Path(argv[1]).stem
        assert (tmp_path / "out" / f"{chapter}.headline.json").is_file()


def test_collects_the_commands_of_every_document():
    """The collector sees the README's fireeval commands and joins continuation lines."""
    readme = [c for _, c in shown_commands(ROOT / "README.md")]
    assert any(c.startswith(".venv/bin/fireeval run ") for c in readme), readme
    sample = ROOT / "README.md"
    assert all("\\" not in c for c in readme), sample
    argv = shlex.split("fireeval run pool_depth -p measure bpref --output exercises/")
    args = prepared(argv, {"pool_depth": {"max_runs": 20, "measure": "map"}})
    assert args == ["run", "pool_depth", "-p", "measure", "bpref", "-p", "max_runs", "20", "--output", "{out}"]


EXERCISES = re.compile(r"^## Exercises[ \t]*$", re.M)


@pytest.mark.parametrize("path", sorted(NOTEBOOK_DIR.glob("*.md")), ids=lambda p: p.stem)
def test_chapter_ends_with_exercises(path: Path):
    """Convention 2: ``## Exercises`` last; 2-4 exercises, each a `fireeval run` of this chapter and a folded hint."""
    text = path.read_text()
    heading = EXERCISES.search(text)
    assert heading, f"{path.name}: no '## Exercises' section"
    section = text[heading.end():]
    assert not re.search(r"^#{1,2} ", section, re.M), f"{path.name}: '## Exercises' must be the last section"
    commands = [c for block in FENCE.finditer(section) for c in block.group("body").splitlines()
                if c.strip() and not c.strip().startswith("#")]
    assert 2 <= len(commands) <= 4, f"{path.name}: {len(commands)} exercise commands; want 2-4"
    for command in commands:
        argv = shlex.split(command, comments=True)
        assert argv[:3] in (["fireeval", "run", path.stem], [".venv/bin/fireeval", "run", path.stem]), \
            f"{path.name}: exercise command `{command}` does not run this chapter"
    hints = re.findall(r"\{admonition\}\s*Hint[^\n]*\n(?:[ \t]*:[^\n]*\n)*?[ \t]*:class:[^\n]*dropdown", section)
    assert len(hints) >= len(commands), f"{path.name}: {len(hints)} folded hints for {len(commands)} exercises"
