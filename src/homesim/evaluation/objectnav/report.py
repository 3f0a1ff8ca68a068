"""ObjectNav's summary tables: Success, SPL and SoftSPL in percent and the distance to goal in metres, each
with its 95% bootstrap interval; one row per split, then per difficulty bin and per target category. Several
runs compare in one table (`homesim report RUN... --table objectnav`), a row per run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from homesim.evaluation.metrics import figures as figures_of
from homesim.evaluation.objectnav.metrics import OBJECTNAV_METRICS
from homesim.evaluation.records import EpisodeRecord
from homesim.tasks.objectnav_criteria import DEFAULT_CRITERIA

COLUMNS = (
    ("Success", "success", True),
    ("SPL", "spl", True),
    ("SoftSPL", "soft_spl", True),
    ("DTG (m)", "distance_to_goal", False),
)


def _cell(figures: dict, name: str, percent: bool) -> str:
    value, interval = figures[name]["value"], figures[name]["ci95"]
    if value is None:
        return "-"
    scale, digits = (100.0, 1) if percent else (1.0, 2)
    text = f"{scale * value:.{digits}f}"
    return text + (f" [{scale * interval[0]:.{digits}f}-{scale * interval[1]:.{digits}f}]" if interval else "")


def _row(figures: dict) -> list[str]:
    steps, collisions = figures["num_steps"]["value"], figures["collisions"]["value"]
    return [
        str(figures["episodes"]),
        *(_cell(figures, name, percent) for _, name, percent in COLUMNS),
        "-" if steps is None else f"{steps:.1f}",
        "-" if collisions is None else f"{collisions:.1f}",
    ]


def _columns(table: Table) -> None:
    for heading in ("episodes", *(f"{c[0]} [95% CI]" for c in COLUMNS), "steps", "collisions"):
        table.add_column(heading, justify="right")


def objectnav_table(summary: dict, title: str) -> Table:
    """One bold row per split, then its difficulty bins (easy, medium, hard) and its categories."""
    criteria = ", ".join(summary["config"].get("options", {}).get("criteria", ()))
    table = Table(title=title + (f" (criteria: {criteria})" if criteria else ""))
    table.add_column("split / group")
    _columns(table)
    for split, figures in sorted(summary["splits"].items()):
        table.add_row(split or "(no split)", *_row(figures["all"]), style="bold")
        bins = figures["by_difficulty"]
        for name in sorted(bins, key=lambda b: (("easy", "medium", "hard") + (b,)).index(b)):
            table.add_row(f"  {name}", *_row(bins[name]))
        categories = list(figures["by_category"].items())
        for i, (name, by_category) in enumerate(categories):
            table.add_row(f"  {name}", *_row(by_category), end_section=i == len(categories) - 1)
    return table


def compare_runs(
    runs: Sequence[tuple[Path, Any, Sequence[EpisodeRecord]]], split: str | None
) -> tuple[list, dict, list]:
    """`homesim report RUN... --table objectnav`: a row per run (its agent; its folder too where two runs share
    an agent), over `split`'s episodes or all of them, with the criteria and success distance it was judged
    by (one protocol's: `report` refuses runs judged by different rules); a note where runs played different
    episodes. A ValueError names a run with no episodes in `split`."""
    table = Table(title=f"ObjectNav, {split or 'all splits'}")
    table.add_column("run")
    table.add_column("criteria (distance)", max_width=40)
    _columns(table)
    rows, played, agents = {}, set(), [config.agent for _, config, _ in runs]
    for out, config, records in runs:
        chosen = [r for r in records if split is None or r.split == split]
        if not chosen:
            raise ValueError(f"{out} has no episodes{f' in split {split!r}' if split else ''}")
        label = config.agent if agents.count(config.agent) == 1 else f"{config.agent} ({out})"
        found = figures_of(chosen, metrics=OBJECTNAV_METRICS)
        rows[label] = found | {"options": config.options}
        criteria = ",".join(config.options.get("criteria", ()))
        criteria = "the default four" if criteria == ",".join(DEFAULT_CRITERIA) else criteria
        distance = config.options.get("success_distance")
        played.add(frozenset((r.split, r.episode_id) for r in chosen))
        table.add_row(label, f"{criteria} ({distance:g} m)" if distance else criteria, *_row(found))
    notes = ["the runs played different episodes"] if len(played) > 1 else []
    return [table], {"split": split, "rows": rows}, notes
