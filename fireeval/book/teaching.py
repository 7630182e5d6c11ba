"""What a lecturer needs from a chapter: worked solutions that are computed, and times.

Worked solutions
----------------
An exercise that runs the chapter with another parameter (``fireeval run pool_depth -p
split_depth 5``) has a folded worked solution that says what that run shows. Its numbers
are never typed: the chapter computes them while it runs -- by calling the same
``fireeval`` function with the exercise's setting -- glues each one for the solution's
prose, and records it in its headline under ``exercise_solutions`` together with the
place in the *exercise run's* headline where the same value must appear.
``tests/book/test_commands.py`` runs every exercise command, reads that place in its headline
and fails when it differs from what the solution states, so a solution cannot drift from
what the exercise really prints.

>>> solutions = Solutions()
>>> solutions.state(1, "verdict", "reproduced", check="claims[depth.map].verdict")
>>> solutions.state(1, "tau", 0.931, check="tau_by_depth.5")
>>> solutions.state(2, "prediction_holds", True)  # stated, glued, not checked
>>> solutions.record()["1"]
{'verdict': {'value': 'reproduced', 'check': 'claims[depth.map].verdict'}, 'tau': {'value': 0.931, 'check': 'tau_by_depth.5'}}

A ``check`` is a path into a headline: dotted keys, ``[id]`` to pick the claim (or any
list item) whose ``id`` is ``id``, ``[2]`` for a list position, and ``["a.b"]`` for a key
that contains a dot:

>>> h = {"claims": [{"id": "depth.map", "verdict": "reproduced"}], "tau": {"ndcg_cut.10": [0.5, 0.9]}}
>>> lookup(h, "claims[depth.map].verdict"), lookup(h, 'tau["ndcg_cut.10"][1]')
('reproduced', 0.9)
>>> same(0.1 + 0.2, 0.3), same({"a": [1, 2.0]}, {"a": [1, 2]}), same("x", "y")
(True, True, False)

Times
-----
Each chapter opens with the time to read it and to run it. :func:`reading_minutes`
counts the prose words of a chapter's source (code, front matter and directive options
left out) at 200 words a minute; :class:`RunClock` measures the run itself and glues it
at the end of the notebook, so the figure at the top is the one this build took.
"""
from __future__ import annotations

from collections.abc import Mapping
import math
import re
import time
from pathlib import Path
import os
from fireeval.core.validation import ANY, BOOL, STR, Instance, Int, Real, validate_params

__all__ = ["Solutions", "lookup", "same", "reading_minutes", "unfolded_words", "visible_code_cells", "RunClock", "SOLUTION_TOLERANCE", "WORDS_PER_MINUTE"]

#: Relative and absolute tolerance when a solution's number is checked against the exercise's run.
SOLUTION_TOLERANCE = 1e-9
#: Reading speed for technical prose with equations (plain prose is read faster).
WORDS_PER_MINUTE = 200

_STEP = re.compile(r"""\.?(?:\[\s*"(?P<quoted>[^"]*)"\s*\]|\[(?P<bracket>[^\]]+)\]|(?P<key>[^.\[\]]+))""")


class Solutions:
    """The statements of a chapter's worked solutions, glued for the prose and kept for the headline.

    Examples
    --------
    >>> solutions = Solutions()
    >>> solutions.state(1, "depth", 5, check="split_depth", glue=False)
    >>> solutions.record()
    {'1': {'depth': {'value': 5, 'check': 'split_depth'}}}
    """

    def __init__(self):
        self._by_exercise: dict[str, dict[str, dict]] = {}

    def state(self, exercise: int, name: str, value, *, check: str | None = None, glue: bool = True) -> None:
        """State ``value`` in exercise ``exercise``'s solution; glue it as ``ex<exercise>_<name>``.

        ``check`` is the path of the same value in the headline of a run of the exercise's
        command (see :func:`lookup`); leave it out for statements the exercise's run does not
        print (a derived sentence, a comparison with the chapter's own run).
        """
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise ValueError(f"solution statement name {name!r}: use letters, digits and '_' (it becomes a glue name)")
        if check is not None:
            _steps(check)  # a malformed path fails here, in the chapter, not later in the tests
        self._by_exercise.setdefault(str(int(exercise)), {})[name] = {"value": value, "check": check}
        if glue:
            from fireeval.book.report import glue as glue_value

            glue_value(f"ex{int(exercise)}_{name}", value)

    def record(self) -> dict:
        """``{exercise: {name: {"value", "check"}}}`` for the headline's ``exercise_solutions``."""
        return {k: dict(v) for k, v in self._by_exercise.items()}


