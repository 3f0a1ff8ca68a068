"""Reading the authors' HandMeThat episode files (the JSON their generator writes) into homesim episodes.

Their object dicts (`initial_object_dict`, `current_object_dict`) map a thing's name to its class,
subclass, type, abilities, states (Booleans, and the static `size` and `color`) and its direct parent
(`inside` or `ontop`). Their `action_list` holds the human's past actions as `{"name": ...,
"arguments": ["h", ...]}`. Reading checks each against homesim's catalog and replays the human's
actions from the initial state: the replay must not fail and must end in `current_object_dict`. Any
problem is one `DataError` naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from homesim.datasets.handmethat.episode import HandMeThatEpisode, HumanActionFailed, Objects, Reading
from homesim.errors import DataError
from homesim.files import read_json
from homesim.tasks.handmethat.formula import FormulaError
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat import SCHEMAS, Agent, HmtAction, HmtState, Thing, handmethat_catalog
from homesim.world.handmethat.catalog import ATTRIBUTE_ABILITY, COLORS, SIZES, STATE_ABILITY

REQUIRED = {
    "initial_object_dict": dict,
    "current_object_dict": dict,
    "action_list": list,
    "_goal": str,
    "_subgoal": str,
    "_meaning": list,
    "utterance": list,
    "_objects_in_meaning": list,
    "level": int,
}
ATTRIBUTE_VALUES = {"size": SIZES, "color": COLORS}
HOMESIM_ID = "homesim_id"  # the episode's id where homesim wrote the file (else the file's name is its id)
READING = ("_rsa_meaning", "_objects_in_utterance", "_useful_objects", "_objects_in_rsa_meaning", "_possible_solution")


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
    data = read_json(path)
    named = data.get(HOMESIM_ID) if isinstance(data, dict) else None
    return episode_from_json(where, data, named if isinstance(named, str) and named else Path(path).stem)


def episode_from_json(where: str, data: object, episode_id: str) -> HandMeThatEpisode:
    if not isinstance(data, dict):
        raise DataError(where, "(file)", "not a JSON object")
    for key, kind in REQUIRED.items():
        if key not in data:
            raise DataError(where, key, "missing")
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            raise DataError(where, key, f"expected a {kind.__name__}, got {type(data[key]).__name__}")
    initial = state_from_object_dict(where, "initial_object_dict", data["initial_object_dict"])
    current = state_from_object_dict(where, "current_object_dict", data["current_object_dict"])
    actions = tuple(_human_action(where, i, a, initial) for i, a in enumerate(data["action_list"]))
    meaning, utterance = (_meaning(where, key, data[key]) for key in ("_meaning", "utterance"))
    objects = _objects(where, "_objects_in_meaning", data["_objects_in_meaning"], initial)
    demo = data.get("demo_actions", [])
    if not isinstance(demo, list) or not all(isinstance(c, str) for c in demo):
        raise DataError(where, "demo_actions", "expected a list of text commands")
    try:
        episode = HandMeThatEpisode(
            id=episode_id,
            initial_state=initial,
            human_actions=actions,
            goal=data["_goal"],
            subgoal=data["_subgoal"],
            meaning=meaning,
            utterance=utterance,
            objects_in_meaning=objects,
            level=data["level"],
            demo_actions=tuple(demo),
            task_description=str(data.get("task_description", "")),
            reading=_reading(where, data, initial) if all(key in data for key in READING) else None,
        )
    except HumanActionFailed as e:
        raise DataError(where, f"action_list[{e.index}]", f"the human's {e}") from e
    except FormulaError as e:
        raise DataError(where, "_goal/_subgoal", f"not a goal formula: {e}") from e
    except ValueError as e:
        raise DataError(where, "level/_objects_in_meaning", str(e)) from e
    difference = _first_difference(episode.start_state, current)
    if difference:
        raise DataError(where, "current_object_dict", f"the human's actions replay to another state: {difference}")
    return episode


def state_from_object_dict(where: str, key: str, objects: dict) -> HmtState:
    """Their object dict as a state with both agents on the floor, hands empty (where their episodes begin)."""
    catalog = handmethat_catalog()
    things: dict[str, Thing] = {}
    for name, o in objects.items():
        field = f"{key}[{name!r}]"
        if not isinstance(o, dict) or not isinstance(o.get("states"), dict):
            raise DataError(where, field, "expected an object with class, subclass, type, ability and states")
        for k in ("type", "class", "subclass", "inside", "ontop"):
            if k in o and not isinstance(o[k], str):
                raise DataError(where, f"{field}.{k}", f"expected a name, got {type(o[k]).__name__}")
        if not (isinstance(o.get("ability", []), list) and all(isinstance(a, str) for a in o.get("ability", []))):
            raise DataError(where, f"{field}.ability", "expected a list of abilities")
        category = catalog.categories.get(o.get("type"))
        if category is None:
            raise DataError(where, f"{field}.type", f"unknown object type {o.get('type')!r}")
        for k, ours in (("class", category.cls), ("subclass", category.subclass)):
            if o.get(k) != ours:
                raise DataError(where, f"{field}.{k}", f"{o.get(k)!r}, but a {category.type} is a {ours}")
        if set(o.get("ability", ())) != category.abilities:
            raise DataError(where, f"{field}.ability", f"differs from a {category.type}'s abilities in the catalog")
        relations = [r for r in ("inside", "ontop") if r in o]
        if len(relations) > 1 or (relations and o[relations[0]] not in objects):
            raise DataError(where, f"{field}.{relations[0]}", "a thing is in or on one existing thing")
        if category.movable != bool(relations):
            raise DataError(where, field, "a location has no parent; a movable thing has one")
        things[name] = Thing(
            name,
            category,
            _boolean_states(where, field, o["states"], category),
            *(_attribute(where, field, o["states"], a, category) for a in ("size", "color")),
            o[relations[0]] if relations else None,
            relations[0] if relations else None,
        )
    missing = [loc for loc in catalog.locations if loc not in things]
    if missing:
        raise DataError(where, key, f"no {missing[0]}: every scene has each of the 16 locations")
    return HmtState(things, Agent("floor"), Agent("floor"))


def _boolean_states(where: str, field: str, states: dict, category) -> frozenset[str]:
    true = set()
    for state, value in states.items():
        if state in ATTRIBUTE_ABILITY:
            continue
        if state not in STATE_ABILITY:
            raise DataError(where, f"{field}.states.{state}", "unknown state")
        if not category.can(STATE_ABILITY[state]) or not isinstance(value, bool):
            raise DataError(where, f"{field}.states.{state}", f"a {category.type} has no such state, or not a Boolean")
        if value:
            true.add(state)
    return frozenset(true)


def _attribute(where: str, field: str, states: dict, attribute: str, category) -> str | None:
    value = states.get(attribute)
    if value is None:
        return None
    if not category.can(ATTRIBUTE_ABILITY[attribute]) or value not in ATTRIBUTE_VALUES[attribute]:
        raise DataError(where, f"{field}.states.{attribute}", f"{value!r} is not a {category.type}'s {attribute}")
    return value


def _human_action(where: str, i: int, a: object, state: HmtState, key: str = "action_list") -> HmtAction:
    field = f"{key}[{i}]"
    if not isinstance(a, dict) or not isinstance(a.get("name"), str) or not isinstance(a.get("arguments"), list):
        raise DataError(where, field, f"expected {{name, arguments}}, got {a!r}")
    name, args = a["name"], a["arguments"]
    if not name.startswith("human-") or name not in SCHEMAS:
        raise DataError(where, f"{field}.name", f"{name!r} is not a human action")
    if not args or args[0] != "h":
        raise DataError(where, f"{field}.arguments", "the first argument must be the human, h")
    try:
        return HmtAction(name, tuple(str(x) for x in args[1:]))
    except ValueError as e:
        raise DataError(where, f"{field}.arguments", str(e)) from e


def _objects(where: str, key: str, value: object, initial: HmtState) -> Objects:
    """A set A(.) of their file: [[a thing's name, the quest's argument], ...]."""
    if not isinstance(value, list):
        raise DataError(where, key, f"expected a list, got {type(value).__name__}")
    for i, entry in enumerate(value):
        if not isinstance(entry, list) or len(entry) != 2 or entry[0] not in initial.things:
            raise DataError(where, f"{key}[{i}]", f"expected [a thing's name, target], got {entry!r}")
    return tuple((name, extra) for name, extra in value)


def _reading(where: str, data: dict, initial: HmtState) -> Reading:
    """The generator's reading of the request, the sets and the human's plan, as their files keep them."""
    plan = data["_possible_solution"]
    if not isinstance(plan, list):
        raise DataError(where, "_possible_solution", f"expected a list, got {type(plan).__name__}")
    return Reading(
        rsa_meaning=_meaning(where, "_rsa_meaning", data["_rsa_meaning"]),
        objects_in_utterance=_objects(where, "_objects_in_utterance", data["_objects_in_utterance"], initial),
        useful_objects=_objects(where, "_useful_objects", data["_useful_objects"], initial),
        objects_in_rsa_meaning=_objects(where, "_objects_in_rsa_meaning", data["_objects_in_rsa_meaning"], initial),
        possible_solution=tuple(_human_action(where, i, a, initial, "_possible_solution") for i, a in enumerate(plan)),
    )


def _meaning(where: str, key: str, value: object) -> Meaning:
    try:
        return Meaning.from_list(value)
    except ValueError as e:
        raise DataError(where, key, str(e)) from e


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
