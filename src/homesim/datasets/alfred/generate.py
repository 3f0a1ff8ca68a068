"""Generating ALFRED-style datasets: unlimited new demonstrations in procedural rooms or in ALFRED's
own floor plans, each with a sampled goal, randomised object placement and agent start, the expert's
demonstration, and human-like directives.

Tasks are sampled in order in one process (ALFRED's greedy anti-imbalance needs the counts so far);
each is then realised (objects placed, start chosen, demonstration planned, directives written) from
a seed of its own, in any number of worker processes, so the same seed gives the same bytes however
many workers run. A task no placement makes solvable within a few tries is replaced by a new draw.

Splits follow ALFRED: unseen splits use scenes never in train (for the real floor plans, ALFRED's own
unseen lists); seen splits reuse train's scenes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.files import Journal, journaled
from homesim.parallel import Failed, Workers, in_process, run_chunks
from homesim.planning.alfred.expert import Unrecoverable, plan
from homesim.scenes.procedural import ROOM_TYPES, fill_room, generate_room
from homesim.scenes.room_plans import ROOM_PLANS
from homesim.tasks.alfred import AlfredGoal, goal_satisfied
from homesim.tasks.alfred_sampling import BalancedSampler, feasible_goals
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.scene import GRID_SIZE, Scene
from homesim.world.state import AgentState, ObjectState, State

SPLITS = ("train", "valid_seen", "valid_unseen", "test_seen", "test_unseen")
SPLIT_SHARES = {"train": 0.8, "valid_seen": 0.05, "valid_unseen": 0.05, "test_seen": 0.05, "test_unseen": 0.05}
ALFRED_UNSEEN = {"valid_unseen": (10, 219, 308, 424), "test_unseen": (9, 29, 215, 226, 315, 325, 404, 425)}
TASKS_PER_ROOM = 8  # procedural train rooms host this many tasks on average (ALFRED reuses its scenes too)
ATTEMPTS = 5  # placements tried per task before it is replaced
ROUNDS = 4  # rounds of replacements before giving up on the requested count
CHUNK = 4  # tasks per chunk of work sent to a worker
START_HORIZON = 30


@dataclass(frozen=True)
class Place:
    """A scene tasks can be generated in, and the movable classes that may be put in it."""

    scene: Scene
    movable: tuple[str, ...]


@dataclass(frozen=True)
class TaskSpec:
    index: int
    split: str
    scene_id: str
    goal: AlfredGoal
    seed: str


def split_counts(total: int) -> dict[str, int]:
    """Episodes per split in ALFRED-like shares; every split gets one once there are enough."""
    counts = {s: math.floor(total * share) for s, share in SPLIT_SHARES.items()}
    if total >= len(SPLITS):
        counts = {s: max(1, n) for s, n in counts.items()}
    counts["train"] += total - sum(counts.values())
    return counts


def procedural_places(counts: Mapping[str, int], seed: int) -> dict[str, list[Place]]:
    """Procedural rooms per split: train's own, reused by the seen splits; fresh ones for the unseen."""

    def rooms(namespace: int, n: int) -> list[Place]:
        places = []
        for k in range(max(len(ROOM_TYPES), n)):
            room_type = ROOM_TYPES[k % len(ROOM_TYPES)]
            scene, _ = generate_room(room_type, seed * 1_000_000 + namespace * 100_000 + k)
            places.append(
                Place(scene, tuple(sorted(set(ROOM_PLANS[room_type].always) | set(ROOM_PLANS[room_type].objects))))
            )
        return places

    train = rooms(0, math.ceil(counts["train"] / TASKS_PER_ROOM))
    return {
        "train": train,
        "valid_seen": train,
        "test_seen": train,
        "valid_unseen": rooms(1, math.ceil(counts["valid_unseen"] / TASKS_PER_ROOM)),
        "test_unseen": rooms(2, math.ceil(counts["test_unseen"] / TASKS_PER_ROOM)),
    }


def alfred_places(
    scenes: Mapping[str, Scene], classes: Mapping[str, list[str]], catalog: Catalog
) -> dict[str, list[Place]]:
    """ALFRED's floor plans per split, by ALFRED's own lists of unseen scenes."""
    unseen = {f"FloorPlan{n}": split for split, numbers in ALFRED_UNSEEN.items() for n in numbers}
    places: dict[str, list[Place]] = {s: [] for s in SPLITS}
    for floor_plan, scene in sorted(scenes.items()):
        movable = tuple(
            sorted(c for c in classes.get(floor_plan, []) if c in catalog.classes and catalog[c].pickupable)
        )
        place = Place(scene, movable)
        if floor_plan in unseen:
            places[unseen[floor_plan]].append(place)
        else:
            for split in ("train", "valid_seen", "test_seen"):
                places[split].append(place)
    return places


def sample_specs(
    places: Mapping[str, Sequence[Place]], counts: Mapping[str, int], seed: int, catalog: Catalog, start: int = 0
) -> list[TaskSpec]:
    """The tasks to generate, in order: for each, a scene of its split (in turn) and a balanced goal."""
    rng, sampler, specs = (
        random.Random(f"{seed}/tasks/{start}"),
        BalancedSampler(random.Random(f"{seed}/balance/{start}")),
        [],
    )
    index, feasible = start, {}
    for split in SPLITS:
        pool = places[split]
        if counts.get(split) and not pool:
            raise ValueError(f"no scenes for split {split}")
        for k in range(counts.get(split, 0)):
            place = pool[(k + rng.randrange(len(pool))) % len(pool)]
            if place.scene.id not in feasible:
                fixed = {f.cls for f in place.scene.fixed.values()}
                types = [t for t, rooms in catalog.task_room_types.items() if place.scene.room_type in rooms]
                feasible[place.scene.id] = {t: feasible_goals(t, fixed, set(place.movable), catalog) for t in types}
            goal = sampler.choose(feasible[place.scene.id])
            if goal is None:
                continue
            sampler.record(goal)
            specs.append(TaskSpec(index, split, place.scene.id, goal, f"{seed}/{index}"))
            index += 1
    return specs


