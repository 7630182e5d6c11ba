"""Success@K: trec_eval ``success_K`` (10.0), ir_measures ``Success@K``; the video-retrieval
Correct@K (``C@K``, ``correct@K``: FIRE's name for the "R@K" of text-to-video papers).

``C@K`` and ``correct@K`` print as written.
"""
import dataclasses
import re

from fireeval.core import ranking
from fireeval.core.measures.base import REL, Family, Param, int_param


def success(ctx, k):
    """1 if a relevant document is in the top K, else 0.

    .. math:: \\mathrm{C@K} = \\mathbb{1}\\left[\\sum_{j=1}^{K} \\mathrm{rel}_j > 0\\right]

    >>> from fireeval.core.measures import score
    >>> score("C@2", [[0, 1, 0], [0, 0, 1]]).tolist()
    [1.0, 0.0]
    """
    return ranking.correct_at_k(ctx.grades, k, ctx.level)


_CORRECT = re.compile(r"(correct|c)(?:@|_)(\w+)")


def parse_correct(text, low, printing=False):
    match = _CORRECT.fullmatch(low)
    if not match:
        return None
    return SUCCESS.measures([int_param(match[2], text)], label=text)


SUCCESS = Family("success", "success", success, ir_names=("Success",), param=Param("K", int, (1, 5, 10), doc="cut-off"),
                 options=(REL,), ranx_names=("hit_rate",),
                 nicknames=frozenset({"all_trec"}), print_rank=29)
FAMILIES = (
    SUCCESS,
    dataclasses.replace(SUCCESS, root="correct", ir_names=(), ranx_names=(), nicknames=frozenset(), print_rank=None,
                        parse=parse_correct, examples=("C@1", "correct@5", "C_10")),
)
