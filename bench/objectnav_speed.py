"""ObjectNav throughput on one core, against the pure core (`navgrid.nav_step`) measured in the same run:

* `homesim/ObjectNav-v0` steps/s without pixels, and with RGB-D at LoCoBot's 640x480 (random actions, STOP
  excluded, episodes reset when the step limit cuts them), after a first reset of every episode (which builds
  each house's nav grid and each goal set's distance field once: timed on its own); with pixels also the CPU
  time per step of the process's threads (llvmpipe rasterises on its own threads), which other work on the
  machine changes far less than wall time, and RGB-D + semantic (three images drawn instead of two) beside it;
  random actions see many views again (blocked moves, turns and back), which the renderer reads back without
  drawing: the share of such steps is reported, and RGB-D with every view drawn (`Renderer.views = 0`) too;
* the expert evaluated over a val split (1,000 episodes by default) with 1 and 2 worker processes, records
  and summary written (both must write the same bytes).

    python bench/objectnav_speed.py [--episodes DATASET] [--steps 20000] [--pixel-steps 1000] [--cores N]
                                    [--no-evaluation] [--json out.json]

Without --episodes a dataset is generated first (`--houses 20`, 1,000 episodes per split, seed 0) and the
generation speed is reported too. Targets (issue 12): >= 10,000 steps/s without pixels, >= 300 with RGB-D,
1,000 val episodes evaluated in under 2 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.folder import read_dataset, write_dataset
from homesim.datasets.objectnav.generate import generate
from homesim.envs.objectnav.env import ObjectNavEnv
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.objectnav.suite import objectnav_options
from homesim.parallel import Workers
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import ACTIONS, nav_grid, nav_step
from homesim.world.state import AgentState

MOVES = ACTIONS[1:]  # every action but STOP


def core_steps_per_second(episodes, scenes, steps: int) -> float:
    """The pure core: nav_step from pose to pose, no env around it."""
    episode = episodes[0]
    grid = nav_grid(scenes[episode.scene_id], LOCOBOT)
    agent, rng = AgentState(*episode.start_position, episode.start_rotation, 0), random.Random(0)
    actions = [rng.choice(MOVES) for _ in range(steps)]
    begin = time.perf_counter()
    for action in actions:
        agent, _ = nav_step(grid, agent, action)
    return steps / (time.perf_counter() - begin)


def first_resets(episodes, scenes) -> float:
    """Seconds per episode for the first reset of every episode: the nav grid of each house and the distance
    field of each goal set are built then, once, and kept with the scene."""
    env = ObjectNavEnv(episodes, scenes)
    begin = time.perf_counter()
    for i in range(len(episodes)):
        env.reset(options={"episode": i})
    return (time.perf_counter() - begin) / len(episodes)


def env_steps_per_second(
    episodes, scenes, steps: int, pixels: tuple[str, ...], draw_all: bool = False
) -> tuple[float, float, float | None]:
    """Steps per second once every episode's reset has been made once (see `first_resets`), CPU milliseconds
    per step summed over the process's threads, and the share of frames read back without drawing (a view
    seen again; with `draw_all`, none)."""
    env = ObjectNavEnv(episodes, scenes, pixels=pixels)
    if draw_all:
        env.renderer.views = 0
    env.reset(seed=0)
    env.step(1)  # the first frame uploads the scene
    rng = random.Random(0)
    actions = [ACTIONS.index(rng.choice(MOVES)) for _ in range(steps)]
    reused = env.renderer.reused if env.renderer else 0
    begin, cpu = time.perf_counter(), time.process_time()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    seconds, cpu = time.perf_counter() - begin, 1000 * (time.process_time() - cpu) / steps
    return steps / seconds, cpu, (env.renderer.reused - reused) / steps if env.renderer else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=Path, help="an ObjectNav dataset folder with a val split")
    parser.add_argument("--houses", type=int, default=20)
    parser.add_argument("--per-split", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--pixel-steps", type=int, default=1_000)
    parser.add_argument("--cores", type=int, help="CPU cores the process (and llvmpipe) may use; default: all")
    parser.add_argument("--no-evaluation", action="store_true", help="only the steps/s tables")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    # Before any OpenGL context: llvmpipe's rasteriser threads inherit the process's cores.
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: args.cores])
    console, figures = Console(), {"cores": len(os.sched_getaffinity(0)), "load_average": os.getloadavg()[0]}
    console.print(f"on {figures['cores']} core(s), load average {figures['load_average']:.1f} when it starts")
    with tempfile.TemporaryDirectory() as scratch:
        if args.episodes is None:
            begin = time.perf_counter()
            splits, scenes, _ = generate(args.houses, args.per_split, 0, Workers(2))
            seconds = time.perf_counter() - begin
            made = sum(map(len, splits.values()))
            figures["generation"] = {"episodes": made, "seconds": seconds, "episodes_per_s": made / seconds}
            console.print(
                f"generated {made} episodes in {args.houses} houses in {seconds:.1f} s on 2 processes"
                f" ({made / seconds:.1f} episodes/s)"
            )
            args.episodes = Path(scratch) / "dataset"
            write_dataset(args.episodes, splits, scenes, {"bench": True}, suite="objectnav")
        splits, scenes = read_dataset(args.episodes, "val", "objectnav")
        val = splits["val"]

        reset = first_resets(val, scenes)
        figures["first_reset_seconds"] = reset
        console.print(
            f"first reset of each of {len(val)} episodes: {1000 * reset:.1f} ms on average (grids and fields built)"
        )
        core = core_steps_per_second(val, scenes, args.steps)
        table = Table(title="homesim/ObjectNav-v0 (random actions, STOP excluded)")
        for column in ("what", "steps/s", "x the pure core", "CPU ms/step", "views seen again", "target"):
            table.add_column(column, justify="left" if column == "what" else "right")
        table.add_row("nav_step alone (reference)", f"{core:,.0f}", "1.00", "", "", "")
        rgbd = ("rgb", "depth")
        for name, pixels, steps, draw_all, target in (
            ("env, no pixels", (), args.steps, False, 10_000),
            ("env, RGB-D 640x480", rgbd, args.pixel_steps, False, 300),
            ("env, RGB-D 640x480, every view drawn", rgbd, args.pixel_steps, True, None),
            ("env, RGB-D + semantic 640x480", (*rgbd, "semantic"), args.pixel_steps, False, None),
        ):
            rate, cpu, reused = env_steps_per_second(val, scenes, steps, pixels, draw_all)
            figures[name] = {"steps_per_s": rate, "ratio_to_core": rate / core, "cpu_ms_per_step": cpu}
            figures[name] |= {"views_seen_again": reused} if pixels else {}
            verdict = f">= {target:,} ({'met' if rate >= target else 'NOT met'})" if target else ""
            again = "" if reused is None else f"{100 * reused:.0f}%"
            table.add_row(name, f"{rate:,.0f}", f"{rate / core:.3f}", f"{cpu:.2f}", again, verdict)
        figures["core_steps_per_s"] = core
        console.print(table)
        if args.no_evaluation:
            return write(args.json, figures)

        table = Table(title=f"expert evaluation over {len(val)} val episodes (records and summary written)")
        for column in ("workers", "seconds", "episodes/s", "x 1 process", "success", "SPL", "same bytes"):
            table.add_column(column, justify="right")
        reference = None
        config = EvaluationConfig(agent="expert", suite="objectnav", options=objectnav_options())
        for workers in (1, 2):
            out = Path(scratch) / f"eval-{workers}"
            begin = time.perf_counter()
            summary = evaluate({"val": val}, scenes, config, out, workers=workers)
            seconds = time.perf_counter() - begin
            records = (out / "records.jsonl").read_bytes()
            reference = reference or (records, seconds)
            result = summary["splits"]["val"]["all"]
            figures[f"expert_{workers}_workers"] = {"seconds": seconds, "episodes_per_s": len(val) / seconds}
            table.add_row(
                str(workers),
                f"{seconds:.1f}",
                f"{len(val) / seconds:,.1f}",
                f"{reference[1] / seconds:.2f}x",
                f"{100 * result['success']['value']:.1f}%",
                f"{result['spl']['value']:.4f}",
                str(records == reference[0]),
            )
        console.print(table)
    write(args.json, figures)


def write(path: Path | None, figures: dict) -> None:
    if path:
        path.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
