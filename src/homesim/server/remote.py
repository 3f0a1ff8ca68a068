"""Remote evaluation: a team's agent runs on the team's machine and plays an env it cannot see. The server runs
the suite's own evaluation in a thread with a `RemoteAgent` (`agents.remote`) as the agent, and hands out
only what that evaluation shows an agent: observations (pixels, GPS+Compass, text, admissible commands) and
the task as an agent is told it (no expert actions); never the scene, the goal's objects or the reward. The
result is stored like a scored submission's.

A run plays a batch of episodes at once (the client says how many): each exchange carries an observation
of every live episode out and an action for each back, so that one HTTP round trip serves many steps. The
records are those one episode after another gives (the evaluation sorts them), so the figures are too.

The exchange is resumable: a step stays pending until its action comes, so a client that lost a connection
asks again and gets the same steps (and an answer sent twice is taken once); an episode finished is in the
run's records whatever happens to the connection. A client silent for longer than the run's patience ends
the run: its remaining episodes end at once and count as failures, and the submission says so.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import tempfile
import threading
from binascii import a2b_base64, b2a_base64
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import greenlet
import numpy as np
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.agents.remote import PREFIX, RUNS, Ask, Exchange
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.suites import suite_named
from homesim.server.challenges import ChallengeError, challenge_episodes, token_hash
from homesim.server.models import Phase, Submission, Team
from homesim.server.submissions import Scored, finish, submit

PATIENCE = 300.0  # seconds a run waits for an action before its agent counts as gone


PLAIN = frozenset((str, int, float, bool, type(None)))  # JSON as they are


def encode(value: object) -> object:
    """An observation as JSON: arrays as {"dtype", "shape", "base64"} (their bytes as they are, so the far side
    gets the very array). Plain values are told by their exact type first: a batch encodes thousands."""
    kind = type(value)
    if kind in PLAIN:
        return value
    if kind is np.ndarray:
        return {
            "dtype": value.dtype.str,
            "shape": list(value.shape),
            "base64": b2a_base64(value.tobytes(), newline=False).decode(),
        }
    if isinstance(value, dict):
        return {k: v if type(v) in PLAIN else encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if type(v) in PLAIN else encode(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode(value: object) -> object:
    kind = type(value)
    if kind in PLAIN:
        return value
    if kind is dict:
        if len(value) == 3 and "base64" in value and "dtype" in value and "shape" in value:
            return np.frombuffer(a2b_base64(value["base64"]), dtype=value["dtype"]).reshape(value["shape"])
        return {k: decode(v) for k, v in value.items()}
    if kind is list:
        return [decode(v) for v in value]
    return value


def encode_batch(observations: Sequence[dict]) -> dict:
    """A batch's observations as columns, one per key (the key's value for each observation in order): a column
    of arrays of one dtype and shape is one array of them all, so that a batch's GPS readings are one base64
    string, not K objects. Observations whose keys differ go row by row."""
    keys = list(observations[0]) if observations else []
    if any(list(o) != keys for o in observations):
        return {"rows": [encode(o) for o in observations]}
    return {"count": len(observations), "columns": {k: _column([o[k] for o in observations]) for k in keys}}


def _column(values: list) -> dict:
    first = values[0]
    if type(first) is np.ndarray and all(
        type(v) is np.ndarray and v.dtype == first.dtype and v.shape == first.shape for v in values
    ):
        return {"stacked": encode(np.stack(values))}
    return {"values": [v if type(v) in PLAIN else encode(v) for v in values]}


def decode_batch(batch: dict) -> list[dict]:
    """The observations `encode_batch` encoded: each array a row of its column's (the same dtype, shape and
    bytes)."""
    if "rows" in batch:
        return [decode(o) for o in batch["rows"]]
    columns = []
    for column in batch["columns"].values():
        if "stacked" in column:
            stacked = decode(column["stacked"])
            columns.append([stacked[i, ...] for i in range(len(stacked))])
        else:
            columns.append([decode(v) for v in column["values"]])
    return [dict(zip(batch["columns"], row)) for row in zip(*columns)] if columns else [{} for _ in range(batch["count"])]


MAX_BATCH = 1024  # episodes at once in one run: a batch's observations fit one response


@dataclass
class Pending:
    """A step handed out and not yet answered: its episode's slot, its number, and what it asks."""

    slot: int
    step: int
    ask: Ask


