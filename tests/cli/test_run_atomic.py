"""`fireeval run` writes its outputs atomically: a failed, interrupted or killed run leaves the previous
good results untouched, says where the partial notebook is and leaves nothing hidden behind."""
import json
import signal
import subprocess
import sys
import time

import pytest

from fireeval import cli

pytestmark = pytest.mark.usefixtures("kernels_started_as_a_readers")  # (signals and kills: a reader's kernels)

NB = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
```{code-cell} ipython3
:tags: [parameters]
value = 1  # the headline value. Allowed: int >= 0
fail = False  # raise an error after the parameters. Allowed: bool
sleep = 0.0  # seconds to sleep before the headline. Allowed: float >= 0
```

```{code-cell} ipython3
import time

import pytest
from fireeval.book import report
if fail:
    raise RuntimeError("chapter broke on purpose")
time.sleep(sleep)
report.headline({"value": value})
```
"""


def _setup(tmp_path):
    nb = tmp_path / "tiny.md"
    nb.write_text(NB)
    return nb, tmp_path / "out"


def _listing(out):
    """The names a reader sees (the results' own folder, hidden, is checked by :func:`_only_the_results_hidden`)."""
    return sorted(p.name for p in out.iterdir() if not p.name.startswith("."))


def _only_the_results_hidden(out, stem="tiny"):
    """Nothing hidden but the results' link and the one run folder it points to, holding the three files."""
    import os

    hidden = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
    if not hidden:
        return True  # (no results yet)
    current = os.readlink(out / f".{stem}.results")
    return hidden == sorted([f".{stem}.results", current]) and sorted(p.name for p in (out / current).iterdir()) == \
        sorted([f"{stem}.headline.json", f"{stem}.html", f"{stem}.ipynb"])


def test_success_then_failure_keeps_previous_results(tmp_path, capsys):
    nb, out = _setup(tmp_path)
    assert cli.main(["run", str(nb), "-p", "value", "7", "--output", str(out)]) == 0
    assert json.loads((out / "tiny.headline.json").read_text()) == {"value": 7, "data_folder": None}
    assert _listing(out) == ["tiny.headline.json", "tiny.html", "tiny.ipynb"]
    before = (out / "tiny.ipynb").read_bytes()
    capsys.readouterr()

    assert cli.main(["run", str(nb), "-p", "value", "8", "-p", "fail", "True", "--output", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()[-1]  # after papermill's progress bar
    assert "RuntimeError: chapter broke on purpose" in err and "Unable to parse" not in err
    assert f"the partial notebook is {out / 'tiny.failed.ipynb'}" in err and "untouched" in err
    assert (out / "tiny.ipynb").read_bytes() == before
    assert json.loads((out / "tiny.headline.json").read_text()) == {"value": 7, "data_folder": None}
    assert _listing(out) == ["tiny.failed.ipynb", "tiny.headline.json", "tiny.html", "tiny.ipynb"]
    assert _only_the_results_hidden(out)  # nothing hidden left

    assert cli.main(["run", str(nb), "-p", "value", "9", "--output", str(out)]) == 0
    assert _listing(out) == ["tiny.headline.json", "tiny.html", "tiny.ipynb"]  # success clears the stale failure
    assert json.loads((out / "tiny.headline.json").read_text()) == {"value": 9, "data_folder": None}


def test_unknown_kernel_refused_before_running(tmp_path, capsys):
    nb, out = _setup(tmp_path)
    assert cli.main(["run", str(nb), "--kernel", "nope", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no Jupyter kernel named 'nope'" in err and err.count("\n") == 1


def test_output_that_is_a_file_is_refused(tmp_path, capsys):
    nb, _ = _setup(tmp_path)
    (tmp_path / "f").write_text("x")
    assert cli.main(["run", str(nb), "--output", str(tmp_path / "f")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_terminated_run_keeps_previous_results(tmp_path):
    nb, out = _setup(tmp_path)
    assert cli.main(["run", str(nb), "-p", "value", "3", "--output", str(out)]) == 0
    before = {p: (out / p).read_bytes() for p in _listing(out)}
    proc = subprocess.Popen([sys.executable, "-m", "fireeval", "run", str(nb), "-p", "value", "4", "-p", "sleep", "60",
                             "--output", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(p.name.startswith(".tiny.running-") and (p / "source.ipynb").exists()
                                             for p in out.iterdir()):
        time.sleep(0.2)
    time.sleep(3)  # let the kernel start and reach the sleep
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    # Our line is there, and the kernel's own stderr (a zmq traceback when shut down mid-cell) is not (issue 27)
    assert "fireeval run: interrupted" in err.splitlines(), err
    assert "Traceback" not in err and "IPKernelApp" not in err and "zmq" not in err, err
    assert {p: (out / p).read_bytes() for p in _listing(out) if not p.endswith(".failed.ipynb")} == before
    assert _only_the_results_hidden(out)


def test_killed_run_leaves_results_and_its_leftover_is_cleaned_next_time(tmp_path):
    nb, out = _setup(tmp_path)
    assert cli.main(["run", str(nb), "-p", "value", "5", "--output", str(out)]) == 0
    before = {p: (out / p).read_bytes() for p in _listing(out)}
    proc = subprocess.Popen([sys.executable, "-m", "fireeval", "run", str(nb), "-p", "sleep", "60", "--output", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and not list(out.glob(".tiny.running-*/source.ipynb")):
        time.sleep(0.2)
    import os
    os.killpg(proc.pid, signal.SIGKILL)  # the command and its kernel
    proc.wait(timeout=30)
    assert {p: (out / p).read_bytes() for p in _listing(out) if not p.startswith(".")} == before
    assert cli.main(["run", str(nb), "-p", "value", "6", "--output", str(out)]) == 0
    assert _listing(out) == ["tiny.headline.json", "tiny.html", "tiny.ipynb"] and _only_the_results_hidden(out)


def test_output_inside_a_data_directory_is_refused(tmp_path, capsys, monkeypatch):
    nb, _ = _setup(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("FIREEVAL_DATA", str(data))
    assert cli.main(["run", str(nb), "--output", str(data / "results")]) == 2
    assert "inside the data directory" in capsys.readouterr().err
    assert not (data / "results").exists()


def test_a_run_holds_the_output_folder_so_a_second_run_waits(tmp_path, monkeypatch, capsys):
    # issue 27: two runs into one --output could leave one's notebook beside the other's headline; the
    # folder is locked while a chapter runs into it (checked from inside the run, no timing involved)
    import fcntl
    import os

    from fireeval.book import notebooks

    nb, out = _setup(tmp_path)
    held = []

    def fake_execute(notebook, params, output, **kwargs):
        fd = os.open(output, os.O_RDONLY)  # another open file description, as a second process has
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)
        return {"value": 1}

    monkeypatch.setattr(notebooks, "execute", fake_execute)
    assert cli.main(["run", str(nb), "--output", str(out)]) == 0
    assert held == [True]
    fd = os.open(out, os.O_RDONLY)  # released afterwards
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(fd)
    assert list(out.iterdir()) == []  # the lock writes nothing


def test_the_kernel_stderr_does_not_reach_ours(tmp_path):
    nb, out = _setup(tmp_path)
    done = subprocess.run([sys.executable, "-m", "fireeval", "run", str(nb), "--output", str(out), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "IPKernelApp" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout) == {"value": 1, "data_folder": None}


# --------------------------------------------------------------------------- kill -9 at every step (issue 39)
_KILL_AT = r'''
import os, signal, sys
from pathlib import Path
from fireeval.book import _results

out, run, stem, at = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
steps = [0]

def counted(call):
    def step(*args, **kwargs):
        if steps[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)  # the process dies here, between two file-system steps
        steps[0] += 1
        return call(*args, **kwargs)
    return step

for name in ("replace", "rename", "symlink", "link", "unlink", "rmdir", "mkdir"):
    setattr(os, name, counted(getattr(os, name)))
_results.publish(run, out, stem)
'''


def _results_dir(tmp_path, previous):
    """An output folder holding the results of run ``old`` as ``previous`` says: none, plain files (an older
    fireeval) or links; and the finished folder of run ``new``, not yet published."""
    from fireeval.book import _results

    out = tmp_path / "out"
    out.mkdir(parents=True)
    if previous == "plain files":
        for name in _results.result_names("tiny"):
            (out / name).write_text(f"old {name}")
    elif previous == "links":
        old = out / ".tiny.run-old"
        old.mkdir()
        for name in _results.result_names("tiny"):
            (old / name).write_text(f"old {name}")
        _results.publish(old, out, "tiny")
    new = out / ".tiny.run-new"
    new.mkdir()
    for name in _results.result_names("tiny"):
        (new / name).write_text(f"new {name}")
    (new / "pid").write_text("999999999")  # (a process that is not there: the kill's leftovers are stale)
    return out, new


def _shown(out):
    """Which run each of the three names shows: 'old', 'new' or None (not there yet)."""
    from fireeval.book import _results

    shown = set()
    for name in _results.result_names("tiny"):
        try:
            text = (out / name).read_text()
        except FileNotFoundError:
            shown.add(None)
            continue
        label, rest = text.split(" ", 1)
        assert rest == name, text
        shown.add(label)
    return shown


@pytest.mark.parametrize("previous", ["none", "plain files", "links"])
def test_a_kill_at_any_step_of_publishing_leaves_one_runs_results(tmp_path, previous):
    """SIGKILL before each file-system step of the switch, in turn, until one run gets through: after every
    kill the three names show the previous run's files or the new run's, never a mix, and the next run
    leaves only its own results."""
    import shutil

    from fireeval.book import _results

    before = {"none": {None}, "plain files": {"old"}, "links": {"old"}}[previous]
    at = 0
    seen = set()
    while True:
        case = tmp_path / str(at)
        out, new = _results_dir(case, previous)
        done = subprocess.run([sys.executable, "-c", _KILL_AT, str(out), str(new), "tiny", str(at)],
                              capture_output=True, text=True, timeout=120)
        shown = _shown(out)
        if done.returncode == 0:
            assert shown == {"new"}
            (new / "pid").unlink()  # (as execute() does once its folder is the results)
            break
        assert done.returncode == -signal.SIGKILL, done.stderr
        assert shown in (before, {"new"}), (at, shown)
        seen.add(frozenset(shown))
        # the next run cleans up what the kill left and shows only its own results
        _results.remove_stale(out, "tiny")  # (as execute() does, before its own folder is made)
        newer = out / ".tiny.run-newer"
        newer.mkdir()
        for name in _results.result_names("tiny"):
            (newer / name).write_text(f"newer {name}")
        _results.publish(newer, out, "tiny")
        assert _shown(out) == {"newer"} and _only_the_results_hidden(out)
        shutil.rmtree(case)
        at += 1
    assert at >= 3 and frozenset(before) in seen  # (the kills did fall before the switch, and after it)
    assert _only_the_results_hidden(out)


def test_without_symbolic_links_the_three_files_are_moved_into_place(tmp_path, monkeypatch):
    """A file system without links (FAT, some network mounts): the results are still written, by three moves."""
    import errno
    import os

    from fireeval.book import _results

    out, new = _results_dir(tmp_path, "none")

    def no_links(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "symlink", no_links)
    _results.publish(new, out, "tiny")
    assert _shown(out) == {"new"} and not new.exists()
    assert all(not (out / n).is_symlink() for n in _results.result_names("tiny"))


def test_the_executed_notebook_is_written_once_when_execution_ends(tmp_path, monkeypatch):
    """Issue 38: papermill wrote the whole notebook at every cell's start and end (93 writes for the metrics
    chapter, each serialising every chart so far); `fireeval run` writes it when execution ends: once on success,
    once with the error on a failure, as papermill's last save writes it."""
    import nbformat
    import papermill.engines
    import papermill.execute

    writes = []
    for module in (papermill.engines, papermill.execute):
        real = module.write_ipynb
        monkeypatch.setattr(module, "write_ipynb",
                            lambda nb, path, _real=real, **kw: (writes.append(path), _real(nb, path, **kw))[1])
    nb, out = _setup(tmp_path)
    assert cli.main(["run", str(nb), "-p", "value", "5", "--output", str(out)]) == 0
    # the engine's one save when execution ended, then papermill.execute_notebook's own final write
    assert len(writes) == 2 and len(set(writes)) == 1, writes
    executed = nbformat.read(out / "tiny.ipynb", as_version=4)
    assert [c.metadata.papermill["status"] for c in executed.cells if c.cell_type == "code"] == ["completed"] * 3
    writes.clear()
    assert cli.main(["run", str(nb), "-p", "fail", "True", "--output", str(out)]) == 2
    failed = nbformat.read(out / "tiny.failed.ipynb", as_version=4)
    assert [c.metadata.papermill.get("status") for c in failed.cells if c.cell_type == "code"][-1] == "failed"
    assert 1 <= len(writes) <= 2, writes  # at the end (and papermill's error marker), never per cell
