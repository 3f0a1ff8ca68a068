"""HandMeThat's tables in the layout of the paper's Tables 2 and 3: a row per agent (or split), a column per
hardness level 1 to 4 and one overall, under the observability they were run in (partially, fully); each
cell the paper's "score (success %, moves in successful episodes)" with the 95% bootstrap intervals of
the score and the success rate under it. `homesim evaluate --suite handmethat` prints one run's splits
(with a column per quest type after the paper's); `homesim report RUN... --table handmethat` compares runs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from homesim.evaluation.handmethat.metrics import HANDMETHAT_METRICS
from homesim.evaluation.metrics import figures
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.report import in_split_order

LEVELS = tuple(f"level {n}" for n in range(1, 5))
OVERALL = "overall"
QUEST_TYPES = ("bring_me", "move_to", "change_state")
SETTINGS = {"partial": "Partially Observable", "full": "Fully Observable"}  # the paper's order


# The paper's Tables 2 (partially observable) and 3 (fully): per model, per level 1 to 4, the score, the
# success rate (%) and the moves in successful episodes (None for their N/A); their Human rows have no score.
PUBLISHED: dict[str, dict[str, tuple[tuple[float, float, float | None], ...]]] = {
    "partial": {
        "Random": ((-40.0, 0.0, None), (-39.5, 0.4, 16.0), (-40.0, 0.0, None), (-40.0, 0.0, None)),
        "Seq2Seq": ((-5.4, 25.5, 4.2), (-25.8, 10.4, 4.1), (-34.7, 3.9, 4.1), (-32.8, 5.3, 4.1)),
        "+goal": ((-11.4, 21.0, 4.1), (-28.8, 8.2, 4.1), (-30.0, 7.4, 4.2), (-32.5, 5.5, 4.0)),
        "+subgoal": ((-10.1, 22.0, 4.1), (-18.7, 15.7, 4.1), (-24.5, 11.4, 4.1), (-21.9, 13.4, 4.1)),
        "DRRN": ((-40.0, 0.0, None),) * 4,
    },
    "full": {
        "Heuristic": ((88.9, 94.9, 4.2), (-1.9, 28.1, 4.4), (-23.7, 12.0, 4.3), (-15.9, 17.8, 4.4)),
        "Random": ((-40.0, 0.0, None), (-39.8, 0.1, 30.0), (-40.0, 0.0, None), (-40.0, 0.0, None)),
        "Seq2Seq": ((-9.5, 22.4, 4.0), (-30.7, 6.8, 4.3), (-34.6, 4.0, 4.3), (-32.5, 5.5, 4.1)),
        "+goal": ((-15.7, 17.9, 4.3), (-25.8, 10.4, 4.3), (-30.5, 7.0, 4.4), (-29.0, 8.0, 4.0)),
        "+subgoal": ((-4.9, 25.9, 4.2), (-22.0, 13.2, 4.2), (-21.0, 14.0, 4.0), (-19.3, 15.3, 4.2)),
        "DRRN": ((-39.8, 0.1, 5.0), (-39.8, 0.1, 10.0), (-39.8, 0.1, 9.0), (-40.0, 0.0, None)),
    },
}


@dataclass(frozen=True)
class PaperRow:
    """One row: its label (an agent, a split) and, per observability it was run in, its figures per column
    (`LEVELS`, `OVERALL`, quest types) as `metrics.figures` gives them."""

    label: str
    settings: Mapping[str, Mapping[str, dict]]  # observability -> column -> figures


def paper_cell(figures_: dict) -> str:
    """The paper's cell: "-40.0 (0.0%, N/A)"."""
    score, success, moves = (figures_[k]["value"] for k in ("score", "success_rate", "moves_in_success"))
    if score is None:
        return "-"
    return f"{score:.1f} ({100 * success:.1f}%, {'N/A' if moves is None else f'{moves:.1f}'})"


def _interval(figures_: dict, name: str, scale: float = 1) -> str:
    interval = figures_[name]["ci95"]
    return f"{scale * interval[0]:.0f}..{scale * interval[1]:.0f}" if interval else "-"  # (narrow: many columns)


