"""Issue 38: each command imports the heavy libraries it uses, and only those.

Each command runs in a fresh interpreter on a tiny input (its ``main``, as the ``fireeval`` program
calls it); the heavy modules found in ``sys.modules`` afterwards are compared with what the command
computes. ``evaluate-similarity`` computes R@K, MdR and MnR (and their ranges over tie rules) with numpy
alone: pandas, scipy.stats and statsmodels cost it 8x the CPU of a numpy script (issue 38)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from test_commands import GT, HEADLINE, PRED  # the README's example inputs

HEAVY = ("pandas", "pyarrow", "scipy", "scipy.stats", "scipy.optimize", "statsmodels", "sklearn", "matplotlib",
         "altair", "papermill", "nbformat", "numba")

_RUN = r"""
import json, sys
from fireeval.cli import main
status = main(sys.argv[2:])
heavy = sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules)
print("\n" + json.dumps({"status": status, "heavy": heavy}))
"""

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d5 2\n2 0 d3 1\n2 0 d4 0\n3 0 d1 1\n3 0 d3 1\n"
RUNS = ["1 Q0 d1 1 3.0 a\n1 Q0 d2 2 2.0 a\n2 Q0 d4 1 2.0 a\n2 Q0 d3 2 1.0 a\n3 Q0 d3 1 1.0 a\n",
        "1 Q0 d2 1 3.0 b\n1 Q0 d1 2 2.0 b\n2 Q0 d3 1 2.0 b\n2 Q0 d4 2 1.0 b\n3 Q0 d1 1 1.0 b\n"]
@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("imports")
    (d / "qrels.txt").write_text(QRELS)
    for i, run in enumerate(RUNS):
        (d / f"r{i}.run").write_text(run)
    (d / "gt.txt").write_text(GT)
    (d / "pred.json").write_text(json.dumps(PRED))
    np.save(d / "sim.npy", np.array([[0.9, 0.1, 0.3], [0.2, 0.8, 0.1], [0.5, 0.6, 0.4]], dtype=np.float32))
    np.save(d / "tied.npy", np.array([[0.9, 0.0, 0.0, 0.0], [0.0, 0.8, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                                      [0.1, 0.0, 0.0, 0.5]], dtype=np.float32))
    (d / "ids.txt").write_text("v1\nv2\nv3\n")
    (d / "ids4.txt").write_text("v1\nv2\nv3\nv4\n")
    rng = np.random.default_rng(0)  # 12 topics for compare (with 3 its power figure cannot be solved: reported)
    (d / "qrels12.txt").write_text("".join(f"{t} 0 d{i} {int(rng.random() < 0.4)}\n" for t in range(12) for i in range(8)))
    for name in ("c0", "c1"):
        (d / f"{name}.run").write_text("".join(f"{t} Q0 d{i} {r + 1} {8 - r} {name}\n" for t in range(12)
                                               for r, i in enumerate(rng.permutation(8))))
    (d / "a.headline.json").write_text(json.dumps(HEADLINE))
    (d / "b.headline.json").write_text(json.dumps({**HEADLINE, "n": 2}))
    return d


def _heavy(folder, *args) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _RUN, json.dumps(HEAVY), *args], capture_output=True, text=True,
                          cwd=folder, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["status"] == 0, done.stderr
    return got["heavy"]


@pytest.mark.parametrize("args", [
    ["evaluate", "qrels.txt", "r0.run", "-m", "map", "-m", "P_10", "-q"],
    ["evaluate-similarity", "sim.npy", "--queries", "ids.txt", "--videos", "ids.txt"],
    ["evaluate-similarity", "tied.npy", "--queries", "ids4.txt", "--videos", "ids4.txt", "--json"],  # tie ranges
    ["evaluate-moments", "gt.txt", "pred.json"],
    ["diff", "a.headline.json", "b.headline.json"],
], ids=["evaluate", "evaluate-similarity", "evaluate-similarity-ties", "evaluate-moments", "diff"])
def test_scoring_commands_import_no_heavy_library(inputs, args):
    assert _heavy(inputs, *args) == []


def test_compare_loads_scipy_stats_and_statsmodels_for_what_it_computes_only(inputs):
    """compare's report holds the paired t-test (scipy.stats), Holm's adjustment and the power figures
    (statsmodels, which brings pandas): it imports them, and only once it computes them."""
    loaded = _heavy(inputs, "compare", "qrels12.txt", "c0.run", "c1.run", "-m", "map", "--permutations", "200",
                    "--bootstrap", "200")
    assert {"scipy.stats", "statsmodels"} <= set(loaded) and not {"sklearn", "matplotlib", "altair", "numba",
                                                                 "papermill", "nbformat"} & set(loaded)
    probe = ("import sys; import fireeval.cli.compare, fireeval.stats.significance; "
             "print(sorted(m for m in ('pandas', 'scipy.stats', 'statsmodels') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr  # reading the command and its statistics module loads none


CHAPTER = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---
# One cell

```{code-cell} ipython3
:tags: [parameters]
n = 1
```

```{code-cell} ipython3
from fireeval.book import report
report.headline({"n": n})
```
"""


def test_run_loads_no_data_library_in_the_command_itself(inputs):
    """``fireeval run`` executes the chapter in a kernel: the command itself needs papermill and nbformat, not
    pandas or scipy (importing pandas for the cache folder's name cost every chapter execution 0.5 s, issue 38)."""
    (inputs / "one.md").write_text(CHAPTER)
    loaded = _heavy(inputs, "run", "one.md", "--output", "out")
    assert set(loaded) - {"pyarrow"} == {"papermill", "nbformat"}, loaded  # papermill's iorw imports pyarrow.fs
