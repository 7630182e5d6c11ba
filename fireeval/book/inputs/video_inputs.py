"""The inputs of the text-to-video chapters (false_negatives, semantic_similarity).

One call per chapter assembles its MSR-VTT 1k-A data and says where it came from:

* the registry's real files (the 1k-A queries, the videos' captions, the shipped runs'
  similarity matrices; FIRE's labels and runs where the chapter uses them when present);
* the reader's own text-to-video similarity matrices (chapter parameter ``similarity``:
  name -> ``.npy``, rows queries, columns videos, with the row and column order in
  ``<stem>.queries.txt`` and ``<stem>.videos.txt`` beside it, one id per line: the 1k-A
  video ids, a query's id being its video's), reordered to the chapter's queries and
  videos with :func:`fireeval.datasets.similarity_inputs.load_aligned`; each enters the
  chapter as one more model;
* the seeded synthetic stand-in, only through :func:`fireeval.datasets.choose_source`
  (never when real files fail their checksum, or when the reader named data).

The reader's files are validated (a NumPy matrix of finite numbers, shape against the id
lists, duplicate and missing ids), not checked against the registry; every error is one
line naming the file and the fix.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fireeval.book.inputs import Inputs
from fireeval.core.validation import ANY, BOOL, COLLECTION, SEED, Instance, Int, Options, validate_params
from fireeval.datasets import SOURCES

__all__ = ["VideoInputs", "id_lists_beside", "read_reader_similarity", "false_negatives_inputs",
           "semantic_similarity_msrvtt"]


@dataclass(frozen=True, kw_only=True)
class VideoInputs(Inputs):
    """A chapter's text-to-video data (``source``, ``note`` and ``reader_files`` as every bundle): ``runs``
    holds the shipped models, then the reader's (``reader``)."""

    queries: list  # query texts in row order
    video_ids: list  # video ids in column order (query i's own video is column i)
    video_captions: list  # each video's captions, column order
    runs: dict  # {name: (queries, videos) similarity}
    shipped: list  # names of the book's runs
    reader: list = field(default_factory=list)  # names of the reader's runs
    reader_info: dict = field(default_factory=dict)  # {name: {"path", "queries", "videos", "shape"}}
    extra: dict = field(default_factory=dict)  # chapter-specific inputs
    # {name: fireeval.core.tied_scores.TieReport} of every run (own video = the diagonal): .flagged runs are not a
    # full ranking, and their ranking numbers are bounds over tie rules (fireeval.t2v.retrieval.tie_bounds)
    ties: dict = field(default_factory=dict)

    def flagged_runs(self) -> list:
        """Names of the runs that are not a full ranking (a tied fill block in many rows), in run order."""
        return [name for name, report in self.ties.items() if report.flagged]


def _bundle(source, note, queries, video_ids, video_captions, runs, shipped, reader=(), reader_info=None,
            extra=None) -> VideoInputs:
    from fireeval.core import tied_scores

    reader_info = dict(reader_info or {})
    files = tuple(f for i in reader_info.values() for f in (i["path"], i["queries"], i["videos"]))
    ties = {name: tied_scores.tied_fill(s, np.eye(*np.shape(s), dtype=bool)) for name, s in runs.items()}
    return VideoInputs(source=source, note=note, reader_files=files, queries=list(queries), video_ids=list(video_ids),
                       video_captions=list(video_captions), runs=runs, shipped=list(shipped), reader=list(reader),
                       reader_info=reader_info, extra=dict(extra or {}), ties=ties)


@validate_params(path=Instance(str, os.PathLike))
def id_lists_beside(path) -> tuple[Path, Path]:
    """``(<stem>.queries.txt, <stem>.videos.txt)`` beside the matrix ``path``; a missing one is a one-line error."""
    path = Path(path)
    stem = path.with_suffix("") if path.suffix == ".npy" else path
    out = []
    for kind, what in (("queries", "query id per line, in the matrix's row order"),
                       ("videos", "video id per line, in the matrix's column order")):
        ids = stem.parent / f"{stem.name}.{kind}.txt"
        if not ids.is_file():
            raise FileNotFoundError(f"{ids}: not found beside the similarity matrix {path}. "
                                    f"Fix: write that file with one {what}.")
        out.append(ids)
    return out[0], out[1]


