"""``similarity_to`` (the columns encoded once) gives ``similarity_matrix``'s numbers bit for bit, and
``caption_agreement`` through it gives what it gave block by block through ``similarity_matrix`` (issue 38)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fireeval.synthetic.video import simulate_captions
from fireeval.t2v import false_negatives as fire
from fireeval.t2v import similarity as sim

WORDS = ["a", "man", "drives", "car", "dog", "runs", "the", "woman", "sings", "song", "red", "is", "cooking", "food"]
CAPTION = st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)


@settings(max_examples=60)
@given(st.lists(CAPTION, max_size=8), st.lists(CAPTION, max_size=8), st.sampled_from(["bow", "pos", "syn"]))
def test_similarity_to_is_similarity_matrix_bit_for_bit(rows, columns, proxy):
    expected = sim.similarity_matrix(rows, columns, proxy)
    got = sim.similarity_to(columns, proxy)(rows)
    assert got.shape == expected.shape
    assert np.array_equal(got, expected)


def test_similarity_to_on_simulated_captions_every_proxy():
    study = simulate_captions(n_videos=60, captions_per_video=8, n_topics=10, seed=3)
    flat = study.flat_captions()
    queries = flat[::7]
    for proxy in ("bow", "pos", "syn"):
        to_flat = sim.similarity_to(flat, proxy)
        for start in range(0, len(queries), 13):  # blocks of rows against the same columns
            block = queries[start:start + 13]
            assert np.array_equal(to_flat(block), sim.similarity_matrix(block, flat, proxy)), proxy


def _agreement_block_by_block(queries, video_captions, proxy, aggregate, own_video, chunk):
    """caption_agreement as it was: similarity_matrix on every block of queries."""
    return fire.caption_agreement(queries, video_captions, proxy=proxy, aggregate=aggregate, own_video=own_video,
                                  chunk=chunk, similarity=lambda a, b: sim.similarity_matrix(a, b, proxy=proxy))


@pytest.mark.parametrize("proxy", ["bow", "pos", "syn"])
@pytest.mark.parametrize("aggregate", ["max", "quorum2", "mean"])
def test_caption_agreement_same_bits_as_block_by_block(proxy, aggregate):
    study = simulate_captions(n_videos=40, captions_per_video=6, n_topics=8, seed=5)
    captions = [list(c) for c in study.captions]
    queries = [c[0] for c in captions]
    got = fire.caption_agreement(queries, captions, proxy=proxy, aggregate=aggregate, own_video=np.arange(40), chunk=7)
    expected = _agreement_block_by_block(queries, captions, proxy, aggregate, np.arange(40), 7)
    assert np.array_equal(got, expected)


def test_similarity_to_refuses_meteor_and_bad_captions():
    with pytest.raises(ValueError, match="proxy"):
        sim.similarity_to(["a man"], "meteor")
    with pytest.raises(TypeError, match=r"captions_a\[1\]"):
        sim.similarity_to(["a man"])(["a dog", 3])


SETS = st.lists(st.frozensets(st.sampled_from(WORDS), max_size=5), max_size=8)


@settings(max_examples=60)
@given(SETS, SETS)
def test_set_containment_to_is_set_containment_matrix_bit_for_bit(sets_a, sets_b):
    expected = sim.set_containment_matrix(sets_a, sets_b)
    got = sim.set_containment_to(sets_b)([set(s) for s in sets_a])
    assert got.shape == expected.shape and np.array_equal(got, expected)


@pytest.mark.parametrize("aggregate", ["max", "quorum2"])
def test_caption_agreement_containment_same_bits_as_block_by_block(aggregate):
    study = simulate_captions(n_videos=40, captions_per_video=6, n_topics=8, seed=7)
    captions = [list(c) for c in study.captions]
    queries = [c[1] for c in captions]
    got = fire.caption_agreement(queries, captions, proxy="containment", aggregate=aggregate,
                                 own_video=np.arange(40), chunk=9, similarity=fire.containment_matrix)
    expected = fire.caption_agreement(queries, captions, proxy="containment", aggregate=aggregate,
                                      own_video=np.arange(40), chunk=9,
                                      similarity=lambda a, b: fire.containment_matrix(a, b))
    assert np.array_equal(got, expected)
