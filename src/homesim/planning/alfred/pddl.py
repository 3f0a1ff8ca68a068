"""PDDL for ALFRED: the shipped domain, any state and goal as a problem, a real planner, and plan execution.

DESIGN's rule: plans from a real planner must execute in the engine, so engine and PDDL cannot drift
apart. `export_problem` writes a state and an `AlfredGoal` as a problem for `data/alfred_domain.pddl`;
`solve_with_planner` runs pyperplan (a classical planner from PyPI) on it; `execute_plan` turns each
high-level step into engine actions (GotoLocation: the shortest pose path of `planning.poses`; the
interactions and ALFRED's macros: the engine's own actions) and fails loudly where the engine refuses one.

Problems hold only what a plan for the goal can involve: the things of the goal's classes, knives for
a sliced goal, the appliances a treatment needs, what all these lie in, and the held object with the
surfaces it can be set down on. Nothing else ever blocks an action in the engine (receptacles have no
capacity), so leaving it out loses no plan and keeps the planner's grounding small: pyperplan grounds
every action over all objects of its parameters' types.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from homesim.planning.navigation import NEIGHBOURS
from homesim.planning.poses import path_to_use, use_poses
from homesim.tasks.alfred import AlfredGoal, goal_satisfied
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import CLEANS, COOLS, HEATS, Catalog, alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import why_not_visible
from homesim.world.scene import Scene, to_cell
from homesim.world.state import State

AGENT, START = "agent0", "start"
SLICES_DECLARED = 2  # pieces declared per whole: no ALFRED goal places more than two


def domain_text() -> str:
    """The shipped ALFRED domain (`homesim/planning/data/alfred_domain.pddl`)."""
    return resources.files("homesim.planning").joinpath("data/alfred_domain.pddl").read_text()


class PlannerError(RuntimeError):
    """The planner found no plan (unsolvable problem, or out of time)."""


class PlanExecutionError(RuntimeError):
    """A plan step the engine refused: the PDDL model and the engine disagree (or the plan is wrong)."""


@dataclass(frozen=True)
class PlanStep:
    """One high-level step: a domain action and its arguments as engine ids, the agent left out."""

    action: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.action}({', '.join(self.args)})"


# --- the problem ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Goal:
    """An existential goal: typed variables, the atoms they must satisfy, and optionally two variables
    that must name different objects (pick two)."""

    variables: tuple[tuple[str, str], ...]
    atoms: tuple[str, ...]
    different: tuple[str, str] | None = None


@dataclass
class _Problem:
    """A problem being written: its things' PDDL names, types and classes, its facts and its goal."""

    goal: AlfredGoal
    target: _Goal
    names: dict[str, str] = field(default_factory=dict)  # PDDL name -> engine id
    types: dict[str, str] = field(default_factory=dict)  # PDDL name -> type
    classes: dict[str, str] = field(default_factory=dict)  # PDDL name of a thing -> its class
    init: list[str] = field(default_factory=list)

    def name(self, engine_id: str, cls: str, kind: str) -> str:
        """Declares a thing under a PDDL name (ids like `Apple|-01.75|+00.94|+00.55` are not names)."""
        pddl = f"{cls}_{sum(c == cls for c in self.classes.values()) + 1}"
        self.names[pddl], self.types[pddl], self.classes[pddl] = engine_id, kind, cls
        self.fact("ofClass", pddl, cls)
        return pddl

    def fact(self, *atom: str) -> None:
        self.init.append(f"({' '.join(atom)})")

    def _objects(self, leave_out: set[str] = frozenset()) -> str:
        by_type: dict[str, list[str]] = {}
        for name, kind in self.types.items():
            if name not in leave_out:
                by_type.setdefault(kind, []).append(name)
        return "\n    ".join(f"{' '.join(names)} - {kind}" for kind, names in by_type.items())

    def _text(self, objects: str, init: list[str], goal: str) -> str:
        legend = "\n".join(f";   {n} = {i}" for n, i in self.names.items() if n != i)
        facts = "\n    ".join(init)
        return (
            f"; ALFRED goal: {self.goal.to_dict()}\n; names:\n{legend}\n"
            f"(define (problem homesim-{self.goal.task_type.replace('_', '-')})\n"
            f"  (:domain homesim-alfred)\n  (:objects\n    {objects})\n  (:init\n    {facts})\n"
            f"  (:goal {goal}))\n"
        )

    def to_pddl(self) -> str:
        """The problem with its goal stated as ALFRED's goal conditions: `exists` over typed variables."""
        t = self.target
        variables = " ".join(f"{v} - {kind}" for v, kind in t.variables)
        different = [f"(not (= {t.different[0]} {t.different[1]}))"] if t.different else []
        goal = f"(exists ({variables})\n    (and {' '.join([*t.atoms, *different])}))"
        return self._text(self._objects(), self.init, goal)

    def to_strips(self) -> tuple[str, str]:
        """(domain, problem) for a STRIPS planner: the existential goal becomes an action `reach-goal`
        whose parameters are the goal's variables and whose effect is `(goal-reached)` (the textbook
        compilation); "different objects" becomes a static `different` relation; the names the goal
        mentions become domain constants."""
        t = self.target
        constants = sorted({w for atom in t.atoms for w in atom.strip("()").split()[1:] if not w.startswith("?")})
        domain = domain_text()
        head, body = domain.split("(:predicates", 1)
        declared = " ".join(f"{c} - {self.types[c]}" for c in constants)
        different = [f"(different {t.different[0]} {t.different[1]})"] if t.different else []
        reach = (
            f"  (:action reach-goal\n    :parameters ({' '.join(f'{v} - {kind}' for v, kind in t.variables)})\n"
            f"    :precondition (and {' '.join([*t.atoms, *different])})\n    :effect (goal-reached))\n"
        )
        domain = (
            f"{head}(:constants {declared})\n  (:predicates (goal-reached) (different ?x - movable ?y - movable)"
            f"{body.rstrip()[:-1]}\n{reach})\n"
        )
        init = list(self.init)
        if t.different:
            same = [n for n, c in self.classes.items() if c == self.goal.target_class]
            init += [f"(different {a} {b})" for a in same for b in same if a != b]
        return domain, self._text(self._objects(set(constants)), init, "(goal-reached)")


