"""`homesim evaluate` / `homesim report` and `homesim.evaluation.evaluate.evaluate`: ALFRED's figures for the
expert and the random agent on real data, identical output for any number of workers, records kept
when a run is interrupted, sub-goal evaluation, and bad input refused with a clear message."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.cli import app
from homesim.datasets.alfred.importer import import_alfred
from homesim.datasets.folder import write_dataset
from homesim.evaluation.alfred.subgoals import SUBGOAL_TYPES
from homesim.evaluation.alfred.suite import work_items
from homesim.evaluation.evaluate import EvaluationConfig, chunks_of, evaluate, read_run, summary_of
from homesim.evaluation.records import read_records
from homesim.files import partial_of
from homesim.tasks.alfred import TASK_TYPES

METRICS = ("task_success", "goal_condition_success", "plw_task_success", "plw_goal_condition_success")


class StopAgent:
    """Stops at once (loaded by the CLI as `test_evaluate:StopAgent`)."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def reset(self, task: TaskSpec) -> None:
        pass

    def act(self, observation: dict) -> AgentAction:
        return AgentAction("Stop")


def run(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def said(result) -> str:
    text = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += f"\n{type(result.exception).__name__}: {result.exception}"
    return text


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def samples_args(alfred_samples, alfred_layouts) -> list:
    return ["--episodes", alfred_samples, "--layouts", alfred_layouts]


@pytest.fixture(scope="module")
def cli_runs(samples_args, tmp_path_factory) -> dict[str, Path]:
    """The 70 samples (227 annotations), evaluated through the CLI: the expert with 1 worker, the random
    agent (whose actions depend on the seed and the episode, so the stronger check) with 1 and 2."""
    outs = {}
    for agent, workers_options in (("expert", (1,)), ("random", (1, 2))):
        for workers in workers_options:
            out = tmp_path_factory.mktemp(f"{agent}-{workers}")
            result = run("evaluate", *samples_args, "--agent", agent, "--workers", workers, "--out", out)
            assert result.exit_code == 0, said(result)
            outs[f"{agent}-{workers}"] = out
            outs[f"{agent}-{workers}-output"] = result.output
    return outs


@pytest.fixture(scope="module")
def samples(alfred_samples, alfred_layouts):
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts)
    assert errors == []
    return splits, scenes


# --- the 70 samples -------------------------------------------------------------------------------------------


def test_the_expert_solves_every_sample(cli_runs):
    summary = json.loads((cli_runs["expert-1"] / "summary.json").read_text())
    assert set(summary) == {"config", "splits", "subgoals"}
    assert summary["subgoals"] == {}
    assert set(summary["splits"]) == {"train", "valid_seen"}
    assert sum(s["all"]["episodes"] for s in summary["splits"].values()) == 227
    for figures in summary["splits"].values():
        assert set(figures["by_task_type"]) == set(TASK_TYPES)
        for name in ("task_success", "goal_condition_success"):
            assert figures["all"][name] == {"value": 1.0, "ci95": [1.0, 1.0]}, name
        for name in ("plw_task_success", "plw_goal_condition_success"):  # the live expert's own paths
            assert figures["all"][name]["value"] >= 0.98, name
    records = read_records(cli_runs["expert-1"] / "records.jsonl")
    assert len(records) == 227
    assert all(r.goal_satisfied and r.end_reason == "stop" and not r.failures for r in records)


def test_the_random_agent_solves_no_sample(cli_runs):
    summary = json.loads((cli_runs["random-1"] / "summary.json").read_text())
    for figures in summary["splits"].values():
        assert figures["all"]["task_success"]["value"] == 0.0
        assert figures["all"]["plw_task_success"]["value"] == 0.0
    records = read_records(cli_runs["random-1"] / "records.jsonl")
    assert len(records) == 227
    assert {r.end_reason for r in records} <= {"stop", "max_fails", "max_steps"}
    assert all(r.path_length <= 1000 and len(r.failures) <= 10 for r in records)


def test_the_table_is_printed_in_the_papers_layout(cli_runs):
    output = cli_runs["expert-1-output"]
    assert "Task (PLW) [95% CI]" in output and "Goal-Cond (PLW) [95% CI]" in output
    assert "valid_seen" in output and "pick_heat_then_place_in_recep" in output
    assert "100.0 (100.0) [100.0-100.0]" in output
    assert f"records and summary written to {cli_runs['expert-1']}" in flat(output)


