"""An episode record (a line of the `records.jsonl` that `homesim evaluate` writes) turned back into what
it played: its episode, found in the source the evaluation read, the state it started from, and its
actions, played as recorded. A record keeps only the size of a mask, so mask-aimed interactions cannot
be played again; nor can the text game's commands."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.evaluation.records import MASK_PREFIX, EpisodeRecord, read_records
from homesim.world.actions import Action
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State


class NotPlayable(ValueError):
    """A record that cannot be played again, and why (one line)."""


def is_records_file(path: Path) -> bool:
    """Whether the file's first line is an episode record (a records.jsonl may hold just one)."""
    with open(path, encoding="utf-8") as lines:
        first = next((line for line in lines if line.strip()), "")
    try:
        data = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and {"episode_id", "actions", "action_success"} <= data.keys()


def read_record(path: Path, number: int) -> EpisodeRecord:
    """The `number`-th record (1-based) of a records file."""
    records = read_records(path)
    if not 1 <= number <= len(records):
        raise NotPlayable(f"--record {number}: {path} holds {len(records)} record(s)")
    return records[number - 1]


def recorded_actions(record: EpisodeRecord, where: str) -> tuple[list[Action | None], dict[int, str]]:
    """The record's steps as actions (None: the agent's answer was no action), and the recorded reason
    of each failed step."""
    if record.commands is not None:
        raise NotPlayable(f"{where} is from the text game: it holds commands, not the actions a video plays")
    for i, (_, target) in enumerate(record.actions):
        if isinstance(target, str) and target.startswith(MASK_PREFIX):
            raise NotPlayable(
                f"{where} aims its interactions by masks (step {i + 1}: {target!r}), and a record keeps only a"
                " mask's size, so it cannot be played again (evaluate with --interaction oracle to render one)"
            )
    actions = [None if name is None else Action(name, target) for name, target in record.actions]
    return actions, {int(i): str(why) for i, why in record.failures}


def find_episode(
    record: EpisodeRecord, splits: dict[str, list[AlfredEpisode]], scenes: dict[str, Scene], source: str
) -> tuple[AlfredEpisode, Scene]:
    """The record's episode among the episodes the evaluation read (its own split first), and its scene."""
    ordered = [splits.get(record.split, [])] + [episodes for name, episodes in splits.items() if name != record.split]
    for episodes in ordered:
        for episode in episodes:
            if episode.id == record.episode_id:
                return episode, scenes[episode.scene_id]
    raise NotPlayable(f"episode {record.episode_id} (split {record.split}) is not in {source}")


@dataclass(frozen=True)
class RecordStart:
    state: State
    instruction: str
    directives: tuple[str, ...]


def record_start(record: EpisodeRecord, episode: AlfredEpisode, scene: Scene) -> RecordStart:
    """Where the record's actions begin: the episode's start, or, for a sub-goal evaluation, after the
    expert's actions up to that sub-goal (as the evaluation teacher-forced them); and the record's
    annotation (its instruction, and the sub-goal's directive)."""
    state = episode.initial_state
    annotation = episode.annotations[record.annotation] if record.annotation < len(episode.annotations) else None
    instruction = annotation.task_desc if annotation else episode.goal.task_type
    if record.subgoal is None:
        return RecordStart(state, instruction, ())
    index = record.subgoal["index"]
    for action, high in zip(episode.expert_actions, episode.expert_subgoal_index, strict=True):
        if high < index:
            state, _ = step(scene, state, action)
    directive = annotation.high_descs[index] if annotation and index < len(annotation.high_descs) else ""
    return RecordStart(state, instruction, (directive,) if directive else ())
