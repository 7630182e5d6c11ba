"""A seeded captioned-video benchmark whose true relevance is known for every pair.

Real text-to-video benchmarks (MSR-VTT, MSVD) count only a caption's own video as
relevant, although other videos often show everything the caption says (false
negatives). :func:`simulate_captions` builds a stand-in where that is true by
construction and the complete relevance matrix is known:

- A *concept* is one thing a caption can mention, in one of four slots -- subject
  ("man"), action ("cutting"), object ("tomato"), place ("kitchen") -- with one or
  more surface forms (synonyms: "cutting" / "slicing" / "chopping").
- A *topic* is a scene type: a few actions, objects and places drawn (seeded) from
  one of four scene families (kitchen, vehicles, sport/music, household), so the
  captions stay plausible. Topics may share concepts, as real scene types do.
- A *video* of a topic has exactly one concept per slot, drawn from its topic's
  pools (subjects from the global pool). Videos of one topic therefore share
  vocabulary, and several videos can show the same subject-action-object-place.
- A *caption* of a video always names the action and, each with its own
  probability, the subject, the object and the place (omitted ones are replaced by
  generic words such as "someone"), using a random surface form of each.

**Relevance rule** ("every element present", the FIRE annotators' criterion): a
caption is relevant to a video iff every concept the caption mentions is one of the
video's concepts. A caption is always relevant to its own video; a vaguer caption
(fewer slots named) is relevant to more videos. Synonyms do not matter to the rule
(they name the same concept) but do matter to word-matching proxies, which is what
makes the stand-in useful for testing them.

Model simulations (rankings) are left to the modules that need them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fireeval.core.validation import Int, Real, validate_params

__all__ = ["CaptionedVideos", "simulate_captions", "SLOTS"]

SLOTS = ("subject", "action", "object", "place")

# Each entry is one concept: its surface forms (synonyms) -- all ordinary English
# words so part-of-speech taggers and WordNet recognise them.
_POOLS = {
    "subject": [("man", "guy"), ("woman", "lady"), ("child", "kid"), ("girl",), ("boy",),
                ("chef", "cook"), ("dog", "puppy"), ("player",)],
    "action": [("cutting", "slicing", "chopping"), ("stirring", "mixing"), ("pouring",),
               ("washing", "rinsing", "cleaning"), ("opening",), ("carrying", "holding"),
               ("throwing", "tossing"), ("painting",), ("playing",), ("kicking",),
               ("riding",), ("driving",), ("eating",), ("drinking", "sipping"), ("fixing", "repairing"),
               ("buying", "purchasing"), ("filming", "recording"), ("folding",)],
    "object": [("tomato",), ("onion",), ("bread",), ("soup", "broth"), ("car", "automobile"),
               ("bicycle", "bike"), ("guitar",), ("ball",), ("box", "carton"), ("door",), ("cup", "mug"),
               ("bottle",), ("horse",), ("shirt",), ("phone", "telephone"), ("book",), ("wall",), ("boat",),
               ("bowl",), ("knife",)],
    "place": [("kitchen",), ("street", "road"), ("park",), ("beach", "shore"), ("room",), ("field",),
              ("garage",), ("stage",), ("shop", "store"), ("garden", "yard")],
}
# Scene families keep a topic's actions, objects and places plausible together
# (concepts named by their first surface form); a topic is drawn inside one family.
_FAMILIES = (
    {"action": ("cutting", "stirring", "pouring", "washing", "eating", "drinking"),
     "object": ("tomato", "onion", "bread", "soup", "bowl", "knife", "cup", "bottle"),
     "place": ("kitchen", "room")},
    {"action": ("driving", "riding", "washing", "fixing", "buying", "filming"),
     "object": ("car", "bicycle", "boat", "horse"),
     "place": ("street", "garage", "field", "beach")},
    {"action": ("playing", "kicking", "throwing", "carrying", "filming"),
     "object": ("ball", "guitar", "bottle", "phone"),
     "place": ("park", "field", "stage", "beach")},
    {"action": ("opening", "carrying", "folding", "painting", "buying", "washing"),
     "object": ("box", "door", "shirt", "wall", "book", "phone", "cup"),
     "place": ("room", "shop", "garden", "garage")},
)
_GENERIC = {"subject": "someone", "object": "something"}
# Fields carry their own articles/prepositions so omitted slots leave grammatical text.
_TEMPLATES = (
    "{subject} is {action} {object}{in_place}",
    "{subject} {action} {object}{at_place}",
    "{place_in}{subject} is {action} {object}",
    "{subject} is seen {action} {object}{in_place}",
)


@dataclass
class CaptionedVideos:
    """A captioned-video benchmark with known concepts.

    Attributes
    ----------
    video_ids : list of str, one per video ("video0000", ...).
    captions : list of list of str, the captions of each video.
    topic : int array (n_videos,), the latent topic of each video.
    concept_names : list of str, "slot:first surface form" per concept.
    concept_slot : int array (n_concepts,), index into :data:`SLOTS`.
    video_concepts : bool array (n_videos, n_concepts), the concepts each video shows.
    caption_video : int array (n_captions,), the video of each caption in
        :meth:`flat_captions` order (video by video, caption by caption).
    caption_concepts : bool array (n_captions, n_concepts), the concepts each
        caption mentions.
    seed : int, the seed that generated it.

    Parameters
    ----------
    video_ids, captions, topic, concept_names, concept_slot, video_concepts, caption_video, caption_concepts, seed
        As the attributes above.
    params : dict
        The generator's settings.

    Examples
    --------
    Made by :func:`simulate_captions`:

    >>> data = simulate_captions(n_videos=4, captions_per_video=2, n_topics=2, seed=1)
    >>> data.n_videos, data.video_ids[0], data.captions[0]
    (4, 'video0000', ['someone is pouring the tomato', 'a player is pouring the tomato'])
    >>> data.query_index().tolist()
    [0, 2, 4, 6]
    """

    video_ids: list
    captions: list
    topic: np.ndarray
    concept_names: list
    concept_slot: np.ndarray
    video_concepts: np.ndarray
    caption_video: np.ndarray
    caption_concepts: np.ndarray
    seed: int = 0
    params: dict = field(default_factory=dict)

    @property
    def n_videos(self) -> int:
        return len(self.video_ids)

    def flat_captions(self) -> list:
        """All captions, video by video, in ``caption_video`` order."""
        return [c for caps in self.captions for c in caps]

    def relevance(self, caption_index=None) -> np.ndarray:
        """Boolean ``(n_captions, n_videos)``: caption relevant to video (every mentioned concept shown).

        ``caption_index`` selects rows of :meth:`flat_captions` (default: all).
        Vectorised: a caption is relevant when it mentions no concept the video lacks,
        i.e. ``C (1 - V)ᵀ == 0``.
        """
        c = self.caption_concepts if caption_index is None else self.caption_concepts[np.asarray(caption_index)]
        missing = c.astype(np.int32) @ (~self.video_concepts).T.astype(np.int32)
        return missing == 0

    def query_index(self, seed: int | None = None) -> np.ndarray:
        """One caption per video (row ``v`` is video ``v``'s query), as flat caption indices.

        ``seed=None`` takes each video's first caption (as MSR-VTT 1k-A keeps one fixed
        caption per video); otherwise a seeded random one.
        """
        counts = np.array([len(c) for c in self.captions])
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        if seed is None:
            return starts
        rng = np.random.default_rng(seed)
        return starts + (rng.random(len(counts)) * counts).astype(int)


def _concept_table():
    """The global concept table: (names ``slot:word``, slot index, surface forms, each slot's first index)."""
    names, slots, forms, offset = [], [], [], {}
    for s, slot in enumerate(SLOTS):
        offset[slot] = len(names)
        for surf in _POOLS[slot]:
            names.append(f"{slot}:{surf[0]}")
            slots.append(s)
            forms.append(surf)
    return names, slots, forms, offset


def _caption_text(template: str, words: dict) -> str:
    """One caption: ``template`` filled with the named words (``words``: slot -> surface form, None when the
    caption does not name it; an unnamed subject or object reads generically, an unnamed place is left out)."""
    words = dict(words)
    place = words.pop("place")
    words["subject"] = f"a {words['subject']}" if words["subject"] else _GENERIC["subject"]
    words["object"] = f"the {words['object']}" if words["object"] else _GENERIC["object"]
    words["in_place"] = f" in the {place}" if place else ""
    words["at_place"] = f" at the {place}" if place else ""
    words["place_in"] = f"in the {place} " if place else ""
    return " ".join(template.format(**words).split())


@validate_params(n_videos=Int(1), captions_per_video=Int(1), n_topics=Int(1), actions_per_topic=Int(1),
                 objects_per_topic=Int(1), places_per_topic=Int(1), p_subject=Real(0, 1), p_object=Real(0, 1),
                 p_place=Real(0, 1), seed=Int(0))
def simulate_captions(n_videos: int = 200, captions_per_video: int = 20, n_topics: int = 10, *,
                      actions_per_topic: int = 3, objects_per_topic: int = 4, places_per_topic: int = 2,
                      p_subject: float = 0.8, p_object: float = 0.8, p_place: float = 0.5,
                      seed: int = 0) -> CaptionedVideos:
    """Simulate ``n_videos`` videos with ``captions_per_video`` captions each, in ``n_topics`` topics.

    See the module docstring for the generative story and the relevance rule. The
    ``p_*`` are the probabilities that a caption names that slot (the action is
    always named). Everything is drawn from ``np.random.default_rng(seed)``.

    Parameters
    ----------
    n_videos, captions_per_video, n_topics : int
        The benchmark's size (each at least 1).
    actions_per_topic, objects_per_topic, places_per_topic : int
        The concepts each topic draws from.
    p_subject, p_object, p_place : float in [0, 1]
        Probability that a caption names that slot.
    seed : int
        Seed.

    Returns
    -------
    CaptionedVideos

    >>> data = simulate_captions(n_videos=4, captions_per_video=2, n_topics=2, seed=1)
    >>> len(data.captions), len(data.captions[0]), data.relevance().shape
    (4, 2, (8, 4))
    >>> bool(data.relevance()[np.arange(8), data.caption_video].all())   # own video is relevant
    True
    """
    per_topic = {"action": actions_per_topic, "object": objects_per_topic, "place": places_per_topic}
    rng = np.random.default_rng(seed)
    names, slots, forms, offset = _concept_table()
    n_concepts = len(names)

    index = {slot: {surf[0]: i for i, surf in enumerate(_POOLS[slot])} for slot in SLOTS}
    topic_pools = []
    for t in range(n_topics):
        family = _FAMILIES[t % len(_FAMILIES)]  # round-robin so every family is used
        topic_pools.append({slot: rng.choice([index[slot][w] for w in family[slot]],
                                             size=min(k, len(family[slot])), replace=False)
                            for slot, k in per_topic.items()})
    topic = rng.integers(0, n_topics, size=n_videos)
    video_concepts = np.zeros((n_videos, n_concepts), dtype=bool)
    chosen = np.zeros((n_videos, len(SLOTS)), dtype=int)  # global concept index per slot
    for v in range(n_videos):
        pools = topic_pools[topic[v]]
        for s, slot in enumerate(SLOTS):
            local = rng.integers(len(_POOLS[slot])) if slot == "subject" else rng.choice(pools[slot])
            chosen[v, s] = offset[slot] + local
    video_concepts[np.arange(n_videos)[:, None], chosen] = True

    n_caps = n_videos * captions_per_video
    named = np.ones((n_caps, len(SLOTS)), dtype=bool)
    named[:, SLOTS.index("subject")] = rng.random(n_caps) < p_subject
    named[:, SLOTS.index("object")] = rng.random(n_caps) < p_object
    named[:, SLOTS.index("place")] = rng.random(n_caps) < p_place
    caption_video = np.repeat(np.arange(n_videos), captions_per_video)
    caption_concepts = np.zeros((n_caps, n_concepts), dtype=bool)
    rows, cols = np.nonzero(named)
    caption_concepts[rows, chosen[caption_video[rows], cols]] = True

    templates = rng.integers(len(_TEMPLATES), size=n_caps)
    form_draw = rng.random((n_caps, len(SLOTS)))
    captions = [[] for _ in range(n_videos)]
    for i in range(n_caps):
        v = caption_video[i]
        words = {}
        for s, slot in enumerate(SLOTS):
            surf = forms[chosen[v, s]]
            words[slot] = surf[int(form_draw[i, s] * len(surf))] if named[i, s] else None
        captions[v].append(_caption_text(_TEMPLATES[templates[i]], words))

    return CaptionedVideos(
        video_ids=[f"video{v:04d}" for v in range(n_videos)], captions=captions, topic=topic,
        concept_names=names, concept_slot=np.array(slots), video_concepts=video_concepts,
        caption_video=caption_video, caption_concepts=caption_concepts, seed=seed,
        params=dict(n_videos=n_videos, captions_per_video=captions_per_video, n_topics=n_topics,
                    actions_per_topic=actions_per_topic, objects_per_topic=objects_per_topic,
                    places_per_topic=places_per_topic, p_subject=p_subject, p_object=p_object,
                    p_place=p_place))
