"""The batched ALFRED env (`envs.alfred.vector`: oracle interactions, no pixels) against the single env and
MiniGrid measured in the same run: env steps/s for N = 1 .. 4096 envs.

* MiniGrid: Empty-8x8 with random actions, before and after the rest (`engine_speed.minigrid_steps_per_second`,
  the reference of every ratio to MiniGrid in bench/; `pip install -e .[bench]` installs it);
* the single env: `homesim/ALFRED-v0` in oracle mode, random valid actions as `world.random_actions` draws
  them (one in three an interaction with an object in view, else a navigation action), reset when a limit ends
  an episode;
* the batch with the same kind of actions, each env's drawn from its own observation. Only `step` is timed,
  for the single env and the batch alike (drawing the actions is the agent's cost);
* each scene's views (what its fixed objects are seen from, kept on disk by `world.scene_cache`) are made
  before anything is timed;
* "cold" is the first --seconds after the batch is made, "warm" after --warm-up seconds of such steps: what the
  batch keeps per arrangement and pose (visible objects, goal conditions, the interactions' outcomes) is
  filled as envs meet them, so a batch gets faster as it runs;
* two processes stepping N/2 envs each at once (the 2 cores), for the largest N;
* the memory per env: its state arrays, and what is kept per arrangement (objects met in new places) divided
  by N, and the process's peak RSS.

    python bench/alfred_vector_speed.py [--episodes DATASET_OR_TRAJECTORIES --layouts LAYOUTS --split valid_seen]
                                        [--sizes 1,16,64,256,1024,4096] [--seconds 3] [--warm-up 30]
                                        [--json out.json]

Without --episodes, the built-in episodes (4 procedural rooms). Steps/s count env steps (a batch step of N
envs is N). The load average is printed beside the figures: on a shared machine, read the ratios. Target
(issue 30): >= 200,000 steps/s without pixels, navigation + oracle interactions, random valid actions.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.envs.alfred.embodied import AlfredEnv
from homesim.envs.alfred.vector import AlfredVectorEnv
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, NAVIGATION_ACTIONS
from homesim.world.random_actions import INTERACT_SHARE
from homesim.world.views import pose_views

sys.path.insert(0, str(Path(__file__).parent))
from engine_speed import minigrid_steps_per_second  # noqa: E402  (the reference every bench compares with)

NAVIGATION = np.array([ACTIONS.index(a) for a in NAVIGATION_ACTIONS])
INTERACTIONS = np.array([ACTIONS.index(a) for a in INTERACT_ACTIONS])


def random_valid_actions(rng: np.random.Generator, visible: tuple[tuple[str, ...], ...]) -> dict:
    """`world.random_actions`' draw for every env at once: one time in three an interaction with an object in
    view (when there is one), else a navigation action."""
    n = len(visible)
    actions = NAVIGATION[rng.integers(len(NAVIGATION), size=n)]
    interact = rng.random(n) < INTERACT_SHARE
    which, picks = INTERACTIONS[rng.integers(len(INTERACTIONS), size=n)], rng.random(n).tolist()
    targets = [v[int(p * len(v))] if i and v else "" for v, i, p in zip(visible, interact.tolist(), picks)]
    actions = np.where(interact & np.array([bool(v) for v in visible]), which, actions)
    return {"action": actions, "target": tuple(targets)}


def scene_views(scenes: dict) -> None:
    """What each scene's fixed objects are seen from (kept on disk): set-up, made before anything is timed."""
    for scene in scenes.values():
        pose_views(scene)


def single_steps_per_second(episodes, scenes, seconds: float, seed: int = 0) -> float:
    env = AlfredEnv(episodes, scenes)
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, spent = 0, 0.0
    while spent < seconds:
        action = random_valid_actions(rng, (observation["visible_objects"],))
        action = {"action": int(action["action"][0]), "target": action["target"][0]}
        begin = time.perf_counter()
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()
        spent += time.perf_counter() - begin
        steps += 1
    return steps / spent


def batch_steps_per_second(envs: AlfredVectorEnv, seconds: float, seed: int = 1) -> float:
    """Env steps/s of `step` alone, stepping on from where the batch stands (reset at its first use)."""
    if not envs._started:
        envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    visible = envs._observation()["visible_objects"]
    steps, spent = 0, 0.0
    while spent < seconds:
        actions = random_valid_actions(rng, visible)
        begin = time.perf_counter()
        observations, *_ = envs.step(actions)
        spent += time.perf_counter() - begin
        visible = observations["visible_objects"]
        steps += envs.num_envs
    return steps / spent


def cold_and_warm(envs: AlfredVectorEnv, seconds: float, warm_up: float, seed: int) -> tuple[float, float]:
    """Env steps/s of a new batch's first `seconds`, and of `seconds` more after `warm_up` seconds of steps."""
    cold = batch_steps_per_second(envs, seconds, seed=seed)
    batch_steps_per_second(envs, warm_up, seed=seed + 1)
    return cold, batch_steps_per_second(envs, seconds, seed=seed + 2)


