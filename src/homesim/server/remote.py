"""Remote evaluation: a team's agent runs on the team's machine and plays an env it cannot see. The server runs
the suite's own evaluation with a `RemoteAgent` (`agents.remote`) as the agent, and hands out only what that
evaluation shows an agent: observations (pixels, GPS+Compass, text, admissible commands) and the task as an
agent is told it (no expert actions); never the scene, the goal's objects or the reward. The result is stored
like a scored submission's.

A run plays a batch of episodes at once (the client says how many), each in a greenlet under one hub, a
greenlet on the server's event loop: requests and the hub take turns on one thread, with no hand-over between
threads. The batch is in two halves handed out in turn, so that the hub plays one half's actions while the
agent answers the other's: an exchange carries one half's actions in and the other half's observations out
(in columns: `encode_batch`). The records are those one episode after another gives (the evaluation sorts
them), so the figures are too.

The exchange is resumable: a step stays pending until its action comes, so a client that lost a connection
asks again and gets the same steps (and an answer sent twice is taken once); an episode finished is in the
run's records whatever happens to the connection. A client silent for longer than the run's patience ends
the run: its remaining episodes end at once and count as failures, and the submission says so.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import tempfile
import threading
import time
from binascii import a2b_base64, b2a_base64
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import greenlet
import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.agents.remote import PREFIX, RUNS, Ask, Exchange
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.suites import suite_named
from homesim.parallel import collector_paused
from homesim.server.challenges import ChallengeError, challenge_episodes, phase_open, token_hash
from homesim.server.link import Link
from homesim.server.models import Challenge, Phase, Submission, Team, now
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
    if type(first) is np.ndarray:  # one array of them all if they share a dtype (numpy's own, one object) and shape
        dtype, shape = first.dtype, first.shape
        if all(type(v) is np.ndarray and v.dtype is dtype and v.shape == shape for v in values):
            joined = b2a_base64(b"".join([v.tobytes() for v in values]), newline=False).decode()
            return {"stacked": {"dtype": dtype.str, "shape": [len(values), *shape], "base64": joined}}
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
            columns.append(list(stacked) if stacked.ndim > 1 else [stacked[i, ...] for i in range(len(stacked))])
        else:
            columns.append([decode(v) for v in column["values"]])
    if not columns:
        return [{} for _ in range(batch["count"])]
    return [dict(zip(batch["columns"], row)) for row in zip(*columns)]


MAX_BATCH = 1024  # episodes at once in one run: a batch's observations fit one response
ANSWERS = "{slots: [...], steps: [...], actions: [...], targets: [[place, target], ...]}"
COLUMNS = (("slots", (int,), "a whole number"), ("steps", (int,), "a whole number"),
           ("actions", (str, type(None)), "a name or command"))  # fmt: skip
AS_GIVEN = object()  # an agent's reply that was not an AgentAction: sent as it is, with no target
HALVES = 2  # a run's episodes in this many groups, handed out in turn: one is played while the other is answered
SLICE = 0.02  # seconds the hub plays before it lets the event loop serve other requests


class Handout:
    """One group's steps, handed out at once: the i-th is step `first + i`, of the episode in `slots[i]`, asking
    `asks[i]`; and the actions come for them so far (by slot: an action's name, or an `AgentAction`)."""

    def __init__(self, slots: list[int], first: int, asks: list[Ask]) -> None:
        self.slots, self.first, self.asks = slots, first, asks
        self.place = {slot: i for i, slot in enumerate(slots)}
        self.answers: dict[int, object] = {}
        self.sent = json.dumps(self.steps_of(range(len(slots))))  # encoded once, sent as often as asked

    def steps_of(self, places: Sequence[int]) -> dict:
        """The steps at `places` as they are sent: a list per field, the observations in columns."""
        return {
            "slots": [self.slots[i] for i in places],
            "steps": [self.first + i for i in places],
            "tasks": [_told(self.asks[i].task) for i in places],
            "observations": encode_batch([self.asks[i].observation for i in places]),
        }

    def unanswered(self) -> list[int]:
        """The places of the steps still waiting for actions."""
        if len(self.answers) == len(self.slots):
            return []
        return [i for i, slot in enumerate(self.slots) if slot not in self.answers]


@dataclass
class Run:
    """A remote evaluation: its hub (a greenlet on the server's event loop running the suite's evaluation) and
    the steps it has handed out. Everything runs on the event loop's thread, so requests and the hub never
    wait for each other's thread: an answer that completes the steps the hub waits for resumes it right after
    the request is answered."""

    name: str
    submission_id: int
    token_hash: str  # the team's: a step's request is checked against it without the database
    exchange: Exchange
    batch: int  # episodes played at once
    patience: float
    sessions: sessionmaker[Session]
    work: tuple | None = None  # (splits, scenes, config) to evaluate, once loaded
    episodes: int = 0
    finished: int = 0
    steps: int = 0
    handouts: deque[Handout] = field(default_factory=deque)  # oldest first, until the hub takes their actions
    done: bool = False
    hub: greenlet.greenlet | None = None
    loop: asyncio.AbstractEventLoop | None = None
    parked: object = None  # what the hub waits for: a handout's actions, or its turn (a `_pause`'s token)
    resumed: float = 0.0  # when the hub last got the loop (time.perf_counter)
    waiters: list[asyncio.Future] = field(default_factory=list)  # requests waiting for steps

    # --- the hub's side --------------------------------------------------------------------------------

    def launch(self) -> None:
        """Starts the hub (on the running event loop), unless the run could not begin."""
        if self.done:
            return
        self.loop = asyncio.get_running_loop()
        self.hub = greenlet.greenlet(self._evaluate)
        self.parked = object()
        self.loop.call_soon(self._resume, self.parked)

    def _evaluate(self) -> Scored:
        try:
            splits, scenes, config = self.work
            with tempfile.TemporaryDirectory(prefix="homesim-remote-") as folder:
                summary = evaluate(splits, scenes, config, Path(folder), together=self.play)
            summary["config"]["agent"] = "remote"
            gone = self.exchange.gone
            said = f"the agent went silent: {gone}; its episodes left count as failures" if gone else ""
            return Scored(summary, said)
        except Exception as e:  # noqa: BLE001  (whatever stopped the run is the submission's reason)
            return Scored(None, f"the remote evaluation stopped: {type(e).__name__}: {e}")

    def _resume(self, parked: object) -> None:
        """Runs the hub until it waits again or ends (then the submission is stored off the loop), if it still
        waits for `parked` (a patience timer comes after the actions did)."""
        if self.hub is None or self.hub.dead or self.parked is not parked:
            return
        self.parked, self.resumed = None, time.perf_counter()
        with collector_paused():  # a turn's young objects live on (the batch's steps): collecting them is wasted
            scored = self.hub.switch()
        if self.hub.dead:
            self.loop.run_in_executor(None, self._store, scored)

    def _pause(self) -> None:
        """Gives the event loop a turn (from the hub) when the hub has held it for SLICE seconds: a batch's
        first resets, which build the scene's distance tables, take seconds."""
        if time.perf_counter() - self.resumed > SLICE:
            self.parked = object()
            self.loop.call_soon(self._resume, self.parked)
            self.hub.parent.switch()

    def _store(self, scored: Scored) -> None:
        try:
            with self.sessions.begin() as session:
                finish(session, self.submission_id, PREFIX + self.name, scored)
        finally:
            self.loop.call_soon_threadsafe(self.end)

    def hand_out(self, asks: dict[int, Ask]) -> None:
        slots = sorted(asks)
        self.handouts.append(Handout(slots, self.steps + 1, [asks[slot] for slot in slots]))
        self.steps += len(slots)
        self._wake()

    def collect(self) -> dict[int, object]:
        """The actions (names, or `AgentAction`s) for the oldest handout: the hub waits (back on the event loop)
        until they have all come; an agent silent for longer than the patience counts as gone (the exchange says
        why) and its episodes get STOP."""
        handout = self.handouts[0]
        if handout.unanswered() and not self.exchange.gone:
            self.parked = handout
            timer = self.loop.call_later(self.patience, self._resume, handout)
            self.hub.parent.switch()
            timer.cancel()
            if handout.unanswered() and not self.exchange.gone:
                first = handout.first + handout.unanswered()[0]
                self.exchange.gone = f"no action came within {self.patience:.0f} s (step {first})"
        self.handouts.popleft()
        return {slot: handout.answers.get(slot, self.exchange.stop) for slot in handout.slots}

    def play(self, make_runner: Callable[[], object], items: Sequence) -> Iterator[EpisodeRecord]:
        """The evaluation's work items, `batch` at once, each episode a greenlet running the suite's runner
        (runners are reused as episodes end); yields each record as its episode ends. The slots are in
        HALVES groups handed out in turn: while the agent answers one, the hub plays the other's actions."""
        todo, free = deque(items), []
        live: dict[int, tuple[greenlet.greenlet, object]] = {}
        self.episodes = len(todo)

        def settle(slot: int, outcome: object, asks: dict[int, Ask]) -> list[EpisodeRecord]:
            """What an episode's greenlet gave back: an ask (kept in `asks`), or its record (then the slot's
            next episode starts)."""
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

        slots = range(min(self.batch, len(todo)))
        for group in range(HALVES):
            asks: dict[int, Ask] = {}
            for slot in slots[group * len(slots) // HALVES : (group + 1) * len(slots) // HALVES]:
                yield from settle(slot, begin(slot), asks)
                self._pause()
            if asks:
                self.hand_out(asks)
        while self.handouts:
            asks = {}
            for slot, action in self.collect().items():
                yield from settle(slot, live[slot][0].switch(action), asks)
                self._pause()
            if asks:
                self.hand_out(asks)

    # --- the client's side (requests, on the event loop) -----------------------------------------------

    def state(self) -> str | None:
        """As JSON: the oldest handout's steps still waiting for actions (the same again until answered), or
        that the run is done; None while the next steps are still coming."""
        for handout in self.handouts:
            if unanswered := handout.unanswered():
                whole = len(unanswered) == len(handout.slots)
                sent = handout.sent if whole else json.dumps(handout.steps_of(unanswered))
                return f'{{"episodes": {self.episodes}, "finished": {self.finished}, {sent[1:]}'
        return json.dumps({"done": True, "submission": self.submission_id}) if self.done else None

    async def next_steps(self, wait: float) -> str:
        """The state (JSON) once there are steps to answer or the run is done, or after `wait` seconds."""
        state = self.state()
        if state is not None:
            return state
        woken = asyncio.get_running_loop().create_future()
        self.waiters.append(woken)
        try:
            await asyncio.wait_for(woken, wait)
        except TimeoutError:
            pass
        return self.state() or '{"waiting": true}'

    def _wake(self) -> None:
        for woken in self.waiters:
            if not woken.done():
                woken.set_result(None)
        self.waiters = []

    def end(self) -> None:
        self.done = True
        self._wake()
        RUNS.pop(self.name, None)

    def answer(self, answers: object) -> None:
        """Takes the actions sent for steps still waiting (an answer to a step answered already, as a retried
        request sends, is left). `answers`: {slots, steps, actions: a list each, targets: [[place, target]]},
        the places of the actions the agent gave as `AgentAction(action, target)` (the others are given as the
        agent gave them: a name or a command). A malformed answer refuses the whole request, none of it taken.
        The hub goes on once the handout it waits for is answered, after this request's own answer is sent."""
        if not isinstance(answers, dict):
            raise ChallengeError(f"answers: expected {ANSWERS}")
        slots, steps, actions = (answers.get(k) for k in ("slots", "steps", "actions"))
        targets = answers.get("targets", [])
        for name, column in (("slots", slots), ("steps", steps), ("actions", actions), ("targets", targets)):
            if not isinstance(column, list) or name != "targets" and len(column) != len(slots):
                raise ChallengeError(f"answers.{name}: expected a list (one per slot), in {ANSWERS}")
        for name, kinds, said in COLUMNS:
            if not all(type(v) in kinds for v in answers[name]):
                place = next(i for i, v in enumerate(answers[name]) if type(v) not in kinds)
                raise ChallengeError(f"answers.{name}[{place}]: expected {said}")
        given = {}
        for j, pair in enumerate(targets):
            if not (type(pair) is list and len(pair) == 2 and type(pair[0]) is int and 0 <= pair[0] < len(slots)):
                raise ChallengeError(f"answers.targets[{j}]: expected [place in the lists, target]")
            try:
                given[pair[0]] = AgentAction(actions[pair[0]], decode(pair[1]))
            except (TypeError, ValueError) as e:  # an array's dtype, shape or bytes that do not agree
                raise ChallengeError(f"answers.targets[{j}]: not an array ({e})") from None
        waiting = {slot: handout for handout in self.handouts for slot in handout.slots}
        for i, (slot, step) in enumerate(zip(slots, steps)):
            handout = waiting.get(slot)
            if handout is not None and handout.first + handout.place[slot] == step and slot not in handout.answers:
                handout.answers[slot] = given.get(i, actions[i])
        if isinstance(self.parked, Handout) and not self.parked.unanswered():
            self.loop.call_soon(self._resume, self.parked)


def _told(task: TaskSpec | None) -> dict | None:
    if task is None:
        return None
    return {"episode_id": task.episode_id, "goal": task.goal, "instructions": list(task.instructions),
            "annotation": task.annotation}  # fmt: skip


ACTIVE: dict[str, Run] = {}
KEPT = 4  # splits whose episodes and scenes the server keeps loaded between runs
_kept: OrderedDict[tuple, tuple[dict, dict]] = OrderedDict()
_keeping = threading.Lock()
_loading: dict[tuple, threading.Lock] = {}  # a split being loaded: a second run of it waits, not loads it again


def kept_episodes(session: Session, challenge: Challenge, split: str) -> tuple[dict, dict]:
    """`challenge_episodes`, warmed (the suite's `warm`: the first run of an ObjectNav split would spend as long
    again building the scenes' distance tables as playing) and kept for the next runs on the split (the last
    KEPT splits), so that a run starts at once. Episodes never change once a challenge holds them; the key
    names the database and the challenge's creation too, so a challenge made anew is loaded anew."""
    key = (str(session.get_bind().url), challenge.id, challenge.created, challenge.dataset_digest, split)
    with _keeping:
        loading = _loading.setdefault(key, threading.Lock())
    with loading:
        with _keeping:
            if key in _kept:
                _kept.move_to_end(key)
                return _kept[key]
        loaded = challenge_episodes(session, challenge, split)
        suite_named(challenge.suite).warm(*loaded)
        with _keeping:
            _kept[key] = loaded
            _loading.pop(key, None)
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return loaded


def preload(sessions: sessionmaker[Session]) -> list[str]:
    """Loads and warms the splits of the phases open now (the last KEPT of them, by id), as a server does when it
    starts, so that no team's run pays for it. Their names, `challenge/phase`."""
    with sessions() as session:
        at = now()
        phases = [p for p in session.scalars(select(Phase).order_by(Phase.id)) if phase_open(p, at)][-KEPT:]
        for phase in phases:
            kept_episodes(session, phase.challenge, phase.split)
        return [f"{p.challenge.slug}/{p.slug}" for p in phases]


def start(sessions: sessionmaker[Session], phase: Phase, team: Team, method: str, paper_url: str = "",
          patience: float = PATIENCE, batch: int = 1) -> Run:  # fmt: skip
    """A remote evaluation of the phase's episodes for the team (within the phase's limits), with its episodes
    loaded; it plays `batch` episodes at once once `Run.launch` starts it on the event loop. Called off the
    loop: loading a split's episodes takes a while."""
    if not 1 <= batch <= MAX_BATCH:
        raise ChallengeError(f"batch {batch}: 1 to {MAX_BATCH} episodes at once")
    name = secrets.token_urlsafe(12)
    with sessions.begin() as session:
        submission = submit(
            session, session.merge(phase), session.merge(team), None, method, paper_url, remote=PREFIX + name
        )
        submission_id = submission.id
    suite = suite_named(phase.challenge.suite)
    run = Run(name, submission_id, team.token_hash, Exchange(suite.stop_action), batch, patience, sessions)
    try:
        with sessions() as session:
            phase = session.get(Phase, phase.id)
            splits, scenes = kept_episodes(session, phase.challenge, phase.split)
            config = EvaluationConfig(agent=PREFIX + run.name, suite=phase.challenge.suite, options=dict(phase.options))
        run.work = (splits, scenes, config)
        RUNS[name] = run.exchange
    except Exception as e:  # noqa: BLE001  (the submission says what stopped it)
        with sessions.begin() as session:
            finish(session, submission_id, PREFIX + name, Scored(None, f"the remote evaluation stopped: {e}"))
        run.done = True
    ACTIVE[name] = run
    return run


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
    agents: dict[int, object] = {}
    answered: dict[int, tuple] = {}  # slot -> its last answer: (step, action, target encoded, or AS_GIVEN)

    def reply(slot: int, step: int, task: dict | None, observation: dict) -> tuple:
        last = answered.get(slot)
        if last is not None and last[0] == step:
            return last
        if slot not in agents:
            agents[slot] = make_agent()
        agent = agents[slot]
        if task is not None:
            agent.reset(
                TaskSpec(task["episode_id"], task["goal"], tuple(task["instructions"]), annotation=task["annotation"])
            )
        acted = agent.act(observation)
        plain = not isinstance(acted, AgentAction)
        answered[slot] = (step, acted, AS_GIVEN) if plain else (step, acted.action, encode(acted.target))
        return answered[slot]

    link = Link(server, token, wait + 30, retries)
    try:
        started = link.call("POST", f"/api/challenges/{challenge}/{phase}/remote", {"method": method, "batch": batch})
        run = started["run"]
        item = {"waiting": True}
        while True:
            if item.get("waiting"):
                item = link.call("GET", f"/api/remote/{run}/next", wait=wait)
            elif item.get("done"):
                return item["submission"]
            else:  # the answers to a batch bring the next one
                progress(item["finished"], item["episodes"])
                steps = zip(item["slots"], item["steps"], item["tasks"], decode_batch(item["observations"]))
                replies = [reply(*step) for step in steps]
                answers = {"slots": item["slots"], "steps": item["steps"], "actions": [r[1] for r in replies],
                           "targets": [[i, r[2]] for i, r in enumerate(replies) if r[2] is not AS_GIVEN]}  # fmt: skip
                item = link.call("POST", f"/api/remote/{run}/act", {"answers": answers, "wait": wait})
    finally:
        link.close()
