"""An ALFRED agent to start from (`homesim new-agent my_agent.py --suite alfred`). Run it as it is with
`homesim evaluate --agent my_agent.py:MyAgent --out runs/mine` (the built-in episodes), or on a dataset with
`--episodes DATASET`; `--interface text` plays ALFWorld's text game instead. What it is given and what it
may answer is in docs/agents.md; this one tries to pick up what the goal names and otherwise wanders."""

from __future__ import annotations

import random

from homesim.agents.protocol import AgentAction, TaskSpec

MOVES = ("MoveAhead_25", "MoveAhead_25", "RotateLeft_90", "RotateRight_90")  # ALFRED's navigation actions


class MyAgent:
    def __init__(self, seed: int = 0) -> None:
        # made once per worker process, with `--seed` (a constructor without `seed` is made with no arguments)
        self.seed = seed

    def reset(self, task: TaskSpec) -> None:
        # each episode: `task.goal` ("Put a clean mug in the coffee maker."), `task.instructions` (one
        # directive per step), `task.episode_id`, `task.annotation`; seeding from the episode keeps a run the
        # same bytes whatever the number of workers
        self.words = set(task.goal.lower().replace(".", "").split())
        self.rng = random.Random(f"{self.seed}/{task.episode_id}/{task.annotation}")
        self.tried: set[str] = set()  # the objects it has tried to pick up

    def act(self, observation: dict) -> AgentAction:
        if "admissible_commands" in observation:  # --interface text: answer one of the commands
            commands = observation["admissible_commands"]
            wanted = [c for c in commands if c.startswith("take") and self.words & set(c.split())]
            return AgentAction(wanted[0] if wanted else self.rng.choice(commands))
        # embodied, oracle mode: `visible_objects` are the ids within reach ("Mug|+00.10|+00.95|+01.60");
        # `last_action_success` and `last_action_message` say how the previous action went
        for object_id in observation.get("visible_objects", ()):
            if object_id.split("|")[0].lower() in self.words and object_id not in self.tried:
                self.tried.add(object_id)
                return AgentAction("PickupObject", object_id)
        return AgentAction(self.rng.choice(MOVES))  # "Stop" ends the episode; ALFRED's limits end it too
