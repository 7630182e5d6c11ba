"""Togashi et al., *Axiomatic Preference ... AxIoU* (CVPR 2022): the statements the AxIoU chapters test, as data.

The paper's words (quotations), the numbers it prints (Fig. 4's τ matrix as printed in the
authors' notebook), the bars read off those numbers with the cell each comes from, and what
the authors' notebook shows about its own series (Fig. 6's label swap, Fig. 8's checkpoint
choice). The chapters' claim builders (:mod:`fireeval.book.chapters.axiou_measures`,
:mod:`~fireeval.book.chapters.axiou_label_noise`, :mod:`~fireeval.book.chapters.axiou_model_selection`)
read them; the image readers of the authors' figures stay in :mod:`fireeval.vmr.reference`.
"""
from __future__ import annotations

import numpy as np

from fireeval.core.validation import STR, validate_params

__all__ = ["PAPER", "ORDERING_QUOTES", "ORDERING_SCOPE", "PART_SHORT", "AGREEMENT_QUOTES", "AGREEMENT_SHORT", "USAGE", "FIG4_TAU",
           "REASONABLY_WELL", "REASONABLY_WELL_PAIR", "REASONABLY_WELL_CELL", "REMARKABLY", "REMARKABLY_PAIR",
           "REMARKABLY_CELL", "FIG6_SERIES", "FIG7_SERIES",
           "GLOB_FIRST", "SELECTION_QUOTE", "cell_name", "FIG6_PROTOCOL", "FIG8_PROTOCOL"]

PAPER = "Togashi et al. 2022"

# §6.4's ordering of the measures under simulated label noise, part by part, in the paper's words.
#: Why each ordering part is read at every σ or at a strict majority of σ: the paper's own scope words.
ORDERING_SCOPE = {
    **{part: ("read at every σ: §6.4's sentence opens 'In all datasets and all σ', which governs this clause; "
              "'in a wide range of noise levels' (a strict majority of σ) is a reading of equal standing, a row")
       for part in ("r07_above_axiou", "r05_above_axiou")},
    "r03_not_above_axiou": ("read at a strict majority of σ: the paper scopes this clause with 'in a wide range of "
                            "noise levels', and the authors' Fig. 7 draws AxIoU@K below R@K,0.3 at σ = 1 s while they "
                            "wrote 'comparable or lower'; every σ is a secondary row"),
    "r07_above_r05": ("read at every σ: 'In particular, the R@K,0.7 instances show severely high errors' has no scope "
                      "word of its own and continues the sentence that opens 'In all datasets and all σ'; a strict "
                      "majority of σ is a reading of equal standing, a row"),
}
ORDERING_QUOTES = {
    "r07_above_axiou": ("In all datasets and all σ, the AxIoU instances show lower errors than the R@K,θ instances "
                        "[with high θ]: R@K,0.7"),
    "r05_above_axiou": "... lower errors than the R@K,θ instances [with high θ]: R@K,0.5",
    "r03_not_above_axiou": ("[the AxIoU instances show] higher errors than R@K,0.3 instances in a wide range of noise "
                            "levels ... the instances of R@K,θ with θ = 0.3 show comparable or lower errors than the "
                            "AxIoU instances"),
    "r07_above_r05": "In particular, the R@K,0.7 instances show severely high errors",
}
PART_SHORT = {"r07_above_axiou": "AxIoU@K errs less than R@K,0.7", "r05_above_axiou": "AxIoU@K errs less than R@K,0.5",
              "r03_not_above_axiou": "R@K,0.3 errs comparably or less than AxIoU@K",
              "r07_above_r05": "R@K,0.7 errs more than R@K,0.5"}

# §6.2's three statements about Fig. 4, with the direction of the test.
AGREEMENT_QUOTES = {
    "axiou_vs_r": ("In the Charades-STA dataset, AxIoU@K agrees well with all instances of R@K,θ", ">="),
    "axiou_vs_axiou": ("The values of AxIoU@K with different values of K agree reasonably well with one another", ">="),
    "r_vs_r": ("different instances of R@K,θ can conflict with one another", "<"),
}
AGREEMENT_SHORT = {
    "axiou_vs_r": "AxIoU@K agrees well with all R@K,θ instances on Charades-STA",
    "axiou_vs_axiou": "AxIoU@K at different K agree reasonably well with one another",
    "r_vs_r": "R@K,θ instances can conflict with one another",
}
USAGE = ("§6.2 calls the agreement of the AxIoU@K instances, whose lowest τ in Fig. 4 is 0.36 (AxIoU@1 vs AxIoU@10), "
         "'reasonably well', and calls AxIoU@10's τ of 0.87 and 0.73 with R@5,0.5 and R@5,0.7 'remarkably' agreeing")

# Fig. 4 of the authors' notebook (cell 12): Kendall τ between the 12 measures' rankings of the six systems, as
# printed on the image to two decimals (a quotation). Upper triangle, row by row, in the order of
# fireeval.vmr.reference.FIG4_MEASURES: R@1,0.3 ... R@10,0.7, AxIoU@1, AxIoU@5, AxIoU@10.
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
    m = np.eye(len(_FIG4_ROWS) + 1)
    for i, row in enumerate(_FIG4_ROWS):
        m[i, i + 1:] = row
        m[i + 1:, i] = row
    return m


