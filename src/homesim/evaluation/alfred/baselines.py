"""ALFRED's results tables for several evaluated agents at once, beside the papers' figures: the seed paper's
Table 1 (Seen / Unseen, Task and Goal-Cond with path-weighted figures), the ALFRED paper's Table 3 (the
ablations), Table 4 (path-weighted sub-goal success by sub-goal type) and Table A1 (task success by task type).

A run is one evaluation's summary under a label (its output folder's name); "seen" is ALFRED's valid_seen
split (or test_seen), "unseen" valid_unseen (or test_unseen). A cell a run did not measure is "-".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.report import cell

FOLDS = {"seen": ("valid_seen", "test_seen"), "unseen": ("valid_unseen", "test_unseen")}

# The ALFRED paper's validation figures, in percent, path-weighted in the second place (Table 3)
PAPER_TABLE3: dict[str, dict[str, tuple[tuple[float, float], tuple[float, float]]]] = {
    # model -> fold -> ((task, task PW), (goal-cond, goal-cond PW))
    "No Language": {"seen": ((0.0, 0.0), (5.9, 3.4)), "unseen": ((0.0, 0.0), (6.5, 4.7))},
    "No Vision": {"seen": ((0.0, 0.0), (5.7, 4.7)), "unseen": ((0.0, 0.0), (6.8, 6.0))},
    "Goal-Only": {"seen": ((0.1, 0.0), (6.5, 4.3)), "unseen": ((0.0, 0.0), (6.8, 5.0))},
    "Instructions-Only": {"seen": ((2.3, 1.1), (9.4, 6.1)), "unseen": ((0.0, 0.0), (7.0, 4.9))},
    "Seq2Seq": {"seen": ((2.4, 1.1), (9.4, 5.7)), "unseen": ((0.1, 0.0), (6.8, 4.7))},
    "Seq2Seq+PM": {"seen": ((3.7, 2.1), (10.0, 7.0)), "unseen": ((0.0, 0.0), (6.9, 5.1))},
}
TASK_TYPES = {  # ALFRED's task types, as Table A1 names them
    "pick_and_place_simple": "Pick & Place", "pick_and_place_with_movable_recep": "Stack & Place",
    "pick_two_obj_and_place": "Pick Two", "pick_clean_then_place_in_recep": "Clean & Place",
    "pick_heat_then_place_in_recep": "Heat & Place", "pick_cool_then_place_in_recep": "Cool & Place",
    "look_at_obj_in_light": "Examine",
}  # fmt: skip
# Table A1: task success in percent by task type, (seen, unseen)
PAPER_A1: dict[str, dict[str, tuple[float, float]]] = {
    "No Language": dict.fromkeys(TASK_TYPES, (0.0, 0.0)),
    "Seq2Seq": {
        "pick_and_place_simple": (6.3, 1.0), "pick_and_place_with_movable_recep": (0.0, 0.0),
        "pick_two_obj_and_place": (1.6, 0.0), "pick_clean_then_place_in_recep": (0.0, 0.0),
        "pick_heat_then_place_in_recep": (1.9, 0.0), "pick_cool_then_place_in_recep": (2.4, 0.0),
        "look_at_obj_in_light": (4.3, 0.0),
    },
    "Seq2Seq+PM": {
        "pick_and_place_simple": (7.0, 0.0), "pick_and_place_with_movable_recep": (0.9, 0.0),
        "pick_two_obj_and_place": (0.8, 0.0), "pick_clean_then_place_in_recep": (1.8, 0.0),
        "pick_heat_then_place_in_recep": (1.9, 0.0), "pick_cool_then_place_in_recep": (4.0, 0.0),
        "look_at_obj_in_light": (9.6, 0.0),
    },
}  # fmt: skip
# Table 4: path-weighted sub-goal success in percent, seen fold
PAPER_TABLE4_SEEN: dict[str, dict[str, float]] = {
    "No Language": {"GotoLocation": 28, "PickupObject": 22, "PutObject": 71, "CoolObject": 89, "HeatObject": 87,
                    "CleanObject": 64, "SliceObject": 19, "ToggleObject": 90, "Avg.": 59},
    "Seq2Seq": {"GotoLocation": 49, "PickupObject": 32, "PutObject": 80, "CoolObject": 87, "HeatObject": 85,
                "CleanObject": 82, "SliceObject": 23, "ToggleObject": 97, "Avg.": 67},
    "Seq2Seq+PM": {"GotoLocation": 51, "PickupObject": 32, "PutObject": 81, "CoolObject": 88, "HeatObject": 85,
                   "CleanObject": 81, "SliceObject": 25, "ToggleObject": 100, "Avg.": 68},
}  # fmt: skip
SUBGOAL_COLUMNS = tuple(PAPER_TABLE4_SEEN["Seq2Seq"])


@dataclass(frozen=True)
class Run:
    label: str
    summary: dict


def _fold(run: Run, fold: str) -> dict | None:
    """The run's figures over one fold (seen or unseen), None where it was not evaluated."""
    splits = run.summary.get("splits", {})
    return next((splits[s] for s in FOLDS[fold] if s in splits), None)


def _paper_cells(figures: tuple[tuple[float, float], tuple[float, float]]) -> list[str]:
    return [f"{value:.1f} ({weighted:.1f})" for value, weighted in figures]


