"""A non-learned ObjectNav baseline: frontier exploration on a map the agent builds itself.

It uses only what a real robot has: the depth image, GPS+Compass, and the category of each pixel (the
`semantic` observation, a perfect detector of the goal category). Each step it adds the depth to its
occupancy map (`homesim.agents.objectnav.occupancy`), then:
1. STOP if pixels of the goal category are in view within `STOP_DISTANCE` of it;
2. else, if it has seen the goal category, head for the free cell nearest it, and turn to face it there;
3. else head for the nearest frontier (a free cell beside unexplored ones) on the map;
walking by turning towards the next cell of a breadth-first path, obstacles inflated by the robot's
radius. It spins once in place at the start. The camera stays level (it never looks up or down).
"""

from __future__ import annotations

import math

import numpy as np

from homesim.agents.objectnav.occupancy import (
    FREE,
    OCCUPIED,
    UNKNOWN,
    CameraModel,
    OccupancyMap,
    descend,
    inflate,
    wavefront,
)
from homesim.agents.protocol import AgentAction, TaskSpec

# LoCoBot as in the CVPR 2020 challenges (what the robot knows of itself)
LOCOBOT_CAMERA = CameraModel(width=640, height=480, hfov=79.0, camera_height=0.88, min_depth=0.5, max_depth=5.0)
ROBOT_RADIUS, ROBOT_HEIGHT = 0.18, 0.88
TURN = math.radians(30)
STOP_DISTANCE = 0.8  # metres from the goal's nearest seen point (the success shell is 1 m from its surface)
FLOOR = 0.1  # points lower than this are floor
STRIDE = 8  # depth pixels sampled every STRIDE rows and columns
LOOKAHEAD = 4  # path cells ahead the agent steers towards
VISITED_RADIUS = 0.6  # frontiers this close to where the agent has been are done


