"""The human's planner towards a hidden goal, and the cut of its plan where the robot starts watching.

Their generator plans the human subgoal by subgoal, in a random order, each from where the last left the
world (`human_subplans`), with greedy best-first search and an FF-style heuristic. Here each formula is
first grounded into the literals it needs (`requirements`: a witness for each `exists`, the
one needing fewest changes, the first in file order among equals, never a thing the grounding already
keeps or puts elsewhere; every instance of a `forall`), and each literal is reached with the expert's
recipes run for the human (`handmethat_expert._Planner` with agent "human": fetch, open or close, turn on
or off, put in or on, slice, soak, heat, cool, clean). State changes come before placements, so cleaning
or soaking a thing does not take it out of where the goal wants it, a thing in hand is placed before
another is fetched, and closing comes last; the formula is checked at the end and the grounding redone
(a few rounds) if a later step undid an earlier one. Every action is stepped in the engine, so the plan
is valid; goals whose literals no recipe reaches (a thing made not sliced, not cooked, ...; the robot's
hands) or whose scene lacks what they need (a tool that cleans a bathtub, a candle for each chair) are
reported as `Unrecoverable` and the generator samples another goal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from homesim.planning.alfred.expert import Unrecoverable
from homesim.planning.handmethat.expert import _Planner
from homesim.tasks.handmethat.formula import Formula, compile_formula, guard, holds, parse
from homesim.world.handmethat import HmtAction, HmtState, step

Literal = tuple[bool, str, tuple[str, ...]]  # (wanted true?, predicate, things)
# atoms whose truth the human's actions change; every other atom (type, class, ability, colour) is fixed
DYNAMIC = frozenset(
    ("inside", "ontop", "open", "toggled", "cooked", "frozen", "sliced", "soaked", "dusty", "stained")
)
RELATIONS = ("inside", "ontop")
Claims = dict[str, tuple[str, str]]
SWITCHES = ("open", "toggled")  # reached both ways (open or close, on or off)
CHANGES = {"sliced": "slice", "soaked": "soak", "cooked": "heat", "frozen": "cool"}  # reached only when wanted true
ROUNDS = 3  # groundings tried before a goal counts as out of the recipes' reach


def requirements(f: Formula, state: HmtState, env: dict[str, str] | None = None) -> list[Literal] | None:
    """The unmet ground literals that would make `f` true, or None when fixed facts make it false (or
    no grounding keeps each thing in one place)."""
    return _needs(f, state, env or {}, {})


def _needs(f: Formula, state: HmtState, env: dict[str, str], claims: Claims) -> list[Literal] | None:
    """`requirements`, with `claims` (thing -> the relation and parent the grounding so far keeps it in or
    puts it in) updated by the choices made: an `exists` witness or `or` branch whose things are claimed
    elsewhere is not taken, so a `forall`'s instances (every basket gets a candle) take distinct things."""
    if f.op == "and":
        out: list[Literal] = []
        for part in sorted(f.parts, key=lambda p: _dynamic(p)):  # fixed facts first: they fail fast
            need = _needs(part, state, env, claims)
            if need is None:
                return None
            out += need
        return list(dict.fromkeys(out))  # a literal several parts need counts once
    if f.op == "or":
        return _cheapest(((part, env) for part in f.parts), state, claims)
    if f.op in ("exists", "forall"):
        bindings = (env | dict(zip(f.variables, b)) for b in _bindings(f, state))
        if f.op == "exists":
            return _cheapest(((f.parts[0], e) for e in bindings), state, claims)
        out = []
        for e in bindings:
            need = _needs(f.parts[0], state, e, claims)
            if need is None:
                return None
            out += need
        return list(dict.fromkeys(out))
    positive = f.op != "not"
    atom = f if positive else f.parts[0]
    if atom.op in ("and", "or", "exists", "forall", "not"):
        raise Unrecoverable(f"a negated compound formula is beyond the human's planner: {f}")
    true = compile_formula(atom)(state, env)
    args = tuple(env.get(a, a) for a in atom.args)
    if positive and atom.op in RELATIONS:
        claim = claims.get(args[0])
        if claim is not None and claim != (atom.op, args[1]):
            return None
        claims[args[0]] = (atom.op, args[1])
        return [] if true else [(True, atom.op, args)]
    if true == positive:
        return []
    if atom.op not in DYNAMIC:
        return None
    return [(positive, atom.op, args)]


def _cheapest(options, state: HmtState, claims: Claims) -> list[Literal] | None:
    """The option (formula, variables) needing fewest changes, the first among equals; its claims kept."""
    best, kept = None, None
    for part, env in options:
        trial = dict(claims)
        need = _needs(part, state, env, trial)
        if need is not None and (best is None or len(need) < len(best)):
            best, kept = need, trial
            if not need:
                break
    if kept is not None:
        claims.update(kept)
    return best


def _dynamic(f: Formula) -> bool:
    if f.op in ("and", "or", "not", "exists", "forall"):
        return any(_dynamic(p) for p in f.parts)
    return f.op in DYNAMIC


