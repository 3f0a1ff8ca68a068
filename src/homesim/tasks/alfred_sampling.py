"""Sampling ALFRED tasks: (task type, object, receptacle, lamp or movable receptacle, sliced) tuples
valid in a scene, chosen with ALFRED's greedy anti-imbalance (supplement A.1): each draw takes the
task type, then the parameter values, used least so far, ties broken at random.

Validity follows ALFRED: the task type's room types, the compatibility table (the object fits the
receptacle; for movable-receptacle tasks the object fits the container and the container fits the
receptacle), the affordance each task needs (cleanable, heatable, coolable, sliceable with a knife in
the room), and the appliance it uses (sink and faucet, microwave, fridge, a desk or floor lamp).
"""

from __future__ import annotations

import random
from collections import Counter

from homesim.tasks.alfred import TASK_TYPES, AlfredGoal
from homesim.world.catalog import CLEANS, COOLS, HEATS, Catalog

LAMPS = ("DeskLamp", "FloorLamp")
PARAMETERS = ("object_target", "parent_target", "toggle_target", "mrecep_target", "object_sliced")


def feasible_goals(task_type: str, fixed: set[str], movable: set[str], catalog: Catalog) -> list[AlfredGoal]:
    """Every goal of a task type a room can hold: `fixed` are its fixed object classes, `movable` the
    classes of movable objects that can be put in it."""
    receptacles = sorted(c for c in fixed if catalog[c].receptacle)
    knife = any(catalog[c].slices for c in movable)
    goals = []
    for obj in sorted(movable):
        kind = catalog[obj]
        if not kind.pickupable:
            continue
        for sliced in (False, True):
            placed = kind.sliced_class if sliced else obj
            if sliced and (kind.sliced_class is None or not knife or task_type == "look_at_obj_in_light"):
                continue
            goals += _goals_for(task_type, obj, placed, sliced, receptacles, fixed, movable, catalog)
    return goals


def _goals_for(
    task_type: str,
    obj: str,
    placed: str,
    sliced: bool,
    receptacles: list[str],
    fixed: set,
    movable: set,
    catalog: Catalog,
) -> list[AlfredGoal]:
    kind = catalog[placed]
    if task_type == "look_at_obj_in_light":
        return [AlfredGoal(task_type, obj, toggle_target=lamp) for lamp in LAMPS if lamp in fixed]
    if task_type == "pick_and_place_with_movable_recep":
        containers = sorted(m for m in movable if catalog[m].receptacle and m != obj and catalog.can_contain(m, placed))
        return [
            AlfredGoal(task_type, obj, parent, mrecep_target=m, object_sliced=sliced)
            for m in containers
            for parent in receptacles
            if catalog.can_contain(parent, m)
        ]
    needs = {
        "pick_clean_then_place_in_recep": kind.cleanable
        and _has(fixed, catalog, CLEANS)
        and _has_basin(fixed, catalog),
        "pick_heat_then_place_in_recep": kind.heatable and _has(fixed, catalog, HEATS),
        "pick_cool_then_place_in_recep": kind.coolable and _has(fixed, catalog, COOLS),
    }
    if not needs.get(task_type, True):
        return []
    return [
        AlfredGoal(task_type, obj, parent, object_sliced=sliced)
        for parent in receptacles
        if catalog.can_contain(parent, placed) and not catalog[parent].basin
    ]


def _has(fixed: set[str], catalog: Catalog, effect: str) -> bool:
    return any(catalog[c].effect == effect for c in fixed)


def _has_basin(fixed: set[str], catalog: Catalog) -> bool:
    return any(catalog[c].basin for c in fixed)


class BalancedSampler:
    """ALFRED's greedy anti-imbalance: prefer the least-used task type, then the least-used values."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.types: Counter[str] = Counter()
        self.values: Counter[tuple[str, str, object]] = Counter()

    def _least(self, options: list, score) -> object:
        best = min(map(score, options))
        return self.rng.choice([o for o in options if score(o) == best])

    def choose(self, goals_by_type: dict[str, list[AlfredGoal]]) -> AlfredGoal | None:
        available = [t for t in TASK_TYPES if goals_by_type.get(t)]
        if not available:
            return None
        task_type = self._least(available, lambda t: self.types[t])
        goals = goals_by_type[task_type]
        return self._least(goals, lambda g: sum(self.values[(task_type, p, getattr(g, p))] for p in PARAMETERS))

    def record(self, goal: AlfredGoal) -> None:
        self.types[goal.task_type] += 1
        for p in PARAMETERS:
            self.values[(goal.task_type, p, getattr(goal, p))] += 1
