"""Evaluates an agent on a set of episodes, in one process or several, writing records as they finish.

A suite (its registry entry, `homesim.evaluation.suites`) splits the episodes into work items (ALFRED: one
per episode, annotation and, in sub-goal evaluation, sub-goal) and plays each into an episode record. Records are
appended to `records.jsonl` the moment an episode finishes (an interrupted run keeps them all, and the same
call continues it: `homesim.evaluation.run_folder`); at the end the file is rewritten in a fixed order, so
that `--workers N` gives the same bytes as `--workers 1`. Every agent is rebuilt
per worker and reset per episode; agents seed themselves from the episode, not from the order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from homesim.errors import DataError
from homesim.evaluation.metrics import agent_summary, common_failure, summarize
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.run_folder import RUN_FACTS, data_digests, kept_records, unplayed
from homesim.evaluation.suite import CUSTOM
from homesim.evaluation.suites import DEFAULT, SuiteRunner, WorkItem, suite_named
from homesim.files import open_output, read_json, validated, write_file, write_json
from homesim.parallel import Failed, Workers, run_chunks
from homesim.world.scene import Scene

CHUNK = 32  # at most this many work items of one scene per task sent to a worker process
PACKED = 24  # scenes with fewer items share a task, up to this many items
INTERFACES = ("embodied", "text")


@dataclass(frozen=True)
class EvaluationConfig:
    """How an evaluation runs; `run.json` holds it. The step limits default to the suite's protocol
    (ALFRED: 1000 steps, 10 failed actions); `options` holds a suite's own settings (JSON values), those
    its named `protocol` sets included (default: the suite's first; "custom" where they were set one by one)."""

    agent: str = "expert"
    seed: int = 0
    observation_filter: str = "none"
    subgoals: bool = False
    max_steps: int | None = None
    max_fails: int | None = None
    interaction: str = "oracle"  # or "mask": agents aim interactions with pixel masks
    pixels: tuple[str, ...] = ()  # egocentric images in the observations: rgb, depth, segmentation
    interface: str = "embodied"  # or "text": the ALFWorld-style text game over the same episodes
    suite: str = DEFAULT
    options: dict = field(default_factory=dict)
    limit: int | None = None  # only the first episodes of each split (`--limit`)
    episode_ids: tuple[str, ...] = ()  # only these episodes (`--episode-ids`)
    agent_options: dict = field(default_factory=dict)  # an agent's own settings (the LLM agent's: endpoint, prompt)
    protocol: str = ""

    def __post_init__(self) -> None:
        protocol = suite_named(self.suite)
        if protocol.protocols:
            name = self.protocol or protocol.protocols[0].name
            if name != CUSTOM:
                preset = protocol.protocol(name)
                if preset.interfaces and self.interface not in preset.interfaces:
                    raise ValueError(f"protocol {name} is for the {' and '.join(preset.interfaces)} interface")
                settings = preset.settings
                for key, value in settings.items():
                    if key in self.options and self.options[key] != value:
                        raise ValueError(
                            f"protocol {name} sets {key} to {value!r}, not {self.options[key]!r} (use protocol custom)"
                        )
                object.__setattr__(self, "options", {**settings, **self.options})
            object.__setattr__(self, "protocol", name)
        elif self.protocol:
            raise ValueError(f"{protocol.title} has no named protocols, not even {self.protocol!r}")
        if self.max_steps is None:
            object.__setattr__(self, "max_steps", protocol.max_steps)
        if self.max_fails is None:
            object.__setattr__(self, "max_fails", protocol.max_fails)
        if self.interface not in INTERFACES:
            raise ValueError(f"unknown interface {self.interface!r}; known: {', '.join(INTERFACES)}")
        if self.subgoals and not protocol.subgoals:
            raise ValueError(f"subgoals: {protocol.title} has no sub-goal evaluation")
        if self.interface == "text" and (self.subgoals or self.pixels or self.interaction != "oracle"):
            raise ValueError("the text interface has no sub-goal evaluation, pixels or masks")


def chunks_of(items: Sequence[WorkItem], splits: Mapping[str, Sequence], workers: int = 1) -> list[list[WorkItem]]:
    """The work items in chunks (the tasks sent to worker processes), longest first. A scene's items stay
    together, at most CHUNK a chunk: a worker then works out a scene's pose and route tables once, not
    once per item (chunks of mixed scenes made two workers barely faster than one). Scenes with few items
    share a chunk, up to PACKED items (fewer where there are few items for the `workers`: each gets 4
    chunks or more), since a task costs a few ms on Ray (ALFRED's valid_seen: 89 chunks of one scene
    each cost 2 Ray workers 0.2-0.5 CPU s more than 41 packed ones). The run then ends on short chunks,
    so no worker waits long on another's last one. Chunks of one length keep the order of their first
    items. A suite's work item starts with (split, episode index); episodes that carry their own world
    (scene id None) are chunked in order."""
    by_scene: dict[str | None, list[WorkItem]] = {}
    for item in items:
        by_scene.setdefault(splits[item[0]][item[1]].scene_id, []).append(item)
    pieces = [group[i : i + CHUNK] for group in by_scene.values() for i in range(0, len(group), CHUNK)]
    packed = max(1, min(PACKED, len(items) // (4 * workers)))
    chunks: list[list[WorkItem]] = []
    for piece in sorted(pieces, key=len, reverse=True):
        if chunks and len(chunks[-1]) + len(piece) <= packed:
            chunks[-1] = chunks[-1] + piece
        else:
            chunks.append(piece)
    return sorted(chunks, key=len, reverse=True)


def _start_worker(splits: Mapping, scenes: Mapping, config: EvaluationConfig) -> SuiteRunner:
    return suite_named(config.suite).runner(splits, scenes, config)


def _run_chunk(runner: SuiteRunner, items: list[WorkItem]) -> list[EpisodeRecord]:
    return [runner.run(item) for item in items]


def evaluate(
    splits: Mapping[str, Sequence],
    scenes: Mapping[str, Scene],
    config: EvaluationConfig,
    out: str | Path,
    workers: int | Workers = 1,
    progress: Callable[[Iterable, int], Iterable] = lambda items, total: items,
    overwrite: bool = False,
    together: Callable[[Callable[[], SuiteRunner], Sequence[WorkItem]], Iterable[EpisodeRecord]] | None = None,
) -> dict:
    """Runs every work item, writes `run.json` (the config, the data's digests), `records.jsonl` and
    `summary.json` to `out`, and returns the summary. The folder is made as `out.partial` and renamed when
    complete (`homesim.evaluation.run_folder`): an interrupted run is continued by the same call, a
    finished one replaced only with `overwrite`. `workers`: a number of local processes, or `Workers`
    (local or Ray); a work item whose worker failed on every try gets a record saying so (end reason
    "worker_failed"). `together(make_runner, items)`, if given, plays the items in this process instead, as many
    at once as it likes with runners it makes, yielding each record as its episode ends (a remote evaluation's
    batches: `server.remote`)."""
    workers = workers if isinstance(workers, Workers) else Workers(workers)
    suite = suite_named(config.suite)
    items = suite.work_items(splits, config)
    run = asdict(config) | {"data": data_digests(splits, scenes), "work_items": len(items)}
    output = open_output(out, "evaluation", run, overwrite)
    write_json(output.work / "run.json", run)
    records_file = output.work / "records.jsonl"
    played = kept_records(records_file) if output.resumed else []  # each record with its line, sorted at the end
    items = unplayed(items, [r for r, _ in played], lambda item: suite.failed(splits, scenes, item, ""))
    with open(records_file, "a" if played else "w", encoding="utf-8") as sink:

        def keep(finished: Iterable[EpisodeRecord]) -> None:
            for record in finished:
                played.append((record, record.to_json() + "\n"))
                sink.write(played[-1][1])
            sink.flush()

        if items and together is not None:
            for record in together(lambda: suite.runner(splits, scenes, config), items):
                keep([record])
        elif items and workers.count <= 1 and workers.backend == "local":
            evaluator = suite.runner(splits, scenes, config)
            for item in progress(items, len(items)):
                keep([evaluator.run(item)])
        elif items:
            chunks = chunks_of(items, splits, workers.count)
            finished = run_chunks(_start_worker, (splits, scenes, config), _run_chunk, chunks, workers)
            for i, result in progress(finished, len(chunks)):
                keep(
                    [suite.failed(splits, scenes, item, result.reason) for item in chunks[i]]
                    if isinstance(result, Failed)
                    else result
                )
    played.sort(key=lambda pair: pair[0].key)
    write_file(records_file, "".join(line for _, line in played))
    records = [record for record, _ in played]
    summary = summary_of(records, config)
    write_file(output.work / "summary.json", json.dumps(summary, indent=1, sort_keys=True))
    output.finish()
    return summary


def summary_of(records: Sequence[EpisodeRecord], config: EvaluationConfig) -> dict:
    """Everything `summary.json` holds, from the records alone (so `homesim report` can recompute it)."""
    suite = suite_named(config.suite)
    counted = suite.counted(records, config.options)
    summary = {"config": asdict(config), "splits": summarize(counted, metrics=suite.metrics)}
    summary |= suite.summary_extras(counted)
    reported = agent_summary(records)  # what the agent said of its episodes (the LLM agent's figures)
    if reported is not None:
        summary["agent"] = reported
    warning = common_failure(records)
    return summary | ({"warning": warning} if warning else {})


def read_run(out: str | Path) -> EvaluationConfig:
    """The settings of the evaluation in `out` (run.json's facts about the run left out)."""
    settings = read_json(Path(out) / "run.json")
    if not isinstance(settings, dict):
        raise DataError(str(Path(out) / "run.json"), "(file)", "expected a JSON object of settings")
    settings = {k: v for k, v in settings.items() if k not in RUN_FACTS}
    return validated(EvaluationConfig, settings, str(Path(out) / "run.json"))
