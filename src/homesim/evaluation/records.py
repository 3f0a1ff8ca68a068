"""Episode records: what an evaluation writes per episode played, and all metrics are computed from.

One record type serves every suite: the fields every suite has (the episode, its split and task type, the
steps taken and how each went, success, path length against the expert's, how it ended), ALFRED's goal
conditions, and `measures`, a suite's own per-episode figures (ObjectNav's SPL, HandMeThat's score, ...),
which its metric set reads.

A records file is JSON lines, one record per line, appended as episodes finish, so an interrupted run
keeps every record it finished.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import numpy as np
from pydantic import Field
from typing_extensions import TypedDict  # (pydantic reads it on Python 3.11; typing's only from 3.12)

from homesim.agents.replay import ActionFile
from homesim.errors import DataError
from homesim.files import parse_json, regular_file, validated
from homesim.render.masks import ALFRED_SHAPE, encode, read_runs

Count = Annotated[int, Field(ge=0, le=10**9)]  # what a record counts (read back, checked: never negative)
Pair = Annotated[list, Field(min_length=2, max_length=2)]  # a step's [action, target] or a failure's [step, why]


class SubgoalResult(TypedDict):
    index: Count
    action: str
    success: bool


MASK_PREFIX = "mask:"  # a mask target as a record writes it: "mask:<pixels>:<ALFRED's runs>" (`written_mask`)


@dataclass(frozen=True)
class EpisodeRecord:
    episode_id: str
    annotation: Count  # which human annotation (ALFRED's repeat_idx) the agent was given
    split: str
    task_type: str
    actions: list[Pair]  # [action name, target or None] per step; a mask target as `written_mask` writes it;
    # in the text game, [command, None] per command
    action_success: list[bool]
    failures: list[Pair]  # [step index, why] for each failed step
    conditions_met: Count  # goal conditions at the end of the episode
    conditions_total: Count
    goal_satisfied: bool
    path_length: Count  # low-level steps taken, failed ones included, the stop excluded (ALFRED's t)
    reference_length: Count  # the expert demonstration's length (ALFRED's L*)
    stopped: bool
    end_reason: str  # "stop", "max_steps", "max_fails"; in the text game also "goal_satisfied", "max_commands";
    # "agent_error": the agent raised (the exception is the last of `failures`); "worker_failed"
    subgoal: SubgoalResult | None = field(default=None)  # sub-goal evaluation: {"index", "action", "success"}
    commands: int | None = field(default=None)  # text commands said (the text game only)
    suite: str = "alfred"
    measures: dict = field(default_factory=dict)  # the suite's own per-episode figures, JSON values

    def to_json(self) -> str:
        return json.dumps(vars(self), sort_keys=True)  # its fields hold JSON values only: asdict's copy is not needed

    @property
    def key(self) -> tuple:
        return self.split, self.episode_id, self.annotation, (self.subgoal or {}).get("index", -1)


def unplayed_record(
    episode_id: str,
    split: str,
    task_type: str,
    reason: str,
    reference_length: int,
    suite: str,
    annotation: int = 0,
    conditions_total: int = 1,
    **fields: object,
) -> EpisodeRecord:
    """The record of a work item no worker could play (end reason "worker_failed"): a failed episode with
    the reason, kept in the records so the run's figures still count it. `fields`: the suite's own
    (`measures`, `commands`, `subgoal`)."""
    return EpisodeRecord(
        episode_id=episode_id,
        annotation=annotation,
        split=split,
        task_type=task_type,
        actions=[],
        action_success=[],
        failures=[[0, reason]],
        conditions_met=0,
        conditions_total=conditions_total,
        goal_satisfied=False,
        path_length=0,
        reference_length=reference_length,
        stopped=False,
        end_reason="worker_failed",
        suite=suite,
        **fields,
    )


def parse_record(line: str, where: str) -> EpisodeRecord:
    """One line of a records file, checked field by field (a DataError naming `where` and the field)."""
    data = parse_json(line, where)
    if not isinstance(data, dict):
        raise DataError(where, "(record)", "not an episode record: expected a JSON object")
    return validated(EpisodeRecord, data, where)


def read_records(path: str | Path) -> list[EpisodeRecord]:
    records = []
    try:
        with open(regular_file(path), encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    records.append(parse_record(line, f"{path}:{number}"))
    except UnicodeDecodeError as e:
        raise DataError(str(path), "(file)", f"not text: {e}") from None
    return records


class NotPlayable(ValueError):
    """A record that cannot be played again, and why (one line)."""


def is_records_file(path: Path) -> bool:
    """Whether the file's first line is an episode record (a records.jsonl may hold just one)."""
    with open(regular_file(path), encoding="utf-8", errors="replace") as lines:
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


