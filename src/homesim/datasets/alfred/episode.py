"""ALFRED trajectories -> homesim episodes: initial state, goal, expert actions and human directives.

The initial state follows ALFRED's `scene` record: movable objects at their `object_poses` (their ids
are AI2-THOR's, derived from those positions), lamps per `object_toggles`, cleanable objects dirty
when `dirty_and_empty`, the agent at `init_action`. AI2-THOR never records which receptacle holds an
object; we take it from ALFRED's planner where it picked the object up (exact), else from geometry:
a bowl, cup, plate, pan, pot or box the object lies within, else the fixed receptacle whose extent it
lies in (or, for surfaces, next to), nearest its top. On the 9,038 objects ALFRED's train planner
picked up, the geometric guess names the planner's receptacle for 94%.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from homesim.errors import DataError
from homesim.scenes.alfred import fixed_box, initial_pickups, object_id, parse_object_id
from homesim.tasks.alfred import AlfredGoal, Annotation, Subgoal, goal_satisfied
from homesim.world.actions import ACTIONS, ALIASES, INTERACT_ACTIONS, PUT, Action
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.scene import GRID_SIZE, FixedObject, Scene
from homesim.world.state import AgentState, ObjectState, State

PARENT_SEARCH_MARGIN = 0.3  # metres an object may lie outside a receptacle's extent and still be on it


@dataclass(frozen=True)
class AlfredEpisode:
    suite: ClassVar[str] = "alfred"  # the suite registry's name for it, as dataset.json spells it
    id: str
    scene_id: str
    initial_state: State
    goal: AlfredGoal
    expert_actions: tuple[Action, ...]
    expert_subgoal_index: tuple[int, ...]  # ALFRED's high_idx of each expert action
    annotations: tuple[Annotation, ...]
    subgoals: tuple[Subgoal, ...] = ()

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "scene_id": self.scene_id,
            "initial_state": self.initial_state.to_dict(),
            "goal": self.goal.to_dict(),
            "expert_actions": [[a.name, a.target] for a in self.expert_actions],
            "expert_subgoal_index": list(self.expert_subgoal_index),
            "annotations": [{"task_desc": a.task_desc, "high_descs": list(a.high_descs)} for a in self.annotations],
            "subgoals": [
                {"action": g.action, "object_id": g.object_id, "receptacle_id": g.receptacle_id, "location": g.location}
                for g in self.subgoals
            ],
        }

    @staticmethod
    def from_dict(d: dict) -> AlfredEpisode:
        return AlfredEpisode(
            id=d["id"],
            scene_id=d["scene_id"],
            initial_state=State.from_dict(d["initial_state"]),
            goal=AlfredGoal(**d["goal"]),
            expert_actions=tuple(Action(name, target) for name, target in d["expert_actions"]),
            expert_subgoal_index=tuple(d["expert_subgoal_index"]),
            annotations=tuple(Annotation(a["task_desc"], tuple(a["high_descs"])) for a in d["annotations"]),
            subgoals=tuple(
                Subgoal(
                    g["action"], g["object_id"], g["receptacle_id"], tuple(g["location"]) if g["location"] else None
                )
                for g in d.get("subgoals", [])
            ),
        )


def expert_actions(where: str, trajectory: dict) -> tuple[tuple[Action, ...], tuple[int, ...]]:
    actions, subgoals = [], []
    for i, low in enumerate(trajectory["plan"]["low_actions"]):
        api = low.get("api_action", {})
        name = ALIASES.get(api.get("action"), api.get("action"))
        if name not in ACTIONS:
            raise DataError(where, f"plan.low_actions[{i}].api_action.action", f"unknown action {api.get('action')!r}")
        target = None
        if name in INTERACT_ACTIONS:
            key = "receptacleObjectId" if name == PUT else "objectId"
            target = api.get(key)
            if not target:
                raise DataError(where, f"plan.low_actions[{i}].api_action.{key}", "missing")
        actions.append(Action(name, target))
        subgoals.append(int(low.get("high_idx", 0)))
    return tuple(actions), tuple(subgoals)


def high_level_plan(where: str, trajectory: dict) -> tuple[Subgoal, ...]:
    """ALFRED's high-level plan without its closing End. A clean, heat or cool step treats the object
    the next PutObject puts (a clean step names the whole apple, but it is the slice that is washed;
    heat and cool steps name the appliance)."""
    plan = [
        h["planner_action"] for h in trajectory["plan"].get("high_pddl", []) if h["planner_action"]["action"] != "End"
    ]
    found = []
    for i, p in enumerate(plan):
        action, location = p["action"], None
        if action == "GotoLocation":
            try:
                _, x, z, *_ = p["location"].split("|")
                location = (int(x) * GRID_SIZE, int(z) * GRID_SIZE)
            except (KeyError, ValueError) as e:
                raise DataError(
                    where, f"plan.high_pddl[{i}].planner_action.location", f"expected loc|x|z|rot|horizon: {e}"
                )
        object_id, receptacle_id = p.get("cleanObjectId") or p.get("objectId"), p.get("receptacleObjectId")
        if action in ("CleanObject", "HeatObject", "CoolObject"):
            receptacle_id = p.get("objectId")
            object_id = next((q["objectId"] for q in plan[i + 1 :] if q["action"] == "PutObject"), None)
        found.append(Subgoal(action, object_id, receptacle_id, location))
    return tuple(found)


def _receptacle_cost(scene: Scene, receptacle_id: str, position: tuple[float, float, float]) -> tuple[float, float]:
    """Ranks the receptacles an object might start in: how far it lies outside the extent, then how
    far below the top."""
    box = scene.fixed[receptacle_id].box
    outside = sum(max(lo - p, 0.0, p - hi) ** 2 for lo, p, hi in zip(box.lo, position, box.hi)) ** 0.5
    return outside, abs(box.hi[1] - position[1])


def guess_parent(scene: Scene, catalog: Catalog, cls: str, position: tuple[float, float, float]) -> str | None:
    """The receptacle an object most likely starts in or on: it may lie a little outside a surface's
    extent (objects overhang edges), but only inside a closed container's."""

    def fits(receptacle: FixedObject) -> bool:
        margin = 0.0 if catalog[receptacle.cls].openable else PARENT_SEARCH_MARGIN
        return _receptacle_cost(scene, receptacle.id, position)[0] <= margin

    candidates = [
        f.id for f in scene.fixed.values() if catalog[f.cls].receptacle and catalog.can_contain(f.cls, cls) and fits(f)
    ]
    return min(candidates, key=lambda r: _receptacle_cost(scene, r, position), default=None)


