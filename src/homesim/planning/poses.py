"""Navigation over agent poses: (cell, yaw, horizon), moved by ALFRED's five navigation actions.

`path_to_use(scene, state, agent, target)` finds the shortest action sequence from the agent's pose to
any pose from which the target can be interacted with (the engine's visibility rule), so the expert
walks the way ALFRED's demonstrations do: turn, walk, turn, look down, interact.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from homesim.world import actions as A
from homesim.world.catalog import Catalog
from homesim.world.geometry import HORIZONS, VISIBILITY_DISTANCE, YAW_STEP, YAWS, enclosed, in_view_from, object_box
from homesim.world.scene import GRID_SIZE, Scene, to_cell
from homesim.world.state import AgentState, State

Pose = tuple[int, int, int, int]  # cell x, cell z, yaw, horizon


def pose_of(agent: AgentState) -> Pose:
    return (*to_cell(agent.x, agent.z), agent.yaw, agent.horizon)


def _moves(scene: Scene, pose: Pose) -> list[tuple[str, Pose]]:
    x, z, yaw, horizon = pose
    dx, dz = YAW_STEP[yaw]
    moves = [(A.ROTATE_LEFT, (x, z, (yaw - 90) % 360, horizon)), (A.ROTATE_RIGHT, (x, z, (yaw + 90) % 360, horizon))]
    if (x + dx, z + dz) in scene.reachable:
        moves.insert(0, (A.MOVE_AHEAD, (x + dx, z + dz, yaw, horizon)))
    if horizon - 15 >= HORIZONS[0]:
        moves.append((A.LOOK_UP, (x, z, yaw, horizon - 15)))
    if horizon + 15 <= HORIZONS[-1]:
        moves.append((A.LOOK_DOWN, (x, z, yaw, horizon + 15)))
    return moves


def use_poses(scene: Scene, state: State, catalog: Catalog, agent: int, target: str) -> set[Pose]:
    """Every pose on the grid from which the agent could interact with the target in this state."""
    if enclosed(state, catalog, target) is not None or state.holder_of(target) is not None:
        return set()
    box = object_box(scene, state, catalog, target)
    reach = VISIBILITY_DISTANCE + GRID_SIZE
    (x0, _, z0), (x1, _, z1) = box.lo, box.hi
    cells = np.array(
        [
            (cx, cz)
            for cx, cz in scene.reachable
            if x0 - reach <= cx * GRID_SIZE <= x1 + reach and z0 - reach <= cz * GRID_SIZE <= z1 + reach
        ],
        dtype=np.int64,
    ).reshape(-1, 2)
    seen = in_view_from(box, cells, scene.camera_height)
    return {
        (int(cells[m, 0]), int(cells[m, 1]), YAWS[i], HORIZONS[j]) for m, i, j in zip(*np.nonzero(seen), strict=True)
    }


def shortest_path(
    scene: Scene, start: Pose, goals: set[Pose], blocked: set[tuple[int, int]] = frozenset()
) -> list[str] | None:
    """Navigation actions from `start` to the nearest pose in `goals` (breadth-first: fewest actions)."""
    if start in goals:
        return []
    parent: dict[Pose, tuple[Pose, str]] = {start: (start, "")}
    frontier = deque([start])
    while frontier:
        pose = frontier.popleft()
        for action, nxt in _moves(scene, pose):
            if nxt in parent or (nxt[0], nxt[1]) in blocked:
                continue
            parent[nxt] = (pose, action)
            if nxt in goals:
                path = []
                while nxt != start:
                    nxt, action = parent[nxt]
                    path.append(action)
                return path[::-1]
            frontier.append(nxt)
    return None


def path_to_use(
    scene: Scene, state: State, catalog: Catalog, agent: int, target: str, also: str | None = None
) -> list[str] | None:
    """The navigation actions to the nearest pose from which `target` (and `also`, if given) can be used."""
    goals = use_poses(scene, state, catalog, agent, target)
    if also is not None:
        goals &= use_poses(scene, state, catalog, agent, also)
    others = {to_cell(a.x, a.z) for i, a in enumerate(state.agents) if i != agent}
    return shortest_path(scene, pose_of(state.agents[agent]), goals, blocked=others)
