"""Rendering speed: frames per second of RGB + depth + instance segmentation in a real ALFRED kitchen
(FloorPlan1, rebuilt from valid_seen), on one CPU core (Mesa llvmpipe through EGL), at ALFRED's 300x300
(90 degrees; target: 300 fps) and ObjectNav's 640x480 (79 degrees, depth clipped to [0.5, 5] m).

    python bench/render_speed.py [--floor-plan FloorPlan1] [--frames 2000] [--cores 1] [--json out.json]

Two workloads per size: *navigation* (random poses, one state: the objects' geometry is reused, as
between the steps of a walk) and *interaction* (every frame a different state met along the kitchen's
demonstrations: the objects' geometry is rebuilt each frame). Reference, measured in the same run: the
bare read-back of the three images (the floor under any frame rate here). Published anchors, for
scale: AI2-THOR 13-22 actions/s/thread (GPU, 2017); Habitat-sim 709 fps RGB-D-semantic at 128x128 (GPU).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.render import ALFRED, OBJECTNAV, Renderer
from homesim.render.agreement import HORIZONS
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.dynamics import step
from homesim.world.scene import GRID_SIZE

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def kitchen(floor_plan: str):
    trajectories = [
        t
        for t in read_trajectories(SHARED / "trajectories" / "valid_seen.jsonl.gz")
        if isinstance(t, RawTrajectory) and t.data["scene"]["floor_plan"] == floor_plan
    ]
    if not trajectories:
        sys.exit(f"no valid_seen trajectory uses {floor_plan}")
    scene = build_scene(floor_plan, SHARED / "layouts", gather_evidence(t.data for t in trajectories)[floor_plan])
    states = []
    for t in trajectories:
        episode = episode_from_trajectory(t.source, t.data, scene)
        state = episode.initial_state
        states.append(state)
        for action in episode.expert_actions:
            state, _ = step(scene, state, action)
            states.append(state)
    return scene, states


def posed(scene, state, rng: random.Random):
    ix, iz = rng.choice(sorted(scene.reachable))
    agent = replace(
        state.agents[0],
        x=ix * GRID_SIZE,
        z=iz * GRID_SIZE,
        yaw=rng.choice((0, 90, 180, 270)),
        horizon=rng.choice(HORIZONS),
    )
    return replace(state, agents=(agent,))


def frames_per_second(renderer: Renderer, scene, states: list, frames: int) -> float:
    for state in states[:50]:  # warm-up: shaders compiled, buffers sized
        renderer.render(scene, state)
    begin = time.perf_counter()
    for i in range(frames):
        renderer.render(scene, states[i % len(states)])
    return frames / (time.perf_counter() - begin)


def readback_per_second(renderer: Renderer, frames: int) -> float:
    w, h = renderer.camera.width, renderer.camera.height
    rgb, depth, ids = np.empty((h, w, 3), np.uint8), np.empty((h, w), np.float32), np.empty((h, w), np.int32)
    with renderer.ctx:  # render() leaves the context it found current: outside it, reads return zeros
        begin = time.perf_counter()
        for _ in range(frames):
            renderer.fbo.read_into(rgb, components=3, attachment=0)
            renderer.fbo.read_into(depth, components=1, attachment=1, dtype="f4")
            renderer.fbo.read_into(ids, components=1, attachment=2, dtype="i4")
        return frames / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--floor-plan", default="FloorPlan1")
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--cores", type=int, default=1, help="CPU cores the process (and llvmpipe) may use")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    # Before any OpenGL context: llvmpipe's rasteriser threads inherit the process's cores.
    cores = sorted(os.sched_getaffinity(0))[: args.cores]
    os.sched_setaffinity(0, cores)
    scene, demo = kitchen(args.floor_plan)
    rng = random.Random(args.seed)
    walk = [posed(scene, demo[0], rng) for _ in range(500)]
    varied = [posed(scene, rng.choice(demo), rng) for _ in range(500)]

    figures = {"floor_plan": scene.id, "cores": len(cores), "fixed_objects": len(scene.fixed)}
    table = Table(title=f"frames/s, RGB + depth + segmentation, {scene.id}, {len(cores)} core(s), llvmpipe")
    for column in ("camera", "navigation", "interaction", "reference: read-back only"):
        table.add_column(column, justify="left" if column == "camera" else "right")
    for name, config in (("ALFRED 300x300", ALFRED), ("ObjectNav 640x480", OBJECTNAV)):
        with Renderer(**config) as renderer:
            navigation = frames_per_second(renderer, scene, walk, args.frames)
            interaction = frames_per_second(renderer, scene, varied, args.frames)
            reference = readback_per_second(renderer, args.frames)
        figures[name] = {"navigation_fps": navigation, "interaction_fps": interaction, "readback_fps": reference}
        table.add_row(name, f"{navigation:,.0f}", f"{interaction:,.0f}", f"{reference:,.0f}")
    Console().print(table)
    Console().print("target: 300 fps at 300x300 on one core")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
