"""Execute the book's text notebooks with parameters (the code behind ``fireeval run``).

Notebooks are MyST markdown files read with jupytext. The first code cell is tagged
``parameters``: simple assignments ``name = literal  # what it is. Allowed: SPEC``.
Parameters passed by the user are validated *before* anything executes: an unknown
name, a value of the wrong type or outside its SPEC is an error that says what is
allowed. SPEC (CONTRIBUTING.md, convention 4) is one of

* ``one of a, b, c`` (each a Python literal, else a string), ``str``, ``bool``;
* ``int >= 1`` (any of ``>= > <= <`` and a number), ``int in [1, 1000]``,
  ``float in (0, 1]`` (brackets say whether an end is included), ``float > 0``;
* ``list of SCALAR`` (for example ``list of int >= 1``) or ``list, each one of a, b, c``:
  a non-empty list unless followed by `` or []``;
* ``dict of SCALAR`` (for example ``dict of str or {}``): names (strings) to values each
  checked by SCALAR; non-empty unless followed by `` or {}``;
* any of these followed by `` or None``.

A parameter without ``Allowed:`` is checked against its default's type only.

Each notebook's front matter may carry ``fireeval: {test_parameters: {...},
headline_keys: [...]}``: the small settings the test suite runs it with and the
keys its glued ``headline`` must contain.
"""
from __future__ import annotations

from collections.abc import Mapping
import ast
import contextlib
import functools
import json
import tempfile
from pathlib import Path

from fireeval.book import _results
from fireeval.book.report import HEADLINE_MIME
import os
from fireeval.core.validation import ANY, BOOL, STR, Instance, Int, validate_params

__all__ = ["NOTEBOOK_DIR", "BLAS_THREAD_VARIABLES", "kernel_environment", "find_notebook", "load",
           "declared_parameters", "parameter_specs", "parse_spec",
           "check_value", "coerce_parameters", "execute", "extract_headline", "install_note", "with_install_cell",
           "ParameterError", "ChapterFailed",
           "parameter_comments", "refuse_data_directory", "PATH_PARAMETERS", "resolve_paths",
           "resolve_data_environment", "data_folders_read"]


def _notebook_dir() -> Path:
    """The chapters: shipped inside the package (an installed wheel), else the checkout's ``notebooks/``."""
    shipped = Path(__file__).resolve().parent / "notebooks_shipped"  # written by setup.py's build step
    return shipped if shipped.is_dir() else Path(__file__).resolve().parents[2] / "notebooks"


NOTEBOOK_DIR = _notebook_dir()


class ParameterError(ValueError):
    """A parameter the notebook does not declare, or a value of the wrong type or outside its SPEC.

    Examples
    --------
    >>> check_value("seed", -1, "int >= 0", "pool_depth")
    Traceback (most recent call last):
    ...
    fireeval.book.notebooks.ParameterError: pool_depth: parameter seed = -1 is not allowed. Allowed: int >= 0. Fix: -p seed VALUE with such a value.
    """


class ChapterFailed(RuntimeError):
    """The chapter raised an error, was interrupted or glued no headline; earlier results are untouched.

    Examples
    --------
    A chapter whose cell raises (the kernel starts: about two seconds):

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> front = ("---\\njupytext:\\n  text_representation:\\n    extension: .md\\n    format_name: myst\\n"
    ...          "kernelspec:\\n  name: python3\\n  display_name: Python 3\\n  language: python\\n---\\n\\n")
    >>> path = os.path.join(folder, "fails.md")
    >>> _ = open(path, "w").write(front + "```{code-cell} ipython3\\n1 / 0\\n```\\n")
    >>> execute(path, output_dir=os.path.join(folder, "out"))
    Traceback (most recent call last):
    ...
    fireeval.book.notebooks.ChapterFailed: /tmp/.../fails.md: the chapter failed: ZeroDivisionError: division by zero. Earlier results in /tmp/.../out are untouched; the partial notebook is /tmp/.../out/fails.failed.ipynb. Fix: see the failing cell there; check the parameters (none given).
    """


#: What a notebook path ends with (anything else that is not a chapter's name is refused, not executed).
NOTEBOOK_SUFFIXES = (".md", ".myst", ".mystnb", ".ipynb", ".py")


@validate_params(name_or_path=Instance(str, os.PathLike))
def find_notebook(name_or_path) -> Path:
    """A notebook path from a bare chapter name such as ``pool_depth`` or a notebook path.

    A bare name (no folder, no extension) is the book's chapter even when a file of that name is in the
    working folder; a path must end in a notebook extension (:data:`NOTEBOOK_SUFFIXES`).

    Parameters
    ----------
    name_or_path : str or path-like
        A chapter's name or a notebook's path.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> find_notebook("pool_depth").name
    'pool_depth.md'
    >>> find_notebook("nonesuch")
    Traceback (most recent call last):
    ...
    FileNotFoundError: nonesuch: no such notebook. Fix: give a notebook path or one of: ...
    """
    text = str(name_or_path)
    path = Path(text)
    bare = path.suffix == "" and path.name == text
    if bare and (NOTEBOOK_DIR / f"{text}.md").is_file():
        return NOTEBOOK_DIR / f"{text}.md"
    known = sorted(p.stem for p in NOTEBOOK_DIR.glob("*.md"))
    if path.is_file():
        if path.suffix.lower() in NOTEBOOK_SUFFIXES:
            return path
        raise ValueError(f"{text}: not a notebook (expected a path ending in "
                         f"{', '.join(NOTEBOOK_SUFFIXES)}, or a chapter name). Fix: give a notebook path or one "
                         f"of: {', '.join(known)}")
    if (NOTEBOOK_DIR / text).is_file() and path.suffix.lower() in NOTEBOOK_SUFFIXES:
        return NOTEBOOK_DIR / text
    raise FileNotFoundError(f"{text}: no such notebook. Fix: give a notebook path or one of: {', '.join(known)}")


