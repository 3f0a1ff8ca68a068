"""Remote evaluation: a team's agent runs on the team's machine and plays an env it cannot see. The server runs
the suite's own evaluation in a thread with a `RemoteAgent` (`agents.remote`) as the agent, and hands out
only what that evaluation shows an agent: observations (pixels, GPS+Compass, text, admissible commands) and
the task as an agent is told it (no expert actions); never the scene, the goal's objects or the reward. The
result is stored like a scored submission's.

The exchange is resumable: an observation stays pending until its action comes, so a client that lost a
connection asks again and gets the same step; an episode finished is in the run's records whatever happens
to the connection. A client silent for longer than the run's patience ends the run: its remaining episodes
end at once and count as failures, and the submission says so.
"""

from __future__ import annotations

import base64
import queue
import secrets
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from homesim.agents.protocol import AgentAction
from homesim.agents.remote import PREFIX, RUNS, Exchange
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.suites import suite_named
from homesim.server.challenges import ChallengeError, challenge_episodes, token_hash
from homesim.server.models import Phase, Submission, Team
from homesim.server.submissions import Scored, finish, submit

PATIENCE = 300.0  # seconds a run waits for an action before its agent counts as gone


def encode(value: object) -> object:
    """An observation as JSON: arrays as {"dtype", "shape", "base64"}."""
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "base64": base64.b64encode(value.tobytes()).decode()}
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode(value: object) -> object:
    if isinstance(value, dict) and set(value) == {"dtype", "shape", "base64"}:
        return np.frombuffer(base64.b64decode(value["base64"]), dtype=value["dtype"]).reshape(value["shape"])
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


@dataclass
class Run:
    name: str
    submission_id: int
    token_hash: str  # the team's: a step's request is checked against it without the database
    exchange: Exchange
    pending: tuple | None = None  # (step, task, observation) handed out and not yet answered
    done: bool = False


ACTIVE: dict[str, Run] = {}


def start(sessions: sessionmaker[Session], phase: Phase, team: Team, method: str, paper_url: str = "",
          patience: float = PATIENCE) -> Run:  # fmt: skip
    """A remote evaluation of the phase's episodes for the team (within the phase's limits), started."""
    name = secrets.token_urlsafe(12)
    with sessions.begin() as session:
        submission = submit(session, session.merge(phase), session.merge(team), None, method, paper_url, remote=PREFIX + name)
        submission_id = submission.id
    suite = suite_named(phase.challenge.suite)
    run = Run(name, submission_id, team.token_hash, Exchange(patience, suite.stop_action))
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
            summary = evaluate(splits, scenes, config, Path(folder))
        summary["config"]["agent"] = "remote"
        gone = run.exchange.gone
        scored = Scored(summary, f"the agent went silent: {gone}; its episodes left count as failures" if gone else "")
    except Exception as e:  # noqa: BLE001  (whatever stopped the run is the submission's reason)
        scored = Scored(None, f"the remote evaluation stopped: {type(e).__name__}: {e}")
    with sessions.begin() as session:
        finish(session, run.submission_id, PREFIX + run.name, scored)
    run.done = True
    run.exchange.outbox.put(None)  # wakes a client waiting for the next observation
    RUNS.pop(run.name, None)


def find(name: str, token: str | None) -> Run:
    run = ACTIVE.get(name)
    if run is None or token is None or run.token_hash != token_hash(token):
        raise ChallengeError(f"no remote evaluation {name!r} of yours is running here")
    return run


def next_step(run: Run, wait: float) -> dict:
    """The observation waiting for the agent's action (the same again until it is answered), or that the run
    is done, or (after `wait` seconds) that it is still coming."""
    if run.pending is None and not run.done:
        try:
            item = run.exchange.outbox.get(timeout=wait)
        except queue.Empty:
            return {"waiting": True}
        if item is not None:
            run.pending = item
    if run.pending is None:
        return {"done": True, "submission": run.submission_id}
    step, task, observation = run.pending
    told = None if task is None else {"episode_id": task.episode_id, "goal": task.goal,
                                      "instructions": list(task.instructions), "annotation": task.annotation}  # fmt: skip
    return {"step": step, "task": told, "observation": encode(observation)}


def answer(run: Run, step: int, action: str | None, target: object) -> None:
    if run.pending is None or run.pending[0] != step:
        raise ChallengeError(f"step {step} is not waiting for an action (answered already, or not reached)")
    run.pending = None
    run.exchange.inbox.put(AgentAction(action, decode(target)))


def stale(session: Session) -> int:
    """Remote rows left running by a server that stopped: failed, with the reason. Their count."""
    done = session.execute(
        update(Submission)
        .where(Submission.status == "running", Submission.worker.startswith(PREFIX), Submission.lease_until.is_(None))
        .values(status="failed", reason="the server stopped during this remote evaluation")
    )
    return done.rowcount


def play_remote(server: str, token: str, challenge: str, phase: str, agent: object, method: str,
                retries: int = 10, wait: float = 20.0, progress=lambda step: None) -> int:  # fmt: skip
    """The client's side: starts a remote evaluation and plays `agent` (the protocol's reset/act) in it until
    the server says it is done; a dropped connection is retried (at most `retries` times in a row, waiting a
    little longer each time) and resumes where it was. Returns the submission's id."""
    import time

    import httpx

    from homesim.agents.protocol import TaskSpec

    headers = {"Authorization": f"Bearer {token}"}
    base = server.rstrip("/")
    with httpx.Client(timeout=wait + 30, headers=headers) as client:

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

        started = call("POST", f"/api/challenges/{challenge}/{phase}/remote", json={"method": method})
        item = {"waiting": True}
        while True:
            if item.get("waiting"):
                item = call("GET", f"/api/remote/{started['run']}/next", params={"wait": wait})
                continue
            if item.get("done"):
                return item["submission"]
            if item["task"] is not None:
                task = item["task"]
                agent.reset(TaskSpec(task["episode_id"], task["goal"], tuple(task["instructions"]), annotation=task["annotation"]))
            reply = agent.act(decode(item["observation"]))
            action, target = (reply.action, reply.target) if isinstance(reply, AgentAction) else (reply, None)
            body = {"step": item["step"], "action": action, "target": encode(target), "wait": wait}
            progress(item["step"])
            try:  # the answer to a step brings the next one
                item = call("POST", f"/api/remote/{started['run']}/act", json=body)
            except ChallengeError as e:
                if "answered already" not in str(e):  # a retried answer that had arrived: ask for the next step
                    raise
                item = {"waiting": True}
