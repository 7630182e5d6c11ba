"""The AxIoU authors' notebook outputs used as evidence: the Fig. 4 transcription and the Fig. 7 reader."""
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require_data
from fireeval.book.papers import togashi
from fireeval.vmr import reference


def _png(rgb: np.ndarray, filters) -> bytes:
    """A minimal 8-bit RGB PNG encoder with the given filter type per row (the inverse of the reader)."""
    h, w, _ = rgb.shape
    rows, prev = [], np.zeros(w * 3, dtype=np.int64)
    for y in range(h):
        cur = rgb[y].reshape(-1).astype(np.int64)
        f = filters[y % len(filters)]
        left = np.r_[np.zeros(3, dtype=np.int64), cur[:-3]]
        upleft = np.r_[np.zeros(3, dtype=np.int64), prev[:-3]]
        if f == 0:
            pred = np.zeros_like(cur)
        elif f == 1:
            pred = left
        elif f == 2:
            pred = prev
        elif f == 3:
            pred = (left + prev) // 2
        else:
            pa, pb, pc = np.abs(prev - upleft), np.abs(left - upleft), np.abs(left + prev - 2 * upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        rows.append(bytes([f]) + ((cur - pred) & 255).astype(np.uint8).tobytes())
        prev = cur
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))  # noqa: E731
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


@settings(max_examples=25)
@given(st.integers(1, 6), st.integers(1, 6), st.lists(st.integers(0, 4), min_size=1, max_size=5), st.integers(0, 10**6))
def test_png_reader_inverts_every_filter(h, w, filters, seed):
    rgb = np.random.default_rng(seed).integers(0, 256, (h, w, 3)).astype(np.uint8)
    np.testing.assert_array_equal(reference._png(_png(rgb, filters)), rgb)


def test_fig4_transcription_is_a_tau_matrix_with_the_papers_reasonably_well_cell():
    from fireeval.book.papers import togashi

    t = togashi.FIG4_TAU
    assert t.shape == (12, 12) and np.allclose(t, t.T) and np.allclose(np.diag(t), 1)
    assert (np.abs(t) <= 1).all() and len(reference.fig4_upper(t)) == 66
    ax = [reference.FIG4_MEASURES.index(m) for m in ("AxIoU@1", "AxIoU@5", "AxIoU@10")]
    assert t[ax[0], ax[2]] == 0.36 and t[np.ix_(ax, ax)].min() == 0.36  # the lowest τ called "reasonably well"


def test_fig7_reader_finds_the_drawn_lines_and_nothing_above_the_axis():
    require_data(reference.NOTEBOOK)
    near = reference.fig7_nearest_lines(np.full((4, 12), 0.5))  # far above every line: the top of each
    assert np.isfinite(near).all() and (near <= reference.FIG7_YMAX + 0.005).all() and (near >= -0.005).all()
    low = reference.fig7_nearest_lines(np.zeros((4, 12)))
    assert (low <= near + 1e-12).all()
    # the authors' curves rise with the noise level: the top line of each panel is higher at σ = 4 than at σ = 1
    assert (near[3] > near[0]).all()


def test_fig6_reader_finds_the_first_points():
    require_data(reference.NOTEBOOK)
    # our mean τ at n = 100 (5,000 draws; see the measures chapter) lies on the lines the authors drew
    ours = np.array([0.855, 0.873, 0.798, 0.858, 0.798, 0.799, 0.930, 0.898, 0.718, 0.901, 0.810, 0.880])
    drawn = reference.fig6_nearest_first_points(ours)
    assert np.nanmax(np.abs(drawn - ours)) < 0.02
    # a curve 0.1 lower than every one drawn is not found near any line
    assert np.nanmax(np.abs(reference.fig6_nearest_first_points(ours - 0.1) - (ours - 0.1))) > 0.05


def test_line_styles_are_told_apart_by_their_inked_share():
    mask = np.zeros((30, 200), bool)
    mask[5, :] = True  # solid
    mask[15, [x for x in range(200) if x % 16 < 11]] = True  # dashed: 11 px on, 5 off (matplotlib "--" at 3 px)
    mask[25, [x for x in range(200) if x % 8 < 3]] = True  # dotted: 3 on, 5 off (":" at 3 px)
    share = [reference._coverage(mask, [(0.0, y), (199.0, y)], tol=0) for y in (5, 15, 25)]
    assert [reference.line_style(c) for c in share] == ["solid", "dashed", "dotted"]
    assert reference.line_style(reference._coverage(mask, [(0.0, 10.0), (199.0, 10.0)], tol=0)) is None  # no line


