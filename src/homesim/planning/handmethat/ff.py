"""The FF heuristic for HandMeThat's human (Hoffmann and Nebel's h_FF, as their generator computes it:
pdsketch's `StripsHFFHeuristic` on the task `generation.py` builds): the length of a relaxed plan, read
back from the relaxed planning graph of the human's actions towards the goal, ignoring what the actions
undo.

The task is grounded once per goal, scene and set of relevant things (`tasks.handmethat.relevance`:
their generator grounds the human's operators over those alone) and then asked of any state:

- facts and operators: the human's actions of homesim's engine over those things, with their
  preconditions as alternatives (their `or`s) and the facts they add (`handmethat_ff_domain`), in the
  order their generator grounds them (the things' order: `Relevance.candidates`);
- the goal formula grounded over the things, fixed facts folded in (`exists` an `or` of its instances,
  `forall` an `and`), atoms about things outside the task taken as they are in the grounding state.
  Their classifiers flatten nested `or`s and put the single facts before the conjunctions, and a set of
  single facts yields whichever of its true facts their Python set gives first (`rng` draws that order;
  without one, the grounding's).

h(state): layer k+1 adds the facts of every operator whose preconditions hold in layer k, until the
goal holds (infinite if the layers stop growing first; theirs returns 1e9). The relaxed plan is
extracted backwards as theirs is: the goal's facts (an `or` taken by its first true part) are needed at
the layer each first appears; going down the layers, an operator of layer t is taken, in operator
order, when it adds a fact still needed at t+1, and its preconditions (its first alternative that held
at t) become needed where they first appeared. h_FF is the number of operators taken. Their relevance
analyses (forward reachability, backward from the goal) only drop operators and facts that cannot
change such a plan.

Which operator comes first among those of a layer that add a needed fact (put the cup in the box where
the box stands, or where it could be brought) decides h_FF, and their order is a Python set's: homesim's
generator draws one per episode (`rng`), as their generator's process has one; without `rng` the
things' order is the scene's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Sequence

import numpy as np

from homesim.planning.handmethat.ff_domain import EMPTY, IGNORED, RELATION, STATE, TRUE, Facts, ground
from homesim.tasks.handmethat.formula import Formula, compile_formula, guard, parse
from homesim.tasks.handmethat.relevance import CLASSES
from homesim.world.handmethat.actions import HmtAction
from homesim.world.handmethat.state import HmtState, Thing

NEVER = np.iinfo(np.int64).max


class RelaxedTask:
    """The human's relaxed planning task towards `goal` over the relevant `things` of `state`, grounded in
    their order when they come as a sequence (`Relevance.candidates`), else by class in the scene's
    order; where the human stands and what holds a thing are added at the end (never needed on their
    episodes: the human moves relevant things among relevant places). `rng` draws the order their Python
    sets give the goal's single facts."""

    def __init__(self, goal: str, state: HmtState, things: Collection[str], rng: random.Random | None = None):
        order = list(things) if isinstance(things, Sequence) else _by_class(state, things)
        known = set(order)
        for name in [state.human.at, *order]:
            while name is not None:
                if name not in known:
                    order.append(name)
                    known.add(name)
                name = state[name].parent
        self.things = order
        self._index = {n: i for i, n in enumerate(self.things)}
        self._facts = Facts(len(self.things))
        self._operators = ground(state, self.things)
        self.goal = _in_their_order(_ground(parse(goal), state, self._fact_of, {}), rng)
        add = self._operators.add
        self._adders = _index_by_fact(add, IGNORED, self._facts.count)  # fact -> operators adding it
        self._add_sets = [frozenset(a.tolist()) for a in add]
        self._pre_columns = [np.ascontiguousarray(c) for c in self._operators.pre.T]  # a column at a time is fast
        self._known = [state[n] for n in self.things]  # each thing's facts, kept while a state shares it
        self._known_facts = [self._facts_of(i, t) for i, t in enumerate(self._known)]

    def __len__(self) -> int:
        """The number of grounded operators."""
        return len(self._operators.add)

    def _fact_of(self, predicate: str, args: tuple[str, ...], negated: bool) -> int | None:
        """The fact of a goal atom about the task's things (None: the atom is fixed for the task)."""
        i = self._index.get(args[0]) if args else None
        if i is None:
            return None
        if predicate in RELATION and not negated:  # a place outside the task: nothing gets there
            place = self._index.get(args[1])
            return None if place is None else self._facts.related(RELATION[predicate], i, place)
        if predicate in STATE:
            return self._facts.state(predicate, i, negated)
        if predicate == "human-holding" and not negated:
            return self._facts.holding(i)
        if predicate in (*RELATION, "human-holding"):
            raise ValueError(f"the FF heuristic has no fact for (not ({predicate} {' '.join(args)}))")
        return None

    def _facts_of(self, i: int, t: Thing) -> list[int]:
        """The facts about one thing: where it lies and its Boolean states."""
        f, index = self._facts, self._index
        out = [f.related(RELATION[t.relation], i, index[t.parent])] if t.parent in index else []
        return out + [f.state(s, i, s not in t.states) for s in t.category.boolean_states]

    def encode(self, state: HmtState) -> np.ndarray:
        """The facts of the task that hold in the state, as a Boolean vector."""
        f, index = self._facts, self._index
        ids = [TRUE, IGNORED] + ([f.at(index[state.human.at])] if state.human.at in index else [])
        if not state.human.held:
            ids.append(EMPTY)
        ids += [f.holding(index[h]) for h in state.human.held if h in index]
        for i, name in enumerate(self.things):
            t = state.things[name]
            ids += self._known_facts[i] if t is self._known[i] else self._facts_of(i, t)
        true = np.zeros(f.count, dtype=bool)
        true[ids] = True
        return true

    def applicable(self, state: HmtState) -> list[HmtAction]:
        """The operators whose preconditions hold in the state: the engine's actions of the human over the
        task's things (what tests/test_handmethat_ff.py checks)."""
        ops, true = self._operators, self.encode(state)
        able = np.unique(ops.alternative_op[true[ops.pre].all(axis=1)])
        return [ops.action(int(op), self.things) for op in able]

    def h(self, state: HmtState) -> float:
        """h_FF: the length of the relaxed plan from the state (math.inf when the relaxed goal is out of
        reach)."""
        plan = self._relaxed_plan(state)
        return math.inf if plan is None else float(len(plan))

    def relaxed_plan(self, state: HmtState) -> list[HmtAction] | None:
        """The relaxed plan h_FF counts, layer by layer (None when the relaxed goal is out of reach)."""
        plan = self._relaxed_plan(state)
        return None if plan is None else [self._operators.action(op, self.things) for op in plan]

    def _relaxed_plan(self, state: HmtState) -> list[int] | None:
        ops = self._operators
        true = self.encode(state)
        level = np.where(true, 0, NEVER)
        op_layer = np.full(len(ops.add), -1, dtype=np.int64)
        chosen = np.zeros(len(ops.add), dtype=np.int64)  # the alternative its preconditions took
        k = 0
        while (need := _needs(self.goal, true)) is None:
            holds = op_layer[ops.alternative_op] < 0
            for column in self._pre_columns:
                holds &= true[column]
            held = np.flatnonzero(holds)
            owner = ops.alternative_op[held]  # ascending: an operator's alternatives are consecutive
            first = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1]))) if len(owner) else owner
            fired = owner[first]
            op_layer[fired], chosen[fired] = k, held[first]
            added = np.zeros_like(true)
            added[ops.add[fired]] = True
            new = np.flatnonzero(added & ~true)
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
            while wanted:  # their scan of the layer's operators in order, taking each that adds a wanted fact
                op = min(self._first_adder(fact, t, op_layer) for fact in wanted)
                plan.append(op)
                wanted -= self._add_sets[op]
                for f in ops.pre[chosen[op]].tolist():
                    if level[f] > 0:
                        needed.setdefault(int(level[f]), set()).add(f)
        plan.reverse()
        return plan

    def _first_adder(self, fact: int, t: int, op_layer: np.ndarray) -> int:
        """The first operator (in operator order) of layer t that adds the fact: their extraction scans a
        layer's operators in order and takes each that adds a needed fact. Not FF's easiest achiever,
        which would put the cup in the box where the box stands when their order puts it elsewhere."""
        starts, rows = self._adders
        adders = rows[starts[fact] : starts[fact + 1]]
        return int(adders[op_layer[adders] == t][0])


