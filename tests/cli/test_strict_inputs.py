"""Issue 37: no silent guess left -- captions in MSR-VTT's layout, .npy trailing bytes, non-real scores in the
API and in compare, duplicate topic labels, resample caps, and a Fix: on every argument error of the public API."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fireeval
from fireeval.cli import main
from tests.conftest import require_data

ROOT = Path(__file__).resolve().parents[2]


def _ids(tmp_path, n_q, n_v, texts=None):
    q, v = tmp_path / "q.txt", tmp_path / "v.txt"
    q.write_text("".join(f"v{i}" + (f"\t{texts[i]}" if texts else "") + "\n" for i in range(n_q)))
    v.write_text("".join(f"v{j}\n" for j in range(n_v)))
    return q, v


# ---------------------------------------------------------------- captions
def _proxy_run(tmp_path, captions):
    sim = np.array([[0.9, 0.8, 0.1], [0.2, 0.3, 0.9], [0.1, 0.2, 0.3]])
    np.save(tmp_path / "m.npy", sim)
    q, v = _ids(tmp_path, 3, 3, texts=["a dog runs", "a cat sleeps", "a car drives"])
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps(captions))
    code = main(["evaluate-similarity", str(tmp_path / "m.npy"), "--queries", str(q), "--videos", str(v), "--proxy",
                 "bow", "--captions", str(caps), "--threshold", "0.5", "--pool-depth", "1", "-k", "1", "--json"])
    return code, caps


def test_captions_keyed_by_sentence_id_are_read_as_captions(tmp_path, capsys):
    """MSR-VTT's {video_id: {sen_id: caption}}: the captions are the values, so the corrected C@1 rises as with
    the list layout (query 1's top video v2 has the query as a caption); the sentence ids were read before."""
    listed = {"v0": ["a dog runs fast"], "v1": ["a dog runs home"], "v2": ["a cat sleeps"]}
    keyed = {v: {str(190000 + i): c for i, c in enumerate(caps)} for v, caps in listed.items()}
    results = []
    for captions in (listed, keyed):
        code, _ = _proxy_run(tmp_path, captions)
        assert code == 0
        results.append(json.loads(capsys.readouterr().out)["corrected"])
    c1 = {r["metric"]: r for r in results[1]}["C@1"]
    assert results[0] == results[1] and c1["original"] == pytest.approx(2 / 3) and c1["corrected"] == pytest.approx(1)


@pytest.mark.parametrize("bad, shown", [({"1": 5}, "dict"), (7, "int"), ([], "list"), ({}, "dict"), ([""], "list")])
def test_captions_of_another_shape_are_refused_in_one_line(tmp_path, capsys, bad, shown):
    captions = {"v0": ["a dog runs fast"], "v1": bad, "v2": ["a cat sleeps"]}
    code, caps = _proxy_run(tmp_path, captions)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and f"{caps}: video 'v1' has no list of caption strings ({shown}" in err
    assert "Fix:" in err


def test_the_shipped_msrvtt_captions_are_read_as_captions():
    require_data("msrvtt/sgn_msrvtt_official_test_captions.json")
    from fireeval.datasets import data_path
    from fireeval.datasets.similarity_inputs import read_captions

    path = data_path("msrvtt/sgn_msrvtt_official_test_captions.json")
    doc = json.loads(path.read_text())
    videos = list(doc)[:5]
    got = read_captions(path, videos)
    assert got == [list(doc[v].values()) for v in videos]
    assert all(len(c) == 20 and not any(text.isdigit() for text in c) for c in got)


# ---------------------------------------------------------------- .npy
@pytest.mark.parametrize("extra", [b"\x00", b"junk after the data", np.zeros(3).tobytes()])
def test_npy_with_bytes_after_its_data_is_refused(tmp_path, capsys, extra):
    q, v = _ids(tmp_path, 2, 3)
    path = tmp_path / "m.npy"
    np.save(path, np.eye(2, 3))
    assert main(["evaluate-similarity", str(path), "--queries", str(q), "--videos", str(v)]) == 0
    capsys.readouterr()
    with open(path, "ab") as fh:
        fh.write(extra)
    assert main(["evaluate-similarity", str(path), "--queries", str(q), "--videos", str(v)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{path}: {len(extra)} bytes after the array's data" in err and "Fix:" in err and "\n" not in err


# ---------------------------------------------------------------- the API
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 1}}


@pytest.mark.parametrize("column, name", [
    ([0.5 + 1j, 0.2, 0.1], "complex number"),
    (pd.to_datetime(["2020-01-01", "2020-01-03", "2020-01-02"]), "date"),
    (pd.to_timedelta([1, 2, 3], unit="s"), "duration"),
    (pd.Series(["0.5", "0.2", "0.1"], dtype=object), "text"),
    ([True, False, True], "boolean"),
])
def test_a_dataframe_with_non_real_scores_is_refused(column, name):
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["d1", "d2", "d3"], "score": column})
    with pytest.raises(ValueError, match=f"run 'run': the score column: .* is (a )?{name}.*Fix:"):
        fireeval.evaluate(QRELS, run, "map")


