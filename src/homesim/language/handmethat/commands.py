"""The robot's commands in HandMeThat's text game (their text env's grammar) and the robot actions they
stand for, both ways: `parse` reads a command, `command` writes the one for an action (admissible
commands, the expert's next command).

    move to LOCATION | move to human        pick up X [from RECEPTACLE]
    put X into/onto LOCATION/RECEPTACLE     give X to human | take X from human
    open/close LOCATION/RECEPTACLE          toggle on/off X
    heat X | cool X | soak X                slice X with TOOL | clean X with TOOL
    look | examine | inventory | help | stop | question: ...

A thing is named by its label ("pad 0") or, when it is the only one of its type, by its type ("ball").
As in their env, the location an action happens at is the robot's own; which schema a command means
(a location's or a receptacle's open, put, toggle, clean) follows from the class of the thing named,
and naming a thing of the wrong class, or no thing, is not understood. Unlike theirs, which reads only
the verb and the last word of each part ("move quickly to the cabinet" moves), a command must be one of
the forms above (case, spacing and a final full stop aside).
"""

from __future__ import annotations

import re
from functools import lru_cache

from homesim.language.handmethat.text import Names
from homesim.world.handmethat.actions import HmtAction
from homesim.world.handmethat.state import HUMAN, HmtState

OBSERVE = ("look", "examine", "inventory")  # commands that only read the world
META = (*OBSERVE, "help", "stop")
QUESTION = "question:"
NAME = r"([a-z_]+(?: \d+)?)"
_PATTERNS = [
    (verb, re.compile(pattern + "$"))
    for verb, pattern in (
        ("move", rf"move to {NAME}"),
        ("pick-from", rf"pick up {NAME} from {NAME}"),
        ("pick", rf"pick up {NAME}"),
        ("put-inside", rf"put {NAME} into {NAME}"),
        ("put-ontop", rf"put {NAME} onto {NAME}"),
        ("give", rf"give {NAME} to human"),
        ("take", rf"take {NAME} from human"),
        ("open", rf"open {NAME}"),
        ("close", rf"close {NAME}"),
        ("toggle-on", rf"toggle on {NAME}"),
        ("toggle-off", rf"toggle off {NAME}"),
        ("heat", rf"heat {NAME}"),
        ("cool", rf"cool {NAME}"),
        ("soak", rf"soak {NAME}"),
        ("slice", rf"slice {NAME} with {NAME}"),
        ("clean", rf"clean {NAME} with {NAME}"),
    )
]


def normal(text: str) -> str:
    """Lower case, single spaces, no final full stop."""
    return " ".join(text.lower().split()).rstrip(".").strip()


MAX_COMMAND = 256  # characters: the action space's longest text


@lru_cache(maxsize=4096)  # agents say the same few commands again and again
def _match(text: str) -> tuple[str, tuple[str, ...]] | None:
    for verb, pattern in _PATTERNS:
        found = pattern.match(text)
        if found:
            return verb, found.groups()
    return None


def parse(text: str, state: HmtState, names: Names) -> HmtAction | str | None:
    """The robot action a command stands for, a meta command ("look", "question: ...", ...), or None when
    it is not understood (no such command, no such thing, a thing of the wrong class)."""
    if len(text) > MAX_COMMAND:  # no command is this long (and a long one would stay in the cache)
        return None
    said = normal(text)
    if said in META or said.startswith(QUESTION):
        return said
    matched = _match(said)
    if matched is None:
        return None
    verb, words = matched
    things = [HUMAN if w == HUMAN else names.by_label.get(w) or names.unique.get(w) for w in words]
    if None in things:
        return None
    return _action(verb, things, state)


def _action(verb: str, things: list, state: HmtState) -> HmtAction | None:
    at = state.robot.at

    def cls(name: str) -> str | None:
        return state.things[name].category.cls if name in state.things else None

    def robot(schema: str, *args: str) -> HmtAction:
        return HmtAction(f"robot-{schema}", args)

    first = things[0]
    if verb == "move":
        return robot("move", at, first)
    if verb == "pick":
        return robot("pick-up-at-location", first, at)
    if verb == "pick-from":
        return robot("pick-up-from-receptacle-at-location", first, things[1], at)
    if verb in ("put-inside", "put-ontop"):
        where = things[1]
        relation = verb.split("-")[1]
        if cls(where) == "LOCATION":
            return robot(f"put-{relation}-location", first, where)
        return robot(f"put-{relation}-receptacle-at-location", first, where, at) if cls(where) == "RECEPTACLE" else None
    if verb == "give":
        return robot("bring-to-human", first, HUMAN)
    if verb == "take":
        return robot("take-from-human", first, HUMAN)
    if verb in ("open", "close"):
        if cls(first) == "LOCATION":
            return robot(f"{verb}-location", first)
        return robot(f"{verb}-receptacle-at-location", first, at) if cls(first) == "RECEPTACLE" else None
    if verb in ("toggle-on", "toggle-off"):
        if cls(first) == "LOCATION":
            return robot(f"{verb}-location", first)
        return robot(f"{verb}-movable-at-location", first, at)
    if verb in ("heat", "cool", "soak"):
        return robot(f"{verb}-obj", first, at)
    if verb == "slice":
        return robot("slice-obj", first, things[1], at)
    # clean
    if cls(first) == "LOCATION":
        return robot("clean-location", things[1], first)
    return robot("clean-obj-at-location", first, things[1], at)


def command(action: HmtAction, names: Names) -> str:
    """The command that asks for a robot action: "pick up pad 0 from box 1", "move to human"."""
    verb, args = action.verb, action.args
    n = [a if a == HUMAN else names.command_label(a) for a in args]
    if verb == "move":
        return f"move to {n[1]}"
    if verb == "pick-up-at-location":
        return f"pick up {n[0]}"
    if verb == "pick-up-from-receptacle-at-location":
        return f"pick up {n[0]} from {n[1]}"
    if verb.startswith("put-"):
        return f"put {n[0]} {'into' if verb.startswith('put-inside') else 'onto'} {n[1]}"
    if verb == "bring-to-human":
        return f"give {n[0]} to human"
    if verb == "take-from-human":
        return f"take {n[0]} from human"
    if verb.startswith(("open-", "close-")):
        return f"{verb.split('-')[0]} {n[0]}"
    if verb.startswith("toggle-"):
        return f"toggle {verb.split('-')[1]} {n[0]}"
    if verb in ("heat-obj", "cool-obj", "soak-obj"):
        return f"{verb[:-4]} {n[0]}"
    if verb == "slice-obj":
        return f"slice {n[0]} with {n[1]}"
    if verb == "clean-obj-at-location":
        return f"clean {n[0]} with {n[1]}"
    return f"clean {n[1]} with {n[0]}"  # clean-location (tool, location)
