"""What the AxIoU authors' own notebook shows, for the chapters' ``evidence`` fields.

The authors published their experiment notebook with its outputs
(riktor/vmr-axiou ``notebooks/ExperimentsOnCharadesSTA.ipynb`` @ 6d3b865c, in the
shared data as ``charades_sta/reference/ExperimentsOnCharadesSTA.ipynb``, registered
with its sha256 in ``data/registry.json``). Its outputs are figures, not tables:

* **Fig. 4** (cell 12) prints every Kendall τ of the 12 × 12 matrix on the image, to
  two decimals. :data:`FIG4_TAU` is that matrix as printed (a quotation of the
  authors' numbers, transcribed from the image; rows and columns in
  :data:`FIG4_MEASURES` order, which is :data:`fireeval.core.moments.MEASURES`).
* **Fig. 6** (cell 19) plots mean and variance of τ between the ranking on a random
  subset of n queries and the ranking on all 3,720, for n = 100, 200, ..., 3,700
  (x axis: index of n), 5,000 draws per n (:data:`FIG6_PROTOCOL`). It prints no number.
* **Fig. 7** (cell 29) plots the label-noise error of each measure at noise levels
  σ = 1, 2, 3, 4 s, 100 noisy datasets each. It prints no number and its y axis stops
  at 0.13 (:data:`FIG7_YMAX`): a convention whose errors exceed that cannot be the one
  drawn.
* **Fig. 8** (cell 50): the model-selection z-scores; the code above it builds the
  variants from the five training runs' checkpoints, each kept when it is the first
  (lowest-index) argmax of some validation measure, times 20 NMS thresholds 0.01,
  0.06, ..., 0.96 (:data:`FIG8_PROTOCOL`).

Nothing here is the authors' code: only what their outputs show and what their
protocol is, in our words.
"""
from __future__ import annotations

import numpy as np

__all__ = ["NOTEBOOK", "NOTEBOOK_SOURCE", "FIG4_MEASURES", "FIG4_TAU", "FIG6_PROTOCOL", "FIG7_SIGMAS", "FIG7_YMAX", "FIG8_PROTOCOL", "fig4_upper"]

NOTEBOOK = "charades_sta/reference/ExperimentsOnCharadesSTA.ipynb"
NOTEBOOK_SOURCE = "the AxIoU authors' notebook ExperimentsOnCharadesSTA.ipynb (riktor/vmr-axiou @ 6d3b865c)"

FIG4_MEASURES = ("R@1,0.3", "R@1,0.5", "R@1,0.7", "R@5,0.3", "R@5,0.5", "R@5,0.7", "R@10,0.3", "R@10,0.5",
                 "R@10,0.7", "AxIoU@1", "AxIoU@5", "AxIoU@10")
# Upper triangle, row by row, as printed on the figure (the matrix is symmetric with 1.00 on the diagonal).
_FIG4_ROWS = (
    (1.00, 1.00, -0.07, 0.21, 0.64, -0.21, -0.07, 0.21, 1.00, 0.64, 0.36),
    (1.00, -0.07, 0.21, 0.64, -0.21, -0.07, 0.21, 1.00, 0.64, 0.36),
    (-0.07, 0.21, 0.64, -0.21, -0.07, 0.21, 1.00, 0.64, 0.36),
    (0.73, 0.33, 0.87, 1.00, 0.47, -0.07, 0.33, 0.60),
    (0.60, 0.60, 0.73, 0.47, 0.21, 0.60, 0.87),
    (0.20, 0.33, 0.60, 0.64, 1.00, 0.73),
    (0.87, 0.33, -0.21, 0.20, 0.47),
    (0.47, -0.07, 0.33, 0.60),
    (0.21, 0.60, 0.60),
    (0.64, 0.36),
    (0.73,),
)


def _fig4() -> np.ndarray:
    m = np.eye(len(FIG4_MEASURES))
    for i, row in enumerate(_FIG4_ROWS):
        m[i, i + 1:] = row
        m[i + 1:, i] = row
    return m


#: Fig. 4 of the authors' notebook: Kendall τ between the 12 measures' rankings of the six systems, as printed.
FIG4_TAU = _fig4()


def fig4_upper(tau=None) -> np.ndarray:
    """The 66 cells above the diagonal (of ``tau``, default :data:`FIG4_TAU`), row by row."""
    t = FIG4_TAU if tau is None else np.asarray(tau, dtype=float)
    return t[np.triu_indices(len(t), k=1)]


FIG6_PROTOCOL = ("the authors' Fig. 6: for n = 100, 200, ..., 3,700 queries, 5,000 random subsets of n of the 3,720 "
                 "test queries (a permutation's first n); τ between the six systems' ranking on the subset and on the "
                 "whole test set; mean and variance of τ over the draws")
FIG8_PROTOCOL = ("the authors' Fig. 8: five training runs of 2D-TAN; for each run, the checkpoints that are the argmax "
                 "(first index on ties) of at least one validation measure (32 checkpoints in all), each "
                 "post-processed with NMS at 20 thresholds 0.01, 0.06, ..., 0.96: 640 variants; each of the 12 "
                 "validation measures picks its argmax (first index on ties) among them")

FIG7_SIGMAS = (1.0, 2.0, 3.0, 4.0)
#: The top of Fig. 7's y axis ("Mean RMSE"), in all three panels.
FIG7_YMAX = 0.13
