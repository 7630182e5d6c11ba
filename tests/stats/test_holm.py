"""significance.holm gives statsmodels' Holm adjustment exactly (without its gc.collect)."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from fireeval.stats.significance import holm


@given(st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0])), min_size=1, max_size=40))
def test_equals_statsmodels(pvalues):
    np.testing.assert_array_equal(holm(pvalues), multipletests(np.asarray(pvalues), method="holm")[1])


def test_empty_and_by_hand():
    assert holm([]).shape == (0,)
    assert holm([0.01, 0.04, 0.03]).tolist() == [0.03, 0.06, 0.06]
