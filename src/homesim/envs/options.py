"""What every env's `reset(options=...)` accepts, checked the same way in each: a mapping (or None), and
an episode given as an index (a Python or numpy integer, never a bool) or as an episode of the env's type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

NEEDS_RESET = "call reset() before step() (and again after a reset() that raised)"


def reset_options(options: object, known: tuple[str, ...] = ("episode",)) -> Mapping:
    """`reset`'s options: a mapping ({} for None) of `known` keys only (a misspelt key is refused, not
    ignored), or a ValueError saying what is expected."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options={options!r}: give a dict, such as {{'episode': 0}}")
    unknown = sorted(map(str, set(options) - set(known)))
    if unknown:
        raise ValueError(f"unknown reset option {unknown[0]!r}: this env takes {', '.join(known)}")
    return options


def chosen_episode(chosen: object, episodes: Sequence, episode_type: type, rng: np.random.Generator) -> object:
    """The episode `options["episode"]` names among `episodes` (an index, or an `episode_type` itself),
    else a seeded draw; a ValueError names what was given and what is allowed."""
    if chosen is None:
        return episodes[int(rng.integers(len(episodes)))]
    if isinstance(chosen, int | np.integer) and not isinstance(chosen, bool | np.bool_):
        if not 0 <= chosen < len(episodes):
            raise ValueError(
                f"episode {chosen} is out of range: this env has {len(episodes)} (0 to {len(episodes) - 1})"
            )
        return episodes[int(chosen)]
    if not isinstance(chosen, episode_type):
        name = episode_type.__name__
        article = "an" if name[0] in "AEIOU" else "a"
        raise ValueError(f"episode {chosen!r}: give an index (0 to {len(episodes) - 1}) or {article} {name}")
    return chosen
