"""Engine/renderer visibility agreement over random poses in the real ALFRED scenes (the 88 floor plans
of valid_seen, rebuilt from its trajectories), in states met along their expert demonstrations.

    python bench/render_agreement.py [--poses 10000] [--seed 0] [--json out.json]

Per (pose, object) pair the engine's rule (`visible_objects`) and the frame (an object pixel within
1.5 m of the agent) must say the same; see `homesim.render.agreement` for the definition and the causes
of disagreement. Three rates: over all pairs, over pairs whose object's extent is within 1.5 m, and
over pairs either side calls visible. The same poses are also counted against a *what-if* rule: the
engine's rule with its 90 degree view wedge (bearing and elevation) replaced by the camera's pinhole
frustum, which is what AI2-THOR's visibility tests; the gap between the two is what the wedge costs.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred import episode_from_trajectory
from homesim.datasets.alfred_files import RawTrajectory, read_trajectories
from homesim.render import Renderer
from homesim.render.agreement import CAUSES, Agreement, random_poses
from homesim.render.camera import Camera
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.catalog import Catalog
from homesim.world.dynamics import step
from homesim.world.geometry import SAMPLE_SPACING, VISIBILITY_DISTANCE, enclosed, object_box
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


def frustum_rule(camera: Camera):
    """What-if: ALFRED's rule (extent within 1.5 m, not shut inside anything) with the camera's frustum as
    the view: some vertical segment of the extent's footprint samples crosses the frustum."""

    def visible(scene: Scene, state: State, catalog: Catalog, agent_index: int) -> list[str]:
        me = state.agents[agent_index]
        eye = np.array((me.x, scene.camera_height, me.z))
        axes = np.stack(camera.axes(me.yaw, me.horizon))
        found = []
        for object_id in state.objects:
            box = object_box(scene, state, catalog, object_id)
            if box is None or me.held == object_id or enclosed(state, catalog, object_id) is not None:
                continue
            xs = np.linspace(box.lo[0], box.hi[0], max(2, math.ceil((box.hi[0] - box.lo[0]) / SAMPLE_SPACING) + 1))
            zs = np.linspace(box.lo[2], box.hi[2], max(2, math.ceil((box.hi[2] - box.lo[2]) / SAMPLE_SPACING) + 1))
            px, pz = (a.ravel() for a in np.meshgrid(xs, zs))
            near = np.hypot(px - me.x, pz - me.z) <= VISIBILITY_DISTANCE
            if near.any() and _segments_cross_frustum(camera, eye, axes, px[near], pz[near], box.lo[1], box.hi[1]):
                found.append(object_id)
        return found

    return visible


def _segments_cross_frustum(camera: Camera, eye, axes, px, pz, y0: float, y1: float) -> bool:
    """Whether any vertical segment (px, y0..y1, pz) meets the frustum (Liang-Barsky clipping)."""
    bottom = np.stack((px, np.full_like(px, y0), pz), axis=1) - eye
    a = bottom @ axes.T  # camera coordinates of the segments' bottoms: right, up, forward
    b = np.tile(axes[:, 1] * (y1 - y0), (len(px), 1))  # their change from bottom to top
    tx, ty = camera.tan_half
    # each plane as f(t) = p + q t >= 0 for t in [0, 1]
    planes = [
        (a[:, 2] - camera.near, b[:, 2]),
        (tx * a[:, 2] - a[:, 0], tx * b[:, 2] - b[:, 0]),
        (tx * a[:, 2] + a[:, 0], tx * b[:, 2] + b[:, 0]),
        (ty * a[:, 2] - a[:, 1], ty * b[:, 2] - b[:, 1]),
        (ty * a[:, 2] + a[:, 1], ty * b[:, 2] + b[:, 1]),
    ]
    lo, hi = np.zeros(len(px)), np.ones(len(px))
    for p, q in planes:
        with np.errstate(divide="ignore", invalid="ignore"):
            t = -p / q
        lo = np.where(q > 0, np.maximum(lo, t), lo)
        hi = np.where(q < 0, np.minimum(hi, t), hi)
        hi = np.where((q == 0) & (p < 0), -1.0, hi)
    return bool((lo <= hi).any())


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
    engine, what_if = Agreement(), Agreement()
    frustum = frustum_rule(renderer.camera)
    begin = time.perf_counter()
    for scene, state in random_poses(scenes, states, args.poses, args.seed):
        engine.add(scene, state, renderer)
        what_if.add(scene, state, renderer, rule=frustum)
    seconds = time.perf_counter() - begin

    table = Table(title=f"visibility agreement, {engine.poses:,} random poses in {len(scenes)} ALFRED floor plans")
    for column in ("pairs", "engine's rule", "what-if: camera frustum"):
        table.add_column(column, justify="left" if column == "pairs" else "right")
    for name, pairs, rate in (
        ("all (pose, object)", "pairs", "rate"),
        ("extent within 1.5 m", "reach_pairs", "reach_rate"),
        ("either side says visible", "either_visible", "visible_rate"),
    ):
        table.add_row(
            f"{name}: {getattr(engine, pairs):,}",
            f"{100 * getattr(engine, rate):.2f}%",
            f"{100 * getattr(what_if, rate):.2f}% ({getattr(what_if, pairs):,})",
        )
    for cause in CAUSES:
        table.add_row(f"  disagreements: {cause}", f"{engine.causes[cause]:,}", f"{what_if.causes[cause]:,}")
    console = Console()
    console.print(table)
    console.print(f"{seconds:.1f} s ({engine.poses / seconds:,.0f} poses/s, both rules, causes included)")
    if args.json:
        args.json.write_text(json.dumps({"engine": engine.summary(), "what_if_frustum": what_if.summary()}, indent=1))


if __name__ == "__main__":
    main()
