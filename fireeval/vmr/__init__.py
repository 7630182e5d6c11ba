"""Video moment retrieval: the chapters on AxIoU's *measures*, *label noise* and *model selection*.

The measures themselves (temporal IoU, R@K,θ, AxIoU@K) are in :mod:`fireeval.core.moments`.

- ``axioms``: searches for counter-examples to INV-k and MON-k.
- ``noise``: the rater noise model and the label-noise experiment.
- ``baselines``: blind priors, sliding windows, NMS and other video-blind lists.
- ``variants``: model variants built from released prediction lists.
- ``selection``: which validation measure picks models good on every test measure.
- ``verdicts``: the three chapters' paper claims, built into computed verdicts.

Imports :mod:`fireeval.core` and :mod:`fireeval.stats` only. Names are re-exported lazily.
"""
from fireeval._lazy import attach

__getattr__, __dir__ = attach(__name__, __file__, ["axioms", "noise", "baselines", "variants", "selection", "verdicts", "reference", "stability"])
