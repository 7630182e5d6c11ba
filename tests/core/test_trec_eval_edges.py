"""trec_eval's edge paths (issue 37): each computed as trec_eval computes it, or refused in one line.

Oracles: trec_eval's own output -- the shared data's ``-q -m all_trec`` output of both versions
(generated ``--strict -m`` combinations must print exactly its lines for the measures trec_eval
would compute) and ``tests/data/trec_eval/out.test.meas_params-302`` (trec_eval's own Makefile
test of measure parameters); elsewhere the rule read from trec_eval's source, said in each test.
"""
import gzip
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fireeval import cli, evaluate
from fireeval.core import trec
from fireeval.core.measures import parse, parse_strict, score
from fireeval.datasets import data_root

DATA = __import__("pathlib").Path(__file__).parents[1] / "data" / "trec_eval"
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 e 1\n2 0 f 0\n3 0 g 1\n4 0 h 0\n"
RUN = "1 Q0 a 1 5 t\n1 Q0 x 2 4 t\n1 Q0 b 3 3 t\n1 Q0 c 5 1 t\n2 Q0 e 1 1 t\n2 Q0 y 2 0.5 t\n4 Q0 h 1 1 t\n"


def _evaluate(capsys, *argv):
    status = cli.main(["evaluate", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def _files(tmp_path, qrels=QRELS, run=RUN):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    return tmp_path / "q", tmp_path / "r"


def _lines(out):
    return [tuple(part.strip() for part in line.split("\t")) for line in out.splitlines()]


# ---------------------------------------------------------------- printing
def test_nan_prints_as_printf_percent_6_4f(tmp_path, capsys):
    # -M 0: nothing retrieved, so iprec_at_recall_0.00 starts from 0/0 (C's -nan), printed "%6.4f": "  -nan"
    q, r = _files(tmp_path)
    status, out, _ = _evaluate(capsys, q, r, "-q", "-M", "0", "-m", "iprec_at_recall.0", "-m", "num_ret")
    assert status == 0
    assert "iprec_at_recall_0.00  \t1\t  -nan\n" in out and "iprec_at_recall_0.00  \tall\t  -nan\n" in out
    assert "num_ret               \t1\t0\n" in out


def test_rndcg_at_level_0_with_no_positive_gain_is_nan_as_trec_eval(tmp_path, capsys):
    # m_Rndcg.c: R > 0 (-l 0 counts grade 0) but no ideal gain above 0: sum / num_changed_ideal_gain = 0 / 0
    q, r = _files(tmp_path)
    got = {(m, t): v for m, t, v in _lines(_evaluate(capsys, q, r, "-q", "-l", "0", "-m", "Rndcg")[1])}
    assert got["Rndcg", "4"] == "-nan" and got["Rndcg", "all"] == "-nan"  # topic 4: one document, grade 0
    assert got["Rndcg", "1"] != "-nan"
    assert _lines(_evaluate(capsys, q, r, "-l", "1", "-m", "Rndcg")[1])[0][2] != "-nan"  # R = 0 there: 0


# ---------------------------------------------------------------- -m as trec_eval reads it (--strict)
@pytest.mark.parametrize("args, names", [
    (["P.1,2,3", "P.5"], ["P_1", "P_2", "P_3"]),               # the first parameters win
    (["P.5", "map", "P"], ["map", "P_5"]),
    (["ndcg_cut.10,20,23.4"], ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]),  # atol
    (["map.5"], ["map"]),                                      # a parameter for a measure without one: ignored
    (["11pt_avg..25,.5,.75", "ndcg.1=3,2=9,4=4.5", "utility.2,-1,0,0"],
     ["utility_2,-1,0,0", "11pt_avg_.25,.5,.75", "ndcg_1=3,2=9,4=4.5"]),
])
def test_strict_reads_m_as_trec_eval(args, names):
    assert [m.name for m in parse_strict(args)] == names


def test_strict_official_then_parameters_and_no_m():
    official = [m.name for m in parse_strict([])]
    assert official == [m.name for m in parse_strict(["official"])] and official[0] == "runid"
    with_p7 = [m.name for m in parse_strict(["official", "P.7"])]
    assert [n for n in with_p7 if n.startswith("P_")] == ["P_7"]  # trec_eval: P's only parameters are 7


@pytest.mark.parametrize("args, words", [(["P.5,5,10"], "given twice"), (["P.0"], "cut-off of 0"),
                                         (["P_10"], "trec_eval's name: P"), (["P@10"], "no measure"),
                                         (["map."], "no parameter"), (["MAP"], "case and all")])
def test_strict_refuses_what_trec_eval_refuses_in_one_line(args, words):
    with pytest.raises(ValueError) as error:
        parse_strict(args)
    assert words in str(error.value) and "Fix:" in str(error.value) and "\n" not in str(error.value)


def test_default_mode_keeps_every_line_asked_and_strict_does_not(tmp_path, capsys):
    q, r = _files(tmp_path)
    loose = [m for m, _, _ in _lines(_evaluate(capsys, q, r, "-m", "P.1,2", "-m", "P.5")[1])]
    strict = [m for m, _, _ in _lines(_evaluate(capsys, q, r, "--strict", "-m", "P.1,2", "-m", "P.5")[1])]
    assert loose == ["P_1", "P_2", "P_5"] and strict == ["P_1", "P_2"]
    status, _, err = _evaluate(capsys, q, r, "--strict", "-m", "P.5,5,10")
    assert status == 2 and "given twice" in err


def test_no_m_prints_trec_eval_default_official(tmp_path, capsys):
    q, r = _files(tmp_path)
    for extra in ([], ["--strict"]):
        names = [m for m, _, _ in _lines(_evaluate(capsys, q, r, *extra)[1])]
        assert names == [m.name for m in parse("official", printing=True)]


def _folder():
    root = data_root()
    folder = root / "trec8_adhoc" if root is not None else None
    if folder is None or not (folder / "reference" / "trec_eval").is_dir():
        pytest.skip("real data absent: trec8_adhoc/reference/trec_eval (trec_eval's own output) not found")
    return folder


NO_PARAMETER = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                "infAP", "gm_bpref", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "set_P",
                "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "relstring"]
CUTOFFS = {"P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
           "ndcg_cut": (5, 10, 30, 1000), "map_cut": (5, 10, 20, 200), "relative_P": (10, 15, 500),
           "success": (1, 5, 10), "iprec_at_recall": tuple(round(0.1 * i, 1) for i in range(11)),
           "Rprec_mult": (0.2, 0.4, 1.0, 2.0)}
ROOTS = sorted(NO_PARAMETER + list(CUTOFFS) + ["rbp", "rbp_resid", "unj"], key=len, reverse=True)  # (10.0's too)
ARGUMENT = st.one_of(
    st.sampled_from(["official", "set", "all_trec"] + NO_PARAMETER),
    st.sampled_from(sorted(CUTOFFS)).flatmap(lambda root: st.lists(st.sampled_from(CUTOFFS[root]), min_size=1,
                                                                   max_size=4, unique=True).map(
        lambda values: f"{root}." + ",".join(map(str, values)))))


def _root(name):
    """The trec_eval measure of a printed name (``ndcg_cut_10`` -> ndcg_cut)."""
    return next(r for r in ROOTS if name == r or (name.startswith(r + "_") and re.fullmatch(r"[0-9.]+",
                                                                                            name[len(r) + 1:])))


def _expected_names(arguments, reference_names):
    """trec_eval's rule, written out here: every measure named (nicknames: their members) is computed once,
    with the parameters of the first argument that gave it some, else its defaults (all_trec's lines)."""
    nicknames = {"official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                              "bpref", "recip_rank", "iprec_at_recall", "P"],
                 "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                         "set_relative_P", "set_map", "set_F"],
                 "all_trec": sorted({_root(n) for n in reference_names})}
    marked, first = set(), {}
    for argument in arguments:
        name, _, params = argument.partition(".")
        marked.update(nicknames.get(name, [name]))
        if params:
            first.setdefault(name, params)
    names = set()
    for name in reference_names:
        root = _root(name)
        if root not in marked:
            continue
        if root in first:
            wanted = {float(v) for v in first[root].split(",")}
            if float(name[len(root) + 1:]) not in wanted:
                continue
        names.add(name)
    return names


@pytest.mark.realdata
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=st.lists(ARGUMENT, min_size=1, max_size=4), version=st.sampled_from(["9.0.7", "10.0"]))
def test_generated_m_combinations_print_trec_eval_lines(capsys, arguments, version):
    folder = _folder()
    reference = gzip.open(folder / "reference" / "trec_eval" / f"v{version}.apl8n.all_trec.q.txt.gz", "rt").read()
    lines = reference.splitlines()
    wanted = _expected_names(arguments, {line.split("\t")[0].strip() for line in lines})
    expected = "".join(line + "\n" for line in lines if line.split("\t")[0].strip() in wanted)
    argv = [folder / "qrels.trec8.adhoc.txt.gz", folder / "runs" / "input.apl8n.gz", "-q", "--strict",
            "--trec-eval", version]
    status, out, err = _evaluate(capsys, *argv, *[a for argument in arguments for a in ("-m", argument)])
    assert status == 0, err
    assert out == expected


