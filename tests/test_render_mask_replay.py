"""ALFRED's expert demonstrations replayed with every interaction aimed by a pixel mask (the ground-truth
mask of the expert's target, resolved by IoU as ALFRED does) reach the goal as with oracle object ids.

All 251 valid_seen demonstrations reach their goal with object ids; through masks, all but the 2 in
KNOWN_MASK_FAILURES do (249), and no mask resolves to a wrong object. On train
(`bench/render_mask_replay.py`): 6,425 of the 6,573 goals reached with ids (97.7%).
"""

from __future__ import annotations

import pytest
from render_support import episode_of, make_renderer, oracle_final_state, valid_seen

from homesim.render.mask_replay import replay_through_masks
from homesim.tasks.alfred import goal_conditions

KNOWN_MASK_FAILURES = {
    # a cabinet's class-sized box (y 1.04 to 1.74) stands between the camera and a potato on the counter
    # 0.75 m beyond it; in AI2-THOR that cabinet must be smaller, or elsewhere
    "pick_heat_then_place_in_recep-Potato-None-Fridge-12/trial_T20190908_014451_271080",
    # the engine puts a slice where the agent stands (the dining table's box covers its cell): right
    # under the camera, out of the image
    "pick_cool_then_place_in_recep-AppleSliced-None-DiningTable-18/trial_T20190909_022535_813547",
}
FAST_FLOOR_PLANS = ("FloorPlan1", "FloorPlan201", "FloorPlan301", "FloorPlan401")


@pytest.fixture(scope="module")
def renderer():
    r = make_renderer()
    yield r
    r.close()


@pytest.fixture(scope="module")
def data(alfred_trajectories, alfred_layouts):
    return valid_seen(alfred_trajectories, alfred_layouts)


def replay(data, renderer, trajectory) -> tuple[bool, bool, object]:
    """(goal reached with object ids, goal reached through masks, the mask replay)."""
    scenes, _ = data
    scene, episode = episode_of(scenes, trajectory)
    oracle = goal_conditions(scene, oracle_final_state(scene, episode), episode.goal)
    masks = replay_through_masks(scene, episode.initial_state, episode.expert_actions, renderer)
    through_masks = goal_conditions(scene, masks.state, episode.goal)
    return oracle[0] == oracle[1], through_masks[0] == through_masks[1], masks


def short_name(trajectory) -> str:
    return trajectory.name.split("/", 1)[1]


def test_masks_reach_the_goal_as_object_ids_do_in_four_room_types(data, renderer):
    _, trajectories = data
    chosen = [t for t in trajectories if t.data["scene"]["floor_plan"] in FAST_FLOOR_PLANS]
    assert len(chosen) >= 8
    task_types = set()
    for trajectory in chosen:
        oracle, through_masks, masks = replay(data, renderer, trajectory)
        assert oracle and through_masks, f"{trajectory.name}: unseen targets at {masks.unseen}"
        assert masks.redirected == () and masks.unseen == ()
        assert all(event.success for event in masks.events)
        task_types.add(trajectory.data["task_type"])
    assert len(task_types) >= 4


@pytest.mark.slow
def test_masks_reach_the_goal_as_object_ids_do_on_all_of_valid_seen(data, renderer):
    _, trajectories = data
    oracle_goals = mask_goals = 0
    failures = set()
    for trajectory in trajectories:
        oracle, through_masks, masks = replay(data, renderer, trajectory)
        oracle_goals += oracle
        mask_goals += through_masks
        assert masks.redirected == (), f"{trajectory.name}: a mask resolved to another object"
        if oracle and not through_masks:
            failures.add(short_name(trajectory))
    assert oracle_goals == len(trajectories) == 251
    assert failures <= KNOWN_MASK_FAILURES, f"new failures: {sorted(failures - KNOWN_MASK_FAILURES)}"
    assert mask_goals >= oracle_goals - len(KNOWN_MASK_FAILURES)  # 249 of 251 today
