"""Glue a notebook's key numbers so prose, the CLI and tests read the same values.

Every notebook ends its analysis with ``headline({...})``: one JSON-serialisable dict
of its key numbers. It is glued (myst-nb) under the name ``headline`` with an
``application/json`` representation, which ``fireeval run`` extracts into
``<name>.headline.json``. Prose cites single numbers glued with :func:`glue`.
"""
from __future__ import annotations

import json
import math
from numbers import Integral, Real

import numpy as np

__all__ = ["headline", "glue", "to_jsonable", "HEADLINE_MIME"]

# Ends in "+json" so nbformat stores it as JSON even behind myst-nb's glue prefix.
HEADLINE_MIME = "application/vnd.fireeval.headline+json"


def to_jsonable(value):
    """Convert numpy scalars/arrays, tuples and non-string keys to plain JSON types.

    NaN and infinities become None (JSON has no NaN); keys become strings.
    """
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [to_jsonable(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real):
        value = float(value)
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"headline value {value!r} of type {type(value).__name__} is not JSON-serialisable")


class _Headline:
    def __init__(self, data):
        self.data = data

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {HEADLINE_MIME: self.data, "text/plain": repr(self)}

    def __repr__(self):
        return json.dumps(self.data, indent=1)


def headline(data: dict) -> dict:
    """Glue ``data`` as this notebook's ``headline`` and return its JSON-safe form."""
    clean = to_jsonable(data)
    json.dumps(clean)  # fail here, not in the CLI, if anything slipped through
    _glue("headline", _Headline(clean))
    return clean


def glue(name: str, value, display: bool = False) -> None:
    """Glue one value for the prose (``{glue:text}`name:.3f```); numpy scalars become Python numbers.

    Returns None, so a hidden cell ending in ``glue(...)`` shows no output.
    """
    if isinstance(value, (np.generic,)):
        value = value.item()
    _glue(name, value, display)


def _glue(name, value, display=False):
    try:
        from myst_nb import glue as myst_glue
    except ImportError:  # plain Python use: nothing to glue into
        return
    myst_glue(name, value, display=display)
