"""The book's scoreboard: every chapter's claims, gathered after the chapters ran.

The introduction shows one chart of verdict counts per paper and one compact row per
claim (the claim in at most 20 words, the paper's number, ours with its interval, the
verdict and its basis), each linking to the chapter's full box. The records are read
from the chapters' executed notebooks in Jupyter Book's execution cache (the build
executes the chapters first, then the introduction: ``scripts/execute_book.py``), so
the scoreboard always shows what the chapters computed in this build.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

__all__ = ["book_chapters", "chapter_records", "verdict_counts", "verdict_chart", "ScoreboardTable"]


def book_chapters(root) -> list[str]:
    """The chapter notebooks (names under ``notebooks/``) in the table of contents' order."""
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


def chapter_records(root, chapters: Sequence[str] | None = None, cache=None) -> dict[str, list[dict]]:
    """``{chapter: claims}`` from the executed chapters in the execution cache.

    ``root``: the book's folder; ``chapters``: notebook names under ``notebooks/`` in
    reading order; ``cache``: the jupyter-cache folder (default ``_build/.jupyter_cache``).
    A chapter not (yet) executed for its current source is left out.
    """
    from jupyter_cache import get_cache
    from myst_nb.core.read import myst_nb_reader_plugin

    from fireeval.book.notebooks import extract_headline
    from fireeval.stats.claims import merge_twins

    root = Path(root)
    chapters = book_chapters(root) if chapters is None else chapters
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


def verdict_counts(records: Mapping[str, list[dict]]):
    """A tidy table: one row per claim with its chapter, paper and shown label."""
    import pandas as pd

    import re

    # the axis names whose claims they are, short ("this book (testing ...)" -> "this book"); the tooltip has it all
    rows = [{"chapter": chapter, "paper": r["paper"], "who": re.split(r" \(|, ", r["paper"])[0], "label": r["label"],
             "id": r["id"]} for chapter, recs in records.items() for r in recs]
    return pd.DataFrame(rows, columns=["chapter", "paper", "who", "label", "id"])


def verdict_chart(records: Mapping[str, list[dict]]):
    """Stacked bars: how many claims of each paper got each verdict (altair)."""
    import altair as alt

    from fireeval.book import plotting
    from fireeval.book.report import LABEL_COLOURS

    table = verdict_counts(records)
    chart = alt.Chart(table).mark_bar().encode(
        y=alt.Y("who:N", title=None, sort=alt.EncodingSortField("id", op="count", order="descending"),
                axis=alt.Axis(labelLimit=400)),
        x=alt.X("count():Q", title="claims"),
        color=alt.Color("label:N", title="verdict", scale=alt.Scale(domain=list(LABEL_COLOURS),
                                                                   range=list(LABEL_COLOURS.values())),
                        legend=alt.Legend(orient="bottom", columns=3)),
        order=alt.Order("label:N"),
        tooltip=["paper", "label", alt.Tooltip("count():Q", title="claims")],
    ).properties(width=440)
    return plotting.titled(chart, "Verdicts per paper",
                           "Each bar counts one paper's claims (and the book's own) by verdict; grey: the data here "
                           "cannot test the claim (a stand-in, or no power).")


def _ours(record) -> str:
    from fireeval.stats.claims import format_estimate

    conventions = record.get("conventions") or {}
    if not conventions:
        return "—"
    fmt = record.get("fmt", ".3f")
    parts = [(f"{name}: " if name and len(conventions) > 1 else "") + format_estimate(c, fmt)
             for name, c in conventions.items()]
    return "; ".join(parts)


class ScoreboardTable:
    """One compact row per claim, linking to the chapter's box (``notebooks/<chapter>.html#claim-<id>``)."""

    def __init__(self, records: Mapping[str, list[dict]], link_prefix: str = "../notebooks/"):
        self.records, self.prefix = records, link_prefix

    def _repr_html_(self):
        from fireeval.book.report import LABEL_COLOURS

        body = []
        for chapter, recs in self.records.items():
            for r in recs:
                href = f"{self.prefix}{chapter}.html#claim-{r['id']}"
                basis = r.get("basis") or ""
                body.append(
                    f'<tr><td><a href="{escape(href)}">{escape(r.get("short") or r["quote"])}</a>'
                    f"<br><small>{escape(r['paper'])}</small></td>"
                    f"<td>{escape(r.get('paper_value') or '')}</td><td>{escape(_ours(r))}</td>"
                    f'<td><strong style="color:{LABEL_COLOURS[r["label"]]}">{escape(r["label"])}</strong>'
                    f"<br><small>{escape(basis[:140] + ('…' if len(basis) > 140 else ''))}</small></td></tr>")
        return ('<div class="fireeval-scoreboard" style="overflow-x:auto"><table class="table"><thead><tr><th>claim</th>'
                "<th>paper's number</th><th>ours (95% interval)</th><th>verdict</th></tr></thead><tbody>"
                + "".join(body) + "</tbody></table></div>")

    def __repr__(self):
        return "\n".join(f"[{r['label']}] {r.get('short') or r['quote']} -- {_ours(r)}"
                         for recs in self.records.values() for r in recs)