def _steps(path: str) -> list:
    steps, at = [], 0
    while at < len(path):
        match = _STEP.match(path, at)
        if not match or match.end() == at:
            raise ValueError(f"headline path {path!r}: cannot read from position {at} "
                             f"(use a.b, list[id], list[2] or a[\"key.with.dots\"])")
        if match.group("quoted") is not None:
            steps.append(("key", match.group("quoted")))
        elif match.group("bracket") is not None:
            text = match.group("bracket").strip()
            steps.append(("index", int(text)) if re.fullmatch(r"-?\d+", text) else ("id", text))
        else:
            steps.append(("key", match.group("key")))
        at = match.end()
    return steps


@validate_params(headline=Instance(Mapping), path=STR)
def lookup(headline: dict, path: str):
    """The value at ``path`` in ``headline`` (see the module docstring); KeyError names the missing step.

    Parameters
    ----------
    headline : dict
        A headline.
    path : str
        The path.

    Returns
    -------
    object

    Examples
    --------
    >>> lookup({"claims": [{"id": "c", "verdict": "reproduced"}]}, "claims[c].verdict")
    'reproduced'
    """
    value = headline
    for kind, step in _steps(path):
        if kind == "key" and isinstance(value, dict) and step in value:
            value = value[step]
        elif kind == "index" and isinstance(value, list) and -len(value) <= step < len(value):
            value = value[step]
        elif kind == "id" and isinstance(value, list):
            found = [item for item in value if isinstance(item, dict) and str(item.get("id")) == step]
            if not found:
                raise KeyError(f"{path}: no item with id {step!r}")
            value = found[0]
        elif kind == "id" and isinstance(value, dict) and step in value:
            value = value[step]
        else:
            raise KeyError(f"{path}: no {step!r} here")
    return value


@validate_params(a=ANY, b=ANY, tolerance=Real(0))
def same(a, b, tolerance: float = SOLUTION_TOLERANCE) -> bool:
    """Equal, with floats compared to ``tolerance`` (relative and absolute) and containers element-wise.

    Parameters
    ----------
    a, b : object
        Values (numbers, strings, lists, dicts).
    tolerance : float
        Relative and absolute tolerance of floats.

    Returns
    -------
    bool

    Examples
    --------
    >>> same(0.1 + 0.2, 0.3), same([1, 2.0], [1, 2.0000000001]), same("a", "b")
    (True, True, False)
    """
    return _same(a, b, tolerance)


def _same(a, b, tolerance: float) -> bool:  # (the recursion, without the declared check at every level)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], tolerance) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, tolerance) for x, y in zip(a, b))
    return a == b


_FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.M | re.S)
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def _blocks(text: str):
    """``(kind, body)`` for each fenced block of a MyST chapter: kind is ``code`` (a visible code cell),
    ``hidden`` (a removed or folded-input code cell), ``folded`` (a dropdown, toggle or ``<details>``
    directive), ``directive`` (an admonition a reader sees) or ``other`` (a literal block)."""
    for block in _FENCE.finditer(text):
        lines = block.group(0).splitlines()
        first, body = lines[0], lines[1:-1]
        options = " ".join(line for line in body if line.lstrip().startswith(":"))
        if "{code-cell}" in first:
            hidden = any(t in options for t in ("remove-cell", "remove-input", "hide-input", "hide-cell"))
            code = [line for line in body if line.strip() and not line.lstrip().startswith((":", "#"))]
            yield ("hidden" if hidden else "code"), code
        elif re.search(r"\{(dropdown|toggle)\}", first) or "dropdown" in options:
            yield "folded", body
        elif re.search(r"\{[a-z-]+\}", first):
            yield "directive", [line for line in body if not line.lstrip().startswith(":")]
        else:
            yield "other", body


