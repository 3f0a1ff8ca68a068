"""The expert: from ANY state, the next low-level action towards an ALFRED goal, or "unrecoverable".

Two levels, as ALFRED's demonstrations are built:
* a task-level planner, hand-written per task type and fast, turns the state and goal into ALFRED's
  high-level steps: PickupObject, PutObject, SliceObject, CleanObject, HeatObject, CoolObject,
  ToggleObject. Each is a short list of interactions; a heat step is ALFRED's macro Open, Put, Close,
  ToggleOn, ToggleOff, Open, Pickup, Close. With `code_history` (the env keeps the history sets as ALFRED's
  code does) a fridge left empty stays open, since closing it would empty the cooled set;
* a GotoLocation before each step is the shortest pose path (`planning.poses`) to a pose from which
  the step's first target can be used.
The low-level plan is simulated with the engine as it is built, so it is executable by construction.
`Expert.next_action` follows it while the world does what the plan expects, and replans from the
actual state as soon as it does not (DAgger, student forcing). A goal no plan can reach any more
(the only apple was sliced for a whole-apple task) raises `Unrecoverable` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from homesim.planning.poses import Sees, path_to_use, walk
from homesim.tasks.alfred import AlfredGoal, Subgoal, goal_satisfied
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import CLEANS, COOLS, HEATS, Catalog, alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import enclosed, why_not_visible
from homesim.world.scene import Scene
from homesim.world.state import State


def clean_actions(state: State, obj: str, basin: str, faucet: str) -> list[Action]:
    """ALFRED's CleanObject macro for the held object: put it in the basin, run the faucet (turned off
    first if it is on), and take it back."""
    off = [Action(A.TOGGLE_OFF, faucet)] if state.objects[faucet].is_on else []
    return [
        Action(A.PUT, basin),
        *off,
        Action(A.TOGGLE_ON, faucet),
        Action(A.TOGGLE_OFF, faucet),
        Action(A.PICKUP, obj),
    ]


class Unrecoverable(Exception):
    """The goal can no longer be reached from this state; the message says why."""


@dataclass
class ExpertPlan:
    """A demonstration: ALFRED's high-level steps, and the low-level actions with their step index."""

    subgoals: list[Subgoal] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    subgoal_index: list[int] = field(default_factory=list)
    states: list[State] = field(default_factory=list)  # the state each action is taken in


