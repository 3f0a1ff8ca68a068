"""ObjectNav episode generation (the generator habitat-lab never released, issue 559): seeded houses,
split by house so val and test houses are never seen in train, and episodes sampled in each with the
paper's filters.

An episode: a category present in the house (with at least one instance that has view points), a start
on a random navigable lattice point and a random heading, kept when the goal is reachable, at least
MIN_GEODESIC away, geodesic / euclidean >= MIN_RATIO (habitat's continuous geodesic distance,
`tasks.objectnav.goal_distance`), and the expert's demonstration (a shortest path along the agent's own
moves) takes at most min(MAX_ACTIONS, the embodiment's step limit) actions, so the expert always succeeds
within the episode. Every rejection is counted by its reason.

Each house is one chunk of work with its own seeded generator, so the same seed gives the same bytes
whatever the number of workers.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from homesim.files import Journal, journaled
from homesim.parallel import Failed, Workers, run_chunks
from homesim.planning.objectnav_expert import Unrecoverable, expert_actions
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav import (
    CATEGORIES,
    MAX_ACTIONS,
    MIN_GEODESIC,
    MIN_RATIO,
    ObjectNavEpisode,
    category_goals,
    difficulty,
    euclidean_to,
    goal_distance,
    instances,
)
from homesim.world.objectnav.embodiment import LOCOBOT, Embodiment
from homesim.world.objectnav.navgrid import nav_grid
from homesim.world.scene import Scene

SPLITS = ("train", "val", "test")
HELD_OUT = 0.15  # the share of houses in each of val and test (at least one each)
TRIES_PER_EPISODE = 50


def house_splits(houses: int) -> dict[str, list[int]]:
    """House indices per split: val and test take HELD_OUT of the houses each (at least one), train the rest."""
    if houses < 3:
        raise ValueError(f"--houses {houses}: at least 3 (train, val and test each need a house of their own)")
    held = max(1, round(houses * HELD_OUT))
    train = houses - 2 * held
    return {
        "train": list(range(train)),
        "val": list(range(train, train + held)),
        "test": list(range(train + held, houses)),
    }


def house_seed(seed: int, index: int) -> int:
    return seed * 100_000 + index


@dataclass
class HouseEpisodes:
    scene: Scene
    episodes: list[ObjectNavEpisode]
    rejected: Counter = field(default_factory=Counter)


def sample_episodes(
    scene: Scene, count: int, rng: random.Random, embodiment: Embodiment = LOCOBOT
) -> tuple[list[ObjectNavEpisode], Counter]:
    """`count` episodes in one scene (fewer if the tries run out), and the rejections by reason."""
    grid = nav_grid(scene, embodiment)
    starts = grid.navigable_points()
    categories = [c for c in CATEGORIES if instances(scene, c)]
    goals_of: dict[str, tuple] = {}
    episodes: list[ObjectNavEpisode] = []
    rejected: Counter = Counter()
    limit = min(MAX_ACTIONS, embodiment.max_steps)
    for _ in range(count * TRIES_PER_EPISODE):
        if len(episodes) == count or not categories:
            break
        category = rng.choice(categories)
        if category not in goals_of:
            goals_of[category] = category_goals(scene, grid, category)
        goals = goals_of[category]
        x, z = (float(v) for v in starts[rng.randrange(len(starts))])
        yaw = rng.choice(embodiment.yaws)
        if not goals:
            rejected["no instance with view points"] += 1
            continue
        geodesic = goal_distance(grid, goals).distance(x, z)
        if not math.isfinite(geodesic):
            rejected["unreachable"] += 1
            continue
        if geodesic < MIN_GEODESIC:
            rejected[f"closer than {MIN_GEODESIC} m"] += 1
            continue
        euclidean = euclidean_to(np.array([p for g in goals for p in g.view_points]), x, z)
        if geodesic < MIN_RATIO * euclidean:
            rejected[f"geodesic/euclidean < {MIN_RATIO}"] += 1
            continue
        episode = ObjectNavEpisode(
            episode_id=f"{scene.id}-{len(episodes)}",
            scene_id=scene.id,
            start_position=(x, z),
            start_rotation=yaw,
            object_category=category,
            goals=goals,
            geodesic_distance=round(geodesic, 4),
            euclidean_distance=round(euclidean, 4),
            difficulty=difficulty(round(geodesic, 4)),
        )
        try:
            actions = expert_actions(scene, episode, embodiment, limit=limit + 1)
        except Unrecoverable:  # reachable on the navigable area, not by the agent's moves (a cell it cannot leave)
            rejected["no path along the agent's moves"] += 1
            continue
        if len(actions) > limit or actions[-1] != "STOP":
            rejected[f"shortest path over {limit} actions"] += 1
            continue
        episodes.append(replace(episode, reference_actions=tuple(actions)))
    return episodes, rejected


def _setup(scenes: tuple[Scene, ...]) -> tuple[Scene, ...]:
    return scenes


def _house(scenes: tuple[Scene, ...], chunk: tuple[int, int, int]) -> HouseEpisodes:
    seed, index, count = chunk
    scene = scenes[index] if scenes else generate_house(house_seed(seed, index))[0]
    episodes, rejected = sample_episodes(scene, count, random.Random(f"objectnav/{seed}/{index}"))
    return HouseEpisodes(scene, episodes, rejected)


def generate(
    houses: int,
    episodes: int,
    seed: int,
    workers: Workers = Workers(),
    progress: Callable = lambda items, total, description: items,
    scenes: Sequence[Scene] = (),
    journal: Journal | None = None,
) -> tuple[dict[str, list[ObjectNavEpisode]], dict[str, Scene], Counter]:
    """`episodes` episodes per split, spread evenly over the split's houses: the splits, the scenes they
    use and the rejections by reason. With `scenes` (ALFRED's floor plans, say), those in the order given
    stand in for generated houses, and `houses` is how many of them to use. With a `journal`, houses made
before (by a run that was interrupted) are taken from it."""
    if scenes and houses > len(scenes):
        raise ValueError(f"{houses} scenes asked for, {len(scenes)} given")
    chunks, owner = [], []
    for split, indices in house_splits(houses).items():
        for k, index in enumerate(indices):
            chunks.append((seed, index, episodes // len(indices) + (k < episodes % len(indices))))
            owner.append(split)
    results: list[HouseEpisodes | None] = [None] * len(chunks)
    finished = journaled(
        journal,
        chunks,
        lambda todo: run_chunks(_setup, (tuple(scenes[:houses]),), _house, todo, workers),
        keep=lambda result: not isinstance(result, Failed),
    )
    for i, result in progress(finished, len(chunks), "houses"):
        if isinstance(result, Failed):
            raise RuntimeError(f"house {chunks[i][1]}: {result.reason}")
        results[i] = result
    splits: dict[str, list[ObjectNavEpisode]] = {s: [] for s in SPLITS}
    used, rejected = {}, Counter()
    for split, result in zip(owner, results):
        splits[split] += result.episodes
        used[result.scene.id] = result.scene
        rejected += result.rejected
    return splits, used, rejected
