"""Moment measures of video moment retrieval: ``R@K,θ`` and ``AxIoU@K`` (Yang et al.'s AxIoU paper).

They read the IoU of each ranked temporal window with the ground truth, not relevance
grades (``needs={"moments"}``): :func:`fireeval.core.moments.score_systems` computes
them; ``fireeval evaluate`` refuses them with a pointer there.
"""
import re

from fireeval.core.measures.base import Family, Measure, int_param, float_param

MOMENTS = frozenset({"moments"})


def recall_iou(iou, k):
    """R@K,θ: 1 if any of the top K moments has IoU >= θ (``k`` = (K, θ)).

    .. math:: R@K,\\theta = \\mathbb{1}\\left[\\max_{i \\le K} \\mathrm{IoU}_i \\ge \\theta\\right]

    >>> from fireeval.core.measures import get
    >>> get("R@1,0.5").compute([[0.6, 0.1]], (1, 0.5)).tolist()
    [1.0]
    """
    from fireeval.core import moments

    return moments.recall_at_k_iou(iou, k[0], k[1])


def axiou(iou, k):
    """AxIoU@K: the mean over k = 1..K of the best IoU within the top k.

    .. math:: \\mathrm{AxIoU@K} = \\frac{1}{K} \\sum_{k=1}^{K} \\max_{i \\le k} \\mathrm{IoU}_i

    >>> from fireeval.core.measures import get
    >>> get("AxIoU@2").compute([[0.2, 0.6]], 2).tolist()   # (0.2 + 0.6) / 2
    [0.4]
    """
    from fireeval.core import moments

    return moments.axiou_at_k(iou, k)


_R = re.compile(r"r@([0-9]+),([0-9.]+)")
_AX = re.compile(r"axiou@([0-9]+)")


def parse_recall_iou(text, low, printing=False):
    match = _R.fullmatch(low)
    if not match:
        return None
    k, theta = int_param(match[1], text), float_param(match[2], text, 0.0, 1.0)
    return [Measure("moment_recall", (k, theta), label=f"R@{k},{theta}")]


def parse_axiou(text, low, printing=False):
    match = _AX.fullmatch(low)
    if not match:
        return None
    k = int_param(match[1], text)
    return [Measure("axiou", k, label=f"AxIoU@{k}")]


FAMILIES = (
    Family("R@K,θ", "moment_recall", recall_iou, needs=MOMENTS, gains_based=False, parse=parse_recall_iou,
           examples=("R@1,0.5", "R@5,0.7")),
    Family("AxIoU@K", "axiou", axiou, needs=MOMENTS, gains_based=False, parse=parse_axiou, examples=("AxIoU@5",)),
)