def _relevant(scene: Scene, state: State, goal: AlfredGoal, catalog: Catalog, agent: int) -> list[str]:
    """The ids a plan for this goal can involve (see the module docstring), in id order."""
    classes = {goal.target_class, goal.object_target, goal.parent_target, goal.toggle_target, goal.mrecep_target}
    effect = {
        "pick_clean_then_place_in_recep": CLEANS,
        "pick_heat_then_place_in_recep": HEATS,
        "pick_cool_then_place_in_recep": COOLS,
    }.get(goal.task_type)

    def needed(cls: str) -> bool:
        c = catalog[cls]
        return (
            cls in classes
            or (goal.object_sliced and c.slices)
            or (effect is not None and c.effect == effect)
            or (effect == CLEANS and c.basin)
        )

    keep = {o.id for o in state.objects.values() if needed(o.cls)}
    held = state.agents[agent].held
    if held is not None:  # and the surfaces it can be set down on
        surfaces = {f.id for f in scene.fixed.values() if catalog[f.cls].receptacle and not catalog[f.cls].openable}
        keep |= {held} | surfaces
    keep |= {a for o in list(keep) for a in state.ancestors(o)}
    return sorted(keep)


def _build(scene: Scene, state: State, goal: AlfredGoal, catalog: Catalog, agent: int) -> _Problem:
    problem = _Problem(goal, _goal(goal))
    me = state.agents[agent]
    ids = _relevant(scene, state, goal, catalog, agent)
    fixed = [i for i in ids if i in scene.fixed]
    movable = [i for i in ids if i not in scene.fixed]
    sliced = catalog[goal.object_target].sliced_class
    # A sliced goal's wholes get their pieces declared, under the ids slicing will give them.
    pieces = {
        w: [f"{w}|{sliced}_{i}" for i in range(SLICES_DECLARED)]
        for w in movable
        if goal.object_sliced and state.objects[w].cls == goal.object_target
    }
    piece_ids = [p for ps in pieces.values() for p in ps]
    classes = {i: state.objects[i].cls for i in ids} | {p: sliced for p in piece_ids}
    name = {i: problem.name(i, classes[i], "furniture") for i in fixed}
    name |= {i: problem.name(i, classes[i], "movable") for i in [*movable, *piece_ids]}
    goal_classes = {goal.target_class, goal.parent_target, goal.toggle_target, goal.mrecep_target} - {""}
    for cls in sorted(set(classes.values()) | goal_classes):
        problem.names[cls], problem.types[cls] = cls, "class"
    problem.names[AGENT], problem.types[AGENT] = AGENT, "agent"

    on_floor = fixed + [i for i in movable if state.objects[i].parent is None and me.held != i]
    reachable = _reachable(scene, state, catalog, agent, on_floor)
    for i in on_floor:
        problem.fact("onFloor", name[i])
        if i in reachable:
            problem.fact("reachable", name[i])
    for i in fixed:
        _furniture_facts(problem, scene, state, catalog, i, name, [name[m] for m in [*movable, *piece_ids]])
    for i in movable:
        o, c = state.objects[i], catalog[classes[i]]
        if me.held == i:
            problem.fact("holds", AGENT, name[i])
        elif o.parent is not None:
            problem.fact("inReceptacle", name[i], name[o.parent])
        if c.receptacle:
            problem.fact("receptacle", name[i])
            if not c.openable or o.is_open:
                problem.fact("accessible", name[i])
            for other in [*movable, *piece_ids]:
                if catalog.can_contain(o.cls, classes[other]):
                    problem.fact("canContain", name[i], name[other])
        if c.slices:
            problem.fact("cuts", name[i])
        for history in ("cleaned", "heated", "cooled"):
            if i in getattr(state, history):
                problem.fact(history, name[i])
    for whole, (first, second) in pieces.items():
        problem.fact("sliceable", name[whole])
        problem.fact("firstSliceOf", name[first], name[whole])
        problem.fact("secondSliceOf", name[second], name[whole])
        if whole in reachable:  # pieces of a loose whole lie where it lay
            problem.fact("reachable", name[first])
            problem.fact("reachable", name[second])
    start = _start(scene, state, catalog, agent, on_floor)
    if start is None:
        problem.names[START], problem.types[START] = START, "place"
    problem.fact("atLocation", AGENT, START if start is None else name[start])
    if me.held is None:
        problem.fact("handEmpty", AGENT)
    return problem


