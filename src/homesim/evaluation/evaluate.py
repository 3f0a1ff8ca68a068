"""Evaluates an agent on a set of episodes, in one process or several, writing records as they finish.

Work items are (split, episode, annotation[, sub-goal]). Records are appended to `records.jsonl` the
moment an episode finishes (an interrupted run keeps them all); at the end the file is rewritten in
a fixed order, so that `--workers N` gives the same bytes as `--workers 1`. Every agent is rebuilt
per worker and reset per episode; agents seed themselves from the episode, not from the order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

from homesim.agents.registry import load_agent
from homesim.datasets.alfred import AlfredEpisode
from homesim.envs.alfred import MAX_FAILS, MAX_STEPS, AlfredEnv
from homesim.envs.alfred_text import AlfredTextEnv
from homesim.evaluation.metrics import summarize
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.runner import run_episode
from homesim.evaluation.subgoals import run_subgoal, summarize_subgoals
from homesim.evaluation.text_runner import run_text_episode
from homesim.world.scene import Scene

CHUNK = 8  # work items per task sent to a worker process
INTERFACES = ("embodied", "text")


@dataclass(frozen=True)
class EvaluationConfig:
    agent: str = "expert"
    seed: int = 0
    observation_filter: str = "none"
    subgoals: bool = False
    max_steps: int = MAX_STEPS
    max_fails: int = MAX_FAILS
    interaction: str = "oracle"  # or "mask": agents aim interactions with pixel masks
    pixels: tuple[str, ...] = ()  # egocentric images in the observations: rgb, depth, segmentation
    interface: str = "embodied"  # or "text": the ALFWorld-style text game over the same episodes

    def __post_init__(self) -> None:
        if self.interface not in INTERFACES:
            raise ValueError(f"unknown interface {self.interface!r}; known: {', '.join(INTERFACES)}")
        if self.interface == "text" and (self.subgoals or self.pixels or self.interaction != "oracle"):
            raise ValueError("the text interface has no sub-goal evaluation, pixels or masks")


WorkItem = tuple[str, int, int, int | None]  # split, episode index, annotation, sub-goal index


def work_items(splits: Mapping[str, Sequence[AlfredEpisode]], subgoals: bool) -> list[WorkItem]:
    items = []
    for split, episodes in sorted(splits.items()):
        for i, episode in enumerate(episodes):
            for annotation in range(max(1, len(episode.annotations))):
                if subgoals:
                    items += [(split, i, annotation, k) for k in range(len(episode.subgoals))]
                else:
                    items.append((split, i, annotation, None))
    return items


class Evaluator:
    """Runs work items with one env and one agent (one per process)."""

    def __init__(
        self, splits: Mapping[str, Sequence[AlfredEpisode]], scenes: Mapping[str, Scene], config: EvaluationConfig
    ):
        self.splits, self.config = splits, config
        self.agent = load_agent(config.agent, seed=config.seed)
        episodes = [e for split in splits.values() for e in split]
        # Sub-goal evaluation scores ALFRED's own sub-goals: there the expert replays the demonstration's
        # segment; the live expert would head for the whole task by its own route.
        hints = getattr(self.agent, "needs_expert_hints", False) and not config.subgoals
        if config.interface == "text":
            self.env = AlfredTextEnv(episodes, scenes, max_steps=config.max_steps)
        else:
            self.env = AlfredEnv(
                episodes, scenes, config.max_steps, config.max_fails, hints, config.pixels, config.interaction
            )

    def run(self, item: WorkItem) -> EpisodeRecord:
        split, index, annotation, subgoal = item
        episode = self.splits[split][index]
        if self.config.interface == "text":
            return run_text_episode(self.env, self.agent, episode, annotation, split, self.config.observation_filter)
        if subgoal is None:
            return run_episode(self.env, self.agent, episode, annotation, split, self.config.observation_filter)
        return run_subgoal(self.env, self.agent, episode, subgoal, annotation, split, self.config.observation_filter)


_worker: Evaluator | None = None


def _start_worker(splits: Mapping, scenes: Mapping, config: EvaluationConfig) -> None:
    global _worker
    _worker = Evaluator(splits, scenes, config)


def _run_chunk(items: list[WorkItem]) -> list[EpisodeRecord]:
    return [_worker.run(item) for item in items]


def evaluate(
    splits: Mapping[str, Sequence[AlfredEpisode]],
    scenes: Mapping[str, Scene],
    config: EvaluationConfig,
    out: str | Path,
    workers: int = 1,
    progress: Callable[[Iterable, int], Iterable] = lambda items, total: items,
) -> dict:
    """Runs every work item, writes `run.json` (the config), `records.jsonl` and `summary.json` to `out`,
    and returns the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _replace(out / "run.json", json.dumps(asdict(config), indent=1, sort_keys=True))
    records_file = out / "records.jsonl"
    items = work_items(splits, config.subgoals)
    records: list[EpisodeRecord] = []
    with open(records_file, "w", encoding="utf-8") as sink:

        def keep(finished: Iterable[EpisodeRecord]) -> None:
            for record in finished:
                records.append(record)
                sink.write(record.to_json() + "\n")
            sink.flush()

        if workers <= 1:
            evaluator = Evaluator(splits, scenes, config)
            for item in progress(items, len(items)):
                keep([evaluator.run(item)])
        else:
            chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
            with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(splits, scenes, config)) as pool:
                futures = [pool.submit(_run_chunk, chunk) for chunk in chunks]
                for future in progress(as_completed(futures), len(futures)):
                    keep(future.result())
    records.sort(key=lambda r: r.key)
    _replace(records_file, "".join(r.to_json() + "\n" for r in records))
    summary = summary_of(records, config)
    _replace(out / "summary.json", json.dumps(summary, indent=1, sort_keys=True))
    return summary


def summary_of(records: Sequence[EpisodeRecord], config: EvaluationConfig) -> dict:
    """Everything `summary.json` holds, from the records alone (so `homesim report` can recompute it)."""
    return {"config": asdict(config), "splits": summarize(records), "subgoals": summarize_subgoals(records)}


def read_run(out: str | Path) -> EvaluationConfig:
    settings = json.loads((Path(out) / "run.json").read_text())
    return EvaluationConfig(**settings | {"pixels": tuple(settings.get("pixels", ()))})


def _replace(path: Path, text: str) -> None:
    """Writes a file whole or not at all."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
