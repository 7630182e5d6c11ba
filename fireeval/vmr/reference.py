"""What the AxIoU authors' own notebook shows, for the chapters' ``evidence`` fields.

The authors published their experiment notebook with its outputs
(riktor/vmr-axiou ``notebooks/ExperimentsOnCharadesSTA.ipynb`` @ 6d3b865c, in the
shared data as ``charades_sta/reference/ExperimentsOnCharadesSTA.ipynb``, registered
with its sha256 in ``data/registry.json``). Its outputs are figures, not tables:

* **Fig. 4** (cell 12) prints every Kendall τ of the 12 × 12 matrix on the image, to
  two decimals; the matrix as printed is :data:`fireeval.book.papers.togashi.FIG4_TAU`
  (the paper's numbers live with the book), rows and columns in :data:`FIG4_MEASURES`
  order, which is :data:`fireeval.core.moments.MEASURES`.
* **Fig. 6** (cell 19) plots mean and variance of τ between the ranking on a random
  subset of n queries and the ranking on all 3,720, for n = 100, 200, ..., 3,700
  (x axis: index of n), 5,000 draws per n (:data:`fireeval.book.papers.togashi.FIG6_PROTOCOL`). It prints no number;
  :func:`fig6_nearest_first_points` reads its first points (n = 100) off the image.
* **Fig. 7** (cell 29) plots the label-noise error of each measure at noise levels
  σ = 1, 2, 3, 4 s, 100 noisy datasets each. It prints no number and its y axis stops
  at 0.13 (:data:`FIG7_YMAX`): a convention whose errors exceed that cannot be the one
  drawn. :func:`fig7_nearest_lines` reads its lines off the image.
* **Fig. 8** (cell 50): the model-selection z-scores; the code above it builds the
  variants from the five training runs' checkpoints, each kept when it is the first
  (lowest-index) argmax of some validation measure, times 20 NMS thresholds 0.01,
  0.06, ..., 0.96 (:data:`fireeval.book.papers.togashi.FIG8_PROTOCOL`).

Nothing here is the authors' code: only what their outputs show and what their
protocol is, in our words.
"""
from __future__ import annotations

from collections.abc import Mapping
import functools
import os

import numpy as np

from fireeval.core.validation import ARRAY, BOOL, NUMBER, Instance, validate_params

__all__ = ["NOTEBOOK", "NOTEBOOK_SOURCE", "FIG4_MEASURES", "FIG7_SIGMAS", "FIG7_YMAX", "STYLE_BOUNDS",
           "STYLE_SHARE", "fig4_upper", "fig6_nearest_first_points", "fig7_nearest_lines", "fig7_series_by_name",
           "line_style"]

NOTEBOOK = "charades_sta/reference/ExperimentsOnCharadesSTA.ipynb"
NOTEBOOK_SOURCE = "the AxIoU authors' notebook ExperimentsOnCharadesSTA.ipynb (riktor/vmr-axiou @ 6d3b865c)"

FIG4_MEASURES = ("R@1,0.3", "R@1,0.5", "R@1,0.7", "R@5,0.3", "R@5,0.5", "R@5,0.7", "R@10,0.3", "R@10,0.5",
                 "R@10,0.7", "AxIoU@1", "AxIoU@5", "AxIoU@10")
@validate_params(tau=ARRAY)
def fig4_upper(tau) -> np.ndarray:
    r"""The 66 cells above the diagonal of a 12 × 12 τ matrix, row by row.

    Parameters
    ----------
    tau : array_like (n, n)
        A τ matrix: ours, or the paper's printed :data:`fireeval.book.papers.togashi.FIG4_TAU`.

    Returns
    -------
    numpy.ndarray (n(n − 1)/2,)
        :math:`(\tau_{ij})_{i<j}` in row order.

    Examples
    --------
    >>> fig4_upper(np.arange(9).reshape(3, 3)).tolist()
    [1.0, 2.0, 5.0]
    """
    t = np.asarray(tau, dtype=float)
    return t[np.triu_indices(len(t), k=1)]