@validate_params(path=Instance(str, os.PathLike))
def load(path):
    """Read a text (MyST/py:percent) or .ipynb notebook as an nbformat node.

    A text notebook is converted by jupytext once per content and the result kept in the user's cache
    folder (:mod:`fireeval.book._converted`); an ``.ipynb`` is read as it is.

    Parameters
    ----------
    path : path-like
        The notebook.

    Returns
    -------
    nbformat.NotebookNode

    Examples
    --------
    >>> [cell.cell_type for cell in load(find_notebook("metrics")).cells][:2]
    ['markdown', 'code']
    """
    if Path(path).suffix.lower() != ".ipynb":
        from fireeval.book import _converted

        # None with FIREEVAL_NO_CACHE, or for a cache inside a data folder: converted, nothing kept
        return _converted.read(path, _converted.cache_folder())
    import jupytext

    return jupytext.read(str(path))


def _parameters_cell(nb):
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return cell
    return None


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"))
def declared_parameters(nb) -> dict:
    """``{name: default}`` from the cell tagged ``parameters`` (literal assignments only).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook.

    Returns
    -------
    dict

    Examples
    --------
    >>> import nbformat
    >>> source = ('seed = 0  # the seed. Allowed: int >= 0\\n'
    ...           'measure = "map"  # the measure. Allowed: one of map, P_10\\n')
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})])
    >>> declared_parameters(nb)
    {'seed': 0, 'measure': 'map'}
    """
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


