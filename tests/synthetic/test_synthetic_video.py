"""The synthetic captioned-video benchmark: seeding, shapes, and the relevance rule."""
import numpy as np
import pytest

from fireeval.synthetic.video import SLOTS, simulate_captions


def test_seeded_and_shaped():
    a, b = simulate_captions(n_videos=30, captions_per_video=5, seed=4), simulate_captions(
        n_videos=30, captions_per_video=5, seed=4)
    assert a.captions == b.captions and (a.topic == b.topic).all()
    assert simulate_captions(n_videos=30, captions_per_video=5, seed=5).captions != a.captions
    assert len(a.video_ids) == 30 and all(len(c) == 5 for c in a.captions)
    assert a.relevance().shape == (150, 30) and len(a.flat_captions()) == 150
    # one concept per slot per video
    for s in range(len(SLOTS)):
        assert (a.video_concepts[:, a.concept_slot == s].sum(axis=1) == 1).all()


def test_relevance_rule_against_loop_oracle():
    d = simulate_captions(n_videos=40, captions_per_video=4, n_topics=3, seed=2)
    rel = d.relevance()
    for i in range(0, len(d.caption_video), 7):
        mentioned = set(np.flatnonzero(d.caption_concepts[i]))
        for v in range(d.n_videos):
            assert rel[i, v] == mentioned.issubset(np.flatnonzero(d.video_concepts[v]))
    assert rel[np.arange(len(rel)), d.caption_video].all()  # own video always relevant
    assert rel.sum(axis=1).mean() > 1  # false negatives exist by construction
    sub = d.relevance([3, 0])
    assert (sub == rel[[3, 0]]).all()


def test_captions_name_their_concepts():
    d = simulate_captions(n_videos=20, captions_per_video=6, seed=1)
    flat = d.flat_captions()
    for i, cap in enumerate(flat):
        words = set(cap.split())
        assert words, cap
        # the action is always named; a mentioned concept's surface form appears in the text
        assert d.caption_concepts[i][d.concept_slot == SLOTS.index("action")].sum() == 1
        if "someone" in words:
            assert not d.caption_concepts[i][d.concept_slot == SLOTS.index("subject")].any()


def test_vaguer_captions_match_more_videos():
    d = simulate_captions(n_videos=200, captions_per_video=5, seed=0)
    rel = d.relevance()
    n_named = d.caption_concepts.sum(axis=1)
    assert rel[n_named == 1].sum(axis=1).mean() > rel[n_named == 4].sum(axis=1).mean()


def test_query_index():
    d = simulate_captions(n_videos=10, captions_per_video=3, seed=0)
    q = d.query_index()
    assert (d.caption_video[q] == np.arange(10)).all()
    qs = d.query_index(seed=1)
    assert (d.caption_video[qs] == np.arange(10)).all()


def test_bad_parameters():
    with pytest.raises(ValueError, match="n_videos"):
        simulate_captions(n_videos=0)
    with pytest.raises(ValueError, match="p_place"):
        simulate_captions(p_place=1.5)
