"""Wray et al., *On Semantic Similarity in Video Retrieval* (CVPR 2021): the printed numbers the book tests, as data.

For the semantic_similarity chapter's claim builder
(:mod:`fireeval.book.chapters.semantic_similarity`). The paper's trained models (MEE, MoEE,
CE, JPoSE) and its relevance matrices are not in the data here.
"""
from __future__ import annotations

__all__ = ["WRAY", "WRAY_CODE", "WRAY_TABLE3_RANDOM", "WRAY_TABLE3_METEOR", "WRAY_HIGH_RATIOS"]

WRAY = "Wray et al. 2021"
WRAY_CODE = "mwray/Semantic-Video-Retrieval"
#: Wray et al.'s Table 3 (supplementary), MSR-VTT, Random row: nDCG (%) per proxy, as printed.
WRAY_TABLE3_RANDOM = {"bow": 34.0, "pos": 30.0, "syn": 11.6, "meteor": 80.4}
#: Table 3, METEOR nDCG (%): the Random row and the best trained row, per dataset §5.3 names, as printed.
WRAY_TABLE3_METEOR = {"MSR-VTT": {"random": 80.4, "best trained": 84.0},
                      "YouCook2": {"random": 66.2, "best trained": 73.3}}
#: Random ÷ best trained METEOR nDCG: what the paper calls 'high' for a random run (§5.3).
WRAY_HIGH_RATIOS = {d: v["random"] / v["best trained"] for d, v in WRAY_TABLE3_METEOR.items()}
