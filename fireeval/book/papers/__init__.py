"""The papers' statements and printed numbers, as data: one module per paper (quotations, bounds, tables).

The chapters' claim builders (:mod:`fireeval.book.chapters`) read them; nothing here computes.
"""
