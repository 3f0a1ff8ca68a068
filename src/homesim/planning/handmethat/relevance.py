"""Which things a HandMeThat goal makes relevant, by their generator's rules (`goal_utils.update_rel_types`
and `update_rel_targets`), read off the goal formula:

- every kind the goal names (`type-T`, `subclass-S`, a constant) is an *x* (the thing placed or changed)
  or a *y* (what it is placed in or on: the second argument of `inside` / `ontop`);
- the *relevant things* (their `rel_types`, over which the human's operators are grounded): the things
  of each named kind and, for a type T, of the subclass of T's first thing `T#0`, with their parents and
  grandparents in the scene, plus the floor; a goal about slicing adds the knives, about dust or stains
  the sink and the cloths and scrub brushes, about cooking the microwave, oven and stove, about freezing
  the refrigerator (their list). homesim adds the sink for soaking, which their goals only ask together
  with stains;
- the *movable targets* (`rel_targets["MOVABLE"]`): the robot's helps their generator values by the FF
  heuristic; every other help gets the human's remaining steps: the things of an x kind (and its
  subclass) and of a y kind that are not locations.
"""

from __future__ import annotations

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
    "soaked": ((), ("sink",)),
}
RELATIONS = ("inside", "ontop")
Kind = tuple[str, str]  # ("type", T), ("subclass", S) or ("name", a thing's name)


@dataclass(frozen=True)
class Relevance:
    things: frozenset[str]  # their rel_types: the human's operators range over these
    movable_targets: frozenset[str]  # their rel_targets["MOVABLE"]: the helps valued by the FF heuristic


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
    """The goal's relevant things and movable targets in the scene (their generator reads them off the
    initial scene)."""
    xs, ys = named_kinds(goal)
    things: set[str] = {"floor"} & set(scene.things)
    for kind in (*xs, *ys):
        for name in _members(kind, scene, with_subclass=True):
            things.add(name)
            parent = scene[name].parent
            for _ in range(2):  # parent and grandparent
                if parent is None:
                    break
                things.add(parent)
                parent = scene[parent].parent
    targets = {n for k in xs for n in _members(k, scene, with_subclass=True)}
    targets |= {n for k in ys for n in _members(k, scene, with_subclass=False)}
    movable = frozenset(n for n in targets if scene[n].category.movable)
    return Relevance(frozenset(things), movable)
