"""What judging an ObjectNav episode's end costs: `criteria_inputs` (every goal instance seen, and seen by
turning in place: issue 32's record inputs) at random end poses (lattice nodes, headings and horizons) in
generated houses, the episodes' goal sets, each pose timed alone (the single env's ends; milliseconds per end,
mean and percentiles), and all at once (`criteria_inputs_many`, per house: the batched env's ends of one step).

    python bench/objectnav_end_cost.py [--houses 2] [--per-house 3] [--poses 300] [--seed 0]

The batched env (`envs.objectnav.vector`) keeps what it computed per goal set and pose (oracle visibility per
goal set and position), so an end met again costs less than this; the single env computes it at every end.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from objectnav_vector_speed import houses_episodes  # noqa: E402

from homesim.tasks.objectnav_criteria import criteria_inputs, criteria_inputs_many  # noqa: E402
from homesim.world.objectnav.embodiment import LOCOBOT  # noqa: E402
from homesim.world.objectnav.navgrid import nav_grid  # noqa: E402
from homesim.world.state import AgentState  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--houses", type=int, default=2)
    parser.add_argument("--per-house", type=int, default=3)
    parser.add_argument("--poses", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    episodes, scenes = houses_episodes(args.houses, args.per_house)
    grids = {scene_id: nav_grid(scene, LOCOBOT) for scene_id, scene in scenes.items()}
    rng = np.random.default_rng(args.seed)
    ends = []
    for _ in range(args.poses):
        episode = episodes[rng.integers(len(episodes))]
        points = grids[episode.scene_id].navigable_points()
        x, z = points[rng.integers(len(points))]
        pose = AgentState(float(x), float(z), int(rng.choice(LOCOBOT.yaws)), int(rng.choice(LOCOBOT.horizons)))
        ends.append((grids[episode.scene_id], {g.object_id: g.box for g in episode.goals}, pose))
    criteria_inputs(*ends[0])  # the boxes' surface points, made once
    costs = []
    for end in ends:
        begin = time.perf_counter()
        criteria_inputs(*end)
        costs.append(time.perf_counter() - begin)
    p5, p50, p95, top = np.percentile(costs, [5, 50, 95, 100]) * 1e3
    print(
        f"{len(ends)} ends in {len(scenes)} houses: {np.mean(costs) * 1e3:.2f} ms an end (5% {p5:.2f}, median"
        f" {p50:.2f}, 95% {p95:.2f}, max {top:.2f}); load average {os.getloadavg()[0]:.1f}"
    )
    begin = time.perf_counter()
    for grid in grids.values():
        criteria_inputs_many(grid, [(goals, pose, None) for g, goals, pose in ends if g is grid])
    together = (time.perf_counter() - begin) / len(ends)
    print(f"all at once: {together * 1e3:.2f} ms an end; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
