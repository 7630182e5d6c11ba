"""The book's scoreboard: every chapter's claims, gathered after the chapters ran.

The introduction shows one chart of verdict counts per paper and one compact row per
claim (the claim in at most 20 words, the paper's number, ours with its interval, the
verdict and its basis), each linking to the chapter's full box. The records are read
from the chapters' executed notebooks in Jupyter Book's execution cache (the build
executes the chapters first, then the introduction: ``scripts/execute_book.py``), so
the scoreboard always shows what the chapters computed in this build.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

from fireeval.core.validation import COLLECTION, Instance, validate_params

__all__ = ["book_chapters", "chapter_records", "CLAIMS_FILE", "verdict_counts", "verdict_chart", "ScoreboardTable",
           "PAPERS", "paper_of", "by_paper", "here_rows", "paper_summary", "PaperSummary", "PaperTable"]


@validate_params(root=Instance(str, os.PathLike))
def book_chapters(root) -> list[str]:
    """The chapter notebooks (names under ``notebooks/``) in the table of contents' order.

    Parameters
    ----------
    root : path-like
        The book's folder.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from fireeval.book.notebooks import NOTEBOOK_DIR
    >>> book_chapters(NOTEBOOK_DIR.parent)[:3]
    ['metrics', 'false_negatives', 'semantic_similarity']
    """
    import yaml

    found = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("notebooks/"):
                found.append(f.split("/", 1)[1])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load((Path(root) / "_toc.yml").read_text()))
    return found


#: The environment variable naming the executor's file of every chapter's claims (:func:`chapter_records`).
CLAIMS_FILE = "FIREEVAL_BOOK_CLAIMS"


@validate_params(root=Instance(str, os.PathLike), chapters=[COLLECTION, None], cache=[Instance(str, os.PathLike), None])
def chapter_records(root, chapters: Sequence[str] | None = None, cache=None) -> dict[str, list[dict]]:
    """``{chapter: claims}`` from the executed chapters in the execution cache.

    ``root``: the book's folder; ``chapters``: notebook names under ``notebooks/`` in
    reading order; ``cache``: the jupyter-cache folder (default ``_build/.jupyter_cache``).
    A chapter not (yet) executed for its current source is left out. When the build's
    executor hands the claims over (``scripts/execute_book.py`` names a JSON file
    ``{"notebooks/NAME.md": claims}`` in ``$FIREEVAL_BOOK_CLAIMS``, written from the same executed
    notebooks it put in the cache), they are read from there: the introduction runs after every
    chapter, alone, and looking them up in the cache took it 2 s.

    Parameters
    ----------
    root : path-like
        The book's folder.
    chapters : sequence of str, optional
        The chapters (default: :func:`book_chapters`).
    cache : path-like, optional
        The jupyter-cache folder.

    Returns
    -------
    dict

    Examples
    --------
    Without an execution cache no chapter has records:

    >>> import tempfile
    >>> from fireeval.book.notebooks import NOTEBOOK_DIR
    >>> chapter_records(NOTEBOOK_DIR.parent, ["metrics"], cache=tempfile.mkdtemp())
    {}
    """
    from fireeval.stats.claims import merge_twins

    root = Path(root)
    chapters = book_chapters(root) if chapters is None else chapters
    handed = os.environ.get(CLAIMS_FILE)
    if handed and cache is None and Path(handed).is_file():
        import json

        claims = json.loads(Path(handed).read_text())
        return {name: merge_twins(claims[f"notebooks/{name}.md"]) for name in chapters
                if f"notebooks/{name}.md" in claims}
    from jupyter_cache import get_cache
    from myst_nb.core.read import myst_nb_reader_plugin

    from fireeval.book.notebooks import extract_headline

    store = get_cache(str(cache or root / "_build" / ".jupyter_cache"))
    out = {}
    for name in chapters:
        path = root / "notebooks" / f"{name}.md"
        try:
            record = store.match_cache_notebook(myst_nb_reader_plugin(str(path)))
        except KeyError:
            continue
        headline = extract_headline(store.get_cache_bundle(record.pk).nb) or {}
        out[name] = merge_twins(headline.get("claims", []))
    return out


#: The papers the book re-tests, in the order the introduction gives them: the name a claim's ``paper``
#: field starts with (or mentions), what the paper is, and the chapters that test it.
PAPERS = (
    {"key": "fire", "match": ("Rodriguez",), "name": "FIRE (Rodriguez et al. 2023)",
     "about": "false negatives in text-to-video benchmarks", "chapters": ("false_negatives",)},
    {"key": "westerveld", "match": ("Westerveld", "Hauptmann"), "name": "Westerveld (TRECVID reusability)",
     "about": "pool depth and leave-out bias", "chapters": ("pool_depth", "pool_leave_out")},
    {"key": "axiou", "match": ("Togashi",), "name": "AxIoU (Togashi et al. 2022)",
     "about": "label noise and model selection in moment retrieval",
     "chapters": ("axiou_measures", "axiou_label_noise", "axiou_model_selection")},
    {"key": "wray", "match": ("Wray",), "name": "Wray et al. 2021",
     "about": "semantic similarity as relevance", "chapters": ("semantic_similarity",)},
    {"key": "book", "match": ("this book",), "name": "This book's own findings",
     "about": "what the data here show beyond the papers' statements", "chapters": ()},
)


@validate_params(record=Instance(Mapping))
def paper_of(record: Mapping) -> str:
    """The key in :data:`PAPERS` of the paper a claim tests (``book`` for the book's own findings).

    Parameters
    ----------
    record : dict
        A claim record.

    Returns
    -------
    str

    >>> paper_of({"paper": "Hauptmann & Lin, quoted by Westerveld (TRECVID reusability)"})
    'westerveld'
    >>> paper_of({"paper": "this book (testing Sakai 2007)"})
    'book'
    """
    who = record["paper"]
    if who.startswith("this book"):
        return "book"
    for paper in PAPERS:
        if any(who.startswith(m) or f"by {m}" in who for m in paper["match"]):
            return paper["key"]
    return "book"


@validate_params(records=Instance(Mapping))
def by_paper(records: Mapping[str, list[dict]]) -> dict[str, list[tuple[str, dict]]]:
    """``{paper key: [(chapter, record), ...]}`` in :data:`PAPERS` order (papers without claims left out).

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.

    Returns
    -------
    dict

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> [(paper, [(chapter, r["id"]) for chapter, r in rows]) for paper, rows in by_paper(records).items()]
    [('fire', [('false_negatives', 'fn.c1')])]
    """
    out = {p["key"]: [] for p in PAPERS}
    for chapter, recs in records.items():
        for r in recs:
            out[paper_of(r)].append((chapter, r))
    return {k: v for k, v in out.items() if v}


_ORDER = ("reproduced", "contradicted", "depends", "inconclusive", "not testable here")


def _counts(labels) -> str:
    """``2 reproduced, 1 depends`` (zero counts left out), in a fixed order."""
    from collections import Counter

    c = Counter(labels)
    return ", ".join(f"{c[lab]} {lab}" for lab in _ORDER if c[lab])


def _listing(items, most: int = 2, sep: str = "; ") -> str:
    items = list(items)
    shown = sep.join(items[:most])
    return shown + (f"{sep.rstrip()} and {len(items) - most} more" if len(items) > most else "")


def _counts_only(found: str) -> str:
    """A family's result as its count (``holds at 3 of 4``): which conditions fail or depend is in the folds."""
    return found.split(";")[0] if found.startswith("holds at") else found


def _why_untestable(record: Mapping) -> str:
    """Why a claim is not testable, as its row says it: the paper's data are absent (a stand-in), or no power
    (the reason the power gives: impossible, an effect below what the test detects, no control)."""
    power = record.get("power") or {}
    if str(record.get("basis", "")).startswith("no power"):
        if power.get("impossible"):
            why = power["impossible"].split(":")[0].split(";")[0].strip()
        elif power.get("effect") is not None:
            why = "the test cannot detect the effect the paper states"
        else:
            why = "the test has no power here"
        return why + (f" (on {_stand_in_name(record)})" if record.get("standing") == "stand-in" else "")
    if record.get("standing") == "stand-in" and record.get("here"):
        return "the paper's data are not public here"
    return (record.get("why") or record.get("basis") or "").split(";")[0].rstrip(".")


def _on_stand_in_data(record: Mapping) -> bool:
    """A record tested on stand-in data though it speaks for itself (the book's own findings on a stand-in):
    its verdict is counted with the stand-ins' rows, not with the rows on real data."""
    return record.get("standing") != "stand-in" and str(record.get("data", "")).startswith("stand-in")


@validate_params(record=Instance(Mapping))
def here_rows(record: Mapping) -> list[dict]:
    """What the stand-ins show for a record: its ``here`` rows; a stand-in claim without any (its test has no
    power on the stand-in either) gets one ``not testable here`` row with the reason, so every stand-in claim
    shows the same layout.

    Parameters
    ----------
    record : dict
        A claim record.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> here_rows({"standing": "stand-in", "data": "stand-in: QVHighlights val, two checkpoints", "here": [],
    ...            "basis": "no power: with two checkpoints, τ is +1 or −1: nothing to weigh", "power": {}})[0]["found"]
    'with two checkpoints, τ is +1 or −1'
    """
    if record.get("here") or record.get("standing") != "stand-in":
        return list(record.get("here") or [])
    why = str(record.get("why") or record.get("basis") or "")
    why = why.split("no power:", 1)[-1].split(":")[0].split(";")[0].strip()
    data = record["data"].split("stand-in", 1)[-1].lstrip(" s:").strip() if "stand-in" in record["data"] \
        else record["data"]
    return [{"data": data, "label": "not testable here", "found": why, "basis": record.get("basis", "")}]


def _stand_in_name(record: Mapping) -> str:
    """The stand-in's name from a record's ``data`` (``stand-in: QVHighlights val (1550 queries), …`` → its head)."""
    return record["data"].split(":", 1)[-1].split(",")[0].split(" (")[0].strip()


#: Terms of the summaries linked (first use per paper) to the glossary: shown text -> the glossary's term.
SUMMARY_TERMS = {"C@K": "C@K", "τ-b": "τ-b", "REER": "REER", "stand-in": "stand-in", "proxy": "proxy annotator"}


def _glossary_anchor(term: str) -> str:
    """Sphinx's anchor of a glossary term: non-ASCII dropped, other runs of non-alphanumerics as one hyphen."""
    import re

    ascii_only = term.encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9_]+", "-", ascii_only).strip("-")


