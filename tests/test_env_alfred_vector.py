"""The batched `homesim/ALFRED-v0` (`envs.alfred.vector`): what `make_vec` makes, and step for step the same
observations, rewards, terminations, truncations and infos as N single envs under Gymnasium's own
`SyncVectorEnv` (seeds s + i, NEXT_STEP auto-reset), over real ALFRED episodes in many scenes and the built-in
ones, with the experts' actions (successes: every task type's interactions), random actions (interactions
with what is in view, blocked moves, refused looks), invalid actions and targets, STOP and both limits."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from test_env_objectnav_vector import same

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.alfred.importer import import_alfred
from homesim.envs.alfred import vector
from homesim.envs.alfred.vector import AlfredVectorEnv
from homesim.world import views
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, STOP

ENV = "homesim/ALFRED-v0"
NAVIGATION = [ACTIONS.index(a) for a in ACTIONS[:5]]


@pytest.fixture(scope="module")
def many_scenes(alfred_samples, alfred_layouts):
    """The samples' 14 real valid_seen trajectories (every task type twice, 13 scenes) and the built-in ones."""
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts, split="valid_seen")
    assert errors == []
    builtin, rooms = builtin_episodes()
    return splits["valid_seen"] + builtin, scenes | rooms


def both(num_envs: int, episodes, scenes, **kwargs):
    made = {"episodes": episodes, "scenes": scenes} | kwargs
    batched = gymnasium.make_vec(ENV, num_envs=num_envs, vectorization_mode="vector_entry_point", **made)
    singles = gymnasium.make_vec(ENV, num_envs=num_envs, vectorization_mode="sync", **made)
    return batched, singles


def chosen_actions(rng, observations, info, by_id, expert_share: float) -> dict:
    """Expert actions for the first `expert_share` of the envs (then STOP at the plan's end), random ones for the
    others (and for episodes without a plan): an interaction with something in view one time in three (a random target now and then),
    else navigation, STOP one time in 40, an invalid index one in 50."""
    n = len(info["steps"])
    actions, targets = np.zeros(n, np.int64), [""] * n
    for i in range(n):
        plan = by_id[info["episode_id"][i]].expert_actions
        if i < n * expert_share and plan:
            step = info["steps"][i]
            if step < len(plan):
                actions[i], targets[i] = ACTIONS.index(plan[step].name), plan[step].target or ""
            else:
                actions[i] = ACTIONS.index(STOP)
            continue
        draw, visible = rng.random(), observations["visible_objects"][i]
        if draw < 1 / 3 and visible:
            actions[i] = ACTIONS.index(INTERACT_ACTIONS[rng.integers(len(INTERACT_ACTIONS))])
            targets[i] = visible[rng.integers(len(visible))] if rng.random() < 0.95 else ["", "Nothing|1"][i % 2]
        elif draw < 1 / 3 + 1 / 40:
            actions[i] = ACTIONS.index(STOP)
        elif draw < 1 / 3 + 1 / 40 + 1 / 50:
            actions[i] = [-1, len(ACTIONS)][i % 2]
        else:
            actions[i] = NAVIGATION[rng.integers(len(NAVIGATION))]
    return {"action": actions, "target": tuple(targets)}


def play(batched, singles, steps: int, seed: int, episodes, expert_share: float = 0.5) -> dict:
    """Step both with the same actions and check every result; counts what happened."""
    rng = np.random.default_rng(seed)
    by_id = {e.id: e for e in episodes}
    observations, info = batched.reset(seed=seed)
    same((observations, info), singles.reset(seed=seed), "reset")
    seen = {"success": 0, "stopped": 0, "truncated": 0, "interactions": 0, "blocked": 0, "refused": 0, "invalid": 0}
    for t in range(steps):
        actions = chosen_actions(rng, observations, info, by_id, expert_share)
        result = batched.step(actions)
        same(result, singles.step(actions), f"step {t}")
        observations, reward, terminated, truncated, info = result
        seen["success"] += int((reward > 0).sum())
        seen["stopped"] += int(terminated.sum())
        seen["truncated"] += int(truncated.sum())
        done = info["last_action_success"] & np.isin(info["last_action"], INTERACT_ACTIONS)
        seen["interactions"] += int(done.sum())
        seen["blocked"] += sum(m.startswith("blocked") for m in info["last_action_message"])
        seen["refused"] += sum(m.startswith("horizon") for m in info["last_action_message"])
        seen["invalid"] += sum(m.startswith("invalid") for m in info["last_action_message"])
    return seen


ALL = dict.fromkeys(("success", "stopped", "truncated", "interactions", "blocked", "refused", "invalid"), 1)
CODE_RULES = {"class_matching": "substring", "containment": "direct", "history_sets": "code"}


