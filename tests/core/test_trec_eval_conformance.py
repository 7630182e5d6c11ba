"""``fireeval evaluate`` against trec_eval's own output (issue 27): every printed line, both versions.

The oracle is the shared data's ``trec8_adhoc/reference/trec_eval/``: NIST trec_eval 9.0.7 and
10.0 run with ``-q -m all_trec`` on six TREC-8 runs, and with ``-q -m all_trec`` and
``-q -J -l 2 -m all_trec`` on three runs over graded qrels. The comparison is textual, line for
line and in order, so a missing line (runid, relstring), an extra one or a value printed one
digit off fails. The other tests pin trec_eval behaviours read from its source for options
without a stored output (-c, names of parametrised measures, ir_measures names).
"""
import gzip
import re

import pytest

from fireeval import cli
from fireeval.datasets import data_root

RUNS = ["uwmt8a0", "READWARE", "unc8al52", "UB99SW", "ok8amxc", "apl8n"]
GRADED_RUNS = ["READWARE", "apl8n", "uwmt8a0"]
CASES = ([(run, "all_trec", ()) for run in RUNS]
         + [(run, "graded.all_trec", ()) for run in GRADED_RUNS]
         + [(run, "graded.J.l2.all_trec", ("-J", "-l", "2")) for run in GRADED_RUNS])


def _folder():
    root = data_root()
    folder = root / "trec8_adhoc" if root is not None else None
    if folder is None or not (folder / "reference" / "trec_eval" / "qrels.graded.txt.gz").is_file():
        pytest.skip("real data absent: trec8_adhoc/reference/trec_eval (trec_eval's own output) not found")
    return folder


def _evaluate(capsys, *argv):
    status = cli.main(["evaluate", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.realdata
@pytest.mark.parametrize("version", ["9.0.7", "10.0"])
@pytest.mark.parametrize("run, kind, options", CASES, ids=[f"{r}-{k}" for r, k, _ in CASES])
def test_every_line_equals_trec_eval(capsys, version, run, kind, options):
    folder = _folder()
    reference = folder / "reference" / "trec_eval"
    qrels = reference / "qrels.graded.txt.gz" if kind.startswith("graded") else folder / "qrels.trec8.adhoc.txt.gz"
    expected = gzip.open(reference / f"v{version}.{run}.{kind}.q.txt.gz", "rt").read()
    status, out, err = _evaluate(capsys, qrels, folder / "runs" / f"input.{run}.gz", "-q", "-m", "all_trec",
                                 *options, "--trec-eval", version)
    assert status == 0, err
    if out != expected:  # name the first differing line rather than dumping 4,899 of them
        got, want = out.splitlines(), expected.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"line {first + 1}: fireeval {got[first:first + 1]} trec_eval {want[first:first + 1]} "
                    f"({len(got)} vs {len(want)} lines)")


NICKNAMES = {
    "official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"},
    "set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"},
}


@pytest.mark.realdata
@pytest.mark.parametrize("version", ["9.0.7", "10.0"])
@pytest.mark.parametrize("nickname", ["official", "set"])
def test_other_nicknames_print_the_same_lines_as_trec_eval(capsys, version, nickname):
    # trec_eval prints its measures in one fixed order whatever -m says, so `-m official` (or `set`) prints
    # exactly the all_trec lines of those measures
    folder = _folder()
    expected = gzip.open(folder / "reference" / "trec_eval" / f"v{version}.apl8n.all_trec.q.txt.gz", "rt").read()
    family = lambda line: re.sub(r"_[0-9.]+$", "", line.split("\t")[0].strip())
    wanted = "".join(line + "\n" for line in expected.splitlines() if family(line) in NICKNAMES[nickname])
    status, out, err = _evaluate(capsys, folder / "qrels.trec8.adhoc.txt.gz", folder / "runs" / "input.apl8n.gz",
                                 "-q", "-m", nickname, "--trec-eval", version)
    assert status == 0 and out == wanted, err


@pytest.mark.realdata
def test_score_precision_still_overrides_the_version(capsys):
    # uwmt8a0 has scores equal as C floats and different as doubles: the orders (and map) differ
    folder = _folder()
    args = (folder / "qrels.trec8.adhoc.txt.gz", folder / "runs" / "input.uwmt8a0.gz", "-q", "-m", "map")
    tens = _evaluate(capsys, *args, "--trec-eval", "10.0")[1]
    assert _evaluate(capsys, *args, "--trec-eval", "10.0", "--score-precision", "double")[1] == tens
    floats = _evaluate(capsys, *args, "--trec-eval", "10.0", "--score-precision", "float")[1]
    assert floats != tens and floats == _evaluate(capsys, *args, "--trec-eval", "9.0.7")[1]


