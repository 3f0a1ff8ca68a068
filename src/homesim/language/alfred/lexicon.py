"""Words for directives: what people call each object class, and how templates become sentences.

The names come from `data/synonyms.json`, mined from ALFRED's human directives (`mining.py`), with
how often annotators used each, so a generated directive names an object as often as people do (a name
people wrote two ways, "lap top" for "laptop", is written the more common way). A
class no annotator named gets its class name in words ("HousePlant" -> "house plant"). The wording
of sentences is `data/templates.json`: '[a|b]' picks an alternative and '{slot}' is filled.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from homesim.world.catalog import Catalog, alfred_catalog

_ALTERNATIVES = re.compile(r"\[([^\[\]]*)\]")
_WORDS_OF_CLASS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_AN = re.compile(r"\b([Aa]) (?=[aeiouAEIOU])")
_IRREGULAR_PLURALS = {"knife": "knives", "loaf": "loaves", "shelf": "shelves", "leaf": "leaves"}
_OF_MEASURE = " of "  # "slice of apple": the measure word takes the plural


@dataclass(frozen=True)
class Lexicon:
    names: dict[str, dict[str, int]]  # class -> name -> how many times annotators used it
    prepositions: dict[str, str]  # receptacle class -> "in" or "on", as annotators put things there
    templates: dict
    catalog: Catalog

    def name(self, cls: str, rng: random.Random) -> str:
        """A name for the class, drawn as often as annotators used it."""
        names = self.names.get(cls)
        if not names:
            return " ".join(w.lower() for w in _WORDS_OF_CLASS.findall(cls))
        return rng.choices(list(names), weights=list(names.values()))[0]

    def preposition(self, cls: str) -> str:
        """How things are put in a receptacle: as annotators said it, else from what it is (a closed
        container or a basin holds things "in", a surface "on")."""
        if cls in self.prepositions:
            return self.prepositions[cls]
        c = self.catalog[cls]
        return "in" if c.openable or c.basin else "on"


@cache
def lexicon() -> Lexicon:
    data = resources.files("homesim.language").joinpath("data")
    synonyms = json.loads(data.joinpath("synonyms.json").read_text())["classes"]
    return Lexicon(
        names={cls: spelled_one_way(entry["names"]) for cls, entry in synonyms.items()},
        prepositions={
            cls: max(entry["prepositions"], key=entry["prepositions"].get)
            for cls, entry in synonyms.items()
            if entry.get("prepositions")
        },
        templates=json.loads(data.joinpath("templates.json").read_text()),
        catalog=alfred_catalog(),
    )


def spelled_one_way(names: dict[str, int]) -> dict[str, int]:
    """Names that differ only in spaces or hyphens ("laptop", "lap top") are one name written two ways:
    counted together under the way most annotators wrote it."""
    merged: dict[str, tuple[str, int]] = {}
    for name, count in sorted(names.items(), key=lambda kv: -kv[1]):  # the most used spelling first
        key = name.replace(" ", "").replace("-", "")
        spelling, total = merged.get(key, (name, 0))
        merged[key] = (spelling, total + count)
    return {spelling: total for spelling, total in merged.values()}


def fill(template: str, slots: dict[str, str], rng: random.Random) -> str:
    """Picks one alternative of each '[a|b]' group, then fills the '{slot}'s (a missing slot raises)."""
    return _ALTERNATIVES.sub(lambda m: rng.choice(m.group(1).split("|")), template).format_map(slots)


def with_articles(text: str) -> str:
    """'a apple' -> 'an apple': templates always write 'a', whatever name follows."""
    return _AN.sub(lambda m: f"{m.group(1)}n ", text)


def plural(name: str) -> str:
    """The plural of an object name: of its measure word ("slices of apple"), else of its last word."""
    if _OF_MEASURE in name:
        head, rest = name.split(_OF_MEASURE, 1)
        return f"{plural(head)}{_OF_MEASURE}{rest}"
    *first, last = name.split(" ")
    return " ".join([*first, _plural_word(last)])


def _plural_word(word: str) -> str:
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if word.endswith("s") and not word.endswith("ss"):  # already plural: "keys", "tissues"
        return word
    if word.endswith(("ss", "x", "ch", "sh", "to")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
