"""Whole-process timing shared by the benchmark scripts (not a benchmark itself).

``run(cmd)`` runs one command in a small wrapper process that reports the command's
wall time, CPU time (user + sys) and peak resident memory from
``resource.getrusage(RUSAGE_CHILDREN)``: the wrapper has no other children, so the
figures are the command's alone (and its descendants': a chapter's Jupyter kernel is
included; peak memory is that of the largest single process). ``chapter(name)`` times
``python -m fireeval run NAME`` as a user runs it and prints what the figure includes.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]

CHAPTER_INCLUDES = ("interpreter start-up, imports, parameter checks, papermill and Jupyter kernel start-up, "
                    "data loading, the experiment, charts, writing the notebook and headline")

_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": use.ru_utime + use.ru_stime, "peak_mb": use.ru_maxrss / 1024,
                  "returncode": done.returncode, "stderr": done.stderr[-3000:]}))
"""


class Figures(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + sys seconds of the command and its descendants
    peak_mb: float  # peak resident memory of the largest single process, MB

    def __str__(self):
        return f"{self.wall:6.1f} s wall, {self.cpu:6.1f} s cpu, {self.peak_mb:5.0f} MB peak"


def run(cmd, env=None) -> Figures:
    """Wall, CPU and peak memory of ``cmd`` (a list of arguments) run from the repository root."""
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *map(str, cmd)], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True)
    got = json.loads(out.stdout)
    if got["returncode"]:
        raise SystemExit(f"{' '.join(map(str, cmd[:6]))} ... failed (exit {got['returncode']}):\n{got['stderr']}")
    return Figures(got["wall"], got["cpu"], got["peak_mb"])


def chapter(name: str, parameters: dict | None = None, target: float | None = None) -> Figures:
    """Time ``python -m fireeval run NAME [-p K V ...] --output TMP`` and print the figure, what it includes
    and, with ``target`` (seconds of wall time), whether it is met."""
    parameters = parameters or {}
    options = [a for k, v in parameters.items() for a in ("-p", k, repr(v))]
    with tempfile.TemporaryDirectory() as tmp:
        figures = run([sys.executable, "-m", "fireeval", "run", name, *options, "--output", tmp])
    shown = " ".join(f"-p {k} {v!r}" for k, v in parameters.items()) or "(default parameters)"
    print(f"whole process: fireeval run {name} {shown}: {figures}")
    print(f"  includes {CHAPTER_INCLUDES}")
    if target is not None:
        print(f"  {target_line('chapter wall time', figures.wall, target, ' s')}")
    return figures


def add_flag(parser, *aliases: str) -> None:
    """``--no-whole-process`` (and ``aliases`` of it): skip the whole-process figures."""
    parser.add_argument("--no-whole-process", *aliases, dest="no_whole_process", action="store_true",
                        help="skip the whole-process figure(s) (running the chapter as a user does)")


def versions(*distributions: str) -> str:
    """'numpy 2.1.3, scipy 1.14.1' for the installed distributions named."""
    def one(name):
        try:
            return f"{name} {version(name)}"
        except PackageNotFoundError:
            return f"{name} (not installed)"
    return ", ".join(one(d) for d in distributions)


def header() -> None:
    """One line on the machine the figures come from."""
    print(f"Python {platform.python_version()}, {load()}")


def byte_compile() -> str:
    """Byte-compile fireeval as scripts/setup.sh does, so a timed command does not re-compile modules
    edited since (with PYTHONDONTWRITEBYTECODE set, nothing else would write the .pyc files)."""
    import compileall

    compileall.compile_dir(str(ROOT / "fireeval"), quiet=1)
    return "fireeval byte-compiled (as scripts/setup.sh leaves it)"


def load() -> str:
    """The machine's load averages (1, 5 and 15 minutes) and cores, for every printed figure."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def verdict(value: float, target: float, at_most: bool = True) -> str:
    """``met`` or ``missed``: ``value`` against ``target`` (``value <= target``, or ``>=`` with ``at_most=False``)."""
    return "met" if (value <= target if at_most else value >= target) else "missed"


def target_line(what: str, value: float, goal: float, unit: str = "x", at_most: bool = True) -> str:
    """``target: WHAT <= GOAL: VALUE -> met (load ...)``, the line each benchmark prints beside a figure."""
    sign = "<=" if at_most else ">="
    return (f"target: {what} {sign} {goal:g}{unit}: {value:.2f}{unit} -> {verdict(value, goal, at_most)} "
            f"({load()})")


def footer() -> str:
    """The last line of a benchmark: this script's own peak resident memory (its in-process figures' data, modules
    and work; a whole-process figure is its command's own, measured apart) and the machine's load now."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return f"\nin process: peak resident memory of this script {peak:.0f} MB; {load()}"


def median_figures(runs) -> Figures:
    """The median of each figure over several runs of one command."""
    import statistics

    return Figures(*(statistics.median(getattr(r, field) for r in runs) for field in Figures._fields))
