"""ObjectNav's simple agents: the expert (the evaluator's privileged hint: the shortest-path follower of
`planning.objectnav_expert`, which turns to face the goal and then STOPs) and the random agent."""

from __future__ import annotations

import random

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.world.objectnav.navgrid import ACTIONS


class ObjectNavExpertAgent:
    """Plays `observation["expert_action"]`, the expert's next action from the current pose (STOP where the
    expert has none: no path to the goal from here)."""

    needs_expert_hints = True

    def __init__(self, seed: int = 0) -> None:
        pass

    def reset(self, task: TaskSpec) -> None:
        pass

    def act(self, observation: dict) -> AgentAction:
        return AgentAction(observation["expert_action"] or "STOP")


class ObjectNavRandomAgent:
    """A uniformly random action of the six each step, STOP included (so an episode lasts six actions on
    average). Each episode gets its own seeded draws, whatever order episodes run in."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, task: TaskSpec) -> None:
        self.rng = random.Random(f"{self.seed}/{task.episode_id}")

    def act(self, observation: dict) -> AgentAction:
        return AgentAction(self.rng.choice(ACTIONS))
