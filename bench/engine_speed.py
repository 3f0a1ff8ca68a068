"""Raw engine speed: random valid low-level actions in a real ALFRED kitchen, no rendering, against
MiniGrid's Empty-8x8 with random actions measured in the same run (about 10,000 steps/s here), just
before and just after homesim (the ratio is to their mean, so a load that comes or goes in between
shifts it less).

    pip install -e ".[bench]"
    python bench/engine_speed.py [--floor-plan FloorPlan1] [--steps 50000] [--json out.json]

Each step picks a navigation action, or (one step in three) an interaction with a random object the
agent can see; the visibility query that finds those objects is part of the cost measured. Every run
is cold: a fresh process and a freshly built scene, whose pose tables (`homesim.world.views`: the fixed
objects from every pose, then each movable object from every pose when first met) are made during the
timed steps and counted in them (so the disk cache of scene tables, `homesim.world.scene_cache`, is off
here); the table shows how long the fixed objects' table took. `--steps 5000` is mostly that cold start,
`--steps 50000` mostly the warm engine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.datasets.alfred.trajectories import read_trajectories
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.random_actions import random_action
from homesim.world.views import pose_views

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def homesim_steps_per_second(floor_plan: str, steps: int, seed: int) -> tuple[float, float, float]:
    """Steps/s (the pose tables' making included), the share of actions that succeeded, and the seconds
    the fixed objects' table took (made here, at the start of the timed steps, as the first step would)."""
    trajectories = [
        t
        for t in read_trajectories(SHARED / "trajectories" / "valid_seen.jsonl.gz")
        if t.data["scene"]["floor_plan"] == floor_plan
    ]
    if not trajectories:
        sys.exit(f"no valid_seen trajectory uses {floor_plan}")
    scene = build_scene(floor_plan, SHARED / "layouts", gather_evidence(t.data for t in trajectories)[floor_plan])
    start = episode_from_trajectory(trajectories[0].source, trajectories[0].data, scene).initial_state
    catalog, rng = alfred_catalog(), random.Random(seed)
    state, succeeded = start, 0
    begin = time.perf_counter()
    pose_views(scene)
    tables = time.perf_counter() - begin
    for _ in range(steps):
        state, event = step(scene, state, random_action(scene, state, catalog, rng), catalog=catalog)
        succeeded += event.success
    return steps / (time.perf_counter() - begin), succeeded / steps, tables


def minigrid_steps_per_second(steps: int, seed: int) -> float:
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers the MiniGrid envs)

    env = gym.make("MiniGrid-Empty-8x8-v0")
    env.reset(seed=seed)
    env.action_space.seed(seed)
    begin = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--floor-plan", default="FloorPlan1")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ["HOMESIM_CACHE"] = "off"  # every run makes its tables
    before = minigrid_steps_per_second(args.steps, args.seed)
    ours, success_rate, tables = homesim_steps_per_second(args.floor_plan, args.steps, args.seed)
    after = minigrid_steps_per_second(args.steps, args.seed)
    reference = (before + after) / 2
    table = Table(title=f"engine speed, one process, no rendering, {args.steps:,} steps from a cold start")
    for column in ("env", "steps/s", "ratio to MiniGrid"):
        table.add_column(column)
    table.add_row(
        f"homesim ALFRED {args.floor_plan} (random valid actions, {success_rate:.0%} succeed; "
        f"counted: {1000 * tables:.0f} ms for the fixed objects' pose table)",
        f"{ours:,.0f}",
        f"{ours / reference:.2f}x",
    )
    minigrid = f"MiniGrid-Empty-8x8-v0 (random actions; before {before:,.0f}, after {after:,.0f})"
    table.add_row(minigrid, f"{reference:,.0f}", "1.00x")
    Console().print(table)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "homesim_steps_per_s": ours,
                    "homesim_action_success": success_rate,
                    "fixed_pose_table_s": tables,
                    "minigrid_steps_per_s": reference,
                    "minigrid_before_after": [before, after],
                    "ratio": ours / reference,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
