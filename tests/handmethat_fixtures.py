"""A small HandMeThat world written by hand, in the authors' object-dict form: the 16 locations and a few
things chosen to exercise every action (a box and a closed package to nest things in, food, a knife,
a rag, a toggleable printer)."""

from __future__ import annotations

from homesim.datasets.handmethat.files import state_from_object_dict
from homesim.world.handmethat import HmtState, handmethat_catalog
from homesim.world.handmethat.catalog import STATE_ABILITY


def thing(type_name: str, states: dict | None = None, **place: str) -> dict:
    c = handmethat_catalog()[type_name]
    return {
        "class": c.cls,
        "subclass": c.subclass,
        "type": type_name,
        "ability": sorted(c.abilities),
        **place,
        "states": states or {},
    }


def small_object_dict() -> dict:
    objects = {}
    for loc in handmethat_catalog().locations:
        c = handmethat_catalog()[loc]
        states = {s: False for s in ("open", "toggled", "dusty", "stained") if c.can(STATE_ABILITY[s])}
        objects[loc] = thing(loc, states)
    objects["floor"]["states"]["dusty"] = True
    objects["box#0"] = thing("box", {"open": False, "dusty": False, "color": "red", "size": "small"}, ontop="table")
    package = {"open": False, "dusty": True, "color": "blue", "size": "large"}
    objects["package#0"] = thing("package", package, inside="cabinet")
    objects["pad#0"] = thing("pad", {"dusty": True}, inside="package#0")
    objects["pad#1"] = thing("pad", {"dusty": False}, ontop="sofa")
    objects["apple#0"] = thing("apple", {"cooked": False, "frozen": False, "sliced": False}, ontop="countertop")
    objects["beef#0"] = thing("beef", {"cooked": False, "frozen": False, "sliced": False}, inside="refrigerator")
    objects["knife#0"] = thing("knife", ontop="countertop")
    objects["rag#0"] = thing("rag", {"soaked": False}, inside="sink")
    objects["printer#0"] = thing("printer", {"toggled": False}, ontop="shelf")
    objects["tray#0"] = thing("tray", {"dusty": False, "size": "large"}, ontop="table")
    objects["cookie#0"] = thing("cookie", {"cooked": False, "frozen": False}, ontop="tray#0")
    return objects


def small_world() -> HmtState:
    return state_from_object_dict("small world", "objects", small_object_dict())