def _cell(figures_: dict | None) -> str:
    """The paper's cell, then the score's and the success rate's intervals and the episodes:
    "15.2 (20.0%, 4.0)\n-5..45\n0..50%\nn=10"."""
    if figures_ and figures_.get("published"):
        return paper_cell(figures_)
    if not figures_ or not figures_["episodes"]:
        return "-"
    intervals = f"{_interval(figures_, 'score')}\n{_interval(figures_, 'success_rate', 100)}%"
    return f"{paper_cell(figures_)}\n{intervals}\nn={figures_['episodes']}"


def published_rows() -> list[PaperRow]:
    """The paper's own rows ("paper: Seq2Seq", ...), their cells as the paper prints them."""
    rows: dict[str, dict[str, dict]] = {}
    for setting, models in PUBLISHED.items():
        for model, cells in models.items():
            rows.setdefault(f"paper: {model}", {})[setting] = {
                level: {"published": True, "score": {"value": score}, "success_rate": {"value": success / 100},
                        "moves_in_success": {"value": moves}}  # fmt: skip
                for level, (score, success, moves) in zip(LEVELS, cells, strict=True)
            }
    return [PaperRow(label, settings) for label, settings in rows.items()]


def level_figures(records: Sequence[EpisodeRecord], samples: int = 1000) -> dict[str, dict]:
    """A run's figures per hardness level, overall and per quest type (all splits together)."""
    groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        groups[f"level {r.measures['level']}"].append(r)
        groups[r.measures["quest_type"]].append(r)
    found = {name: figures(rs, samples, HANDMETHAT_METRICS) for name, rs in groups.items()}
    return found | {OVERALL: figures(list(records), samples, HANDMETHAT_METRICS)}


def paper_table(rows: Sequence[PaperRow], title: str, quest_types: bool = False, first: str = "model") -> Table:
    """The paper's layout: per observability present (partial first), a column per level and overall
    (and per quest type when asked), a row per `PaperRow` (`first` heads the rows' labels)."""
    settings = [s for s in SETTINGS if any(s in r.settings for r in rows)]
    columns = [*LEVELS, OVERALL, *(QUEST_TYPES if quest_types else ())]
    caption = "score (success %, moves in successes); the score's and the success rate's 95% CI; episodes"
    table = Table(title=f"{title}: {' | '.join(SETTINGS[s] for s in settings)}", caption=caption)
    table.add_column(first, no_wrap=True)
    for setting in settings:
        for column in columns:
            table.add_column(f"{setting}\n{column}", justify="right")
    for row in rows:
        cells = [_cell(row.settings[s].get(c)) if s in row.settings else "" for s in settings for c in columns]
        table.add_row(row.label, *cells, end_section=True)
    return table


def handmethat_table(summary: dict, title: str) -> Table:
    """One run's summary (`homesim evaluate`): a row per split, a column per level, overall and quest type."""
    observability = summary["config"].get("options", {}).get("observability", "partial")
    rows = [
        PaperRow(split or "(no split)", {observability: f["by_level"] | f["by_quest_type"] | {OVERALL: f["all"]}})
        for split, f in in_split_order(summary["splits"])
    ]
    return paper_table(rows, title, quest_types=True, first="split")


def compare_runs(runs: Sequence[tuple[Path, Any, Sequence[EpisodeRecord]]], split: str | None) -> tuple[list, dict, list]:
    """`homesim report RUN... --table handmethat`: the paper's Tables 2 and 3 over several runs, a row per
    agent with its runs' observabilities side by side (a checkpoint's agent is its file's name, so
    runs/partial/seq2seq.pt and runs/full/seq2seq.pt share one; a run whose agent and observability another
    run has too gets a row of its own, named by its folder), then the paper's rows. A ValueError names a run
    with no episodes in `split`."""
    rows: dict[str, dict[str, dict]] = {}
    for out, config, records in runs:
        chosen = [r for r in records if split is None or r.split == split]
        if not chosen:
            raise ValueError(f"{out} has no episodes{f' in split {split!r}' if split else ''}")
        setting = config.options.get("observability", "partial")
        agent = Path(config.agent).stem if config.agent.endswith(".pt") else config.agent  # a checkpoint: its name
        label = agent if setting not in rows.get(agent, {}) else f"{agent} ({out})"
        rows.setdefault(label, {})[setting] = level_figures(chosen)
    table_rows = [PaperRow(label, settings) for label, settings in rows.items()] + published_rows()
    return [paper_table(table_rows, f"HandMeThat, {split or 'all splits'}")], {"split": split, "rows": rows}, []