def find_recorded_episode(
    record: EpisodeRecord, splits: Mapping[str, Sequence], source: str, id_of: Callable
) -> object:
    """The record's episode among the episodes the evaluation read (its own split first), by `id_of(episode)`."""
    ordered = [splits.get(record.split, [])] + [episodes for name, episodes in splits.items() if name != record.split]
    for episodes in ordered:
        for episode in episodes:
            if id_of(episode) == record.episode_id:
                return episode
    raise NotPlayable(f"episode {record.episode_id} (split {record.split}) is not in {source}")


def written_mask(target: object) -> str:
    """A mask target as a record keeps it: "mask:<pixels>:<runs>" with ALFRED's runs as JSON, for a mask of
    ALFRED's frame (an array of booleans or 0/1, or its runs) so that it can be played again; "mask:<pixels>"
    for another array (its size only); "mask:unreadable" for runs that are not runs of such a mask."""
    if isinstance(target, list):
        mask, problem = read_runs(target)
        if problem is not None:
            return f"{MASK_PREFIX}unreadable"
    else:
        mask = np.asarray(target)
        if mask.shape != ALFRED_SHAPE or not (mask.dtype == bool or np.isin(mask, (0, 1)).all()):
            return f"{MASK_PREFIX}{int(np.count_nonzero(mask))}"
    runs = encode(mask)
    return f"{MASK_PREFIX}{sum(length for _, length in runs)}:{json.dumps(runs, separators=(',', ':'))}"


def runs_of(written: str) -> list[list[int]] | None:
    """The runs a record's mask target keeps, or None where it keeps none."""
    _, _, runs = written.removeprefix(MASK_PREFIX).partition(":")
    return json.loads(runs) if runs else None


def action_file_of(records: Sequence[EpisodeRecord], suite: str, stop: str, interaction: str = "oracle") -> ActionFile:
    """What the records' agent did, as an action file that plays it again (`stop` after a record that stopped);
    sub-goal records (which begin after the expert's prefix) cannot be. A run aimed by masks (`interaction`
    "mask") gives the mask form: each mask as ALFRED's runs, as the record keeps it."""
    episodes = {}
    for r in records:
        if r.subgoal is not None:
            raise ValueError(f"{r.episode_id}: a sub-goal evaluation's record, not a whole episode's")
        actions = tuple(tuple(a) for a in r.actions)
        if interaction == "mask":
            actions = tuple(_with_runs(a, r, i) for i, a in enumerate(actions))
        episodes[r.episode_id, r.annotation] = actions + ((stop,) if r.stopped else ())
    return ActionFile(suite, episodes, interaction)


def _with_runs(action: tuple, record: EpisodeRecord, step: int) -> tuple:
    name, target = action
    if not (isinstance(target, str) and target.startswith(MASK_PREFIX)):
        return action
    runs = runs_of(target)
    if runs is None:
        raise ValueError(
            f"{record.episode_id} step {step + 1}: the record keeps only {target!r}, not the mask (a record written"
            " before records kept masks, or a mask not of a 300x300 frame): no action file can hold it"
        )
    return (name, runs)
