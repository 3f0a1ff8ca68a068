"""The ObjectNav expert judged by geometry and by pixels: on generated episodes in houses it has never
been tuned on, how often it succeeds by every geometric criterion (STOP, navigable, within 1 m of a goal's
surface, the goal in the final frame by `world.objectnav.sight`), its SPL, and how often the final frame rendered at
640x480 really shows a pixel of the goal the geometry says it sees.

    python bench/objectnav_expert_frames.py [--houses 3] [--episodes 60] [--seed 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from homesim.datasets.objectnav.generate import house_seed, sample_episodes
from homesim.planning.objectnav_expert import ObjectNavExpert
from homesim.render.renderer import Renderer
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav import SUCCESS_DISTANCE, embodied_scene
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import nav_grid, nav_step, surface_distance
from homesim.world.objectnav.sight import sees
from homesim.world.state import AgentState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--houses", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=60, help="per house")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    renderer = Renderer(**LOCOBOT.renderer_settings())
    successes, spl, judged, shown, count = 0, 0.0, 0, 0, 0
    begin = time.perf_counter()
    for index in track(range(args.houses), description="houses"):
        house, start = generate_house(house_seed(args.seed, index))
        scene = embodied_scene(house, LOCOBOT)
        grid = nav_grid(scene, LOCOBOT)
        episodes, _ = sample_episodes(scene, args.episodes, random.Random(f"frames/{args.seed}/{index}"))
        for e in episodes:
            expert, agent, walked = ObjectNavExpert(scene, e), AgentState(*e.start_position, e.start_rotation, 0), 0.0
            while (action := expert.next_action(agent)) != "STOP":
                moved, _ = nav_step(grid, agent, action)
                walked += math.hypot(moved.x - agent.x, moved.z - agent.z)
                agent = moved
            seen = [g for g in e.goals if surface_distance(g.box, agent.x, agent.z) <= SUCCESS_DISTANCE]
            seen = [g for g in seen if sees(grid, g.box, agent)]
            count += 1
            successes += bool(seen) and grid.is_navigable(agent.x, agent.z)
            spl += bool(seen) * e.geodesic_distance / max(walked, e.geodesic_distance)
            frame = renderer.render(scene, start.with_agent(0, agent))
            pixels = set(frame.visible_ids())
            judged += len(seen)
            shown += sum(g.object_id in pixels for g in seen)
    seconds = time.perf_counter() - begin
    table = Table(title=f"the ObjectNav expert on {count} episodes in {args.houses} generated houses")
    for column in ("success (geometry)", "SPL", "goals seen by geometry", "with pixels in the frame", "seconds"):
        table.add_column(column, justify="right")
    table.add_row(
        f"{successes / count:.4f}",
        f"{spl / count:.5f}",
        str(judged),
        f"{shown} ({shown / judged:.1%})",
        f"{seconds:.0f}",
    )
    Console().print(table)
    if args.json:
        figures = {"episodes": count, "success": successes / count, "spl": spl / count, "seen": judged, "shown": shown}
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
