"""ObjectNav generation and motion speed.

1. Episodes generated per second (houses built, view points found, starts sampled with the paper's
   filters, the expert's demonstration of every episode) with 1 and 2 worker processes.
2. Steps per second of the ObjectNav motion without pixels (`nav_step`, random actions, one core) in a
   generated house, against ALFRED's engine stepping random navigation actions in a procedural kitchen
   in the same run (the ratio is the figure to track; target: >= 10,000 ObjectNav steps/s).

    python bench/objectnav_generate.py [--houses 6] [--episodes 60] [--steps 200000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.objectnav.generate import generate
from homesim.parallel import Workers
from homesim.scenes.houses import generate_house
from homesim.scenes.procedural import generate_room
from homesim.world import Action, step
from homesim.world.actions import NAVIGATION_ACTIONS
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import nav_grid, nav_step
from homesim.world.state import AgentState

MOVES = ("MOVE_FORWARD", "MOVE_FORWARD", "TURN_LEFT", "TURN_RIGHT", "LOOK_UP", "LOOK_DOWN")


def objectnav_steps_per_second(steps: int, seed: int) -> tuple[float, float]:
    scene, _ = generate_house(seed)
    grid = nav_grid(scene, LOCOBOT)  # built before the timing, as an env builds it at its first reset
    x, z = grid.navigable_points()[0]
    agent, rng, moved = AgentState(float(x), float(z), 0, 0), random.Random(seed), 0
    actions = [rng.choice(MOVES) for _ in range(steps)]
    begin = time.perf_counter()
    for action in actions:
        agent, event = nav_step(grid, agent, action)
        moved += event.success
    return steps / (time.perf_counter() - begin), moved / steps


def alfred_steps_per_second(steps: int, seed: int) -> float:
    scene, state = generate_room("Kitchen", seed)
    rng = random.Random(seed)
    actions = [Action(rng.choice(NAVIGATION_ACTIONS)) for _ in range(steps)]
    begin = time.perf_counter()
    for action in actions:
        state, _ = step(scene, state, action)
    return steps / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--houses", type=int, default=6)
    parser.add_argument("--episodes", type=int, default=60, help="episodes per split")
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    console, figures = Console(), {}

    table = Table(title=f"generating ObjectNav: {args.houses} houses, {args.episodes} episodes per split")
    for column in ("workers", "seconds", "episodes", "episodes/s", "houses/s", "speed-up"):
        table.add_column(column, justify="right")
    for workers in (1, 2):
        begin = time.perf_counter()
        splits, _, _ = generate(args.houses, args.episodes, seed=0, workers=Workers(workers))
        seconds = time.perf_counter() - begin
        made = sum(map(len, splits.values()))
        figures[f"generate_{workers}"] = {"seconds": seconds, "episodes": made, "per_s": made / seconds}
        speedup = figures["generate_1"]["seconds"] / seconds
        table.add_row(
            str(workers),
            f"{seconds:.1f}",
            str(made),
            f"{made / seconds:.1f}",
            f"{args.houses / seconds:.2f}",
            f"{speedup:.2f}",
        )
    console.print(table)

    rate, moved = objectnav_steps_per_second(args.steps, seed=0)
    reference = alfred_steps_per_second(args.steps // 4, seed=0)
    figures["steps"] = {"objectnav_per_s": rate, "moved": moved, "alfred_navigation_per_s": reference}
    table = Table(title="steps per second without pixels, one core")
    for column in ("engine", "steps/s", "vs ALFRED's engine"):
        table.add_column(column, justify="right")
    table.add_row("ObjectNav nav_step (LoCoBot, house)", f"{rate:,.0f}", f"{rate / reference:.1f}x")
    table.add_row("ALFRED step (navigation, kitchen)", f"{reference:,.0f}", "1.0x")
    console.print(table)
    console.print(f"{moved:.0%} of the ObjectNav actions succeeded (the rest bumped into walls or pitch limits)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