def test_two_workers_write_the_same_bytes_as_one(cli_runs):
    one, two = cli_runs["random-1"], cli_runs["random-2"]
    assert len(read_records(two / "records.jsonl")) == 227
    for name in ("records.jsonl", "summary.json", "run.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_records_are_written_in_a_fixed_order(cli_runs):
    records = read_records(cli_runs["random-1"] / "records.jsonl")
    assert [r.key for r in records] == sorted(r.key for r in records)
    assert len({r.key for r in records}) == len(records)


def test_run_json_holds_the_config(cli_runs):
    config = read_run(cli_runs["random-2"])
    assert config == EvaluationConfig(agent="random", seed=0, observation_filter="none", subgoals=False)
    assert (config.max_steps, config.max_fails) == (1000, 10)


# --- homesim report --------------------------------------------------------------------------------------------


def test_report_recomputes_the_summary_exactly(cli_runs):
    for key in ("expert-1", "random-1"):
        result = run("report", cli_runs[key])
        assert result.exit_code == 0, said(result)
        assert "summary.json matches the records" in result.output
        records = read_records(cli_runs[key] / "records.jsonl")
        recomputed = summary_of(records, read_run(cli_runs[key]))
        assert json.dumps(recomputed, indent=1, sort_keys=True) == (cli_runs[key] / "summary.json").read_text()


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "no manifest (an older run)"])
def test_report_fails_when_summary_json_was_tampered_with(cli_runs, tmp_path, manifest):
    out = _copy(cli_runs["random-1"], tmp_path / "tampered")
    if not manifest:
        (out / "manifest.json").unlink()
    summary = json.loads((out / "summary.json").read_text())
    summary["splits"]["valid_seen"]["all"]["task_success"]["value"] = 0.5
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    result = run("report", out)
    assert result.exit_code != 0
    said = " ".join(result.output.split())
    assert ("summary.json: (file): its content changed since" if manifest else "summary.json differs") in said


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "no manifest (an older run)"])
def test_report_fails_when_a_record_went_missing(cli_runs, tmp_path, manifest):
    out = _copy(cli_runs["random-1"], tmp_path / "short")
    if not manifest:
        (out / "manifest.json").unlink()
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:-1]))
    result = run("report", out)
    said = " ".join(result.output.split())
    assert result.exit_code != 0 and ("records.jsonl: (file):" if manifest else "differs") in said


def test_report_on_broken_records_says_so(cli_runs, tmp_path):
    out = _copy(cli_runs["random-1"], tmp_path / "broken")
    (out / "manifest.json").unlink()  # as a run made before manifests: the broken line itself is read
    with open(out / "records.jsonl", "a") as records:
        records.write('{"episode_id": "x"}\n')
    result = run("report", out)
    assert result.exit_code != 0
    assert "cannot read the evaluation" in result.output and "records.jsonl:228" in flat(result.output)


def test_report_on_an_interrupted_run_says_it_is_partial_with_the_count(cli_runs, tmp_path):
    out = _copy(cli_runs["expert-1"], tmp_path / "cut")
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:15]))
    for name in ("summary.json", "manifest.json"):  # as the kill left it
        (out / name).unlink()
    result = run("report", out)
    assert result.exit_code == 0, said(result)
    assert "Task (PLW)" in result.output and "PARTIAL" in result.output
    assert f"partial evaluation: 15 of {len(lines)} work items played" in " ".join(result.output.split())


def test_report_on_a_run_not_finished_reads_its_partial_folder(cli_runs, tmp_path):
    out = tmp_path / "eval"
    _copy(cli_runs["expert-1"], partial_of(out))
    (partial_of(out) / "manifest.json").unlink()
    (partial_of(out) / "summary.json").unlink()
    result = run("report", out)
    assert result.exit_code == 0, said(result)
    assert f"{out} is not finished: reading {partial_of(out)}" in " ".join(result.output.split())


# --- records survive an interrupted run ------------------------------------------------------------------------


class Interrupted(Exception):
    pass


def _interrupting_after(n: int):
    def progress(items, total):
        for count, item in enumerate(items):
            if count == n:
                raise Interrupted(f"stopped after {n}")
            yield item

    return progress


