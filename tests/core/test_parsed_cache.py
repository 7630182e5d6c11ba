"""The parsed-runs cache (issue 38: a chapter reading TREC-8 parsed 129 runs every time): the same RunSet to the
bit as reading the files; stale, corrupt or foreign entries are rebuilt; it can be turned off; it writes only in
the user's cache folder."""
import os
import zipfile

import numpy as np
import pytest

from fireeval.core import parsed_cache, trec
from fireeval.core.parsed_cache import read_runset, runset_entry, user_cache_dir
from fireeval.core.runset import RunSet
from fireeval.core.trec import TrecFormatError, read_run_table


def _write_run(path, tag, rng, n_topics=4):
    lines = []
    for t in range(n_topics):
        for d in rng.choice(40, size=int(rng.integers(1, 12)), replace=False):
            # ties on purpose (few distinct scores) and non-ASCII docnos: the vocabulary must survive exactly
            lines.append(f"{400 + t} Q0 doc-{d:02d}{'é' if d % 7 == 0 else ''} 0 {rng.choice([0.5, 0.25, 1.0])} {tag}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """Three run files in a data folder, and an empty cache folder named by FIREEVAL_CACHE."""
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(3)
    return {tag: _write_run(data / f"input.{tag}", tag, rng) for tag in ("b", "a", "c")}


def _assert_same(got: RunSet, want: RunSet):
    assert got.names == want.names
    assert got.topics.dtype == want.topics.dtype and np.array_equal(got.topics, want.topics)
    assert got.docnos.dtype == want.docnos.dtype and got.docnos.tolist() == want.docnos.tolist()
    assert got.docs.dtype == want.docs.dtype and np.array_equal(got.docs, want.docs)
    assert got.docs.flags.writeable


def _parsed(paths):
    return RunSet.from_tables({name: read_run_table(path) for name, path in paths.items()})


def _count_reads(monkeypatch):
    reads = []
    real = trec.read_run_table  # read_runset imports the reader where it reads (not at module import)
    monkeypatch.setattr(trec, "read_run_table", lambda path: reads.append(path) or real(path))
    return reads


def test_the_cached_runset_is_the_parsed_one_and_the_files_are_read_once(runs, monkeypatch):
    reads = _count_reads(monkeypatch)
    first = read_runset(runs)
    assert len(reads) == 3
    again = read_runset(runs)
    assert len(reads) == 3  # from the cache
    want = _parsed(runs)
    _assert_same(first, want)
    _assert_same(again, want)
    assert "é" in "".join(again.docnos)


def test_the_entry_lives_in_the_users_cache_folder_never_beside_the_data(runs):
    read_runset(runs)
    entry, _ = runset_entry(runs)
    assert entry.is_file() and entry.parent == user_cache_dir() / "runsets"
    data = next(iter(runs.values())).parent
    assert sorted(p.name for p in data.iterdir()) == sorted(p.name for p in runs.values())
    assert [p.name for p in entry.parent.iterdir()] == [entry.name]  # no temporary file left


def test_a_changed_file_makes_the_entry_stale(runs, monkeypatch):
    read_runset(runs)
    reads = _count_reads(monkeypatch)
    path = runs["a"]
    path.write_text(path.read_text(encoding="utf-8") + "409 Q0 new-doc 0 9.5 a\n", encoding="utf-8")
    got = read_runset(runs)
    assert len(reads) == 3
    assert "new-doc" in got.docnos and "409" in got.topics
    _assert_same(got, _parsed(runs))
    stat = os.stat(path)  # the same size, a new mtime: stale too
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    read_runset(runs)
    assert len(reads) == 6


def test_another_reader_version_or_order_of_runs_is_not_read_from_the_entry(runs, monkeypatch):
    read_runset(runs)
    reads = _count_reads(monkeypatch)
    monkeypatch.setattr(parsed_cache, "_reader_version", lambda readers: "another reader")
    _assert_same(read_runset(runs), _parsed(runs))
    assert len(reads) == 3
    reordered = dict(reversed(list(runs.items())))
    _assert_same(read_runset(reordered), _parsed(reordered))
    assert len(reads) == 6


def damage_entry(entry, damage, change=lambda fields: None):
    """Damage a kept entry: ``garbage`` (not a zip), ``truncated``, or any other: ``change(fields)`` rewrites
    the arrays (the stamp still valid, each member's CRC right)."""
    if damage == "garbage":
        entry.write_bytes(b"not a zip file")
    elif damage == "truncated":
        entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    else:
        with np.load(entry) as data:
            fields = {k: data[k] for k in data.files}
        change(fields)
        np.savez(entry, **fields)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "missing field", "codes out of range"])
