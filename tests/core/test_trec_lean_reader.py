"""The numpy-only reader of ``fireeval evaluate`` (issue 26, "lighter and faster"): it reads what pyarrow's
reader reads, refuses what it refuses, survives hash collisions, and the command never imports pyarrow."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.core import stream, trec
from fireeval.core.stream import QrelsIndex, score_run
from fireeval.core.trec import TrecFormatError, read_qrels_columns, read_run_table

SEPARATORS = [" ", "\t", "  ", " \t", "\r"]


def _run_text(rng, n_topics=5, seps=(" ",), line_end="\n", last_end=True):
    lines = []
    for t in rng.permutation(n_topics):
        docs = rng.choice(60, size=rng.integers(1, 30), replace=False)
        for d in docs:
            score = rng.choice(["1", "0.5", "-2.25", "1e-3", "3E2", "+4", "0.1000000001", ".5", "7."])
            fields = [f"t{t}", "Q0", f"doc-{d:03d}" + "x" * int(d % 11), "0", score, "tag"]
            lines.append("".join(f + rng.choice(list(seps)) for f in fields[:-1]) + fields[-1])
    return line_end.join(lines) + (line_end if last_end else "")


def _read_both(path, monkeypatch, precision="float"):
    lean = read_run_table(path, precision)
    monkeypatch.setattr(trec, "_LEAN_BYTES", -1)  # every file to pyarrow's reader
    arrow = read_run_table(path, precision)
    monkeypatch.undo()
    return lean, arrow


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), seps=st.sets(st.sampled_from(SEPARATORS), min_size=1),
       line_end=st.sampled_from(["\n", "\r\n"]), last_end=st.booleans(), precision=st.sampled_from(["float", "double"]))
def test_lean_reader_reads_runs_as_pyarrows_reader(tmp_path_factory, monkeypatch_module, seed, seps, line_end,
                                                  last_end, precision):
    path = tmp_path_factory.mktemp("r") / "run.txt"
    path.write_text(_run_text(np.random.default_rng(seed), seps=sorted(seps), line_end=line_end, last_end=last_end))
    lean, arrow = _read_both(path, monkeypatch_module, precision)
    assert lean.tag == arrow.tag == "tag"
    assert lean.topics.tolist() == arrow.topics.tolist()
    np.testing.assert_array_equal(lean.starts, arrow.starts)
    assert lean.docnos() == arrow.docnos()
    np.testing.assert_array_equal(lean.score, arrow.score)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.mark.parametrize("text", ["1 Q0 a 0 1 t\n1 Q0 b 0 2\n", "1 Q0 a 0 x t\n", "1 Q0 a 0 inf t\n",
                                  "1 Q0 a 0 1 t\n1 Q0 a 0 2 t\n", "1 Q0 a 0 1_0 t\n", b"1 Q0 \xff 0 1 t\n"])
def test_lean_reader_refuses_what_pyarrows_reader_refuses_with_the_same_line(tmp_path, monkeypatch, text):
    path = tmp_path / "bad.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(TrecFormatError) as lean:
        read_run_table(path)
    monkeypatch.setattr(trec, "_LEAN_BYTES", -1)
    with pytest.raises(TrecFormatError) as arrow:
        read_run_table(path)
    assert str(lean.value) == str(arrow.value)


def test_qrels_columns_equal_pyarrows_and_refuse_bad_grades(tmp_path, monkeypatch):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 1\n1\t0\tb\t+2\n2 0 a 2.0\n2 0 c -1\n10 0 é 0\n")
    query, docno, relevance = read_qrels_columns(path)
    monkeypatch.setattr(trec, "_LEAN_BYTES", -1)
    arrow = read_qrels_columns(path)
    assert [q.decode() for q in query.tolist()] == [q.decode() for q in arrow[0].tolist()] == ["1", "1", "2", "2",
                                                                                               "10"]
    assert docno.tolist() == arrow[1].tolist()
    assert relevance.tolist() == arrow[2].tolist() == [1, 2, 2, -1, 0]
    monkeypatch.undo()
    for bad, line in (("1 0 a 1\n1 0 b 0x1\n", 2), ("1 0 a 1e1\n", 1), ("1 0 a 1\n1 0 a 0\n", 2)):
        path.write_text(bad)
        with pytest.raises(TrecFormatError, match=f"q.txt:{line}:"):
            QrelsIndex.read(path)


def test_hash_collisions_change_nothing(tmp_path, monkeypatch):
    # every docno hashed alike: duplicates are confirmed on the bytes, judgements found through a dict
    rng = np.random.default_rng(1)
    run, qrels = tmp_path / "r.txt", tmp_path / "q.txt"
    run.write_text(_run_text(rng))
    qrels.write_text("".join(f"t{t} 0 doc-{d:03d}{'x' * (d % 11)} {d % 3}\n" for t in range(5) for d in range(0, 60, 2)))
    expected = score_run(read_run_table(run), QrelsIndex.read(qrels), ["map", "P_10", "ndcg"])
    monkeypatch.setattr(trec, "bytes_hash", lambda rows: np.zeros(len(rows), dtype=np.uint64))
    monkeypatch.setattr(stream, "bytes_hash", lambda rows: np.zeros(len(rows), dtype=np.uint64))
    got = score_run(read_run_table(run), QrelsIndex.read(qrels), ["map", "P_10", "ndcg"])
    for m in expected.values:
        np.testing.assert_array_equal(got.values[m], expected.values[m])
    run.write_text("1 Q0 a 0 1 t\n1 Q0 b 0 2 t\n")  # distinct docnos, equal hashes: no duplicate
    assert read_run_table(run).docnos() == ["b", "a"]


def test_evaluate_imports_neither_pyarrow_nor_pandas(tmp_path):
    run, qrels = tmp_path / "r.txt", tmp_path / "q.txt"
    run.write_text("1 Q0 a 0 1 t\n1 Q0 b 0 2 t\n")
    qrels.write_text("1 0 a 1\n")
    code = ("import sys; from fireeval import cli; cli.main(['evaluate', '-m', 'official', sys.argv[1], sys.argv[2]]);"
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('pandas', 'pyarrow')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], capture_output=True, text=True,
                          check=True)
    assert "map" in done.stdout and done.stderr.strip() == ""


@pytest.mark.parametrize("score", ["1e400", "-1e400", "nan", "inf", "Infinity", "1_0"])
def test_scores_that_are_not_finite_numbers_name_their_line(tmp_path, score):
    path = tmp_path / "r.txt"
    path.write_text(f"1 Q0 a 0 1 t\n1 Q0 b 0 {score} t\n")
    with pytest.raises(TrecFormatError, match=rf"r.txt:2: score '{score}' is not a finite number"):
        read_run_table(path)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=27).map(lambda b: b.replace(b"\x00", b"a")), min_size=1, max_size=40))
def test_the_integer_key_of_texts_orders_them_as_their_bytes(texts):
    """Ties are ordered by docno through an integer key: it must order any texts (common prefixes, one
    a prefix of another, several words long, bytes above 0x7f) exactly as comparing their bytes does."""
    array = np.array(texts, dtype=f"S{max(1, max(map(len, texts)))}")
    key = trec._bytes_order_key(array)
    for i in range(len(texts)):
        for j in range(len(texts)):
            assert (key[i] < key[j]) == (texts[i] < texts[j]) and (key[i] == key[j]) == (texts[i] == texts[j])


def test_tied_scores_are_ordered_by_long_docnos_descending_as_trec_eval(tmp_path):
    """Many tied blocks of docnos up to 40 bytes sharing long prefixes: the file's order is replaced by
    score descending, then docno descending (bytes), per topic."""
    rng = np.random.default_rng(3)
    lines, expected = [], {}
    for topic in ("1", "2", "10"):
        docs = list({("FR940104-0-" + "0" * int(rng.integers(0, 25)) + str(rng.integers(0, 500))).encode()
                     for _ in range(300)})
        scores = rng.integers(0, 40, len(docs)) / 8
        lines += [f"{topic} Q0 {d.decode()} 0 {s} tag\n" for d, s in zip(docs, scores)]
        expected[topic] = [d for _, d in sorted(zip(scores, docs), reverse=True)]
    rng.shuffle(lines)
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    run = read_run_table(path)
    docnos = run.dictionary[run.doc_codes]
    for i, topic in enumerate(run.topics):
        got = docnos[run.starts[i]:run.starts[i + 1]].tolist()
        assert got == expected[topic]


@pytest.mark.parametrize("width", [8, 16, 24, 80])
def test_a_hash_match_is_confirmed_on_the_bytes_word_by_word(width):
    # run docnos given the hashes of judged ones: found only where the bytes are the same too, at any width
    from fireeval.core.trec import bytes_hash, fixed_bytes

    index = QrelsIndex(["1"] * 3, [b"FBIS3-1", b"FR940104-0-00001", b"LA010189-0001"], [1, 0, 2])
    judged = bytes_hash(fixed_bytes(index.vocabulary, 8 * -(-index.vocabulary.dtype.itemsize // 8))[0])
    same = index.vocabulary.astype(f"S{width}")
    other = np.array([b"FBIS3-2", b"FR940104-0-00002", b"LA010189-0001" + b"x" * (width - 13)], dtype=f"S{width}")
    docnos = np.concatenate([same, other])
    codes = index._judged_codes(docnos, np.concatenate([judged, judged]))
    fits = [len(v.rstrip(b"\0")) <= width for v in index.vocabulary.tolist()]
    assert codes[:3].tolist() == [i if fit else -1 for i, fit in enumerate(fits)]
    assert codes[3:].tolist() == [-1, -1, 2 if width == 13 else -1]
