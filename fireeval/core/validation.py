"""Declared parameter checks for the public functions of every package of fireeval (scikit-learn's
``validate_params`` style): one decorator, a few constraint types, one-line errors with a ``Fix:``.

A function declares each of its parameters once, next to its signature::

    @validate_params(pvalues=PROBABILITIES, n_resamples=Int(1), rng=SEED)
    def f(pvalues, n_resamples=1000, rng=0): ...

A call that breaks a declaration fails before any work, in one line naming the function, the
parameter, the value and the fix (a :class:`ParamError`, both ``ValueError`` and ``TypeError``).
The declaration is kept as ``f.__fireeval_params__`` (``tests/core/test_validation.py`` checks that
every public function of every package declares every parameter).

>>> @validate_params(n=Int(1), p=Real(0, 1, closed="neither"))
... def g(n, p=0.5):
...     return n * p
>>> g(2)
1.0
>>> g(0)
Traceback (most recent call last):
...
fireeval.core.validation.ParamError: g: n=0 is outside [1, ∞). Fix: give an integer of at least 1
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys

__all__ = ["validate_params", "Int", "Real", "Options", "Instance", "Array", "Check", "ANY", "BOOL", "STR", "SEED",
           "NUMBER", "ARRAY", "PROBABILITIES", "ParamError", "COLLECTION", "CALLABLE", "COUNTS"]


class ParamError(ValueError, TypeError):
    """A value its declaration refuses: both a ``ValueError`` and a ``TypeError`` (as scikit-learn's
    ``InvalidParameterError``), so either ``except`` catches it.

    Raised by the functions :func:`validate_params` wraps; its message is one line naming the function,
    the parameter, the value and the fix.

    Examples
    --------
    >>> from fireeval.stats import holm
    >>> try:
    ...     holm([1.5, 0.2])
    ... except ValueError as err:  # (or TypeError: both catch it)
    ...     print(type(err).__name__, str(err).split(":")[0])
    ParamError holm
    """


def _numpy():
    """numpy if it is loaded, else None: a value cannot be a numpy object before numpy is imported, so the checks
    need no import of their own (the command line starts without numpy: ``fireeval diff`` reads no array)."""
    return sys.modules.get("numpy")


def _is_bool(value) -> bool:
    np = _numpy()
    return isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Constraint:
    fix = "see the function's Parameters"

    def problem(self, value):  # pragma: no cover - every constraint overrides it
        """None when ``value`` is allowed, else ``(exception type, what is wrong)``."""
        raise NotImplementedError


class Int(_Constraint):
    """A whole number (not a bool) in ``[low, high]`` (None: unbounded).

    Parameters
    ----------
    low, high : int or None
        The smallest and largest values allowed (both included); None leaves that side open.

    Examples
    --------
    >>> Int(1).problem(0)
    (<class 'fireeval.core.validation.ParamError'>, 'is outside [1, ∞)')
    >>> Int(1).problem(True)[1], Int(1, 3).problem(2)
    ('is a bool, not an integer', None)
    """

    def __init__(self, low=None, high=None):
        self.low, self.high = low, high
        bounds = [f"at least {low}"] * (low is not None) + [f"at most {high}"] * (high is not None)
        self.fix = "give an integer" + (" of " + " and ".join(bounds) if bounds else "")

    def problem(self, value):
        if _is_bool(value) or not isinstance(value, numbers.Integral):
            return ParamError, f"is a {type(value).__name__}, not an integer"
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            low = "(-∞" if self.low is None else f"[{self.low}"
            high = "∞)" if self.high is None else f"{self.high}]"
            return ParamError, f"is outside {low}, {high}"
        return None


class Real(_Constraint):
    """A finite real number (ints too, not bools) between ``low`` and ``high``; ``closed`` says which ends
    belong: ``both``, ``left``, ``right`` or ``neither``.

    Parameters
    ----------
    low, high : float or None
        The bounds; None leaves that side open (unbounded).
    closed : {"both", "left", "right", "neither"}
        Which bounds are allowed values themselves.

    Examples
    --------
    >>> Real(0, 1, closed="left").range
    '[0, 1)'
    >>> Real(0, 1, closed="left").problem(1.0)[1], Real(0, 1).problem(1.0)
    ('is outside [0, 1)', None)
    >>> Real().problem(float("nan"))[1]
    'is not finite'
    """

    def __init__(self, low=None, high=None, closed="both"):
        self.low, self.high, self.closed = low, high, closed
        left = "(" if low is None or closed in ("right", "neither") else "["
        right = ")" if high is None or closed in ("left", "neither") else "]"
        self.range = f"{left}{'-∞' if low is None else low}, {'∞' if high is None else high}{right}"
        self.fix = f"give a finite number in {self.range}"

    def problem(self, value):
        if _is_bool(value) or not isinstance(value, numbers.Real):
            return ParamError, f"is a {type(value).__name__}, not a number"
        if not math.isfinite(value):
            return ParamError, "is not finite"
        low_ok = self.low is None or (value >= self.low if self.closed in ("both", "left") else value > self.low)
        high_ok = self.high is None or (value <= self.high if self.closed in ("both", "right") else value < self.high)
        return None if low_ok and high_ok else (ParamError, f"is outside {self.range}")


class Options(_Constraint):
    """One of the values given.

    Parameters
    ----------
    *values
        The accepted values (compared with ``in``; an unhashable value is refused, not an error).

    Examples
    --------
    >>> Options("two-sided", "greater").problem("less")[1]
    'is not one of the accepted values'
    >>> Options("two-sided", "greater").fix
    "use one of 'two-sided', 'greater'"
    """

    def __init__(self, *values):
        self.values = values
        self.fix = "use one of " + ", ".join(map(repr, values))

    def problem(self, value):
        try:
            return None if value in self.values else (ParamError, "is not one of the accepted values")
        except TypeError:  # an unhashable or incomparable value
            return ParamError, "is not one of the accepted values"


class Instance(_Constraint):
    """An instance of one of the types given (``Instance(str, os.PathLike)``).

    Parameters
    ----------
    *types : type
        The accepted types (``isinstance``).
    fix : str, optional
        The fix the error message gives (default: "pass a" and the types' names).

    Examples
    --------
    >>> import os
    >>> Instance(str, os.PathLike).problem(3)
    (<class 'fireeval.core.validation.ParamError'>, 'is a int')
    >>> Instance(str, os.PathLike).fix
    'pass a str or PathLike'
    """

    def __init__(self, *types, fix=None):
        self.types = types
        self.fix = fix or "pass a " + " or ".join(t.__name__ for t in types)

    def problem(self, value):
        return None if isinstance(value, self.types) else (ParamError, f"is a {type(value).__name__}")


class Array(_Constraint):
    """Numbers in an array-like (list, tuple, ndarray, pandas object); with ``low``/``high`` every value
    must lie in ``[low, high]`` (NaN refused then). Only an ndarray's type is looked at without a range
    (the arrays of the scoring engine are not copied to be checked).

    Parameters
    ----------
    low, high : float or None
        When given (both), every value must lie in ``[low, high]``.

    Examples
    --------
    >>> Array(0, 1).problem([0.2, 1.5])[1]
    'holds 1.5, outside [0, 1]'
    >>> Array().problem("0.2")[1], Array().problem([0.2, 1.5])
    ('is a str, not an array of numbers', None)
    """

    def __init__(self, low=None, high=None):
        self.low, self.high = low, high
        self.fix = ("give numbers" if low is None and high is None else
                    f"give numbers from {low} to {high}") + " as a list or array"

    def problem(self, value):
        import numpy as np  # (an array's check needs numpy; the declarations themselves do not)

        if isinstance(value, (str, bytes, dict, set)) or value is None or not (
                isinstance(value, (list, tuple, np.ndarray, numbers.Number)) or hasattr(value, "__array__")):
            return ParamError, f"is a {type(value).__name__}, not an array of numbers"
        if self.low is None and self.high is None:
            if isinstance(value, np.ndarray) and value.dtype.kind not in "biuf":
                return ParamError, f"holds {value.dtype} values, not numbers"
            return None
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return ParamError, "holds values that are not numbers"
        inside = (array >= self.low) & (array <= self.high)  # (NaN is outside)
        if not inside.all():
            return ParamError, f"holds {float(array[~inside].flat[0])!r}, outside [{self.low}, {self.high}]"
        return None


class Check(_Constraint):
    """A module's own checker, ``func(name, value)``, that raises its one-line error (kept where its message is
    part of the API, e.g. ``ranking``'s cut-offs and ``evaluate``'s options).

    Parameters
    ----------
    func : callable
        ``func(name, value)``: returns when the value is allowed, raises its own error otherwise.
    fix : str
        The fix shown where the constraint is listed.

    Examples
    --------
    >>> def even(name, value):
    ...     if value % 2:
    ...         raise ValueError(f"{name}={value} is odd. Fix: give an even number")
    >>> @validate_params(n=Check(even))
    ... def half(n):
    ...     return n // 2
    >>> half(4)
    2
    >>> half(3)
    Traceback (most recent call last):
    ...
    ValueError: n=3 is odd. Fix: give an even number
    """

    def __init__(self, func, fix="see the message"):
        self.func, self.fix = func, fix

    def problem(self, value):
        raise NotImplementedError  # (called through _check with the parameter's name)


class _Any(_Constraint):
    def problem(self, value):
        return None


class _Bool(_Constraint):
    fix = "pass True or False"

    def problem(self, value):
        return None if _is_bool(value) else (ParamError, f"is a {type(value).__name__}")


class _Seed(_Constraint):
    fix = "pass an integer seed >= 0, a numpy Generator, or None"

    def problem(self, value):
        np = _numpy()
        if value is None or (np is not None and isinstance(value, np.random.Generator)):
            return None
        if _is_bool(value) or not isinstance(value, numbers.Integral):
            return ParamError, f"is a {type(value).__name__}, not a seed"
        return None if value >= 0 else (ParamError, "is a negative seed")


#: anything (an object the function checks itself, or passes on)
ANY = _Any()
BOOL = _Bool()
STR = Instance(str, fix="pass a str")
#: a real number (NaN and infinities too)
NUMBER = Instance(numbers.Real, fix="pass a number")
#: ``rng``: an integer seed, a numpy Generator or None
SEED = _Seed()
#: numbers as a list or array
ARRAY = Array()
#: p-values: numbers in [0, 1]
PROBABILITIES = Array(0, 1)


def _alternatives(spec):
    return tuple(spec) if isinstance(spec, (list, tuple)) else (spec,)


def _check(where, name, value, spec):
    alternatives = _alternatives(spec)
    if value is None and None in alternatives:
        return
    if len(alternatives) == 1 and isinstance(alternatives[0], Check):
        alternatives[0].func(name, value)
        return
    found = [c.problem(value) for c in alternatives if c is not None]
    if not found or any(p is None for p in found):
        return
    kind, what = found[0]
    fixes = [c.fix for c in alternatives if c is not None] + ["None"] * (None in alternatives)
    raise kind(f"{where}: {name}={_show(value)} {what}. Fix: {' or '.join(fixes)}")


def validate_params(**spec):
    """Declare the allowed values of a function's parameters; checked at each call, before the body runs.

    Each keyword is a parameter name, its value a constraint (``Int``, ``Real``, ``Options``,
    ``Instance``, ``Array``, ``ANY``, ``BOOL``, ``STR``, ``SEED``, ``ARRAY``, ``PROBABILITIES``) or a
    list of alternatives, ``None`` among them when None is allowed. A name the function lacks is an
    error when the module is imported.

    Parameters
    ----------
    **spec
        ``parameter name=constraint`` (or a list of alternatives, any one of which may hold).

    Returns
    -------
    callable
        A decorator: the function wrapped so that each call checks its arguments first (raising a
        :class:`ParamError`, or a ``TypeError`` for arguments that do not bind), the declaration kept as
        ``__fireeval_params__``.

    Examples
    --------
    >>> @validate_params(k=[Int(1), None], alpha=Real(0, 1, closed="neither"))
    ... def top(k=None, alpha=0.05):
    ...     return k, alpha
    >>> top(None), top(3, 0.1)
    ((None, 0.05), (3, 0.1))
    >>> top(k=0)
    Traceback (most recent call last):
    ...
    fireeval.core.validation.ParamError: top: k=0 is outside [1, ∞). Fix: give an integer of at least 1 or None
    >>> sorted(top.__fireeval_params__)
    ['alpha', 'k']
    """
    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(spec) - set(signature.parameters)
        if unknown:
            raise TypeError(f"validate_params({func.__qualname__}): no parameter {sorted(unknown)}")
        where = func.__qualname__
        mixed = sorted(n for n, c in spec.items() if isinstance(c, (list, tuple)) and len(c) > 1
                       and any(isinstance(x, Check) for x in c))
        if mixed:  # (a Check raises its own error: it cannot be one alternative among others)
            raise TypeError(f"validate_params({where}): {mixed} list a Check among alternatives; let the Check "
                            "accept None (or the other values) itself")

        @functools.wraps(func)
        def checked(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as err:
                raise TypeError(f"{where}: {err}. Fix: call it as {where}{signature}") from None
            for name, value in bound.arguments.items():
                if name in spec:
                    _check(where, name, value, spec[name])
            return func(*args, **kwargs)

        checked.__fireeval_params__ = dict(spec)
        return checked
    return decorate


class _Collection(_Constraint):
    fix = "pass a list, tuple, set, dict or array (not a single str or None)"

    def problem(self, value):
        if isinstance(value, (str, bytes)) or value is None or not (
                hasattr(value, "__len__") and hasattr(value, "__iter__")):
            return ParamError, f"is a {type(value).__name__}, not a collection"
        return None


class _Callable(_Constraint):
    fix = "pass a function"

    def problem(self, value):
        return None if callable(value) else (ParamError, f"is a {type(value).__name__}, not callable")


#: names, indices or masks: a list, tuple, set, dict (its keys), array or pandas object (a single str or None is
#: refused: iterating it would give its letters)
COLLECTION = _Collection()
#: a function (or any callable)
CALLABLE = _Callable()
#: positive counts or depths (1, 2, ...) as a list or array
COUNTS = Array(1, math.inf)
