"""INV-k and MON-k (AxIoU paper, App. A) as hypothesis properties, and the counterexamples."""
import numpy as np
import pytest
from hypothesis import assume, find, given, settings
from hypothesis import strategies as st

from fireeval.vmr import axioms
from fireeval.core.moments import measure_function

K = 5
iou_lists = st.lists(st.floats(0, 1, allow_nan=False, width=32), min_size=K, max_size=K)


@st.composite
def axiom_pairs(draw, axiom):
    """A list ``a`` and ``b`` = ``a`` improved at one position k <= K, under ``axiom``'s condition."""
    a = draw(iou_lists)
    pos = draw(st.integers(2 if axiom == "INV" else 1, K))
    best = max(a[: pos - 1], default=-np.inf)
    if axiom == "INV":
        assume(best > a[pos - 1])
        new = draw(st.floats(a[pos - 1], best, exclude_min=True, exclude_max=True))
    else:
        # Improvements above float resolution: a 1e-300 gain is strict in exact arithmetic
        # but vanishes when K terms are summed in floating point.
        low = max(a[pos - 1], best) + 1e-6
        assume(low < 1)
        new = draw(st.floats(low, 1))
    b = list(a)
    b[pos - 1] = new
    assume(axioms.axiom_of(a, b) == (axiom, pos))
    return a, b


prop = settings(max_examples=200, deadline=None)


@prop
@given(axiom_pairs("INV"), st.sampled_from([1, 3, 5]))
def test_axiou_satisfies_inv_k(pair, k):
    assert not axioms.violates(measure_function(f"AxIoU@{k}"), *pair)


@prop
@given(axiom_pairs("MON"))
def test_axiou_satisfies_mon_k(pair):
    a, b = pair
    k = axioms.axiom_of(a, b)[1]  # any cutoff K >= the changed position
    for cutoff in range(k, K + 1):
        assert not axioms.violates(measure_function(f"AxIoU@{cutoff}"), a, b)


@prop
@given(axiom_pairs("INV"), st.sampled_from([1, 3, 5]), st.sampled_from([0.3, 0.5, 0.7]))
def test_recall_satisfies_inv_k(pair, k, theta):
    assert not axioms.violates(measure_function(f"R@{k},{theta}"), *pair)
    assert not axioms.violates(measure_function(f"R@{k},{theta}", strict=True), *pair)


@pytest.mark.parametrize("name,axiom", [("R@5,0.5", "MON"), ("R@1,0.7", "MON"), ("AP@5,0.5", "INV"),
                                        ("DCG@5", "INV")])
def test_hypothesis_finds_violations(name, axiom):
    measure = measure_function(name)
    pair = find(axiom_pairs(axiom), lambda p: axioms.violates(measure, *p), settings=settings(max_examples=2000))
    assert axioms.axiom_of(*pair)[0] == axiom


def test_minimal_counterexamples():
    r = axioms.find_counterexample(measure_function("R@1,0.5"), "MON", 1)
    assert (r.a, r.b, r.position, r.score_a, r.score_b) == ((0.0,), (0.1,), 1, 0.0, 0.0)
    ap = axioms.find_counterexample(measure_function("AP@5,0.5"), "INV", 5)
    assert ap.a == (0.0, 0.6, 0.0) and ap.b == (0.0, 0.6, 0.5)
    assert ap.score_a == pytest.approx(0.5) and ap.score_b == pytest.approx((1 / 2 + 2 / 3) / 2)
    dcg = axioms.find_counterexample(measure_function("DCG@5"), "INV", 5)
    assert dcg.a == (0.2, 0.0) and dcg.b == (0.2, 0.1) and dcg.score_b > dcg.score_a
    for name in ("AxIoU@3", "R@3,0.5"):
        assert axioms.find_counterexample(measure_function(name), "INV", 3) is None
    assert axioms.find_counterexample(measure_function("AxIoU@3"), "MON", 3) is None
    assert axioms.find_counterexample(measure_function("DCG@3"), "MON", 3) is None


def test_axiom_of():
    assert axioms.axiom_of([0.6, 0.1], [0.6, 0.3]) == ("INV", 2)
    assert axioms.axiom_of([0.1, 0.2], [0.1, 0.5]) == ("MON", 2)
    assert axioms.axiom_of([0.6, 0.1], [0.6, 0.6]) == (None, None)  # ties the best: neither
    assert axioms.axiom_of([0.6, 0.3], [0.6, 0.1]) == (None, None)  # B worse
    assert axioms.axiom_of([0.6, 0.3], [0.7, 0.4]) == (None, None)  # two changes
    with pytest.raises(ValueError, match="axiom"):
        axioms.find_counterexample(measure_function("DCG@3"), "MONO", 3)


def test_claims_table_agrees_with_paper():
    table = axioms.claims_table(grid=(0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0))
    assert (table["found"] == ~table["paper: satisfied"]).all()
