"""ALFRED's random baseline: a uniformly random action each step, with a random target; in the text game,
ALFWorld's: a uniformly random admissible command."""

from __future__ import annotations

import random

import numpy as np

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS


class RandomAgent:
    """Picks one of ALFRED's 13 actions uniformly. Its target is a random object the agent can see (oracle
    mode) or a random pixel blob (mask mode, when the observation has an image)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, task: TaskSpec) -> None:
        self.rng = random.Random(f"{self.seed}/{task.episode_id}")  # the same episode gets the same actions

    def act(self, observation: dict) -> AgentAction:
        if "admissible_commands" in observation:
            return AgentAction(self.rng.choice(observation["admissible_commands"]))
        action = self.rng.choice(ACTIONS)
        if action not in INTERACT_ACTIONS:
            return AgentAction(action)
        if "rgb" in observation:
            height, width = observation["rgb"].shape[:2]
            mask = np.zeros((height, width), dtype=bool)
            y, x = self.rng.randrange(height), self.rng.randrange(width)
            mask[max(0, y - 10) : y + 10, max(0, x - 10) : x + 10] = True
            return AgentAction(action, mask)
        visible = observation.get("visible_objects") or ["nothing"]
        return AgentAction(action, self.rng.choice(list(visible)))
