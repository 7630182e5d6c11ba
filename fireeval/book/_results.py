"""A chapter's results in ``--output``, switched from one run to the next by one rename.

``DIR/<stem>.ipynb``, ``DIR/<stem>.headline.json`` and ``DIR/<stem>.html`` are relative
symbolic links into ``DIR/.<stem>.results``, itself a link to the folder of the last
complete run (``DIR/.<stem>.run-XXXX/``, holding the three files). A new run writes its
files into its own folder; one ``os.replace`` of a new ``.<stem>.results`` link over the old
one then switches all three names at once (the pattern of Kubernetes' ``AtomicWriter``).
Whatever moment a process is killed (``kill -9`` included), every name shows the files of
one run: the previous one until that rename, this one after it. Every reader (``fireeval
diff``, a browser, ``cat``) sees the same, as the links are resolved by the file system.

Results written as plain files (by an older fireeval) are adopted first: each step of the
adoption replaces a name by a link to a file of the same content, so they too stay whole.
Where the file system has no symbolic links (FAT, some network mounts) the three files are
moved into place one after another, which a kill between two moves can mix (said in the README).
"""
from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path
from fireeval.core.validation import STR, Instance, validate_params

__all__ = ["result_names", "publish", "is_current", "remove_stale"]

_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}


@validate_params(stem=STR)
def result_names(stem: str) -> list[str]:
    """The three names a run of chapter ``stem`` leaves in ``--output``."""
    return [f"{stem}.ipynb", f"{stem}.headline.json", f"{stem}.html"]


def _link_name(stem: str) -> str:
    return f".{stem}.results"


def _point(path: Path, target: str) -> None:
    """Make ``path`` a symbolic link to ``target`` in one step (a new link renamed over ``path``)."""
    if path.is_symlink() and os.readlink(path) == target:
        return
    tmp = path.with_name(f"{path.name}.new-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    os.replace(tmp, path)


def _current(out: Path, stem: str) -> str | None:
    """The run folder the results link points at (its name), or None."""
    link = out / _link_name(stem)
    return os.readlink(link) if link.is_symlink() else None


def _adopt(out: Path, stem: str) -> None:
    """Turn names that are not our links (plain files of an older fireeval, or a file put there by hand) into
    links to a folder holding the same content, one name at a time: what each name shows never changes."""
    link_name = _link_name(stem)
    names = [n for n in result_names(stem) if (out / n).is_symlink() and os.readlink(out / n) == f"{link_name}/{n}"
             or not (out / n).exists() and not (out / n).is_symlink()]
    if len(names) == 3:
        return
    adopted = Path(tempfile.mkdtemp(prefix=f".{stem}.run-", dir=out))
    for name in result_names(stem):
        if (out / name).exists():  # (following links: the content the name shows now)
            try:
                os.link((out / name).resolve(), adopted / name)
            except OSError:
                shutil.copy2(out / name, adopted / name)
    old = _current(out, stem)
    _point(out / link_name, adopted.name)
    for name in result_names(stem):
        if (adopted / name).exists():
            _point(out / name, f"{link_name}/{name}")
    if old and old != adopted.name:
        shutil.rmtree(out / old, ignore_errors=True)


@validate_params(run=Instance(str, os.PathLike), out=Instance(str, os.PathLike), stem=STR)
def publish(run: Path, out: Path, stem: str) -> None:
    """Make the folder ``run`` (inside ``out``, holding :func:`result_names`) the results of ``stem``."""
    link_name = _link_name(stem)
    try:
        _adopt(out, stem)
        for name in result_names(stem):  # (the first time: links that lead nowhere until the rename below)
            _point(out / name, f"{link_name}/{name}")
    except OSError as err:
        if err.errno not in _NO_LINKS or _current(out, stem):
            raise
        for name in result_names(stem):  # no symbolic links here: three moves, one after another
            os.replace(run / name, out / name)
        shutil.rmtree(run, ignore_errors=True)
        return
    old = _current(out, stem)
    _point(out / link_name, run.name)  # the one step that switches all three names
    if old and old != run.name:
        shutil.rmtree(out / old, ignore_errors=True)


@validate_params(out=Instance(str, os.PathLike), stem=STR, run=Instance(str, os.PathLike))
def is_current(out: Path, stem: str, run: Path) -> bool:
    """Whether the folder ``run`` has become the results of ``stem`` in ``out`` (its files are not its alone)."""
    return _current(out, stem) == run.name or not (run / f"{stem}.ipynb").exists()


@validate_params(out=Instance(str, os.PathLike), stem=STR)
def remove_stale(out: Path, stem: str) -> None:
    """Delete what killed runs of ``stem`` left in ``out``: folders of runs whose process is gone (a ``pid``
    file) or that are no longer the results, and half-made links."""
    current = _current(out, stem)
    for folder in [*out.glob(f".{stem}.running-*"), *out.glob(f".{stem}.run-*")]:
        if folder.name == current:
            continue
        try:
            os.kill(int((folder / "pid").read_text()), 0)
        except FileNotFoundError:
            if folder.name.startswith(f".{stem}.run-"):  # a run folder without its process: superseded
                shutil.rmtree(folder, ignore_errors=True)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)  # its process is gone
        except (OSError, ValueError):
            pass  # unreadable, or alive but not ours: leave it
    for name in [_link_name(stem), *result_names(stem)]:
        for tmp in out.glob(f"{name}.new-*"):
            try:
                os.kill(int(tmp.name.rsplit("-", 1)[1]), 0)
            except ProcessLookupError:
                tmp.unlink(missing_ok=True)
            except (OSError, ValueError):
                pass
