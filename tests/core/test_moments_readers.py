"""Issue 13 (evaluate-moments start-up): the faster readers give what the previous ones gave.

charades.align_predictions, charades.read_sta_rows and datasets.read_json were rewritten for speed;
each is compared here with the implementation before issue 13 (copied below) or with the
standard library, on valid input and on input that must fail with the same message.
"""
import json
import math
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.datasets import charades, read_json


def _old_align(entries, gt, k=None, name="predictions"):  # charades.align_predictions before issue 13
    keys, lengths = charades._gt_keys(gt)
    index = {key: i for i, key in enumerate(keys)}
    kept, rows, unknown, empty = [], [], 0, 0
    seen = set()
    for vid, query, moments, ratings in entries:
        i = index.get((vid, query))
        if i is None:
            unknown += 1
        elif moments is None or (hasattr(moments, "__len__") and len(moments) == 0):
            empty += 1
        elif i in seen:
            return charades._align_checked(entries, gt, k, name)
        else:
            seen.add(i)
            kept.append((moments, ratings))
            rows.append(i)
    try:
        counts = [len(m) for m, _ in kept]
        pairs = [(x[0], x[1]) for m, _ in kept for x in m]
        if any(r is not None and len(r) != c for (_, r), c in zip(kept, counts)):
            raise ValueError("ratings")
        ratings = [v for (_, r), c in zip(kept, counts) for v in (r if r is not None else [0.0] * c)]
        arr = np.array(pairs, dtype=float).reshape(-1, 2)
        score = np.array(ratings, dtype=float)
        third = None
        if np.isfinite(lengths).any():
            third = np.array([x[2] if len(x) >= 3 else np.nan for m, _ in kept for x in m], dtype=float)
    except (TypeError, IndexError, ValueError, KeyError):
        return charades._align_checked(entries, gt, k, name)
    if (not np.isfinite(arr).all() or (arr[:, 0] > arr[:, 1]).any() or np.isnan(score).any()
            or score.shape != (len(arr),)):
        return charades._align_checked(entries, gt, k, name)
    counts = np.asarray(counts, dtype=int)
    entry = np.repeat(np.arange(len(kept)), counts)
    position = np.arange(len(arr))
    order = np.lexsort((position, -score, entry))
    rank = position - np.repeat(np.cumsum(counts) - counts, counts)
    width = k if k is not None else int(counts.max(initial=1))
    keep = rank < width
    out = np.full((len(keys), width, 2), np.nan)
    rows_of = np.asarray(rows, dtype=int)[entry]
    out[rows_of[keep], rank[keep]] = arr[order][keep]
    info = {"entries": len(entries), "unknown": unknown, "duplicate_entries": 0, "empty_entries": empty,
            "length_mismatch": 0, "missing_queries": len(keys) - len(kept)}
    if third is not None:
        expected = lengths[rows_of]
        off = np.isfinite(third) & np.isfinite(expected) & (np.abs(third - expected) > 1e-6)
        info["length_mismatch"] = int(np.unique(entry[off]).size)
    return out, info


def _outcome(fn, *args):
    try:
        return fn(*args)
    except ValueError as err:
        return f"ValueError: {err}"


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
    else:
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == b[1]


