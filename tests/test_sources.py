"""Telling episode sources apart by what their files hold (`homesim.datasets.sources`)."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.folder import write_dataset
from homesim.datasets.sources import kind_of, read_episodes
from homesim.errors import DataError


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    episodes, scenes = builtin_episodes()
    out = tmp_path_factory.mktemp("dataset")
    write_dataset(out, {"train": episodes[:2], "valid_seen": episodes[2:]}, scenes, {"test": True})
    return out


def test_a_dataset_folder_and_one_of_its_split_files(dataset):
    assert kind_of(dataset) == "dataset"
    assert kind_of(dataset / "train.jsonl.gz") == "dataset_split"
    read = read_episodes(dataset / "train.jsonl.gz")
    assert list(read.splits) == ["train"] and len(read.splits["train"]) == 2 and read.suite == "alfred"
    with pytest.raises(DataError, match="the file is split 'train', not 'valid_seen'"):
        read_episodes(dataset / "train.jsonl.gz", split="valid_seen")


def test_homesim_episodes_away_from_their_folder_say_so(dataset, tmp_path):
    shutil.copy(dataset / "train.jsonl.gz", tmp_path / "train.jsonl.gz")
    with pytest.raises(DataError, match="holds homesim episodes outside a dataset folder: give the folder"):
        kind_of(tmp_path / "train.jsonl.gz")


def test_alfred_trajectories_need_layouts(alfred_samples, tmp_path):
    assert kind_of(alfred_samples) == "alfred_trajectories"
    trajectory = next(alfred_samples.rglob("traj_data.json"))
    assert kind_of(trajectory) == "alfred_trajectories"
    lines = tmp_path / "some.jsonl.gz"
    lines.write_bytes(gzip.compress(trajectory.read_bytes().replace(b"\n", b" ") + b"\n"))
    assert kind_of(lines) == "alfred_trajectories"
    with pytest.raises(DataError, match="holds ALFRED trajectories: give --layouts"):
        read_episodes(lines)


@pytest.mark.parametrize(
    "content, problem",
    [
        ('{"plan": ', "not valid JSON"),
        ("", "empty"),
        (json.dumps({"hello": 1}), "neither a homesim dataset nor ALFRED trajectories"),
        (json.dumps([1, 2]), "neither a homesim dataset nor ALFRED trajectories"),
    ],
)
def test_what_is_neither_is_named_with_its_file(tmp_path, content, problem):
    path = tmp_path / "episodes.json"
    path.write_text(content)
    with pytest.raises(DataError, match=problem) as caught:
        read_episodes(path)
    assert caught.value.where == str(path)


def test_a_gz_file_that_is_not_gzip(tmp_path):
    path = tmp_path / "episodes.jsonl.gz"
    path.write_text("plain text")
    with pytest.raises(DataError, match="unreadable"):
        kind_of(path)


def test_a_folder_of_something_else(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(DataError, match="neither a dataset.json nor ALFRED traj_data.json"):
        kind_of(tmp_path)
