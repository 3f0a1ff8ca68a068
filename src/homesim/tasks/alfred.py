"""ALFRED's 7 task types: goals, goal conditions and success, counted as ALFRED's `env/tasks.py` counts them.

A goal is ALFRED's `pddl_params` plus the task type. `goal_conditions(scene, state, goal)` returns
(conditions met, conditions total); the task succeeds when all are met. Where we deliberately differ
from ALFRED's code, and why:

* Class matching. ALFRED selects candidate objects by substring of the object id (`"Pot" in objectId`),
  so a Potato counts as a Pot, an apple slice counts as an Apple and "Sink" matches SinkBasin ids.
  We match classes exactly (a sliced target means the `<Class>Sliced` pieces). Where ALFRED's data
  was generated, the targets were exact classes, so exact matching is what its goals mean.
* Containment. ALFRED asks AI2-THOR's `receptacleObjectIds`; we count an object as in a receptacle
  when it is inside it at any depth (a watch in a bowl on a table is on the table).
* History sets. ALFRED's faucet rule replaces the cleaned set by an empty set when the basin is
  empty; our `cleaned`/`heated`/`cooled` sets never shrink.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from homesim.world.catalog import alfred_catalog
from homesim.world.geometry import why_not_visible
from homesim.world.scene import Scene
from homesim.world.state import State

TASK_TYPES = (
    "pick_and_place_simple",
    "pick_two_obj_and_place",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_and_place_with_movable_recep",
)
_HISTORY_SET = {
    "pick_clean_then_place_in_recep": "cleaned",
    "pick_heat_then_place_in_recep": "heated",
    "pick_cool_then_place_in_recep": "cooled",
}


@dataclass(frozen=True)
class AlfredGoal:
    """An ALFRED goal (its `task_type` and `pddl_params`); class names are AI2-THOR object types."""

    task_type: str
    object_target: str
    parent_target: str = ""
    toggle_target: str = ""
    mrecep_target: str = ""
    object_sliced: bool = False

    def __post_init__(self) -> None:
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"unknown ALFRED task type {self.task_type!r}; expected one of {', '.join(TASK_TYPES)}")
        catalog = alfred_catalog()
        for field in ("object_target", "parent_target", "toggle_target", "mrecep_target"):
            name = getattr(self, field)
            if name and name not in catalog.classes:
                raise ValueError(f"{field} {name!r} is not an ALFRED object class")
        if self.object_sliced and catalog[self.object_target].sliced_class is None:
            raise ValueError(f"object_sliced is set but a {self.object_target} cannot be sliced into pieces")

    @property
    def target_class(self) -> str:
        """The class that must be placed: the sliced pieces' class for sliced tasks."""
        return alfred_catalog()[self.object_target].sliced_class if self.object_sliced else self.object_target

    @staticmethod
    def from_pddl_params(task_type: str, params: dict) -> AlfredGoal:
        return AlfredGoal(
            task_type=task_type,
            object_target=params["object_target"],
            parent_target=params.get("parent_target", "") or "",
            toggle_target=params.get("toggle_target", "") or "",
            mrecep_target=params.get("mrecep_target", "") or "",
            object_sliced=bool(params.get("object_sliced", False)),
        )

    def to_dict(self) -> dict:
        return {
            "task_type": self.task_type,
            "object_target": self.object_target,
            "parent_target": self.parent_target,
            "toggle_target": self.toggle_target,
            "mrecep_target": self.mrecep_target,
            "object_sliced": self.object_sliced,
        }


@dataclass(frozen=True)
class Annotation:
    """One human annotation: a goal sentence and one step-by-step directive per sub-goal."""

    task_desc: str
    high_descs: tuple[str, ...]


@dataclass(frozen=True)
class Subgoal:
    """One step of ALFRED's high-level plan (GotoLocation, PickupObject, PutObject, CleanObject, ...):
    the object it acts on, the receptacle it puts into, and for GotoLocation the planner's destination."""

    action: str
    object_id: str | None = None
    receptacle_id: str | None = None
    location: tuple[float, float] | None = None

    def words(self, name: Callable[[str], str]) -> str:
        """The step in words ("heat the apple 1 with the microwave 1"), objects named by `name(object id)`:
        how example games' thoughts say what the expert is about."""
        obj = name(self.object_id) if self.object_id else "it"
        where = name(self.receptacle_id) if self.receptacle_id else "it"
        return _SUBGOAL_WORDS.get(self.action, self.action + " the {obj}").format(obj=obj, where=where)


_SUBGOAL_WORDS = {
    "GotoLocation": "go to the {obj}",
    "PickupObject": "take the {obj}",
    "PutObject": "put the {obj} in/on the {where}",
    "CleanObject": "clean the {obj} with the {where}",
    "HeatObject": "heat the {obj} with the {where}",
    "CoolObject": "cool the {obj} with the {where}",
    "SliceObject": "slice the {obj}",
    "ToggleObject": "turn on the {obj}",
}


def _ids(state: State, cls: str) -> list[str]:
    return [o.id for o in state.objects.values() if o.cls == cls]


def _inside(state: State, object_id: str, receptacle_ids: list[str]) -> bool:
    return any(r in receptacle_ids for r in state.ancestors(object_id))


def goal_conditions(scene: Scene, state: State, goal: AlfredGoal, agent: int = 0) -> tuple[int, int]:
    """(conditions met, conditions total) of an ALFRED goal in a state."""
    targets = _ids(state, goal.target_class)
    met, total = 0, 0
    if goal.object_sliced:
        # ALFRED counts slicing as its own condition(s): one per object that must be placed.
        needed = 2 if goal.task_type == "pick_two_obj_and_place" else 1
        total += needed
        met += min(len(targets), needed)

    if goal.task_type == "look_at_obj_in_light":
        total += 2
        met += state.agents[agent].held in targets
        lamps = _ids(state, goal.toggle_target)
        met += any(
            state.objects[t].is_on and why_not_visible(scene, state, alfred_catalog(), agent, t) is None for t in lamps
        )
        return met, total

    parents = _ids(state, goal.parent_target)
    placed = [t for t in targets if _inside(state, t, parents)]

    if goal.task_type == "pick_and_place_simple":
        return met + bool(placed), total + 1

    if goal.task_type == "pick_two_obj_and_place":
        best = max((sum(_inside(state, t, [p]) for t in targets) for p in parents), default=0)
        return met + min(best, 2), total + 2

    if goal.task_type == "pick_and_place_with_movable_recep":
        mreceps = _ids(state, goal.mrecep_target)
        in_mrecep = [t for t in targets if _inside(state, t, mreceps)]
        mrecep_placed = [m for m in mreceps if _inside(state, m, parents)]
        stacked = any(_inside(state, t, [m]) for m in mrecep_placed for t in targets)
        return met + bool(in_mrecep) + bool(mrecep_placed) + stacked, total + 3

    history = getattr(state, _HISTORY_SET[goal.task_type])
    treated = [t for t in targets if t in history]
    both = any(t in history for t in placed)
    return met + bool(placed) + bool(treated) + both, total + 3


def goal_satisfied(scene: Scene, state: State, goal: AlfredGoal, agent: int = 0) -> bool:
    met, total = goal_conditions(scene, state, goal, agent)
    return met == total
