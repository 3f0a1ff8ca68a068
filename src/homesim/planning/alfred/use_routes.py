"""Routes to the poses a fixed object is used from, read off a table instead of searched.

A fixed object (a counter, a fridge, a lamp) is used from the same poses in every state, so per scene
and object one backward search over the pose graph gives every (cell, yaw) spot, for each start horizon,
the cost of its best route; a route from any start then follows the costs down, and the many `go to`
commands of a text game cost a table walk each. The route is the very path `poses.shortest_path` finds.
Its breadth-first search ends at the use pose it meets first among those of the fewest actions (moves
and turns, then the looks at the end), and reaches it by first-found parents: the lexicographically
smallest such path, MoveAhead before RotateLeft before RotateRight. The table ranks a spot by the cost
of its best finish (actions, then moves and turns) and the walk takes the first action that keeps it:
the same path. The tables are numpy arrays made from the scene's pose views (`views.PoseViews`) without
listing a pose: a scene's tables cost a few milliseconds, so a scene met for the first time is quick.
"""

from __future__ import annotations

import functools
import inspect
import math
from typing import NamedTuple

import numpy as np

from homesim.planning.poses import (
    Pose,
    goal_horizons,
    looks,
    path_to_use,
    pose_of,
    seen_poses,
    shortest_path,
    use_poses,
)
from homesim.world import actions as A
from homesim.world import scene_cache
from homesim.world.catalog import Catalog
from homesim.world.frustum import VISIBILITY_DISTANCE, in_view
from homesim.world.geometry import HORIZONS, YAW_STEP, YAWS, enclosed
from homesim.world.scene import Box, Scene
from homesim.world.state import AgentState, ObjectState, State
from homesim.world.views import in_view_poses, pose_views
from homesim.world.views import version as views_version

MOVES = (A.MOVE_AHEAD, A.ROTATE_LEFT, A.ROTATE_RIGHT)  # in the search's order; choice 3 is to stay
ACTION = 4096  # a route's cost: actions (looks included) * ACTION + moves and turns
FAR = 2**30  # the cost where no use pose can be reached
MOVABLE = 1000  # use-pose sets of movable objects kept per scene (cleared when full)
NEAREST = 2  # cells from which `usable` looks at a movable object first
LOOK_ORDER = (30, 45, 15, 60, 0, -15, -30)  # the horizons it tries there, likeliest first
_HORIZONS = np.array(HORIZONS)
_YAW_INDEX = {yaw: k for k, yaw in enumerate(YAWS)}


class _Table(NamedTuple):
    """One target's routes over the spots (cell index * 4 + yaw index) and start horizons (columns)."""

    wanted: np.ndarray  # (spots, horizons) bool: the use poses
    choices: np.ndarray  # (spots, start horizons) int8: the first action of the best route (3: stay and look)


