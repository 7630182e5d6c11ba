"""Every command the book and the README show runs as written.

Collects each line of every fenced ```bash block in README.md, book/*.md and
notebooks/*.md (the chapters' exercises among them) and runs it:

* ``fireeval ...`` / ``.venv/bin/fireeval ...`` runs through this Python (``-m fireeval``).
  For ``fireeval run CHAPTER`` the chapter's front-matter ``test_parameters`` are added as
  ``-p`` overrides unless the command sets that parameter itself or says ``--quick`` (which
  starts from them), and ``--output`` goes to a temporary folder. Placeholder file names (``QRELS RUN``, ``GT PRED``,
  ``qrels.txt myrun.txt``) become small valid files written by the test.
* Commands in ``EXCLUDED`` are not run, each for the reason given there.
* Any other command fails the test: test it here or exclude it with a reason.

Identical commands (after the overrides) run once, except that an exercise's command is always its own
test (it checks the exercise's worked solution, even when another page shows the same command): a chapter
run is executed once per test session and set of arguments, in whichever xdist worker asks first, and shared with
tests/book/test_notebooks.py (the ``chapter_runs`` fixture of tests/conftest.py), whose run of a
chapter with its test parameters is ``fireeval run CHAPTER --quick``, the README's command.
A chapter's exercises are also held
to the book's convention (:func:`test_chapter_ends_with_exercises`), and an exercise's
command is checked against its worked solution: the chapter, run with its test
parameters, records in its headline (``exercise_solutions``, see
:mod:`fireeval.book.teaching`) what the solution states and where the exercise's run
prints it; the run of the exercise must print exactly that.
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

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "book").glob("*.md")), *sorted(NOTEBOOK_DIR.glob("*.md"))]
FIREEVAL = ("fireeval", ".venv/bin/fireeval")
EXCLUDED = {
    "bash scripts/": "set-up and whole-book commands: they install system and Python packages and build the "
                     "whole book; CI runs them itself (.ci/run runs scripts/test.sh, which runs setup.sh and book.sh)",
    ".venv/bin/papermill ": "papermill on a chapter as shipped: tests/book/test_own_data.py runs papermill on "
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
        extra = [] if "--quick" in out else [  # --quick: the chapter's test parameters already
            x for name, value in test_parameters.get(chapter, {}).items() if name not in given
            for x in ("-p", name, repr(value))]
        args = ["run", *out, *extra, "--output", "{out}"]
    return [PLACEHOLDERS[a][0] if a in PLACEHOLDERS else a for a in args]


EXERCISES = re.compile(r"^## Exercises[ \t]*$", re.M)
EXERCISE = re.compile(r"^### Exercise (?P<number>\d+) \((?P<kind>run|predict|by hand|code)\): \S.*$", re.M)
THINKING = {"predict", "by hand", "code"}
DROPDOWN = r"\{{admonition\}}\s*{}[^\n]*\n(?:[ \t]*:[^\n]*\n)*?[ \t]*:class:[^\n]*dropdown"


def exercises(path: Path) -> list[dict]:
    """The chapter's exercises: number, kind, first and last line, text (up to the next exercise)."""
    text = path.read_text()
    heading = EXERCISES.search(text)
    if not heading:
        return []
    found = list(EXERCISE.finditer(text, heading.end()))
    out = []
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        out.append({"number": int(match.group("number")), "kind": match.group("kind"),
                    "first": text.count("\n", 0, match.start()) + 1, "last": text.count("\n", 0, end) + 1,
                    "text": text[match.start():end]})
    return out


def exercise_at(where: str) -> tuple[str, int] | None:
    """``(chapter, exercise number)`` when ``where`` (``notebooks/X.md:LINE``) is inside an exercise."""
    file, _, line = where.rpartition(":")
    path = ROOT / file
    if path.parent != NOTEBOOK_DIR:
        return None
    for exercise in exercises(path):
        if exercise["first"] <= int(line) < exercise["last"]:
            return path.stem, exercise["number"]
    return None


def command_id(document: str, command: str, exercise: tuple[str, int] | None) -> str:
    """A test id that names the command, not its line, so that editing the prose around it keeps the id:
    ``notebooks/metrics.md:exercise-2``, ``README.md:run-metrics-quick`` (options without their dashes,
    ``--output`` and comments left out)."""
    if exercise:
        return f"{document}:exercise-{exercise[1]}"
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    if words and words[0] in FIREEVAL:
        words = words[1:]
    output = ("--output", "-o")
    kept = [w for i, w in enumerate(words) if w not in output and not (i and words[i - 1] in output)]
    slug = "-".join(filter(None, (re.sub(r"[^A-Za-z0-9_.=@,-]+", "_", w.lstrip("-")).strip("_") for w in kept)))
    return f"{document}:{slug[:70]}"