@validate_params(source=STR)
def parameter_comments(source: str) -> dict:
    """``{name: comment text}`` of each literal assignment in a parameters cell (its comment on the last line).

    Parameters
    ----------
    source : str
        The parameters cell's code.

    Returns
    -------
    dict

    Examples
    --------
    >>> parameter_comments('seed = 0  # the seed. Allowed: int >= 0\\n')
    {'seed': 'the seed. Allowed: int >= 0'}
    """
    import io
    import tokenize

    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = comments.get(node.end_lineno, "")
    return out


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"))
def parameter_specs(nb) -> dict:
    """``{name: SPEC or None}``: the text after ``Allowed:`` in each parameter's comment.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook.

    Returns
    -------
    dict

    Examples
    --------
    >>> import nbformat
    >>> source = ('seed = 0  # the seed. Allowed: int >= 0\\n'
    ...           'measure = "map"  # the measure. Allowed: one of map, P_10\\n')
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})])
    >>> parameter_specs(nb)
    {'seed': 'int >= 0', 'measure': 'one of map, P_10'}
    """
    import io
    import tokenize

    cell = _parameters_cell(nb)
    if cell is None:
        return {}
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(cell.source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string
    specs = {}
    for node in ast.parse(cell.source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            comment = comments.get(node.end_lineno, "")
            specs[node.targets[0].id] = comment.rsplit("Allowed:", 1)[1].strip() if "Allowed:" in comment else None
    return specs


_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf"


def _literal(token: str):
    try:
        return ast.literal_eval(token)
    except (ValueError, SyntaxError):
        return token


def _scalar_check(spec: str):
    """A function ``value -> (ok, value)`` for a scalar SPEC, or ValueError if SPEC is not understood."""
    import math
    import re

    if spec.startswith("one of "):
        choices = [_literal(t.strip()) for t in spec[len("one of "):].split(",")]
        return lambda v: (not isinstance(v, bool) and v in choices
                          and any(type(v) is type(c) or (isinstance(v, (int, float)) and isinstance(c, (int, float)))
                                  for c in choices if c == v), v)
    if spec == "str":
        return lambda v: (isinstance(v, str), v)
    if spec == "bool":
        return lambda v: (isinstance(v, bool), v)
    m = re.fullmatch(rf"(int|float)\s*(?:(>=|>|<=|<)\s*({_NUMBER})|in\s*([\[(])\s*({_NUMBER})\s*,\s*({_NUMBER})\s*([\])]))?", spec)
    if not m:
        raise ValueError(f"unknown SPEC {spec!r}")
    kind, op, bound, lo_br, lo, hi, hi_br = m.groups()

    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (kind == "int" and not isinstance(v, int)):
            return False, v
        if isinstance(v, float) and not math.isfinite(v):
            return False, v
        if op:
            b = float(bound)
            ok = {">=": v >= b, ">": v > b, "<=": v <= b, "<": v < b}[op]
        elif lo is not None:
            a, b = float(lo), float(hi)
            ok = (v >= a if lo_br == "[" else v > a) and (v <= b if hi_br == "]" else v < b)
        else:
            ok = True
        return ok, float(v) if kind == "float" else v
    return check


@validate_params(spec=STR)
def parse_spec(spec: str):
    """A checker ``value -> (ok, normalised value)`` for a parameter SPEC (see the module docstring).

    Parameters
    ----------
    spec : str
        The SPEC.

    Returns
    -------
    callable

    >>> check = parse_spec("list of float in (0, 1] or None")
    >>> check([0.5, 1]), check(None), check([0]), check([])
    ((True, [0.5, 1.0]), (True, None), (False, [0.0]), (False, []))
    >>> parse_spec("one of auto, real, synthetic")("bogus")
    (False, 'bogus')
    """
    text = spec.strip().rstrip(".").strip()
    nullable = empty_ok = False
    while True:
        if text.endswith(" or None"):
            nullable, text = True, text[: -len(" or None")].strip()
        elif text.endswith(" or []") or text.endswith(" or {}"):
            empty_ok, text = True, text[: -len(" or []")].strip()
        else:
            break
    if text.startswith("list, each ") or text.startswith("list of "):
        item = _scalar_check(text[len("list, each "):] if text.startswith("list, each ") else text[len("list of "):])

        def check(v):
            if v is None:
                return nullable, v
            if not isinstance(v, (list, tuple)) or (not v and not empty_ok):
                return False, v
            results = [item(x) for x in v]
            return all(ok for ok, _ in results), [x for _, x in results]
        return check
    if text.startswith("dict of "):  # {name: value}, names strings, each value checked by the SCALAR spec
        value_check = _scalar_check(text[len("dict of "):])

        def check_dict(v):
            if v is None:
                return nullable, v
            if not isinstance(v, dict) or (not v and not empty_ok) or not all(isinstance(k, str) for k in v):
                return False, v
            results = {k: value_check(x) for k, x in v.items()}
            return all(ok for ok, _ in results.values()), {k: x for k, (_, x) in results.items()}
        return check_dict
    scalar = _scalar_check(text)
    return lambda v: (nullable, v) if v is None else scalar(v)


@validate_params(name=STR, value=ANY, spec=STR, source=STR)
def check_value(name: str, value, spec: str, source: str = "notebook"):
    """``value`` normalised (ints become floats where SPEC says float), or ParameterError saying what is allowed.

    Parameters
    ----------
    name : str
        The parameter.
    value : object
        The value given.
    spec : str
        Its SPEC.
    source : str
        The notebook, for the message.

    Returns
    -------
    object
        The normalised value.

    Examples
    --------
    >>> check_value("alpha", 1, "float in (0, 1]")
    1.0
    """
    try:
        checker = parse_spec(spec)
    except ValueError as err:
        raise ParameterError(f"{source}: parameter {name} has an unreadable 'Allowed:' annotation ({err}). "
                             "Fix: use a SPEC of CONTRIBUTING.md convention 4.") from None
    ok, normalised = checker(value)
    if not ok:
        raise ParameterError(f"{source}: parameter {name} = {value!r} is not allowed. Allowed: {spec}. "
                             f"Fix: -p {name} VALUE with such a value.")
    return normalised


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


@validate_params(declared=Instance(Mapping), given=Instance(Mapping), source=STR, specs=[Instance(Mapping), None])
def coerce_parameters(declared: dict, given: dict, source: str = "notebook", specs: dict | None = None) -> dict:
    """Check ``given`` against the declared defaults and their ``Allowed:`` SPECs; ints are accepted for floats.

    Parameters
    ----------
    declared : dict
        The notebook's defaults (:func:`declared_parameters`).
    given : dict
        The values given.
    source : str
        The notebook, for messages.
    specs : dict, optional
        The SPECs (:func:`parameter_specs`).

    Returns
    -------
    dict
        The checked values.

    Examples
    --------
    >>> import nbformat
    >>> source = ('seed = 0  # the seed. Allowed: int >= 0\\n'
    ...           'measure = "map"  # the measure. Allowed: one of map, P_10\\n')
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})])
    >>> coerce_parameters(declared_parameters(nb), {"seed": 2}, specs=parameter_specs(nb))
    {'seed': 2}
    >>> coerce_parameters(declared_parameters(nb), {"sed": 2}, "pool_depth", specs=parameter_specs(nb))
    Traceback (most recent call last):
    ...
    fireeval.book.notebooks.ParameterError: pool_depth has no parameter sed; its parameters are: seed (default 0), measure (default 'map')
    """
    unknown = sorted(set(given) - set(declared))
    if unknown:
        listing = ", ".join(f"{k} (default {declared[k]!r})" for k in declared)
        raise ParameterError(f"{source} has no parameter {', '.join(unknown)}; its parameters are: {listing}")
    specs = specs or {}
    out = {}
    for name, value in given.items():
        default = declared[name]
        if specs.get(name):
            out[name] = check_value(name, value, specs[name], source)
            continue
        if not _type_ok(value, default):
            raise ParameterError(f"{source}: parameter {name} expects {type(default).__name__} "
                                 f"(default {default!r}), got {type(value).__name__} {value!r}")
        out[name] = float(value) if isinstance(default, float) and isinstance(value, int) else value
    return out


#: Parameters that name the reader's files and folders, by name in every chapter (CONTRIBUTING.md), and
#: what each path names: ``folder`` (must exist), ``new folder`` (made by the chapter), ``file`` (must exist;
#: a data-registry path such as ``charades_sta/predictions/X.json`` is left for the chapter to find in its
#: data folder), ``file or tag`` (a file when one is there, else a run tag). Strings, lists and dicts alike.
PATH_PARAMETERS = {"data_dir": "folder", "cache_dir": "new folder", "qrels": "file", "extra_runs": "file",
                   "extra_runs_pooled": "file or tag", "predictions": "file", "similarity": "file"}


@validate_params(params=Instance(Mapping), cwd=[Instance(str, os.PathLike), None], option=[Instance(Mapping), None])
def resolve_paths(params: dict, cwd=None, option=None) -> dict:
    """``params`` with every path a reader gave (:data:`PATH_PARAMETERS`, in strings, lists and dict values)
    made absolute against ``cwd`` (default: the caller's working directory), each named file and folder
    checked to exist, before any kernel starts: the kernel runs in the chapter's folder, where a relative
    path would mean another file. Idempotent. A missing file is a :class:`ParameterError` of one line,
    naming the parameter, the path looked for and the fix. ``option`` names a parameter's command-line
    form in messages (``{"data_dir": "--data-dir"}``).

    Parameters
    ----------
    params : dict
        The parameters.
    cwd : path-like, optional
        The folder relative paths are read from.
    option : dict, optional
        ``{parameter: command-line option}`` for messages.

    Returns
    -------
    dict

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "q.txt"), "w").write("401 0 d1 1\\n")
    >>> resolve_paths({"qrels": "q.txt", "seed": 1}, cwd=folder) == {"qrels": os.path.join(folder, "q.txt"), "seed": 1}
    True
    >>> resolve_paths({"qrels": "absent.txt"}, cwd=folder)
    Traceback (most recent call last):
    ...
    fireeval.book.notebooks.ParameterError: -p qrels absent.txt: no such file: /tmp/.../absent.txt (a relative path is read from /tmp/..., where you ran the command). Fix: check the path
    """
    import os

    cwd = Path(cwd or os.getcwd())
    out = dict(params)
    for name, kind in PATH_PARAMETERS.items():
        value = out.get(name)
        if value in (None, "", [], {}, ()):
            continue
        given = option.get(name) if option else None
        if isinstance(value, dict):
            out[name] = {k: _resolve_one(name, v, kind, cwd, given, key=k) for k, v in value.items()}
        elif isinstance(value, (list, tuple)):
            out[name] = [_resolve_one(name, v, kind, cwd, given) for v in value]
        else:
            out[name] = _resolve_one(name, value, kind, cwd, given)
    return out


def _resolve_one(name, value, kind, cwd: Path, option=None, key=None):
    if not isinstance(value, str) or not value:
        return value  # (not a path: the parameter's SPEC has refused or will refuse it)
    path = Path(value).expanduser()
    full = path if path.is_absolute() else cwd / path
    where = option or (f"-p {name}" + (f" (entry {key!r})" if key is not None else ""))
    relative = "" if path.is_absolute() else f" (a relative path is read from {cwd}, where you ran the command)"
    if kind == "new folder":
        return str(full)
    if kind == "folder":
        if not full.is_dir():
            what = "is a file, not a folder" if full.exists() else "no such folder"
            raise ParameterError(f"{where} {value}: {what}: {full}{relative}. Fix: name the folder holding the "
                                 "chapter's data (leave it out to use FIREEVAL_DATA or the synthetic stand-in)")
        return str(full)
    if full.is_file():
        return str(full)
    if kind == "file or tag" and not full.exists():
        return value  # a run tag (the chapter matches it against extra_runs)
    if full.is_dir():
        raise ParameterError(f"{where} {value}: is a folder, expected a file: {full}. Fix: name the file itself")
    if not path.is_absolute() and _registry_path(value):
        return value  # a data-folder path: the chapter finds it in its data folder and checks it there
    raise ParameterError(f"{where} {value}: no such file: {full}{relative}. Fix: check the path")


def _registry_path(value: str) -> bool:
    from fireeval.datasets import registry

    return value in registry()


@validate_params(cwd=[Instance(str, os.PathLike), None], data_dir=[Instance(str, os.PathLike), None])
def resolve_data_environment(cwd=None, data_dir=None) -> None:
    """Make a relative ``FIREEVAL_DATA`` absolute against ``cwd`` (the kernel, which inherits it, runs in
    the chapter's folder); unless ``data_dir`` names the folder instead, refuse one that names no folder:
    the named folder is the only place data are read from, so a wrong one must not wait until a chapter
    looks for its files.

    Parameters
    ----------
    cwd : path-like, optional
        The caller's folder.
    data_dir : path-like, optional
        A chapter's ``data_dir``, which overrides ``FIREEVAL_DATA``.

    Returns
    -------
    None

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp(); os.mkdir(os.path.join(folder, "data"))
    >>> saved = os.environ.get("FIREEVAL_DATA")
    >>> os.environ["FIREEVAL_DATA"] = "data"
    >>> resolve_data_environment(cwd=folder); os.environ["FIREEVAL_DATA"] == os.path.join(folder, "data")
    True
    >>> os.environ["FIREEVAL_DATA"] = "nodata"
    >>> resolve_data_environment(cwd=folder)
    Traceback (most recent call last):
    ...
    fireeval.book.notebooks.ParameterError: FIREEVAL_DATA=nodata: no such folder: /tmp/.../nodata. Fix: set FIREEVAL_DATA to the folder holding the data, or unset it (then ../shared/data, else the synthetic stand-in)
    >>> _ = os.environ.pop("FIREEVAL_DATA") if saved is None else os.environ.update(FIREEVAL_DATA=saved)
    """
    import os

    value = os.environ.get("FIREEVAL_DATA")
    if not value:
        return
    path = Path(value).expanduser()
    full = path if path.is_absolute() else Path(cwd or os.getcwd()) / path
    if not data_dir and not full.is_dir():
        raise ParameterError(f"FIREEVAL_DATA={value}: no such folder: {full}. Fix: set FIREEVAL_DATA to the "
                             "folder holding the data, or unset it (then ../shared/data, else the synthetic "
                             "stand-in)")
    os.environ["FIREEVAL_DATA"] = str(full)


#: The mimetype of the output by which the runner's last cell reports the data folders the chapter read.
DATA_FOLDERS_MIME = "application/vnd.fireeval.data-folders+json"
_DATA_CELL_TAG = "fireeval-data-folders"


def _with_data_cell(nb):
    """``nb`` with a last cell (removed again before the notebook is kept) that shows the data folders read.

    The cell also freezes the kernel's garbage collector (``gc.freeze``): the chapter is done, and the kernel
    is about to be shut down. Its exit runs its ``atexit`` hooks and unloads its modules as before, but the
    collections the interpreter makes on the way out no longer walk every object the chapter's imports made
    (pandas, scipy, statsmodels, altair's schema): a graceful shutdown of a chapter's kernel took about
    1.1 s, 0.2 s with the collector frozen (issue 38)."""
    import nbformat

    nb.cells.append(nbformat.v4.new_code_cell(
        "import IPython.display as _fireeval_display, fireeval.datasets as _fireeval_datasets, gc as _fireeval_gc\n"
        f"_fireeval_display.display({{{DATA_FOLDERS_MIME!r}: _fireeval_datasets.folders_read()}}, raw=True)\n"
        "_fireeval_gc.freeze()",
        metadata={"tags": ["remove-cell", _DATA_CELL_TAG]}))
    return nb


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"))
def data_folders_read(nb) -> list | None:
    """The data folders an executed notebook read (reported by its runner's last cell, which is removed
    from ``nb``), or None when that cell did not run.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook.

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> import nbformat
    >>> data_folders_read(nbformat.v4.new_notebook()) is None
    True
    """
    found = None
    keep = []
    for cell in nb.cells:
        if _DATA_CELL_TAG not in cell.get("metadata", {}).get("tags", []):
            keep.append(cell)
            continue
        for output in cell.get("outputs", []):
            if DATA_FOLDERS_MIME in output.get("data", {}):
                found = list(output["data"][DATA_FOLDERS_MIME])
    nb.cells = keep
    return found


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"))
def extract_headline(nb) -> dict | None:
    """The glued ``headline`` dict from an executed notebook (a NotebookNode or the plain dict of its JSON), or None.

    Parameters
    ----------
    nb : nbformat.NotebookNode or dict
        An executed notebook.

    Returns
    -------
    dict or None

    Examples
    --------
    >>> extract_headline({"cells": []}) is None
    True
    """
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook", {})
            if meta.get("name") != "headline":
                continue
            for mime, data in output.get("data", {}).items():
                if mime.endswith(HEADLINE_MIME):  # myst-nb prefixes glued mimetypes
                    return json.loads(data) if isinstance(data, str) else dict(data)
    return None


@validate_params(notebook=Instance(str, os.PathLike), parameters=[Instance(Mapping), None],
                 output_dir=[Instance(str, os.PathLike), None], kernel_name=STR, timeout=Int(1), progress=BOOL)
def execute(notebook, parameters: dict | None = None, output_dir=None, kernel_name: str = "python3",
            timeout: int = 3600, progress: bool = False) -> dict:
    """Validate parameters, execute the notebook with papermill, write the outputs atomically.

    Writes ``output_dir/<name>.ipynb`` (executed), ``output_dir/<name>.headline.json`` and
    ``output_dir/<name>.html`` (the page to read: :mod:`fireeval.book.page`) and returns the
    headline dict, with ``data_folder``: the data folder the chapter read (None when it read
    none). A chapter stopped by a :class:`fireeval.datasets.DataError` or
    ``DataUnavailable`` (e.g. real data that fail their checksum) fails with that one line.
    ``output_dir`` defaults to a temporary folder. Relative paths in the parameters
    (:data:`PATH_PARAMETERS`) and in ``FIREEVAL_DATA`` are read from the caller's working
    directory (:func:`resolve_paths`), and every file they name is checked before the kernel starts.

    The chapter runs in a temporary folder inside ``output_dir``; only when it finished,
    glued its headline and its page is written does one rename make that folder the results
    (the three names are links into it: :mod:`fireeval.book._results`), so the results
    appear together or not at all, even when the process is killed at any moment. A failure
    or an interruption (Ctrl-C; TERM through ``fireeval run``) before that rename leaves
    earlier results untouched, keeps the notebook as ``output_dir/<name>.failed.ipynb``
    (partial, or whole when execution had finished) and raises :class:`ChapterFailed` (or
    re-raises KeyboardInterrupt) naming it. A run killed outright (KILL) leaves its hidden
    ``.<name>.running-*`` folder, removed by the next run of the chapter into the same folder.

    Parameters
    ----------
    notebook : str or path-like
        A chapter's name or a notebook's path.
    parameters : dict, optional
        The parameters to run with.
    output_dir : path-like, optional
        Where the results go.
    kernel_name : str
        The Jupyter kernel.
    timeout : int
        Seconds a cell may run.
    progress : bool
        Show papermill's progress bar.

    Returns
    -------
    dict
        The headline.

    Examples
    --------
    A two-cell chapter (the kernel starts: a few seconds):

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> front = ("---\\njupytext:\\n  text_representation:\\n    extension: .md\\n    format_name: myst\\n"
    ...          "kernelspec:\\n  name: python3\\n  display_name: Python 3\\n  language: python\\n---\\n\\n")
    >>> path = os.path.join(folder, "tiny.md")
    >>> _ = open(path, "w").write(front + "```{code-cell} ipython3\\n:tags: [parameters]\\n"
    ...                           "n = 2  # a number. Allowed: int >= 1\\n```\\n\\n```{code-cell} ipython3\\n"
    ...                           "from fireeval.book import report\\nreport.headline({'square': n * n})\\n```\\n")
    >>> execute(path, {"n": 3}, output_dir=os.path.join(folder, "out"))
    {'square': 9, 'data_folder': None}
    >>> sorted(name for name in os.listdir(os.path.join(folder, "out")) if not name.startswith("."))
    ['tiny.headline.json', 'tiny.html', 'tiny.ipynb']
    """
    with _signals_noted() as noted:
        return _execute(notebook, parameters, output_dir, kernel_name, timeout, progress, noted)


def _execute(notebook, parameters, output_dir, kernel_name, timeout, progress, noted):
    import os
    import shutil

    import nbformat

    path = find_notebook(notebook)
    nb = load(path)
    params = coerce_parameters(declared_parameters(nb), dict(parameters or {}), source=str(path),
                               specs=parameter_specs(nb))
    params = resolve_paths(params)
    resolve_data_environment(data_dir=params.get("data_dir"))
    out = Path(output_dir).expanduser().absolute() if output_dir else Path(tempfile.mkdtemp(prefix="fireeval-"))
    refuse_data_directory(out, params.get("data_dir"))
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out}: --output exists and is not a folder. Fix: name a folder.")
    out.mkdir(parents=True, exist_ok=True)
    _check_kernel(kernel_name)
    _results.remove_stale(out, path.stem)
    work = Path(tempfile.mkdtemp(prefix=f".{path.stem}.running-", dir=out))
    (work / "pid").write_text(str(os.getpid()))
    failed = out / f"{path.stem}.failed.ipynb"
    partial = work / f"{path.stem}.ipynb"
    with _kernels_with_one_blas_thread():  # it boots while the notebook is written and papermill imported
        kernel = _start_kernel(kernel_name, path.parent)
    try:
        source_ipynb = work / "source.ipynb"
        nbformat.write(_with_data_cell(nb), source_ipynb)
        try:
            _papermill(source_ipynb, partial, params, kernel_name, path, progress, timeout, kernel)
            executed = nbformat.read(partial, as_version=4)
            folders = data_folders_read(executed)
            nbformat.write(executed, partial)  # (without the runner's cell)
            result = extract_headline(executed)
            if result is None:
                raise ChapterFailed(f"{path} ran but glued no 'headline' dict{{where}}. "
                                    "Fix: call fireeval.book.report.headline(...) in the chapter.")
            result = {**result, "data_folder": " + ".join(folders) if folders else None}
            (work / f"{path.stem}.headline.json").write_text(json.dumps(result, indent=1) + "\n")
            from fireeval.book.page import write_page

            missing = write_page(executed, work / f"{path.stem}.html", source=str(path), data=_data_line(folders))
            source_ipynb.unlink()
            if noted:  # an interruption whose KeyboardInterrupt Python dropped: it still stops the results
                raise KeyboardInterrupt
        except BaseException as err:
            where = _keep_partial(partial, failed)
            if isinstance(err, KeyboardInterrupt):
                import sys

                print(f"{path.stem}: interrupted; earlier results in {out} untouched{where}", file=sys.stderr, flush=True)
                raise
            if isinstance(err, ChapterFailed):
                raise ChapterFailed(str(err).replace("{where}", where)) from None
            if getattr(err, "ename", None) in ("DataError", "DataUnavailable"):  # already one line with its fix
                raise ChapterFailed(f"{path}: {' '.join(str(err.evalue).split())} (earlier results in {out} are "
                                    f"untouched{where})") from err
            short = _short(err)
            fix = "" if "Fix:" in short else (f" Fix: see the failing cell there; check the parameters "
                                              f"{params or '(none given)'}.")
            raise ChapterFailed(f"{path}: the chapter failed: {short}. Earlier results in {out} are "
                                f"untouched{where}.{fix}") from err
        if missing:
            import sys

            print(f"warning: {path}: the prose names {len(missing)} value(s) the chapter did not glue "
                  f"({', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}); the page marks them",
                  file=sys.stderr)
        try:
            with _signals_held():  # (a Ctrl-C meanwhile ends the command once the results are in place)
                run = work.with_name(work.name.replace(".running-", ".run-", 1))
                os.rename(work, run)
                work = run
                try:
                    _results.publish(run, out, path.stem)  # one rename: this run's three files, or the previous
                except BaseException:
                    if not _results.is_current(out, path.stem, run):
                        _keep_partial(run / f"{path.stem}.ipynb", failed)
                    raise
                work = None  # (the results now)
                (run / "pid").unlink(missing_ok=True)
                failed.unlink(missing_ok=True)
        except KeyboardInterrupt:
            import sys

            print(f"{path.stem}: interrupted once this run's results were in place in {out}", file=sys.stderr,
                  flush=True)
            raise
        return result
    finally:
        _stop_kernel(kernel)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)


