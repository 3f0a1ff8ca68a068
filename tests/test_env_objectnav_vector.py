"""The batched `homesim/ObjectNav-v0` (`envs.objectnav.vector`): what `make_vec` makes, and step for step the
same observations, rewards, terminations, truncations and infos as N single envs under Gymnasium's own
`SyncVectorEnv` (seeds s + i, NEXT_STEP auto-reset), in several houses, with random and invalid actions,
STOP, the step limit, and envs that follow the expert to successes."""

from __future__ import annotations

import random
from dataclasses import replace

import gymnasium
import numpy as np
import pytest

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.datasets.objectnav.generate import sample_episodes
from homesim.envs.objectnav.env import PIXELS
from homesim.envs.objectnav import vector
from homesim.envs.objectnav.vector import ObjectNavVectorEnv
from homesim.evaluation.objectnav.suite import PROTOCOLS
from homesim.render import RenderingUnavailable
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav_criteria import criteria_inputs
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import ACTIONS, heading, nav_grid, nav_step
from homesim.world.state import AgentState

ENV = "homesim/ObjectNav-v0"


@pytest.fixture(scope="module")
def two_houses():
    """The built-in episodes (one house) and four in another house."""
    episodes, scenes = builtin_objectnav()
    scene, _ = generate_house(0)
    more, _ = sample_episodes(scene, 4, random.Random("vector"))
    return episodes + more, scenes | {scene.id: scene}


def same(a, b, where: str = "") -> None:
    """Equal values of equal types, recursively (tuples and dicts of arrays, as Gymnasium stacks infos)."""
    if isinstance(a, dict):
        assert set(a) == set(b), f"{where}: keys differ: {sorted(set(a) ^ set(b))}"
        for key in a:
            same(a[key], b[key], f"{where}/{key}")
        return
    if isinstance(a, tuple):  # what reset and step return
        assert len(a) == len(b)
        for k, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{k}]")
        return
    a, b = np.asarray(a), np.asarray(b)
    assert (a.shape, a.dtype) == (b.shape, b.dtype), f"{where}: {a.shape} {a.dtype} != {b.shape} {b.dtype}"
    if a.dtype == object:
        assert a.tolist() == b.tolist(), f"{where}: {a.tolist()} != {b.tolist()}"
    else:
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f"{where}: {a} != {b}"


def both(num_envs: int, episodes, scenes, **kwargs):
    made = {"episodes": episodes, "scenes": scenes} | kwargs
    batched = gymnasium.make_vec(ENV, num_envs=num_envs, vectorization_mode="vector_entry_point", **made)
    singles = gymnasium.make_vec(ENV, num_envs=num_envs, vectorization_mode="sync", **made)
    return batched, singles


def play(batched, singles, steps: int, seed: int, episodes) -> dict:
    """Step both with the same actions and check every result; even envs follow their episode's expert
    actions (successes), odd ones act at random (STOP, invalid indices now and then). Counts what happened."""
    rng = np.random.default_rng(seed)
    by_id = {e.episode_id: e for e in episodes}
    observations, info = batched.reset(seed=seed)
    same((observations, info), singles.reset(seed=seed), "reset")
    seen = {"success": 0, "failure": 0, "truncated": 0, "collisions": 0, "invalid": 0}
    for t in range(steps):
        random_actions = rng.choice(len(ACTIONS), p=[0.02, 0.5, 0.17, 0.17, 0.07, 0.07], size=batched.num_envs)
        if t % 13 == 0:
            random_actions = rng.integers(-2, len(ACTIONS) + 2, size=batched.num_envs)
        expert = [by_id[e].reference_actions for e in info["episode_id"]]
        actions = np.array(
            [
                ACTIONS.index(plan[min(n, len(plan) - 1)]) if i % 2 == 0 else random_actions[i]
                for i, (plan, n) in enumerate(zip(expert, info["num_steps"]))
            ]
        )
        result = batched.step(actions)
        same(result, singles.step(actions), f"step {t}")
        observations, reward, terminated, truncated, info = result
        if "success" in info:
            seen["success"] += int(info["success"][info["_success"]].sum())
            seen["failure"] += int((~info["success"][info["_success"]]).sum())
        seen["truncated"] += int(truncated.sum())
        seen["collisions"] += sum(m.startswith("blocked") for m in info["last_action_message"])
        seen["invalid"] += sum(m.startswith("invalid") for m in info["last_action_message"])
    return seen


