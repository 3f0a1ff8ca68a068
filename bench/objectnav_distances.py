"""Where an ObjectNav run's agent stopped and what each protocol makes of it: per record, the end pose (the
record's own, or, for runs written before records kept poses, its actions played again on the lattice),
the straight line to the nearest view point, habitat's continuous geodesic distance to it (d_T) and the
lattice's move distance; then Success, SPL, SoftSPL and DTG of the run judged under each protocol
(`evaluation.objectnav.suite.PROTOCOLS`) from the records (the criteria's inputs where records keep them,
else their criteria and d_T as recorded).

    python bench/objectnav_distances.py --run OUT --episodes DATASET [--json figures.json]

The question it answers (issue 32): of the stops within 0.1 m (straight line) of a view point, how many have
a distance to goal under 0.1 m, as habitat's success needs.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.datasets.folder import read_dataset
from homesim.evaluation.metrics import summarize
from homesim.evaluation.objectnav.metrics import OBJECTNAV_METRICS
from homesim.evaluation.objectnav.suite import PROTOCOLS
from homesim.evaluation.records import read_records
from homesim.tasks.objectnav import goal_distance, goal_field
from homesim.tasks.objectnav_criteria import criteria_from
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import LATTICE, nav_grid, nav_step
from homesim.world.state import AgentState

NEAR = 0.1  # metres: habitat's success distance


def end_of(record, episode, grid) -> tuple[float, float]:
    poses = record.measures.get("poses")
    if poses:
        return poses["end"][0] * LATTICE, poses["end"][1] * LATTICE
    agent = AgentState(*episode.start_position, episode.start_rotation, 0)
    for action, _ in record.actions:
        if action is not None:
            agent, _ = nav_step(grid, agent, action)
    return agent.x, agent.z


def judged(record, protocol):
    """The record as the protocol would have scored it."""
    m = dict(record.measures)
    rules = protocol.settings
    if "inputs" in m:
        criteria = criteria_from(
            m["inputs"],
            record.stopped,
            m["distance_to_goal"],
            rules["criteria"],
            rules["success_distance"],
            rules["view_point_distance"],
        )
    else:  # a record from before: its criteria, and habitat's read off its d_T
        d_t = m["distance_to_goal"]
        criteria = m["criteria"] | {"distance_to_goal": d_t is not None and d_t < rules["view_point_distance"]}
    m |= {"criteria": criteria, "required": rules["criteria"], "undefined_spl": rules["undefined_spl"]}
    return replace(record, measures=m)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--episodes", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    splits, scenes = read_dataset(args.episodes, suite="objectnav")
    episodes = {e.episode_id: e for split in splits.values() for e in split}
    records = read_records(args.run / "records.jsonl")
    stops = near = near_arrived = near_arrived_lattice = 0
    straight, continuous, lattice = [], [], []
    for r in records:
        episode = episodes[r.episode_id]
        grid = nav_grid(scenes[episode.scene_id], LOCOBOT)
        x, z = end_of(r, episode, grid)
        d_line = float(np.hypot(*(episode.view_points - [x, z]).T).min())
        d_geo = goal_distance(grid, episode.goals).distance(x, z)
        d_lat = grid.geodesic(goal_field(grid, episode.goals), x, z)
        straight.append(d_line)
        continuous.append(d_geo)
        lattice.append(d_lat)
        if r.stopped:
            stops += 1
            if d_line < NEAR:
                near += 1
                near_arrived += d_geo < NEAR
                near_arrived_lattice += d_lat < NEAR
    console = Console(width=150)
    console.print(
        f"{stops} stops; {near} within {NEAR} m (straight line) of a view point; of those, DTG < {NEAR} m:"
        f" {near_arrived} by habitat's continuous geodesic distance, {near_arrived_lattice} by the lattice's moves"
    )
    finite = [d for d in continuous if math.isfinite(d)]
    console.print(
        f"mean distance to goal at the end: {np.mean(finite):.3f} m continuous,"
        f" {np.mean([d for d in lattice if math.isfinite(d)]):.3f} m lattice, {np.mean(straight):.3f} m straight"
    )
    table = Table(title=f"{args.run}: {len(records)} episodes judged under each protocol")
    for column in ("protocol", "Success", "SPL", "SoftSPL", "DTG (m)"):
        table.add_column(column, justify="left" if column == "protocol" else "right")
    figures: dict = {
        "stops": stops,
        "near": near,
        "near_arrived": near_arrived,
        "near_arrived_lattice": near_arrived_lattice,
    }
    for protocol in PROTOCOLS:
        f = summarize([judged(r, protocol) for r in records], metrics=OBJECTNAV_METRICS)
        pooled = _pooled(f, len(records))
        figures[protocol.name] = pooled
        table.add_row(
            protocol.name, *(f"{100 * pooled[k]:.1f}" for k in ("success", "spl", "soft_spl")), f"{pooled['dtg']:.3f}"
        )
    console.print(table)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


def _pooled(by_split: dict, total: int) -> dict:
    """The splits' figures pooled (each a mean over its episodes, weighted by their number)."""
    out = {}
    for key, name in (("success", "success"), ("spl", "spl"), ("soft_spl", "soft_spl"), ("dtg", "distance_to_goal")):
        out[key] = sum(s["all"][name]["value"] * s["all"]["episodes"] for s in by_split.values()) / total
    return out


if __name__ == "__main__":
    main()
