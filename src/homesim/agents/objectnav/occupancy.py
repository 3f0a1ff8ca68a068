"""An egocentric agent's own map: a floor-plan occupancy grid built from depth images and GPS+Compass only,
as frontier-exploration baselines build it (no access to the scene).

Coordinates are the episode's GPS frame: (forward, right) metres from the start, heading in radians turned
right. Sampled depth pixels become points; points between the floor and the robot's height are obstacles, and
the floor-plan cells between the camera and the nearest obstacle (or the farthest point) of each image
column are free: one ray cast per column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UNKNOWN, FREE, OCCUPIED = 0, 1, 2


@dataclass(frozen=True)
class CameraModel:
    """A pinhole camera: image size, horizontal field of view (degrees), height above the floor (metres)
    and the depth range its images are clipped to."""

    width: int
    height: int
    hfov: float
    camera_height: float
    min_depth: float
    max_depth: float

    def rays(self, stride: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Pixel rows and columns sampled every `stride`, and per sample the ray's right and up per metre of depth."""
        focal = (self.width / 2) / math.tan(math.radians(self.hfov) / 2)
        rows, cols = np.mgrid[stride // 2 : self.height : stride, stride // 2 : self.width : stride]
        right = (cols + 0.5 - self.width / 2) / focal
        up = -(rows + 0.5 - self.height / 2) / focal
        return rows, cols, right, up


class OccupancyMap:
    """A square grid of `size` metres around the start, `cell` metres a side."""

    def __init__(self, size: float = 30.0, cell: float = 0.1) -> None:
        self.cell = cell
        self.cells = int(round(size / cell))
        self.grid = np.zeros((self.cells, self.cells), dtype=np.uint8)
        self.seen_lo = np.array([self.cells, self.cells])  # bounding box of what was ever observed
        self.seen_hi = np.array([0, 0])

    def index(self, forward: np.ndarray | float, right: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        half = self.cells // 2
        return (
            np.clip(np.floor(np.asarray(forward) / self.cell).astype(int) + half, 0, self.cells - 1),
            np.clip(np.floor(np.asarray(right) / self.cell).astype(int) + half, 0, self.cells - 1),
        )

    def position(self, row: int, col: int) -> tuple[float, float]:
        half = self.cells // 2
        return (row - half + 0.5) * self.cell, (col - half + 0.5) * self.cell

    def _touch(self, rows: np.ndarray, cols: np.ndarray) -> None:
        if len(rows):
            self.seen_lo = np.minimum(self.seen_lo, (rows.min(), cols.min()))
            self.seen_hi = np.maximum(self.seen_hi, (rows.max(), cols.max()))

    def add(
        self, origin: tuple[float, float], directions: np.ndarray, reach: np.ndarray, obstacles: np.ndarray
    ) -> None:
        """Marks the cells along each ray from `origin` (`directions` in radians turned right of forward, out
        to `reach` metres) free, unless already occupied, then the cells of `obstacles` ((N, 2) forward,
        right) occupied."""
        if len(directions):
            steps = np.arange(0.0, float(reach.max()) + 1e-9, self.cell / 2)
            along = steps[None, :] <= reach[:, None]
            forward = origin[0] + np.cos(directions)[:, None] * steps
            right = origin[1] + np.sin(directions)[:, None] * steps
            rows, cols = self.index(forward[along], right[along])
            free = self.grid[rows, cols] != OCCUPIED
            self.grid[rows[free], cols[free]] = FREE
            self._touch(rows, cols)
        if len(obstacles):
            rows, cols = self.index(obstacles[:, 0], obstacles[:, 1])
            self.grid[rows, cols] = OCCUPIED
            self._touch(rows, cols)

    def block(self, forward: float, right: float) -> None:
        rows, cols = self.index(forward, right)
        self.grid[rows, cols] = OCCUPIED


def inflate(occupied: np.ndarray, cells: int) -> np.ndarray:
    """The cells within `cells` 4-neighbour steps of an occupied one."""
    out = occupied.copy()
    for _ in range(cells):
        grown = out.copy()
        grown[1:] |= out[:-1]
        grown[:-1] |= out[1:]
        grown[:, 1:] |= out[:, :-1]
        grown[:, :-1] |= out[:, 1:]
        out = grown
    return out


def wavefront(passable: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """Breadth-first step counts (4-neighbour) from `start` over the passable cells; -1 where unreached."""
    distance = np.full(passable.shape, -1, dtype=np.int32)
    distance[start] = 0
    frontier = np.zeros(passable.shape, dtype=bool)
    frontier[start] = True
    step = 0
    while frontier.any():
        step += 1
        grown = np.zeros_like(frontier)
        grown[1:] |= frontier[:-1]
        grown[:-1] |= frontier[1:]
        grown[:, 1:] |= frontier[:, :-1]
        grown[:, :-1] |= frontier[:, 1:]
        frontier = grown & passable & (distance < 0)
        distance[frontier] = step
    return distance


def descend(distance: np.ndarray, goal: tuple[int, int]) -> list[tuple[int, int]]:
    """The path from the wavefront's start to `goal` (goal last), following decreasing step counts."""
    path = [goal]
    row, col = goal
    while distance[row, col] > 0:
        here = distance[row, col]
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r, c = row + dr, col + dc
            if 0 <= r < distance.shape[0] and 0 <= c < distance.shape[1] and distance[r, c] == here - 1:
                row, col = r, c
                break
        path.append((row, col))
    return path[::-1]