class UseRoutes:
    """The routes of one scene: `path(state, target, also)` equals `poses.path_to_use(scene, state,
    catalog, 0, target, also)`. Fixed targets are read off tables. A movable object is walked to from one
    or two starts before it moves, which a table would not repay: its route is searched, from the use
    poses its class and position decide (kept, as episodes come back to the same objects). Where others
    could stand in the way or a start lies off the grid, `path_to_use` runs as it is."""

    def __init__(self, scene: Scene, catalog: Catalog) -> None:
        self.scene, self.catalog = scene, catalog
        self.cells = sorted(scene.reachable)  # the views' order of cells
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        self.spots = n = len(YAWS) * len(self.cells)
        self.following = np.full((len(MOVES), n), n, dtype=np.int64)  # where each move leads; n: into a wall
        if self.cells:
            xz = np.array(self.cells, dtype=np.int64) - np.min(self.cells, axis=0) + 1
            grid = np.full(xz.max(axis=0) + 2, -1, dtype=np.int64)  # cell indices, a margin of no cell around
            grid[xz[:, 0], xz[:, 1]] = np.arange(len(self.cells))
            for k, yaw in enumerate(YAWS):
                dx, dz = YAW_STEP[yaw]
                ahead = grid[xz[:, 0] + dx, xz[:, 1] + dz]
                spots = np.arange(k, n, len(YAWS))
                self.following[0, k::4] = np.where(ahead >= 0, 4 * ahead + k, n)
                self.following[1, k::4] = spots - k + (k - 1) % 4
                self.following[2, k::4] = spots - k + (k + 1) % 4
        self.moves = self.following.tolist()  # the same, for walking a table in plain Python
        self.tables: dict[tuple[str, str | None], _Table] = {}
        self.orders: dict[tuple[str, str | None], dict[tuple[int, int, int], list[int]]] = {}
        self.movable: dict[tuple, set[Pose]] = {}  # (class, position) -> use poses
        self.group = _groups([self.moves[0][k :: len(YAWS)] for k in range(len(YAWS))])  # per cell
        self.usable_at: dict[tuple, bool] = {}  # (fixed id or class and position, origin) -> `usable`

    def path(self, state: State, target: str, also: str | None = None) -> list[str] | None:
        """The navigation actions to the nearest pose from which `target` (and `also`) can be used."""
        fixed = self.scene.fixed
        if len(state.agents) > 1 or (also is not None and not (target in fixed and also in fixed)):
            return path_to_use(self.scene, state, self.catalog, 0, target, also)
        start = pose_of(state.agents[0])
        if target not in fixed:
            return shortest_path(self.scene, start, self._movable_goals(state, target))
        cell, yaw = self.index.get(start[:2]), _YAW_INDEX.get(start[2])
        if cell is None or yaw is None or start[3] not in HORIZONS:
            return path_to_use(self.scene, state, self.catalog, 0, target, also)
        table = self._table(state, target, also)
        column, spot, path = HORIZONS.index(start[3]), 4 * cell + yaw, []
        while (choice := table.choices.item(spot, column)) < len(MOVES):
            if len(path) > self.spots:  # a sound table shortens the route with every move
                raise RuntimeError(f"the route table to {target} in {self.scene.id} runs in a loop")
            path.append(MOVES[choice])
            spot = self.moves[choice][spot]
        wanted = _HORIZONS[table.wanted[spot]].tolist()
        if not wanted:
            return None
        if _tied(wanted, start[3]):  # which one the search looks to follows the order of its set of goals
            wanted = self._order(target, also)[(*self.cells[spot // 4], YAWS[spot % 4])]
        return path + looks(wanted, start[3])

    def usable(self, state: State, target: str, origin: tuple[int, int]) -> bool:
        """Whether the agent, from cell `origin`, can walk to a pose from which the target, where it is now, is in
        view (were it not shut in or held). ALFRED's floor plans have things lying more than 1.5 m outside
        the grid, and things seen only from cells the rest of the grid does not lead to: used from nowhere."""
        o = None if target in self.scene.fixed else state.objects[target]
        if o is not None and o.position is None:  # held
            return False
        key = (target, origin) if o is None else (o.cls, o.position, origin)
        answer = self.usable_at.get(key)
        if answer is None:
            if len(self.usable_at) >= MOVABLE:
                self.usable_at.clear()
            answer = self.usable_at[key] = self._usable(target if o is None else o, origin)
        return answer

    def _usable(self, target: str | ObjectState, origin: tuple[int, int]) -> bool:
        cell = self.index.get(origin)  # off the grid: any cell will do
        walkable = np.ones(len(self.cells), bool) if cell is None else self.group == self.group[cell]
        views = pose_views(self.scene)
        if isinstance(target, str):
            return bool((views.fixed_seen[target].reshape(len(self.cells), -1).any(axis=1) & walkable).any())
        # A movable object is looked at first from the nearest cells, facing it, one pose at a time
        # (`frustum.in_view`, which nearly always sees it at once), and only failing that from every cell
        # within reach at once (`in_view_poses`: the same answers).
        box = Box.around(target.position, self.catalog[target.cls].size)
        xz = views.positions
        nearest_x, nearest_z = np.clip(xz[:, 0], box.lo[0], box.hi[0]), np.clip(xz[:, 1], box.lo[2], box.hi[2])
        gap = np.hypot(nearest_x - xz[:, 0], nearest_z - xz[:, 1])
        near = np.flatnonzero(walkable & (gap <= VISIBILITY_DISTANCE + 1e-6))
        near = near[np.argsort(gap[near], kind="stable")]
        cx, _, cz = target.position
        for x, z in xz[near[:NEAREST]].tolist():
            facing = math.degrees(math.atan2(cx - x, cz - z))
            yaw = min(YAWS, key=lambda y: abs((y - facing + 180) % 360 - 180))
            if any(in_view(box, AgentState(x, z, yaw, h), self.scene.camera_height) for h in LOOK_ORDER):
                return True
        return bool(len(near)) and bool(in_view_poses([box], xz[near], self.scene.camera_height).any())

    def _movable_goals(self, state: State, target: str) -> set[Pose]:
        """`use_poses` of a movable object, which its class and position decide while it lies in view."""
        if self._hidden(state, target):
            return set()
        o = state.objects[target]
        key = (o.cls, o.position)
        if key not in self.movable:
            if len(self.movable) >= MOVABLE:
                self.movable.clear()
            self.movable[key] = use_poses(self.scene, state, self.catalog, 0, target)
        return self.movable[key]

    def prepare(self, state: State) -> None:
        """Builds the tables of every fixed object at once (the env does as it enters a scene), so that no
        `go to` pays for one; their searches run side by side. They are read from the disk cache
        (`world.scene_cache`) where an earlier run left them."""
        keys = [(f, None) for f in self.scene.fixed if (f, None) not in self.tables]
        if not keys:
            return
        wanted = self._wanted(keys, state)
        whole = len(keys) == len(self.scene.fixed) and not any(self._hidden(state, f) for f, _ in keys)
        shape = (self.spots, len(keys) * len(HORIZONS))
        choices = scene_cache.load(self.scene, "routes", _version(), shape, np.dtype(np.int8)) if whole else None
        if choices is None:
            choices = self._choices(wanted)
            if whole:
                scene_cache.store(self.scene, "routes", _version(), choices)
        self._keep(keys, wanted, choices)

    def _table(self, state: State, target: str, also: str | None) -> _Table:
        if (target, also) not in self.tables:
            wanted = self._wanted([(target, also)], state)
            self._keep([(target, also)], wanted, self._choices(wanted))
        return self.tables[target, also]

    def _order(self, target: str, also: str | None) -> dict[tuple[int, int, int], list[int]]:
        """The horizons wanted at each spot in the order the search's set of goal poses lists them."""
        if (target, also) not in self.orders:
            views = pose_views(self.scene)
            goals = seen_poses(views, views.fixed_seen[target])
            if also is not None:
                goals &= seen_poses(views, views.fixed_seen[also])
            self.orders[target, also] = goal_horizons(goals)
        return self.orders[target, also]

    def _hidden(self, state: State, target: str) -> bool:
        """Shut in a closed receptacle or held: used from nowhere (`use_poses`)."""
        return enclosed(state, self.catalog, target) is not None or state.holder_of(target) is not None

    def _wanted(self, keys: list[tuple[str, str | None]], state: State) -> np.ndarray:
        """The use poses of `keys` (target, also): bool (keys, spots, horizons)."""
        views, width = pose_views(self.scene), len(HORIZONS)
        wanted = np.zeros((len(keys), self.spots, width), dtype=bool)
        for k, (target, also) in enumerate(keys):
            if not (self._hidden(state, target) or (also is not None and self._hidden(state, also))):
                seen = views.fixed_seen[target] if also is None else views.fixed_seen[target] & views.fixed_seen[also]
                wanted[k] = seen.reshape(self.spots, width)
        return wanted

    def _choices(self, wanted: np.ndarray) -> np.ndarray:
        """The tables of several targets' use poses, found together, backwards from them: per spot and
        (target, start horizon), the first action of the best route (3: stay and look)."""
        n, width = self.spots, len(wanted) * len(HORIZONS)
        # Spots first, so that following a move gathers whole rows of (targets x start horizons) costs.
        horizons = np.packbits(wanted, axis=2, bitorder="little")[..., 0].T  # (spots, targets): bit h, horizon h
        ends = _FINISH[horizons].reshape(n, width)
        cost, relaxed = (np.full((n + 1, width), FAR, dtype=np.int32) for _ in range(2))  # row n, beyond a wall
        cost[:n] = ends
        other = np.empty((n, width), dtype=np.int32)
        ahead, left, right = self.following
        while True:  # until each spot costs its finish or one action more than its best neighbour
            np.take(cost, ahead, axis=0, out=relaxed[:n], mode="clip")  # buffers reused: a scene's tables are
            np.take(cost, left, axis=0, out=other, mode="clip")  # built as it is entered, so they are quick
            np.minimum(relaxed[:n], other, out=relaxed[:n])
            np.take(cost, right, axis=0, out=other, mode="clip")
            np.minimum(relaxed[:n], other, out=relaxed[:n])
            relaxed[:n] += ACTION + 1
            np.minimum(relaxed[:n], ends, out=relaxed[:n])
            cost, relaxed = relaxed, cost
            if np.array_equal(cost, relaxed):
                break
        # The first best option in the search's order (a finish costs a multiple of ACTION and a move
        # never does, so only moves tie).
        best, choices = cost[ahead], np.zeros((n, width), dtype=np.int8)
        for choice, option in enumerate((cost[left], cost[right], ends - (ACTION + 1)), start=1):
            np.copyto(choices, choice, where=option < best)
            np.minimum(best, option, out=best)
        return choices

    def _keep(self, keys: list[tuple[str, str | None]], wanted: np.ndarray, choices: np.ndarray) -> None:
        choices = choices.reshape(self.spots, len(keys), len(HORIZONS))
        for k, key in enumerate(keys):
            self.tables[key] = _Table(wanted[k], np.ascontiguousarray(choices[:, k]))


@functools.cache
def _version() -> str:
    """The code the route tables come from, as the disk cache (`scene_cache`) tells them apart."""
    return scene_cache.code_version(__file__, inspect.getfile(shortest_path)) + views_version()


def _groups(aheads: list[list[int]]) -> np.ndarray:
    """Which group of cells the agent can walk between each cell is in (numbered in cell order), from the
    spots a move ahead leads to at each yaw (spot = cell * 4 + yaw; past the last spot: into a wall)."""
    n = len(aheads[0])
    group = [-1] * n
    for first in range(n):
        if group[first] >= 0:
            continue
        group[first], frontier = first, [first]
        while frontier:
            cell = frontier.pop()
            for ahead in aheads:
                nxt = ahead[cell] // len(YAWS)
                if nxt < n and group[nxt] < 0:
                    group[nxt] = first
                    frontier.append(nxt)
    return np.array(group, dtype=np.int64)


def _finish() -> np.ndarray:
    """The cost of the looks from each start horizon to the nearest of a set of horizons (bit h: horizon h
    is in it), or FAR from the empty set: int32 (2**7 sets, start horizons). HORIZONS are one look apart."""
    table = np.full((2 ** len(HORIZONS), len(HORIZONS)), FAR, dtype=np.int32)
    for bits in range(1, len(table)):
        wanted = [h for h in range(len(HORIZONS)) if bits >> h & 1]
        table[bits] = [min(abs(h - w) for w in wanted) * ACTION for h in range(len(HORIZONS))]
    return table


_FINISH = _finish()


def _tied(horizons: list[int], start: int) -> bool:
    """Whether two of `horizons` are equally near `start`, one above and one below."""
    nearest = min(abs(h - start) for h in horizons)
    return nearest > 0 and start - nearest in horizons and start + nearest in horizons
