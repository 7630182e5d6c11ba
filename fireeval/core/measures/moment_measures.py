"""Moment measures of video moment retrieval: ``R@K,θ`` and ``AxIoU@K`` (the AxIoU paper's), and the
two it shows violate its axioms, ``AP@K,θ`` and ``DCG@K`` (IoU as gain).

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


def ap_iou(iou, k):
    """AP@K,θ: average precision of the top K with relevant = IoU >= θ, over the hits in the top K.

    .. math:: AP@K,\\theta = \\frac{1}{|\\{i \\le K : \\mathrm{IoU}_i \\ge \\theta\\}|} \\sum_{i \\le K : \\mathrm{IoU}_i \\ge \\theta} P@i

    >>> from fireeval.core.measures import get
    >>> get("AP@2,0.5").compute([[0.1, 0.6]], (2, 0.5)).tolist()
    [0.5]
    """
    from fireeval.core import moments

    return moments.ap_at_k_iou(iou, k[0], k[1])


def dcg_iou(iou, k):
    """DCG@K with the IoU itself as the gain.

    .. math:: DCG@K = \\sum_{i \\le K} \\mathrm{IoU}_i / \\log_2(i + 1)

    >>> from fireeval.core.measures import get
    >>> get("DCG@1").compute([[0.5, 0.9]], 1).tolist()
    [0.5]
    """
    from fireeval.core import moments

    return moments.dcg_at_k_iou(iou, k)


def _theta(text, name):
    theta = float_param(text, name, 0.0, 1.0)
    if theta == 0:
        raise ValueError(f"-m {name}: IoU threshold θ must be in (0, 1], got {text}. Fix: e.g. {name.split(',')[0]},0.5")
    return theta


def _parser(pattern, kind, with_theta, case_sensitive=False):
    regex = re.compile(pattern)

    def parse(text, low, printing=False):
        match = regex.fullmatch(text if case_sensitive else low)
        if not match:
            return None
        k = int_param(match[1], text)
        name = text.split("@")[0]
        if with_theta:
            theta = _theta(match[2], text)
            return [Measure(kind, (k, theta), label=f"{name}@{k},{theta}")]
        return [Measure(kind, k, label=f"{name}@{k}")]
    return parse


FAMILIES = (
    Family("R@K,θ", "moment_recall", recall_iou, needs=MOMENTS, gains_based=False,
           parse=_parser(r"r@([0-9]+),([0-9.]+)", "moment_recall", True), examples=("R@1,0.5", "R@5,0.7")),
    Family("AxIoU@K", "axiou", axiou, needs=MOMENTS, gains_based=False,
           parse=_parser(r"axiou@([0-9]+)", "axiou", False), examples=("AxIoU@5",)),
    Family("AP@K,θ", "moment_ap", ap_iou, needs=MOMENTS, gains_based=False,
           parse=_parser(r"ap@([0-9]+),([0-9.]+)", "moment_ap", True), examples=("AP@10,0.5",)),
    Family("DCG@K", "moment_dcg", dcg_iou, needs=MOMENTS, gains_based=False,
           parse=_parser(r"DCG@([0-9]+)", "moment_dcg", False, case_sensitive=True), examples=("DCG@10",)),
)
