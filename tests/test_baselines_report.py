"""ALFRED's baseline tables: runs' figures land in the paper's layouts beside the paper's rows."""

import json

from rich.console import Console

from homesim.evaluation.alfred.baselines import Run, baselines_tables


def figures(task: float, goal: float, by_type: dict | None = None) -> dict:
    def metric(value):
        return {"value": value, "ci95": [value / 2, value * 1.5]}

    overall = {"episodes": 10, "task_success": metric(task), "plw_task_success": metric(task / 2),
               "goal_condition_success": metric(goal), "plw_goal_condition_success": metric(goal / 2)}  # fmt: skip
    return {"all": overall, "by_task_type": by_type or {}}


def text(tables) -> str:
    console = Console(width=250, record=True)
    for table in tables:
        console.print(table)
    return console.export_text()


def test_seen_and_unseen_figures_and_task_types_fill_the_tables():
    by_type = {"look_at_obj_in_light": {"task_success": {"value": 0.25}}}
    summary = {"config": {"subgoals": False},
               "splits": {"valid_seen": figures(0.1, 0.2, by_type), "valid_unseen": figures(0.02, 0.08)}}  # fmt: skip
    out = text(baselines_tables([Run("seq2seq_pm", summary)]))
    assert "Table 1" in out and "Table 3" in out and "by task type, seen" in out and "by task type, unseen" in out
    row = next(line for line in out.splitlines() if "seq2seq_pm" in line)
    assert "10.0 (5.0) [5.0-15.0]" in row and "20.0 (10.0) [10.0-30.0]" in row and "2.0 (1.0)" in row
    examine = [line for line in out.splitlines() if line.startswith("│ seq2seq_pm") and "25.0" in line]
    assert examine, "Examine's 25% task success is in the seen A1 row"
    assert "ALFRED paper: Seq2Seq+PM" in out and "3.7 (2.1)" in out


def test_a_run_without_the_unseen_fold_shows_dashes_and_subgoal_runs_fill_table_4():
    episodes = {"config": {"subgoals": False}, "splits": {"valid_seen": figures(0.0, 0.05)}}
    kinds = {"GotoLocation": {"plw_task_success": {"value": 0.5}}, "PickupObject": {"plw_task_success": {"value": 0.3}}}
    subgoals = {"config": {"subgoals": True}, "subgoals": {"valid_seen": kinds}}
    out = text(baselines_tables([Run("no_language", episodes), Run("s2s sub-goals", subgoals)]))
    row = next(line for line in out.splitlines() if line.startswith("│ no_language "))
    assert row.count(" - ") >= 2  # no unseen figures
    assert "by task type, unseen" not in out
    sub = next(line for line in out.splitlines() if "s2s sub-goals" in line)
    assert "50" in sub and "30" in sub and sub.rstrip("│ ").endswith("40")  # the average of what was measured


def test_report_compares_alfred_runs_in_the_baselines_tables(tmp_path):
    from typer.testing import CliRunner

    from homesim.cli import app

    runner = CliRunner()
    for agent in ("random", "expert"):
        assert runner.invoke(app, ["evaluate", "--agent", agent, "--out", str(tmp_path / agent)]).exit_code == 0
    result = runner.invoke(app, ["report", str(tmp_path / "random"), str(tmp_path / "expert"), "--json",
                                 str(tmp_path / "t.json")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Table 1" in result.output and "no seen or unseen split" in result.output
    assert set(json.loads((tmp_path / "t.json").read_text())) == {"random", "expert"}
    wrong = runner.invoke(app, ["report", str(tmp_path / "random"), "--table", "handmethat"])
    assert wrong.exit_code == 1 and "Traceback" not in wrong.output
