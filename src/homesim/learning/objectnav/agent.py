"""A `homesim train --agent ppo` checkpoint playing ObjectNav: the policy fed the evaluation's observations
(LoCoBot's 640x480 depth and semantic, taken at the policy's size), its memory kept through the episode, its
action drawn from the policy with a generator seeded by the agent's seed and the episode (so an episode plays
the same whatever the worker or the order)."""

from __future__ import annotations

import zlib

import numpy as np
import torch

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.learning.objectnav.policy import NO_ACTION, PIXELS, PolicyNet, inputs
from homesim.world.objectnav.navgrid import ACTIONS

SENSORS = ("objectgoal", "gps", "compass", *PIXELS)


class PPOAgent:
    observations = PIXELS  # the images it asks the evaluator for

    def __init__(self, checkpoint: dict, seed: int = 0) -> None:
        self.checkpoint, self.seed, self.net = checkpoint, seed, None

    def reset(self, task: TaskSpec | None) -> None:
        if self.net is None:  # built in the process that plays: torch's threads do not survive a fork
            self.net = PolicyNet(self.checkpoint["describe"]["ppo"]["hidden"])
            self.net.load_state_dict(self.checkpoint["model"])
            self.net.eval()
        self.memory = torch.zeros(1, self.net.hidden)
        self.previous = torch.full((1,), NO_ACTION)
        self.starts = torch.ones(1, dtype=torch.bool)
        episode = task.episode_id if task is not None else ""
        self.generator = torch.Generator().manual_seed(zlib.crc32(f"{self.seed}/{episode}".encode()))

    @torch.no_grad()
    def act(self, observation: dict) -> AgentAction:
        missing = [k for k in SENSORS if k not in observation]
        if missing:
            raise ValueError(f"the PPO agent needs {', '.join(missing)} in its observations")
        batch = {k: np.asarray(observation[k])[None] for k in SENSORS}
        logits, _, self.memory = self.net(inputs(batch), self.previous, self.memory, self.starts)
        action = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=self.generator)[:, 0]
        self.previous, self.starts = action, torch.zeros(1, dtype=torch.bool)
        return AgentAction(ACTIONS[int(action)])


def ppo_agent(checkpoint: dict, seed: int) -> PPOAgent:
    return PPOAgent(checkpoint, seed)
