"""What a benchmark suite is: one `Suite` says everything a command or a feature needs to know about it, one
field an extension point, each documented in a line (as Datasette's hook specifications are). The entries
are made in each suite's room (`evaluation/alfred/suite.py`, ...) and gathered in `evaluation.suites.SUITES`;
commands ask the entry and never compare a suite's name, so a new suite is one new entry and its rooms.

What is made above this layer is found through Python entry points, not imported from here: a suite's
trainer (group `homesim.trainers`, named after the suite) and the agents its checkpoints hold (group
`homesim.checkpoints`, named `<suite>.<agent>`), both declared in `pyproject.toml`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.table import Table

from homesim.evaluation.metrics import MetricSet
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.report import splits_table

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple  # a suite's own unit of work: (split, episode index, ...)


class SuiteRunner(Protocol):
    def run(self, item: WorkItem) -> EpisodeRecord: ...


class OptionError(ValueError):
    """A suite's evaluation option that does not fit: `option` is the command line's name for it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class Comparison:
    """A table that compares evaluations of one suite (`homesim report RUN... --table NAME`)."""

    name: str  # what --table calls it
    help: str  # one line for --help
    # (runs: (folder, config, records) each, split or None) -> (tables, figures written with --json, notes)
    build: Callable[
        [Sequence[tuple[Path, Any, Sequence[EpisodeRecord]]], str | None], tuple[list[Table], dict, list[str]]
    ]


@dataclass(frozen=True)
class Protocol:
    """A named set of a suite's evaluation rules (`homesim evaluate --protocol NAME`), as data: the settings
    it fixes among the suite's options (`Suite.options` checks them; a run's `run.json` keeps the name and the
    settings). Whose rules they are is said in `help`, with what differs from the suite's other protocols."""

    name: str
    help: str  # one line for --help and tables
    settings: Mapping[str, object] = field(default_factory=dict)  # the suite's options it sets, JSON values
    interfaces: tuple[str, ...] = ()  # the interfaces its rules apply to (empty: all)


CUSTOM = "custom"  # the protocol of a run whose options were set one by one, not as a named protocol


@dataclass(frozen=True)
class RecordDrawing:
    """How a recorded episode is drawn (`homesim render-episode RECORDS`; the viewer)."""

    formats: tuple[str, ...]  # the files it writes, by suffix
    # (records file, 1-based record number, the episodes the evaluation read or None, ALFRED-style layouts or
    # None, out file, frames per second) -> what was written, in one line
    draw: Callable[[Path, int, Path | None, Path | None, Path, float], str]


def _no_options(given: Mapping[str, object], own: Mapping[str, object]) -> dict:
    return {}


def _no_extras(records: Sequence[EpisodeRecord]) -> dict:
    return {}


def _never(path: Path) -> bool:
    return False


def _all_count(records: Sequence[EpisodeRecord], options: Mapping[str, object]) -> list[EpisodeRecord]:
    return list(records)


def _nothing_to_check(record: EpisodeRecord, config: Any, splits: Mapping | None, scenes: Mapping | None) -> list[str]:
    return []


@dataclass(frozen=True)
class Suite:
    """A benchmark: how its episodes are read, played, scored, shown and hidden. Evaluation settings that
    only some suites have (`options`) are checked by the suite, so the command line needs no suite's name."""

    name: str  # the registry's key, as dataset.json, run.json and records spell it
    title: str  # the benchmark as its paper names it (help panels, tables, pages)
    env_ids: tuple[str, ...]  # its Gymnasium envs (`import homesim.envs` registers them)
    episode_type: type  # its episodes: `to_dict()`, `from_dict(data)`, `scene_id` (None: it carries its world)
    work_items: Callable[[Mapping[str, Sequence], EvaluationConfig], list[WorkItem]]  # the units of a run, in order
    runner: Callable[[Mapping[str, Sequence], Mapping, EvaluationConfig], SuiteRunner]  # (splits, scenes, config)
    failed: Callable[[Mapping[str, Sequence], Mapping, WorkItem, str], EpisodeRecord]  # a record for an unplayed item
    metrics: MetricSet  # its summary figures, from records alone
    max_steps: int  # its protocol's step limit
    max_fails: int | None  # failed actions that end an episode (None: they do not)
    agents: Mapping[str, Callable[..., Any]] = field(default_factory=dict)  # built-in agents by name, made with seed=
    table: Callable[[dict, str], Table] = splits_table  # one run's summary as a table, under a title
    summary_extras: Callable[[Sequence[EpisodeRecord]], dict] = _no_extras  # more of summary.json, from records
    comparisons: tuple[Comparison, ...] = ()  # tables comparing runs
    interfaces: tuple[str, ...] = ("embodied",)  # how agents play it (--interface); the first is the default
    pixels: tuple[str, ...] = ()  # the images an evaluation may give its agents (--pixels)
    interactions: tuple[str, ...] = ("oracle",)  # how agents aim interactions (--interaction); the first is the default
    subgoals: bool = False  # it has sub-goal evaluation (--subgoals)
    ablations: bool = False  # agents may run under observation filters (--ablation)
    # its own settings from those given (None: not given) and the agent's own (a checkpoint's), checked
    options: Callable[[Mapping[str, object], Mapping[str, object]], dict] = _no_options
    option_names: tuple[str, ...] = ()  # the settings `options` reads (an agent's own: attributes of these names)
    training_data: Callable[[Path], bool] = _never  # whether a path holds its learned baselines' training data
    hidden: tuple[str, ...] = ()  # fields of an episode's `to_dict()` an agent never sees (a challenge keeps them)
    observation_text: Callable[[dict], str] = lambda observation: str(observation)  # an observation as text
    drawing: RecordDrawing | None = None  # how a recorded episode is drawn (None: its episodes are text)
    has_builtin: bool = False  # it has built-in episodes (no --episodes needed)
    protocols: tuple[Protocol, ...] = ()  # its named rule sets (--protocol); the first is the default
    # the records a run's figures count, under its options (ALFRED's code drops episodes that stop at step 0)
    counted: Callable[[Sequence[EpisodeRecord], Mapping[str, object]], list[EpisodeRecord]] = _all_count
    # what in a record disagrees with itself under the run's config (`homesim verify`), and, given the episodes
    # the run read (splits, scenes) or None, with its episode played or measured again: one line each
    check_record: Callable[[EpisodeRecord, Any, Mapping | None, Mapping | None], list[str]] = _nothing_to_check

    def protocol(self, name: str) -> Protocol:
        """The named protocol (ValueError naming the known ones)."""
        for protocol in self.protocols:
            if protocol.name == name:
                return protocol
        known = ", ".join(p.name for p in self.protocols) or "none"
        raise ValueError(f"{self.title} has no protocol {name!r}; known: {known}")

    def public(self, episode: object) -> dict:
        """An episode as an agent may see it: its `to_dict()` without the hidden fields."""
        return {k: v for k, v in episode.to_dict().items() if k not in self.hidden}
