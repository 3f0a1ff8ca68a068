"""`homesim evaluate` refuses, in one line naming the option, every setting the suite does not have, before it
plays anything; `homesim report` reads any run folder without a traceback and compares ObjectNav runs."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.folder import write_dataset
from homesim.datasets.objectnav.builtin import builtin_objectnav


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    assert "Traceback" not in result.output and not (
        result.exception and not isinstance(result.exception, SystemExit)
    ), f"{type(result.exception).__name__}: {result.exception}"
    return result, " ".join(result.output.split())


@pytest.fixture(scope="module")
def objectnav_data(tmp_path_factory):
    episodes, scenes = builtin_objectnav()
    folder = tmp_path_factory.mktemp("objectnav") / "data"
    write_dataset(folder, {"val": episodes[:3]}, scenes, {"test": True}, suite="objectnav")
    return folder


OBJECTNAV, ALFRED, HANDMETHAT = ["--episodes", "{objectnav}"], [], ["--suite", "handmethat"]
REFUSED = [
    (OBJECTNAV, ["--interface", "text"], "--interface: 'text': ObjectNav has only embodied: leave it out"),
    (OBJECTNAV, ["--interaction", "mask"], "--interaction: 'mask': ObjectNav has only oracle: leave it out"),
    (OBJECTNAV, ["--subgoals"], "--subgoals: only ALFRED has it, not ObjectNav"),
    (OBJECTNAV, ["--ablation", "no_language"], "--ablation: only ALFRED has it, not ObjectNav"),
    (OBJECTNAV, ["--success-distance", "-1"], "--success-distance: success distance -1.0: a positive number"),
    (OBJECTNAV, ["--success-distance", "0"], "--success-distance: success distance 0.0: a positive number"),
    (OBJECTNAV, ["--criteria", "closeness"], "--criteria: unknown success criterion 'closeness'"),
    (OBJECTNAV, ["--observability", "full"], "--observability: only HandMeThat has it, not ObjectNav"),
    (ALFRED, ["--success-distance", "0.5"], "--success-distance: only ObjectNav has it, not ALFRED"),
    (ALFRED, ["--criteria", "proximity"], "--criteria: only ObjectNav has it, not ALFRED"),
    (HANDMETHAT, ["--interaction", "mask"], "--interaction: 'mask': HandMeThat has only oracle: leave it out"),
    (HANDMETHAT, ["--interface", "embodied"], "--interface: 'embodied': HandMeThat has only text: leave it out"),
    (HANDMETHAT, ["--ablation", "goal_only"], "--ablation: only ALFRED has it, not HandMeThat"),
    (HANDMETHAT, ["--subgoals"], "--subgoals: only ALFRED has it, not HandMeThat"),
    (HANDMETHAT, ["--pixels", "rgb"], "--pixels: 'rgb': some of none"),
]


@pytest.mark.parametrize("source, options, message", REFUSED, ids=[" ".join(c[0][:2] + c[1]) for c in REFUSED])
def test_a_setting_the_suite_has_not_is_refused_naming_its_option(objectnav_data, tmp_path, source, options, message):
    out = tmp_path / "out"
    source = [a.format(objectnav=objectnav_data) for a in source]
    result, said = run("evaluate", *source, *options, "--out", out)
    assert result.exit_code == 2 and f"Invalid value for {message}" in said, said
    assert not out.exists()  # refused before anything was played or written


def test_report_on_a_run_that_claims_what_its_suite_has_not_is_one_line(objectnav_data, tmp_path):
    out = tmp_path / "out"
    assert run("evaluate", "--episodes", objectnav_data, "--agent", "random", "--out", out)[0].exit_code == 0
    settings = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps(settings | {"subgoals": True}))
    result, said = run("report", out)  # the manifest names the file changed since it was written
    assert result.exit_code == 1 and "run.json: (file)" in said and "changed since" in said
    (out / "manifest.json").unlink()  # a run without one: its settings are read, and refused
    result, said = run("report", out)
    assert result.exit_code == 1 and f"{out / 'run.json'}: subgoals: ObjectNav has no sub-goal" in said


def test_report_compares_objectnav_runs(objectnav_data, tmp_path):
    for agent, criteria in (("expert", []), ("random", []), ("expert", ["--criteria", "intentionality,proximity"])):
        out = tmp_path / f"{agent}{len(criteria)}"
        assert (
            run("evaluate", "--episodes", objectnav_data, "--agent", agent, *criteria, "--out", out)[0].exit_code == 0
        )
    result, said = run("report", tmp_path / "expert0", tmp_path / "random0", "--json", tmp_path / "t.json")
    assert result.exit_code == 0 and "ObjectNav, all splits" in said and "judged" not in said
    rows = json.loads((tmp_path / "t.json").read_text())["rows"]
    assert rows["expert"]["success"]["value"] == 1.0 and rows["random"]["success"]["value"] < 1.0
    assert rows["expert"]["episodes"] == rows["random"]["episodes"] == 3
    two = (tmp_path / "expert0", tmp_path / "expert2")  # judged by other criteria: another protocol (issue 32)
    result, said = run("report", *two, "--table", "objectnav", "--split", "val", "--json", tmp_path / "t.json")
    assert result.exit_code == 1 and "a table holds one protocol's runs" in said
    result, said = run("report", two[0], tmp_path / "random0", "--table", "objectnav", "--split", "val")
    assert result.exit_code == 0 and "criteria (distance)" in said
    result, said = run("report", tmp_path / "expert0", "--table", "objectnav", "--split", "test")
    assert result.exit_code == 1 and "has no episodes in split 'test'" in said


def test_limit_and_episode_ids_evaluate_a_subset_and_run_json_says_which(objectnav_data, tmp_path):
    from homesim.evaluation.records import read_records

    result, said = run("evaluate", "--episodes", objectnav_data, "--limit", "2", "--out", tmp_path / "a")
    assert result.exit_code == 0 and "(--limit 2)" in said
    records = read_records(tmp_path / "a" / "records.jsonl")
    assert len(records) == 2 and json.loads((tmp_path / "a" / "run.json").read_text())["limit"] == 2
    chosen = records[1].episode_id
    result, said = run("evaluate", "--episodes", objectnav_data, "--episode-ids", chosen, "--out", tmp_path / "b")
    assert result.exit_code == 0 and [r.episode_id for r in read_records(tmp_path / "b" / "records.jsonl")] == [chosen]
    assert json.loads((tmp_path / "b" / "run.json").read_text())["episode_ids"] == [chosen]
    assert run("report", tmp_path / "b")[0].exit_code == 0
    wrong = ["--episode-ids", f"{chosen},nobody"]
    result, said = run("evaluate", "--episodes", objectnav_data, *wrong, "--out", tmp_path / "c")
    assert result.exit_code == 1 and f"{objectnav_data}: --episode-ids: no episode has the id nobody" in said
    assert not (tmp_path / "c").exists()
    result, said = run("evaluate", "--agent", "random", "--limit", "1", "--out", tmp_path / "d")  # ALFRED built-in
    assert result.exit_code == 0 and len(read_records(tmp_path / "d" / "records.jsonl")) == 1