@validate_params(source=Instance(str, os.PathLike), code=BOOL)
def unfolded_words(source: str | Path, code: bool = True) -> int:
    r"""Words a reader sees in a MyST chapter without opening a fold: the prose, the admonitions that are
    not dropdowns, and the visible code cells' lines (QuantEcon counts a lecture's code too); removed
    cells, folded inputs, dropdown solutions and hints are left out. A role such as
    ``{glue:text}`x``` counts as one word.

    Parameters
    ----------
    source : str or path-like
        The chapter's MyST text or file.
    code : bool
        Count the visible code cells' words.

    Returns
    -------
    int

    >>> import tempfile, os
    >>> md = "# T\n\nOne two three.\n\n```{admonition} Solution\n:class: dropdown\nhidden words here\n```\n\n"
    >>> md += "```{code-cell} ipython3\nx = 1\n```\n"
    >>> with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
    ...     _ = f.write(md)
    >>> unfolded_words(f.name); os.unlink(f.name)
    8
    """
    text = _FRONT.sub("", Path(source).read_text(encoding="utf-8"))
    shown = [" ".join(body) for kind, body in _blocks(text) if kind == "directive" or (code and kind == "code")]
    prose = _FENCE.sub(" ", text)
    return len(re.findall(r"\S+", prose + " " + " ".join(shown)))


@validate_params(source=Instance(str, os.PathLike))
def visible_code_cells(source: str | Path) -> list[int]:
    """The line counts (blank and comment lines left out) of a chapter's visible code cells, in order.

    Parameters
    ----------
    source : str or path-like
        The chapter's MyST text or file.

    Returns
    -------
    list of int

    Examples
    --------
    >>> import os, tempfile
    >>> md = "# T\\n\\nOne two three.\\n\\n```{code-cell} ipython3\\nx = 1\\n# c\\n\\ny = 2\\n```\\n\\n"
    >>> md += "```{code-cell} ipython3\\n:tags: [remove-cell]\\nz = 3\\n```\\n"
    >>> path = os.path.join(tempfile.mkdtemp(), "chapter.md")
    >>> _ = open(path, "w").write(md)
    >>> visible_code_cells(path)
    [2]
    """
    text = _FRONT.sub("", Path(source).read_text(encoding="utf-8"))
    return [len(body) for kind, body in _blocks(text) if kind == "code"]


@validate_params(source=Instance(str, os.PathLike), words_per_minute=Int(1))
def reading_minutes(source: str | Path, words_per_minute: int = WORDS_PER_MINUTE) -> int:
    """Minutes to read the prose a reader sees of a MyST chapter without opening a fold
    (:func:`unfolded_words` without the code cells: code is run and skimmed, not read at prose speed),
    rounded up to 5 (at least 5).

    Parameters
    ----------
    source : str or path-like
        The chapter's MyST text or file.
    words_per_minute : int
        Reading speed.

    Returns
    -------
    int

    Examples
    --------
    >>> import os, tempfile
    >>> md = "# T\\n\\nOne two three.\\n\\n```{code-cell} ipython3\\nx = 1\\n# c\\n\\ny = 2\\n```\\n\\n"
    >>> md += "```{code-cell} ipython3\\n:tags: [remove-cell]\\nz = 3\\n```\\n"
    >>> path = os.path.join(tempfile.mkdtemp(), "chapter.md")
    >>> _ = open(path, "w").write(md)
    >>> reading_minutes(path), unfolded_words(path), unfolded_words(path, code=False)
    (5, 11, 5)
    """
    return max(5, 5 * math.ceil(unfolded_words(source, code=False) / words_per_minute / 5))


class RunClock:
    """Time from the chapter's first cell to its last; :meth:`glue` puts the figure in the prose.

    >>> clock = RunClock()
    >>> clock.text(seconds=42), clock.text(seconds=150)
    ('under a minute', 'about 3 minutes')
    """

    def __init__(self):
        self.started = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def text(self, seconds: float | None = None) -> str:
        seconds = self.seconds() if seconds is None else seconds
        if seconds < 60:
            return "under a minute"
        minutes = int(seconds / 60 + 0.5)
        return f"about {minutes} minute{'s' if minutes != 1 else ''}"

    def glue(self, name: str = "run_elapsed") -> str:
        """Glue :meth:`text` as ``name`` (default ``run_elapsed``: nbval ignores glued timings) and return it."""
        from fireeval.book.report import glue

        text = self.text()
        glue(name, text)
        return text
