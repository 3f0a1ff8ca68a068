"""Agents: loading by name or `module:Class`, the random agent's determinism, the expert's replay, and
the observation filters (ALFRED's unimodal ablations)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from homesim.agents import OBSERVATION_FILTERS, AgentAction, TaskSpec, filter_observation
from homesim.agents.expert_agent import ExpertAgent
from homesim.agents.random_agent import RandomAgent
from homesim.evaluation.suites import load_agent
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, STOP, Action


class TinyAgent:
    """Loaded by `load_agent(f"{__name__}:TinyAgent")`: always rotates."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def reset(self, task: TaskSpec) -> None:
        pass

    def act(self, observation: dict) -> AgentAction:
        return AgentAction("RotateLeft_90")


NOT_AN_AGENT_CLASS = 3

OBSERVATION = {
    "goal": "Put a washed apple in the fridge.",
    "instructions": "Go to the counter.\nPick up the apple.",
    "step": 4,
    "last_action_success": True,
    "last_action_message": "",
    "visible_objects": ("Apple|+00.10|+00.95|+01.60",),
    "rgb": np.zeros((30, 40, 3), dtype=np.uint8),
    "depth": np.zeros((30, 40), dtype=np.float32),
    "segmentation": np.zeros((30, 40), dtype=np.int32),
}


def task(episode_id: str = "ep", actions: tuple = (), start_step: int = 0) -> TaskSpec:
    return TaskSpec(episode_id, "goal", ("step one", "step two"), actions, start_step)


# --- load_agent ----------------------------------------------------------------------------------------


def test_load_agent_by_name():
    assert isinstance(load_agent("random", seed=3), RandomAgent) and load_agent("random", seed=3).seed == 3
    assert isinstance(load_agent("expert"), ExpertAgent)


def test_load_agent_by_module_path():
    agent = load_agent(f"{__name__}:TinyAgent", seed=7)
    assert type(agent).__name__ == "TinyAgent" and agent.seed == 7
    assert agent.act({}) == AgentAction("RotateLeft_90")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("clever", "unknown agent 'clever'"),
        ("", "unknown agent ''"),
        ("no_such_module_anywhere:Agent", "cannot load agent 'no_such_module_anywhere:Agent'"),
        (f"{__name__}:NoSuchClass", "cannot load agent"),
    ],
)
def test_load_agent_refuses_what_it_cannot_load(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec)


# --- the random agent -------------------------------------------------------------------------------------


def _acts(agent, episode_id: str, n: int = 60, observation: dict | None = None) -> list:
    agent.reset(task(episode_id))
    observation = observation or {"goal": "", "visible_objects": ("A|1|2|3", "B|4|5|6", "C|7|8|9")}
    return [agent.act(observation) for _ in range(n)]


def test_the_random_agent_is_deterministic_per_seed_and_episode():
    a, b = RandomAgent(seed=0), RandomAgent(seed=0)
    assert _acts(a, "ep1") == _acts(b, "ep1")
    assert _acts(a, "ep1") == _acts(a, "ep1")  # reset restarts the sequence
    assert _acts(a, "ep1") != _acts(a, "ep2")
    assert _acts(a, "ep1") != _acts(RandomAgent(seed=1), "ep1")
    # each annotation of an episode gets its own actions
    a.reset(replace(task("ep1"), annotation=1))
    seen = {"goal": "", "visible_objects": ("A|1|2|3", "B|4|5|6", "C|7|8|9")}
    assert [a.act(seen) for _ in range(60)] != _acts(b, "ep1")
    # the order episodes come in does not matter
    a.reset(task("ep2"))
    a.act({})
    assert _acts(a, "ep1") == _acts(b, "ep1")


def test_the_random_agent_uses_alfreds_12_actions_never_stop_with_visible_targets():
    answers = _acts(RandomAgent(seed=0), "ep", n=400)
    assert {a.action for a in answers} == set(ACTIONS) - {STOP}  # the paper's random agent has no API failure limit
    for a in answers:
        if a.action in INTERACT_ACTIONS:
            assert a.target in {"A|1|2|3", "B|4|5|6", "C|7|8|9"}
        else:
            assert a.target is None


