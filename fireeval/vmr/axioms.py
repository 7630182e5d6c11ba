"""The AxIoU paper's axioms INV-k and MON-k: checks and minimal counterexamples.

Both axioms compare two ranked lists of IoU values, ``a`` (system A) and ``b``
(system B), that differ only at one position k <= K (1-based), where B's moment is
better: ``b[k] > a[k]`` (Condition A.1). Write ``best = max(a[1..k-1])`` (minus
infinity when k = 1).

* **INV-k** (invariance against a non-best moment): if ``b[k] < best`` -- B's new
  moment is still less relevant than the best before it (Condition A.2) -- the score
  must not change.
* **MON-k** (strict monotonicity in the best moment): if ``b[k] > best`` -- the new
  moment is the best in B's top k -- the score must strictly increase.

A pair with ``b[k] == best`` (the new moment ties the best) falls under neither
axiom, as in the paper, whose conditions are strict. Positions beyond the measure's
cutoff K are not considered (no measure@K can see them).

A measure is any function ``iou (n, L) -> (n,)`` (e.g. from
:func:`fireeval.core.moments.measure_function`). :func:`find_counterexample` searches all
lists on a value grid, shortest first, and returns the smallest violation.

>>> from fireeval.core.moments import measure_function
>>> find_counterexample(measure_function("R@1,0.5"), "MON", k_max=1)
Counterexample(axiom='MON', a=(0.0,), b=(0.1,), position=1, score_a=0.0, score_b=0.0)
"""
from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from fireeval.core.validation import ARRAY, BOOL, CALLABLE, COLLECTION, Array, Int, Options, Real, validate_params

__all__ = ["axiom_of", "violates", "find_counterexample", "Counterexample", "DEFAULT_GRID", "PAPER_CLAIMS", "claims_table"]

DEFAULT_GRID = tuple(np.round(np.arange(0, 1.01, 0.1), 2))


class Counterexample(NamedTuple):
    """A pair of IoU lists on which a measure breaks an axiom (from :func:`find_counterexample`).

    Parameters
    ----------
    axiom : str
        ``"INV"`` or ``"MON"``.
    a, b : tuple of float
        The IoU lists of systems A and B; they differ only at ``position``.
    position : int
        The 1-based rank at which ``b`` differs from ``a``.
    score_a, score_b : float
        The measure's scores of A and B.

    Examples
    --------
    >>> ce = Counterexample("MON", (0.0,), (0.1,), 1, 0.0, 0.0)
    >>> ce.axiom, ce.score_b > ce.score_a
    ('MON', False)
    """

    axiom: str
    a: tuple
    b: tuple
    position: int  # 1-based rank at which b differs from a
    score_a: float
    score_b: float


def _best_before(a, position):
    a = np.asarray(a, dtype=float)
    mask = np.arange(a.shape[-1]) < np.asarray(position)[..., None] - 1
    return np.where(mask, a, -np.inf).max(axis=-1)