def _index_by_fact(rows: np.ndarray, pad: int, facts: int) -> tuple[np.ndarray, np.ndarray]:
    """fact -> the rows holding it, as (starts, rows) (CSR), the padding left out."""
    row, col = np.nonzero(rows != pad)
    fact = rows[row, col]
    order = np.argsort(fact, kind="stable")  # rows ascending within a fact
    starts = np.zeros(facts + 1, dtype=np.int64)
    np.cumsum(np.bincount(fact, minlength=facts), out=starts[1:])
    return starts, row[order]


# --- the goal ------------------------------------------------------------------------------------------


def _ground(f: Formula, state: HmtState, fact_of: Callable, env: dict[str, str]):
    """The formula over fact ids: constants folded, quantifiers expanded over the things they can bind."""
    if f.op in ("and", "or", "exists", "forall"):
        if f.op in ("exists", "forall"):
            kind = guard(f) if len(f.variables) == 1 else None
            names = state.of_kind(*kind) if kind else tuple(state.things)
            parts = (_ground(f.parts[0], state, fact_of, {**env, f.variables[0]: n}) for n in names)
            op = "or" if f.op == "exists" else "and"
        else:
            parts, op = (_ground(p, state, fact_of, env) for p in f.parts), f.op
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
    if atom.op in STATE and args and args[0] in state.things and atom.op not in state[args[0]].category.boolean_states:
        return compile_formula(f)(state, env)  # a state the thing cannot have
    fact = fact_of(atom.op, args, negated)
    return compile_formula(f)(state, env) if fact is None else fact


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


def _by_class(state: HmtState, things: Collection[str]) -> list[str]:
    """Things given as a set, in their generator's class order (locations, receptacles, food, tools,
    things), the scene's order within a class."""
    rank = {c: i for i, c in enumerate(CLASSES)}
    return sorted((n for n in state.things if n in things), key=lambda n: rank[state[n].category.cls])


def _in_their_order(node, rng: random.Random | None):
    """The goal as their classifiers compose it: nested `and`s and `or`s flattened, an `or`'s single facts
    first (in an order `rng` draws, as their set's), then its conjunctions in order."""
    if not isinstance(node, tuple):
        return node
    op, parts = node
    flat: list = []
    for p in (_in_their_order(p, rng) for p in parts):
        flat += p[1] if isinstance(p, tuple) and p[0] == op else [p]
    if op == "or":
        facts = [p for p in flat if not isinstance(p, tuple)]
        if rng is not None:
            rng.shuffle(facts)
        flat = facts + [p for p in flat if isinstance(p, tuple)]
    return (op, tuple(flat))


def ff_distance(
    goal: str, state: HmtState, things: Collection[str], rng: random.Random | None = None
) -> Callable[[HmtState], float]:
    """The goal distance h_FF as a function of a state (the task grounded once, at `state`)."""
    return RelaxedTask(goal, state, things, rng).h
