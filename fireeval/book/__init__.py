"""Book plumbing: running notebooks, glueing results, the chart theme.

- ``notebooks``: parameter validation and papermill execution (``fireeval run``).
- ``report``: ``headline`` and ``glue`` for the chapters' computed numbers.
- ``plotting``: the altair theme and offline rendering.
- ``scoreboard``: the introduction's verdict chart and compact claims table, read from the executed chapters.
- ``leaderboards``: the closing chapter's inputs, adjacent-pair tests, threats, claims, table and chart.
- ``exercises``: checkers a student runs on a measure they wrote (``check_bpref``, ``check_kendall_tau``, ...).
- ``teaching``: worked solutions computed by the chapter and checked against the exercise runs; reading and running times.

Nothing in core, stats, the studies or datasets imports this. Names are re-exported lazily.
"""
from fireeval._lazy import attach

__getattr__, __dir__ = attach(__name__, __file__, ["notebooks", "report", "plotting", "scoreboard", "leaderboards",
                                                        "exercises", "page", "papermill_io", "diff", "teaching"])
