"""RunSet.from_frames codes pyarrow string columns as pd.factorize codes object columns: the same RunSet."""
import numpy as np
import pandas as pd

from fireeval.core.runset import RunSet, _factorize


def _frames(kind):
    rng = np.random.default_rng(0)
    out = {}
    for r in range(4):
        n = 60
        frame = pd.DataFrame({"query": rng.choice(["10", "2", "301", "7"], n),
                              "docno": [f"D{int(x)}" for x in rng.integers(0, 40, n)],
                              "score": rng.random(n)}).drop_duplicates(["query", "docno"])
        out[f"run{r}"] = frame.astype({"query": kind, "docno": kind})
    return out


def test_arrow_and_object_columns_build_the_same_runset():
    a, b = RunSet.from_frames(_frames("string[pyarrow]")), RunSet.from_frames(_frames(object))
    assert a.names == b.names and list(a.topics) == list(b.topics) and list(a.docnos) == list(b.docnos)
    np.testing.assert_array_equal(a.docs, b.docs)


def test_factorize_equals_pandas_in_order_of_first_appearance():
    cols = [pd.Series(["b", "a", "b"], dtype="string[pyarrow]"), pd.Series(["c", "a"], dtype="string[pyarrow]")]
    codes, uniques = _factorize(cols)
    want_codes, want_uniques = pd.factorize(np.array(["b", "a", "b", "c", "a"], dtype=object))
    np.testing.assert_array_equal(codes, want_codes)
    assert list(uniques) == list(want_uniques) == ["b", "a", "c"]
    mixed = [cols[0], pd.Series(["c"], dtype=object)]  # not all arrow: pandas' own path
    assert list(_factorize(mixed)[1]) == ["b", "a", "c"]
