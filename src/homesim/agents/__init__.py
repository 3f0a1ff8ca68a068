"""Agents and the protocol they follow: `reset(task)`, then `act(observation) -> AgentAction`."""

from homesim.agents.protocol import (
    OBSERVATION_FILTERS,
    Agent,
    AgentAction,
    TaskSpec,
    filter_observation,
    filter_task,
)
from homesim.agents.registry import make_agent

__all__ = ["OBSERVATION_FILTERS", "Agent", "AgentAction", "TaskSpec", "filter_observation", "filter_task", "make_agent"]
