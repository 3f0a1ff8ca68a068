"""Every JSON Schema in `homesim/schemas/` validates files the commands write, on the built-in episodes and
small generated datasets: an evaluation of each suite, a dataset of each suite, a frames folder, a checkpoint,
a challenge's public split and an action file. `COVERED` names the schemas these tests validate files against:
a new schema must join it (and get a test), or `test_every_schema_is_well_formed_and_covered` fails."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.annotations import annotations_file, read_annotations, write_annotation
from homesim.evaluation.suites import SUITES
from homesim.schemas import names, schema

COVERED = {
    "run", "summary", "manifest", "record", "dataset", "generation", "scene", "frames-meta", "frames-trajectory",
    "checkpoint", "checkpoint-log", "challenge", "actions", "annotation", *(f"episode-{suite}" for suite in SUITES),
}  # fmt: skip
DATASET_ARGS = {  # small datasets of each suite (`homesim generate SUITE`)
    "alfred": ["--episodes", "5"],
    "objectnav": ["--houses", "3", "--episodes", "1"],
    "handmethat": ["--episodes", "3"],
}


def run(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def valid(name: str, data: object) -> None:
    assert name in COVERED
    jsonschema.validate(data, schema(name))


def lines(path: Path) -> list[dict]:
    opened = gzip.open(path, "rt") if path.suffix == ".gz" else open(path)
    with opened as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> Path:
    """Each suite's evaluation of its built-in episodes (ObjectNav: the first) and a small dataset of each."""
    root = tmp_path_factory.mktemp("schemas")
    for name in SUITES:
        run("evaluate", "--suite", name, "--agent", "expert", "--limit", "1", "--out", root / "runs" / name)
        run("generate", name, *DATASET_ARGS[name], "--seed", "0", "--out", root / "datasets" / name)
    return root


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_an_evaluation_folder_fits_its_schemas(outputs, suite):
    folder = outputs / "runs" / suite
    valid("run", json.loads((folder / "run.json").read_text()))
    valid("summary", json.loads((folder / "summary.json").read_text()))
    valid("manifest", json.loads((folder / "manifest.json").read_text()))
    records = lines(folder / "records.jsonl")
    assert records
    for record in records:
        valid("record", record)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_a_dataset_folder_fits_its_schemas(outputs, suite):
    folder = outputs / "datasets" / suite
    manifest = json.loads((folder / "dataset.json").read_text())
    valid("dataset", manifest)
    valid("manifest", json.loads((folder / "manifest.json").read_text()))
    if (folder / "generation.json").exists():
        valid("generation", json.loads((folder / "generation.json").read_text()))
    episodes = [e for split in manifest["splits"] for e in lines(folder / f"{split}.jsonl.gz")]
    assert episodes
    for episode in episodes:
        valid(f"episode-{manifest['suite']}", episode)
    for scene in (folder / "scenes").glob("*.json"):
        valid("scene", json.loads(scene.read_text()))


def test_an_annotation_fits_its_schema(outputs, tmp_path):
    dataset = tmp_path / "dataset"
    shutil.copytree(outputs / "datasets" / "alfred", dataset)
    episode = lines(dataset / "train.jsonl.gz")[0]
    steps = ["Walk to the counter", "Pick up the mug", "Put it in the sink"]
    write_annotation(dataset, "train", episode["id"], "Put a mug in the sink", steps, "me")
    assert len(read_annotations(dataset, "train")) == 1  # read back, checked, with the dataset
    for line in lines(annotations_file(dataset, "train")):
        valid("annotation", line)


def test_frames_and_a_checkpoint_fit_their_schemas(outputs, request):
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread is much faster on a shared machine (bench/alfred_train_speed.py)
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    frames, checkpoint = outputs / "frames", outputs / "s2s.pt"
    run("alfred", "frames", "--episodes", outputs / "datasets" / "alfred", "--out", frames, "--size", "16")
    valid("frames-meta", json.loads((frames / "meta.json").read_text()))
    for shard in frames.glob("shard-*"):
        for line in lines(shard / "trajectories.jsonl"):
            valid("frames-trajectory", line)
    run("train", "--agent", "seq2seq", "--data", frames, "--out", checkpoint, "--max-steps", "2", "--batch-size", "2")
    saved = torch.load(checkpoint, weights_only=True)
    valid("checkpoint", {k: v for k, v in saved.items() if k not in ("model", "optimizer", "rng")})
    for line in lines(Path(f"{checkpoint}.log.jsonl")):
        valid("checkpoint-log", line)


def test_a_challenges_files_fit_their_schemas(outputs):
    db = f"sqlite:///{outputs / 'challenge.db'}"
    dataset, public = outputs / "datasets" / "alfred", outputs / "public"
    run(
        "challenge",
        "create",
        "--slug",
        "docs",
        "--title",
        "Docs",
        "--episodes",
        dataset,
        "--split",
        "valid_seen",
        "--db",
        db,
    )
    run("challenge", "public-split", "--challenge", "docs", "--out", public, "--db", db)
    rules = json.loads((public / "challenge.json").read_text())
    valid("challenge", rules)
    hidden = SUITES[rules["suite"]].hidden
    for split in rules["splits"]:
        for episode in lines(public / f"{split}.jsonl"):
            assert not set(hidden) & set(episode), "a public episode holds a hidden field"
            valid(f"episode-{rules['suite']}", episode)
    for scene in (public / "scenes").glob("*.json"):
        valid("scene", json.loads(scene.read_text()))
    run("challenge", "actions", outputs / "runs" / "alfred", "--out", outputs / "actions.json")
    valid("actions", json.loads((outputs / "actions.json").read_text()))


def test_a_schema_refuses_what_its_file_must_not_hold(outputs):
    record = lines(outputs / "runs" / "alfred" / "records.jsonl")[0]
    for broken in (
        {**record, "path_length": -1},
        {k: v for k, v in record.items() if k != "actions"},
        {**record, "x": 1},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema("record"))


def test_every_schema_is_well_formed_and_covered():
    for name in names():
        jsonschema.Draft202012Validator.check_schema(schema(name))
    assert set(names()) == COVERED
