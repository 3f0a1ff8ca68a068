"""HandMeThat episodes written in the authors' JSON layout (one file per episode, their field names:
`initial_object_dict`, `current_object_dict`, `action_list`, `_goal`, `_subgoal`, `_meaning`, `utterance`,
`_objects_in_meaning`, `level`, `demo_actions`, `task_description`), so their tools and homesim's reader
(`handmethat_files`) read generated episodes. `out/<split>/<episode id>.json`; keys in a fixed order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.files import write_file
from homesim.world.handmethat import HmtAction
from homesim.world.handmethat.state import HmtState

HUMAN_ARGUMENT = "h"  # how their action list names the human


def object_dict(state: HmtState) -> dict:
    """Their object dict: class, subclass, type, ability, the parent under its relation, and `states`
    (every Boolean state it can have, then size and colour)."""
    out = {}
    for name, t in state.things.items():
        c = t.category
        o: dict = {"class": c.cls, "subclass": c.subclass, "type": c.type, "ability": sorted(c.abilities)}
        if t.parent is not None:
            o[t.relation] = t.parent
        states: dict = {s: s in t.states for s in t.has_states}
        for key in ("size", "color"):
            if getattr(t, key) is not None:
                states[key] = getattr(t, key)
        o["states"] = states
        out[name] = o
    return out


def _actions(actions: Sequence[HmtAction]) -> list[dict]:
    return [{"name": a.name, "arguments": [HUMAN_ARGUMENT, *a.args]} for a in actions]


def episode_to_json(episode: HandMeThatEpisode) -> dict:
    """Their fields in their files' order; those of the generator's `Reading` (the human's whole plan, A(u),
    A(g), the listener's reading and A(r)) where the episode has them."""
    reading = episode.reading
    sets = {} if reading is None else {
        "_possible_solution": _actions(reading.possible_solution),
        "_objects_in_utterance": [list(o) for o in reading.objects_in_utterance],
    }
    more = {} if reading is None else {
        "_useful_objects": [list(o) for o in reading.useful_objects],
        "level": episode.level,
        "_rsa_meaning": reading.rsa_meaning.to_list(),
        "_objects_in_rsa_meaning": [list(o) for o in reading.objects_in_rsa_meaning],
    }
    return {
        "initial_object_dict": object_dict(episode.initial_state),
        "current_object_dict": object_dict(episode.start_state),
        "_goal": episode.goal,
        "action_list": _actions(episode.human_actions),
        "_meaning": episode.meaning.to_list(),
        "utterance": episode.utterance.to_list(),
        **sets,
        "_objects_in_meaning": [list(o) for o in episode.objects_in_meaning],
        **more,
        "level": episode.level,  # (where `more` put it when there is a reading, as their files order it)
        "_subgoal": episode.subgoal,
        "demo_actions": list(episode.demo_actions),
        "task_description": episode.task_description,
    }


def write_handmethat(out: str | Path, splits: Mapping[str, Sequence[HandMeThatEpisode]]) -> None:
    for split, episodes in splits.items():
        folder = Path(out) / split
        folder.mkdir(parents=True, exist_ok=True)
        for e in episodes:
            write_file(folder / f"{e.id}.json", json.dumps(episode_to_json(e), indent=1))
