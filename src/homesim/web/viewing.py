"""What `homesim view` shows, read once before it serves: each PATH a run folder (`run.json`, `records.jsonl`,
as `homesim evaluate` writes it) or a dataset folder (its episodes' demonstrations). Every record is matched
with its episode in the source the run read (the first `--episodes` of its suite; none: the suite's built-in
episodes); a record whose episode is not there is kept and shown as missing, with why. A path that is neither
a run nor a dataset folder is one `DataError`.

The episode table's filters are the same for every suite: suite, source (the agent), split, success, and
each breakdown of the suite's metrics (ALFRED's task type, ObjectNav's difficulty and category, HandMeThat's
level and quest type), read off the records as the metrics read them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from homesim.datasets.folder import is_dataset
from homesim.datasets.sources import Episodes, kind_of, read_episodes
from homesim.errors import DataError
from homesim.evaluation.evaluate import EvaluationConfig, read_run, summary_of
from homesim.evaluation.records import EpisodeRecord, NotPlayable, read_records
from homesim.evaluation.suite import Replay
from homesim.evaluation.suites import Suite, suite_named

DEMONSTRATIONS = "demonstrations"  # a dataset folder's "agent"
REPLAYS_KEPT = 64  # episodes played again and kept (each keeps its states: a few MB at most)


@dataclass
class Row:
    """One line of the episode table: a record of a run, or an episode of a dataset."""

    source: int  # the index of its source
    number: int  # its place in the source, from 1 (the address of its page)
    split: str
    episode_id: str
    annotation: int
    task_type: str
    groups: dict[str, str]  # breakdown -> the group it falls in
    success: bool | None  # None: a demonstration, not an evaluated episode
    steps: int
    ending: str
    record: EpisodeRecord | None
    episode: object | None  # None: missing from the episodes given


@dataclass
class Source:
    """A run folder or a dataset folder, with its rows."""

    index: int
    path: Path
    kind: str  # "run" or "dataset"
    suite: Suite
    agent: str
    rows: list[Row]
    scenes: Mapping
    options: dict = field(default_factory=dict)  # the run's suite options (the replay plays in them)
    summary: dict | None = None  # a run's, recomputed from its records (figures with 95% intervals)
    missing: str = ""  # why some of its records' episodes are missing ("" when none is)

    @property
    def name(self) -> str:
        return self.agent if self.path.name == self.agent else f"{self.agent} ({self.path.name})"


@dataclass(frozen=True)
class Found:
    """The episodes a suite's runs read, by (split, id) and by id, or why there are none."""

    by_key: dict[tuple[str, str], object]
    by_id: dict[str, object]
    scenes: Mapping
    problem: str


def _read(suite: Suite, episodes: Sequence[Path], layouts: Path | None) -> Found:
    """The first of the sources given that holds the suite's episodes (none given: its built-in episodes)."""
    problems = []
    for path in episodes or [None]:
        try:
            read = read_episodes(path, layouts, None, suite.name)
            break
        except DataError as e:
            problems.append(str(e))
    else:
        return Found({}, {}, {}, "; ".join(problems))
    by_key = {(split, suite.episode_id(e)): e for split, found in read.splits.items() for e in found}
    by_id = {}
    for (_, episode_id), episode in by_key.items():
        by_id.setdefault(episode_id, episode)
    return Found(by_key, by_id, read.scenes, "")


def _run_folder(path: Path) -> Path | None:
    folder = path if path.is_dir() else path.parent
    return folder if (folder / "run.json").is_file() and (folder / "records.jsonl").is_file() else None


def _groups(suite: Suite, record: EpisodeRecord) -> dict[str, str]:
    return {name: str(group_of(record)) for name, group_of in suite.metrics.breakdowns.items()}


def _run(index: int, folder: Path, episodes: Sequence[Path], layouts: Path | None, found: dict[str, Found]) -> Source:
    try:
        config = read_run(folder)
    except (OSError, json.JSONDecodeError, TypeError, ValueError) as e:
        raise DataError(str(folder / "run.json"), "(file)", f"not a run's settings: {e}") from e
    records = read_records(folder / "records.jsonl")
    suite = suite_named(config.suite)
    if suite.name not in found:
        found[suite.name] = _read(suite, episodes, layouts)
    read = found[suite.name]
    rows = []
    for number, record in enumerate(records, start=1):
        episode = read.by_key.get((record.split, record.episode_id)) or read.by_id.get(record.episode_id)
        rows.append(
            Row(index, number, record.split, record.episode_id, record.annotation, record.task_type,
                _groups(suite, record), record.goal_satisfied, record.path_length, record.end_reason, record, episode)
        )  # fmt: skip
    absent = sum(row.episode is None for row in rows)
    where = " or ".join(map(str, episodes)) if episodes else f"the built-in {suite.title} episodes"
    missing = f"{absent} of {len(rows)} episodes are not in {where}" + (f" ({read.problem})" if read.problem else "")
    summary = summary_of(records, config) if records else None
    return Source(index, folder, "run", suite, config.agent, rows, read.scenes, dict(config.options), summary,
                  missing if absent else "")  # fmt: skip


