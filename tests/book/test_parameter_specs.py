"""Convention 4: every chapter parameter carries an 'Allowed: SPEC' that its default and test parameters meet,
and `fireeval run` refuses values outside it before anything executes."""
import pytest
import yaml

from fireeval import cli
from fireeval.book.notebooks import (NOTEBOOK_DIR, ParameterError, check_value, coerce_parameters,
                                     declared_parameters, load, parameter_specs, parse_spec)

CHAPTERS = sorted(p.stem for p in NOTEBOOK_DIR.glob("*.md"))


def _front_matter(path):
    text = path.read_text()
    return yaml.safe_load(text.split("---")[1]) if text.startswith("---") else {}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_parameter_is_annotated_and_its_default_allowed(chapter):
    path = NOTEBOOK_DIR / f"{chapter}.md"
    nb = load(path)
    declared, specs = declared_parameters(nb), parameter_specs(nb)
    assert declared, f"{chapter} has no parameters cell"
    missing = [name for name, spec in specs.items() if not spec]
    assert not missing, f"{chapter}: parameters without '# ... Allowed: SPEC': {missing}"
    for name, default in declared.items():
        check_value(name, default, specs[name], chapter)  # raises if the default is not allowed
    tests = (_front_matter(path).get("fireeval") or {}).get("test_parameters") or {}
    coerce_parameters(declared, tests, chapter, specs)


@pytest.mark.parametrize("spec, good, bad", [
    ("one of auto, real, synthetic", ["auto", "real"], ["bogus", None, 1, True]),
    ("int >= 1", [1, 50], [0, -3, 1.5, True, None, "1"]),
    ("int >= 0", [0, 7], [-1]),
    ("int in [1, 1000]", [1, 1000], [0, 1001]),
    ("float in (0, 1]", [1, 0.5, 1.0], [0, 0.0, 1.01, float("nan"), float("inf"), "0.5"]),
    ("float in (0, 1)", [0.5], [1, 0]),
    ("float > 0", [0.1, 3], [0, -1.0]),
    ("list of int >= 1", [[1, 2], (3,)], [[], [0], [1.5], 1, None]),
    ("list of float in (0, 1]", [[0.5, 1]], [[0], [2.0]]),
    ("list, each one of a, b, c", [["a", "c"]], [["d"], [], "a"]),
    ("list of str or []", [[], ["x"]], [[1], None]),
    ("str", ["x"], [1, None]),
    ("str or None", ["x", None], [1]),
    ("int >= 1 or None", [None, 2], [0]),
    ("bool", [True, False], [0, 1, "True", None]),
])
def test_spec_table(spec, good, bad):
    check = parse_spec(spec)
    for value in good:
        assert check(value)[0], (spec, value)
    for value in bad:
        assert not check(value)[0], (spec, value)


def test_float_spec_turns_ints_into_floats():
    assert check_value("x", 1, "float in (0, 1]") == 1.0 and isinstance(check_value("x", 1, "float > 0"), float)
    assert check_value("x", [1, 2], "list of float > 0") == [1.0, 2.0]


def test_unreadable_spec_is_a_parameter_error():
    with pytest.raises(ParameterError, match="unreadable 'Allowed:'"):
        check_value("x", 1, "a positive number")


@pytest.mark.parametrize("args, message", [
    (["-p", "data_source", "bogus"], "data_source = 'bogus' is not allowed. Allowed: one of auto, real, synthetic"),
    (["-p", "n_runs_real", "-5"], "n_runs_real = -5 is not allowed"),
    (["-p", "seed", "None"], "seed = None is not allowed"),
    (["-p", "sede", "1"], "no parameter sede"),
])
def test_cli_refuses_before_running(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert cli.main(["run", "metrics", *args, "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()
