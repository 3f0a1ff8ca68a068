"""HandMeThat's initial scenes (supplement A.1): one of each of the 16 locations, then for each subclass
some of its types (at least one), each with 1 to 3 things, placed by the sampling space (their
`object_sample_space.txt`, as data in `world/data/handmethat_sample_space.json`) at a location or in or
on a receptacle already placed (each listed location one option, and each listed receptacle name that
is a type, as their code matches names to types: so things start in packages, trays and buckets, never
in a `bag` or `utensil`, about 6.5% of them, as in their 24 samples), with the initial-state rules:
cooked at the oven,
stove or microwave, frozen in the refrigerator, the refrigerator on, everything closed, dusty and stained
each with probability 1/3, colour and size uniform. Robot and human start on the floor, hands empty.

How many types of a subclass are present and how many things a type has are not in the paper; the
weights come from the 24 authors' samples (data file), so the scenes have their 207-266 things. As in their
sampler, cloths, cleaning tools and cutlery are always there in all their types (`EVERY_TYPE`).
"""

from __future__ import annotations

import json
import random
from functools import cache
from importlib import resources

from homesim.world.handmethat.catalog import COLORS, SIZES, Category, handmethat_catalog
from homesim.world.handmethat.state import INSIDE, ONTOP, Agent, HmtState, Thing

START = "floor"
# subclasses whose every type is in every scene, as their sampler draws them (`num_of_types = 3`): their robot
# cleans with the first thing of each cleaning type (`rag#0`, `broom#0`, ...) and slices with `knife#0`, and
# their text env cannot be built on a scene that lacks one
EVERY_TYPE = frozenset({"piece_of_cloth", "cleaning_tool", "cutlery"})


@cache
def sample_space() -> dict:
    return json.loads(resources.files("homesim.world").joinpath("data/handmethat_sample_space.json").read_text())


def _relation(holder: Category) -> str:
    return INSIDE if holder.holds_inside else ONTOP


def sample_scene(rng: random.Random) -> HmtState:
    """A seeded initial scene: the same generator state gives the same scene."""
    catalog, space = handmethat_catalog(), sample_space()
    counts = [int(k) for k in space["count_weights"]]
    weights = list(space["count_weights"].values())
    by_subclass: dict[str, list[Category]] = {}
    for c in catalog.categories.values():
        if c.movable:
            by_subclass.setdefault(c.subclass, []).append(c)
    chosen: list[Category] = []  # one entry per thing
    for subclass, types in by_subclass.items():
        if subclass in EVERY_TYPE:
            present = types
        else:
            present = [c for c in types if rng.random() < space["type_present"]] or [rng.choice(types)]
        for c in present:
            chosen += [c] * rng.choices(counts, weights)[0]
    # receptacles first, so things can go in or on them
    placed: dict[str, tuple[str, str]] = {}  # name -> (parent, relation)
    placed_of: dict[str, list[str]] = {}  # type -> the things of it placed, in order
    names: dict[Category, list[str]] = {}
    for c in sorted(chosen, key=lambda c: c.cls != "RECEPTACLE"):
        name = f"{c.type}#{len(names.setdefault(c, []))}"
        names[c].append(name)
        rule = space["positions"][c.subclass]
        # each listed location is one option, and each listed receptacle name that is also a type with a thing
        # placed (their code compares the listed names with types: `bag` or `utensil` never match)
        holders = {sub: placed_of.get(sub, []) for sub in rule["receptacles"]}
        parent = rng.choice([*rule["locations"], *(sub for sub, things in holders.items() if things)])
        if parent in holders:
            parent = rng.choice(holders[parent])
        holder = catalog[parent.split("#")[0]] if "#" in parent else catalog[parent]
        placed[name] = (parent, _relation(holder))
        placed_of.setdefault(c.type, []).append(name)
    things = {loc: _thing(catalog[loc], loc, None, None, rng) for loc in catalog.locations}
    order = [n for c in catalog.categories.values() for n in names.get(c, ())]  # their files' order
    for name in order:
        things[name] = _thing(catalog[name.split("#")[0]], name, *placed[name], rng)
    things = _initial_states(things)
    return HmtState(things, Agent(START), Agent(START))


def _thing(c: Category, name: str, parent: str | None, relation: str | None, rng: random.Random) -> Thing:
    p = sample_space()["dirty_probability"]
    states = {s for s in ("dusty", "stained") if s in c.boolean_states and rng.random() < p}
    color = rng.choice(COLORS) if c.can("has-color") else None
    size = rng.choice(SIZES) if c.can("has-size") else None
    return Thing(name, c, frozenset(states), size, color, parent, relation)


def _initial_states(things: dict[str, Thing]) -> dict[str, Thing]:
    """Cooked where things cook, frozen where they freeze, the listed locations on."""
    space = sample_space()
    cooked = {tuple(x) for x in space["cooked_at"]}
    frozen = {tuple(x) for x in space["frozen_at"]}
    out = {}
    for name, t in things.items():
        states = set(t.states)
        if t.parent is not None:
            top = t.parent if "#" not in t.parent else things[t.parent].parent
            relation = t.relation if top == t.parent else things[t.parent].relation
            if (relation, top) in cooked and t.category.cookable:
                states.add("cooked")
            if (relation, top) in frozen and t.category.freezable:
                states.add("frozen")
        if name in space["toggled_locations"] and t.category.toggleable:
            states.add("toggled")
        out[name] = Thing(t.name, t.category, frozenset(states), t.size, t.color, t.parent, t.relation)
    return out