def test_make_vec_gives_the_batched_env(two_houses):
    episodes, scenes = two_houses
    for mode in ("vector_entry_point", None):
        envs = gymnasium.make_vec(ENV, num_envs=3, vectorization_mode=mode, episodes=episodes, scenes=scenes)
        assert isinstance(envs, ObjectNavVectorEnv) and envs.num_envs == 3
        observations, _ = envs.reset(seed=0)
        assert observations["gps"].shape == (3, 2) and observations["compass"].shape == (3, 1)
        assert envs.observation_space.contains(observations)


def test_the_batch_steps_as_single_envs_do(two_houses):
    episodes, scenes = two_houses
    batched, singles = both(6, episodes, scenes, max_steps=40)
    seen = play(batched, singles, 400, 7, episodes)
    assert min(seen.values()) > 0, seen  # every kind of step and end happened


def test_trails_longer_than_kept_at_first_grow(two_houses, monkeypatch):
    """Each env's trail starts TRAIL moves long (a step limit of 10**9 is allowed) and doubles as needed: the
    records' positions are still the single env's."""
    monkeypatch.setattr(vector, "TRAIL", 2)
    episodes, scenes = two_houses
    batched, singles = both(4, episodes, scenes, max_steps=40)
    play(batched, singles, 100, 17, episodes)
    assert batched.unwrapped._trail.shape[1] > 3


@pytest.mark.parametrize("protocol", PROTOCOLS[1:], ids=lambda p: p.name)
def test_every_protocol_judges_as_the_single_env_does(two_houses, protocol):
    """habitat's Success (d_T under 0.1 m, SPL undefined at 0 / 0) and RoboTHOR's: the batch's verdicts,
    distances, SPL and the records' inputs and poses, the single env's."""
    episodes, scenes = two_houses
    batched, singles = both(4, episodes, scenes, max_steps=30, **protocol.settings)
    seen = play(batched, singles, 150, 5, episodes)
    assert seen["success"] > 0 and seen["failure"] > 0, seen


@pytest.mark.slow
def test_distances_computed_up_front_are_those_computed_on_the_way(two_houses):
    """fill_distances computes every goal set's table at once; a batch stepped after it still gives the single
    env's floats (which now read the same tables) step for step."""
    episodes, scenes = two_houses
    batched, singles = both(4, episodes[-4:], scenes, max_steps=60)
    assert batched.unwrapped.fill_distances() > 0 and batched.unwrapped.fill_distances() == 0
    assert not np.isnan(batched.unwrapped._distances).any()
    seen = play(batched, singles, 300, 13, episodes)
    assert seen["success"] > 0, seen


@pytest.mark.slow
def test_a_large_batch_steps_as_single_envs_do_for_thousands_of_steps(two_houses):
    episodes, scenes = two_houses
    batched, singles = both(64, episodes, scenes, max_steps=200, criteria="intentionality,validity,proximity")
    seen = play(batched, singles, 3000, 11, episodes)
    assert min(seen.values()) > 0, seen


def test_the_batch_sees_what_single_envs_see(two_houses):
    """RGB, depth and semantic drawn in batches (`render.batch`), each env's images its single env's."""
    episodes, scenes = two_houses
    small = replace(LOCOBOT, width=48, height=36)
    try:
        batched, singles = both(3, episodes, scenes, max_steps=20, embodiment=small, pixels=PIXELS)
    except RenderingUnavailable as e:
        pytest.skip(str(e))
    seen = play(batched, singles, 50, 3, episodes)
    assert seen["success"] + seen["failure"] > 0
    observations, *_ = batched.step(np.zeros(3, dtype=np.int64))
    assert observations["depth"].shape == (3, 36, 48) and observations["semantic"].shape == (3, 36, 48)


def test_seeds_masks_and_chosen_episodes_as_single_envs(two_houses):
    episodes, scenes = two_houses
    batched, singles = both(4, episodes, scenes)
    same(batched.reset(seed=3), singles.reset(seed=3))
    seeds = [5, None, 9, 2]  # None: env 1 goes on with its generator
    same(batched.reset(seed=seeds), singles.reset(seed=seeds))
    mask = np.array([False, True, True, False])
    for options in ({"reset_mask": mask}, {"reset_mask": mask, "episode": 3}, {"episode": 10}):
        first, second = batched.reset(seed=1, options=dict(options)), singles.reset(seed=1, options=dict(options))
        keep = options.get("reset_mask", np.ones(4, dtype=bool))
        for key, value in first[1].items():
            if not key.startswith("_"):
                same(value[keep], second[1][key][keep], key)
        same(first[0], second[0])
        same(batched.step(np.array([1, 2, 3, 0])), singles.step(np.array([1, 2, 3, 0])))