class _Planner:
    """Builds a plan by simulating it, step by step, from one state towards one goal."""

    def __init__(
        self,
        scene: Scene,
        state: State,
        goal: AlfredGoal,
        catalog: Catalog,
        agent: int,
        sees: Sees | None = None,
        code_history: bool = False,
    ) -> None:
        self.scene, self.state, self.goal, self.catalog, self.agent = scene, state, goal, catalog, agent
        self.sees, self.code_history = sees, code_history
        self.plan = ExpertPlan()
        self._paths: dict[tuple, list[str] | None] = {}  # searches made in the current state

    # --- executing -------------------------------------------------------------------------------

    @property
    def held(self) -> str | None:
        return self.state.agents[self.agent].held

    def _do(self, action: Action) -> None:
        self.plan.states.append(self.state)
        self.state, event = step(self.scene, self.state, action, self.agent, self.catalog)
        self._paths.clear()
        if not event.success:  # the planner's own bug, or a world it cannot act in
            raise Unrecoverable(f"{action.name} {action.target or ''}: {event.message}")
        self.plan.actions.append(action)
        self.plan.subgoal_index.append(len(self.plan.subgoals) - 1)

    def _path(self, target: str, also: str | None = None) -> list[str] | None:
        key = (target, also)
        if key not in self._paths:
            self._paths[key] = path_to_use(self.scene, self.state, self.catalog, self.agent, target, also, self.sees)
        return self._paths[key]

    def _walk_to(self, target: str, also: str | None = None) -> list[str]:
        path = self._path(target, also)
        if path is None:
            together = f" together with {also}" if also else ""
            raise Unrecoverable(f"no reachable pose from which {target} can be used{together}")
        return path

    def _high_step(self, kind: str, interactions: list[Action], obj: str | None, receptacle: str | None = None) -> None:
        """A GotoLocation to the first target (if the agent is not already where it can use it), then the
        step's interactions, walking within the step where one target is out of view. A target shut in
        a closed container has the container opened first and closed after, as ALFRED's macros do."""
        container = enclosed(self.state, self.catalog, interactions[0].target)
        if container is not None and self.state.holder_of(container) is None:
            interactions = [Action(A.OPEN, container), *interactions, Action(A.CLOSE, container)]
        also = interactions[1].target if kind == "CleanObject" else None  # the basin and its faucet at once
        path = self._walk_to(interactions[0].target, also)
        if path:
            self.plan.subgoals.append(Subgoal("GotoLocation", interactions[0].target))
            for name in path:
                self._do(Action(name))
            end = self.state.agents[self.agent]
            self.plan.subgoals[-1] = Subgoal("GotoLocation", interactions[0].target, None, (end.x, end.z))
        self.plan.subgoals.append(Subgoal(kind, obj, receptacle))
        for action in interactions:
            if self._empties_cooled(action):
                continue
            if why_not_visible(self.scene, self.state, self.catalog, self.agent, action.target) is not None or (
                self.sees is not None and not self.sees(self.state, action.target)
            ):
                for name in self._walk_to(action.target):
                    self._do(Action(name))
            self._do(action)

    def _empties_cooled(self, action: Action) -> bool:
        """Whether ALFRED's code (`code_history`) would empty the cooled set for this action: a fridge closed with
        nothing in it. The expert leaves such a fridge open; closing it would undo the cooling."""
        return (
            self.code_history
            and action.name == A.CLOSE
            and "Fridge" in action.target
            and not self.state.children(action.target)
            and bool(self.state.cooled)
        )

    # --- choosing objects ------------------------------------------------------------------------

    def _distance(self, object_id: str) -> float:
        me = self.state.agents[self.agent]
        fixed = self.scene.fixed.get(object_id)
        x, _, z = fixed.position if fixed else (self.state.objects[object_id].position or (me.x, 0.0, me.z))
        return abs(x - me.x) + abs(z - me.z)

    def _nearest(self, candidates: list[str], what: str) -> str:
        """The nearest candidate the agent can get to use (through the container it is shut in, if any)."""
        if not candidates:
            raise Unrecoverable(f"no {what} in the scene")
        for candidate in sorted(candidates, key=lambda c: (self._distance(c), c)):
            container = enclosed(self.state, self.catalog, candidate)
            way_in = container if container is not None and self.state.holder_of(container) is None else candidate
            if (
                self.held == candidate
                or path_to_use(self.scene, self.state, self.catalog, self.agent, way_in) is not None
            ):
                return candidate
        raise Unrecoverable(f"no {what} the agent can reach")

    def _of_class(self, cls: str) -> list[str]:
        return [o.id for o in self.state.objects.values() if o.cls == cls]

    def _fixed_with(self, test) -> list[str]:
        return [f.id for f in self.scene.fixed.values() if test(self.catalog[f.cls])]

    # --- building blocks -------------------------------------------------------------------------

    def pick_up(self, obj: str) -> None:
        if self.held == obj:
            return
        if self.held is not None:
            self.put_down()
        self._high_step("PickupObject", [Action(A.PICKUP, obj)], obj)

    def put_in(self, receptacle: str) -> None:
        obj, closed = (
            self.held,
            self.catalog[self.state.objects[receptacle].cls].openable and not self.state.objects[receptacle].is_open,
        )
        put = (
            [Action(A.OPEN, receptacle), Action(A.PUT, receptacle), Action(A.CLOSE, receptacle)]
            if closed
            else [Action(A.PUT, receptacle)]
        )
        self._high_step("PutObject", put, obj, receptacle)

    def put_down(self) -> None:
        """Sets the held object down on the nearest open surface, the goal's receptacles last."""
        avoid = {self.goal.parent_target, self.goal.mrecep_target}
        surfaces = self._fixed_with(lambda c: c.receptacle and not c.openable and not c.basin)
        preferred = [s for s in surfaces if self.state.objects[s].cls not in avoid]
        if self.sees is not None:  # any surface will do: one that some pose shows (a pan may cover a burner)
            preferred = [s for s in preferred if self._seen_from_a_use_pose(s)]
        self.put_in(self._nearest(preferred or surfaces, "place to put things down"))

    def _seen_from_a_use_pose(self, target: str) -> bool:
        path = self._path(target)
        return path is not None and self.sees(walk(self.scene, self.state, self.agent, path), target)

    def obtain_target(self, exclude: set[str] = frozenset()) -> str:
        """Holds an object of the goal's class afterwards (slicing one first for a sliced goal)."""
        goal = self.goal
        candidates = [o for o in self._of_class(goal.target_class) if o not in exclude]
        if not candidates and goal.object_sliced:
            wholes = self._of_class(goal.object_target)
            if not wholes:
                raise Unrecoverable(f"no {goal.object_target} left to slice")
            knives = [o.id for o in self.state.objects.values() if self.catalog[o.cls].slices]
            self.pick_up(self.held if self.held in knives else self._nearest(knives, "knife"))
            whole = self._nearest(wholes, goal.object_target)
            self._high_step("SliceObject", [Action(A.SLICE, whole)], whole)
            self.put_down()
            candidates = [o for o in self._of_class(goal.target_class) if o not in exclude]
        if self.held in candidates:
            return self.held
        target = self._nearest(candidates, goal.target_class)
        self.pick_up(target)
        return target

    def treat(self, obj: str) -> None:
        """Cleans, heats or cools the held object, as the goal asks, with ALFRED's macro."""
        kind = {"pick_clean_then_place_in_recep": "CleanObject", "pick_heat_then_place_in_recep": "HeatObject"}.get(
            self.goal.task_type, "CoolObject"
        )
        history = {"CleanObject": self.state.cleaned, "HeatObject": self.state.heated, "CoolObject": self.state.cooled}[
            kind
        ]
        if obj in history:
            return
        if kind == "CleanObject":
            # A faucet cleans the basin closest to it: use a basin through the faucet that serves it.
            serves = {self._closest_basin(f): f for f in sorted(self._fixed_with(lambda c: c.effect == CLEANS))}
            basin = self._nearest([b for b in serves if b is not None], "sink basin with a faucet")
            self._high_step(kind, clean_actions(self.state, obj, basin, serves[basin]), obj, basin)
            return
        appliance = self._nearest(
            self._fixed_with(lambda c: c.effect == (HEATS if kind == "HeatObject" else COOLS)),
            "microwave" if kind == "HeatObject" else "fridge",
        )
        state = self.state.objects[appliance]
        opening = [] if state.is_open else [Action(A.OPEN, appliance)]
        if kind == "HeatObject":
            off = [Action(A.TOGGLE_OFF, appliance)] if state.is_on else []
            cycle = [Action(A.TOGGLE_ON, appliance), Action(A.TOGGLE_OFF, appliance)]
        else:
            off, cycle = [], []
        steps = [
            *opening,
            *off,
            Action(A.PUT, appliance),
            Action(A.CLOSE, appliance),
            *cycle,
            Action(A.OPEN, appliance),
            Action(A.PICKUP, obj),
            Action(A.CLOSE, appliance),
        ]
        self._high_step(kind, steps, obj, appliance)

    def _closest_basin(self, faucet: str) -> str | None:
        fx, _, fz = self.scene.fixed[faucet].position
        basins = sorted(self._fixed_with(lambda c: c.basin))
        distance = lambda b: (self.scene.fixed[b].position[0] - fx) ** 2 + (self.scene.fixed[b].position[2] - fz) ** 2  # noqa: E731
        return min(basins, key=distance, default=None)

    def place(self, receptacle_class: str, instance: str | None = None) -> None:
        self.put_in(instance or self._nearest(self._of_class(receptacle_class), receptacle_class))

    # --- the task types --------------------------------------------------------------------------

    def solve(self) -> ExpertPlan:
        goal = self.goal
        if goal_satisfied(self.scene, self.state, goal, self.agent):
            return self.plan
        kind = goal.task_type
        if kind == "look_at_obj_in_light":
            self.obtain_target()
            lamp = self._nearest(self._of_class(goal.toggle_target), goal.toggle_target)
            if not self.state.objects[lamp].is_on:
                self._high_step("ToggleObject", [Action(A.TOGGLE_ON, lamp)], lamp)
            else:
                for name in self._walk_to(lamp):
                    self._do(Action(name))
        elif kind == "pick_two_obj_and_place":
            self._solve_two()
        elif kind == "pick_and_place_with_movable_recep":
            self._solve_movable()
        else:
            obj = self.obtain_target()
            if kind != "pick_and_place_simple":
                self.treat(obj)
            self.place(goal.parent_target)
        if not goal_satisfied(self.scene, self.state, goal, self.agent):
            raise Unrecoverable("the plan ends without the goal met")  # a planner bug, reported, never hidden
        return self.plan

    def _inside(self, obj: str, receptacle: str) -> bool:
        return receptacle in self.state.ancestors(obj)

    def _solve_two(self) -> None:
        goal = self.goal
        parents = self._of_class(goal.parent_target)
        if not parents:
            raise Unrecoverable(f"no {goal.parent_target} in the scene")
        count = lambda p: sum(self._inside(o, p) for o in self._of_class(goal.target_class))  # noqa: E731
        most = max(map(count, parents))
        try:  # the receptacle already holding the most of them, else any the agent can reach
            parent = self._nearest([p for p in parents if count(p) == most], goal.parent_target)
        except Unrecoverable:
            parent = self._nearest(parents, goal.parent_target)
        while count(parent) < 2:
            placed = {o for o in self._of_class(goal.target_class) if self._inside(o, parent)}
            self.obtain_target(exclude=placed)
            self.place(goal.parent_target, parent)

    def _solve_movable(self) -> None:
        goal = self.goal
        containers = self._of_class(goal.mrecep_target)
        holding_target = lambda m: any(self._inside(o, m) for o in self._of_class(goal.target_class))  # noqa: E731
        ready = [m for m in containers if holding_target(m)]
        mrecep = self._nearest(ready or containers, goal.mrecep_target)
        if not holding_target(mrecep):
            self.obtain_target()
            self.put_in(mrecep)
        self.pick_up(mrecep)
        self.place(goal.parent_target)


