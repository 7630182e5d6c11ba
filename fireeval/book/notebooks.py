"""Execute the book's text notebooks with parameters (the code behind ``fireeval run``).

Notebooks are MyST markdown files read with jupytext. The first code cell is tagged
``parameters``: simple assignments ``name = literal  # comment``. Parameters passed
by the user are validated against those defaults *before* anything executes: an
unknown name or a value of the wrong type is an error that lists what is allowed.

Each notebook's front matter may carry ``fireeval: {test_parameters: {...},
headline_keys: [...]}``: the small settings the test suite runs it with and the
keys its glued ``headline`` must contain.
"""
from __future__ import annotations

import ast
import json
import tempfile
from pathlib import Path

from fireeval.book.report import HEADLINE_MIME

__all__ = ["NOTEBOOK_DIR", "find_notebook", "load", "declared_parameters", "coerce_parameters",
           "execute", "extract_headline", "ParameterError"]

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"


class ParameterError(ValueError):
    """A parameter the notebook does not declare, or a value of the wrong type."""


def find_notebook(name_or_path) -> Path:
    """A notebook path from a path or a bare name such as ``pool_depth``."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    for candidate in (NOTEBOOK_DIR / f"{name_or_path}.md", NOTEBOOK_DIR / str(name_or_path)):
        if candidate.is_file():
            return candidate
    known = sorted(p.stem for p in NOTEBOOK_DIR.glob("*.md"))
    raise FileNotFoundError(f"no notebook {name_or_path!r}; give a path or one of: {', '.join(known)}")


def load(path):
    """Read a text (MyST/py:percent) or .ipynb notebook as an nbformat node."""
    import jupytext

    return jupytext.read(str(path))


def _parameters_cell(nb):
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return cell
    return None


def declared_parameters(nb) -> dict:
    """``{name: default}`` from the cell tagged ``parameters`` (literal assignments only)."""
    cell = _parameters_cell(nb)
    if cell is None:
        return {}
    params = {}
    for node in ast.parse(cell.source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                params[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError as err:
                raise ParameterError(f"parameter {node.targets[0].id!r} must have a literal default") from err
    return params


def _type_ok(value, default) -> bool:
    if default is None or value is None:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def parse_value(text: str):
    """A command-line value: a Python literal when it parses as one, else the string."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def coerce_parameters(declared: dict, given: dict, source: str = "notebook") -> dict:
    """Check ``given`` against the declared defaults; ints are accepted for floats."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        listing = ", ".join(f"{k} (default {declared[k]!r})" for k in declared)
        raise ParameterError(f"{source} has no parameter {', '.join(unknown)}; its parameters are: {listing}")
    out = {}
    for name, value in given.items():
        default = declared[name]
        if not _type_ok(value, default):
            raise ParameterError(f"{source}: parameter {name} expects {type(default).__name__} "
                                 f"(default {default!r}), got {type(value).__name__} {value!r}")
        out[name] = float(value) if isinstance(default, float) and isinstance(value, int) else value
    return out


def extract_headline(nb) -> dict | None:
    """The glued ``headline`` dict from an executed notebook, or None."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook", {})
            if meta.get("name") != "headline":
                continue
            for mime, data in output.get("data", {}).items():
                if mime.endswith(HEADLINE_MIME):  # myst-nb prefixes glued mimetypes
                    return json.loads(data) if isinstance(data, str) else dict(data)
    return None


def execute(notebook, parameters: dict | None = None, output_dir=None, kernel_name: str = "python3",
            timeout: int = 3600, progress: bool = False) -> dict:
    """Validate parameters, execute the notebook with papermill, write the outputs.

    Writes ``output_dir/<name>.ipynb`` (executed) and ``output_dir/<name>.headline.json``
    and returns the headline dict. ``output_dir`` defaults to a temporary folder; it
    must not be inside a data directory (nothing is written there).
    """
    import nbformat
    import papermill

    path = find_notebook(notebook)
    nb = load(path)
    params = coerce_parameters(declared_parameters(nb), dict(parameters or {}), source=str(path))
    out = Path(output_dir) if output_dir else Path(tempfile.mkdtemp(prefix="fireeval-"))
    out.mkdir(parents=True, exist_ok=True)
    source_ipynb = out / f".{path.stem}.source.ipynb"
    nbformat.write(nb, source_ipynb)
    target = out / f"{path.stem}.ipynb"
    try:
        papermill.execute_notebook(str(source_ipynb), str(target), parameters=params, kernel_name=kernel_name,
                                   cwd=str(path.parent), progress_bar=progress, execution_timeout=timeout)
    finally:
        source_ipynb.unlink(missing_ok=True)
    result = extract_headline(nbformat.read(target, as_version=4))
    if result is None:
        raise RuntimeError(f"{path} ran but glued no 'headline' dict: call fireeval.book.report.headline(...)")
    (out / f"{path.stem}.headline.json").write_text(json.dumps(result, indent=1) + "\n")
    return result
