"""The metrics chapter's claim builder (fireeval.book.chapters.metrics): labels, families and what they say."""
import json
import re
import tomllib
from pathlib import Path

import pytest

from conftest import require_data
from fireeval.book import report
from fireeval.book.report import to_jsonable
from fireeval.book.chapters.metrics import ORACLE_MEASURES, PYTREC_EVAL, metrics_claims
from fireeval.datasets import trec8
from fireeval.stats.claims import check_record

ROOT = Path(__file__).resolve().parents[2]
AGREE = dict.fromkeys(ORACLE_MEASURES, 0.0)


def printed(differ=0, versions=("9.0.7", "10.0")):
    return {v: {"runs": 6, "lines": 100, "differ": differ, "printed": [0.2143, 1000.0], "ours": [0.21432, 1000.0]}
            for v in versions}


def build(gaps=AGREE, **kw):
    kw = {"printed": printed(), "official": [0.1, 0.2, 0.3], "double": [0.1, 0.2, 0.3], "single": [0.1, 0.2, 0.3],
          **kw}
    records = metrics_claims("real: 3 TREC-8 runs", True, gaps, 600, **kw)
    for r in records:
        check_record(r)  # no record breaks the book's rules (no .here id, labels obey their rows)
    return {r["id"]: r for r in records}


def test_agreement_everywhere_reproduces_both_claims_one_row_per_measure():
    r = build()
    assert [r[k]["label"] for k in ("metrics_oracle", "metrics_official_map")] == ["reproduced", "reproduced"]
    assert r["metrics_oracle"]["family"]["summary"] == "holds at 4 of 4"
    assert [c["condition"] for c in r["metrics_oracle"]["family"]["conditions"]] == list(ORACLE_MEASURES)
    assert r["metrics_oracle"]["evidence"]["numbers_reproduce"] is True
    assert not any(x["id"].endswith(".here") for x in r.values())


def test_one_measure_off_contradicts_the_oracle_claim_and_names_the_measure():
    r = build({**AGREE, "ndcg_cut_10": 3e-4}, printed=printed(differ=3))["metrics_oracle"]
    assert r["label"] == "contradicted" and r["family"]["fail"] == ["ndcg_cut_10"]
    # trec_eval's printed lines agreeing while pytrec_eval does not: readings of equal standing disagree
    assert build({**AGREE, "ndcg_cut_10": 3e-4})["metrics_oracle"]["label"] == "depends"


def test_a_printed_line_of_trec_eval_that_differs_makes_the_oracle_claim_depend():
    # the printed output is a reading of equal standing: pytrec_eval agreeing does not outvote it
    r = build(printed=printed(differ=1, versions=("10.0",)))["metrics_oracle"]
    assert r["label"] == "depends", r["basis"]
    row = r["sensitivity"][0]
    assert row["weight"] == "equal" and row["flips"] and row["label"] == "contradicted"


def test_without_printed_output_the_row_says_why_and_decides_nothing():
    r = build(printed=None, no_printed="your own qrels: trec_eval's output was printed for TREC-8's")["metrics_oracle"]
    assert r["label"] == "reproduced"
    assert r["sensitivity"][0]["label"] == "not testable here" and not r["sensitivity"][0]["flips"]
    assert "your own qrels" in r["evidence"]["detail"]


def test_without_pytrec_eval_the_basis_says_exactly_what_to_install():
    r = build(None)["metrics_oracle"]
    assert r["label"] == "not testable here"
    assert f"pip install '{PYTREC_EVAL}'" in r["basis"]


def test_untestable_records_are_plain_json_for_the_headline():
    # the classroom wheel has no pytrec_eval, and the synthetic stand-in no official file
    records = metrics_claims("real: 3 TREC-8 runs", True, None, 0, printed=None, no_printed="-", no_official="-")
    assert [r["label"] for r in records] == ["not testable here", "not testable here"]
    json.dumps(to_jsonable(records))


def test_the_install_hint_is_the_pin_of_the_test_extra():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert PYTREC_EVAL in extra, (PYTREC_EVAL, extra)


def test_single_precision_is_a_secondary_row_with_its_reason():
    # uwmt8a0's case: single precision puts one run beyond the file's rounding, double precision none
    r = build(double=[0.1, 0.2, 0.3], single=[0.1, 0.2, 0.3004])["metrics_official_map"]
    assert r["label"] == "reproduced"
    row = r["sensitivity"][0]
    assert row["flips"] and row["weight"] == "secondary" and row["value"] == 1
    assert "authors' own output rules out" in row["reason"]


def test_double_precision_beyond_the_rounding_contradicts_the_official_claim():
    r = build(double=[0.1, 0.2006, 0.3])["metrics_official_map"]
    assert r["label"] == "contradicted" and r["conventions"][""]["value"] == 1
    assert r["evidence"]["numbers_reproduce"] is False


def test_no_official_file_and_synthetic_data_are_not_testable_and_say_why():
    r = build(official=None, double=None, single=None, no_official="your own qrels")["metrics_official_map"]
    assert r["label"] == "not testable here" and r["basis"] == "your own qrels"
    synthetic = metrics_claims("synthetic: simulated runs", False, AGREE, 10, printed=None,
                               no_printed="synthetic stand-in")
    assert [x["label"] for x in synthetic] == ["not testable here", "not testable here"]
    assert synthetic[0]["here"][0]["label"] == "reproduced"  # what the stand-in shows: the claim's here row


def test_the_records_pass_the_chapter_box_without_legacy_twins():
    out = report.claims(list(build().values()))
    assert [c["id"] for c in out] == ["metrics_oracle", "metrics_official_map"]


def test_trec_eval_output_loader_refuses_what_the_data_do_not_hold():
    with pytest.raises(ValueError, match=re.escape("run='input.uwmt8a0' is not one of the accepted values. Fix: use "
                                                   "one of 'uwmt8a0'")):
        trec8.load_trec_eval_output("input.uwmt8a0", "9.0.7")
    with pytest.raises(ValueError, match=re.escape("version='9.0' is not one of the accepted values. Fix: use one of "
                                                   "'9.0.7', '10.0'")):
        trec8.load_trec_eval_output("uwmt8a0", "9.0")


@pytest.mark.realdata
def test_trec_eval_output_loader_reads_the_printed_lines_as_text():
    require_data(trec8.TREC_EVAL_OUTPUT.format(version="9.0.7", run="uwmt8a0"))
    lines = trec8.load_trec_eval_output("uwmt8a0", "9.0.7")
    assert list(lines.columns) == ["measure", "topic", "printed"]
    summary = lines[lines["topic"] == "all"].set_index("measure")["printed"]
    assert summary["runid"] == "uwmt8a0" and summary["map"] == "0.2143" and summary["num_q"] == "50"
    assert lines.loc[lines["measure"] == "relstring", "printed"].str.startswith("'").all()
