"""Westerveld, *TRECVID as a re-usable test collection for video retrieval*: the statements the book tests, as data.

The paper's words (quotations) and the bounds it prints, in one place for the pool_depth and
pool_leave_out chapters' claim builders (:mod:`fireeval.book.chapters.pool_depth`,
:mod:`fireeval.book.chapters.pool_leave_out`). TRECVID 2003's runs are not public, so no value
the paper prints can be recomputed here.
"""
from __future__ import annotations

from fireeval.stats.claims import Evidence

__all__ = ['WESTERVELD', 'FOR_TRECVID', 'NO_TRECVID', 'DEPTH_QUOTE', 'LEAVE_QUOTE', 'MANUAL_QUOTE', 'MANUAL_RANGE', 'REER_QUOTE']

WESTERVELD = "Westerveld (TRECVID reusability)"

FOR_TRECVID = "for TRECVID 2003"

NO_TRECVID = Evidence.none("TRECVID 2003's runs and per-topic scores are not public: no value the paper prints can "
                            "be recomputed here (the paper gives its τ only as a bound, read from its figures)")

DEPTH_QUOTE = ("Even a pool depth of K=3, (i.e., only the first three documents of each submission get judged), "
                "shows high correlation to the original ranking τ>0.90")

LEAVE_QUOTE = ("The correlation between system rankings based on original MAPs and modified MAPs is very high: "
                "τ > 0.98")

MANUAL_QUOTE = ("Even when all documents that are found by interactive submissions only are removed from the pool, "
                 "the resulting ranking of submission is very close to the ranking based on the original pool "
                 "(τ=0.99)")

#: 'very close' (τ = 0.99 printed) between the paper's 'high' (0.90) and just under its printed 0.99.
MANUAL_RANGE = (0.90, 0.95, 0.98, 0.985)

REER_QUOTE = "for REER to be smaller than 0.05, a difference in MAP scores should be greater than 0.02"