def test_a_dataframe_with_real_scores_is_still_scored():
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["d1", "d2", "d3"],
                        "score": pd.Series([0.5, 0.2, 0.9], dtype=object)})
    plain = {"q1": {"d1": 0.5, "d2": 0.2, "d3": 0.9}}
    assert fireeval.evaluate(QRELS, run, "map", output="dict") == fireeval.evaluate(QRELS, plain, "map",
                                                                                      output="dict")


def test_qrels_grades_given_as_text_are_refused():
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                          "relevance": pd.Series(["1", 0], dtype=object)})
    with pytest.raises(ValueError, match="qrels: relevance '1' is not a number. Fix:"):
        fireeval.evaluate(qrels, {"q1": {"d1": 1.0}}, "map")


# ---------------------------------------------------------------- compare
@pytest.mark.parametrize("scores, fragment", [
    (np.array([[0.1 + 1j, 0.2, 0.3], [0.3, 0.2, 0.1]]), "is a complex number"),
    ({"a": [0.1, 0.2, 0.3], "b": [0.3, "0.2", 0.1]}, "scores of 'b': '0.2' is text"),
    ({"a": [0.1, 0.2, 0.3], "b": [0.3, True, 0.1]}, "scores of 'b': True is a boolean"),
    (pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], columns=["t1", "t2"]).astype(complex), "is a complex number"),
    (pd.DataFrame({"t1": pd.to_datetime(["2020-01-01", "2020-01-02"]), "t2": [0.1, 0.2]}), "is a date"),
    ({"a": [0.1, 0.2, 0.3], "b": [0.3, 0.2]}, "the systems have [2, 3] topics each"),
    (pd.DataFrame([[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]], columns=["t1", "t1", "t2"]), "topic labels repeat: ['t1']"),
])
def test_compare_refuses_scores_that_are_not_one_real_number_per_topic(scores, fragment):
    with pytest.raises(ValueError) as err:
        fireeval.compare(scores, n_bootstrap=0)
    assert fragment in str(err.value) and "Fix:" in str(err.value)


def test_compare_refuses_topic_labels_equal_as_text():
    with pytest.raises(ValueError, match=r"topic labels repeat: \['1'\].*Fix:"):
        fireeval.compare(np.random.default_rng(0).random((2, 3)), topics=[1, "1", 2])


