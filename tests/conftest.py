import os

import pytest
from hypothesis import settings

from fireeval.datasets import SHARED_DATA, has_data

# Reproducible property tests in CI ("ci", the default): the same examples every run,
# so a failure is never a coin flip. HYPOTHESIS_PROFILE=dev explores new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def require_data(*names):
    """Skip (with the reason shown in the summary) unless the named registry files are present."""
    if not has_data(*names):
        pytest.skip(f"real data absent: {names[0]}{' ...' if len(names) > 1 else ''} not under FIREEVAL_DATA "
                    f"or {SHARED_DATA}")
