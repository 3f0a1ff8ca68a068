"""Every registered homesim env works as a Gymnasium vector env, sync and async, with a seed per env."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import homesim.envs  # noqa: F401  (registers the envs)

# Observations hold text and lists of ids, whose size varies: async envs share them by pickling, not
# shared memory (gymnasium's rule for such spaces).
MODES = [("sync", {}), ("async", {"shared_memory": False})]


@pytest.mark.parametrize("mode, vector_kwargs", MODES)
def test_the_embodied_env_vectorised(mode, vector_kwargs):
    envs = gymnasium.make_vec("homesim/ALFRED-v0", num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs)
    try:
        _, info = envs.reset(seed=[0, 3])
        single = gymnasium.make("homesim/ALFRED-v0").unwrapped
        assert list(info["episode_id"]) == [single.reset(seed=s)[1]["episode_id"] for s in (0, 3)]
        actions = {"action": np.array([0, 1]), "target": ("", "")}
        _, reward, terminated, truncated, info = envs.step(actions)
        assert reward.shape == (2,) and list(info["last_action"]) == ["MoveAhead_25", "RotateLeft_90"]
    finally:
        envs.close()


@pytest.mark.parametrize("mode, vector_kwargs", MODES)
def test_the_text_env_vectorised(mode, vector_kwargs):
    envs = gymnasium.make_vec(
        "homesim/ALFRED-Text-v0", num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs
    )
    try:
        observations, info = envs.reset(seed=[1, 2])
        assert all("Your task is to:" in o for o in observations)
        observations, _, _, _, info = envs.step(("look", "fly away"))
        assert list(info["last_command_success"]) == [True, False] and observations[1] == "Nothing happens."
    finally:
        envs.close()


@pytest.mark.parametrize("mode, vector_kwargs", MODES)
def test_the_objectnav_env_vectorised(mode, vector_kwargs):
    envs = gymnasium.make_vec("homesim/ObjectNav-v0", num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs)
    try:
        observations, info = envs.reset(seed=[0, 3])
        assert observations["gps"].shape == (2, 2) and observations["compass"].shape == (2, 1)
        _, reward, terminated, _, info = envs.step(np.array([0, 2]))  # STOP, TURN_LEFT
        assert terminated.tolist() == [True, False] and reward.shape == (2,)
        assert list(info["last_action"]) == ["STOP", "TURN_LEFT"]
    finally:
        envs.close()


NATIVE = [spec.id for spec in gymnasium.registry.values() if spec.id.startswith("homesim/") and spec.vector_entry_point]


@pytest.mark.parametrize("env_id", NATIVE)
def test_make_vec_gives_the_native_vector_env_by_default(env_id):
    """An env with a batched version (`vector_entry_point`): `make_vec` makes it, asked for or by default, and its
    first observations lie in its space."""
    native = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
    envs = gymnasium.make_vec(env_id, num_envs=3)
    assert type(envs) is type(native) and envs.num_envs == 3
    observations, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(observations)


def test_the_batched_envs_are_registered():
    assert {"homesim/ALFRED-v0", "homesim/ObjectNav-v0"} <= set(NATIVE)
