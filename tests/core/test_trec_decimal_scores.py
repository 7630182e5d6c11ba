"""A run's scores are parsed in vectorised passes (issue 38): the same doubles as numpy's own parse, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fireeval.core.trec import _decimal_scores, read_run_table

# plain decimals of every length (the fast path, and past it: more than 18 digits), exponents, and texts that are not
# numbers at all
DIGITS = st.text("0123456789", min_size=0, max_size=24)
PLAIN = st.builds(lambda sign, whole, point, frac: sign + whole + point + frac,
                  st.sampled_from(["", "-", "+"]), DIGITS, st.sampled_from(["", "."]), DIGITS)
TEXTS = st.one_of(PLAIN, st.floats(allow_nan=False, allow_infinity=False).map(repr),
                  st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda v: f"{v:.9g}"),
                  st.text("0123456789.+-eE", min_size=1, max_size=12))


def _numpy(texts):
    try:
        return texts.astype(np.float64)
    except ValueError:
        return None


def _ours(texts):
    try:
        return _decimal_scores(texts)
    except ValueError:
        return None


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=30))
@example(["0.1", "-0", "+.5", "7.", "9007199254740993", "0.30000000000000004", "123456789012345678"])
@example(["9007199254740992.5", "1" * 18, "1" * 19, "0." + "0" * 17 + "1"])
def test_scores_are_numpys_doubles_bit_for_bit(texts):
    array = np.array([t.encode() for t in texts])
    theirs, ours = _numpy(array), _ours(array)
    if theirs is None:  # a text numpy refuses: refused here too (the reader then asks pyarrow, as before)
        assert ours is None
    else:
        assert ours.view(np.int64).tolist() == theirs.view(np.int64).tolist(), texts


@pytest.mark.parametrize("bad", [".", "1.2.3", "1-2", "--1", "", "1e", "+"])
def test_a_text_that_is_not_a_number_is_refused_as_numpy_refuses_it(bad):
    assert _ours(np.array([b"0.5", bad.encode()])) is None


def test_a_run_reads_the_same_scores_and_order(tmp_path):
    lines = [f"1 Q0 d{i} {i} {s} t" for i, s in enumerate(["0.1", "-0.5", "1e-3", "0.30000000000000004", "2", "-0"])]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    table = read_run_table(path, score_precision="double")
    assert table.score.tolist() == [2.0, 0.30000000000000004, 0.1, 0.001, -0.0, -0.5]
