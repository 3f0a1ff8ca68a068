"""`homesim verify`: a run of every suite verifies (every figure of summary.json recomputed from the records,
every record consistent with itself and, given the episodes, with the engine); a record edited by hand is
caught, even when summary.json is rewritten to match it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.datasets.sources import read_episodes
from homesim.evaluation.evaluate import EvaluationConfig, evaluate, read_run, summary_of
from homesim.evaluation.records import read_records
from homesim.evaluation.verify import verify_run


def _edit(run: Path, number: int, change, resummarize: bool = False) -> None:
    """Edits record `number` (1-based) of a run as a person would, by hand; then, if asked, rewrites summary.json
    to agree with the edited records (so only the record checks can catch it)."""
    lines = (run / "records.jsonl").read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record, sort_keys=True)
    (run / "records.jsonl").write_text("\n".join(lines) + "\n")
    if resummarize:
        summary = summary_of(read_records(run / "records.jsonl"), read_run(run))
        (run / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True))


@pytest.fixture(scope="module")
def objectnav_run(tmp_path_factory):
    episodes, scenes = builtin_objectnav()
    out = tmp_path_factory.mktemp("objectnav")
    evaluate({"val": episodes[:4]}, scenes, EvaluationConfig(agent="expert", suite="objectnav"), out)
    return out, {"val": episodes[:4]}, scenes


def test_an_objectnav_run_verifies_from_its_records_and_against_the_scene(objectnav_run):
    out, splits, scenes = objectnav_run
    verdict = verify_run(out)
    assert verdict.ok, verdict.problems + verdict.differing
    assert verdict.records == 4 and verdict.figures > 50
    assert verify_run(out, splits, scenes).ok


@pytest.mark.parametrize(
    ("change", "caught"),
    [
        (lambda r: r["measures"]["criteria"].update(visibility=False), "criteria visibility do not follow"),
        (lambda r: r["measures"].update(agent_path_length=1.0), "but its positions add up to"),
        (lambda r: r["measures"]["poses"]["positions"].pop(), "successful moves"),
        (lambda r: r.update(goal_satisfied=False), "required criteria say otherwise"),
    ],
)
def test_an_objectnav_record_edited_by_hand_is_caught(objectnav_run, tmp_path, change, caught):
    out, _, _ = objectnav_run
    for name in ("run.json", "records.jsonl", "summary.json"):
        (tmp_path / name).write_bytes((out / name).read_bytes())
    _edit(tmp_path, 2, change, resummarize=True)
    verdict = verify_run(tmp_path)
    assert not verdict.ok and any(caught in p for p in verdict.problems), verdict.problems


def test_an_objectnav_distance_edited_by_hand_is_caught_against_the_scene(objectnav_run, tmp_path):
    out, splits, scenes = objectnav_run
    for name in ("run.json", "records.jsonl", "summary.json"):
        (tmp_path / name).write_bytes((out / name).read_bytes())
    _edit(tmp_path, 1, lambda r: r["measures"].update(geodesic_distance=r["measures"]["geodesic_distance"] + 0.5))
    alone = verify_run(tmp_path)
    assert alone.problems == [] and any("spl" in d for d in alone.differing)  # summary.json no longer agrees
    _edit(tmp_path, 1, lambda r: None, resummarize=True)
    assert verify_run(tmp_path).ok  # from the records alone the edit is consistent ...
    problems = verify_run(tmp_path, splits, scenes).problems
    assert any("geodesic_distance" in p and "the scene's distance" in p for p in problems)  # ... not with the scene


def test_an_alfred_run_verifies_and_a_record_edited_by_hand_is_caught(tmp_path):
    episodes, scenes = builtin_episodes()
    splits = {"builtin": episodes}
    evaluate(splits, scenes, EvaluationConfig(agent="random", seed=3), tmp_path)
    assert verify_run(tmp_path, splits, scenes).ok
    _edit(tmp_path, 1, lambda r: r.update(path_length=r["path_length"] + 1), resummarize=True)
    assert any("path length" in p for p in verify_run(tmp_path).problems)
    _edit(tmp_path, 1, lambda r: r.update(path_length=r["path_length"] - 1))
    _edit(tmp_path, 2, lambda r: r.update(conditions_met=r["conditions_total"], goal_satisfied=True), resummarize=True)
    assert verify_run(tmp_path).ok  # consistent in itself ...
    problems = verify_run(tmp_path, splits, scenes).problems
    assert any("played again" in p for p in problems), problems  # ... but not what its actions do


def test_a_handmethat_run_verifies_and_a_score_edited_by_hand_is_caught(handmethat_samples, tmp_path):
    source = read_episodes(handmethat_samples / "task-bring_me-2-0-2.json", suite="handmethat")
    config = EvaluationConfig(agent="random", suite="handmethat", seed=1)
    evaluate(source.splits, source.scenes, config, tmp_path)
    assert verify_run(tmp_path).ok
    _edit(tmp_path, 1, lambda r: r["measures"].update(score=r["measures"]["score"] + 50), resummarize=True)
    assert any("score is" in p for p in verify_run(tmp_path).problems)


def test_the_command_says_what_it_checked_and_fails_on_an_edit(objectnav_run, tmp_path):
    out, _, _ = objectnav_run
    result = CliRunner().invoke(app, ["verify", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "all agree" in result.output, result.output
    for name in ("run.json", "records.jsonl", "summary.json"):
        (tmp_path / name).write_bytes((out / name).read_bytes())
    _edit(tmp_path, 3, lambda r: r.update(goal_satisfied=False))
    result = CliRunner().invoke(app, ["verify", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and "not verified" in result.output and "record 3" in result.output
