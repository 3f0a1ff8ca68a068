"""The built-in ObjectNav episodes: a few episodes in one generated house, made on first use (about a
second), so `gymnasium.make("homesim/ObjectNav-v0")` works with no data at all."""

from __future__ import annotations

import functools
import random

from homesim.datasets.objectnav.generate import sample_episodes
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.world.scene import Scene

BUILTIN_HOUSE, BUILTIN_EPISODES = 1, 8


@functools.cache
def _builtin() -> tuple[tuple[ObjectNavEpisode, ...], Scene]:
    scene, _ = generate_house(BUILTIN_HOUSE)
    episodes, _ = sample_episodes(scene, BUILTIN_EPISODES, random.Random("objectnav/builtin"))
    return tuple(episodes), scene


def builtin_objectnav() -> tuple[list[ObjectNavEpisode], dict[str, Scene]]:
    episodes, scene = _builtin()
    return list(episodes), {scene.id: scene}
