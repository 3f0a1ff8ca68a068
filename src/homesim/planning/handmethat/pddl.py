"""PDDL for HandMeThat: the shipped domain (`data/handmethat_domain.pddl`), any state and goal as a problem,
a real planner (pyperplan) on it, and its plan as engine actions.

DESIGN's rule: plans from a real planner must execute in the engine, so engine and PDDL cannot drift
apart (tests/test_handmethat_pddl.py). Names: `pad#0` is `pad-0` in PDDL (`#` is no PDDL character); the
human, as a place the robot stands at, is the constant `human`; the agents are `robot` and `h`.

`export_problem` writes the whole state, or only the things named in `keep` (with what they lie in and
the locations), and any goal of their language (`exists`, `forall`, `or` and `not` need a planner
beyond STRIPS; the domain declares those requirements for its problems' goals). For pyperplan,
`solve_with_planner` keeps what a plan for the goal can involve (the goal's things, what they lie in,
what the robot holds, knives for slicing and cleaning tools for cleaning) and runs it once per
disjunct of a ground goal, keeping the shortest plan: pyperplan grounds every action over every
object of its parameters' types, which over 250 things is too slow.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources

from homesim.planning.alfred.pddl import PlannerError, run_pyperplan
from homesim.tasks.handmethat.formula import Formula, parse
from homesim.world.handmethat import HUMAN, HmtAction, HmtState, handmethat_catalog

STATE_PREDICATES = ("open", "toggled", "cooked", "frozen", "sliced", "soaked", "dusty", "stained")
ABILITY_PREDICATES = (
    *("openable", "toggleable", "cookable", "freezable", "sliceable", "soakable", "has-inside", "has-ontop"),
)
# a negated state and the complement fact the STRIPS domain keeps for it
COMPLEMENTS = {"open": "closed", "toggled": "off", "dusty": "dust-free", "stained": "stain-free"}


def domain_text() -> str:
    """The shipped HandMeThat domain, for both agents."""
    return resources.files("homesim.planning").joinpath("data/handmethat_domain.pddl").read_text()


def pddl_name(name: str) -> str:
    return "human" if name == HUMAN else name.replace("#", "-")


def engine_name(name: str) -> str:
    if name == "human":
        return HUMAN
    head, _, number = name.rpartition("-")
    return f"{head}#{number}" if head and number.isdigit() else name


def _label(value: str) -> str:
    return f"k-{value.lower()}"


# --- the problem -----------------------------------------------------------------------------------


def _kept(state: HmtState, keep: Iterable[str] | None) -> list[str]:
    """The things written: all, or those in `keep` with what they lie in, and every location."""
    if keep is None:
        return list(state.things)
    wanted = set(state.locations)
    for name in keep:
        while name is not None:
            wanted.add(name)
            name = state[name].parent
    return [n for n in state.things if n in wanted]


def _facts(state: HmtState, names: list[str], working: tuple[str, ...]) -> list[str]:
    catalog, chosen = handmethat_catalog(), set(names)
    facts = ["(robot-agent robot)", *(f"(working {'robot' if a == 'robot' else 'h'})" for a in working)]
    for agent, who in (("robot", "robot"), ("human", "h")):
        me = state.agent(agent)
        facts.append(f"(stands-at {who} {pddl_name(me.at)})")
        facts += [f"(holding {who} {pddl_name(o)})" for o in me.held if o in chosen]
        if not me.held:
            facts.append(f"(hand-empty {who})")
    for loc in state.locations:
        facts += [f"(may-stand robot {loc})", f"(may-stand h {loc})"]
    facts.append("(may-stand robot human)")
    tools = [n for n in names if state[n].type in catalog.cleaning_tools]
    for n in names:
        t, c, p = state[n], state[n].category, pddl_name(n)
        facts += [f"(is {p} {_label(v)})" for v in (c.type, c.subclass, c.cls, t.size, t.color) if v]
        if c.movable:
            facts.append(f"({'receptacle' if c.cls == 'RECEPTACLE' else 'non-receptacle'} {p})")
        if t.parent is not None and t.parent in chosen:
            facts.append(f"({t.relation} {p} {pddl_name(t.parent)})")
        facts += [f"({a} {p})" for a in ABILITY_PREDICATES if c.can(a)]
        facts += [f"({s} {p})" for s in STATE_PREDICATES if s in t.states]
        facts += [f"({COMPLEMENTS[s]} {p})" for s in ("open", "toggled") if s in t.has_states and s not in t.states]
        facts += [f"({COMPLEMENTS[s]} {p})" for s in ("dusty", "stained") if s not in t.states]
        if c.holds_inside and (not c.can("openable") or t.is_("open")):
            facts.append(f"(accessible {p})")
        for role, kinds in (("heats", catalog.heats), ("cools", catalog.cools), ("soaks", catalog.soaks)):
            if not c.movable and c.type in kinds:
                facts.append(f"({role} {p})")
        if c.movable and c.type in catalog.slices:
            facts.append(f"(cuts {p})")
        if c.movable and (not c.can("soakable") or t.is_("soaked")):
            facts.append(f"(ready {p})")
        if c.can("dustyable") or c.can("stainable"):
            facts += [f"(cleans {pddl_name(k)} {p})" for k in tools if c.cleaned_by(state[k].type)]
    return facts


def _problem_text(state: HmtState, names: list[str], goal: str, working: tuple[str, ...]) -> str:
    by_type: dict[str, list[str]] = {"location": [], "item": []}
    for n in names:
        by_type["item" if state[n].category.movable else "location"].append(pddl_name(n))
    c = handmethat_catalog()
    labels = sorted(
        {_label(v) for n in names for v in (c[state[n].type].type, c[state[n].type].subclass, c[state[n].type].cls)}
        | {_label(v) for n in names for v in (state[n].size, state[n].color) if v}
    )
    objects = "\n    ".join(f"{' '.join(ns)} - {kind}" for kind, ns in (*by_type.items(), ("label", labels)) if ns)
    facts = "\n    ".join(_facts(state, names, working))
    return (
        f"(define (problem homesim-handmethat)\n  (:domain homesim-handmethat)\n"
        f"  (:objects\n    {objects})\n  (:init\n    {facts})\n  (:goal {goal}))\n"
    )


def export_problem(
    state: HmtState,
    goal: Formula | str | None = None,
    keep: Iterable[str] | None = None,
    working: tuple[str, ...] = ("robot",),
) -> str:
    """The state (whole, or the things in `keep`) and a goal of their language as a PDDL problem for the
    shipped domain; `working`: the agents that may act (the robot's problem leaves the human waiting)."""
    tree = parse(goal) if isinstance(goal, str) else goal
    text = "(and)" if tree is None else _goal_pddl(tree, strips=False)
    return _problem_text(state, _kept(state, keep), text, working)


def _atom(f: Formula, strips: bool, negated: bool = False) -> str:
    """One atom of their goal language in the domain's words (negated: a STRIPS complement fact)."""
    args = [a if a.startswith("?") else pddl_name(a) for a in f.args]
    p = f.op
    if negated:
        if p not in COMPLEMENTS:
            raise ValueError(f"(not ({p} ...)) has no STRIPS counterpart; only {', '.join(COMPLEMENTS)} do")
        return f"({COMPLEMENTS[p]} {args[0]})"
    if p in ("inside", "ontop", *STATE_PREDICATES, *ABILITY_PREDICATES) or (p == "=" and not strips):
        return f"({p} {' '.join(args)})"
    if p in ("human-holding", "robot-holding"):
        return f"(holding {'h' if p == 'human-holding' else 'robot'} {args[0]})"
    if p == "hand-empty":
        return "(hand-empty robot)"
    for prefix in ("type-", "subclass-", "class-", "size-", "color-"):
        if p.startswith(prefix):
            return f"(is {args[0]} {_label(p[len(prefix):])})"
    raise ValueError(f"({p} ...) has no counterpart in the PDDL domain")


def _goal_pddl(f: Formula, strips: bool) -> str:
    if f.op in ("and", "or"):
        return f"({f.op} {' '.join(_goal_pddl(p, strips) for p in f.parts)})"
    if f.op == "not":
        inner = f.parts[0]
        if inner.op in COMPLEMENTS and not inner.parts:
            return _atom(inner, strips, negated=True)
        return f"(not {_goal_pddl(inner, strips)})"
    if f.op in ("exists", "forall"):
        bound = " ".join(f"{v} - object" for v in f.variables)
        return f"({f.op} ({bound}) {_goal_pddl(f.parts[0], strips)})"
    return _atom(f, strips)


# --- the planner -----------------------------------------------------------------------------------


def _disjuncts(f: Formula) -> list[list[Formula]]:
    """A ground goal of and / or / (negated) atoms as a disjunction of conjunctions."""
    if f.op == "or":
        return [c for p in f.parts for c in _disjuncts(p)]
    if f.op == "and":
        result: list[list[Formula]] = [[]]
        for p in f.parts:
            result = [r + c for r in result for c in _disjuncts(p)]
        return result
    if f.op in ("exists", "forall") or any(a.startswith("?") for a in f.args):
        raise ValueError("pyperplan takes ground goals only: no exists / forall")
    return [[f]]


def _relevant(state: HmtState, atoms: list[Formula]) -> set[str]:
    catalog = handmethat_catalog()
    atoms_named = [(a.parts[0] if a.op == "not" else a) for a in atoms]
    named = {x for a in atoms_named for x in a.args if x in state.things}
    keep = named | set(state.robot.held) | set(state.human.held)
    ops = {a.op for a in atoms_named}
    if "sliced" in ops:
        keep |= {n for n, t in state.things.items() if t.type in catalog.slices}
    if ops & {"dusty", "stained"}:
        keep |= {
            n
            for n, t in state.things.items()
            if t.type in catalog.cleaning_tools and any(state[x].category.cleaned_by(t.type) for x in named)
        }
    return keep


def solve_with_planner(state: HmtState, goal: Formula | str, timeout: float = 60.0) -> list[HmtAction]:
    """pyperplan's robot plan for a ground goal (the shortest over its disjuncts), as engine actions."""
    tree = parse(goal) if isinstance(goal, str) else goal
    best: list[HmtAction] | None = None
    reasons = []
    for atoms in _disjuncts(tree):
        text = _goal_pddl(Formula("and", tuple(atoms)), strips=True)
        problem = _problem_text(state, _kept(state, _relevant(state, atoms)), text, ("robot",))
        try:
            steps = run_pyperplan(domain_text(), problem, timeout)
        except PlannerError as e:
            reasons.append(str(e))
            continue
        actions = [to_action(name, args) for name, args in steps]
        if best is None or len(actions) < len(best):
            best = actions
    if best is None:
        raise PlannerError("; ".join(reasons))
    return best


def to_action(name: str, args: tuple[str, ...]) -> HmtAction:
    """One step of a plan (`pick-up-at-location--inside robot pad-0 cabinet`) as the engine's action."""
    agent, rest = args[0], [engine_name(a) for a in args[1:]]
    verb = name.split("--")[0]
    if verb in ("bring-to-human", "take-from-human"):
        rest.append(HUMAN)
    return HmtAction(f"{'robot' if agent == 'robot' else 'human'}-{verb}", tuple(rest))
