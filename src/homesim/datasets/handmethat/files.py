"""Reading the authors' HandMeThat episode files (the JSON their generator writes) into homesim episodes.

Their object dicts (`initial_object_dict`, `current_object_dict`) map a thing's name to its class,
subclass, type, abilities, states (Booleans, and the static `size` and `color`) and its direct parent
(`inside` or `ontop`). Their `action_list` holds the human's past actions as `{"name": ...,
"arguments": ["h", ...]}`. Reading checks the file against its input models (pydantic: `TheirEpisode`, its
things checked against homesim's catalog) and replays the human's actions from the initial state: the replay
must not fail and must end in `current_object_dict`. Any problem is one `DataError` naming the file and the
field.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from homesim.datasets.formats import MAX_ITEMS, Name, Text
from homesim.datasets.handmethat.episode import HandMeThatEpisode, HumanActionFailed, Reading
from homesim.errors import DataError
from homesim.files import read_json, validated
from homesim.tasks.handmethat.formula import FormulaError
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat import SCHEMAS, Agent, HmtAction, HmtState, Thing, handmethat_catalog
from homesim.world.handmethat.catalog import ATTRIBUTE_ABILITY, COLORS, SIZES, STATE_ABILITY

ATTRIBUTE_VALUES = {"size": SIZES, "color": COLORS}
HOMESIM_ID = "homesim_id"  # the episode's id where homesim wrote the file (else the file's name is its id)
READING = ("rsa_meaning", "objects_in_utterance", "useful_objects", "objects_in_rsa_meaning", "possible_solution")
Sets = Annotated[list[tuple[Name, Any]], Field(max_length=MAX_ITEMS)]  # [[a thing's name, the quest's argument], ...]


class _TheirModel(BaseModel):
    """Their files carry more than homesim reads (observations, indices): the rest is let be."""

    model_config = ConfigDict(extra="ignore", populate_by_name=False)


class TheirThing(_TheirModel):
    """A thing of their object dicts, checked against homesim's catalog."""

    cls: Name = Field(alias="class")
    subclass: Name
    type: Name
    ability: Annotated[list[Name], Field(max_length=64)] = []
    states: Annotated[dict[Name, Any], Field(max_length=64)]  # Booleans, and the size and colour (names)
    inside: Name | None = None
    ontop: Name | None = None

    @model_validator(mode="after")
    def _in_the_catalog(self) -> TheirThing:
        category = handmethat_catalog().categories.get(self.type)
        if category is None:
            raise ValueError(f"type: unknown object type {self.type!r}")
        for k, theirs, ours in (("class", self.cls, category.cls), ("subclass", self.subclass, category.subclass)):
            if theirs != ours:
                raise ValueError(f"{k}: {theirs!r}, but a {category.type} is a {ours}")
        if set(self.ability) != category.abilities:
            raise ValueError(f"ability: differs from a {category.type}'s abilities in the catalog")
        if self.inside is not None and self.ontop is not None:
            raise ValueError("inside: a thing is in or on one existing thing")
        if category.movable != (self.relation is not None):
            raise ValueError("a location has no parent; a movable thing has one")
        for state, value in self.states.items():
            if state in ATTRIBUTE_ABILITY:
                known = isinstance(value, str) and value in ATTRIBUTE_VALUES[state]
                if value is not None and not (category.can(ATTRIBUTE_ABILITY[state]) and known):
                    raise ValueError(f"states.{state}: {value!r} is not a {category.type}'s {state}")
            elif state not in STATE_ABILITY:
                raise ValueError(f"states.{state}: unknown state")
            elif not category.can(STATE_ABILITY[state]) or not isinstance(value, bool):
                raise ValueError(f"states.{state}: a {category.type} has no such state, or not a Boolean")
        return self

    @property
    def relation(self) -> str | None:
        return "inside" if self.inside is not None else "ontop" if self.ontop is not None else None

    def thing(self, name: str) -> Thing:
        category = handmethat_catalog().categories[self.type]
        true = frozenset(s for s, v in self.states.items() if s not in ATTRIBUTE_ABILITY and v)
        size, color = (self.states.get(a) for a in ("size", "color"))
        return Thing(name, category, true, size, color, self.inside or self.ontop, self.relation)


