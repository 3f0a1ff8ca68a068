"""HandMeThat's task: the human's request, its hidden meaning, and what counts as success.

A meaning (their `_meaning`; an utterance has the same shape) is `[quest, description, target]`:
the quest type (`bring_me`, `move_to`, `change_state`), what the object is (`{"inside": "cabinet",
"subclass": "paper_product", "dusty": false, ...}`) and the quest's target (`move_to`: where to put it;
`change_state`: the verb, one of `CHANGE_VERBS`; `bring_me`: None).

Success is their text env's: the episode's objects of the meaning (`_objects_in_meaning`, the things
the description fits) are the candidates, and the robot succeeds when any one is in the human's hand
(`bring_me`), in or on the target (`move_to`), or in the verb's state (`change_state`). It is stated
as a formula of their goal language (`success_formula`), so one evaluator judges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from homesim.tasks.handmethat.formula import Formula, holds
from homesim.world.handmethat.state import HmtState

QUEST_TYPES = ("bring_me", "move_to", "change_state")
# change_state verb -> the state it makes true (clean makes dusty and stained false)
CHANGE_VERBS = {
    "open": "open",
    "toggle": "toggled",
    "heat": "cooked",
    "cool": "frozen",
    "slice": "sliced",
    "soak": "soaked",
    "clean": None,
}
DESCRIPTION_KEYS = (
    "class",
    "subclass",
    "type",
    "inside",
    "ontop",
    "color",
    "size",
    *("open", "toggled", "cooked", "frozen", "sliced", "soaked", "dusty", "stained"),
)


@dataclass(frozen=True)
class Meaning:
    """A request's quest type, object description and target (see the module docstring)."""

    quest: str
    description: tuple[tuple[str, object], ...]  # the description's (key, value) pairs, in their order
    target: str | None = None

    def __post_init__(self) -> None:
        if self.quest not in QUEST_TYPES:
            raise ValueError(f"quest type {self.quest!r} is not one of {', '.join(QUEST_TYPES)}")
        unknown = [k for k, _ in self.description if k not in DESCRIPTION_KEYS]
        if unknown:
            raise ValueError(f"unknown description key {unknown[0]!r}; known: {', '.join(DESCRIPTION_KEYS)}")
        if self.quest == "change_state" and self.target not in CHANGE_VERBS:
            raise ValueError(f"change_state verb {self.target!r} is not one of {', '.join(CHANGE_VERBS)}")
        if self.quest == "move_to" and self.target is not None and not isinstance(self.target, str):
            raise ValueError(f"move_to target {self.target!r} is not a thing's name")

    @property
    def details(self) -> dict[str, object]:
        return dict(self.description)

    def to_list(self) -> list:
        """Their JSON form: [quest, description, target]."""
        return [self.quest, dict(self.description), self.target]

    def to_dict(self) -> dict:
        """homesim's form, which keeps the description's order through files written with sorted keys."""
        return {"quest": self.quest, "description": [list(kv) for kv in self.description], "target": self.target}

    @staticmethod
    def from_dict(d: dict) -> Meaning:
        return Meaning(d["quest"], tuple((k, v) for k, v in d["description"]), d["target"])

    @staticmethod
    def from_list(value: object) -> Meaning:
        if not isinstance(value, list | tuple) or len(value) != 3 or not isinstance(value[1], dict):
            raise ValueError(f"expected [quest type, description object, target], got {value!r}")
        quest, description, target = value
        return Meaning(quest, tuple(description.items()), target)


def success_formula(meaning: Meaning, objects: Sequence[str]) -> Formula:
    """The condition their text env checks: any of the meaning's objects brought, moved or changed."""
    if not objects:
        raise ValueError("a meaning with no object in the scene cannot be achieved")
    parts: list[Formula] = []
    for o in objects:
        if meaning.quest == "bring_me":
            parts.append(Formula("human-holding", args=(o,)))
        elif meaning.quest == "move_to":
            if meaning.target is None:
                raise ValueError("a move_to meaning needs a target")
            parts += [Formula("inside", args=(o, meaning.target)), Formula("ontop", args=(o, meaning.target))]
        elif CHANGE_VERBS[meaning.target] is None:  # clean
            dirty = (Formula("not", (Formula("stained", args=(o,)),)), Formula("not", (Formula("dusty", args=(o,)),)))
            parts.append(Formula("and", dirty))
        else:
            parts.append(Formula(CHANGE_VERBS[meaning.target], args=(o,)))
    return Formula("or", tuple(parts))


def meaning_satisfied(meaning: Meaning, objects: Sequence[str], state: HmtState) -> bool:
    """Their text env's `check_goal`: whether the robot has achieved what the human meant."""
    return holds(success_formula(meaning, objects), state)
