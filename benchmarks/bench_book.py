"""How long the book and the test command take, against issue 38's targets, each marked met or missed.

    .venv/bin/python benchmarks/bench_book.py [--build _build] [--execute CHAPTER ...]

Without ``--execute`` nothing is run: the figures are the last recorded ones, with the load
the machine had when they were taken (run ``bash scripts/book.sh`` from an empty cache with
``BOOK_WORKERS=2``, or ``bash scripts/test.sh``, to record new ones):

* ``_build/.fireeval-execution-run.json`` (scripts/execute_book.py): the last execution of the
  book's notebooks as a whole -- wall time, workers, which notebooks, whether the cache was empty;
* ``_build/.fireeval-execution-times.json`` (scripts/execute_book.py): each notebook's own
  execution time at its full settings, from the run that last executed it;
* ``_build/.fireeval-test-times.json`` (scripts/test.sh): the test command's phases (set-up,
  pytest, book, page check, total);
* ``_build/.fireeval-pytest-junit.xml`` (scripts/test.sh): each test's time in that run, of which the
  15 slowest are printed.

``--execute CHAPTER ...`` times ``python -m fireeval run CHAPTER`` now, at its full settings,
one chapter at a time with numerical libraries held to one thread (the "one core" of the target),
as a user runs it (whole process: benchmarks/_timing.py). ``--pytest [PATH ...]`` times the test
command's pytest now (``pytest -n 2`` on ``--doctest-modules fireeval tests``, or on the paths given) and
prints its 15 slowest tests; only the whole suite is held to the pytest target.

Targets (issue 38, quiet 2-core machine): the whole book from an empty cache <= 150 s wall with
BOOK_WORKERS=2; each chapter <= 60 s on one core; pytest <= 180 s wall; the test command <= 6 min
including set-up. A figure taken under load (load average above the cores) is marked so: a miss
there may be the machine's, a met is still a met.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]
BOOK_WALL = 150.0  # s, the whole book from an empty cache, BOOK_WORKERS=2
CHAPTER_WALL = 60.0  # s, one chapter at full settings on one core
PYTEST_WALL = 180.0  # s, pytest -n 2
COMMAND_WALL = 360.0  # s, bash scripts/test.sh including set-up
JUNIT = ".fireeval-pytest-junit.xml"  # scripts/test.sh: pytest --junitxml=_build/JUNIT
SLOWEST = 15
WHOLE_SUITE = ["--doctest-modules", "fireeval", "tests"]  # what scripts/test.sh gives pytest


def verdict(seconds: float | None, target: float) -> str:
    """``met`` when the figure is within the target, ``missed`` when not, ``not measured`` without one."""
    if seconds is None:
        return "not measured"
    return "met" if seconds <= target else "missed"


def line(what: str, seconds: float | None, target: float, note: str = "") -> str:
    shown = "    -  " if seconds is None else f"{seconds:7.1f} s"
    return f"  {what:<44} {shown}   target <= {target:g} s: {verdict(seconds, target)}{'  ' + note if note else ''}"


def _load_note(load, cores) -> str:
    """'load 1.2 (quiet)' or 'load 6.3 on 2 cores (busy: a miss may be the machine's)'."""
    if load is None:
        return "load not recorded"
    first = float(str(load).split()[0]) if isinstance(load, str) else float(load[0])
    cores = cores or os.cpu_count() or 1
    return (f"load {first:.1f} on {cores} cores" +
            (" (busy: a miss may be the machine's)" if first > cores else " (quiet)"))


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except ValueError as err:
        raise SystemExit(f"bench_book: {path}: not JSON ({err}). Fix: delete it and re-run the command that "
                         "writes it")


def book_report(build: Path) -> list[str]:
    out = []
    run = _read(build / ".fireeval-execution-run.json")
    if run is None:
        out.append(line("whole book, empty cache, 2 workers", None, BOOK_WALL,
                        f"(no {build.name}/.fireeval-execution-run.json: run BOOK_WORKERS=2 bash scripts/book.sh "
                        "after rm -rf _build/.jupyter_cache)"))
    else:
        comparable = run.get("from_empty_cache") and run.get("workers") == 2 and not run.get("failed")
        why = [] if comparable else [
            *([f"{len(run.get('executed', []))} notebooks executed, not the whole book"]
              if not run.get("from_empty_cache") else []),
            *([f"{run.get('workers')} workers, not 2"] if run.get("workers") != 2 else []),
            *([f"failed: {', '.join(run['failed'])}"] if run.get("failed") else [])]
        out.append(line("whole book, empty cache, 2 workers", run["wall"] if comparable else None, BOOK_WALL,
                        f"({run.get('finished', '?')}, {_load_note(run.get('load'), run.get('cores'))})" if comparable
                        else f"(the last execution, {run['wall']:.0f} s wall, is not comparable: {'; '.join(why)})"))
        out.append(f"  {'':<44} sum of the notebooks' own times {run.get('sum', float('nan')):.1f} s")
    times = _read(build / ".fireeval-execution-times.json")
    if times is None:
        out.append(line("each chapter, full settings", None, CHAPTER_WALL,
                        f"(no {build.name}/.fireeval-execution-times.json: build the book)"))
    else:
        workers = (run or {}).get("workers")
        for name, seconds in sorted(times.items(), key=lambda kv: -kv[1]):
            out.append(line(f"chapter {Path(name).stem}", seconds, CHAPTER_WALL))
        out.append(f"  (each notebook's time from the build that last executed it"
                   f"{f', the last with {workers} worker(s) sharing the cores' if workers else ''})")
    return out


