"""The reader's own data (issue 24): no silent fallback to synthetic data, moment predictions in every
accepted format, similarity matrices, papermill on the chapters as shipped, the page and the diff."""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fireeval.datasets as ds
from fireeval.cli import main
from tests.conftest import require_data

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


# --------------------------------------------------------------------------- 1. no silent fallback
def _fake_registry(monkeypatch, tmp_path, names):
    """A registry of small files ``names`` with known content; no shared data, no FIREEVAL_DATA."""
    content = {n: f"content of {n}\n".encode() for n in names}
    reg = {n: {"path": n, "sha256": hashlib.sha256(c).hexdigest()} for n, c in content.items()}
    monkeypatch.setattr(ds, "registry", lambda: reg)
    monkeypatch.setattr(ds, "SHARED_DATA", tmp_path / "no-shared-data")
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    return content


def _place(root, content, names, corrupt=()):
    for n in names:
        path = root / n
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"not the upstream file\n" if n in corrupt else content[n])


FILES = ["set/a.txt", "set/b.txt", "set/c.txt"]


@settings(max_examples=40)
@given(states=st.lists(st.sampled_from(["missing", "ok", "corrupt"]), min_size=3, max_size=3),
       named=st.booleans(), source=st.sampled_from(["auto", "real"]))
def test_choose_source_falls_back_only_when_nothing_is_found(tmp_path_factory, states, named, source):
    tmp_path = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        content = _fake_registry(mp, tmp_path, FILES)
        root = tmp_path / "root"
        root.mkdir()
        _place(root, content, [f for f, s in zip(FILES, states) if s != "missing"],
               corrupt=[f for f, s in zip(FILES, states) if s == "corrupt"])
        mp.setattr(ds, "SHARED_DATA", root)  # found without the reader naming it (the default folder)
        inputs = {"predictions": {"mine": "p.json"}} if named else {}
        if "corrupt" in states:
            with pytest.raises(ds.DataError, match=r"sha256 .*Fix:"):
                ds.choose_source(source, FILES, reader_inputs=inputs)
        elif all(s == "ok" for s in states):
            assert ds.choose_source(source, FILES, reader_inputs=inputs) == "real"
        elif all(s == "missing" for s in states) and not named and source == "auto":
            assert ds.choose_source(source, FILES, reader_inputs=inputs) == "synthetic"
        else:
            with pytest.raises(ds.DataUnavailable, match="Fix:"):
                ds.choose_source(source, FILES, reader_inputs=inputs)


def test_checksum_failure_under_auto_is_refused_naming_the_file(tmp_path, monkeypatch):
    content = _fake_registry(monkeypatch, tmp_path, FILES)
    _place(tmp_path / "shared", content, FILES, corrupt=["set/b.txt"])
    monkeypatch.setattr(ds, "SHARED_DATA", tmp_path / "shared")
    with pytest.raises(ds.DataError) as err:
        ds.choose_source("auto", FILES)
    message = str(err.value)
    assert str(tmp_path / "shared" / "set/b.txt") in message and "\n" not in message
    assert "Fix:" in message and "data_source synthetic" in message


def test_named_data_dir_missing_is_refused_not_synthetic(tmp_path, monkeypatch):
    _fake_registry(monkeypatch, tmp_path, FILES)
    assert ds.choose_source("auto", FILES) == "synthetic"  # nothing anywhere, nothing named
    with pytest.raises(ds.DataUnavailable, match=r"you named data \(data_dir="):
        ds.choose_source("auto", FILES, root=tmp_path / "mine")
    with pytest.raises(ValueError, match="ignores the data you named"):
        ds.choose_source("synthetic", FILES, root=tmp_path / "mine")
    with pytest.raises(ValueError, match="not one of auto, real, synthetic"):
        ds.choose_source("bogus", FILES)


