"""Offline WordNet set-up, the tagger, Lesk and METEOR against NLTK's own implementations."""
import numpy as np
import pytest

from fireeval.t2v import nlp
from fireeval.t2v.similarity import tokenize


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