def _entries(rng, n_queries, equal_length, bad):
    entries = []
    for i in rng.permutation(n_queries + 5):  # 5 unknown queries
        n = 10 if equal_length else int(rng.integers(0, 12))
        starts = rng.uniform(0, 20, n).round(2)
        width = int(rng.choice([2, 3]))  # a fourth number (or a varying third) is refused since issue 37
        moments = [[s, s + w, 30.0, 1.0][:width] for s, w in zip(starts, rng.uniform(0, 5, n).round(2))]
        if rng.random() < 0.2 and n > 1:
            moments[0] = moments[0][:2] if len(moments[0]) > 2 else moments[0] + [30.0]  # mixed widths in a list
        if rng.random() < 0.2:
            moments = [tuple(m) for m in moments]
        ratings = None if rng.random() < 0.3 else rng.integers(0, 4, n).astype(float).tolist()  # ties
        if bad and n and rng.random() < 0.05:
            kind = int(rng.integers(0, 6))
            if kind == 0:
                moments[-1] = [float("nan"), 1.0]
            elif kind == 1:
                moments[-1] = [5.0, 1.0]
            elif kind == 2:
                ratings = [1.0] * (n + 1)
            elif kind == 3:
                moments[-1] = [1.0]
            elif kind == 4:
                ratings = [float("nan")] * n
            else:
                moments[-1] = ["a", "b"]
        entries.append((f"V{i}", f"q{i}.", moments if n else (None if rng.random() < 0.5 else []), ratings))
        if rng.random() < 0.05:
            entries.append((f"V{i}", f"q{i}.", None, None))  # an empty duplicate never counts
    return entries


@pytest.mark.parametrize("seed", range(12))
def test_align_equals_previous_implementation(seed):
    rng = np.random.default_rng(seed)
    n = 40
    rows = [(f"V{i}", f"q{i}.", 0.0, 10.0) for i in range(n)]
    frame = pd.DataFrame({"video": [r[0] for r in rows], "description": [r[1] for r in rows],
                          "length": np.where(rng.random(n) < 0.7, 30.0, 31.0)})  # some length mismatches
    entries = _entries(rng, n, equal_length=seed % 3 == 0, bad=seed % 2 == 1)
    for gt in (rows, frame):
        for k in (None, 1, 5, 20):
            _same(_outcome(charades.align_predictions, entries, gt, k), _outcome(_old_align, entries, gt, k))


def test_align_on_the_real_predictions():
    from fireeval.datasets import has_data

    files = [f"charades_sta/predictions/{s}.json" for s in charades.ALL_SYSTEMS]
    if not has_data(*charades.GROUND_TRUTH_FILES, *files):
        pytest.skip("needs ../shared/data (Charades-STA)")
    gt = charades.load_ground_truth()
    for system in charades.ALL_SYSTEMS:
        entries = charades.prediction_entries(system)
        _same(charades.align_predictions(entries, gt, 10), _old_align(entries, gt, 10))


def test_a_string_is_not_a_moment():
    # The previous fast path read "12" as the moment [1, 2]; the checked path refuses it, and now both do.
    rows = [("V", "q.", 0.0, 10.0)]
    with pytest.raises(ValueError, match="moment 1 is .12., not a list"):
        charades.align_predictions([("V", "q.", ["12", "34"], None)], rows)


def test_numpy_rows_take_the_fast_path_and_agree():
    rows = [("V", "q.", 0.0, 10.0), ("W", "r.", 0.0, 10.0)]
    moments = np.array([[1.0, 2.0, 30.0], [0.0, 5.0, 30.0]])
    entries = [("V", "q.", list(moments), [0.1, 0.9]), ("W", "r.", moments, None)]
    out, _ = charades.align_predictions(entries, rows)
    np.testing.assert_array_equal(out[0], [[0, 5], [1, 2]])
    np.testing.assert_array_equal(out[1], [[1, 2], [0, 5]])


# ---------------------------------------------------------------- read_sta_rows
def _old_read_sta_rows(path, allow_reversed=False):
    return charades._read_sta_rows_checked(path, allow_reversed)  # the previous reader, kept for errors


STA_FILES = {
    "plain": "A 0 10##q one.\nB 0 4##q two.\n",
    "bom, crlf, blank lines": "\ufeffA 0 10##q one.\r\n\r\n  \nB 0 4.5##q two.\r\n",
    "old mac": "A 0 10##q one.\rB 0 4##q two.",
    "tabs and spaces": "A\t0  10 ##q one.##x\nB 1e0 4##  q two. \n",
    "reversed": "A 5 1##q one.\n",
    "nan": "A nan 1##q one.\n",
    "inf": "A 0 inf##q one.\n",
    "overflow": "A 1e308 1.7e308##q one.\nB 1e308 1.7e308##q two.\n",
    "not a number": "A zero 1##q one.\n",
    "no separator": "A 0 1 q one.\n",
    "four fields": "A 0 1 2##q one.\n",
    "duplicate": "A 0 1##q one.\nA 0 2##q one.\n",
    "empty": "\n\n",
    "form feed": "A 0 1##q\x0cone.\n",
    "not utf-8": b"A 0 1##q \xff.\n",
}


