"""How the ALFRED envs take their episodes: whatever a user has, checked once, with errors that name the
bad value and what is allowed.

`episodes` may be a homesim dataset folder (with `split=` for one split), one split file of it, ALFRED
trajectories (a json_2.1.0 tree, a traj_data.json or a .jsonl[.gz], with `layouts=`, ALFRED's layout
files), a sequence of `AlfredEpisode`s with their `scenes`, or None for the built-in episodes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.sources import read_episodes
from homesim.envs.options import chosen_episode
from homesim.world.scene import Scene

EpisodesOption = Sequence[AlfredEpisode] | str | Path | None


def episodes_with_scenes(
    episodes: EpisodesOption,
    scenes: Mapping[str, Scene] | None = None,
    split: str | None = None,
    layouts: str | Path | None = None,
) -> tuple[list[AlfredEpisode], dict[str, Scene]]:
    """The episodes an env plays and their scenes (a DataError, a ValueError, for bad files)."""
    if episodes is None or isinstance(episodes, str | Path):
        if scenes is not None:
            raise ValueError("scenes= goes with a sequence of episodes; a path or the built-in episodes bring theirs")
        read = read_episodes(episodes, layouts, split, "alfred")
        for problem in read.skipped[:1]:
            raise ValueError(f"{len(read.skipped)} episode(s) could not be read, the first: {problem}")
        episodes, scenes = read.all(), read.scenes
        if not episodes:
            raise ValueError(f"episodes={str(episodes)!r}" + (f", split={split!r}" if split else "") + ": no episodes")
    if not isinstance(episodes, Sequence) or not episodes:
        raise ValueError(
            f"episodes={episodes!r}: give a dataset folder, ALFRED trajectories (with layouts=), or a non-empty"
            " sequence of AlfredEpisode"
        )
    for i, episode in enumerate(episodes):
        if not isinstance(episode, AlfredEpisode):
            raise ValueError(
                f"episodes[{i}] is a {type(episode).__name__}, not an AlfredEpisode (a path? pass it whole)"
            )
    missing = {e.scene_id for e in episodes} - set(scenes or {})
    if missing:
        raise ValueError(f"no scene given for scene ids {sorted(missing)}")
    return list(episodes), dict(scenes)


def choose_episode(
    episodes: Sequence[AlfredEpisode], scenes: Mapping[str, Scene], chosen: object, rng: np.random.Generator
) -> AlfredEpisode:
    """The episode `reset(options={"episode": ...})` asks for (an index or an episode), else a seeded draw."""
    episode = chosen_episode(chosen, episodes, AlfredEpisode, rng)
    if episode.scene_id not in scenes:
        raise ValueError(f"episode {episode.id}: no scene {episode.scene_id!r}")
    return episode


def annotation_of(episode: AlfredEpisode, chosen: object):
    """The human annotation `reset(options={"annotation": k})` asks for (None for an episode without any)."""
    if not episode.annotations:
        return None
    index = isinstance(chosen, int | np.integer) and not isinstance(chosen, bool)
    if not index or not 0 <= chosen < len(episode.annotations):
        raise ValueError(
            f"annotation {chosen!r}: episode {episode.id} has {len(episode.annotations)} (0 to {len(episode.annotations) - 1})"
        )
    return episode.annotations[int(chosen)]
