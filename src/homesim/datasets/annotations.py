"""Directives people wrote for a dataset's demonstrations (`homesim annotate`), kept in the dataset folder beside
its episodes and read back with them, so every command that reads directives reads them:

    DATASET/annotations/<split>.jsonl   one line per annotation written: {"episode", "task_desc",
                                        "high_descs", "annotator", "time"}, in the order they were saved

A line is only ever appended, whole, under an exclusive lock (`fcntl.flock`): annotators working at once on
one dataset, in one process or several, never lose each other's work, and two annotations of one episode are
both kept. Reading adds each line's annotation after the episode's own (`AlfredEpisode.annotations`); a line
that is not an annotation, or names an episode the split lacks, is a DataError naming the file and line.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from homesim.errors import DataError
from homesim.tasks.alfred import Annotation

FOLDER = "annotations"
FIELDS = {"episode", "task_desc", "high_descs", "annotator", "time"}


def annotations_file(dataset: Path, split: str) -> Path:
    return Path(dataset) / FOLDER / f"{split}.jsonl"


def write_annotation(
    dataset: Path, split: str, episode_id: str, goal: str, directives: Sequence[str], annotator: str
) -> dict:
    """Appends one annotation (stamped with the time, UTC) and returns its line as written."""
    line = {
        "episode": episode_id,
        "task_desc": goal,
        "high_descs": list(directives),
        "annotator": annotator,
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    path = annotations_file(dataset, split)
    path.parent.mkdir(exist_ok=True)
    data = (json.dumps(line, sort_keys=True) + "\n").encode()
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.write(descriptor, data)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)  # the lock goes with it
    return line


def read_annotations(dataset: Path, split: str) -> list[dict]:
    """The annotations written for a split, in the order they were saved ([] when none were)."""
    path = annotations_file(dataset, split)
    if not path.exists():
        return []
    found = []
    with open(path, encoding="utf-8") as lines:
        fcntl.flock(lines.fileno(), fcntl.LOCK_SH)  # never half a line being appended
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as e:
                raise DataError(f"{path}:{number}", "(annotation)", f"not JSON: {e}") from e
            if not isinstance(line, dict) or not FIELDS <= line.keys() or not isinstance(line["high_descs"], list):
                raise DataError(f"{path}:{number}", "(annotation)", f"expected the fields {', '.join(sorted(FIELDS))}")
            found.append(line | {"line": number})
    return found


def with_annotations(dataset: Path, split: str, episodes: list) -> list:
    """The split's episodes, each with the annotations written for it added after its own."""
    written = read_annotations(dataset, split)
    if not written:
        return episodes
    if episodes and not hasattr(episodes[0], "annotations"):
        raise DataError(str(annotations_file(dataset, split)), "(file)", "this dataset's episodes carry no directives")
    by_id = {episode.id: k for k, episode in enumerate(episodes)}
    extra: dict[int, list[Annotation]] = {}
    for line in written:
        if line["episode"] not in by_id:
            where = f"{annotations_file(dataset, split)}:{line['line']}"
            raise DataError(where, "episode", f"{line['episode']!r} is not an episode of split {split!r}")
        extra.setdefault(by_id[line["episode"]], []).append(Annotation(line["task_desc"], tuple(line["high_descs"])))
    return [replace(e, annotations=e.annotations + tuple(extra[k])) if k in extra else e for k, e in enumerate(episodes)]


MIN_WORDS = 3  # the fewest words a goal or an instruction may have


def check_annotation(goal: str, directives: Sequence[str], segments: int, annotator: str) -> list[str]:
    """What is wrong with an annotation before it is saved, one line each ([] when nothing is): an annotator id,
    a goal, exactly one instruction per sub-goal segment, none empty, each of MIN_WORDS words or more."""
    problems = [] if segments else ["the episode has no demonstration to describe"]
    if not annotator.strip():
        problems.append("give your annotator id")
    if not goal.strip():
        problems.append("the goal is empty")
    elif len(goal.split()) < MIN_WORDS:
        problems.append(f"the goal has fewer than {MIN_WORDS} words")
    if len(directives) != segments:
        problems.append(f"one instruction per segment: {segments} segments, {len(directives)} instructions")
    for k, directive in enumerate(directives, start=1):
        if not directive.strip():
            problems.append(f"segment {k} has no instruction")
        elif len(directive.split()) < MIN_WORDS:
            problems.append(f"segment {k}'s instruction has fewer than {MIN_WORDS} words")
    return problems