def test_a_corrupt_entry_is_ignored_and_rebuilt(runs, monkeypatch, damage):
    read_runset(runs)
    entry, stamp = runset_entry(runs)
    damage_entry(entry, damage, lambda fields: fields.pop("docs") if damage == "missing field"
                 else fields.update(docs=fields["docs"] + 1000))
    reads = _count_reads(monkeypatch)
    _assert_same(read_runset(runs), _parsed(runs))
    assert len(reads) == 3
    with zipfile.ZipFile(entry) as rebuilt:  # written over with a whole entry
        assert rebuilt.testzip() is None and "docs.npy" in rebuilt.namelist()
    read_runset(runs)
    assert len(reads) == 3


def test_fireeval_no_cache_reads_the_files_and_writes_nothing(runs, monkeypatch):
    monkeypatch.setenv("FIREEVAL_NO_CACHE", "1")
    reads = _count_reads(monkeypatch)
    _assert_same(read_runset(runs), _parsed(runs))
    read_runset(runs)
    assert len(reads) == 6
    assert not user_cache_dir().exists()


def test_a_cache_folder_that_cannot_be_written_is_no_error(runs, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("FIREEVAL_CACHE", str(blocker))  # a file where the folder should be
    _assert_same(read_runset(runs), _parsed(runs))


def test_a_bad_run_file_is_refused_as_the_reader_refuses_it_and_nothing_is_kept(runs):
    runs["a"].write_text("401 Q0 d1 0 0.5 a\n401 Q0 d2 0\n", encoding="utf-8")
    with pytest.raises(TrecFormatError, match=r"input\.a:2: .*Fix:"):
        read_runset(runs)
    assert not (user_cache_dir() / "runsets").exists()


def test_the_reader_version_follows_the_readers_source(monkeypatch):
    readers = parsed_cache._runset_readers()
    before = parsed_cache._reader_version(readers)
    source = trec.__file__
    monkeypatch.setattr(trec, "__file__", parsed_cache.__file__)  # as if the reader's code had changed
    assert parsed_cache._reader_version(readers) != before
    monkeypatch.setattr(trec, "__file__", source)
    assert parsed_cache._reader_version(readers) == before


def test_a_cache_folder_inside_a_data_folder_is_never_written(runs, monkeypatch, tmp_path):
    data = next(iter(runs.values())).parent
    monkeypatch.setenv("FIREEVAL_DATA", str(data))
    monkeypatch.setenv("FIREEVAL_CACHE", str(data / "cache"))  # the user's cache folder named inside the data
    reads = _count_reads(monkeypatch)
    _assert_same(read_runset(runs), _parsed(runs))
    read_runset(runs)
    assert len(reads) == 6 and not (data / "cache").exists()
    assert parsed_cache.data_folder_holding(data / "cache") == data.resolve()
    assert parsed_cache.data_folder_holding(tmp_path / "elsewhere") is None
    assert parsed_cache.cache_folder("runsets") is None


def test_the_book_refuses_data_folders_by_the_same_rule(tmp_path, monkeypatch):
    from fireeval.book import _kept

    monkeypatch.setenv("FIREEVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "data" / "cache"))
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    assert _kept.folder("charts") is None
    assert _kept.data_folder_holding(tmp_path / "mine" / "out", data_dir=tmp_path / "mine") == tmp_path / "mine"
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    assert _kept.folder("charts") == tmp_path / "cache" / "charts"


def _numbers(tmp_path, monkeypatch):
    monkeypatch.setenv("FIREEVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FIREEVAL_NO_CACHE", raising=False)
    path = tmp_path / "numbers.txt"
    path.write_text("1.5 -0.0 nan\n")
    reads = []

    def read():
        reads.append(path)
        return np.loadtxt(path)

    return path, reads, read


def test_kept_gives_back_what_was_read_and_rebuilds_what_decode_refuses(tmp_path, monkeypatch):
    path, reads, read = _numbers(tmp_path, monkeypatch)
    refused = []

    def decode(arrays):
        if refused:
            raise ValueError("inconsistent")
        return arrays["a"]

    args = ("numbers", [path], read, lambda a: {"a": a}, decode)
    first, again = parsed_cache.kept(*args), parsed_cache.kept(*args)
    assert len(reads) == 1 and again.tobytes() == first.tobytes() and again.dtype == first.dtype
    assert parsed_cache.kept(*args, key=["another key"]).tobytes() == first.tobytes() and len(reads) == 2
    refused.append(True)
    parsed_cache.kept(*args)
    assert len(reads) == 3


def test_kept_keeps_nothing_when_the_reader_fails(tmp_path, monkeypatch):
    path, reads, _ = _numbers(tmp_path, monkeypatch)

    def read():
        raise ValueError(f"{path}:1: bad. Fix: mend it")

    with pytest.raises(ValueError, match=r"numbers\.txt:1: bad\. Fix"):
        parsed_cache.kept("numbers", [path], read, lambda a: {"a": a}, lambda arrays: arrays["a"])
    assert not (tmp_path / "cache" / "numbers").exists()
    with pytest.raises(TypeError, match="object"):  # an object array would need a pickle: a reader's mistake
        parsed_cache.kept("numbers", [path], lambda: np.array([None]), lambda a: {"a": a}, lambda arrays: arrays["a"])


def test_replace_atomically_leaves_no_partial_file(tmp_path):
    entry = tmp_path / "kept" / "x.bin"

    def fail(fh):
        fh.write(b"half")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        parsed_cache.replace_atomically(entry, fail)
    assert list((tmp_path / "kept").iterdir()) == []
    assert parsed_cache.replace_atomically(entry, lambda fh: fh.write(b"whole")) and entry.read_bytes() == b"whole"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert parsed_cache.replace_atomically(blocker / "x.bin", lambda fh: fh.write(b"x")) is False


def test_texts_and_json_come_back_exactly():
    texts = ["", "a\x00", "é", "\ud800", "doc-01"]
    assert parsed_cache.decode_texts(*parsed_cache.encode_texts(texts)).tolist() == texts
    value = [1, "1", True, None, [0.1, -0.0, float("inf")], {"k": 2 ** 70}, "\ud800"]
    back = parsed_cache.from_json_array(parsed_cache.json_array(value))
    assert back == value and [type(v) for v in back] == [type(v) for v in value]
    assert np.signbit(back[4][1]) and np.isnan(parsed_cache.from_json_array(parsed_cache.json_array(float("nan"))))


def test_a_kind_keeps_its_most_recently_used_entries(tmp_path, monkeypatch):
    """Entries do not pile up (a reader's own files each add one, and TREC-8's 129 runs take ~25 MB): past
    ``limit`` the least recently used go, and reading an entry counts as using it."""
    path, reads, read = _numbers(tmp_path, monkeypatch)
    folder = tmp_path / "cache" / "numbers"

    def keep(key):
        return parsed_cache.kept("numbers", [path], read, lambda a: {"a": a}, lambda arrays: arrays["a"], key=[key],
                                 limit=2)

    def written_long_ago(entry, seconds):  # (the file system's clock is too coarse to order entries written now)
        os.utime(entry, ns=(seconds * 10**9, seconds * 10**9))

    keep("a")
    (entry_a,) = folder.iterdir()
    written_long_ago(entry_a, 1)
    keep("b")
    (entry_b,) = set(folder.iterdir()) - {entry_a}
    written_long_ago(entry_b, 2)
    keep("a")  # read from its entry: used now, so "b" is now the least recently used
    assert len(reads) == 2
    keep("c")
    assert len(list(folder.iterdir())) == 2
    keep("a")
    assert len(reads) == 3, "the entry read last was pruned instead of the least recently used"
    keep("b")
    assert len(reads) == 4, "b, the least recently used, should have been pruned"
    assert parsed_cache.RUNSET_ENTRIES < parsed_cache.ENTRIES  # each runset entry is the largest kept
