"""Declarations shared by the parameters of :mod:`fireeval.t2v`'s public functions (issue 36, checked by
:func:`fireeval.core.validation.validate_params`): texts (captions, tokens) and cut-offs.

>>> from fireeval.core.validation import validate_params
>>> @validate_params(captions=TEXTS, ks=CUTOFFS)
... def f(captions, ks=(1, 5)):
...     return len(captions), max(ks)
>>> f(["a man", "a dog"])
(2, 5)
>>> f(["a man"], ks=(0, 5))
Traceback (most recent call last):
...
fireeval.core.validation.ParamError: ks=(0, 5) holds 0, not a whole number of at least 1. Fix: give cut-offs as ...
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from fireeval.core.validation import Check, ParamError

__all__ = ["TEXTS", "CUTOFFS"]


def _check_texts(name, value):
    """Texts (captions, tokens): an iterable of str -- a list, tuple, set, array or Series; one str is refused (it
    would be read letter by letter)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        what = "one string" if isinstance(value, (str, bytes)) else f"a {type(value).__name__}"
        raise ParamError(f"{name}={value!r:.60} is {what}, not a list of texts. "
                         "Fix: pass a list of str (one caption per entry)")


#: a parameter holding captions (or tokens, or each video's captions): an iterable, not one str
TEXTS = Check(_check_texts, fix="pass a list of str")


def _check_cutoffs(name, value):
    items = list(value) if isinstance(value, (list, tuple, range, np.ndarray)) else []
    if not items:
        raise ParamError(f"{name}={value!r:.60} is not a list of cut-offs. Fix: give cut-offs as whole numbers of at "
                         "least 1, e.g. (1, 5, 10)")
    bad = [k for k in items if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1]
    if bad:
        raise ParamError(f"{name}={value!r:.60} holds {bad[0]!r}, not a whole number of at least 1. Fix: give cut-offs "
                         "as whole numbers of at least 1, e.g. (1, 5, 10)")


#: cut-offs (``ks`` of R@K, C@K): a list of whole numbers of at least 1
CUTOFFS = Check(_check_cutoffs, fix="give cut-offs as whole numbers of at least 1")
