"""The challenge server as people and machines meet it: a team signs in and submits in a real browser
(Debian's Chromium through Playwright) and sees its row on the leaderboard with the figure `homesim evaluate`
gives; a script in a method's name shows as text; a scoring worker killed mid-scoring and a server killed
mid-upload lose nothing and score nothing twice. Servers bind 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select

from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import action_file_of, read_records
from homesim.evaluation.suites import SUITES
from homesim.server.challenges import add_team, create_challenge
from homesim.server.db import connect, migrate, sessions
from homesim.server.models import Submission, Team
from homesim.server.submissions import Scored, claim, finish, submit
from server_support import nav_challenge

pytest_plugins = ["server_support"]
SHOTS = os.environ.get("HOMESIM_SCREENSHOTS")  # a folder: the pages' screenshots are saved there


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _homesim(*args: str, log: Path | None = None) -> subprocess.Popen:
    """`homesim ARGS` in its own process, its output in `log` (a pipe nobody reads could fill and stop it)."""
    out = open(log, "w") if log is not None else subprocess.DEVNULL  # noqa: SIM115  (the process keeps it)
    return subprocess.Popen([sys.executable, "-m", "homesim", *args], stdout=out, stderr=subprocess.STDOUT)


def _until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what} after {seconds} s")


def _serving(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _actions(name: str, agent: str, splits, scenes, out: Path) -> tuple[dict, Path]:
    summary = evaluate(splits, scenes, EvaluationConfig(agent=agent, suite=name), out / agent)
    path = out / f"{agent}.json"
    records = read_records(out / agent / "records.jsonl")
    path.write_text(action_file_of(records, name, SUITES[name].stop_action).to_json())
    return summary, path


@pytest.fixture
def server(tmp_path):
    url = f"sqlite:///{tmp_path / 'served.db'}"
    engine = connect(url)
    migrate(engine)
    with sessions(engine).begin() as session:
        token = add_team(session, "browser team")
    port = _port()
    process = _homesim("serve", "--db", url, "--port", str(port), "--demo")
    try:
        _until(lambda: _serving(port), 120, "the server")
        yield f"http://127.0.0.1:{port}", token, url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def test_a_team_submits_in_the_browser_and_sees_its_row(server, browser, tmp_path):
    address, token, _ = server
    episodes, scenes = builtin_objectnav()
    local, actions = _actions("objectnav", "expert", {"test": episodes}, scenes, tmp_path)
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.goto(f"{address}/login")
    page.fill("input[name=token]", token)
    page.click("main form button")
    page.goto(f"{address}/c/objectnav-demo/test")
    page.set_input_files("input[name=file]", str(actions))
    page.fill("input[name=method]", "<script>window.pwned = 1</script>my agent")
    page.click("form[enctype] button")
    page.wait_for_url("**/s/*")

    def finished() -> bool:
        page.reload()
        return page.inner_text("#status") == "finished"

    _until(finished, 120, "the submission to be scored")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "submission.png"), full_page=True)
    page.goto(f"{address}/c/objectnav-demo/test")
    row = page.locator("tr", has_text="my agent")
    assert row.count() == 1 and "<script>window.pwned = 1</script>my agent" in row.inner_text()
    assert page.evaluate("window.pwned") is None
    spl = local["splits"]["test"]["all"]["spl"]["value"]
    assert f"{spl:.3f}" in row.locator("td.num").first.inner_text()
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "leaderboard.png"), full_page=True)
    page.close()


def _turning_challenge(tmp_path: Path):
    """An ALFRED challenge with one queued submission that turns in place (never fails, so each of its 24
    episodes runs to the 1000-step cap), its database's sessions and the summary `homesim evaluate` gives it."""
    url = f"sqlite:///{tmp_path / 'crash.db'}"
    engine = connect(url)
    migrate(engine)
    made = sessions(engine)
    episodes, scenes = builtin_episodes(count=24)
    splits = {"test": episodes}
    turning = {"format": "homesim-actions", "version": 1, "suite": "alfred",
               "episodes": [{"episode_id": e.id, "actions": [["RotateLeft_90", None]] * 1000} for e in episodes]}  # fmt: skip
    actions = tmp_path / "turning.json"
    actions.write_text(json.dumps(turning))
    local = evaluate(splits, scenes, EvaluationConfig(agent=str(actions), suite="alfred"), tmp_path / "local")
    with made.begin() as session:
        challenge = create_challenge(session, "crash", "crash", SUITES["alfred"], splits, scenes)
        add_team(session, "t")
        session.flush()
        submit(session, challenge.phases[0], session.scalar(select(Team)), turning, "random")
    return url, made, local


def _status(made) -> tuple:
    with made() as session:
        row = session.scalar(select(Submission))
        return row.status, row.attempts