def _link_terms(html: str) -> str:
    """``html`` with the first use of each :data:`SUMMARY_TERMS` word (outside tags) linked to the glossary."""
    import re

    from fireeval.book.report import glossary_link

    for shown, term in SUMMARY_TERMS.items():
        pattern = re.compile(r"<[^>]*>|(?<![\w-])" + re.escape(escape(shown)) + r"s?(?![\w@])")
        done = []

        def link(m, shown=shown, term=term, done=done):
            if m.group(0).startswith("<") or done:
                return m.group(0)
            done.append(True)
            return glossary_link(m.group(0), _glossary_anchor(term))

        html = pattern.sub(link, html)
    return html


def _said(record: Mapping) -> str:
    """A claim in a few words with its number: ``“short” (0.912 [0.90, 0.93])``."""
    from fireeval.stats.claims import summary_rows

    found = _counts_only(summary_rows([record])[0]["found here"].split(" (test")[0])
    short = (record.get("short") or record["quote"]).rstrip(".")
    # a number speaks for itself with its interval, or as a count of conditions; a bare value does not
    return f"“{short}” ({found})" if "[" in found or "holds at" in found else f"“{short}”"


@validate_params(records=Instance(Mapping))
def paper_summary(records: Mapping[str, list[dict]]) -> dict[str, list[str]]:
    """Per paper, two to four sentences assembled from its claims' computed verdicts (none typed).

    1. how many of its statements are tested and how they came out on the paper's data;
    2. which reproduced, were contradicted or depend on the reading, with their numbers;
    3. what these data cannot test and why (stand-ins, no power, data absent), grouped by reason;
    4. what the stand-ins show (each stand-in's ``here`` rows).

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.

    Returns
    -------
    dict
        ``{paper key: sentences}``.

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> paper_summary(records)
    {'fire': ["1 statement tested on the paper's own data: 1 reproduced.", 'Reproduced: “C@1 rises with corrected labels” (0.050 [0.030, 0.070]).']}
    """
    out = {}
    for key, items in by_paper(records).items():
        recs = [r for _, r in items]
        sentences = [_count_sentence(key, recs)]
        listed = []
        for lab, verb in (("reproduced", "reproduced"), ("contradicted", "contradicted"),
                          ("depends", "depends on the reading"), ("inconclusive", "inconclusive")):
            hits = [_said(r) for r in recs if r["label"] == lab]
            if hits:
                listed.append(f"{verb}: {_listing(hits, most=1, sep=', ')}")
        if listed:
            sentences.append("; ".join(listed)[0].upper() + "; ".join(listed)[1:] + ".")
        untestable = [r for r in recs if r["label"] == "not testable here"]
        if untestable:
            sentences.append(_untestable_sentence(untestable))
        here = [(h, r) for r in recs for h in here_rows(r)]
        if here:
            sentences.append(f"On the stand-ins, {_counts(h['label'] for h, _ in here)}: " + _listing(
                (f"“{(r.get('short') or r['quote']).rstrip('.')}”: {h['label']} on "
                 f"{h['data'].split(',')[0].split(' (')[0]} ({_counts_only(h['found'])})" for h, r in here), most=1, sep=", ")
                + ".")
        # at most four sentences: the count, then what decides the reader's view first; the book's own
        # findings in two (they are the chapters' business, not the papers')
        out[key] = sentences[:1] + sentences[1:][:1 if key == "book" else 3]
    return out


