"""The MOCA-style agent: training on a tiny frames folder of real valid_seen demonstrations lowers its loss,
its checkpoint plays through ground-truth segmentation, its instance choice and obstruction evasion follow
MOCA's rules on hand-built frames; the ALFRED env's semantic pixels; sub-goal evaluation feeds a learned
agent the expert's prefix."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import TINY_FRAMES
from typer.testing import CliRunner

from homesim.agents.protocol import AgentAction, TaskSpec, filter_observation
from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.envs.alfred.embodied import AlfredEnv, semantic_classes
from homesim.evaluation.alfred.subgoals import run_subgoal
from homesim.evaluation.runner import run_episode, task_spec
from homesim.evaluation.suites import load_agent
from homesim.learning.alfred.agent import MocaAgent
from homesim.learning.alfred.data import AlfredFrames, trajectory_texts
from homesim.learning.alfred.frames import class_map, class_names
from homesim.learning.alfred.moca import Moca, MocaConfig, moca_loss
from homesim.learning.alfred.seq2seq import Seq2SeqConfig
from homesim.learning.alfred.train import batch_of, train_alfred
from homesim.learning.loop import TrainConfig, load_checkpoint
from homesim.learning.request import TrainRequest
from homesim.learning.vocab import Vocab
from homesim.world.actions import ACTIONS, MOVE_AHEAD, PICKUP, ROTATE_LEFT

EPISODES = TINY_FRAMES["limit"]
pytestmark = pytest.mark.usefixtures("tiny_alfred_frames")  # torch on one thread; skips without headless OpenGL


@pytest.fixture(scope="module")
def read(alfred_trajectories, alfred_layouts):
    return read_episodes(alfred_trajectories / "valid_seen.jsonl.gz", alfred_layouts)


@pytest.fixture(scope="module")
def frames(tiny_alfred_frames):
    return tiny_alfred_frames


def moca_request(frames, out, **config) -> TrainRequest:
    settings = {"epochs": 100, "max_steps": 2, "batch_size": 2, "lr": 3e-3, "checkpoint_every": 50} | config
    return TrainRequest("moca", frames, out, TrainConfig(**settings))


def moca_of(path) -> Moca:
    checkpoint = load_checkpoint(path)
    model = Moca(MocaConfig.from_dict(checkpoint["describe"]["model"]))
    model.load_state_dict(checkpoint["model"])
    return model


def data_loss(model: Moca, frames) -> float:
    dataset = AlfredFrames(frames, Vocab.build(trajectory_texts(frames)))
    with torch.no_grad():
        return float(moca_loss(model.eval(), batch_of([dataset[i] for i in range(len(dataset))], "none"))["loss"])


def test_a_few_steps_of_training_lower_moca_loss(frames, tmp_path):
    result = train_alfred(moca_request(frames, tmp_path / "m.pt", max_steps=8))
    assert result.steps == 8
    torch.manual_seed(0)  # the trainer's seed: the weights it started from
    untrained = Moca(MocaConfig.from_dict(load_checkpoint(tmp_path / "m.pt")["describe"]["model"]))
    before, after = data_loss(untrained, frames), data_loss(moca_of(tmp_path / "m.pt"), frames)
    assert after < 0.8 * before, (before, after)
    logged = json.loads(result.log.read_text().splitlines()[-1])
    assert {"loss", "action", "class", "progress", "subgoal_progress"} <= set(logged) and "mask" not in logged
    model = moca_of(tmp_path / "m.pt")
    assert model.policy.masks is None and model.perception.actor is None
    assert model.classifier.out_features == len(class_names()) == len(semantic_classes()) + 1


def test_a_moca_checkpoint_plays_through_the_segmentation(frames, read, tmp_path):
    out = tmp_path / "m.pt"
    train_alfred(moca_request(frames, out, max_steps=1))
    episodes = read.all()[:EPISODES]
    pixels = ("rgb", "segmentation", "semantic")
    env = AlfredEnv(episodes, read.scenes, max_steps=12, interaction="mask", pixels=pixels)
    records = [run_episode(env, load_agent(str(out)), episodes[0]) for _ in range(2)]
    assert records[0].actions == records[1].actions and records[0].path_length > 0
    blind = AlfredEnv(episodes, read.scenes, max_steps=12, interaction="mask", pixels=("rgb",))
    agent = load_agent(str(out))
    agent.reset(task_spec(episodes[0], 0))
    observation, _ = blind.reset(options={"episode": episodes[0]})
    with pytest.raises(ValueError, match="--pixels rgb,segmentation,semantic"):
        agent._target(agent._features(observation), observation)


def tiny_agent(favoured_action: str, favoured_class: str) -> MocaAgent:
    """A MOCA agent whose heads always rank `favoured_action` first (then the others in ACTIONS order) and
    `favoured_class` first, whatever they see."""
    vocab = Vocab.build(["pick up the apple"])
    stream = Seq2SeqConfig(vocab_size=len(vocab), size=(16, 16))
    torch.manual_seed(0)
    model = Moca(MocaConfig(stream, tuple(class_names())))
    with torch.no_grad():
        for head, k, size in ((model.policy.actor, ACTIONS.index(favoured_action), len(ACTIONS)),
                              (model.classifier, class_names().index(favoured_class), len(class_names()))):  # fmt: skip
            head.weight.zero_()
            head.bias.copy_(-torch.arange(size, dtype=torch.float32) * 0.01)
            head.bias[k] = 5.0
    agent = MocaAgent(model, vocab)
    agent.reset(TaskSpec("e", "pick up the apple", ()))
    return agent


def frame_with(instances: dict[int, tuple[str, slice, slice]]) -> dict:
    """An observation whose segmentation holds each instance id over its (rows, columns), of its class."""
    segmentation = np.full((300, 300), -1, np.int32)
    semantic = np.full((300, 300), -1, np.int32)
    for i, (cls, rows, columns) in instances.items():
        segmentation[rows, columns] = i
        semantic[rows, columns] = semantic_classes().index(cls)
    rgb = np.zeros((300, 300, 3), np.uint8)
    return {"goal": "", "instructions": "", "rgb": rgb, "segmentation": segmentation, "semantic": semantic,
            "last_action_success": True, "last_action_message": ""}  # fmt: skip


def test_moca_picks_the_largest_instance_then_the_one_nearest_its_last_target():
    agent = tiny_agent(PICKUP, "Apple")
    apples = {0: ("Apple", slice(0, 10), slice(0, 10)), 1: ("Apple", slice(200, 240), slice(200, 240))}
    observation = frame_with(apples | {2: ("Bread", slice(100, 200), slice(0, 100))})
    first = agent.act(observation)
    assert first.action == PICKUP and (first.target == (observation["segmentation"] == 1)).all()
    moved = frame_with({0: ("Apple", slice(190, 230), slice(190, 230)), 1: ("Apple", slice(0, 60), slice(0, 60))})
    second = agent.act(moved)  # the larger apple is now instance 1; the one near the last target is 0
    assert (second.target == (moved["segmentation"] == 0)).all()
    # a class the frame does not show is not chosen: the likeliest class it shows is
    bread_only = frame_with({5: ("Bread", slice(0, 50), slice(0, 50))})
    assert (agent.act(bread_only).target == (bread_only["segmentation"] == 5)).all()


def test_moca_evades_obstructions_until_an_action_succeeds():
    agent = tiny_agent(MOVE_AHEAD, "Apple")
    observation = frame_with({})
    assert agent.act(observation).action == MOVE_AHEAD
    blocked = observation | {"last_action_success": False, "last_action_message": "blocked"}
    assert agent.act(blocked).action == ROTATE_LEFT  # the next most likely: MoveAhead is out
    assert agent.act(observation).action == MOVE_AHEAD  # the turn succeeded: the way may be free


def test_the_envs_semantic_pixels_are_the_frames_classes_and_no_vision_hides_them(read):
    episode = read.all()[0]
    env = AlfredEnv([episode], read.scenes, pixels=("segmentation", "semantic"))
    observation, _ = env.reset(options={"episode": episode})
    class_ids = {c: i for i, c in enumerate(class_names())}
    expected = class_map(env.frame, env.scene, env.state, class_ids).astype(np.int32) - 1
    assert (observation["semantic"] == expected).all() and (observation["semantic"] >= 0).any()
    assert "semantic" not in filter_observation("no_vision", observation)


class Follower:
    """Counts the teacher-forced steps it is shown, then stops."""

    def __init__(self) -> None:
        self.followed: list[tuple[bool, str]] = []

    def reset(self, task) -> None:
        self.followed.clear()

    def follow(self, observation: dict, action: str) -> None:
        self.followed.append(("rgb" in observation, action))

    def act(self, observation: dict) -> AgentAction:
        return AgentAction("Stop")


def test_subgoal_evaluation_shows_a_learned_agent_the_experts_prefix(read):
    episode = read.all()[0]
    env = AlfredEnv([episode], read.scenes, pixels=("rgb",))
    agent, index = Follower(), 2
    prefix = [a.name for a, k in zip(episode.expert_actions, episode.expert_subgoal_index, strict=True) if k < index]
    record = run_subgoal(env, agent, episode, index)
    assert agent.followed == [(True, name) for name in prefix] and len(prefix) > 0
    assert record.subgoal["index"] == index


def test_moca_has_no_dagger(frames, tmp_path):
    result = CliRunner().invoke(
        app, ["train", "--agent", "moca", "--data", str(frames), "--out", str(tmp_path / "m.pt"), "--dagger-rounds", "1"]
    )
    assert result.exit_code == 1 and "--dagger-rounds: alfred's moca training has no use for it" in result.output


def test_seq2seq_configs_read_and_write_as_before_moca():
    plain = Seq2SeqConfig(vocab_size=5)
    assert "heads" not in plain.to_dict()  # checkpoints written before the heads existed still resume
    assert Seq2SeqConfig.from_dict(plain.to_dict()) == plain
    policy = MocaConfig(plain, tuple(class_names())).policy
    assert policy.heads == ("action",) and Seq2SeqConfig.from_dict(policy.to_dict()) == policy