def _score_with_a_worker(url: str, made, log: Path) -> None:
    worker = _homesim("challenge", "worker", "--db", url, "--poll", "0.1", "--lease", "600", log=log)
    try:
        _until(lambda: _status(made)[0] == "finished", 120, "a worker to score it")
    except AssertionError as e:  # what the worker said, for a failure seen once and not since
        raise AssertionError(f"{e}; status {_status(made)}; the worker said: {log.read_text()}") from None
    finally:
        worker.send_signal(signal.SIGINT)
        worker.wait(timeout=20)


def test_a_lease_left_by_a_dead_worker_runs_out_and_another_scores_it_once(tmp_path):
    url, made, local = _turning_challenge(tmp_path)
    # what a worker killed after its claim leaves behind: the row running under its lease, no result
    with made.begin() as session:
        dead = claim(session, "a worker that died", timedelta(seconds=1))
    assert _status(made) == ("running", 1)
    _score_with_a_worker(url, made, tmp_path / "second.log")
    with made.begin() as session:
        # the dead worker, were it to come back, can no longer store a result over the new one
        assert not finish(session, dead, "a worker that died", Scored(None, "late"))
    with made() as session:
        row = session.scalar(select(Submission))
        assert (row.status, row.attempts) == ("finished", 2) and row.summary["splits"] == local["splits"]
        assert session.scalar(select(func.count()).select_from(Submission)) == 1


def test_a_worker_killed_as_it_scores_loses_nothing_and_scores_once(tmp_path):
    url, made, local = _turning_challenge(tmp_path)
    first = _homesim("challenge", "worker", "--db", url, "--poll", "0.1", "--lease", "2", log=tmp_path / "first.log")
    # the kill lands as soon as the claim shows; on a fast machine the scoring may be over by then
    try:
        _until(lambda: _status(made)[0] != "queued", 180, "the first worker to claim it")
    except AssertionError as e:
        raise AssertionError(f"{e}; the worker said: {(tmp_path / 'first.log').read_text()}") from None
    first.kill()
    first.wait(timeout=10)
    left = _status(made)  # what the killed worker left: finished (it was quicker) or running under its lease
    _score_with_a_worker(url, made, tmp_path / "second.log")
    with made() as session:
        row = session.scalar(select(Submission))
        assert row.status == "finished" and row.summary["splits"] == local["splits"]
        assert left[0] in ("running", "finished") and row.attempts == (1 if left[0] == "finished" else 2)
        assert session.scalar(select(func.count()).select_from(Submission)) == 1


