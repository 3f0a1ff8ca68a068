"""ALFRED frames folders: the training data of the learned ALFRED baselines (issue 15).

Each episode's expert actions are replayed from its initial state (`world.step`); before every action the
agent's egocentric frame is rendered (the `homesim/ALFRED-v0` camera, fov 90, at size x size), and we store
the RGB frame, the per-pixel object class, the ground-truth mask of the action's target in that frame
(packed bits), and the action, ALFRED's sub-goal index (high_idx) and the target's class. Every trajectory
ends with a Stop step on its final frame. Episodes whose replay fails an action are skipped and listed.

Trajectories go in chunks of SHARD_SIZE; each chunk is one shard folder, written under a temporary name by the
worker that renders it and renamed when complete. A killed run resumes by skipping complete shards, and a
shard's bytes depend only on its episodes, so the folder is the same whatever the workers and however often
the run was interrupted. (On Ray the workers write the shards: `out` must be on a file system they share.)
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import numpy as np

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.formats import Name, Text
from homesim.datasets.sources import read_episodes
from homesim.envs.alfred.embodied import semantic_classes
from homesim.errors import DataError
from homesim.files import parse_json, regular_file, validated, write_file
from homesim.parallel import Failed, Workers, run_chunks
from homesim.render import ALFRED, Frame, Renderer
from homesim.world.actions import ACTIONS, STOP
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State

FORMAT, VERSION = "homesim-alfred-frames", 1
SHARD_SIZE = 64  # trajectories per shard
STEP_DTYPE = np.dtype([("action", "i1"), ("subgoal", "<i2"), ("target_class", "<i2")])
Count = Annotated[int, Field(strict=True, ge=0, le=2**40)]


class _FramesModel(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class FramesMeta(_FramesModel):
    """What a frames folder's meta.json says that its readers use (after its format, version and completion)."""

    size: tuple[Annotated[int, Field(strict=True, ge=1, le=4096)], Annotated[int, Field(strict=True, ge=1, le=4096)]]
    actions: Annotated[list[Name], Field(max_length=256)]
    classes: Annotated[list[Annotated[StrictStr, Field(max_length=256)]], Field(max_length=256)]
    trajectories: Count
    steps: Count


class AnnotationLine(_FramesModel):
    goal: Text
    instructions: Annotated[list[Text], Field(max_length=1000)]


class TrajectoryLine(_FramesModel):
    """A line of a shard's trajectories.jsonl (`trajectory_line`)."""

    id: Name
    task_type: Name
    start: Count
    length: Annotated[int, Field(strict=True, ge=1, le=2**40)]
    subgoals: Count
    annotations: Annotated[list[AnnotationLine], Field(max_length=1000)]


