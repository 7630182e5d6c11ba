"""The AxIoU authors' notebook outputs used as evidence: the Fig. 4 transcription and the Fig. 7 reader."""
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require_data
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