def _reachable(scene: Scene, state: State, catalog: Catalog, agent: int, things: list[str]) -> set[str]:
    """The things the agent can walk to a pose to use from (turning and looking are free, so a pose is
    reachable when its cell is connected to the agent's)."""
    me = state.agents[agent]
    connected, frontier = {to_cell(me.x, me.z)}, [to_cell(me.x, me.z)]
    while frontier:
        x, z = frontier.pop()
        for dx, dz in NEIGHBOURS:
            cell = (x + dx, z + dz)
            if cell in scene.reachable and cell not in connected:
                connected.add(cell)
                frontier.append(cell)
    return {t for t in things if any((x, z) in connected for x, z, _, _ in use_poses(scene, state, catalog, agent, t))}


def _furniture_facts(
    problem: _Problem, scene: Scene, state: State, catalog: Catalog, i: str, name: dict[str, str], movables: list[str]
) -> None:
    o, c, n = state.objects[i], catalog[state.objects[i].cls], name[i]
    if c.openable:
        problem.fact("openable", n)
        problem.fact("accessible" if o.is_open else "closed", n)
    elif c.receptacle:
        problem.fact("accessible", n)
    if c.receptacle:  # ALFRED puts with forceAction: a fixed receptacle takes anything
        problem.fact("receptacle", n)
        for m in movables:
            problem.fact("canContain", n, m)
    if c.toggleable:
        problem.fact("toggleable", n)
        problem.fact("isOn" if o.is_on else "isOff", n)
    if c.effect == HEATS:
        problem.fact("heats", n)
    elif c.effect == COOLS:
        problem.fact("cools", n)
    elif c.effect == CLEANS:
        # A faucet cleans the visible basin closest to it; the executor uses both from one pose, where
        # the closest basin of all is the closest visible one.
        fx, _, fz = scene.fixed[i].position
        basins = [
            ((b.position[0] - fx) ** 2 + (b.position[2] - fz) ** 2, b.id)
            for b in scene.fixed.values()
            if catalog[b.cls].basin
        ]
        if basins and min(basins)[1] in name:
            problem.fact("cleans", n, name[min(basins)[1]])