# ---------------------------------------------------------------- forms trec_eval computes
def test_measure_parameters_equal_trec_eval_own_test_output(capsys):
    # trec_eval's Makefile test (out.test.meas_params), topic 302: the same arguments, every line byte for byte
    argv = ["-q", "--strict", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
            "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"]
    status, out, err = _evaluate(capsys, DATA / "qrels-302.test", DATA / "results-302.test", *argv)
    assert status == 0, err
    topic = "".join(line + "\n" for line in out.splitlines() if line.split("\t")[1] == "302")
    assert topic == (DATA / "out.test.meas_params-302").read_text()


def test_yaap_and_gains_by_hand():
    # m_yaap.c: log((1 + S) / (1 + R - S)), S = 1/1 + 2/3
    total = 1 / 1 + 2 / 3
    assert score("yaap", [[1, 0, 1]], n_relevant=[3]).tolist() == [math.log((1 + total) / (1 + 3 - total))]
    # ndcg.1=0,2=1,3=5: gains 0, 1, 5; ideal 5, 1 (grade 1 gains 0: the ideal stops there)
    dcg = 5 / math.log2(3) + 1 / math.log2(4)
    assert score("ndcg.1=0,2=1,3=5", [[1, 3, 2]]).tolist() == pytest.approx([dcg / (5 + 1 / math.log2(3))], abs=0)
    # trec_eval orders gains by (int) (g1 - g2): 0.5 and 0 compare equal and keep their order (grade 1's
    # parameter first), so the ideal walk stops at grade 0's gain 0 (one judged document) before grade 1's 0.5
    assert score("ndcg.1=0.5", [[2, 1, 0]]).tolist() == [(2 + 0.5 / math.log2(3)) / 2]
    assert score("ndcg.1=0.5", [[2, 1]]).tolist() == [1.0]  # no grade-0 document: the walk skips the level


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2]), min_size=1, max_size=12), min_size=1, max_size=4),
       st.sampled_from(["9.0.7", "10.0"]))
