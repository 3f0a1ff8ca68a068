"""ALFRED frames folders (`homesim alfred frames`) and the `AlfredFrames` dataset over them: real
valid_seen demonstrations replayed into shards whose masks are the renderer's, the final Stop, resumption
after a kill and any number of workers giving the same bytes, the dataset's shapes, and one-line errors
for a corrupt folder or a bad command. A procedural dataset covers the path without the shared data."""

from __future__ import annotations

import gzip
import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from render_support import make_renderer
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.errors import DataError
from homesim.learning.alfred.data import AlfredFrames, collate, read_meta, trajectory_texts
from homesim.learning.alfred.frames import class_names, extract_frames
from homesim.learning.vocab import Vocab
from homesim.world.actions import ACTIONS, STOP
from homesim.world.dynamics import step

SIZE = 32
LIMIT = 3


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    torch.set_num_threads(1)
    make_renderer(SIZE, SIZE).close()  # skips where no headless OpenGL context can be made


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def valid_seen(alfred_trajectories, tmp_path_factory) -> Path:
    """The first trajectories of valid_seen (their floor plans are rebuilt from them and the layouts)."""
    path = tmp_path_factory.mktemp("trajectories") / "valid_seen.jsonl"
    with gzip.open(alfred_trajectories / "valid_seen.jsonl.gz", "rt", encoding="utf-8") as lines:
        path.write_text("".join(itertools.islice(lines, LIMIT + 1)))
    return path


