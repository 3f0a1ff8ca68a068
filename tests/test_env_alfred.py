"""`homesim/ALFRED-v0`: the Gymnasium contract, ALFRED's limits (STOP terminates and is not a step;
failed actions are steps; 10 failures or max_steps truncate), invalid actions as failed steps, and a
real ALFRED valid_seen episode played to success with its expert actions."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import homesim.envs  # noqa: F401  (registers homesim/ALFRED-v0)
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.alfred.importer import import_alfred
from homesim.envs.alfred.embodied import MAX_FAILS, MAX_STEPS, AlfredEnv, plain_text
from homesim.world.actions import ACTIONS, STOP

INFO_KEYS = {
    "episode_id",
    "goal_conditions_met",
    "goal_conditions_total",
    "goal_satisfied",
    "last_action",
    "last_action_target",
    "last_action_success",
    "last_action_message",
    "steps",
    "failures",
}
ROTATE = {"action": ACTIONS.index("RotateLeft_90")}


@pytest.fixture(scope="module")
def valid_seen(alfred_samples, alfred_layouts):
    """The 14 real valid_seen trajectories of the samples, with their scenes."""
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts, split="valid_seen")
    assert errors == []
    return splits["valid_seen"], scenes


@pytest.fixture
def env() -> AlfredEnv:
    return gymnasium.make("homesim/ALFRED-v0").unwrapped


# --- the Gymnasium contract -----------------------------------------------------------------------------


def test_check_env_passes_on_the_builtin_episodes():
    check_env(gymnasium.make("homesim/ALFRED-v0").unwrapped, skip_render_check=True)


def test_the_limits_are_alfreds():
    assert (MAX_STEPS, MAX_FAILS) == (1000, 10)
    env = AlfredEnv()
    assert (env.max_steps, env.max_fails) == (1000, 10)


def test_spaces():
    env = AlfredEnv()
    assert env.action_space["action"].n == len(ACTIONS) == 13
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


def test_info_keys(env):
    _, info = env.reset(seed=0)
    assert set(info) == INFO_KEYS
    assert (info["steps"], info["failures"], info["last_action"], info["last_action_success"]) == (0, 0, None, True)
    _, _, _, _, info = env.step(ROTATE)
    assert set(info) == INFO_KEYS
    assert (info["last_action"], info["last_action_success"], info["steps"]) == ("RotateLeft_90", True, 1)
    assert info["goal_conditions_total"] >= 1 and 0 <= info["goal_conditions_met"] <= info["goal_conditions_total"]
    assert info["goal_satisfied"] == (info["goal_conditions_met"] == info["goal_conditions_total"])


def test_step_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        AlfredEnv().step(ROTATE)


def _play(env: AlfredEnv, seed: int) -> list:
    """A fixed action sequence (with interactions on whatever is visible first), everything it returned."""
    obs, info = env.reset(seed=seed)
    trace = [(obs, info)]
    names = ["RotateLeft_90", "MoveAhead_25", "LookDown_15", "PickupObject", "RotateRight_90", "MoveAhead_25"]
    for name in names * 3 + ["OpenObject", "LookUp_15", "PutObject"]:
        visible = obs["visible_objects"]
        action = {"action": ACTIONS.index(name), "target": visible[0] if visible else "nothing"}
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, reward, terminated, truncated, info))
    return trace


def test_same_seed_same_observations_and_infos():
    first, second = _play(AlfredEnv(), 3), _play(AlfredEnv(), 3)
    assert first == second
    assert any(step[-1]["last_action_success"] for step in first[1:])  # it did something


def test_reset_seed_chooses_the_episode_reproducibly():
    env, other = AlfredEnv(), AlfredEnv()
    chosen = [env.reset(seed=s)[1]["episode_id"] for s in range(8)]
    assert chosen == [other.reset(seed=s)[1]["episode_id"] for s in range(8)]
    assert set(chosen) <= {e.id for e in env.episodes}


def test_reset_with_an_episode_index(env):
    episodes, _ = builtin_episodes()
    for i, episode in enumerate(episodes):
        obs, info = env.reset(options={"episode": i})
        assert info["episode_id"] == episode.id
        assert obs["goal"] == episode.annotations[0].task_desc
        assert obs["instructions"] == "\n".join(episode.annotations[0].high_descs)


def test_reset_with_an_annotation(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    i, episode = next((i, e) for i, e in enumerate(episodes) if len(e.annotations) >= 3)
    for k in range(len(episode.annotations)):
        obs, info = env.reset(options={"episode": i, "annotation": k})
        assert info["episode_id"] == episode.id
        assert obs["goal"] == plain_text(episode.annotations[k].task_desc, 1024)
        assert obs["instructions"] == plain_text("\n".join(episode.annotations[k].high_descs), 4096)
    assert len({env.reset(options={"episode": i, "annotation": k})[0]["goal"] for k in range(3)}) > 1


def test_reset_with_an_episode_object(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    _, info = env.reset(options={"episode": episodes[5]})
    assert info["episode_id"] == episodes[5].id


def test_an_episode_without_its_scene_is_refused():
    episodes, _scenes = builtin_episodes()
    with pytest.raises(ValueError, match="no scene"):
        AlfredEnv(episodes, {})


def test_plain_text_is_printable_ascii_within_the_limit():
    assert plain_text("Mettez la pomme sur la cuisinière\x07vite", 100) == "Mettez la pomme sur la cuisiniere vite"
    assert plain_text("x" * 50, 10) == "x" * 10


# --- invalid actions: failed steps, never exceptions -------------------------------------------------------

INVALID = [
    pytest.param({"action": 13, "target": ""}, "invalid action index 13", id="index-too-large"),
    pytest.param({"action": -1}, "invalid action index -1", id="negative-index"),
    pytest.param({"action": "Fly"}, "unknown action 'Fly'", id="unknown-name"),
    pytest.param({"action": "PickupObject"}, "PickupObject needs a target object id, got NoneType", id="no-target"),
    pytest.param({"action": "PutObject", "target": 5}, "PutObject needs a target object id, got int", id="int-target"),
    pytest.param({"action": 5, "target": ["Apple"]}, "PickupObject needs a target object id, got list", id="list"),
    pytest.param("MoveAhead_25", "expected a dict with 'action'", id="a-string"),
    pytest.param(None, "expected a dict with 'action'", id="none"),
    pytest.param({"target": "Apple|1|2|3"}, "expected a dict with 'action'", id="no-action-key"),
    pytest.param({"action": None}, "invalid action None", id="action-none"),
]


@pytest.mark.parametrize(("action", "message"), INVALID)
def test_an_invalid_action_is_a_failed_step_with_a_clear_message(env, action, message):
    env.reset(seed=0)
    _obs, reward, terminated, truncated, info = env.step(action)
    assert info["last_action_success"] is False
    assert message in info["last_action_message"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert (info["steps"], info["failures"]) == (1, 1)  # a failed action counts as a step
    assert info["last_action"] is None


def test_an_unknown_object_is_a_failed_step(env):
    env.reset(seed=0)
    _, _, terminated, _, info = env.step({"action": "PickupObject", "target": "Unicorn|+0.00|+0.00|+0.00"})
    assert info["last_action_success"] is False and info["last_action_message"]
    assert (info["last_action"], info["last_action_target"]) == ("PickupObject", "Unicorn|+0.00|+0.00|+0.00")
    assert (info["steps"], info["failures"], terminated) == (1, 1, False)


def test_a_navigation_action_ignores_its_target(env):
    env.reset(seed=0)
    _, _, _, _, info = env.step({"action": "RotateLeft_90", "target": "whatever"})
    assert info["last_action_success"] and info["last_action_target"] is None


def test_actions_by_name_alias_and_numpy_index(env):
    env.reset(seed=0)
    for action in ({"action": "RotateLeft"}, {"action": np.int64(1)}, {"action": "RotateRight_90"}):
        _, _, _, _, info = env.step(action)
        assert info["last_action_success"], info["last_action_message"]
    assert info["steps"] == 3


@pytest.mark.parametrize("shape", [(300, 300), (7, 7)])
def test_a_mask_target_is_a_failed_step_not_an_exception(env, shape):
    env.reset(seed=0)
    _, _, _, _, info = env.step({"action": "PickupObject", "target": np.ones(shape, dtype=bool)})
    assert info["last_action_success"] is False and info["steps"] == 1


def test_an_unhashable_action_name_is_a_failed_step(env):
    env.reset(seed=0)
    _, _, _, _, info = env.step({"action": ["MoveAhead_25"]})
    assert info["last_action_success"] is False and info["steps"] == 1


def test_reset_with_a_numpy_episode_index(env):
    _, info = env.reset(options={"episode": np.int64(1)})
    assert info["episode_id"] == env.episodes[1].id


# --- ALFRED's limits ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("stop", [{"action": ACTIONS.index(STOP)}, {"action": "Stop"}, {"action": "<<stop>>"}])
def test_stop_terminates_is_not_a_step_and_pays_only_for_a_satisfied_goal(env, stop):
    env.reset(seed=0)
    env.step(ROTATE)
    _obs, reward, terminated, truncated, info = env.step(stop)
    assert (terminated, truncated) == (True, False)
    assert info["steps"] == 1 and info["failures"] == 0  # the stop is not counted
    assert info["last_action"] == STOP and info["last_action_success"]
    assert not info["goal_satisfied"] and reward == 0.0


def test_stop_at_step_0(env):
    env.reset(seed=1)
    _, reward, terminated, truncated, info = env.step({"action": "Stop"})
    assert (reward, terminated, truncated, info["steps"]) == (0.0, True, False, 0)


def test_ten_failed_actions_truncate(env):
    env.reset(seed=0)
    for i in range(1, MAX_FAILS):
        _, _, terminated, truncated, info = env.step({"action": "Fly"})
        assert (terminated, truncated, info["failures"], info["steps"]) == (False, False, i, i)
    env.step(ROTATE)  # a success in between does not reset the count
    _, reward, terminated, truncated, info = env.step({"action": "Fly"})
    assert (reward, terminated, truncated) == (0.0, False, True)
    # the 10th failure ends the episode before its step is counted, as ALFRED's eval_task.py does
    assert (info["failures"], info["steps"]) == (10, 10)


def test_max_fails_is_configurable():
    env = AlfredEnv(max_fails=2)
    env.reset(seed=0)
    assert env.step({"action": "Fly"})[3] is False
    assert env.step({"action": "Fly"})[3] is True


def test_max_steps_truncates():
    env = AlfredEnv(max_steps=3)
    env.reset(seed=0)
    results = [env.step(ROTATE) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert [r[2] for r in results] == [False, False, False]
    assert results[-1][4]["steps"] == 3 and results[-1][4]["failures"] == 0


def test_failed_actions_count_towards_max_steps():
    env = AlfredEnv(max_steps=4)
    env.reset(seed=0)
    results = [env.step(a) for a in (ROTATE, {"action": "Fly"}, ROTATE, {"action": "Fly"})]
    assert [r[3] for r in results] == [False, False, False, True]


# --- a real ALFRED episode -------------------------------------------------------------------------------------


def _as_dict(action) -> dict:
    return {"action": action.name, "target": action.target}


def test_a_real_valid_seen_episode_played_by_its_expert_succeeds_at_stop(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    for i, episode in enumerate(episodes):
        obs, info = env.reset(options={"episode": i})
        assert env.observation_space.contains(obs)
        assert not info["goal_satisfied"]  # ALFRED never starts with its goal met
        for action in episode.expert_actions:
            obs, reward, terminated, truncated, info = env.step(_as_dict(action))
            assert info["last_action_success"], (episode.id, action, info["last_action_message"])
            assert (reward, terminated, truncated) == (0.0, False, False)
            assert env.observation_space.contains(obs)
        assert info["goal_satisfied"] and info["goal_conditions_met"] == info["goal_conditions_total"]
        obs, reward, terminated, truncated, info = env.step({"action": "Stop"})
        assert (reward, terminated, truncated) == (1.0, True, False), episode.id
        assert info["steps"] == len(episode.expert_actions) and info["failures"] == 0


def test_teacher_force_changes_the_state_but_counts_no_steps(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    episode = episodes[0]
    env.reset(options={"episode": episode})
    start = env.state
    prefix, rest = episode.expert_actions[:6], episode.expert_actions[6:]
    obs, info = env.teacher_force(prefix)
    assert env.state != start
    assert (info["steps"], info["failures"]) == (0, 0)
    assert obs == env._observation() and set(info) == INFO_KEYS
    for action in rest:
        _, _, _, _, info = env.step(_as_dict(action))
    _, reward, terminated, _, info = env.step({"action": "Stop"})
    assert (reward, terminated) == (1.0, True)
    assert info["steps"] == len(rest)


def test_teacher_forcing_a_failing_action_is_an_error(valid_seen):
    episodes, scenes = valid_seen
    env = AlfredEnv(episodes, scenes)
    i, episode = next((i, e) for i, e in enumerate(episodes) if any(a.name == "PutObject" for a in e.expert_actions))
    env.reset(options={"episode": i})
    put = next(a for a in episode.expert_actions if a.name == "PutObject")  # holding nothing yet
    with pytest.raises(RuntimeError, match="teacher-forced"):
        env.teacher_force([put])


# --- what a user has: paths, and clear errors for what is not an episode ------------------------------------------


def test_the_env_is_built_from_a_dataset_folder_and_split(tmp_path):
    from homesim.datasets.folder import write_dataset

    episodes, scenes = builtin_episodes()
    write_dataset(tmp_path, {"train": episodes[:3], "valid_seen": episodes[3:]}, scenes, {})
    env = gymnasium.make("homesim/ALFRED-v0", episodes=str(tmp_path), split="valid_seen").unwrapped
    assert [e.id for e in env.episodes] == [e.id for e in episodes[3:]]
    observation, info = env.reset(options={"episode": 0})
    assert info["episode_id"] == episodes[3].id and observation["goal"]


def test_the_env_is_built_from_alfred_trajectories_and_layouts(alfred_samples, alfred_layouts):
    env = gymnasium.make(
        "homesim/ALFRED-v0", episodes=alfred_samples, layouts=alfred_layouts, split="valid_seen"
    ).unwrapped
    assert len(env.episodes) == 14
    _, info = env.reset(options={"episode": 13, "annotation": 2})
    assert info["episode_id"] == env.episodes[13].id


@pytest.mark.parametrize(
    "episodes, message",
    [
        ([], r"episodes=\[\]: give a dataset folder"),
        (["builtin-0-0"], r"episodes\[0\] is a str, not an AlfredEpisode"),
        ("no/such/folder", "no/such/folder"),
    ],
)
def test_what_is_not_episodes_is_a_clear_value_error(episodes, message):
    with pytest.raises(ValueError, match=message):
        AlfredEnv(episodes)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"episode": 9999}, "episode 9999 is out of range: this env has 4 \\(0 to 3\\)"),
        ({"episode": "builtin-0-0"}, "give an index \\(0 to 3\\) or an AlfredEpisode"),
        ({"episode": 0, "annotation": 5}, "annotation 5: episode builtin-0-0 has 1 \\(0 to 0\\)"),
    ],
)
def test_reset_with_a_bad_episode_or_annotation_names_it(env, options, message):
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)


@pytest.mark.parametrize("end", ["stop", "limit"])
def test_a_finished_episode_cannot_be_stepped_until_reset(end):
    env = AlfredEnv(max_steps=2)
    env.reset(seed=0)
    if end == "stop":
        _, _, terminated, truncated, _ = env.step({"action": STOP})
    else:
        env.step(ROTATE)
        _, _, terminated, truncated, _ = env.step(ROTATE)
    assert terminated or truncated
    with pytest.raises(RuntimeError, match="is over .*call reset"):
        env.step(ROTATE)
    env.reset(seed=0)
    assert env.step(ROTATE)[-1]["last_action_success"]


def test_a_wrong_pixels_and_a_wrong_interaction_each_say_which():
    with pytest.raises(ValueError, match=r"pixels=\('smell',\): give a sequence of some of rgb, depth, segmentation"):
        AlfredEnv(pixels=("smell",))
    with pytest.raises(ValueError, match=r"pixels='rgb': give a sequence"):
        AlfredEnv(pixels="rgb")
    with pytest.raises(ValueError, match="interaction='telepathy': use 'oracle'"):
        AlfredEnv(interaction="telepathy")
