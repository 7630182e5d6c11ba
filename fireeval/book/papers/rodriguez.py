"""Rodriguez et al., *Fighting FIRe with FIRE* (EACL Findings 2023): the printed numbers the book tests, as data.

FIRE's tables as printed, for the false_negatives chapter's claim builder
(:mod:`fireeval.book.chapters.false_negatives`). FIRE's runs and human labels are Git LFS
pointers in the data here, so only the paper's printed cells are available.
"""
from __future__ import annotations

__all__ = ["RODRIGUEZ", "FIRE_SHARE", "FIRE_TABLE1", "FIRE_TABLE4_ALL", "FIRE_TABLE7", "FIRE_MSVD_CLIP4CLIP_C1",
           "FIRE_MSVD_QUERIES", "FIRE_CODE", "NO_FIRE_RUNS", "FIRE_TABLE3_OVERLAP", "FIRE_NONUNIFORM"]

RODRIGUEZ = "Rodriguez et al. 2023"
FIRE_SHARE = "11.8 %"  # FIRE's share of pooled non-original pairs judged relevant, as the data strings print it
#: FIRE Table 1, MSR-VTT, % as printed: model -> metric -> (corrected, original, delta).
FIRE_TABLE1 = {
    "TeachText": {"C@1": (24.1, 23.3, 0.8), "C@5": (53.2, 50.9, 2.3), "C@10": (67.0, 64.8, 2.2), "AP@20": (36.1, 35.8, 0.3)},
    "SSB": {"C@1": (27.3, 26.8, 0.5), "C@5": (55.9, 54.5, 1.4), "C@10": (68.9, 66.3, 2.6), "AP@20": (39.3, 39.2, 0.04)},
    "CLIP4Clip": {"C@1": (67.4, 42.4, 25.0), "C@5": (90.7, 70.4, 20.3), "C@10": (95.7, 80.2, 15.5),
                  "AP@20": (69.5, 54.9, 14.7)},
}
#: FIRE Table 4, MSR-VTT, "All" rows (C@1, C@5, C@10), as printed.
FIRE_TABLE4_ALL = {"CLIP4Clip": (0.674, 0.907, 0.957), "TeachText": (0.241, 0.532, 0.670), "SSB": (0.273, 0.559, 0.689)}
#: FIRE Table 3, MSR-VTT: top-10 overlap of the pooled pairs it names, as printed.
FIRE_TABLE3_OVERLAP = {("CLIP4Clip", "SSB"): 0.064, ("TeachText", "SSB"): 0.440}
#: FIRE Table 7, MSR-VTT: caption length vs train-test similarity (Spearman, Kendall; words, characters), as printed.
FIRE_TABLE7 = {"spearman_words": -0.419, "kendall_words": -0.296, "spearman_chars": -0.479, "kendall_chars": 0.334}
FIRE_MSVD_CLIP4CLIP_C1 = 0.653  # FIRE Table 1, MSVD, CLIP4Clip corrected C@1 (the model of its Fig. 4)
FIRE_MSVD_QUERIES = 27_763  # MSVD captions FIRE resampled (§4.3)
FIRE_CODE = "facebookresearch/mm-retrieval-evaluation"
NO_FIRE_RUNS = ("FIRE's own runs (predictions.zip) and labels (fire_msrvtt_dataset.json) are Git LFS pointers "
                "here, so its cells cannot be recomputed")

#: FIRE's statement about its own three named models (§4.1, Table 1): the quotation, the printed boosts and why its
#: runs cannot be tested here (the models here are others), as data for a "not testable here" claim.
FIRE_NONUNIFORM = {
    "id": "fn_nonuniform", "paper": RODRIGUEZ, "section": "§4.1; Table 1",
    "quote": "score boosts are not uniform: CLIP4CLIP has a larger boost than TeachText and SSB",
    "quantity": "C@1 boost of CLIP4Clip vs TeachText and SSB", "paper_value": "C@1 boosts 25.0 vs 0.8 and 0.5",
    "short": "CLIP4Clip's C@1 boost (25.0) is larger than TeachText's (0.8) and SSB's (0.5).",
    "reading": ("a statement about three named models' boosts", "CLIP4CLIP has a larger boost than TeachText and SSB "
                "on MSR-VTT", "paper's definition", "§4.1"),
    "missing": "the named models' runs are not here",
    "untestable": f"{NO_FIRE_RUNS}: the claim names FIRE's three models, and the models here are others; the paper's "
                  "mechanism for it (prediction overlap) is tested as fn_boost_mechanism",
}
