"""Execute every book notebook with its small test parameters and check its headline.

Each notebook declares ``fireeval.test_parameters`` and ``fireeval.headline_keys`` in
its front matter; execution goes through :func:`fireeval.book.notebooks.execute`, the code
behind ``fireeval run``.
"""
from pathlib import Path

import pytest

from fireeval.book.notebooks import NOTEBOOK_DIR, execute, load

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.md"))


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_glues_headline(path: Path, tmp_path):
    meta = load(path).metadata.get("fireeval", {})
    result = execute(path, meta.get("test_parameters", {}), tmp_path, timeout=900)
    missing = set(meta.get("headline_keys", [])) - set(result)
    assert not missing, f"{path.name}: headline lacks {sorted(missing)}"
    assert (tmp_path / f"{path.stem}.headline.json").is_file()
    assert (tmp_path / f"{path.stem}.ipynb").is_file()


def _all_synthetic(value) -> bool:
    if isinstance(value, dict):
        return all(_all_synthetic(v) for v in value.values())
    return value == "synthetic"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_without_any_data_runs_synthetic_and_says_so(path: Path, tmp_path, monkeypatch):
    """As on a machine with no data and no network: the default falls back to synthetic."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("FIREEVAL_SHARED_DATA", str(empty))
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))  # no cached copies from earlier runs
    params = dict(load(path).metadata.get("fireeval", {}).get("test_parameters", {}))
    params.pop("data_source", None)
    result = execute(path, params, tmp_path / "out", timeout=900)
    assert _all_synthetic(result["data_source"]), result["data_source"]
