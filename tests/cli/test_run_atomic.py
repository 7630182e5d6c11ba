"""`fireeval run` writes its outputs atomically: a failed, interrupted or killed run leaves the previous
good results untouched, says where the partial notebook is and leaves nothing hidden behind."""
import json
import signal
import subprocess
import sys
import time

from fireeval import cli

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
    return sorted(p.name for p in out.iterdir())


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
    assert _listing(out) == ["tiny.failed.ipynb", "tiny.headline.json", "tiny.html", "tiny.ipynb"]  # nothing hidden left

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
    assert not [p for p in _listing(out) if p.startswith(".")]


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
    assert _listing(out) == ["tiny.headline.json", "tiny.html", "tiny.ipynb"]


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
    assert _listing(out) == []  # the lock writes nothing


def test_the_kernel_stderr_does_not_reach_ours(tmp_path):
    nb, out = _setup(tmp_path)
    done = subprocess.run([sys.executable, "-m", "fireeval", "run", str(nb), "--output", str(out), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "IPKernelApp" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout) == {"value": 1, "data_folder": None}
