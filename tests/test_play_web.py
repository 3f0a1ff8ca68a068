"""`homesim play --web` in process (the app through a test client): a person's episode under the suite's own
protocol (ALFRED's failed clicks count, ten end it), written as a run folder that `homesim report` and
`homesim view` read like an agent's, continued across sessions and never mixed with another run; ObjectNav
played with keys; bad addresses and actions answered in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.sources import read_episodes
from homesim.errors import DataError
from homesim.evaluation.alfred.person import segments
from homesim.evaluation.records import read_records
from homesim.evaluation.suites import SUITES
from homesim.render import ALFRED, Renderer
from homesim.web.play import PersonRun, create_play
from homesim.web.viewing import Replays, load_sources
from homesim.world.actions import Action

pytest_plugins = ["viewer_support"]


def _client(suite: str, out, episodes=None, split=None) -> tuple[TestClient, PersonRun]:
    source = read_episodes(episodes, None, split, suite)
    run = PersonRun(out, SUITES[suite], source)
    return TestClient(create_play(SUITES[suite], source, run)), run


def _start(client: TestClient, split: str, number: int = 1) -> str:
    answer = client.post(f"/play/{split}/{number}", follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].rsplit("/", 1)[1]


def _act(client: TestClient, game: str, **body) -> dict:
    answer = client.post(f"/api/games/{game}/act", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_clicks_on_nothing_are_failed_steps_and_ten_end_the_episode(tmp_path):
    client, run = _client("alfred", tmp_path / "human")
    game = _start(client, "builtin")
    episodes, scenes = builtin_episodes()
    with Renderer(**ALFRED) as renderer:
        frame = renderer.render(scenes[episodes[0].scene_id], episodes[0].initial_state)
    row, column = (int(i[0]) for i in np.nonzero(frame.segmentation < 0))  # a wall, floor or ceiling pixel
    for _ in range(10):
        state = _act(client, game, action="PickupObject", row=row, column=column)
    assert state["over"] and state["record"] == 1 and not state["success"] and state["ending"] == "max_fails"
    (played,) = read_records(tmp_path / "human" / "records.jsonl")
    assert played.end_reason == "max_fails" and sum(not ok for ok in played.action_success) == 10
    assert played.actions[-1] == ["PickupObject", ""]  # the mask named no object
    sources = load_sources([tmp_path / "human"])  # the built-in episodes: the viewer plays it again
    assert Replays(sources).of(sources[0].rows[0]).success == [True, *played.action_success]
    assert json.loads((tmp_path / "human" / "run.json").read_text())["agent"] == "human"


def test_a_persons_run_is_continued_and_never_mixed_with_another(tmp_path, alfred_runs):
    client, _ = _client("alfred", tmp_path / "human")
    _act(client, _start(client, "builtin", 2), action="Stop")
    client, run = _client("alfred", tmp_path / "human")  # a second session
    assert len(run.records) == 1
    assert _act(client, _start(client, "builtin", 3), action="Stop")["record"] == 2
    assert len(read_records(tmp_path / "human" / "records.jsonl")) == 2
    with pytest.raises(DataError, match="a run of expert on alfred, not of a person"):
        _client("alfred", alfred_runs["expert"])
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(DataError, match="holds files but no run.json"):
        _client("alfred", tmp_path / "other")


def test_objectnav_is_played_with_keys(tmp_path, objectnav_run):
    client, _ = _client("objectnav", tmp_path / "human", objectnav_run["dataset"], "val")
    game = _start(client, "val")
    assert client.get(f"/game/{game}/view.png").headers["content-type"] == "image/png"
    assert "MOVE_FORWARD" in client.get(f"/game/{game}").text
    _act(client, game, action="TURN_LEFT")
    state = _act(client, game, action="STOP")
    assert state["over"] and state["ending"] == "stop"
    (played,) = read_records(tmp_path / "human" / "records.jsonl")
    assert played.actions == [["TURN_LEFT", None]] and "distance_to_goal" in played.measures
    report = CliRunner().invoke(app, ["report", str(tmp_path / "human")])
    assert report.exit_code == 0 and "summary.json matches the records" in report.output


def test_bad_addresses_and_actions_are_answered_in_one_line(tmp_path):
    client, _ = _client("alfred", tmp_path / "human")
    assert client.post("/play/builtin/99").status_code == 404 and client.post("/play/nosplit/1").status_code == 404
    assert client.get("/game/nothing").status_code == 404
    game = _start(client, "builtin")
    for body, error in (
        ({}, "give {"),
        ({"action": "Fly"}, "not one of ALFRED's actions"),
        ({"action": "PickupObject"}, "click on the view"),
        ({"action": "PickupObject", "row": 300, "column": 5}, "click on the view"),
    ):
        answer = client.post(f"/api/games/{game}/act", json=body)
        assert answer.status_code == 400 and error in answer.json()["error"]
    _act(client, game, action="Stop")
    answer = client.post(f"/api/games/{game}/act", json={"action": "Stop"})
    assert answer.status_code == 400 and "is over" in answer.json()["error"]


def test_play_web_refuses_an_unknown_suite_in_one_line():
    result = CliRunner().invoke(app, ["play", "--web", "chess"])
    assert result.exit_code != 0 and "unknown suite 'chess'" in result.output


def test_a_demonstrations_segments_alternate_navigation_and_interaction():
    moves = [Action("MoveAhead_25"), Action("RotateLeft_90"), Action("PickupObject", "a"), Action("MoveAhead_25")]
    moves += [Action("PutObject", "b"), Action("ToggleObjectOn", "c"), Action("ToggleObjectOff", "c")]
    assert segments(moves) == (0, 0, 1, 2, 3, 3, 3)
