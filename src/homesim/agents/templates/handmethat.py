"""A HandMeThat agent to start from (`homesim new-agent my_agent.py --suite handmethat`). Run it as it is with
`homesim evaluate --suite handmethat --agent my_agent.py:MyAgent --out runs/mine` (the built-in episodes), or
on episodes with `--episodes DATASET`. What it is given and what it may answer is in docs/agents.md; this
one prefers commands that name a word of the human's request and gives up after a while."""

from __future__ import annotations

import random

from homesim.agents.protocol import AgentAction, TaskSpec

COMMANDS = 20  # commands before it gives up (the protocol allows 40; each costs 1)


class MyAgent:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def reset(self, task: TaskSpec) -> None:
        # `task.goal` is what the human did and said ("... Human stops and says, 'Give me that.'")
        said = task.goal.rpartition("says")[2]
        self.words = {w.strip(".,'\"").lower() for w in said.split()} - {"me", "the", "a", "that", "give"}
        self.rng = random.Random(f"{self.seed}/{task.episode_id}")
        self.said = 0

    def act(self, observation: dict) -> AgentAction:
        # `text`: the game's answer; `admissible_commands`: what works now; `score`, `step`
        self.said += 1
        if self.said > COMMANDS:
            return AgentAction("stop")
        commands = observation["admissible_commands"]
        named = [c for c in commands if self.words & set(c.split())]
        return AgentAction(self.rng.choice(named or commands))
