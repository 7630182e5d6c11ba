import os
import warnings

import pytest

from fireeval.datasets import SHARED_DATA, has_data

os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")


def require_data(*names):
    """Skip (with the reason shown in the summary) unless the named registry files are present."""
    if not has_data(*names):
        pytest.skip(f"real data absent: {names[0]}{' ...' if len(names) > 1 else ''} not under FIREEVAL_DATA "
                    f"or {SHARED_DATA}")
