"""The session's shared chapter runs (tests/conftest.py ``ChapterRuns``): one execution per set of arguments,
even when two xdist workers ask for it at the same moment; other arguments run again; a failure is kept
with the command that failed."""
from concurrent.futures import ThreadPoolExecutor

from conftest import ChapterRuns
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