def memory(envs: AlfredVectorEnv) -> dict:
    """Bytes per env of the batch's state arrays, and how much it keeps per arrangement and pose (entries)."""
    arrays = [v for v in vars(envs).values() if isinstance(v, np.ndarray)]
    per_env = sum(a.nbytes for a in arrays if a.shape[:1] == (envs.num_envs,)) / envs.num_envs
    kept = {
        "arrangements": len(envs._arrangements),
        "visible": len(envs._visible),
        "goal_conditions": len(envs._goal_conditions),
        "transitions": len(envs._transitions),
    }
    return {"bytes_per_env": per_env, "kept": kept}


def _worker(args) -> float:
    episodes, scenes, num_envs, seconds, warm_up = args
    envs = AlfredVectorEnv(num_envs, episodes, scenes)
    batch_steps_per_second(envs, warm_up, seed=4)
    return batch_steps_per_second(envs, seconds, seed=5)


def two_processes(episodes, scenes, num_envs: int, seconds: float, warm_up: float) -> float:
    """Env steps/s of two processes stepping num_envs / 2 envs each at the same time, each warmed up alike."""
    with multiprocessing.get_context("fork").Pool(2) as pool:
        rates = pool.map(_worker, [(episodes, scenes, num_envs // 2, seconds, warm_up)] * 2)
    return sum(rates)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", help="a dataset folder or ALFRED trajectories (with --layouts)")
    parser.add_argument("--layouts")
    parser.add_argument("--split")
    parser.add_argument("--sizes", default="1,16,64,256,1024,4096")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per figure")
    parser.add_argument("--warm-up", type=float, default=30.0, help="seconds stepped before the warm figures")
    parser.add_argument("--minigrid-steps", type=int, default=50_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    console = Console()
    reference = AlfredEnv(args.episodes, split=args.split, layouts=args.layouts)
    episodes, scenes = reference.episodes, reference.scenes
    figures = {"episodes": len(episodes), "scenes": len(scenes), "load_average_start": os.getloadavg()[0]}
    before = minigrid_steps_per_second(args.minigrid_steps, 0)
    console.print(
        f"{len(episodes)} episodes in {len(scenes)} scenes; load average {figures['load_average_start']:.1f} on"
        f" {os.cpu_count()} cores; MiniGrid-Empty-8x8 {before:,.0f} steps/s"
    )
    begin = time.perf_counter()
    scene_views(scenes)
    figures["views_seconds"] = time.perf_counter() - begin
    begin = time.perf_counter()
    AlfredVectorEnv(1, episodes, scenes)
    figures["tables_seconds"] = time.perf_counter() - begin
    console.print(
        f"the scenes' views in {figures['views_seconds']:.1f} s, the batch's navigation tables in"
        f" {figures['tables_seconds']:.1f} s"
    )
    single = single_steps_per_second(episodes, scenes, args.seconds)
    sizes = [int(s) for s in args.sizes.split(",")]
    table = Table(title="homesim/ALFRED-v0, oracle interactions, no pixels: env steps/s (random valid actions)")
    for column in ("N", "cold", "warm", "x single", "x MiniGrid", "us/batch step", "bytes/env", "arrangements"):
        table.add_column(column, justify="right")
    figures["single_env_steps_per_s"], figures["batch"] = single, {}
    for n in sizes:
        envs = AlfredVectorEnv(n, episodes, scenes)
        cold, warm = cold_and_warm(envs, args.seconds, args.warm_up, seed=n)
        kept = memory(envs)
        figures["batch"][n] = {"cold": cold, "warm": warm, **kept, "load_average": os.getloadavg()[0]}
        table.add_row(
            str(n), f"{cold:,.0f}", f"{warm:,.0f}", f"{warm / single:.1f}", f"{warm / before:.1f}",
            f"{1e6 * n / warm:,.0f}", f"{kept['bytes_per_env']:.0f}", f"{kept['kept']['arrangements']:,}",
        )  # fmt: skip
    after = minigrid_steps_per_second(args.minigrid_steps, 0)
    minigrid = (before + after) / 2
    table.add_row("single env", "", f"{single:,.0f}", "1.0", f"{single / minigrid:.2f}", f"{1e6 / single:.0f}", "", "")
    console.print(table)
    largest = max(sizes)
    both = two_processes(episodes, scenes, largest, args.seconds, args.warm_up)
    figures |= {"minigrid_steps_per_s": minigrid, "minigrid_before_after": [before, after]}
    figures["two_processes"] = {"num_envs": largest, "steps_per_s": both}
    figures |= {"peak_rss_mb": peak_rss_mb(), "load_average_end": os.getloadavg()[0]}
    best = max(max(v["warm"] for v in figures["batch"].values()), both)
    console.print(
        f"MiniGrid-Empty-8x8: {before:,.0f} before, {after:,.0f} after. Two processes of {largest // 2} envs each"
        f" (warmed up {args.warm_up:g} s): {both:,.0f} steps/s ({both / minigrid:.1f}x MiniGrid,"
        f" {both / single:.1f}x the single env). Peak RSS {figures['peak_rss_mb']:,.0f} MB. Target >= 200,000"
        f" steps/s: {'met' if best >= 200_000 else 'NOT met'} (best {best:,.0f}); load average"
        f" {figures['load_average_end']:.1f} at the end"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
