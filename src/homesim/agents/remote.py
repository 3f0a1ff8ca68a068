"""An agent that is somewhere else: each `act` hands the observation to whoever serves the agent (a challenge
server's remote evaluation, over HTTP) and waits for the action it sends back. The suite's own runner drives
it, so a remote episode is played, limited and recorded exactly as a local one.

Runs are found by name (`remote:<id>`, the agent spec the evaluation is given) in this process's `RUNS`.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field

from homesim.agents.protocol import AgentAction, TaskSpec

PREFIX = "remote:"


@dataclass
class Exchange:
    """What the two sides pass: observations out (numbered steps), actions in (checked against the step
    they answer by the server before they are queued)."""

    patience: float  # seconds `act` waits for an action before the far side counts as gone
    stop: str  # the suite's STOP: what a gone agent answers, so that its remaining episodes end at once
    outbox: queue.Queue = field(default_factory=lambda: queue.Queue(maxsize=1))
    inbox: queue.Queue = field(default_factory=lambda: queue.Queue(maxsize=1))
    step: int = 0  # the number of the observation waiting for its action
    task: TaskSpec | None = None
    gone: str = ""  # why the far side counts as gone (it sent nothing in time)
    lock: threading.Lock = field(default_factory=threading.Lock)


RUNS: dict[str, Exchange] = {}


class RemoteAgent:
    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.new_episode = False

    def reset(self, task: TaskSpec) -> None:
        self.exchange.task = TaskSpec(task.episode_id, task.goal, task.instructions, annotation=task.annotation)
        self.new_episode = True  # no expert actions cross over

    def act(self, observation: dict) -> AgentAction:
        exchange = self.exchange
        if exchange.gone:
            return AgentAction(exchange.stop)
        with exchange.lock:
            exchange.step += 1
            step = exchange.step
        exchange.outbox.put((step, exchange.task if self.new_episode else None, observation))
        self.new_episode = False
        try:
            return exchange.inbox.get(timeout=exchange.patience)
        except queue.Empty:
            exchange.gone = f"no action came within {exchange.patience:.0f} s (step {step})"
            return AgentAction(exchange.stop)


def remote_agent(spec: str) -> RemoteAgent:
    name = spec.removeprefix(PREFIX)
    if name not in RUNS:
        raise ValueError(f"no remote evaluation {name!r} in this process")
    return RemoteAgent(RUNS[name])