@pytest.fixture(scope="module")
def frames(valid_seen, alfred_layouts, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("frames") / "f"
    extract_frames(valid_seen, out, alfred_layouts, size=SIZE, limit=LIMIT, shard_size=2)
    return out


@pytest.fixture(scope="module")
def episodes(valid_seen, alfred_layouts):
    read = read_episodes(valid_seen, alfred_layouts)
    return read.all()[:LIMIT], read.scenes


def shard_lines(folder: Path) -> list[tuple[Path, dict]]:
    return [
        (shard, json.loads(line))
        for shard in sorted(folder.glob("shard-*"))
        for line in (shard / "trajectories.jsonl").read_text().splitlines()
    ]


def test_the_folder_holds_every_step_of_the_demonstrations_then_stop(frames, episodes):
    meta = read_meta(frames)
    assert (meta["trajectories"], meta["size"], meta["actions"]) == (LIMIT, [SIZE, SIZE], list(ACTIONS))
    assert meta["classes"] == class_names() and meta["classes"][0] == ""
    assert sorted(p.name for p in frames.glob("shard-*")) == ["shard-00000", "shard-00001"]
    lines = shard_lines(frames)
    assert [line["id"] for _, line in lines] == [e.id for e in episodes[0]]
    assert meta["steps"] == sum(len(e.expert_actions) + 1 for e in episodes[0])
    for (shard, line), episode in zip(lines, episodes[0]):
        rows = slice(line["start"], line["start"] + line["length"])
        steps = np.load(shard / "steps.npy")[rows]
        assert [ACTIONS[a] for a in steps["action"]] == [a.name for a in episode.expert_actions] + [STOP]
        assert list(steps["subgoal"][:-1]) == list(episode.expert_subgoal_index)
        assert steps["subgoal"][-1] == line["subgoals"] == max(episode.expert_subgoal_index) + 1
        assert [a["goal"] for a in line["annotations"]] == [a.task_desc for a in episode.annotations]
        for name, shape in (("frames", (SIZE, SIZE, 3)), ("classes", (SIZE, SIZE)), ("masks", (SIZE * SIZE // 8,))):
            array = np.load(shard / f"{name}.npy", mmap_mode="r")
            assert array.dtype == np.uint8 and array.shape[1:] == shape
    assert (frames / "skipped.jsonl").read_text() == ""


def test_masks_classes_and_frames_are_the_renderers_along_the_replay(frames, episodes):
    shard, line = shard_lines(frames)[0]
    episode = episodes[0][0]
    scene, state = episodes[1][episode.scene_id], episode.initial_state
    stored = {name: np.load(shard / f"{name}.npy")[: line["length"]] for name in ("frames", "masks", "classes")}
    names = class_names()
    interactions = 0
    with make_renderer(SIZE, SIZE) as renderer:
        for t, action in enumerate(episode.expert_actions):
            frame = renderer.render(scene, state)
            assert np.array_equal(stored["frames"][t], frame.rgb)
            mask = np.unpackbits(stored["masks"][t], count=SIZE * SIZE).reshape(SIZE, SIZE).astype(bool)
            if action.target is None:
                assert not mask.any()
            else:
                interactions += 1
                assert mask.any() and np.array_equal(mask, frame.mask(action.target))
            seen = frame.segmentation >= 0
            ids = np.array([names.index(state.objects[o].cls) for o in frame.object_ids] + [0])
            assert np.array_equal(stored["classes"][t], np.where(seen, ids[frame.segmentation], 0))
            state, event = step(scene, state, action)
            assert event.success
    assert interactions >= 2


def test_a_killed_run_resumes_to_the_same_bytes(frames, valid_seen, alfred_layouts, tmp_path):
    out = tmp_path / "f"
    shutil.copytree(frames, out)
    shutil.rmtree(out / "shard-00001")  # killed while the second shard was being written:
    (out / "shard-00001.tmp").mkdir()  # its partial files, under the temporary name
    (out / "shard-00001.tmp" / "frames.npy").write_bytes(b"partial")
    meta = json.loads((out / "meta.json").read_text())
    (out / "meta.json").write_text(json.dumps({**meta, "complete": False, "trajectories": 0, "steps": 0}))
    with pytest.raises(DataError, match="did not finish"):
        read_meta(out)
    summary = extract_frames(valid_seen, out, alfred_layouts, size=SIZE, limit=LIMIT, shard_size=2)
    assert summary.resumed_shards == 1
    assert folder_bytes(out) == folder_bytes(frames)
    assert 0 < summary.rendered == len(np.load(out / "shard-00001" / "steps.npy")) < summary.steps
    again = extract_frames(valid_seen, out, alfred_layouts, size=SIZE, limit=LIMIT, shard_size=2)
    assert (again.resumed_shards, again.rendered) == (2, 0)  # a finished folder: nothing rendered again


def test_two_workers_write_the_same_bytes_as_one(frames, valid_seen, alfred_layouts, tmp_path):
    extract_frames(valid_seen, tmp_path / "f", alfred_layouts, size=SIZE, limit=LIMIT, workers=2, shard_size=2)
    assert folder_bytes(tmp_path / "f") == folder_bytes(frames)


def test_dataset_items_and_batches_have_the_documented_shapes(frames, episodes):
    vocab = Vocab.build(trajectory_texts(frames))
    data = AlfredFrames(frames, vocab)
    assert all(isinstance(a, np.memmap) for shard in data.shards for a in shard.values())  # nothing read yet
    assert len(data) == sum(len(e.annotations) for e in episodes[0])
    item = data[0]
    n = len(episodes[0][0].expert_actions) + 1
    assert item["frames"].shape == (n, 3, SIZE, SIZE) and item["frames"].dtype == torch.uint8
    assert item["masks"].shape == (n, SIZE, SIZE) and item["masks"].dtype == torch.bool
    for key in ("actions", "subgoal", "target_class"):
        assert item[key].shape == (n,) and item[key].dtype == torch.long
    assert item["actions"][-1] == ACTIONS.index(STOP)
    assert item["progress"][-1] == 1.0 and item["subgoal_progress"][-1] == 1.0 and item["subgoal_progress"][0] == 0
    assert (item["masks"].flatten(1).any(1) == (item["target_class"] > 0)).all()
    assert item["goal"].tolist() == vocab.encode(episodes[0][0].annotations[0].task_desc)
    assert (item["instructions"] == vocab.SEP).sum() == len(episodes[0][0].annotations[0].high_descs) - 1
    batch = collate([data[0], data[len(data) - 1]])
    longest = int(batch["lengths"].max())
    assert batch["frames"].shape == (2, longest, 3, SIZE, SIZE)
    assert batch["lengths"].tolist() == [len(data[0]["actions"]), len(data[len(data) - 1]["actions"])]
    assert batch["goal"].shape == (2, int(batch["goal_lengths"].max()))
    assert batch["id"] == [data[0]["id"], data[len(data) - 1]["id"]]


def test_a_corrupt_or_foreign_folder_is_a_one_line_data_error(frames, tmp_path):
    out = tmp_path / "f"
    shutil.copytree(frames, out)
    frames_file = out / "shard-00001" / "frames.npy"
    frames_file.write_bytes(frames_file.read_bytes()[:1000])  # truncated
    with pytest.raises(DataError, match="frames.npy") as error:
        AlfredFrames(out, Vocab([]))
    assert "\n" not in str(error.value)
    shutil.rmtree(out / "shard-00001")
    with pytest.raises(DataError, match="meta.json says 3"):
        AlfredFrames(out, Vocab([]))
    with pytest.raises(DataError, match="not an ALFRED frames folder"):
        read_meta(tmp_path)


def test_command_errors_are_one_line(frames, valid_seen, alfred_layouts, tmp_path):
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text('{"task_type": ')
    cases = [
        (["--episodes", bad, "--out", tmp_path / "o"], "not valid JSON"),
        (["--episodes", valid_seen, "--out", tmp_path / "o"], "give --layouts"),
        (  # the folder holds 32x32 frames: not overwritten with 64x64 ones
            ["--episodes", valid_seen, "--layouts", alfred_layouts, "--out", frames, "--limit", LIMIT],
            "size: the folder holds frames made with other settings",
        ),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["alfred", "frames", *map(str, args)], env={"COLUMNS": "400"})
        assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_a_generated_dataset_makes_frames_without_the_shared_data(tmp_path):
    runner = CliRunner()
    made = runner.invoke(app, ["generate", "alfred", "--episodes", "6", "--seed", "2", "--out", str(tmp_path / "d")])
    assert made.exit_code == 0, made.output
    args = ["alfred", "frames", "--episodes", str(tmp_path / "d"), "--split", "train", "--size", "16"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "f"), "--json", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "s.json").read_text())
    train = read_episodes(tmp_path / "d", split="train").all()
    assert summary["trajectories"] == len(train) > 0 and summary["skipped"] == []
    assert summary["steps"] == sum(len(e.expert_actions) + 1 for e in train)
    again = runner.invoke(app, [*args, "--out", str(tmp_path / "f"), "--json", str(tmp_path / "s.json")])
    assert again.exit_code == 0 and "already complete: 1 shard from an earlier run, nothing rendered" in again.output
    assert json.loads((tmp_path / "s.json").read_text())["steps/s rendered"] == "-"  # no speed of nothing done
    data = AlfredFrames(tmp_path / "f", Vocab.build(trajectory_texts(tmp_path / "f")))
    item = data[len(data) - 1]
    assert item["frames"].shape[1:] == (3, 16, 16) and item["actions"][-1] == ACTIONS.index(STOP)
