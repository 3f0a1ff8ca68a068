"""Remote evaluation's parts in this process (no server to start): a batch's observations in columns, the hub
on an event loop answered in halves, and a split kept loaded between runs. The whole exchange over HTTP, a
dropped connection and a silent agent are tested in test_server_browser.py."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
from datetime import datetime
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.suites import load_agent
from homesim.server import remote
from homesim.server.challenges import ChallengeError
from homesim.server.models import Challenge, Phase, Submission, Team
from server_support import nav_challenge


def _same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key, value in a.items():
        if isinstance(value, np.ndarray):
            assert b[key].dtype == value.dtype and b[key].shape == value.shape and np.array_equal(b[key], value)
        else:
            assert b[key] == value and type(b[key]) is type(value)


def test_a_batch_of_observations_goes_in_columns_and_comes_back_the_same():
    observations = [
        {
            "gps": np.array([i, 2.5], np.float32),
            "heading": np.array(0.25 * i),
            "goal": 3,
            "message": f"step {i}",
            "seen": i % 2 == 0,
            "depth": np.arange(6, dtype=np.uint16).reshape(2, 3) + i,
        }  # fmt: skip
        for i in range(3)
    ]
    batch = encode_batch_json(observations)
    assert {k for k, column in batch["columns"].items() if "stacked" in column} == {"gps", "heading", "depth"}
    for given, back in zip(observations, remote.decode_batch(batch), strict=True):
        _same(given, back)
    # arrays of different shapes go one by one; observations whose keys differ go row by row
    ragged = [{"a": np.zeros(2)}, {"a": np.zeros(3)}]
    assert "values" in encode_batch_json(ragged)["columns"]["a"]
    mixed = [{"a": 1, "b": np.ones(2, np.int8)}, {"b": np.ones(2, np.int8), "a": 1}, {}]
    assert "rows" in encode_batch_json(mixed)
    for given, back in zip(mixed, remote.decode_batch(encode_batch_json(mixed)), strict=True):
        _same(given, back)
    assert remote.decode_batch(encode_batch_json([{}, {}])) == [{}, {}]


def encode_batch_json(observations: list[dict]) -> dict:
    return json.loads(json.dumps(remote.encode_batch(observations)))


def test_the_hub_hands_out_halves_in_turn_on_the_event_loop_and_scores_as_evaluate(tmp_path):
    made, splits, scenes, _ = nav_challenge(f"sqlite:///{tmp_path / 'remote.db'}", 5)
    local = evaluate(splits, scenes, EvaluationConfig(agent="random", suite="objectnav"), tmp_path / "local")
    agents, seen = {}, []

    def act(slot: int, task: dict | None, observation: dict) -> str:
        agent = agents.setdefault(slot, load_agent("random", 0, "objectnav"))
        if task is not None:
            agent.reset(TaskSpec(task["episode_id"], task["goal"], tuple(task["instructions"])))
        acted = agent.act(observation)
        return acted.action if isinstance(acted, AgentAction) else acted

    async def play() -> int:
        with made() as session:
            phase, team = session.query(Phase).one(), session.query(Team).one()
            run = remote.start(made, phase, team, "in process", batch=4)
        run.launch()
        partial = True
        while True:
            item = json.loads(await run.next_steps(5.0))
            if item.get("done"):
                return item["submission"]
            if item.get("waiting"):
                continue
            seen.append(item["slots"])
            observations = remote.decode_batch(item["observations"])
            answers = [act(*step) for step in zip(item["slots"], item["tasks"], observations)]
            take = 1 if partial and len(answers) > 1 else len(answers)  # once: one answer, then the rest
            run.answer({"slots": item["slots"][:take], "steps": item["steps"][:take], "actions": answers[:take]})
            if take < len(answers):
                again = json.loads(await run.next_steps(5.0))  # the steps not answered come again, alone
                assert again["slots"] == item["slots"][1:] and again["steps"] == item["steps"][1:]
                run.answer({"slots": again["slots"], "steps": again["steps"], "actions": answers[1:]})
                partial = False

    with ThreadPoolExecutor(1) as thread:  # a loop of its own: a browser test's may be running in this thread
        submission = thread.submit(asyncio.run, play()).result()
    assert seen[:3] == [[0, 1], [2, 3], [0, 1]]  # two halves in turn
    assert gc.isenabled()  # the collector is off only during the hub's turns
    with made() as session:
        row = session.get(Submission, submission)
        assert row.status == "finished" and row.reason == ""
        assert row.summary["splits"] == local["splits"]


def test_a_split_is_loaded_once_for_its_runs_and_a_database_of_its_own_loads_its_own(tmp_path):
    first, other = (nav_challenge(f"sqlite:///{tmp_path / name}", 2)[0] for name in ("one.db", "two.db"))
    with first() as session:
        challenge = session.query(Challenge).one()
        kept = remote.kept_episodes(session, challenge, "test")
        assert remote.kept_episodes(session, challenge, "test") is kept
    with other() as session:
        assert remote.kept_episodes(session, session.query(Challenge).one(), "test") is not kept


def test_a_server_loads_and_warms_its_open_phases_when_it_starts_so_that_no_run_pays_for_it(tmp_path):
    made, splits, _, _ = nav_challenge(f"sqlite:///{tmp_path / 'preload.db'}", 3)
    with made.begin() as session:  # a closed phase is left alone
        closed = session.query(Phase).one()
        remote_end, closed.end = closed.end, datetime(2000, 1, 1)
    assert remote.preload(made) == []
    with made.begin() as session:
        session.query(Phase).one().end = remote_end
    assert remote.preload(made) == ["nav/test"]
    with made() as session:
        loaded, scenes = remote.kept_episodes(session, session.query(Challenge).one(), "test")
    built = {key for scene in scenes.values() for key in scene.pose_visibility if key[0] == "goal_distance"}
    assert {key[2] for key in built} == {tuple(g.object_id for g in e.goals) for e in splits["test"]}
    assert [e.episode_id for e in loaded["test"]] == [e.episode_id for e in splits["test"]]


def test_the_client_says_in_a_line_that_a_server_does_not_answer_or_is_no_address():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ChallengeError, match=rf"http://127.0.0.1:{port}: no answer after 2 tries"):
        remote.play_remote(f"http://127.0.0.1:{port}", "t", "nav", "test", object, "m", retries=1)
    with pytest.raises(ChallengeError, match="expected the server's address"):
        remote.play_remote("127.0.0.1:8000", "t", "nav", "test", object, "m")