@pytest.mark.parametrize("workers", [1, 2])
def test_records_are_appended_as_episodes_finish_and_a_rerun_continues(samples, tmp_path, workers):
    splits, scenes = samples
    valid_seen = {"valid_seen": splits["valid_seen"]}
    out = tmp_path / "run"
    with pytest.raises(Interrupted):
        interrupt = _interrupting_after(5 if workers == 1 else 1)  # 5 episodes, or 1 chunk (one of the first two)
        evaluate(valid_seen, scenes, EvaluationConfig("random"), out, workers, interrupt)
    assert not out.exists()  # the run is made beside, and appears whole
    partial = read_records(partial_of(out) / "records.jsonl")
    first_chunks = chunks_of(work_items(valid_seen, subgoals=False), valid_seen, workers)[:2]
    assert len(partial) == 5 if workers == 1 else len(partial) in {len(chunk) for chunk in first_chunks}
    assert not (partial_of(out) / "summary.json").exists()
    complete = tmp_path / "complete"
    evaluate(valid_seen, scenes, EvaluationConfig("random"), complete)
    full = read_records(complete / "records.jsonl")
    assert all(record in full for record in partial)
    if workers == 1:  # in work-item order
        items = work_items(valid_seen, subgoals=False)[:5]
        assert [(r.episode_id, r.annotation) for r in partial] == [
            (valid_seen["valid_seen"][i].id, annotation) for _, i, annotation, _ in items
        ]
    played = []
    evaluate(valid_seen, scenes, EvaluationConfig("random"), out, workers, _counting(played))  # continued
    assert len(played) == len(full) - len(partial) if workers == 1 else played
    assert not partial_of(out).exists()
    for name in ("run.json", "records.jsonl", "summary.json", "manifest.json"):
        assert (out / name).read_bytes() == (complete / name).read_bytes(), name


def _counting(seen: list):
    def progress(items, total):
        for item in items:
            seen.append(item)
            yield item

    return progress


# --- sub-goal evaluation ---------------------------------------------------------------------------------------


def test_subgoal_evaluation_of_the_expert(samples_args, tmp_path):
    result = run("evaluate", *samples_args, "--agent", "expert", "--subgoals", "--out", tmp_path)
    assert result.exit_code == 0, said(result)
    assert "sub-goal evaluation" in result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["splits"] == {} and set(summary["subgoals"]) == {"train", "valid_seen"}
    kinds = set()
    for by_kind in summary["subgoals"].values():
        assert set(by_kind) <= set(SUBGOAL_TYPES)
        kinds |= set(by_kind)
        for kind, figures in by_kind.items():
            assert figures["task_success"]["value"] == 1.0, kind
            assert figures["plw_task_success"]["value"] == 1.0, kind
    assert kinds == set(SUBGOAL_TYPES)  # the samples hold every sub-goal type
    records = read_records(tmp_path / "records.jsonl")
    assert all(r.subgoal is not None and r.subgoal["success"] and r.end_reason == "subgoal_done" for r in records)
    # a sub-goal ends the moment it is done (GotoLocation within reach, HeatObject once the microwave heats...)
    assert all(0 < r.path_length <= r.reference_length for r in records)
    report = run("report", tmp_path)
    assert report.exit_code == 0 and "summary.json matches the records" in report.output


# --- valid_seen: the acceptance figures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def valid_seen(alfred_trajectories, alfred_layouts):
    splits, scenes, errors = import_alfred(alfred_trajectories / "valid_seen.jsonl.gz", alfred_layouts)
    assert errors == [] and len(splits["valid_seen"]) == 251
    return splits, scenes


def test_valid_seen_expert_at_least_98_percent(valid_seen, tmp_path):
    splits, scenes = valid_seen
    summary = evaluate(splits, scenes, EvaluationConfig("expert"), tmp_path)
    figures = summary["splits"]["valid_seen"]["all"]
    assert figures["episodes"] == 820
    for name in METRICS:
        assert figures[name]["value"] >= 0.98, name


def test_valid_seen_random_agent_zero(valid_seen, tmp_path):
    splits, scenes = valid_seen
    summary = evaluate(splits, scenes, EvaluationConfig("random"), tmp_path)
    figures = summary["splits"]["valid_seen"]["all"]
    assert figures["episodes"] == 820
    assert figures["task_success"] == {"value": 0.0, "ci95": [0.0, 0.0]}


# --- the built-in episodes and custom agents ------------------------------------------------------------------------


def test_evaluate_without_episodes_runs_the_builtin_ones(tmp_path):
    result = run("evaluate", "--out", tmp_path)
    assert result.exit_code == 0, said(result)
    assert "built-in episodes" in result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    builtin = summary["splits"]["builtin"]["all"]
    assert builtin["episodes"] == 4
    # no demonstration to follow: the live expert plans each task itself; no expert length to weight by
    assert builtin["task_success"]["value"] == 1.0
    assert builtin["plw_task_success"] == {"value": None, "ci95": None}


def test_evaluate_a_custom_agent_by_module_path(tmp_path):
    result = run("evaluate", "--agent", f"{__name__}:StopAgent", "--out", tmp_path)
    assert result.exit_code == 0, said(result)
    records = read_records(tmp_path / "records.jsonl")
    assert len(records) == 4 and all(r.path_length == 0 and r.end_reason == "stop" for r in records)


