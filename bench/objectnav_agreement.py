"""Does the strict visibility criterion agree with the frame the robot sees? Per (pose, goal instance) pair,
the geometric test the criterion uses (`world.objectnav.sight.sees`) against the rendered 640x480 frame (at least one
pixel of the instance in the segmentation), over ObjectNav episodes of a dataset:

* the final pose of the expert in each episode (where it calls STOP: the criterion must hold, and be seen);
  there the criterion itself is compared too: an instance within r in view, by geometry and by the frame;
* a random pose on a random view point of each episode (any of the 12 headings, any camera pitch), where
  the instance is sometimes in view and sometimes not.

    python bench/objectnav_agreement.py --episodes DATASET [--split val] [--limit 500] [--seed 0] [--json out.json]

Disagreements are counted by side: `engine only` (the geometry sees a point of the box the frame does not
show: a sliver thinner than a pixel, or an occluder the height map does not hold) and `frame only` (pixels of
the instance where the geometry sees none: its surface samples are 0.1 m apart, pixels are finer).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from homesim.datasets.folder import read_dataset
from homesim.planning.objectnav_expert import ObjectNavExpert
from homesim.render import Renderer
from homesim.tasks.objectnav import SUCCESS_DISTANCE, embodied_scene
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import nav_grid, nav_step, surface_distance
from homesim.world.objectnav.sight import sees
from homesim.world.state import AgentState, State

NO_OBJECTS: dict = {}


def expert_end(scene, episode) -> AgentState:
    expert = ObjectNavExpert(scene, episode, LOCOBOT)
    agent = AgentState(*episode.start_position, episode.start_rotation, 0)
    for _ in range(LOCOBOT.max_steps):
        action = expert.next_action(agent)
        if action == "STOP":
            break
        agent, _ = nav_step(expert.grid, agent, action)
    return agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=Path, required=True)
    parser.add_argument("--split", default="val")
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    splits, scenes = read_dataset(args.episodes, args.split, "objectnav")
    episodes = splits[args.split][: args.limit]
    rng = random.Random(args.seed)
    renderer = Renderer(**LOCOBOT.renderer_settings())
    views = {scene_id: embodied_scene(scene, LOCOBOT) for scene_id, scene in scenes.items()}
    counts = {kind: Counter() for kind in ("expert's stop", "random view point")}
    verdicts: Counter = Counter()  # (criterion by geometry, by the frame) at the expert's stop
    examples: list = []
    for episode in track(episodes, description="poses"):
        scene = scenes[episode.scene_id]
        grid = nav_grid(scene, LOCOBOT)
        goal = rng.choice(episode.goals)
        x, z = rng.choice(goal.view_points)
        poses = {
            "expert's stop": expert_end(scene, episode),
            "random view point": AgentState(x, z, rng.choice(LOCOBOT.yaws), rng.choice(LOCOBOT.horizons)),
        }
        for kind, agent in poses.items():
            frame = renderer.render(views[episode.scene_id], State(NO_OBJECTS, (agent,)))
            shown = set(frame.visible_ids())
            if kind == "expert's stop":  # the criterion itself: an instance within r seen, by each side
                near = [g for g in episode.goals if surface_distance(g.box, agent.x, agent.z) <= SUCCESS_DISTANCE]
                seen = any(sees(grid, g.box, agent) for g in near)
                drawn = any(g.object_id in shown for g in near)
                verdicts[(seen, drawn)] += 1
            for g in episode.goals:
                seen, drawn = sees(grid, g.box, agent), g.object_id in shown
                counts[kind]["pairs"] += 1
                counts[kind]["agree"] += seen == drawn
                counts[kind]["either"] += seen or drawn
                counts[kind]["both"] += seen and drawn
                if seen != drawn:
                    counts[kind]["engine only" if seen else "frame only"] += 1
                    if len(examples) < 20:
                        examples.append(
                            [episode.episode_id, kind, g.object_id, [agent.x, agent.z, agent.yaw, agent.horizon], seen]
                        )
    table = Table(title=f"strict visibility: geometry vs the rendered frame, {len(episodes)} {args.split} episodes")
    for column in ("poses", "pairs", "agreement", "agreement where either sees it", "engine only", "frame only"):
        table.add_column(column, justify="left" if column == "poses" else "right")
    for kind, c in counts.items():
        table.add_row(
            kind,
            f"{c['pairs']:,}",
            f"{100 * c['agree'] / max(c['pairs'], 1):.2f}%",
            f"{100 * c['both'] / max(c['either'], 1):.2f}% of {c['either']:,}",
            str(c["engine only"]),
            str(c["frame only"]),
        )
    console = Console()
    console.print(table)
    console.print(
        f"strict visibility at the expert's STOP (an instance within {SUCCESS_DISTANCE} m in view): geometry says yes in"
        f" {verdicts[True, True] + verdicts[True, False]} of {len(episodes)} episodes, the frame shows one in"
        f" {verdicts[True, True] + verdicts[False, True]}; they agree in {verdicts[True, True] + verdicts[False, False]}"
    )
    if args.json:
        figures = {k: dict(c) for k, c in counts.items()} | {"examples": examples}
        figures["expert_stop_verdicts"] = {f"geometry {g}, frame {f}": n for (g, f), n in verdicts.items()}
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
