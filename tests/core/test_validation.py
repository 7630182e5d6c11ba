"""Declared validation (issue 36): one decorator, every public function of the packages in ``DECLARED`` declares its
parameters."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

from fireeval.core.validation import (ANY, ARRAY, BOOL, CALLABLE, COLLECTION, COUNTS, PROBABILITIES, SEED, Array, Check,
                                      Int, Options, ParamError, Real, validate_params)

#: the decorator itself takes any declaration
NOT_DECLARED = {"fireeval.core.validation.validate_params"}


#: the packages whose every public function declares its parameters (one line each, so that the packages' owners
#: can add theirs without touching the same line)
DECLARED = (
    "fireeval.core",
    "fireeval.stats",
    "fireeval.t2v",
    "fireeval.datasets",
    "fireeval.synthetic",
    "fireeval.pooling",
    "fireeval.vmr",
    "fireeval.book",
    "fireeval.cli",
)


def _public_functions():
    for package in map(importlib.import_module, DECLARED):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name in getattr(module, "__all__", ()):
                func = getattr(module, name, None)
                if inspect.isfunction(func) and func.__module__ == module.__name__:
                    yield f"{module.__name__}.{name}", func


@pytest.mark.parametrize("where, func", list(_public_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_public_function_declares_every_parameter(where, func):
    if where in NOT_DECLARED:
        return
    declared = getattr(func, "__fireeval_params__", None)
    assert declared is not None, f"{where}: no @validate_params declaration"
    named = {n for n, p in inspect.signature(func).parameters.items()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    assert set(declared) == named, f"{where}: undeclared {sorted(named - set(declared))}"


def _one_line(err):
    text = str(err.value)
    assert "\n" not in text and "Fix:" in text, text
    return text


def test_holm_refuses_p_values_outside_0_1():
    from fireeval.stats.significance import holm

    with pytest.raises(ValueError) as err:
        holm([1.5, 0.2])
    assert _one_line(err).startswith("holm: pvalues=[1.5, 0.2] holds 1.5, outside [0, 1]")
    with pytest.raises(ValueError, match="holds nan"):
        holm([np.nan, 0.2])
    assert holm([0.01, 0.04, 0.03]).round(3).tolist() == [0.03, 0.06, 0.06]


def test_bootstrap_means_refuses_a_negative_number_of_resamples():
    from fireeval.stats.resampling import bootstrap_means

    with pytest.raises(ValueError) as err:
        bootstrap_means([0.1, 0.2, 0.3], n_resamples=-1)
    assert _one_line(err) == ("bootstrap_means: n_resamples=-1 is outside [1, ∞). Fix: give an integer of at "
                              "least 1")
    with pytest.raises(TypeError, match="is a float, not an integer"):  # (a ParamError is both)
        bootstrap_means([0.1, 0.2], n_resamples=2.5)
    with pytest.raises(ValueError, match="rng=-3 is a negative seed"):
        bootstrap_means([0.1, 0.2], rng=-3)
    assert bootstrap_means([0.1, 0.2, 0.3], n_resamples=4, rng=1).shape == (4,)


@validate_params(n=Int(1, 10), x=Real(0, 1, closed="left"), how=Options("a", "b"), v=ARRAY, p=PROBABILITIES,
                 rng=SEED, flag=BOOL, maybe=[Int(0), None], free=ANY, q=Array(0, 1),
                 own=Check(lambda name, value: None if value != "bad" else (_ for _ in ()).throw(
                     ValueError(f"{name} is bad. Fix: not bad"))))
def _toy(n, x=0.5, how="a", v=(), p=(), rng=0, flag=False, maybe=None, free=None, q=0.5, own=None):
    """A toy."""
    return n


@pytest.mark.parametrize("kwargs, message", [
    ({"n": 0}, "_toy: n=0 is outside [1, 10]. Fix: give an integer of at least 1 and at most 10"),
    ({"n": True}, "n=True is a bool, not an integer"),
    ({"n": 1, "x": 1.0}, "x=1.0 is outside [0, 1)"),
    ({"n": 1, "x": float("inf")}, "x=inf is not finite"),
    ({"n": 1, "x": "0.5"}, "x='0.5' is a str, not a number"),
    ({"n": 1, "how": "c"}, "how='c' is not one of the accepted values. Fix: use one of 'a', 'b'"),
    ({"n": 1, "how": ["a"]}, "how=['a'] is not one of the accepted values"),
    ({"n": 1, "v": "123"}, "v='123' is a str, not an array of numbers"),
    ({"n": 1, "v": np.array(["a"])}, "holds <U1 values, not numbers"),
    ({"n": 1, "p": [0.5, -0.1]}, "holds -0.1, outside [0, 1]"),
    ({"n": 1, "p": ["x"]}, "holds values that are not numbers"),
    ({"n": 1, "rng": 1.5}, "rng=1.5 is a float, not a seed"),
    ({"n": 1, "flag": 1}, "flag=1 is a int. Fix: pass True or False"),
    ({"n": 1, "maybe": -1}, "maybe=-1 is outside [0, ∞). Fix: give an integer of at least 0 or None"),
    ({"n": 1, "q": 2}, "q=2 holds 2.0, outside [0, 1]"),
    ({"n": 1, "own": "bad"}, "own is bad. Fix: not bad"),
])
def test_the_decorator_refuses_in_one_line(kwargs, message):
    with pytest.raises(ValueError) as err:
        _toy(**kwargs)
    assert message in _one_line(err)


def test_the_decorator_accepts_what_it_declares_and_keeps_the_function():
    assert _toy(3, x=0.0, how="b", v=np.arange(3), p=[0, 1], rng=np.random.default_rng(0), flag=np.bool_(True),
                maybe=None, free=object(), q=(0.1, 0.9), own="good") == 3
    assert _toy(np.int64(2), rng=None) == 2
    assert _toy.__doc__ == "A toy." and str(inspect.signature(_toy)).startswith("(n, x=0.5")
    assert set(_toy.__fireeval_params__) == {"n", "x", "how", "v", "p", "rng", "flag", "maybe", "free", "q", "own"}
    with pytest.raises(TypeError, match="_toy: missing a required argument: 'n'. Fix: call it as _toy"):
        _toy()


def test_a_declaration_of_a_parameter_the_function_lacks_fails_at_definition():
    with pytest.raises(TypeError, match=r"validate_params\(.*f\): no parameter \['m'\]"):
        @validate_params(m=Int())
        def f(n):
            return n


def test_param_error_is_both_value_error_and_type_error():
    assert issubclass(ParamError, ValueError) and issubclass(ParamError, TypeError)


@validate_params(names=COLLECTION, func=CALLABLE, depths=COUNTS)
def _named(names=(), func=len, depths=(1,)):
    """Another toy: the constraints the study and book functions use."""
    return len(names)


@pytest.mark.parametrize("kwargs, message", [
    ({"names": "map"}, "_named: names='map' is a str, not a collection. Fix: pass a list, tuple, set, dict or array"),
    ({"names": None}, "names=None is a NoneType, not a collection"),
    ({"names": 3}, "names=3 is a int, not a collection"),
    ({"func": 3}, "func=3 is a int, not callable. Fix: pass a function"),
    ({"depths": [1, 0]}, "depths=[1, 0] holds 0.0, outside [1, inf]"),
    ({"depths": [2, float("nan")]}, "holds nan, outside [1, inf]"),
])
def test_collection_callable_and_counts_refuse_in_one_line(kwargs, message):
    with pytest.raises(ValueError) as err:
        _named(**kwargs)
    assert message in _one_line(err)


def test_collection_takes_lists_sets_dicts_arrays_and_pandas_objects():
    import pandas as pd

    for names in (["a"], ("a",), {"a"}, {"a": 1}, {"a": 1}.keys(), np.array(["a"]), pd.Index(["a"]), pd.Series([1])):
        assert _named(names) == 1
    assert _named(func=print, depths=np.array([1, 10, 100])) == 0


def test_a_check_among_alternatives_is_refused_when_declared():
    """A Check raises its own error, so it cannot be one of several alternatives (it was reached as a constraint
    without a problem() and raised NotImplementedError at the call)."""
    with pytest.raises(TypeError, match=r"\['warn'\] list a Check among alternatives"):
        @validate_params(warn=[Check(lambda name, value: None), None])
        def _f(warn=None):
            return warn
