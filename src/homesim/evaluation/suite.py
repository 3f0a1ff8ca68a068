"""What a benchmark suite is: one `Suite` says everything a command or a feature needs to know about it, one
field an extension point, each documented in a line (as Datasette's hook specifications are). The entries
are made in each suite's room (`evaluation/alfred/suite.py`, ...) and gathered in `evaluation.suites.SUITES`;
commands ask the entry and never compare a suite's name, so a new suite is one new entry and its rooms.

What is made above this layer is found through Python entry points, not imported from here: a suite's
trainer (group `homesim.trainers`, named after the suite), the agents its checkpoints hold (group
`homesim.checkpoints`, named `<suite>.<agent>`), agents that play any suite (group `homesim.agents`: the
language-model agent, `llm`) and tables that compare runs of any suite (group `homesim.comparisons`), all
declared in `pyproject.toml`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.table import Table

from homesim.agents.protocol import Agent
from homesim.agents.registry import make_agent
from homesim.evaluation.metrics import MetricSet
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.report import splits_table

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple  # a suite's own unit of work: (split, episode index, ...)
AGENTS = "homesim.agents"  # entry points: name -> function(config: EvaluationConfig, suite: Suite) -> Agent
COMPARISONS = "homesim.comparisons"  # entry points: name -> a `Comparison` of runs of any one suite


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


IMAGES = ("rgb", "depth", "segmentation", "mask")  # the egocentric pictures a replay may draw, for people


@dataclass
class Replay:
    """An episode played again step by step for people (`homesim view`): step 0 is the start, step k follows
    the k-th action. Pictures are drawn on demand (`image`, `top_down`) with a renderer of the `camera`
    settings that the caller keeps (one OpenGL context serves every replay); text games have none."""

    title: str  # the task as the agent was told it
    notes: tuple[str, ...]  # more of the episode: directives, the human's actions and request, ...
    actions: list[str]  # per step, what was done ("start" at step 0)
    success: list[bool]  # per step, whether it worked
    messages: list[str]  # per step, why it failed ("" where it did not)
    ending: str  # how the episode ended, in a line
    images: tuple[str, ...] = ()  # the pictures `image` draws, some of IMAGES
    camera: dict = field(default_factory=dict)  # the `render.Renderer` settings `image` needs
    image: Callable[[int, str, Any], Any] | None = None  # (step, picture, renderer) -> (H, W, 3) uint8
    top_down: Callable[[int], Any] | None = None  # step -> the map with the path so far and the goals, uint8
    series: dict[str, list[float | None]] = field(default_factory=dict)  # figures per step, by name
    segments: list[int] = field(default_factory=list)  # per step, the sub-goal worked on (index of `segment_names`)
    segment_names: list[str] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)  # per step, the text read and said (text games)

    @property
    def steps(self) -> int:
        return len(self.actions)


@dataclass
class GameView:
    """What a person playing sees now (`Game.view`)."""

    text: str  # the task, directives, and what the last action did (text games: everything read so far)
    image: Any = None  # the egocentric RGB view, (H, W, 3) uint8, or None (text games)
    commands: list[str] = field(default_factory=list)  # the commands that can be said now (text games)
    step: int = 0
    message: str = ""  # why the last action failed ("" when it did not)


class Game(Protocol):
    """One episode played by a person in the browser (`PersonPlay.game` makes it), under its suite's protocol."""

    episode: Any  # the episode played
    over: bool  # the episode ended (stopped, won, or a limit)

    def view(self) -> GameView: ...

    def act(self, action: str, pixel: tuple[int, int] | None = None) -> None:
        """An action (an aimed one with the (row, column) clicked on the view), or a command said."""

    def record(self) -> EpisodeRecord: ...  # the episode's record, as an evaluation writes it

    def demonstration(self) -> object | None: ...  # the episode with the person's play as its demonstration

    def close(self) -> None: ...


@dataclass(frozen=True)
class PersonPlay:
    """How a person plays the suite in the browser (`homesim play --web`): a key for each action that needs no
    aim; a click on the view for those aimed at what is under the cursor; or commands typed."""

    keys: Mapping[str, str]  # a key (as the browser names it: "ArrowUp", "q", "Enter") -> the action it takes
    aimed: tuple[str, ...]  # actions aimed by a click on the view (turned into the pixel mask there)
    typed: bool  # commands are typed, the admissible ones offered
    # (episode, scenes, split, the run's suite options) -> a game of that episode
    game: Callable[[Any, Mapping[str, Any], str, Mapping[str, object]], Game]
    settings: Mapping[str, object] = field(default_factory=dict)  # a person's run.json beyond the suite's defaults


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


@dataclass(frozen=True)
class TextPlay:
    """How an agent that reads and writes text (a language model, `homesim.llm`) plays the suite: the rules in
    words, what it may say now, what a command said does, and, where an observation carries the expert's hint,
    the expert's command with the sub-goal it serves in words (example games are made of these). What the
    agent reads each step is the suite's `observation_text`."""

    rules: Callable[[dict], str]  # the game's rules for a system prompt, from an episode's first observation
    commands: Callable[[dict], list[str]]  # the commands that may be said now (the admissible ones), in order
    action: Callable[[str], object]  # a command (or text that is none) as the suite's runner takes an answer
    expert: Callable[[dict], tuple[str, str]]  # (command, sub-goal in words) from an observation with the hint
    stop: str  # the command that ends an episode (giving up)
    pixels: tuple[str, ...] = ()  # the images `observation_text` reads (the agent asks for them)


