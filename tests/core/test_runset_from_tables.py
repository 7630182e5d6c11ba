"""RunSet.from_tables (runs as read_run_table's validated tables) builds the RunSet from_frames builds from the
same files read with read_run: names, topics, vocabulary in order of first appearance, codes."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fireeval.core.runset import RunSet, _intern_first_seen
from fireeval.core.trec import read_run, read_run_table

REPO = Path(__file__).resolve().parents[2]


def _write_runs(tmp_path, n_runs=5, seed=0):
    """Run files with ties in score, topics out of string order, docnos of several widths."""
    rng = np.random.default_rng(seed)
    docs = [f"FBIS3-{i}" for i in range(30)] + [f"LA0101{i:02d}-0{i:03d}" for i in range(30)] + ["x"]
    paths = {}
    for r in range(n_runs):
        lines = []
        for topic in ("7", "10", "301", "2"):
            chosen = rng.choice(docs, size=int(rng.integers(3, 25)), replace=False)
            scores = rng.integers(0, 6, size=len(chosen)) / 4  # many ties: broken by docno, descending
            lines += [f"{topic} Q0 {d} {i} {s} tag{r}" for i, (d, s) in enumerate(zip(chosen, scores))]
        path = tmp_path / f"run{r}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths[f"tag{r}"] = path
    return paths


def _same(a: RunSet, b: RunSet):
    assert a.names == b.names
    assert a.topics.tolist() == b.topics.tolist()
    assert a.docnos.tolist() == b.docnos.tolist() and a.docnos.dtype == b.docnos.dtype
    np.testing.assert_array_equal(a.docs, b.docs)


@pytest.mark.parametrize("depth", [None, 4])
def test_from_tables_equals_from_frames_of_read_run(tmp_path, depth):
    paths = _write_runs(tmp_path)
    old = RunSet.from_frames({n: read_run(p) for n, p in paths.items()}, depth=depth)
    new = RunSet.from_tables({n: read_run_table(p) for n, p in paths.items()}, depth=depth)
    _same(old, new)


def test_from_tables_mixes_tables_and_frames(tmp_path):
    """The reader's own runs arrive as unordered frames beside the shipped tables: the same RunSet."""
    paths = _write_runs(tmp_path)
    names = list(paths)
    frames = {n: read_run(paths[n], ordered=False) for n in names[3:]}
    old = RunSet.from_frames({**{n: read_run(paths[n]) for n in names[:3]}, **frames})
    new = RunSet.from_tables({**{n: read_run_table(paths[n]) for n in names[:3]}, **frames})
    _same(old, new)


def test_from_tables_refuses_a_frame_listing_a_document_twice(tmp_path):
    paths = _write_runs(tmp_path, n_runs=1)
    twice = pd.DataFrame({"query": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 0.5]})
    with pytest.raises(ValueError, match="twice"):
        RunSet.from_tables({"t": read_run_table(paths["tag0"]), "bad": twice})


def test_intern_first_seen_is_pandas_factorize_even_when_hashes_collide(monkeypatch):
    texts = np.array([b"b", b"a", b"b", b"ccccccccc", b"a"])
    codes, uniques = _intern_first_seen(texts)
    want_codes, want_uniques = pd.factorize(np.array([t.decode() for t in texts], dtype=object))
    np.testing.assert_array_equal(codes, want_codes)
    assert uniques.tolist() == list(want_uniques)
    import fireeval.core.runset as runset  # every text one hash: the exact pass must still tell them apart
    monkeypatch.setattr(runset, "bytes_hash", lambda words: np.zeros(len(words), dtype=np.uint64))
    codes, uniques = runset._intern_first_seen(texts)
    np.testing.assert_array_equal(codes, want_codes)
    assert uniques.tolist() == list(want_uniques)
