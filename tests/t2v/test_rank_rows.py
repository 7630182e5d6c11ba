"""rank_rows counts the values of rows of small integers and gives scipy.stats.rankdata's average ranks bit for
bit; other rows go to scipy (issue 38)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.stats import rankdata

from fireeval.t2v.false_negatives import bootstrap_spearman, rank_rows

SHAPE = hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=30)


@settings(max_examples=150)
@given(hnp.arrays(np.int64, SHAPE, elements=st.integers(-40, 40)), st.booleans())
def test_integer_rows_same_as_rankdata(rows, as_float):
    rows = rows.astype(float) if as_float else rows
    got, expected = rank_rows(rows), rankdata(rows, axis=1)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


@settings(max_examples=60)
@given(hnp.arrays(np.float64, SHAPE, elements=st.floats(-5, 5, allow_nan=False, width=16)))
def test_other_rows_same_as_rankdata(rows):
    assert rank_rows(rows).tobytes() == rankdata(rows, axis=1).tobytes()


def test_wide_ranges_and_nan_go_to_scipy():
    rows = np.array([[0, 1 << 20, 5], [3, 3, 2]])
    assert rank_rows(rows).tolist() == rankdata(rows, axis=1).tolist()
    with_nan = np.array([[1.0, np.nan, 2.0]])
    assert np.array_equal(rank_rows(with_nan), rankdata(with_nan, axis=1), equal_nan=True)


def test_bootstrap_spearman_as_through_rankdata():
    rng = np.random.default_rng(4)
    words = rng.integers(3, 25, 300)
    positives = rng.integers(0, 9, 300)
    rho, samples = bootstrap_spearman(words, positives, n_resamples=500, seed=2)
    idx = np.random.default_rng(2).integers(0, 300, size=(500, 300))
    rx, ry = rankdata(words[idx].astype(float), axis=1), rankdata(positives[idx].astype(float), axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    denom = np.sqrt((rx ** 2).sum(axis=1) * (ry ** 2).sum(axis=1))
    expected = np.divide((rx * ry).sum(axis=1), denom, out=np.full(500, np.nan), where=denom > 0)
    assert samples.tobytes() == expected.tobytes()


def test_rank_rows_refuses_text():
    with pytest.raises(Exception, match="rows"):
        rank_rows("abc")
