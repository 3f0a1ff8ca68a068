"""The built-in HandMeThat episodes: the first few of homesim's own generator (`generate.make_episode`, seed 0),
made on first use (a fraction of a second), so `gymnasium.make("homesim/HandMeThat-v0")` and `homesim evaluate
--suite handmethat` work with no data at all. They are the same episodes `homesim generate handmethat --seed 0`
starts with."""

from __future__ import annotations

import functools

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.datasets.handmethat.generate import make_episode

BUILTIN_SEED, BUILTIN_EPISODES = 0, 6


@functools.cache
def _builtin() -> tuple[HandMeThatEpisode, ...]:
    return tuple(make_episode(BUILTIN_SEED, index)[0] for index in range(BUILTIN_EPISODES))


def builtin_handmethat() -> tuple[list[HandMeThatEpisode], dict]:
    """The episodes, and their scenes (none: a HandMeThat episode carries its own world)."""
    return list(_builtin()), {}