@validate_params(similarity=[Instance(Mapping), None], query_ids=COLLECTION, video_ids=COLLECTION, taken=COLLECTION)
def read_reader_similarity(similarity: dict, query_ids, video_ids, taken=()) -> tuple[dict, dict]:
    """``({name: (queries, videos)}, {name: info})``: the reader's matrices in the chapter's row and column order.

    ``query_ids``/``video_ids`` are the chapter's (for MSR-VTT 1k-A both are the video ids:
    query i is the caption of video i). A name that shadows a shipped run is refused.
    """
    from fireeval.datasets.similarity_inputs import load_aligned

    runs, infos = {}, {}
    for name, path in (similarity or {}).items():
        if name in taken:
            raise ValueError(f"similarity: the name {name!r} is already a shipped run. "
                             f"Fix: call your matrix something else (e.g. 'my_{name}').")
        try:
            if not Path(path).is_file():
                raise FileNotFoundError(f"{path}: no such file. Fix: give the path of a .npy similarity matrix "
                                        "(numpy.save; rows queries, columns videos).")
            if Path(path).suffix != ".npy":
                raise ValueError(f"{path}: not a .npy file. Fix: save the matrix with numpy.save(PATH.npy, matrix) "
                                 "and its id lists as PATH.queries.txt and PATH.videos.txt beside it.")
            queries, videos = id_lists_beside(path)
            runs[name] = load_aligned(path, queries, videos, query_ids, video_ids, name=f"similarity[{name!r}]")
        except FileNotFoundError as err:
            raise FileNotFoundError(f"similarity[{name!r}]: {err}") from None
        except ValueError as err:
            raise ValueError(f"similarity[{name!r}]: {err}") from None
        infos[name] = {"path": str(path), "queries": str(queries), "videos": str(videos),
                       "shape": [len(query_ids), len(video_ids)]}
    return runs, infos


def reader_note(infos: dict) -> str:
    """``"; the reader's own runs: mine (1000 x 1000 of a larger matrix)"`` or ``""``."""
    if not infos:
        return ""
    return "; the reader's own runs: " + ", ".join(f"{n} ({i['shape'][0]} queries x {i['shape'][1]} videos)"
                                                   for n, i in infos.items())


def _choose(data_source, files, data_dir, similarity):
    from fireeval.datasets import choose_source

    return choose_source(data_source, files, root=data_dir, reader_inputs={"similarity": similarity},
                         what="the MSR-VTT files")


def _check_models(models, parameter, allowed):
    unknown = [m for m in models if m not in allowed]
    if unknown:
        raise ValueError(f"{parameter}: {unknown[0]!r} is not a shipped MSR-VTT run (known: {', '.join(allowed)}). "
                         "Fix: give your own matrix with -p similarity '{\"NAME\": \"PATH.npy\"}' instead.")


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], models=COLLECTION,
                 diagonal_models=COLLECTION, labels=Options("auto", "fire", "proxy"), similarity=ANY,
                 n_videos_synthetic=Int(1), seed=SEED)