FIG7_SIGMAS = (1.0, 2.0, 3.0, 4.0)
#: The top of Fig. 7's y axis ("Mean RMSE"), in all three panels.
FIG7_YMAX = 0.13


def _png(data: bytes) -> np.ndarray:
    """An 8-bit RGB(A) PNG as an (h, w, 3) uint8 array (zlib and numpy only: no imaging library here)."""
    import struct
    import zlib

    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG image")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError(f"PNG with bit depth {depth} and colour type {ctype}: only 8-bit RGB(A) is read")
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + w * ch)
    out = np.zeros((h, w * ch), dtype=np.int64)
    prev = [0] * (w * ch)
    for y in range(h):
        f, line = int(raw[y, 0]), raw[y, 1:]
        if f == 0:
            cur = line.tolist()
        elif f == 1:  # Sub: a running sum of each channel along the row
            cur = (np.cumsum(line.reshape(w, ch).astype(np.int64), axis=0) & 255).ravel().tolist()
        elif f == 2:
            cur = ((line.astype(np.int64) + np.array(prev)) & 255).tolist()
        else:  # Average and Paeth depend on the pixel to the left: byte by byte, on Python ints (not numpy scalars)
            cur = [0] * (w * ch)
            for x, v in enumerate(line.tolist()):
                a = cur[x - ch] if x >= ch else 0
                b, c = prev[x], prev[x - ch] if x >= ch else 0
                if f == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (v + p) & 255
        out[y] = cur
        prev = cur
    return out.reshape(h, w, ch)[..., :3].astype(np.uint8)


def _notebook_image(root, cell: int) -> np.ndarray:
    """The PNG output of the authors' notebook cell ``cell``, decoded once per file (read-only: shared)."""
    from fireeval.datasets import data_path

    path = data_path(NOTEBOOK, root)
    return _decoded(str(path), path.stat().st_mtime_ns, cell)


@functools.lru_cache(maxsize=4)
def _decoded(path: str, mtime_ns: int, cell: int) -> np.ndarray:
    """:func:`_notebook_image` of one file version (``mtime_ns`` keys the cache: a changed file is read again)."""
    import base64
    import json
    from pathlib import Path

    nb = json.loads(Path(path).read_text())
    img = _png(base64.b64decode(nb["cells"][cell]["outputs"][0]["data"]["image/png"]))
    img.setflags(write=False)
    return img


def _runs(mask):
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return []
    return [(g[0], g[-1]) for g in np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1)]


def _coverage(mask, points, tol: int = 2, skip: int = 3) -> float:
    """The share of pixel columns along the polyline ``points`` ((x, y) pixels) where ``mask`` holds within ±``tol`` px.

    ``skip`` px next to each vertex are left out (markers, grid lines and crossings sit there).
    """
    hits = total = 0
    for (x0, y0), (x1, y1) in zip(points[:-1], points[1:]):
        x = np.arange(int(np.ceil(x0)) + skip, int(np.floor(x1)) - skip + 1)
        y = np.rint(y0 + (y1 - y0) * (x - x0) / (x1 - x0)).astype(int)  # round half to even, as round() does
        hit = np.zeros(x.size, dtype=bool)
        for d in range(-tol, tol + 1):  # the ±tol rows that exist
            yy = y + d
            ok = (yy >= 0) & (yy < mask.shape[0])
            hit |= ok & mask[np.clip(yy, 0, mask.shape[0] - 1), x]
        total += x.size
        hits += int(hit.sum())
    return hits / total if total else float("nan")


#: Line styles told apart by the share of the line's length that is inked: matplotlib draws "--" as dashes of 3.7
#: line widths with gaps of 1.6 (about 70 % inked) and ":" as dots of 1 with gaps of 1.65 (about 38 %).
STYLE_BOUNDS = ((0.88, "solid"), (0.55, "dashed"), (0.15, "dotted"))