@pytest.mark.parametrize("kwargs, fragment", [
    ({"n_permutations": 10**9}, "n_permutations=1000000000 is more than 1000000"),
    ({"n_bootstrap": 10**9}, "n_bootstrap=1000000000 is more than 1000000"),
    ({"n_permutations": 0}, "n_permutations must be >= 1"),
    ({"n_bootstrap": -1}, "n_bootstrap must be >= 0"),
    ({"alpha": 1.5}, "alpha must be a number in (0, 1)"),
    ({"power": 0}, "power must be a number in (0, 1)"),
    ({"confidence": "high"}, "confidence must be a number in (0, 1)"),
    ({"adjust": "bonferroni"}, "adjust must be one of"),
])
def test_compare_refuses_bad_arguments_before_any_work(kwargs, fragment):
    import tracemalloc

    scores = np.random.default_rng(0).random((2, 40))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as err:
            fireeval.compare(scores, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fragment in str(err.value) and "Fix:" in str(err.value)
    assert peak < 50_000_000  # refused before the (10**9 x 40) table of sign flips is allocated


@pytest.mark.parametrize("value", [2.5, True, "100"])
def test_resample_counts_must_be_whole_numbers(value):
    with pytest.raises(TypeError, match="n_permutations=.* is not a whole number. Fix:"):
        fireeval.compare(np.random.default_rng(0).random((2, 5)), n_permutations=value)


def test_resample_tables_are_capped_by_topics():
    """Allowed counts that would still need more than 256 MiB with this many topics are refused up front."""
    scores = np.random.default_rng(0).random((2, 5000))
    with pytest.raises(ValueError, match="n_permutations=1000000 with 5000 topics needs a table .* Fix: give at most "
                                         "53687"):
        fireeval.compare(scores, n_permutations=1_000_000, n_bootstrap=0)
    with pytest.raises(ValueError, match="n_bootstrap=10000 with 5000 topics .* Fix: give at most 6710"):
        fireeval.compare(scores, n_permutations=1000, n_bootstrap=10_000)


# ---------------------------------------------------------------- Fix: on every argument error
#: Modules behind the public API (``fireeval.evaluate``, ``fireeval.compare`` and the functions they read the
#: reader's inputs with): every ValueError/TypeError they raise says how to fix it.
PUBLIC = ["fireeval/stats/significance.py", "fireeval/core/api.py", "fireeval/core/runset.py",
          "fireeval/core/moments.py", "fireeval/t2v/retrieval.py", "fireeval/datasets/similarity_inputs.py",
          "fireeval/datasets/moment_formats.py", "fireeval/book/headline_diff.py", "fireeval/cli/compare.py",
          "fireeval/cli/diff.py", "fireeval/stats/reliability.py", "fireeval/stats/resampling.py",
          "fireeval/t2v/semantic_evaluation.py", "fireeval/core/ranking.py"]


#: Raises that pass on the message of an error caught just before, which carries its Fix (checked at run time in
#: test_passed_on_errors_carry_one_fix).
PASSED_ON = {"fireeval/core/api.py": ["str(err).replace", 'f"measure {name!r}: {message}"'],
             "fireeval/datasets/moment_formats.py": ["' '.join(str(err).split())"]}


def _fix_variables(func) -> set:
    """Names assigned, in ``func``, a string that holds a Fix (``fix = "Fix: ..."``)."""
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and "Fix" in ast.unparse(node.value):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


@pytest.mark.parametrize("module", PUBLIC)
def test_every_argument_error_of_the_public_api_says_how_to_fix_it(module):
    text = (ROOT / module).read_text()
    tree = ast.parse(text)
    constants = _fix_variables(ast.Module(body=[n for n in tree.body if isinstance(n, ast.Assign)], type_ignores=[]))
    missing = []
    for func in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        fixes = _fix_variables(func) | constants
        for node in ast.walk(func):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            name = getattr(node.exc.func, "id", getattr(node.exc.func, "attr", ""))
            segment = ast.get_source_segment(text, node)
            used = {n.id for n in ast.walk(node.exc.args[0]) if isinstance(n, ast.Name)}
            if name in ("ValueError", "TypeError") and "Fix" not in segment and not used & fixes \
                    and not any(p in segment for p in PASSED_ON.get(module, ())):
                missing.append(f"{module}:{node.lineno}: {segment.splitlines()[0].strip()}")
    assert not missing, missing


def test_passed_on_errors_carry_one_fix(tmp_path):
    from fireeval.core.moments import measure_function
    from fireeval.datasets.moment_formats import read_predictions

    messages = []
    for call in (lambda: fireeval.evaluate(QRELS, {"q1": {"d1": 1.0}}, "map", trec_eval_version="11"),
                 lambda: fireeval.evaluate(QRELS, {"q1": {"d1": 1.0}}, "ndcg_cut.x"),
                 lambda: fireeval.evaluate(QRELS, {"q1": {"d1": 1.0}}, "nonsense"),
                 lambda: measure_function("R@1,2"), lambda: measure_function("R@0")):
        with pytest.raises(ValueError) as err:
            call()
        messages.append(str(err.value))
    (tmp_path / "p.json").write_text("{")
    with pytest.raises(ValueError) as err:
        read_predictions(tmp_path / "p.json", GT_ROWS, "charades")
    messages.append(str(err.value))
    assert all(m.count("Fix:") == 1 for m in messages), messages


# ---------------------------------------------------------------- moment files
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

GT_TEXT = "A 0 10##q one.\nB 0 4##q two.\n"
GT_ROWS = [("A", "q one.", 0.0, 10.0), ("B", "q two.", 0.0, 4.0)]

#: Values a time must not be, with a word of the message that refuses them.
BAD_TIMES = [(False, "boolean"), (True, "boolean"), ("0", "text"), ("4", "text"), ("1_0", "text"), (-1.5, "negative"),
             (None, "not"), ([1], "not"), ({"s": 1}, "not")]


def _read(tmp_path_factory, name, text):
    from fireeval.datasets.moment_formats import read_predictions

    path = tmp_path_factory.mktemp("m") / name
    path.write_text(text)
    return path, (lambda: read_predictions(path, GT_ROWS, "charades"))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.floats(0, 3), min_size=2, max_size=2), min_size=1, max_size=4),
       st.sampled_from(BAD_TIMES), st.data())
