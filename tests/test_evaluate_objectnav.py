"""The ObjectNav suite end to end on the built-in episodes: the expert succeeds everywhere with SPL 1, the
random agent nowhere, the frontier heuristic from its own map; records say which criteria failed, the
summary recomputes from them, any number of workers writes the same bytes."""

from __future__ import annotations

import pytest

from homesim.agents.objectnav.frontier import FrontierAgent
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.evaluation.evaluate import EvaluationConfig, evaluate, read_run, summary_of
from homesim.evaluation.objectnav.suite import objectnav_options
from homesim.evaluation.records import read_records
from homesim.evaluation.suites import SUITES


@pytest.fixture(scope="module")
def builtin():
    episodes, scenes = builtin_objectnav()
    return {"val": episodes}, scenes


def run(builtin, tmp_path, agent: str, workers: int = 1, protocol: str = "", **options):
    splits, scenes = builtin
    protocol = protocol or ("custom" if options else "")
    config = EvaluationConfig(agent=agent, suite="objectnav", options=objectnav_options(**options), protocol=protocol)
    summary = evaluate(splits, scenes, config, tmp_path, workers=workers)
    return summary, read_records(tmp_path / "records.jsonl")


def test_the_expert_always_succeeds_and_walks_no_shorter_than_the_geodesic(builtin, tmp_path):
    summary, records = run(builtin, tmp_path, "expert")
    figures = summary["splits"]["val"]["all"]
    assert figures["episodes"] == 8
    # its moves are 0.25 m and 30 degrees apart: its path is longer than habitat's continuous geodesic distance
    assert figures["success"]["value"] == 1.0 and 0.85 <= figures["spl"]["value"] < 1.0
    assert figures["distance_to_goal"]["value"] == 0.0
    for r in records:
        assert r.end_reason == "stop" and r.goal_satisfied
        assert (
            r.measures["geodesic_distance"] <= r.measures["agent_path_length"] <= 1.2 * r.measures["geodesic_distance"]
        )
        assert [a for a, _ in r.actions] + ["STOP"] == list(
            next(e for e in builtin[0]["val"] if e.episode_id == r.episode_id).reference_actions
        )
    assert set(summary["splits"]["val"]["by_difficulty"]) <= {"easy", "medium", "hard"}
    assert summary == summary_of(records, read_run(tmp_path))


def test_the_random_agent_stops_at_random_and_fails(builtin, tmp_path):
    summary, records = run(builtin, tmp_path, "random")
    assert summary["splits"]["val"]["all"]["success"]["value"] == 0.0
    failed = [name for r in records for name in r.measures["required"] if not r.measures["criteria"][name]]
    assert "proximity" in failed
    assert all(r.end_reason in ("stop", "max_steps") for r in records)


def test_oracle_visibility_is_an_evaluation_option(builtin, tmp_path):
    summary, records = run(builtin, tmp_path, "expert", criteria="intentionality,proximity,oracle_visibility")
    assert summary["config"]["options"]["criteria"] == ["intentionality", "proximity", "oracle_visibility"]
    assert all(r.measures["required"] == ["intentionality", "proximity", "oracle_visibility"] for r in records)
    assert summary["splits"]["val"]["all"]["success"]["value"] == 1.0


def test_two_workers_write_the_same_bytes(builtin, tmp_path):
    run(builtin, tmp_path / "one", "random")
    run(builtin, tmp_path / "two", "random", workers=2)
    assert (tmp_path / "one" / "records.jsonl").read_bytes() == (tmp_path / "two" / "records.jsonl").read_bytes()


def test_the_agents_are_registered_and_the_frontier_agent_asks_for_depth_and_semantic():
    assert set(SUITES["objectnav"].agents) == {"expert", "random", "frontier"}
    assert FrontierAgent.observations == ("depth", "semantic")


def test_options_are_checked():
    with pytest.raises(ValueError, match="unknown success criterion"):
        objectnav_options(criteria="proximity,closeness")
    with pytest.raises(ValueError, match="positive number of metres"):
        objectnav_options(success_distance=0)


def test_the_command_prints_objectnav_tables_and_checks_its_options(builtin, tmp_path):
    from typer.testing import CliRunner

    from homesim.cli import app
    from homesim.datasets.folder import write_dataset

    splits, scenes = builtin
    write_dataset(tmp_path / "data", splits, scenes, {"test": True}, suite="objectnav")
    runner = CliRunner()
    args = ["evaluate", "--episodes", str(tmp_path / "data"), "--out", str(tmp_path / "out")]
    result = runner.invoke(
        app, [*args, "--agent", "random", "--criteria", "proximity,visibility"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert (
        "Success [95% CI]" in result.output
        and "SoftSPL" in result.output
        and "criteria: proximity, visibility" in result.output
    )
    result = runner.invoke(app, [*args, "--criteria", "closeness"])
    assert result.exit_code == 2 and "unknown success criterion 'closeness'" in result.output
    result = runner.invoke(app, [*args, "--agent", "wanderer"])
    assert result.exit_code == 2 and "frontier" in result.output
    report = runner.invoke(app, ["report", str(tmp_path / "out")], env={"COLUMNS": "200"})
    assert report.exit_code == 0 and "summary.json matches the records" in report.output
    assert "protocol custom" in report.output  # criteria set one by one: no named protocol
    habitat = [*args[:-1], str(tmp_path / "habitat"), "--agent", "random", "--protocol", "habitat"]
    result = runner.invoke(app, habitat, env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "protocol habitat: habitat-lab's" in result.output, result.output
    assert read_run(tmp_path / "habitat").protocol == "habitat"
    assert read_run(tmp_path / "habitat").options["criteria"] == ["intentionality", "distance_to_goal"]
    mixed = runner.invoke(app, ["report", str(tmp_path / "out"), str(tmp_path / "habitat")])
    assert mixed.exit_code == 1 and "a table holds one protocol's runs" in mixed.output
    result = runner.invoke(app, [*args, "--protocol", "carla"], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "no protocol 'carla'; known: objectnav-2020, habitat, robothor" in result.output
