"""The human's actions of HandMeThat as a grounded STRIPS task for the FF heuristic (`handmethat_ff`):
the facts over a set of things and every action of the human over them with its preconditions (as
alternatives: their `or`s) and the facts it adds, grounded with numpy a schema at a time (a task over
60 things has thousands of operators, and the generator grounds one per episode).

Facts are numbered by arithmetic over the things' indices (`Facts`): where the human stands, its hand
empty, what it holds, each thing in or on each other, and each Boolean state both ways (`open` and
`not-open`: their STRIPS compilation keeps a negated literal as a fact of its own). Preconditions and
effects are those of homesim's engine (`world.handmethat.dynamics`, their domain's), schemas in their
domain's order, arguments in the things' order (their `generate_relevant_partially_grounded_actions`:
itertools.product over each argument's candidates, the things given in their order), each argument over
the classes their `ACTION_ARGS` allow: heating, cooling and slicing take food, soaking and a cleaning
tool and a switched thing are tools, what is cleaned a receptacle or a thing.

A precondition "o in or on p" is their `or` of the two; which of them their classifier tries first
never matters, as no place holds things both in and on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from homesim.world.handmethat.actions import SHARED, HmtAction
from homesim.world.handmethat.catalog import BOOLEAN_STATES, handmethat_catalog
from homesim.world.handmethat.state import HmtState

TRUE, IGNORED, EMPTY = 0, 1, 2  # always true (pads preconditions), needed by nothing (pads effects), hand empty
STATE = {s: i for i, s in enumerate(BOOLEAN_STATES)}
RELATION = {"inside": 0, "ontop": 1}


@dataclass(frozen=True)
class Facts:
    """The numbering of the facts over `n` things."""

    n: int

    def at(self, x):
        return 3 + x

    def holding(self, x):
        return 3 + self.n + x

    def related(self, relation: int, thing, place):
        return 3 + 2 * self.n + (relation * self.n + thing) * self.n + place

    def state(self, name: str, x, negated=False):
        return 3 + 2 * self.n + 2 * self.n * self.n + (2 * STATE[name] + int(negated)) * self.n + x

    @property
    def count(self) -> int:
        return 3 + 2 * self.n + 2 * self.n * self.n + 2 * len(STATE) * self.n


@dataclass
class Operators:
    """Grounded operators: `pre` (alternatives x width, fact ids, padded with TRUE), `alternative_op`
    (the operator of each alternative; an operator's alternatives are consecutive, in their order),
    `add` (operators x width, padded with IGNORED), and each schema's block for naming operators."""

    pre: np.ndarray
    alternative_op: np.ndarray
    add: np.ndarray
    blocks: list[tuple[int, str, tuple[np.ndarray, ...]]]  # first operator, schema, argument indices

    def action(self, op: int, names: list[str]) -> HmtAction:
        start, verb, args = max((b for b in self.blocks if b[0] <= op), key=lambda b: b[0])
        return HmtAction.known(f"human-{verb}", tuple(names[int(a[op - start])] for a in args))


def ground(state: HmtState, names: list[str]) -> Operators:
    """The human's operators over the named things of the state, in their generator's order for things
    given in its order."""
    catalog, f = handmethat_catalog(), Facts(len(names))
    cats = [state[n].category for n in names]

    def flag(test) -> np.ndarray:
        return np.array([bool(test(c)) for c in cats], dtype=bool)

    loc, movable = flag(lambda c: not c.movable), flag(lambda c: c.movable)
    is_food, is_tool, is_thing = (flag(lambda c, k=k: c.cls == k) for k in ("FOOD", "TOOL", "THING"))
    rec, plain = flag(lambda c: c.cls == "RECEPTACLE"), flag(lambda c: c.movable and not c.receptacle)
    inside, ontop, openable = flag(lambda c: c.holds_inside), flag(lambda c: c.holds_ontop), flag(lambda c: c.openable)
    toggleable, soakable = flag(lambda c: c.toggleable), flag(lambda c: c.soakable)
    has = {s: flag(lambda c, s=s: s in c.boolean_states) for s in ("dusty", "stained")}
    cleans = np.array([[c.dirtiable and t.movable and c.cleaned_by(t.type) for t in cats] for c in cats], dtype=bool)
    np.fill_diagonal(cleans, False)
    idx = np.arange(len(names))

    def where(mask: np.ndarray) -> np.ndarray:
        return idx[mask]

    def door(x: np.ndarray) -> np.ndarray:
        """`open x` where x opens, else nothing to ask."""
        return np.where(openable[x], f.state("open", x), TRUE)

    def within(thing: np.ndarray, place: np.ndarray) -> list[tuple[list, np.ndarray]]:
        """Their `(or (and (inside o p) (or (not (openable p)) (open p))) (ontop o p))`: the alternatives,
        each with where it can hold."""
        in_it = [f.related(0, thing, place), door(place)]
        return [(in_it, inside[place]), ([f.related(1, thing, place)], ontop[place])]

    blocks: list[tuple[str, tuple[np.ndarray, ...], list[tuple[list, np.ndarray]], list]] = []

    def block(verb: str, axes: list[np.ndarray], keep, alternatives, adds) -> None:
        grid = [g.ravel() for g in np.meshgrid(*axes, indexing="ij")] if all(len(a) for a in axes) else []
        if not grid or not len(grid[0]):
            return
        kept = keep(*grid) if keep else np.ones(len(grid[0]), dtype=bool)
        args = tuple(g[kept] for g in grid)
        if len(args[0]):
            blocks.append((verb, args, alternatives(*args), [np.broadcast_to(a(*args), args[0].shape) for a in adds]))

    L, M, R, P = where(loc), where(movable), where(rec), where(plain)
    at, held = f.at, f.holding
    block("move", [L, L], lambda a, b: a != b, lambda a, b: [([at(a)], None)], [lambda a, b: at(b)])
    block("pick-up-at-location", [M, L], None,
          lambda o, lc: [([at(lc), EMPTY, *w], ok) for w, ok in within(o, lc)], [lambda o, lc: held(o)])
    block("pick-up-from-receptacle-at-location", [P, R, L], None,
          lambda o, r, lc: [([at(lc), EMPTY, *w1, *w2], ok1 & ok2)
                            for w1, ok1 in within(o, r) for w2, ok2 in within(r, lc)],
          [lambda o, r, lc: held(o)])  # fmt: skip
    for relation, can in (("inside", inside), ("ontop", ontop)):
        r_id, opened = RELATION[relation], relation == "inside"
        block(f"put-{relation}-location", [M, L], lambda o, lc, can=can: can[lc],
              lambda o, lc, opened=opened: [([at(lc), held(o), door(lc) if opened else TRUE], None)],
              [lambda o, lc, r_id=r_id: f.related(r_id, o, lc), lambda o, lc: EMPTY])  # fmt: skip
    for relation, can in (("inside", inside), ("ontop", ontop)):
        r_id, opened = RELATION[relation], relation == "inside"
        block(f"put-{relation}-receptacle-at-location", [P, R, L], lambda o, r, lc, can=can: can[r],
              lambda o, r, lc, opened=opened: [([at(lc), held(o), door(r) if opened else TRUE, *w], ok)
                                               for w, ok in within(r, lc)],
              [lambda o, r, lc, r_id=r_id: f.related(r_id, o, r), lambda o, r, lc: EMPTY])  # fmt: skip
    switches = (
        ("open", openable, rec, ("open", "close")),
        ("toggled", toggleable, is_tool, ("toggle-on", "toggle-off")),
    )
    for name, able, kind, verbs in switches:
        noun = "receptacle" if name == "open" else "movable"
        for verb, on in zip(verbs, (True, False)):
            block(f"{verb}-location", [where(loc & able)], None,
                  lambda lc, name=name, on=on: [([at(lc), f.state(name, lc, negated=on)], None)],
                  [lambda lc, name=name, on=on: f.state(name, lc, negated=not on)])  # fmt: skip
        for verb, on in zip(verbs, (True, False)):
            block(f"{verb}-{noun}-at-location", [where(kind & able), L], None,
                  lambda o, lc, name=name, on=on: [([at(lc), f.state(name, o, negated=on), *w], ok)
                                                   for w, ok in within(o, lc)],
                  [lambda o, lc, name=name, on=on: f.state(name, o, negated=not on)])  # fmt: skip
    kinds = {"heats": catalog.heats, "cools": catalog.cools, "soaks": catalog.soaks, "slices": catalog.slices}
    appliance = {kind: flag(lambda c, types=types: c.type in types) for kind, types in kinds.items()}
    block("heat-obj", [where(is_food & plain & flag(lambda c: c.cookable)), where(appliance["heats"] & loc)], None,
          lambda o, lc: [([EMPTY, at(lc), f.state("toggled", lc), f.related(r, o, lc)], None) for r in (0, 1)],
          [lambda o, lc: f.state("cooked", o), lambda o, lc: f.state("toggled", lc, True),
           lambda o, lc: f.state("frozen", o, True)])  # fmt: skip
    block("cool-obj", [where(is_food & plain & flag(lambda c: c.freezable)), where(appliance["cools"] & loc)], None,
          lambda o, lc: [([EMPTY, at(lc), f.related(0, o, lc), f.state("toggled", lc)], None)],
          [lambda o, lc: f.state("frozen", o), lambda o, lc: f.state("cooked", o, True)])  # fmt: skip
    block("slice-obj", [where(is_food & plain & flag(lambda c: c.sliceable)), where(is_tool & appliance["slices"]), L],
          None, lambda o, k, lc: [([held(k), at(lc), f.related(1, o, lc)], None)],
          [lambda o, k, lc: f.state("sliced", o)])  # fmt: skip
    block("soak-obj", [where(is_tool & plain & soakable), where(appliance["soaks"] & loc)], None,
          lambda o, lc: [([at(lc), f.related(0, o, lc), f.state("toggled", lc)], None)],
          [lambda o, lc: f.state("soaked", o), lambda o, lc: f.state("toggled", lc, True)])  # fmt: skip

    def cleaned(x):
        return [np.where(has[s][x], f.state(s, x, True), IGNORED) for s in ("dusty", "stained")]

    def wet(tool):
        return np.where(soakable[tool], f.state("soaked", tool), TRUE)

    T = where(is_tool)
    block("clean-obj-at-location", [where(rec | is_thing), T, L], lambda o, tool, lc: cleans[o, tool],
          lambda o, tool, lc: [([at(lc), *w, held(tool), wet(tool)], ok) for w, ok in within(o, lc)],
          [lambda o, tool, lc: cleaned(o)[0], lambda o, tool, lc: cleaned(o)[1]])  # fmt: skip
    block("clean-location", [T, L], lambda tool, lc: cleans[lc, tool],
          lambda tool, lc: [([at(lc), held(tool), wet(tool)], None)],
          [lambda tool, lc: cleaned(lc)[0], lambda tool, lc: cleaned(lc)[1]])  # fmt: skip
    assert [b[0] for b in blocks] == [v for v in SHARED if v in {b[0] for b in blocks}], "schemas out of order"
    return _assemble(blocks)


def _assemble(blocks) -> Operators:
    """Number the operators block by block and stack their alternatives, an operator's consecutive."""
    pres, owners, orders, adds, named = [np.zeros((0, 1), int)], [np.zeros(0, int)], [np.zeros(0, int)], [], []
    start = 0
    for verb, args, alternatives, effects in blocks:
        n = len(args[0])
        ops = start + np.arange(n)
        for order, (columns, ok) in enumerate(alternatives):
            rows = np.stack([np.broadcast_to(c, (n,)) for c in columns], axis=1)
            keep = np.ones(n, dtype=bool) if ok is None else ok
            pres.append(rows[keep])
            owners.append(ops[keep])
            orders.append(np.full(int(keep.sum()), order))
        adds.append(np.stack(effects, axis=1))
        named.append((start, verb, args))
        start += n
    width = max(p.shape[1] for p in pres)
    pre = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=TRUE) for p in pres])
    owner, order = np.concatenate(owners), np.concatenate(orders)
    sort = np.lexsort((order, owner))
    width = max((a.shape[1] for a in adds), default=1)
    padded = [np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=IGNORED) for a in adds]
    add = np.concatenate(padded) if padded else np.zeros((0, width), int)
    return Operators(pre[sort].astype(np.int64), owner[sort].astype(np.int64), add.astype(np.int64), named)
