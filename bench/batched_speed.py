"""Issue 30's batched engines in one run, each against its single counterpart and MiniGrid measured in the
same run, with the memory per env at each batch size:

* ObjectNav without pixels (`envs.objectnav.vector`), random actions without STOP (an episode cut every 500
  steps: the figure the target is read on), after a warm-up (`bench/objectnav_vector_speed.py`'s measures: the
  single env `homesim/ObjectNav-v0` and the batch), and stepping alone (a step limit never reached, no target);
  memory: the batch's state arrays per env plus its share of the shared tables (moves, positions, distances).
  Distances to goal are computed where agents first stand: --warm-up seconds of random steps fill part of them,
  --fill all of them up front (what a long run reaches; minutes);
* ALFRED without pixels (`envs.alfred.vector`: navigation + oracle interactions, random valid actions), warm
  (`bench/alfred_vector_speed.py`'s measures, `step` alone timed); memory: the state arrays per env (what the
  batch keeps per arrangement and pose, as entry counts, is in the JSON);
* batched RGB + depth + semantic at --pixel-size (128 by default) from LoCoBot's camera at random poses in
  several houses (`render.batch`, `bench/render_batch_speed.py`'s measures), against the single renderer;
  memory: a view's layer of the layered framebuffer and its images read back;
* two processes stepping N/2 envs each at once (the 2 cores) for the largest N of each env;
* MiniGrid-Empty-8x8, random actions, before and after the rest (`engine_speed.minigrid_steps_per_second`;
  the ratio is to their mean). `pip install -e ".[bench]"` installs it.

    python bench/batched_speed.py [--objectnav-sizes 1024,4096] [--alfred-sizes 1024,4096] [--render-batches 64,256]
                                  [--pixel-size 128] [--houses 4] [--per-house 6] [--seconds 3] [--warm-up 20]
                                  [--fill] [--alfred-episodes DATASET --layouts LAYOUTS --split valid_seen]
                                  [--no-two-processes] [--minigrid-steps 20000] [--json out.json]

Only step and render calls are timed, after warm-up. Steps/s count env steps (a batch step of N envs is N),
frames/s views. Targets (issue 30, on 2 cores): ObjectNav >= 1,000,000 steps/s at N >= 1,024; ALFRED >= 200,000
steps/s; RGB-D + semantic at 128x128 >= 3,000 frames/s. The load average is printed beside each figure: on a
shared machine, read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.envs.alfred.embodied import AlfredEnv
from homesim.envs.alfred.vector import AlfredVectorEnv
from homesim.envs.objectnav.vector import ObjectNavVectorEnv
from homesim.render import RenderingUnavailable

sys.path.insert(0, str(Path(__file__).parent))
import alfred_vector_speed as alfred  # noqa: E402
import objectnav_vector_speed as objectnav  # noqa: E402
import render_batch_speed as render  # noqa: E402
from engine_speed import minigrid_steps_per_second  # noqa: E402  (the reference every bench compares with)
from objectnav_vector_speed import ENDLESS  # noqa: E402

OBJECTNAV_TARGET, OBJECTNAV_TARGET_FROM = 1_000_000, 1024  # steps/s, at batches of this size or more
ALFRED_TARGET, RENDER_TARGET, RENDER_TARGET_SIZE = 200_000, 3_000, 128


def row(case: str, n: int, rate: float, single: float, bytes_per_env: float, target: int | None) -> dict:
    met = None if target is None else rate >= target
    return {
        "case": case,
        "num_envs": n,
        "per_s": rate,
        "single_per_s": single,
        "x_single": rate / single,
        "bytes_per_env": bytes_per_env,
        "target": target,
        "met": met,
        "load_average": os.getloadavg()[0],
    }


def objectnav_target(n: int) -> int | None:
    return OBJECTNAV_TARGET if n >= OBJECTNAV_TARGET_FROM else None


def objectnav_rows(args, figures: dict) -> list[dict]:
    episodes, scenes = objectnav.houses_episodes(args.houses, args.per_house)
    sizes = [int(s) for s in args.objectnav_sizes.split(",")]
    ObjectNavVectorEnv(1, episodes, scenes)  # builds the grids and distance fields (kept with the scenes)
    figures["objectnav_warm_up"] = objectnav.warm_up(episodes, scenes, max(sizes), args.warm_up, args.fill)
    single = objectnav.single_steps_per_second(episodes, scenes, args.seconds, seed=1)
    endless_single = objectnav.single_steps_per_second(episodes, scenes, args.seconds, seed=1, max_steps=ENDLESS)
    rows, endless_rows = [], []
    for n in sizes:
        envs = ObjectNavVectorEnv(n, episodes, scenes)
        rate = objectnav.batch_steps_per_second(envs, args.seconds, stop=False)
        state, tables_mb = objectnav.memory(envs)
        memory = state + tables_mb * 1e6 / n
        rows.append(row("ObjectNav, no pixels", n, rate, single, memory, objectnav_target(n)))
        rows[-1] |= {"state_bytes_per_env": state, "tables_mb": tables_mb}
        endless = ObjectNavVectorEnv(n, episodes, scenes, max_steps=ENDLESS)
        rate = objectnav.batch_steps_per_second(endless, args.seconds, stop=False)
        endless_rows.append(row("ObjectNav, no episode ends", n, rate, endless_single, memory, None))
    if args.two_processes:
        n, largest = max(sizes), max(rows, key=lambda r: r["num_envs"])
        rate = objectnav.two_processes(episodes, scenes, n, args.seconds)
        memory = largest["state_bytes_per_env"] + 2 * largest["tables_mb"] * 1e6 / n  # each process its tables
        rows.append(row("ObjectNav, 2 processes", n, rate, single, memory, objectnav_target(n)))
    figures["objectnav"] = {"episodes": len(episodes), "houses": len(scenes)}
    return rows + endless_rows


def alfred_rows(args, figures: dict) -> list[dict]:
    reference = AlfredEnv(args.alfred_episodes, split=args.split, layouts=args.layouts)
    episodes, scenes = reference.episodes, reference.scenes
    alfred.scene_views(scenes)
    single = alfred.single_steps_per_second(episodes, scenes, args.seconds)
    rows = []
    for n in (int(s) for s in args.alfred_sizes.split(",")):
        envs = AlfredVectorEnv(n, episodes, scenes)
        cold, warm = alfred.cold_and_warm(envs, args.seconds, args.warm_up, seed=n)
        kept = alfred.memory(envs)
        rows.append(row("ALFRED, oracle ids, no pixels", n, warm, single, kept["bytes_per_env"], ALFRED_TARGET))
        rows[-1] |= {"cold_per_s": cold, "kept": kept["kept"]}
    if args.two_processes:
        largest = max(rows, key=lambda r: r["num_envs"])
        n = largest["num_envs"]
        rate = alfred.two_processes(episodes, scenes, n, args.seconds, args.warm_up)
        rows.append(row("ALFRED, 2 processes", n, rate, single, largest["bytes_per_env"], ALFRED_TARGET))
    figures["alfred"] = {"episodes": len(episodes), "scenes": len(scenes)}
    return rows


def render_rows(args, figures: dict) -> list[dict]:
    size, batches = args.pixel_size, [int(b) for b in args.render_batches.split(",")]
    poses = render.views(args.houses, max(batches) * 2)
    try:
        single, single_cpu = render.single_frames_per_second(poses, size, args.seconds)
    except RenderingUnavailable as e:
        figures["rendering_unavailable"] = str(e)
        return []
    target = RENDER_TARGET if size == RENDER_TARGET_SIZE else None
    rows = []
    for batch in batches:
        rate, cpu = render.batch_frames_per_second(poses, size, batch, args.seconds)
        rows.append(row(f"RGB-D + semantic {size}x{size}", batch, rate, single, render.bytes_per_view(size), target))
        rows[-1] |= {"cpu_ms_per_frame": cpu, "single_cpu_ms_per_frame": single_cpu}
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objectnav-sizes", default="1024,4096")
    parser.add_argument("--alfred-sizes", default="1024,4096")
    parser.add_argument("--render-batches", default="64,256")
    parser.add_argument("--pixel-size", type=int, default=RENDER_TARGET_SIZE, help="image width and height")
    parser.add_argument("--houses", type=int, default=4, help="generated houses (ObjectNav and the rendered views)")
    parser.add_argument("--per-house", type=int, default=6, help="ObjectNav episodes per house")
    parser.add_argument("--alfred-episodes", help="a dataset folder or ALFRED trajectories (with --layouts)")
    parser.add_argument("--layouts")
    parser.add_argument("--split")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure")
    parser.add_argument("--warm-up", type=float, default=20.0, help="seconds stepped before the timed figures")
    parser.add_argument("--fill", action="store_true", help="ObjectNav: every distance computed up front instead")
    parser.add_argument("--no-two-processes", dest="two_processes", action="store_false")
    parser.add_argument("--minigrid-steps", type=int, default=20_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    console = Console(width=160)
    figures: dict = {"cores": os.cpu_count(), "load_average_start": os.getloadavg()[0]}
    before = minigrid_steps_per_second(args.minigrid_steps, 0)
    rows = objectnav_rows(args, figures) + alfred_rows(args, figures) + render_rows(args, figures)
    after = minigrid_steps_per_second(args.minigrid_steps, 0)
    minigrid = (before + after) / 2
    figures |= {"minigrid_steps_per_s": minigrid, "minigrid_before_after": [before, after]}
    figures |= {"load_average_end": os.getloadavg()[0], "rows": rows}
    table = Table(title="issue 30's batched engines: env steps/s (frames/s for rendering), one run")
    columns = ("case", "N", "steps or frames/s", "single env", "x single", "x MiniGrid", "memory/env", "target")
    for column in (*columns, "met?", "load"):
        table.add_column(column, justify="left" if column == "case" else "right")
    for r in rows:
        r["x_minigrid"] = r["per_s"] / minigrid
        table.add_row(
            r["case"], str(r["num_envs"]), f"{r['per_s']:,.0f}", f"{r['single_per_s']:,.0f}", f"{r['x_single']:.1f}",
            f"{r['x_minigrid']:.1f}", f"{r['bytes_per_env'] / 1024:,.1f} kB",
            "" if r["target"] is None else f">= {r['target']:,}", {None: "", True: "yes", False: "NO"}[r["met"]],
            f"{r['load_average']:.1f}",
        )  # fmt: skip
    console.print(table)
    console.print(
        f"MiniGrid-Empty-8x8 {before:,.0f} steps/s before, {after:,.0f} after; load average"
        f" {figures['load_average_start']:.1f} at the start, {figures['load_average_end']:.1f} at the end, on"
        f" {figures['cores']} cores"
    )
    if "rendering_unavailable" in figures:
        console.print(f"rendering not measured: {figures['rendering_unavailable']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return figures


if __name__ == "__main__":
    main()
