"""Shortest paths on the reachable grid (`grid_distance`), and the GotoLocation sub-goal check built on it.

The hand-made scene, cells (x, z), `#` a wall cell (not reachable), `o` an island cell:

    z 4   . . . . .
    z 3   . . # . .
    z 2   . . # . .         o at (8, 8): reachable, but cut off from everything
    z 1   . . # . .
    z 0   . . # . .
          x=0 1 2 3 4

From (0, 0) to (4, 0) the straight line is 4 MoveAheads; through the gap at (2, 4) it takes 12.
"""

from __future__ import annotations

import pytest

from homesim.evaluation.alfred.subgoals import GOTO_TOLERANCE, subgoal_done
from homesim.planning.navigation import grid_distance
from homesim.tasks.alfred import Subgoal
from homesim.world.scene import GRID_SIZE, Scene
from homesim.world.state import AgentState, State

WALL = {(2, z) for z in range(4)}
CELLS = frozenset({(x, z) for x in range(5) for z in range(5)} - WALL | {(8, 8)})
SCENE = Scene(id="WallWithAGap", room_type="LivingRoom", reachable=CELLS, fixed={})


@pytest.mark.parametrize(
    ("start", "goal", "distance"),
    [
        ((0, 0), (0, 0), 0),
        ((0, 0), (1, 0), 1),
        ((0, 0), (1, 1), 2),
        ((0, 0), (0, 4), 4),
        ((0, 0), (2, 4), 6),  # the gap
        ((0, 0), (3, 0), 11),
        ((0, 0), (4, 0), 12),
        ((4, 0), (0, 0), 12),  # symmetric
        ((1, 3), (3, 3), 4),  # up one, through the gap, down one
    ],
)
def test_grid_distance_goes_around_the_wall(start, goal, distance):
    assert grid_distance(SCENE, start, goal) == distance


@pytest.mark.parametrize(
    "goal",
    [
        (2, 0),  # a wall cell
        (8, 8),  # an island
        (20, 20),  # off the grid
    ],
)
def test_an_unreachable_goal_is_none(goal):
    assert grid_distance(SCENE, (0, 0), goal) is None


def test_from_an_island_nothing_is_reachable():
    assert grid_distance(SCENE, (8, 8), (0, 0)) is None
    assert grid_distance(SCENE, (8, 8), (8, 8)) == 0


def test_limit_is_inclusive():
    assert grid_distance(SCENE, (0, 0), (4, 0), limit=12) == 12
    assert grid_distance(SCENE, (0, 0), (4, 0), limit=11) is None
    assert grid_distance(SCENE, (0, 0), (4, 0), limit=100) == 12
    assert grid_distance(SCENE, (0, 0), (1, 0), limit=1) == 1
    assert grid_distance(SCENE, (0, 0), (1, 1), limit=1) is None
    assert grid_distance(SCENE, (0, 0), (0, 0), limit=0) == 0
    # the limit counts path length, not straight-line distance
    assert grid_distance(SCENE, (0, 0), (3, 0), limit=3) is None


def test_a_wall_cell_does_not_shortcut():
    # (1, 0) -> (3, 0) would be 2 through the wall
    assert grid_distance(SCENE, (1, 0), (3, 0)) == 10


# --- GotoLocation: "fewer than 3 MoveAhead steps from the planner's destination" -----------------------------


def _standing_at(cell: tuple[int, int]) -> State:
    return State(objects={}, agents=(AgentState(x=cell[0] * GRID_SIZE, z=cell[1] * GRID_SIZE, yaw=0, horizon=30),))


def _goto(cell: tuple[int, int]) -> Subgoal:
    return Subgoal("GotoLocation", location=(cell[0] * GRID_SIZE, cell[1] * GRID_SIZE))


@pytest.mark.parametrize(("agent", "done"), [((0, 4), True), ((0, 3), True), ((0, 2), True), ((0, 0), False)])
def test_goto_is_done_near_the_destination(agent, done):
    assert subgoal_done(SCENE, _standing_at(agent), _goto((0, 4))) is done


def test_goto_counts_the_path_not_the_straight_line():
    # (1, 0) and (3, 0) are 2 cells apart on the floor, 10 MoveAheads apart on the grid
    assert subgoal_done(SCENE, _standing_at((1, 0)), _goto((3, 0))) is False


def test_goto_is_not_done_exactly_three_steps_away():
    assert GOTO_TOLERANCE == 3
    assert grid_distance(SCENE, (0, 1), (0, 4)) == 3
    assert subgoal_done(SCENE, _standing_at((0, 1)), _goto((0, 4))) is False
