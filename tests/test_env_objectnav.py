"""`homesim/ObjectNav-v0`: Gymnasium's checker, habitat's actions and sensors (GPS+Compass relative to the
start, objectgoal, optional RGB-D and semantic at 640x480), STOP judged by the chosen criteria, 500
actions, failed actions that change nothing, and the measures in `info` at the end."""

from __future__ import annotations

import math
from dataclasses import replace

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.envs.objectnav.env import CATEGORY_NAMES, ObjectNavEnv
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav import ObjectNavEpisode, category_goals, goal_distance, goal_field
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import ACTIONS, nav_grid


def far_episode(seed: int, category: str) -> tuple[ObjectNavEpisode, dict]:
    """An episode in house `seed` starting where the category's view points are farthest to walk to, with the
    geodesic distance habitat would give it."""
    scene, _ = generate_house(seed)
    grid = nav_grid(scene, LOCOBOT)
    goals = category_goals(scene, grid, category)
    field = goal_field(grid, goals)
    points = grid.navigable_points(8)
    d = np.array([grid.geodesic(field, x, z) for x, z in points])
    x, z = points[int(np.argmax(np.where(np.isfinite(d), d, -1)))]
    geodesic = goal_distance(grid, goals).distance(float(x), float(z))
    episode = ObjectNavEpisode(
        f"h{seed}-{category}", scene.id, (float(x), float(z)), 90, category, goals, geodesic, 1.0, "hard"
    )
    return episode, {scene.id: scene}


@pytest.fixture(scope="module")
def plant():
    return far_episode(0, "plant")


def test_the_checker_passes_with_and_without_pixels(plant):
    episode, scenes = plant
    check_env(ObjectNavEnv([episode], scenes), skip_render_check=True)
    check_env(ObjectNavEnv([episode], scenes, pixels=("rgb", "depth", "semantic")), skip_render_check=True)


def test_observations_are_habitats_sensors(plant):
    episode, scenes = plant
    env = ObjectNavEnv([episode], scenes, pixels=("rgb", "depth", "semantic"))
    observation, info = env.reset(seed=0)
    assert observation["objectgoal"] == CATEGORY_NAMES.index("plant")
    assert observation["gps"].tolist() == [0.0, 0.0] and observation["compass"].tolist() == [0.0]
    assert observation["rgb"].shape == (480, 640, 3) and observation["depth"].shape == (480, 640)
    assert 0.5 <= observation["depth"].min() and observation["depth"].max() <= 5.0
    assert set(np.unique(observation["semantic"])) <= {-1, *range(len(CATEGORY_NAMES))}
    assert info["distance_to_goal"] == pytest.approx(episode.geodesic_distance)
    assert ObjectNavEnv([episode], scenes).reset(seed=0)[0].keys() == {"objectgoal", "gps", "compass"}


def test_gps_and_compass_are_relative_to_the_start(plant):
    episode, scenes = plant
    env = ObjectNavEnv([episode], scenes)
    env.reset(seed=0)
    observation, _, _, _, _ = env.step(ACTIONS.index("TURN_RIGHT"))
    assert observation["compass"][0] == pytest.approx(math.radians(30))
    assert observation["gps"].tolist() == [0.0, 0.0]
    for _ in range(2):  # 90 degrees right of the start: a step forward goes right in the start's frame
        observation, _, _, _, info = env.step(ACTIONS.index("TURN_RIGHT"))
    observation, _, _, _, info = env.step(ACTIONS.index("MOVE_FORWARD"))
    if info["last_action_success"]:
        assert observation["gps"] == pytest.approx([0.0, 0.25], abs=1e-6)
        assert info["agent_path_length"] == pytest.approx(0.25)
    else:
        assert info["collisions"] == 1 and observation["gps"].tolist() == [0.0, 0.0]
    for _ in range(6):
        observation, _, _, _, _ = env.step(ACTIONS.index("TURN_LEFT"))  # 90 right, 180 left
    assert observation["compass"][0] == pytest.approx(math.radians(-90))


def test_failed_actions_change_nothing_and_say_why(plant):
    episode, scenes = plant
    env = ObjectNavEnv([episode], scenes)
    env.reset(seed=0)
    _, _, _, _, info = env.step(ACTIONS.index("LOOK_UP"))
    _, _, _, _, info = env.step(ACTIONS.index("LOOK_UP"))  # past -30 degrees
    assert not info["last_action_success"] and "pitch" in info["last_action_message"]
    for bad in (17, "FLY", None, {"action": 1}):
        observation, _, terminated, _, info = env.step(bad)
        assert not info["last_action_success"] and "invalid action" in info["last_action_message"]
        assert not terminated and observation["gps"].tolist() == [0.0, 0.0]


