"""The session's shared chapter runs (tests/conftest.py ``ChapterRuns``): one execution per set of arguments,
even when two xdist workers ask for it at the same moment; other arguments run again; a failure is kept
with the command that failed."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import ChapterRuns, computed_once
from test_run_atomic import NB as TINY

# test_run_atomic's one-parameter notebook, with a cell that logs each execution in the notebook's folder
NB = TINY + """
```{code-cell} ipython3
import os
with open("executions.txt", "a") as log:
    log.write(f"{value} {os.getpid()}\\n")
```
"""


def chapter_arguments(chapter: str, parameters: dict) -> list:
    """``run CHAPTER -p NAME VALUE ...`` (values as Python literals, the form ``fireeval run`` reads)."""
    return ["run", chapter, *[x for name, value in parameters.items() for x in ("-p", name, repr(value))]]


def test_one_execution_per_set_of_arguments_across_workers(tmp_path):
    nb = tmp_path / "tiny.md"
    nb.write_text(NB)
    cache = tmp_path / "chapter-runs"
    workers = [ChapterRuns(cache), ChapterRuns(cache)]  # two processes' fixtures over one cache folder
    args = chapter_arguments(str(nb), {"value": 7})
    assert args == ["run", str(nb), "-p", "value", "7"]
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda w: w.run(args), workers)
    assert first.returncode == second.returncode == 0, first.failure()
    assert first.headline == second.headline == {"value": 7, "data_folder": None}
    assert first.out == second.out and first.notebook.is_file()
    assert (tmp_path / "executions.txt").read_text().count("\n") == 1  # the kernel ran once
    assert workers[0].run(args) is first  # and is remembered in the process
    refused = workers[1].run(chapter_arguments(str(nb), {"value": -1}))  # other arguments: run again
    assert refused.out != first.out and refused.returncode == 2 and "value" in refused.stderr
    assert f"fireeval run {nb} -p value -1 --output" in refused.failure()
    assert workers[0].run(args).headline == {"value": 7, "data_folder": None}  # the other worker reads its record
    assert (tmp_path / "executions.txt").read_text().count("\n") == 1


def test_a_result_is_computed_once_across_workers_and_a_failure_is_not_kept(tmp_path):
    """conftest.computed_once (the ``once_per_session`` fixture): two workers asking at once get one computation."""
    calls = []

    def compute():
        calls.append(1)
        return {"found": [1, 2]}

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: computed_once(tmp_path / "shared", compute), range(2)))
    assert results == [{"found": [1, 2]}] * 2 and len(calls) == 1

    def fail():
        calls.append(1)
        raise RuntimeError("no browser")

    for _ in range(2):  # nothing recorded: the next caller meets the failure again
        with pytest.raises(RuntimeError, match="no browser"):
            computed_once(tmp_path / "failing", fail)
    assert len(calls) == 3 and not (tmp_path / "failing" / "result.pickle").exists()


def test_commands_that_mean_the_same_parameters_share_one_execution(tmp_path):
    """Issue 38: a value spelled otherwise (``0.`` and ``0.0``, ``'synthetic'`` and ``synthetic``) or the ``-p`` in
    another order is the same run of the chapter (conftest.meaning); another value is another run."""
    from conftest import meaning

    nb = tmp_path / "tiny.md"
    nb.write_text(NB)
    runs = ChapterRuns(tmp_path / "chapter-runs")
    first = runs.run(["run", str(nb), "-p", "value", "7", "-p", "sleep", "0.0"])
    second = runs.run(["run", str(nb), "-p", "sleep", "0.", "-p", "value", "7"])
    assert first is second and first.returncode == 0, first.failure()
    assert (tmp_path / "executions.txt").read_text().count("\n") == 1
    assert meaning(["run", "x", "-p", "source", "'synthetic'"]) == meaning(["run", "x", "-p", "source", "synthetic"])
    assert meaning(["run", "x", "--quick", "-p", "n", "1"]) != meaning(["run", "x", "-p", "n", "1"])
    assert meaning(["run", "x", "-p", "n", "1"]) != meaning(["run", "x", "-p", "n", "1.0"])  # an int, a float
    assert meaning(["run", "x", "-p", "n", "1"]) != meaning(["run", "y", "-p", "n", "1"])
    twice = ["run", "x", "-p", "n", "1", "-p", "n", "2"]  # refused by the command: its own spelling, its own run
    assert meaning(twice) != meaning(["run", "x", "-p", "n", "2", "-p", "n", "1"])
    other = runs.run(["run", str(nb), "-p", "value", "8", "-p", "sleep", "0.0"])
    assert other.headline["value"] == 8 and (tmp_path / "executions.txt").read_text().count("\n") == 2
