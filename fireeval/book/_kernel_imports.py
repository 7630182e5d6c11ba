"""The libraries a chapter's kernel imports, imported once by the fork server of
:mod:`fireeval.book.forked_kernels` as they would be inside a kernel.

The order is a kernel's: IPython and ipykernel first. pandas decides when it is imported whether it runs
in a terminal (frames then print as wide as the terminal allows) or in a Jupyter kernel (20 columns at
most), by calling ``get_ipython()``; while it is imported here a stand-in answers as a kernel's IPython
does, so a forked kernel prints frames exactly as a started one. It is the only library among these that
asks at import (``tests/book/test_forked_kernels.py`` checks that the kernels agree).
"""
import builtins

import IPython  # noqa: F401
import ipykernel.ipkernel  # noqa: F401
import ipykernel.kernelapp  # noqa: F401


class _KernelShell:
    kernel = True  # pandas' is_terminal(): "IPython as a Jupyter kernel"


builtins.get_ipython = lambda: _KernelShell
try:
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import scipy.stats  # noqa: F401
    import altair  # noqa: F401

    import fireeval.book.plotting  # noqa: F401
    import fireeval.book.report  # noqa: F401
    import fireeval.book.teaching  # noqa: F401
    import fireeval.stats.claims  # noqa: F401
    import fireeval.stats.resampling  # noqa: F401
finally:
    del builtins.get_ipython