@validate_params(coverage=NUMBER)
def line_style(coverage: float) -> str | None:
    """``solid``, ``dashed`` or ``dotted`` from the inked share of a traced line (None: no line, or NaN).

    The first of :data:`STYLE_BOUNDS` whose lower bound the share reaches: solid from 0.88, dashed from
    0.55 (matplotlib's ``--`` inks about 70 %), dotted from 0.15 (``:`` about 38 %).

    Parameters
    ----------
    coverage : float
        The share of the line's pixel columns where the line's colour was found (:func:`_coverage`), in [0, 1].

    Returns
    -------
    str or None
        ``"solid"``, ``"dashed"``, ``"dotted"``, or None below 0.15 or for NaN.

    Examples
    --------
    >>> [line_style(c) for c in (0.97, 0.7, 0.38, 0.05, float("nan"))]
    ['solid', 'dashed', 'dotted', None, None]
    """
    return next((name for bound, name in STYLE_BOUNDS if coverage >= bound), None)


def _fig7_geometry(root=None):
    """The colour masks, the three panels' σ columns and each panel's y calibration (top grid line, px per 0.02)."""
    img = _notebook_image(root, 29).astype(int)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    grid = (r == 214) & (g == 214) & (b == 214)
    colours = {"red": (r > 200) & (g < 80) & (b < 80),
               "blue": (np.abs(r - 31) < 30) & (np.abs(g - 119) < 30) & (np.abs(b - 180) < 30)}
    height = grid.sum(0)
    xs = [int(round((a + c) / 2)) for a, c in _runs(height > 60)]
    panels = _fig7_panels(xs, height)
    used = {x for cols in panels for x in cols}
    _blank_legends(grid, colours, panels, [x for x in xs if x not in used])
    return colours, panels, [_fig7_calibration(grid, cols) for cols in panels]


def _fig7_panels(xs, height):
    """The three panels' four σ grid columns, from the x of the tall grey columns ``xs`` and their ``height``.

    The four σ grid columns of a panel are evenly spaced (59 or 60 px); other grey columns are legend
    frames, shorter. Chains are taken longest (most grid pixels) first, without sharing a column.
    """
    chains = []
    for x in xs:
        for d in (59, 60):
            cols = [next((y for y in xs if abs(x + k * d - y) <= 1), None) for k in range(4)]
            if None not in cols:
                chains.append((int(height[cols].sum()), cols))
    panels, used = [], set()
    for _, cols in sorted(chains, key=lambda c: -c[0]):
        if not used & set(cols):
            panels.append(cols)
            used |= set(cols)
    panels = sorted(panels)
    if len(panels) != 3:
        raise ValueError(f"Fig. 7: found {len(panels)} panels, expected 3 (K = 1, 5, 10)")
    return panels


def _blank_legends(grid, colours, panels, frames):
    """Blank (in place, in each of ``colours``' masks) each panel's legend box, framed by the grey columns ``frames``.

    Each panel's legend (upper left) draws short samples of the lines, which would read as the lines.
    """
    for cols in panels:
        inside = [x for x in frames if cols[0] - 10 <= x <= cols[3]]
        if len(inside) < 2:
            continue
        left, right = min(inside), max(inside)
        col = grid[:, left].copy()
        gaps = [(a, c) for a, c in _runs(~col) if c - a < 3]  # grid lines behind the frame break it by a pixel
        for a, c in gaps:
            col[a:c + 1] = True
        top_, bottom = max(_runs(col), key=lambda run: run[1] - run[0])  # the frame, not grid crossings
        for m in colours.values():
            m[top_:bottom + 1, left:right + 1] = False


def _fig7_calibration(grid, cols):
    """A panel's y calibration: the row of its top (0.12) grid line and the px per 0.02 between grid lines."""
    band = grid[:, cols[2] + 3:cols[3] - 3]  # between σ = 3 and 4: no legend there
    rows = sorted((a + c) / 2 for a, c in _runs(band.mean(1) > 0.3))
    return rows[0], float(np.median(np.diff(rows)))


