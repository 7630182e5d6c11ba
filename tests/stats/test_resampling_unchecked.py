"""bootstrap_means checks its arguments once, not once per chunk of resamples (issue 38)."""
from __future__ import annotations

import collections

import numpy as np
import pytest

from fireeval.core import validation
from fireeval.stats import resampling


def test_a_first_bootstrap_checks_its_arguments_once_not_per_chunk(monkeypatch):
    seen = collections.Counter()
    original = validation._check
    monkeypatch.setattr(validation, "_check", lambda where, *a: (seen.update([where]), original(where, *a))[1])
    resampling.bootstrap_means(np.ones((2, 5)), n_resamples=50, rng=987_654, chunk=10)  # (a seed no test memoised)
    monkeypatch.setattr(validation, "_check", original)
    assert set(seen) == {"bootstrap_means"}, seen  # (five chunks: bootstrap_counts and _indices were checked in each)
    with pytest.raises(validation.ParamError, match="bootstrap_counts: n_items=0"):
        resampling.bootstrap_counts(0, 3, 2, 0)
    with pytest.raises(validation.ParamError, match="bootstrap_indices: size=0"):
        resampling.bootstrap_indices(3, 0, 2, 0)
