"""The book's scoreboard: counts per paper and compact rows that link to each chapter's claim box."""
import importlib.util
from pathlib import Path

from fireeval.book import report, scoreboard
from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test, summary_rows

ROOT = Path(__file__).resolve().parents[1]


def _record(id, value, standing="original", paper="P 2024"):
    claim = Claim(id, paper=paper, section="§1", quote="a claim " * 30, quantity="τ", test=Test(">", 0.9),
                  data="real: x" if standing == "original" else "stand-in: y", standing=standing,
                  reading=Reading("as written", "τ > 0.9", "paper's definition"))
    return claim.evaluate(value, evidence=Evidence.none("nothing printed"), power=Power.no_control("none"))


def test_counts_and_rows_show_each_label_and_link_to_the_chapter_box():
    records = {"pool_depth": [_record("a", Estimate(0.95, 0.92, 0.97, "b")),
                              _record("b", Estimate(0.5, 0.4, 0.6, "b")),
                              _record("c", Estimate(0.5, 0.4, 0.6, "b"), "stand-in")]}
    counts = scoreboard.verdict_counts(records)
    assert counts["label"].tolist() == ["reproduced", "contradicted", "not testable here"]
    html = scoreboard.ScoreboardTable(records)._repr_html_()
    assert html.count('href="../notebooks/pool_depth.html#claim-') == 3
    assert len(records["pool_depth"][0]["short"].split()) <= 21  # 20 words and an ellipsis
    box = report.ClaimsTable(summary_rows(records["pool_depth"]))
    assert 'id="claim-a"' in box._repr_html_()
    scoreboard.verdict_chart(records).to_dict()  # a valid Vega-Lite spec


def test_the_chapters_are_read_in_the_table_of_contents_order():
    chapters = scoreboard.book_chapters(ROOT)
    assert chapters[0] == "metrics" and "pool_depth" in chapters and all("/" not in c for c in chapters)


def test_check_book_finds_a_scoreboard_link_without_its_claim(tmp_path):
    spec = importlib.util.spec_from_file_location("check_book", ROOT / "scripts" / "check_book.py")
    check_book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_book)
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book" / "intro.html").write_text(
        '<div class="fireeval-scoreboard"><a href="../notebooks/x.html#claim-a">a</a>'
        '<a href="../notebooks/x.html#claim-b">b</a></div>')
    (tmp_path / "notebooks" / "x.html").write_text('<tr id="claim-a"></tr>')
    (tmp_path / "notebooks" / "y.html").write_text("")
    problems = check_book.check_scoreboard(tmp_path)
    assert any("claim-b" in p for p in problems) and any("chapter y" in p for p in problems)
    assert not any("claim-a" in p for p in problems)