def _start(scene: Scene, state: State, catalog: Catalog, agent: int, on_floor: list[str]) -> str | None:
    """Where the agent is: the nearest thing on the floor it can use from where it stands, if any."""
    me = state.agents[agent]

    def distance(i: str) -> float:
        x, _, z = scene.fixed[i].position if i in scene.fixed else state.objects[i].position
        return (x - me.x) ** 2 + (z - me.z) ** 2

    usable = [i for i in on_floor if why_not_visible(scene, state, catalog, agent, i) is None]
    return min(usable, key=lambda i: (distance(i), i), default=None)


def _goal(goal: AlfredGoal) -> _Goal:
    """ALFRED's goal conditions (`tasks.alfred.goal_conditions`) as one existential formula. Placement
    is direct (in or on), where ALFRED also counts deeper nesting: every plan for this goal meets ALFRED's."""
    x, p = goal.target_class, goal.parent_target
    if goal.task_type == "look_at_obj_in_light":
        return _Goal(
            (("?o", "movable"), ("?l", "furniture")),
            (
                f"(ofClass ?o {x})",
                f"(holds {AGENT} ?o)",
                f"(ofClass ?l {goal.toggle_target})",
                "(isOn ?l)",
                f"(atLocation {AGENT} ?l)",
            ),
        )
    if goal.task_type == "pick_two_obj_and_place":
        return _Goal(
            (("?o1", "movable"), ("?o2", "movable"), ("?r", "thing")),
            (
                f"(ofClass ?o1 {x})",
                f"(ofClass ?o2 {x})",
                f"(ofClass ?r {p})",
                "(inReceptacle ?o1 ?r)",
                "(inReceptacle ?o2 ?r)",
            ),
            different=("?o1", "?o2"),
        )
    if goal.task_type == "pick_and_place_with_movable_recep":
        return _Goal(
            (("?o", "movable"), ("?m", "movable"), ("?r", "thing")),
            (
                f"(ofClass ?o {x})",
                f"(ofClass ?m {goal.mrecep_target})",
                f"(ofClass ?r {p})",
                "(inReceptacle ?o ?m)",
                "(inReceptacle ?m ?r)",
            ),
        )
    treated = {
        "pick_clean_then_place_in_recep": ("(cleaned ?o)",),
        "pick_heat_then_place_in_recep": ("(heated ?o)",),
        "pick_cool_then_place_in_recep": ("(cooled ?o)",),
    }.get(goal.task_type, ())
    return _Goal(
        (("?o", "movable"), ("?r", "thing")),
        (f"(ofClass ?o {x})", *treated, f"(ofClass ?r {p})", "(inReceptacle ?o ?r)"),
    )


def export_problem(scene: Scene, state: State, goal: AlfredGoal, agent: int = 0, catalog: Catalog | None = None) -> str:
    """The state and goal as a PDDL problem for the shipped domain (see `domain_text`)."""
    return _build(scene, state, goal, catalog or alfred_catalog(), agent).to_pddl()


# --- the planner ----------------------------------------------------------------------------------

_STEP = re.compile(r"\(([^()\s]+)((?:\s+[^()\s]+)*)\)")


