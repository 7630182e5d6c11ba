"""Book plumbing: running notebooks, glueing results, the chart theme.

- ``notebooks``: parameter validation and papermill execution (``fireeval run``).
- ``report``: ``headline`` and ``glue`` for the chapters' computed numbers.
- ``plotting``: the altair theme and offline rendering.
- ``scoreboard``: the introduction's verdict chart and compact claims table, read from the executed chapters.
- ``exercises``: checkers a student runs on a measure they wrote (``check_bpref``, ``check_kendall_tau``, ...).
- ``teaching``: worked solutions computed by the chapter and checked against the exercise runs; reading and running times.
- ``page``: an executed chapter as one offline HTML page; ``headline_diff``: two headlines compared.
- ``papermill_io``: papermill on the ``.md`` chapters; ``inputs``: each chapter's inputs in one call.

Nothing in core, stats, the studies or datasets imports this. Names are re-exported
lazily (listed in ``__init__.pyi``).
"""
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