def test_a_server_killed_mid_upload_keeps_nothing_half_made(tmp_path):
    url = f"sqlite:///{tmp_path / 'upload.db'}"
    engine = connect(url)
    migrate(engine)
    made = sessions(engine)
    episodes, scenes = builtin_episodes(count=2)
    with made.begin() as session:
        create_challenge(session, "up", "up", SUITES["alfred"], {"test": episodes}, scenes)
        token = add_team(session, "t")
    _, actions = _actions("alfred", "expert", {"test": episodes}, scenes, tmp_path)
    body = json.dumps({"method": "m", "actions": json.loads(actions.read_text())}).encode()
    port = _port()
    process = _homesim("serve", "--db", url, "--port", str(port), "--scorers", "0")
    _until(lambda: _serving(port), 120, "the server")
    head = (
        f"POST /api/challenges/up/test/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(head + body[: len(body) // 2])
        time.sleep(0.5)
        process.kill()
        process.wait(timeout=10)
    with made() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 0
    process = _homesim("serve", "--db", url, "--port", str(port), "--scorers", "0")
    try:
        _until(lambda: _serving(port), 120, "the server, again")
        import httpx

        answer = httpx.post(f"http://127.0.0.1:{port}/api/challenges/up/test/submissions", content=body,
                            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"}, timeout=60)  # fmt: skip
        assert answer.status_code == 201, answer.text
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    with made() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 1


class DroppingRelay:
    """A TCP relay to the server on 127.0.0.1 that drops the client's connection right after relaying the
    remote exchanges numbered in `drop` (so the server took the request and the client never gets its answer)."""

    def __init__(self, port: int, drop: set[int]) -> None:
        self.port, self.drop, self.exchanges, self.dropped = port, drop, 0, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.port))
        threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()
        while chunk := client.recv(1 << 16):
            upstream.sendall(chunk)
            if b"POST /api/remote/" in chunk:
                self.exchanges += 1
                if self.exchanges in self.drop:
                    time.sleep(0.3)  # the server answers; the answer is lost with the connection
                    self.dropped += 1
                    break
        for end in (client, upstream):
            end.close()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(1 << 16):
                sink.sendall(chunk)
        except OSError:  # the other end was closed
            pass

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def remote_server(tmp_path):
    url = f"sqlite:///{tmp_path / 'remote.db'}"
    made, splits, scenes, token = nav_challenge(url, 4)
    port = _port()
    process = _homesim("serve", "--db", url, "--port", str(port), "--scorers", "0", "--patience", "3")
    try:
        _until(lambda: _serving(port), 120, "the server")
        yield f"http://127.0.0.1:{port}", token, made, splits, scenes
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_remote_evaluation_scores_as_evaluate_and_survives_a_dropped_connection(remote_server, tmp_path, batch):
    import httpx

    from homesim.evaluation.suites import load_agent
    from homesim.server.remote import decode_batch, play_remote

    address, token, made, splits, scenes = remote_server
    local = evaluate(splits, scenes, EvaluationConfig(agent="random", suite="objectnav"), tmp_path / "local")
    headers = {"Authorization": f"Bearer {token}"}
    # a client that takes a batch of steps, drops, and comes back: it is given the same steps again
    body = {"method": "dropped", "batch": batch}
    started = httpx.post(f"{address}/api/challenges/nav/test/remote", json=body, headers=headers).json()
    run = f"{address}/api/remote/{started['run']}"
    first = httpx.get(f"{run}/next", headers=headers, timeout=60).json()
    again = httpx.get(f"{run}/next", headers=headers, timeout=60).json()
    live = min(batch, 4)  # episodes at once, in two halves handed out in turn (the first half empty for one)
    half = live // 2 or live
    assert first == again and first["slots"] == list(range(half)) and first["steps"] == list(range(1, half + 1))
    for observation, task in zip(decode_batch(first["observations"]), first["tasks"], strict=True):
        # what an ObjectNav agent sees, and nothing of the goals
        assert set(observation) == {"objectgoal", "gps", "compass", "last_action_success", "last_action_message"}
        assert observation["gps"].dtype == np.float32 and observation["gps"].shape == (2,)
        assert set(task) == {"episode_id", "goal", "instructions", "annotation"}  # no expert actions
    answers = {"slots": first["slots"], "steps": first["steps"], "actions": ["TURN_LEFT"] * len(first["slots"])}
    following = httpx.post(f"{run}/act", json={"answers": answers}, headers=headers, timeout=60).json()
    # the other half's steps come back (while the hub plays this half's actions); for one episode, its next step
    assert following["slots"] == (list(range(half, live)) if live > 1 else [0])
    assert following["steps"] == list(range(half + 1, half + 1 + len(following["slots"])))
    # the same answers again (a retried request whose first try had arrived) are left, and the next steps come
    assert httpx.post(f"{run}/act", json={"answers": answers}, headers=headers, timeout=60).json() == following
    for wrong, said in ((["x"] * half, "answers.slots[0]: expected a whole number"),  # a malformed answer: refused
                        ([True] * half, "answers.steps[0]: expected a whole number"),
                        ([1] * (half + 1), "answers.steps: expected a list (one per slot)")):  # fmt: skip
        column = "slots" if "slots" in said else "steps"
        bad = httpx.post(f"{run}/act", json={"answers": {**answers, column: wrong}}, headers=headers, timeout=60)
        assert bad.status_code == 400 and said in bad.json()["error"]
    garbage = {**answers, "targets": [[0, {"dtype": "nope", "shape": [1], "base64": ""}]]}
    bad = httpx.post(f"{run}/act", json={"answers": garbage}, headers=headers, timeout=60)
    assert bad.status_code == 400 and "answers.targets[0]: not an array" in bad.json()["error"]
    # a whole run with the random agent gives the figures `homesim evaluate` gives, through connections dropped
    # twice: each time the client asks again and goes on where it was
    relay = DroppingRelay(int(address.rsplit(":", 1)[1]), drop={3, 8})
    try:
        submission = play_remote(relay.address, token, "nav", "test", lambda: load_agent("random", 0, "objectnav"),
                                 "random remote", batch=batch)  # fmt: skip
    finally:
        relay.close()
    assert relay.dropped == 2
    with made() as session:
        row = session.get(Submission, submission)
        assert row.status == "finished" and row.reason == ""
        assert row.summary["splits"] == local["splits"]


def test_a_silent_remote_agent_ends_its_run_with_the_reason(remote_server):
    import httpx

    address, token, made, _, _ = remote_server
    headers = {"Authorization": f"Bearer {token}"}
    body = {"method": "silent", "batch": 2}
    started = httpx.post(f"{address}/api/challenges/nav/test/remote", json=body, headers=headers).json()
    steps = httpx.get(f"{address}/api/remote/{started['run']}/next", headers=headers, timeout=60).json()["steps"]
    assert steps == [1]  # the first half's

    def ended():
        with made() as session:
            row = session.get(Submission, started["submission"])
            return row if row.status == "finished" else None

    row = _until(ended, 60, "the silent run to end")
    assert "the agent went silent: no action came within 3 s (step 1)" in row.reason
    assert row.summary["splits"]["test"]["all"]["success"]["value"] == 0.0
