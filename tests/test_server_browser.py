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
import time
from pathlib import Path

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
from homesim.server.submissions import submit

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


def test_a_worker_killed_mid_scoring_is_replaced_and_scores_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'crash.db'}"
    engine = connect(url)
    migrate(engine)
    made = sessions(engine)
    episodes, scenes = builtin_episodes(count=24)
    splits = {"test": episodes}
    # turning in place never fails, so each episode runs to ALFRED's 1000 steps: 24,000 steps, seconds to score
    turning = {"format": "homesim-actions", "version": 1, "suite": "alfred",
               "episodes": [{"episode_id": e.id, "actions": [["RotateLeft_90", None]] * 1000} for e in episodes]}  # fmt: skip
    actions = tmp_path / "turning.json"
    actions.write_text(json.dumps(turning))
    local = evaluate(splits, scenes, EvaluationConfig(agent=str(actions), suite="alfred"), tmp_path / "local")
    with made.begin() as session:
        challenge = create_challenge(session, "crash", "crash", SUITES["alfred"], splits, scenes)
        add_team(session, "t")
        session.flush()
        team = session.scalar(select(Team))
        submit(session, challenge.phases[0], team, json.loads(actions.read_text()), "random")
    first = _homesim("challenge", "worker", "--db", url, "--poll", "0.1", "--lease", "2", log=tmp_path / "first.log")

    def status() -> tuple:
        with made() as session:
            row = session.scalar(select(Submission))
            return row.status, row.attempts

    try:
        _until(lambda: status() == ("running", 1), 180, "the first worker to claim it")
    except AssertionError as e:
        raise AssertionError(f"{e}; status {status()}; the worker said: {(tmp_path / 'first.log').read_text()}") from None
    first.kill()
    first.wait(timeout=10)
    assert status() == ("running", 1)
    second = _homesim("challenge", "worker", "--db", url, "--poll", "0.1", "--lease", "600", log=tmp_path / "second.log")
    try:
        _until(lambda: status()[0] == "finished", 120, "the second worker to score it")
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(timeout=20)
    with made() as session:
        row = session.scalar(select(Submission))
        assert row.attempts == 2 and row.summary["splits"] == local["splits"]
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


@pytest.fixture
def remote_server(tmp_path):
    url = f"sqlite:///{tmp_path / 'remote.db'}"
    engine = connect(url)
    migrate(engine)
    made = sessions(engine)
    episodes, scenes = builtin_objectnav()
    splits = {"test": episodes[:4]}
    with made.begin() as session:
        create_challenge(session, "nav", "nav", SUITES["objectnav"], splits, scenes)
        token = add_team(session, "remote team")
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


def test_remote_evaluation_scores_as_evaluate_and_survives_a_dropped_connection(remote_server, tmp_path):
    import httpx

    from homesim.evaluation.suites import load_agent
    from homesim.server.remote import play_remote

    address, token, made, splits, scenes = remote_server
    local = evaluate(splits, scenes, EvaluationConfig(agent="random", suite="objectnav"), tmp_path / "local")
    headers = {"Authorization": f"Bearer {token}"}
    # a client that takes a step, drops, and comes back: it is given the same step again
    started = httpx.post(f"{address}/api/challenges/nav/test/remote", json={"method": "dropped"}, headers=headers).json()
    first = httpx.get(f"{address}/api/remote/{started['run']}/next", headers=headers, timeout=60).json()
    again = httpx.get(f"{address}/api/remote/{started['run']}/next", headers=headers, timeout=60).json()
    seen = set(first["observation"])  # what an ObjectNav agent sees, and nothing of the goals
    assert first == again and first["step"] == 1
    assert seen == {"objectgoal", "gps", "compass", "last_action_success", "last_action_message"}
    assert set(first["task"]) == {"episode_id", "goal", "instructions", "annotation"}  # no expert actions
    twice = {"step": 1, "action": "TURN_LEFT", "target": None}
    assert httpx.post(f"{address}/api/remote/{started['run']}/act", json=twice, headers=headers).status_code == 200
    refused = httpx.post(f"{address}/api/remote/{started['run']}/act", json=twice, headers=headers)
    assert refused.status_code == 409 and "answered already" in refused.json()["error"]
    # a whole run with the random agent gives the figures `homesim evaluate` gives
    submission = play_remote(address, token, "nav", "test", load_agent("random", 0, "objectnav"), "random remote")
    with made() as session:
        row = session.get(Submission, submission)
        assert row.status == "finished" and row.reason == ""
        assert row.summary["splits"] == local["splits"]


def test_a_silent_remote_agent_ends_its_run_with_the_reason(remote_server):
    import httpx

    address, token, made, _, _ = remote_server
    headers = {"Authorization": f"Bearer {token}"}
    started = httpx.post(f"{address}/api/challenges/nav/test/remote", json={"method": "silent"}, headers=headers).json()
    assert httpx.get(f"{address}/api/remote/{started['run']}/next", headers=headers, timeout=60).json()["step"] == 1

    def ended():
        with made() as session:
            row = session.get(Submission, started["submission"])
            return row if row.status == "finished" else None

    row = _until(ended, 60, "the silent run to end")
    assert "the agent went silent: no action came within 3 s (step 1)" in row.reason
    assert row.summary["splits"]["test"]["all"]["success"]["value"] == 0.0