def _count_sentence(key: str, recs: list[dict]) -> str:
    """:func:`paper_summary`'s first sentence: how many statements (the book's: findings) are tested, and how
    they came out on the paper's own data."""
    noun = "finding" if key == "book" else "statement"
    plural = "s" if len(recs) != 1 else ""
    if key == "book":
        real = [r for r in recs if not _on_stand_in_data(r)]
        stand = [r for r in recs if _on_stand_in_data(r)]
        names = "; ".join(dict.fromkeys(_stand_in_name(r) for r in stand))
        return (f"{len(recs)} {noun}{plural} tested: {_counts(r['label'] for r in real)}"
                + (f"; {len(stand)} of them on a stand-in ({names}): {_counts(r['label'] for r in stand)}"
                   if stand else "") + ".")
    testable = [r for r in recs if r["label"] != "not testable here"]
    if not testable:
        return f"{len(recs)} {noun}{plural} tested; none can be tested on the paper's own data."
    if len(testable) == len(recs):
        return f"{len(recs)} {noun}{plural} tested on the paper's own data: {_counts(r['label'] for r in recs)}."
    return (f"{len(recs)} {noun}{plural} tested, {len(testable)} of them testable on the paper's own data: "
            f"{_counts(r['label'] for r in testable)}; {len(recs) - len(testable)} not testable here.")


