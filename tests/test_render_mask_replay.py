"""ALFRED's expert demonstrations replayed with every interaction aimed by a pixel mask (the ground-truth
mask of the expert's target, resolved by IoU as ALFRED does) reach the goal as with oracle object ids.

All 251 valid_seen demonstrations reach their goal with object ids; through masks, all but the 9 in
KNOWN_MASK_FAILURES do (242). Each of those is a target the engine sees (it has no occlusion) that the
imported extents of other furniture hide in pixels, or a data quirk; no mask resolves to a wrong object.
On train (`bench/render_mask_replay.py`): 6,213 of the 6,573 goals reached with ids (94.5%).
"""

from __future__ import annotations

import pytest
from render_support import episode_of, make_renderer, oracle_final_state, valid_seen

from homesim.render.mask_replay import replay_through_masks
from homesim.tasks.alfred import goal_conditions

KNOWN_MASK_FAILURES = {
    # low objects under the overhang of neighbouring counter tops and base cabinets
    "pick_and_place_simple-Cloth-None-BathtubBasin-405/trial_T20190906_162502_940304",
    "pick_clean_then_place_in_recep-Cloth-None-Cabinet-405/trial_T20190907_080903_889497",
    "pick_and_place_simple-SoapBottle-None-CounterTop-417/trial_T20190910_112922_368384",
    "pick_cool_then_place_in_recep-Tomato-None-GarbageCan-6/trial_T20190909_082934_483899",
    # wall cabinets' class-sized boxes (0.6 m deep, 0.7 m tall) reach into the view of the counter or drawer
    "pick_and_place_simple-CreditCard-None-Drawer-227/trial_T20190909_010644_297017",
    "pick_cool_then_place_in_recep-BreadSliced-None-Microwave-11/trial_T20190909_102940_350963",
    "pick_heat_then_place_in_recep-Potato-None-Fridge-12/trial_T20190908_014451_271080",
    # the basin's id puts its box under the floor (Bathtub|-00.98|-00.72|-02.93|BathtubBasin)
    "pick_and_place_simple-HandTowel-None-BathtubBasin-419/trial_T20190908_023400_293044",
    # a slice put where the agent stands (the fridge's box covers its cell): right under the camera
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
    assert mask_goals >= oracle_goals - len(KNOWN_MASK_FAILURES)  # 242 of 251 today
