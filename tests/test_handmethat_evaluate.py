"""`homesim evaluate --suite handmethat` and `homesim play handmethat` on the authors' sample episodes: the live
expert solves all 24 in both settings, the random agent scores -40 as in the paper, workers change nothing,
and bad input (a malformed file, human actions that fail, a wrong option) is one line, never a traceback."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import read_records


@pytest.fixture(scope="module")
def samples(handmethat_samples):
    return read_episodes(handmethat_samples)


def run(samples, tmp_path, agent: str, observability: str, workers: int = 1) -> dict:
    options = {"observability": observability}
    config = EvaluationConfig(agent=agent, suite="handmethat", interface="text", options=options)
    return evaluate(samples.splits, samples.scenes, config, tmp_path / f"{agent}-{observability}-{workers}", workers)


@pytest.mark.parametrize("observability", ["partial", "full"])
def test_the_live_expert_solves_every_sample(samples, tmp_path, observability):
    figures = run(samples, tmp_path, "expert", observability)["splits"]["samples"]
    assert figures["all"]["episodes"] == 24 and figures["all"]["success_rate"]["value"] == 1.0
    assert 4 <= figures["all"]["moves_in_success"]["value"] <= 5  # go, (open,) pick up, go to the human, give
    assert set(figures["by_level"]) == {"level 1", "level 2", "level 3"}
    assert set(figures["by_quest_type"]) == {"bring_me"}
    records = read_records(tmp_path / f"expert-{observability}-1" / "records.jsonl")
    assert all(r.end_reason == "goal_satisfied" and r.measures["score"] == 100 - r.measures["moves"] for r in records)


def test_random_scores_minus_forty_as_in_the_paper(samples, tmp_path):
    figures = run(samples, tmp_path, "random", "partial")["splits"]["samples"]["all"]
    assert figures["score"]["value"] == -40.0 and figures["success_rate"]["value"] == 0.0
    assert figures["moves_in_success"]["value"] is None
    records = read_records(tmp_path / "random-partial-1" / "records.jsonl")
    assert all(r.commands == 40 and all(r.action_success) for r in records)  # admissible commands all work


def test_workers_give_the_same_bytes(samples, tmp_path):
    few = type(samples)({"samples": samples.splits["samples"][:6]}, {}, "handmethat")
    run(few, tmp_path, "random", "full", workers=1)
    run(few, tmp_path, "random", "full", workers=2)
    one, two = (tmp_path / f"random-full-{w}" / "records.jsonl" for w in (1, 2))
    assert one.read_bytes() == two.read_bytes()


def test_cli_evaluate_report_and_play(handmethat_samples, tmp_path):
    episode = handmethat_samples / "task-bring_me-2-0-2.json"
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["evaluate", "--episodes", str(episode), "--agent", "expert", "--observability", "full", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "96.0 (100.0%, 4.0)" in result.output and "level 2" in result.output
    assert json.loads((out / "run.json").read_text())["options"] == {"observability": "full"}
    report = CliRunner().invoke(app, ["report", str(out)])
    assert report.exit_code == 0 and "summary.json matches the records" in report.output
    said = "move to cabinet\npick up pad 0\nmove to human\ngive pad 0 to human\n"
    played = CliRunner().invoke(app, ["play", "handmethat", "--episodes", str(episode)], input=said)
    assert played.exit_code == 0, played.output
    assert "> give pad 0 to human\nYou give the pad (pad 0) to human.\nYou reach the goal!" in played.output
    assert "You helped the human! Score 96 after 4 moves." in played.output


@pytest.fixture(scope="module")
def bad_files(handmethat_samples, tmp_path_factory):
    root = tmp_path_factory.mktemp("bad_hmt")
    data = json.loads((handmethat_samples / "task-bring_me-2-0-2.json").read_text())
    no_level = {k: v for k, v in data.items() if k != "level"}
    (root / "no_level.json").write_text(json.dumps(no_level))
    failing = dict(data, action_list=[{"name": "human-pick-up-at-location", "arguments": ["h", "pad#1", "bed"]}])
    (root / "failing.json").write_text(json.dumps(failing))  # the human is on the floor, not at the bed
    shutil.copy(handmethat_samples / "task-bring_me-3-0-2.json", root / "good.json")
    return root


@pytest.mark.parametrize(
    "args, message",
    [
        (["evaluate", "--episodes", "{root}/no_level.json"], "no_level.json: level"),
        (["evaluate", "--episodes", "{root}/failing.json"], "failing.json: action_list"),
        (["play", "handmethat", "--episodes", "{root}/failing.json"], "failing.json: action_list"),
        (["evaluate", "--episodes", "{root}/good.json", "--observability", "some"], "use partial or full"),
        (["play", "handmethat", "--episodes", "{root}/good.json", "--observability", "x"], "use partial or full"),
        (["play", "handmethat", "--episodes", "{root}/good.json", "--episode", "3"], "there are 1 episodes"),
        (["evaluate", "--observability", "full"], "only HandMeThat has it"),
        (["evaluate", "--suite", "handmethat", "--split", "test"], "they have one split, 'builtin', not 'test'"),
        (["evaluate", "--episodes", "{root}/good.json", "--ablation", "goal_only"], "--ablation: only ALFRED has it"),
        (["evaluate", "--episodes", "{root}/good.json", "--suite", "alfred"], "holds HandMeThat episodes"),
    ],
)
def test_bad_input_is_one_line(bad_files, tmp_path, args, message):
    args = [a.format(root=bad_files) for a in args]
    if args[0] == "evaluate":
        args += ["--out", str(tmp_path / "o")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert message in " ".join(result.output.split()), result.output


def test_a_folder_skips_its_malformed_files_and_says_so(bad_files, tmp_path):
    result = CliRunner().invoke(app, ["evaluate", "--episodes", str(bad_files), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "skipped" in flat and "no_level.json: level" in flat and "failing.json: action_list" in flat
    assert len(read_records(tmp_path / "o" / "records.jsonl")) == 1


def test_a_homesim_dataset_folder_plays_as_their_files(samples, tmp_path):
    from homesim.datasets.folder import write_dataset

    few = {"test": samples.splits["samples"][:3]}
    write_dataset(tmp_path / "data", few, {}, {"from": "the authors' samples"}, suite="handmethat")
    result = CliRunner().invoke(app, ["evaluate", "--episodes", str(tmp_path / "data"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    records = read_records(tmp_path / "o" / "records.jsonl")
    assert [r.episode_id for r in records] == [e.id for e in few["test"]] and all(r.goal_satisfied for r in records)


def test_the_builtin_episodes_play_and_evaluate_with_no_data(tmp_path):
    """Like the other suites, HandMeThat needs no --episodes: six of homesim's generator's episodes."""
    from homesim.datasets.handmethat.builtin import builtin_handmethat

    episodes, _ = builtin_handmethat()
    won = CliRunner().invoke(app, ["play", "handmethat"], input="\n".join(episodes[0].demo_actions) + "\n")
    assert won.exit_code == 0 and "You helped the human!" in won.output, won.output
    result = CliRunner().invoke(app, ["evaluate", "--suite", "handmethat", "--agent", "expert", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert [r["episode_id"] for r in records] == [e.id for e in episodes]
    assert all(r["split"] == "builtin" for r in records)
    assert all(r["goal_satisfied"] for r in records)
