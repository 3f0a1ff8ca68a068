"""ALFRED trajectories -> homesim episodes grouped by split, with the scenes they need."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode, episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.errors import DataError
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.scene import Scene


def import_alfred(
    trajectories: str | Path, layouts: str | Path, split: str | None = None
) -> tuple[dict[str, list[AlfredEpisode]], dict[str, Scene], list[DataError]]:
    """Episodes per split (only `split` if given), their scenes, and what could not be imported."""
    return import_trajectories(read_trajectories(trajectories), layouts, split)


def import_trajectories(
    items: Iterable[RawTrajectory | DataError], layouts: str | Path, split: str | None = None
) -> tuple[dict[str, list[AlfredEpisode]], dict[str, Scene], list[DataError]]:
    """The scenes use every trajectory read as evidence, whatever its split. A trajectory whose floor
    plan cannot be imported is one error (naming the trajectory and the floor plan's problem)."""
    good: list[RawTrajectory] = []
    errors: list[DataError] = []
    for item in items:
        (errors if isinstance(item, DataError) else good).append(item)
    evidence = gather_evidence(t.data for t in good)
    scenes: dict[str, Scene] = {}
    unbuildable: dict[str, DataError] = {}
    for floor_plan, e in sorted(evidence.items()):
        try:
            scenes[floor_plan] = build_scene(floor_plan, layouts, e)
        except DataError as error:
            unbuildable[floor_plan] = error
    splits: dict[str, list[AlfredEpisode]] = defaultdict(list)
    for t in good:
        if split and t.split != split:
            continue
        floor_plan = t.data["scene"]["floor_plan"]
        if floor_plan in unbuildable:
            problem = f"{floor_plan} could not be imported: {unbuildable[floor_plan]}"
            errors.append(DataError(t.source, "scene.floor_plan", problem))
            continue
        try:
            splits[t.split].append(episode_from_trajectory(t.source, t.data, scenes[floor_plan], episode_id=t.task))
        except DataError as error:
            errors.append(error)
    return dict(splits), scenes, errors
