"""Regenerate data/registry.json from ../shared/data (maintainers only).

Each record maps a file's path below the data root to its sha256 (of the file as
shipped in shared/data), its upstream raw URL at a pinned commit when the upstream
path is known, and, for files that shared/data stores gzipped, the sha256 of the
uncompressed upstream bytes, so a download can be verified too.

    python scripts/make_registry.py ../shared/data > data/registry.json
"""
from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

GH = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
TREC8 = ("isoboroff/trec8-scores", "2d3c9555462f326b435413c90b7bc14d720e0b96")
CE = ("albanie/collaborative-experts", "31cf2d26d2b7b078bc329ff492f780fdc8714262")
SGN = ("hobincar/SGN", "c99c20923f328f1f989eaec458655cc06f1e2d09")
VIC_A = ("mohammad2012191/ViC", "ec97f9255e993f2ddb6945c452ab5931e7491147")
VIC_B = ("mohammad2012191/ViC", "913f0bf6e6b9eb9f2016fab14bae00ff42434600")
XAI = ("Hyungson/X-AI-5th-ADV-MM2", "a1701d5c4ca330abd7d9ae2a634034a76fd64722")
TAN = ("microsoft/2D-TAN", "2f7410f0de5e764ac7d84817f173732ef34e1545")
AXIOU = ("riktor/vmr-axiou", "6d3b865c02fc9bdfaa5bb77b60eac20396a9835c")
HIDDEN = ("mayu-ot/hidden-challenges-MR", "e0c4546b5a614a20b680765fd4ad250564327b6a")
MDETR = ("jayleicn/moment_detr", "b7e553ac3b0c898ee6b85e03ee507c064eab89ca")
EPIC = ("epic-kitchens/epic-kitchens-100-annotations", "ea8b40457a400c3fffa1c7f406ef3dc169cc2522")

LICENCES = {
    "trec8_adhoc": "none stated (NIST TREC data; cite Voorhees & Harman, Overview of TREC-8)",
    "msrvtt": "see shared/data/README.md per file (MIT, Apache-2.0, or none stated)",
    "msvd": "MIT (captions, SGN) / Apache-2.0 (splits, collaborative-experts)",
    "charades_sta": "MIT / BSD-2-Clause code repos; Charades: non-commercial terms",
    "activitynet_captions": "MIT (repos); ActivityNet Captions: dataset owners' terms",
    "qvhighlights": "CC BY-NC-SA 4.0",
    "epic_kitchens_100": "CC BY-NC 4.0",
    "nlp": "derived from WordNet 3.0 lexnames(5WN) (WordNet licence)",
    "fire": "CC BY-NC-SA 4.0 (LICENSE) / CC BY-NC 2.0 (README)",
}


def upstream(rel: str) -> tuple[tuple[str, str] | None, str | None, bool]:
    """(repo, commit), upstream path, and whether shared/data gzipped the upstream file."""
    folder, _, name = rel.partition("/")
    base = name.rsplit("/", 1)[-1]
    if folder == "trec8_adhoc":
        if name.startswith("runs/input."):
            return TREC8, "inputs/" + base[: -len(".gz")], True
        if name == "qrels.trec8.adhoc.txt.gz":
            return TREC8, "trec8.qrels", True
        if name == "annotated-qrels.trec8.txt.gz":
            return TREC8, "annotated-qrels", True
        if name == "reference/official-scores.map":
            return TREC8, "official-scores.map", False
        return None, None, False  # derived (runs.tsv, mini_topics, gloo table) or renamed
    if folder in ("msrvtt", "msvd") and base.startswith("ce_"):
        return CE, f"misc/datasets/{folder}/{base[3:]}", False
    if folder == "msrvtt":
        if base.startswith("sgn_msrvtt_official_"):
            split = base.split("_")[3]
            return SGN, f"data/MSR-VTT/metadata/{split}.json", False
        if base.startswith("MSRVTT_train"):
            return XAI, f"data/MSRVTT/{base}", False
        if base in ("clip4clip_msrvtt.npy", "InternVideo2_msrvtt.npy"):
            return VIC_A, f"Similarity_Matrices/{base}", False
        if base in ("GRAM_msrvtt.npy", "VAST_msrvtt.npy"):
            return VIC_B, f"Similarity_Matrices/{base}", False
        if base == "MSRVTT_JSFUSION_test.csv":
            return VIC_A, "Groud_Truth/descs_ret_test_msrvtt.csv", False
    if folder == "msvd" and base.startswith("sgn_msvd_"):
        return SGN, f"data/MSVD/metadata/{base.split('_')[2]}.csv", False
    if folder == "charades_sta":
        if base.startswith(("charades_sta_", "Charades_v1_")):
            return TAN, f"data/Charades-STA/{base}", False
        if name.startswith("predictions/original_pickles/"):
            return AXIOU, f"data/processed/charades/{base}", False
        if name.startswith("human_reannotations/"):
            return HIDDEN, f"data/raw/charades/re-annotated/{base}", False
        if name == "reference/ExperimentsOnCharadesSTA.ipynb":  # the authors' notebook with its outputs
            return AXIOU, f"notebooks/{base}", False
        return None, None, False
    if folder == "activitynet_captions":
        mapping = {"train.json": "train.json", "val_1.json": "val.json", "val_2.json": "test.json"}
        if base in mapping and "/" not in name:
            return TAN, f"data/ActivityNet/{mapping[base]}", False
        return None, None, False
    if folder == "epic_kitchens_100":
        if base.startswith("EPIC_100_retrieval"):
            return EPIC, f"retrieval_annotations/{base}", False
        if base in ("EPIC_100_verb_classes.csv", "EPIC_100_noun_classes.csv"):
            return EPIC, base, False
    return None, None, False


def main(root: Path) -> None:
    records = []
    for sums in sorted(root.glob("*/SHA256SUMS")):
        folder = sums.parent.name
        for line in sums.read_text().splitlines():
            digest, rel = line.split(None, 1)
            rel = f"{folder}/{rel.strip().removeprefix('./')}"
            path = root / rel
            source, up_path, gz = upstream(rel)
            record = {
                "path": rel,
                "sha256": digest,
                "size": path.stat().st_size,
                "licence": LICENCES.get(folder, "see shared/data/README.md"),
                "url": GH.format(repo=source[0], commit=source[1], path=up_path) if source else None,
            }
            if gz:
                record["upstream_sha256"] = hashlib.sha256(gzip.open(path).read()).hexdigest()
                record["upstream_compression"] = "none; stored gzipped"
            records.append(record)
    # The FIRE labels live in Git LFS upstream: only the pointers are shared, but the
    # pointers give the real objects' sha256 and size, so a user-supplied file is verified.
    for pointer in sorted((root / "fire").glob("*.lfs-pointer.txt")):
        fields = dict(l.split(" ", 1) for l in pointer.read_text().splitlines() if " " in l)
        records.append({
            "path": "fire/" + pointer.name.removesuffix(".lfs-pointer.txt"),
            "sha256": fields["oid"].removeprefix("sha256:").strip(),
            "size": int(fields["size"]),
            "licence": LICENCES["fire"],
            "url": None,
            "note": "Git LFS object of facebookresearch/mm-retrieval-evaluation @ "
                    "49ec7239d64ed40c57fddfde53a49bdb0bfee941; not downloadable here: "
                    "place the file in FIREEVAL_DATA/fire/",
        })
    json.dump({"version": 1, "files": records}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data").resolve())
