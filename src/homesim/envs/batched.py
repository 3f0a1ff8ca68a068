"""What the native vector envs (`objectnav.vector`, `alfred.vector`) share: `reset`'s seeds and options for N
envs as Gymnasium's `SyncVectorEnv` reads them, and each env's episodes drawn as its single env draws them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium.utils import seeding

DRAWS = 32  # episode choices drawn ahead per env: k draws of integers(n) one by one equal one draw of size k


def check_num_envs(num_envs: object) -> None:
    """A batch's size must be a positive int (a bool is not one)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs={num_envs!r}: a positive number of envs")


def reset_seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """Each env's seed: s + i for `reset(seed=s)` (Gymnasium's convention), or one given per env."""
    seeds = [None] * n if seed is None else [seed + i for i in range(n)] if isinstance(seed, int) else list(seed)
    if len(seeds) != n:
        raise ValueError(f"seed: {len(seeds)} seeds for {n} envs")
    return seeds


def reset_mask(options: dict, n: int) -> np.ndarray:
    """The envs `options['reset_mask']` resets (taken out of `options`), all of them without one."""
    mask = options.pop("reset_mask", None)
    if mask is None:
        return np.ones(n, dtype=bool)
    if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n,) and mask.any()):
        raise ValueError(f"options['reset_mask']: a boolean array of shape ({n},) with some True")
    return mask


def chosen_episodes(chosen: object, envs: np.ndarray, n: int, episodes: int) -> np.ndarray:
    """options['episode'] for the `envs` reset: one index for every env, or one per env of the batch."""
    picked = np.broadcast_to(np.asarray(chosen), (n,)) if np.ndim(chosen) < 2 else None
    if picked is None or picked.dtype.kind not in "iu" or not ((0 <= picked) & (picked < episodes)).all():
        raise ValueError(f"options['episode']={chosen!r}: an index (0 to {episodes - 1}) or one per env")
    return picked[envs].astype(np.int64)


def seed_generators(generators: list, drawn: np.ndarray, envs: np.ndarray, seeds: list[int | None]) -> None:
    """Seeds the generators of `envs` as their single envs' `reset(seed=...)` does (an env given no seed keeps
    its generator, made afresh if it has none), forgetting the episodes drawn ahead."""
    for i in envs.tolist():
        if seeds[i] is not None or generators[i] is None:
            generators[i], _ = seeding.np_random(seeds[i])
            drawn[i] = DRAWS


def draw_episodes(generators: list, draws: np.ndarray, drawn: np.ndarray, envs: np.ndarray, episodes: int):
    """The next episode of each of `envs`, as its single env's generator picks it (`integers(episodes)`): `draws`
    (N, DRAWS) holds each env's choices drawn ahead, `drawn` how many of them are used."""
    for i in envs[drawn[envs] == DRAWS].tolist():
        draws[i] = generators[i].integers(episodes, size=DRAWS)
        drawn[i] = 0
    chosen = draws[envs, drawn[envs]]
    drawn[envs] += 1
    return chosen
