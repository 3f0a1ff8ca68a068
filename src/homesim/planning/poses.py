"""Navigation over agent poses: (cell, yaw, horizon), moved by ALFRED's five navigation actions.

`path_to_use(scene, state, agent, target)` finds the shortest action sequence from the agent's pose to
any pose from which the target can be interacted with (the engine's visibility rule), so the expert
walks the way ALFRED's demonstrations do: turn, walk, turn, look down, interact. `walk` makes a planned
path's moves in one go, where stepping each would build a state per action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from homesim.world import actions as A
from homesim.world.catalog import Catalog
from homesim.world.dynamics import HORIZON_MAX, HORIZON_MIN, LOOKS, TURNS
from homesim.world.geometry import HORIZONS, YAW_STEP, YAWS, enclosed
from homesim.world.scene import GRID_SIZE, Scene, to_cell
from homesim.world.state import AgentState, State
from homesim.world.views import PoseViews, pose_views

Pose = tuple[int, int, int, int]  # cell x, cell z, yaw, horizon
_YAWS, _HORIZONS = np.array(YAWS), np.array(HORIZONS)
LOOK_STEP = LOOKS[A.LOOK_DOWN]  # degrees one look turns the camera


def pose_of(agent: AgentState) -> Pose:
    return (*to_cell(agent.x, agent.z), agent.yaw, agent.horizon)


def use_poses(scene: Scene, state: State, catalog: Catalog, agent: int, target: str) -> set[Pose]:
    """Every pose on the grid from which the agent could interact with the target in this state: the
    engine's own answers (`views.PoseViews`)."""
    if enclosed(state, catalog, target) is not None or state.holder_of(target) is not None:
        return set()
    views = pose_views(scene)
    if target in scene.fixed:
        return seen_poses(views, views.fixed_seen[target])
    return seen_poses(views, views.movable_seen(state.objects[target].cls, state.objects[target].position, catalog))


def seen_poses(views: PoseViews, seen: np.ndarray) -> set[Pose]:
    """The poses `seen` (bool over the views' poses) marks, as a set."""
    # Cells in the scene set's order, then yaws, then horizons: the set's order breaks ties between goals.
    m, i, j = np.nonzero(seen.reshape(-1, len(YAWS), len(HORIZONS))[views.set_order])
    cells = views.set_cells[m]
    return set(zip(*(a.tolist() for a in (cells[:, 0], cells[:, 1], _YAWS[i], _HORIZONS[j])), strict=True))


def goal_horizons(goals: set[Pose]) -> dict[tuple[int, int, int], list[int]]:
    """The goal poses as (cell, yaw) spots and the horizons wanted at each, in the goals' order (which
    breaks ties between equally near horizons)."""
    horizons: dict[tuple[int, int, int], list[int]] = {}
    for x, z, yaw, horizon in goals:
        horizons.setdefault((x, z, yaw), []).append(horizon)
    return horizons


def looks(horizons: list[int], start: int) -> list[str]:
    """The looks up or down from horizon `start` to the nearest of `horizons`."""
    target = min(horizons, key=lambda h: abs(h - start))
    look = A.LOOK_DOWN if target > start else A.LOOK_UP
    return [look] * (abs(target - start) // LOOK_STEP)


def shortest_path(
    scene: Scene, start: Pose, goals: set[Pose], blocked: set[tuple[int, int]] = frozenset()
) -> list[str] | None:
    """The fewest navigation actions from `start` to a pose in `goals`. Looking up or down never changes
    where the agent can walk, so the search runs over (cell, yaw) and the horizon is set at the end."""
    horizons = goal_horizons(goals)
    if not horizons:
        return None

    def finish(spot: tuple[int, int, int]) -> int:  # the fewest looks to a goal horizon at this spot
        return min(abs(h - start[3]) for h in horizons[spot]) // LOOK_STEP

    origin = start[:3]
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], str]] = {origin: (origin, "")}
    layer, steps, best, arrival = [origin], 0, None, None
    while layer and (best is None or steps < best):
        for spot in layer:
            if spot in horizons and (best is None or steps + finish(spot) < best):
                best, arrival = steps + finish(spot), spot
        following = []
        for x, z, yaw in layer:
            dx, dz = YAW_STEP[yaw]
            for action, nxt in (
                (A.MOVE_AHEAD, (x + dx, z + dz, yaw)),
                (A.ROTATE_LEFT, (x, z, (yaw - 90) % 360)),
                (A.ROTATE_RIGHT, (x, z, (yaw + 90) % 360)),
            ):
                if nxt in parent or (nxt[:2] not in scene.reachable) or nxt[:2] in blocked:
                    continue
                parent[nxt] = ((x, z, yaw), action)
                following.append(nxt)
        layer, steps = following, steps + 1
    if arrival is None:
        return None
    path, spot = [], arrival
    while spot != origin:
        spot, action = parent[spot]
        path.append(action)
    return path[::-1] + looks(horizons[arrival], start[3])


Sees = Callable[[State, str], bool]  # whether, in a state, the agent's view shows an object (pixels, say)
MAX_UNSEEN_POSES = 64  # nearest poses `sees` may turn down before the nearest one is taken anyway


def path_to_use(
    scene: Scene,
    state: State,
    catalog: Catalog,
    agent: int,
    target: str,
    also: str | None = None,
    sees: Sees | None = None,
) -> list[str] | None:
    """The navigation actions to the nearest pose from which `target` (and `also`, if given) can be used.
    With `sees`, the nearest pose where `sees` also shows them (the engine's visibility has no occlusion;
    a rendered frame has), among the nearest few; failing that, the nearest."""
    goals = use_poses(scene, state, catalog, agent, target)
    if also is not None:
        goals &= use_poses(scene, state, catalog, agent, also)
    others = {to_cell(a.x, a.z) for i, a in enumerate(state.agents) if i != agent}
    start = pose_of(state.agents[agent])
    nearest = path = shortest_path(scene, start, goals, blocked=others)
    for _ in range(MAX_UNSEEN_POSES if sees is not None else 0):
        if path is None:
            break
        there = walk(scene, state, agent, path)
        if sees(there, target) and (also is None or sees(there, also)):
            return path
        goals.discard(pose_of(there.agents[agent]))
        path = shortest_path(scene, start, goals, blocked=others)
    return nearest


def walk(scene: Scene, state: State, agent: int, path: Sequence[str]) -> State | None:
    """The state after the navigation actions of `path`, made in one go: the arithmetic and checks of
    `dynamics.step` (a move ahead needs a reachable cell no other agent stands on, a look stays within
    the horizon's range) without a state per action. None if an action would fail: step them to see why."""
    me = state.agents[agent]
    x, z, yaw, horizon = me.x, me.z, me.yaw, me.horizon
    others = {(a.x, a.z) for i, a in enumerate(state.agents) if i != agent}
    for action in path:
        if action == A.MOVE_AHEAD:
            dx, dz = YAW_STEP[yaw]
            x, z = x + dx * GRID_SIZE, z + dz * GRID_SIZE
            if not scene.is_reachable(x, z) or (x, z) in others:
                return None
        elif action in TURNS:
            yaw = (yaw + TURNS[action]) % 360
        else:
            horizon += LOOKS[action]
            if not HORIZON_MIN <= horizon <= HORIZON_MAX:
                return None
    return state.with_agent(agent, AgentState(x, z, yaw, horizon, me.held))