@validate_params(a=ARRAY, b=ARRAY)
def axiom_of(a, b):
    r"""Which axiom governs the pair.

    The pair is governed by an axiom only when ``a`` and ``b`` differ at exactly one
    position k and B is better there (:math:`b_k > a_k`); with :math:`\text{best} = \max_{i<k} a_i`
    it is INV-k when :math:`b_k < \text{best}` and MON-k when :math:`b_k > \text{best}`.

    Parameters
    ----------
    a, b : array_like (L,)
        Equal-length IoU lists of systems A and B.

    Returns
    -------
    tuple
        ``("INV" | "MON", position)`` with a 1-based position, or ``(None, None)``.

    Examples
    --------
    >>> axiom_of([0.6, 0.1], [0.6, 0.3]), axiom_of([0.1, 0.2], [0.1, 0.5])
    (('INV', 2), ('MON', 2))
    >>> axiom_of([0.5, 0.1], [0.5, 0.5])
    (None, None)
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    diff = np.flatnonzero(a != b)
    if len(diff) != 1 or b[diff[0]] <= a[diff[0]]:
        return None, None
    pos = int(diff[0]) + 1
    best = _best_before(a, pos)
    if b[pos - 1] == best:
        return None, None
    return ("INV" if b[pos - 1] < best else "MON"), pos


@validate_params(measure=CALLABLE, a=ARRAY, b=ARRAY, atol=Real(0))
def violates(measure, a, b, atol: float = 1e-12) -> bool:
    r"""True when the pair (a, b) is governed by an axiom and ``measure`` breaks it.

    INV-k is broken when :math:`|m(b) - m(a)| > \text{atol}`, MON-k when
    :math:`m(b) \le m(a) + \text{atol}`.

    Parameters
    ----------
    measure : callable
        ``iou (n, L) -> (n,)`` scores (e.g. :func:`fireeval.core.moments.measure_function`).
    a, b : array_like (L,)
        IoU lists of systems A and B.
    atol : float
        Score differences up to ``atol`` count as equal.

    Returns
    -------
    bool
        False as well when no axiom governs the pair.

    Examples
    --------
    >>> from fireeval.core.moments import measure_function
    >>> r = measure_function("R@1,0.5")
    >>> violates(r, [0.0], [0.1]), violates(r, [0.0], [0.6])
    (True, False)
    """
    axiom, _ = axiom_of(a, b)
    if axiom is None:
        return False
    sa, sb = (float(v) for v in measure(np.asarray([a, b], dtype=float)))
    return abs(sb - sa) > atol if axiom == "INV" else not sb > sa + atol


@validate_params(measure=CALLABLE, axiom=Options("INV", "MON"), k_max=Int(1), grid=Array(0, 1), atol=Real(0))
def find_counterexample(measure, axiom: str, k_max: int, grid=DEFAULT_GRID, atol: float = 1e-12):
    """Smallest pair (a, b) of IoU lists on ``grid`` on which ``measure`` breaks ``axiom``.

    Searches lists of length 1, 2, ..., ``k_max``; within a length, the first violation
    in order of fewest non-zero IoUs, then smallest total IoU. Vectorised: every
    candidate of one length is scored in one call.

    Parameters
    ----------
    measure : callable
        ``iou (n, L) -> (n,)`` scores.
    axiom : {"INV", "MON"}
        The axiom to test.
    k_max : int
        Longest list searched (use the measure's K).
    grid : sequence of float
        The IoU values a list may take.
    atol : float
        Score differences up to ``atol`` count as equal.

    Returns
    -------
    Counterexample or None
        None when the measure satisfies the axiom on the whole grid.

    Raises
    ------
    ValueError
        For an unknown axiom.

    Examples
    --------
    >>> from fireeval.core.moments import measure_function
    >>> find_counterexample(measure_function("R@1,0.5"), "MON", k_max=1)
    Counterexample(axiom='MON', a=(0.0,), b=(0.1,), position=1, score_a=0.0, score_b=0.0)
    >>> find_counterexample(measure_function("AxIoU@2"), "INV", k_max=2) is None
    True
    """
    if axiom not in ("INV", "MON"):
        raise ValueError(f"axiom must be 'INV' or 'MON', got {axiom!r}")
    grid = np.asarray(sorted(grid), dtype=float)
    for length in range(1, k_max + 1):
        lists = np.array(list(itertools.product(grid, repeat=length)))  # (n, length)
        n = len(lists)
        pos = np.repeat(np.arange(1, length + 1), n * len(grid))
        a = np.tile(np.repeat(lists, len(grid), axis=0), (length, 1))
        new = np.tile(grid, n * length)
        old = a[np.arange(len(a)), pos - 1]
        best = _best_before(a, pos)
        keep = (new > old) & ((new < best) if axiom == "INV" else (new > best))
        a, pos, new = a[keep], pos[keep], new[keep]
        if not len(a):
            continue
        b = a.copy()
        b[np.arange(len(b)), pos - 1] = new
        sa, sb = np.asarray(measure(a), float), np.asarray(measure(b), float)
        bad = np.abs(sb - sa) > atol if axiom == "INV" else ~(sb > sa + atol)
        if bad.any():
            idx = np.flatnonzero(bad)
            key = np.lexsort(((a[idx].sum(1) + b[idx].sum(1)), np.count_nonzero(b[idx], axis=1)))
            i = idx[key[0]]
            return Counterexample(axiom, tuple(float(v) for v in a[i]), tuple(float(v) for v in b[i]),
                                  int(pos[i]), float(sa[i]), float(sb[i]))
    return None


#: The claims of the AxIoU paper (App. A) checked in the axioms chapter: (measure, axiom, holds?).
PAPER_CLAIMS = (("AxIoU@3", "INV", True), ("AxIoU@3", "MON", True), ("R@3,0.5", "INV", True),
                ("R@3,0.5", "MON", False), ("AP@3,0.5", "INV", False), ("AP@3,0.5", "MON", False),
                ("DCG@3", "INV", False), ("DCG@3", "MON", True))


@validate_params(claims=COLLECTION, grid=Array(0, 1), strict=BOOL)
def claims_table(claims=PAPER_CLAIMS, grid=DEFAULT_GRID, strict: bool = False):
    """One row per (measure, axiom): the paper's claim and the smallest counterexample found.

    Each measure is searched over lists up to its cutoff K on ``grid``; ``found``
    is False when no counterexample exists there (consistent with the axiom holding).

    Parameters
    ----------
    claims : sequence of (str, str, bool)
        ``(measure, axiom, the paper says it holds)``, as :data:`PAPER_CLAIMS`.
    grid : sequence of float
        The IoU values searched.
    strict : bool
        Passed to :func:`fireeval.core.moments.measure_function` (IoU > θ instead of ≥ θ).

    Returns
    -------
    pandas.DataFrame
        Columns measure, axiom, "paper: satisfied", found, "A's IoUs", "B's IoUs",
        "changed rank", "score A", "score B".

    Examples
    --------
    >>> t = claims_table([("R@1,0.5", "MON", False), ("AxIoU@1", "MON", True)])
    >>> t[["measure", "paper: satisfied", "found"]].values.tolist()
    [['R@1,0.5', False, True], ['AxIoU@1', True, False]]
    """
    import pandas as pd

    from fireeval.core.moments import measure_function

    rows = []
    for name, axiom, holds in claims:
        k = int(name.split("@")[1].split(",")[0])
        ce = find_counterexample(measure_function(name, strict), axiom, k, grid)
        rows.append({"measure": name, "axiom": f"{axiom}-k", "paper: satisfied": holds, "found": ce is not None,
                     "A's IoUs": ce.a if ce else None, "B's IoUs": ce.b if ce else None,
                     "changed rank": ce.position if ce else None,
                     "score A": ce.score_a if ce else None, "score B": ce.score_b if ce else None})
    return pd.DataFrame(rows)