def test_a_named_folder_is_the_only_place_data_are_read_from(tmp_path, monkeypatch):
    # issue 39: --data-dir EMPTY (or FIREEVAL_DATA) ran on ../shared/data instead; now the named folder is
    # the only place looked in, and a file missing there stops the chapter naming that folder
    content = _fake_registry(monkeypatch, tmp_path, FILES)
    shared, empty = tmp_path / "shared", tmp_path / "empty"
    _place(shared, content, FILES)
    empty.mkdir()
    monkeypatch.setattr(ds, "SHARED_DATA", shared)
    assert ds.choose_source("auto", FILES) == "real"  # nothing named: the default folder
    assert ds.folders_read()[-1] == str(shared.resolve())
    for named in ({"root": empty}, {}):
        if not named:
            monkeypatch.setenv("FIREEVAL_DATA", str(empty))
        with pytest.raises(ds.DataUnavailable) as err:
            ds.choose_source("auto", FILES, **named)
        message = str(err.value)
        assert str(empty / FILES[0]) in message and str(shared) not in message and "\n" not in message
        assert message.count("Fix:") == 1 and ("data_dir=" if named else "FIREEVAL_DATA=") in message
        with pytest.raises(ds.DataUnavailable, match=str(empty)):
            ds.data_path(FILES[0], **named)
    # asking for the stand-in on purpose overrides an ambient FIREEVAL_DATA, not a data_dir
    assert ds.choose_source("synthetic", FILES) == "synthetic"
    with pytest.raises(ValueError, match="ignores the data you named"):
        ds.choose_source("synthetic", FILES, root=empty)


def test_optional_data(tmp_path, monkeypatch):
    content = _fake_registry(monkeypatch, tmp_path, FILES)
    assert ds.optional_data(*FILES, root=tmp_path) is False
    _place(tmp_path, content, FILES[:1])
    with pytest.raises(ds.DataUnavailable, match="1 of 3 files"):
        ds.optional_data(*FILES, root=tmp_path)
    _place(tmp_path, content, FILES, corrupt=FILES[1:2])
    with pytest.raises(ds.DataError, match="sha256"):
        ds.optional_data(*FILES, root=tmp_path)
    _place(tmp_path, content, FILES)
    assert ds.optional_data(*FILES, root=tmp_path) is True


CHAPTER_CHOOSING = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
```{code-cell} ipython3
:tags: [parameters]
data_source = "auto"  # where the data come from. Allowed: one of auto, real, synthetic
```

