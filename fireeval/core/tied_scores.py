"""Scores that are not a full ranking: tied fill blocks, and rankings under a stated tie rule.

Some stored similarity matrices keep real scores only for each query's top N videos
and write one fill value (0, or a denormal such as 1e-45) everywhere else --
InternVideo2's MSR-VTT 1k-A matrix keeps 128 of 1000 per row. Below the cut, the
order of the videos is not the model's but the tie rule's, and so is the rank of a
relevant video that fell into the fill. :func:`tied_fill` finds such rows; a
:class:`TieReport` says how deep each row is really ranked and where the relevant
videos fall; :func:`order_under_tie_rule` ranks under each of the three tie rules of
:data:`TIE_RULES`, from which any ranking measure gets its bounds (see
:func:`fireeval.t2v.retrieval.tie_bounds`).

**The rule** (:func:`tied_fill`). A row's *fill* is its most common value (the lowest
one when several are equally common). The row has a *tied block* when the fill is
repeated in at least ``row_share`` (5 %) of the row and at least ``min_tied`` (3)
times; its *ranked depth* is then the number of entries strictly above the fill
(rows without a block count as ranked in full). A matrix is *flagged* when at least
``matrix_share`` (10 %) of its rows have a tied block. A continuous float32 matrix of
1000 videos repeats a value at most a few times per row (clip4clip: at most 2, i.e.
0.2 %), 25 times below a row's 5 %; a top-N cut leaves ``n_videos - N`` equal values.

Core: imports nothing else from fireeval.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from fireeval.core.validation import ANY, Int, Real, STR, validate_params

__all__ = ["TIE_RULES", "TieReport", "TiedFillWarning", "tied_fill", "order_under_tie_rule", "warn_if_tied"]

#: The tie rules, best case first: relevant items first among equal scores (optimistic),
#: item (column) order (stable: the book's rule, ``np.argsort(-s, kind="stable")``), relevant
#: items last (pessimistic).
TIE_RULES = ("relevant first", "stable", "relevant last")

_SHOWN: dict = {}  # the warnings registry of :func:`warn_if_tied`: each message once per process


class TiedFillWarning(UserWarning):
    """A similarity matrix is not a full ranking: a tie rule decides the order of its tied fill block.

    Issued (once per name and place) by :func:`warn_if_tied`; a ``UserWarning``, so ``-W error`` or
    ``warnings.simplefilter("error", TiedFillWarning)`` turns it into an error.

    Examples
    --------
    >>> import warnings
    >>> scores = np.zeros((2, 8))
    >>> scores[:, 0] = 1.0  # one real score per row, the rest a tied fill of zeros
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = warn_if_tied(scores, "sims.npy")
    >>> [w.category.__name__ for w in caught]
    ['TiedFillWarning']
    """


@dataclass(frozen=True)
class TieReport:
    """Per-row facts of :func:`tied_fill` and the matrix's verdict.

    Arrays have one entry per row (query): ``fill`` (the most common value), ``n_fill``
    (how often it occurs), ``has_block`` (a tied fill block by the rule), ``depth`` (entries
    strictly above the fill in a row with a block, else the row's length), and, when relevant
    items were given, ``relevant_ranked`` / ``relevant_in_fill`` (relevant items above / equal
    to the fill of a row with a block; below the fill and in rows without one they count as
    ranked).

    Parameters
    ----------
    fill, n_fill, has_block, depth : ndarray (rows,)
        As above.
    relevant_ranked, relevant_in_fill : ndarray (rows,) or None
        As above; None without relevant items.
    n_items : int
        The matrix's columns.
    matrix_share : float
        The share of flagged rows from which the matrix is flagged.

    Examples
    --------
    Made by :func:`tied_fill`: the first row ends in a block of three tied scores.

    >>> import numpy as np
    >>> report = tied_fill(np.array([[0.9, 0.1, 0.1, 0.1], [0.8, 0.7, 0.6, 0.5]]))
    >>> report.has_block.tolist(), report.depth.tolist(), report.share_flagged_rows, report.flagged
    ([True, False], [1, 4], 0.5, True)
    """

    fill: np.ndarray
    n_fill: np.ndarray
    has_block: np.ndarray
    depth: np.ndarray
    relevant_ranked: np.ndarray | None
    relevant_in_fill: np.ndarray | None
    n_items: int
    matrix_share: float

    @property
    def n_rows(self) -> int:
        return int(self.has_block.size)

    @property
    def share_flagged_rows(self) -> float:
        """Share of rows with a tied fill block."""
        return float(self.has_block.mean()) if self.n_rows else 0.0

    @property
    def flagged(self) -> bool:
        """At least ``matrix_share`` of the rows have a tied fill block."""
        return self.n_rows > 0 and self.share_flagged_rows >= self.matrix_share

    @property
    def queries_relevant_in_fill(self) -> int:
        """Queries with at least one relevant item inside their tied block (0 without relevant items)."""
        return 0 if self.relevant_in_fill is None else int((self.relevant_in_fill > 0).sum())

    @property
    def queries_all_relevant_in_fill(self) -> int:
        """Queries whose every relevant item lies inside the tied block: even the best one's rank is the tie rule's."""
        if self.relevant_in_fill is None:
            return 0
        return int(((self.relevant_in_fill > 0) & (self.relevant_ranked == 0)).sum())

    def fill_values(self) -> np.ndarray:
        """The distinct fill values of the rows with a block, ascending."""
        return np.unique(self.fill[self.has_block])

    def summary(self) -> dict:
        """Plain data (JSON-ready): the verdict, the ranked depth (median, min over rows) and the relevant items."""
        blocked = self.depth[self.has_block]
        out = {"flagged": self.flagged, "rows": self.n_rows, "items": self.n_items,
               "rows_with_tied_block": int(self.has_block.sum()), "share_rows_with_tied_block": self.share_flagged_rows,
               "ranked_depth_median": float(np.median(self.depth)) if self.n_rows else 0.0,
               "ranked_depth_min": int(self.depth.min()) if self.n_rows else 0,
               "tied_block_median": float(np.median(self.n_fill[self.has_block])) if blocked.size else 0.0,
               "fill_values": [float(v) for v in self.fill_values()[:5]]}
        if self.relevant_in_fill is not None:
            out["queries_relevant_in_fill"] = self.queries_relevant_in_fill
            out["queries_all_relevant_in_fill"] = self.queries_all_relevant_in_fill
        return out

    def message(self, name: str, advice: str = "read ranking measures as bounds over tie rules "
                                               "(fireeval.t2v.retrieval.tie_bounds)") -> str:
        """The one-line warning for a flagged matrix ``name`` (model or file): depth, what it means, ``advice``.

        >>> s = np.zeros((4, 10)); s[:, :3] = [[.9, .8, .7]] * 4
        >>> print(tied_fill(s, np.eye(4, 10, dtype=bool)[:, ::-1]).message("toy"))  # doctest: +NORMALIZE_WHITESPACE
        toy: not a full ranking -- 4 of 4 rows (100%) repeat one fill value (0) in a tied block (median 7 of 10
        items); only the items above it are really ranked (depth median 3, min 3 over rows), and 4 queries have
        their relevant item inside the block, so positions inside the block are decided by a tie rule
        (here: item order), not by the model: read ranking measures as bounds over tie rules
        (fireeval.t2v.retrieval.tie_bounds).
        """
        s = self.summary()
        fills = ", ".join(f"{v:.3g}" for v in s["fill_values"][:3]) + (", ..." if len(self.fill_values()) > 3 else "")
        relevant = ""
        if self.relevant_in_fill is not None:
            relevant = (f", and {s['queries_relevant_in_fill']} queries have their relevant item inside the block"
                        if s["queries_relevant_in_fill"] else ", though no query's relevant item is inside the block")
        return (f"{name}: not a full ranking -- {s['rows_with_tied_block']} of {s['rows']} rows "
                f"({100 * s['share_rows_with_tied_block']:.0f}%) repeat one fill value ({fills}) in a tied block "
                f"(median {s['tied_block_median']:g} of {s['items']} items); only the items above it are really ranked "
                f"(depth median {s['ranked_depth_median']:g}, min {s['ranked_depth_min']} over rows){relevant}, so positions "
                f"inside the block are decided by a tie rule (here: item order), not by the model: {advice}.")


def _row_modes(scores: np.ndarray, chunk: int = 1 << 17) -> tuple[np.ndarray, np.ndarray]:
    """``(value, count)`` of each row's most common value (the lowest among equally common ones), without a loop
    over rows: over blocks of rows of about ``chunk`` values, so the temporaries stay a few MB whatever the size."""
    n_rows, n_items = scores.shape
    rows = max(1, chunk // max(n_items, 1))
    if n_rows > rows:
        parts = [_row_modes(scores[i:i + rows], chunk) for i in range(0, n_rows, rows)]
        return np.concatenate([v for v, _ in parts]), np.concatenate([c for _, c in parts])
    ranked = np.sort(scores, axis=1).ravel()
    starts = np.ones(ranked.size, dtype=bool)
    starts[1:] = ranked[1:] != ranked[:-1]   # -0.0 == 0.0: one run
    starts[::n_items] = True                 # a row always starts a run
    first = np.flatnonzero(starts)
    lengths = np.diff(np.append(first, ranked.size))
    row = first // n_items
    row_first = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
    longest = np.maximum.reduceat(lengths, row_first)
    is_longest = lengths == longest[row]
    longest_runs = np.flatnonzero(is_longest)
    their_row = row[longest_runs]
    runs = longest_runs[np.r_[True, their_row[1:] != their_row[:-1]]]  # the first (lowest) longest run of each row
    return ranked[first[runs]], lengths[runs]


@validate_params(scores=ANY, relevant=ANY, row_share=Real(0, 1), min_tied=Int(1), matrix_share=Real(0, 1))
def tied_fill(scores, relevant=None, *, row_share: float = 0.05, min_tied: int = 3,
              matrix_share: float = 0.10) -> TieReport:
    """Find the tied fill block of each row of ``scores`` (queries x items) and where ``relevant`` items fall.

    Parameters
    ----------
    scores : array (queries, items)
        Finite similarity scores (higher = better).
    relevant : array (queries, items), optional
        Relevant items (bool, or grades: > 0 is relevant), e.g. the original positives.
    row_share, min_tied : float, int
        A row has a tied block when its most common value occurs in at least ``row_share``
        of the row and at least ``min_tied`` times.
    matrix_share : float
        The matrix is flagged when at least this share of its rows has a tied block.

    Returns
    -------
    TieReport
        Per-row ``fill``, ``n_fill``, ``has_block``, ``depth`` (entries above the fill), the
        relevant items above / inside the block, and the verdict ``flagged``.

    Examples
    --------
    A top-3 cut of 10 items (zeros below) is flagged; a continuous matrix with one
    accidental tie is not:

    >>> cut = np.zeros((4, 10)); cut[:, :3] = [0.9, 0.8, 0.7]
    >>> r = tied_fill(cut, np.eye(4, 10, dtype=bool))
    >>> r.flagged, r.depth.tolist(), r.relevant_in_fill.tolist()
    (True, [3, 3, 3, 3], [0, 0, 0, 1])
    >>> full = np.random.default_rng(0).random((4, 100)); full[0, 1] = full[0, 0]
    >>> tied_fill(full).flagged, tied_fill(full).depth.tolist()
    (False, [100, 100, 100, 100])
    """
    s = np.asarray(scores)
    if s.ndim != 2:
        raise ValueError(f"scores must be a (queries, items) matrix, not shape {s.shape}")
    if s.dtype.kind not in "biuf":
        raise ValueError(f"scores must be real numbers, not dtype {s.dtype}")
    if not (0 < row_share <= 1 and 0 < matrix_share <= 1 and min_tied >= 2):
        raise ValueError(f"row_share and matrix_share must be in (0, 1] and min_tied >= 2 (got {row_share}, "
                         f"{matrix_share}, {min_tied})")
    n_rows, n_items = s.shape
    if n_rows == 0 or n_items == 0:
        empty = np.zeros(n_rows, dtype=int)
        return TieReport(empty.astype(float), empty, empty.astype(bool), empty + n_items,
                         None if relevant is None else empty, None if relevant is None else empty, n_items, matrix_share)
    fill, n_fill = _row_modes(s)
    has_block = (n_fill >= min_tied) & (n_fill >= row_share * n_items)
    above = s > fill[:, None]
    depth = np.where(has_block, above.sum(axis=1), n_items)
    ranked = in_fill = None
    if relevant is not None:
        rel = np.asarray(relevant)
        if rel.shape != s.shape:
            raise ValueError(f"relevant {rel.shape} and scores {s.shape} must have the same shape")
        rel = rel > 0
        in_fill = np.where(has_block, (rel & (s == fill[:, None])).sum(axis=1), 0)
        ranked = rel.sum(axis=1) - in_fill
    return TieReport(fill, n_fill, has_block, depth, ranked, in_fill, n_items, matrix_share)


@validate_params(scores=ANY, name=STR, relevant=ANY, where=ANY)
def warn_if_tied(scores, name: str, relevant=None, where: str | None = None, **rule) -> TieReport:
    """:func:`tied_fill`, and one :class:`TiedFillWarning` line naming ``name`` when the matrix is flagged.

    ``where`` (a file) is the warning's location, printed before the message; each
    message is shown once per process. ``rule`` goes to :func:`tied_fill`.

    Parameters
    ----------
    scores : array_like (queries, items)
        A similarity matrix.
    name : str
        What the matrix is, for the warning.
    relevant : array_like of bool, optional
        Relevant items (as :func:`tied_fill`).
    where : str, optional
        A file, printed before the message.
    **rule
        :func:`tied_fill`'s thresholds.

    Returns
    -------
    TieReport
        :func:`tied_fill`'s report.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     report = warn_if_tied(np.array([[0.9, 0.5, 0.5, 0.5, 0.5]] * 4), "demo")
    >>> bool(report.has_block.all())
    True
    """
    report = tied_fill(scores, relevant, **rule)
    if report.flagged:
        # warn_explicit: the location is the data file (line 0: a binary file has no lines), so the
        # warning is one line, "FILE:0: TiedFillWarning: NAME: ...", not the loader's source line.
        warnings.warn_explicit(report.message(name), TiedFillWarning, str(where or name), 0, registry=_SHOWN)
    return report


@validate_params(scores=ANY, relevance=ANY, rule=STR)
def order_under_tie_rule(scores, relevance, rule: str = "stable") -> np.ndarray:
    """Item indices of each row ranked by score descending, ties broken by ``rule`` (one of :data:`TIE_RULES`).

    ``"relevant first"``: among equal scores, higher ``relevance`` first (the best case for
    every measure that rewards relevant items early); ``"relevant last"``: lower relevance
    first (the worst case); ``"stable"``: item order, whatever the relevance. Within equal
    score and relevance, item order. ``relevance`` (same shape; bool or graded) may be
    ``None`` for ``"stable"``.

    Parameters
    ----------
    scores : array_like (rows, items)
        Scores, higher first.
    relevance : array_like (rows, items) or None
        Grades or booleans (None only for ``"stable"``).
    rule : str
        One of :data:`TIE_RULES`.

    Returns
    -------
    numpy.ndarray of int (rows, items)
        Item indices in rank order.

    Examples
    --------
    >>> s = [[0.5, 0.0, 0.0, 0.0]]; rel = [[0, 1, 0, 2]]
    >>> [order_under_tie_rule(s, rel, r).tolist() for r in TIE_RULES]
    [[[0, 3, 1, 2]], [[0, 1, 2, 3]], [[0, 2, 1, 3]]]
    """
    if rule not in TIE_RULES:
        raise ValueError(f"tie rule must be one of {', '.join(TIE_RULES)}; not {rule!r}")
    s = np.asarray(scores)
    if s.ndim != 2:
        raise ValueError(f"scores must be a (queries, items) matrix, not shape {s.shape}")
    if s.dtype.kind in "bu":  # negating would fail (bool) or wrap around (unsigned)
        s = s.astype(np.int64 if s.dtype.kind == "u" and s.itemsize < 8 else float)
    items = np.broadcast_to(np.arange(s.shape[1]), s.shape)
    if rule == "stable":
        return np.argsort(-s, axis=1, kind="stable")
    rel = np.asarray(relevance, dtype=float)
    if rel.shape != s.shape:
        raise ValueError(f"relevance {rel.shape} and scores {s.shape} must have the same shape")
    return np.lexsort((items, -rel if rule == "relevant first" else rel, -s), axis=1)
