"""The FF heuristic for HandMeThat's human (Hoffmann and Nebel's h_FF, as their generator computes it):
the length of a relaxed plan, read back from the relaxed planning graph of the human's actions towards
the goal, ignoring what the actions undo.

The task is grounded once per goal, scene and set of relevant things (`planning.handmethat_relevance`:
their generator grounds the human's operators over those alone) and then asked of any state:

- facts: where the human stands, its hand empty, what it holds, each relevant thing in or on each
  relevant place, and each Boolean state both ways (`open` and `not-open`, as their STRIPS compilation
  keeps a negated literal as a fact of its own);
- operators: the human's actions of homesim's engine (`world.handmethat.dynamics`, their domain's
  preconditions), each with its preconditions as alternatives (their `or`s: in or on, a closed place
  opened) and the facts it adds;
- the goal formula grounded over the things, fixed facts folded in (`exists` an `or` of its instances,
  `forall` an `and`), atoms about things outside the task taken as they are in the grounding state.

h(state): layer k+1 adds the facts of every operator whose preconditions hold in layer k, until the
goal holds (infinite if the layers stop growing first). The relaxed plan is extracted backwards as
theirs is: the goal's facts (an `or` taken by its first true part) are needed at the layer each first
appears; going down the layers, an operator of layer t is taken, in operator order, when it adds a fact
still needed at t+1, and its preconditions (its first alternative that held at t) become needed where
they first appeared. h_FF is the number of operators taken. Where their code's order is that of a
Python set (a simple disjunction's witness, operators of one schema), homesim takes the things' order.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator

import numpy as np

from homesim.tasks.handmethat_formula import Formula, compile_formula, guard, parse
from homesim.world.handmethat.actions import HmtAction
from homesim.world.handmethat.catalog import BOOLEAN_STATES, handmethat_catalog
from homesim.world.handmethat.state import INSIDE, ONTOP, HmtState, Thing

TRUE, IGNORED = 0, 1  # fact ids: one always true (pads preconditions), one nothing needs (pads effects)
Fact = tuple[str, ...]
Node = "int | bool | tuple[str, tuple[Node, ...]]"  # a fact id, a constant, or ("and" | "or", parts)


class RelaxedTask:
    """The human's relaxed planning task towards `goal` over the relevant `things` of `state` (their
    parents and the human's location are added, so every relevant thing can be reached)."""

    def __init__(self, goal: str, state: HmtState, things: Collection[str]):
        self._facts: dict[Fact, int] = {("true",): TRUE, ("ignored",): IGNORED}
        relevant = set(things) | {state.human.at}
        for name in list(relevant):
            parent = state[name].parent
            while parent is not None:
                relevant.add(parent)
                parent = state[parent].parent
        self.things = [n for n in state.things if n in relevant]  # file order
        self.actions: list[HmtAction] = []
        variants: list[tuple[int, list[int]]] = []
        adds: list[list[int]] = []
        for action, alternatives, added in _operators(state, self.things):
            op = len(self.actions)
            self.actions.append(action)
            variants += [(op, [self._id(f) for f in pre]) for pre in alternatives]
            adds.append([self._id(f) for f in added])
        for name in self.things:  # every state both ways, so a state encodes whatever the operators need
            for s in state[name].category.boolean_states:
                self._id((s, name))
                self._id(("not-" + s, name))
        self.goal = _ground(parse(goal), state, set(self.things), self._id, {})
        self._pre = _padded([p for _, p in variants], TRUE)
        self._var_op = np.array([op for op, _ in variants], dtype=np.int64)
        self._add = _padded(adds, IGNORED)
        self._add_sets = [frozenset(a) for a in adds]
        adders: list[list[int]] = [[] for _ in self._facts]
        for op, added in enumerate(adds):
            for f in added:
                adders[f].append(op)
        self._adders = [np.array(a, dtype=np.int64) for a in adders]

    def _id(self, fact: Fact) -> int:
        return self._facts.setdefault(fact, len(self._facts))

    def encode(self, state: HmtState) -> np.ndarray:
        """The facts of the task that hold in the state, as a Boolean vector."""
        facts, true = self._facts, np.zeros(len(self._facts), dtype=bool)
        ids = [TRUE, IGNORED, facts.get(("at", state.human.at), TRUE)]
        if not state.human.held:
            ids.append(facts.get(("hand-empty",), TRUE))
        ids += [facts.get(("holding", h), TRUE) for h in state.human.held]
        for name in self.things:
            t = state[name]
            if t.parent is not None:
                ids.append(facts.get((t.relation, name, t.parent), TRUE))
            ids += [facts[(s if s in t.states else "not-" + s, name)] for s in t.category.boolean_states]
        true[ids] = True
        return true

    def h(self, state: HmtState) -> float:
        """h_FF: the length of the relaxed plan from the state (math.inf when the relaxed goal is out of
        reach)."""
        plan = self._relaxed_plan(state)
        return math.inf if plan is None else float(len(plan))

    def relaxed_plan(self, state: HmtState) -> list[HmtAction] | None:
        """The relaxed plan h_FF counts, layer by layer (None when the relaxed goal is out of reach)."""
        plan = self._relaxed_plan(state)
        return None if plan is None else [self.actions[op] for op in plan]

    def _relaxed_plan(self, state: HmtState) -> list[int] | None:
        true = self.encode(state)
        level = np.where(true, 0, np.iinfo(np.int64).max)
        op_layer = np.full(len(self.actions), -1, dtype=np.int64)
        chosen = np.zeros(len(self.actions), dtype=np.int64)  # the alternative its preconditions took
        k = 0
        while (need := _needs(self.goal, true)) is None:
            held = true[self._pre].all(axis=1) & (op_layer[self._var_op] < 0)
            found = np.flatnonzero(held)
            ops, first = np.unique(self._var_op[found], return_index=True)
            op_layer[ops], chosen[ops] = k, found[first]
            new = np.unique(self._add[ops])
            new = new[~true[new]]
            if not len(new):
                return None
            true[new], level[new] = True, k + 1
            k += 1
        needed: dict[int, set[int]] = {}
        for f in need:
            needed.setdefault(int(level[f]), set()).add(f)
        plan: list[int] = []
        for t in range(k - 1, -1, -1):
            wanted = needed.get(t + 1, set())
            while wanted:
                op = min(int(a[op_layer[a] == t][0]) for a in (self._adders[f] for f in wanted))
                plan.append(op)
                wanted -= self._add_sets[op]
                for f in self._pre[chosen[op]]:
                    if f != TRUE and level[f] > 0:
                        needed.setdefault(int(level[f]), set()).add(int(f))
        plan.reverse()
        return plan


