"""How `homesim/ObjectNav-v0` takes its episodes: a dataset folder (`split=` for one split), one split file
of it, or a sequence of `ObjectNavEpisode`s with their `scenes`; checked once, with errors that name the
bad value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from homesim.datasets.sources import read_episodes
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.world.scene import Scene

ObjectNavEpisodes = Sequence[ObjectNavEpisode]


def objectnav_episodes(
    episodes: ObjectNavEpisodes | str | Path | None,
    scenes: Mapping[str, Scene] | None = None,
    split: str | None = None,
) -> tuple[list[ObjectNavEpisode], dict[str, Scene]]:
    """The episodes an env plays and their scenes (a DataError or a ValueError for bad input)."""
    if episodes is None:
        from homesim.datasets.objectnav.builtin import builtin_objectnav

        if scenes is not None:
            raise ValueError("scenes= goes with a sequence of episodes; the built-in episodes bring theirs")
        episodes, scenes = builtin_objectnav()
    elif isinstance(episodes, str | Path):
        if scenes is not None:
            raise ValueError("scenes= goes with a sequence of episodes; a dataset folder brings its own")
        read = read_episodes(episodes, None, split, "objectnav")
        episodes, scenes = read.all(), read.scenes
        if not episodes:
            raise ValueError(f"episodes={str(episodes)!r}" + (f", split={split!r}" if split else "") + ": no episodes")
    if isinstance(episodes, str) or not isinstance(episodes, Sequence) or not episodes:
        raise ValueError(f"episodes={episodes!r}: give a dataset folder or a non-empty sequence of ObjectNavEpisode")
    for i, episode in enumerate(episodes):
        if not isinstance(episode, ObjectNavEpisode):
            raise ValueError(f"episodes[{i}] is a {type(episode).__name__}, not an ObjectNavEpisode")
    missing = {e.scene_id for e in episodes} - set(scenes or {})
    if missing:
        raise ValueError(f"no scene given for scene ids {sorted(missing)}")
    return list(episodes), dict(scenes)