def test_the_random_agent_without_visible_objects_still_answers():
    answers = _acts(RandomAgent(seed=0), "ep", n=100, observation={"visible_objects": ()})
    assert all(isinstance(a.target, str) for a in answers if a.action in INTERACT_ACTIONS)


def test_the_random_agent_answers_masks_when_it_sees_an_image():
    answers = _acts(RandomAgent(seed=0), "ep", n=100, observation=OBSERVATION)
    masks = [a.target for a in answers if a.action in INTERACT_ACTIONS]
    assert masks
    for mask in masks:
        assert isinstance(mask, np.ndarray) and mask.shape == (30, 40) and mask.dtype == bool and mask.any()


# --- the expert ----------------------------------------------------------------------------------------------

PLAN = (Action("RotateLeft_90"), Action("MoveAhead_25"), Action("PickupObject", "Apple|1|2|3"), Action("LookUp_15"))


def test_the_expert_replays_the_plan_then_stops():
    agent = ExpertAgent()
    agent.reset(task(actions=PLAN))
    answers = [agent.act({}) for _ in range(7)]
    assert answers[:4] == [AgentAction(a.name, a.target) for a in PLAN]
    assert answers[4:] == [AgentAction(STOP)] * 3


def test_the_expert_starts_where_sub_goal_evaluation_says():
    agent = ExpertAgent()
    agent.reset(task(actions=PLAN, start_step=2))
    assert [agent.act({}) for _ in range(3)] == [
        AgentAction("PickupObject", "Apple|1|2|3"),
        AgentAction("LookUp_15"),
        AgentAction(STOP),
    ]


def test_the_expert_is_reset_per_episode():
    agent = ExpertAgent()
    agent.reset(task(actions=PLAN))
    agent.act({})
    agent.reset(task(actions=PLAN[:1]))
    assert [agent.act({}), agent.act({})] == [AgentAction("RotateLeft_90"), AgentAction(STOP)]
    agent.reset(task(actions=()))
    assert agent.act({}) == AgentAction(STOP)  # nothing to replay: stop at step 0


# --- observation filters --------------------------------------------------------------------------------------


def test_the_filters_are_alfreds_ablations():
    assert set(OBSERVATION_FILTERS) == {"none", "no_language", "no_vision", "goal_only", "instructions_only"}


def test_none_changes_nothing():
    assert filter_observation("none", OBSERVATION) is OBSERVATION


def test_no_language():
    seen = filter_observation("no_language", OBSERVATION)
    assert seen["goal"] == "" and seen["instructions"] == ""
    assert {k for k in OBSERVATION if k not in ("goal", "instructions")} <= set(seen)
    assert seen["rgb"] is OBSERVATION["rgb"]


def test_no_vision():
    seen = filter_observation("no_vision", OBSERVATION)
    assert not {"rgb", "depth", "segmentation"} & set(seen)
    assert seen["goal"] == OBSERVATION["goal"] and seen["instructions"] == OBSERVATION["instructions"]
    assert seen["visible_objects"] == OBSERVATION["visible_objects"]


def test_goal_only():
    seen = filter_observation("goal_only", OBSERVATION)
    assert seen["goal"] == OBSERVATION["goal"] and seen["instructions"] == ""
    assert "rgb" in seen


def test_instructions_only():
    seen = filter_observation("instructions_only", OBSERVATION)
    assert seen["goal"] == "" and seen["instructions"] == OBSERVATION["instructions"]
    assert "rgb" in seen


@pytest.mark.parametrize("name", sorted(OBSERVATION_FILTERS))
def test_filters_never_modify_the_observation_they_are_given(name):
    before = dict(OBSERVATION)
    filter_observation(name, OBSERVATION)
    assert OBSERVATION.keys() == before.keys()
    assert all(OBSERVATION[k] is before[k] for k in before)


def test_an_unknown_filter_is_a_value_error_listing_the_known_ones():
    with pytest.raises(ValueError, match="unknown observation filter 'no_smell'.*no_language"):
        filter_observation("no_smell", OBSERVATION)
