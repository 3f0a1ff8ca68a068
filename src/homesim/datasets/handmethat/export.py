"""HandMeThat episodes written as the authors' tools read them: their JSON fields (`goal_idx`, `task_idx`,
`initial_object_dict`, `current_object_dict`, `action_list`, `_goal`, `_subgoal`, `_meaning`, `utterance`,
the generator's reading, `level`, `demo_actions`, `demo_observations_*`, `task_description`), their file names
and their folder layout, so that their loader (`load_from_json`), their text env (`HMTEnv`, `HMTJerichoEnv`),
their Seq2Seq trainer and their evaluation scripts read generated episodes, and homesim's reader
(`handmethat_files`) reads them back.

    OUT/HandMeThat_data_info.json                       their index: [by quest type, by level, by goal,
                                                        {"train", "validate", "test"}] of file names
    OUT/HandMeThat_with_expert_demonstration/task-<quest>-<goal_idx>-<task_idx>-<level>.json

`goal_idx` is the goal template's place in their list (`tasks.handmethat.goals.template_indices`: the first,
where two templates fill to the same goal, which then reads the same to their code), `task_idx`
the episode's number in the export (unique, so no two files share a name); each file also keeps homesim's id
(`homesim_id`, which their loader ignores). homesim's `validation` split is their `validate`.

An object's `states` are written in their generator's order, the Boolean states then colour then size,
since their env prints a thing's attributes in the order its file lists them ("blue small closed box 2").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.datasets.handmethat.files import HOMESIM_ID
from homesim.errors import DataError
from homesim.tasks.handmethat.goals import goal_templates, template_indices
from homesim.tasks.handmethat.task import QUEST_TYPES
from homesim.files import write_file
from homesim.world.handmethat import HmtAction
from homesim.world.handmethat.state import HmtState

HUMAN_ARGUMENT = "h"  # how their action list names the human
DATA_INFO = "HandMeThat_data_info.json"
EPISODES_FOLDER = "HandMeThat_with_expert_demonstration"
THEIR_SPLITS = {"train": "train", "validation": "validate", "test": "test"}
# an episode's observations along its expert demonstration, (partially, fully) observable: obs_0 [SEP] a_0 ...
Recorder = Callable[[HandMeThatEpisode], tuple[list[str], list[str]]]


def object_dict(state: HmtState) -> dict:
    """Their object dict: class, subclass, type, ability, the parent under its relation, and `states`
    (every Boolean state it can have, then colour and size)."""
    out = {}
    for name, t in state.things.items():
        c = t.category
        o: dict = {"class": c.cls, "subclass": c.subclass, "type": c.type, "ability": sorted(c.abilities)}
        if t.parent is not None:
            o[t.relation] = t.parent
        states: dict = {s: s in t.states for s in t.has_states}
        for key in ("color", "size"):
            if getattr(t, key) is not None:
                states[key] = getattr(t, key)
        o["states"] = states
        out[name] = o
    return out


def _actions(actions: Sequence[HmtAction]) -> list[dict]:
    return [{"name": a.name, "arguments": [HUMAN_ARGUMENT, *a.args]} for a in actions]


def episode_to_json(episode: HandMeThatEpisode, numbers: dict | None = None, demo: tuple | None = None) -> dict:
    """Their fields in their files' order; those of the generator's `Reading` (the human's whole plan, A(u),
    A(g), the listener's reading and A(r)) where the episode has them; with `numbers` their `goal_idx` and
    `task_idx`, with `demo` their `demo_observations_partially` and `_fully`."""
    reading = episode.reading
    sets = (
        {}
        if reading is None
        else {
            "_possible_solution": _actions(reading.possible_solution),
            "_objects_in_utterance": [list(o) for o in reading.objects_in_utterance],
        }
    )
    more = (
        {}
        if reading is None
        else {
            "_useful_objects": [list(o) for o in reading.useful_objects],
            "level": episode.level,
            "_rsa_meaning": reading.rsa_meaning.to_list(),
            "_objects_in_rsa_meaning": [list(o) for o in reading.objects_in_rsa_meaning],
        }
    )
    observations = {} if demo is None else {"demo_observations_partially": demo[0], "demo_observations_fully": demo[1]}
    return {
        **(numbers or {}),
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
        **observations,
        "task_description": episode.task_description,
    }


def write_handmethat(
    out: str | Path, splits: Mapping[str, Sequence[HandMeThatEpisode]], record: Recorder | None = None
) -> dict[str, str]:
    """Write the splits in the authors' layout (observations along each demonstration where `record` gives
    them); homesim's id of each file written, by file name."""
    out = Path(out)
    folder = out / EPISODES_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    by_quest: dict = {q: [] for q in QUEST_TYPES}
    by_level: dict = {f"level{k}": [] for k in (1, 2, 3, 4)}
    by_goal: dict = {str(i): [] for i in range(len(goal_templates()))}
    by_split: dict = {theirs: [] for theirs in THEIR_SPLITS.values()}
    written: dict[str, str] = {}
    for split, episodes in splits.items():
        for e in episodes:
            if e.reading is None:
                raise DataError(
                    e.id, "reading", "their loader needs the generator's reading, which only generated episodes have"
                )
            goal = next(iter(template_indices(e.goal)), None)
            if goal is None:
                raise DataError(e.id, "goal", "fits none of the goal templates, so it has no goal_idx")
            name = f"task-{e.quest_type}-{goal}-{len(written)}-{e.level}.json"
            numbers = {"goal_idx": goal, "task_idx": len(written)}
            data = episode_to_json(e, numbers, None if record is None else record(e)) | {HOMESIM_ID: e.id}
            write_file(folder / name, json.dumps(data, indent=1))
            written[name] = e.id
            for index, key in ((by_quest, e.quest_type), (by_level, f"level{e.level}"), (by_goal, str(goal))):
                index[key].append(name)
            by_split.setdefault(THEIR_SPLITS.get(split, split), []).append(name)
    write_file(out / DATA_INFO, json.dumps([by_quest, by_level, by_goal, by_split]))
    return written