def _data_line(folders) -> str:
    if folders is None:
        return ""
    return f"Data read from {' and '.join(folders)}." if folders else "No data folder read."


@contextlib.contextmanager
def _signals_noted():
    """Note each SIGINT and SIGTERM while a chapter runs, and hand it on to its own handler.

    A handler's KeyboardInterrupt raised while Python runs a callback (a weakref's during an import, a
    ``__del__``) is printed as "ignored" and lost, and the run would go on to replace the previous
    results; the note stops it before that rename. Yields the list of the signals noted.
    """
    import os
    import signal
    import threading

    noted = []
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = {}

    def note(signum, frame):
        noted.append(signum)
        handler = previous[signum]
        if callable(handler):
            handler(signum, frame)
        elif handler in (None, signal.SIG_DFL):  # (TERM's default: the process ends, as it would have)
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, note)
    try:
        yield noted
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


@contextlib.contextmanager
def _signals_held():
    """Hold back SIGINT, SIGTERM and SIGHUP around a few quick steps that must not be cut apart: a signal
    that arrives meanwhile is recorded and handed to its own handler when the block ends. (Python runs
    signal handlers in the main thread, whichever thread the signal reached, so this holds them all.)"""
    import os
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got = []
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        previous[signum] = signal.signal(signum, lambda number, frame: got.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if got:
            handler = previous[got[0]]
            if callable(handler):
                handler(got[0], None)
            elif handler in (None, signal.SIG_DFL):
                os.kill(os.getpid(), got[0])


@validate_params(out=Instance(str, os.PathLike), data_dir=[Instance(str, os.PathLike), None])
def refuse_data_directory(out: Path, data_dir=None) -> None:
    """Outputs never go into a data directory (the shared data, FIREEVAL_DATA, the chapter's data_dir).

    Parameters
    ----------
    out : pathlib.Path
        The output folder.
    data_dir : path-like, optional
        A chapter's ``data_dir``.

    Returns
    -------
    None

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> refuse_data_directory(folder / "out", data_dir=folder / "data")
    >>> refuse_data_directory(folder / "data" / "out", data_dir=folder / "data")
    Traceback (most recent call last):
    ...
    fireeval.book.notebooks.ParameterError: --output /tmp/.../data/out is inside the data directory /tmp/.../data; nothing is written there. Fix: name another folder, e.g. --output results/.
    """
    from fireeval.book._kept import data_folder_holding

    root = data_folder_holding(out, data_dir)
    if root is not None:
        raise ParameterError(f"--output {out} is inside the data directory {root}; nothing is written there. "
                             "Fix: name another folder, e.g. --output results/.")


#: The thread-count variables of the BLAS and OpenMP libraries that numpy, scipy and scikit-learn load.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@validate_params(environ=[Instance(Mapping, fix="pass a dict of environment variables"), None])
def kernel_environment(environ=None) -> dict:
    """The environment a chapter's kernel starts with: ``environ`` with one BLAS thread unless it names a count.

    With two BLAS threads, a sum over resampled means is added in another order than with one, so a
    value's last digits depended on the machine's cores (an interval end of pool_leave_out moved by
    1e-6), and idle BLAS threads spun beside the book's two workers (about 7 CPU-s of pool_depth's
    run). ``fireeval run``, the book's build and the tests' re-execution all start kernels with this
    environment; a count the user set is kept.

    Parameters
    ----------
    environ : mapping or None
        The environment to start from (default: this process's ``os.environ``).

    Returns
    -------
    dict
        A copy of ``environ`` in which each of :data:`BLAS_THREAD_VARIABLES` is set ("1" where unset).

    Examples
    --------
    >>> kernel_environment({"HOME": "/home/me"})["OPENBLAS_NUM_THREADS"]
    '1'
    >>> kernel_environment({"OMP_NUM_THREADS": "4"})["OMP_NUM_THREADS"]
    '4'
    """
    environment = dict(os.environ if environ is None else environ)
    for variable in BLAS_THREAD_VARIABLES:
        environment.setdefault(variable, "1")
    return environment


@contextlib.contextmanager
def _kernels_with_one_blas_thread():
    """os.environ as :func:`kernel_environment` has it while a kernel starts (it inherits this process's)."""
    added = {k: v for k, v in kernel_environment().items() if k not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for variable in added:
            os.environ.pop(variable, None)


def _start_kernel(kernel_name: str, cwd: Path):
    """The chapter's kernel, started now, as papermill's client (nbclient) would start it: an
    ``AsyncKernelManager`` for ``kernel_name``, in the chapter's folder (``cwd``), with an IPython history
    kept in memory; the environment is this process's at this moment.

    Issue 38: papermill started the kernel only once it had imported itself and begun the run, so each
    ``fireeval run`` waited about a second for the kernel to boot after every step of its own was done.
    Started here, it boots while the notebook is written and papermill is imported; papermill's client is
    handed it (:func:`_save_at_end_engine`) and shuts it down when execution ends, as it does its own.
    Where ``FIREEVAL_KERNEL_SERVER`` names a fork server (:func:`fireeval.book.forked_kernels.serve_kernels`),
    the kernel is forked from it instead."""
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import run_sync

    manager = AsyncKernelManager
    if os.environ.get("FIREEVAL_KERNEL_SERVER"):  # a fork server runs for this process (the test suite's runs)
        from fireeval.book.forked_kernels import ForkedKernelManager as manager
    km = manager(kernel_name=kernel_name)
    extra = ["--HistoryManager.hist_file=:memory:"] if km.ipykernel else []  # nbclient's ipython_hist_file
    run_sync(km.start_kernel)(extra_arguments=extra, cwd=str(cwd))
    return km


def _stop_kernel(km) -> None:
    """Shut down a kernel of :func:`_start_kernel` that papermill's client did not (the run stopped before
    or while papermill started); nothing when it already ended."""
    from jupyter_core.utils import run_sync

    if km.has_kernel:
        run_sync(km.shutdown_kernel)(now=True)


def _papermill(source, target, params, kernel_name, path, progress, timeout, kernel=None):
    import logging

    import papermill

    # Papermill re-parses the parameters cell to warn about unknown names; it cannot read
    # 'Allowed: int >= 1' comments (it counts '=' signs) and would warn on every run. The
    # parameters were validated above, so its parser's warnings carry nothing.
    for name in ("papermill.translators", "papermill.execute", "papermill"):
        logging.getLogger(name).setLevel(logging.ERROR)

    with _kernels_with_one_blas_thread():  # a kernel papermill starts itself inherits os.environ
        papermill.execute_notebook(str(source), str(target), parameters=params, kernel_name=kernel_name,
                                   cwd=str(path.parent), progress_bar=progress, execution_timeout=timeout,
                                   engine_name=_save_at_end_engine(), **({"km": kernel} if kernel else {}))


#: The papermill engine :func:`execute` runs chapters with (:func:`_save_at_end_engine`).
SAVE_AT_END_ENGINE = "fireeval-save-at-end"


@functools.cache
def _save_at_end_engine() -> str:
    """papermill's own engine (nbclient), saving the executed notebook once, when execution ends.

    papermill writes the whole output notebook at the start and at the end of every cell (to watch a long
    run from outside): each write serialises and validates every output so far, the charts' data among
    them, and a chapter waits for it between cells (93 writes, about a tenth of ``fireeval run metrics
    --quick``). Nobody reads that file before the run ends (it is in the run's hidden folder), so this
    engine writes it only when execution ends: finished, failed (with papermill's error marker) or
    interrupted, exactly as papermill's last save writes it. Registered with papermill once; returns its name.
    """
    from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines

    class SaveAtEnd(NotebookExecutionManager):
        ended = False

        def save(self, **kwargs):  # papermill calls it at every cell's start and end
            if self.ended:
                super().save(**kwargs)

        def notebook_complete(self, **kwargs):  # execution ended (in papermill's finally): the one save
            self.ended = True
            return super().notebook_complete(**kwargs)

    class SaveAtEndEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, stdout_file=None,
                                     stderr_file=None, start_timeout=60, execution_timeout=None, km=None, **kwargs):
            """papermill's own (NBClientEngine's) with a kernel already started (``km``): its client shuts the
            kernel down and closes its channels when execution ends, as it does with a kernel it started."""
            if km is None:
                return super().execute_managed_notebook(nb_man, kernel_name, log_output=log_output,
                                                        stdout_file=stdout_file, stderr_file=stderr_file,
                                                        start_timeout=start_timeout,
                                                        execution_timeout=execution_timeout, **kwargs)
            from papermill.clientwrap import PapermillNotebookClient
            from papermill.log import logger
            from papermill.utils import merge_kwargs, remove_args

            kwargs = remove_args(["input_path", "timeout", "startup_timeout"], **kwargs)
            client = PapermillNotebookClient(nb_man, km=km, **merge_kwargs(
                kwargs, timeout=execution_timeout, startup_timeout=start_timeout, kernel_name=kernel_name,
                log=logger, log_output=log_output, stdout_file=stdout_file, stderr_file=stderr_file))
            return client.execute(cleanup_kc=True)

        @classmethod
        def execute_notebook(cls, nb, kernel_name, output_path=None, progress_bar=True, log_output=False,
                             autosave_cell_every=30, **kwargs):  # papermill's Engine.execute_notebook, our manager
            nb_man = SaveAtEnd(nb, output_path=output_path, progress_bar=progress_bar, log_output=log_output,
                               autosave_cell_every=autosave_cell_every)
            nb_man.notebook_start()
            try:
                cls.execute_managed_notebook(nb_man, kernel_name, log_output=log_output, **kwargs)
            finally:
                nb_man.cleanup_pbar()
                nb_man.notebook_complete()
            return nb_man.nb

    papermill_engines.register(SAVE_AT_END_ENGINE, SaveAtEndEngine)
    return SAVE_AT_END_ENGINE


def _check_kernel(kernel_name: str) -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(kernel_name)
    except NoSuchKernel:
        known = ", ".join(sorted(KernelSpecManager().find_kernel_specs())) or "none installed"
        raise ParameterError(f"no Jupyter kernel named {kernel_name!r} (installed: {known}). "
                             "Fix: --kernel with one of those, or install one with ipykernel.") from None


def _keep_partial(partial: Path, failed: Path) -> str:
    """Move the partial notebook beside the results as ``<name>.failed.ipynb``; the phrase naming it."""
    import os

    if partial.exists():
        try:  # without the runner's own last cell
            import nbformat

            nb = nbformat.read(partial, as_version=4)
            data_folders_read(nb)
            nbformat.write(nb, partial)
        except Exception:  # noqa: BLE001 -- a notebook cut short: kept as it is
            pass
        os.replace(partial, failed)
        return f"; the partial notebook is {failed}"
    return "; no partial notebook was written"


def _short(err: BaseException) -> str:
    """One line from an exception (papermill's carries the cell's traceback: keep its last line)."""
    ename, evalue = getattr(err, "ename", None), getattr(err, "evalue", None)
    if ename:
        return f"{ename}: {' '.join(str(evalue).split())[:300]}"
    return f"{type(err).__name__}: {' '.join(str(err).split())[:300]}"


#: Tag of the markdown cell :func:`with_install_cell` puts first in a downloaded notebook.
INSTALL_TAG = "fireeval-install"


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"), chapter=STR)
def install_note(nb, chapter: str) -> str:
    """Markdown that tells the reader of a downloaded notebook how to install what ``chapter`` needs.

    Names the wheel of this version, the command that re-runs the chapter, the data folder
    the chapter reads (from its ``data_dir`` parameter's comment), for a chapter that
    uses WordNet, the Debian packages, and for one checked against pytrec_eval, the wheel's
    ``oracle`` extra that installs it.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The chapter.
    chapter : str
        Its name.

    Returns
    -------
    str

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
    ...     'data_dir = None  # folder holding trec8_adhoc/ (default: FIREEVAL_DATA). Allowed: str or None',
    ...     metadata={"tags": ["parameters"]})])
    >>> text = install_note(nb, "pool_depth")
    >>> "pip install 'fireeval-" in text and "[book]" in text and "fireeval run pool_depth --quick" in text and "trec8_adhoc/" in text
    True
    """
    import re
    from importlib.metadata import PackageNotFoundError, version

    try:
        __version__ = version("fireeval")
    except PackageNotFoundError:  # run from a source tree that was never installed
        __version__ = "0.1.0"
    cell = _parameters_cell(nb)
    found = re.search(r"^data_dir\s*=.*#\s*folder holding (.+?)\s*\(", cell.source if cell else "", re.M)
    data = f"the folder holding {found.group(1)}" if found else "the data folder"
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    wordnet = ("\n\nThis chapter's semantic proxies read WordNet 3.0 offline: on Debian or Ubuntu, "
               "`sudo apt-get install wordnet-base wordnet-sense-index`." if "wordnet" in source.lower() else "")
    oracle = (f"\n\nThis chapter checks fireeval against trec_eval's own C code through `pytrec_eval`, which the "
              f"wheel does not install (without it that claim is \"not testable here\"): install the wheel with "
              f"its `oracle` extra, `pip install 'fireeval-{__version__}-py3-none-any.whl[book,oracle]'` (or `pip "
              f"install pytrec_eval-terrier==0.5.11`)." if "pytrec_eval" in source else "")
    return f"""**Running this notebook outside the book.** It needs Python 3.11 or 3.12 and the `fireeval` \
package {__version__} with its `book` extra (altair, papermill, ... beside the library's numpy, pandas, ...). \
In an empty folder:

```bash
python3 -m venv .venv && . .venv/bin/activate
pip install 'fireeval-{__version__}-py3-none-any.whl[book]'   # built from the repository with: python -m build
pip install jupyterlab                                        # only to open the notebook itself
```

Without the wheel, `pip install '.[book]'` from a checkout of the repository does the same. Then either open \
this notebook with that environment's kernel, or re-run the chapter with your own parameters, which \
checks them first and writes the executed notebook and its headline numbers:

```bash
fireeval run {chapter} --quick --output results/              # small settings: seconds, no data needed
fireeval run {chapter} --data-dir DIR -p NAME VALUE --output results/
```

Data: give {data} as `--data-dir` (or set `data_dir` in the parameters cell, or the `FIREEVAL_DATA` \
environment variable). Without it the chapter runs on a seeded synthetic stand-in and says so.{wordnet}{oracle}"""


@validate_params(nb=Instance(Mapping, fix="pass a notebook (nbformat.NotebookNode)"), chapter=STR)
def with_install_cell(nb, chapter: str):
    """A copy of ``nb`` whose first cell is :func:`install_note` (tagged ``fireeval-install``), once.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The chapter.
    chapter : str
        Its name.

    Returns
    -------
    nbformat.NotebookNode

    Examples
    --------
    >>> import nbformat
    >>> source = ('seed = 0  # the seed. Allowed: int >= 0\\n'
    ...           'measure = "map"  # the measure. Allowed: one of map, P_10\\n')
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})])
    >>> with_install_cell(nb, "pool_depth").cells[0].metadata["tags"]
    ['fireeval-install']
    """
    import copy

    import nbformat

    out = copy.deepcopy(nb)
    out.cells = [c for c in out.cells if INSTALL_TAG not in c.get("metadata", {}).get("tags", [])]
    out.cells.insert(0, nbformat.v4.new_markdown_cell(install_note(nb, chapter), metadata={"tags": [INSTALL_TAG]}))
    return out
