"""papermill runs the chapters as shipped: ``papermill notebooks/pool_depth.md out.ipynb -p measure P_10``.

Loaded by papermill itself through the ``papermill.io`` entry point of this package
(``pyproject.toml``), so nothing needs importing by hand. It adds three things:

* **Text notebooks.** :class:`TextNotebookHandler` reads ``.md`` (MyST) notebooks with
  jupytext and hands papermill the ``.ipynb`` JSON (writing a ``.md`` output writes it
  back as MyST). papermill picks an I/O handler by the path's *prefix* (its
  ``scheme``: ``s3://``, ``http``...) and has no hook for an extension, so loading
  this module also routes paths ending in ``.md``/``.myst`` to the handler (a narrow
  wrap of ``PapermillIO.get_handler``; every other path goes where it went before).
* **Every parameter, with its allowed values.** papermill's Python translator infers
  parameters with a regular expression after counting ``=`` signs per line, so a
  comment holding ``>=`` or ``<=`` (``Allowed: int >= 1``) hides its parameter from
  ``papermill --help-notebook`` and from the unknown-parameter check. The translator
  registered here for Python reads the cell with Python's own parser (``ast`` and
  ``tokenize``, :func:`fireeval.book.notebooks.declared_parameters`) and shows each
  parameter's ``Allowed:`` SPEC as its type. A cell with anything but ``name = literal``
  lines (annotations, code) or that does not parse is left to papermill's own inspection.
* **Typed and validated values.** papermill passes ``-p`` values as strings unless
  they look like int/float/bool/None; for a notebook whose parameters carry
  ``Allowed:`` SPECs (a fireeval chapter), the translator reads a string given for a
  list, dict, or tuple parameter (or a list SPEC) as a Python literal (``-p ks "[1, 5]"``),
  then validates every value exactly as ``fireeval run`` does
  (:func:`fireeval.book.notebooks.coerce_parameters`) before anything executes. A
  refused value stops papermill: inside the ``papermill`` command with the same one
  line as ``fireeval run`` and exit status 2; from Python with
  :class:`fireeval.book.notebooks.ParameterError`. ``-y`` YAML values arrive typed
  already and are validated the same way. Paths the reader gives (``data_dir``, ``qrels``,
  ``extra_runs``, ``predictions``, ...: :data:`fireeval.book.notebooks.PATH_PARAMETERS`, in
  strings, lists and dicts) and ``FIREEVAL_DATA`` are made absolute against papermill's
  working directory before the kernel starts in the notebook's folder, and every file they
  name is checked then. Notebooks without ``Allowed:`` SPECs are parameterised exactly as
  papermill does.
"""
from __future__ import annotations

import ast
import os
import sys
import threading
from fireeval.core.validation import validate_params

__all__ = ["TextNotebookHandler", "FireevalPythonTranslator", "install", "TEXT_SUFFIXES"]

#: Extensions read with jupytext (MyST markdown).
TEXT_SUFFIXES = (".md", ".myst", ".mystnb")

_state = threading.local()  # the parameters cell papermill inspected last (it then parameterises that notebook)


def _is_text_notebook(path) -> bool:
    return isinstance(path, str) and path.split("?")[0].lower().endswith(TEXT_SUFFIXES)


class TextNotebookHandler:
    """papermill I/O for text notebooks: read through jupytext, write ``.md`` back as MyST.

    Examples
    --------
    >>> import nbformat, os, tempfile
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    >>> nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    >>> path = os.path.join(tempfile.mkdtemp(), "n.md")
    >>> TextNotebookHandler.write(nbformat.writes(nb), path)
    >>> "```{code-cell}\\nx = 1\\n```" in open(path).read()
    True
    >>> nbformat.reads(TextNotebookHandler.read(path), as_version=4).cells[0].source
    'x = 1'
    """

    @staticmethod
    def _local():
        from papermill.iorw import LocalHandler

        return LocalHandler()

    @classmethod
    def read(cls, path):
        import jupytext
        import nbformat

        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such notebook. Fix: check the path.")
        nb = jupytext.read(path)
        return nbformat.writes(nb)

    @classmethod
    def write(cls, buf, path):
        import jupytext
        import nbformat

        if not _is_text_notebook(path):
            return cls._local().write(buf, path)
        folder = os.path.dirname(path)
        if folder and not os.path.isdir(folder):
            raise FileNotFoundError(f"output folder {folder} doesn't exist.")
        jupytext.write(nbformat.reads(buf, as_version=4), path, fmt="md:myst")

    @classmethod
    def listdir(cls, path):
        return cls._local().listdir(path)

    @classmethod
    def pretty_path(cls, path):
        return path


def _route_text_notebooks() -> None:
    """Send paths ending in a text-notebook suffix to :class:`TextNotebookHandler` (once)."""
    import papermill.iorw as iorw

    cls = iorw.PapermillIO
    if getattr(cls.get_handler, "_fireeval", False):
        return
    original = cls.get_handler

    def get_handler(self, path, extensions=None):
        if _is_text_notebook(path) and "://" not in path:
            return TextNotebookHandler
        return original(self, path, extensions)

    get_handler._fireeval = True
    cls.get_handler = get_handler


