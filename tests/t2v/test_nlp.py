"""Offline WordNet set-up, the tagger, Lesk and METEOR against NLTK's own implementations."""
import numpy as np
import pytest

from fireeval.t2v import nlp
from fireeval.t2v.nlp import tokenize


def _wordnet_or_skip():
    try:
        nlp.ensure_wordnet()
    except nlp.WordNetUnavailable as err:
        pytest.skip(str(err))


def test_missing_wordnet_names_the_fix(tmp_path):
    with pytest.raises(nlp.WordNetUnavailable) as info:
        nlp.ensure_wordnet(system_dir=tmp_path / "empty", cache_dir=tmp_path / "cache", search_nltk=False)
    message = str(info.value)
    assert "apt-get install wordnet-base wordnet-sense-index" in message
    assert "nltk.download('wordnet')" in message and "data.noun" in message


def test_builds_nltk_folder_in_cache_not_in_source(tmp_path):
    if not (nlp.SYSTEM_WORDNET / "data.noun").is_file():
        pytest.skip("Debian wordnet-base not installed")
    where = nlp.ensure_wordnet(cache_dir=tmp_path, search_nltk=False)
    target = tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert where == str(target)
    assert (target / "lexnames").read_text().splitlines()[0].split()[1] == "adj.all"
    assert not (target / "data.noun").is_symlink() and (target / "data.noun").stat().st_size > 10**7
    import nltk

    assert str(tmp_path / "nltk_data") in nltk.data.path
    nltk.data.path.remove(str(tmp_path / "nltk_data"))


LABELLED = {  # hand-labelled verbs and nouns (spaCy-style: auxiliaries and pronouns excluded)
    "a man is driving a car down the road": ({"driving"}, {"man", "car", "road"}),
    "a woman slices an onion": ({"slices"}, {"woman", "onion"}),
    "a little girl does gymnastics": ({"does"}, {"girl", "gymnastics"}),
    "people are singing and dancing on a stage": ({"singing", "dancing"}, {"people", "stage"}),
    "a person is connecting something to system": ({"connecting"}, {"person", "system"}),
    "a man shows how to cook pasta": ({"shows", "cook"}, {"man", "pasta"}),
    "watch a play": ({"watch"}, {"play"}),
}
EGO = {
    "open fridge": ({"open"}, {"fridge"}),
    "wash hands": ({"wash"}, {"hands"}),
    "turn on tap": ({"turn"}, {"tap"}),
    "put down plate": ({"put"}, {"plate"}),
}


def test_tagger_on_hand_labelled_captions():
    _wordnet_or_skip()
    for caption, (verbs, nouns) in LABELLED.items():
        (v,), (n,) = nlp.verb_noun_sets([caption])
        assert (set(v), set(n)) == (verbs, nouns), caption
    for caption, (verbs, nouns) in EGO.items():
        (v,), (n,) = nlp.verb_noun_sets([caption], tagger=nlp.ego_pos_tag)
        assert (set(v), set(n)) == (verbs, nouns), caption
    assert nlp.pos_tag("") == []


def test_lesk_matches_nltk():
    _wordnet_or_skip()
    from nltk.wsd import lesk

    for caption in ["a man is driving a car down the road", "stir food in the pan", "a bank of the river",
                    "a woman plays the guitar on stage", "xyzzy plonk"]:
        words = tokenize(caption)
        for w in words:
            for pos in "nv":
                ref = lesk(words, w, pos)
                assert nlp.lesk_synset(words, w, pos) == (ref.name() if ref else None), (caption, w, pos)


def test_synsets_fall_back_to_the_word():
    _wordnet_or_skip()
    verbs, nouns = nlp.verb_noun_sets(["a man drives a zorblax"], synsets=True)
    assert "zorblax" in nouns[0] and "man.n.01" in nouns[0]


def test_meteor_matrix_matches_nltk_and_is_asymmetric(tmp_path):
    _wordnet_or_skip()
    from nltk.translate.meteor_score import single_meteor_score

    caps = ["a man is driving a car", "the guy drives an automobile on the road", "a man is driving a car",
            "", "cook pasta", "a woman is cooking pasta in the kitchen"]
    m = nlp.meteor_matrix(caps, caps[::-1], cache_dir=tmp_path)
    expected = np.array([[single_meteor_score(tokenize(r), tokenize(h)) if tokenize(r) and tokenize(h) else 0.0
                          for h in caps[::-1]] for r in caps])
    np.testing.assert_allclose(m, expected, atol=1e-12)
    assert len(list(tmp_path.glob("meteor-*.npy"))) == 1
    np.testing.assert_array_equal(nlp.meteor_matrix(caps, caps[::-1], cache_dir=tmp_path), m)  # cache hit
    square = nlp.meteor_matrix(caps, caps)
    assert not np.allclose(square, square.T)  # recall-weighted: reference and hypothesis differ
    assert ((square >= 0) & (square <= 1)).all()