def test_fig7_is_compared_with_the_authors_series_by_name():
    from fireeval.book.chapters import axiou_label_noise

    require_data(reference.NOTEBOOK)
    # our errors (reference code's noise, σ = 1..4 s; the label-noise chapter with 20 trials): each lies on the line
    # of its own name -- the blue lines told apart by style, solid 0.3, dashed 0.5, dotted 0.7
    ours = np.array([[0.0050, 0.0083, 0.0144, 0.0049, 0.0145, 0.0142, 0.0039, 0.0123, 0.0175, 0.0016, 0.0026, 0.0031],
                     [0.0050, 0.0125, 0.0329, 0.0030, 0.0104, 0.0266, 0.0038, 0.0098, 0.0309, 0.0122, 0.0122, 0.0129],
                     [0.0181, 0.0363, 0.0521, 0.0093, 0.0211, 0.0536, 0.0084, 0.0248, 0.0566, 0.0253, 0.0254, 0.0256],
                     [0.0367, 0.0604, 0.0696, 0.0220, 0.0430, 0.0805, 0.0192, 0.0445, 0.0820, 0.0395, 0.0400, 0.0398]])
    drawn, untraced = reference.fig7_series_by_name(togashi.FIG7_SERIES)  # each line found by its legend colour and style, not by ours
    traced = ~np.isnan(drawn).all(axis=0)
    assert traced.sum() == 12 - len(untraced) >= 11 and all("cannot be told" in why for why in untraced.values())
    assert np.nanmax(np.abs(drawn - ours)) < 0.005
    ev = axiou_label_noise.fig7_evidence({"code": ours}, [1, 2, 3, 4])
    assert ev.numbers_reproduce and "series by name" in ev.source and "traced by name" in ev.detail
    # R@K,0.3's and R@K,0.7's series swapped (as Fig. 6's legend does): each now lies on the other θ's line; a
    # nearest-line comparison passes it, the comparison by name does not
    swap = ours.copy()
    for k in (0, 3, 6):
        swap[:, [k, k + 2]] = ours[:, [k + 2, k]]
    assert np.nanmax(np.abs(reference.fig7_nearest_lines(swap) - swap)) < 0.005  # nearest line: passes
    assert not axiou_label_noise.fig7_evidence({"code": swap}, [1, 2, 3, 4]).numbers_reproduce
    assert np.nanmax(np.abs(drawn[:, [0, 2, 3, 5, 6, 8]] - swap[:, [0, 2, 3, 5, 6, 8]])) > 0.01


def test_series_are_traced_by_style_not_by_nearness():
    # three lines close together: solid at row 10, dashed at row 14, dotted at row 18; each style finds its own line,
    # and a line already named is not taken twice
    mask = np.zeros((30, 200), bool)
    mask[10, :] = True
    mask[14, [x for x in range(200) if x % 16 < 11]] = True
    mask[18, [x for x in range(200) if x % 8 < 3]] = True
    cols = [20, 80, 140, 190]
    solid = reference._trace_series(mask, cols, "solid")
    assert solid == (10.0,) * 4
    assert reference._trace_series(mask, cols, "dashed", [solid]) == (14.0,) * 4
    assert reference._trace_series(mask, cols, "dotted", [solid, (14.0,) * 4]) == (18.0,) * 4
    assert reference._trace_series(mask[:12], cols, "dotted") is None  # no dotted line at all


def test_fig6_is_compared_by_name_where_a_series_can_be_named():
    from fireeval.book.chapters import axiou_measures

    require_data(reference.NOTEBOOK)
    ours = np.array([0.855, 0.873, 0.798, 0.858, 0.798, 0.799, 0.930, 0.898, 0.718, 0.901, 0.810, 0.880])
    ev = axiou_measures._fig6_evidence(np.repeat(ours[:, None, None], 3, axis=2), list(reference.FIG4_MEASURES), [100],
                                       "original")
    # one red line per panel is AxIoU@K's by name; the nine blue R@K,θ cannot be named there, and the text says why
    assert ev.cells == 3 and ev.numbers_reproduce
    assert "Not compared by name: the nine R@K,θ" in ev.detail and "no line's style can be traced" in ev.detail


def test_the_raters_median_is_numpys_median():
    from fireeval.vmr import noise

    rng = np.random.default_rng(3)
    for n in (1, 4, 5):  # odd: the partition; even: np.median
        raters = rng.normal(10, 3, (7, n, 50, 2))
        raters[..., 1] += 20
        got = noise.aggregate_raters(raters)
        start = np.median(raters[..., 0], axis=1)
        np.testing.assert_array_equal(got[..., 0], start)
        np.testing.assert_array_equal(got[..., 1], start + np.median(raters[..., 1] - raters[..., 0], axis=1))
    raters[0, 0, 0, 0] = np.nan  # a missing rating: np.median's NaN
    assert np.isnan(noise.aggregate_raters(raters)[0, 0, 0])