def plan(
    scene: Scene,
    state: State,
    goal: AlfredGoal,
    agent: int = 0,
    catalog: Catalog | None = None,
    sees: Sees | None = None,
    code_history: bool = False,
) -> ExpertPlan:
    """The whole demonstration from `state`: raises `Unrecoverable` if the goal cannot be reached. With
    `sees` (e.g. "the rendered frame shows it"), interactions are made from poses where it holds; with
    `code_history`, for an env that keeps the history sets as ALFRED's code does."""
    return _Planner(scene, state, goal, catalog or alfred_catalog(), agent, sees, code_history).solve()


class Expert:
    """`next_action(state)` from any state: follows its plan while the world matches it, else replans."""

    def __init__(
        self,
        scene: Scene,
        goal: AlfredGoal,
        agent: int = 0,
        catalog: Catalog | None = None,
        sees: Sees | None = None,
        code_history: bool = False,
    ) -> None:
        self.scene, self.goal, self.agent, self.sees, self.code_history = scene, goal, agent, sees, code_history
        self.catalog = catalog or alfred_catalog()
        self._plan: ExpertPlan | None = None
        self._next = 0
        self.subgoal: Subgoal | None = None  # the high-level step the last action given serves (None: STOP)

    def plan(self, state: State) -> ExpertPlan:
        return plan(self.scene, state, self.goal, self.agent, self.catalog, self.sees, self.code_history)

    def next_action(self, state: State) -> Action:
        """The plan's action for `state`: the next one where the world moved on as planned, the same one again
        where it did not (asked twice, or after a failed step: the answer is a function of the state and the
        plan, never of how often it was asked); else a new plan's first. `subgoal` says which step it serves."""
        self.subgoal = None
        if self._plan is not None:
            for i in (self._next, self._next - 1):
                if 0 <= i < len(self._plan.actions) and self._plan.states[i] == state:
                    self._next = i + 1
                    self.subgoal = self._plan.subgoals[self._plan.subgoal_index[i]]
                    return self._plan.actions[i]
        if goal_satisfied(self.scene, state, self.goal, self.agent):
            return Action(A.STOP)
        self._plan, self._next = self.plan(state), 1
        if not self._plan.actions:
            return Action(A.STOP)
        self.subgoal = self._plan.subgoals[self._plan.subgoal_index[0]]
        return self._plan.actions[0]