def _run_cells(run: Run, fold: str) -> list[str]:
    figures = _fold(run, fold)
    if figures is None:
        return ["-", "-"]
    overall = figures["all"]
    return [cell(overall, "task_success", "plw_task_success"), cell(overall, "goal_condition_success",
            "plw_goal_condition_success")]  # fmt: skip


def success_table(runs: Sequence[Run], title: str, paper_rows: Sequence[str]) -> Table:
    """Seen and unseen Task and Goal-Cond success (path-weighted in parentheses, 95% interval after), one row
    per run, then the paper's rows named in `paper_rows` (the seed paper's Table 1, the ALFRED paper's Table 3)."""
    table = Table(title=title)
    table.add_column("model")
    for fold in FOLDS:
        table.add_column(f"{fold}: Task (PW) [95% CI]", justify="right")
        table.add_column(f"{fold}: Goal-Cond (PW) [95% CI]", justify="right")
    for i, run in enumerate(runs):
        table.add_row(run.label, *_run_cells(run, "seen"), *_run_cells(run, "unseen"), end_section=i == len(runs) - 1)
    for name in paper_rows:
        figures = PAPER_TABLE3[name]
        table.add_row(f"ALFRED paper: {name}", *_paper_cells(figures["seen"]), *_paper_cells(figures["unseen"]),
                      style="dim")  # fmt: skip
    return table


def task_types_table(runs: Sequence[Run], fold: str) -> Table:
    """Task success by task type on one fold, per run and for the paper's models (Table A1)."""
    table = Table(title=f"Table A1: task success (%) by task type, {fold}")
    table.add_column("model")
    for name in TASK_TYPES.values():
        table.add_column(name, justify="right")
    for i, run in enumerate(runs):
        by_type = (_fold(run, fold) or {}).get("by_task_type", {})
        values = [by_type.get(t, {}).get("task_success", {}).get("value") for t in TASK_TYPES]
        cells = ["-" if v is None else f"{100 * v:.1f}" for v in values]
        table.add_row(run.label, *cells, end_section=i == len(runs) - 1)
    column = tuple(FOLDS).index(fold)
    for name, figures in PAPER_A1.items():
        table.add_row(f"ALFRED paper: {name}", *(f"{figures[t][column]:.1f}" for t in TASK_TYPES), style="dim")
    return table


def subgoal_table(runs: Sequence[Run]) -> Table:
    """Path-weighted sub-goal success by sub-goal type on the seen fold, per run (runs of `--subgoals`
    evaluations) and for the paper's models (Table 4, seen)."""
    table = Table(title="Table 4: path-weighted sub-goal success (%), seen")
    table.add_column("model")
    for column in SUBGOAL_COLUMNS:
        table.add_column(column, justify="right")
    for run in runs:
        by_kind = next((run.summary.get("subgoals", {}).get(s) for s in FOLDS["seen"]
                        if s in run.summary.get("subgoals", {})), None)  # fmt: skip
        if by_kind is None:
            continue
        row = []
        for column in SUBGOAL_COLUMNS[:-1]:
            value = by_kind.get(column, {}).get("plw_task_success", {}).get("value")
            row.append("-" if value is None else f"{100 * value:.0f}")
        measured = [float(v) for v in row if v != "-"]
        row.append(f"{sum(measured) / len(measured):.0f}" if measured else "-")
        table.add_row(run.label, *row)
    for name, figures in PAPER_TABLE4_SEEN.items():
        table.add_row(f"ALFRED paper: {name}", *(str(figures[c]) for c in SUBGOAL_COLUMNS), style="dim")
    return table


def baselines_tables(runs: Sequence[Run]) -> list[Table]:
    """Every table the runs have figures for: Table 1 and Table 3 (episode runs), A1, and Table 4 (sub-goal runs)."""
    episodes = [run for run in runs if not run.summary["config"].get("subgoals")]
    subgoals = [run for run in runs if run.summary["config"].get("subgoals")]
    tables = []
    if episodes:
        tables.append(success_table(episodes, "Table 1: ALFRED validation, success (%)", ["Seq2Seq+PM"]))
        tables.append(success_table(episodes, "Table 3: ablations beside the ALFRED paper's", list(PAPER_TABLE3)))
        tables += [task_types_table(episodes, fold) for fold in FOLDS if any(_fold(r, fold) for r in episodes)]
    if subgoals:
        tables.append(subgoal_table(subgoals))
    return tables


def compare_runs(runs: Sequence[tuple[Path, Any, Sequence[EpisodeRecord]]], split: str | None) -> tuple[list, dict, list]:
    """`homesim report RUN... --table baselines`: the tables over runs labelled by their folders' names, their
    summaries (for --json), and a note for each run with no seen or unseen split."""
    from homesim.evaluation.evaluate import summary_of  # the evaluator knows the suites, this among them

    labelled, notes = [], []
    for out, config, records in runs:
        labelled.append(Run(out.name, summary_of(records, config)))
        measured = set(labelled[-1].summary["splits"]) | set(labelled[-1].summary.get("subgoals", {}))
        if not measured & {s for splits in FOLDS.values() for s in splits}:
            others = ", ".join(sorted(measured)) or "none"
            notes.append(f"{out} has no seen or unseen split (ALFRED's valid_* or test_*), only: {others}")
    return baselines_tables(labelled), {run.label: run.summary for run in labelled}, notes