@pytest.mark.parametrize("name", list(STA_FILES))
@pytest.mark.parametrize("allow_reversed", [False, True])
def test_read_sta_rows_equals_previous_reader(tmp_path, name, allow_reversed):
    content = STA_FILES[name]
    path = tmp_path / "gt.txt"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    new = _outcome(charades.read_sta_rows, path, allow_reversed)
    old = _outcome(_old_read_sta_rows, path, allow_reversed)
    assert new == old
    if name == "plain":
        assert new == [("A", "q one.", 0.0, 10.0), ("B", "q two.", 0.0, 4.0)]


def test_read_sta_rows_on_the_real_files():
    from fireeval.datasets import data_path, has_data

    for split in ("test", "train"):
        name = f"charades_sta/charades_sta_{split}.txt"
        if not has_data(name):
            pytest.skip("needs ../shared/data (Charades-STA)")
        path = data_path(name)
        assert charades.read_sta_rows(path, True) == _old_read_sta_rows(path, True)


# ---------------------------------------------------------------- read_json
def _stdlib_only(monkeypatch):
    monkeypatch.setitem(sys.modules, "orjson", None)  # `import orjson` raises ImportError


def _identical(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_identical(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_identical, a, b))
    return a == b


number_text = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17e}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.6g}"),
    st.integers(-2**63, 2**63 - 1).map(str),
    st.builds(lambda i, f, e: f"{i}.{f}e{e}", st.integers(-10**6, 10**6), st.text("0123456789", min_size=1, max_size=30),
              st.integers(-330, 310)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(number_text, max_size=20))
def test_numbers_parse_as_the_standard_library_parses_them(numbers):
    text = "[" + ", ".join(numbers) + "]"
    assert _identical(read_json("mem.json", text=text.encode()), json.loads(text))


def test_read_json_equals_the_standard_library(tmp_path, monkeypatch):
    docs = {
        "plain.json": '{"entries": [{"vid": "A", "moments": [[0.1, 2.5, 30.0]], "ratings": [1, -0.0]}]}',
        "bom.json": "\ufeff" + '{"a": [1, 2.5e-3, "\u00e9"]}',
        "non-strict.json": '[NaN, Infinity, -Infinity, 1e400, "\\ud800", {"a": 1, "a": 2}]',
    }
    for name, text in docs.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        fast = read_json(path)
        assert _identical(fast, json.loads(text.removeprefix("\ufeff"))), name
        with monkeypatch.context() as m:
            _stdlib_only(m)
            assert _identical(read_json(path), fast), name


@pytest.mark.parametrize("content, message", [
    ('{"entries": [\n  {"vid": "A",,}\n]}', r":2: not valid JSON \(Expecting property name enclosed in double quotes, column 15\)"),
    ("[1, 2", r":1: not valid JSON \(Expecting ',' delimiter, column 6\)"),
    ("[1] x", r":1: not valid JSON \(Extra data, column 5\)"),
    ("", r":1: not valid JSON \(Expecting value, column 1\)"),
    (b'["\xff"]', r"not UTF-8 text \(invalid start byte\)"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_read_json_errors_name_file_line_and_column_with_and_without_orjson(tmp_path, monkeypatch, content, message):
    path = tmp_path / "p.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError, match=message) as fast:
        read_json(path, "predictions file")
    _stdlib_only(monkeypatch)
    with pytest.raises(ValueError, match=message) as slow:
        read_json(path, "predictions file")
    assert str(fast.value) == str(slow.value) and str(path) in str(fast.value)