def false_negatives_inputs(data_source: str = "auto", data_dir=None, models=(), diagonal_models=(), labels="auto",
                           similarity=None, *, n_videos_synthetic: int = 1000, seed: int = 0) -> VideoInputs:
    """false_negatives: MSR-VTT 1k-A with the pooled runs, FIRE's labels and runs when present, the reader's
    matrices as further pooled models; or the seeded FIRE simulation.

    ``extra``: ``have_fire`` (FIRE's human labels present and wanted), ``diag_runs`` (runs usable only on
    the diagonal), ``sim`` (the simulation, synthetic only).
    """
    from fireeval.datasets import DataUnavailable, msrvtt, optional_data
    from fireeval.datasets import fire as fire_ds

    _check_models(models, "models", [m for m in msrvtt.MODELS if m not in msrvtt.DIAGONAL_ONLY])
    _check_models(diagonal_models, "diagonal_models", list(msrvtt.MODELS))
    files = [msrvtt.QUERIES, msrvtt.CAPTIONS["test"]] + [msrvtt.MODELS[m] for m in models]
    source = _choose(data_source, files, data_dir, similarity)
    if source == "synthetic":
        from fireeval.synthetic.fire_study import simulate_fire

        sim = simulate_fire(n_videos=n_videos_synthetic, seed=seed)
        runs = dict(sim.similarity)
        why = "data_source=synthetic" if data_source == "synthetic" else "no MSR-VTT file found"
        note = (f"SYNTHETIC stand-in ({why}): {len(sim.queries)} simulated videos with 20 captions each and "
                f"simulated models {', '.join(runs)}")
        return _bundle(source, note, sim.queries, sim.video_ids, sim.data.captions, runs, list(runs),
                           extra={"have_fire": False, "diag_runs": {}, "sim": sim})
    have_fire = labels in ("auto", "fire") and optional_data(fire_ds.FILES["msrvtt"], root=data_dir)
    if labels == "fire" and not have_fire:
        raise DataUnavailable(f"labels='fire' but {fire_ds.FILES['msrvtt']} is not present (Git LFS object of "
                              "facebookresearch/mm-retrieval-evaluation). Fix: place it under FIREEVAL_DATA/fire/, "
                              "or -p labels proxy.")
    qframe = msrvtt.load_queries(data_dir)
    queries, video_ids = qframe["sentence"].tolist(), qframe["video_id"].tolist()
    runs = {m: msrvtt.load_similarity(m, data_dir) for m in models}
    diag_runs = {m: msrvtt.load_similarity(m, data_dir, diagonal_only_ok=True) for m in diagonal_models
                 if optional_data(msrvtt.MODELS[m], root=data_dir)}
    if have_fire and optional_data(fire_ds.PREDICTIONS, root=data_dir):  # FIRE's own runs: Table 1 comparable 1:1
        runs = {fire_ds.FIRE_MODELS[t]: s for t, s in fire_ds.load_predictions("msrvtt", data_dir).items()}
    theirs, infos = read_reader_similarity(similarity, video_ids, video_ids, taken=set(runs) | set(diag_runs))
    note = (f"real data: MSR-VTT 1k-A, {len(queries)} queries, runs {', '.join(runs)}{reader_note(infos)}")
    return _bundle(source, note, queries, video_ids, msrvtt.load_video_captions_1ka(data_dir),
                       {**runs, **theirs}, list(runs), list(theirs), infos,
                       extra={"have_fire": have_fire, "diag_runs": diag_runs, "sim": None})


@validate_params(data_source=Options(*SOURCES), data_dir=[Instance(str, os.PathLike), None], runs=COLLECTION,
                 similarity=ANY, n_videos=Int(1), want=BOOL)
def semantic_similarity_msrvtt(data_source: str = "auto", data_dir=None, runs=(), similarity=None, *,
                               n_videos: int = 1000, want: bool = True) -> VideoInputs | None:
    """semantic_similarity's MSR-VTT part on real data: the first ``n_videos`` 1k-A queries and videos, the
    shipped runs and the reader's matrices (cut to the same queries and videos); ``None`` when the chapter
    runs its synthetic stand-in (which the chapter builds itself, with its own simulated models).
    """
    from fireeval.datasets import msrvtt

    _check_models(runs, "runs", [m for m in msrvtt.MODELS if m not in msrvtt.DIAGONAL_ONLY])
    if not want:
        if similarity:
            raise ValueError("similarity: your matrices are MSR-VTT runs, but dataset leaves MSR-VTT out. "
                             "Fix: -p dataset msrvtt (or both).")
        return None
    files = [msrvtt.QUERIES, msrvtt.CAPTIONS["test"], *(msrvtt.MODELS[r] for r in runs)]
    if _choose(data_source, files, data_dir, similarity) == "synthetic":
        return None
    qframe = msrvtt.load_queries(data_dir).iloc[:n_videos]
    video_ids = list(qframe["video_id"])
    shipped = {r: msrvtt.load_similarity(r, data_dir)[:n_videos, :n_videos] for r in runs}
    theirs, infos = read_reader_similarity(similarity, video_ids, video_ids,
                                           taken=set(shipped) | {"random", "text-only (TF-IDF)"})
    note = (f"real MSR-VTT 1k-A: {len(video_ids)} queries (one caption per video, JSFusion order) over "
            f"the same {len(video_ids)} videos, 20 captions per video; runs {', '.join(shipped)}{reader_note(infos)}")
    return _bundle("real", note, list(qframe["sentence"]), video_ids,
                       msrvtt.load_video_captions_1ka(data_dir)[:n_videos], {**shipped, **theirs}, list(shipped),
                       list(theirs), infos)
