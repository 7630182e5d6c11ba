"""`fireeval evaluate-moments` on small hand-made files and on the real Charades-STA / QVHighlights files."""
import json

import numpy as np
import pytest

from fireeval.cli import main
from fireeval.datasets import charades, data_path, qvhighlights
from tests.conftest import require_data


def _lines(capsys):
    out = capsys.readouterr()
    return {tuple(line.split("\t")[:2]): float(line.split("\t")[2])
            for line in out.out.splitlines()}, out.err


def _strip(d):
    return {(m.strip(), q): v for (m, q), v in d.items()}


def test_charades_format_by_hand(tmp_path, capsys):
    gt = tmp_path / "gt.txt"
    gt.write_text("A 0 10##q one.\nB 0 4##q two.\nC 2 4##never predicted.\n")
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps({"entries": [
        {"vid": "A", "query": "q one.", "moments": [[0, 5, 20], [0, 10, 20]], "ratings": [1, 2]},
        {"vid": "B", "query": "q two.", "moments": [[2, 4, 8]], "ratings": [1]},
        {"vid": "B", "query": "q two.", "moments": None, "ratings": None}]}))
    assert main(["evaluate-moments", str(gt), str(pred), "-q", "-m", "R@1,0.5", "-m", "AxIoU@2"]) == 0
    got, err = _lines(capsys)
    got = _strip(got)
    assert got[("R@1,0.5", "A#0")] == 1 and got[("R@1,0.5", "B#1")] == 1 and got[("R@1,0.5", "C#2")] == 0
    assert got[("AxIoU@2", "B#1")] == 0.5  # one moment with IoU 0.5: (0.5 + 0.5) / 2, its best carried to rank 2
    assert got[("R@1,0.5", "all")] == pytest.approx(round(2 / 3, 4))
    assert "1 of 3 queries have no predictions" in err
    assert main(["evaluate-moments", str(gt), str(pred), "-m", "R@1,0.5", "--strict"]) == 0
    got, _ = _lines(capsys)
    assert _strip(got)[("R@1,0.5", "all")] == pytest.approx(round(1 / 3, 4))  # IoU 0.5 is not > 0.5


def test_errors_are_one_line(tmp_path, capsys):
    gt = tmp_path / "gt.txt"
    gt.write_text("A 0 10\n")
    pred = tmp_path / "p.json"
    pred.write_text("{}")
    assert main(["evaluate-moments", str(gt), str(pred)]) == 2
    assert "gt.txt:1: expected" in capsys.readouterr().err
    assert main(["evaluate-moments", str(gt), str(pred), "-m", "R@5"]) == 2
    assert "unknown measure" in capsys.readouterr().err
    assert main(["evaluate-moments", str(tmp_path / "none.txt"), str(pred)]) == 2
    assert "no such file" in capsys.readouterr().err


def test_real_files_match_library(capsys):
    require_data(*charades.GROUND_TRUTH_FILES, "charades_sta/predictions/SCDM.json",
                 "qvhighlights/highlight_val_release.jsonl", "qvhighlights/momentdetr_ckpt_val_preds.jsonl")
    assert main(["evaluate-moments", str(data_path("charades_sta/charades_sta_test.txt")),
                 str(data_path("charades_sta/predictions/SCDM.json"))]) == 0
    got, err = _lines(capsys)
    assert "9 of 3720" in err and len(got) == 12
    from fireeval.core import moments
    gt = charades.load_ground_truth()
    ref = moments.score_all(moments.temporal_iou(charades.load_predictions("SCDM"), gt[["start", "end"]].to_numpy()))
    for m, v in ref.items():
        assert _strip(got)[(m, "all")] == pytest.approx(round(v.mean(), 4))
    assert main(["evaluate-moments", str(data_path("qvhighlights/highlight_val_release.jsonl")),
                 str(data_path("qvhighlights/momentdetr_ckpt_val_preds.jsonl")), "-m", "R@1,0.7"]) == 0
    got, _ = _lines(capsys)
    assert _strip(got)[("R@1,0.7", "all")] == qvhighlights.load_reported_metrics()["brief"]["MR-full-R1@0.7"] / 100
