"""The text game's state as ALFWorld's facts: TextWorld-style propositions in the predicate names of
ALFWorld's PDDL domain (`alfred.pddl`, lower-cased as ALFWorld's TextWorld engine reports them), which
ALFWorld's hand-coded expert reads (`holds agent1 apple 1`, `inreceptacle apple 1 countertop 1`,
`ishot apple 1`, ...). Facts are privileged: they describe everything, closed receptacles' contents too.

The agent is `agent1`; places and objects go by their text names; a place's location is ALFWorld 0.3's
`loc N`. `isclean`, `ishot`, `iscool` are ALFRED's history sets (what its goals read); `istoggled` and
`ison` hold while a device is on; `inreceptacle` relates an object to the place the text lists it at (an
object in a bowl is in the bowl's receptacle too, and `inreceptacleobject` the bowl).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from homesim.envs.alfred.text import AlfredTextEnv

AGENT = "agent1"
_HISTORY = {"clean": "isclean", "hot": "ishot", "cool": "iscool", "sliced": "issliced"}


@dataclass(frozen=True)
class Proposition:
    """A fact: a predicate over named things (TextWorld's `Proposition.name` and `.names`)."""

    name: str
    names: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.names)})"


def facts(env: AlfredTextEnv) -> list[Proposition]:
    """Every fact of the env's current state, in a fixed order (places, then objects, by name)."""
    found: list[Proposition] = []

    def fact(name: str, *names: str) -> None:
        found.append(Proposition(name, names))

    n, state, catalog = env.names, env.state, env.catalog
    loc = {p: f"loc {k}" for p, k in env.location_numbers.items()}
    if env.location is not None:
        fact("atlocation", AGENT, loc[env.location])
    if env.held is not None:
        fact("holdsany", AGENT)
        fact("holds", AGENT, n[env.held])
    for place in env.locations:
        c, o = catalog[state.objects[place].cls], state.objects[place]
        fact("receptacleatlocation", n[place], loc[place])
        if c.openable:
            fact("openable", n[place])
            if o.is_open:
                fact("opened", n[place])
    for object_id in sorted(state.objects, key=lambda i: n[i]):
        if object_id in env.locations:
            continue
        place, o, c = env.place_of(object_id), state.objects[object_id], catalog[state.objects[object_id].cls]
        if place is None and object_id != env.held:
            continue  # a part of a fixed appliance (a faucet): not a thing of the text game
        name = n[object_id]
        if place is not None:
            fact("objectatlocation", name, loc[place])
            fact("inreceptacle", name, n[place])
            if o.parent is not None and o.parent != place:
                fact("inreceptacleobject", name, n[o.parent])
        for affordance in ("pickupable", "toggleable", "sliceable", "cleanable", "heatable", "coolable"):
            if getattr(c, affordance):
                fact(affordance, name)
        if c.pickupable and c.receptacle:
            fact("isreceptacleobject", name)
        for word in sorted(env.object_facts(object_id)):
            if word in _HISTORY:
                fact(_HISTORY[word], name)
            elif word == "on":
                fact("istoggled", name)
                fact("ison", name)
    return found