def _padded(rows: list[list[int]], pad: int) -> np.ndarray:
    width = max((len(r) for r in rows), default=1) or 1
    out = np.full((len(rows), width), pad, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


# --- the goal ------------------------------------------------------------------------------------------


def _ground(f: Formula, state: HmtState, things: set[str], fact, env: dict[str, str]):
    """The formula over fact ids: constants folded, quantifiers expanded over the things they can bind."""
    if f.op in ("and", "or", "exists", "forall"):
        if f.op in ("exists", "forall"):
            kind = guard(f) if len(f.variables) == 1 else None
            names = state.of_kind(*kind) if kind else tuple(state.things)
            parts = (_ground(f.parts[0], state, things, fact, {**env, f.variables[0]: n}) for n in names)
            op = "or" if f.op == "exists" else "and"
        else:
            parts, op = (_ground(p, state, things, fact, env) for p in f.parts), f.op
        decisive = op == "or"  # the constant that decides the whole
        kept = []
        for p in parts:
            if p is decisive:
                return decisive
            if p is not (not decisive):
                kept.append(p)
        if not kept:
            return not decisive
        return kept[0] if len(kept) == 1 else (op, tuple(kept))
    negated = f.op == "not"
    atom = f.parts[0] if negated else f
    if atom.parts:
        raise ValueError(f"the FF heuristic takes negation of atoms only, not {f}")
    args = tuple(env.get(a, a) for a in atom.args)
    key = _fact_of(atom.op, args, negated, things, state)
    if key is None:
        return compile_formula(f)(state, env)  # fixed for the task: as in the grounding state
    return fact(key)


def _fact_of(predicate: str, args: tuple[str, ...], negated: bool, things: set[str], state: HmtState) -> Fact | None:
    if not args or args[0] not in things:
        return None
    if predicate in (INSIDE, ONTOP) and not negated:
        return (predicate, *args)
    if predicate in BOOLEAN_STATES and predicate in state[args[0]].category.boolean_states:
        return ("not-" + predicate if negated else predicate, args[0])
    if predicate == "human-holding" and not negated:
        return ("holding", args[0])
    if predicate in (INSIDE, ONTOP, "human-holding"):
        raise ValueError(f"the FF heuristic has no fact for (not ({predicate} {' '.join(args)}))")
    return None


def _needs(node, true: np.ndarray) -> list[int] | None:
    """The facts that make the goal hold in the layer (an `or` by its first true part), or None."""
    if node is True:
        return []
    if node is False:
        return None
    if isinstance(node, int):
        return [node] if true[node] else None
    op, parts = node
    if op == "or":
        for p in parts:
            found = _needs(p, true)
            if found is not None:
                return found
        return None
    out: list[int] = []
    for p in parts:
        found = _needs(p, true)
        if found is None:
            return None
        out += found
    return out


# --- the human's operators -----------------------------------------------------------------------------

Op = tuple[HmtAction, list[list[Fact]], list[Fact]]  # the action, its alternative preconditions, its adds


def _within(thing: Thing, place: Thing) -> list[list[Fact]]:
    """The alternatives for `thing` being reachable in or on `place` (their `(or (and (inside o p) (or
    (not (openable p)) (open p))) (ontop o p))`)."""
    c, out = place.category, []
    if c.holds_inside:
        out.append([(INSIDE, thing.name, place.name), *([("open", place.name)] if c.openable else [])])
    if c.holds_ontop:
        out.append([(ONTOP, thing.name, place.name)])
    return out


def _cleaners(target: Thing, movables: list[Thing]) -> Iterator[tuple[Thing, list[Fact]]]:
    for tool in movables:
        if target.category.cleaned_by(tool.type) and tool.name != target.name:
            yield tool, [("holding", tool.name), *([("soaked", tool.name)] if tool.category.soakable else [])]


def _operators(state: HmtState, names: list[str]) -> Iterator[Op]:
    """The human's actions over the things, in their domain's schema order, things in file order."""
    catalog = handmethat_catalog()
    things = [state[n] for n in names]
    locations = [t for t in things if not t.category.movable]
    movables = [t for t in things if t.category.movable]
    receptacles = [t for t in movables if t.category.cls == "RECEPTACLE"]
    plain = [t for t in movables if not t.category.receptacle]

    def act(verb: str, *args: str) -> HmtAction:
        return HmtAction.known(f"human-{verb}", args)

    for a in locations:
        for b in locations:
            if a is not b:
                yield act("move", a.name, b.name), [[("at", a.name)]], [("at", b.name)]
    empty = ("hand-empty",)
    for o in movables:
        for loc in locations:
            pre = [[("at", loc.name), empty, *w] for w in _within(o, loc)]
            yield act("pick-up-at-location", o.name, loc.name), pre, [("holding", o.name)]
    for o in plain:
        for r in receptacles:
            for loc in locations:
                pre = [[("at", loc.name), empty, *a, *b] for a in _within(o, r) for b in _within(r, loc)]
                yield act("pick-up-from-receptacle-at-location", o.name, r.name, loc.name), pre, [("holding", o.name)]
    for relation, can in ((INSIDE, "holds_inside"), (ONTOP, "holds_ontop")):
        for o in movables:
            for loc in (x for x in locations if getattr(x.category, can)):
                door = [("open", loc.name)] if relation == INSIDE and loc.category.openable else []
                pre = [[("at", loc.name), ("holding", o.name), *door]]
                yield act(f"put-{relation}-location", o.name, loc.name), pre, [(relation, o.name, loc.name), empty]
    for relation, can in ((INSIDE, "holds_inside"), (ONTOP, "holds_ontop")):
        for o in plain:
            for r in (x for x in receptacles if getattr(x.category, can)):
                door = [("open", r.name)] if relation == INSIDE and r.category.openable else []
                for loc in locations:
                    pre = [[("at", loc.name), ("holding", o.name), *door, *w] for w in _within(r, loc)]
                    verb = f"put-{relation}-receptacle-at-location"
                    yield act(verb, o.name, r.name, loc.name), pre, [(relation, o.name, r.name), empty]
    for verb, state_name, on in (("open", "open", True), ("close", "open", False),
                                 ("toggle-on", "toggled", True), ("toggle-off", "toggled", False)):  # fmt: skip
        before, after = ("not-" + state_name, state_name) if on else (state_name, "not-" + state_name)
        ability = "openable" if state_name == "open" else "toggleable"
        for loc in (x for x in locations if getattr(x.category, ability)):
            yield act(f"{verb}-location", loc.name), [[("at", loc.name), (before, loc.name)]], [(after, loc.name)]
        noun = "receptacle" if state_name == "open" else "movable"
        for o in (x for x in movables if getattr(x.category, ability)):
            for loc in locations:
                pre = [[("at", loc.name), (before, o.name), *w] for w in _within(o, loc)]
                yield act(f"{verb}-{noun}-at-location", o.name, loc.name), pre, [(after, o.name)]
    for o in (x for x in plain if x.category.cookable):
        for loc in (x for x in locations if x.type in catalog.heats):
            pre = [[empty, ("at", loc.name), ("toggled", loc.name), (rel, o.name, loc.name)] for rel in (INSIDE, ONTOP)]
            effects = [("cooked", o.name), ("not-toggled", loc.name), ("not-frozen", o.name)]
            yield act("heat-obj", o.name, loc.name), pre, effects
    for o in (x for x in plain if x.category.freezable):
        for loc in (x for x in locations if x.type in catalog.cools):
            pre = [[empty, ("at", loc.name), (INSIDE, o.name, loc.name), ("toggled", loc.name)]]
            yield act("cool-obj", o.name, loc.name), pre, [("frozen", o.name), ("not-cooked", o.name)]
    knives = [x for x in movables if x.type in catalog.slices]
    for o in (x for x in plain if x.category.sliceable):
        for k in knives:
            for loc in locations:
                pre = [[("holding", k.name), ("at", loc.name), (ONTOP, o.name, loc.name)]]
                yield act("slice-obj", o.name, k.name, loc.name), pre, [("sliced", o.name)]
    for o in (x for x in plain if x.category.soakable):
        for loc in (x for x in locations if x.type in catalog.soaks):
            pre = [[("at", loc.name), (INSIDE, o.name, loc.name), ("toggled", loc.name)]]
            yield act("soak-obj", o.name, loc.name), pre, [("soaked", o.name), ("not-toggled", loc.name)]
    for o in (x for x in movables if x.category.dirtiable):
        clean = [("not-" + s, o.name) for s in ("dusty", "stained") if s in o.category.boolean_states]
        for tool, holding in _cleaners(o, movables):
            for loc in locations:
                pre = [[("at", loc.name), *w, *holding] for w in _within(o, loc)]
                yield act("clean-obj-at-location", o.name, tool.name, loc.name), pre, clean
    for loc in (x for x in locations if x.category.dirtiable):
        clean = [("not-" + s, loc.name) for s in ("dusty", "stained") if s in loc.category.boolean_states]
        for tool, holding in _cleaners(loc, movables):
            yield act("clean-location", tool.name, loc.name), [[("at", loc.name), *holding]], clean


def ff_distance(goal: str, state: HmtState, things: Collection[str]):
    """The goal distance h_FF as a function of a state (the task grounded once, at `state`)."""
    return RelaxedTask(goal, state, things).h
