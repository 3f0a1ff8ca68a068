"""The episode runner: one record per (episode, annotation) under ALFRED's protocol, whatever the agent
does. An agent that raises, answers garbage or a bad mask gets failed steps with the reason in the
record, and the run goes on; observation filters hide what each ablation says they hide."""

from __future__ import annotations

import json

import numpy as np
import pytest

from homesim.agents.expert_agent import ExpertAgent
from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.agents.random_agent import RandomAgent
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.alfred.importer import import_alfred
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.alfred.subgoals import run_subgoal
from homesim.evaluation.records import EpisodeRecord, read_records
from homesim.evaluation.runner import run_episode, task_spec


@pytest.fixture(scope="module")
def valid_seen(alfred_samples, alfred_layouts):
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts, split="valid_seen")
    assert errors == []
    return splits["valid_seen"], scenes


@pytest.fixture(scope="module")
def builtin():
    episodes, scenes = builtin_episodes()
    return episodes, scenes, AlfredEnv(episodes, scenes)


class Scripted:
    """Answers from a list (then stops); records every observation and task it was given."""

    def __init__(self, answers: list) -> None:
        self.answers, self.seen, self.tasks = list(answers), [], []

    def reset(self, task: TaskSpec) -> None:
        self.tasks.append(task)

    def act(self, observation: dict):
        self.seen.append(observation)
        return self.answers.pop(0) if self.answers else AgentAction("Stop")


class Raising:
    def reset(self, task: TaskSpec) -> None:
        pass

    def act(self, observation: dict) -> AgentAction:
        raise ZeroDivisionError("the policy divided by zero")


# --- the expert -------------------------------------------------------------------------------------------


