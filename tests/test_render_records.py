"""`homesim render-episode records.jsonl`: an evaluation's record played as recorded, one frame for the start
and one per recorded action (failed ones included), its episode found in the source the evaluation read;
records that cannot be played again (masks, the text game) refused in one line."""

from __future__ import annotations

from dataclasses import replace

import imageio.v3 as iio
import pytest
from render_support import make_renderer, run_render_episode
from world_fixtures import STATIONS, kitchen

from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.alfred.importer import import_alfred
from homesim.datasets.folder import read_dataset, write_dataset
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import read_records
from homesim.render import video
from homesim.render.video import episode_frames
from homesim.world.actions import Action


@pytest.fixture(scope="module")
def random_run(tmp_path_factory):
    """The random agent on the built-in episodes (the evaluation's default source): short, failing records."""
    out = tmp_path_factory.mktemp("random")
    episodes, scenes = builtin_episodes()
    evaluate({"builtin": episodes}, scenes, EvaluationConfig(agent="random"), out)
    return out / "records.jsonl"


def frames_of(path) -> int:
    return len(iio.imread(path, index=None))


def test_a_random_agents_record_plays_as_recorded_failures_included(random_run, tmp_path):
    make_renderer().close()  # skips where there is no EGL
    records = read_records(random_run)
    number = max(range(len(records)), key=lambda i: len(records[i].actions)) + 1
    played = records[number - 1]
    assert not all(played.action_success)  # the random agent fails some actions: they are played too
    out = tmp_path / "record.gif"
    result = run_render_episode(random_run, "--record", number, "--out", out)
    assert result.exit_code == 0, result.output
    assert frames_of(out) == len(played.actions) + 1  # the start and one per recorded action
    assert f"{len(played.actions) + 1} frames of {played.episode_id}" in result.output


def test_an_experts_record_finds_its_episode_in_alfred_trajectories(alfred_samples, alfred_layouts, tmp_path):
    make_renderer().close()
    splits, scenes, _ = import_alfred(alfred_samples, alfred_layouts, "valid_seen")
    episode = splits["valid_seen"][0]
    evaluate({"valid_seen": [episode]}, scenes, EvaluationConfig(agent="expert"), tmp_path)
    records = read_records(tmp_path / "records.jsonl")  # one per annotation
    played = records[-1]
    assert played.goal_satisfied and played.actions
    out = tmp_path / "expert.gif"
    options = ("--record", len(records), "--episodes", alfred_samples, "--layouts", alfred_layouts)
    result = run_render_episode(tmp_path / "records.jsonl", *options, "--out", out)
    assert result.exit_code == 0, result.output
    assert frames_of(out) == len(played.actions) + 1


def test_a_record_finds_its_episode_in_a_dataset_folder(tmp_path):
    make_renderer().close()
    episodes, scenes = builtin_episodes(count=2, seed=7)
    write_dataset(tmp_path / "data", {"test": episodes}, scenes, source={"made by": "a test"})
    splits, read_scenes = read_dataset(tmp_path / "data")
    evaluate(splits, read_scenes, EvaluationConfig(agent="random", seed=1), tmp_path / "eval")
    records = read_records(tmp_path / "eval" / "records.jsonl")
    out = tmp_path / "v.gif"
    result = run_render_episode(
        tmp_path / "eval" / "records.jsonl", "--record", 2, "--episodes", tmp_path / "data", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert records[1].episode_id in result.output and frames_of(out) == len(records[1].actions) + 1


def test_records_that_cannot_be_played_are_refused_in_one_line(random_run, alfred_samples, tmp_path):
    played = read_records(random_run)[0]
    masked = replace(played, actions=[["PickupObject", "mask:812"]], action_success=[True])
    text = replace(played, actions=[["go to countertop 1", None]], action_success=[True], commands=1)
    stranger = replace(played, episode_id="no-such-episode")
    cases = [
        (masked, (), "cannot be played again"),
        (text, (), "text game"),
        (stranger, (), "not in the built-in episodes"),
        (played, ("--episodes", alfred_samples), "give --layouts"),
    ]
    for i, (record, options, message) in enumerate(cases):
        path = tmp_path / f"records{i}.jsonl"
        path.write_text(record.to_json() + "\n")
        result = run_render_episode(path, *options, "--out", tmp_path / "v.gif")
        assert result.exit_code == 1, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
    result = run_render_episode(random_run, "--record", 99, "--out", tmp_path / "v.gif")
    assert result.exit_code == 1 and "holds 4 record(s)" in result.output


def test_captions_say_why_a_step_failed_and_when_the_engine_now_plays_it_otherwise(monkeypatch):
    renderer = make_renderer()
    scene, state = kitchen(STATIONS["counter"])
    captions = []
    monkeypatch.setattr(video, "compose", lambda view, map_image, lines: captions.append(lines[-1]) or view)
    actions = [None, Action("RotateLeft_90"), Action("PickupObject", "Nothing|+00.00|+00.00|+00.00")]
    frames = episode_frames(
        scene, state, actions, renderer, recorded=(False, False, False), reasons={0: "agent raised"}
    )
    assert len(list(frames)) == 4
    assert captions[1] == "1/3 (no action)  FAILED: agent raised"
    assert captions[2].endswith("(recorded as failed)")  # the turn succeeds now
    assert "FAILED: no object" in captions[3] and "recorded as" not in captions[3]
    renderer.close()
