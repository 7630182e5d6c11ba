"""The book's scoreboard: counts per paper and compact rows that link to each chapter's claim box."""
import importlib.util
from pathlib import Path

from fireeval.book import report, scoreboard
from fireeval.stats.claims import Claim, Estimate, Evidence, Power, Reading, Test, summary_rows

ROOT = Path(__file__).resolve().parents[2]


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
    assert counts["label"].tolist() == ["reproduced", "contradicted", "not testable here", "contradicted"]
    assert counts["scope"].tolist()[-1] == "here, on a stand-in"
    html = scoreboard.ScoreboardTable(records)._repr_html_()
    assert html.count('href="../notebooks/pool_depth.html#claim-') == 3
    assert len(records["pool_depth"][0]["short"].split()) <= 21  # 20 words and an ellipsis
    box = report.ClaimsTable(summary_rows(records["pool_depth"]))
    assert 'id="claim-a"' in box._repr_html_()
    assert "here (y)" in box._repr_html_()  # the stand-in's result is in the paper claim's own row
    scoreboard.verdict_chart(records).to_dict()  # a valid Vega-Lite spec


def _book():
    west = "Westerveld (TRECVID reusability)"
    return {"pool_depth": [_record("depth", Estimate(0.95, 0.91, 0.97, "b"), "stand-in", west),
                           _record("own", Estimate(0.5, 0.4, 0.6, "b"), paper="this book (pool_depth chapter)")],
            "axiou_measures": [_record("agree", Estimate(0.95, 0.92, 0.97, "b"), paper="Togashi et al. 2022"),
                               _record("stable", Estimate(0.5, 0.4, 0.96, "b"), paper="Togashi et al. 2022")]}


def test_the_intro_says_per_paper_what_holds_from_the_claims_alone():
    sentences = scoreboard.paper_summary(_book())
    assert list(sentences) == ["westerveld", "axiou", "book"]
    assert all(2 <= len(s) <= 4 for k, s in sentences.items() if k != "book")
    axiou = " ".join(sentences["axiou"])
    assert "2 statements tested on the paper's own data: 1 reproduced, 1 inconclusive." in axiou
    assert "Reproduced: “a claim a claim" in axiou and "(0.950 [0.920, 0.970])" in axiou
    west = " ".join(sentences["westerveld"])
    assert "none can be tested on the paper's own data" in west and "On the stand-ins, 1 reproduced" in west
    html = scoreboard.PaperSummary(_book())._repr_html_()
    assert 'id="paper-axiou"' in html and "AxIoU (Togashi et al. 2022)" in html


def test_changing_one_claims_verdict_changes_its_papers_sentences():
    before = scoreboard.paper_summary(_book())
    changed = _book()
    changed["axiou_measures"][1] = _record("stable", Estimate(0.5, 0.4, 0.6, "b"), paper="Togashi et al. 2022")
    after = scoreboard.paper_summary(changed)
    assert after["axiou"] != before["axiou"] and after["westerveld"] == before["westerveld"]
    assert "1 reproduced, 1 contradicted" in after["axiou"][0] and "contradicted: “a claim" in " ".join(after["axiou"])
    flipped = _book()
    flipped["pool_depth"][0] = _record("depth", Estimate(0.5, 0.4, 0.6, "b"), "stand-in",
                                       "Westerveld (TRECVID reusability)")
    assert "On the stand-ins, 1 contradicted" in " ".join(scoreboard.paper_summary(flipped)["westerveld"])
    table = scoreboard.PaperTable(changed).rows()
    assert [(r["key"], r["tested"]) for r in table] == [("westerveld", 1), ("axiou", 2), ("book", 1)]


def test_the_intro_page_builds_its_summary_from_the_scoreboard():
    text = (ROOT / "book" / "intro.md").read_text()
    first_section = text.split("\n## ")[1]
    assert first_section.startswith("What holds of each paper")
    assert "scoreboard.PaperSummary(claims_by_chapter)" in first_section
    assert "scoreboard.PaperTable(claims_by_chapter)" in first_section


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


def _family_record(id, conditions, standing="original", power=None, paper="Togashi et al. 2022"):
    claim = Claim(id, paper=paper, section="§1", quote=f"claim {id}", quantity="τ", test=Test(">", 0.9),
                  data="real: x" if standing == "original" else "stand-in: QVHighlights val (1550 queries), two",
                  standing=standing, reading=Reading("as written", "τ > 0.9", "paper's definition"))
    return claim.evaluate_family(conditions, multiplicity="none: a test", evidence=Evidence.none("-"),
                                 power=power or Power.no_control("none"))