def steps_of(pending: Sequence[Pending]) -> dict:
    """Steps as they are sent: a list per field, the observations in columns (`encode_batch`)."""
    return {
        "slots": [p.slot for p in pending],
        "steps": [p.step for p in pending],
        "tasks": [_told(p.ask.task) for p in pending],
        "observations": encode_batch([p.ask.observation for p in pending]),
    }


@dataclass
class Run:
    name: str
    submission_id: int
    token_hash: str  # the team's: a step's request is checked against it without the database
    exchange: Exchange
    batch: int  # episodes played at once
    patience: float
    episodes: int = 0
    finished: int = 0
    steps: int = 0
    pending: dict[int, Pending] = field(default_factory=dict)  # slot -> its step waiting for an action
    sent: dict = field(default_factory=dict)  # the pending steps as sent (`steps_of`), encoded once
    answers: dict[int, AgentAction] = field(default_factory=dict)  # slot -> the action that came for it
    done: bool = False
    condition: threading.Condition = field(default_factory=threading.Condition)  # the hub waits on it for answers
    waiters: list = field(default_factory=list)  # (event loop, future) of requests waiting for steps

    # --- the hub's side (the run's thread) -------------------------------------------------------------

    def trade(self, asks: dict[int, Ask]) -> dict[int, AgentAction]:
        """Hands out the batch's observations and waits for their actions; an agent silent for longer than
        the patience counts as gone (the exchange says why) and its episodes get STOP."""
        pending = {}
        for slot, ask in sorted(asks.items()):
            self.steps += 1
            pending[slot] = Pending(slot, self.steps, ask)
        sent = steps_of(list(pending.values()))
        with self.condition:
            self.pending, self.sent, self.answers = pending, sent, {}
            self._wake()
            if not self.condition.wait_for(lambda: len(self.answers) == len(self.pending), timeout=self.patience):
                first = min(p.step for p in self.pending.values() if p.slot not in self.answers)
                self.exchange.gone = f"no action came within {self.patience:.0f} s (step {first})"
            actions = {slot: self.answers.get(slot, AgentAction(self.exchange.stop)) for slot in self.pending}
            self.pending, self.sent, self.answers = {}, {}, {}
        return actions

    def play(self, make_runner: Callable[[], object], items: Sequence) -> Iterator[EpisodeRecord]:
        """The evaluation's work items, `batch` at once, each episode a greenlet running the suite's runner
        (runners are reused as episodes end); yields each record as its episode ends."""
        todo, free = deque(items), []
        live: dict[int, tuple[greenlet.greenlet, object]] = {}
        asks: dict[int, Ask] = {}
        self.episodes = len(todo)

        def settle(slot: int, outcome: object) -> list[EpisodeRecord]:
            """What an episode's greenlet gave back: an ask (kept for the next trade), or its record (then
            the slot's next episode starts)."""
            ended = []
            while not isinstance(outcome, Ask):
                ended.append(outcome)
                free.append(live.pop(slot)[1])
                self.finished += 1
                if not todo:
                    return ended
                outcome = begin(slot)
            asks[slot] = outcome
            return ended

        def begin(slot: int) -> object:
            runner = free.pop() if free else make_runner()
            live[slot] = (greenlet.greenlet(runner.run), runner)
            return live[slot][0].switch(todo.popleft())

        for slot in range(min(self.batch, len(todo))):
            yield from settle(slot, begin(slot))
        while asks:
            actions, asks = self.trade(asks), {}
            for slot, action in actions.items():
                yield from settle(slot, live[slot][0].switch(action))

    # --- the client's side (the server's request threads) ----------------------------------------------

    def state(self) -> dict:
        """The steps waiting for actions (the same again until answered), or that the run is done, or that
        the next steps are still coming."""
        unanswered = [p for p in self.pending.values() if p.slot not in self.answers]
        if unanswered:
            sent = self.sent if len(unanswered) == len(self.pending) else steps_of(unanswered)
            return sent | {"episodes": self.episodes, "finished": self.finished}
        return {"done": True, "submission": self.submission_id} if self.done else {"waiting": True}

    async def next_steps(self, wait: float) -> dict:
        """The state once there are steps to answer or the run is done, or after `wait` seconds. Awaited on the
        server's event loop, woken by the hub: no thread hands over on the way."""
        with self.condition:
            state = self.state()
            if "waiting" not in state:
                return state
            woken = asyncio.get_running_loop().create_future()
            self.waiters.append((asyncio.get_running_loop(), woken))
        try:
            await asyncio.wait_for(woken, wait)
        except TimeoutError:
            pass
        with self.condition:
            return self.state()

    def _wake(self) -> None:
        """Wakes the requests waiting for steps (under the condition's lock)."""
        for loop, woken in self.waiters:
            loop.call_soon_threadsafe(_settle, woken)
        self.waiters = []

    def end(self) -> None:
        with self.condition:
            self.done = True
            self._wake()

    def answer(self, answers: object) -> None:
        """Takes the actions sent for steps still waiting (an answer to a step answered already, as a retried
        request sends, is left). A malformed answer refuses the whole request, and none of it is taken."""
        if not isinstance(answers, list):
            raise ChallengeError("send {answers: [{slot, step, action, target}, ...], wait}")
        targets = []
        for i, given in enumerate(answers):
            if not (isinstance(given, dict) and isinstance(given.get("slot"), int) and isinstance(given.get("step"), int)
                    and isinstance(given.get("action"), str | None)):  # fmt: skip
                raise ChallengeError(f"answers[{i}]: expected {{slot, step, action: a name or command, target}}")
            try:
                targets.append(decode(given.get("target")))
            except (TypeError, ValueError) as e:  # an array's dtype, shape or bytes that do not agree
                raise ChallengeError(f"answers[{i}].target: not an array ({e})") from None
        with self.condition:
            for given, target in zip(answers, targets):
                waiting = self.pending.get(given["slot"])
                if waiting is not None and waiting.step == given["step"] and given["slot"] not in self.answers:
                    self.answers[given["slot"]] = AgentAction(given["action"], target)
            if self.pending and len(self.answers) == len(self.pending):
                self.condition.notify_all()