def _untestable_sentence(untestable: list[dict]) -> str:
    """What the paper's data cannot test and why: each claim counted under the reason its own row gives, the
    stand-ins named beside "the paper's data are not public here"."""
    from collections import Counter

    public = "the paper's data are not public here"
    stand_ins = list(dict.fromkeys(_stand_in_name(r) for r in untestable
                                   if r.get("standing") == "stand-in" and _why_untestable(r) == public))
    reasons = Counter(_why_untestable(r) for r in untestable)
    named = f" (stand-in{'s' if len(stand_ins) > 1 else ''}: {'; '.join(stand_ins)})" if stand_ins else ""
    parts = [f"{n} because {why}" + (named if why == public else "") for why, n in reasons.items()]
    return "Not testable on the paper's data: " + "; ".join(parts) + "."


class PaperSummary:
    """The introduction's opening: per paper, its name, what it is about, and its computed sentences.

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.
    link_prefix : str
        The chapters' folder, relative to the page.

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> print(repr(PaperSummary(records)))
    FIRE (Rodriguez et al. 2023): 1 statement tested on the paper's own data: 1 reproduced. Reproduced: “C@1 rises with corrected labels” (0.050 [0.030, 0.070]).
    """

    def __init__(self, records: Mapping[str, list[dict]], link_prefix: str = "../notebooks/"):
        self.records, self.prefix = records, link_prefix
        self.sentences = paper_summary(records)

    def _repr_html_(self):
        parts = []
        for paper in PAPERS:
            if paper["key"] not in self.sentences:
                continue
            links = ", ".join(f'<a href="{escape(self.prefix)}{c}.html">{escape(c)}</a>' for c in paper["chapters"]
                              if c in self.records)
            parts.append(f'<div class="fireeval-paper" id="paper-{paper["key"]}"><p><strong>{escape(paper["name"])}'
                         f"</strong> — {escape(paper['about'])}" + (f" ({links})" if links else "") + ". "
                         + _link_terms(" ".join(escape(s) for s in self.sentences[paper["key"]])) + "</p></div>")
        return '<div class="fireeval-summary">' + "".join(parts) + "</div>"

    def __repr__(self):
        return "\n\n".join(f"{p['name']}: " + " ".join(self.sentences[p["key"]]) for p in PAPERS
                            if p["key"] in self.sentences)


