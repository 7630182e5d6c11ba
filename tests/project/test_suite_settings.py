"""The test suite's own settings (tests/conftest.py): the CI hypothesis profile and the frozen garbage collector;
the test command's pytest line (scripts/test.sh)."""
import gc
import os
import shlex
from pathlib import Path

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


ROOT = Path(__file__).resolve().parents[2]


def test_the_test_command_runs_the_ci_profile_on_two_workers_and_prints_the_slowest():
    script = (ROOT / "scripts" / "test.sh").read_text().replace("\\\n", " ")  # continuation lines joined
    (line,) = [line for line in script.splitlines() if " -m pytest " in line]
    words = shlex.split(line)
    assert words[0] == "HYPOTHESIS_PROFILE=ci", line
    assert words[words.index("-n") + 1] == "2" and "--durations=15" in words, line
    assert "--junitxml=_build/.fireeval-pytest-junit.xml" in words, line  # read by benchmarks/bench_book.py


def test_the_readme_and_contributing_state_the_ci_profile_as_configured():
    for doc in ("README.md", "CONTRIBUTING.md"):
        text = " ".join((ROOT / doc).read_text().split())
        assert f"{CI_EXAMPLES} examples" in text and f"{CI_DEADLINE_MS / 1000:g} s deadline" in text, doc
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "`pytest -n 2 --durations=15`" in readme