def episode_rows(index: int, read: Episodes, suite: Suite) -> list[Row]:
    """A row per episode of a source, in its suite's order; their groups are those of the record of the episode
    unplayed (`Suite.failed`), which carries its kinds as a played one would."""
    items = suite.work_items(read.splits, EvaluationConfig(suite=suite.name))
    rows, seen = [], set()
    for item in items:
        split, position = item[0], item[1]
        if (split, position) in seen:
            continue
        seen.add((split, position))
        episode = read.splits[split][position]
        kinds = suite.failed(read.splits, read.scenes, item, DEMONSTRATIONS)
        rows.append(
            Row(index, len(rows) + 1, split, suite.episode_id(episode), 0, kinds.task_type, _groups(suite, kinds),
                None, kinds.reference_length, DEMONSTRATIONS, None, episode)
        )  # fmt: skip
    return rows


def _dataset(index: int, folder: Path) -> Source:
    read = read_episodes(folder)
    suite = suite_named(read.suite)
    return Source(index, folder, "dataset", suite, DEMONSTRATIONS, episode_rows(index, read, suite), read.scenes)


def load_sources(paths: Sequence[Path], episodes: Sequence[Path] = (), layouts: Path | None = None) -> list[Source]:
    """Every path as a source, in order; a path that is neither a run nor a dataset folder is a DataError. A
    run's episodes are found in the first of `episodes` that holds its suite's."""
    for path in episodes:
        kind_of(path)  # a DataError for a path that holds no episodes at all
    found: dict[str, Found] = {}
    sources = []
    for path in paths:
        folder = _run_folder(path)
        if folder is not None:
            sources.append(_run(len(sources), folder, episodes, layouts, found))
        elif is_dataset(path):
            sources.append(_dataset(len(sources), path))
        else:
            raise DataError(
                str(path),
                "(path)",
                "neither a run folder (run.json and records.jsonl) nor a dataset folder (dataset.json)",
            )
    return sources


# --- the table's filters -----------------------------------------------------------------------------------


def filter_names(sources: Sequence[Source]) -> list[str]:
    """The filters the table offers: suite, source, split, success and every breakdown of the suites shown."""
    breakdowns = dict.fromkeys(name for s in sources for name in s.suite.metrics.breakdowns)
    return ["suite", "source", "split", "success", *breakdowns]


def value_of(row: Row, source: Source, name: str) -> str:
    match name:
        case "suite":
            return source.suite.name
        case "source":
            return str(source.index)
        case "split":
            return row.split
        case "success":
            return "-" if row.success is None else "yes" if row.success else "no"
    return row.groups.get(name, "")


def filtered(sources: Sequence[Source], rows: Sequence[Row], chosen: Mapping[str, str]) -> list[Row]:
    """The rows every chosen filter lets through (an empty choice lets all through)."""
    wanted = {name: value for name, value in chosen.items() if value}
    return [r for r in rows if all(value_of(r, sources[r.source], n) == v for n, v in wanted.items())]


def choices(sources: Sequence[Source], rows: Sequence[Row]) -> dict[str, list[tuple[str, str]]]:
    """Each filter's values among the rows, as (value, label)."""
    found: dict[str, dict[str, str]] = {name: {} for name in filter_names(sources)}
    for row in rows:
        source = sources[row.source]
        for name in found:
            value = value_of(row, source, name)
            if value:
                found[name][value] = source.name if name == "source" else value
    return {name: sorted(values.items(), key=lambda kv: kv[1]) for name, values in found.items()}


def partners(sources: Sequence[Source], row: Row) -> list[Row]:
    """The same episode in the other sources (the same annotation first), for a side-by-side view."""
    found = []
    for source in sources:
        if source.index == row.source:
            continue
        same = [r for r in source.rows if r.episode_id == row.episode_id and r.split == row.split]
        same.sort(key=lambda r: r.annotation != row.annotation)
        found += same[:1]
    return found


# --- replays -------------------------------------------------------------------------------------------------


class Replays:
    """Rows played again (`Suite.replay`), the latest REPLAYS_KEPT kept; safe to share between threads."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = sources
        self.kept: OrderedDict[tuple[int, int], Replay] = OrderedDict()
        self.lock = threading.Lock()

    def of(self, row: Row) -> Replay:
        """The row's replay; NotPlayable (one line) for a missing episode or a record that cannot be played."""
        key = (row.source, row.number)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        source = self.sources[row.source]
        if row.episode is None:
            raise NotPlayable(f"episode {row.episode_id} (split {row.split}) is missing: {source.missing}")
        if source.suite.replay is None:
            raise NotPlayable(f"{source.suite.title}'s episodes cannot be played again here")
        replay = source.suite.replay(row.episode, source.scenes, row.record, source.options)
        with self.lock:
            self.kept[key] = replay
            while len(self.kept) > REPLAYS_KEPT:
                self.kept.popitem(last=False)
        return replay
