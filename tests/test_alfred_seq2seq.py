"""ALFRED's Seq2Seq and Seq2Seq+PM on a tiny frames folder of real valid_seen demonstrations: training lowers
the loss, a killed run resumes to the same weights, a checkpoint plays episodes through masks (the same
actions every time it is loaded, each ablation hiding what it should), and the commands' one-line errors."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest
import torch
from conftest import TINY_FRAMES
from typer.testing import CliRunner

import homesim.learning.alfred.train as alfred_train
from homesim.agents.protocol import OBSERVATION_FILTERS
from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.runner import run_episode
from homesim.evaluation.suites import load_agent
from homesim.learning.alfred.agent import downsize, interaction_mask
from homesim.learning.alfred.data import AlfredFrames
from homesim.learning.alfred.seq2seq import Seq2Seq, Seq2SeqConfig, seq2seq_loss
from homesim.learning.alfred.train import batch_of, train_alfred
from homesim.learning.loop import TrainConfig, load_checkpoint
from homesim.learning.request import TrainRequest
from homesim.learning.vocab import Vocab
from homesim.world.actions import ACTIONS

EPISODES = TINY_FRAMES["limit"]
pytestmark = pytest.mark.usefixtures("tiny_alfred_frames")  # torch on one thread; skips without headless OpenGL


@pytest.fixture(scope="module")
def valid_seen(alfred_trajectories):
    return alfred_trajectories / "valid_seen.jsonl.gz"


@pytest.fixture(scope="module")
def frames(tiny_alfred_frames):
    return tiny_alfred_frames


@pytest.fixture(scope="module")
def env(valid_seen, alfred_layouts):
    read = read_episodes(valid_seen, alfred_layouts)
    episodes = read.all()[:EPISODES]
    return AlfredEnv(episodes, read.scenes, max_steps=12, interaction="mask", pixels=("rgb",)), episodes


def request(frames, out, agent="seq2seq_pm", **config) -> TrainRequest:
    settings = {"epochs": 100, "max_steps": 2, "batch_size": 2, "lr": 3e-3, "checkpoint_every": 50} | config
    return TrainRequest(agent, frames, out, TrainConfig(**settings))


def data_loss(model: Seq2Seq, frames) -> float:
    """The loss over every (trajectory, annotation) of the folder, without dropout."""
    checkpoint_vocab = Vocab.build(alfred_train.trajectory_texts(frames))
    dataset = AlfredFrames(frames, checkpoint_vocab)
    with torch.no_grad():
        batch = batch_of([dataset[i] for i in range(len(dataset))], model.config.ablation)
        return float(seq2seq_loss(model.eval(), batch)["loss"])


def model_of(path) -> Seq2Seq:
    checkpoint = load_checkpoint(path)
    model = Seq2Seq(Seq2SeqConfig.from_dict(checkpoint["describe"]["model"]))
    model.load_state_dict(checkpoint["model"])
    return model


def test_a_few_steps_of_training_lower_the_loss(frames, tmp_path):
    result = train_alfred(request(frames, tmp_path / "m.pt", max_steps=8))
    assert result.steps == 8
    torch.manual_seed(0)  # the trainer's seed: the weights it started from
    untrained = Seq2Seq(Seq2SeqConfig.from_dict(load_checkpoint(tmp_path / "m.pt")["describe"]["model"]))
    before, after = data_loss(untrained, frames), data_loss(model_of(tmp_path / "m.pt"), frames)
    assert after < 0.8 * before, (before, after)
    logged = json.loads(result.log.read_text().splitlines()[-1])
    assert {"loss", "action", "mask", "progress", "subgoal_progress"} <= set(logged)


def test_a_killed_run_resumes_to_the_same_weights(frames, tmp_path, monkeypatch):
    whole = train_alfred(request(frames, tmp_path / "whole.pt", max_steps=4, checkpoint_every=2))
    calls = 0

    def dies_at_step_4(model, batch):
        nonlocal calls
        calls += 1
        if calls == 4:
            raise KeyboardInterrupt
        return seq2seq_loss(model, batch)

    monkeypatch.setattr(alfred_train, "seq2seq_loss", dies_at_step_4)
    with pytest.raises(KeyboardInterrupt):
        train_alfred(request(frames, tmp_path / "cut.pt", max_steps=4, checkpoint_every=2))
    assert load_checkpoint(tmp_path / "cut.pt")["step"] == 2
    resumed = train_alfred(request(frames, tmp_path / "cut.pt", max_steps=4, checkpoint_every=2))
    assert resumed.steps == whole.steps == 4
    whole_weights, cut_weights = (model_of(tmp_path / name).state_dict() for name in ("whole.pt", "cut.pt"))
    assert all(torch.equal(whole_weights[k], cut_weights[k]) for k in whole_weights)


@pytest.mark.parametrize("ablation", list(OBSERVATION_FILTERS))
def test_a_checkpoint_plays_through_masks_the_same_way_each_time_it_is_loaded(frames, env, tmp_path, ablation):
    out = tmp_path / "m.pt"
    train_alfred(replace(request(frames, out, agent="seq2seq", max_steps=1), ablation=ablation))
    alfred_env, episodes = env
    records = [run_episode(alfred_env, load_agent(str(out)), episodes[0], split="valid_seen") for _ in range(2)]
    assert records[0].actions == records[1].actions
    assert records[0].end_reason in ("stop", "max_steps", "max_fails")
    agent = load_agent(str(out))
    assert agent.ablation == ablation
    assert (agent.models[0].frames is None) == (ablation == "no_vision")


def test_frames_are_downsized_at_pixel_centres_and_masks_never_come_back_empty():
    rgb = np.arange(300 * 300 * 3, dtype=np.uint32).reshape(300, 300, 3)
    small = downsize(rgb, (64, 64))
    assert small.shape == (64, 64, 3) and (small[0, 0] == rgb[2, 2]).all() and (small[-1, -1] == rgb[297, 297]).all()
    logits = torch.full((16, 16), -5.0)
    logits[3, 4] = -1.0  # nothing above 0.5: the likeliest pixels, around (3, 4)
    mask = interaction_mask(logits, (300, 300))
    assert mask.sum() == 100 and mask[3 * 300 // 16 + 9, 4 * 300 // 16 + 9]
    logits[8:, :] = 4.0
    assert interaction_mask(logits, (300, 300))[200:].all()


def test_an_agent_trained_with_vision_asks_for_frames(frames, env, tmp_path):
    out = tmp_path / "m.pt"
    train_alfred(request(frames, out, agent="seq2seq", max_steps=1))
    alfred_env, episodes = env
    blind = AlfredEnv(episodes, alfred_env.scenes, max_steps=3, interaction="mask")
    record = run_episode(blind, load_agent(str(out)), episodes[0])
    assert record.end_reason == "agent_error" and "--pixels rgb" in record.failures[0][1]  # (its first exception)


def test_commands_answer_bad_requests_in_one_line(frames, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--agent", "moca2", "--data", str(frames), "--out", str(tmp_path / "m.pt")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "ALFRED's learned agents are seq2seq, seq2seq_pm" in result.output
    result = runner.invoke(
        app, ["train", "--agent", "seq2seq", "--data", str(frames), "--out", str(tmp_path / "m.pt"), "--workers", "2"]
    )
    assert result.exit_code == 1 and "--workers: alfred's seq2seq training has no use for it" in result.output
    unfinished = tmp_path / "unfinished"
    shutil.copytree(frames, unfinished)
    meta = json.loads((unfinished / "meta.json").read_text())
    (unfinished / "meta.json").write_text(json.dumps(meta | {"complete": False}))
    result = runner.invoke(app, ["train", "--agent", "seq2seq", "--data", str(unfinished), "--out", "m.pt"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith(f"Error: {unfinished}/meta.json: complete: the extraction did not finish")
    out = tmp_path / "blind.pt"
    train_alfred(replace(request(frames, out, agent="seq2seq", max_steps=1), ablation="no_vision"))
    result = runner.invoke(app, ["evaluate", "--agent", str(out), "--ablation", "goal_only", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "trained with ablation no_vision" in result.output


def test_actions_are_alfreds_thirteen(frames, tmp_path):
    train_alfred(request(frames, tmp_path / "m.pt", max_steps=1))
    assert model_of(tmp_path / "m.pt").actor.out_features == len(ACTIONS) == 13


def test_dagger_labels_the_learners_own_states_with_the_expert_and_trains_on_them(frames, alfred_layouts, tmp_path):
    out = tmp_path / "dagger.pt"
    dagger = replace(request(frames, out, max_steps=1), dagger_rounds=1, layouts=alfred_layouts)
    assert train_alfred(dagger).steps == 1
    describe = load_checkpoint(out)["describe"]
    labelled = tmp_path / "dagger.pt.dagger" / "round-1"
    assert describe["dagger_round"] == 1 and describe["data"] == [str(frames), str(labelled)]
    steps = np.concatenate([np.load(p / "steps.npy") for p in sorted(labelled.glob("shard-*"))])
    meta = json.loads((labelled / "meta.json").read_text())
    assert meta["complete"] and meta["trajectories"] == EPISODES and len(steps) == meta["steps"] > 0
    assert (steps["subgoal"] == -1).all()  # no ALFRED sub-goal index off the demonstration: PM skips them
    assert len(AlfredFrames(labelled, Vocab.build(["x"]))) == EPISODES  # one annotation per episode and round
    assert train_alfred(dagger).steps == 1  # run again: every round is there already


def test_evaluate_gives_a_checkpoint_the_frames_and_masks_it_was_trained_with(frames, tmp_path):
    """Run as a user would, with no --pixels or --interaction: the checkpoint says it reads rgb and aims masks,
    and the evaluation supplies both (a run without them would fail every step); settings that contradict it
    are refused naming their option."""
    out = tmp_path / "m.pt"
    train_alfred(request(frames, out, agent="seq2seq", max_steps=1))
    runner = CliRunner()
    args = ["evaluate", "--agent", str(out), "--out", str(tmp_path / "run")]
    result = runner.invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "plays with --pixels rgb --interaction mask: evaluating with them" in " ".join(result.output.split())
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["pixels"] == ["rgb"] and run["interaction"] == "mask"
    reasons = [reason for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()
               for _, reason in json.loads(line)["failures"]]  # fmt: skip
    assert reasons and not any("--pixels" in reason or "agent raised" in reason for reason in reasons)
    result = runner.invoke(app, [*args, "--interface", "text"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "--interface: " in result.output and "not in the text interface" in result.output
    result = runner.invoke(app, [*args, "--interaction", "oracle"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "aims with mask: give --interaction mask or leave it out" in result.output
