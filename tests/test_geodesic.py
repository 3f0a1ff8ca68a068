"""Continuous geodesic distances on the navigable area (`world.objectnav.geodesic`): the straight line in open
space, the two segments round a corner, never longer than the lattice's move distances, every navigable
lattice point inside the area, and equal to an independent exact solver (all corners, every pair of them,
a separating-axis test and networkx's Dijkstra) on generated houses."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav import category_goals, goal_field
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.geodesic import GoalDistance, NavArea, grown_rectangle, nav_area, obstacle_rectangles
from homesim.world.objectnav.navgrid import nav_grid
from homesim.world.scene import Box, FixedObject, RoomArea, Scene

TOLERANCE = 1e-9


def _room_with_a_box() -> Scene:
    """An empty 6 x 6 m room with a 2 x 2 m box (lower than the robot) in the middle."""
    box = FixedObject("Dresser|3|0|3", "Dresser", (3.0, 0.4, 3.0), Box((2.0, 0.0, 2.0), (4.0, 0.8, 4.0)))
    return Scene("box-room", "LivingRoom", frozenset(), {box.id: box}, rooms=(RoomArea("LivingRoom", 0, 0, 6, 6),))


@pytest.fixture(scope="module")
def box_room():
    scene = _room_with_a_box()
    return nav_area(nav_grid(scene, LOCOBOT))


def test_obstacle_rectangles_cover_exactly_the_blocked_points():
    rng = np.random.default_rng(0)
    blocked = rng.random((40, 30)) < 0.3
    blocked[5:20, 3:25] = True
    covered = np.zeros_like(blocked)
    for i0, i1, j0, j1 in obstacle_rectangles(blocked):
        assert blocked[i0 : i1 + 1, j0 : j1 + 1].all()
        covered[i0 : i1 + 1, j0 : j1 + 1] = True
    assert (covered == blocked).all()


def test_a_grown_rectangle_keeps_the_radius_on_its_sides_and_its_corners_on_the_circle():
    polygon = grown_rectangle(0.0, 0.0, 2.0, 1.0, 0.18)
    assert len(polygon) == 20
    assert polygon[:, 0].min() == pytest.approx(-0.18) and polygon[:, 0].max() == pytest.approx(2.18)
    assert polygon[:, 1].min() == pytest.approx(-0.18) and polygon[:, 1].max() == pytest.approx(1.18)
    corner = polygon[(polygon[:, 0] > 2.0) & (polygon[:, 1] > 1.0)]
    assert np.hypot(corner[:, 0] - 2.0, corner[:, 1] - 1.0) == pytest.approx(0.18)
    area = 0.5 * np.sum(polygon[:, 0] * np.roll(polygon[:, 1], -1) - np.roll(polygon[:, 0], -1) * polygon[:, 1])
    assert area > 0  # counter-clockwise


def test_in_open_space_the_distance_is_the_straight_line(box_room):
    goal = GoalDistance(box_room, np.array([[1.0, 1.0]]))
    assert goal.distance(1.0, 5.0) == pytest.approx(4.0, abs=TOLERANCE)
    assert goal.distance(1.5, 1.25) == pytest.approx(math.hypot(0.5, 0.25), abs=TOLERANCE)
    assert goal.distance(1.0, 1.0) == 0.0


def test_round_a_corner_the_distance_is_the_sum_of_the_two_segments(box_room):
    # the box's corner (4, 4) grown by the radius: the 16-gon's corner at 45 degrees is where the path bends
    bend = np.array([4.0, 4.0]) + 0.18 * np.array([math.cos(math.pi / 4), math.sin(math.pi / 4)])
    start, end = np.array([3.0, 5.0]), np.array([5.0, 3.0])
    assert box_room.blocked(start[None], end[None])[0]
    goal = GoalDistance(box_room, end[None])
    expected = np.hypot(*(start - bend)) + np.hypot(*(bend - end))
    assert goal.distance(*start) == pytest.approx(expected, abs=TOLERANCE)
    # and the way round the far side of the box is the mirror image of it
    assert GoalDistance(box_room, np.array([[1.0, 3.0]])).distance(5.0, 3.0) > 4.0 + 0.36


def test_every_navigable_point_is_inside_the_area_and_no_farther_than_the_lattice_says():
    scene, _ = generate_house(3, rooms=3)
    grid = nav_grid(scene, LOCOBOT)
    area = nav_area(grid)
    points = grid.navigable_points(stride=7)
    depth = np.einsum("pmd,kd->kpm", area.normals, points) - area.offsets[None]
    assert not (depth.max(axis=2) < 0).any(axis=1).any()  # inside no grown obstacle
    goals = category_goals(scene, grid, "chair")
    targets = np.array([p for g in goals for p in g.view_points])
    queries = points[:: max(1, len(points) // 60)]
    continuous = GoalDistance(area, targets).distances(queries)
    field = goal_field(grid, goals)
    lattice = np.array([grid.geodesic(field, x, z) for x, z in queries])
    straight = np.array([np.hypot(*(targets - q).T).min() for q in queries])
    assert np.isfinite(continuous).all()
    assert (continuous <= lattice + TOLERANCE).all()
    assert (continuous >= straight - TOLERANCE).all()


# --- an independent exact solver: every corner, every pair, separating axes ---------------------------------


class _SeparatingAxes:
    """Whether segments and convex polygons' interiors do not meet, by the separating axis theorem: some axis
    (an edge normal of the polygon, or the segment's normal) on which the segment's projection reaches at most
    a rounding's width into the polygon's."""

    def __init__(self, polygons: list[np.ndarray]) -> None:
        most = max(len(p) for p in polygons)
        self.vertices = np.stack([np.concatenate([p, np.repeat(p[:1], most - len(p), axis=0)]) for p in polygons])
        normals = []
        for p in polygons:
            edges = np.roll(p, -1, axis=0) - p
            n = np.stack([edges[:, 1], -edges[:, 0]], axis=1) / np.hypot(*edges.T)[:, None]
            normals.append(np.concatenate([n, np.repeat(n[:1], most - len(p), axis=0)]))
        self.normals = np.stack(normals)  # (P, A, 2)
        shadow = np.einsum("pad,pvd->pav", self.normals, self.vertices)
        self.low, self.high = shadow.min(axis=2), shadow.max(axis=2)

    def separated(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(K, P) for segments a[k] b[k]."""
        ends = np.stack([np.einsum("pad,kd->kpa", self.normals, a), np.einsum("pad,kd->kpa", self.normals, b)])
        reach = np.minimum(ends.max(axis=0) - self.low, self.high - ends.min(axis=0))
        apart = (reach <= 1e-7).any(axis=2)
        across = np.stack([b[:, 1] - a[:, 1], a[:, 0] - b[:, 0]], axis=1)
        length = np.hypot(*across.T)
        across = across / np.where(length > 0, length, 1.0)[:, None]
        shadow = np.einsum("kd,pvd->kpv", across, self.vertices)
        point = np.einsum("kd,kd->k", across, a)[:, None]
        reach = np.minimum(point - shadow.min(axis=2), shadow.max(axis=2) - point)
        return apart | (reach <= 1e-7)


def _brute_force(area: NavArea, sources: np.ndarray, targets: np.ndarray) -> list[float]:
    """The shortest path from each source to the nearest target, by Dijkstra over every polygon corner outside
    the polygons and every line of sight between them."""
    axes = _SeparatingAxes(area.polygons)
    corners = np.concatenate(area.polygons)
    corners = corners[axes.separated(corners, corners).all(axis=1)]
    graph = nx.Graph()

    def join(node, point: np.ndarray, others: np.ndarray, names) -> None:
        seen = axes.separated(np.repeat(point[None], len(others), axis=0), others).all(axis=1)
        for w in np.nonzero(seen)[0]:
            if names[w] != node:
                graph.add_edge(node, names[w], weight=float(np.hypot(*(point - others[w]))))
        if (seen_goal := axes.separated(np.repeat(point[None], len(targets), axis=0), targets).all(axis=1)).any():
            graph.add_edge(node, "goal", weight=float(np.hypot(*(targets[seen_goal] - point).T).min()))

    for k, corner in enumerate(corners):
        join(k, corner, corners, range(len(corners)))
    lengths = []
    for source in sources:
        join("source", source, corners, range(len(corners)))
        try:
            lengths.append(nx.dijkstra_path_length(graph, "source", "goal"))
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            lengths.append(math.inf)
        if "source" in graph:
            graph.remove_node("source")
    return lengths


def _compare_with_brute_force(seed: int, rooms: int, queries: int) -> None:
    scene, _ = generate_house(seed, rooms=rooms)
    grid = nav_grid(scene, LOCOBOT)
    area = NavArea(grid, sides=8)  # fewer corners keep the brute force short; the solver is the same
    rng = np.random.default_rng(seed)
    starts = grid.navigable_points()
    goals = category_goals(scene, grid, "chair") or category_goals(scene, grid, "table")
    targets = np.array([p for g in goals for p in g.view_points])[::5]
    chosen = starts[rng.choice(len(starts), queries, replace=False)]
    expected = _brute_force(area, chosen, targets)
    assert GoalDistance(area, targets).distances(chosen) == pytest.approx(expected, abs=1e-6)


def test_distances_equal_an_independent_exact_solver_on_a_generated_house():
    _compare_with_brute_force(seed=5, rooms=2, queries=8)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distances_equal_an_independent_exact_solver_on_larger_houses(seed):
    _compare_with_brute_force(seed=seed, rooms=4, queries=10)


def test_many_points_at_once_are_each_point_alone_to_the_bit():
    """The batched env reads distances computed many at once (`GoalDistance.distances`); the single env one
    point at a time: the same floats, on lattice points, points between them and points off the area."""
    scene, _ = generate_house(2, rooms=3)
    grid = nav_grid(scene, LOCOBOT)
    goals = category_goals(scene, grid, "chair") or category_goals(scene, grid, "table")
    targets = np.array([p for g in goals for p in g.view_points])
    rng = np.random.default_rng(2)
    points = grid.navigable_points()[rng.choice(len(grid.navigable_points()), 150, replace=False)]
    points = np.concatenate([points, points + rng.normal(0, 0.2, points.shape)])
    together = GoalDistance(nav_area(grid), targets).distances(points)
    alone = GoalDistance(nav_area(grid), targets)
    assert np.isfinite(together).sum() > 150 and np.isinf(together).any()
    assert together.tolist() == [alone.distance(x, z) for x, z in points.tolist()]