class PaperTable:
    """One row per paper: statements tested, verdict counts as coloured words, and the gist (its first sentence).

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> [(row["paper"], row["tested"], dict(row["counts"])) for row in PaperTable(records).rows()]
    [('FIRE (Rodriguez et al. 2023)', 1, {'reproduced': 1})]
    """

    def __init__(self, records: Mapping[str, list[dict]]):
        self.records = records

    def rows(self) -> list[dict]:
        from collections import Counter

        sentences = paper_summary(self.records)
        out = []
        for key, items in by_paper(self.records).items():
            paper = next(p for p in PAPERS if p["key"] == key)
            here = Counter(h["label"] for _, r in items for h in here_rows(r))
            here.update(r["label"] for _, r in items if _on_stand_in_data(r))
            out.append({"paper": paper["name"], "key": key, "tested": len(items),
                        "counts": Counter(r["label"] for _, r in items if not _on_stand_in_data(r)), "here": here,
                        "gist": sentences[key][1] if len(sentences[key]) > 1 else sentences[key][0]})
        return out

    def _repr_html_(self):
        from fireeval.book.report import LABEL_COLOURS

        def words(counts):
            return ", ".join(f'<span style="color:{LABEL_COLOURS[lab]}"><strong>{counts[lab]}</strong> {lab}</span>'
                             for lab in _ORDER if counts[lab]) or "—"

        body = "".join(
            f'<tr><td data-label="paper"><a href="#paper-{row["key"]}">{escape(row["paper"])}</a></td>'
            f'<td data-label="tested">{row["tested"]}</td>'
            f'<td data-label="on the paper\'s data">{words(row["counts"])}</td>'
            f'<td data-label="on the stand-ins">{words(row["here"])}</td></tr>' for row in self.rows())
        from fireeval.book.report import CLAIMS_STYLE

        return (f'{CLAIMS_STYLE}<div class="fireeval-claims fireeval-papers"><table class="table">'
                "<caption>Each paper's statements and how they came out</caption><thead><tr><th>paper</th>"
                "<th>tested</th><th>on the paper's data</th><th>on the stand-ins</th></tr></thead>"
                f"<tbody>{body}</tbody></table></div>")


@validate_params(records=Instance(Mapping))
def verdict_counts(records: Mapping[str, list[dict]]):
    """A tidy table: one row per claim and scope (the paper's data, or a stand-in's ``here`` row).

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> verdict_counts(records)[["chapter", "label", "id"]].values.tolist()
    [['false_negatives', 'reproduced', 'fn.c1']]
    """
    import pandas as pd

    names = {p["key"]: p["name"] for p in PAPERS}
    rows = []
    for chapter, recs in records.items():
        for r in recs:
            who = names[paper_of(r)]
            scope = "here, on a stand-in" if _on_stand_in_data(r) else "the paper's data"
            rows.append({"chapter": chapter, "paper": r["paper"], "who": who, "scope": scope,
                         "label": r["label"], "id": r["id"]})
            rows += [{"chapter": chapter, "paper": r["paper"], "who": who, "scope": "here, on a stand-in",
                      "label": h["label"], "id": r["id"]} for h in here_rows(r)]
    return pd.DataFrame(rows, columns=["chapter", "paper", "who", "scope", "label", "id"])


