"""Reading HandMeThat's text game back: what a robot that has only the text can know. The inverse of the
game's wording (`handmethat_text`, `handmethat_speech`): the things a view lists (their type, colour,
size, the states the text shows, what they are directly in or on), the locations the room has, the
human's past actions, and the request as the utterances it can be (`Meaning`s).

A view says of a thing only its visible states: a state it does not name is false when the thing's type
can have it (the catalog says which), so a thing read from the text fits a description exactly as the
world's thing does (`handmethat_utterances.fits`). "the clean one" is said for not dusty and for not
stained alike, so such a request reads as two utterances.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from homesim.language.handmethat.speech import ASKS, OPENERS, UNDONE, VERB_PARTICLE
from homesim.language.handmethat.utterances import VERB_ABILITIES
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat.catalog import BOOLEAN_STATES, COLORS, SIZES, handmethat_catalog
from homesim.world.handmethat.state import INSIDE, ONTOP, Thing

ROOM = re.compile(r"In the room, there is the human, (.*?)\.\n")
LOCATION_VIEW = re.compile(
    r"\nYou see((?: [a-z-]+)*) ([a-z_]+)\.\n((?:(?:In|On) [a-z_]+(?: \d+)? you can see .*?\. )*)"
)
AT = re.compile(r"\nYou are at the ([a-z_]+)\.\n")
CONTENTS = re.compile(r"(In|On) ([a-z_]+(?: \d+)?) you can see (.*?)\. ")
PICKED = re.compile(r"Human picks up the ([a-z_]+ \d+)")
PUT = re.compile(r"Human puts the ([a-z_]+ \d+) (?:into|on) the ([a-z_]+(?: \d+)?)\.")
OPENED = re.compile(r"Human opens the ([a-z_]+(?: \d+)?)[ .]")
REQUEST = re.compile(r"Human stops and says, '(.*)'")
SHOWN = {"toggled-on": ("toggled", True), "toggled-off": ("toggled", False), "closed": ("open", False)}
SAID_FALSE = {word: state for state, word in UNDONE.items()}


def name_of(label: str) -> str:
    """A thing's name from its label: "pad 1" -> "pad#1" (a location's label is its name)."""
    return label.replace(" ", "#")


def read_thing(written: str, parent: str, relation: str) -> Thing:
    """A thing from a listing's entry (" red small closed box 0"), with what it is directly in or on."""
    *words, type_, index = written.split()
    category = handmethat_catalog()[type_]
    color = next((w for w in words if w in COLORS), None)
    size = next((w for w in words if w in SIZES), None)
    shown = {w: True for w in words if w in BOOLEAN_STATES} | dict(SHOWN[w] for w in words if w in SHOWN)
    states = frozenset(s for s in category.boolean_states if shown.get(s, False))
    return Thing(f"{type_}#{index}", category, states, size, color, parent, relation)


@dataclass(frozen=True)
class LocationView:
    """One location as a view shows it: its own states, and (unless it is closed and hidden) the things in
    or on it and in or on the receptacles there, by name."""

    name: str
    states: frozenset[str]
    things: tuple[Thing, ...]
    hidden: bool  # closed, its contents not shown


def read_views(text: str) -> list[LocationView]:
    """Every location a text shows ("You see ... cabinet." and what follows), in its order."""
    views = []
    for found in LOCATION_VIEW.finditer(text):
        words, location, listing = found.group(1).split(), found.group(2), found.group(3)
        things: list[Thing] = []
        for where, holder, entries in CONTENTS.findall(listing):
            if entries == "nothing":
                continue
            relation = INSIDE if where == "In" else ONTOP
            things += [read_thing(e, name_of(holder), relation) for e in entries.split(",")]
        states = frozenset(w for w in words if w in BOOLEAN_STATES) | {"toggled" for w in words if w == "toggled-on"}
        views.append(LocationView(location, states, tuple(things), not listing and "closed" in words))
    return views


def robot_at(text: str) -> str | None:
    """Where a view says the robot is ("You are at the sofa." -> "sofa"), None if it says not."""
    found = AT.search(text)
    return found.group(1) if found else None


def room_locations(text: str) -> list[str]:
    """The locations the opening names ("In the room, there is the human, a countertop, ..."), the floor first."""
    found = ROOM.search(text)
    named = [part.split(" ", 1)[1] for part in found.group(1).split(", ")] if found else []
    return ["floor", *named]