def _settle(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def _told(task: TaskSpec | None) -> dict | None:
    if task is None:
        return None
    return {"episode_id": task.episode_id, "goal": task.goal, "instructions": list(task.instructions),
            "annotation": task.annotation}  # fmt: skip


ACTIVE: dict[str, Run] = {}


def start(sessions: sessionmaker[Session], phase: Phase, team: Team, method: str, paper_url: str = "",
          patience: float = PATIENCE, batch: int = 1) -> Run:  # fmt: skip
    """A remote evaluation of the phase's episodes for the team (within the phase's limits), started; it
    plays `batch` episodes at once."""
    if not 1 <= batch <= MAX_BATCH:
        raise ChallengeError(f"batch {batch}: 1 to {MAX_BATCH} episodes at once")
    name = secrets.token_urlsafe(12)
    with sessions.begin() as session:
        submission = submit(
            session, session.merge(phase), session.merge(team), None, method, paper_url, remote=PREFIX + name
        )
        submission_id = submission.id
    suite = suite_named(phase.challenge.suite)
    run = Run(name, submission_id, team.token_hash, Exchange(suite.stop_action), batch, patience)
    RUNS[name] = run.exchange
    ACTIVE[name] = run
    threading.Thread(target=_play, args=(sessions, run, phase.id), daemon=True, name=f"remote {name}").start()
    return run


def _play(sessions: sessionmaker[Session], run: Run, phase_id: int) -> None:
    try:
        with sessions() as session:
            phase = session.get(Phase, phase_id)
            splits, scenes = challenge_episodes(session, phase.challenge, phase.split)
            config = EvaluationConfig(agent=PREFIX + run.name, suite=phase.challenge.suite, options=dict(phase.options))
        with tempfile.TemporaryDirectory(prefix="homesim-remote-") as folder:
            summary = evaluate(splits, scenes, config, Path(folder), together=run.play)
        summary["config"]["agent"] = "remote"
        gone = run.exchange.gone
        scored = Scored(summary, f"the agent went silent: {gone}; its episodes left count as failures" if gone else "")
    except Exception as e:  # noqa: BLE001  (whatever stopped the run is the submission's reason)
        scored = Scored(None, f"the remote evaluation stopped: {type(e).__name__}: {e}")
    with sessions.begin() as session:
        finish(session, run.submission_id, PREFIX + run.name, scored)
    run.end()  # wakes a client waiting for the next steps
    RUNS.pop(run.name, None)


def find(name: str, token: str | None) -> Run:
    run = ACTIVE.get(name)
    if run is None or token is None or run.token_hash != token_hash(token):
        raise ChallengeError(f"no remote evaluation {name!r} of yours is running here")
    return run


def stale(session: Session) -> int:
    """Remote rows left running by a server that stopped: failed, with the reason. Their count."""
    done = session.execute(
        update(Submission)
        .where(Submission.status == "running", Submission.worker.startswith(PREFIX), Submission.lease_until.is_(None))
        .values(status="failed", reason="the server stopped during this remote evaluation")
    )
    return done.rowcount


def play_remote(server: str, token: str, challenge: str, phase: str, make_agent: Callable[[], object], method: str,
                batch: int = 64, retries: int = 10, wait: float = 20.0,
                progress: Callable[[int, int], None] = lambda finished, episodes: None) -> int:  # fmt: skip
    """The client's side: starts a remote evaluation of `batch` episodes at once and plays them, each slot with
    its own agent from `make_agent()` (the protocol's reset/act; a slot's episodes come one after another, as
    a local evaluation gives one agent its episodes), until the server says it is done. A dropped connection
    is retried (at most `retries` times in a row, waiting a little longer each time) and resumes where it
    was: a step answered already is answered again with the same action, never asked of the agent twice.
    Returns the submission's id."""
    import time

    import httpx

    headers = {"Authorization": f"Bearer {token}"}
    base = server.rstrip("/")
    agents: dict[int, object] = {}
    answered: dict[int, dict] = {}  # slot -> its last answer
    # without Nagle's algorithm: a request's body would wait for the server's (delayed) acknowledgement of its head
    transport = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    with httpx.Client(timeout=wait + 30, headers=headers, transport=transport) as client:

        def call(method_: str, path: str, **kwargs) -> dict:
            for attempt in range(retries + 1):
                try:
                    answer = client.request(method_, base + path, **kwargs)
                except httpx.TransportError:
                    if attempt == retries:
                        raise
                    time.sleep(min(0.2 * 2**attempt, 10))
                    continue
                if answer.status_code >= 400:
                    raise ChallengeError(f"{path}: {answer.json().get('error', answer.text)}")
                return answer.json()
            raise AssertionError("unreachable")

        def reply(slot: int, step: int, task: dict | None, observation: dict) -> dict:
            if answered.get(slot, {}).get("step") == step:
                return answered[slot]
            if slot not in agents:
                agents[slot] = make_agent()
            agent = agents[slot]
            if task is not None:
                agent.reset(
                    TaskSpec(
                        task["episode_id"], task["goal"], tuple(task["instructions"]), annotation=task["annotation"]
                    )
                )
            acted = agent.act(observation)
            action, target = (acted.action, acted.target) if isinstance(acted, AgentAction) else (acted, None)
            answered[slot] = {"slot": slot, "step": step, "action": action, "target": encode(target)}
            return answered[slot]

        started = call("POST", f"/api/challenges/{challenge}/{phase}/remote", json={"method": method, "batch": batch})
        run = started["run"]
        item = {"waiting": True}
        while True:
            if item.get("waiting"):
                item = call("GET", f"/api/remote/{run}/next", params={"wait": wait})
            elif item.get("done"):
                return item["submission"]
            else:  # the answers to a batch bring the next one
                progress(item["finished"], item["episodes"])
                steps = zip(item["slots"], item["steps"], item["tasks"], decode_batch(item["observations"]))
                answers = [reply(*step) for step in steps]
                item = call("POST", f"/api/remote/{run}/act", json={"answers": answers, "wait": wait})
