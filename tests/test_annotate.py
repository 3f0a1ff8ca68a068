"""`homesim annotate`: directives written for a dataset's demonstrations are checked before they are saved, kept
in the dataset folder with the annotator and the time, read back by every command that reads the dataset, and
never lost when annotators save at once (threads of one server, or processes)."""

from __future__ import annotations

import multiprocessing
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.annotations import annotations_file, check_annotation, read_annotations, write_annotation
from homesim.datasets.folder import read_dataset
from homesim.datasets.sources import Episodes, read_episodes
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.errors import DataError
from homesim.evaluation.alfred.playback import segment_kinds
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.suites import SUITES
from homesim.web.annotate import create_annotate

pytest_plugins = ["viewer_support"]
GOAL = "Put the washed apple on the table."


@pytest.fixture
def dataset(alfred_runs, tmp_path):
    """A copy of the generated dataset, to write into."""
    return shutil.copytree(alfred_runs["dataset"], tmp_path / "dataset")


def _client(dataset) -> TestClient:
    splits, scenes = read_dataset(dataset, annotations=False)
    return TestClient(create_annotate(dataset, SUITES["alfred"], Episodes(splits, scenes), "alice"))


def _segments(client: TestClient, split: str, number: int) -> int:
    return client.get(f"/a/{split}/{number}").text.count('name="directive"')


def test_an_annotation_is_checked_before_it_is_saved():
    assert check_annotation(GOAL, ["walk to the table", "pick up the apple"], 2, "alice") == []
    assert check_annotation("", ["walk to the table"], 2, " ") == [
        "give your annotator id",
        "the goal is empty",
        "one instruction per segment: 2 segments, 1 instructions",
    ]
    assert check_annotation("Apple away", ["walk", ""], 2, "bob") == [
        "the goal has fewer than 3 words",
        "segment 1's instruction has fewer than 3 words",
        "segment 2 has no instruction",
    ]
    assert check_annotation(GOAL, [], 0, "bob") == ["the episode has no demonstration to describe"]


def test_a_saved_annotation_is_read_back_by_every_command(dataset, tmp_path):
    client = _client(dataset)
    split, number = "train", 1
    count = _segments(client, split, number)
    directives = [f"do the part number {k + 1} now" for k in range(count)]
    refused = client.post(
        f"/a/{split}/{number}", data={"annotator": "alice", "goal": GOAL, "directive": directives[1:]}
    )
    assert refused.status_code == 400 and "one instruction per segment" in refused.text
    assert "do the part number 2 now" in refused.text  # what was typed is kept
    assert not annotations_file(dataset, split).exists()
    saved = client.post(f"/a/{split}/{number}", data={"annotator": "alice", "goal": GOAL, "directive": directives})
    assert saved.status_code == 200 and "Saved" in saved.text
    (line,) = read_annotations(dataset, split)
    assert line["annotator"] == "alice" and line["time"] and line["high_descs"] == directives
    read = read_episodes(dataset, split=split)
    episode = read.splits[split][0]
    assert episode.annotations[-1].task_desc == GOAL and list(episode.annotations[-1].high_descs) == directives
    env = AlfredEnv([episode], read.scenes)  # what an agent is told
    observation, _ = env.reset(options={"episode": 0, "annotation": len(episode.annotations) - 1})
    assert observation["goal"] == GOAL and observation["instructions"].splitlines() == directives
    evaluate(read.splits, read.scenes, EvaluationConfig(), tmp_path / "run")  # an evaluation plays it
    runs = CliRunner().invoke(app, ["report", str(tmp_path / "run")])
    assert runs.exit_code == 0
    assert (tmp_path / "run" / "records.jsonl").read_text().count(f'"annotation": {len(episode.annotations) - 1}') == 1


def _save_many(dataset, who: str, times: int) -> None:
    for k in range(times):
        write_annotation(dataset, "train", "train-000000", f"{who} goal number {k}", ["one two three"], who)


def test_annotators_at_once_keep_each_others_work(dataset):
    clients = [_client(dataset), _client(dataset)]  # two servers on one dataset
    count = _segments(clients[0], "train", 1)

    def save(k: int) -> int:
        form = {"annotator": f"annotator {k % 2}", "goal": f"goal number {k} for all", "directive": ["a b c"] * count}
        return clients[k % 2].post("/a/train/1", data=form, follow_redirects=False).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(save, range(24))) == {303}
    processes = [multiprocessing.Process(target=_save_many, args=(dataset, f"process {k}", 50)) for k in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    lines = read_annotations(dataset, "train")
    assert len(lines) == 24 + 100 and len({line["task_desc"] for line in lines}) == 124
    episode = read_episodes(dataset, split="train").splits["train"][0]
    assert len(episode.annotations) == len(read_dataset(dataset, annotations=False)[0]["train"][0].annotations) + 124


def test_a_bad_annotations_file_is_one_error_naming_its_line(dataset):
    write_annotation(dataset, "train", "train-000000", GOAL, ["a b c"], "alice")
    with open(annotations_file(dataset, "train"), "a") as lines:
        lines.write('{"episode": "nowhere", "task_desc": "x", "high_descs": [], "annotator": "a", "time": "t"}\n')
    with pytest.raises(DataError, match=r"annotations/train.jsonl:2: episode: 'nowhere' is not an episode"):
        read_episodes(dataset)
    annotations_file(dataset, "train").write_text("not json\n")
    with pytest.raises(DataError, match=r"annotations/train.jsonl:1: \(annotation\): not JSON"):
        read_episodes(dataset)


def test_annotate_refuses_what_it_cannot_write_into_in_one_line(tmp_path, objectnav_run):
    for path, message in (
        (tmp_path, "not a dataset folder"),
        (objectnav_run["dataset"], "have no directives to write"),
    ):
        result = CliRunner().invoke(app, ["annotate", str(path)])
        assert result.exit_code == 1 and message in result.output and len(result.output.strip().splitlines()) == 1


def test_a_demonstration_without_a_plan_is_cut_where_interaction_starts_and_ends(alfred_runs):
    episode = read_episodes(alfred_runs["dataset"]).all()[0]
    kinds = segment_kinds(replace(episode, subgoals=()))
    assert len(kinds) == max(episode.expert_subgoal_index) + 1
    assert set(kinds) - {"navigation"} and all(k == "navigation" or "Object" in k for k in kinds)
