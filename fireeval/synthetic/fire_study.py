"""Seeded stand-in for the FIRE study: retrieval models and human annotators, with known truth.

Built on :func:`fireeval.synthetic.video.simulate_captions` (videos with latent topics,
20 captions each, complete true relevance). One caption per video is the query, so
the *original* positive of query q is video q, while vaguer queries are truly
relevant to other videos as well (false negatives by construction).

- **Models** (:func:`simulate_models`): model m scores pair (q, v) as
  ``quality_m * (true_relevance + own_bonus * [v == q]) + noise``, where the noise mixes
  a component shared by the models of one *family* (weight ``overlap``) with the
  model's own. Models of one family retrieve similar top 10s (like TeachText and SSB);
  different families rarely agree (like CLIP4Clip and the rest). ``own_bonus`` makes
  models favour the exact video a caption was written for, as models trained on the
  captions do.
- **Annotators** (:func:`simulate_labels`): each pooled pair gets one label; a share
  ``p_second`` gets a second, and disagreeing pairs a third (FIRE's protocol); each
  label is the truth flipped with probability ``error_rate``. Written in FIRE's exact
  schema by :func:`fire_dataset_dict`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fireeval.core.validation import ARRAY, STR, Instance, Int, Real, validate_params
from fireeval.synthetic.video import CaptionedVideos, simulate_captions

__all__ = ["FireSimulation", "simulate_fire", "simulate_models", "simulate_labels", "fire_dataset_dict",
           "simulated_fire_file", "DEFAULT_MODELS", "SYNTHETIC_TAGS"]

# name: (quality, family). Two models of one family overlap strongly; the third is apart.
DEFAULT_MODELS = {"ModelA": (3.0, 0), "ModelB": (2.0, 1), "ModelC": (1.8, 1)}
_MODELS = Instance(Mapping, fix="pass {name: (quality, family)}")
_TEXTS = Instance(Sequence, np.ndarray, fix="pass a list of str")
_LISTS = Instance(Sequence, np.ndarray, fix="pass one entry per judged pair (a list or array)")
_LISTS_BY_MODEL = Instance(Mapping, fix="pass {model: int array (n_queries, >= depth)}")
# FIRE's file schema only knows its three models; the simulated ones play their parts
# (ModelA the strong outsider like CLIP4Clip, B and C the overlapping pair like TeachText and SSB).
SYNTHETIC_TAGS = {"ModelA": "CLIP4CLIP", "ModelB": "CE", "ModelC": "SSB"}


@dataclass
class FireSimulation:
    """A simulated benchmark: queries, captions, true relevance and model similarity matrices.

    Parameters
    ----------
    data : CaptionedVideos
        The videos and their captions.
    queries : list of str
        One query caption per video (row q is video q's).
    truth : bool ndarray (n_queries, n_videos)
        True relevance.
    similarity : dict
        ``{model: float ndarray (n_queries, n_videos)}``.
    original : bool ndarray (n_queries, n_videos)
        The benchmark's own positives (the identity).

    Examples
    --------
    Made by :func:`simulate_fire`:

    >>> sim = simulate_fire(n_videos=30, captions_per_video=5, n_topics=3, seed=1)
    >>> sim.queries[0], sorted(sim.similarity), sim.video_ids[:2]
    ('a girl pouring the cup', ['ModelA', 'ModelB', 'ModelC'], ['video0000', 'video0001'])
    """

    data: CaptionedVideos
    queries: list
    truth: np.ndarray          # bool (n_queries, n_videos)
    similarity: dict           # model -> float (n_queries, n_videos)
    original: np.ndarray       # bool (n_queries, n_videos): the identity

    @property
    def video_ids(self):
        return self.data.video_ids


@validate_params(truth=ARRAY, models=_MODELS, overlap=Real(0, 1), own_bonus=Real(), seed=Int(0))
def simulate_models(truth, models: Mapping[str, tuple] = DEFAULT_MODELS, overlap: float = 0.7,
                    own_bonus: float = 0.5, seed: int = 0) -> dict[str, np.ndarray]:
    """Similarity matrices of simulated models: ``{name: (n_queries, n_videos)}``.

    .. math:: s_m(q, v) = a_m (r_{qv} + b [v = q]) + \\sqrt{\\rho} z_{f(m), qv} + \\sqrt{1 - \\rho} e_{m, qv}

    with a_m the model's quality, r the true relevance, b = ``own_bonus``, rho =
    ``overlap``, z the noise shared by family f(m) and e the model's own noise (both
    standard normal). Higher a_m: better model; higher rho: more similar rankings
    within a family.

    Parameters
    ----------
    truth : array_like of bool (n_queries, n_videos)
        True relevance.
    models : dict
        ``{name: (quality a_m, family)}``.
    overlap : float in [0, 1]
        rho, the weight of the family's shared noise.
    own_bonus : float
        b, the extra score of a query's own video.
    seed : int
        Seed of the noise.

    Returns
    -------
    dict
        ``{name: float32 ndarray (n_queries, n_videos)}``.

    Examples
    --------
    >>> sims = simulate_models(np.eye(3, dtype=bool), seed=0)
    >>> sorted(sims), sims["ModelA"].shape, sims["ModelA"].argmax(axis=1).tolist()
    (['ModelA', 'ModelB', 'ModelC'], (3, 3), [0, 1, 2])
    """
    truth = np.asarray(truth, dtype=float)
    rng = np.random.default_rng(seed)
    families = {}
    own = np.eye(*truth.shape)
    out = {}
    for name, (quality, family) in models.items():
        if family not in families:
            families[family] = rng.standard_normal(truth.shape)
        noise = np.sqrt(overlap) * families[family] + np.sqrt(1 - overlap) * rng.standard_normal(truth.shape)
        out[name] = (quality * (truth + own_bonus * own) + noise).astype(np.float32)
    return out


@validate_params(n_videos=Int(1), captions_per_video=Int(1), n_topics=Int(1), models=_MODELS, overlap=Real(0, 1),
                 own_bonus=Real(), seed=Int(0))
def simulate_fire(n_videos: int = 1000, captions_per_video: int = 20, n_topics: int = 40,
                  models: Mapping[str, tuple] = DEFAULT_MODELS, overlap: float = 0.7, own_bonus: float = 0.5,
                  seed: int = 0, **caption_kwargs) -> FireSimulation:
    """A benchmark of ``n_videos`` videos, one query per video, and simulated model runs.

    Parameters
    ----------
    n_videos, captions_per_video, n_topics : int
        The benchmark's size (:func:`fireeval.synthetic.video.simulate_captions`).
    models, overlap, own_bonus
        The simulated models (:func:`simulate_models`).
    seed : int
        Seed of the captions (the models use ``seed + 1``).
    **caption_kwargs
        More options of :func:`fireeval.synthetic.video.simulate_captions`.

    Returns
    -------
    FireSimulation

    >>> sim = simulate_fire(n_videos=30, captions_per_video=5, n_topics=3, seed=1)
    >>> sim.truth.shape, bool(sim.truth[np.arange(30), np.arange(30)].all())
    ((30, 30), True)
    """
    data = simulate_captions(n_videos, captions_per_video, n_topics, seed=seed, **caption_kwargs)
    qidx = data.query_index()
    flat = data.flat_captions()
    truth = data.relevance(qidx)
    sims = simulate_models(truth, models, overlap, own_bonus, seed=seed + 1)
    return FireSimulation(data, [flat[i] for i in qidx], truth, sims, np.eye(n_videos, dtype=bool))


@validate_params(truth_of_pairs=ARRAY, error_rate=Real(0, 1), p_second=Real(0, 1), seed=Int(0), n_annotators=Int(3))
def simulate_labels(truth_of_pairs, error_rate: float = 0.05, p_second: float = 0.1, seed: int = 0,
                    n_annotators: int = 100) -> tuple[list[list[str]], list[list[int]]]:
    """Crowd labels for pairs whose true relevance is ``truth_of_pairs`` (bool, one per pair).

    Every pair gets one label, a random ``p_second`` share a second, and pairs whose
    two labels disagree a third (FIRE's protocol). Each label is the truth flipped
    with probability ``error_rate``. Returns per-pair label lists ("relevant" /
    "irrelevant") and the (distinct) annotator ids who gave them.

    Parameters
    ----------
    truth_of_pairs : array_like of bool
        Each pair's true relevance.
    error_rate : float in [0, 1]
        Probability that a label flips the truth.
    p_second : float in [0, 1]
        Share of pairs given a second label.
    seed : int
        Seed.
    n_annotators : int
        Size of the crowd the raters are drawn from.

    Returns
    -------
    (list of list of str, list of list of int)
        Each pair's labels and their annotators' ids.

    Examples
    --------
    With no errors and a second label for every pair, no pair needs a third:

    >>> labels, ids = simulate_labels([True, False], error_rate=0.0, p_second=1.0, seed=0)
    >>> labels, ids
    ([['relevant', 'relevant'], ['irrelevant', 'irrelevant']], [[3, 84], [88, 42]])
    """
    truth = np.asarray(truth_of_pairs, dtype=bool)
    rng = np.random.default_rng(seed)
    n = len(truth)
    flips = rng.random((n, 3)) < error_rate
    votes = truth[:, None] ^ flips                                    # (n, 3) labels if asked
    second = rng.random(n) < p_second
    third = second & (votes[:, 0] != votes[:, 1])
    n_labels = 1 + second + third
    names = np.array(["irrelevant", "relevant"])
    raters = np.argsort(rng.random((n, n_annotators)), axis=1)[:, :3]  # three distinct raters per pair
    labels = [names[votes[i, :k].astype(int)].tolist() for i, k in enumerate(n_labels)]
    ids = [raters[i, :k].tolist() for i, k in enumerate(n_labels)]
    return labels, ids


@validate_params(queries=_TEXTS, video_ids=_TEXTS, pairs=_LISTS, labels=_LISTS, annotator_ids=_LISTS, models=_LISTS,
                 dataset=STR)
def fire_dataset_dict(queries: Sequence[str], video_ids: Sequence[str], pairs, labels, annotator_ids,
                      models, dataset: str = "MSRVTT") -> dict:
    """A dict in FIRE's exact file schema (``mmr/datasets.py`` FireDataset) for judged pairs.

    ``pairs`` are (query row, video column) index pairs; ``labels`` / ``annotator_ids``
    per-pair lists from :func:`simulate_labels`; ``models`` per-pair lists of upstream
    tags ("CLIP4CLIP", "SSB", "CE"). Pairs whose labels have a strict majority go to
    ``annotations`` (with ``label``), the rest to ``disagreements``.

    Parameters
    ----------
    queries, video_ids : sequence of str
        The benchmark's queries and videos.
    pairs : sequence of (int, int)
        Judged (query row, video column) pairs.
    labels, annotator_ids : sequence of lists
        Each pair's labels and annotators.
    models : sequence of list of str
        Each pair's contributing models, as FIRE's tags.
    dataset : str
        FIRE's dataset name.

    Returns
    -------
    dict
        The file's content (``annotations``, ``disagreements`` and FIRE's metadata keys).

    Examples
    --------
    >>> d = fire_dataset_dict(["a man cooks", "a dog runs"], ["v0", "v1"], [(0, 0), (1, 0)],
    ...                       [["relevant"], ["irrelevant", "relevant"]], [[3], [1, 2]], [["CE"], ["SSB"]])
    >>> [(a["query"], a["video_id"], a["label"]) for a in d["annotations"]], len(d["disagreements"])
    ([('a man cooks', 'v0', 'relevant')], 1)
    """
    annotations, disagreements = [], []
    response = 0
    for (q, v), labs, ids, ms in zip(pairs, labels, annotator_ids, models):
        n_rel = sum(x == "relevant" for x in labs)
        entry = {"annotator_ids": [int(i) for i in ids], "video_id": str(video_ids[v]), "query": queries[q],
                 "annotator_labels": list(labs), "response_ids": list(range(response, response + len(labs))),
                 "queue_ids": [1] * len(labs), "models": list(ms), "dataset": dataset}
        response += len(labs)
        if 2 * n_rel > len(labs):
            annotations.append({**entry, "label": "relevant"})
        elif 2 * n_rel < len(labs):
            annotations.append({**entry, "label": "irrelevant"})
        else:
            disagreements.append(entry)
    return {"annotations": annotations, "disagreements": disagreements, "source_ds": "synthetic",
            "source_data_md5": "", "source_annotator_map_md5": "", "created_ds": "synthetic",
            "email": "", "creator": "fireeval.synthetic.fire_study", "website": "", "license": "CC0",
            "datasets": [dataset]}


@validate_params(sim=Instance(FireSimulation), lists=_LISTS_BY_MODEL, depth=Int(1), error_rate=Real(0, 1),
                 p_second=Real(0, 1), seed=Int(0), tags=Instance(Mapping, fix="pass {model: FIRE tag}"))
def simulated_fire_file(sim: FireSimulation, lists: Mapping[str, np.ndarray], depth: int = 10,
                        error_rate: float = 0.05, p_second: float = 0.1, seed: int = 0,
                        tags: Mapping[str, str] = SYNTHETIC_TAGS) -> dict:
    """Pool the top ``depth`` of ``lists``, have simulated annotators judge every pooled pair,
    and return the result as a FIRE file dict (exact upstream schema).

    ``tags`` maps model names to FIRE's model tags (the schema allows only those).

    Parameters
    ----------
    sim : FireSimulation
        The benchmark.
    lists : dict
        ``{model: int ndarray (n_queries, >= depth)}``, each query's ranked video columns.
    depth : int
        Pool depth.
    error_rate, p_second, seed
        The annotators (:func:`simulate_labels`).
    tags : dict
        ``{model: FIRE tag}``.

    Returns
    -------
    dict
        As :func:`fire_dataset_dict`.

    Examples
    --------
    >>> sim = simulate_fire(n_videos=30, captions_per_video=5, n_topics=3, seed=1)
    >>> lists = {m: np.argsort(-s, axis=1) for m, s in sim.similarity.items()}
    >>> fire = simulated_fire_file(sim, lists, depth=2, seed=0)
    >>> len(fire["annotations"]), len(fire["disagreements"]), fire["annotations"][0]["models"]
    (111, 0, ['CLIP4CLIP', 'CE', 'SSB'])
    """
    from fireeval.t2v.false_negatives import pool

    names = list(lists)
    missing = [m for m in names if m not in tags]
    if missing:
        raise KeyError(f"no FIRE model tag for {missing}; pass tags={{name: 'CLIP4CLIP'|'SSB'|'CE'}}")
    contributed = pool(np.stack([np.asarray(lists[m])[:, :depth] for m in names]), sim.truth.shape[1], depth)
    q, v = np.nonzero(contributed.any(axis=0))
    labels, ids = simulate_labels(sim.truth[q, v], error_rate=error_rate, p_second=p_second, seed=seed)
    models = [[tags[names[m]] for m in np.flatnonzero(contributed[:, a, b])] for a, b in zip(q, v)]
    return fire_dataset_dict(sim.queries, sim.video_ids, list(zip(q.tolist(), v.tolist())), labels, ids, models)