```{code-cell} ipython3
from fireeval.datasets import choose_source
from fireeval.book import report
source = choose_source(data_source, [%r], what="the TREC-8 qrels")
report.headline({"data_source": source})
```
"""


@pytest.mark.notebook
def test_fireeval_run_refuses_a_checksum_failure_in_one_line(tmp_path, monkeypatch, capsys):
    name = next(n for n in ds.registry() if n.startswith("trec8_adhoc/qrels"))
    bad = tmp_path / "data" / name
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"401 0 FBIS3-1 1\n")  # present, but not NIST's file
    monkeypatch.setenv("FIREEVAL_DATA", str(tmp_path / "data"))  # the kernel inherits it
    nb = tmp_path / "choosing.md"
    nb.write_text(CHAPTER_CHOOSING % name)
    assert main(["run", str(nb), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("fireeval run: ") and str(bad) in err and "sha256" in err and "Fix:" in err
    assert "the chapter failed" not in err  # the data error itself, not a traceback summary
    assert not (tmp_path / "out" / "choosing.headline.json").exists()


# --------------------------------------------------------------------------- 2. moment-prediction formats
GT_TXT = "A 0 10##person opens a door.\nB 0 4##Someone sits.\nC 2 4##never predicted.\n"
#: (vid, query, [(start, end, score), ...]) in rank order
PRED = [("A", "person opens a door.", [(0, 10, 0.9), (0, 5, 0.5)]), ("B", "Someone sits.", [(2, 4, 0.8)]),
        ("Z", "not a query", [(1, 2, 0.1)])]


def _write_formats(tmp_path, pred=PRED):
    files = {}
    entries = [{"vid": v, "query": q, "moments": [[s, e] for s, e, _ in ms], "ratings": [r for _, _, r in ms]}
               for v, q, ms in pred]
    files["json"] = tmp_path / "p.json"
    files["json"].write_text(json.dumps({"entries": entries}))
    files["csv"] = tmp_path / "p.csv"  # shuffled rows: rank comes from the score
    rows = [(v, q, s, e, r) for v, q, ms in pred for s, e, r in ms][::-1]
    files["csv"].write_text("vid,query,start,end,score\n" + "".join(f'{v},"{q}",{s},{e},{r}\n' for v, q, s, e, r in rows))
    files["tsv"] = tmp_path / "p.tsv"  # no header, no score: rank = row order
    files["tsv"].write_text("".join(f"{v}\t{q}\t{s}\t{e}\n" for v, q, ms in pred for s, e, _ in ms))
    files["momentdetr"] = tmp_path / "p.jsonl"
    files["momentdetr"].write_text("".join(json.dumps({"qid": i, "query": q, "vid": v,
                                                       "pred_relevant_windows": [[s, e, r] for s, e, r in ms]}) + "\n"
                                           for i, (v, q, ms) in enumerate(pred)))
    files["2dtan"] = tmp_path / "p.txt"
    files["2dtan"].write_text("".join(f"{v} {s} {e}##{q}\n" for v, q, ms in pred for s, e, _ in ms))
    return files


def _scores(capsys):
    out = capsys.readouterr()
    return {line.split("\t")[0].strip(): float(line.split("\t")[2]) for line in out.out.splitlines()}, out.err


def test_every_format_scores_alike_against_charades_ground_truth(tmp_path, capsys):
    gt = tmp_path / "gt.txt"
    gt.write_text(GT_TXT)
    files = _write_formats(tmp_path)
    results = {}
    for fmt, path in files.items():
        assert main(["evaluate-moments", str(gt), str(path), "-m", "R@1,0.5", "-m", "AxIoU@2", "-m", "R@2,0.9"]) == 0
        results[fmt], err = _scores(capsys)
        assert "1 of 3 queries have no predictions" in err
        assert "1 entries match no ground-truth query" in err and "'Z'" in err and "exactly" in err
    assert all(r == results["json"] for r in results.values()), results
    assert results["json"]["R@1,0.5"] == pytest.approx(round(2 / 3, 4))


def test_formats_against_qvhighlights_ground_truth(tmp_path, capsys):
    gt = tmp_path / "gt.jsonl"
    gt.write_text("".join(json.dumps({"qid": i, "query": q, "vid": v, "duration": 30, "relevant_windows": [[s, e]]})
                          + "\n" for i, (v, q, s, e) in enumerate([("A", "person opens a door.", 0, 10),
                                                                   ("B", "Someone sits.", 0, 4),
                                                                   ("C", "never predicted.", 2, 4)])))
    files = _write_formats(tmp_path)
    qid_csv = tmp_path / "qid.csv"
    qid_csv.write_text("qid,start,end,score\n0,0,5,0.5\n0,0,10,0.9\n1,2,4,0.8\n")
    results = {}
    for fmt, path in [*files.items(), ("qid csv", qid_csv)]:
        assert main(["evaluate-moments", str(gt), str(path), "-m", "R@1,0.5", "-m", "AxIoU@2"]) == 0, fmt
        results[fmt], _ = _scores(capsys)
    assert all(r == results["momentdetr"] for r in results.values()), results


def test_query_text_exact_unless_normalised(tmp_path, capsys):
    gt = tmp_path / "gt.txt"
    gt.write_text(GT_TXT)
    shouted = [(v, "  " + q.upper().rstrip(".") + " ", ms) for v, q, ms in PRED]
    path = _write_formats(tmp_path, shouted)["2dtan"]
    assert main(["evaluate-moments", str(gt), str(path)]) == 2
    err = capsys.readouterr().err
    assert "none of its" in err and "--normalize-queries" in err and "PERSON OPENS A DOOR" in err
    assert main(["evaluate-moments", str(gt), str(path), "-m", "R@1,0.5", "--normalize-queries"]) == 0
    assert _scores(capsys)[0]["R@1,0.5"] == pytest.approx(round(2 / 3, 4))


def test_unreadable_predictions_name_the_accepted_formats(tmp_path, capsys):
    gt = tmp_path / "gt.txt"
    gt.write_text(GT_TXT)
    for name, text in [("p.json", "vid,query,start,end\nA,q,0,1\n"), ("p.dat", "something\n"),
                       ("p.txt", "A 0 10 person opens a door\n")]:
        (tmp_path / name).write_text(text)
        assert main(["evaluate-moments", str(gt), str(tmp_path / name)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "accepted formats" in err and "2D-TAN" in err and "Moment-DETR" in err, err
    (tmp_path / "bad.csv").write_text("vid,query,start,end\nA,person opens a door.,zero,1\n")
    assert main(["evaluate-moments", str(gt), str(tmp_path / "bad.csv")]) == 2
    assert "bad.csv:2: start 'zero' is not a plain decimal number" in capsys.readouterr().err


def test_moment_detr_jsonl_against_real_charades(capsys):
    """The issue's case: Moment-DETR jsonl against Charades-STA, scored as the same predictions in JSON."""
    from fireeval.datasets import charades, data_path

    require_data(*charades.GROUND_TRUTH_FILES)
    rows = charades.read_sta_rows(data_path("charades_sta/charades_sta_test.txt"))
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pred = [(r[0], r[1], [(0.0, r[3] + 5, 1.0), (r[2], r[3], 0.5)]) for r in rows[:200]]
        files = _write_formats(tmp, pred)
        gt = data_path("charades_sta/charades_sta_test.txt")
        got = {}
        for fmt in ("json", "momentdetr", "csv", "2dtan"):
            assert main(["evaluate-moments", str(gt), str(files[fmt]), "-m", "R@1,0.5", "-m", "AxIoU@2"]) == 0
            got[fmt], _ = _scores(capsys)
        assert all(g == got["json"] for g in got.values())