@validate_params(errors=ARRAY, root=[Instance(str, os.PathLike), None], styles=BOOL)
def fig7_nearest_lines(errors, root=None, styles: bool = False):
    """For each of our errors, the nearest value drawn in the authors' Fig. 7 in that measure's colour.

    The figure (notebook cell 29) has one panel per K with the three R@K,θ in blue and
    AxIoU@K in red; its axes are calibrated on the grid lines (0.02 apart, the top one
    0.12). For each (σ, measure) this returns the y value of the pixel of the measure's
    colour, within ±7 px of the σ grid column (dotted lines have gaps), closest to our
    value (NaN if none): the line the figure draws there that our number is nearest to.

    Parameters
    ----------
    errors : array_like (4, 12)
        Our errors at σ = 1, 2, 3, 4 s, measures in :data:`FIG4_MEASURES` order.
    root : str or Path, optional
        The data folder (default: as :func:`fireeval.datasets.data_path` finds it).
    styles : bool
        Also return the line style of the drawn line each measure's four points lie on
        (traced between the σ columns, :func:`line_style` of the best-traced of its three
        segments; None where no line is traced): what tells the three blue lines apart by
        name (solid, dashed and dotted are θ = 0.3, 0.5, 0.7 as labelled).

    Returns
    -------
    numpy.ndarray (4, 12) or tuple
        The nearest drawn values; with ``styles``, ``(values, styles)`` with styles a list
        of 12 style names or None.

    Examples
    --------
    The authors' notebook must be in the data folder:

    >>> fig7_nearest_lines(np.zeros((4, 12)), root="/no/such/folder")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    fireeval.datasets.DataUnavailable: charades_sta/reference/ExperimentsOnCharadesSTA.ipynb not found
    """
    colours, panels, calib = _fig7_geometry(root)
    errors = np.asarray(errors, dtype=float)
    out = np.full(errors.shape, np.nan)
    found = [None] * errors.shape[1]
    for p, cols in enumerate(panels):
        top, step = calib[p]
        k = (1, 5, 10)[p]
        for j, m in enumerate(FIG4_MEASURES):
            if not m.endswith(f"@{k}") and f"@{k}," not in m:
                continue
            mask = colours["red" if m.startswith("AxIoU") else "blue"]
            for i, x in enumerate(cols):
                ys = np.flatnonzero(mask[:, max(x - 7, 0):x + 8].any(1))
                if ys.size:
                    vals = 0.12 + (top - ys) / step * 0.02
                    out[i, j] = vals[np.argmin(np.abs(vals - errors[i, j]))]
            if np.isfinite(out[:, j]).all():
                pts = [(float(x), top + (0.12 - v) / 0.02 * step) for x, v in zip(cols, out[:, j])]
                # the style shows best on the segment traced most cleanly: where a neighbouring line runs close
                # or a σ point snaps to it, the share falls
                found[j] = line_style(max(_coverage(mask, pts[i:i + 2], tol=1) for i in range(len(pts) - 1)))
    return (out, found) if styles else out