def run_pyperplan(domain: str, problem: str, timeout: float = 60.0) -> list[tuple[str, tuple[str, ...]]]:
    """pyperplan's plan (greedy best-first search with the FF heuristic) for a STRIPS domain and problem,
    as (action, arguments) in its lower case; [] when the goal already holds. It runs in a subprocess, so
    a hard problem is stopped after `timeout` seconds; it breaks ties by iterating sets, so its hash seed
    is fixed: the same problem, the same plan."""
    with tempfile.TemporaryDirectory(prefix="homesim-pddl-") as folder:
        domain_file, problem_file = Path(folder) / "domain.pddl", Path(folder) / "problem.pddl"
        domain_file.write_text(domain)
        problem_file.write_text(problem)
        command = [sys.executable, "-m", "pyperplan", "-l", "warning", "-s", "gbf", "-H", "hff"]
        try:
            run = subprocess.run(
                [*command, str(domain_file), str(problem_file)],
                check=False,  # no plan is not an error exit: the missing plan file says it
                env={**os.environ, "PYTHONHASHSEED": "0"},
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise PlannerError(f"pyperplan found no plan within {timeout:g} s") from None
        solution = Path(f"{problem_file}.soln")
        if not solution.exists():
            said = (run.stderr or run.stdout).strip().splitlines()[-1:] or ["no output"]
            raise PlannerError(f"pyperplan found no plan (exit {run.returncode}): {said[0]}")
        lines = solution.read_text().splitlines()
    plan = []
    for line in lines:
        match = _STEP.fullmatch(line.strip())
        if match is None:
            raise PlannerError(f"cannot read pyperplan's plan step {line!r}")
        plan.append((match.group(1), tuple(match.group(2).split())))
    return plan


def solve_with_planner(
    scene: Scene, state: State, goal: AlfredGoal, agent: int = 0, catalog: Catalog | None = None, timeout: float = 60.0
) -> list[PlanStep]:
    """A plan from pyperplan (see `run_pyperplan`) for ALFRED's goal. An empty list: the goal already holds."""
    problem = _build(scene, state, goal, catalog or alfred_catalog(), agent)
    domain, text = problem.to_strips()
    actions = {a.lower(): a for a in re.findall(r"\(:action\s+(\S+)", domain_text())}
    ids = {n.lower(): i for n, i in problem.names.items()}
    return [
        PlanStep(actions[name], tuple(ids[a] for a in args[1:]))  # args[0]: the agent
        for name, args in run_pyperplan(domain, text, timeout)
        if name != "reach-goal"
    ]


# --- execution ------------------------------------------------------------------------------------

# Steps that are one engine interaction: (engine action, which argument it targets).
_ONE_ACTION = {
    "OpenObject": (A.OPEN, 0),
    "CloseObject": (A.CLOSE, 0),
    "ToggleObjectOn": (A.TOGGLE_ON, 0),
    "ToggleObjectOff": (A.TOGGLE_OFF, 0),
    "PickupObject": (A.PICKUP, 0),
    "PickupObjectFromContainer": (A.PICKUP, 0),
    "PickupLooseObject": (A.PICKUP, 0),
    "PutObject": (A.PUT, 1),
    "PutObjectInContainer": (A.PUT, 1),
    "SliceObject": (A.SLICE, 0),
    "SliceObjectInContainer": (A.SLICE, 0),
    "SliceLooseObject": (A.SLICE, 0),
}


class _Executor:
    """Steps high-level steps in the engine, keeping the engine actions taken."""

    def __init__(self, scene: Scene, state: State, catalog: Catalog, agent: int) -> None:
        self.scene, self.state, self.catalog, self.agent = scene, state, catalog, agent
        self.actions: list[Action] = []

    def do(self, name: str, target: str | None = None) -> None:
        if target is not None:
            self.reach(target)
        action = Action(name, target)
        self.state, event = step(self.scene, self.state, action, self.agent, self.catalog)
        if not event.success:
            raise PlanExecutionError(f"{name} {target or ''}: {event.message}")
        self.actions.append(action)

    def reach(self, target: str, also: str | None = None) -> None:
        """Walks to a pose from which `target` (and `also`) can be used, unless the agent stands at one:
        a GotoLocation's pose sees its thing, not always everything in or on it (a long counter)."""
        wanted = [t for t in (target, also) if t is not None]
        if all(why_not_visible(self.scene, self.state, self.catalog, self.agent, t) is None for t in wanted):
            return
        path = path_to_use(self.scene, self.state, self.catalog, self.agent, target, also)
        if path is None:
            reasons = [why_not_visible(self.scene, self.state, self.catalog, self.agent, t) for t in wanted]
            raise PlanExecutionError(f"no pose to use {' and '.join(wanted)} from: {'; '.join(filter(None, reasons))}")
        for name in path:
            self.do(name)

    def run(self, s: PlanStep) -> None:
        if s.action == "GotoLocation":
            self.reach(s.args[1])
        elif s.action in _ONE_ACTION:
            name, which = _ONE_ACTION[s.action]
            self.do(name, s.args[which])
        elif s.action == "CleanObject":
            obj, basin, faucet = s.args
            self.reach(basin, also=faucet)  # the faucet washes the closest basin *in view*
            self.do(A.PUT, basin)
            if self.state.objects[faucet].is_on:
                self.do(A.TOGGLE_OFF, faucet)
            for name, target in ((A.TOGGLE_ON, faucet), (A.TOGGLE_OFF, faucet), (A.PICKUP, obj)):
                self.do(name, target)
            self.treated(s, "cleaned")
        elif s.action in ("HeatObject", "CoolObject"):
            obj, appliance = s.args
            now = self.state.objects[appliance]
            if not now.is_open:
                self.do(A.OPEN, appliance)
            heat = s.action == "HeatObject"
            if heat and now.is_on:
                self.do(A.TOGGLE_OFF, appliance)
            self.do(A.PUT, appliance)
            self.do(A.CLOSE, appliance)
            if heat:
                self.do(A.TOGGLE_ON, appliance)
                self.do(A.TOGGLE_OFF, appliance)
            for name, target in ((A.OPEN, appliance), (A.PICKUP, obj), (A.CLOSE, appliance)):
                self.do(name, target)
            self.treated(s, "heated" if heat else "cooled")
        else:
            raise PlanExecutionError(f"unknown plan step {s.action!r}")

    def treated(self, s: PlanStep, history: str) -> None:
        """A macro's engine actions all succeeded; its effect must show in ALFRED's history set too."""
        if s.args[0] not in getattr(self.state, history):
            raise PlanExecutionError(f"{s}: the engine did not count {s.args[0]} as {history}")


def plan_actions(
    scene: Scene, state: State, plan: list[PlanStep], agent: int = 0, catalog: Catalog | None = None
) -> tuple[list[Action], State]:
    """The engine actions a high-level plan turns into, stepped from `state`, and the state they end in.
    Raises `PlanExecutionError` naming the step where the engine refuses an action."""
    executor = _Executor(scene, state, catalog or alfred_catalog(), agent)
    for index, s in enumerate(plan):
        try:
            executor.run(s)
        except PlanExecutionError as error:
            raise PlanExecutionError(f"step {index} {s}: {error}") from None
    return executor.actions, executor.state


def execute_plan(
    scene: Scene, state: State, plan: list[PlanStep], agent: int = 0, catalog: Catalog | None = None
) -> State:
    """Steps a high-level plan in the engine and returns the final state (see `plan_actions`)."""
    return plan_actions(scene, state, plan, agent, catalog)[1]


@dataclass(frozen=True)
class CrossCheck:
    """One problem through the planner and then the engine: `passed` when the planner found a plan,
    the engine took every action of it and the goal holds at the end; else `reason` says what failed."""

    passed: bool
    reason: str
    plan: tuple[PlanStep, ...]
    actions: int  # engine actions the plan became
    planner_seconds: float  # export, planner process and reading its plan


def cross_check(
    scene: Scene, state: State, goal: AlfredGoal, agent: int = 0, catalog: Catalog | None = None, timeout: float = 60.0
) -> CrossCheck:
    """DESIGN's PDDL check on one problem: a real planner's plan must execute in the engine."""
    begin = time.perf_counter()
    try:
        plan = solve_with_planner(scene, state, goal, agent, catalog, timeout)
    except PlannerError as error:
        return CrossCheck(False, f"planner: {error}", (), 0, time.perf_counter() - begin)
    seconds = time.perf_counter() - begin
    try:
        actions, final = plan_actions(scene, state, plan, agent, catalog)
    except PlanExecutionError as error:
        return CrossCheck(False, f"engine: {error}", tuple(plan), 0, seconds)
    if not goal_satisfied(scene, final, goal, agent):
        return CrossCheck(False, "goal not met after the plan", tuple(plan), len(actions), seconds)
    return CrossCheck(True, "", tuple(plan), len(actions), seconds)