class TheirAction(_TheirModel):
    """A human action of theirs: `{"name": "human-...", "arguments": ["h", ...]}`."""

    name: Name
    arguments: Annotated[list[Name], Field(max_length=16)]

    @model_validator(mode="after")
    def _a_human_action(self) -> TheirAction:
        if not self.name.startswith("human-") or self.name not in SCHEMAS:
            raise ValueError(f"name: {self.name!r} is not a human action")
        if not self.arguments or self.arguments[0] != "h":
            raise ValueError("arguments: the first argument must be the human, h")
        try:
            self.action()
        except ValueError as e:
            raise ValueError(f"arguments: {e}") from None
        return self

    def action(self) -> HmtAction:
        return HmtAction(self.name, tuple(self.arguments[1:]))


Things = Annotated[dict[Name, TheirThing], Field(max_length=MAX_ITEMS)]


def _check_things(key: str, objects: dict[str, TheirThing]) -> None:
    """What only a whole object dict says: parents that exist, each of the locations there (a ValueError
    naming the field)."""
    for name, o in objects.items():
        parent = o.inside or o.ontop
        if parent is not None and parent not in objects:
            raise ValueError(f"{key}.{name}.{o.relation}: a thing is in or on one existing thing")
    missing = [loc for loc in handmethat_catalog().locations if loc not in objects]
    if missing:
        raise ValueError(f"{key}: no {missing[0]}: every scene has each of the 16 locations")


Actions = Annotated[list[TheirAction], Field(max_length=MAX_ITEMS)]


class TheirEpisode(_TheirModel):
    """The fields of their episode file that homesim reads (`_reading`'s five only where all are there)."""

    homesim_id: Any = None
    initial_object_dict: Things
    current_object_dict: Things
    action_list: Actions
    goal: Text = Field(alias="_goal")
    subgoal: Text = Field(alias="_subgoal")
    meaning: Any = Field(alias="_meaning")
    utterance: Any
    objects_in_meaning: Sets = Field(alias="_objects_in_meaning")
    level: StrictInt
    demo_actions: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []
    task_description: Text = ""
    rsa_meaning: Any = Field(None, alias="_rsa_meaning")
    objects_in_utterance: Sets | None = Field(None, alias="_objects_in_utterance")
    useful_objects: Sets | None = Field(None, alias="_useful_objects")
    objects_in_rsa_meaning: Sets | None = Field(None, alias="_objects_in_rsa_meaning")
    possible_solution: Actions | None = Field(None, alias="_possible_solution")

    @field_validator("meaning", "utterance", "rsa_meaning")
    @classmethod
    def _a_meaning(cls, value: Any, info: ValidationInfo) -> Meaning | None:
        if value is None and info.field_name == "rsa_meaning":
            return None
        return Meaning.from_list(value)

    @model_validator(mode="after")
    def _whole(self) -> TheirEpisode:
        """Parents that exist, every location there; the sets naming things of the scene."""
        for key in ("initial_object_dict", "current_object_dict"):
            _check_things(key, getattr(self, key))
        for key in ("objects_in_meaning", "objects_in_utterance", "useful_objects", "objects_in_rsa_meaning"):
            for i, (name, _) in enumerate(getattr(self, key) or ()):
                if name not in self.initial_object_dict:
                    alias = type(self).model_fields[key].alias
                    raise ValueError(f"{alias}.{i}: {name!r} is not a thing's name of initial_object_dict")
        return self

    @property
    def has_reading(self) -> bool:
        """Whether the file keeps the generator's reading (all five of its fields: `_rsa_meaning`, ...)."""
        return all(getattr(self, name) is not None for name in READING)


def is_handmethat_file(path: str | Path) -> bool:
    """A .json file that looks like one of theirs (has an `initial_object_dict`), read cheaply."""
    path = Path(path)
    if path.suffix != ".json" or not path.is_file():
        return False
    with open(path, encoding="utf-8") as f:
        return '"initial_object_dict"' in f.read(4096)


# a folder's files that are no episodes: homesim's generation summary and manifest, the authors' split index
NOT_EPISODES = frozenset({"generation.json", "manifest.json", "HandMeThat_data_info.json"})


