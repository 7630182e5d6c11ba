"""Where the real data files are, verified by checksum.

Every upstream file the book uses is listed in ``data/registry.json`` (path below
the data root, sha256, upstream URL at a pinned commit, licence). :func:`data_path`
resolves a registry path in this order:

1. ``root`` passed by the caller (a notebook's ``data_dir`` parameter), else the
   directory in the ``FIREEVAL_DATA`` environment variable;
2. ``../shared/data`` beside the project checkout, when it exists (another folder
   with ``FIREEVAL_SHARED_DATA``; an empty one makes the book run as on a machine
   without data);
3. a download into the user cache (``pooch.os_cache("fireeval")``), only when
   ``download=True`` and the registry knows an upstream URL.

The checksum is verified in every case; a mismatch raises :class:`DataError`. Files
that the shared folder stores gzipped are downloaded uncompressed (their upstream
form) and verified against the upstream checksum; the readers accept both forms.
Nothing is ever written into a data directory.
"""
from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

__all__ = ["DataError", "DataUnavailable", "data_path", "data_root", "has_data", "registry"]

PROJECT_ROOT = Path(__file__).resolve().parents[2]
REGISTRY_PATH = PROJECT_ROOT / "data" / "registry.json"
SHARED_DATA = Path(os.environ.get("FIREEVAL_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data"))


class DataError(RuntimeError):
    """A data file exists but is not the expected one (checksum mismatch)."""


class DataUnavailable(FileNotFoundError):
    """A data file is not present in any data root and cannot be downloaded."""


@lru_cache(maxsize=1)
def registry() -> dict:
    """``{path: record}`` from data/registry.json."""
    with open(REGISTRY_PATH) as fh:
        return {r["path"]: r for r in json.load(fh)["files"]}


def _candidate_roots(root=None):
    roots = []
    if root:
        roots.append(Path(root).expanduser())
    elif os.environ.get("FIREEVAL_DATA"):
        roots.append(Path(os.environ["FIREEVAL_DATA"]).expanduser())
    if SHARED_DATA.is_dir():
        roots.append(SHARED_DATA)
    return roots


@lru_cache(maxsize=4096)
def _sha256(path: str, size: int, mtime: float) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verify(path: Path, expected: str) -> Path:
    stat = path.stat()
    actual = _sha256(str(path), stat.st_size, stat.st_mtime)
    if actual != expected:
        raise DataError(f"{path}: sha256 is {actual}, expected {expected} (data/registry.json). "
                        "Fix: replace the file with the upstream version named in the registry.")
    return path


def data_path(name: str, root=None, download: bool = False) -> Path:
    """Verified local path of registry file ``name`` (e.g. ``"msrvtt/runs/clip4clip_msrvtt.npy"``).

    Raises :class:`DataUnavailable` with the places searched when the file is
    nowhere and cannot be downloaded, and :class:`DataError` on a checksum mismatch.
    """
    record = registry().get(name)
    if record is None:
        raise KeyError(f"{name!r} is not in data/registry.json; known files start with "
                       f"{sorted({p.split('/')[0] for p in registry()})}")
    searched = []
    for base in _candidate_roots(root):
        path = base / name
        searched.append(str(path))
        if path.is_file():
            return _verify(path, record["sha256"])
        plain = path.with_suffix("") if path.suffix == ".gz" else None
        if plain is not None and plain.is_file() and record.get("upstream_sha256"):
            return _verify(plain, record["upstream_sha256"])
    if download and record.get("url"):
        return _download(name, record)
    how = ("set FIREEVAL_DATA to a folder holding it, or pass download=True"
           if record.get("url") else
           f"this file has no public download ({record.get('note', 'derived or renamed upstream')}); "
           "place it under FIREEVAL_DATA")
    raise DataUnavailable(f"{name} not found (looked in: {', '.join(searched) or 'no data root'}). Fix: {how}.")


def _download(name: str, record: dict) -> Path:
    import pooch  # only needed when downloading

    gz = name.endswith(".gz") and record.get("upstream_sha256")
    local = name[: -len(".gz")] if gz else name
    return Path(pooch.retrieve(record["url"], known_hash="sha256:" + (record["upstream_sha256"] if gz else record["sha256"]),
                               fname=local.replace("/", "__"), path=pooch.os_cache("fireeval")))


def has_data(*names: str, root=None) -> bool:
    """True when every named registry file is present locally and verified."""
    try:
        for name in names:
            data_path(name, root=root)
    except (DataUnavailable, DataError):
        return False
    return True


def data_root(root=None) -> Path | None:
    """The first existing data root (user's, env's, or the shared folder), or None."""
    for base in _candidate_roots(root):
        if base.is_dir():
            return base
    return None