def needed_classes(goal: AlfredGoal, movable: Sequence[str], catalog: Catalog) -> list[str]:
    """What must be in the room: the object (twice for pick-two), its container, a knife to slice it."""
    needed = [goal.object_target] * (2 if goal.task_type == "pick_two_obj_and_place" and not goal.object_sliced else 1)
    if goal.mrecep_target:
        needed.append(goal.mrecep_target)
    if goal.object_sliced:
        needed.append(
            next(c for c in ("Knife", "ButterKnife") if c in movable)
            if any(catalog[c].slices for c in movable)
            else "Knife"
        )
    return needed


def realise(spec: TaskSpec, place: Place, annotate: Callable, catalog: Catalog) -> AlfredEpisode | str:
    """The episode for a task spec, or why no placement made it solvable."""
    scene, goal, problem = place.scene, spec.goal, "no attempt"
    for attempt in range(ATTEMPTS):
        rng = random.Random(f"{spec.seed}/{attempt}")
        needed = needed_classes(goal, place.movable, catalog)
        others = [c for c in place.movable if c not in needed]
        extra = rng.sample(others, min(len(others), rng.randint(6, 14)))
        objects = {f.id: ObjectState(f.id, f.cls, is_open=catalog[f.cls].starts_open) for f in scene.fixed.values()}
        objects.update(fill_room(rng, needed + extra, scene, catalog))
        present = [o.cls for o in objects.values()]
        if any(present.count(c) < needed.count(c) for c in set(needed)):
            problem = "could not place every object the task needs"
            continue
        ix, iz = rng.choice(sorted(scene.reachable))
        state = State(
            objects, (AgentState(ix * GRID_SIZE, iz * GRID_SIZE, rng.choice((0, 90, 180, 270)), START_HORIZON),)
        )
        if goal_satisfied(scene, state, goal):
            problem = "the goal held at the start"
            continue
        try:
            demo = plan(scene, state, goal, catalog=catalog)
        except Unrecoverable as e:
            problem = f"unrecoverable: {e}"
            continue
        return AlfredEpisode(
            id=f"{spec.split}-{spec.index:06d}",
            scene_id=scene.id,
            initial_state=state,
            goal=goal,
            expert_actions=tuple(demo.actions),
            expert_subgoal_index=tuple(demo.subgoal_index),
            annotations=annotate(scene, demo, goal, rng),
            subgoals=tuple(demo.subgoals),
        )
    return problem


def _worker(places: dict[str, Place], annotate: Callable) -> tuple:
    return places, annotate, alfred_catalog()


def _realise_chunk(worker: tuple, specs: list[TaskSpec]) -> list[AlfredEpisode | str]:
    places, annotate, catalog = worker
    return [realise(spec, places[spec.scene_id], annotate, catalog) for spec in specs]


def generate(
    places: Mapping[str, Sequence[Place]],
    total: int,
    seed: int,
    annotate: Callable,
    workers: int | Workers = 1,
    progress: Callable[[Iterable, int, str], Iterable] = lambda items, total, description: items,
    journal: Journal | None = None,
) -> tuple[dict[str, list[AlfredEpisode]], list[str]]:
    """`total` episodes across the splits, and the problems of the tasks that were replaced (a sampled
    task the expert cannot solve, or whose goal holds at the start, is replaced by a new sample; each
    round of replacements is one more pass of `progress`, described as such). `workers`: a number of local
    processes, or `Workers` (local or Ray); tasks whose worker failed on every try are replaced too. With a
    `journal`, chunks of tasks realised before (by a run that was interrupted) are taken from it."""
    workers = workers if isinstance(workers, Workers) else Workers(workers)
    catalog = alfred_catalog()
    by_id = {p.scene.id: p for pool in places.values() for p in pool}
    wanted, made, problems = split_counts(total), {s: [] for s in SPLITS}, []

    def run(todo: list) -> Iterator[tuple[int, object]]:
        if workers.count <= 1 and workers.backend == "local":
            return in_process(_worker, (by_id, annotate), _realise_chunk, todo)
        return run_chunks(_worker, (by_id, annotate), _realise_chunk, todo, workers)

    start = 0
    for _ in range(ROUNDS):
        missing = {s: wanted[s] - len(made[s]) for s in SPLITS}
        specs = sample_specs(places, missing, seed, catalog, start)
        if not specs:
            break
        description = "generating tasks" if start == 0 else f"replacing rejected tasks ({len(specs)})"
        start = specs[-1].index + 1
        chunks = [specs[i : i + CHUNK] for i in range(0, len(specs), CHUNK)]
        results = [None] * len(specs)
        finished = journaled(journal, chunks, run, keep=lambda done: not isinstance(done, Failed))
        for i, done in progress(finished, len(chunks), description):
            failed = isinstance(done, Failed)
            results[i * CHUNK : i * CHUNK + len(chunks[i])] = [done.reason] * len(chunks[i]) if failed else done
        for spec, result in zip(specs, results, strict=True):
            if isinstance(result, AlfredEpisode):
                made[spec.split].append(result)
            else:
                problems.append(f"{spec.split}-{spec.index:06d} {spec.goal.task_type} in {spec.scene_id}: {result}")
        if all(len(made[s]) >= wanted[s] for s in SPLITS):
            break
    return {s: episodes for s, episodes in made.items() if episodes}, problems
