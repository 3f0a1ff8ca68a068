"""The pose tables (`views.PoseViews`) answer exactly as `frustum.in_view` does, pose by pose:

* `in_view_poses` against `in_view` for seeded random boxes, placed on a 5 cm lattice so that many of
  their distances to the grid's cells are exactly the 1.5 m reach (ties the two must break alike);
* the views' fixed objects against `in_view` at every pose of four real floor plans;
* `visible_objects` and `why_not_visible` against the reference rule (`in_view`, the movable prefilter,
  closed receptacles) at random poses in states met along expert demonstrations, and off the grid
  (another yaw, between cells), where the scalar path answers.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.frustum import HORIZONS, YAWS, in_view, near_the_view
from homesim.world.geometry import enclosed, object_box, visible_objects, why_not_visible
from homesim.world.scene import GRID_SIZE, Box
from homesim.world.state import AgentState, State
from homesim.world.views import POSES_PER_CELL, in_view_poses, pose_views

CATALOG = alfred_catalog()
FLOOR_PLANS = ("FloorPlan1", "FloorPlan201", "FloorPlan301", "FloorPlan401")  # a kitchen, living room, bedroom, bath


@pytest.fixture(scope="module")
def demos(alfred_trajectories, alfred_layouts) -> dict:
    """Per floor plan: the scene and the states met along its valid_seen expert demonstrations."""
    trajectories = [
        t
        for t in read_trajectories(alfred_trajectories / "valid_seen.jsonl.gz")
        if isinstance(t, RawTrajectory) and t.data["scene"]["floor_plan"] in FLOOR_PLANS
    ]
    evidence = gather_evidence(t.data for t in trajectories)
    found = {}
    for floor_plan in FLOOR_PLANS:
        scene = build_scene(floor_plan, alfred_layouts, evidence[floor_plan])
        states = []
        for t in trajectories:
            if t.data["scene"]["floor_plan"] == floor_plan:
                episode = episode_from_trajectory(t.source, t.data, scene, CATALOG)
                state = episode.initial_state
                for action in episode.expert_actions:
                    states.append(state)
                    state = step(scene, state, action, catalog=CATALOG)[0]
        found[floor_plan] = scene, states
    return found


LATTICE = np.array([(x * GRID_SIZE, z * GRID_SIZE) for x in range(-4, 5) for z in range(-4, 5)])


def random_boxes(count: int) -> list[Box]:
    rng = random.Random(count)
    boxes = []
    for _ in range(count):
        lo = [rng.randrange(-50, 50) * 0.05, rng.randrange(0, 40) * 0.05, rng.randrange(-50, 50) * 0.05]
        size = [rng.randrange(1, 30) * 0.05, rng.randrange(1, 30) * 0.05, rng.randrange(1, 30) * 0.05]
        boxes.append(Box(tuple(lo), tuple(a + b for a, b in zip(lo, size))))
    return boxes


@pytest.mark.parametrize("count", [16, pytest.param(400, marks=pytest.mark.slow)])
def test_in_view_poses_is_in_view_for_random_boxes(count):
    positions, boxes = LATTICE, random_boxes(count)
    answers = in_view_poses(boxes, positions, 1.576)
    expected = np.array(
        [
            [[[in_view(box, AgentState(x, z, yaw, h), 1.576) for h in HORIZONS] for yaw in YAWS] for x, z in positions]
            for box in boxes
        ]
    )
    assert np.array_equal(answers, expected)
    assert 0.02 < expected.mean() < 0.5  # both answers are common


def test_one_box_at_a_time_answers_as_all_at_once():
    """Many columns go through two rounds and the planes' rejection, a few through one round without it."""
    boxes = random_boxes(16)
    one_by_one = np.concatenate([in_view_poses([box], LATTICE, 1.576) for box in boxes])
    assert np.array_equal(one_by_one, in_view_poses(boxes, LATTICE, 1.576))


@pytest.mark.parametrize("floor_plan", FLOOR_PLANS)
def test_fixed_objects_at_every_pose(demos, floor_plan):
    scene, _ = demos[floor_plan]
    views = pose_views(replace(scene, pose_visibility={}))
    assert all(len(seen) == len(scene.reachable) * POSES_PER_CELL for seen in views.fixed_seen.values())
    for (x, z), cell in views.cells.items():
        for i, yaw in enumerate(YAWS):
            for j, horizon in enumerate(HORIZONS):
                agent = AgentState(x, z, yaw, horizon)
                assert views.pose(agent) == (cell * len(YAWS) + i) * len(HORIZONS) + j
                expected = {f.id for f in scene.fixed.values() if in_view(f.box, agent, scene.camera_height)}
                assert views.fixed(views.pose(agent)) == expected


def reference_visible(scene, state: State) -> list[str]:
    """`visible_objects` as the scalar rule computes it: fixed objects in view, placed movable ones past
    the prefilter and in view, none enclosed."""
    agent, height = state.agents[0], scene.camera_height
    found = [f.id for f in scene.fixed.values() if in_view(f.box, agent, height)]
    for o in state.objects.values():
        if o.position is not None and near_the_view(o.position, agent, height):
            found += [o.id] if in_view(Box.around(o.position, CATALOG[o.cls].size), agent, height) else []
    return sorted(o for o in found if enclosed(state, CATALOG, o) is None)


def reference_reason(scene, state: State, object_id: str) -> bool:
    """Whether `why_not_visible` should find nothing in the way, by the scalar rule."""
    box = object_box(scene, state, CATALOG, object_id)
    usable = box is not None and state.agents[0].held != object_id and enclosed(state, CATALOG, object_id) is None
    return usable and in_view(box, state.agents[0], scene.camera_height)


@pytest.mark.parametrize("floor_plan", FLOOR_PLANS)
def test_visible_objects_at_random_poses_of_demonstration_states(demos, floor_plan):
    scene, states = demos[floor_plan]
    scene = replace(scene, pose_visibility={})
    rng = random.Random(11)
    cells, seen = sorted(scene.reachable), 0
    for n in range(300):
        ix, iz = rng.choice(cells)
        pose = {"x": ix * GRID_SIZE, "z": iz * GRID_SIZE, "yaw": rng.choice(YAWS), "horizon": rng.choice(HORIZONS)}
        if n % 10 == 0:  # off the grid: between cells, at another yaw or horizon
            pose = {**pose, **rng.choice(({"x": (ix + 0.5) * GRID_SIZE}, {"yaw": 30}, {"horizon": 10}))}
        state = rng.choice(states)
        state = replace(state, agents=(replace(state.agents[0], **pose),))
        assert (pose_views(scene).pose(state.agents[0]) is None) == (n % 10 == 0)
        visible = visible_objects(scene, state, CATALOG, 0)
        assert visible == reference_visible(scene, state)
        for object_id in state.objects:
            assert (why_not_visible(scene, state, CATALOG, 0, object_id) is None) == reference_reason(
                scene, state, object_id
            )
        seen += len(visible)
    assert seen > 300  # the poses see things: the comparison is not between empty lists