@validate_params(mean_tau_at_100=ARRAY, root=[Instance(str, os.PathLike), None])
def fig6_nearest_first_points(mean_tau_at_100, root=None) -> np.ndarray:
    """For each measure's mean τ at n = 100, the nearest value drawn at n = 100 in the authors' Fig. 6.

    Fig. 6 (notebook cell 19), top row: one panel per K, R@K,θ in blue, AxIoU@K in red,
    x = index of n (0 is n = 100, the first grid column); the y axis is calibrated on its
    grid lines (0.05 apart, the lowest 0.70). The value returned is the pixel of the
    measure's colour within ±1 px of that column closest to ours (up to 4 px to the right
    where a dotted line starts with a gap). The curves rise steeply there (about 0.01 per
    pixel), so agreement is to about 0.01-0.02. Lines of one colour are not told apart.

    Parameters
    ----------
    mean_tau_at_100 : array_like (12,)
        Our mean τ at n = 100, in :data:`FIG4_MEASURES` order.
    root : str or Path, optional
        The data folder (default: as :func:`fireeval.datasets.data_path` finds it).

    Returns
    -------
    numpy.ndarray (12,)
        The nearest drawn values (NaN where no pixel of the colour is found).

    Raises
    ------
    ValueError
        When the figure's grid is not the expected 3 panels × 4 columns.

    Examples
    --------
    The authors' notebook must be in the data folder:

    >>> fig6_nearest_first_points(np.full(12, 0.8), root="/no/such/folder")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    fireeval.datasets.DataUnavailable: charades_sta/reference/ExperimentsOnCharadesSTA.ipynb not found
    """
    img = _notebook_image(root, 19).astype(int)
    h = img.shape[0] // 2  # the top row of panels: the means
    r, g, b = (img[:h, :, i] for i in range(3))
    grid = (r == 214) & (g == 214) & (b == 214)
    red = (r > 200) & (g < 80) & (b < 80)
    blue = (np.abs(r - 31) < 30) & (np.abs(g - 119) < 30) & (np.abs(b - 180) < 30)
    xs = [int(round((a + c) / 2)) for a, c in _runs(grid.sum(0) > 60)]
    if len(xs) != 12:
        raise ValueError(f"Fig. 6: found {len(xs)} grid columns in the top row, expected 12 (3 panels × 4)")
    values = np.asarray(mean_tau_at_100, dtype=float)
    out = np.full(values.shape, np.nan)
    for p in range(3):
        cols = xs[4 * p:4 * p + 4]
        band = grid[:, cols[1] + 3:cols[2] - 3]
        rows = sorted((a + c) / 2 for a, c in _runs(band.mean(1) > 0.3))
        step = float(np.median(np.diff(rows)))
        bottom = rows[-1]  # the 0.70 grid line
        k = (1, 5, 10)[p]
        for j, m in enumerate(FIG4_MEASURES):
            if not (m == f"AxIoU@{k}" or m.startswith(f"R@{k},")):
                continue
            mask = red if m.startswith("AxIoU") else blue
            for right in (2, 5):  # a dotted line may start with a gap: look a few pixels further right
                ys = np.flatnonzero(mask[:, cols[0] - 1:cols[0] + right].any(1))
                if ys.size:
                    vals = 0.70 + (bottom - ys) / step * 0.05
                    out[j] = vals[np.argmin(np.abs(vals - values[j]))]
                    if abs(out[j] - values[j]) <= 0.02:
                        break
    return out


#: The inked share of a traced line of each style, as :data:`STYLE_BOUNDS` reads them (solid, dashed, dotted).
STYLE_SHARE = {"solid": 1.0, "dashed": 0.7, "dotted": 0.38}


def _column_candidates(mask, x: int, half: int = 7) -> list:
    """The y pixels where a line of ``mask`` crosses the column ``x`` (±``half`` px): the centre of each run of
    inked rows (lines drawn over each other there make one run)."""
    return [(a + c) / 2 for a, c in _runs(mask[:, max(x - half, 0):x + half + 1].any(1))]


def _trace_series(mask, cols, style: str, taken=()):
    """The y pixel at each σ column of the line drawn in ``style`` through those columns, or None.

    Every path through the columns' candidate pixels is traced (:func:`_coverage`); the series is the path
    whose segments most often have the style, then whose inked share is nearest the style's
    (:data:`STYLE_SHARE`). ``taken``: paths of lines already named; a candidate within 3 px of one is left
    out where the column has another (so two names never share a line unless the lines meet there).
    None when no path has the style on at least two of its segments.
    """
    import itertools

    cands = []
    for i, x in enumerate(cols):
        col = _column_candidates(mask, x)
        free = [y for y in col if all(abs(y - t[i]) > 3 for t in taken)]
        cands.append(free or col)
    if not all(cands):
        return None
    best, best_key = None, None
    for ys in itertools.product(*cands):
        pts = [(float(x), y) for x, y in zip(cols, ys)]
        cov = [_coverage(mask, pts[i:i + 2], tol=1) for i in range(len(pts) - 1)]
        key = (sum(line_style(c) == style for c in cov), -abs(float(np.mean(cov)) - STYLE_SHARE[style]))
        if best_key is None or key > best_key:
            best, best_key = ys, key
    return best if best_key[0] >= 2 else None


