"""``fireeval``'s folders, ``fireeval.evaluate`` and ``fireeval.compare``, for type checkers and IDEs; ``lazy_loader.attach`` in
``__init__.py`` imports each on first use (``tests/test_layout.py`` checks that both name every folder)."""

from . import (
    book as book,
    cli as cli,
    core as core,
    datasets as datasets,
    pooling as pooling,
    stats as stats,
    synthetic as synthetic,
    t2v as t2v,
    vmr as vmr,
)
from .core.api import evaluate as evaluate
from .stats.significance import compare as compare

__version__: str
