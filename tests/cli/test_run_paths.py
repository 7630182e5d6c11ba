"""Issue 39: the data you name is the data you get, paths are read from where you stand, results appear
together, and an interrupt at any moment leaves the previous results whole, in one line.

The chapter here is a small one (seconds per run) with a parameter of every path kind: a folder
(``data_dir``), a file (``qrels``), a list of files (``extra_runs``) and a dict of files (``predictions``).
It lives in its own folder, and every run is started from another one with relative paths."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import nbformat
import pytest

from conftest import require_data
from fireeval import cli
from fireeval.book import notebooks

pytestmark = pytest.mark.usefixtures("kernels_started_as_a_readers")  # (signals and kills: a reader's kernels)

DATA_FILE = "trec8_adhoc/runs.tsv"  # a small registry file, copied into the reader's own data folder
VENV_BIN = Path(sys.executable).parent

CHAPTER = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
# A small chapter

The value is {glue:text}`value`.

```{code-cell} ipython3
:tags: [parameters]
data_dir = None  # folder holding trec8_adhoc/. Allowed: str or None
qrels = None  # a file of yours. Allowed: str or None
extra_runs = []  # files of yours. Allowed: list of str or []
predictions = {}  # name -> file of yours. Allowed: dict of str or {}
value = 1  # the headline value. Allowed: int >= 0
sleep = 0.0  # seconds to sleep before the headline. Allowed: float >= 0
```

```{code-cell} ipython3
import time
import warnings
from pathlib import Path
from fireeval.book import report
from fireeval.datasets import choose_source
source = choose_source("auto", [%r], root=data_dir, what="the TREC-8 run table")
read = {"qrels": Path(qrels).read_text() if qrels else None,
        "extra_runs": [Path(p).read_text() for p in extra_runs],
        "predictions": {k: Path(p).read_text() for k, p in predictions.items()}}
warnings.warn("a warning the reader should see without the kernel's file name")
if sleep:
    Path("in-the-cell").touch()  # (the kernel runs in the chapter's folder: the test waits for this)
time.sleep(sleep)
report.glue("value", value)
report.headline({"value": value, "data_source": source, "read": read})
```
""" % DATA_FILE


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A chapter in ``chapter/``; the reader stands in ``me/`` with their files and their data folder ``dd``."""
    require_data(DATA_FILE)
    from fireeval.datasets import data_path

    root = tmp_path_factory.mktemp("issue39")
    (root / "chapter").mkdir()
    (root / "chapter" / "small.md").write_text(CHAPTER)
    me = root / "me"
    (me / "dd" / "trec8_adhoc").mkdir(parents=True)
    shutil.copyfile(data_path(DATA_FILE), me / "dd" / DATA_FILE)
    (me / "empty").mkdir()
    (me / "sub").mkdir()
    (me / "my.qrels").write_text("qrels of mine\n")
    (me / "r1.run").write_text("run of mine\n")
    (me / "sub" / "p.csv").write_text("predictions of mine\n")
    return root


EXPECTED_READ = {"qrels": "qrels of mine\n", "extra_runs": ["run of mine\n"],
                 "predictions": {"mine": "predictions of mine\n"}}
RELATIVE = ["-p", "qrels", "my.qrels", "-p", "extra_runs", '["r1.run"]', "-p", "predictions", '{"mine": "sub/p.csv"}']


def _run(place, monkeypatch, *args):
    monkeypatch.chdir(place / "me")
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    return cli.main(["run", str(place / "chapter" / "small.md"), *args])


# --------------------------------------------------------------------------- paths from where you stand
def test_relative_paths_of_every_kind_are_read_from_the_callers_folder(place, monkeypatch, capsys):
    me = place / "me"
    assert _run(place, monkeypatch, "--data-dir", "dd", "--output", "out", *RELATIVE) == 0
    printed = capsys.readouterr()
    headline = json.loads((me / "out" / "small.headline.json").read_text())
    assert headline["read"] == EXPECTED_READ and headline["data_source"] == "real"
    assert headline["data_folder"] == str((me / "dd").resolve())  # the folder actually read, in the headline,
    assert f"data read from: {(me / 'dd').resolve()}" in printed.out  # the summary
    page = (me / "out" / "small.html").read_text()
    assert f"Data read from {(me / 'dd').resolve()}." in page  # and the page's data line
    # a warning shows as the reader's line, not as the kernel's temporary file and source line
    assert "warning: a warning the reader should see" in page and "ipykernel" not in page
    assert "warnings.warn(" not in page


def test_a_relative_fireeval_data_is_read_from_the_callers_folder(place, monkeypatch, capsys):
    me = place / "me"
    monkeypatch.chdir(me)
    monkeypatch.setenv("FIREEVAL_DATA", "dd")
    assert cli.main(["run", str(place / "chapter" / "small.md"), "--output", "out-env"]) == 0
    assert json.loads((me / "out-env" / "small.headline.json").read_text())["data_folder"] == str((me / "dd").resolve())
    monkeypatch.setenv("FIREEVAL_DATA", "no-such-folder")  # refused before anything runs
    assert cli.main(["run", str(place / "chapter" / "small.md"), "--output", "out-env2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fireeval run: ") and "FIREEVAL_DATA=no-such-folder: no such folder" in err[-1]
    assert err[-1].count("Fix:") == 1
    assert not (me / "out-env2").exists()


def test_papermill_reads_relative_paths_from_its_own_folder_too(place, monkeypatch):
    """Through the papermill handler: Python (the kernel in the chapter's folder) and the command with -y."""
    import papermill

    me = place / "me"
    monkeypatch.chdir(me)
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    chapter = place / "chapter" / "small.md"
    papermill.execute_notebook(str(chapter), "pm.ipynb", cwd=str(chapter.parent), progress_bar=False,
                               parameters={"data_dir": "dd", "qrels": "my.qrels", "extra_runs": ["r1.run"],
                                           "predictions": {"mine": "sub/p.csv"}})
    headline = notebooks.extract_headline(nbformat.read(me / "pm.ipynb", as_version=4))
    assert headline["read"] == EXPECTED_READ and headline["data_source"] == "real"
    done = subprocess.run([str(VENV_BIN / "papermill"), str(chapter), "pm-y.ipynb", "--no-progress-bar",
                           "--cwd", str(chapter.parent),
                           "-y", "{data_dir: dd, qrels: my.qrels, extra_runs: [r1.run], predictions: {mine: sub/p.csv}}"],
                          capture_output=True, text=True, cwd=me, timeout=300)
    assert done.returncode == 0, done.stderr
    headline = notebooks.extract_headline(nbformat.read(me / "pm-y.ipynb", as_version=4))
    assert headline["read"] == EXPECTED_READ and headline["data_source"] == "real"


def test_papermill_refuses_missing_files_and_its_own_prefix_in_one_line(place):
    chapter = place / "chapter" / "small.md"
    base = [str(VENV_BIN / "papermill"), str(chapter), "x.ipynb", "--no-progress-bar"]
    for args, message in ((["-p", "qrels", "nope.qrels"], "-p qrels nope.qrels: no such file"),
                          (["-p", "PAPERMILL_x", "1"], "has no parameter PAPERMILL_x")):
        bad = subprocess.run([*base, *args], capture_output=True, text=True, cwd=place / "me", timeout=300)
        assert bad.returncode == 2, bad.stderr
        last = bad.stderr.strip().splitlines()[-1]
        assert last.startswith("papermill: ") and message in last and "Traceback" not in bad.stderr
    assert not (place / "me" / "x.ipynb").exists()


# --------------------------------------------------------------------------- the data you name
def test_a_named_empty_data_folder_stops_the_chapter_naming_it(place, monkeypatch, capsys):
    # issue 39: --data-dir EMPTY ran on ../shared/data and said data_source=real; now it stops in one line
    me = place / "me"
    assert _run(place, monkeypatch, "--data-dir", "empty", "--output", "out-empty") == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("fireeval run: ") and f"data_dir='{me / 'empty'}'" in last
    assert str(me / "empty" / DATA_FILE) in last and "shared" not in last and last.count("Fix:") == 1
    assert not (me / "out-empty" / "small.headline.json").exists()


def test_a_named_fireeval_data_without_the_files_stops_the_chapter_naming_it(place, monkeypatch, capsys):
    me = place / "me"
    monkeypatch.chdir(me)
    monkeypatch.setenv("FIREEVAL_DATA", "empty")
    assert cli.main(["run", str(place / "chapter" / "small.md"), "--output", "out-env-empty"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("fireeval run: ") and f"FIREEVAL_DATA='{me / 'empty'}'" in last, last
    assert "shared" not in last and last.count("Fix:") == 1
    assert not (me / "out-env-empty" / "small.headline.json").exists()


def test_help_and_readme_say_a_notebook_path_runs_any_notebook(capsys):
    assert cli.main(["run", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "or the path of any notebook, which runs as papermill would run it: only run notebooks you trust" in shown
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    assert "any notebook you point it at is executed, as papermill would, so run only notebooks you trust" in readme


@pytest.mark.parametrize("args, message", [
    (["--data-dir", "nowhere"], "--data-dir nowhere: no such folder: {me}/nowhere (a relative path is read from {me}"),
    (["-p", "data_dir", "my.qrels"], "-p data_dir my.qrels: is a file, not a folder"),
    (["-p", "qrels", "nope.qrels"], "-p qrels nope.qrels: no such file: {me}/nope.qrels"),
    (["-p", "extra_runs", '["r1.run", "nope.run"]'], "-p extra_runs nope.run: no such file: {me}/nope.run"),
    (["-p", "predictions", '{"m": "sub"}'], "-p predictions (entry 'm') sub: is a folder, expected a file"),
    (["-p", "value", "1", "-p", "value", "2"], "-p value: the parameter is given 2 times. Fix: give each parameter once"),
    (["--data-dir", "dd", "-p", "data_dir", "dd"], "--data-dir: the data folder is given twice"),
    (["-p", "PAPERMILL_x", "1"], "has no parameter PAPERMILL_x"),  # papermill's own prefix is no way round the check
])
def test_named_files_are_checked_before_anything_runs(place, monkeypatch, capsys, args, message):
    # issue 37: a missing file was found only once the chapter ran, with a doubled "Fix:"
    me = place / "me"
    started = time.monotonic()
    assert _run(place, monkeypatch, *args, "--output", "out-refused") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(me=me) in err and err.count("Fix:") == 1, err
    assert not (me / "out-refused").exists() and time.monotonic() - started < 30  # (no kernel: well under)


def test_a_chapter_name_is_the_chapter_and_other_files_are_not_notebooks(place, monkeypatch, capsys):
    monkeypatch.chdir(place / "me")
    (place / "me" / "metrics").write_text("not a notebook\n")  # shadowed the chapter
    assert notebooks.find_notebook("metrics") == notebooks.NOTEBOOK_DIR / "metrics.md"
    for name in ("/etc/passwd", "../" * 20 + "etc/passwd", "my.qrels"):
        assert cli.main(["run", name, "--output", "out-x"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not a notebook" in err and "Fix:" in err
    assert cli.main(["run", "no_such_chapter", "--output", "out-x"]) == 2
    assert "no such notebook. Fix: give a notebook path or one of: " in capsys.readouterr().err
    assert not (place / "me" / "out-x").exists()


def test_resolve_paths_by_kind(tmp_path, monkeypatch):
    (tmp_path / "a.run").write_text("x")
    got = notebooks.resolve_paths({"extra_runs": ["a.run"], "extra_runs_pooled": ["a.run", "mytag"],
                                   "cache_dir": "cache", "predictions": {"p": "charades_sta/predictions/SCDM.json"},
                                   "value": "a.run"}, cwd=tmp_path)
    assert got == {"extra_runs": [str(tmp_path / "a.run")], "extra_runs_pooled": [str(tmp_path / "a.run"), "mytag"],
                   "cache_dir": str(tmp_path / "cache"),  # made by the chapter
                   "predictions": {"p": "charades_sta/predictions/SCDM.json"},  # a data-folder path, left to it
                   "value": "a.run"}  # not a path parameter
    assert notebooks.resolve_paths(got, cwd="/elsewhere") == got  # idempotent


# --------------------------------------------------------------------------- together or not at all
@pytest.fixture(scope="module")
def previous(place, tmp_path_factory):
    """Good results of a first run; every interruption below must leave them byte for byte."""
    out = tmp_path_factory.mktemp("results")
    done = subprocess.run([sys.executable, "-m", "fireeval", "run", str(place / "chapter" / "small.md"), "-p", "value",
                           "3", "--output", str(out)], capture_output=True, text=True, cwd=place / "me", timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def _files(out):
    """What a reader sees: the visible files (the results' own hidden folder aside) and their bytes."""
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())
            if not p.name.endswith(".failed.ipynb") and not p.name.startswith(".")}


def _nothing_hidden_but_the_results(out, stem="small"):
    hidden = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
    return hidden == sorted([f".{stem}.results", os.readlink(out / f".{stem}.results")])


def _consistent(out, value):
    headline = json.loads((out / "small.headline.json").read_text())
    glued = notebooks.extract_headline(nbformat.read(out / "small.ipynb", as_version=4))
    page = (out / "small.html").read_text()
    return headline["value"] == glued["value"] == value and f"The value is {value}." in page


@pytest.mark.parametrize("moment", [0.5, 2.0, "in the chapter's cell"])
def test_an_interrupt_leaves_the_previous_results_whole_in_one_line(place, previous, moment, tmp_path):
    previous = shutil.copytree(previous, tmp_path / "out", symlinks=True)  # (each test its own copy)
    before = _files(previous)
    in_the_cell = place / "chapter" / "in-the-cell"  # the chapter's cell writes it, then sleeps
    in_the_cell.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "fireeval", "run", str(place / "chapter" / "small.md"), "-p",
                             "value", "4", "-p", "sleep", "60", "--output", str(previous)], cwd=place / "me",
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    if moment == "in the chapter's cell":
        deadline = time.time() + 120
        while time.time() < deadline and not in_the_cell.exists():  # (the notebook is written only at the end)
            time.sleep(0.1)
        time.sleep(1)
    else:
        time.sleep(moment)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group, the kernel too
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "fireeval run: interrupted", err
    assert "Traceback" not in err and "Task exception" not in err and "DeadKernelError" not in err, err
    assert _files(previous) == before and _consistent(previous, 3)
    assert _nothing_hidden_but_the_results(previous)
    time.sleep(1)
    assert not _kernels_in(place / "chapter")  # no kernel left running


def _kernels_in(folder):
    """Processes whose working directory is ``folder`` (a kernel runs in its chapter's folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")) == folder:
                found.append(proc.name)
        except OSError:
            pass
    return found


def test_an_interrupt_while_the_results_are_switched_ends_the_command_after_the_switch(place, previous, monkeypatch,
                                                                                       tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(previous, out, symlinks=True)
    real_replace, moved = os.replace, []

    def replace_then_interrupt(src, dst, *args, **kwargs):
        real_replace(src, dst, *args, **kwargs)
        if Path(dst).parent == out:
            moved.append(Path(dst).name)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after each step of the switch

    monkeypatch.setattr(os, "replace", replace_then_interrupt)
    monkeypatch.chdir(place / "me")
    assert cli.main(["run", str(place / "chapter" / "small.md"), "-p", "value", "5", "--output", str(out)]) == 130
    assert moved == [".small.results"]  # one step switches the three names (they are links through it)
    assert "small: interrupted once this run's results were in place" in capsys.readouterr().err
    assert _consistent(out, 5) and _nothing_hidden_but_the_results(out)


def test_an_interrupt_while_the_page_is_written_keeps_the_executed_notebook(place, previous, monkeypatch, tmp_path,
                                                                          capsys):
    from fireeval.book import page

    out = tmp_path / "out"
    shutil.copytree(previous, out, symlinks=True)
    before = _files(out)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(page, "write_page", interrupted)
    monkeypatch.chdir(place / "me")
    assert cli.main(["run", str(place / "chapter" / "small.md"), "-p", "value", "6", "--output", str(out)]) == 130
    assert _files(out) == before and _consistent(out, 3)
    kept = nbformat.read(out / "small.failed.ipynb", as_version=4)
    assert notebooks.extract_headline(kept)["value"] == 6  # the whole executed notebook, not discarded
    assert "small.failed.ipynb" in capsys.readouterr().err


def _dropped_interrupt():
    """A Ctrl-C whose KeyboardInterrupt Python drops: it is handled while a weakref's callback runs (as
    during an import), where Python can only print "Exception ignored"."""
    class Thing:
        pass

    def callback(ref):
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))  # (the handler runs here, at the callback's next instruction)

    thing = Thing()
    ref = weakref.ref(thing, callback)
    del thing
    return ref


def test_an_interrupt_python_dropped_while_the_chapter_ran_still_keeps_the_previous_results(place, previous,
                                                                                           monkeypatch, tmp_path,
                                                                                           capsys):
    from fireeval.book import page

    out = shutil.copytree(previous, tmp_path / "out", symlinks=True)
    before = _files(out)
    real_write_page = page.write_page

    def write_page_after_a_dropped_interrupt(*args, **kwargs):
        _dropped_interrupt()
        return real_write_page(*args, **kwargs)

    monkeypatch.setattr(page, "write_page", write_page_after_a_dropped_interrupt)
    monkeypatch.chdir(place / "me")
    assert cli.main(["run", str(place / "chapter" / "small.md"), "-p", "value", "7", "--output", str(out)]) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == "fireeval run: interrupted", err
    assert "Exception ignored" not in err and "Traceback" not in err, err
    assert _files(out) == before and _consistent(out, 3)
    assert notebooks.extract_headline(nbformat.read(out / "small.failed.ipynb", as_version=4))["value"] == 7


def test_an_interrupt_python_dropped_before_the_chapter_starts_no_kernel(place, monkeypatch, tmp_path, capsys):
    real_refuse, started = notebooks.refuse_data_directory, []

    def refuse_after_a_dropped_interrupt(*args, **kwargs):
        _dropped_interrupt()
        return real_refuse(*args, **kwargs)

    monkeypatch.setattr(notebooks, "refuse_data_directory", refuse_after_a_dropped_interrupt)
    monkeypatch.setattr(notebooks, "_start_kernel", lambda *args, **kwargs: started.append(args))
    monkeypatch.chdir(place / "me")
    out = tmp_path / "out"
    assert cli.main(["run", str(place / "chapter" / "small.md"), "--output", str(out)]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "fireeval run: interrupted" and not started and not out.exists()


@pytest.mark.notebook
def test_a_book_chapter_reads_the_readers_relative_files(tmp_path, monkeypatch, capsys):
    """The metrics chapter (its --quick settings) from another folder: a relative --data-dir (a link to the
    data), a relative qrels file and a list of relative run files, each read from where the reader stands."""
    import gzip

    from fireeval.datasets import data_path

    require_data("trec8_adhoc/qrels.trec8.adhoc.txt.gz", "trec8_adhoc/runs/input.apl8p.gz")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    (tmp_path / "dd").symlink_to(data_path("trec8_adhoc/runs.tsv").parents[1])
    shutil.copyfile(data_path("trec8_adhoc/qrels.trec8.adhoc.txt.gz"), tmp_path / "my.qrels.gz")
    (tmp_path / "runs").mkdir()
    lines = gzip.open(data_path("trec8_adhoc/runs/input.apl8p.gz"), "rt").read().splitlines()
    (tmp_path / "runs" / "mine.run").write_text("".join(" ".join(l.split()[:5] + ["mine39"]) + "\n" for l in lines))
    assert cli.main(["run", "metrics", "--quick", "--data-dir", "dd", "--output", "res", "-p", "qrels", "my.qrels.gz",
                     "-p", "extra_runs", '["runs/mine.run"]']) == 0, capsys.readouterr().err
    headline = json.loads((tmp_path / "res" / "metrics.headline.json").read_text())
    assert headline["data_source"] == "real" and headline["n_runs"] == 12 + 1
    assert headline["data_folder"] == str((tmp_path / "dd").resolve())
    assert "data read from: " + str((tmp_path / "dd").resolve()) in capsys.readouterr().out


def test_a_chapter_error_that_says_its_fix_gets_no_second_one(tmp_path, capsys):
    # issue 37: "... Fix: check the path ... Fix: see the failing cell there"
    nb = tmp_path / "fails.md"
    nb.write_text(CHAPTER.split("```{code-cell} ipython3\nimport time")[0]
                  + '```{code-cell} ipython3\nraise ValueError("x.txt: bad line. Fix: give a good file")\n```\n')
    assert cli.main(["run", str(nb), "--output", str(tmp_path / "out")]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "ValueError: x.txt: bad line. Fix: give a good file" in last and last.count("Fix:") == 1, last


def test_an_interrupt_that_an_import_turned_into_another_error_is_still_an_interrupt(monkeypatch, capsys):
    # Ctrl-C half a second in can stop numpy's import, which then raises ImportError ("internal error", exit 1)
    from fireeval.book import notebooks as nbmod

    def cut_short(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ImportError("Importing the numpy C-extensions failed")

    monkeypatch.setattr(nbmod, "find_notebook", cut_short)
    assert cli.main(["run", "metrics", "--output", "never"]) == 130
    assert capsys.readouterr().err == "fireeval run: interrupted\n"
    monkeypatch.setattr(nbmod, "find_notebook", lambda *a: (_ for _ in ()).throw(ImportError("no module x")))
    assert cli.main(["run", "metrics", "--output", "never"]) == 1  # a real import error stays one
