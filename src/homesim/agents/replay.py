"""Action files: what an agent did in each episode, played again as an agent. A challenge's results file is
one (the server scores it by playing it through the suite's own evaluation, so a figure is the figure
`homesim evaluate --agent FILE.json` gives), and so is what `homesim challenge actions RUN` extracts from an
evaluation's records.

    {"format": "homesim-actions", "version": 1, "suite": "alfred",
     "episodes": [{"episode_id": "...", "annotation": 0, "actions": [["PickupObject", "Apple|..."], ...]}]}

An action is `[name, target]` (ALFRED: target an object id or null), a name (ObjectNav), or a command
(ALFRED's text game, HandMeThat). An episode's list ends with the suite's STOP where the agent stopped; past
its end the agent stops. An episode the file does not hold is played as an immediate STOP (a failure).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.errors import DataError

FORMAT, VERSION = "homesim-actions", 1
MAX_ACTIONS = 100_000  # per episode: more than any protocol's step limit allows


@dataclass(frozen=True)
class ActionFile:
    suite: str
    episodes: Mapping[tuple[str, int], tuple]  # (episode id, annotation) -> actions

    def to_dict(self) -> dict:
        episodes = [
            {"episode_id": episode_id, "annotation": annotation, "actions": [list(a) if isinstance(a, tuple) else a for a in actions]}
            for (episode_id, annotation), actions in self.episodes.items()
        ]
        return {"format": FORMAT, "version": VERSION, "suite": self.suite, "episodes": episodes}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def _action(value: object, where: str) -> object:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str | None) for v in value):
        return (value[0], value[1])  # a name of None: the agent gave no action (a failed step, as recorded)
    raise DataError(where, "actions", f"{str(value)[:60]!r} is neither a name nor [name, target]")


def parse_action_file(data: object, where: str) -> ActionFile:
    """An action file's JSON value, checked; a DataError naming the field otherwise."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DataError(where, "format", f"not a homesim action file (expected format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise DataError(where, "version", f"expected {VERSION}, got {data.get('version')!r}")
    if not isinstance(data.get("suite"), str):
        raise DataError(where, "suite", "missing or not a name")
    if not isinstance(data.get("episodes"), list):
        raise DataError(where, "episodes", "missing or not a list")
    episodes: dict[tuple[str, int], tuple] = {}
    for i, entry in enumerate(data["episodes"]):
        at = f"{where}: episodes[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("episode_id"), str):
            raise DataError(at, "episode_id", "missing or not a string")
        annotation = entry.get("annotation", 0)
        if not isinstance(annotation, int) or isinstance(annotation, bool) or annotation < 0:
            raise DataError(at, "annotation", f"{annotation!r} is not a whole number >= 0")
        actions = entry.get("actions")
        if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
            raise DataError(at, "actions", f"missing, not a list, or longer than {MAX_ACTIONS}")
        key = (entry["episode_id"], annotation)
        if key in episodes:
            raise DataError(at, "episode_id", f"{key[0]!r} (annotation {annotation}) appears twice")
        episodes[key] = tuple(_action(a, at) for a in actions)
    return ActionFile(data["suite"], episodes)


def read_action_file(path: str | Path) -> ActionFile:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise DataError(str(path), "(file)", f"unreadable: {e}") from None
    return parse_action_file(data, str(path))


def is_action_file_spec(spec: str) -> bool:
    return spec.endswith(".json")


class ActionsAgent:
    """Plays an action file: each episode's actions in order, then `stop`."""

    def __init__(self, actions: ActionFile, stop: str) -> None:
        self.actions, self.stop = actions, stop
        self.queue: Sequence = ()
        self.step = 0

    def reset(self, task: TaskSpec) -> None:
        self.queue = self.actions.episodes.get((task.episode_id, task.annotation), (self.stop,))
        self.step = 0

    def act(self, observation: dict) -> AgentAction:
        if self.step >= len(self.queue):
            return AgentAction(self.stop)
        action = self.queue[self.step]
        self.step += 1
        return AgentAction(*action) if isinstance(action, tuple) else AgentAction(action)
