"""FIRE label loader (exact upstream schema, written at test time), Table 2, MSVD loader."""
import hashlib
import json

import numpy as np
import pytest

from conftest import require_data
from fireeval.datasets import DataError, DataUnavailable, fire as fire_ds, has_data, registry
from fireeval.synthetic.fire_study import fire_dataset_dict, simulate_labels

QUERIES = ["a man cuts a tomato", "a dog runs", "a man cuts a tomato", "cars on a road"]  # rows 0 and 2 share text
VIDEOS = ["video7", "video8", "video9", "video10"]


def write_fixture(tmp_path, entries, disagreements=()):
    """A FIRE file in the exact upstream schema: entries are (query, video_id, labels, models)."""
    def entry(q, v, labs, ms, i):
        return {"annotator_ids": list(range(i, i + len(labs))), "video_id": v, "query": q,
                "annotator_labels": labs, "response_ids": list(range(len(labs))), "queue_ids": [7] * len(labs),
                "models": ms, "dataset": "MSRVTT"}
    data = {"annotations": [], "disagreements": [], "source_ds": "2022-05-23", "source_data_md5": "x",
            "source_annotator_map_md5": "y", "created_ds": "now", "email": "e", "creator": "c", "website": "w",
            "license": "l", "datasets": ["MSRVTT"]}
    for i, (q, v, labs, ms) in enumerate(entries):
        majority = "relevant" if sum(x == "relevant" for x in labs) * 2 > len(labs) else "irrelevant"
        data["annotations"].append({**entry(q, v, labs, ms, i), "label": majority})
    for i, (q, v, labs, ms) in enumerate(disagreements):
        data["disagreements"].append(entry(q, v, labs, ms, 100 + i))
    path = tmp_path / "fire_msrvtt_dataset.json"
    path.write_text(json.dumps(data))
    return path


ENTRIES = [
    ("a man cuts a tomato", "video8", ["relevant"], ["CLIP4CLIP"]),
    ("a man cuts a tomato", "video10", ["irrelevant", "relevant", "irrelevant"], ["CE", "SSB"]),
    ("a dog runs", "video9", ["relevant", "relevant"], ["SSB"]),
    ("a dog runs", "video404", ["relevant"], ["CE"]),            # video not in the grid
    ("a  dog runs ", "video10", ["irrelevant"], ["CE"]),         # whitespace differs: joined after normalising
    ("an unknown caption", "video7", ["relevant"], ["CE"]),      # caption not in the grid
]


def test_read_and_join_fixture(tmp_path):
    path = write_fixture(tmp_path, ENTRIES, disagreements=[("cars on a road", "video7", ["relevant", "irrelevant"],
                                                            ["CLIP4CLIP"])])
    labels = fire_ds.read_labels(path)
    assert len(labels) == 7 and labels["agreement"].sum() == 6
    J, stats = fire_ds.to_judgements(labels, QUERIES, VIDEOS)
    assert stats == {"labels": 7, "placed": 5, "caption_not_found": 1, "video_not_found": 1}
    assert J.models == ("CLIP4CLIP", "SSB", "CE")
    rel = np.zeros((4, 4), dtype=bool)
    rel[[0, 2], 1] = True          # both rows with the tomato caption
    rel[1, 2] = True
    assert J.relevant.tolist() == rel.tolist()
    judged = rel.copy()
    judged[[0, 2], 3] = True
    judged[1, 3] = True
    judged[3, 0] = True            # the disagreement is judged, not relevant
    assert J.judged.tolist() == judged.tolist()
    # leave CLIP4CLIP out: the tomato -> video8 positive was found only by CLIP4CLIP
    original = np.eye(4, dtype=bool)
    assert not J.leave_out(original, "CLIP4CLIP")[0, 1] and J.leave_out(original, "CE")[1, 2]


def test_sha256_pointer_and_schema_errors(tmp_path):
    path = write_fixture(tmp_path, ENTRIES[:2])
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert len(fire_ds.read_labels(path, expected_sha256=digest)) == 2
    with pytest.raises(DataError, match="sha256"):
        fire_ds.read_labels(path, expected_sha256="0" * 64)
    pointer = tmp_path / "pointer.json"
    pointer.write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{digest}\nsize 10\n")
    assert fire_ds.read_lfs_pointer(pointer) == {"sha256": digest, "size": 10}
    with pytest.raises(DataError, match="git lfs pull"):
        fire_ds.read_labels(pointer)
    bad = json.loads(path.read_text())
    del bad["annotations"][1]["models"]
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"annotations\[1\] lacks \['models'\]"):
        fire_ds.read_labels(path)
    bad["annotations"][1]["models"] = ["CE"]
    bad["annotations"][1]["annotator_labels"] = ["maybe", "relevant", "irrelevant"]
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="'maybe'"):
        fire_ds.read_labels(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="line 1"):
        fire_ds.read_labels(path)


