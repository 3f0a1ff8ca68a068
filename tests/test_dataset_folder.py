"""homesim dataset folders: `write_dataset` / `read_dataset` round trips, deterministic bytes, split
selection, and bad folders reported as DataError naming the file at fault."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.alfred.importer import import_alfred
from homesim.datasets.folder import FORMAT_VERSION, is_dataset, read_dataset, write_dataset
from homesim.errors import DataError

SOURCE = {"trajectories": "samples/json_2.1.0", "note": "test"}


@pytest.fixture(scope="module")
def samples(alfred_samples, alfred_layouts):
    """The 70 real sample trajectories: train and valid_seen episodes (sub-goals, annotations, expert plans)."""
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts)
    assert errors == [] and set(splits) == {"train", "valid_seen"}
    return splits, scenes


@pytest.fixture(scope="module")
def written(samples, tmp_path_factory) -> Path:
    splits, scenes = samples
    out = tmp_path_factory.mktemp("dataset")
    write_dataset(out, splits, scenes, SOURCE)
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _copy(folder: Path, to: Path) -> Path:
    for name, data in _files(folder).items():
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        (to / name).write_bytes(data)
    return to


# --- round trip ---------------------------------------------------------------------------------------------


def test_the_layout_of_a_dataset_folder(written, samples):
    splits, _ = samples
    assert is_dataset(written) and not is_dataset(written / "scenes")
    manifest = json.loads((written / "dataset.json").read_text())
    assert manifest == {
        "version": FORMAT_VERSION,
        "suite": "alfred",
        "splits": {"train": 56, "valid_seen": 14},
        "source": SOURCE,
    }
    used = {e.scene_id for episodes in splits.values() for e in episodes}
    assert {p.stem for p in (written / "scenes").iterdir()} == used
    assert (written / "train.jsonl.gz").exists() and (written / "valid_seen.jsonl.gz").exists()


def test_round_trip_gives_equal_episodes_and_scenes(written, samples):
    splits, scenes = samples
    read_splits, read_scenes = read_dataset(written)
    assert read_splits == splits
    assert set(read_scenes) == {e.scene_id for episodes in splits.values() for e in episodes}
    for scene_id, scene in read_scenes.items():
        assert scene == scenes[scene_id]
        assert scene.to_dict() == scenes[scene_id].to_dict()  # provenance too
    # the episodes keep what evaluation needs
    episode = read_splits["valid_seen"][0]
    assert episode.subgoals and episode.annotations and episode.expert_actions
    assert len(episode.expert_subgoal_index) == len(episode.expert_actions)


def test_round_trip_of_the_builtin_episodes(tmp_path):
    episodes, scenes = builtin_episodes()
    write_dataset(tmp_path, {"builtin": episodes}, scenes, {})
    assert read_dataset(tmp_path) == ({"builtin": episodes}, scenes)


def test_writing_is_deterministic(samples, written, tmp_path):
    splits, scenes = samples
    write_dataset(tmp_path / "again", splits, scenes, SOURCE)
    assert _files(tmp_path / "again") == _files(written)


def test_only_the_scenes_the_episodes_use_are_written(samples, tmp_path):
    splits, scenes = samples
    write_dataset(tmp_path, {"valid_seen": splits["valid_seen"]}, scenes, {})
    assert {p.stem for p in (tmp_path / "scenes").iterdir()} == {e.scene_id for e in splits["valid_seen"]}
    assert len(scenes) > len(list((tmp_path / "scenes").iterdir()))


# --- split selection -----------------------------------------------------------------------------------------


def test_reading_one_split(written, samples):
    splits, _ = samples
    read_splits, read_scenes = read_dataset(written, "valid_seen")
    assert read_splits == {"valid_seen": splits["valid_seen"]}
    assert set(read_scenes) == {e.scene_id for e in splits["valid_seen"]}


def test_an_unknown_split_names_the_manifest_and_the_splits_it_has(written):
    with pytest.raises(DataError, match="no split 'valid_unseen'; it has train, valid_seen") as caught:
        read_dataset(written, "valid_unseen")
    assert caught.value.where == str(written / "dataset.json")


# --- broken folders ---------------------------------------------------------------------------------------------


@pytest.fixture
def copy(written, tmp_path) -> Path:
    return _copy(written, tmp_path / "copy")


def _error(folder: Path) -> DataError:
    with pytest.raises(DataError) as caught:
        read_dataset(folder)
    return caught.value


def test_no_manifest(tmp_path):
    error = _error(tmp_path)
    assert error.where == str(tmp_path / "dataset.json")


def test_a_manifest_that_is_not_json(copy):
    (copy / "dataset.json").write_text('{"version": 1, "suite": ')
    error = _error(copy)
    assert error.where == str(copy / "dataset.json") and "not valid JSON" in str(error)


@pytest.mark.parametrize(
    "manifest, field",
    [({"version": 2, "suite": "alfred", "splits": {}}, "version"), ({"version": 1, "suite": "x"}, "suite")],
)
def test_a_manifest_of_another_version_or_an_unknown_suite(copy, manifest, field):
    (copy / "dataset.json").write_text(json.dumps(manifest))
    error = _error(copy)
    assert error.where == str(copy / "dataset.json") and error.field == field


def test_a_dataset_of_another_suite_than_asked_is_refused(copy):
    with pytest.raises(DataError, match="holds alfred episodes, not objectnav"):
        read_dataset(copy, suite="objectnav")


def test_a_line_that_is_not_json(copy):
    lines = gzip.decompress((copy / "valid_seen.jsonl.gz").read_bytes()).decode().splitlines(keepends=True)
    lines[3] = "{broken\n"
    (copy / "valid_seen.jsonl.gz").write_bytes(gzip.compress("".join(lines).encode()))
    error = _error(copy)
    assert error.where == f"{copy / 'valid_seen.jsonl.gz'}:4"


def test_a_line_that_is_not_an_episode(copy):
    lines = gzip.decompress((copy / "train.jsonl.gz").read_bytes()).decode().splitlines(keepends=True)
    episode = json.loads(lines[0])
    del episode["goal"]
    lines[0] = json.dumps(episode) + "\n"
    (copy / "train.jsonl.gz").write_bytes(gzip.compress("".join(lines).encode()))
    error = _error(copy)
    assert error.where == f"{copy / 'train.jsonl.gz'}:1" and "goal" in str(error)


def test_a_missing_scene_file(copy):
    victim = min((copy / "scenes").iterdir())
    victim.unlink()
    assert _error(copy).where == str(victim)


def test_a_scene_file_that_is_not_json(copy):
    victim = min((copy / "scenes").iterdir())
    victim.write_text("{")
    assert _error(copy).where == str(victim)


def test_a_scene_file_without_its_fields(copy):
    victim = min((copy / "scenes").iterdir())
    victim.write_text("{}")
    assert _error(copy).where == str(victim)


# What the reader lets through as other exceptions (so `homesim evaluate` crashes with a traceback
# instead of printing "cannot read the episodes").
READER_LEAKS = [
    pytest.param(lambda d: (d / "valid_seen.jsonl.gz").write_text("not gzip"), "valid_seen.jsonl.gz", id="not-gzip"),
    pytest.param(
        lambda d: (d / "valid_seen.jsonl.gz").write_bytes((d / "valid_seen.jsonl.gz").read_bytes()[:300]),
        "valid_seen.jsonl.gz",
        id="truncated-gzip",
    ),
    pytest.param(lambda d: (d / "valid_seen.jsonl.gz").unlink(), "valid_seen.jsonl.gz", id="missing-split-file"),
    pytest.param(
        lambda d: (d / "dataset.json").write_text('{"version": 1, "suite": "alfred"}'), "dataset.json", id="no-splits"
    ),
    pytest.param(lambda d: (d / "dataset.json").write_text("[1, 2]"), "dataset.json", id="manifest-not-an-object"),
    pytest.param(
        lambda d: [
            p.write_text('{"id": "x", "room_type": "Kitchen", "reachable": 5, "fixed": [], "camera_height": 1.5}')
            for p in (d / "scenes").iterdir()
        ],
        "scenes/",
        id="scene-field-of-the-wrong-type",
    ),
]


@pytest.mark.parametrize(("break_it", "named"), READER_LEAKS)
def test_every_broken_file_is_a_data_error_naming_it(copy, break_it, named):
    break_it(copy)
    error = _error(copy)
    assert named in error.where
