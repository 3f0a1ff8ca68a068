"""HandMeThat's lifted meanings and utterances: object descriptions (specifier dictionaries such as
`{"inside": "cabinet", "subclass": "paper_product"}`), which things a description fits, every meaning
one can form about the things of a scene, the utterances that say less than a meaning, their costs,
and the literal semantics an utterance has for a meaning (their supplement A.3, by the rules of their
`meaning.py`, `utterance.py` and `rsa_utils.py`).

A meaning's description names a thing's position (its direct parent), any of its states (Boolean
states, color and size) and either no kind or its class, subclass or type; its keys keep their order
(position, states in their files' order, then the kind), the order their files write.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import cache
from itertools import combinations

import numpy as np

from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat.catalog import handmethat_catalog
from homesim.world.handmethat.state import HmtState, Thing

KINDS = ("class", "subclass", "type")  # general to specific
POSITIONS = ("inside", "ontop")
# change_state verbs and the ability an object needs for each (their `ability_verb_mapping`)
VERB_ABILITIES = {
    "toggle": ("toggleable",),
    "heat": ("cookable",),
    "cool": ("freezable",),
    "slice": ("sliceable",),
    "soak": ("soakable",),
    "clean": ("stainable", "dustyable"),
    "open": ("openable",),
}
_ABSENT = object()  # what a thing lacks matches no value
Objects = tuple[tuple[str, str | None], ...]  # (thing, the quest's argument): a set A(.) of the paper


def attributes(thing: Thing) -> dict[str, object]:
    """The thing's states as their object dicts list them: Boolean states, then color, then size."""
    found: dict[str, object] = {s: s in thing.states for s in thing.has_states}
    if thing.color is not None:
        found["color"] = thing.color
    if thing.size is not None:
        found["size"] = thing.size
    return found


def features(thing: Thing) -> dict[str, object]:
    """Everything a description may say of the thing: its kinds, its position, its states."""
    c = thing.category
    found: dict[str, object] = {"class": c.cls, "subclass": c.subclass, "type": c.type}
    if thing.parent is not None:
        found[thing.relation] = thing.parent  # type: ignore[index]  # a parent comes with its relation
    found.update(attributes(thing))
    return found


def matches(features_: Mapping[str, object], description: Mapping[str, object]) -> bool:
    """Whether a description is true of a thing with these features: every key must match."""
    return all(features_.get(k, _ABSENT) == v for k, v in description.items())


def fits(thing: Thing, description: Mapping[str, object]) -> bool:
    """Whether the description is true of the thing (their `obj_in_dict`)."""
    return matches(features(thing), description)


def objects_of(state: HmtState, said: Meaning, targets: Sequence[str] = ()) -> Objects:
    """A(x): the movable things the description fits, each with the quest's argument; a move_to that
    names no target stands for each of `targets` (their `get_objects_from_description`)."""
    d = said.details
    names = [n for n, t in state.things.items() if t.category.movable and fits(t, d)]
    if said.quest == "move_to" and said.target is None:
        return tuple((n, p) for p in targets for n in names)
    return tuple((n, said.target) for n in names)


def meanings(
    state: HmtState, quest: str, targets: Sequence[str] = (), about: Collection[str] | None = None
) -> list[Meaning]:
    """Every meaning of the quest about the scene's movable things, each once, in their enumeration's
    order: per thing, each subset of (kind, position, its states), the kind said as class, subclass or
    type; for move_to each target, for change_state each verb the abilities of a thing it fits allow.
    `about` limits the things the meanings are formed from (not the things they fit). Their
    `generate_reasonable_meaning` forms no move_to or change_state meaning by subclass: before adding one
    it looks for the class meaning it has just added (an utterance may still say the subclass)."""
    descriptions: dict[tuple, dict[str, object]] = {}
    verbs: dict[tuple, set[str]] = {}
    said_kinds = KINDS if quest == "bring_me" else ("class", "type")
    for thing in state.things.values():
        if not thing.category.movable or (about is not None and thing.name not in about):
            continue
        own = attributes(thing)
        position = {thing.relation: thing.parent} if thing.parent is not None else {}
        thing_verbs = {v for v, needs in VERB_ABILITIES.items() if any(thing.category.can(a) for a in needs)}
        named = (thing.category.cls, thing.category.subclass, thing.type)
        for n in range(len(own) + 3):
            for chosen in combinations(("kind", "position", *own), n):
                base: dict[str, object] = dict(position) if "position" in chosen else {}
                base.update((k, own[k]) for k in chosen if k in own)
                kinds = [(k, v) for k, v in zip(KINDS, named) if k in said_kinds] if "kind" in chosen else []
                for d in [{**base, k: v} for k, v in kinds] or [base]:
                    key = _key(d)
                    descriptions.setdefault(key, d)
                    verbs.setdefault(key, set()).update(thing_verbs)
    if quest == "bring_me":
        return [Meaning("bring_me", tuple(d.items())) for d in descriptions.values()]
    if quest == "move_to":
        return [Meaning("move_to", tuple(d.items()), p) for p in targets for d in descriptions.values()]
    return [
        Meaning("change_state", tuple(d.items()), v)
        for v in VERB_ABILITIES
        for k, d in descriptions.items()
        if v in verbs[k]
    ]


