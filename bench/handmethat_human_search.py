"""The authors' human planner beside homesim's: their generator plans the human with best-first search on
h_FF (priority h_FF + 0.7 g, every child evaluated when generated, one subgoal after another), homesim
with recipes (`planning.handmethat.human.human_plan`). Over sampled scenes and goals: how many goals each
solves, plan lengths, and CPU time per plan (the generator plans once per try, and must make >= 10
accepted episodes per second).

    python bench/handmethat_human_search.py [--goals 40] [--expansions 2000] [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import random
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.handmethat.episode import replay
from homesim.planning.alfred.expert import Unrecoverable
from homesim.planning.handmethat.ff import RelaxedTask
from homesim.planning.handmethat.human import human_plan
from homesim.tasks.handmethat.relevance import relevance
from homesim.tasks.handmethat.formula import holds
from homesim.tasks.handmethat.goals import sample_goal
from homesim.world.handmethat import step
from homesim.world.handmethat.sampling import sample_scene

WEIGHT = 0.7  # their heuristic_weight: priority h + 0.7 g


def best_first(goal: str, state, things, budget: int) -> tuple[list | None, int]:
    """Their search for one goal: (plan or None, heuristic evaluations)."""
    task = RelaxedTask(goal, state, things)
    tie, seen, evaluations = itertools.count(), {state}, 1
    h = task.h(state)
    queue = [(h, next(tie), 0, state, ())] if h < float("inf") else []
    while queue and evaluations < budget:
        _, _, g, s, plan = heapq.heappop(queue)
        if holds(goal, s):
            return list(plan), evaluations
        for action in task.applicable(s):
            child = step(s, action)[0]
            if child not in seen:
                seen.add(child)
                h, evaluations = task.h(child), evaluations + 1
                if h < float("inf"):
                    heapq.heappush(queue, (h + WEIGHT * (g + 1), next(tie), g + 1, child, (*plan, action)))
    return None, evaluations


def by_subgoals(goal, scene, budget: int, rng: random.Random) -> tuple[list | None, int]:
    """Their order: the subgoals shuffled, each searched from where the last left the human."""
    things, state, plan, evaluations = relevance(goal.formula, scene).things, scene, [], 0
    for subgoal in rng.sample(goal.subgoals, len(goal.subgoals)):
        part, spent = best_first(subgoal, state, things, budget)
        evaluations += spent
        if part is None:
            return None, evaluations
        plan += part
        state = replay(state, tuple(part))
    return plan, evaluations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--goals", type=int, default=40)
    parser.add_argument("--expansions", type=int, default=2000, help="h_FF evaluations allowed per search")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng, rows = random.Random(args.seed), []
    while len(rows) < args.goals:
        scene = sample_scene(rng)
        goal = sample_goal(scene, rng)
        if goal is None or holds(goal.formula, scene):
            continue
        row = {"goal": goal.name}
        begin = time.process_time()
        try:
            row["recipes"] = len(human_plan(goal.formula, scene))
        except Unrecoverable:
            row["recipes"] = None
        row["recipes_ms"] = 1000 * (time.process_time() - begin)
        begin = time.process_time()
        plan, row["evaluations"] = by_subgoals(goal, scene, args.expansions, rng)
        row["search_ms"] = 1000 * (time.process_time() - begin)
        row["search"] = None if plan is None or not holds(goal.formula, replay(scene, tuple(plan))) else len(plan)
        rows.append(row)
    table = Table(title=f"the human's plan: recipes against their best-first search on h_FF ({args.goals} goals)")
    for column in ("planner", "goals solved", "mean length (both solved)", "median CPU ms", "max CPU ms"):
        table.add_column(column, justify="right")
    both = [r for r in rows if r["recipes"] is not None and r["search"] is not None]
    for name in ("recipes", "search"):
        ms = [r[f"{name}_ms"] for r in rows]
        length = statistics.mean(r[name] for r in both) if both else float("nan")
        solved = sum(r[name] is not None for r in rows)
        table.add_row(name, f"{solved}/{len(rows)}", f"{length:.1f}", f"{statistics.median(ms):.1f}", f"{max(ms):.0f}")
    Console().print(table)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
