"""Object classes and what they afford, as data (ALFRED's 108 AI2-THOR classes plus their sliced pieces).

Code asks the catalog capability questions (`can_pickup`, `can_contain`, ...) instead of comparing
class names, so a new class or a new catalog (HandMeThat's) needs no code change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

COOLS, HEATS, CLEANS = "cools contents when closed", "heats contents when on", "cleans the nearest basin when on"
EFFECTS = (COOLS, HEATS, CLEANS)
# classes whose AI2-THOR position is on their door, not their centre (a cabinet's box lies behind it)
DOOR_AT_POSITION = frozenset({"Cabinet"})


@dataclass(frozen=True)
class ObjectClass:
    """One object class and its affordances; `size` is [x, y, z] in metres."""

    name: str
    pickupable: bool
    receptacle: bool
    openable: bool
    toggleable: bool
    sliceable: bool
    cleanable: bool
    heatable: bool
    coolable: bool
    size: tuple[float, float, float]
    starts_open: bool = False
    pivot: str = "bottom"  # where AI2-THOR's position of the object sits: "bottom", "centre" or "top"
    effect: str | None = None  # one of EFFECTS: what ALFRED tracks when it is closed or turned on
    basin: bool = False  # a sink basin: what a faucet turned on cleans
    slices: bool = False  # a cutting tool: SliceObject needs one in hand
    sliced_class: str | None = None  # what slicing makes (AppleSliced for Apple)
    slice_count: int = 0
    sliced_from: str | None = None


@dataclass(frozen=True)
class Catalog:
    classes: dict[str, ObjectClass]
    compatibility: dict[str, frozenset[str]]  # receptacle class -> classes that may be put in/on it
    room_types: dict[str, tuple[int, int]]  # ALFRED room type -> floor plan number range
    task_room_types: dict[str, tuple[str, ...]]
    agent: dict[str, float]

    def __getitem__(self, name: str) -> ObjectClass:
        try:
            return self.classes[name]
        except KeyError:
            raise KeyError(f"unknown object class {name!r}") from None

    def can_contain(self, receptacle: str, obj: str) -> bool:
        return obj in self.compatibility.get(receptacle, ())

    def room_type_of_floor_plan(self, number: int) -> str:
        for room, (lo, hi) in self.room_types.items():
            if lo <= number <= hi:
                return room
        raise ValueError(f"floor plan {number} is in none of ALFRED's room ranges {self.room_types}")


@cache
def alfred_catalog() -> Catalog:
    raw = json.loads(resources.files("homesim.world").joinpath("data/alfred_catalog.json").read_text())
    classes = {name: ObjectClass(name=name, **{**c, "size": tuple(c["size"])}) for name, c in raw["classes"].items()}
    unknown = {c.effect for c in classes.values()} - {None, *EFFECTS}
    if unknown:
        raise ValueError(f"alfred_catalog.json: unknown effects {sorted(unknown)}; known: {EFFECTS}")
    return Catalog(
        classes=classes,
        compatibility={k: frozenset(v) for k, v in raw["receptacle_compatibility"].items()},
        room_types={k: tuple(v) for k, v in raw["room_types"].items()},
        task_room_types={k: tuple(v) for k, v in raw["task_room_types"].items()},
        agent=raw["agent"],
    )