@pytest.mark.parametrize(
    "num_envs, settings, steps, seed, expert_share, least",
    [
        (8, {"max_steps": 60}, 500, 7, 0.3, ALL),  # experts to success, random play cut short by both limits
        (6, {}, 300, 3, 1.0, {"success": 10}),  # every expert plan to its end and STOP: rewarded as alone
        (6, {"rules": CODE_RULES}, 300, 5, 0.7, {"success": 1, "interactions": 1}),  # ALFRED's code's reading
        pytest.param(32, {"max_steps": 200}, 2000, 11, 0.5, ALL, marks=pytest.mark.slow),  # thousands of steps
    ],
    ids=["random-and-experts", "experts", "code-rules", "large"],
)
def test_the_batch_steps_as_single_envs_do(many_scenes, num_envs, settings, steps, seed, expert_share, least):
    episodes, scenes = many_scenes
    batched, singles = both(num_envs, episodes, scenes, **settings)
    seen = play(batched, singles, steps, seed, episodes, expert_share)
    assert all(seen[what] >= count for what, count in least.items()), seen


def test_forgotten_arrangements_change_nothing(many_scenes, monkeypatch):
    """Past ARRANGEMENTS, those no env is in are forgotten and the others renumbered, past KEPT answers they are
    redone, and the scenes' views forget where movable objects are seen from at every new place: the same steps."""
    monkeypatch.setattr(vector, "ARRANGEMENTS", 0)
    monkeypatch.setattr(vector, "KEPT", 50)
    monkeypatch.setattr(vector, "MOVABLE_BYTES", 1)
    monkeypatch.setattr(views, "MOVABLE_BYTES", 1)
    episodes, scenes = many_scenes
    batched, singles = both(4, episodes, scenes, max_steps=30)
    play(batched, singles, 200, 9, episodes, expert_share=0.3)
    env = batched.unwrapped
    assert len(env._arrangements) <= env._kept + 2 * env.num_envs + 200


def test_seeds_masks_chosen_episodes_and_annotations_as_single_envs(many_scenes):
    episodes, scenes = many_scenes
    batched, singles = both(4, episodes, scenes)
    same(batched.reset(seed=3), singles.reset(seed=3))
    seeds = [5, None, 9, 2]  # None: env 1 goes on with its generator
    same(batched.reset(seed=seeds), singles.reset(seed=seeds))
    mask = np.array([False, True, True, False])
    turn = {"action": np.array([1, 2, 3, 4]), "target": ("",) * 4}
    for options in (
        {"reset_mask": mask},
        {"reset_mask": mask, "episode": 3},
        {"episode": 10},
        {"episode": 2, "annotation": 2},
    ):
        first, second = batched.reset(seed=1, options=dict(options)), singles.reset(seed=1, options=dict(options))
        keep = options.get("reset_mask", np.ones(4, dtype=bool))
        for key, value in first[1].items():
            if not key.startswith("_"):
                same(value[keep], second[1][key][keep], key)
        same(first[0], second[0])
        same(batched.step(turn), singles.step(turn))


def test_what_is_not_batched_is_a_clear_error(many_scenes):
    episodes, scenes = many_scenes
    for given, what in (({"expert_hints": True}, "expert hints"), ({"pixels": ("rgb",)}, "pixels")):
        with pytest.raises(ValueError, match=f"{what} are not batched"):
            AlfredVectorEnv(2, episodes, scenes, **given)
    with pytest.raises(ValueError, match="masks are not batched"):
        AlfredVectorEnv(2, episodes, scenes, interaction="mask")
    off = episodes[0]
    agent = off.initial_state.agents[0]
    moved = type(agent)(agent.x + 0.1, agent.z, agent.yaw, agent.horizon)
    from dataclasses import replace

    off = replace(off, initial_state=replace(off.initial_state, agents=(moved,)))
    with pytest.raises(ValueError, match=f"episode {off.id}: the batched env needs one agent on a reachable cell"):
        AlfredVectorEnv(2, [off], scenes)
    envs = AlfredVectorEnv(2, episodes, scenes)
    with pytest.raises(RuntimeError, match="call reset"):
        envs.step({"action": np.array([1, 1]), "target": ("", "")})
    envs.reset(seed=0)
    for bad in ({"action": np.array([1, 1, 1]), "target": ("",) * 3}, {"action": np.array([0.5, 1.0])}, [1, 1]):
        with pytest.raises(ValueError, match="actions: "):
            envs.step(bad)
    with pytest.raises(ValueError, match=r"options\['episode'\]"):
        envs.reset(options={"episode": 99})
