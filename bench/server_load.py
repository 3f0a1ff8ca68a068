"""The challenge server under load, on this machine only (127.0.0.1; every loop bounded in count and time):
a leaderboard phase holding `--submissions` scored submissions from `--teams` teams, then
* the leaderboard page and its API: p50 / p95 latency over `--requests` requests;
* submissions accepted per second with `--senders` threads posting at once (bounded by `--posts`);
* scoring: seconds to score one submission against `homesim evaluate` of the same actions (the reference);
* remote evaluation: ObjectNav steps per second of a remote agent (no pixels), `--batch` episodes at once,
  against local evaluation of the same `--nav-episodes` episodes. The reference reads its scenes anew (timed
  before and after the remote runs, the ratio against the mean, the machine may be shared), as
  `homesim evaluate` does from the files (sampling the episodes built the house's distance tables on the scene
  it sampled from: local evaluation on that scene, also shown, skips building them); the server loads the open
  phases' splits and builds their tables as it starts (`homesim serve`'s preload, in the background: its seconds
  are shown as the server's start-up cost); the remote run is timed twice once that is done: the server's first
  run of the phase after it started, and the next one;
* the reference: a static file and the challenge list, timed in the same run as the leaderboard (the
  machine may be shared: the load average is printed too).

    python bench/server_load.py [--submissions 10000 --teams 100 --requests 200 --senders 8 --posts 200]
                                [--nav-episodes 256 --batch 256] [--db URL]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import insert, select

from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.datasets.objectnav.generate import sample_episodes
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import action_file_of, read_records
from homesim.evaluation.suites import SUITES
from homesim.server.challenges import add_team, create_challenge, token_hash
from homesim.server.db import connect, migrate, sessions
from homesim.server.models import Phase, Submission, Team, now
from homesim.server.remote import play_remote
from homesim.server.submissions import figures_of, submit, work_once
from homesim.world.scene import Scene

DEADLINE = 300.0  # seconds: every phase of the bench stops by then


class Spinner:
    """Turns left until ObjectNav's 500-step limit: many steps per episode, so that the remote figure is
    the exchange's speed, not the episodes' set-up."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def reset(self, task) -> None:
        pass

    def act(self, observation: dict) -> str:
        return "TURN_LEFT"


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=10_000)
    parser.add_argument("--teams", type=int, default=100)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--senders", type=int, default=8)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--nav-episodes", type=int, default=256, help="ObjectNav episodes of the remote figure")
    parser.add_argument("--batch", type=int, default=256, help="remote episodes played at once")
    parser.add_argument("--db", help="a database URL (default: SQLite in a temporary folder)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="homesim-bench-"))
    url = args.db or f"sqlite:///{folder / 'bench.db'}"
    engine = connect(url)
    migrate(engine)
    made = sessions(engine)
    episodes, scenes = builtin_episodes(count=4)
    splits = {"test": episodes}
    begin = time.perf_counter()
    reference = evaluate(splits, scenes, EvaluationConfig(agent="random"), folder / "random")
    local_seconds = time.perf_counter() - begin
    actions = action_file_of(read_records(folder / "random" / "records.jsonl"), "alfred", "Stop").to_dict()
    _, nav_scenes = builtin_objectnav()
    (house,) = nav_scenes.values()
    nav, _ = sample_episodes(house, args.nav_episodes, random.Random("bench/server_load"))
    nav_seconds: dict[str, list[float]] = {"read anew": [], "sampled from": []}

    def local_nav(name: str, scenes_read: dict) -> dict:
        begin = time.perf_counter()
        spinner = EvaluationConfig(agent="__main__:Spinner", suite="objectnav")
        summary = evaluate({"test": nav}, scenes_read, spinner, folder / f"nav {name} {len(nav_seconds[name])}")
        nav_seconds[name].append(time.perf_counter() - begin)
        return summary

    def read_anew() -> dict:
        return {k: Scene.from_dict(v.to_dict()) for k, v in nav_scenes.items()}

    nav_local = local_nav("read anew", read_anew())
    local_nav("sampled from", nav_scenes)
    nav_steps = sum(len(r.actions) + 1 for r in read_records(folder / "nav read anew 0" / "records.jsonl"))
    with made.begin() as session:
        create_challenge(session, "nav", "nav", SUITES["objectnav"], {"test": nav}, nav_scenes)
        challenge = create_challenge(session, "load", "load", SUITES["alfred"], splits, scenes)
        token = add_team(session, "sender")
        phase_id = challenge.phases[0].id
        teams = [Team(name=f"team {i}", token_hash=token_hash(f"t{i}")) for i in range(args.teams)]
        session.add_all(teams)
        session.flush()
        team_ids = [t.id for t in teams]
    rng = random.Random(0)
    rows = []
    for i in range(args.submissions):
        summary = json.loads(json.dumps(reference))
        summary["splits"]["test"]["all"]["task_success"]["value"] = rng.random()
        rows.append(dict(phase_id=phase_id, team_id=rng.choice(team_ids), method=f"method {i}", paper_url="",
                         actions={}, status="finished", reason="", created=now(), worker="", attempts=1,
                         summary=summary, figures=figures_of(summary, "test"),
                         score=summary["splits"]["test"]["all"]["task_success"]["value"], chosen=False, hidden=False,
                         baseline=False))  # fmt: skip
    with engine.begin() as connection:
        for start in range(0, len(rows), 1000):
            connection.execute(insert(Submission), rows[start : start + 1000])
    with made.begin() as session:  # one real submission, scored as the server scores
        phase = session.get(Phase, phase_id)
        sender = session.scalar(select(Team).where(Team.name == "sender"))
        submit(session, phase, sender, actions, "scored")
    begin = time.perf_counter()
    work_once(made, "bench")
    score_seconds = time.perf_counter() - begin

    port = _port()
    said = folder / "serve.out"
    begin = time.perf_counter()
    with said.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "homesim", "serve", "--db", url, "--port", str(port), "--scorers", "0"],
            stdout=out,
            stderr=subprocess.DEVNULL,
        )
    try:
        address = f"http://127.0.0.1:{port}"
        with httpx.Client(timeout=30) as client:
            for _ in range(600):  # up to a minute for the server to start
                try:
                    client.get(address + "/api/challenges")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            answering = time.perf_counter() - begin
            for _ in range(1200):  # up to two minutes for it to load the open phases' episodes (`remote.preload`)
                if preloaded := re.search(r"loaded for remote evaluation in ([0-9.]+) s", said.read_text()):
                    break
                time.sleep(0.1)
            preloaded = float(preloaded[1]) if preloaded else math.nan
            timings = {}
            for name, path in (
                ("static file", "/static/style.css"),
                ("challenge list", "/"),
                ("leaderboard page", "/c/load/test"),
                ("leaderboard API", "/api/challenges/load/test/leaderboard"),
            ):
                client.get(address + path)  # warm
                seconds = []
                stop_at = time.monotonic() + DEADLINE
                for _ in range(args.requests):
                    if time.monotonic() > stop_at:
                        break
                    begin = time.perf_counter()
                    answer = client.get(address + path)
                    seconds.append(time.perf_counter() - begin)
                    assert answer.status_code == 200
                timings[name] = _percentiles(seconds)
        accepted, refused = [], []
        body = {"method": "posted", "actions": actions}
        counter = iter(range(args.posts))
        lock = threading.Lock()

        def send() -> None:
            with httpx.Client(timeout=60) as client:
                stop_at = time.monotonic() + DEADLINE
                while time.monotonic() < stop_at:
                    with lock:
                        if next(counter, None) is None:
                            return
                    answer = client.post(address + "/api/challenges/load/test/submissions", json=body,
                                         headers={"Authorization": f"Bearer {token}"})  # fmt: skip
                    (accepted if answer.status_code == 201 else refused).append(answer.status_code)

        begin = time.perf_counter()
        senders = [threading.Thread(target=send) for _ in range(args.senders)]
        for thread in senders:
            thread.start()
        for thread in senders:
            thread.join(timeout=DEADLINE)
        posting = time.perf_counter() - begin
        remote = {}
        for name in ("first", "next"):
            begin = time.perf_counter()
            remote_id = play_remote(address, token, "nav", "test", Spinner, f"remote {name}", batch=args.batch)
            remote[name] = (time.perf_counter() - begin, remote_id)
    finally:
        server.terminate()
        server.wait(timeout=30)
    local_nav("read anew", read_anew())  # again after the remote runs: the machine's load may have changed meanwhile
    print(f"database: {engine.dialect.name}; {args.submissions:,} submissions from {args.teams} teams in the phase;"
          f" load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")  # fmt: skip
    print(f"{'what':<22}{'p50 ms':>10}{'p95 ms':>10}")
    for name, (p50, p95) in timings.items():
        print(f"{name:<22}{p50:>10.1f}{p95:>10.1f}")
    print(f"submissions accepted: {len(accepted)} in {posting:.1f} s = {len(accepted) / posting:.1f}/s"
          f" ({args.senders} senders; {len(refused)} refused)")  # fmt: skip
    reference, sampled = statistics.mean(nav_seconds["read anew"]), nav_seconds["sampled from"][0]
    print(f"remote evaluation, {nav_steps} ObjectNav steps of {len(nav)} episodes, {args.batch} at once:"
          f" local {nav_steps / reference:,.0f} steps/s (scenes read anew; before and after the remote runs:"
          f" {' and '.join(f'{nav_steps / x:,.0f}' for x in nav_seconds['read anew'])}; on the scene the episodes"
          f" were sampled from: {nav_steps / sampled:,.0f})")  # fmt: skip
    for name, (seconds, submission_id) in remote.items():
        with made() as session:
            same = session.get(Submission, submission_id).summary["splits"] == nav_local["splits"]
        print(f"  the server's {name} run: {nav_steps / seconds:,.0f} steps/s, ratio {reference / seconds:.2f}"
              f" ({sampled / seconds:.2f} against the sampled scene); figures equal: {same}")  # fmt: skip
    print(f"server start-up: answering {answering:.1f} s after it was started; the open phases' episodes loaded and"
          f" warmed for remote evaluation (its `preload`, in the background) in {preloaded:.2f} s")  # fmt: skip
    print(f"scoring one submission: {score_seconds:.2f} s; `homesim evaluate` of the same episodes: {local_seconds:.2f} s"
          f" (ratio {score_seconds / local_seconds:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
