"""Execute every book notebook with its small test parameters and check its headline.

Each notebook declares ``fireeval.test_parameters`` and ``fireeval.headline_keys`` in
its front matter; execution goes through :func:`fireeval.notebooks.execute`, the code
behind ``fireeval run``.
"""
from pathlib import Path

import pytest

from fireeval.notebooks import NOTEBOOK_DIR, execute, load

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
