"""Shortest paths on a scene's reachable 0.25 m grid (4-connected, as MoveAhead moves)."""

from __future__ import annotations

from collections import deque

from homesim.world.scene import Scene

NEIGHBOURS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def grid_distance(scene: Scene, start: tuple[int, int], goal: tuple[int, int], limit: int | None = None) -> int | None:
    """MoveAhead steps on the shortest path between two cells (rotations not counted), None if the goal
    cannot be reached (or is farther than `limit`)."""
    if start == goal:
        return 0
    seen, frontier = {start}, deque([(start, 0)])
    while frontier:
        (x, z), distance = frontier.popleft()
        if limit is not None and distance >= limit:
            return None
        for dx, dz in NEIGHBOURS:
            cell = (x + dx, z + dz)
            if cell == goal and cell in scene.reachable:
                return distance + 1
            if cell in scene.reachable and cell not in seen:
                seen.add(cell)
                frontier.append((cell, distance + 1))
    return None