def test_eleven_point_levels_given_are_the_default_and_the_mean_of_iprec(lists, version):
    from fireeval.core.measures import Context

    width = max(map(len, lists))
    grades = np.array([row + [np.nan] * (width - len(row)) for row in lists], dtype=float)
    ctx = Context.of_lists(grades, n_relevant=[sum(g >= 1 for g in row) + 1 for row in lists],
                           n_retrieved=[len(row) for row in lists])
    ctx.rounding = "nearest" if version == "10.0" else "trec_eval9"
    (default,) = parse("11pt_avg")
    (given_levels,) = parse("11pt_avg.0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1")
    np.testing.assert_array_equal(given_levels.compute(ctx), default.compute(ctx))
    (three,) = parse("11pt_avg.0.2,0.5,0.8")
    iprec = np.mean([m.compute(ctx) for m in parse("iprec_at_recall.0.2,0.5,0.8")], axis=0)
    np.testing.assert_allclose(three.compute(ctx), iprec, rtol=0, atol=1e-15)


def test_utility_d_and_collection_size(tmp_path, capsys):
    q, r = _files(tmp_path)
    out = _evaluate(capsys, q, r, "-q", "-m", "utility.1,-1,0,0.5", "-N", "100")[1]
    # topic 1: rel_ret 2 (a, c), ret 4, R 2: 2 - 2 + 0.5 (100 + 2 - 4 - 2)
    assert ("utility_1,-1,0,0.5", "1", f"{2 - 2 + 0.5 * 96:.4f}") in _lines(out)


def test_max_retrieved_zero_retrieves_nothing(tmp_path, capsys):
    q, r = _files(tmp_path)
    got = {(m, t): v for m, t, v in _lines(_evaluate(capsys, q, r, "-q", "-M", "0", "-m", "num_ret", "-m", "map",
                                                     "-m", "P.1")[1])}
    assert {v for (m, _), v in got.items() if m == "num_ret"} == {"0"}
    assert {v for (m, _), v in got.items() if m in ("map", "P_1")} == {"0.0000"}
    assert evaluate(str(q), str(r), "num_ret", max_retrieved=0, output="dict") == {"t": {"num_ret": 0.0}}


def test_negative_level_is_refused_naming_why(tmp_path, capsys):
    q, r = _files(tmp_path)
    status, _, err = _evaluate(capsys, q, r, "-l", "-1", "-m", "map")
    assert status == 2 and "missing from the qrels as relevant" in err and "Fix: write e.g. -l 1" in err


