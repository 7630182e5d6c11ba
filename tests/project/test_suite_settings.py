"""The test suite's own settings (tests/conftest.py): the CI hypothesis profile and the frozen garbage collector."""
import gc
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CI_DEADLINE_MS, CI_EXAMPLES


@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci", reason="another hypothesis profile chosen")
def test_the_ci_profile_is_reproducible_with_a_stated_budget():
    current = settings.default
    assert current.derandomize and current.max_examples == CI_EXAMPLES
    assert current.deadline is not None and current.deadline.total_seconds() * 1000 == CI_DEADLINE_MS


drawn = []


@given(st.integers())
def test_a_property_without_its_own_settings_draws_the_profile_count(x):
    drawn.append(x)


def test_the_count_was_drawn():
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("the property above may have run in the other worker")
    # hypothesis stops early only when it has tried every example the strategy can give (not so for integers)
    assert len(drawn) == settings.default.max_examples or not drawn


def test_objects_older_than_the_test_are_frozen_out_of_collections():
    assert gc.get_freeze_count() > 10_000  # the imports of the session, frozen before this test began
