"""Data resolution and checksums, notebook parameter validation, and the command line."""
import shutil

import numpy as np
import pytest

from conftest import require_data

from fireeval import cli
from fireeval.datasets import DataError, DataUnavailable, data_path, registry
from fireeval.book.notebooks import ParameterError, coerce_parameters, declared_parameters, load, parse_value
from fireeval.book.report import to_jsonable

NAME = "trec8_adhoc/runs.tsv"


def test_registry_has_checksums_for_every_file():
    reg = registry()
    assert len(reg) > 200 and all(len(r["sha256"]) == 64 for r in reg.values())
    assert reg["trec8_adhoc/runs/input.1.gz"]["url"].startswith("https://raw.githubusercontent.com/isoboroff/")
    assert "upstream_sha256" in reg["trec8_adhoc/runs/input.1.gz"]


def test_user_folder_first_and_checksum_verified(tmp_path, monkeypatch):
    record = registry()[NAME]
    target = tmp_path / NAME
    target.parent.mkdir(parents=True)
    target.write_text("run\tgroup\n")  # wrong content
    with pytest.raises(DataError, match="sha256 is .* expected " + record["sha256"]):
        data_path(NAME, root=tmp_path)
    monkeypatch.setenv("FIREEVAL_DATA", str(tmp_path))
    with pytest.raises(DataError):
        data_path(NAME)


def test_unavailable_file_says_where_it_looked_and_how_to_fix(tmp_path, monkeypatch):
    monkeypatch.setattr("fireeval.datasets.SHARED_DATA", tmp_path / "nowhere")
    monkeypatch.delenv("FIREEVAL_DATA", raising=False)
    with pytest.raises(DataUnavailable, match="FIREEVAL_DATA"):
        data_path(NAME)
    # issue 39: a named folder is the only place looked in, and the message names it
    with pytest.raises(DataUnavailable, match=rf"looked in: {tmp_path / NAME}\). Fix: place {NAME} in the folder "
                                              rf"you named \(data_dir={tmp_path}\)"):
        data_path(NAME, root=tmp_path)
    with pytest.raises(DataUnavailable, match="no public download"):
        data_path("fire/fire_msrvtt_dataset.json", root=tmp_path)
    with pytest.raises(KeyError, match="not in data/registry.json"):
        data_path("nope/file.txt")


def test_correct_file_in_user_folder_is_found(tmp_path):
    require_data(NAME)
    source = data_path(NAME)
    (tmp_path / "trec8_adhoc").mkdir()
    shutil.copyfile(source, tmp_path / NAME)
    assert data_path(NAME, root=tmp_path) == tmp_path / NAME


NB = """---
kernelspec: {display_name: Python 3, language: python, name: python3}
---
```{code-cell} ipython3
:tags: [parameters]
seed = 0  # seed
sigma = 1.0
name = "auto"
depths = [1, 2]
flag = False
data_dir = None
```
"""


def test_parameters_validated_before_execution(tmp_path):
    path = tmp_path / "nb.md"
    path.write_text(NB)
    declared = declared_parameters(load(path))
    assert declared == {"seed": 0, "sigma": 1.0, "name": "auto", "depths": [1, 2], "flag": False, "data_dir": None}
    assert coerce_parameters(declared, {"sigma": 2, "depths": [3], "data_dir": "/x"}) == {
        "sigma": 2.0, "depths": [3], "data_dir": "/x"}
    with pytest.raises(ParameterError, match="no parameter sede; its parameters are: seed"):
        coerce_parameters(declared, {"sede": 1})
    with pytest.raises(ParameterError, match="seed expects int .* got float 1.5"):
        coerce_parameters(declared, {"seed": 1.5})
    with pytest.raises(ParameterError, match="flag expects bool"):
        coerce_parameters(declared, {"flag": 1})
    assert parse_value("[1, 2]") == [1, 2] and parse_value("synthetic") == "synthetic"


def test_cli_run_rejects_unknown_parameter_before_executing(tmp_path, capsys):
    path = tmp_path / "nb.md"
    path.write_text(NB)
    assert cli.main(["run", str(path), "-p", "sede", "1", "--output", str(tmp_path / "out")]) == 2
    assert "no parameter sede" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_cli_evaluate_trec_eval_style(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n2 Q0 c 1 1.0 t\n")
    assert cli.main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "map", "-m", "C@1", "-q"]) == 0
    lines = [l.split("\t") for l in capsys.readouterr().out.splitlines()]
    got = {(m.strip(), t): float(v) for m, t, v in lines}
    assert got == {("map", "1"): 0.5, ("map", "2"): 1.0, ("map", "all"): 0.75,
                   ("C@1", "1"): 0.0, ("C@1", "2"): 1.0, ("C@1", "all"): 0.5}  # printed as asked


def test_cli_evaluate_bad_file_is_one_line_error(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 x t\n")
    assert cli.main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'r'}:1: score 'x' is not a finite number" in err


def test_headline_json_conversion():
    assert to_jsonable({1: np.float32(0.5), "a": np.arange(2), "n": float("nan"), "b": np.bool_(True)}) == {
        "1": 0.5, "a": [0, 1], "n": None, "b": True}
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        to_jsonable({"x": object()})


def test_environment_yml_mirrors_pyproject_pins():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, str(root / "scripts" / "sync_environment.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