def test_lexnames_rebuilt_from_debian_manpage_equals_the_registry_copy():
    from conftest import require_data

    from fireeval.datasets import data_path
    from fireeval.t2v.nlp import LEXNAMES, LEXNAMES_MANPAGE, lexnames_from_manpage

    if not LEXNAMES_MANPAGE.is_file():
        pytest.skip(f"{LEXNAMES_MANPAGE} absent: apt-get install wordnet-base")
    require_data(LEXNAMES)
    assert lexnames_from_manpage(LEXNAMES_MANPAGE) == data_path(LEXNAMES).read_text()


# --- fast METEOR and the memoised tagger against NLTK / the uncached path ---------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Words chosen to exercise every alignment stage: repeats (exact), shared Porter stems
# ("drive"/"drives"/"driving"), WordNet synonyms of a stem ("car"/"automobile"/"auto",
# "man"/"guy"/"homo", "kid"/"child"), words with none, and an apostrophe form.
_WORDS = ("a the man men guy homo male kid child children car cars auto automobile drive drives driving "
          "driver road street route dog dogs cat play plays playing game football soccer cook cooking "
          "food kitchen pan cut cuts slice sliced onion is are and on in zorblax don't 2 3d").split()
_captions = st.lists(st.sampled_from(_WORDS), min_size=0, max_size=14).map(" ".join)


def _nltk_meteor(refs, hyps):
    from nltk.translate.meteor_score import single_meteor_score

    return np.array([[single_meteor_score(tokenize(r), tokenize(h)) if tokenize(r) and tokenize(h) else 0.0
                      for h in hyps] for r in refs])


@settings(max_examples=60, deadline=None)  # no deadline: the first example loads WordNet (40 s under load)
@given(st.lists(_captions, min_size=1, max_size=6), st.lists(_captions, min_size=1, max_size=6))
def test_fast_meteor_equals_nltk_on_generated_captions(refs, hyps):
    _wordnet_or_skip()
    np.testing.assert_allclose(nlp.meteor_matrix(refs, hyps), _nltk_meteor(refs, hyps), rtol=0, atol=1e-12)


def test_fast_meteor_equals_nltk_on_real_captions():
    _wordnet_or_skip()
    from conftest import require_data

    from fireeval.datasets import epic, msrvtt

    require_data(msrvtt.QUERIES, msrvtt.CAPTIONS["test"], epic.CLIPS, epic.SENTENCES)
    rng = np.random.default_rng(7)
    msr = list(msrvtt.load_queries()["sentence"]) + [c for v in msrvtt.load_video_captions_1ka()[:50] for c in v]
    ek = list(epic.load_captions()["narration"])
    for pool in (msr, ek, msr + ek):
        refs, hyps = list(rng.choice(pool, 25)), list(rng.choice(pool, 60))
        fast, slow = nlp.meteor_matrix(refs, hyps), _nltk_meteor(refs, hyps)
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
        assert (fast > 0).mean() > 0.05  # the comparison is not all zeros


def test_fast_meteor_long_reference_and_blocks(monkeypatch):
    _wordnet_or_skip()
    long_ref = " ".join(["a man drives a car on the road"] * 9)  # 72 words: the NLTK fallback path
    refs = [long_ref, "a guy drives an automobile", "", "cook pasta in the kitchen"]
    hyps = ["a man is driving a car", "", "the child cooks food", long_ref]
    monkeypatch.setattr(nlp, "_PAIRS_PER_BLOCK", 4)  # one reference per block
    np.testing.assert_allclose(nlp.meteor_matrix(refs, hyps), _nltk_meteor(refs, hyps), rtol=0, atol=1e-12)


def _uncached_tagger(ego=False):
    return lambda caption: list(nlp._pos_tag_cached.__wrapped__(caption, ego))


def _real_captions(n=400):
    from conftest import require_data

    from fireeval.datasets import epic, msrvtt

    require_data(msrvtt.QUERIES, epic.CLIPS, epic.SENTENCES)
    return list(msrvtt.load_queries()["sentence"])[:n], list(epic.load_captions()["narration"])[:n]


def test_pattern_tokenizer_is_a_no_op_on_apostrophe_free_captions():
    msr, ek = _real_captions(2000)
    tag = nlp._pattern_tag()
    for caption in msr + ek + ["a man don't drive", "i 'm 3d xd", "e g u s a"]:
        words = tokenize(caption)
        if words and not any("'" in w for w in words):
            text = " ".join(words)
            assert tag(text, tokenize=False) == tag(text), caption


