import fcntl
import gc
import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from fireeval.datasets import SHARED_DATA, has_data

# Property tests in CI ("ci", the default; scripts/test.sh names it) are reproducible: the same examples every
# run, so a failure is never a coin flip. A test that does not set its own count draws CI_EXAMPLES examples,
# and each of its examples must finish within CI_DEADLINE_MS: generous, because the machine is shared and a
# deadline there is to catch a pathologically slow example, not a busy core (the slowest such example measured
# took about 1 s under a load of 10 on 2 cores). A test that sets max_examples or deadline states it beside
# the test (most property tests: 12 to 300 examples, deadline=None for those that execute whole functions of
# the library on generated collections); what each costs is printed by the test command's --durations=15.
# HYPOTHESIS_PROFILE=dev explores new examples, 500 of them, without a deadline.
CI_EXAMPLES = 100
CI_DEADLINE_MS = 10_000
settings.register_profile("ci", derandomize=True, max_examples=CI_EXAMPLES, deadline=CI_DEADLINE_MS, print_blob=True)
settings.register_profile("dev", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def require_data(*names):
    """Skip (with the reason shown in the summary) unless the named registry files are present."""
    if not has_data(*names):
        pytest.skip(f"real data absent: {names[0]}{' ...' if len(names) > 1 else ''} not under FIREEVAL_DATA "
                    f"or {SHARED_DATA}")


# --------------------------------------------------------------------------- garbage collection
# statsmodels' multipletests (fireeval.stats.significance.holm) runs gc.collect() on every call, and a full
# collection walks every object of the process: ~0.2 s in a test process that has imported numpy, scipy,
# pandas and the tests (test_swapping_negates_difference_and_keeps_p spent 16 s of its 17 s there). Between
# tests the objects that survived are collected once and then frozen (gc.freeze: kept out of later
# collections), so a collection inside a test only walks what that test made. Nothing uncollected is frozen.
def pytest_runtest_setup(item):
    gc.collect()
    gc.freeze()


# --------------------------------------------------------------------------- scheduling on xdist workers
# Issue 38: with xdist's default `--dist load` the CI run (2 workers) spent ~1000 of its 2840 worker-seconds idle.
# `load` hands each worker a fixed batch of the collection in order and never takes back what it sent: the first
# worker's second batch held nearly every chapter execution (tests/book), so the other worker, done with its cheap
# tests, waited for it for minutes. Two changes: `-n N` steals work (xdist's `worksteal`: a worker that runs out
# takes half of what another has left), and the tests that execute a chapter (marked `notebook`) run first,
# grouped by chapter (the tests reading one chapter's runs next to each other, so that one worker executes a run
# while the other works elsewhere instead of waiting on its lock), the biggest group first; cheap tests fill the end.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`-n N` (xdist's `load`, given no other `--dist`) steals work: no worker sits idle while another has a queue."""
    if config.getoption("dist") == "load":
        from xdist.scheduler import WorkStealingScheduling

        return WorkStealingScheduling(config, log)
    return None


def chapter_of(item) -> str | None:
    """The chapter a test marked ``notebook`` executes (from its parameters: ``path``, ``chapter`` or a command's
    ``args``), ``""`` when it names none, ``None`` for a test that executes no chapter."""
    if item.get_closest_marker("notebook") is None:
        return None
    params = getattr(getattr(item, "callspec", None), "params", {})
    if isinstance(params.get("path"), Path):
        return params["path"].stem
    if isinstance(params.get("chapter"), str):
        return params["chapter"]
    args = params.get("args")
    if isinstance(args, list) and len(args) > 1 and args[0] == "run":
        return Path(str(args[1])).stem
    return ""


def pytest_collection_modifyitems(session, config, items):
    """Chapter executions first, grouped by chapter, the biggest group first; every other test after them in
    collection order (the same order in every xdist worker: it depends on the collection alone)."""
    chapters = [chapter_of(item) for item in items]
    size = {c: chapters.count(c) for c in set(chapters) if c is not None}
    order = sorted(range(len(items)), key=lambda i: (chapters[i] is None,
                                                     (-size[chapters[i]], chapters[i]) if chapters[i] is not None
                                                     else (0, ""), i))
    items[:] = [items[i] for i in order]


# --------------------------------------------------------------------------- chapters, executed once
@dataclass(frozen=True)
class ChapterRun:
    """One ``fireeval run`` of a chapter: the command, its exit status and output, and the folder it wrote.

    Shared by every test that reads the same chapter with the same arguments: read it, never write into
    ``out`` (copy a file first, as test_notebooks does before re-executing the notebook)."""
    argv: tuple
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    out: Path
    chapter: str

    @property
    def headline(self) -> dict:
        return json.loads((self.out / f"{self.chapter}.headline.json").read_text())

    @property
    def notebook(self) -> Path:
        return self.out / f"{self.chapter}.ipynb"

    def failure(self) -> str:
        return (f"fireeval {' '.join(self.argv)} exited {self.returncode}:\n{self.stdout[-3000:]}\n"
                f"{self.stderr[-5000:]}")


class ChapterRuns:
    """``fireeval run`` a chapter once per set of arguments for the whole test session, across xdist workers.

    Runs go into a cache folder beside the workers' own temporary folders (under the session's pytest
    base folder, fresh every session), one folder per command keyed by what its arguments mean (:func:`meaning`;
    :func:`computed_once`:
    a second worker asking for the same run waits for the first and then reads its result instead of
    executing the chapter again). A failed run is shared too (each test that needs it reports it)."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._done: dict[str, ChapterRun] = {}

    def run(self, args: list) -> ChapterRun:
        """``python -m fireeval ARGS --output DIR`` (``args``: ``run CHAPTER ...`` without ``--output``)."""
        args = [str(a) for a in args]
        assert args[0] == "run" and "--output" not in args and "-o" not in args, args
        key = hashlib.sha256(meaning(args).encode()).hexdigest()[:16]
        if key in self._done:
            return self._done[key]
        chapter = Path(args[1]).stem
        folder = self.root / f"{chapter}-{key}"

        def execute() -> dict:
            argv = [*args, "--output", str(folder / "out")]
            started = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "fireeval", *argv], cwd=folder,
                                  capture_output=True, text=True, timeout=1200)
            return {"argv": argv, "returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr,
                    "seconds": time.perf_counter() - started}

        got = computed_once(folder, execute)
        done = ChapterRun(tuple(got["argv"]), got["returncode"], got["stdout"], got["stderr"], got["seconds"],
                          folder / "out", chapter)
        self._done[key] = done
        return done

    def with_test_parameters(self, chapter: str) -> ChapterRun:
        """The chapter with its front matter's test parameters: ``fireeval run CHAPTER --quick``, as the README
        shows it (tests/book/test_commands.py runs that command as written: the same run)."""
        return self.run(["run", chapter, "--quick"])


def meaning(args: list[str]) -> str:
    """What a ``fireeval run`` command asks for, as the command reads it: the chapter, its other options in their
    order, and each ``-p NAME VALUE`` as the value ``fireeval run`` parses (``parse_value``), by name. Two
    commands that differ only in how they spell a value (``'synthetic'``, ``synthetic``; ``0.`` and ``0.0``) or
    in the order of their ``-p`` execute the same chapter with the same parameters: one execution serves both
    (issue 38). A parameter given twice (refused by the command) keeps the command's own spelling."""
    from fireeval.book.notebooks import parse_value

    options, parameters = [], {}
    i = 2
    while i < len(args):
        if args[i] in ("-p", "--parameter") and i + 2 < len(args) and args[i + 1] not in parameters:
            parameters[args[i + 1]] = parse_value(args[i + 2])
            i += 3
        elif args[i] in ("-p", "--parameter"):
            return json.dumps(args)
        else:
            options.append(args[i])
            i += 1
    return json.dumps([*args[:2], options, repr(sorted(parameters.items()))])


def session_folder(tmp_path_factory) -> Path:
    """The test session's own base folder, the same in every xdist worker (each worker's base is inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def computed_once(folder: Path, compute):
    """``compute()`` once per test session across xdist workers, its (picklable) result kept in ``folder``.

    An ``flock`` on the folder's lock file makes a second worker asking for the same result wait for the first
    and then read it instead of computing it again. A result is written only when ``compute`` returns: when it
    raises (a failure, a skip), the next caller computes again and meets the same exception. (xdist's
    ``--dist loadgroup`` would keep such tests in one worker, but with pytest 9 it no longer groups: the group
    is written into the node id, which pytest 9 ignores, pytest-xdist issue 1386.)"""
    folder.mkdir(parents=True, exist_ok=True)
    record = folder / "result.pickle"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker computing it: wait, then read its record
        if not record.is_file():
            partial = folder / "result.partial"
            partial.write_bytes(pickle.dumps(compute()))
            partial.replace(record)
    return pickle.loads(record.read_bytes())


@pytest.fixture(scope="session", autouse=True)
def forked_kernels():
    """Every chapter this session runs (``fireeval run``, ``execute``) gets a kernel forked from one server per
    worker that imported ipykernel and the chapters' libraries once (fireeval.book.forked_kernels, issue 38:
    about 2 s less per execution). tests/book/test_forked_kernels.py shows such a kernel is the one Jupyter
    starts; the tests of interrupts and kills (tests/cli/test_run_paths.py, test_run_atomic.py) start their
    kernels as a reader's ``fireeval run`` does. ``FIREEVAL_FORK_KERNELS=0`` runs the suite without it."""
    import tempfile

    try:
        from fireeval.book import forked_kernels as forked
        from fireeval.book.notebooks import kernel_environment
    except ImportError:  # the library without the book's extra (the lower-bound job): no kernels to start
        forked = None
    if forked is None or os.environ.get("FIREEVAL_FORK_KERNELS") == "0":
        yield None
        return
    folder = tempfile.mkdtemp(prefix="fireeval-test-kernels-")
    before = dict(os.environ)
    os.environ.update(kernel_environment())  # (the server imports the libraries as the kernels would)
    try:
        server = forked.serve_kernels(os.path.join(folder, "socket"))
    finally:
        os.environ.clear()
        os.environ.update(before)
    os.environ[forked.SERVER_VARIABLE] = server.socket_path
    try:
        yield server
    finally:
        os.environ.pop(forked.SERVER_VARIABLE, None)
        server.stop()
        os.rmdir(folder)


