"""Each chapter's claim builder, one module per chapter (``pool_depth``, ``pool_leave_out``, ``metrics``, ...).

A builder turns the chapter's computed analyses into claim records
(:class:`fireeval.stats.claims.Claim`): one record per paper statement, the stand-in's
result as that record's ``here`` row. The analyses themselves live in the study folders
(``t2v``, ``pooling``, ``vmr``) and ``stats``; the papers' words and numbers in
:mod:`fireeval.book.papers`. Submodules are imported on request
(``from fireeval.book.chapters import pool_depth``).
"""