@dataclass(frozen=True)
class Breakdown:
    """What a table of one run's episodes splits them by, as the suite's papers do (ALFWorld: task type)."""

    name: str  # the column's heading
    of: Callable[[EpisodeRecord], str]  # an episode's group
    order: tuple[str, ...] = ()  # the groups in the papers' order (others follow, sorted)


def _no_options(given: Mapping[str, object], own: Mapping[str, object]) -> dict:
    return {}


def _no_extras(records: Sequence[EpisodeRecord]) -> dict:
    return {}


def _never(path: Path) -> bool:
    return False


def _nothing_to_warm(splits: Mapping[str, Sequence], scenes: Mapping) -> None:
    return None


def _all_count(records: Sequence[EpisodeRecord], options: Mapping[str, object]) -> list[EpisodeRecord]:
    return list(records)


def _nothing_to_check(record: EpisodeRecord, config: Any, splits: Mapping | None, scenes: Mapping | None) -> list[str]:
    return []



@functools.cache
def agent_entry_points() -> tuple:
    """The `homesim.agents` entry points, read once: reading them scans every installed package (tens of ms),
    and a remote evaluation makes an agent per episode played at once."""
    return tuple(entry_points(group=AGENTS))

@dataclass(frozen=True)
class Suite:
    """A benchmark: how its episodes are read, played, scored, shown and hidden. Evaluation settings that
    only some suites have (`options`) are checked by the suite, so the command line needs no suite's name."""

    name: str  # the registry's key, as dataset.json, run.json and records spell it
    title: str  # the benchmark as its paper names it (help panels, tables, pages)
    env_ids: tuple[str, ...]  # its Gymnasium envs (`import homesim.envs` registers them)
    episode_type: type  # its episodes: `to_dict()`, `from_dict(data)`, `scene_id` (None: it carries its world)
    work_items: Callable[[Mapping[str, Sequence], EvaluationConfig], list[WorkItem]]  # the units of a run, in order
    # (splits, scenes, config, agent=None): plays with `agent` if given, else with the one `config.agent` names
    runner: Callable[..., SuiteRunner]
    failed: Callable[[Mapping[str, Sequence], Mapping, WorkItem, str], EpisodeRecord]  # a record for an unplayed item
    metrics: MetricSet  # its summary figures, from records alone
    max_steps: int  # its protocol's step limit
    max_fails: int | None  # failed actions that end an episode (None: they do not)
    stop_action: str = "Stop"  # what an agent answers to end an episode (an action file's agent, past its end)
    agents: Mapping[str, Callable[..., Any]] = field(default_factory=dict)  # built-in agents by name, made with seed=
    table: Callable[[dict, str], Table] = splits_table  # one run's summary as a table, under a title
    leaderboard: tuple[str, ...] = ()  # the summary's figures a leaderboard shows; the first ranks (higher is better)
    breakdowns: tuple[str, ...] = ()  # the summary's per-kind figures a submission's page shows (by_task_type...)
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
    template: str = ""  # the module of a working agent to start from (`homesim new-agent FILE --suite NAME`)
    text_play: TextPlay | None = None  # how a text agent (a language model) plays it (None: it cannot)
    task_type: Callable[[object], str] = lambda episode: ""  # an episode's task type, as its records name it
    breakdown: Breakdown = Breakdown("task type", lambda record: record.task_type)  # per-kind tables' split
    # (splits, scenes): builds what its runs compute once per scene and keep on it (ObjectNav: the lattice and the
    # goals' distance tables), so that a server that keeps a split loaded spares its remote runs that work
    warm: Callable[[Mapping[str, Sequence], Mapping], None] = _nothing_to_warm

    def agent(self, config: EvaluationConfig) -> Agent:
        """The agent `config.agent` names: one of the built-in `agents`, an agent of the `homesim.agents` entry
        points (made from the config: its seed and `agent_options`), a checkpoint (`*.pt`) or `module:Class`."""
        if config.agent in self.agents:
            return self.agents[config.agent](seed=config.seed)
        found = [e for e in agent_entry_points() if e.name == config.agent]
        if found:
            return found[0].load()(config, self)
        named = dict(self.agents) | {e.name: None for e in agent_entry_points()}
        return make_agent(config.agent, config.seed, named, self.name, self.stop_action)
    episode_id: Callable[[Any], str] = lambda episode: episode.id  # an episode's id (the viewer, the server)
    # the viewer (homesim view): (episode, scenes, its record or None for its demonstration, the run's options)
    # -> the episode played again step by step
    replay: Callable[[Any, Mapping[str, Any], EpisodeRecord | None, Mapping[str, object]], Replay] | None = None
    success: str = "task_success"  # the summary's figure of the share of episodes that succeeded (plots)
    person: PersonPlay | None = None  # how a person plays it in the browser (homesim play --web)
    # people write its demonstrations' directives (homesim annotate: a goal, and one per sub-goal segment of
    # its replay's `segments`), kept in the dataset folder (`datasets.annotations`)
    annotatable: bool = False
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