def initial_state(where: str, trajectory: dict, scene: Scene, catalog: Catalog | None = None) -> tuple[State, set[str]]:
    """The episode's start, and the objects whose parents ALFRED's planner names (the rest are guessed)."""
    catalog = catalog or alfred_catalog()
    record = trajectory["scene"]
    toggled_on = {t["objectType"] for t in record.get("object_toggles", []) if t.get("isOn")}
    objects = {
        f.id: ObjectState(f.id, f.cls, is_open=f.starts_open, is_on=f.cls in toggled_on) for f in scene.fixed.values()
    }
    dirty = bool(record.get("dirty_and_empty"))
    for i, pose in enumerate(record.get("object_poses", [])):
        try:
            cls = pose["objectName"].split("_")[0]
            position = (float(pose["position"]["x"]), float(pose["position"]["y"]), float(pose["position"]["z"]))
        except (KeyError, TypeError, ValueError) as e:
            raise DataError(where, f"scene.object_poses[{i}]", f"malformed pose: {e!r}") from e
        if cls not in catalog.classes:
            raise DataError(where, f"scene.object_poses[{i}].objectName", f"unknown object class {cls!r}")
        oid = object_id(cls, position)
        objects[oid] = ObjectState(
            oid,
            cls,
            position=position,
            parent=guess_parent(scene, catalog, cls, position),
            is_open=catalog[cls].starts_open,
            is_dirty=dirty and catalog[cls].cleanable,
        )
    _nest_in_movable_receptacles(objects, catalog)
    # ALFRED's planner knows where the objects it picks up start: that overrides the geometric guess.
    known = set()
    for oid, rcls, rpos in initial_pickups(trajectory):
        holders = [o.id for o in objects.values() if o.cls == rcls and o.id != oid]
        if oid in objects and holders:
            nearest = min(holders, key=lambda h: sum((a - b) ** 2 for a, b in zip(parse_object_id(h)[1], rpos)))
            objects[oid] = replace(objects[oid], parent=nearest)
            known.add(oid)
    init = record["init_action"]
    agent = AgentState(
        x=float(init["x"]),
        z=float(init["z"]),
        yaw=int(round(init["rotation"])) % 360,
        horizon=int(round(init["horizon"])),
    )
    return State(objects=objects, agents=(agent,)), known


