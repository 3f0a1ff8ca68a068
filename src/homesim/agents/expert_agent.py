"""The expert agent: the live expert's next action from the current state (`planning.alfred.expert`), given by
the env as a privileged hint (in mask mode aimed by the ground-truth mask of its target; in the text
game, its next command); without hints, it replays the episode's demonstration."""

from __future__ import annotations

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.world.actions import STOP


class ExpertAgent:
    """Asks the evaluator for expert hints (`info["expert_action"]` in the observation). Without them it
    plays the demonstration from `start_step`, which cannot recover off the demonstration's path."""

    needs_expert_hints = True

    def __init__(self, seed: int = 0) -> None:
        self.plan: tuple = ()
        self.next = 0

    def reset(self, task: TaskSpec) -> None:
        self.plan, self.next = task.expert_actions, task.start_step

    def act(self, observation: dict) -> AgentAction:
        if "expert_command" in observation:  # the text game; None: the expert has no way to the goal
            command = observation["expert_command"]
            return AgentAction(STOP if command is None else command)
        if "expert_action" in observation:
            action = observation["expert_action"]
            if action is None:
                return AgentAction(STOP)
            mask = observation.get("expert_mask")  # mask mode: its target's ground-truth mask
            return AgentAction(action.name, action.target if mask is None else mask)
        if self.next >= len(self.plan):
            return AgentAction(STOP)
        action = self.plan[self.next]
        self.next += 1
        return AgentAction(action.name, action.target)
