"""The challenge server on SQLite and on PostgreSQL: a submission scores as `homesim evaluate` scores the
same actions, bit for bit, for every suite; limits hold when many submissions arrive at once; a worker that
dies mid-scoring loses nothing and scores nothing twice; bad input gets a message; nothing a page or the API
says holds an episode's hidden part."""

from __future__ import annotations

import json
import random
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from homesim.agents.replay import read_action_file
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.handmethat.generate import generate
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import action_file_of, read_records
from homesim.evaluation.suites import SUITES
from homesim.server.challenges import ChallengeError, PhaseRules, add_phase, add_team, create_challenge
from homesim.server.db import alembic_config, connect, migrate, sessions
from homesim.server.models import Base, Challenge, Phase, Submission, Team, now
from homesim.server.submissions import claim, finish, leaderboard, score, submit, work_once
from homesim.web.app import create_app

pytest_plugins = ["server_support"]


def _suite_episodes(name: str) -> tuple[dict, dict]:
    if name == "alfred":
        episodes, scenes = builtin_episodes(count=3)
    elif name == "objectnav":
        episodes, scenes = builtin_objectnav()
        episodes = episodes[:3]
    else:
        generated, scenes = generate(episodes=4, seed=1)
        episodes = [e for split in generated.values() for e in split]
    return {"test": episodes}, scenes


def _local_run(name: str, agent: str, splits: dict, scenes: dict, out: Path) -> tuple[dict, Path]:
    """`homesim evaluate` of an agent, and its actions as a file."""
    summary = evaluate(splits, scenes, EvaluationConfig(agent=agent, suite=name), out / agent)
    suite = SUITES[name]
    actions = action_file_of(read_records(out / agent / "records.jsonl"), name, suite.stop_action)
    path = out / f"{agent}.json"
    path.write_text(actions.to_json())
    return summary, path


def _made(url: str):
    engine = connect(url)
    migrate(engine)
    return sessions(engine)


def _challenge(made, name: str, splits: dict, scenes: dict, rules: PhaseRules | None = None) -> tuple[int, str]:
    with made.begin() as session:
        challenge = create_challenge(session, f"{name}-t", name, SUITES[name], splits, scenes)
        if rules is not None:
            add_phase(session, challenge, rules, "test", {})
        token = add_team(session, "team one")
    return challenge.id, token


@pytest.mark.parametrize("name", sorted(SUITES))
def test_a_submission_scores_as_evaluate_scores_its_actions(name, db_url, tmp_path):
    splits, scenes = _suite_episodes(name)
    made = _made(db_url)
    _challenge(made, name, splits, scenes)
    for agent in ("expert", "random"):
        original, actions = _local_run(name, agent, splits, scenes, tmp_path)
        replayed = evaluate(splits, scenes, EvaluationConfig(agent=str(actions), suite=name), tmp_path / f"{agent}-again")
        with made.begin() as session:
            phase = session.scalar(select(Phase).join(Challenge).where(Challenge.suite == name))
            team = session.scalar(select(Team))
            submitted = submit(session, phase, team, json.loads(actions.read_text()), agent).id
        assert work_once(made, "w1") == submitted
        with made() as session:
            scored = session.get(Submission, submitted)
            assert scored.status == "finished" and scored.reason == ""
            assert scored.summary["splits"] == replayed["splits"] == original["splits"]


