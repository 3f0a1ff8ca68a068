"""ObjectNav's summary tables: Success, SPL and SoftSPL in percent and the distance to goal in metres, each
with its 95% bootstrap interval; one row per split, then per difficulty bin and per target category."""

from __future__ import annotations

from rich.table import Table

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


def objectnav_table(summary: dict, title: str) -> Table:
    """One bold row per split, then its difficulty bins (easy, medium, hard) and its categories."""
    criteria = ", ".join(summary["config"].get("options", {}).get("criteria", ()))
    table = Table(title=title + (f" (criteria: {criteria})" if criteria else ""))
    table.add_column("split / group")
    for heading in ("episodes", *(f"{c[0]} [95% CI]" for c in COLUMNS), "steps", "collisions"):
        table.add_column(heading, justify="right")
    for split, figures in sorted(summary["splits"].items()):
        table.add_row(split or "(no split)", *_row(figures["all"]), style="bold")
        bins = figures["by_difficulty"]
        for name in sorted(bins, key=lambda b: (("easy", "medium", "hard") + (b,)).index(b)):
            table.add_row(f"  {name}", *_row(bins[name]))
        categories = list(figures["by_category"].items())
        for i, (name, by_category) in enumerate(categories):
            table.add_row(f"  {name}", *_row(by_category), end_section=i == len(categories) - 1)
    return table
