"""Summary tables in the ALFRED paper's layout: Task and Goal-Cond success in percent, the
path-length-weighted figure in parentheses, the 95% bootstrap interval after it."""

from __future__ import annotations

from rich.table import Table

from homesim.datasets.alfred.generate import SPLITS


def in_split_order(splits: dict) -> list:
    """(split, figures) with ALFRED's splits in ALFRED's order (train, valid, test), as generation lists
    them, and any other split after them by name."""
    return sorted(splits.items(), key=lambda kv: (SPLITS.index(kv[0]) if kv[0] in SPLITS else len(SPLITS), kv[0]))


def cell(figures: dict, metric: str, plw: str) -> str:
    value, interval, weighted = figures[metric]["value"], figures[metric]["ci95"], figures[plw]["value"]
    if value is None:
        return "-"
    text = f"{100 * value:.1f} ({100 * weighted:.1f})" if weighted is not None else f"{100 * value:.1f} (-)"
    return text + (f" [{100 * interval[0]:.1f}-{100 * interval[1]:.1f}]" if interval else "")


def _mean(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _row(figures: dict, text: bool) -> list[str]:
    row = [
        str(figures["episodes"]),
        cell(figures, "task_success", "plw_task_success"),
        cell(figures, "goal_condition_success", "plw_goal_condition_success"),
        _mean(figures.get("mean_path_length")),
    ]
    return row + [_mean(figures.get("mean_commands"))] if text else row


def splits_table(summary: dict, title: str) -> Table:
    """One row per split (the paper's Table 2), then one per task type within it (its Table A1). Text-game
    runs get a column of text commands beside the low-level path length."""
    text = summary["config"].get("interface") == "text"
    table = Table(title=title)
    columns = ["split / task type", "episodes", "Task (PLW) [95% CI]", "Goal-Cond (PLW) [95% CI]", "steps"]
    for column in columns + (["commands"] if text else []):
        table.add_column(column, justify="left" if column.startswith("split") else "right")
    for split, figures in in_split_order(summary["splits"]):
        table.add_row(split or "(no split)", *_row(figures["all"], text), style="bold")
        for task_type, by_type in figures["by_task_type"].items():
            last = task_type == list(figures["by_task_type"])[-1]
            table.add_row(f"  {task_type}", *_row(by_type, text), end_section=last)
    return table


def subgoals_table(summary: dict) -> Table:
    """Sub-goal success (PLW) per sub-goal type and split (the paper's Table 4)."""
    table = Table(title="sub-goal evaluation: success (PLW) [95% CI]")
    table.add_column("split / sub-goal")
    table.add_column("episodes", justify="right")
    table.add_column("success (PLW) [95% CI]", justify="right")
    for split, by_kind in in_split_order(summary["subgoals"]):
        for kind, figures in by_kind.items():
            table.add_row(
                f"{split} {kind}", str(figures["episodes"]), cell(figures, "task_success", "plw_task_success")
            )
    return table


def agent_table(reported: dict, title: str = "what the agent reported") -> Table:
    """A run's `summary["agent"]` (`metrics.agent_summary`): each figure in total and per episode."""
    table = Table(title=title)
    for column in ("figure", "total", "per episode"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    episodes = reported["episodes"]
    for name, value in reported.items():
        if name == "episodes":
            continue
        if isinstance(value, dict):
            table.add_row(name, ", ".join(f"{k} {v:g}" for k, v in value.items()) or "-", "")
        else:
            table.add_row(name, f"{value:g}", f"{value / episodes:.2f}" if episodes else "-")
    return table