# ---------------------------------------------------------------- topics the run lacks
def test_version_10_strict_prints_the_topics_before_the_missing_one_then_exits_4(tmp_path, capsys):
    q, r = _files(tmp_path)  # topic 3 is judged, not in the run
    status, out, err = _evaluate(capsys, q, r, "-q", "-m", "map", "--trec-eval", "10.0", "--strict")
    assert status == 4 and [t for _, t, _ in _lines(out)] == ["1", "2"]
    assert "topic 3" in err and "Fix: add -c" in err and err.count("\n") == 1
    status, out, _ = _evaluate(capsys, q, r, "-q", "-m", "map", "--trec-eval", "10.0")
    assert status == 2 and out == ""


def test_9_warns_that_the_mean_is_over_the_run_topics_and_names_c(tmp_path, capsys):
    q, r = _files(tmp_path)
    status, out, err = _evaluate(capsys, q, r, "-m", "map")
    assert status == 0 and re.fullmatch(r"warning: .*no line for 1 topic\(s\).*\(3\).*Fix: add -c.*\n", err)
    assert _evaluate(capsys, q, r, "-m", "map", "-c")[2] == ""


def test_api_version_10_does_not_skip_a_missing_topic():
    with pytest.raises(ValueError, match=r"no line for topic q2 .*Fix: pass complete=True"):
        evaluate({"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": {"d1": 1.0}}, "map", trec_eval_version="10.0")


@pytest.mark.parametrize("qrels, run, words", [({"q1": {"d1": 1}}, {"q1": {"d1": 10**400}}, "score"),
                                               ({"q1": {"d1": 10**400}}, {"q1": {"d1": 1}}, "relevance")])
def test_api_numbers_beyond_a_double_are_refused_in_one_line(qrels, run, words):
    with pytest.raises(ValueError, match=rf"{words} 1000.* is beyond a double's range\. Fix: "):
        evaluate(qrels, run, "map")


# ---------------------------------------------------------------- run files as trec_eval reads them
@pytest.mark.parametrize("lean", [True, False])
def test_run_tag_is_the_last_line_and_fields_after_the_sixth_are_ignored(tmp_path, monkeypatch, lean):
    if not lean:
        monkeypatch.setattr(trec, "_LEAN_BYTES", 0)  # pyarrow's reader, as for files over 64 MB
    path = tmp_path / "r"
    path.write_text("1 Q0 a 1 2 first extra fields\n1 Q0 b 2 1 middle\n2 Q0 c 1 1 last x\n")
    with pytest.warns(UserWarning, match=r"/r:1: 2 line\(s\) have more than 6 fields \(up to 8\).* Fix: "):
        run = trec.read_run_table(path)
    assert run.tag == "last" and run.docnos() == ["a", "b", "c"] and run.score.tolist() == [2, 1, 1]
    path.write_text("1 Q0 a 1 2 t\n1 Q0 b 2\n")
    with pytest.raises(trec.TrecFormatError, match=r":2: expected 6 columns, found 4"):
        trec.read_run_table(path)


def test_command_says_the_ignored_fields_in_one_line(tmp_path, capsys):
    q, r = _files(tmp_path, run="1 Q0 a 1 5 t more\n1 Q0 b 3 3 t\n")
    status, out, err = _evaluate(capsys, q, r, "-m", "map", "-m", "runid", "-c")
    assert status == 0 and ("runid", "all", "t") in _lines(out)
    assert re.fullmatch(r"warning: \S+/r:1: 1 line\(s\) have more than 6 fields \(up to 7\).*\n", err)


def test_a_long_docno_is_read_and_ordered_as_a_short_one(tmp_path, monkeypatch):
    # the 1 MB docno of issue 37 took 17 s (a mask table of every width, per 8 bytes of the widest field);
    # the blocked path must give what the word-at-a-time path gives
    long = "D" * 5000
    text = "".join(f"1 Q0 {d} 1 {s} t\n" for d, s in [(long + "b", 1), (long + "a", 1), ("x", 2), (long, 0)])
    path = tmp_path / "r"
    path.write_text(text)
    wide = trec.read_run_table(path)
    assert wide.docnos() == ["x", long + "b", long + "a", long]  # ties by docno descending
    monkeypatch.setattr(trec, "_NARROW_WORDS", 10**9)
    narrow = trec.read_run_table(path)
    assert narrow.docnos() == wide.docnos()
    assert (narrow.dictionary_hashes == wide.dictionary_hashes).all()
    monkeypatch.setattr(trec, "_NARROW_WORDS", 1)
    monkeypatch.setattr(trec, "_GATHER_CELLS", 3)
    assert (trec.read_run_table(path).dictionary_hashes == wide.dictionary_hashes).all()
    q = tmp_path / "q"
    q.write_text(f"1 0 {long}a 1\n")
    assert evaluate(str(q), str(path), "map", output="dict") == {"t": {"map": 1 / 3}}