@pytest.fixture(scope="module")
def kernels_started_as_a_readers():
    """For a module of tests of signals and kills: its chapters' kernels start as a reader's ``fireeval run``
    starts them, without the session's fork server (``pytestmark = pytest.mark.usefixtures(...)``)."""
    try:
        from fireeval.book.forked_kernels import SERVER_VARIABLE
    except ImportError:  # (no book extra: no server either)
        yield
        return
    saved = os.environ.pop(SERVER_VARIABLE, None)
    yield
    if saved is not None:
        os.environ[SERVER_VARIABLE] = saved


@pytest.fixture(scope="session")
def chapter_runs(tmp_path_factory) -> ChapterRuns:
    return ChapterRuns(session_folder(tmp_path_factory) / "chapter-runs")


@pytest.fixture(scope="session")
def once_per_session(tmp_path_factory):
    """``once_per_session(name, compute)``: ``compute()``'s result, computed once per test session and shared by
    every test and xdist worker that asks for ``name`` (see :func:`computed_once`)."""
    root = session_folder(tmp_path_factory) / "computed-once"
    return lambda name, compute: computed_once(root / name, compute)


@pytest.fixture(scope="session")
def trec8_runs(once_per_session):
    """The 129 TREC-8 runs as one RunSet (``trec8.load_runs()``), read once per session and shared by the tests
    and xdist workers that score all of them (reading them takes about 12 CPU-s; the pickled RunSet, 33 MB,
    loads at once). Read it, never change it."""
    from fireeval.datasets import trec8

    require_data(*trec8.FILES)
    return once_per_session("trec8_runs", trec8.load_runs)


def one_line(excinfo) -> str:
    """The message of a ``pytest.raises`` error that must be one line with a ``Fix:`` (declared validation, issue 36)."""
    text = str(excinfo.value)
    assert "\n" not in text and "Fix:" in text, text
    return text
