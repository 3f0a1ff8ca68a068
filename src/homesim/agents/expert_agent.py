"""The expert: replays the episode's demonstration from wherever the episode starts it."""

from __future__ import annotations

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.world.actions import STOP


class ExpertAgent:
    """Plays the task's expert actions in order (from `start_step` in sub-goal evaluation), then stops.
    It follows the demonstration, not the state: off the demonstration's path it cannot recover."""

    def __init__(self, seed: int = 0) -> None:
        self.plan: tuple = ()
        self.next = 0

    def reset(self, task: TaskSpec) -> None:
        self.plan, self.next = task.expert_actions, task.start_step

    def act(self, observation: dict) -> AgentAction:
        if self.next >= len(self.plan):
            return AgentAction(STOP)
        action = self.plan[self.next]
        self.next += 1
        return AgentAction(action.name, action.target)
