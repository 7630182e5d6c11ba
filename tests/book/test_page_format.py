"""The page ``fireeval run`` writes formats glued values as the built book does (myst-nb), without importing
myst-nb's renderer (issue 38: that import alone was 2 s of every run)."""
import subprocess
import sys

from hypothesis import given, strategies as st

from fireeval.book.page import _format_plain_text as format_plain_text

FORMATS = ["", "s", ".2f", ".3g", ".1%", ",d", "d", "x", ".0f", "e", ">8.3f", "+.2f", "n", "b", "c", "o", "X", "G"]


def _both(text, fmt):
    """``(ours, myst-nb's)``, each the formatted text or the exception's type."""
    from myst_nb.core.variables import format_plain_text as myst

    out = []
    for f in (format_plain_text, myst):
        try:
            out.append(f(text, fmt))
        except Exception as err:  # noqa: BLE001 -- compared: the same refusal on the same input
            out.append(type(err))
    return out


@given(value=st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                       st.text(max_size=8), st.booleans(), st.none(), st.lists(st.integers(0, 9), max_size=3)),
       fmt=st.sampled_from(FORMATS), as_repr=st.booleans())
def test_formats_every_value_as_myst_nb_does(value, fmt, as_repr):
    text = repr(value) if as_repr else str(value)  # a glued text/plain is the value's repr; a str's loses quotes
    ours, theirs = _both(text, fmt)
    assert ours == theirs, (text, fmt)


def test_the_numbers_the_chapters_glue():
    for text, fmt in [("0.123456", ".2f"), ("'a sentence'", ""), ("np.float64(0.5)", ".2f"), ("12", "d"),
                      ("0.25", ".0%"), ("1234567", ",d"), ("np.float64(0.5)", ""), ("'0.5'", ".2f")]:
        ours, theirs = _both(text, fmt)
        assert ours == theirs, (text, fmt)


def test_writing_a_page_does_not_import_myst_nb_or_sphinx():
    code = ("import sys, nbformat\nfrom fireeval.book.page import render_page\n"
            "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell('Value {glue:text}`v:.2f`.')])\n"
            "out = nbformat.v4.new_output('display_data', data={'application/papermill.record/text/plain': '0.123'},"
            " metadata={'scrapbook': {'name': 'v', 'mime_prefix': 'application/papermill.record/'}})\n"
            "nb.cells.append(nbformat.v4.new_code_cell('', outputs=[out]))\n"
            "html, missing = render_page(nb)\nassert '0.12' in html and not missing, html\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('myst_nb', 'sphinx', 'jupyter_cache')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
