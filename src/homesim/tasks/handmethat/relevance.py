"""Which things a HandMeThat goal makes relevant, by their generator's rules (`goal_utils.update_rel_types`
and `update_rel_targets`, gathered by `goal_sampling.Goal`), read off the goal formula:

- every kind the goal names (`type-T`, `subclass-S`, a constant) is an *x* (the thing placed or changed)
  or a *y* (what it is placed in or on: the second argument of `inside` / `ontop`);
- the *relevant things* (their `rel_types`, over which the human's operators are grounded): the things
  of each named kind and, for a type T, of the subclass of T's first thing `T#0`, with their parents and
  grandparents in the scene, plus the floor; a goal about slicing adds the knives, about dust or stains
  the sink and the cloths and scrub brushes, about cooking the microwave, oven and stove, about freezing
  the refrigerator (their list; their goals that soak also clean, so the sink is there too);
- the *movable targets* and *positions* (`rel_targets["MOVABLE"]`, `["POSITION"]`): the things of an x
  kind (and its subclass) and of a y kind that are not locations; the locations of an x kind and all the
  things of a y kind. Their generator values by the FF heuristic only the helps whose thing has a
  target's name *in* its own (`Relevance.valued`, their `str.find`: `pan#0` makes `saucepan#0` one, `pad#1`
  makes `pad#10` one); the robot's other helps over relevant things get the human's remaining steps.

Their generator keeps each class's relevant things as `list(set(...))`, so the order in which it grounds
the human's operators over them, which decides the FF heuristic's relaxed plan, is that of a Python set
of strings: a new order in each run of their generator (`Relevance.candidates` draws one).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from homesim.tasks.handmethat.formula import Formula, guard, parse
from homesim.world.handmethat.state import HmtState

# goal predicate -> the kinds (as x) and locations (as y) their generator then adds
EXTRA = {
    "sliced": (("knife",), ()),
    "dusty": (("rag", "dishtowel", "hand_towel", "scrub_brush"), ("sink",)),
    "stained": (("rag", "dishtowel", "hand_towel", "scrub_brush"), ("sink",)),
    "cooked": ((), ("microwave", "oven", "stove")),
    "frozen": ((), ("refrigerator",)),
}
CLASSES = ("LOCATION", "RECEPTACLE", "FOOD", "TOOL", "THING")  # their rel_types, in their operators' order
RELATIONS = ("inside", "ontop")
Kind = tuple[str, str]  # ("type", T), ("subclass", S) or ("name", a thing's name)


@dataclass(frozen=True)
class Relevance:
    things: frozenset[str]  # their rel_types and the floor: the human's operators and robot's helps range over these
    movable_targets: frozenset[str]  # their rel_targets["MOVABLE"]
    positions: frozenset[str] = frozenset()  # their rel_targets["POSITION"]
    floor_added: bool = True  # the floor is no relevant thing's place: their generator appends it last

    def valued(self, name: str) -> bool:
        """Whether their generator values the robot's help with this thing by the FF heuristic (their
        `get_robot_operators_upon_goal`): a target's name occurs in the thing's name (a location's, a
        position's)."""
        return any(t in name for t in (self.movable_targets if "#" in name else self.positions))

    def names_position(self, place: str) -> bool:
        """Whether a move_to help's destination is valued (a position's name occurs in it), as theirs."""
        return any(t in place for t in self.positions)

    def candidates(self, scene: HmtState, rng: random.Random | None = None) -> tuple[str, ...]:
        """The relevant things in the order their generator grounds operators over them: each class's list
        (locations, receptacles, food, tools, things), in the scene's order or, given `rng`, in a random
        order as their `list(set(...))` makes it, the floor last when it was appended."""
        out: list[str] = []
        for cls in CLASSES:
            names = [n for n, t in scene.things.items() if n in self.things and t.category.cls == cls]
            appended = cls == "LOCATION" and self.floor_added and "floor" in names
            if appended:
                names.remove("floor")
            if rng is not None:
                rng.shuffle(names)
            out += names + ["floor"] * appended
        return tuple(out)


def named_kinds(goal: str) -> tuple[list[Kind], list[Kind]]:
    """The kinds the goal names as x and as y (in the order they first appear); a variable's kind is the
    type or subclass its quantifier requires."""
    atoms: list[tuple[Formula, dict[str, Kind]]] = []

    def walk(f: Formula, scope: dict[str, Kind]) -> None:
        if f.op in ("exists", "forall"):
            kind = guard(f) if len(f.variables) == 1 else None
            scope = {**scope, f.variables[0]: kind} if kind else scope
        if f.parts:
            for part in f.parts:
                walk(part, scope)
        else:
            atoms.append((f, scope))

    walk(parse(goal), {})
    xs: list[Kind] = []
    ys: list[Kind] = []

    def add(arg: str, scope: dict[str, Kind], into: list[Kind]) -> None:
        kind = scope.get(arg) if arg.startswith("?") else ("name", arg)
        if kind is not None and kind not in xs and kind not in ys:
            into.append(kind)

    for a, scope in atoms:
        if a.op in RELATIONS:
            add(a.args[0], scope, xs)
            add(a.args[1], scope, ys)
    for a, scope in atoms:  # a thing whose state the goal sets, placed nowhere (their x_state_x)
        if a.op not in RELATIONS and len(a.args) == 1:
            add(a.args[0], scope, xs)
    for predicate, (extra_x, extra_y) in EXTRA.items():
        if any(a.op == predicate for a, _ in atoms):
            xs += [("type", t) for t in extra_x if ("type", t) not in xs]
            ys += [("name", n) for n in extra_y if ("name", n) not in ys]
    return xs, ys


def _members(kind: Kind, scene: HmtState, with_subclass: bool) -> list[str]:
    """The things of the kind, and for a type, of the subclass of its first thing (their `T#0`)."""
    key, value = kind
    if key == "name":
        return [value] if value in scene.things else []
    found = list(scene.of_kind(key, value))
    first = scene.things.get(f"{value}#0")
    if key == "type" and with_subclass and first is not None:
        found += [n for n in scene.of_kind("subclass", first.category.subclass) if n not in found]
    return found


def relevance(goal: str, scene: HmtState) -> Relevance:
    """The goal's relevant things, movable targets and positions in the scene (their generator reads them
    off the initial scene)."""
    xs, ys = named_kinds(goal)
    things: set[str] = set()
    for kind in (*xs, *ys):
        for name in _members(kind, scene, with_subclass=True):
            things.add(name)
            parent = scene[name].parent
            for _ in range(2):  # parent and grandparent
                if parent is None:
                    break
                things.add(parent)
                parent = scene[parent].parent
    floor_added = "floor" not in things
    x_things = {n for k in xs for n in _members(k, scene, with_subclass=True)}
    y_things = {n for k in ys for n in _members(k, scene, with_subclass=False)}
    movable = frozenset(n for n in x_things | y_things if scene[n].category.movable)
    positions = frozenset(n for n in x_things if not scene[n].category.movable) | frozenset(y_things)
    things |= {"floor"} & set(scene.things)  # their generator adds it to the locations
    return Relevance(frozenset(things), movable, positions, floor_added)
