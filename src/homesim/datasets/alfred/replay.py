"""Replays ALFRED's expert demonstrations in homesim: the proof that the imported scenes, the
dynamics and the goal checks agree with ALFRED.

Every trajectory's expert `low_actions` run from its initial state; we record whether every action
succeeded, whether the goal holds at the end, the goal-condition ratio, and the first failing action.
A malformed trajectory is reported with its file and field and counted; the rest replay on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.alfred.importer import import_trajectories
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.errors import DataError
from homesim.parallel import Failed, Workers, run_chunks
from homesim.tasks.alfred import goal_conditions
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.scene import Scene


@dataclass(frozen=True)
class ReplayResult:
    name: str  # <split>/<task folder>/<trial>
    task_type: str
    floor_plan: str
    actions: int
    all_actions_succeeded: bool
    goal_satisfied: bool
    conditions_met: int
    conditions_total: int
    first_failure: dict | None  # {"index", "action", "target", "message"}


def replay_episode(name: str, episode: AlfredEpisode, scene: Scene) -> ReplayResult:
    catalog = alfred_catalog()
    state, first_failure, failures = episode.initial_state, None, 0
    for i, action in enumerate(episode.expert_actions):
        state, event = step(scene, state, action, catalog=catalog)
        if not event.success:
            failures += 1
            if first_failure is None:
                first_failure = {"index": i, "action": action.name, "target": action.target, "message": event.message}
    met, total = goal_conditions(scene, state, episode.goal)
    return ReplayResult(
        name=name,
        task_type=episode.goal.task_type,
        floor_plan=scene.id,
        actions=len(episode.expert_actions),
        all_actions_succeeded=failures == 0,
        goal_satisfied=met == total,
        conditions_met=met,
        conditions_total=total,
        first_failure=first_failure,
    )


@dataclass
class ReplayReport:
    results: list[ReplayResult]
    errors: list[DataError]
    scenes: dict[str, dict]  # floor plan -> provenance counts

    def summary(self) -> dict:
        def figures(rs: list[ReplayResult]) -> dict:
            met, total = sum(r.conditions_met for r in rs), sum(r.conditions_total for r in rs)
            return {
                "total": len(rs),
                "all_actions_succeeded": sum(r.all_actions_succeeded for r in rs),
                "goal_satisfied": sum(r.goal_satisfied for r in rs),
                "goal_condition_ratio": met / total if total else 0.0,
            }

        by_type: dict[str, list[ReplayResult]] = defaultdict(list)
        for r in self.results:
            by_type[r.task_type].append(r)
        provenance: dict[str, int] = defaultdict(int)
        for counts in self.scenes.values():
            for key, n in counts.items():
                provenance[key] += n
        return {
            **figures(self.results),
            "malformed": len(self.errors),
            "by_task_type": {t: figures(rs) for t, rs in sorted(by_type.items())},
            "scene_sources": dict(provenance),
            "failures": [asdict(r) for r in self.results if not (r.all_actions_succeeded and r.goal_satisfied)],
            "errors": [str(e) for e in self.errors],
        }


CHUNK = 32  # trajectories per chunk of work sent to a worker


def _worker(scenes: dict[str, Scene]) -> dict[str, Scene]:
    return scenes


def _replay_chunk(scenes: dict[str, Scene], named: list[tuple[str, AlfredEpisode]]) -> list[ReplayResult]:
    return [replay_episode(name, e, scenes[e.scene_id]) for name, e in named]


def _unplayed(name: str, episode: AlfredEpisode, reason: str) -> ReplayResult:
    """A trajectory whose worker failed on every try: a failure that says so."""
    failure = {"index": 0, "action": "", "target": None, "message": reason}
    return ReplayResult(
        name, episode.goal.task_type, episode.scene_id, len(episode.expert_actions), False, False, 0, 0, failure
    )


def replay_trajectories(
    trajectories: Iterable[RawTrajectory | DataError],
    layouts: str | Path,
    progress: Callable[[Iterable, int], Iterable] = lambda items, total: items,
    workers: int | Workers = 1,
) -> ReplayReport:
    """Imports the floor plans the trajectories use (from `layouts` plus the trajectories themselves)
    and replays every trajectory in them, in one process or on `workers` (local or Ray); the report is
    the same whatever the workers."""
    workers = workers if isinstance(workers, Workers) else Workers(workers)
    splits, scenes, errors = import_trajectories(trajectories, layouts)
    named = [(f"{split}/{e.id}", e) for split, episodes in splits.items() for e in episodes]
    if workers.count <= 1 and workers.backend == "local":
        results = [replay_episode(name, e, scenes[e.scene_id]) for name, e in progress(named, len(named))]
    else:
        chunks = [named[i : i + CHUNK] for i in range(0, len(named), CHUNK)]
        done: dict[int, list[ReplayResult]] = {}
        for i, result in progress(run_chunks(_worker, (scenes,), _replay_chunk, chunks, workers), len(chunks)):
            done[i] = [_unplayed(n, e, result.reason) for n, e in chunks[i]] if isinstance(result, Failed) else result
        results = [r for i in range(len(chunks)) for r in done[i]]
    return ReplayReport(results, errors, {k: s.provenance for k, s in scenes.items()})


def replay_path(
    trajectories: str | Path,
    layouts: str | Path,
    progress: Callable[[Iterable, int], Iterable] = lambda items, total: items,
    workers: int | Workers = 1,
) -> ReplayReport:
    return replay_trajectories(read_trajectories(trajectories), layouts, progress, workers)
