"""PDDL cross-check: plans from a real planner (pyperplan) on real ALFRED problems, executed in the engine.

For each of ALFRED's 7 task types, N problems (evenly spaced over its episodes sorted by id, from
train and valid_seen), each solved twice: from the episode's start, and from halfway through ALFRED's
own demonstration (objects in hand, doors open, things sliced or heated). A problem passes when the
planner finds a plan, the engine takes every action of it, and the goal holds at the end.

Columns: problems passed from each start; the planner's time per problem (export, pyperplan's
process, reading the plan); median high-level steps and engine actions per plan; and the median
ratio of engine actions to homesim's hand-written expert's on the same problem (greedy best-first
search does not look for the shortest plan).

    python bench/pddl_crosscheck.py [--per-type 30] [--timeout 60] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.importer import import_alfred
from homesim.planning.alfred.expert import plan as expert_plan
from homesim.planning.alfred.pddl import cross_check
from homesim.tasks.alfred import TASK_TYPES
from homesim.world.dynamics import step

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"
STARTS = ("start", "midway")


def chosen_episodes(trajectory_files: list[Path], layouts: Path, per_type: int) -> list[tuple]:
    """(episode, scene) pairs: `per_type` of each task type, evenly spaced over the episodes sorted by id."""
    by_type = defaultdict(list)
    for path in trajectory_files:
        splits, scenes, _ = import_alfred(path, layouts)
        for episodes in splits.values():
            for e in episodes:
                by_type[e.goal.task_type].append((e, scenes[e.scene_id]))
    chosen = []
    for task_type in TASK_TYPES:
        pairs = sorted(by_type[task_type], key=lambda pair: pair[0].id)
        n = min(per_type, len(pairs))
        chosen += [pairs[i * len(pairs) // n] for i in range(n)]
    return chosen


def midway(episode, scene):
    """The state after the first half of ALFRED's demonstration."""
    state = episode.initial_state
    for action in episode.expert_actions[: len(episode.expert_actions) // 2]:
        state, _ = step(scene, state, action)
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--trajectories",
        type=Path,
        nargs="+",
        default=[SHARED / "trajectories" / "valid_seen.jsonl.gz", SHARED / "trajectories" / "train.jsonl.gz"],
    )
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--per-type", type=int, default=30)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds the planner gets per problem")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    begin = time.perf_counter()
    problems = chosen_episodes(args.trajectories, args.layouts, args.per_type)
    loaded = time.perf_counter()
    rows = []
    for episode, scene in problems:
        for start, state in zip(STARTS, (episode.initial_state, midway(episode, scene)), strict=True):
            check = cross_check(scene, state, episode.goal, timeout=args.timeout)
            rows.append(
                {
                    "episode": episode.id,
                    "task_type": episode.goal.task_type,
                    "start": start,
                    "passed": check.passed,
                    "reason": check.reason,
                    "planner_s": check.planner_seconds,
                    "steps": len(check.plan),
                    "actions": check.actions,
                    # the same problem's length for homesim's hand-written expert
                    "expert_actions": len(expert_plan(scene, state, episode.goal).actions),
                }
            )
    checked = time.perf_counter()

    table = Table(title=f"pyperplan's plans executed in the engine: {len(problems)} ALFRED problems, 2 starts each")
    for column in ("task type", "n", "start", "midway", "planner s med/max", "steps", "actions", "/ expert"):
        table.add_column(column, justify="left" if column == "task type" else "right")
    summary = {}
    for task_type in [*TASK_TYPES, "all"]:
        mine = [r for r in rows if task_type in ("all", r["task_type"])]
        passed = {s: sum(r["passed"] for r in mine if r["start"] == s) for s in STARTS}
        n = len(mine) // len(STARTS)
        seconds = [r["planner_s"] for r in mine]
        done = [r for r in mine if r["passed"] and r["expert_actions"]]
        summary[task_type] = {
            "problems": n,
            **{f"passed_from_{s}": passed[s] for s in STARTS},
            "planner_s_median": statistics.median(seconds),
            "planner_s_max": max(seconds),
            "plan_steps_median": statistics.median(r["steps"] for r in mine),
            "engine_actions_median": statistics.median(r["actions"] for r in mine),
            "actions_vs_expert_median": statistics.median(r["actions"] / r["expert_actions"] for r in done),
        }
        s = summary[task_type]
        table.add_row(
            task_type,
            str(n),
            f"{passed['start']}/{n}",
            f"{passed['midway']}/{n}",
            f"{s['planner_s_median']:.2f} / {s['planner_s_max']:.2f}",
            f"{s['plan_steps_median']:g}",
            f"{s['engine_actions_median']:g}",
            f"{s['actions_vs_expert_median']:.2f}",
        )
    console = Console()
    console.print(table)
    console.print(f"loading {loaded - begin:.0f} s; planning, executing and the expert {checked - loaded:.0f} s")
    for r in rows:
        if not r["passed"]:
            console.print(f"[red]FAILED[/red] {r['episode']} (from {r['start']}): {r['reason']}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "problems": rows}, indent=1))


if __name__ == "__main__":
    main()
