"""trec_eval's text measures: ``runid`` (the run's tag, on the summary) and ``relstring_N``
(the grades of the first N documents as characters, per topic). Printed, never averaged."""
import numpy as np

from fireeval.core.measures.base import Family, Measure, int_param


def run_id(ctx, k=None):
    """The run's tag (text: :func:`fireeval.core.stream.score_run` fills it in).

    .. math:: \\text{(text)}

    >>> from fireeval.core.measures import get
    >>> get("runid").summary
    'none'
    """
    raise ValueError("runid is text")


def relstring(ctx, k):
    """The grades of the first ``k`` retrieved documents as characters: a digit for 0-9, ``>``
    above 9, ``-`` absent from the qrels, ``.`` pooled but unjudged (negative).

    .. math:: \\text{(text)}

    >>> from fireeval.core.measures.text import relstrings
    >>> relstrings(np.array([[1, 0, np.nan, -1, 12]]), [5], n=10)
    ['10-.>']
    """
    raise ValueError("relstring is text")


def relstrings(grades, n_ret, n: int = 10) -> list:
    """trec_eval's relstring of each topic (see :func:`relstring`).

    Parameters
    ----------
    grades : array_like (topics, depth)
        Grades in rank order (NaN: unjudged).
    n_ret : array_like (topics,)
        Retrieved documents per topic.
    n : int
        Characters per topic.

    Returns
    -------
    list of str
        One relstring per topic.

    Examples
    --------
    >>> relstrings([[1, 0, np.nan]], [3], n=3)
    ['10-']
    """
    grades = np.asarray(grades, dtype=float)
    out = []
    for row, count in zip(grades, np.asarray(n_ret)):
        chars = []
        for g in row[:max(0, min(int(n), int(count)))]:
            chars.append("-" if np.isnan(g) else "." if g < 0 else ">" if g > 9 else str(int(g)))
        out.append("".join(chars))
    return out


def parse_relstring(text, low, printing=False):
    root, dot, rest = low.partition(".")
    if root != "relstring":
        return None
    if not dot:
        return [Measure("relstring", 10)]
    return [Measure("relstring", int_param(rest, text), param_text=text.split(".", 1)[1])]


def parse_runid(text, low, printing=False):
    return [RUNID.measures()[0]] if low == "runid" else None


TEXT = frozenset({"text"})
RUNID = Family("runid", "runid", run_id, summary="none", needs=TEXT, nicknames=frozenset({"all_trec", "official", "set"}),
               print_rank=0, gains_based=False, parse=parse_runid, examples=("runid",))
RELSTRING = Family("relstring", "relstring", relstring, summary="none", needs=TEXT, nicknames=frozenset({"all_trec"}),
                   print_rank=12, gains_based=False, parse=parse_relstring, examples=("relstring", "relstring.5"))
FAMILIES = (RUNID, RELSTRING)
