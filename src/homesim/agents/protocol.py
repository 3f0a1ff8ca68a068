"""The agent protocol: what an agent is told about a task, what it sees each step, what it returns.

An agent gets a `TaskSpec` at the start of an episode and then, each step, an observation dict:
`goal` (the high-level goal sentence), `instructions` (the step-by-step directives, one per line),
`step`, `last_action_success`, `last_action_message`, in oracle mode `visible_objects` (the ids it can
interact with now) and, when enabled, `rgb`, `depth`, `segmentation`. It answers with an
`AgentAction`: an action name (ALFRED's, see `homesim.world.actions`) and, for interactions, a target:
an object id (oracle mode) or a boolean pixel mask (mask mode), as ALFRED's models do.

ALFRED's unimodal ablations are observation filters any agent can run under.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from homesim.world.actions import Action


@dataclass(frozen=True)
class AgentAction:
    action: str
    target: str | np.ndarray | None = None  # object id (oracle mode) or HxW boolean mask (mask mode)


@dataclass(frozen=True)
class TaskSpec:
    """What an agent is told when an episode starts. `expert_actions` is the demonstration: privileged,
    there for the expert and for imitation learning; a fair agent ignores it."""

    episode_id: str
    goal: str
    instructions: tuple[str, ...]
    expert_actions: tuple[Action, ...] = ()
    start_step: int = 0  # sub-goal evaluation: how many expert actions were teacher-forced before


class Agent(Protocol):
    def reset(self, task: TaskSpec) -> None: ...

    def act(self, observation: dict) -> AgentAction: ...


PIXELS = ("rgb", "depth", "segmentation")


def _no_language(observation: dict) -> dict:
    return {**observation, "goal": "", "instructions": ""}


def _no_vision(observation: dict) -> dict:
    return {k: v for k, v in observation.items() if k not in PIXELS}


def _goal_only(observation: dict) -> dict:
    return {**observation, "instructions": ""}


def _instructions_only(observation: dict) -> dict:
    return {**observation, "goal": ""}


# ALFRED's ablations (paper, Table 3): what each hides from the agent.
OBSERVATION_FILTERS = {
    "none": lambda observation: observation,
    "no_language": _no_language,
    "no_vision": _no_vision,
    "goal_only": _goal_only,
    "instructions_only": _instructions_only,
}


def filter_observation(name: str, observation: dict) -> dict:
    try:
        return OBSERVATION_FILTERS[name](observation)
    except KeyError:
        raise ValueError(f"unknown observation filter {name!r}; known: {', '.join(OBSERVATION_FILTERS)}") from None