def test_command_report(build: Path) -> list[str]:
    rec = _read(build / ".fireeval-test-times.json")
    if rec is None:
        return [line(what, None, target, "(no record: run bash scripts/test.sh)")
                for what, target in (("pytest -n 2", PYTEST_WALL), ("test command incl. set-up", COMMAND_WALL))]
    note = f"({rec.get('finished', '?')}, {_load_note(rec.get('load_start'), rec.get('cores'))} at the start)"
    return [line("pytest -n 2", rec["pytest"], PYTEST_WALL, note),
            line("test command incl. set-up", rec["total"], COMMAND_WALL, note),
            f"  {'':<44} set-up {rec['setup']} s, book {rec['book']} s, page check {rec['page_check']} s, "
            f"lower bounds {rec.get('lower_bounds', '?')} s"
            + (" (beside the page check)" if rec.get("lower_bounds_beside_page_check") else ""),
            *idle_workers(build / JUNIT, rec["pytest"], rec.get("workers") or 2),
            *slowest_tests(build / JUNIT)]


def idle_workers(junit: Path, wall: float, workers: int) -> list[str]:
    """The worker-seconds pytest's wall paid for that no test used: start-up, collection in each worker, and workers
    idle while another still had tests (issue 38: 1,012 of 2,840 with xdist's ``load``, which never takes back tests
    it handed out). Empty when there is no junit report."""
    import xml.etree.ElementTree as ET

    try:
        tests = sum(float(case.get("time") or 0.0) for case in ET.parse(junit).getroot().iter("testcase"))
    except (FileNotFoundError, ET.ParseError):
        return []
    paid = workers * wall
    return [f"  {'':<44} tests {tests:.0f} worker-s of {workers} x {wall:g} s = {paid:.0f}: "
            f"{max(paid - tests, 0):.0f} worker-s ({max(paid - tests, 0) / paid:.0%}) outside tests (start-up, "
            f"collection, idle workers)"]


def slowest_tests(junit: Path, n: int = SLOWEST) -> list[str]:
    """The ``n`` slowest tests of a pytest ``--junitxml`` report (set-up, call and teardown), slowest first."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(junit).getroot()
    except FileNotFoundError:
        return [f"  (no {junit.name}: the slowest tests are recorded by bash scripts/test.sh)"]
    except ET.ParseError as err:
        raise SystemExit(f"bench_book: {junit}: not a junit XML report ({err}). Fix: delete it and re-run "
                         "bash scripts/test.sh") from None
    cases = [(float(case.get("time") or 0.0), f"{case.get('classname', '')}::{case.get('name', '')}")
             for case in root.iter("testcase")]
    cases.sort(key=lambda c: -c[0])
    return [f"  the {min(n, len(cases))} slowest of {len(cases)} tests ({junit.name}):",
            *(f"  {seconds:9.1f} s  {name}" for seconds, name in cases[:n])]


def pytest_now(paths: list[str]) -> list[str]:
    """Time ``pytest -n 2`` now (whole process), the 15 slowest tests, and the pytest target for the whole suite."""
    import tempfile

    import _timing

    whole = not paths
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / JUNIT
        env = {**os.environ, "HYPOTHESIS_PROFILE": "ci"}
        load = _load_note(os.getloadavg(), None)
        figures = _timing.run([sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "-q",
                               f"--junitxml={junit}", *(WHOLE_SUITE if whole else paths)], env=env)
        what = "pytest -n 2 (now, the whole suite)" if whole else f"pytest -n 2 (now, {' '.join(paths)})"
        head = (line(what, figures.wall, PYTEST_WALL, f"({figures.cpu:.1f} s cpu; {load} at the start)") if whole
                else f"  {what:<44} {figures.wall:7.1f} s   ({figures.cpu:.1f} s cpu; {load} at the start; "
                     f"a part of the suite: the {PYTEST_WALL:g} s target is for the whole)")
        return [head, *slowest_tests(junit)]


def execute_now(chapters: list[str]) -> list[str]:
    import _timing

    one_core = {**os.environ, **{k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}
    out = []
    for name in chapters:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            figures = _timing.run([sys.executable, "-m", "fireeval", "run", name, "--output", tmp], env=one_core)
        out.append(line(f"chapter {name} (now, one thread)", figures.wall, CHAPTER_WALL,
                        f"({figures.cpu:.1f} s cpu, {figures.peak_mb:.0f} MB; {_load_note(os.getloadavg(), None)})"))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=ROOT / "_build", help="the build folder (default _build)")
    parser.add_argument("--execute", nargs="+", metavar="CHAPTER", default=[],
                        help="time these chapters now at their full settings (one at a time, one thread)")
    parser.add_argument("--pytest", nargs="*", metavar="PATH", default=None,
                        help="time pytest -n 2 now, on the whole suite or on these paths, with its slowest tests")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, load average now {os.getloadavg()[0]:.1f}; figures recorded in {args.build}")
    print("book execution:")
    print("\n".join(book_report(args.build)))
    print("test command:")
    print("\n".join(test_command_report(args.build)))
    if args.execute:
        print("executed now:")
        print("\n".join(execute_now(args.execute)))
    if args.pytest is not None:
        print("pytest now:")
        print("\n".join(pytest_now(args.pytest)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