# --------------------------------------------------------------------------- 3. similarity matrices
def _ids(tmp_path, n_q, n_v, texts=None):
    q, v = tmp_path / "q.txt", tmp_path / "v.txt"
    q.write_text("".join(f"v{i}" + (f"\t{texts[i]}" if texts else "") + "\n" for i in range(n_q)))
    v.write_text("".join(f"v{j}\n" for j in range(n_v)))
    return q, v


@settings(max_examples=60)
@given(st.integers(2, 12).flatmap(lambda n: st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n),
                                                      min_size=n, max_size=n)))
def test_ranks_and_recall_agree_with_fire_on_the_diagonal(matrix):
    from fireeval.t2v import false_negatives as fire, retrieval

    sim = np.asarray(matrix, dtype=float)  # small integers: many ties
    n = len(sim)
    original = np.eye(n, dtype=bool)
    ranks = retrieval.first_positive_rank(sim, original)
    reference = fire.original_rank_under_ties(sim)["stable"]
    np.testing.assert_array_equal(ranks, reference)
    table = retrieval.recall_table({"m": sim}, original, ks=(1, 2))["m"]
    assert table["R@1"] == pytest.approx((reference <= 1).mean()) and table["R@2"] == pytest.approx((reference <= 2).mean())
    assert table["MdR"] == pytest.approx(np.median(reference)) and table["MnR"] == pytest.approx(reference.mean())
    order = np.argsort(-sim, axis=1, kind="stable")  # independent: position of the positive in the sorted list
    np.testing.assert_array_equal(ranks, (order == np.arange(n)[:, None]).argmax(axis=1) + 1)


