"""ALFRED's random baseline (its paper, section 6.1): a uniformly random action of its 12 each step, never
STOP (so an episode runs until a limit ends it), with a random target; in the text game, ALFWorld's: a
uniformly random admissible command. Each (episode, annotation) gets its own seeded draws."""

from __future__ import annotations

import random

import numpy as np

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, STOP

CHOICES = tuple(a for a in ACTIONS if a != STOP)  # ALFRED's 12 actions: "50 average steps for 12 actions"


class RandomAgent:
    """Picks one of ALFRED's 12 actions uniformly (never STOP). Its target is a random object the agent can
    see (oracle mode) or a random 20x20 pixel square (mask mode, when the observation has an image)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, task: TaskSpec) -> None:
        # the same (episode, annotation) gets the same actions, whatever the order episodes are run in
        self.rng = random.Random(f"{self.seed}/{task.episode_id}/{task.annotation}")

    def act(self, observation: dict) -> AgentAction:
        if "admissible_commands" in observation:
            return AgentAction(self.rng.choice(observation["admissible_commands"]))
        action = self.rng.choice(CHOICES)
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
