"""A text notebook is converted by jupytext once per content (fireeval.book._converted, issue 38), and a
chapter's kernel is started before papermill and always shut down (fireeval.book.notebooks._start_kernel)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from fireeval.book import _converted, notebooks

# (its tests look for the kernels this process started: a reader's, not the session's forked ones)
pytestmark = pytest.mark.usefixtures("kernels_started_as_a_readers")

FRONT = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
         "kernelspec:\n  name: python3\n  display_name: Python 3\n  language: python\n---\n\n")


def _without_ids(nb) -> str:
    """The notebook as JSON without cell ids (jupytext draws new random ids at every reading)."""
    plain = json.loads(json.dumps(nb))
    for cell in plain["cells"]:
        cell.pop("id", None)
    return json.dumps(plain, sort_keys=True)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "notebooks"


@pytest.mark.parametrize("path", sorted(notebooks.NOTEBOOK_DIR.glob("*.md")), ids=lambda p: p.stem)
def test_a_cached_chapter_is_what_jupytext_reads(path, cache):
    first = notebooks.load(path)  # converted and kept
    assert len(list(cache.iterdir())) == 1
    again = notebooks.load(path)  # read back from the cache
    assert _without_ids(first) == _without_ids(again) == _without_ids(jupytext.read(str(path)))
    assert [c.id for c in first.cells] == [c.id for c in again.cells]  # one conversion, one set of ids


def test_an_edited_notebook_is_converted_again(tmp_path, cache):
    path = tmp_path / "x.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nx = 1\n```\n")
    assert notebooks.load(path).cells[0].source == "x = 1"
    path.write_text(FRONT + "```{code-cell} ipython3\nx = 2\n```\n")
    assert notebooks.load(path).cells[0].source == "x = 2"
    assert len(list(cache.iterdir())) == 2  # one entry per content
    crlf = tmp_path / "crlf.md"  # read as jupytext reads a file: universal newlines
    crlf.write_bytes((FRONT + "```{code-cell} ipython3\nx = 3\n```\n").replace("\n", "\r\n").encode())
    assert _without_ids(notebooks.load(crlf)) == _without_ids(jupytext.read(str(crlf)))


def test_a_damaged_entry_is_converted_again(tmp_path, cache):
    path = tmp_path / "x.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nx = 1\n```\n")
    notebooks.load(path)
    (entry,) = cache.iterdir()
    entry.write_text("{not json")
    assert notebooks.load(path).cells[0].source == "x = 1"
    assert json.loads(entry.read_text())["cells"][0]["source"] == "x = 1"


def test_no_cache_is_written_into_a_data_folder_or_an_unwritable_one(tmp_path, monkeypatch):
    path = tmp_path / "x.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nx = 1\n```\n")
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("FIREEVAL_DATA", str(data))
    monkeypatch.setenv("FIREEVAL_CACHE", str(data / "cache"))
    assert notebooks.load(path).cells[0].source == "x = 1"
    assert not (data / "cache").exists()
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the cache folder would be: it cannot be created
    monkeypatch.setenv("FIREEVAL_CACHE", str(blocked))
    assert notebooks.load(path).cells[0].source == "x = 1"


def test_fireeval_no_cache_keeps_no_converted_chapter(tmp_path, monkeypatch):
    path = tmp_path / "x.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nx = 1\n```\n")
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FIREEVAL_NO_CACHE", "1")
    assert notebooks.load(path).cells[0].source == "x = 1"
    assert not (tmp_path / "cache").exists()
    monkeypatch.setenv("FIREEVAL_NO_CACHE", "0")
    assert notebooks.load(path).cells[0].source == "x = 1"
    assert list((tmp_path / "cache" / "notebooks").iterdir())


def test_a_cached_notebook_is_read_without_importing_jupytext(tmp_path, cache):
    """The point of the cache: jupytext (about half a second to import) is not imported once the chapter is kept."""
    code = ("import sys; from fireeval.book import notebooks; nb = notebooks.load(notebooks.find_notebook('metrics')); "
            "print(len(nb.cells), 'jupytext' in sys.modules)")
    env = {**os.environ, "FIREEVAL_CACHE": str(cache.parent)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert first.stdout.split()[1] == "True" and second.stdout.split()[1] == "False", (first.stdout, second.stdout)
    assert first.stdout.split()[0] == second.stdout.split()[0]


def _kernels_of(pid: int) -> list[int]:
    """Process ids of the kernels (ipykernel_launcher) whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:"))
        if ppid == pid and b"ipykernel_launcher" in cmdline:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_the_kernel_started_before_papermill_is_shut_down_when_the_run_stops_before_it(tmp_path, monkeypatch):
    """The kernel boots while the notebook is written; a failure there must not leave it running."""
    import nbformat

    path = tmp_path / "tiny.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nx = 1\n```\n")
    started = []
    real_start = notebooks._start_kernel

    def start(*args):
        km = real_start(*args)
        started.append(km)
        return km

    def broken_write(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(notebooks, "_start_kernel", start)
    monkeypatch.setattr(nbformat, "write", broken_write)
    with pytest.raises(OSError, match="disk full"):
        notebooks.execute(path, output_dir=tmp_path / "out")
    assert started and not started[0].has_kernel
    assert _kernels_of(os.getpid()) == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_chapter_runs_in_its_folder_with_the_kernel_started_early_and_leaves_no_kernel(tmp_path):
    path = tmp_path / "chapter" / "tiny.md"
    path.parent.mkdir()
    path.write_text(FRONT + "```{code-cell} ipython3\nimport os\nfrom fireeval.book import report\n"
                            "report.headline({'cwd': os.getcwd()})\n```\n")
    result = notebooks.execute(path, output_dir=tmp_path / "out")
    assert result["cwd"] == str(path.parent)
    assert _kernels_of(os.getpid()) == []


def test_a_chapters_kernel_ends_gracefully_with_its_collector_frozen(tmp_path):
    """The runner's last cell freezes the kernel's collector (its exit no longer walks every object the chapter
    made), and the kernel is still shut down gracefully: its atexit hooks run, after the freeze."""
    report = tmp_path / "at-exit.txt"
    path = tmp_path / "tiny.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nimport atexit, gc\nfrom fireeval.book import report\n"
                            f"atexit.register(lambda: open({str(report)!r}, 'w').write(str(gc.get_freeze_count() > 0)))\n"
                            "report.headline({'n': 1})\n```\n")
    notebooks.execute(path, output_dir=tmp_path / "out")
    assert report.read_text() == "True"
    kept = json.loads((tmp_path / "out" / "tiny.ipynb").read_text())
    assert not [c for c in kept["cells"] if "gc.freeze" in "".join(c["source"])]  # the runner's cell is not kept


def test_fireeval_run_ends_with_its_collector_frozen(tmp_path):
    path = tmp_path / "tiny.md"
    path.write_text(FRONT + "```{code-cell} ipython3\nfrom fireeval.book import report\nreport.headline({'n': 1})\n```\n")
    code = ("import atexit, gc, sys\natexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
            f"sys.argv = ['fireeval', 'run', {str(path)!r}, '--output', {str(tmp_path / 'out')!r}]\n"
            "from fireeval.cli import program\nprogram()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("frozen at exit: True"), done.stdout