def _translator_base():
    from papermill.translators import PythonTranslator

    return PythonTranslator


def _make_translator():
    from papermill.models import Parameter

    base = _translator_base()

    class FireevalPythonTranslator(base):
        """papermill's Python translator, reading the parameters cell with ``ast`` (see the module docstring).

        Examples
        --------
        >>> install()
        >>> from fireeval.book.papermill_io import FireevalPythonTranslator as translator
        >>> cell = {"source": "seed = 0  # the seed. Allowed: int >= 0\\n"}
        >>> [(p.name, p.inferred_type_name, p.default) for p in translator.inspect(cell)]
        [('seed', 'int >= 0', '0')]
        >>> print(translator.codify({"seed": 3}).strip())
        # Parameters
        seed = 3
        """

        @classmethod
        def inspect(cls, parameters_cell):
            from fireeval.book.notebooks import ParameterError, parameter_comments, declared_parameters, parameter_specs

            _state.cell = None
            source = parameters_cell["source"]
            nb = _cell_notebook(parameters_cell)
            try:
                body = ast.parse(source).body
                if not all(isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                           for n in body):  # annotations, imports, code: papermill's own reading
                    return super().inspect(parameters_cell)
                declared, specs = declared_parameters(nb), parameter_specs(nb)
                comments = parameter_comments(source)
            except (SyntaxError, ValueError, ParameterError):
                return super().inspect(parameters_cell)
            _state.cell = (source, declared, specs)
            params = []
            for name, default in declared.items():
                help_text = comments.get(name, "")
                type_name = specs.get(name) or type(default).__name__
                params.append(Parameter(name=name, inferred_type_name=type_name, default=repr(default),
                                        help=help_text))
            return params

        @classmethod
        def codify(cls, parameters, comment="Parameters"):
            inspected, _state.cell = getattr(_state, "cell", None), None  # one inspection, one parameterisation
            if inspected is not None and any(inspected[2].values()):
                parameters = _validate(parameters, inspected)
            return super().codify(parameters, comment)

    return FireevalPythonTranslator


def _cell_notebook(cell):
    """The minimal notebook :func:`fireeval.book.notebooks.declared_parameters` reads: one parameters cell."""
    from nbformat import NotebookNode

    return NotebookNode(cells=[NotebookNode(cell_type="code", source=cell["source"],
                                            metadata=NotebookNode(tags=["parameters"]))])


def _validate(parameters: dict, inspected) -> dict:
    """Strings given for list/dict parameters read as literals, then every value checked as ``fireeval run`` does."""
    from fireeval.book.notebooks import (ParameterError, coerce_parameters, parse_value, resolve_data_environment,
                                         resolve_paths)

    source, declared, specs = inspected
    builtin = {k: v for k, v in parameters.items() if k in _BUILTIN}
    given = {}
    for name, value in parameters.items():
        if name in builtin:
            continue
        default, spec = declared.get(name), specs.get(name) or ""
        structured = isinstance(default, (list, dict, tuple)) or spec.startswith(("list", "dict"))
        if isinstance(value, str) and structured:
            value = parse_value(value)
        given[name] = value
    try:
        checked = coerce_parameters(declared, given, source="notebook", specs=specs)
        # papermill starts the kernel in the notebook's folder (or --cwd): paths the reader gave are made
        # absolute here, against papermill's own working directory, and the files they name checked
        checked = resolve_paths(checked)
        resolve_data_environment(data_dir=checked.get("data_dir"))
    except ParameterError as err:
        if _in_papermill_command():
            print(f"papermill: {' '.join(str(err).split())}", file=sys.stderr)
            raise SystemExit(2) from None
        raise
    return {**checked, **builtin}


#: The parameters papermill itself adds (``--inject-paths``); any other name is checked like the reader's.
_BUILTIN = ("PAPERMILL_INPUT_PATH", "PAPERMILL_OUTPUT_PATH")


def _in_papermill_command() -> bool:
    return os.path.basename(sys.argv[0] if sys.argv else "").startswith("papermill")


FireevalPythonTranslator = None


@validate_params()
def install() -> None:
    """Route text notebooks to the handler and register the translator for Python (idempotent).

    Returns
    -------
    None

    Examples
    --------
    >>> install()
    >>> import papermill.translators
    >>> papermill.translators.papermill_translators.find_translator("python3", "python").__name__
    'FireevalPythonTranslator'
    """
    global FireevalPythonTranslator
    from papermill.translators import papermill_translators

    _route_text_notebooks()
    if FireevalPythonTranslator is None:
        FireevalPythonTranslator = _make_translator()
    papermill_translators.register("python", FireevalPythonTranslator)


install()
