"""Batched rendering (`render.batch.BatchRenderer`) against the single renderer measured in the same run:
frames/s of RGB + depth + instance segmentation (what ObjectNav's rgb, depth and semantic need) from LoCoBot's
camera (79 degrees, depth clipped to [0.5, 5] m) at random navigable poses in generated houses (views of
several houses mixed in each batch), at the sizes reinforcement learning uses.

    python bench/render_batch_speed.py [--sizes 64,128,256] [--batches 1,16,64,256] [--houses 4]
                                       [--seconds 3] [--cores N] [--json out.json]

Per figure: wall-clock frames/s, the ratio to the single renderer at that size, and CPU ms per frame summed
over the process's threads (llvmpipe rasterises on its own threads: the measure a loaded machine changes
least). Target (issue 30): >= 3,000 frames/s of RGB-D + semantic at 128x128 on 2 cores. Published anchor:
Habitat-sim 709 frames/s RGB-D-semantic at 128x128 on a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.render import Renderer
from homesim.render.batch import BatchRenderer
from homesim.render.renderer import ATTACHMENTS
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav import embodied_scene
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import nav_grid
from homesim.world.state import AgentState, State

NO_OBJECTS: dict = {}  # ObjectNav draws the fixed objects only, one objects dict for every frame


def views(houses: int, count: int, seed: int = 0) -> list[tuple]:
    """Random navigable poses (any heading, any camera pitch) in generated houses, the houses interleaved."""
    rng, scenes = np.random.default_rng(seed), []
    for house in range(houses):
        scene = embodied_scene(generate_house(house)[0], LOCOBOT)
        scenes.append((scene, nav_grid(scene, LOCOBOT).navigable_points(4)))
    made = []
    for k in range(count):
        scene, points = scenes[k % len(scenes)]
        x, z = points[rng.integers(len(points))]
        agent = AgentState(float(x), float(z), int(rng.choice(LOCOBOT.yaws)), int(rng.choice(LOCOBOT.horizons)))
        made.append((scene, State(objects=NO_OBJECTS, agents=(agent,))))
    return made


def timed(draw, frames_per_call: int, seconds: float) -> tuple[float, float]:
    """Frames/s and CPU ms per frame (all threads) of calling draw() for about `seconds`."""
    draw()  # uploads the scenes
    frames, begin, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - begin < seconds:
        draw()
        frames += frames_per_call
    wall, cpu = time.perf_counter() - begin, time.process_time() - cpu
    return frames / wall, 1000 * cpu / frames


def settings(size: int) -> dict:
    """A renderer's settings for LoCoBot's camera at size x size."""
    return {"width": size, "height": size, "fov": LOCOBOT.hfov, "depth_range": LOCOBOT.depth_range}


def single_frames_per_second(poses: list[tuple], size: int, seconds: float) -> tuple[float, float]:
    """Frames/s and CPU ms per frame of the single renderer drawing the poses one at a time, in turn."""
    single = Renderer(**settings(size), views=0)
    cycle = iter(range(10**9))

    def one() -> None:
        scene, state = poses[next(cycle) % len(poses)]
        single.render(scene, state)

    try:
        return timed(one, 1, seconds)
    finally:
        single.close()


def batch_frames_per_second(poses: list[tuple], size: int, batch: int, seconds: float) -> tuple[float, float]:
    """Frames/s and CPU ms per frame of a `BatchRenderer` drawing the poses `batch` at a time, in turn."""
    renderer = BatchRenderer(batch, **settings(size))
    start = iter(range(10**9))

    def many() -> None:
        offset = next(start) * batch % len(poses)
        renderer.render_many((poses + poses)[offset : offset + batch])

    try:
        return timed(many, batch, seconds)
    finally:
        renderer.close()


def bytes_per_view(size: int) -> int:
    """What a view holds in a batch: its layer of the layered framebuffer (each image's colour attachment and
    the 32-bit depth attachment, in llvmpipe's memory) and its images read back."""
    attachments = sum(components * np.dtype(kind).itemsize for components, _, kind in ATTACHMENTS.values())
    read_back = 3 + 4 + 4  # RGB (3 x uint8), depth (float32), segmentation (int32)
    return size * size * (attachments + 4 + read_back)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="64,128,256")
    parser.add_argument("--batches", default="1,16,64,256")
    parser.add_argument("--houses", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--cores", type=int, help="CPU cores the process (and llvmpipe) may use; default: all")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    # Before any OpenGL context: llvmpipe's rasteriser threads inherit the process's cores.
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: args.cores])
    cores = len(os.sched_getaffinity(0))
    console = Console()
    batches = [int(b) for b in args.batches.split(",")]
    poses = views(args.houses, max(batches) * 2)
    figures = {"cores": cores, "load_average_start": os.getloadavg()[0], "sizes": {}}
    console.print(f"on {cores} core(s), load average {figures['load_average_start']:.1f} at the start")
    table = Table(title="RGB + depth + segmentation, LoCoBot's camera, random poses in several houses")
    for column in ("size", "renderer", "frames/s", "x single", "CPU ms/frame", "load"):
        table.add_column(column, justify="right")
    for size in (int(s) for s in args.sizes.split(",")):
        reference, reference_cpu = single_frames_per_second(poses, size, args.seconds)
        figures["sizes"][size] = {"single": {"frames_per_s": reference, "cpu_ms_per_frame": reference_cpu}}
        load = os.getloadavg()[0]
        table.add_row(f"{size}x{size}", "single", f"{reference:,.0f}", "1.00", f"{reference_cpu:.3f}", f"{load:.1f}")
        for batch in batches:
            rate, cpu = batch_frames_per_second(poses, size, batch, args.seconds)
            load = os.getloadavg()[0]
            figures["sizes"][size][batch] = {"frames_per_s": rate, "cpu_ms_per_frame": cpu, "load_average": load}
            table.add_row("", f"batch {batch}", f"{rate:,.0f}", f"{rate / reference:.2f}", f"{cpu:.3f}", f"{load:.1f}")
    console.print(table)
    at_128 = figures["sizes"].get(128)
    if at_128:
        best = max(v["frames_per_s"] for k, v in at_128.items() if k != "single")
        verdict = "met" if best >= 3000 else "NOT met"
        console.print(f"best at 128x128: {best:,.0f} frames/s; target >= 3,000 on 2 cores: {verdict} (load above)")
    figures["load_average_end"] = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
