"""The frontier-exploration baseline: its map from a synthetic depth image (a wall ahead), its
breadth-first paths, and its decisions (spin first, STOP beside goal pixels, walk to a frontier)."""

from __future__ import annotations

import numpy as np

from homesim.agents.objectnav.frontier import LOCOBOT_CAMERA, STOP_DISTANCE, FrontierAgent
from homesim.agents.objectnav.occupancy import FREE, OCCUPIED, UNKNOWN, OccupancyMap, descend, inflate, wavefront
from homesim.agents.protocol import TaskSpec

H, W = LOCOBOT_CAMERA.height, LOCOBOT_CAMERA.width


def wall_ahead(distance: float) -> np.ndarray:
    """Depth of a level camera facing a wall `distance` metres ahead (depth is along the optical axis)."""
    return np.full((H, W), distance, dtype=np.float32)


def observation(depth: np.ndarray, semantic: np.ndarray | None = None, gps=(0.0, 0.0), compass=0.0) -> dict:
    return {
        "depth": depth,
        "semantic": np.full((H, W), -1, dtype=np.int32) if semantic is None else semantic,
        "gps": np.array(gps, dtype=np.float32),
        "compass": np.array([compass], dtype=np.float32),
        "objectgoal": 3,
    }


def test_a_wall_ahead_is_occupied_and_the_floor_before_it_free():
    agent = FrontierAgent()
    agent.reset(TaskSpec("e", "", ()))
    agent.act(observation(wall_ahead(2.0)))
    grid = agent.map.grid
    row, col = agent.map.index(2.0, 0.0)  # 2 m forward, straight ahead
    assert grid[row, col] == OCCUPIED
    for forward in (0.3, 1.0, 1.7):
        assert grid[agent.map.index(forward, 0.0)] == FREE
    assert grid[agent.map.index(-1.0, 0.0)] == UNKNOWN  # behind: not seen
    assert grid[agent.map.index(3.0, 0.0)] == UNKNOWN  # beyond the wall


def test_the_floor_in_front_of_a_wall_does_not_cut_the_free_space_short():
    # a level camera 0.88 m up sees the floor from about 1.4 m on, up to the wall's foot at 3 m
    focal = (W / 2) / np.tan(np.radians(LOCOBOT_CAMERA.hfov) / 2)
    up = -(np.arange(H) + 0.5 - H / 2) / focal
    with np.errstate(divide="ignore"):
        floor = np.where(up < 0, -LOCOBOT_CAMERA.camera_height / up, np.inf)
    depth = np.minimum(floor, 3.0)[:, None].repeat(W, axis=1).astype(np.float32)
    agent = FrontierAgent()
    agent.reset(TaskSpec("e", "", ()))
    agent.act(observation(depth))
    assert agent.map.grid[agent.map.index(2.5, 0.0)] == FREE
    assert agent.map.grid[agent.map.index(3.0, 0.0)] == OCCUPIED


def test_turned_right_the_wall_lies_to_the_right():
    agent = FrontierAgent()
    agent.reset(TaskSpec("e", "", ()))
    agent.act(observation(wall_ahead(2.0), compass=np.pi / 2))
    assert agent.map.grid[agent.map.index(0.0, 2.0)] == OCCUPIED


def test_it_spins_first_then_stops_beside_goal_pixels():
    agent = FrontierAgent()
    agent.reset(TaskSpec("e", "", ()))
    assert {agent.act(observation(wall_ahead(3.0))).action for _ in range(12)} == {"TURN_LEFT"}
    semantic = np.full((H, W), -1, dtype=np.int32)
    semantic[200:300, 300:340] = 3  # the goal category, in the middle of the image
    near = agent.act(observation(wall_ahead(STOP_DISTANCE - 0.1), semantic))
    assert near.action == "STOP"


def test_far_goal_pixels_are_walked_to():
    agent = FrontierAgent()
    agent.reset(TaskSpec("e", "", ()))
    agent.spin = 0
    semantic = np.full((H, W), -1, dtype=np.int32)
    semantic[200:300, 300:340] = 3
    assert agent.act(observation(wall_ahead(3.0), semantic)).action == "MOVE_FORWARD"
    assert agent.goal.any()


def test_a_blocked_move_marks_the_cell_ahead():
    agent = FrontierAgent()
    agent.reset(TaskSpec("e", "", ()))
    agent.spin = 0
    agent.last = ("MOVE_FORWARD", (0.0, 0.0))
    agent.act(observation(wall_ahead(4.0)))  # the gps did not change: the move was blocked
    assert agent.map.grid[agent.map.index(0.3, 0.0)] == OCCUPIED


def test_breadth_first_paths_go_round_obstacles():
    passable = np.ones((5, 5), dtype=bool)
    passable[1:4, 2] = False  # a wall in column 2, open at the top and bottom rows
    steps = wavefront(passable, (2, 0))
    assert steps[2, 4] == 8 and steps[2, 2] == -1
    path = descend(steps, (2, 4))
    assert path[0] == (2, 0) and path[-1] == (2, 4) and len(path) == 9
    assert all(passable[p] for p in path)
    centre = np.zeros((3, 3), dtype=bool)
    centre[1, 1] = True
    assert inflate(centre, 1).tolist() == [[False, True, False], [True, True, True], [False, True, False]]


def test_the_map_index_and_position_agree():
    grid = OccupancyMap(size=10.0, cell=0.1)
    row, col = grid.index(1.23, -0.57)
    assert np.allclose(grid.position(int(row), int(col)), (1.25, -0.55))
