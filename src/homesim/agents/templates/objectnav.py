"""An ObjectNav agent to start from (`homesim new-agent my_agent.py --suite objectnav`). Run it as it is with
`homesim evaluate --suite objectnav --agent my_agent.py:MyAgent --out runs/mine` (the built-in episodes), or
on a dataset with `--episodes DATASET`. What it is given and what it may answer is in docs/agents.md; this
one walks ahead, turns where something stops it, and calls STOP after a while."""

from __future__ import annotations

import random

import numpy as np

from homesim.agents.protocol import AgentAction, TaskSpec

STEPS = 60  # actions before it gives up and calls STOP (the protocol allows 500)


class MyAgent:
    # the images it wants each step, of rgb, depth, semantic (640x480): ("depth",) adds `depth` (metres) to
    # every observation; none (the fastest) renders nothing
    observations = ()

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def reset(self, task: TaskSpec) -> None:
        # `task.goal` is "find a <category>"; `task.episode_id` seeds this episode's draws
        self.rng = random.Random(f"{self.seed}/{task.episode_id}")
        self.steps, self.last_gps = 0, None

    def act(self, observation: dict) -> AgentAction:
        # `objectgoal`: the category's index (homesim.tasks.objectnav.CATEGORIES); `gps`: [ahead, right] metres
        # from the start; `compass`: radians turned right since the start
        self.steps += 1
        if self.steps > STEPS:
            return AgentAction("STOP")
        blocked = self.last_gps is not None and np.allclose(observation["gps"], self.last_gps)
        self.last_gps = observation["gps"].copy()
        if blocked:  # the last MOVE_FORWARD was blocked (homesim never slides): turn away
            return AgentAction(self.rng.choice(("TURN_LEFT", "TURN_RIGHT")))
        return AgentAction("MOVE_FORWARD")  # the others: LOOK_UP, LOOK_DOWN
