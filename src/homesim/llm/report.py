"""`homesim report RUN... --table llm`: language-model runs of one suite, a row per run, as the LLM papers lay
them out. First success by the suite's breakdown (`Suite.breakdown`: ALFWorld's task types as ReAct and
AgentBench report them, HandMeThat's levels as its Table 2, with the mean score where the records have
one); then the harness's figures: progress rate (goal conditions met at the end, ALFRED's goal-condition
success; not AgentBoard's maximum over the episode, which records do not keep), invalid-action rate
(replies that mapped to no command possible then), why episodes ended, error types, tokens and the
endpoint's seconds per episode, and how many prompts were clipped to the context budget.

Why an episode ended: the agent's own reason where it gave up (`context_limit`, `endpoint_error`,
`awaiting_answer`, `unparseable`, `step_limit`), else the game's: `goal` (reached), `step_limit` (a limit of
the protocol: steps, commands, failed actions), `stop` (the model said stop), or the record's end reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.suite import Comparison
from homesim.evaluation.suites import suite_named

LIMITS = {"max_steps": "step_limit", "max_commands": "step_limit", "max_fails": "step_limit"}


def finish_reason(record: EpisodeRecord) -> str:
    agent = record.measures.get("agent") or {}
    if agent.get("finish"):
        return agent["finish"]
    if record.goal_satisfied:
        return "goal"
    return LIMITS.get(record.end_reason, record.end_reason)


def _percent(part: float, whole: float) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def run_figures(records: Sequence[EpisodeRecord]) -> dict:
    """A run's LLM figures (what `--json` writes for it)."""
    agents = [r.measures.get("agent") or {} for r in records]
    replies = sum(a.get("replies", 0) for a in agents)
    errors: Counter = Counter()
    for a in agents:
        errors.update(a.get("errors") or {})
    n = len(records)
    return {
        "episodes": n,
        "success": _percent(sum(r.goal_satisfied for r in records), n),
        "progress": _percent(sum(r.conditions_met / r.conditions_total for r in records if r.conditions_total), n),
        "invalid_rate": _percent(sum(a.get("invalid", 0) for a in agents), replies),
        "replies_per_episode": round(replies / n, 2) if n else None,
        "finish": dict(sorted(Counter(finish_reason(r) for r in records).items())),
        "errors": dict(sorted(errors.items())),
        "tokens_in_per_episode": round(sum(a.get("tokens_in", 0) for a in agents) / n, 1) if n else None,
        "tokens_out_per_episode": round(sum(a.get("tokens_out", 0) for a in agents) / n, 1) if n else None,
        "model_seconds_per_episode": round(sum(a.get("model_seconds", 0) for a in agents) / n, 3) if n else None,
        "clipped_prompts": sum(a.get("clipped_prompts", 0) for a in agents),
    }


def _by_group(records: Sequence[EpisodeRecord], of, order: Sequence[str]) -> dict[str, dict]:
    groups: dict[str, list[EpisodeRecord]] = {}
    for r in records:
        groups.setdefault(of(r), []).append(r)
    names = [g for g in order if g in groups] + sorted(set(groups) - set(order))
    cells = {}
    for name in [*names, "all"]:
        rs = records if name == "all" else groups[name]
        scores = [r.measures["score"] for r in rs if "score" in r.measures]
        cells[name] = {"episodes": len(rs), "success": _percent(sum(r.goal_satisfied for r in rs), len(rs))}
        if scores:
            cells[name]["score"] = round(sum(scores) / len(scores), 1)
    return cells


def _name(out: Path, config: Any) -> str:
    model = config.agent_options.get("model")
    return f"{config.agent} {model} ({out.name})" if model else f"{config.agent} ({out.name})"


def compare(runs: Sequence[tuple[Path, Any, Sequence[EpisodeRecord]]], split: str | None):
    """The `llm` comparison's tables, figures and notes."""
    suite = suite_named(runs[0][1].suite)
    breakdown = suite.breakdown
    chosen = [(out, config, [r for r in records if split is None or r.split == split]) for out, config, records in runs]
    groups = _by_group([r for _, _, rs in chosen for r in rs], breakdown.of, breakdown.order)
    by_kind = Table(title=f"{suite.title}: success (%) by {breakdown.name}" + (f", split {split}" if split else ""))
    by_kind.add_column("run")
    for name in groups:
        by_kind.add_column(name, justify="right")
    harness = Table(title=f"{suite.title}: the harness's figures")
    columns = ["run", "episodes", "success %", "progress %", "invalid %", "replies/ep", "finish", "errors",
               "tokens in/out per ep", "model s/ep", "clipped"]  # fmt: skip
    for column in columns:
        harness.add_column(column, justify="left" if column in ("run", "finish", "errors") else "right")
    figures, notes = {}, []
    for out, config, records in chosen:
        name = _name(out, config)
        if not records:
            notes.append(f"{name}: no episodes" + (f" in split {split}" if split else ""))
            continue
        cells = _by_group(records, breakdown.of, breakdown.order)
        run = run_figures(records)
        figures[name] = {"by_" + breakdown.name.replace(" ", "_"): cells} | run
        by_kind.add_row(name, *(_cell(cells.get(g)) for g in groups))
        harness.add_row(
            name, str(run["episodes"]), _number(run["success"]), _number(run["progress"]), _number(run["invalid_rate"]),
            _number(run["replies_per_episode"]), _counts(run["finish"]), _counts(run["errors"]),
            f"{run['tokens_in_per_episode']:g} / {run['tokens_out_per_episode']:g}",
            _number(run["model_seconds_per_episode"]), str(run["clipped_prompts"]),
        )  # fmt: skip
        if not any(r.measures.get("agent") for r in records):
            notes.append(f"{name}: its agent reported no LLM figures (not an LLM run?)")
    return [by_kind, harness], figures, notes


def _cell(cell: dict | None) -> str:
    if cell is None:
        return "-"
    success = _number(cell["success"])
    return f"{cell['score']:.1f} ({success})" if "score" in cell else success


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _counts(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "-"


LLM_TABLE = Comparison("llm", "language-model runs: success by task type or level, and the harness's figures", compare)