def test_evaluate_a_dataset_folder_and_one_split(samples, tmp_path):
    splits, scenes = samples
    write_dataset(tmp_path / "dataset", splits, scenes, {})
    result = run("evaluate", "--episodes", tmp_path / "dataset", "--split", "valid_seen", "--out", tmp_path / "out")
    assert result.exit_code == 0, said(result)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert list(summary["splits"]) == ["valid_seen"]
    assert summary["splits"]["valid_seen"]["all"]["episodes"] == 48
    assert summary["splits"]["valid_seen"]["all"]["task_success"]["value"] == 1.0


def test_an_ablation_is_recorded_in_the_config(tmp_path):
    result = run("evaluate", "--agent", "random", "--ablation", "no_language", "--seed", "3", "--out", tmp_path)
    assert result.exit_code == 0, said(result)
    assert read_run(tmp_path) == EvaluationConfig(agent="random", seed=3, observation_filter="no_language")


# --- bad input ---------------------------------------------------------------------------------------------------------


def test_an_unknown_agent(tmp_path):
    result = run("evaluate", "--agent", "clever", "--out", tmp_path)
    assert result.exit_code != 0
    assert "unknown agent 'clever'" in flat(result.output)


def test_an_agent_module_that_does_not_exist(tmp_path):
    result = run("evaluate", "--agent", "no_such_module_anywhere:Agent", "--out", tmp_path)
    assert result.exit_code != 0
    assert "cannot load agent" in flat(result.output)


def test_an_unknown_ablation(tmp_path):
    result = run("evaluate", "--ablation", "no_smell", "--out", tmp_path)
    assert result.exit_code != 0
    assert "unknown ablation" in flat(result.output) and "no_language" in result.output


def test_an_unknown_suite(tmp_path):
    result = run("evaluate", "--suite", "habitat", "--out", tmp_path)
    assert result.exit_code != 0 and "unknown suite 'habitat'; known: alfred" in flat(result.output)


def test_trajectories_without_layouts(alfred_samples, tmp_path):
    result = run("evaluate", "--episodes", alfred_samples, "--out", tmp_path)
    assert result.exit_code != 0
    assert "holds ALFRED trajectories: give --layouts" in flat(result.output)


def test_a_broken_json_file_is_reported_as_broken_not_as_a_missing_option(tmp_path):
    broken = tmp_path / "bad.json"
    broken.write_text('{"task_type": "pick_and_place_simple", ')
    result = run("evaluate", "--episodes", broken, "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert f"cannot read the episodes: {broken}: (file): not valid JSON" in flat(result.output)
    assert "--layouts" not in result.output


def test_a_dataset_split_file_given_directly_is_read_with_its_folder(tmp_path):
    data = tmp_path / "data"
    assert run("generate", "alfred", "--episodes", 10, "--out", data).exit_code == 0
    result = run("evaluate", "--episodes", data / "train.jsonl.gz", "--out", tmp_path / "out")
    assert result.exit_code == 0, said(result)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert list(summary["splits"]) == ["train"] and summary["splits"]["train"]["all"]["task_success"]["value"] == 1.0


def test_a_dataset_folder_with_a_broken_manifest(tmp_path):
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "dataset.json").write_text('{"version": 1,')
    result = run("evaluate", "--episodes", dataset, "--out", tmp_path / "out")
    assert result.exit_code == 1, said(result)
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback
    assert "cannot read the episodes" in flat(result.output)
    assert str(dataset / "dataset.json") in flat(result.output)


def test_a_dataset_folder_without_the_split(samples, tmp_path):
    splits, scenes = samples
    write_dataset(tmp_path / "dataset", {"valid_seen": splits["valid_seen"][:2]}, scenes, {})
    result = run("evaluate", "--episodes", tmp_path / "dataset", "--split", "tests_unseen", "--out", tmp_path / "o")
    assert result.exit_code == 1, said(result)
    assert "no split 'tests_unseen'" in flat(result.output)


def test_trajectories_with_no_episode_of_the_split(samples_args, tmp_path):
    result = run("evaluate", *samples_args, "--split", "tests_unseen", "--out", tmp_path)
    assert result.exit_code == 1, said(result)
    assert "no episodes to evaluate" in flat(result.output)


def test_episodes_that_do_not_exist(tmp_path):
    result = run("evaluate", "--episodes", tmp_path / "nothing-here", "--out", tmp_path / "out")
    assert result.exit_code != 0
    assert "does not exist" in flat(result.output)


def test_zero_workers(tmp_path):
    result = run("evaluate", "--workers", "0", "--out", tmp_path)
    assert result.exit_code != 0 and "--workers" in result.output


def test_report_of_a_folder_that_is_no_evaluation(tmp_path):
    result = run("report", tmp_path)
    assert result.exit_code == 1
    assert "cannot read the evaluation" in flat(result.output)
