"""From a model's free text to one of the commands it may say now: the action part of the reply (after
"Action:" or ">", else its first line), then the command it matches exactly, or after normalising both sides
(case, quotes, articles, plurals, number words, "apple1", `put X in/on Y` and `move X to Y` alike, "pick up"
as "take"), or, with the object numbers left out, the one command that fits. What maps to none is an invalid
action, kept with its text and why: no command in it at all, or a command that is not possible now."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

REPLY_READ = 4000  # characters of a reply the parser reads (a model that answers a megabyte is cut here)
ACTION_LINE = re.compile(
    r"^\s*(?:[-*>]\s*)*(?:\**\s*)?(?:action|command|act)\s*\d*\s*\**\s*[:=]\s*\**\s*(.+)$", re.I | re.M
)
THOUGHT_LINE = re.compile(r"^\s*(?:[-*>]\s*)*\**\s*(?:thought|think|reasoning)\s*\**\s*:", re.I)
NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
    " seventeen eighteen nineteen twenty".split()
)}  # fmt: skip
ARTICLES = {"a", "an", "the", "some", "your"}
PUT_VERBS = {"put", "move", "place", "drop", "set"}
PUT_WORDS = {"in/on", "in", "on", "into", "onto", "to", "inside", "in/onto", "on/in"}
VERB_SYNONYMS = {"pick up": "take", "pickup": "take", "grab": "take", "get": "take", "walk to": "go to",
                 "head to": "go to", "navigate to": "go to", "turn on": "use", "switch on": "use"}  # fmt: skip


@dataclass(frozen=True)
class Parsed:
    """What a reply said: the command it maps to (None: an invalid action), how it was found ("exact",
    "normalised", "unnumbered"; or, for an invalid one, "unparseable" or "not_admissible"), and its action text."""

    command: str | None
    how: str
    said: str


def action_text(reply: str) -> str:
    """The part of a reply that names the action: the last "Action: ..." line (ReAct's form), else the first line
    that is no thought, without a leading ">" (ALFWorld's prompt)."""
    reply = reply[:REPLY_READ]
    found = ACTION_LINE.findall(reply)
    if found:
        return found[-1].strip()
    for line in reply.splitlines():
        if line.strip() and not THOUGHT_LINE.match(line):
            return line.strip().lstrip(">").strip()
    return ""


def _words(text: str) -> list[str]:
    text = text.lower().strip()
    text = re.sub(r"[`\"'*_]+(?=\s|$)|(?<=\s)[`\"'*_]+|^[`\"'*_]+", " ", text)  # quotes round words, not in ids
    text = re.sub(r"[.!?;,]+$", "", text.strip())
    for phrase, verb in VERB_SYNONYMS.items():
        text = re.sub(rf"^{phrase}\b", verb, text)
    text = re.sub(r"\b([a-z]+)(\d+)\b", r"\1 \2", text)  # apple1 -> apple 1
    return [NUMBER_WORDS.get(w, w) for w in text.split() if w not in ARTICLES]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@functools.lru_cache(maxsize=65536)  # the same commands come back every step
def normalised(text: str) -> str:
    """A command's form for matching: both the reply and the commands go through it."""
    words = [_singular(w) for w in _words(text)]
    if words and words[0] in PUT_VERBS and len(words) > 2 and not (words[1] == "to" and len(words) <= 3):
        words = ["put"] + [w for w in words[1:] if w not in PUT_WORDS]
    return " ".join(words)


def unnumbered(text: str) -> str:
    return " ".join(w for w in normalised(text).split() if not w.isdigit())


class Parser:
    """Maps replies to the commands possible now. The exact lookup is made once per list of commands; the
    normalised ones only when a reply is not exact (most are)."""

    def __init__(self) -> None:
        self._commands: tuple[str, ...] | None = None

    def _index(self, commands: Sequence[str]) -> None:
        commands = tuple(commands)
        if commands != self._commands:
            self._commands, self._normal, self._bare = commands, None, None
            self._exact = {c.lower(): c for c in reversed(commands)}  # the first of equal ones wins

    def _lenient(self) -> tuple[dict[str, str], dict[str, str]]:
        if self._normal is None:
            self._normal = {normalised(c): c for c in reversed(self._commands)}
            bare: dict[str, list[str]] = {}
            for c in self._commands:
                bare.setdefault(unnumbered(c), []).append(c)
            self._bare = {k: v[0] for k, v in bare.items() if len(v) == 1}
        return self._normal, self._bare

    def parse(self, reply: str, commands: Sequence[str], stop: str) -> Parsed:
        said = action_text(reply)
        if not said:
            return Parsed(None, "unparseable", said)
        self._index(commands)
        found = self._exact.get(said.lower())
        if found is not None:
            return Parsed(found, "exact", said)
        if said.lower() == stop.lower() or normalised(said) == normalised(stop):
            return Parsed(stop, "exact", said)
        normal, bare = self._lenient()
        found = normal.get(normalised(said))
        if found is not None:
            return Parsed(found, "normalised", said)
        found = None if any(w.isdigit() for w in normalised(said).split()) else bare.get(unnumbered(said))
        if found is not None:  # no number said, and one command fits: "go to fridge" with one fridge
            return Parsed(found, "unnumbered", said)
        verbs = {c.split(" ")[0] for c in normal}
        known = normalised(said).split(" ")[0] in verbs
        return Parsed(None, "not_admissible" if known else "unparseable", said)
