"""Chapters' kernels start with one BLAS thread unless the user named a count (fireeval.book.notebooks.kernel_environment):
with two threads a sum over resampled means is added in another order, so a value's last digits followed the
machine's cores (issue 38: an interval end of pool_leave_out moved by 1e-6)."""
from __future__ import annotations

import json
import os

import pytest

from fireeval import cli
from fireeval.book.notebooks import BLAS_THREAD_VARIABLES, kernel_environment

CHAPTER = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
# Threads

```{code-cell} ipython3
:tags: [parameters]
value = 1  # unused. Allowed: int >= 0
```

```{code-cell} ipython3
import os
import numpy
from threadpoolctl import threadpool_info
from fireeval.book import report
report.headline({"environment": {v: os.environ.get(v) for v in %r},
                 "blas_threads": sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})})
```
""" % (BLAS_THREAD_VARIABLES,)


def test_unset_variables_become_one_thread_and_a_users_count_is_kept():
    got = kernel_environment({"HOME": "/x", "MKL_NUM_THREADS": "3"})
    assert got == {"HOME": "/x", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "3"}
    with pytest.raises(TypeError, match="environ=3"):
        kernel_environment(3)


def _headline(tmp_path, monkeypatch, **preset):
    for variable in BLAS_THREAD_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in preset.items():
        monkeypatch.setenv(variable, value)
    chapter = tmp_path / "threads.md"
    chapter.write_text(CHAPTER)
    assert cli.main(["run", str(chapter), "--output", str(tmp_path / "out")]) == 0
    return json.loads((tmp_path / "out" / "threads.headline.json").read_text())


def test_fireeval_run_starts_the_kernel_with_one_blas_thread_and_leaves_its_own_environment(tmp_path, monkeypatch):
    headline = _headline(tmp_path, monkeypatch)
    assert headline["environment"] == dict.fromkeys(BLAS_THREAD_VARIABLES, "1")
    assert headline["blas_threads"] == [1]
    assert not set(BLAS_THREAD_VARIABLES) & set(os.environ)  # set for the kernel only, then removed


def test_a_thread_count_the_user_set_reaches_the_kernel(tmp_path, monkeypatch):
    headline = _headline(tmp_path, monkeypatch, OPENBLAS_NUM_THREADS="2")
    assert headline["environment"]["OPENBLAS_NUM_THREADS"] == "2"
    assert headline["environment"]["OMP_NUM_THREADS"] == "1"