def test_stop_ends_the_episode_with_its_verdict_and_measures(plant):
    episode, scenes = plant
    env = ObjectNavEnv([episode], scenes)
    env.reset(seed=0)
    env.step(ACTIONS.index("TURN_LEFT"))
    _, reward, terminated, truncated, info = env.step(ACTIONS.index("STOP"))
    assert terminated and not truncated
    assert info["success"] is False and info["spl"] == 0.0 and info["soft_spl"] == 0.0
    assert info["criteria"]["intentionality"] and not info["criteria"]["proximity"]
    assert info["measures"]["required"] == ["intentionality", "validity", "proximity", "visibility"]
    assert info["measures"]["geodesic_distance"] == pytest.approx(episode.geodesic_distance)
    assert reward == pytest.approx(-0.01)
    with pytest.raises(RuntimeError, match="is over"):
        env.step(0)


def test_the_step_limit_truncates_and_fails_intentionality(plant):
    episode, scenes = plant
    env = ObjectNavEnv([episode], scenes, max_steps=5)
    env.reset(seed=0)
    for _ in range(4):
        assert not env.step(ACTIONS.index("TURN_LEFT"))[3]
    _, _, terminated, truncated, info = env.step(ACTIONS.index("TURN_LEFT"))
    assert truncated and not terminated and info["criteria"]["intentionality"] is False
    assert info["num_steps"] == 5
    assert ObjectNavEnv([episode], scenes).max_steps == 500


def test_bad_settings_are_one_line_errors(plant):
    episode, scenes = plant
    with pytest.raises(ValueError, match="unknown success criterion 'near'"):
        ObjectNavEnv([episode], scenes, criteria="proximity,near")
    with pytest.raises(ValueError, match="pixels='rgb'"):
        ObjectNavEnv([episode], scenes, pixels="rgb")
    with pytest.raises(ValueError, match="no scene given"):
        ObjectNavEnv([episode], {})
    with pytest.raises(ValueError, match="episode 3 is out of range: this env has 1"):
        ObjectNavEnv([episode], scenes).reset(options={"episode": 3})


def test_same_seed_same_episode_and_frames(plant):
    episode, scenes = plant
    other, more = far_episode(1, "chair")
    a = ObjectNavEnv([episode, other], scenes | more, pixels=("depth",))
    b = ObjectNavEnv([episode, other], scenes | more, pixels=("depth",))
    for seed in (0, 1, 2):
        (oa, ia), (ob, ib) = a.reset(seed=seed), b.reset(seed=seed)
        assert ia["episode_id"] == ib["episode_id"] and np.array_equal(oa["depth"], ob["depth"])


def test_registered_under_its_id(plant):
    episode, scenes = plant
    env = gymnasium.make("homesim/ObjectNav-v0", episodes=[episode], scenes=scenes)
    assert env.reset(seed=0)[1]["episode_id"] == episode.episode_id


def test_d0_is_measured_at_reset_and_the_record_keeps_the_poses_walked(plant):
    episode, scenes = plant
    rounded = replace(episode, geodesic_distance=round(episode.geodesic_distance, 1))  # what a file may hold
    env = ObjectNavEnv([rounded], scenes)
    env.reset(seed=0)
    for action in ("TURN_RIGHT", "MOVE_FORWARD", "MOVE_FORWARD", "LOOK_DOWN", "STOP"):
        *_, info = env.step(ACTIONS.index(action))
    m = info["measures"]
    assert m["geodesic_distance"] == episode.geodesic_distance != rounded.geodesic_distance  # habitat's, live
    x, z = (round(v * 32) for v in episode.start_position)
    assert m["poses"]["start"] == [x, z, 90, 0]
    moved = len(m["poses"]["positions"]) - 1
    assert moved == 2 - info["collisions"] and m["poses"]["end"][2:] == [120, 30]
    assert m["agent_path_length"] == pytest.approx(0.2519 * moved, abs=1e-3)  # 120 degrees: the (7, -4) step
    assert m["inputs"]["navigable"] and set(m["inputs"]["surface_distances"]) == {g.object_id for g in episode.goals}
