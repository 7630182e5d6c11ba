"""trec8.load_runs reads through the parsed-runs cache (issue 38) and gives the RunSet that parsing the files with
RunSet.read gives, at full depth and cut to a depth."""
import numpy as np
import pytest

from fireeval.core.runset import RunSet
from fireeval.datasets import data_path, trec8
from tests.conftest import require_data


@pytest.mark.parametrize("depth", [None, 100, 5000])
def test_load_runs_equals_parsing_the_files(tmp_path, monkeypatch, depth):
    names = ["READWARE", "apl8n", "uwmt8a0"]
    require_data(*[f"trec8_adhoc/runs/input.{n}.gz" for n in names])
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path))
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    want = RunSet.read([data_path(f"trec8_adhoc/runs/input.{n}.gz") for n in names], names=names, depth=depth)
    for _ in range(2):  # parsed and kept, then read from the cache
        got = trec8.load_runs(names, depth=depth)
        assert got.names == want.names and got.docnos.tolist() == want.docnos.tolist()
        assert got.topics.dtype == want.topics.dtype and (got.topics == want.topics).all()
        assert got.docs.dtype == want.docs.dtype and got.docs.shape == want.docs.shape
        assert np.array_equal(got.docs, want.docs) and got.docs.flags.c_contiguous
    assert len(list(tmp_path.joinpath("runsets").glob("*.npz"))) == 1