def test_untestable_counts_follow_each_rows_own_reason_and_the_stand_in_sentence_is_kept():
    two = Power.none_possible("with two checkpoints, τ can only be +1 or −1: no bar can be weighed")
    ok, bad = Estimate(0.95, 0.92, 0.97, "b"), Estimate(0.5, 0.4, 0.6, "b")
    recs = {"axiou_measures": [
        _family_record("fam", {f"c{i}": (ok if i < 2 else bad) for i in range(9)}),  # fails at 7: a long list
        _record("stable", Estimate(0.5, 0.4, 0.96, "b"), paper="Togashi et al. 2022"),
        _record("agree", ok, paper="Togashi et al. 2022"),
        _record("here", ok, "stand-in", "Togashi et al. 2022"),
        _family_record("qv1", {"a": ok}, "stand-in", two), _family_record("qv2", {"a": ok}, "stand-in", two)]}
    sentences = scoreboard.paper_summary(recs)["axiou"]
    text = " ".join(sentences)
    assert 2 <= len(sentences) <= 4
    # the two QVHighlights rows say "no power" with the two-checkpoint reason: the count says the same
    assert ("1 because the paper's data are not public here (stand-in: y); 2 because with two checkpoints, "
            "τ can only be +1 or −1 (on QVHighlights val)") in text
    assert sentences[-1].startswith("On the stand-ins, 1 reproduced")  # the stand-in sentence is never cut
    # a family's result is its count; which conditions fail is in the folds, not in the intro
    assert "(holds at 2 of 9)" in text and "fails at" not in text
    # glossary terms link to the glossary's anchors
    html = scoreboard.PaperSummary(recs)._repr_html_()
    assert 'href="../book/glossary.html#term-stand-in">stand-in' in html
    assert scoreboard._link_terms("C@K and τ-b and proxy's") == (
        '<a class="fireeval-term" href="../book/glossary.html#term-C-K">C@K</a> and '
        '<a class="fireeval-term" href="../book/glossary.html#term-b">τ-b</a> and '
        '<a class="fireeval-term" href="../book/glossary.html#term-proxy-annotator">proxy</a>\'s')


def test_a_first_reader_sees_what_is_testable_where_and_why():
    two = Power.none_possible("with two checkpoints, τ can only be +1 or −1: no bar can be weighed")
    ok, exact = Estimate(0.95, 0.92, 0.97, "b"), Estimate(1.0, 1.0, 1.0, "b")
    own = Claim("raters", paper="this book (axiou_label_noise chapter)", section="§1", quote="own finding",
                quantity="d", test=Test(">", 0), data="stand-in: 5 blind baselines, real raters", standing="original",
                reading=Reading("as written", "d > 0", "book's own question")).evaluate(
        Estimate(-0.03, -0.04, -0.02, "b"), evidence=Evidence.none("-"), power=Power.no_control("none"))
    lfs = Claim("agree", paper="Togashi et al. 2022", section="§1", quote="annotators agreed", quantity="α",
                test=Test(">", 0.8), data="stand-in: proxy", standing="stand-in",
                reading=Reading("as written", "α", "paper's definition"), evidence=Evidence.none("-"),
                power=Power.no_control("none"),
                untestable="the labels are Git LFS objects not present here; a proxy has no annotators").evaluate()
    recs = {"axiou_measures": [_record("a", ok, paper="Togashi et al. 2022"),
                               _record("s", ok, "stand-in", "Togashi et al. 2022"), lfs,
                               _family_record("qv", {"x vs y": exact, "x vs z": exact}, "stand-in", two)],
            "axiou_label_noise": [own, _record("b", ok, paper="this book (x)")]}
    sentences = scoreboard.paper_summary(recs)
    axiou, book = " ".join(sentences["axiou"]), " ".join(sentences["book"])
    # item 1: how many are testable on the paper's data, beside how many are not
    assert "4 statements tested, 1 of them testable on the paper's own data: 1 reproduced; 3 not testable here." \
        in axiou
    # item 13: a stand-in claim the stand-in cannot test either counts under its own reason, not "not public"
    assert "1 because the paper's data are not public here (stand-in: y)" in axiou
    assert "1 because the labels are Git LFS objects not present here" in axiou
    # every stand-in claim gets a "here" row, the untestable ones with the reason
    rows = {r["paper"]: r for r in scoreboard.PaperTable(recs).rows()}
    assert rows["AxIoU (Togashi et al. 2022)"]["here"]["not testable here"] == 2
    # item 2: the book's finding on stand-in data is counted and marked as a stand-in's row
    book_row = rows["This book's own findings"]
    assert book_row["counts"] == {"reproduced": 1} and book_row["here"] == {"contradicted": 1}
    assert "1 of them on a stand-in (5 blind baselines): 1 contradicted" in book
    html = scoreboard.ScoreboardTable(recs)._repr_html_()
    assert "on a stand-in (5 blind baselines)" in html
    # item 9: a family of exact ±1 values the test cannot weigh is one line, not one line per pair
    assert "2 conditions, each exactly +1: with two checkpoints, τ can only be +1 or −1, so none can inform" in html
    assert "1.000 [1.000, 1.000]" not in html
    counts = scoreboard.verdict_counts(recs)
    assert counts[counts["id"] == "raters"]["scope"].tolist() == ["here, on a stand-in"]


def test_the_claims_handed_over_by_the_executor_are_read_without_the_cache(tmp_path, monkeypatch):
    """scripts/execute_book.py hands the chapters' claims to the introduction (issue 38): read from its file, twins
    merged as from the cache; a chapter the file lacks is left out, as one missing from the cache is."""
    import json

    from fireeval.book.notebooks import NOTEBOOK_DIR
    from fireeval.stats.claims import merge_twins

    claims = [{"id": "a", "verdict": "reproduced", "label": "reproduced"}]
    handed = tmp_path / "claims.json"
    handed.write_text(json.dumps({"notebooks/metrics.md": claims}))
    monkeypatch.setenv(scoreboard.CLAIMS_FILE, str(handed))
    got = scoreboard.chapter_records(NOTEBOOK_DIR.parent, ["metrics", "pool_depth"])
    assert got == {"metrics": merge_twins(claims)}
    # an explicit cache folder is read, not the handed file (and an empty one holds no chapter)
    assert scoreboard.chapter_records(NOTEBOOK_DIR.parent, ["metrics"], cache=tmp_path / "cache") == {}