def test_the_expert_solves_real_episodes_in_exactly_the_reference_length(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    for episode in episodes[::3]:
        record = run_episode(env, ExpertAgent(), episode, annotation=0, split="valid_seen")
        assert record.goal_satisfied and record.stopped and record.end_reason == "stop", record.failures
        assert record.path_length == record.reference_length == len(episode.expert_actions)
        assert record.conditions_met == record.conditions_total >= 1
        assert record.failures == [] and all(record.action_success)
        assert [a[0] for a in record.actions] == [a.name for a in episode.expert_actions]
        assert [a[1] for a in record.actions] == [a.target for a in episode.expert_actions]
        assert (record.episode_id, record.split, record.task_type) == (episode.id, "valid_seen", episode.goal.task_type)


def test_a_record_survives_json(valid_seen, tmp_path):
    episodes, scenes = valid_seen
    record = run_episode(AlfredEnv(episodes, scenes), ExpertAgent(), episodes[1], annotation=2, split="valid_seen")
    assert record.annotation == 2
    assert EpisodeRecord(**json.loads(record.to_json())) == record
    (tmp_path / "records.jsonl").write_text(record.to_json() + "\n\n" + record.to_json() + "\n")
    assert read_records(tmp_path / "records.jsonl") == [record, record]


def test_task_spec_carries_the_annotation_and_the_demonstration(valid_seen):
    episodes, _ = valid_seen
    episode = episodes[0]
    spec = task_spec(episode, 1, start_step=4)
    assert spec.goal == episode.annotations[1].task_desc
    assert spec.instructions == episode.annotations[1].high_descs
    assert spec.expert_actions == episode.expert_actions and spec.start_step == 4


# --- misbehaving agents ---------------------------------------------------------------------------------------


def test_an_agent_that_raises_ends_its_episode_there_with_why(builtin):
    """Issue 25, item 16: an agent raising on every step was stepped until a limit cut it off."""
    episodes, _, env = builtin
    record = run_episode(env, Raising(), episodes[0])
    assert (record.end_reason, record.stopped, record.path_length, record.actions) == ("agent_error", False, 0, [])
    ((index, why),) = record.failures
    assert index == 0 and "ZeroDivisionError" in why and "the policy divided by zero" in why
    assert "test_runner.py" in why  # where it raised
    later = Scripted([AgentAction("RotateLeft_90"), AgentAction("RotateLeft_90")])
    later.act = lambda observation, act=later.act: act(observation) if later.answers else 1 / 0
    record = run_episode(env, later, episodes[0])
    assert record.end_reason == "agent_error" and record.path_length == 2 and record.action_success == [True, True]
    assert [i for i, _ in record.failures] == [2]


GARBAGE = [
    pytest.param("MoveAhead_25", "expected a dict", id="a-string"),
    pytest.param(None, "expected a dict", id="none"),
    pytest.param(AgentAction("Fly"), "unknown action 'Fly'", id="unknown-action"),
    pytest.param(AgentAction("PickupObject"), "needs a target object id", id="no-target"),
    pytest.param(AgentAction("PickupObject", 42), "needs a target object id, got int", id="int-target"),
    pytest.param(42, "expected a dict", id="an-int"),
]


class BrokenOnReset:
    def __init__(self, seed: int = 0) -> None:
        pass

    def reset(self, task: TaskSpec) -> None:
        raise KeyError("no model weights")

    def act(self, observation: dict) -> AgentAction:
        raise AssertionError("never asked: its reset failed")


def test_an_agent_whose_reset_raises_ends_its_episode_and_the_evaluation_goes_on(builtin):
    episodes, _, env = builtin
    record = run_episode(env, BrokenOnReset(), episodes[0])
    assert record.end_reason == "agent_error" and record.path_length == 0
    ((_, why),) = record.failures
    assert "agent raised KeyError in reset: 'no model weights'" in why


@pytest.mark.parametrize(("garbage", "why"), GARBAGE)
def test_garbage_answers_are_failed_steps_and_the_run_goes_on(builtin, garbage, why):
    episodes, _, env = builtin
    agent = Scripted([garbage, AgentAction("RotateLeft_90"), garbage, AgentAction("MoveAhead_25")])
    record = run_episode(env, agent, episodes[0])
    assert (record.end_reason, record.stopped, record.path_length) == ("stop", True, 4)
    assert record.action_success == [False, True, False, True]
    assert [i for i, _ in record.failures] == [0, 2]
    assert all(why in reason for _, reason in record.failures)
    assert record.actions[1] == ["RotateLeft_90", None]
    json.loads(record.to_json())


def test_garbage_until_the_limit(builtin):
    episodes, _, env = builtin
    record = run_episode(env, Scripted(["nonsense"] * 20), episodes[1])
    assert (record.end_reason, record.path_length, len(record.failures)) == ("max_fails", 9, 10)


@pytest.mark.parametrize(
    "mask, written",
    [(np.ones((7, 7), dtype=bool), "mask:49"), (np.ones((300, 300), dtype=bool), "mask:90000:[[0,90000]]")],
    ids=["wrong-shape", "oracle-mode"],
)
def test_a_mask_answer_is_a_failed_step_with_the_reason_in_the_record(builtin, mask, written):
    # a record keeps a mask of ALFRED's frame as its runs (it can be played again), another only by its size
    episodes, _, env = builtin
    agent = Scripted([AgentAction("PickupObject", mask), AgentAction("RotateLeft_90")])
    record = run_episode(env, agent, episodes[0])
    assert record.action_success == [False, True] and record.end_reason == "stop"
    assert record.failures[0][0] == 0 and record.failures[0][1]
    assert record.actions[0][1] == written
    json.loads(record.to_json())


def test_a_one_pixel_mask_is_a_failed_step(builtin):
    # a one-pixel mask; masks are written as "mask:<pixels>"
    episodes, _, env = builtin
    agent = Scripted([AgentAction("PickupObject", np.ones((1, 1), dtype=bool)), AgentAction("RotateLeft_90")])
    record = run_episode(env, agent, episodes[0])
    assert record.action_success == [False, True]
    assert "needs a target object id, got ndarray" in record.failures[0][1]
    assert record.actions[0][1] == "mask:1"
    json.loads(record.to_json())


def test_a_mask_answer_in_subgoal_evaluation_leaves_a_json_record(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    agent = Scripted([AgentAction("PickupObject", np.ones((1, 1), dtype=bool))])
    record = run_subgoal(env, agent, episodes[0], index=1)
    json.loads(record.to_json())


def test_max_steps_ends_a_wandering_agent():
    episodes, scenes = builtin_episodes()
    env = AlfredEnv(episodes, scenes, max_steps=5)
    record = run_episode(env, Scripted([AgentAction("RotateLeft_90")] * 50), episodes[0])
    assert (record.end_reason, record.stopped, record.path_length) == ("max_steps", False, 5)


def test_the_random_agent_is_cut_off_by_alfreds_limits(valid_seen):
    episodes, scenes = valid_seen
    record = run_episode(AlfredEnv(episodes, scenes), RandomAgent(seed=0), episodes[0], split="valid_seen")
    assert record.end_reason in {"stop", "max_fails", "max_steps"}
    assert record.path_length <= 1000 and len(record.failures) <= 10
    assert (
        record.path_length
        == len(record.actions) - (record.end_reason == "max_fails")
        == len(record.action_success) - (record.end_reason == "max_fails")
    )
    json.loads(record.to_json())


def test_a_stop_at_step_0_is_a_record(builtin):
    episodes, _, env = builtin
    record = run_episode(env, Scripted([]), episodes[0])
    assert (record.path_length, record.stopped, record.end_reason, record.actions) == (0, True, "stop", [])
    assert not record.goal_satisfied


# --- observation filters ------------------------------------------------------------------------------------


def _seen(env: AlfredEnv, episode, ablation: str) -> Scripted:
    spy = Scripted([AgentAction("RotateLeft_90"), AgentAction("MoveAhead_25")])
    run_episode(env, spy, episode, annotation=0, observation_filter=ablation)
    assert len(spy.seen) == 3
    return spy


@pytest.mark.parametrize(
    ("ablation", "goal_shown", "instructions_shown"),
    [
        ("none", True, True),
        ("no_vision", True, True),
        ("no_language", False, False),
        ("goal_only", True, False),
        ("instructions_only", False, True),
    ],
)
def test_observation_filters_hide_what_they_should(valid_seen, ablation, goal_shown, instructions_shown):
    episodes, scenes = valid_seen
    env, episode = AlfredEnv(episodes, scenes), episodes[0]
    spy = _seen(env, episode, ablation)
    for observation in spy.seen:
        assert (observation["goal"] != "") == goal_shown
        assert (observation["instructions"] != "") == instructions_shown
        assert "visible_objects" in observation
        assert not {"rgb", "depth", "segmentation"} & set(observation)


@pytest.mark.parametrize(
    ("ablation", "goal_shown", "instructions_shown"),
    [("no_language", False, False), ("goal_only", True, False), ("instructions_only", False, True)],
)
def test_observation_filters_also_hide_the_language_in_the_task_spec(
    valid_seen, ablation, goal_shown, instructions_shown
):
    episodes, scenes = valid_seen
    spy = _seen(AlfredEnv(episodes, scenes), episodes[0], ablation)
    (task,) = spy.tasks
    assert bool(task.goal) == goal_shown
    assert bool(task.instructions) == instructions_shown


def test_an_unknown_filter_ends_the_episode_not_the_run(builtin):
    # filter_observation raises ValueError inside `ask`, which ends the episode with why
    episodes, _, env = builtin
    record = run_episode(env, Scripted([]), episodes[0], observation_filter="no_smell")
    assert record.end_reason == "agent_error"
    assert "unknown observation filter 'no_smell'" in record.failures[0][1]