def test_agreement_table_by_hand(tmp_path):
    """Units R,R / R,I,I / I,I / I,I,I / R: hand-computed Krippendorff alpha (nominal)."""
    entries = [("a dog runs", "video7", ["relevant", "relevant"], ["CE"]),
               ("a dog runs", "video8", ["relevant", "irrelevant", "irrelevant"], ["CE"]),
               ("a dog runs", "video9", ["irrelevant", "irrelevant"], ["CE"]),
               ("a dog runs", "video10", ["irrelevant"] * 3, ["CE"]),
               ("cars on a road", "video7", ["relevant"], ["SSB"])]
    table = fire_ds.agreement_table(fire_ds.read_labels(write_fixture(tmp_path, entries)))
    # Coincidences over the 4 multiply-labelled units (each ordered pair weighted 1/(m_u - 1)):
    # o_RR = 2, o_RI = o_IR = 2/2 = 1 (unit 2), o_II = 1 + 2 + 3 = 6; n = 10, n_R = 3, n_I = 7.
    d_o = 2 / 10
    d_e = 2 * 3 * 7 / (10 * 9)
    assert table["krippendorff_alpha"] == pytest.approx(1 - d_o / d_e)
    # agreeing ordered label pairs / all ordered pairs: (2 + 2 + 2 + 6) / (2 + 6 + 2 + 6)
    assert table["percent_agreement"] == pytest.approx(12 / 16)
    assert (table["pairs"], table["relevant"], table["irrelevant"], table["labels"]) == (5, 2, 3, 11)
    # independent path: the package's coder x unit matrix gives the same alpha
    import krippendorff

    data = np.full((3, 4), np.nan)
    for u, labs in enumerate(e[2] for e in entries[:4]):
        data[:len(labs), u] = [x == "relevant" for x in labs]
    assert table["krippendorff_alpha"] == pytest.approx(krippendorff.alpha(data, level_of_measurement="nominal"))


def test_simulated_annotators_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    pairs = [(int(q), int(v)) for q, v in zip(rng.integers(0, 4, 300), rng.integers(0, 4, 300))]
    pairs = list(dict.fromkeys(pairs))
    truth = rng.random(len(pairs)) < 0.3
    labels, ids = simulate_labels(truth, error_rate=0.0, p_second=1.0, seed=1)
    data = fire_dataset_dict(QUERIES, VIDEOS, pairs, labels, ids, [["CE"]] * len(pairs))
    path = tmp_path / "sim.json"
    path.write_text(json.dumps(data))
    table = fire_ds.agreement_table(fire_ds.read_labels(path))
    assert table["krippendorff_alpha"] == pytest.approx(1.0) and table["disagreement_pairs"] == 0


def test_registry_matches_lfs_pointers():
    for dataset in ("msrvtt", "msvd"):
        name = fire_ds.POINTERS[dataset]
        require_data(name)
        assert fire_ds.pointer_sha256(dataset) == fire_ds.registry_sha256(dataset)
        assert registry()[fire_ds.FILES[dataset]]["size"] == fire_ds.read_lfs_pointer(
            __import__("fireeval.datasets", fromlist=["data_path"]).data_path(name))["size"]


def test_real_labels_absent_or_match_paper_table2():
    if not has_data(fire_ds.FILES["msrvtt"]):
        with pytest.raises(DataUnavailable, match="FIREEVAL_DATA"):
            fire_ds.load_labels("msrvtt")
        pytest.skip("real FIRE labels absent (Git LFS object not supplied)")
    table = fire_ds.agreement_table(fire_ds.load_labels("msrvtt"))
    assert (table["pairs"], table["relevant"], table["disagreement_pairs"]) == (24183, 2855, 16)
    assert table["krippendorff_alpha"] == pytest.approx(0.691, abs=5e-4)


def test_msvd_captions_and_split():
    from fireeval.datasets import msvd

    require_data(*msvd.FILES)
    ids = msvd.load_split("test")
    caps = msvd.load_captions("test")
    assert len(ids) == 670 and list(caps) == ids
    assert sum(len(c) for c in caps.values()) == 27768
    assert msvd.load_captions("test", normalise=True)[ids[0]][0] == msvd.normalise_caption(caps[ids[0]][0])
    with pytest.raises(ValueError, match="split"):
        msvd.load_split("dev")


def test_named_judgements_renames_tags_to_printed_names(tmp_path):
    labels = fire_ds.read_labels(write_fixture(tmp_path, ENTRIES))
    J, stats = fire_ds.named_judgements(labels, QUERIES, VIDEOS)
    raw, raw_stats = fire_ds.to_judgements(labels, QUERIES, VIDEOS)
    assert J.models == ("CLIP4Clip", "SSB", "TeachText") and stats == raw_stats
    assert (J.relevant == raw.relevant).all() and (J.contributed == raw.contributed).all()
    J2, _ = fire_ds.named_judgements(labels, QUERIES, VIDEOS, {"CE": "X"})
    assert J2.models == ("CLIP4CLIP", "SSB", "X")