def test_the_move_table_is_nav_step(two_houses):
    _, scenes = two_houses
    grid = nav_grid(next(iter(scenes.values())), LOCOBOT)
    nodes, targets = grid.node_moves()
    rng = random.Random(0)
    for node in rng.sample(range(len(nodes)), 300):
        x, z = grid.point(*nodes[node])
        yaw = rng.choice(LOCOBOT.yaws)
        after, event = nav_step(grid, AgentState(x, z, yaw, 0), "MOVE_FORWARD")
        target = targets[node, heading(LOCOBOT, yaw)]
        assert grid.point(*nodes[target]) == (after.x, after.z) and (target == node) == event.collided


def test_what_is_not_batched_is_a_clear_error(two_houses):
    episodes, scenes = two_houses
    with pytest.raises(ValueError, match="expert hints are not batched"):
        ObjectNavVectorEnv(2, episodes, scenes, expert_hints=True)
    with pytest.raises(ValueError, match="pixels='depth'"):
        ObjectNavVectorEnv(2, episodes, scenes, pixels="depth")
    off = replace(episodes[0], start_position=(0.01, 0.0))
    with pytest.raises(ValueError, match=f"episode {off.episode_id}: the batched env needs a start on a navigable"):
        ObjectNavVectorEnv(2, [off], scenes)
    assert ObjectNavVectorEnv(2, episodes, scenes, max_steps=10**9)._trail.shape == (2, vector.TRAIL + 1)
    envs = ObjectNavVectorEnv(2, episodes, scenes)
    with pytest.raises(RuntimeError, match="call reset"):
        envs.step(np.array([1, 1]))
    envs.reset(seed=0)
    for bad in (np.array([1, 1, 1]), np.array([0.5, 1.0]), ["STOP", "STOP"]):
        with pytest.raises(ValueError, match="actions: an integer array of shape"):
            envs.step(bad)
    with pytest.raises(ValueError, match=r"options\['episode'\]"):
        envs.reset(options={"episode": 99})


def test_the_inputs_kept_per_pose_and_position_are_those_computed_afresh(two_houses):
    """What the criteria read at an end is kept per goal set and pose, and oracle visibility per goal set and
    position (the pose's yaw and horizon do not change it): at every end pose met with random STOPs, the
    inputs kept are those `criteria_inputs` computes there from nothing."""
    episodes, scenes = two_houses
    envs = ObjectNavVectorEnv(64, episodes, scenes)
    envs.reset(seed=5)
    for actions in np.random.default_rng(5).integers(0, len(ACTIONS), size=(60, 64)):
        envs.step(actions)
    kept = envs._judged
    assert len(kept) > len({entry for entry, _, _ in kept}) > 50  # positions met again in other poses
    entries = envs._episode_base + envs._episode_start  # each episode's start in its goal set's table
    which = np.searchsorted(envs._set_starts, entries, side="right") - 1
    goal_sets = {int(k): (int(envs._episode_base[e]), episodes[e]) for e, k in enumerate(which)}
    for (entry, yaw, horizon), inputs in kept.items():
        base, episode = goal_sets[int(np.searchsorted(envs._set_starts, entry, side="right") - 1)]
        node = entry - base
        agent = AgentState(float(envs._x[node]), float(envs._z[node]), yaw, horizon)
        goals = {g.object_id: g.box for g in episode.goals}
        assert inputs == criteria_inputs(envs._grids[episode.scene_id], goals, agent)
    assert any(inputs["oracle_seen"] for inputs in kept.values())


def test_the_collector_is_paused_only_while_ends_are_judged(two_houses, monkeypatch):
    """The ends of a step are judged with Python's cyclic collector off (`parallel.collector_paused`), and it is
    left as it was found: on when it was on, off when it was off."""
    import gc

    episodes, scenes = two_houses
    envs = ObjectNavVectorEnv(4, episodes, scenes)
    during = []
    judge = envs._verdicts
    monkeypatch.setattr(envs, "_verdicts", lambda *args: during.append(gc.isenabled()) or judge(*args))
    envs.reset(seed=3)
    stop = np.zeros(4, dtype=np.int64)  # every env calls STOP
    envs.step(stop)
    assert gc.isenabled() and during == [False]
    gc.disable()
    try:
        envs.reset(seed=3)
        envs.step(stop)
        assert not gc.isenabled() and during == [False, False]
    finally:
        gc.enable()
