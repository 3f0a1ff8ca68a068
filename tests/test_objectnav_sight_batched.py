"""An episode's end traces every goal instance's lines of sight at once (`sight.sights`, what
`criteria_inputs` reads), in rounds that drop the lines found blocked (`sight._clear`): the same bits as
tracing each box's lines in one round (the first implementation, kept here as the reference) and as `sees`
and `oracle_sees` box by box, at many random end poses in two generated houses."""

from __future__ import annotations

import numpy as np
import pytest

from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav_criteria import criteria_inputs, criteria_inputs_many
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import LATTICE, nav_grid, surface_distance
from homesim.world.objectnav.sight import PAIRS, clear_lines, oracle_sees, sees, sights, sights_many, surface_points
from homesim.world.state import AgentState


def one_round(grid, box, cameras, points):
    """The first `_clear`: each call's lines sampled as far as its longest line needs, all in one round."""
    h = grid.embodiment.camera_height
    x, z = cameras[:, 0], cameras[:, 1]
    dx, dz, dy = points[:, 0] - x, points[:, 2] - z, points[:, 1] - h
    enter = np.zeros(len(points))
    for delta, origin, lo, hi in ((dx, x, box.lo[0], box.hi[0]), (dz, z, box.lo[2], box.hi[2])):
        with np.errstate(divide="ignore", invalid="ignore"):
            t0, t1 = (lo - origin) / delta, (hi - origin) / delta
        inside = (lo <= origin) & (origin <= hi)
        enter = np.maximum(enter, np.where(delta == 0, np.where(inside, -np.inf, np.inf), np.minimum(t0, t1)))
    enter = np.clip(enter, 0.0, 1.0)
    length = np.hypot(dx, dz)
    s = np.arange(max(1, int(np.ceil((length * enter).max() / LATTICE)))) * LATTICE
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(length[:, None] > 0, s / length[:, None], 0.0)
    wanted = t < enter[:, None]
    wanted[:, 0] = True
    i = np.rint((x[:, None] + t * dx[:, None]) / LATTICE).astype(np.int64) - grid.i0
    j = np.rint((z[:, None] + t * dz[:, None]) / LATTICE).astype(np.int64) - grid.j0
    sy = h + t * dy[:, None]
    inside = wanted & (i >= 0) & (i < grid.shape[0]) & (j >= 0) & (j < grid.shape[1])
    i, j = np.where(inside, i, 0), np.where(inside, j, 0)
    return ~(inside & (grid.low[i, j] <= sy) & (sy <= grid.high[i, j])).any(axis=1)


@pytest.fixture(scope="module", params=[0, 3])
def house(request):
    """A generated house's grid, its fixed objects' boxes by class, and random end poses on its nodes."""
    scene, _ = generate_house(request.param)
    grid = nav_grid(scene, LOCOBOT)
    boxes: dict[str, dict] = {}
    for f in scene.fixed.values():
        boxes.setdefault(f.cls, {})[f.id] = f.box
    rng = np.random.default_rng(request.param)
    points = grid.navigable_points()
    poses = [
        AgentState(float(x), float(z), int(rng.choice(LOCOBOT.yaws)), int(rng.choice(LOCOBOT.horizons)))
        for x, z in points[rng.choice(len(points), 150)]
    ]
    return grid, [boxes[c] for c in sorted(boxes)], poses


def test_the_rounds_trace_the_same_lines_as_one_round(house):
    grid, goal_sets, poses = house
    rng = np.random.default_rng(1)
    for _ in range(20):
        box = next(iter(goal_sets[rng.integers(len(goal_sets))].values()))
        points = surface_points(box)[rng.integers(len(surface_points(box)), size=2 * PAIRS + 37)]
        cameras = np.array([(p.x, p.z) for p in poses])[rng.integers(len(poses), size=len(points))]
        expected = np.concatenate(
            [one_round(grid, box, cameras[k : k + PAIRS], points[k : k + PAIRS]) for k in range(0, len(points), PAIRS)]
        )
        assert expected.any() and not expected.all()
        assert np.array_equal(clear_lines(grid, box, cameras, points), expected)


def test_an_ends_sight_of_every_goal_at_once_is_each_goals_own(house):
    grid, goal_sets, poses = house
    seen = oracle_seen = 0
    for k, agent in enumerate(poses):
        goals = goal_sets[k % len(goal_sets)]
        inputs = criteria_inputs(grid, goals, agent)
        assert inputs == {
            "navigable": grid.is_navigable(agent.x, agent.z),
            "surface_distances": {i: round(surface_distance(b, agent.x, agent.z), 6) for i, b in sorted(goals.items())},
            "seen": sorted(i for i, b in goals.items() if sees(grid, b, agent)),
            "oracle_seen": sorted(i for i, b in goals.items() if oracle_sees(grid, b, agent.x, agent.z)),
        }
        seen, oracle_seen = seen + len(inputs["seen"]), oracle_seen + len(inputs["oracle_seen"])
    assert seen and oracle_seen > seen  # both answers met, so the comparison tells something
    assert [a.tolist() for a in sights(grid, [], poses[0])] == [[], []]


def test_many_ends_at_once_are_each_ends_own(house):
    """`sights_many` and `criteria_inputs_many` (the batched env's ends of one step, traced at once) give each
    end's own answers: every pose, goal sets of one to many boxes, with and without the oracle's lines."""
    grid, goal_sets, poses = house
    ends = [(goal_sets[k % len(goal_sets)], agent, k % 3 > 0) for k, agent in enumerate(poses)]
    many = sights_many(grid, [(list(goals.values()), agent, oracle) for goals, agent, oracle in ends])
    for (goals, agent, oracle), (seen, oracle_seen) in zip(ends, many):
        alone = sights(grid, list(goals.values()), agent, oracle)
        assert seen.tolist() == alone[0].tolist() and oracle_seen.tolist() == alone[1].tolist()
    assert sum(s.sum() for s, _ in many) and sum(o.sum() for _, o in many)  # both answers met
    kept = [None if oracle else ["kept"] for _, _, oracle in ends]
    inputs = criteria_inputs_many(grid, [(goals, agent, k) for (goals, agent, _), k in zip(ends, kept)])
    assert inputs == [criteria_inputs(grid, goals, agent, k) for (goals, agent, _), k in zip(ends, kept)]


def test_lines_leaving_the_grid_or_of_no_length_trace_as_one_round(house):
    """Lines from cameras outside the grid or at its edge, and lines of no length on the floor plan (a point
    straight above or below the camera, in or out of the box's footprint): the same as the first `_clear`."""
    grid, goal_sets, poses = house
    rng = np.random.default_rng(2)
    x0, z0 = grid.i0 * LATTICE, grid.j0 * LATTICE
    x1, z1 = x0 + (grid.shape[0] - 1) * LATTICE, z0 + (grid.shape[1] - 1) * LATTICE
    for _ in range(10):
        box = next(iter(goal_sets[rng.integers(len(goal_sets))].values()))
        points = surface_points(box)[rng.integers(len(surface_points(box)), size=300)]
        cameras = np.column_stack([rng.uniform(x0 - 1, x1 + 1, 300), rng.uniform(z0 - 1, z1 + 1, 300)])
        cameras[:100] = points[:100][:, [0, 2]]  # of no length
        cameras[:20, 0] = box.lo[0] - 0.01  # of no length in z only: outside the footprint
        assert np.array_equal(clear_lines(grid, box, cameras, points), one_round(grid, box, cameras, points))