def test_a_bad_time_in_the_books_json_is_refused_naming_file_and_entry(tmp_path_factory, moments, bad, data):
    moments = [sorted(m) for m in moments]
    row = data.draw(st.integers(0, len(moments) - 1))
    col = data.draw(st.integers(0, 1))
    moments[row][col] = bad[0]
    if bad[0] == -1.5:
        moments[row][0] = -1.5
    entries = [{"vid": "A", "query": "q one.", "moments": [[0, 5]]}, {"vid": "B", "query": "q two.", "moments": moments}]
    path, read = _read(tmp_path_factory, "p.json", json.dumps({"entries": entries}))
    with pytest.raises(ValueError) as err:
        read()
    message = str(err.value)
    assert message.startswith(f"{path}: entry 2 (B, 'q two.')") and "Fix:" in message and "\n" not in message
    assert bad[1] in message, message


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.floats(0.5, 3), min_size=2, max_size=5, unique=True))
def test_a_varying_third_number_is_refused_a_constant_one_is_the_video_length(tmp_path_factory, thirds):
    moments = [[0, 1, t] for t in thirds]
    entries = [{"vid": "B", "query": "q two.", "moments": moments}]
    _, read = _read(tmp_path_factory, "p.json", json.dumps({"entries": entries}))
    with pytest.raises(ValueError, match=r"entry 1 \(B, 'q two.'\): moment 2 has the third number .*video's length.*"
                                         "Fix: give each moment as \\[start, end\\]"):
        read()
    same = [{"vid": "B", "query": "q two.", "moments": [[0, 1, thirds[0]] for _ in thirds]}]
    _, read = _read(tmp_path_factory, "q.json", json.dumps({"entries": same}))
    assert read()[1, 0].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("name, text, fragment", [
    ("p.csv", "vid,query,start,end\nA,q one.,1_0,12\n", ":2: start '1_0' is not a plain decimal number"),
    ("p.csv", "vid,query,start,end\nA,q one.,-2,3\n", "a negative time"),
    ("p.csv", "vid,query,start,end,score\nA,q one.,1,2,nan\n", ":2: score 'nan' is not a plain decimal number"),
    ("p.txt", "A 1_0 12##q one.\n", ":1: start '1_0' is not a plain decimal number"),
    ("p.txt", "A 0x1 12##q one.\n", ":1: start '0x1' is not a plain decimal number"),
    ("p.jsonl", json.dumps({"vid": "A", "query": "q one.", "pred_relevant_windows": [[False, True, 0.9]]}) + "\n",
     ":1: pred_relevant_windows: False is a boolean"),
    ("p.jsonl", json.dumps({"vid": "A", "query": "q one.", "pred_relevant_windows": [["0", "4", 0.9]]}) + "\n",
     ":1: pred_relevant_windows: '0' is text"),
    ("p.jsonl", json.dumps({"vid": "A", "query": "q one.", "pred_relevant_windows": [[0, 4, 0.9, 1]]}) + "\n",
     ":1: pred_relevant_windows are not [[start, end, score], ...] (shape (1, 4))"),
    ("p.json", json.dumps({"entries": [{"vid": "A", "query": "q one.", "moments": [[0, 4]], "ratings": ["1"]}]}),
     ": entry 1 (A, 'q one.'): a rating: '1' is text"),
    ("p.json", json.dumps({"entries": [{"vid": "A", "query": "q one.", "moments": [[0, 4, 10, 1]]}]}),
     ": entry 1 (A, 'q one.'): moment 1 has 4 numbers"),
])
def test_moment_files_with_bad_numbers_are_refused_in_one_line(tmp_path, capsys, name, text, fragment):
    gt = tmp_path / "gt.txt"
    gt.write_text(GT_TEXT)
    pred = tmp_path / name
    pred.write_text(text)
    assert main(["evaluate-moments", str(gt), str(pred)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"fireeval evaluate-moments: {pred}") and fragment in err and "Fix:" in err, err
    assert "\n" not in err


@pytest.mark.parametrize("line, fragment", [("A 1_0 12##q one.", "start '1_0' is not a plain decimal number"),
                                            ("A -1 2##q one.", "a negative time"),
                                            ("A 1 inf##q one.", "end 'inf' is not a plain decimal number")])
def test_ground_truth_with_bad_times_is_refused(tmp_path, line, fragment):
    from fireeval.datasets.charades import read_sta_rows

    gt = tmp_path / "gt.txt"
    gt.write_text(f"B 0 4##q two.\n{line}\n")
    with pytest.raises(ValueError, match=f"{gt}:2: .*{fragment}.*Fix:"):
        read_sta_rows(gt)


# ---------------------------------------------------------------- fireeval diff
def _claim(cid, value=0.5, verdict="reproduced"):
    return {"id": cid, "verdict": verdict, "label": verdict, "conventions": {"": {"value": value, "low": None,
                                                                                 "high": None}}}


def _diff(tmp_path, capsys, a, b, *extra):
    pa, pb = tmp_path / "a.headline.json", tmp_path / "b.headline.json"
    for path, doc in ((pa, a), (pb, b)):
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    code = main(["diff", str(pa), str(pb), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err.strip(), pa


@pytest.mark.parametrize("a, fragment", [
    ('{"n": 1, "n": 2}', ":1: the object that starts on this line has the key 'n' twice"),
    ('{"claims": [\n {"id": "c", "verdict": "x",\n  "conventions": {"": {"value": 1, "value": 2}}}]}',
     ":3: the object that starts on this line has the key 'value' twice"),
    ({"claims": [_claim("c"), _claim("d"), _claim("c", 0.7)]}, "claim 3: id 'c' is also claim 1"),
    ({"claims": "x"}, "'claims' is str \"x\", not a list"),
    ({"claims": {}}, "'claims' is dict {}, not a list"),
    ({"claims": None}, "'claims' is NoneType null, not a list"),
    ({"claims": [{"verdict": "reproduced"}]}, "claim 1 has no id"),
    ({"claims": [{"id": ["a", "b"], "verdict": "reproduced"}]}, "claim 1 has the id [\"a\", \"b\"], not a text"),
    ({"claims": [{"id": 3}]}, "claim 1 has the id 3, not a text"),
    ({"claims": ["c"]}, "claim 1 is str, not an object"),
    ({"claims": [{"id": "c", "conventions": "value"}]}, "claim 1 (c): 'conventions' is str"),
    ({"claims": [{"id": "c", "conventions": [1, 2]}]}, "claim 1 (c): 'conventions' is list"),
    ({"claims": [{"id": "c", "conventions": {"": 0.5}}]}, "claim 1 (c): convention '' is float"),
])
def test_diff_refuses_malformed_headlines_in_one_line(tmp_path, capsys, a, fragment):
    code, out, err, pa = _diff(tmp_path, capsys, a, {"claims": [_claim("c")]})
    assert code == 2 and out == "" and "\n" not in err, (out, err)
    assert err.startswith(f"fireeval diff: {pa}") and fragment in err and "Fix:" in err, err


def test_diff_ignores_floating_point_noise_and_says_so(tmp_path, capsys):
    a = {"x": 0.1 + 0.2, "y": 1.0, "z": [0.1 + 0.2, 2], "nan": float("nan"), "flag": True, "claims": [_claim("c", 0.3)]}
    b = {"x": 0.3, "y": 1, "z": [0.3, 2], "nan": float("nan"), "flag": 1, "claims": [_claim("c", 0.1 + 0.2)]}
    code, out, _, _ = _diff(tmp_path, capsys, a, b)
    assert code == 0 and "x:" not in out and "y:" not in out and "z:" not in out and "nan:" not in out
    assert "flag: true -> 1" in out  # a boolean is never a number
    assert "(numbers compared within rtol 1e-09, atol 1e-12; 4 values differ by less" in out
    code, out, _, _ = _diff(tmp_path, capsys, a, b, "--rtol", "0", "--atol", "0")
    assert "x: 0.30000000000000004 -> 0.3" in out and "z:" in out and "c: reproduced (unchanged label)" in out
    assert "      value: 0.3 -> 0.30000000000000004" in out


def test_diff_shows_small_real_changes_in_full_precision(tmp_path, capsys):
    code, out, _, _ = _diff(tmp_path, capsys, {"x": 1.0}, {"x": 1.0000001})
    assert code == 0 and "x: 1.0 -> 1.0000001" in out


def test_diff_lists_a_changed_label_inside_a_claims_sensitivity_rows(tmp_path, capsys):
    # Issue 38: a condition of a sensitivity row went inconclusive -> contradicted while the claim's own label
    # stayed; the diff said "no change".
    def claim(label, high, method):
        return dict(_claim("c"), sensitivity=[{"reading": "primary", "label": "reproduced"},
                                              {"reading": "group left out", "label": "inconclusive",
                                               "conditions": [{"name": "AxIoU@1 vs @5", "label": label,
                                                               "high": high}]}], method=method)

    a = {"claims": [claim("inconclusive", 0.828, "BCa bootstrap (z0 = 0.77)")]}
    b = {"claims": [claim("contradicted", 0.788, "BCa bootstrap (z0 = 0.00)")]}
    code, out, _, _ = _diff(tmp_path, capsys, a, b, "--rtol", "0", "--atol", "0")
    assert code == 0 and "c: reproduced (unchanged label)" in out, out
    assert "      sensitivity.1.conditions.0.label: inconclusive -> contradicted" in out
    assert "      sensitivity.1.conditions.0.high: 0.828 -> 0.788" in out
    assert "      method: BCa bootstrap (z0 = 0.77) -> BCa bootstrap (z0 = 0.00)" in out
    code, out, _, _ = _diff(tmp_path, capsys, a, a)
    assert out.startswith("no change"), out


def _notebook(headline):
    """An executed chapter as fireeval run / papermill writes it: the headline glued with scrapbook's mimetype."""
    from fireeval.book.report import HEADLINE_MIME

    output = {"output_type": "display_data", "metadata": {"scrapbook": {"name": "headline",
                                                                        "mime_prefix": "application/papermill.record/"}},
              "data": {f"application/papermill.record/{HEADLINE_MIME}": headline,
                       "application/papermill.record/text/plain": json.dumps(headline)}}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [], "execution_count": 1},
                      {"cell_type": "code", "source": "report.headline(...)", "metadata": {}, "outputs": [output],
                       "execution_count": 2}]}


