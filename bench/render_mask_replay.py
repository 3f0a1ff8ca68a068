"""ALFRED's expert demonstrations replayed twice: with oracle object ids, and with every interaction
aimed by the ground-truth mask of its target in the rendered view (resolved by IoU, as ALFRED does).
The two goal-satisfied rates should be equal; each demonstration that loses its goal through masks is
listed with its first target that had no pixels.

    python bench/render_mask_replay.py [--trajectories valid_seen.jsonl.gz] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.render import Renderer
from homesim.render.mask_replay import replay_through_masks
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.tasks.alfred import goal_conditions
from homesim.world.dynamics import step

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--limit", type=int, help="replay only the first N trajectories")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    good = [t for t in read_trajectories(args.trajectories) if isinstance(t, RawTrajectory)]
    evidence = gather_evidence(t.data for t in good)  # every trajectory completes the floor plans
    good = good[: args.limit]
    scenes = {fp: build_scene(fp, args.layouts, evidence[fp]) for fp in {t.data["scene"]["floor_plan"] for t in good}}
    renderer = Renderer()
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # trajectories, oracle goals, mask goals
    losses, frames = [], 0
    begin = time.perf_counter()
    for t in good:
        scene = scenes[t.data["scene"]["floor_plan"]]
        episode = episode_from_trajectory(t.source, t.data, scene)
        state = episode.initial_state
        for action in episode.expert_actions:
            state, _ = step(scene, state, action)
        met, total = goal_conditions(scene, state, episode.goal)
        masks = replay_through_masks(scene, episode.initial_state, episode.expert_actions, renderer)
        mask_met, mask_total = goal_conditions(scene, masks.state, episode.goal)
        counts = by_type[episode.goal.task_type]
        counts[0] += 1
        counts[1] += met == total
        counts[2] += mask_met == mask_total
        frames += sum(a.target is not None for a in episode.expert_actions)
        if met == total and mask_met != mask_total:
            first = episode.expert_actions[masks.unseen[0]] if masks.unseen else None
            losses.append({"trajectory": t.name, "first_unseen": f"{first.name} {first.target}" if first else None})
    seconds = time.perf_counter() - begin

    table = Table(title=f"expert replay, oracle ids vs ground-truth masks: {args.trajectories.name}")
    for column in ("task type", "trajectories", "goal with ids", "goal with masks"):
        table.add_column(column, justify="left" if column == "task type" else "right")
    totals = [0, 0, 0]
    for task_type, counts in sorted(by_type.items()):
        table.add_row(task_type, *map(str, counts))
        totals = [a + b for a, b in zip(totals, counts)]
    table.add_row("all", *map(str, totals), end_section=True)
    console = Console(width=200)
    console.print(table)
    for loss in losses:
        console.print(f"lost through masks: {loss['trajectory']} (first target with no pixels: {loss['first_unseen']})")
    console.print(f"{seconds:.1f} s, {frames:,} interaction frames rendered")
    if args.json:
        args.json.write_text(json.dumps({"by_task_type": by_type, "losses": losses}, indent=1))


if __name__ == "__main__":
    main()
