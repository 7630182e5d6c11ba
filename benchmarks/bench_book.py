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
  pytest, book, page check, total).

``--execute CHAPTER ...`` times ``python -m fireeval run CHAPTER`` now, at its full settings,
one chapter at a time with numerical libraries held to one thread (the "one core" of the target),
as a user runs it (whole process: benchmarks/_timing.py).

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
            f"  {'':<44} set-up {rec['setup']} s, book {rec['book']} s, page check {rec['page_check']} s"]


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
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, load average now {os.getloadavg()[0]:.1f}; figures recorded in {args.build}")
    print("book execution:")
    print("\n".join(book_report(args.build)))
    print("test command:")
    print("\n".join(test_command_report(args.build)))
    if args.execute:
        print("executed now:")
        print("\n".join(execute_now(args.execute)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