def test_diff_reads_the_headline_of_an_executed_notebook(tmp_path, capsys):
    a = {"n": 1, "claims": [_claim("c")]}
    b = {"n": 2, "claims": [_claim("c", 0.9)]}
    (tmp_path / "a.ipynb").write_text(json.dumps(_notebook(a)))
    (tmp_path / "b.headline.json").write_text(json.dumps(b))
    assert main(["diff", str(tmp_path / "a.ipynb"), str(tmp_path / "b.headline.json"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["keys"] == [{"key": "n", "a": 1, "b": 2}] and d["claims"][0]["values"]["value"][0][0] == 0.5
    assert d["only_a"] == [] and d["only_b"] == []
    empty = _notebook(a)
    empty["cells"].pop()
    (tmp_path / "failed.ipynb").write_text(json.dumps(empty))
    assert main(["diff", str(tmp_path / "failed.ipynb"), str(tmp_path / "b.headline.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "failed.ipynb: a notebook without a glued headline" in err and "Fix:" in err and "\n" not in err


_scalars = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False, width=64),
                     st.text(max_size=5), st.booleans(), st.none())
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(st.text("abcxyz", min_size=1, max_size=3),
                                                                          inner, max_size=3)), max_leaves=8)
_claims = st.lists(st.fixed_dictionaries({"id": st.text("abcdef", min_size=1, max_size=3),
                                          "verdict": st.sampled_from(["reproduced", "not reproduced", "depends"]),
                                          "conventions": st.dictionaries(
                                              st.sampled_from(["", "paper", "ours"]),
                                              st.fixed_dictionaries({"value": st.floats(0, 1), "low": st.none(),
                                                                     "high": st.none()}), max_size=2)}),
                   max_size=4, unique_by=lambda c: c["id"])
_headlines = st.fixed_dictionaries({"claims": _claims},
                                   optional={"n": _values, "toy": _values, "run_elapsed_seconds": st.floats(0, 10)})


@settings(max_examples=80)
@given(_headlines, _headlines)
def test_generated_headlines_diff_like_an_independent_comparison(a, b):
    from fireeval.book.headline_diff import diff_headlines, format_diff

    d = diff_headlines(a, b, rtol=0, atol=0)
    same = diff_headlines(a, a)
    assert same["claims"] == [] and same["keys"] == [] and same["only_a"] == [] and same["within_tolerance"] == 0
    ids_a, ids_b = [c["id"] for c in a["claims"]], [c["id"] for c in b["claims"]]
    assert d["only_a"] == [c for c in ids_a if c not in ids_b] and d["only_b"] == [c for c in ids_b if c not in ids_a]
    by_b = {c["id"]: c for c in b["claims"]}
    changed = [c["id"] for c in a["claims"] if c["id"] in by_b and (c["verdict"] != by_b[c["id"]]["verdict"] or json.dumps(
        c["conventions"], sort_keys=True) != json.dumps(by_b[c["id"]]["conventions"], sort_keys=True))]
    assert [r["id"] for r in d["claims"]] == changed
    assert isinstance(format_diff(d), str)


@settings(max_examples=40)
@given(_headlines, st.sampled_from(["dup_key", "dup_claim", "no_id", "list_id", "claims_type", "conv_type"]))
def test_generated_malformed_headlines_are_refused(tmp_path_factory, headline, defect):
    from fireeval.book.headline_diff import load_headline

    claims = headline["claims"] or [{"id": "x", "verdict": "reproduced", "conventions": {}}]
    headline = dict(headline, claims=claims)
    text = None
    if defect == "dup_key":
        text = json.dumps(headline)[:-1] + ', "claims": []}'
    elif defect == "dup_claim":
        headline["claims"] = claims + [dict(claims[0])]
    elif defect == "no_id":
        headline["claims"] = [{k: v for k, v in claims[0].items() if k != "id"}] + claims[1:]
    elif defect == "list_id":
        headline["claims"] = [dict(claims[0], id=[claims[0]["id"]])] + claims[1:]
    elif defect == "claims_type":
        headline["claims"] = "claims"
    else:
        headline["claims"] = [dict(claims[0], conventions=["value"])] + claims[1:]
    path = tmp_path_factory.mktemp("h") / "h.headline.json"
    path.write_text(text if text is not None else json.dumps(headline))
    with pytest.raises(ValueError) as err:
        load_headline(path)
    assert str(err.value).startswith(str(path)) and "Fix:" in str(err.value) and "\n" not in str(err.value)


# ---------------------------------------------------------------- the wheel and pytrec_eval
def test_the_install_steps_say_how_to_get_the_metrics_chapters_oracle():
    """A wheel installed in a classroom has no pytrec_eval: the install steps (README, the downloaded notebook's
    first cell) name the extra that brings it, and the extra pins what the tests use."""
    import tomllib

    import jupytext

    from fireeval.book.notebooks import install_note

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pin = [d for d in extras["test"] if d.startswith("pytrec_eval")]
    assert extras["oracle"] == pin and len(pin) == 1
    metrics = install_note(jupytext.read(ROOT / "notebooks" / "metrics.md"), "metrics")
    assert "py3-none-any.whl[book,oracle]'" in metrics and "not testable here" in metrics
    assert "[oracle]" not in install_note(jupytext.read(ROOT / "notebooks" / "pool_depth.md"), "pool_depth")
    assert "whl[book,oracle]" in (ROOT / "README.md").read_text()