def test_memoised_tagging_and_proxy_matrices_equal_the_uncached_path():
    _wordnet_or_skip()
    from fireeval.t2v import similarity as sim

    msr, ek = _real_captions(300)
    for caps, ego, tagger in ((msr, False, nlp.pos_tag), (ek, True, nlp.ego_pos_tag)):
        assert [tagger(c) for c in caps] == [_uncached_tagger(ego)(c) for c in caps]
        for proxy in ("pos", "syn"):
            cached = sim.similarity_matrix(caps, caps[::-1], proxy, tagger=tagger)
            uncached = sim.similarity_matrix(caps, caps[::-1], proxy, tagger=_uncached_tagger(ego))
            np.testing.assert_array_equal(cached, uncached)
    with pytest.raises(TypeError, match=r"^pos_tag: caption=None is a NoneType\. Fix: pass a str$"):
        nlp.pos_tag(None)


def test_wordnet_shortcuts_equal_nltk():
    _wordnet_or_skip()
    from nltk.corpus import wordnet as nltk_wn

    msr, ek = _real_captions(300)
    words = sorted({w for c in msr + ek for w in tokenize(c)} | {"good", "quickly", "better", "geese"})
    fast = nlp.wordnet()
    for w in words:
        ours = [(s.name(), s.definition(), s.lemma_names(), s.pos()) for s in fast.synsets(w)]
        assert ours == [(s.name(), s.definition(), s.lemma_names(), s.pos()) for s in nltk_wn.synsets(w)], w
        assert nlp._wordnet_pos(w) == {str(s.pos()) for s in nltk_wn.synsets(w)} & {"n", "v"}, w
    assert fast.get_version() == nltk_wn.get_version()


def test_ascii_lines_reads_as_nltk_does(tmp_path):
    from nltk.data import FileSystemPathPointer

    (tmp_path / "data.x").write_bytes(b"  header line\n00000017 first\n00000032 second\nlast")
    (tmp_path / "data.y").write_bytes("caf\u00e9\n".encode())
    lines = nlp._AsciiLines.load(FileSystemPathPointer(str(tmp_path)), "data.x")
    assert nlp._AsciiLines.load(FileSystemPathPointer(str(tmp_path)), "data.y") is None  # not ASCII: NLTK's
    lines.seek(14)
    assert lines.readline() == "00000017 first\n" and lines.tell() == 29
    lines.seek(0)
    assert list(lines) == ["  header line\n", "00000017 first\n", "00000032 second\n", "last"]


def _tiny_wordnet(folder, index_noun):
    folder.mkdir()
    (folder / "lexnames").write_text("00\tadj.all\t3\n01\tadj.pert\t3\n")
    (folder / "data.adj").write_text("  1 This software and database is being provided\n"
                                     "00000050 00 a 01 good 0 000 | having desirable qualities\n"
                                     "00000108 00 s 01 fine 0 000 | superior\n")
    for name in ("data.adv", "data.noun", "data.verb", "index.adv", "index.verb",
                 "adj.exc", "adv.exc", "noun.exc", "verb.exc"):
        (folder / name).write_text("")
    (folder / "index.adj").write_text("  1 header\ngood a 2 1 & 2 1 00000050 00000108\n")
    (folder / "index.noun").write_text(index_noun)
    return folder


@pytest.mark.filterwarnings("ignore:The multilingual functions")
def test_fast_lemma_index_parse_and_fallback(tmp_path, monkeypatch):
    import nltk
    from nltk.corpus.reader.wordnet import WordNetError
    from nltk.data import FileSystemPathPointer

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)] + list(nltk.data.path))  # NLTK's path guard

    reader_class = nlp._reader_class()
    ok = _tiny_wordnet(tmp_path / "ok", "dog n 2 2 @ ~ 2 1 02084071 10114209\n")
    wn = reader_class(FileSystemPathPointer(str(ok)), None)
    assert dict(wn._lemma_pos_offset_map) == {"good": {"a": [50, 108], "s": [108]},
                                              "dog": {"n": [2084071, 10114209]}}
    bad = _tiny_wordnet(tmp_path / "bad", "dog n 2 0 1 1 02084071\n")  # 2 synsets, 1 sense: NLTK's error
    with pytest.raises(WordNetError, match="index.noun, line 1"):
        reader_class(FileSystemPathPointer(str(bad)), None)


def test_fast_reader_index_equals_nltk():
    _wordnet_or_skip()
    from nltk.corpus import wordnet as nltk_wn

    fast = nlp.wordnet()
    assert dict(fast._lemma_pos_offset_map) == dict(nltk_wn._lemma_pos_offset_map)
    assert fast._exception_map == nltk_wn._exception_map and fast.satellite_offsets == nltk_wn.satellite_offsets