def trajectory_lines(path: Path) -> list[dict]:
    """A shard's trajectories.jsonl, each line checked against `TrajectoryLine` and following the one before
    (its `start` where that one's rows end); a DataError naming the file and line."""
    try:
        text = regular_file(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(str(path), "(file)", f"unreadable: {e}") from e
    lines, start = [], 0
    for n, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            where = f"{path}: line {n}"
            line = parse_json(raw, where)
            checked = validated(TrajectoryLine, line, where)
            if checked.start != start:
                raise DataError(where, "start", f"{checked.start}, but the trajectories before end at row {start}")
            start += checked.length
            lines.append(line)
    return lines


def class_names() -> list[str]:
    """meta["classes"]: "" (no object) then the catalog's classes, sorted; the index is the class id."""
    names = ["", *semantic_classes()]
    assert len(names) <= 256, "class ids are stored as uint8"
    return names


def class_map(frame: Frame, scene: Scene, state: State, class_ids: dict[str, int]) -> np.ndarray:
    """The frame's per-pixel class ids (uint8, 0 where no object is)."""
    return frame.labels(lambda o: class_ids[(state.objects.get(o) or scene.fixed[o]).cls], 0, np.uint8)


def shard_name(index: int) -> str:
    return f"shard-{index:05d}"


class ReplayFailed(Exception):
    """An expert action failed in replay: the episode is skipped."""


@dataclass
class Trajectory:
    """One episode's rows and its line of trajectories.jsonl (`start` is filled in by the shard)."""

    frames: np.ndarray
    masks: np.ndarray
    classes: np.ndarray
    steps: np.ndarray
    line: dict


def subgoal_count(episode: AlfredEpisode) -> int:
    """ALFRED's number of sub-goals (its high-level plan without End): the Stop step's sub-goal index."""
    return max(len(episode.subgoals), max(episode.expert_subgoal_index, default=-1) + 1)


def trajectory_line(episode: AlfredEpisode, length: int, subgoals: int, annotations: Sequence) -> dict:
    """A trajectory's line of its shard's trajectories.jsonl (`start` is set when the shard is written)."""
    return {
        "id": episode.id,
        "scene_id": episode.scene_id,
        "task_type": episode.goal.task_type,
        "start": 0,
        "length": length,
        "subgoals": subgoals,
        "annotations": [{"goal": a.task_desc, "instructions": list(a.high_descs)} for a in annotations],
    }


def render_trajectory(
    scene: Scene, episode: AlfredEpisode, renderer: Renderer, class_ids: dict[str, int]
) -> Trajectory:
    """Replays the episode's expert actions, rendering the frame before each one and the final frame (Stop);
    raises ReplayFailed naming the first action that fails."""
    catalog = renderer.catalog
    h, w = renderer.camera.height, renderer.camera.width
    count = subgoal_count(episode)
    plan = list(zip(episode.expert_actions, episode.expert_subgoal_index)) + [(None, count)]
    n = len(plan)
    frames = np.empty((n, h, w, 3), np.uint8)
    masks = np.zeros((n, (h * w + 7) // 8), np.uint8)
    classes = np.empty((n, h, w), np.uint8)
    steps = np.zeros(n, STEP_DTYPE)
    state = episode.initial_state
    for t, (action, high_idx) in enumerate(plan):
        frame = renderer.render(scene, state)
        frames[t] = frame.rgb
        classes[t] = class_map(frame, scene, state, class_ids)
        steps[t] = (ACTIONS.index(action.name if action else STOP), high_idx, 0)
        if action is None:
            break
        if action.target is not None:
            cls = (state.objects[action.target] if action.target in state.objects else scene.fixed[action.target]).cls
            steps[t]["target_class"] = class_ids[cls]
            if action.target in frame.object_ids:
                masks[t] = np.packbits(frame.mask(action.target).reshape(-1))
        state, event = step(scene, state, action, catalog=catalog)
        if not event.success:
            raise ReplayFailed(f"step {t} {action.name} {action.target or ''}: {event.message}")
    return Trajectory(frames, masks, classes, steps, trajectory_line(episode, n, count, episode.annotations))


def _save(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)


def write_shard(folder: Path, trajectories: list[Trajectory], skipped: list[dict], size: int) -> None:
    """The shard's files, under a temporary name, then renamed: a shard folder that exists is complete."""
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    start, lines = 0, []
    for t in trajectories:
        lines.append({**t.line, "start": start})
        start += t.line["length"]

    def stacked(key: str, shape: tuple[int, ...], dtype) -> np.ndarray:
        parts = [getattr(t, key) for t in trajectories]
        return np.concatenate(parts) if parts else np.zeros((0, *shape), dtype)

    cells = size * size
    _save(tmp / "frames.npy", stacked("frames", (size, size, 3), np.uint8))
    _save(tmp / "masks.npy", stacked("masks", ((cells + 7) // 8,), np.uint8))
    _save(tmp / "classes.npy", stacked("classes", (size, size), np.uint8))
    _save(tmp / "steps.npy", stacked("steps", (), STEP_DTYPE))
    (tmp / "trajectories.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp / "skipped.jsonl").write_text("".join(json.dumps(s) + "\n" for s in skipped))
    os.replace(tmp, folder)


@dataclass(frozen=True)
class ShardSummary:
    trajectories: int
    steps: int
    skipped: list[dict]  # {"id", "reason"}


def read_shard_summary(folder: Path) -> ShardSummary:
    lines = trajectory_lines(folder / "trajectories.jsonl")
    path = folder / "skipped.jsonl"
    try:
        skipped = [parse_json(s, str(path)) for s in regular_file(path).read_text().splitlines() if s]
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(str(path), "(file)", f"unreadable: {e}") from e
    return ShardSummary(len(lines), sum(line["length"] for line in lines), skipped)


def _setup(scenes: dict[str, Scene], size: int) -> tuple:
    return scenes, Renderer(width=size, height=size, fov=ALFRED["fov"]), {c: i for i, c in enumerate(class_names())}


def _extract_chunk(worker: tuple, chunk: tuple[Path, list[AlfredEpisode]]) -> ShardSummary:
    scenes, renderer, class_ids = worker
    folder, episodes = chunk
    done, skipped = [], []
    for episode in episodes:
        try:
            done.append(render_trajectory(scenes[episode.scene_id], episode, renderer, class_ids))
        except ReplayFailed as e:
            skipped.append({"id": episode.id, "reason": str(e)})
    write_shard(folder, done, skipped, renderer.camera.width)
    return read_shard_summary(folder)


def _in_this_process(scenes: dict[str, Scene], size: int, chunks: Sequence, todo: list[int]) -> Iterable:
    if not todo:
        return
    worker = _setup(scenes, size)
    try:
        for i in todo:
            yield i, _extract_chunk(worker, chunks[i])
    finally:
        worker[1].close()


@dataclass(frozen=True)
class FramesSummary:
    out: Path
    trajectories: int
    steps: int
    skipped: list[dict]
    bytes: int
    resumed_shards: int  # complete shards found and kept
    rendered: int = 0  # steps rendered by this run (the kept shards' were not)


def _write_json(path: Path, value: dict) -> None:
    write_file(path, json.dumps(value, indent=1) + "\n")


def frames_meta(settings: dict, trajectories: int, steps: int, complete: bool) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        **settings,
        "actions": list(ACTIONS),
        "classes": class_names(),
        "trajectories": trajectories,
        "steps": steps,
        "complete": complete,
    }


def _check_resumable(out: Path, meta: dict) -> None:
    """A folder holding frames made with other settings, or anything but frames, is not written into."""
    path = out / "meta.json"
    if out.exists() and not out.is_dir():
        raise DataError(str(out), "(folder)", "not a folder: choose another --out")
    if not path.exists():
        if out.exists() and any(out.iterdir()):
            raise DataError(str(out), "(folder)", "holds other files, not ALFRED frames: choose another --out")
        return
    try:
        old = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise DataError(str(path), "(file)", f"unreadable ({e}): remove the folder or choose another --out") from e
    keys = ("format", "version", "size", "source", "split", "limit", "shard_size", "actions", "classes")
    changed = [k for k in keys if old.get(k) != meta[k]]
    if changed:
        raise DataError(
            str(path), ", ".join(changed), "the folder holds frames made with other settings: choose another --out"
        )


def extract_frames(
    source: str | Path,
    out: str | Path,
    layouts: str | Path | None = None,
    split: str | None = None,
    size: int = 64,
    limit: int | None = None,
    workers: int | Workers = 1,
    progress: Callable[[Iterable, int], Iterable] = lambda items, total: items,
    shard_size: int = SHARD_SIZE,
) -> FramesSummary:
    """Writes (or completes) the frames folder `out` from the episodes at `source` (anything
    `read_episodes` reads: ALFRED trajectories with `layouts`, or a homesim dataset folder)."""
    workers = workers if isinstance(workers, Workers) else Workers(workers)
    if size < 1 or shard_size < 1:
        raise ValueError(f"size={size}, shard_size={shard_size}: each at least 1")
    out = Path(out)
    settings = {"size": [size, size], "source": str(source), "split": split, "limit": limit, "shard_size": shard_size}
    meta = frames_meta(settings, 0, 0, False)
    _check_resumable(out, meta)
    read = read_episodes(source, layouts, split, "alfred")
    episodes = read.all()[:limit] if limit is not None else read.all()
    chunks = [
        (out / shard_name(i // shard_size), episodes[i : i + shard_size]) for i in range(0, len(episodes), shard_size)
    ]
    # the shards there are read first: a damaged one stops the command before it marks the folder unfinished
    summaries: dict[int, ShardSummary] = {i: read_shard_summary(f) for i, (f, _) in enumerate(chunks) if f.is_dir()}
    out.mkdir(parents=True, exist_ok=True)
    _write_json(out / "meta.json", meta)
    resumed = len(summaries)
    todo = [i for i in range(len(chunks)) if i not in summaries]
    if workers.count <= 1 and workers.backend == "local":
        results: Iterable = _in_this_process(read.scenes, size, chunks, todo)
    else:
        work = [chunks[i] for i in todo]
        results = run_chunks(_setup, (read.scenes, size), _extract_chunk, work, workers, start="spawn")
        results = ((todo[k], r) for k, r in results)
    for i, result in progress(results, len(todo)):
        if isinstance(result, Failed):
            raise RuntimeError(f"{shard_name(i)}: {result.reason} (run the command again to resume)")
        summaries[i] = result
    ordered = [summaries[i] for i in range(len(chunks))]
    skipped = [{"id": e.where, "reason": str(e)} for e in read.skipped] + [s for o in ordered for s in o.skipped]
    (out / "skipped.jsonl").write_text("".join(json.dumps(s) + "\n" for s in skipped))
    trajectories, steps = sum(o.trajectories for o in ordered), sum(o.steps for o in ordered)
    _write_json(out / "meta.json", frames_meta(settings, trajectories, steps, True))
    stale = {p for p in out.glob("shard-*") if p.name not in {f.name for f, _ in chunks}}
    for path in stale:  # partial shards of a killed run (.tmp)
        shutil.rmtree(path)
    disk = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return FramesSummary(out, trajectories, steps, skipped, disk, resumed, sum(summaries[i].steps for i in todo))
