"""The benchmark scripts at least import and parse their arguments (they are run by hand, not timed here)."""
import subprocess
import sys
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"
BENCHMARKS = [FOLDER / f"bench_{name}.py" for name in
              ("compare", "evaluate", "evaluate_similarity", "fire", "label_noise", "metrics", "model_selection", "moments", "pooling", "similarity",
               "validation")]


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_help(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