@pytest.mark.realdata
def test_halfway_values_print_as_trec_eval_rounds_them(capsys):
    # unc8al52 topic 402: bpref is 0.14625 exactly in decimals; trec_eval's double prints 0.1463
    folder = _folder()
    out = _evaluate(capsys, folder / "qrels.trec8.adhoc.txt.gz", folder / "runs" / "input.unc8al52.gz", "-q",
                    "-m", "bpref", "-m", "set_map")[1]
    assert "bpref                 \t402\t0.1463\n" in out
    assert "set_map               \t402\t0.0420\n" in out and "set_map               \t419\t0.0022\n" in out


# ---------------------------------------------------------------- behaviours read from trec_eval's source
def _write(path, text):
    path.write_text(text)
    return path


QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d -1\n2 0 e 1\n2 0 f 1\n3 0 g 1\n"
RUN = "1 Q0 a 1 5 t\n1 Q0 x 2 4 t\n1 Q0 b 3 3 t\n1 Q0 d 4 2 t\n1 Q0 c 5 1 t\n2 Q0 e 1 1 t\n2 Q0 y 2 0.5 t\n"


def _lines(out):
    return [tuple(part.strip() for part in line.split("\t")) for line in out.splitlines()]


def test_set_f_uses_trec_eval_weighting_and_names_each_parameter(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    status, out, _ = _evaluate(capsys, q, r, "-q", "-m", "set_F.0.5", "-m", "set_F.2", "-m", "set_F", "-m", "P.5",
                               "-m", "P_5", "-m", "utility.1,-1,0,0", "-m", "utility.2,-1,0,0")
    assert status == 0
    got = {(m, t): v for m, t, v in _lines(out)}
    # topic 1: 2 relevant retrieved of 5, R = 2 (a, c; -l 1): P = 0.4, R = 1 -> (x + 1) P R / (x P + R)
    assert got["set_F_0.5", "1"] == f"{1.5 * 0.4 * 1 / (0.5 * 0.4 + 1):.4f}"  # 0.5000, not (1+β²) form 0.4545
    assert got["set_F_2", "1"] == f"{3 * 0.4 / (2 * 0.4 + 1):.4f}"
    assert got["set_F", "1"] == f"{2 * 0.4 / (0.4 + 1):.4f}"
    # in trec_eval's order of measures (P, utility, set_F), parameters in the order given, P_5 once
    assert [m for m, t, _ in _lines(out) if t == "all"] == ["P_5", "utility_1,-1,0,0", "utility_2,-1,0,0",
                                                          "set_F_0.5", "set_F_2", "set_F"]
    assert got["utility_1,-1,0,0", "1"] == "-1.0000" and got["utility_2,-1,0,0", "1"] == "1.0000"


def test_ir_measures_names_print_as_asked(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    status, out, _ = _evaluate(capsys, q, r, "-m", "AP", "-m", "P@10", "-m", "nDCG@10", "-m", "RR", "-m", "R-Prec",
                               "-m", "map", "-m", "P_10")
    assert status == 0
    got = dict((m, v) for m, _, v in _lines(out))
    assert list(got) == ["map", "P_10", "AP", "P@10", "nDCG@10", "RR", "R-Prec"]  # trec_eval's names first
    assert got["AP"] == got["map"] and got["P@10"] == got["P_10"]


def test_relstring_and_runid(tmp_path, capsys):
    q = _write(tmp_path / "q", QRELS + "1 0 h 12\n")
    r = _write(tmp_path / "r", RUN.replace("1 Q0 c 5 1 t", "1 Q0 c 5 1 t\n1 Q0 h 6 0 t"))
    status, out, _ = _evaluate(capsys, q, r, "-q", "-m", "relstring", "-m", "runid", "-m", "relstring.3")
    assert status == 0
    assert _lines(out) == [("relstring", "1", "'1-0.2>'"), ("relstring_3", "1", "'1-0'"),
                           ("relstring", "2", "'1-'"), ("relstring_3", "2", "'1-'"), ("runid", "all", "t")]


@pytest.mark.parametrize("version", ["9.0.7", "10.0"])
def test_complete_per_query_lines_follow_the_version(tmp_path, capsys, version):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)  # topic 3 judged, not in the run
    status, out, _ = _evaluate(capsys, q, r, "-q", "-c", "-m", "num_ret", "-m", "num_rel", "-m", "map",
                               "-m", "relstring", "-m", "num_q", "--trec-eval", version)
    assert status == 0
    topic3 = [line for line in _lines(out) if line[1] == "3"]
    if version == "9.0.7":
        assert topic3 == []  # 9.0.7 prints nothing for it
    else:  # 10.0 scores a stand-in ranking of one unjudged document, then prints it
        assert topic3 == [("num_ret", "3", "0"), ("num_rel", "3", "1"), ("map", "3", "0.0000"),
                          ("relstring", "3", "''")]
    summary = {m: v for m, t, v in _lines(out) if t == "all"}
    assert summary["num_q"] == "3" and summary["num_ret"] == "7"


def test_complete_num_rel_counts_every_positive_grade_whatever_the_level(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    for version in ("9.0.7", "10.0"):
        out = _evaluate(capsys, q, r, "-c", "-l", "2", "-m", "num_rel", "--trec-eval", version)[1]
        assert _lines(out) == [("num_rel", "all", "5")]  # a, c, e, f, g: trec_eval -c sums grades > 0
        out = _evaluate(capsys, q, r, "-l", "2", "-m", "num_rel", "--trec-eval", "9.0.7")[1]
        assert _lines(out) == [("num_rel", "all", "1")]  # without -c: the topics' own counts at -l 2


@pytest.mark.realdata
def test_complete_num_rel_on_graded_trec8_qrels(capsys):
    folder = _folder()
    out = _evaluate(capsys, folder / "reference" / "trec_eval" / "qrels.graded.txt.gz",
                    folder / "runs" / "input.READWARE.gz", "-c", "-l", "2", "-m", "num_rel")[1]
    assert _lines(out) == [("num_rel", "all", "4728")]


def test_version_10_stops_on_a_qrels_topic_the_run_lacks(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    status, out, err = _evaluate(capsys, q, r, "-m", "map", "--trec-eval", "10.0")
    assert status == 2 and out == ""
    assert re.fullmatch(rf"fireeval evaluate: {re.escape(str(r))}: the run has no line for topic 3 .*\. Fix: .*\n",
                        err)
    assert _evaluate(capsys, q, r, "-m", "map", "--trec-eval", "10.0", "-c")[0] == 0
    assert _evaluate(capsys, q, r, "-m", "map", "--trec-eval", "9.0.7")[0] == 0


def test_measures_of_10_are_refused_by_9(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    status, _, err = _evaluate(capsys, q, r, "-m", "rbp", "--trec-eval", "9.0.7")
    assert status == 2 and "Fix: add --trec-eval 10.0" in err
    status, out, _ = _evaluate(capsys, q, r, "-c", "-m", "rbp", "-m", "rbp.p=0.5", "-m", "unj.1,2",
                               "--trec-eval", "10.0")
    assert status == 0 and [m for m, _, _ in _lines(out)] == ["rbp", "rbp_p=0.5", "unj_1", "unj_2"]


def test_measures_print_in_trec_eval_order_whatever_the_order_of_m(tmp_path, capsys):
    q, r = _write(tmp_path / "q", QRELS), _write(tmp_path / "r", RUN)
    out = _evaluate(capsys, q, r, "-m", "P.10,5", "-m", "ndcg_cut.5", "-m", "map", "-m", "num_ret", "-m", "correct@1",
                    "-m", "recip_rank")[1]
    assert [m for m, _, _ in _lines(out)] == ["num_ret", "map", "recip_rank", "P_5", "P_10", "ndcg_cut_5",
                                             "correct@1"]


@pytest.mark.parametrize("version", ["9.0.7", "10.0"])
def test_nothing_retrieved_after_judged_only_prints_nan_as_trec_eval(tmp_path, capsys, version):
    # -J drops topic 2's only document (unjudged): trec_eval's interpolated precision starts from
    # num_rel_ret / num_ret = 0/0, which stays the value at recall 0 and spoils 11pt_avg and the mean
    q = _write(tmp_path / "q", "1 0 a 1\n2 0 b 1\n")
    r = _write(tmp_path / "r", "1 Q0 a 1 1 t\n2 Q0 zz 1 1 t\n")
    out = _evaluate(capsys, q, r, "-q", "-J", "-m", "iprec_at_recall.0,0.5", "-m", "11pt_avg", "-m", "map",
                    "--trec-eval", version)[1]
    got = {(m, t): v for m, t, v in _lines(out)}
    assert got["iprec_at_recall_0.00", "2"] == "-nan" and got["iprec_at_recall_0.50", "2"] == "0.0000"
    assert got["11pt_avg", "2"] == "-nan" and got["11pt_avg", "all"] == "-nan" and got["map", "2"] == "0.0000"
    assert got["iprec_at_recall_0.00", "1"] == "1.0000"
