"""The batched ObjectNav env (`envs.objectnav.vector`, no pixels) against the single env measured in the same
run: steps/s for N = 1 .. 4096 envs (and more with --sizes), in several houses.

* reference: `homesim/ObjectNav-v0` one env, random actions (STOP excluded), reset when the step limit cuts
  an episode: what `bench/objectnav_speed.py` measures;
* the batch with the same actions (STOP excluded: an episode ends every 500 steps), and with STOP among them
  (one action in six: an episode ends every six steps or so, each end judged by the single env's verdict
  in Python, the batch's slow path: what the criteria read, about 1 ms of sight tests an end);
* both without ends (a step limit never reached): what stepping alone costs;
* two processes stepping N/2 envs each at once (the 2 cores), for the largest N;
* with RGB + depth + semantic at --pixel-size (128x128 by default, LoCoBot's 79 degrees): the single env and
  the batch (its views drawn by `render.batch`), random actions without STOP;
* the memory per env (its state arrays, trail and episode draws) and the shared tables (every house's moves
  and positions, every goal set's distances), and the seconds the tables take to build.

Distances to goal are habitat's continuous geodesic distances, about 0.2 ms a point, computed where an agent
first stands, kept per goal set and lattice node for both (`GoalDistance.node_distances`):
each figure is measured twice, "cold" (the first seconds after the houses are built, each new point computed)
and "warm": after --warm-up seconds of random steps (other actions: what a long run sees), or with --fill
after every distance is computed up front (`ObjectNavVectorEnv.fill_distances`: what the stepping itself
costs; a few seconds per goal set).

    python bench/objectnav_vector_speed.py [--houses 6] [--per-house 6] [--episodes DATASET --split val]
                                           [--sizes 1,4,16,64,256,1024,4096] [--pixel-sizes 16,64]
                                           [--pixel-size 128] [--seconds 3] [--warm-up 60] [--fill] [--json out.json]

Steps/s count env steps (a batch step of N envs is N). The machine's load average is printed beside the
figures: on a shared machine, read the ratios. Target (issue 30): >= 1,000,000 steps/s at N >= 1,024.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.datasets.objectnav.generate import sample_episodes
from homesim.envs.objectnav.env import ObjectNavEnv
from homesim.envs.objectnav.vector import ObjectNavVectorEnv
from homesim.scenes.houses import generate_house
from homesim.world.objectnav.embodiment import LOCOBOT

ENDLESS = 10**9  # a step limit no timed run reaches: steps without an episode's end, what stepping costs
TABLES = ("_next", "_lattice", "_x", "_z", "_distances")  # shared by every env of a batch


def houses_episodes(houses: int, per_house: int) -> tuple[list, dict]:
    episodes, scenes = [], {}
    for seed in range(houses):
        scene, _ = generate_house(seed)
        made, _ = sample_episodes(scene, per_house, random.Random(f"bench/{seed}"))
        episodes += made
        scenes[scene.id] = scene
    return episodes, scenes


def single_steps_per_second(episodes, scenes, seconds: float, seed: int = 0, **settings) -> float:
    env = ObjectNavEnv(episodes, scenes, **settings)
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(1, 6, size=4096).tolist()
    steps, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        for action in actions:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        steps += len(actions)
    return steps / (time.perf_counter() - begin)


def batch_steps_per_second(envs: ObjectNavVectorEnv, seconds: float, stop: bool, seed: int = 1) -> float:
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = rng.integers(0 if stop else 1, 6, size=(256, envs.num_envs))  # 256 steps of actions, in turn
    envs.step(actions[0])
    chunk = max(1, 4096 // envs.num_envs)  # steps between looks at the clock
    steps, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        for k in range(steps // envs.num_envs, steps // envs.num_envs + chunk):
            envs.step(actions[k % len(actions)])
        steps += chunk * envs.num_envs
    return steps / (time.perf_counter() - begin)


def warm_up(episodes, scenes, num_envs: int, seconds: float, fill: bool) -> dict:
    """Random steps of the single env (seconds / 4) and of a batch of num_envs (seconds), or with `fill` every
    distance computed up front: what a long run has computed by the time it is measured."""
    begin = time.perf_counter()
    single_steps_per_second(episodes, scenes, seconds / 4, seed=2)
    if fill:
        ObjectNavVectorEnv(1, episodes, scenes).fill_distances()
    else:
        batch_steps_per_second(ObjectNavVectorEnv(num_envs, episodes, scenes), seconds, False, seed=2)
    computed = distances_computed(episodes, scenes)
    return {"seconds": time.perf_counter() - begin, "distances_computed": computed, "fill": fill}


def distances_computed(episodes, scenes) -> int:
    """How many (goal set, node) distances the process's batches have computed so far."""
    return sum(int(np.isfinite(goal.at_nodes()).sum()) for _, goal in ObjectNavVectorEnv(1, episodes, scenes)._sets)


