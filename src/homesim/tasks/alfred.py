"""ALFRED's 7 task types: goals, goal conditions and success, counted as ALFRED's `env/tasks.py` counts them.

A goal is ALFRED's `pddl_params` plus the task type. `goal_conditions(scene, state, goal)` returns
(conditions met, conditions total); the task succeeds when all are met. Where homesim's reading
(`HOMESIM`) deliberately differs from ALFRED's code, and why; `ALFRED_CODE` reads as the code does, quirk
for quirk (the `alfred-code` protocol):

* Class matching. ALFRED's code selects candidate objects by substring of the object id with the role's
  property (`get_objects_with_name_and_prop`: `"Toilet" in objectId` and receptacle), so a Potato counts as
  a Pot, a ToiletPaperHanger as a Toilet, an apple slice as an Apple, and "Sink" matches SinkBasin ids. We
  match classes exactly (a sliced target means the `<Class>Sliced` pieces): where ALFRED's data was
  generated, the targets were exact classes, so exact matching is what its goals mean.
* Containment. ALFRED asks AI2-THOR's `receptacleObjectIds`, a receptacle's direct contents; we count an
  object as in a receptacle when it is inside it at any depth (a watch in a bowl on a table is on the table).
* History sets. ALFRED's `thor_env.update_states` adds a receptacle's direct contents to the cleaned /
  heated / cooled set, and empties the set when the receptacle holds nothing (`a | b if b is not None else
  set()`: AI2-THOR reports an empty receptacle's contents as None); faucets clean the SinkBasin closest to
  them, seen or not. Our sets never shrink and take in whatever lies in the receptacle at any depth
  (`world.dynamics`); `code_history` redoes a step's bookkeeping ALFRED's way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from homesim.world import actions as A
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


@dataclass(frozen=True)
class GoalReading:
    """How goal conditions read a state (the module's docstring): which objects fill a role, and what is in a
    receptacle."""

    substring: bool = False  # a role's objects: ids containing the class name, with the role's property
    direct: bool = False  # in a receptacle: directly in it (else at any depth)


HOMESIM, ALFRED_CODE = GoalReading(), GoalReading(substring=True, direct=True)
# the choices an evaluation makes (`envs.alfred.embodied.AlfredEnv(rules=...)`), homesim's first
RULES = {
    "class_matching": ("exact", "substring"),
    "containment": ("any_depth", "direct"),
    "history_sets": ("growing", "code"),
}


def reading_of(rules: Mapping[str, str]) -> GoalReading:
    """The goal reading an evaluation's rules choose (missing ones: homesim's)."""
    return GoalReading(rules.get("class_matching") == "substring", rules.get("containment") == "direct")


def _ids(state: State, cls: str, reading: GoalReading = HOMESIM, role: str = "pickupable") -> list[str]:
    """The objects that fill a role of the goal: of the class, or (ALFRED's code) whose id contains its name
    and whose class has the role's property (pickupable, receptacle, toggleable)."""
    if reading.substring:
        catalog = alfred_catalog()
        return [o.id for o in state.objects.values() if cls and cls in o.id and getattr(catalog[o.cls], role)]
    return [o.id for o in state.objects.values() if o.cls == cls]


def _inside(state: State, object_id: str, receptacle_ids: list[str], reading: GoalReading = HOMESIM) -> bool:
    if reading.direct:
        return state.objects[object_id].parent in receptacle_ids
    return any(r in receptacle_ids for r in state.ancestors(object_id))


def goal_conditions(
    scene: Scene, state: State, goal: AlfredGoal, agent: int = 0, reading: GoalReading = HOMESIM
) -> tuple[int, int]:
    """(conditions met, conditions total) of an ALFRED goal in a state, read as `reading` says."""
    targets = _ids(state, goal.target_class, reading)
    met, total = 0, 0
    if goal.object_sliced:
        # ALFRED counts slicing as its own condition(s): one per object that must be placed.
        needed = 2 if goal.task_type == "pick_two_obj_and_place" else 1
        total += needed
        met += min(sum(alfred_catalog()[state.objects[t].cls].sliced_from is not None for t in targets), needed)

    if goal.task_type == "look_at_obj_in_light":
        total += 2
        met += state.agents[agent].held in targets
        lamps = _ids(state, goal.toggle_target, reading, "toggleable")
        met += any(
            state.objects[t].is_on and why_not_visible(scene, state, alfred_catalog(), agent, t) is None for t in lamps
        )
        return met, total

    parents = _ids(state, goal.parent_target, reading, "receptacle")
    placed = [t for t in targets if _inside(state, t, parents, reading)]

    if goal.task_type == "pick_and_place_simple":
        return met + bool(placed), total + 1

    if goal.task_type == "pick_two_obj_and_place":
        best = max((sum(_inside(state, t, [p], reading) for t in targets) for p in parents), default=0)
        return met + min(best, 2), total + 2

    if goal.task_type == "pick_and_place_with_movable_recep":
        mreceps = _ids(state, goal.mrecep_target, reading)
        in_mrecep = [t for t in targets if _inside(state, t, mreceps, reading)]
        mrecep_placed = [m for m in mreceps if _inside(state, m, parents, reading)]
        stacked = any(_inside(state, t, [m], reading) for m in mrecep_placed for t in targets)
        return met + bool(in_mrecep) + bool(mrecep_placed) + stacked, total + 3

    history = getattr(state, _HISTORY_SET[goal.task_type])
    treated = [t for t in targets if t in history]
    both = any(t in history for t in placed)
    return met + bool(placed) + bool(treated) + both, total + 3


def conditions_read_the_view(goal: AlfredGoal) -> bool:
    """Whether `goal_conditions` read where the agent looks (the lamp seen on), not only the objects: what a
    batched env keeps them per pose for."""
    return goal.task_type == "look_at_obj_in_light"


def goal_satisfied(scene: Scene, state: State, goal: AlfredGoal, agent: int = 0) -> bool:
    met, total = goal_conditions(scene, state, goal, agent)
    return met == total


def code_history(scene: Scene, before: State, after: State, action: str, target: str | None) -> State:
    """`after` (the state a successful action led to) with the cleaned / heated / cooled sets ALFRED's code
    keeps (`thor_env.update_states`): toggling on an object whose id names a Faucet sets `cleaned` to what it
    was plus the direct contents of the SinkBasin closest to it, or to nothing if the basin holds nothing; the
    first Microwave does so with `heated` when an object whose id names a Microwave is turned on, the first
    Fridge with `cooled` when one whose id names a Fridge is closed. (Types by name, as the code has them.)"""
    if target is None:
        return after

    def where(object_id: str) -> tuple[float, float, float]:
        return scene.fixed[object_id].position if object_id in scene.fixed else after.objects[object_id].position

    of_type = sorted((o for o in after.objects.values()), key=lambda o: o.id)
    if action == A.TOGGLE_ON and "Faucet" in target:
        name, (fx, _, fz) = "cleaned", where(target)
        basins = [o.id for o in of_type if o.cls == "SinkBasin"]
        chosen = min(basins, key=lambda b: (where(b)[0] - fx) ** 2 + (where(b)[2] - fz) ** 2, default=None)
    elif action == A.TOGGLE_ON and "Microwave" in target:
        name, chosen = "heated", next((o.id for o in of_type if o.cls == "Microwave"), None)
    elif action == A.CLOSE and "Fridge" in target:
        name, chosen = "cooled", next((o.id for o in of_type if o.cls == "Fridge"), None)
    else:
        return after
    contents = after.children(chosen) if chosen is not None else []
    kept = getattr(before, name) | frozenset(contents) if contents else frozenset()
    return replace(after, **{name: kept})