def test_the_day_limit_holds_when_forty_arrive_at_once(db_url, tmp_path):
    splits, scenes = _suite_episodes("alfred")
    made = _made(db_url)
    _, _ = _challenge(made, "alfred", splits, scenes, PhaseRules("minival", "Minival", per_day=30))
    _, actions = _local_run("alfred", "random", splits, scenes, tmp_path)
    data = json.loads(actions.read_text())
    outcomes: list[str] = []
    start = threading.Barrier(40)

    def send() -> None:
        start.wait(timeout=30)
        try:
            with made.begin() as session:
                phase = session.scalar(select(Phase).where(Phase.slug == "minival"))
                submit(session, phase, session.scalar(select(Team)), data, "many")
            outcomes.append("accepted")
        except ChallengeError as e:
            outcomes.append(str(e))

    threads = [threading.Thread(target=send) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert outcomes.count("accepted") == 30 and len(outcomes) == 40
    assert all("limit reached: 30 submission(s) on" in o for o in outcomes if o != "accepted")
    with made() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 30


def test_a_worker_that_dies_mid_scoring_loses_nothing_and_nothing_is_scored_twice(db_url, tmp_path):
    splits, scenes = _suite_episodes("objectnav")
    made = _made(db_url)
    _challenge(made, "objectnav", splits, scenes)
    _, actions = _local_run("objectnav", "random", splits, scenes, tmp_path)
    with made.begin() as session:
        submitted = submit(session, session.scalar(select(Phase)), session.scalar(select(Team)), json.loads(actions.read_text()), "r").id
    with made.begin() as session:
        assert claim(session, "dies", lease=timedelta(seconds=-1)) == submitted  # then it dies: its lease runs out
    with made() as session:
        late = score(session, submitted)
    assert work_once(made, "takes over") == submitted
    with made.begin() as session:
        assert not finish(session, submitted, "dies", late)  # the dead worker's late result is not stored
    with made() as session:
        row = session.get(Submission, submitted)
        assert (row.status, row.worker, row.attempts) == ("finished", "takes over", 2)
        assert row.summary["splits"] == late.summary["splits"]


def test_the_schema_is_the_models_after_the_migrations(db_url):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = connect(db_url)
    migrate(engine)
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    from alembic import command

    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    migrate(engine)
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []


# --- the web app ----------------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path):
    splits, scenes = _suite_episodes("handmethat")
    made = _made(f"sqlite:///{tmp_path / 'web.db'}")
    _challenge(made, "handmethat", splits, scenes, PhaseRules("closed", "Closed", per_day=1))
    with made.begin() as session:
        host = add_team(session, "the host", host=True)
    _, actions = _local_run("handmethat", "expert", splits, scenes, tmp_path)
    return TestClient(create_app(made)), made, actions, splits, host


def _team_token(made) -> str:
    with made.begin() as session:
        return add_team(session, "team two")


def test_the_api_takes_a_submission_and_refuses_bad_ones_with_a_message(served, tmp_path):
    client, made, actions, splits, _ = served
    token = _team_token(made)
    auth = {"Authorization": f"Bearer {token}"}
    data = json.loads(actions.read_text())
    url = "/api/challenges/handmethat-t/test/submissions"
    made_one = client.post(url, json={"method": "expert", "actions": data}, headers=auth)
    assert made_one.status_code == 201 and made_one.json()["status"] == "queued"
    part = dict(data, episodes=data["episodes"][:1])
    missing = client.post(url, json={"method": "part", "actions": part}, headers=auth).json()
    assert missing["reason"] == f"{len(data['episodes']) - 1} of {len(data['episodes'])} episodes have no actions: scored as failures"
    unknown = dict(data, episodes=[dict(data["episodes"][0], episode_id="nope")])
    cases = [
        (client.post(url, json={"method": "x", "actions": data}), 401, "token"),
        (client.post(url, json={"method": "x", "actions": data}, headers={"Authorization": "Bearer wrong"}), 401, "token"),
        (client.post(url, content=b"{not json", headers=auth), 400, "not JSON"),
        (client.post(url, content=b"PK\x03\x04" + bytes(5000), headers=auth), 400, "not JSON"),  # a zip
        (client.post(url, json={"method": "x", "actions": unknown}, headers=auth), 400, "unknown episode id"),
        (client.post(url, json={"method": "x", "actions": dict(data, suite="alfred")}, headers=auth), 400, "is for alfred"),
        (client.post(url, json={"method": "", "actions": data}, headers=auth), 400, "1 to 200 characters"),
        (client.post(url, json={"method": "x", "actions": {"format": "zip"}}, headers=auth), 400, "not a homesim action file"),
        (client.post(url, json={"method": "x", "actions": "[" * 100000}, headers=auth), 400, "not a homesim action file"),
        (client.post("/api/challenges/handmethat-t/closed/submissions", json={"method": "a", "actions": data}, headers=auth), 201, ""),
        (client.post("/api/challenges/handmethat-t/closed/submissions", json={"method": "b", "actions": data}, headers=auth), 400, "limit reached: 1"),
        (client.post("/api/challenges/nope/test/submissions", json={"method": "x", "actions": data}, headers=auth), 404, "no phase"),
    ]
    for answer, status, said in cases:
        assert answer.status_code == status, answer.text
        assert said in answer.text
    with made() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 3


def test_an_oversize_upload_is_refused(served, monkeypatch):
    client, made, _, _, _ = served
    monkeypatch.setattr("homesim.web.app.MAX_UPLOAD", 1000)
    auth = {"Authorization": f"Bearer {_team_token(made)}"}
    answer = client.post("/api/challenges/handmethat-t/test/submissions", content=b" " * 5000, headers=auth)
    assert answer.status_code == 413 and "larger than" in answer.json()["error"]


def test_no_page_or_answer_holds_an_episodes_hidden_part(served):
    client, made, actions, splits, host = served
    token = _team_token(made)
    client.post(
        "/api/challenges/handmethat-t/test/submissions",
        json={"method": "<script>alert(1)</script>", "actions": json.loads(actions.read_text())},
        headers={"Authorization": f"Bearer {token}"},
    )
    work_once(made, "w")
    hidden = [json.dumps(e.to_dict()[field]) for e in splits["test"] for field in SUITES["handmethat"].hidden if field in e.to_dict()]
    hidden = [h for h in hidden if len(h) > 12]  # goal formulas, meanings, plans: long and distinctive
    assert hidden
    client.cookies.set("homesim_token", token)
    routes = ["/", "/c/handmethat-t", "/c/handmethat-t/test", "/c/handmethat-t/closed", "/s/1", "/t/team two", "/login",
              "/api/challenges", "/api/challenges/handmethat-t/test/leaderboard", "/api/submissions/1", "/api/me"]  # fmt: skip
    for route in routes:
        answer = client.get(route)
        assert answer.status_code == 200, route
        assert not [h for h in hidden if h in answer.text or h.strip('"') in answer.text], route
        if not route.startswith("/api/"):  # in HTML it is escaped; JSON carries it as a string
            assert "<script>alert(1)</script>" not in answer.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get("/c/handmethat-t/test").text


def test_a_hidden_phase_shows_a_team_its_own_rows_and_the_host_all(served):
    client, made, actions, _, host = served
    with made.begin() as session:
        challenge = session.scalar(select(Challenge))
        add_phase(session, challenge, PhaseRules("final", "Final", visibility="hidden", choose_one=True), "test", {})
    data = json.loads(actions.read_text())
    one, two = _team_token(made), None
    with made.begin() as session:
        two = add_team(session, "team three")
    for token in (one, two):
        client.post("/api/challenges/handmethat-t/final/submissions", json={"method": "m", "actions": data},
                    headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    while work_once(made, "w") is not None:
        pass
    board = "/api/challenges/handmethat-t/final/leaderboard"
    assert client.get(board).json() == []
    mine = client.get(board, headers={"Authorization": f"Bearer {one}"}).json()
    assert [r["team"] for r in mine] == ["team two"] and mine[0]["rank"] is None  # not chosen: not ranked
    chosen = client.post(f"/api/submissions/{mine[0]['submission']}/choose", headers={"Authorization": f"Bearer {one}"})
    assert chosen.status_code == 200
    assert client.get(board, headers={"Authorization": f"Bearer {one}"}).json()[0]["rank"] == 1
    assert len(client.get(board, headers={"Authorization": f"Bearer {host}"}).json()) == 2


def test_the_command_line_extracts_actions_and_refuses_a_mismatch(tmp_path):
    from typer.testing import CliRunner

    from homesim.cli import app

    splits, scenes = _suite_episodes("objectnav")
    _local_run("objectnav", "expert", splits, scenes, tmp_path)
    out = tmp_path / "actions.json"
    result = CliRunner().invoke(app, ["challenge", "actions", str(tmp_path / "expert"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert read_action_file(out).suite == "objectnav" and len(read_action_file(out).episodes) == 3
    wrong = CliRunner().invoke(app, ["evaluate", "--agent", str(out), "--out", str(tmp_path / "e")])  # ALFRED's built-ins
    assert wrong.exit_code != 0 and "its actions are for objectnav, not alfred" in wrong.output


def test_a_database_scored_before_the_figures_migration_keeps_its_leaderboard(db_url, tmp_path):
    splits, scenes = _suite_episodes("objectnav")
    engine = connect(db_url)
    migrate(engine, "0001")
    made = sessions(engine)
    _, actions = _local_run("objectnav", "expert", splits, scenes, tmp_path)
    summary = evaluate(splits, scenes, EvaluationConfig(agent=str(actions), suite="objectnav"), tmp_path / "again")
    with engine.begin() as connection:  # the 0001 schema: no figures column yet, so plain SQL
        connection.exec_driver_sql(
            "INSERT INTO challenges (slug, title, suite, description, dataset_digest, created)"
            " VALUES ('old', 'old', 'objectnav', '', 'x', '2026-01-01 00:00:00')"
        )
        connection.exec_driver_sql(
            "INSERT INTO phases (challenge_id, slug, title, split, visibility, ranking, choose_one, options)"
            " VALUES (1, 'test', 'Test', 'test', 'public', 'spl', false, '{}')"
        )
        connection.exec_driver_sql(
            "INSERT INTO teams (name, token_hash, is_host, created) VALUES ('t', 'h', false, '2026-01-01 00:00:00')"
        )
        connection.execute(
            Submission.__table__.insert().values(
                phase_id=1, team_id=1, method="m", paper_url="", actions={}, status="finished", reason="",
                created=now(), worker="", attempts=1, summary=summary, chosen=False, hidden=False, baseline=False,
            )  # fmt: skip
        )
    migrate(engine)
    with made() as session:
        (row,) = leaderboard(session, session.scalar(select(Phase)), None)
        assert row.rank == 1 and row.figures["spl"] == summary["splits"]["test"]["all"]["spl"]


def test_the_host_sets_phases_and_enters_baselines_from_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from homesim.cli import app
    from homesim.datasets.folder import write_dataset

    splits, scenes = _suite_episodes("alfred")
    write_dataset(tmp_path / "data", splits, scenes, {"made_by": "test"})
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--db", db], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        return result.output

    run("challenge", "create", "--slug", "c", "--title", "C", "--episodes", str(tmp_path / "data"), "--phases", "objectnav-2020")
    assert "token" in run("challenge", "team", "--name", "host", "--host")
    said = run("challenge", "phase", "--challenge", "c", "--slug", "test-standard", "--per-day", "3", "--end", "2030-01-01T00:00")
    assert "test-standard: split test, per day 3" in said
    run("challenge", "phase", "--challenge", "c", "--slug", "extra", "--visibility", "hidden", "--reveal-at", "2030-01-01T00:00")
    run("challenge", "baseline", "--challenge", "c", "--phase", "minival", "--agent", "expert")
    bad = runner.invoke(app, ["challenge", "phase", "--challenge", "c", "--slug", "x", "--start", "soon", "--db", db])
    assert bad.exit_code == 1 and "--start 'soon': a date and time" in bad.output
    made = _made(db)
    assert work_once(made, "w") is not None
    with made() as session:
        phases = {p.slug: p for p in session.scalars(select(Phase))}
        assert (phases["test-standard"].per_day, phases["test-standard"].end.year) == (3, 2030)
        assert phases["extra"].visibility == "hidden" and phases["extra"].reveal_at.year == 2030
        (row,) = leaderboard(session, phases["minival"], None)
        assert row.submission.baseline and row.figures["task_success"]["value"] == 1.0


# --- ALFRED's mask form ------------------------------------------------------------------------------------


def _mask_file(splits: dict, scenes: dict, out: Path) -> tuple[dict, Path]:
    """The expert aiming by masks, evaluated; its actions written by `homesim challenge actions` (the mask form)."""
    from typer.testing import CliRunner

    from homesim.cli import app

    summary = evaluate(splits, scenes, EvaluationConfig(agent="expert", interaction="mask"), out / "masked")
    path = out / "masks.json"
    result = CliRunner().invoke(app, ["challenge", "actions", str(out / "masked"), "--out", str(path)])
    assert result.exit_code == 0 and "(the mask form)" in result.output, result.output
    return summary, path


def test_a_mask_form_file_scores_as_evaluate_with_the_same_masks(db_url, tmp_path):
    splits, scenes = _suite_episodes("alfred")
    made = _made(db_url)
    _challenge(made, "alfred", splits, scenes)
    original, path = _mask_file(splits, scenes, tmp_path)
    data = json.loads(path.read_text())
    aimed = [a for e in data["episodes"] for a in e["actions"] if isinstance(a, list) and a[1] is not None]
    assert data["interaction"] == "mask" and aimed and all(isinstance(a[1][0][0], int) for a in aimed)  # runs
    replayed = evaluate(splits, scenes, EvaluationConfig(agent=str(path), interaction="mask"), tmp_path / "again")
    with made.begin() as session:
        submitted = submit(session, session.scalar(select(Phase)), session.scalar(select(Team)), data, "masks").id
    assert work_once(made, "w") == submitted
    with made() as session:
        scored = session.get(Submission, submitted)
        assert scored.status == "finished" and scored.reason == ""
        assert scored.summary["splits"] == replayed["splits"] == original["splits"]
        assert scored.summary["config"]["interaction"] == "mask"


def test_bad_masks_fail_their_own_steps_and_the_team_is_told_which(tmp_path):
    splits, scenes = _suite_episodes("alfred")
    made = _made(f"sqlite:///{tmp_path / 'masks.db'}")
    _challenge(made, "alfred", splits, scenes)
    _, path = _mask_file(splits, scenes, tmp_path)
    data = json.loads(path.read_text())
    bad = {0: [[89990, 20]], 1: [[0, 5], ["a", 1]], 2: []}  # another size's mask, not runs, no pixel
    for index, runs in bad.items():
        actions = data["episodes"][index]["actions"]
        first = next(i for i, a in enumerate(actions) if isinstance(a, list) and a[1] is not None)
        actions[first] = [actions[first][0], runs]
    path.write_text(json.dumps(data))
    local = evaluate(splits, scenes, EvaluationConfig(agent=str(path), interaction="mask"), tmp_path / "bad")
    token = _team_token(made)
    client = TestClient(create_app(made))
    client.cookies.set("homesim_token", token)
    form = client.post("/c/alfred-t/test/submit", data={"method": "bad masks"}, files={"file": ("m.json", path.read_bytes())},
                       follow_redirects=False)  # fmt: skip
    assert form.status_code == 303, form.text
    assert work_once(made, "w") is not None
    with made() as session:
        scored = session.scalars(select(Submission)).one()
        assert scored.status == "finished" and scored.summary["splits"] == local["splits"]
    ids = [e["episode_id"] for e in data["episodes"]]
    assert scored.reason.startswith("3 mask(s) could not be read (each a failed step): ")
    for episode_id, why in zip(ids, ("ends past pixel 90000 of a 300x300 frame (a mask of another size?)",
                                     "run 1 is ['a', 1], not [start, length]", "a mask of no pixel points at nothing")):  # fmt: skip
        assert episode_id in scored.reason and why in scored.reason
    assert "Traceback" not in client.get(f"/s/{scored.id}").text
    shown = client.get(f"/api/submissions/{scored.id}").json()["reason"]
    assert shown == scored.reason


def test_a_mask_form_file_is_refused_where_the_suite_has_no_masks(served):
    client, made, actions, _, _ = served
    data = dict(json.loads(actions.read_text()), interaction="mask")
    auth = {"Authorization": f"Bearer {_team_token(made)}"}
    url = "/api/challenges/handmethat-t/test/submissions"
    answer = client.post(url, json={"method": "m", "actions": data}, headers=auth)
    assert answer.status_code == 400 and "aims by mask; handmethat by oracle" in answer.json()["error"]
    answer = client.post(url, json={"method": "m", "actions": dict(data, interaction="pixels")}, headers=auth)
    assert answer.status_code == 400 and "interaction: 'pixels': oracle or mask" in answer.json()["error"]


def test_the_leaderboard_picks_each_teams_best_row_by_one_index_seek_per_team(db_url, tmp_path):
    from sqlalchemy import event, insert

    splits, scenes = _suite_episodes("objectnav")
    made = _made(db_url)
    _challenge(made, "objectnav", splits, scenes)
    rng, rows = random.Random(0), []
    with made.begin() as session:
        phase = session.scalar(select(Phase))
        teams = [Team(name=f"t{i}", token_hash=f"h{i}") for i in range(7)]
        session.add_all(teams)
        session.flush()
        for i in range(300):
            score = None if i % 17 == 0 else round(rng.random(), 1)  # ties and unscored rows
            rows.append(dict(phase_id=phase.id, team_id=rng.choice(teams).id, method=f"m{i}", paper_url="", actions={},
                             status="finished" if i % 13 else "failed", reason="", created=now(), worker="",
                             attempts=1, figures={"spl": {"value": score, "ci95": None}}, score=score, chosen=False,
                             hidden=i % 11 == 0, baseline=i % 50 == 0))  # fmt: skip
        session.execute(insert(Submission), rows)
    for i, row in enumerate(rows):
        row["id"] = i + 1
    shown = [r for r in rows if r["status"] == "finished" and not r["hidden"]]
    best = {}
    for r in sorted((r for r in shown if not r["baseline"]), key=lambda r: (r["score"] is None, -(r["score"] or 0), r["id"])):
        best.setdefault(r["team_id"], r["id"])
    statements = []
    engine = made.kw["bind"]
    listen = lambda conn, cursor, statement, *rest: statements.append((statement, rest[0]))  # noqa: E731
    event.listen(engine, "before_cursor_execute", listen)
    with made() as session:
        board = leaderboard(session, session.scalar(select(Phase)), None)
    event.remove(engine, "before_cursor_execute", listen)
    assert sorted(r.submission.id for r in board) == sorted([*best.values(), *(r["id"] for r in shown if r["baseline"])])
    if engine.dialect.name == "sqlite":  # the best rows are read from the index alone, in its order
        (statement, parameters), = [(s, p) for s, p in statements if "row_number" in s or "LIMIT" in s]
        with engine.connect() as connection:
            plan = " / ".join(row[3] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters))
        assert "COVERING INDEX leaderboard (phase_id=? AND status=? AND hidden=? AND baseline=? AND team_id=?)" in plan
        assert "TEMP B-TREE" not in plan and "SCAN submissions" not in plan