def withdraw_guesses_that_meet_the_goal(scene: Scene, state: State, goal: AlfredGoal, known: set[str]) -> State:
    """ALFRED's sampler never starts an episode with its goal already met, so where our guessed parents
    meet it, a guess is wrong: the guessed parents of the goal's objects are withdrawn (the object lies
    free) one by one until the goal no longer holds. The planner's known parents are kept."""
    suspects = sorted(
        o.id
        for o in state.objects.values()
        if o.cls in (goal.target_class, goal.mrecep_target) and o.parent is not None and o.id not in known
    )
    for oid in suspects:
        if not goal_satisfied(scene, state, goal):
            break
        state = state.with_objects({oid: replace(state.objects[oid], parent=None)})
    return state


def _nest_in_movable_receptacles(objects: dict[str, ObjectState], catalog: Catalog) -> None:
    """Objects lying within a bowl, cup, plate, pan, pot or box start inside it (a spoon in a cup).
    A utensil's pivot may lie beyond the rim by up to half its length (its handle sticks out)."""
    containers = [
        o
        for o in objects.values()
        if o.position is not None and catalog[o.cls].pickupable and catalog[o.cls].receptacle
    ]
    for o in list(objects.values()):
        if o.position is None:
            continue
        reach = max(catalog[o.cls].size) / 2
        inside = []
        for c in containers:
            box = fixed_box(c.cls, c.position, catalog)
            (x, y, z), (x0, y0, z0), (x1, y1, z1) = o.position, box.lo, box.hi
            if (
                c.id != o.id
                and catalog.can_contain(c.cls, o.cls)
                and x0 - reach <= x <= x1 + reach
                and z0 - reach <= z <= z1 + reach
                and y0 - 0.02 <= y <= y1
            ):
                inside.append(c)
        if inside:
            holder = min(
                inside, key=lambda c: (c.position[0] - o.position[0]) ** 2 + (c.position[2] - o.position[2]) ** 2
            )
            if objects[holder.id].parent != o.id:  # never nest two things in each other
                objects[o.id] = replace(o, parent=holder.id)


def check_targets(where: str, actions: tuple[Action, ...], state: State, catalog: Catalog) -> None:
    """Every object an expert action names must exist at the start, or be a piece of a sliceable one."""
    for i, action in enumerate(actions):
        if action.target is None or action.target in state.objects:
            continue
        whole, _, piece = action.target.rpartition("|")
        cls = state.objects[whole].cls if whole in state.objects else None
        if cls is None or not piece.startswith(f"{catalog[cls].sliced_class}_"):
            raise DataError(where, f"plan.low_actions[{i}].api_action", f"object {action.target!r} is not in the scene")


def episode_from_trajectory(
    where: str, trajectory: dict, scene: Scene, catalog: Catalog | None = None, episode_id: str | None = None
) -> AlfredEpisode:
    catalog = catalog or alfred_catalog()
    try:
        goal = AlfredGoal.from_pddl_params(trajectory["task_type"], trajectory["pddl_params"])
    except ValueError as e:
        raise DataError(where, "task_type" if "task type" in str(e) else "pddl_params", str(e)) from e
    actions, subgoals = expert_actions(where, trajectory)
    state, known = initial_state(where, trajectory, scene, catalog)
    state = withdraw_guesses_that_meet_the_goal(scene, state, goal, known)
    check_targets(where, actions, state, catalog)
    anns = trajectory.get("turk_annotations", {}).get("anns", [])
    return AlfredEpisode(
        id=episode_id or trajectory.get("task_id", where),
        scene_id=scene.id,
        initial_state=state,
        goal=goal,
        expert_actions=actions,
        expert_subgoal_index=subgoals,
        annotations=tuple(Annotation(a.get("task_desc", ""), tuple(a.get("high_descs", []))) for a in anns),
        subgoals=high_level_plan(where, trajectory),
    )