def _collect():
    test_parameters = _chapter_test_parameters()
    runs, seen, ids = [], {}, set()
    for path in DOCUMENTS:
        for line, command in shown_commands(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            exercise = exercise_at(where)
            name = command_id(str(path.relative_to(ROOT)), command, exercise)
            name, k = (base := name), 1
            while name in ids:  # a second command of one exercise: -1, -2 ...
                name, k = f"{base}-{k}", k + 1
            try:
                argv = shlex.split(command, comments=True)
            except ValueError as err:
                ids.add(name)
                runs.append(pytest.param(where, command, None, None, id=name,
                                         marks=pytest.mark.xfail(reason=f"unparseable: {err}", strict=True)))
                continue
            if any(command.startswith(prefix) for prefix in EXCLUDED):
                continue
            args = prepared(argv, test_parameters) if argv and argv[0] in FIREEVAL else None
            key = json.dumps(args) if args is not None else command
            if key in seen and not exercise:  # an exercise keeps its own test: it checks the worked solution
                continue  # (a chapter run shown twice is executed once either way: the chapter_runs fixture)
            seen[key] = where
            ids.add(name)
            marks = [pytest.mark.notebook] if args and args[0] == "run" else []
            runs.append(pytest.param(where, command, args, exercise, id=name, marks=marks))
    return runs


@pytest.mark.parametrize("where, command, args, exercise", _collect())
def test_shown_command_runs(where, command, args, exercise, tmp_path, chapter_runs):
    assert args is not None, (f"{where}: `{command}` is neither a fireeval command nor excluded with a reason in "
                              f"tests/book/test_commands.py EXCLUDED: test it or exclude it")
    if args[0] == "run":  # a chapter: executed once per set of arguments, shared with every test reading it
        assert args[-2:] == ["--output", "{out}"], args
        run = chapter_runs.run(args[:-2])
        assert run.returncode == 0, f"{where}: `{command}` failed (ran as {run.failure()})"
        chapter = run.chapter
        assert (run.out / f"{chapter}.headline.json").is_file()
        if exercise:  # an exercise: its worked solution must state what this run printed
            check_solution(*exercise, base_headline(chapter, chapter_runs), run.headline)
        return
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


def test_collects_the_commands_of_every_document():
    """The collector sees the README's fireeval commands and joins continuation lines."""
    readme = [c for _, c in shown_commands(ROOT / "README.md")]
    assert any(c.startswith(".venv/bin/fireeval run ") for c in readme), readme
    sample = ROOT / "README.md"
    assert all("\\" not in c for c in readme), sample
    argv = shlex.split("fireeval run pool_depth -p measure bpref --output exercises/")
    args = prepared(argv, {"pool_depth": {"max_runs": 20, "measure": "map"}})
    assert args == ["run", "pool_depth", "-p", "measure", "bpref", "-p", "max_runs", "20", "--output", "{out}"]
    quick = prepared(shlex.split("fireeval run pool_depth --quick -p seed 2 -o x/"), {"pool_depth": {"max_runs": 20}})
    assert quick == ["run", "pool_depth", "--quick", "-p", "seed", "2", "--output", "{out}"]


def test_every_exercise_command_is_checked_against_its_solution():
    """An exercise whose command another page also shows (book/running.md shows false_negatives' exercise 1)
    is still collected as the exercise: the shared run is checked against the worked solution."""
    collected = {p.id: p.values[3] for p in _collect()}
    for path in sorted(NOTEBOOK_DIR.glob("*.md")):
        document = str(path.relative_to(ROOT))
        for exercise in exercises(path):
            if FENCE.search(exercise["text"]):
                name = f"{document}:exercise-{exercise['number']}"
                assert collected.get(name) == (path.stem, exercise["number"]), f"{name} is not collected"


def test_command_ids_name_the_command_not_its_line():
    """Issue 38: ids were ``file:line`` and changed whenever prose above a command was edited."""
    assert command_id("README.md", ".venv/bin/fireeval run metrics --quick --output results/   # seconds", None) \
        == "README.md:run-metrics-quick"
    assert command_id("notebooks/x.md", "fireeval run x -p k 1", ("x", 2)) == "notebooks/x.md:exercise-2"
    ids = [p.id for p in _collect()]
    assert len(ids) == len(set(ids)) and not [i for i in ids if re.search(r":\d+$", i)], ids


def base_headline(chapter: str, chapter_runs) -> dict:
    """The chapter's headline under its test parameters (executed once per session: the ``chapter_runs``
    fixture of tests/conftest.py, shared with tests/book/test_notebooks.py)."""
    base = chapter_runs.with_test_parameters(chapter)
    assert base.returncode == 0, f"{chapter} with its test parameters failed ({base.failure()})"
    return base.headline


def check_solution(chapter: str, number: int, base: dict, run: dict) -> None:
    """Each checked statement of exercise ``number``'s worked solution appears in the exercise run's headline."""
    from fireeval.book.teaching import lookup, same

    stated = base.get("exercise_solutions", {}).get(str(number), {})
    checked = {name: s for name, s in stated.items() if s.get("check")}
    assert checked, (f"{chapter} exercise {number}: its worked solution states nothing the exercise's run can "
                     f"confirm (Solutions.state(..., check=PATH) in the chapter)")
    for name, statement in checked.items():
        got = lookup(run, statement["check"])
        assert same(statement["value"], got), (
            f"{chapter} exercise {number}: the solution states {name} = {statement['value']!r}, the exercise's "
            f"run gives {got!r} at {statement['check']}")


@pytest.mark.parametrize("path", sorted(NOTEBOOK_DIR.glob("*.md")), ids=lambda p: p.stem)
def test_chapter_ends_with_exercises(path: Path):
    """Convention 2: ``## Exercises`` last; each ``### Exercise N (kind): title`` has a folded worked solution.

    Kinds: ``run`` (a ``fireeval run`` of this chapter), ``predict`` (predict, then run),
    ``by hand`` (compute on a toy case) and ``code`` (write a function and run a checker).
    At least two exercises ask the student to think or write code, and at least one is
    ``code``, whose reference solution is a folded code cell that runs a
    ``fireeval.book.exercises.check_...`` checker.
    """
    text = path.read_text()
    heading = EXERCISES.search(text)
    assert heading, f"{path.name}: no '## Exercises' section"
    section = text[heading.end():]
    prose = re.sub(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", "", section, flags=re.M | re.S)  # a code comment is no heading
    assert not re.search(r"^#{1,2} ", prose, re.M), f"{path.name}: '## Exercises' must be the last section"
    found = exercises(path)
    assert 3 <= len(found) <= 8, f"{path.name}: {len(found)} exercises ('### Exercise N (kind): title'); want 3-8"
    assert [e["number"] for e in found] == list(range(1, len(found) + 1)), f"{path.name}: exercises not numbered 1..n"
    kinds = [e["kind"] for e in found]
    assert sum(k in THINKING for k in kinds) >= 2, f"{path.name}: {kinds}: want two or more predict/by hand/code"
    assert "code" in kinds, f"{path.name}: no code exercise"
    commands = [c for block in FENCE.finditer(section) for c in block.group("body").splitlines()
                if c.strip() and not c.strip().startswith("#")]
    assert 1 <= len(commands) <= 5, f"{path.name}: {len(commands)} exercise commands; want 1-5"
    for command in commands:
        argv = shlex.split(command, comments=True)
        assert argv[:3] in (["fireeval", "run", path.stem], [".venv/bin/fireeval", "run", path.stem]), \
            f"{path.name}: exercise command `{command}` does not run this chapter"
    for exercise in found:
        where = f"{path.name} exercise {exercise['number']}"
        body = exercise["text"]
        solution = re.search(DROPDOWN.format("Solution"), body)
        assert solution, f"{where}: no folded '{{admonition}} Solution' (:class: dropdown)"
        if FENCE.search(body):
            assert "{glue" in body[solution.start():], f"{where}: the worked solution glues no computed value"
        if exercise["kind"] == "code":
            assert re.search(r"```\{code-cell\}[^\n]*\n(?:[ \t]*:[^\n]*\n)*?:tags: \[[^\]]*hide-input[^\]]*\]",
                             body), f"{where}: the reference solution is not a folded (hide-input) code cell"
            assert re.search(r"\bcheck_[a-z_]+\(", body), f"{where}: the reference solution runs no checker"


OPENING = re.compile(r"```\{admonition\} In this chapter[^\n]*\n(?P<body>.*?)^```", re.M | re.S)


@pytest.mark.parametrize("path", sorted(NOTEBOOK_DIR.glob("*.md")), ids=lambda p: p.stem)
def test_chapter_opens_with_objectives(path: Path):
    """Convention 10: objectives, prerequisites and computed times first; terms link to the glossary."""
    text = path.read_text()
    box = OPENING.search(text)
    assert box, f"{path.name}: no '{{admonition}} In this chapter' box"
    first_section = re.search(r"^## ", text, re.M)
    assert first_section is None or box.start() < first_section.start(), \
        f"{path.name}: the 'In this chapter' box must come before the first section"
    body = box.group("body")
    for needed in ("Prerequisites", "{glue:text}`reading_minutes`", "{glue:text}`run_elapsed`"):
        assert needed in body, f"{path.name}: the 'In this chapter' box lacks {needed}"
    assert "{term}" in body, f"{path.name}: the prerequisites link no glossary term"
    assert len(re.findall(r"\{term\}`", text)) >= 5, f"{path.name}: fewer than 5 glossary links"
    meta = load(path).metadata.get("fireeval", {})
    assert "exercise_solutions" in meta.get("headline_keys", []), \
        f"{path.name}: headline_keys lacks exercise_solutions"