def _bindings(f: Formula, state: HmtState):
    """The things a quantifier's variable can take that can matter: those of the type or subclass its
    body requires (`handmethat_formula.guard`), else every thing."""
    if len(f.variables) != 1:
        raise Unrecoverable(f"the human's planner binds one variable at a time: {f}")
    kind = guard(f)
    return ((n,) for n in (state.of_kind(*kind) if kind else state.things))


def _reach(planner: _Planner, literal: Literal) -> None:
    positive, predicate, args = literal
    if predicate in RELATIONS and positive:
        obj, target = args
        if planner.state[target].category.holds_inside != (predicate == "inside"):
            raise Unrecoverable(f"{target} takes things {'on top' if predicate == 'inside' else 'inside'}")
        planner.obtain(obj)
        planner.place(obj, target)
    elif predicate in ("dusty", "stained") and not positive:
        planner.clean(args[0])
    elif predicate in SWITCHES:
        planner.switch(args[0], predicate, positive)
    elif predicate in CHANGES and positive:
        planner.change(args[0], CHANGES[predicate])
    else:
        raise Unrecoverable(f"no recipe makes ({'' if positive else 'not '}{predicate} {' '.join(args)})")


def _stage(literal: Literal) -> int:
    """When a literal is reached: state changes first (so cleaning, soaking or slicing a thing does not
    take it out of where the goal wants it), then placements, then closing (a container closed before
    it is filled would be opened again)."""
    positive, predicate, _ = literal
    if predicate == "open" and not positive:
        return 2
    return 1 if predicate in RELATIONS else 0


def human_plan(goal: str, state: HmtState) -> list[HmtAction]:
    """Human actions from `state` that make the goal true; `Unrecoverable` when none is found."""
    planner = _Planner(state, "human")
    _plan(planner, goal)
    return planner.actions


def human_subplans(subgoals: Sequence[str], state: HmtState, rng: random.Random) -> list[tuple[str, list[HmtAction]]]:
    """Their `solve_goal`: the subgoals in a random order, each with the human's plan for it from where
    the plans before it left the world (empty when it already holds there). As theirs, a later plan may
    undo what an earlier one did: the parts are not checked to make the whole goal true together.
    `Unrecoverable` when a subgoal has no plan."""
    order = list(subgoals)
    rng.shuffle(order)
    planner = _Planner(state, "human")
    parts = []
    for subgoal in order:
        done = len(planner.actions)
        _plan(planner, subgoal)
        parts.append((subgoal, planner.actions[done:]))
    return parts


def _plan(planner: _Planner, goal: str) -> None:
    """Extend the planner's actions until `goal` holds; `Unrecoverable` when the recipes cannot."""
    formula = parse(goal)
    for _ in range(ROUNDS):
        need = requirements(formula, planner.state)
        if need is None:
            raise Unrecoverable("fixed facts of the scene make the goal false")
        if not need:
            return
        held = set(planner.me.held)  # a thing in hand is placed first, not set down to fetch another
        for literal in sorted(need, key=lambda lit: (_stage(lit), lit[2][0] not in held)):
            _reach(planner, literal)
        if holds(formula, planner.state):
            return
    raise Unrecoverable(f"the goal still fails after {ROUNDS} rounds of the human's recipes")


def forall_starts(parts: Sequence[tuple[str, Sequence[HmtAction]]]) -> frozenset[int]:
    """The steps where a `forall` subgoal's part of the plan begins: their generator never stops the
    human there (it would stop between the things a `forall` names)."""
    starts, t = set(), 0
    for subgoal, actions in parts:
        if actions and "forall" in subgoal:
            starts.add(t)
        t += len(actions)
    return frozenset(starts)


def cut_at(
    plan: Sequence[HmtAction], state: HmtState, start: int, keep_going: frozenset[int] = frozenset()
) -> int | None:
    """Where their generator stops the human once it has drawn `start`: the first step T >= start (T
    actions done, T < L) at which the human's hand is empty and T is not in `keep_going`
    (`forall_starts`), so a stretch with something in hand runs on to its end, past L - 4 if need be.
    The cut stands when at least 3 actions are done and 2 are left (their generator rejects the scene
    otherwise): None when it does not."""
    length = len(plan)
    for t, action in enumerate(plan):
        if t >= start and state.human.hand_empty and t not in keep_going:
            return t if t >= 3 and length - t >= 2 else None
        state, event = step(state, action)
        if not event.success:
            raise ValueError(f"the human's action {t}, {action}, fails: {event.message}")
    return None  # the hand never emptied before the end: nothing would be left to do


def cut_plan(
    plan: Sequence[HmtAction], state: HmtState, rng: random.Random, keep_going: frozenset[int] = frozenset()
) -> int | None:
    """Their cut: `start` uniform in [(L-4)/2, L-4) (floored, as numpy's randint floors a float low),
    then `cut_at`; None for plans under 5 actions (their start is 0 there, which leaves fewer than 3
    actions done)."""
    length = len(plan)
    if length < 5:
        return None
    return cut_at(plan, state, rng.randrange((length - 4) // 2, length - 4), keep_going)