@validate_params(records=Instance(Mapping))
def verdict_chart(records: Mapping[str, list[dict]]):
    """Stacked bars per paper: its statements' verdicts on the paper's data, and what the stand-ins show.

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> type(verdict_chart(records)).__name__
    'Chart'
    """
    import altair as alt

    from fireeval.book import plotting
    from fireeval.book.report import LABEL_COLOURS

    table = verdict_counts(records)
    order = [p["name"] for p in PAPERS]
    chart = alt.Chart(table).mark_bar().encode(
        y=alt.Y("scope:N", title=None, sort=["the paper's data", "here, on a stand-in"], axis=alt.Axis(labelLimit=200)),
        x=alt.X("count():Q", title="statements"),
        row=alt.Row("who:N", title=None, sort=order, header=alt.Header(labelAngle=0, labelAlign="left",
                                                                        labelLimit=300, labelFontWeight="bold")),
        color=alt.Color("label:N", title="verdict", scale=alt.Scale(domain=list(LABEL_COLOURS),
                                                                   range=list(LABEL_COLOURS.values())),
                        legend=alt.Legend(orient="bottom", columns=3)),
        order=alt.Order("label:N"),
        tooltip=["who", "scope", "label", alt.Tooltip("count():Q", title="statements")],
    ).properties(width=360, height=alt.Step(16))
    return plotting.titled(chart, "What holds of each paper",
                           "Per paper, the upper bar counts its statements by verdict on the paper's own data; the "
                           "lower one, what the stand-ins here (TREC-8, the proxy, the baselines) show for the "
                           "statements whose data are not public.")


class ScoreboardTable:
    """Every claim, one row per statement, folded per paper; each row links to the chapter's box
    (``notebooks/<chapter>.html#claim-<id>``) and gives the paper's number, ours with its interval and
    the verdict (for a stand-in: the paper's data, then what the stand-in shows).

    Parameters
    ----------
    records : dict
        ``{chapter: claim records}``.
    link_prefix : str
        The chapters' folder, relative to the page.

    Examples
    --------
    >>> from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test
    >>> claim = Claim("fn.c1", paper="Rodriguez et al. 2023", section="Table 1", quote="C@1 rises with corrected labels",
    ...               quantity="C@1 delta", test=Test(">", 0), data="real: MSR-VTT", standing="original",
    ...               reading=Reading("delta > 0", "rises", "paper's definition"))
    >>> record = claim.evaluate(Estimate(0.05, 0.03, 0.07, "95% bootstrap"), evidence=Evidence.none("none printed"),
    ...                         power=Power.no_control("none"))
    >>> records = {"false_negatives": [record]}
    >>> print(repr(ScoreboardTable(records)))
    [reproduced] C@1 rises with corrected labels
    >>> "false_negatives.html#claim-fn.c1" in ScoreboardTable(records)._repr_html_()
    True
    """

    def __init__(self, records: Mapping[str, list[dict]], link_prefix: str = "../notebooks/"):
        self.records, self.prefix = records, link_prefix

    def _repr_html_(self):
        from fireeval.book.report import CLAIMS_STYLE, PAPERS_NUMBER, found_html, verdict_html
        from fireeval.stats.claims import summary_rows

        names = {p["key"]: p["name"] for p in PAPERS}
        parts = []
        for key, items in by_paper(self.records).items():
            body = []
            for chapter, r in items:
                row = {**summary_rows([r])[0], "here": here_rows(r)}
                if _on_stand_in_data(r):
                    row["data_note"] = f"on a stand-in ({_stand_in_name(r)})"
                href = f"{self.prefix}{chapter}.html#claim-{r['id']}"
                body.append(f'<tr><td data-label="claim"><a href="{escape(href)}">{escape(row["short"])}</a>'
                            f"<br><small>{escape(r['section'])}</small></td>"
                            f'<td data-label="paper\'s number">{escape(row[PAPERS_NUMBER] or "—")}</td>'
                            f'<td data-label="found here">{found_html({**row, "interval": ""})}</td>'
                            f'<td data-label="verdict">{verdict_html(row)}'
                            + (f"<br><small>{escape(row['data_note'])}</small>" if row.get("data_note") else "")
                            + "</td></tr>")
            parts.append(f"<details><summary>{escape(names[key])}: {len(items)} claim{'s' if len(items) != 1 else ''}"
                         f" ({_counts(r['label'] for _, r in items)})</summary><table class=\"table\"><thead><tr>"
                         "<th>claim</th><th>paper's number</th><th>found here (95% interval)</th><th>verdict</th>"
                         f"</tr></thead><tbody>{''.join(body)}</tbody></table></details>")
        return f'{CLAIMS_STYLE}<div class="fireeval-claims fireeval-scoreboard">' + "".join(parts) + "</div>"

    def __repr__(self):
        return "\n".join(f"[{r['label']}] {r.get('short') or r['quote']}"
                         + "".join(f" / here ({h['data']}): {h['label']} {h['found']}" for h in r.get("here") or [])
                         for recs in self.records.values() for r in recs)