def read_handmethat_files(path: str | Path) -> Iterator[HandMeThatEpisode | DataError]:
    """The episodes of one file or of a folder's `*.json` files (sorted by name, recursively, but for the
    index files beside episodes: `NOT_EPISODES`); a file that cannot be read is a `DataError` in the stream
    and the others go on."""
    path = Path(path)
    files = sorted(f for f in path.rglob("*.json") if f.name not in NOT_EPISODES) if path.is_dir() else [path]
    for file in files:
        try:
            yield read_handmethat_file(file)
        except DataError as e:
            yield e


def read_handmethat_file(path: str | Path) -> HandMeThatEpisode:
    where = str(path)
    data = validated(TheirEpisode, read_json(path), where)
    named = data.homesim_id
    return episode_from_model(where, data, named if isinstance(named, str) and named else Path(path).stem)


def episode_from_json(where: str, data: object, episode_id: str) -> HandMeThatEpisode:
    """Their episode file's JSON value as homesim's episode, or a DataError naming `where` and the field."""
    return episode_from_model(where, validated(TheirEpisode, data, where), episode_id)


def episode_from_model(where: str, data: TheirEpisode, episode_id: str) -> HandMeThatEpisode:
    """Their episode, checked against its model, as homesim's: the human's actions replayed from the initial
    state must not fail and must end in `current_object_dict`."""
    initial, current = (
        _state(data.initial_object_dict),
        _state(data.current_object_dict),
    )
    try:
        episode = HandMeThatEpisode(
            id=episode_id,
            initial_state=initial,
            human_actions=tuple(a.action() for a in data.action_list),
            goal=data.goal,
            subgoal=data.subgoal,
            meaning=data.meaning,
            utterance=data.utterance,
            objects_in_meaning=tuple(data.objects_in_meaning),
            level=data.level,
            demo_actions=tuple(data.demo_actions),
            task_description=data.task_description,
            reading=_reading(data) if data.has_reading else None,
        )
    except HumanActionFailed as e:
        raise DataError(where, f"action_list.{e.index}", f"the human's {e}") from e
    except FormulaError as e:
        raise DataError(where, "_goal/_subgoal", f"not a goal formula: {e}") from e
    except ValueError as e:
        raise DataError(where, "level/_objects_in_meaning", str(e)) from e
    difference = _first_difference(episode.start_state, current)
    if difference:
        raise DataError(where, "current_object_dict", f"the human's actions replay to another state: {difference}")
    return episode


def state_from_object_dict(where: str, key: str, objects: object) -> HmtState:
    """Their object dict (a JSON value) as a state, or a DataError naming `where` and the field under `key`."""
    checked = validated(Things, objects, f"{where}: {key}")
    try:
        _check_things(key, checked)
    except ValueError as e:
        field, _, problem = str(e).partition(": ")
        raise DataError(where, field, problem) from None
    return _state(checked)


def _state(objects: dict[str, TheirThing]) -> HmtState:
    """Their checked object dict as a state with both agents on the floor, hands empty (where their episodes
    begin)."""
    return HmtState({name: o.thing(name) for name, o in objects.items()}, Agent("floor"), Agent("floor"))


def _reading(data: TheirEpisode) -> Reading:
    """The generator's reading of the request, the sets and the human's plan, as their files keep them."""
    return Reading(
        rsa_meaning=data.rsa_meaning,
        objects_in_utterance=tuple(data.objects_in_utterance),
        useful_objects=tuple(data.useful_objects),
        objects_in_rsa_meaning=tuple(data.objects_in_rsa_meaning),
        possible_solution=tuple(a.action() for a in data.possible_solution),
    )


def _first_difference(replayed: HmtState, current: HmtState) -> str | None:
    """How the replayed state's things differ from their file's current state (agents aside: the file
    does not say where the human stands)."""
    if list(replayed.things) != list(current.things):
        return "they name different things"
    for name, t in replayed.things.items():
        c = current.things[name]
        if t != c:
            mine = f"{t.relation} {t.parent}, states {sorted(t.states)}"
            theirs = f"{c.relation} {c.parent}, states {sorted(c.states)}"
            return f"{name} is {mine} after the replay but {theirs} in the file"
    return None
