"""The agent protocol: what an agent is told about a task, what it sees each step, what it returns.

An agent gets a `TaskSpec` at the start of an episode and then, each step, an observation dict:
`goal` (the high-level goal sentence), `instructions` (the step-by-step directives, one per line),
`last_action_success` and `last_action_message` (the previous action's outcome, as AI2-THOR reports it),
in oracle mode `visible_objects` (the ids it can interact with now) and, when enabled, `rgb`, `depth`,
`segmentation`, `semantic`. It answers with an
`AgentAction`: an action name (ALFRED's, see `homesim.world.actions`) and, for interactions, a target:
an object id (oracle mode) or a boolean pixel mask (mask mode), as ALFRED's models do.

ALFRED's unimodal ablations are observation filters any agent can run under.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from homesim.world.actions import Action


@dataclass(frozen=True)
class AgentAction:
    action: str
    target: str | np.ndarray | list | None = None  # object id (oracle mode); HxW mask or ALFRED's runs (mask mode)


@dataclass(frozen=True)
class TaskSpec:
    """What an agent is told when an episode starts. `expert_actions` is the demonstration: privileged,
    there for the expert and for imitation learning; a fair agent ignores it."""

    episode_id: str
    goal: str
    instructions: tuple[str, ...]
    expert_actions: tuple[Action, ...] = ()
    start_step: int = 0  # sub-goal evaluation: how many expert actions were teacher-forced before
    annotation: int = 0  # which human annotation of the episode (ALFRED's repeat_idx) the goal comes from
    task_type: str = ""  # the episode's task type as records name it: what LLM harnesses pick example games by


class Agent(Protocol):
    """An agent may also have `follow(observation, action_name)`: in ALFRED's sub-goal evaluation it is shown
    each teacher-forced expert step before it acts (as ALFRED feeds a model's decoder the expert's prefix);
    and `measures()`: its own figures of the episode it just played (JSON values), which the record keeps
    in its `measures` under "agent" (the LLM agent's invalid actions, finish reason, tokens, transcript)."""

    def reset(self, task: TaskSpec) -> None: ...

    def act(self, observation: dict) -> AgentAction: ...


PIXELS = ("rgb", "depth", "segmentation", "semantic")
LANGUAGE = ("goal", "instructions")

# ALFRED's ablations (paper, Table 3): what each hides from the agent, in its observations and its task.
OBSERVATION_FILTERS: dict[str, tuple[str, ...]] = {
    "none": (),
    "no_language": LANGUAGE,
    "no_vision": PIXELS,
    "goal_only": ("instructions",),
    "instructions_only": ("goal",),
}


def _hidden(name: str) -> tuple[str, ...]:
    try:
        return OBSERVATION_FILTERS[name]
    except KeyError:
        raise ValueError(f"unknown observation filter {name!r}; known: {', '.join(OBSERVATION_FILTERS)}") from None


def filter_observation(name: str, observation: dict) -> dict:
    """The observation with what the ablation hides blanked (language) or removed (pixels)."""
    hidden = _hidden(name)
    if not hidden:
        return observation
    return {k: ("" if k in hidden else v) for k, v in observation.items() if not (k in hidden and k in PIXELS)}


def filter_task(name: str, task: TaskSpec) -> TaskSpec:
    """The task as the ablation lets the agent know it (no goal sentence, no directives, or neither)."""
    hidden = _hidden(name)
    return replace(
        task,
        goal="" if "goal" in hidden else task.goal,
        instructions=() if "instructions" in hidden else task.instructions,
    )
