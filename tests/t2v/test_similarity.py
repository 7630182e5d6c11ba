"""Caption proxies: hand-made pairs, matrix vs pairwise oracle, symmetry, video-level sets."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.t2v import similarity as sim

WORDS = ["man", "woman", "car", "drives", "drive", "the", "a", "is", "road", "dog", "runs", "put", "red"]
captions_st = st.lists(st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join), min_size=0, max_size=8)


def iou_oracle(a, b):
    """Plain-Python Jaccard, the independent oracle (0 for two empty sets)."""
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 0.0


def test_bow_hand_pairs():
    # stop words ("a", "is", "the", "down") ignored; word order and case do not matter
    s = sim.similarity_matrix(["A man is driving a car", "a man is driving a car", ""],
                              ["car driving man", "the man drives a car down the road", ""])
    assert s[0, 0] == pytest.approx(1.0)
    assert s[1, 1] == pytest.approx(2 / 5)  # {man, car} / {man, driving, car, drives, road}
    assert s[2, 2] == 0.0 and s[0, 2] == 0.0  # empty captions score 0, also against each other
    assert s.shape == (3, 3)


def test_bow_synonyms_are_not_matched():
    assert sim.similarity_matrix(["a man puts a cup"], ["a man places a cup"])[0, 0] == pytest.approx(2 / 4)


def test_bow_uses_spacy_stop_list():
    # "put" is a spaCy stop word, so BoW ignores it (Wray's reference code does the same)
    assert "put" in sim.STOP_WORDS and sim.content_words("put the red cup") == frozenset({"red", "cup"})
    custom = sim.similarity_matrix(["put cup"], ["cup"], stop_words=[])
    assert custom[0, 0] == pytest.approx(0.5)


@settings(max_examples=60, deadline=None)
@given(captions_st, captions_st)
def test_bow_matrix_matches_pairwise_oracle(a, b):
    s = sim.similarity_matrix(a, b, "bow")
    expected = np.array([[iou_oracle(sim.content_words(x), sim.content_words(y)) for y in b] for x in a])
    assert s.shape == (len(a), len(b))
    np.testing.assert_allclose(s, expected.reshape(len(a), len(b)), atol=1e-12)
    assert ((s >= 0) & (s <= 1)).all()


@settings(max_examples=40, deadline=None)
@given(captions_st, captions_st)
def test_bow_symmetry(a, b):
    np.testing.assert_allclose(sim.similarity_matrix(a, b), sim.similarity_matrix(b, a).T)


def test_set_iou_matrix_against_oracle():
    rng = np.random.default_rng(3)
    sets_a = [set(rng.choice(30, rng.integers(0, 8), replace=False).tolist()) for _ in range(40)]
    sets_b = [set(rng.choice(30, rng.integers(0, 8), replace=False).tolist()) for _ in range(25)]
    expected = np.array([[iou_oracle(x, y) for y in sets_b] for x in sets_a])
    np.testing.assert_allclose(sim.set_iou_matrix(sets_a, sets_b), expected)


def test_video_item_sets_threshold():
    caps = [["a man drives a car", "a man in a car", "a woman sings", "a car", "a dog"]]
    (w, sets), = sim.video_item_sets(caps, "bow")
    assert w == 1.0 and sets == [frozenset({"car", "man"})]  # need >= 0.25 * 5 = 1.25 captions
    (_, sets_half), = sim.video_item_sets(caps, "bow", min_fraction=0.5)
    assert sets_half == [frozenset({"car"})]  # car in 3/5; man in 2/5 < 2.5
    # exactly at the threshold counts: 1 of 4 captions is 25 %
    (_, sets_quarter), = sim.video_item_sets([["dog", "cat", "cat", "cat"]], "bow")
    assert sets_quarter == [frozenset({"dog", "cat"})]


def test_video_similarity_matrix_bow():
    videos = [["a man drives a car", "a man in a car", "man car road", "a car"], ["a dog runs", "dog"]]
    s = sim.video_similarity_matrix(videos, ["man car", "dog runs", ""], "bow")
    # video 0 items: man (3/4), car (4/4), drives/road (1/4) -> {man, car, drives, road}
    np.testing.assert_allclose(s[0], [2 / 4, 0, 0])
    np.testing.assert_allclose(s[1], [0, 1.0, 0])  # {dog, runs}


def test_bad_input_errors():
    with pytest.raises(ValueError, match="^similarity_matrix: proxy='tfidf' is not one of the accepted values. Fix: use one "
                                         "of 'bow', 'pos', 'syn', 'meteor'$"):
        sim.similarity_matrix(["a"], ["b"], proxy="tfidf")
    with pytest.raises(TypeError, match="captions_b\\[1\\]"):
        sim.similarity_matrix(["a"], ["b", None])
    with pytest.raises(TypeError, match="one string"):
        sim.similarity_matrix("a man", ["b"])
    with pytest.raises(ValueError, match="min_fraction"):
        sim.video_item_sets([["a"]], min_fraction=0)


# --- PoS / SYN / METEOR (need WordNet; skipped with the reason when it is absent) ---------------

def _nlp_or_skip():
    from fireeval.t2v import nlp

    try:
        nlp.ensure_wordnet()
    except nlp.WordNetUnavailable as err:
        pytest.skip(str(err))
    return nlp


def test_pos_hand_pairs():
    _nlp_or_skip()
    s = sim.similarity_matrix(["a man is driving a car", "watch a play", "a car", ""],
                              ["the man drives the car", "play a board game", "car a", ""], "pos")
    assert s[0, 0] == pytest.approx(0.5 * 0 + 0.5 * 1)  # verbs {driving} vs {drives}; nouns equal
    assert s[1, 1] == pytest.approx(0.0)  # "play" is a noun in one, a verb in the other: no match
    assert s[2, 2] == pytest.approx(0.5)  # no verbs on either side: IoU(∅, ∅) = 0, as in Wray's code
    assert s[3, 3] == 0.0


def test_syn_merges_synonyms_that_bow_misses():
    _nlp_or_skip()
    a, b = ["a kid plays football"], ["a child plays football"]
    assert sim.similarity_matrix(a, b, "bow")[0, 0] == pytest.approx(0.5)
    assert sim.similarity_matrix(a, b, "syn")[0, 0] == pytest.approx(1.0)  # kid, child -> child.n.01


def test_custom_tagger_defines_the_same_proxy():
    """PoS is defined on (verbs, nouns), whatever tagger produced them."""
    lexicon = {"cut": "VERB", "slice": "VERB", "onion": "NOUN", "knife": "NOUN"}
    tagger = lambda c: [(w, lexicon.get(w, "X")) for w in sim.tokenize(c)]  # noqa: E731
    s = sim.similarity_matrix(["cut onion", "slice onion knife"], ["cut onion knife"], "pos", tagger=tagger)
    np.testing.assert_allclose(s[:, 0], [0.5 * 1 + 0.5 * 0.5, 0.5 * 0 + 0.5 * 1])


@pytest.mark.parametrize("proxy", ["pos", "syn"])
def test_set_proxies_match_pairwise_oracle_and_are_symmetric(proxy):
    nlp = _nlp_or_skip()
    from fireeval.synthetic.video import simulate_captions

    caps = simulate_captions(n_videos=6, captions_per_video=4, seed=3).flat_captions() + ["", "a dog"]
    s = sim.similarity_matrix(caps, caps[:10], proxy)
    verbs, nouns = nlp.verb_noun_sets(caps, synsets=(proxy == "syn"))
    expected = np.array([[0.5 * iou_oracle(verbs[i], verbs[j]) + 0.5 * iou_oracle(nouns[i], nouns[j])
                          for j in range(10)] for i in range(len(caps))])
    np.testing.assert_allclose(s, expected, atol=1e-12)
    np.testing.assert_allclose(sim.similarity_matrix(caps[:10], caps, proxy), s.T)


def test_meteor_is_asymmetric_and_bounded():
    _nlp_or_skip()
    caps = ["a man is driving a car", "a man drives a red car down a long road", ""]
    m = sim.similarity_matrix(caps, caps, "meteor")
    assert ((m >= 0) & (m <= 1)).all() and m[2].sum() == 0 and m[:, 2].sum() == 0
    assert m[0, 1] != m[1, 0]
    v = sim.video_similarity_matrix([caps[:2]], [caps[0]], "meteor")
    assert v[0, 0] == pytest.approx(0.5 * (m[:2, 0].mean() + m[:2, 0].max()))
