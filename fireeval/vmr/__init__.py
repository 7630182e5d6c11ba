"""Video moment retrieval: the chapters on AxIoU's *measures*, *label noise* and *model selection*.

The measures themselves (temporal IoU, R@K,θ, AxIoU@K) are in :mod:`fireeval.core.moments`.

- ``axioms``: searches for counter-examples to INV-k and MON-k.
- ``noise``: the rater noise model and the label-noise experiment.
- ``baselines``: blind priors, sliding windows, NMS and other video-blind lists.
- ``variants``: model variants built from released prediction lists.
- ``selection``: which validation measure picks models good on every test measure.
- ``tau_matrices``: Kendall τ between measures' rankings, over queries (bootstrap, jackknife) and systems.
- ``reference``: what the AxIoU authors' own notebook shows (the claims' evidence).
- ``stability``: the authors' stability protocol (a random subset against the whole test set).

The chapters' claims are built in :mod:`fireeval.book.chapters` (``axiou_measures``, ...).

Imports :mod:`fireeval.core` and :mod:`fireeval.stats` only.
Names are re-exported lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