def memory(envs: ObjectNavVectorEnv) -> tuple[float, float]:
    """Bytes per env of the batch's state, and MB of its shared tables."""
    arrays = [v for v in vars(envs).values() if isinstance(v, np.ndarray)]
    per_env = sum(a.nbytes for a in arrays if a.shape[:1] == (envs.num_envs,)) / envs.num_envs
    return per_env, sum(getattr(envs, name).nbytes for name in TABLES) / 1e6


_SHARED: tuple = ()  # the parent's (episodes, scenes), inherited by forked workers


def _share(episodes, scenes) -> None:
    global _SHARED
    _SHARED = (episodes, scenes)


def _worker(args) -> float:
    num_envs, seconds = args
    return batch_steps_per_second(ObjectNavVectorEnv(num_envs, *_SHARED), seconds, stop=False)


def two_processes(episodes, scenes, num_envs: int, seconds: float) -> float:
    """Env steps/s of two processes stepping num_envs / 2 envs each, at the same time. The scenes reach them
    by fork (a pool's initargs), not pickled: a pickled scene drops its caches, its grids and the distances
    computed so far, and the workers would measure a cold start. Each process builds its own tables."""
    with multiprocessing.get_context("fork").Pool(2, initializer=_share, initargs=(episodes, scenes)) as pool:
        rates = pool.map(_worker, [(num_envs // 2, seconds)] * 2)
    return sum(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--houses", type=int, default=6)
    parser.add_argument("--per-house", type=int, default=6)
    parser.add_argument("--episodes", type=Path, help="an ObjectNav dataset folder instead of generated houses")
    parser.add_argument("--split", default="val")
    parser.add_argument("--sizes", default="1,4,16,64,256,1024,4096")
    parser.add_argument("--pixel-sizes", default="16,64", help="batch sizes measured with pixels")
    parser.add_argument("--pixel-size", type=int, default=128, help="image width and height with pixels")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure")
    parser.add_argument("--warm-up", type=float, default=60.0, help="seconds stepped before the warm figures")
    parser.add_argument("--fill", action="store_true", help="warm up by computing every distance (fill_distances)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    console = Console()
    if args.episodes:
        from homesim.datasets.folder import read_dataset

        splits, scenes = read_dataset(args.episodes, args.split, "objectnav")
        episodes = splits[args.split]
    else:
        episodes, scenes = houses_episodes(args.houses, args.per_house)
    figures = {"episodes": len(episodes), "houses": len(scenes), "load_average_start": os.getloadavg()[0]}
    console.print(
        f"{len(episodes)} episodes in {len(scenes)} houses; load average {figures['load_average_start']:.1f}"
        f" on {os.cpu_count()} cores at the start"
    )
    begin = time.perf_counter()
    ObjectNavVectorEnv(1, episodes, scenes)  # builds the grids and distance fields (kept with the scenes)
    figures["first_build_seconds"] = time.perf_counter() - begin
    begin = time.perf_counter()
    ObjectNavVectorEnv(1, episodes, scenes)
    figures["tables_seconds"] = time.perf_counter() - begin
    console.print(
        f"grids and distance fields built in {figures['first_build_seconds']:.1f} s; the batch's tables from"
        f" them in {figures['tables_seconds']:.2f} s"
    )
    sizes = [int(s) for s in args.sizes.split(",")]
    cold_single = single_steps_per_second(episodes, scenes, args.seconds, seed=0)
    cold_batch = batch_steps_per_second(ObjectNavVectorEnv(max(sizes), episodes, scenes), args.seconds, False, seed=0)
    computed = distances_computed(episodes, scenes)
    figures |= {"single_env_cold_steps_per_s": cold_single}
    figures |= {"cold": {"num_envs": max(sizes), "steps_per_s": cold_batch, "distances_computed": computed}}
    console.print(
        f"cold (the first {args.seconds:g} s, distances computed where agents first stand): the single env"
        f" {cold_single:,.0f} steps/s, the batch of {max(sizes)} {cold_batch:,.0f} steps/s; {computed:,} distances"
        " computed by then"
    )
    figures["warm_up"] = warm_up(episodes, scenes, max(sizes), args.warm_up, args.fill)
    computed = figures["warm_up"]["distances_computed"]
    how = "every distance computed up front (fill_distances)" if args.fill else "stepped at random"
    console.print(f"warmed up for {figures['warm_up']['seconds']:.0f} s, {how}: {computed:,} distances computed")
    single = single_steps_per_second(episodes, scenes, args.seconds, seed=1)
    endless_single = single_steps_per_second(episodes, scenes, args.seconds, seed=1, max_steps=ENDLESS)
    figures |= {"single_env_steps_per_s": single, "single_env_no_ends_steps_per_s": endless_single}
    table = Table(title="homesim/ObjectNav-v0 without pixels, warm: env steps/s (x the single env in this run)")
    columns = ("N", "no STOP", "x single", "us per batch step", "with STOP (1/6)", "x single", "no ends", "x single")
    for column in (*columns, "bytes/env"):
        table.add_column(column, justify="right")
    first = (f"{single:,.0f}", "1.00", f"{1e6 / single:.0f}", "", "", f"{endless_single:,.0f}", "1.00", "")
    table.add_row("single env", *first)
    figures["batch"] = {}
    for n in sizes:
        envs = ObjectNavVectorEnv(n, episodes, scenes)
        plain = batch_steps_per_second(envs, args.seconds, stop=False)
        stopping = batch_steps_per_second(envs, args.seconds, stop=True)
        per_env, shared = memory(envs)
        endless = batch_steps_per_second(
            ObjectNavVectorEnv(n, episodes, scenes, max_steps=ENDLESS), args.seconds, False
        )
        figures["batch"][n] = {
            "steps_per_s": plain,
            "steps_per_s_with_stop": stopping,
            "steps_per_s_no_ends": endless,
            "bytes_per_env": per_env,
            "tables_mb": shared,
            "load_average": os.getloadavg()[0],
        }
        table.add_row(
            str(n),
            f"{plain:,.0f}",
            f"{plain / single:.0f}",
            f"{1e6 * n / plain:,.0f}",
            f"{stopping:,.0f}",
            f"{stopping / single:.0f}",
            f"{endless:,.0f}",
            f"{endless / endless_single:.0f}",
            f"{per_env:.0f}",
        )
    console.print(table)
    largest = max(figures["batch"])
    console.print(f"shared tables: {figures['batch'][largest]['tables_mb']:.1f} MB for {len(scenes)} houses")
    both = two_processes(episodes, scenes, largest, args.seconds)
    figures["two_processes"] = {"num_envs": largest, "steps_per_s": both}
    figures["load_average_end"] = os.getloadavg()[0]
    best = max((v["steps_per_s"] for k, v in figures["batch"].items() if k >= 1024), default=0)  # 0: none measured
    met = "met" if best >= 1e6 else "NOT met"
    console.print(
        f"two processes of {largest // 2} envs each: {both:,.0f} steps/s ({both / single:.0f}x the single env);"
        f" target >= 1,000,000 steps/s at N >= 1,024 without STOP: {met};"
        f" load average {figures['load_average_end']:.1f} at the end"
    )
    pixels(episodes, scenes, args, figures, console)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


def pixels(episodes, scenes, args, figures: dict, console: Console) -> None:
    size = args.pixel_size
    settings = {"pixels": ("rgb", "depth", "semantic"), "embodiment": replace(LOCOBOT, width=size, height=size)}
    single = single_steps_per_second(episodes, scenes, args.seconds, **settings)
    table = Table(title=f"with RGB + depth + semantic at {size}x{size}: env steps/s (= frames/s)")
    for column in ("N", "steps/s", "x single", "load"):
        table.add_column(column, justify="right")
    table.add_row("single env", f"{single:,.0f}", "1.00", f"{os.getloadavg()[0]:.1f}")
    figures["pixels"] = {"size": size, "single_env_steps_per_s": single, "batch": {}}
    for n in (int(s) for s in args.pixel_sizes.split(",")):
        envs = ObjectNavVectorEnv(n, episodes, scenes, **settings)
        rate = batch_steps_per_second(envs, args.seconds, stop=False)
        envs.close()
        figures["pixels"]["batch"][n] = {"steps_per_s": rate, "load_average": os.getloadavg()[0]}
        table.add_row(str(n), f"{rate:,.0f}", f"{rate / single:.2f}", f"{os.getloadavg()[0]:.1f}")
    console.print(table)


if __name__ == "__main__":
    main()
