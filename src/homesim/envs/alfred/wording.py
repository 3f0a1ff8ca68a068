"""What the text game says and which commands it understands, in ALFWorld's words, per ALFWorld version.

ALFWorld's TextWorld grammar (`alfred.twl2`) changed between releases: 0.3 puts with `put X in/on Y`
("You put the X in/on the Y.") and arrives at a numbered location ("You arrive at loc 12. On the
countertop 1, ..."); 0.4 moves with `move X to Y` ("You move the X to the Y.") and arrives at the
receptacle ("You arrive at countertop 1. On the countertop 1, ..."). Everything else is the same in both:
the opening text starts `-= Welcome to TextWorld, ALFRED! =-`, every noun takes "a" ("a apple 1"), a
list has a comma before its "and" even with two items, `examine` says "This is a hot and clean X.".
A game speaks one version throughout: its feedback, its admissible commands and what it parses.

Where homesim differs: slicing answers as ALFWorld does ("You sliced the X with the Y.") but, as in
ALFRED, the object becomes its pieces (`applesliced 1`, ...), while ALFWorld keeps the object and marks
it sliced; `help` exists in both versions (ALFWorld 0.3 had none).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from homesim.tasks.alfred import AlfredGoal

VERSIONS = ("0.3", "0.4")
LATEST = "0.4"
WELCOME = "-= Welcome to TextWorld, ALFRED! =-"
NOTHING = "Nothing happens."
NAME = r"([a-z]+ \d+)"

# examine's answer for an object: the first rule whose facts all hold (ALFWorld's grammar order)
_EXAMINE_RULES = (
    ({"clean", "hot", "sliced"}, "This is a hot and clean sliced {}."),
    ({"clean", "cool", "sliced"}, "This is a cool and clean sliced {}."),
    ({"clean", "sliced"}, "This is a clean sliced {}."),
    ({"hot", "sliced"}, "This is a hot sliced {}."),
    ({"cool", "sliced"}, "This is a cool sliced {}."),
    ({"clean", "hot"}, "This is a hot and clean {}."),
    ({"clean", "cool"}, "This is a cool and clean {}."),
    ({"hot"}, "This is a hot {}."),
    ({"clean"}, "This is a clean {}."),
    ({"cool"}, "This is a cold {}."),
    ({"on"}, "This {} is on."),
    ({"off"}, "This {} is off."),
    ({"sliced"}, "This is a sliced {}."),
    (set(), "There's nothing special about {}."),
)


def listing(names: Sequence[str]) -> str:
    """ALFWorld's list: "a cabinet 1, a apple 2, and a mug 1", "a box 1, and a box 2", or "nothing"."""
    items = [f"a {n}" for n in names]
    if len(items) < 2:
        return items[0] if items else "nothing"
    return ", ".join(items[:-1]) + ", and " + items[-1]


def goal_sentence(goal: AlfredGoal) -> str:
    """ALFWorld's templated task description of an ALFRED goal."""
    words = {k: getattr(goal, k).lower() for k in ("object_target", "parent_target", "toggle_target", "mrecep_target")}
    obj = goal.target_class.lower() if goal.object_sliced else words["object_target"]
    parent = words["parent_target"]
    return {
        "pick_and_place_simple": f"put some {obj} on {parent}",
        "pick_two_obj_and_place": f"put two {obj} in {parent}",
        "look_at_obj_in_light": f"look at {obj} under the {words['toggle_target']}",
        "pick_clean_then_place_in_recep": f"put a clean {obj} in {parent}",
        "pick_heat_then_place_in_recep": f"put a hot {obj} in {parent}",
        "pick_cool_then_place_in_recep": f"put a cool {obj} in {parent}",
        "pick_and_place_with_movable_recep": f"put some {obj} in a {words['mrecep_target']} on {parent}",
    }[goal.task_type]