#: Fig. 4 as printed: the 12 × 12 τ matrix (symmetric, 1 on the diagonal).
FIG4_TAU = _fig4()


@validate_params(a=STR, b=STR)
def cell_name(a: str, b: str) -> str:
    """The name of the τ cell of two measures, order-free: ``"tau(AxIoU@1, AxIoU@10)"``."""
    from fireeval.vmr.reference import FIG4_MEASURES

    order = {m: i for i, m in enumerate(FIG4_MEASURES)}
    x, y = sorted((a, b), key=lambda m: (order.get(m, len(order)), m))
    return f"tau({x}, {y})"


#: The lowest τ the paper calls "reasonably well": AxIoU@1 vs AxIoU@10, printed 0.36 in Fig. 4 (any τ in
#: [0.355, 0.365) prints so); the paper's own usage of its agreement words (§6.2).
REASONABLY_WELL = 0.355
#: The cell that bar is read off: a bar never tests its own cell.
REASONABLY_WELL_PAIR = ("AxIoU@1", "AxIoU@10")
REASONABLY_WELL_CELL = cell_name(*REASONABLY_WELL_PAIR)
#: §6.2's "remarkably, AxIoU@K agrees with R@K,θ and R@K,θ with τ = … and …": the values printed for AxIoU@10
#: against R@5,0.5 and R@5,0.7 in Fig. 4 are 0.87 and 0.73; the lower one, printed 0.73, is ≥ 0.725.
REMARKABLY = 0.725
REMARKABLY_PAIR = ("AxIoU@10", "R@5,0.7")
REMARKABLY_CELL = cell_name(*REMARKABLY_PAIR)

#: Fig. 6 (cell 19) draws ``c_ms`` under the labels R@1,0.3, R@1,0.5, R@1,0.7, ... in that order, with line styles
#: solid, dashed, dotted per θ; cell 18 fills ``c_ms`` from the end of the measure list in reverse, so the line
#: labelled R@K,0.3 holds R@K,0.7's series and the reverse (R@K,0.5 and AxIoU@K are where their labels say).
#: Keyed by the measure whose series is drawn: (label on the legend, line style, colour).
FIG6_SERIES = {
    **{f"R@{k},{t}": (f"R@{k},{lab}", style, "blue")
       for k in (1, 5, 10) for t, lab, style in (("0.7", "0.3", "solid"), ("0.5", "0.5", "dashed"),
                                                 ("0.3", "0.7", "dotted"))},
    **{f"AxIoU@{k}": (f"AxIoU@{k}", "dotted", "red") for k in (1, 5, 10)},
}
#: Fig. 7 (cell 29) draws cell 27's ``lines`` under the same labels and styles; ``test_results[0]`` is cell 23's
#: ``evaluate``, which stacks the R@K,θ in the order K = 1, 5, 10 and θ = 0.3, 0.5, 0.7, so the legend names each
#: series rightly: solid 0.3, dashed 0.5, dotted 0.7 (no swap, unlike Fig. 6).
FIG7_SERIES = {**{f"R@{k},{t}": (f"R@{k},{t}", style, "blue")
                  for k in (1, 5, 10) for t, style in (("0.3", "solid"), ("0.5", "dashed"), ("0.7", "dotted"))},
               **{f"AxIoU@{k}": (f"AxIoU@{k}", "dotted", "red") for k in (1, 5, 10)}}

#: The authors' protocols behind Fig. 6 and Fig. 8 (their notebook's cells 14-19 and 32-36), in our words.
FIG6_PROTOCOL = ("the authors' Fig. 6: for n = 100, 200, ..., 3,700 queries, 5,000 random subsets of n of the 3,720 "
                 "test queries (a permutation's first n); τ between the six systems' ranking on the subset and on the "
                 "whole test set; mean and variance of τ over the draws")
FIG8_PROTOCOL = ("the authors' Fig. 8: five training runs of 2D-TAN (30, 30, 20, 20, 20 checkpoint files); for each run, "
                 "the position of each validation measure's argmax (first index on ties) in the list glob.glob "
                 "returned (cell 33), then the files named by those positions, val_{position}.pkl (cell 36): 32 "
                 "checkpoints in all, each post-processed with NMS at 20 thresholds 0.01, 0.06, ..., 0.96: 640 "
                 "variants; each of the 12 validation measures picks its argmax (first index on ties) among them")

#: §6.6, Fig. 8: the paper's one-split finding.
SELECTION_QUOTE = "only {measure} selected a model above average on every test measure [one split]"

#: Which checkpoints the authors' "best checkpoints" are (notebook cells 32, 33 and 36, read, not run).
GLOB_FIRST = ("The authors' notebook does not keep the best checkpoints by number: cell 32 scores the files in the "
              "order glob.glob returns them (the directory's order, not numeric: val_10.pkl may come before val_2.pkl), "
              "cell 33 takes each validation measure's argmax position in that list (np.argmax: the first of tied "
              "maxima in glob order), and cell 36 loads val_{position}.pkl, the file named by that position. That file "
              "is the best checkpoint only where the directory happened to list the files in numeric order; otherwise "
              "it is another checkpoint of the same run. The checkpoint files are not released, so which one was kept "
              "cannot be checked here. It does not touch the logic of Fig. 8 (each validation measure still picks its "
              "argmax among the 640 variants, whatever checkpoints they came from), but the variants are not 'the best "
              "checkpoints of each run' as the protocol reads")
