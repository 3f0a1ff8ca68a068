"""Engine/renderer visibility agreement over random poses in the real ALFRED scenes (the 88 floor plans
of valid_seen, rebuilt from its trajectories), in states met along their expert demonstrations.

    python bench/render_agreement.py [--poses 10000] [--seed 0] [--json out.json]

Per (pose, object) pair the engine's rule (`visible_objects`) and the frame (an object pixel within
1.5 m of the agent) must say the same; see `homesim.render.agreement` for the definition and the causes
of disagreement. Three rates: over all pairs, over pairs whose object's extent is within 1.5 m, and
over pairs either side calls visible.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.render import Renderer
from homesim.render.agreement import CAUSES, Agreement, random_poses
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def demo_states(trajectories: Path, layouts: Path) -> tuple[dict[str, Scene], dict[str, list[State]]]:
    """The floor plans of the trajectories, and per floor plan every state met along its demonstrations."""
    good = [t for t in read_trajectories(trajectories) if isinstance(t, RawTrajectory)]
    evidence = gather_evidence(t.data for t in good)
    scenes = {fp: build_scene(fp, layouts, e) for fp, e in evidence.items()}
    states: dict[str, list[State]] = {}
    for t in good:
        scene = scenes[t.data["scene"]["floor_plan"]]
        episode = episode_from_trajectory(t.source, t.data, scene)
        state = episode.initial_state
        found = states.setdefault(scene.id, [])
        found.append(state)
        for action in episode.expert_actions:
            state, _ = step(scene, state, action)
            found.append(state)
    return scenes, states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--poses", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    scenes, states = demo_states(args.trajectories, args.layouts)
    renderer = Renderer()
    engine = Agreement()
    begin = time.perf_counter()
    for scene, state in track(random_poses(scenes, states, args.poses, args.seed), total=args.poses):
        engine.add(scene, state, renderer)
    seconds = time.perf_counter() - begin

    table = Table(title=f"visibility agreement, {engine.poses:,} random poses in {len(scenes)} ALFRED floor plans")
    table.add_column("pairs")
    table.add_column("agreement", justify="right")
    for name, pairs, rate in (
        ("all (pose, object)", "pairs", "rate"),
        ("extent within 1.5 m", "reach_pairs", "reach_rate"),
        ("either side says visible", "either_visible", "visible_rate"),
    ):
        table.add_row(f"{name}: {getattr(engine, pairs):,}", f"{100 * getattr(engine, rate):.2f}%")
    for cause in CAUSES:
        table.add_row(f"  disagreements: {cause}", f"{engine.causes[cause]:,}")
    console = Console()
    console.print(table)
    console.print(f"{seconds:.1f} s ({engine.poses / seconds:,.0f} poses/s, causes included)")
    if args.json:
        args.json.write_text(json.dumps(engine.summary(), indent=1))


if __name__ == "__main__":
    main()