def test_evaluate_similarity_command(tmp_path, capsys):
    rng = np.random.default_rng(0)
    sim = rng.normal(size=(6, 8)) + 3 * np.eye(6, 8)
    np.save(tmp_path / "m.npy", sim.astype(np.float32))
    q, v = _ids(tmp_path, 6, 8)
    assert main(["evaluate-similarity", str(tmp_path / "m.npy"), "--queries", str(q), "--videos", str(v), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    ranks = (np.argsort(-sim.astype(np.float32), axis=1, kind="stable") == np.arange(6)[:, None]).argmax(axis=1) + 1
    assert result["recall"]["m"]["R@1"] == pytest.approx((ranks <= 1).mean())
    assert result["recall"]["m"]["MnR"] == pytest.approx(ranks.mean()) and result["corrected"] is None
    labels = tmp_path / "labels.tsv"
    labels.write_text("query\tvideo\tlabel\nv0\tv7\t1\nv1\tv6\t0\nunknown\tv1\t1\n")
    assert main(["evaluate-similarity", str(tmp_path / "m.npy"), "--queries", str(q), "--videos", str(v),
                 "--labels", str(labels)]) == 0
    out = capsys.readouterr()
    assert "FIRE-style corrected scores" in out.out and "1 labelled pairs name a query or video not in" in out.err


def test_similarity_proxy_corrections(tmp_path, capsys):
    sim = np.array([[0.9, 0.8, 0.1], [0.2, 0.3, 0.9], [0.1, 0.2, 0.3]])
    np.save(tmp_path / "m.npy", sim)
    q, v = _ids(tmp_path, 3, 3, texts=["a dog runs", "a cat sleeps", "a car drives"])
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps({"v0": ["a dog runs fast"], "v1": ["a dog runs home"], "v2": ["a cat sleeps"]}))
    assert main(["evaluate-similarity", str(tmp_path / "m.npy"), "--queries", str(q), "--videos", str(v), "--proxy",
                 "bow", "--captions", str(caps), "--threshold", "0.5", "--pool-depth", "1", "-k", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    c1 = {r["metric"]: r for r in result["corrected"]}["C@1"]
    # queries 0 and 2 find their own video first; query 1's top video is v2, whose caption is the query
    # itself: judged relevant, so C@1 rises from 2/3 to 1
    assert c1["original"] == pytest.approx(2 / 3) and c1["corrected"] == pytest.approx(1)


@pytest.mark.parametrize("case, message", [
    ("shape", "does not match 6 queries x 8 videos"),
    ("transposed", "looks transposed"),
    ("nan", "NaN or infinite, the first at row 2"),
    ("duplicate", "is already on line 1"),
    ("gt", "video 'v99' is not in the video list"),
    ("no positive", "have no relevant video"),
    ("text", "not a .npy file"),
])
def test_similarity_inputs_refused_in_one_line(tmp_path, capsys, case, message):
    sim = np.zeros((6, 8))
    q, v = _ids(tmp_path, 6, 8)
    extra = []
    if case == "shape":
        sim = np.zeros((6, 7))
    elif case == "transposed":
        sim = np.zeros((8, 6))
    elif case == "nan":
        sim[2, 3] = np.nan
    elif case == "duplicate":
        v.write_text("v0\nv0\n" + "".join(f"v{j}\n" for j in range(2, 8)))
    elif case == "gt":
        (tmp_path / "gt.tsv").write_text("v0\tv99\n")
        extra = ["--gt", str(tmp_path / "gt.tsv")]
    elif case == "no positive":
        q.write_text("".join(f"query{i}\n" for i in range(6)))
    path = tmp_path / "m.npy"
    np.save(path, sim)
    if case == "text":
        path.write_text("0 1 2\n")
    assert main(["evaluate-similarity", str(path), "--queries", str(q), "--videos", str(v), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and "Fix:" in err, err


def test_similarity_matches_the_independent_check_on_real_msrvtt(tmp_path):
    """Evidence: evaluate_similarity on the four MSR-VTT runs equals an independent argsort computation."""
    from fireeval.datasets import msrvtt
    from fireeval.t2v import retrieval

    require_data(*msrvtt.MODELS.values(), msrvtt.QUERIES)
    runs = {m: msrvtt.load_similarity(m, diagonal_only_ok=True) for m in msrvtt.MODELS}
    got = retrieval.evaluate_similarity(runs, np.eye(1000, dtype=bool))["recall"]
    diffs = []
    for model, s in runs.items():
        rank = (np.argsort(-s, axis=1, kind="stable") == np.arange(1000)[:, None]).argmax(axis=1) + 1
        expected = [*((rank <= k).mean() for k in (1, 5, 10)), np.median(rank), rank.mean()]
        diffs += [abs(a - b) for a, b in zip([got[model][m] for m in ("R@1", "R@5", "R@10", "MdR", "MnR")], expected)]
    assert max(diffs) == 0 and len(diffs) == 20
    assert [round(got["clip4clip"][k], 3) for k in ("R@1", "R@5", "R@10")] == [0.344, 0.551, 0.650]


# --------------------------------------------------------------------------- 4. papermill on the chapters
@pytest.mark.parametrize("chapter", sorted(p.stem for p in (ROOT / "notebooks").glob("*.md")))
def test_papermill_sees_every_parameter_with_its_allowed_values(chapter):
    import papermill

    from fireeval.book import notebooks

    path = ROOT / "notebooks" / f"{chapter}.md"
    nb = notebooks.load(path)
    inferred = papermill.inspect_notebook(str(path))
    assert list(inferred) == list(notebooks.declared_parameters(nb))
    specs = notebooks.parameter_specs(nb)
    for name, p in inferred.items():
        assert p["inferred_type_name"] == specs[name] and "Allowed:" in p["help"], (name, p)


DICT_NB = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
```{code-cell} ipython3
:tags: [parameters]
weights = {"a": 1}  # per-name weights. Allowed: dict of int >= 0
ks = [1, 5]  # cut-offs, each >= 1. Allowed: list of int >= 1
```

```{code-cell} ipython3
from fireeval.book import report
assert isinstance(weights, dict) and isinstance(ks, list)
report.headline({"total": sum(weights.values()) + sum(ks)})
```
"""


def test_papermill_cli_types_and_validates_list_and_dict_parameters(tmp_path):
    nb = tmp_path / "tiny.md"
    nb.write_text(DICT_NB)
    papermill = [str(VENV_BIN / "papermill"), str(nb), str(tmp_path / "out.ipynb"), "--no-progress-bar"]
    ok = subprocess.run([*papermill, "-p", "weights", '{"b": 2, "c": 3}', "-p", "ks", "[2, 4]"],
                        capture_output=True, text=True, cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    from fireeval.book.notebooks import extract_headline
    import nbformat

    assert extract_headline(nbformat.read(tmp_path / "out.ipynb", as_version=4)) == {"total": 11}
    yaml = subprocess.run([*papermill, "-y", "{weights: {b: 1}, ks: [3]}"], capture_output=True, text=True)
    assert yaml.returncode == 0, yaml.stderr
    for args, message in [(["-p", "ks", "[0]"], "parameter ks = [0] is not allowed. Allowed: list of int >= 1"),
                          (["-p", "weights", '{"b": -1}'], "Allowed: dict of int >= 0"),
                          (["-p", "nope", "1"], "has no parameter nope")]:
        bad = subprocess.run([*papermill, *args], capture_output=True, text=True)
        assert bad.returncode == 2 and bad.stderr.strip().splitlines()[-1].startswith("papermill: "), bad.stderr
        assert message in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.notebook
def test_papermill_runs_metrics_md_as_shipped_and_the_page_fills_every_glue(tmp_path):
    """papermill on notebooks/metrics.md (no conversion), a list parameter given as a string, test parameters."""
    import nbformat
    import papermill

    from fireeval.book import notebooks, page
    from fireeval.book.notebooks import ParameterError

    path = ROOT / "notebooks" / "metrics.md"
    params = dict(notebooks.load(path).metadata["fireeval"]["test_parameters"])
    with pytest.raises(ParameterError, match="n_runs_real = 500 is not allowed"):
        papermill.execute_notebook(str(path), str(tmp_path / "x.ipynb"), parameters={"n_runs_real": 500},
                                   progress_bar=False)
    out = tmp_path / "metrics.ipynb"
    papermill.execute_notebook(str(path), str(out), parameters={**params, "toy_relevant_ranks": "[2, 4]"},
                               progress_bar=False, cwd=str(path.parent))
    nb = nbformat.read(out, as_version=4)
    injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert "toy_relevant_ranks = [2, 4]" in injected.source
    assert notebooks.extract_headline(nb)["toy"] is not None
    missing = page.write_page(nb, tmp_path / "metrics.html", source=str(path))
    html = (tmp_path / "metrics.html").read_text()
    assert missing == [] and "{glue" not in html and "<script" not in html.lower() and "<svg" in html
    assert "not glued" not in html


# --------------------------------------------------------------------------- 5. page, summary, diff
PAGE_NB = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
# A tiny chapter

The value is {glue:text}`x:.2f`, the word is {glue:text}`word`, see {cite}`paper2020`.

```{code-cell} ipython3
:tags: [parameters]
x = 0.5  # a value. Allowed: float in [0, 1]
```

```{code-cell} ipython3
:tags: [remove-cell]
import altair as alt
import pandas as pd
from fireeval.book import plotting, report
plotting.setup()
report.glue("x", x)
report.glue("word", "reproduced")
chart = plotting.titled(alt.Chart(pd.DataFrame({"a": [1, 2], "b": [x, 1]})).mark_point().encode(
    x=alt.X("a", title="a (units)"), y=alt.Y("b", title="b (units)"), tooltip=["a"]), "A title", "A caption")
report.headline({"x": x, "claims": [{"id": "tiny_claim", "verdict": "reproduced", "label": "reproduced",
                                      "conventions": {}, "why": "by construction"}]})
```

```{code-cell} ipython3
:tags: [remove-input]
chart
```

:::{note}
A note with {glue:text}`x:.1f`.
:::
"""


@pytest.mark.notebook
def test_fireeval_run_writes_a_page_and_prints_a_summary(tmp_path, capsys):
    nb = tmp_path / "tiny.md"
    nb.write_text(PAGE_NB)
    assert main(["run", str(nb), "-p", "x", "0.25", "--output", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    page = tmp_path / "out" / "tiny.html"
    assert f"page: {page}" in out and "tiny_claim" in out and "reproduced" in out and "{" not in out.split("claim")[0]
    html = page.read_text()
    assert "{glue" not in html and "The value is 0.25, the word is reproduced" in html
    assert "A note with 0.2" in html and "admonition note" in html
    assert "<svg" in html and "<script" not in html.lower() and "report.glue" not in html  # removed cell


def test_diff_lists_changed_claims_and_keys(tmp_path, capsys):
    def claim(cid, verdict, label, value):
        return {"id": cid, "verdict": verdict, "label": label, "conventions": {"": {"value": value, "low": None,
                                                                                    "high": None}}}
    a = {"n": 3, "elapsed_seconds": 1.0, "toy": {"ap": 0.5, "rr": 1.0},
         "claims": [claim("c1", "reproduced", "reproduced", 0.5), claim("c2", "reproduced", "reproduced", 0.1),
                    claim("gone", "depends", "depends", 1)]}
    b = {"n": 3, "elapsed_seconds": 2.0, "toy": {"ap": 0.25, "rr": 1.0},
         "claims": [claim("c1", "not reproduced", "contradicted", 0.2), claim("c2", "reproduced", "reproduced", 0.1),
                    claim("new", "reproduced", "reproduced", 2)]}
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    text = capsys.readouterr().out
    assert "c1: reproduced -> contradicted (verdict reproduced -> not reproduced)" in text and "0.5 -> 0.2" in text
    assert "c2" not in text and "gone: only in" in text and "new: only in" in text
    assert "toy.ap: 0.5 -> 0.25" in text and "toy.rr" not in text and "elapsed" not in text
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json", "--timings"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in d["claims"]] == ["c1"] and {k["key"] for k in d["keys"]} == {"toy.ap", "elapsed_seconds"}
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 0
    assert capsys.readouterr().out.startswith("no change")
    (tmp_path / "list.json").write_text("[1]")
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "list.json")]) == 2
    assert "a headline is a JSON object" in capsys.readouterr().err


def test_a_readers_matrix_is_aligned_to_a_chapters_order(tmp_path):
    from fireeval.datasets.similarity_inputs import load_aligned

    sim = np.arange(12, dtype=float).reshape(3, 4)  # rows q0..q2, columns v0..v3
    np.save(tmp_path / "m.npy", sim)
    (tmp_path / "q.txt").write_text("q0\nq1\nq2\n")
    (tmp_path / "v.txt").write_text("v0\nv1\nv2\nv3\n")
    got = load_aligned(tmp_path / "m.npy", tmp_path / "q.txt", tmp_path / "v.txt", ["q2", "q0"], ["v3", "v1"])
    np.testing.assert_array_equal(got, [[11, 9], [3, 1]])
    with pytest.raises(ValueError, match=r"1 of the 2 video ids .* 'v9'"):
        load_aligned(tmp_path / "m.npy", tmp_path / "q.txt", tmp_path / "v.txt", ["q0"], ["v0", "v9"])


def test_other_notebooks_keep_papermills_own_reading():
    """Cells with annotations or code are inspected by papermill itself; no validation without Allowed: SPECs."""
    import nbformat
    import papermill  # noqa: F401 -- loads the package's entry point
    from papermill.translators import papermill_translators

    translator = papermill_translators.find_translator("python3", "python")
    annotated = nbformat.v4.new_code_cell("x: int = 1  # a number\ny = 2  # another", metadata={"tags": ["parameters"]})
    inferred = translator.inspect(annotated)
    assert [p.name for p in inferred] == ["x", "y"] and inferred[0].inferred_type_name == "int"
    plain = nbformat.v4.new_code_cell("k = [1, 2]  # no SPEC here", metadata={"tags": ["parameters"]})
    assert [p.name for p in translator.inspect(plain)] == ["k"]
    assert 'k = "x"' in translator.codify({"k": "x"})  # papermill's codify, unvalidated


@pytest.mark.notebook
def test_page_marks_and_run_warns_about_values_never_glued(tmp_path, capsys):
    nb = tmp_path / "gap.md"
    nb.write_text(PAGE_NB.replace("the word is {glue:text}`word`", "the word is {glue:text}`never_glued`"))
    assert main(["run", str(nb), "--output", str(tmp_path / "out")]) == 0
    assert "did not glue (never_glued)" in capsys.readouterr().err
    assert "[never_glued: not glued]" in (tmp_path / "out" / "gap.html").read_text()


def test_proxy_corrections_equal_the_false_negatives_chapters_table1():
    """Evidence: corrected_by_proxy + evaluate_similarity give the chapter's Table 1 (its own cell code, with the
    query's own caption left out of the agreement, which cannot change a pair that is already positive)."""
    from fireeval.datasets import msrvtt
    from fireeval.t2v import false_negatives as fire, retrieval

    require_data(msrvtt.QUERIES, msrvtt.CAPTIONS["test"], msrvtt.MODELS["clip4clip"], msrvtt.MODELS["InternVideo2"])
    queries = msrvtt.load_queries()["sentence"].tolist()
    captions = msrvtt.load_video_captions_1ka()
    runs = {m: msrvtt.load_similarity(m) for m in ("clip4clip", "InternVideo2")}
    original = np.eye(len(queries), dtype=bool)
    corrected, _ = retrieval.corrected_by_proxy(runs, original, queries, captions, proxy="bow", threshold=0.4)
    got = retrieval.evaluate_similarity(runs, original, corrected=corrected)["corrected"]
    lists = {m: fire.ranked_lists(s, depth=100) for m, s in runs.items()}  # the chapter's cells
    agreement = fire.caption_agreement(queries, captions, proxy="bow", aggregate="max", own_video=np.arange(1000))
    judged = fire.judge_pool(lists, 1000, fire.proxy_verdicts(agreement, 0.4), depth=10)
    chapter = fire.table1(lists, original, original | judged.relevant, ap_depth=20).to_dict("records")
    assert len(got) == len(chapter) == 8
    assert max(abs(a[c] - b[c]) for a, b in zip(got, chapter) for c in ("original", "corrected", "delta")) == 0