@dataclass(frozen=True)
class Wording:
    """One ALFWorld version's texts and command forms."""

    version: str

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            raise ValueError(f"alfworld_version={self.version!r}: homesim speaks ALFWorld {' and '.join(VERSIONS)}")

    @property
    def moves(self) -> bool:
        """0.4's `move X to Y`, rather than 0.3's `put X in/on Y`."""
        return self.version != "0.3"

    # --- commands ------------------------------------------------------------------------------

    def put_command(self, obj: str, receptacle: str) -> str:
        return f"move {obj} to {receptacle}" if self.moves else f"put {obj} in/on {receptacle}"

    @property
    def commands(self) -> tuple[tuple[str, str], ...]:
        """(form, what it does), as `help` lists them."""
        put = ("move (object) to (receptacle)", "put (object) in/on (receptacle)")[not self.moves]
        return (
            ("look", "look around your current location"),
            ("inventory", "check your current inventory"),
            ("go to (receptacle)", "move to a receptacle"),
            ("open (receptacle)", "open a receptacle"),
            ("close (receptacle)", "close a receptacle"),
            ("take (object) from (receptacle)", "take an object from a receptacle"),
            (put, "place an object in or on a receptacle"),
            ("examine (something)", "examine a receptacle or an object"),
            ("use (object)", "use an object"),
            ("heat (object) with (receptacle)", "heat an object using a receptacle"),
            ("clean (object) with (receptacle)", "clean an object using a receptacle"),
            ("cool (object) with (receptacle)", "cool an object using a receptacle"),
            ("slice (object) with (object)", "slice an object using a sharp object"),
        )

    def parse(self, text: object) -> tuple[str, tuple[str, ...]] | None:
        """The verb and object names a command stands for, or None if it is no command of this version."""
        if not isinstance(text, str) or len(text) > MAX_COMMAND:  # (a long one would stay in the cache)
            return None
        return _parse(text, self.moves)

    # --- feedback ------------------------------------------------------------------------------

    def intro(self, places: Sequence[str], task: str) -> str:
        return f"{WELCOME}\n\n{self.middle_of_room(places)}\n\nYour task is to: {task}."

    @staticmethod
    def middle_of_room(places: Sequence[str]) -> str:
        """`look` where no receptacle is: every place at the start, "nothing" when asked later (as ALFWorld)."""
        return f"You are in the middle of a room. Looking quickly around you, you see {listing(places)}."

    def arrive(self, place: str, location: int, description: str) -> str:
        where = place if self.moves else f"loc {location}"
        return f"You arrive at {where}. {description}"

    def put(self, obj: str, receptacle: str) -> str:
        if self.moves:
            return f"You move the {obj} to the {receptacle}."
        return f"You put the {obj} in/on the {receptacle}."

    @staticmethod
    def facing(place: str) -> str:
        return f"You are facing the {place}. Next to it, you see nothing."

    @staticmethod
    def inventory(held: str | None) -> str:
        return "You are not carrying anything." if held is None else f"You are carrying: {listing([held])}."

    @staticmethod
    def examine_object(name: str, facts: set[str]) -> str:
        """`facts` among clean, hot, cool, sliced, on, off."""
        return next(text for needs, text in _EXAMINE_RULES if needs <= facts).format(name)

    @staticmethod
    def receptacle(name: str, contents: Sequence[str], openable: bool, is_open: bool, place: bool) -> str:
        if openable and not is_open:
            return f"The {name} is closed."
        if openable:
            return f"The {name} is open. In it, you see {listing(contents)}."
        if place:
            return f"On the {name}, you see {listing(contents)}."
        return f"This is a normal {name}. In it, you see {listing(contents)}."

    def help(self) -> str:
        width = max(len(form) for form, _ in self.commands) + 2
        return "\nAvailable commands:\n" + "".join(f"  {form + ':':<{width}}{what}\n" for form, what in self.commands)


_VERBS = (
    ("go", rf"go to {NAME}"),
    ("open", rf"open {NAME}"),
    ("close", rf"close {NAME}"),
    ("take", rf"(?:take|pick up) {NAME} from {NAME}"),
    ("use", rf"use {NAME}"),
    ("clean", rf"clean {NAME} with {NAME}"),
    ("heat", rf"heat {NAME} with {NAME}"),
    ("cool", rf"cool {NAME} with {NAME}"),
    ("slice", rf"slice {NAME} with {NAME}"),
    ("examine", rf"examine {NAME}"),
    ("inventory", r"inventory|i"),
    ("look", r"look|l"),
    ("help", r"help"),
)
_PUT = {True: rf"move {NAME} to {NAME}", False: rf"put {NAME} (?:in/on|in|on|into|onto) {NAME}"}
_PATTERNS = {
    moves: [(verb, re.compile(pattern + "$")) for verb, pattern in (*_VERBS, ("put", _PUT[moves]))]
    for moves in (True, False)
}


MAX_COMMAND = 256  # characters: the action space's longest text


@functools.lru_cache(maxsize=4096)  # agents say the same few commands again and again
def _parse(text: str, moves: bool) -> tuple[str, tuple[str, ...]] | None:
    text = " ".join(text.lower().strip().rstrip(".!").split())
    for verb, pattern in _PATTERNS[moves]:
        match = pattern.match(text)
        if match:
            return verb, match.groups()
    return None