@validate_params(series=Instance(Mapping), root=[Instance(str, os.PathLike), None])
def fig7_series_by_name(series: dict, root=None):
    """Each measure's series in the authors' Fig. 7 read by its name: colour and line style, not by our values.

    In each panel (K = 1, 5, 10) the line of the measure's colour and style is traced through the
    four σ grid columns (:func:`_trace_series`), the most inked style first, and its y read off
    the grid. Read once per file version and legend.

    Parameters
    ----------
    series : dict
        ``{measure: (label, style, colour)}`` as the figure's legend names them (the book's
        :data:`fireeval.book.papers.togashi.FIG7_SERIES`: red dotted AxIoU@K; blue solid, dashed,
        dotted R@K,0.3, 0.5, 0.7), for every measure of :data:`FIG4_MEASURES`.
    root : str or Path, optional
        The data folder (default: as :func:`fireeval.datasets.data_path` finds it).

    Returns
    -------
    drawn : numpy.ndarray (4, 12)
        Each series' value at σ = 1, 2, 3, 4 s, in :data:`FIG4_MEASURES` order (NaN where not traced).
    untraced : dict
        ``{measure: why}`` for the series that could not be traced by name.

    Examples
    --------
    The authors' notebook must be in the data folder:

    >>> fig7_series_by_name({}, root="/no/such/folder")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    fireeval.datasets.DataUnavailable: charades_sta/reference/ExperimentsOnCharadesSTA.ipynb not found
    """
    from fireeval.datasets import data_path

    path = data_path(NOTEBOOK, root)
    key = tuple(sorted((m, tuple(v)) for m, v in series.items()))
    drawn, untraced = _fig7_by_name(str(path), path.stat().st_mtime_ns, key)
    return drawn.copy(), dict(untraced)


@functools.lru_cache(maxsize=2)
def _fig7_by_name(path: str, mtime_ns: int, series: tuple):
    """:func:`fig7_series_by_name` of one file version and legend (``series`` as sorted items)."""
    from pathlib import Path

    return _read_fig7_series(Path(path).parents[len(Path(NOTEBOOK).parts) - 1], dict(series))


def _read_fig7_series(root, series):
    """:func:`fig7_series_by_name`'s reading of ``series`` off the figure."""
    colours, panels, calib = _fig7_geometry(root)
    drawn = np.full((len(FIG7_SIGMAS), len(FIG4_MEASURES)), np.nan)
    untraced = {}
    for p, cols in enumerate(panels):
        top, step = calib[p]
        k = (1, 5, 10)[p]
        taken = {c: [] for c in colours}
        # the most inked style first: a solid line is the surest to trace, and is then not taken for another name
        names = sorted((m for m in FIG4_MEASURES if m == f"AxIoU@{k}" or m.startswith(f"R@{k},")),
                       key=lambda m: -STYLE_SHARE[series[m][1]])
        for m in names:
            j = FIG4_MEASURES.index(m)
            _, style, colour = series[m]
            ys = _trace_series(colours[colour], cols, style, taken[colour])
            if ys is None:
                untraced[m] = (f"no path through the four σ columns of the K = {k} panel is drawn {style} in {colour} "
                               "on two of its three segments: where it runs close to another line of that colour, "
                               "its dashes cannot be told from that line")
                continue
            taken[colour].append(ys)
            drawn[:, j] = [0.12 + (top - y) / step * 0.02 for y in ys]
    return drawn, untraced