def _key(description: Mapping[str, object]) -> tuple:
    return tuple(sorted(description.items(), key=lambda kv: kv[0]))


def utterances_under(meaning: Meaning) -> list[Meaning]:
    """The utterances that say no more than the meaning: any subset of its specifiers, its kind said as
    it is or more generally (a type as its subclass or class) or left out; a move_to may leave out
    its target ("put it over there"). Their `get_utterances_under_meaning`."""
    d = meaning.details
    kind = next((k for k in reversed(KINDS) if k in d), None)
    kinds: list[dict[str, object]] = [{}]
    if kind is not None:
        general = _kinds_of(kind, d[kind])
        kinds += [{k: general[k]} for k in KINDS[: KINDS.index(kind) + 1]]
    rest = [k for k in d if k not in KINDS]
    said = [dict(k) for k in kinds]
    for key in rest:  # each specifier doubles the list: without it, then with it
        said += [{**s, key: d[key]} for s in said]
    targets = [None, meaning.target] if meaning.quest == "move_to" else [meaning.target]
    return [Meaning(meaning.quest, tuple(s.items()), t) for t in targets for s in said]


@cache
def _kinds_of(kind: str, value: object) -> dict[str, str]:
    """The class, subclass and type of an object of that class, subclass or type (the type only when
    the kind is the type): enough to name its more general kinds."""
    for c in handmethat_catalog().categories.values():
        kinds = {"class": c.cls, "subclass": c.subclass, "type": c.type}
        if kinds[kind] == value:
            return kinds
    raise ValueError(f"no HandMeThat object has {kind} {value!r}")


def says_no_more(meaning: Meaning, utterance: Meaning) -> bool:
    """The literal semantics: the utterance is true of the meaning when it is the same quest, names the
    meaning's target or none, and each of its specifiers is the meaning's or more general (a class or
    subclass the meaning's kind belongs to); their `dict_dominate_dict`. The paper writes it
    1[A(m) in A(u)], which this implies; they differ only where an utterance that is no generalisation
    of the meaning happens to fit all its things in this scene ("the red one" for "the pad on the sofa"
    when that pad is red), which their code, and so their episodes, count false."""
    if meaning.quest != utterance.quest or utterance.target not in (None, meaning.target):
        return False
    m = meaning.details
    m_kind = next((k for k in reversed(KINDS) if k in m), None)
    for key, value in utterance.description:
        if key in KINDS:
            if m_kind is None or KINDS.index(m_kind) < KINDS.index(key):
                return False  # the meaning names no kind, or a more general one
            if _kinds_of(m_kind, m[m_kind])[key] != value:
                return False
        elif key not in m or m[key] != value:
            return False
    return True


def utterance_cost(utterance: Meaning) -> float:
    """(#keys - 1) + {class 0, subclass 1, type 2} + 1 when it names a target (their `utterance_cost`;
    a bring_me's target is always None)."""
    d = utterance.details
    kind = next((k for k in reversed(KINDS) if k in d), "class")
    return (len(d) - 1) + KINDS.index(kind) + (utterance.target is not None and utterance.quest != "bring_me")


def meaning_cost(meaning: Meaning) -> float:
    """(#keys - 1), + 2 for a move_to and + 4 for a change_state (their `meaning_cost`, P(m | g)'s c(m))."""
    return (len(meaning.description) - 1) + {"bring_me": 0, "move_to": 2, "change_state": 4}[meaning.quest]


def literal_semantics(meanings_: Sequence[Meaning]) -> tuple[list[Meaning], np.ndarray]:
    """The utterances under any of the meanings, each once, in order (their `remove_low_probs`), and the
    literal semantics between them (meanings x utterances, 1 where `says_no_more`: exactly the utterances
    under the meaning; their depth-0 speaker)."""
    columns: dict[tuple, int] = {}
    said: list[Meaning] = []
    rows = []
    for m in meanings_:
        row = []
        for u in utterances_under(m):
            key = (u.quest, _key(u.details), u.target)
            if key not in columns:
                columns[key] = len(said)
                said.append(u)
            row.append(columns[key])
        rows.append(row)
    literal = np.zeros((len(rows), len(said)))
    for i, row in enumerate(rows):
        literal[i, row] = 1.0
    return said, literal
