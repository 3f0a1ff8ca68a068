"""ObjectNav motion on the pose lattice: steps, collisions, the robot's radius, geodesic distances against
an independent search, and camera visibility."""

from __future__ import annotations

import heapq
import math
import random

import numpy as np
import pytest

from homesim.scenes.houses import generate_house
from homesim.scenes.procedural import generate_room
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import LATTICE, nav_grid, nav_step, surface_distance
from homesim.world.objectnav.sight import oracle_sees, seeing_orientations, sees
from homesim.world.scene import Box
from homesim.world.state import AgentState


@pytest.fixture(scope="module")
def house():
    scene, _ = generate_house(5, rooms=2)
    return scene, nav_grid(scene, LOCOBOT)


def test_locobot_is_the_2020_challenge_robot():
    e = LOCOBOT
    assert (e.radius, e.camera_height, e.hfov, e.width, e.height, e.depth_range) == (
        0.18,
        0.88,
        79.0,
        640,
        480,
        (0.5, 5.0),
    )
    assert (e.forward, e.turn, e.look, e.max_steps, e.sliding) == (0.25, 30, 30, 500, False)
    assert e.vfov == pytest.approx(63.4, abs=0.1)
    assert len(e.yaws) == 12


def _open_spot(grid, yaw):
    """A navigable point from which a move at `yaw` is allowed."""
    k = yaw // 30
    i, j = np.argwhere(grid.can_move[k])[len(np.argwhere(grid.can_move[k])) // 2]
    return AgentState(*grid.point(int(i), int(j)), yaw, 0)


def test_forward_moves_a_quarter_metre_on_the_axes_and_the_nearest_lattice_step_between(house):
    _, grid = house
    for yaw in LOCOBOT.yaws:
        agent = _open_spot(grid, yaw)
        moved, event = nav_step(grid, agent, "MOVE_FORWARD")
        assert event.success and not event.collided
        dx, dz = moved.x - agent.x, moved.z - agent.z
        assert math.hypot(dx, dz) == pytest.approx(0.25, rel=0.008)
        assert math.degrees(math.atan2(dx, dz)) % 360 == pytest.approx(yaw, abs=0.3)
        if yaw % 90 == 0:
            assert math.hypot(dx, dz) == 0.25


def test_turns_looks_and_stop(house):
    _, grid = house
    agent = _open_spot(grid, 0)
    left, _ = nav_step(grid, agent, "TURN_LEFT")
    assert left.yaw == 330 and (left.x, left.z) == (agent.x, agent.z)
    assert nav_step(grid, left, "TURN_RIGHT")[0] == agent
    down, _ = nav_step(grid, agent, "LOOK_DOWN")
    assert down.horizon == 30
    up = agent
    for _ in range(1):
        up, event = nav_step(grid, up, "LOOK_UP")
    stuck, event = nav_step(grid, up, "LOOK_UP")  # -30 is the limit
    assert not event.success and stuck == up
    assert nav_step(grid, agent, "STOP") == (agent, nav_step(grid, agent, "STOP")[1])
    with pytest.raises(ValueError, match="unknown ObjectNav action"):
        nav_step(grid, agent, "MoveAhead_25")


def test_a_blocked_move_changes_nothing_and_never_slides(house):
    _, grid = house
    agent = _open_spot(grid, 90)
    for _ in range(200):  # walk east into the wall
        agent, event = nav_step(grid, agent, "MOVE_FORWARD")
        if not event.success:
            break
    assert event.collided and "blocked" in event.message
    again, event = nav_step(grid, agent, "MOVE_FORWARD")
    assert again == agent and not event.success


def test_navigable_points_keep_the_robots_radius_from_every_obstacle(house):
    scene, grid = house
    obstacles = [*scene.walls, *(f.box for f in scene.fixed.values() if f.box.lo[1] < LOCOBOT.body_height)]
    points = grid.navigable_points()
    rng = np.random.default_rng(0)
    for x, z in points[rng.choice(len(points), 400, replace=False)]:
        nearest = min(surface_distance(b, x, z) for b in obstacles)
        assert nearest > LOCOBOT.radius - LATTICE  # the obstacles are known to a lattice step


def _independent_distances(grid, sources):
    """Dijkstra in plain Python over the navigable lattice, with each move checked point by point along
    the segment (both roundings), written apart from NavGrid's array code."""
    nav = grid.navigable
    steps = [(round(8 * math.sin(math.radians(y))), round(8 * math.cos(math.radians(y)))) for y in range(0, 360, 30)]

    def free(i, j, v):
        n = max(2, math.ceil(max(abs(v[0]), abs(v[1])) / 2))
        for k in range(1, n + 1):
            fx, fz = v[0] * k / n, v[1] * k / n
            for a in {math.floor(fx), math.ceil(fx)}:
                for b in {math.floor(fz), math.ceil(fz)}:
                    if not (0 <= i + a < nav.shape[0] and 0 <= j + b < nav.shape[1] and nav[i + a, j + b]):
                        return False
        return True

    dist = {s: 0.0 for s in sources}
    queue = [(0.0, s) for s in sources]
    while queue:
        d, (i, j) = heapq.heappop(queue)
        if d > dist[(i, j)]:
            continue
        for v in steps:
            if free(i, j, v):
                q, nd = (i + v[0], j + v[1]), d + math.hypot(*v) * LATTICE
                if nd < dist.get(q, math.inf) - 1e-12:
                    dist[q] = nd
                    heapq.heappush(queue, (nd, q))
    return dist


def test_geodesic_distances_agree_with_an_independent_search():
    scene, _ = generate_room("Bathroom", 0)
    grid = nav_grid(scene, LOCOBOT)
    points = grid.navigable_points()
    goal = points[len(points) // 3 : len(points) // 3 + 1]
    field = grid.distance_field(goal)
    expected = _independent_distances(grid, [grid.index(*goal[0])])
    assert set(expected) == {tuple(ij) for ij in np.argwhere(grid.navigable)}  # one component, all reached
    for (i, j), d in expected.items():
        assert field[i, j] == pytest.approx(d, abs=1e-9)
    # never shorter than the straight line, never off the navigable area
    xs, zs = np.nonzero(grid.navigable)
    straight = np.hypot(*(np.array(grid.point(xs, zs)) - goal[0][:, None]))
    assert (field[xs, zs] >= straight - 1e-9).all()
    assert np.isinf(field[~grid.navigable]).all()


def test_sight_sees_what_is_in_front_and_not_through_walls(house):
    scene, grid = house
    agent = _open_spot(grid, 0)
    ahead = Box((agent.x - 0.2, 0.0, agent.z + 1.0), (agent.x + 0.2, 0.6, agent.z + 1.4))
    behind = Box((agent.x - 0.2, 0.0, agent.z - 1.4), (agent.x + 0.2, 0.6, agent.z - 1.0))
    assert sees(grid, ahead, agent)  # open floor around this spot: seen ahead, not behind, behind after turning
    assert not sees(grid, behind, agent)
    assert oracle_sees(grid, behind, agent.x, agent.z)
    assert any(yaw == 180 for yaw, _ in seeing_orientations(grid, behind, agent.x, agent.z))
    # a box just outside the house, beyond its east wall, is never seen from inside
    east = max(w.hi[0] for w in scene.walls)
    north, south = max(w.hi[2] for w in scene.walls), min(w.lo[2] for w in scene.walls)
    outside = Box((east + 0.1, 0.0, (north + south) / 2 - 0.5), (east + 0.6, 1.0, (north + south) / 2 + 0.5))
    rng = random.Random(0)
    points = grid.navigable_points()
    for _ in range(50):
        x, z = points[rng.randrange(len(points))]
        assert not oracle_sees(grid, outside, float(x), float(z))
