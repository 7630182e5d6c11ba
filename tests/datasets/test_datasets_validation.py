"""Declared validation of fireeval.datasets (issue 36): a wrong argument stops the call in one line naming the
function, the parameter, the value and the fix, before any file is looked for."""
from __future__ import annotations

import pytest

import fireeval.datasets as ds
from fireeval.core.validation import ParamError
from fireeval.datasets import charades, moment_formats, msvd


def _message(err) -> str:  # the error's one line, which names the fix
    assert "\n" not in str(err.value) and "Fix:" in str(err.value), err.value
    return str(err.value)


def test_a_count_below_one_and_a_folder_that_is_not_a_path_are_refused():
    with pytest.raises(ParamError) as err:
        charades.load_predictions("2DTAN", k=0)
    assert _message(err) == "load_predictions: k=0 is outside [1, ∞). Fix: give an integer of at least 1"
    with pytest.raises(TypeError) as err:
        ds.data_path("trec8_adhoc/runs.tsv", root=3)
    assert _message(err) == ("data_path: root=3 is a int. Fix: pass the data folder's path (str or Path) or None")


def test_an_unknown_split_or_ground_truth_kind_is_refused_with_the_accepted_ones():
    with pytest.raises(ParamError) as err:
        msvd.load_split("training")
    assert _message(err) == ("load_split: split='training' is not one of the accepted values. Fix: use one of 'train', "
                             "'val', 'test'")
    with pytest.raises(ValueError, match=r"^read_predictions: gt_kind='trec' is not one of the accepted values\. Fix: "
                                         r"use one of 'charades', 'qvhighlights'$"):
        moment_formats.read_predictions("preds.json", [], "trec")
    with pytest.raises(ValueError, match=r"^unknown predictions format fmt='xml'\. Fix: accepted formats: "):
        moment_formats.detect_format("preds.xml", fmt="xml")
    assert moment_formats.detect_format("preds.jsonl") == "momentdetr"


def test_choose_source_refuses_one_string_for_its_files_and_an_unknown_source():
    with pytest.raises(ValueError) as err:
        ds.choose_source("auto", "trec8_adhoc/runs.tsv")
    assert _message(err).startswith("choose_source: files='trec8_adhoc/runs.tsv' is not a list of registry paths. "
                                    "Fix: pass registry paths as a list of str")
    with pytest.raises(ValueError) as err:
        ds.choose_source("bogus", [])
    assert _message(err) == ("data_source='bogus' is not one of auto, real, synthetic. Fix: -p data_source auto (or "
                             "real, synthetic).")
    assert ds.choose_source("synthetic", []) == "synthetic"
