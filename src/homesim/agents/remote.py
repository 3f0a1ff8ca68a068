"""An agent that is somewhere else: each `act` hands the observation to whoever serves the agent (a challenge
server's remote evaluation, over HTTP) and waits for the action it sends back. The suite's own runner drives
it, so a remote episode is played, limited and recorded exactly as a local one.

Many episodes are played at once, each by its own runner in a greenlet (`greenlet`: a switch costs about a
microsecond, a thread's hand-over tens), under one hub that owns them: `act` switches to the hub with its
observation and is resumed with the action. The hub gathers every live episode's observation and sends them
out in one exchange, so an exchange's cost is shared by the batch.

Runs are found by name (`remote:<id>`, the agent spec the evaluation is given) in this process's `RUNS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import greenlet

from homesim.agents.protocol import AgentAction, TaskSpec

PREFIX = "remote:"


@dataclass
class Exchange:
    """What a run's agents share: the suite's STOP, and why the far side counts as gone (then every `act`
    answers STOP at once, so that the remaining episodes end)."""

    stop: str
    gone: str = ""


@dataclass(frozen=True)
class Ask:
    """What an agent's `act` hands the hub: the task when the episode is new (as an agent is told it: no
    expert actions), and the observation."""

    task: TaskSpec | None
    observation: dict


RUNS: dict[str, Exchange] = {}


class RemoteAgent:
    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.task: TaskSpec | None = None

    def reset(self, task: TaskSpec) -> None:
        self.task = TaskSpec(task.episode_id, task.goal, task.instructions, annotation=task.annotation)

    def act(self, observation: dict) -> AgentAction:
        if self.exchange.gone:
            return AgentAction(self.exchange.stop)
        hub = greenlet.getcurrent().parent
        if hub is None:
            raise RuntimeError("a remote agent acts only in an episode its hub plays (server.remote)")
        task, self.task = self.task, None
        return hub.switch(Ask(task, observation))


def remote_agent(spec: str) -> RemoteAgent:
    name = spec.removeprefix(PREFIX)
    if name not in RUNS:
        raise ValueError(f"no remote evaluation {name!r} in this process")
    return RemoteAgent(RUNS[name])