def human_picked(task: str) -> list[str]:
    """The things the human picked up in its past actions, by name, in order."""
    return [name_of(label) for label in PICKED.findall(task)]


def human_put(task: str) -> list[tuple[str, str]]:
    """What the human put where (the thing, the location or receptacle, by name), in order."""
    return [(name_of(thing), name_of(place)) for thing, place in PUT.findall(task)]


def human_opened(task: str) -> list[str]:
    """What the human opened (locations and receptacles, by name), in order."""
    return [name_of(label) for label in OPENED.findall(task)]


def request_sentence(task: str) -> str:
    found = REQUEST.search(task)
    return found.group(1) if found else ""


def read_request(sentence: str, known: Iterable[str] = ()) -> list[Meaning]:
    """The utterances a request can be ("Please put the clean one to the shelf." -> move_to, not dusty or
    not stained, target shelf). A place is named by its sentence name: "the large red package (package
    2)", "the cabinet", or "the large red package" when it is the only package, which is the one package
    among the `known` things' names (unresolved, "package#?", while none is known). [] when the sentence
    is no request of the game."""
    said = sentence.lower().rstrip(".")
    for opener in sorted(OPENERS, key=len, reverse=True):
        if opener and said.startswith(opener):
            said = said[len(opener) :]
            break
    known = list(known)
    ask = next((a for a in ASKS if said.startswith(a)), None)
    if ask is not None:
        return _meanings("bring_me", said[len(ask) :], None, known)
    if said.startswith(("put ", "move ")):
        body = said.split(" ", 1)[1]
        if body.endswith(" over there"):
            return _meanings("move_to", body[: -len(" over there")], None, known)
        if " to the " in body:
            body, target = body.rsplit(" to the ", 1)
            return _meanings("move_to", body, place_named(target, known), known)
    verb, _, body = said.partition(" ")
    if verb not in VERB_ABILITIES:
        return []
    particle = VERB_PARTICLE.get(verb, "").strip()
    if particle and body.startswith(particle + " "):
        body = body[len(particle) + 1 :]
    elif particle and body.endswith(" " + particle):
        body = body[: -len(particle) - 1]
    return _meanings("change_state", body, verb, known)


def _meanings(quest: str, said: str, target: str | None, known: list[str]) -> list[Meaning]:
    if said in ("that", "it"):
        return [Meaning(quest, (), target)]
    if not said.startswith("the "):
        return []
    said = said[len("the ") :]
    position: tuple[tuple[str, object], ...] = ()
    for preposition, relation in ((" in the ", INSIDE), (" on the ", ONTOP)):
        if preposition in said:
            said, where = said.split(preposition, 1)
            position = ((relation, place_named(where, known)),)
            break
    *words, kind = said.replace(",", "").split()
    specifiers: list[list[tuple[str, object]]] = [[]]
    words_left = list(words)
    while words_left:
        word = words_left.pop(0)
        if word == "not" and words_left:
            readings = [(words_left.pop(0), False)]
        elif word == "clean":
            readings = [("dusty", False), ("stained", False)]
        elif word in COLORS or word in SIZES:
            readings = [("color" if word in COLORS else "size", word)]
        else:
            readings = [_state_word(word)]
        specifiers = [s + [r] for s in specifiers for r in readings]
    naming = () if kind == "one" else (_kind(kind),)
    return [Meaning(quest, (*position, *s, *naming), target) for s in specifiers]


def place_named(said: str, known: list[str]) -> str:
    """A place from its sentence name: "large red package (package 2)" -> "package#2", "cabinet" ->
    "cabinet", "large red package" -> the one known package ("package#?" while none is known)."""
    if said.endswith(")"):
        return name_of(said[said.rindex("(") + 1 : -1])
    type_ = said.split()[-1]
    if type_ in handmethat_catalog().locations:
        return type_
    return next((n for n in known if n.split("#")[0] == type_), f"{type_}#?")


def _state_word(word: str) -> tuple[str, bool]:
    if word == "toggled-on":
        return ("toggled", True)
    if word in SAID_FALSE:
        return (SAID_FALSE[word], False)
    return (word, True)


def _kind(word: str) -> tuple[str, str]:
    catalog = handmethat_catalog()
    if word in catalog.categories:
        return ("type", word)
    if word in catalog.subclasses():
        return ("subclass", word)
    return ("class", word.upper())
