"""Action files: what an agent did in each episode, played again as an agent. A challenge's results file is
one (the server scores it by playing it through the suite's own evaluation, so a figure is the figure
`homesim evaluate --agent FILE.json` gives), and so is what `homesim challenge actions RUN` extracts from an
evaluation's records.

    {"format": "homesim-actions", "version": 1, "suite": "alfred",
     "episodes": [{"episode_id": "...", "annotation": 0, "actions": [["PickupObject", "Apple|..."], ...]}]}

An action is `[name, target]` (ALFRED: target an object id or null), a name (ObjectNav), or a command
(ALFRED's text game, HandMeThat). An episode's list ends with the suite's STOP where the agent stopped; past
its end the agent stops. An episode the file does not hold is played as an immediate STOP (a failure).

The mask form (`"interaction": "mask"`, ALFRED) aims each interaction with a mask of the frame the agent saw,
in ALFRED's run-length encoding (`[name, [[start, length], ...]]`: the runs of a 300x300 mask flattened row by
row, as ALFRED's `compress_mask` writes them); it is played with `--interaction mask`, where the env resolves
each mask to an object from its own instance segmentation, as ALFRED's `va_interact` does. A mask that
cannot be read (not runs, runs past the frame's end, no pixel) is that step's failure, with the reason.
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
INTERACTIONS = ("oracle", "mask")  # how the file's interactions are aimed: object ids, or masks (ALFRED's runs)


@dataclass(frozen=True)
class ActionFile:
    suite: str
    episodes: Mapping[tuple[str, int], tuple]  # (episode id, annotation) -> actions
    interaction: str = "oracle"  # "mask": interaction targets are ALFRED's runs, played with --interaction mask

    def to_dict(self) -> dict:
        episodes = [
            {"episode_id": episode_id, "annotation": annotation, "actions": [list(a) if isinstance(a, tuple) else a for a in actions]}
            for (episode_id, annotation), actions in self.episodes.items()
        ]
        masks = {"interaction": self.interaction} if self.interaction != "oracle" else {}
        return {"format": FORMAT, "version": VERSION, "suite": self.suite, **masks, "episodes": episodes}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def _action(value: object, where: str, masks: bool) -> object:
    """An action as the file holds it; in the mask form a target may be a list (ALFRED's runs: read as the
    step is played, so that a bad mask fails its own step and says why)."""
    if isinstance(value, str):
        return value
    targets = str | list | None if masks else str | None
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str | None) and isinstance(value[1], targets):
        return (value[0], value[1])  # a name of None: the agent gave no action (a failed step, as recorded)
    target = "an object id or ALFRED's runs [[start, length], ...]" if masks else "an object id"
    raise DataError(where, "actions", f"{str(value)[:60]!r} is neither a name nor [name, target] ({target} or null)")


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
    interaction = data.get("interaction", "oracle")
    if interaction not in INTERACTIONS:
        raise DataError(where, "interaction", f"{str(interaction)[:40]!r}: {' or '.join(INTERACTIONS)}")
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
        episodes[key] = tuple(_action(a, at, interaction == "mask") for a in actions)
    return ActionFile(data["suite"], episodes, interaction)


def read_action_file(path: str | Path) -> ActionFile:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise DataError(str(path), "(file)", f"unreadable: {e}") from None
    return parse_action_file(data, str(path))


def is_action_file_spec(spec: str) -> bool:
    return spec.endswith(".json")


class ActionsAgent:
    """Plays an action file: each episode's actions in order, then `stop`. `interaction` says how it aims (an
    evaluation gives a mask form's agent masks to aim with, as it does a checkpoint trained on them)."""

    def __init__(self, actions: ActionFile, stop: str) -> None:
        self.actions, self.stop = actions, stop
        self.interaction = None if actions.interaction == "oracle" else actions.interaction
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
