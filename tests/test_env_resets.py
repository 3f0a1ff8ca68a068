"""Every registered env checks all of `reset`'s options before it touches its state: a refused reset leaves
no half-reset episode behind, and the next `step` asks for a reset in homesim's own words (issue 33, item 4;
issue 25, item 15). One test, parametrised over the suite registry's env ids."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.evaluation.suites import SUITES

ENV_IDS = [env_id for suite in SUITES.values() for env_id in suite.env_ids]
BAD_OPTIONS = [
    [1],  # not a dict
    {"episode": 10**9},  # out of range
    {"episode": -1},
    {"episode": True},  # a bool is no index
    {"episode": "0"},
    {"episode": 1, "annotation": 99},  # ALFRED: no such annotation; the others: no such option
    {"episode": 1, "annotaton": 0},  # misspelt
]


def _kwargs(env_id: str) -> dict:
    """What an env needs beyond its defaults (HandMeThat has no built-in episodes: two generated ones)."""
    if env_id == "homesim/HandMeThat-v0":
        from homesim.datasets.handmethat.generate import make_episode

        return {"episodes": [make_episode(0, i)[0] for i in range(2)]}
    return {}


@pytest.fixture(scope="module", params=ENV_IDS)
def made(request):
    kwargs = _kwargs(request.param)
    return request.param, kwargs


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray | tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("options", BAD_OPTIONS, ids=[repr(o) for o in BAD_OPTIONS])
def test_a_refused_reset_leaves_no_half_reset_episode(made, options):
    env_id, kwargs = made
    env = gymnasium.make(env_id, **kwargs)
    env.action_space.seed(0)
    action = env.action_space.sample()
    env.reset(options={"episode": 0})
    env.step(action)
    with pytest.raises(ValueError):
        env.reset(options=options)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(action)
    fresh = gymnasium.make(env_id, **kwargs)
    after, before = env.reset(options={"episode": np.int64(1)}), fresh.reset(options={"episode": 1})
    assert _same(after, before)  # a numpy index is an index; nothing of the refused reset is left
    assert _same(env.step(action), fresh.step(action))


def _pickles_and_plays_on(env, steps: int = 3) -> None:
    import pickle

    env.action_space.seed(1)
    env.reset(seed=3)
    env.step(env.action_space.sample())
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(steps):
        action = env.action_space.sample()
        assert _same(env.step(action), copy.step(action))


def test_an_env_mid_episode_pickles_and_plays_on_the_same(made):
    """Issue 33, item 11: HandMeThat-v0 (a compiled goal test) and ALFRED-v0 in mask mode (a GL context)
    could not be pickled, which vector envs and Ray need."""
    env_id, kwargs = made
    _pickles_and_plays_on(gymnasium.make(env_id, **kwargs).unwrapped)


def test_the_alfred_env_in_mask_mode_pickles():
    from render_support import make_renderer

    make_renderer(8, 8).close()  # skips where no headless OpenGL context can be made
    _pickles_and_plays_on(gymnasium.make("homesim/ALFRED-v0", interaction="mask").unwrapped, steps=1)


def test_a_long_command_is_not_understood_and_not_kept():
    """Issue 33, item 11: the text parsers' caches held 4,096 commands of any length."""
    from homesim.envs.alfred.wording import _parse
    from homesim.language.handmethat.commands import _match

    env = gymnasium.make("homesim/ALFRED-Text-v0").unwrapped
    env.reset(seed=0)
    before = _parse.cache_info().currsize, _match.cache_info().currsize
    _, _, _, _, info = env.step("go to " + "x" * 10**6)
    assert not info["last_command_success"] and (_parse.cache_info().currsize, _match.cache_info().currsize) == before