class FrontierAgent:
    """Needs `depth`, `semantic`, `gps`, `compass` and `objectgoal` in its observations."""

    observations = ("depth", "semantic")  # the images it asks the evaluator for

    def __init__(self, seed: int = 0, camera: CameraModel = LOCOBOT_CAMERA) -> None:
        self.camera = camera
        rows, cols, self.right, self.up = camera.rays(STRIDE)
        self.pixels = (rows, cols)
        self.reset(None)

    def reset(self, task: TaskSpec | None) -> None:
        self.map = OccupancyMap()
        self.goal = np.zeros_like(self.map.grid, dtype=bool)
        self.visited = np.zeros_like(self.goal)
        self.spin = 12  # 12 turns of 30 degrees: one look all around
        self.last: tuple[str, tuple[float, float]] | None = None

    def act(self, observation: dict) -> AgentAction:
        forward, right = (float(v) for v in observation["gps"])
        heading = float(np.asarray(observation["compass"]).reshape(-1)[0])
        if self.last is not None and self.last[0] == "MOVE_FORWARD":
            if math.hypot(forward - self.last[1][0], right - self.last[1][1]) < 0.05:  # a collision
                ahead = 0.3
                self.map.block(forward + ahead * math.cos(heading), right + ahead * math.sin(heading))
        near_goal = self._observe(observation, forward, right, heading)
        self._mark_visited(forward, right)
        action = self._decide(forward, right, heading, near_goal)
        self.last = (action, (forward, right))
        return AgentAction(action)

    # --- mapping --------------------------------------------------------------------------------------------

    def _observe(self, observation: dict, forward: float, right: float, heading: float) -> float:
        """Adds the frame to the map; returns the distance to the nearest goal pixel in view (inf if none)."""
        cam = self.camera
        depth = np.asarray(observation["depth"]).reshape(cam.height, cam.width)[self.pixels]
        semantic = np.asarray(observation["semantic"]).reshape(cam.height, cam.width)[self.pixels]
        ahead, side, height = depth, depth * self.right, cam.camera_height + depth * self.up
        distance = np.hypot(ahead, side)
        cos, sin = math.cos(heading), math.sin(heading)
        points = np.stack((forward + ahead * cos - side * sin, right + ahead * sin + side * cos), axis=-1)
        in_range = depth < cam.max_depth - 0.01
        obstacle = in_range & (height > FLOOR) & (height < ROBOT_HEIGHT + 0.1)
        # per image column: free up to its nearest obstacle, else as far as it saw
        nearest_obstacle = np.where(obstacle, distance - self.map.cell, np.inf).min(axis=0)
        reach = np.where(obstacle.any(axis=0), nearest_obstacle, distance.max(axis=0))
        directions = heading + np.arctan(self.right[0])
        self.map.add((forward, right), directions, np.maximum(reach, 0.0), points[obstacle])
        target = in_range & (semantic == int(observation["objectgoal"]))
        if target.any():
            rows, cols = self.map.index(points[target][:, 0], points[target][:, 1])
            self.goal[rows, cols] = True
            return float(distance[target].min())
        return math.inf

    def _mark_visited(self, forward: float, right: float) -> None:
        row, col = self.map.index(forward, right)
        k = int(VISITED_RADIUS / self.map.cell)
        self.visited[max(row - k, 0) : row + k + 1, max(col - k, 0) : col + k + 1] = True

    # --- deciding -------------------------------------------------------------------------------------------

    def _decide(self, forward: float, right: float, heading: float, near_goal: float) -> str:
        if near_goal <= STOP_DISTANCE:
            return "STOP"
        if self.spin > 0:
            self.spin -= 1
            return "TURN_LEFT"
        lo = np.maximum(self.map.seen_lo - 3, 0)
        hi = np.minimum(self.map.seen_hi + 4, self.map.cells)
        crop = (slice(lo[0], hi[0]), slice(lo[1], hi[1]))
        grid = self.map.grid[crop]
        here = tuple(int(v) for v in self.map.index(forward, right))
        start = (here[0] - lo[0], here[1] - lo[1])
        passable = ~inflate(grid == OCCUPIED, math.ceil(ROBOT_RADIUS / self.map.cell))
        passable[start] = True
        steps = wavefront(passable, start)
        reached = steps > 0
        goal = self.goal[crop]
        if goal.any():
            goal_rows, goal_cols = np.nonzero(goal)
            nearest = min(zip(goal_rows, goal_cols), key=lambda c: (c[0] - start[0]) ** 2 + (c[1] - start[1]) ** 2)
            gap = math.dist(nearest, start) * self.map.cell
            if gap <= STOP_DISTANCE + 0.15:  # there: face it
                return self._turn_towards(nearest, start, heading) or "STOP"
            close = inflate(goal, int(STOP_DISTANCE / self.map.cell) - 1) & reached
            target = self._nearest(steps, close)
            if target is not None:
                return self._walk(steps, target, start, heading)
        frontier = (grid == FREE) & inflate(grid == UNKNOWN, 1) & reached & ~self.visited[crop]
        target = self._nearest(steps, frontier)
        if target is None:  # nothing left to explore
            return "STOP"
        return self._walk(steps, target, start, heading)

    @staticmethod
    def _nearest(steps: np.ndarray, wanted: np.ndarray) -> tuple[int, int] | None:
        if not wanted.any():
            return None
        masked = np.where(wanted, steps, np.iinfo(np.int32).max)
        return tuple(int(v) for v in np.unravel_index(int(masked.argmin()), masked.shape))

    def _walk(self, steps: np.ndarray, target: tuple[int, int], start: tuple[int, int], heading: float) -> str:
        path = descend(steps, target)
        waypoint = path[min(LOOKAHEAD, len(path) - 1)]
        return self._turn_towards(waypoint, start, heading) or "MOVE_FORWARD"

    @staticmethod
    def _turn_towards(cell: tuple[int, int], start: tuple[int, int], heading: float) -> str | None:
        """A turn towards `cell` when it lies more than half a turn off the heading, else None."""
        wanted = math.atan2(cell[1] - start[1], cell[0] - start[0])
        off = (wanted - heading + math.pi) % (2 * math.pi) - math.pi
        if abs(off) <= TURN / 2:
            return None
        return "TURN_RIGHT" if off > 0 else "TURN_LEFT"
