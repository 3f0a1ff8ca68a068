"""What an agent sees from each discrete pose of a scene, answered for every pose at once.

An agent on the grid stands on a reachable cell, faces one of YAWS and pitches its camera to one of
HORIZONS, so a scene has (cells x 4 x 7) poses. Checking one new (pose, object) pair with `frustum.in_view`
costs as much as a hundred lookups, and a random walk meets thousands of new pairs, so `PoseViews`
checks each object from every pose at once with numpy and then only looks answers up: the fixed
objects when the views are made (or read from the disk cache, `scene_cache`, where an earlier run left
them), a movable object the first time it is met at a (class, position).
The vectorised test does the same floating-point operations as `in_view`, elementwise (and takes
distances and angles with `math`, where numpy's functions may round differently), so its answers are
`in_view`'s, bit for bit; tests compare the two on every pose of several floor plans.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from homesim.world import frustum, scene_cache
from homesim.world.catalog import Catalog
from homesim.world.frustum import (
    HALF_FOV,
    HORIZONS,
    MOVABLE_RADIUS,
    TAN_HALF_FOV,
    VISIBILITY_DISTANCE,
    YAWS,
    footprint_points,
    sin_cos,
    view_limits,
)
from homesim.world.scene import GRID_SIZE, Box, Scene, standing_points
from homesim.world.state import AgentState, State

POSES_PER_CELL = len(YAWS) * len(HORIZONS)
_YAW_INDEX = {yaw: i for i, yaw in enumerate(YAWS)}
_HORIZON_INDEX = {horizon: j for j, horizon in enumerate(HORIZONS)}
_SIN, _COS = (np.array(v) for v in zip(*map(sin_cos, YAWS)))  # per yaw
_PITCH_SIN, _PITCH_COS = (np.array(v) for v in zip(*map(sin_cos, HORIZONS)))  # per horizon
# Metres behind the camera a point can be in view, per metre below it: looking down by the largest
# horizon, the view reaches HALF_FOV further, past the vertical by this angle (if at all).
BEHIND = math.tan(math.radians(max(0.0, max(HORIZONS) + HALF_FOV - 90)))
MOVABLE_BYTES = 4 * 2**20  # per scene, for movable objects' answers; past it they are forgotten and redone


def enclosed(state: State, catalog: Catalog, object_id: str) -> str | None:
    """The closed receptacle (or the holding agent's hand) that hides an object, if any."""
    for ancestor in state.ancestors(object_id):
        o = state.objects[ancestor]
        if catalog[o.cls].openable and not o.is_open:
            return ancestor
        if state.holder_of(ancestor) is not None:
            return ancestor
    return None


def in_view_poses(boxes: list[Box], positions: np.ndarray, camera_height: float) -> np.ndarray:
    """`in_view` for each box from each agent position (N, 2: floor x, z) at every yaw and horizon ->
    bool (boxes, N, 4 yaws, 7 horizons)."""
    answers = np.zeros((len(boxes), len(positions), len(YAWS), len(HORIZONS)), dtype=bool)
    xs, zs = positions[:, 0], positions[:, 1]
    box_of, at, px, pz, pair_of = [], [], [], [], []  # per (box, position) pair; per column
    pairs = 0
    for b, box in enumerate(boxes):
        (x0, _, z0), (x1, _, z1) = box.lo, box.hi
        nx, nz = np.minimum(np.maximum(xs, x0), x1), np.minimum(np.maximum(zs, z0), z1)
        m = np.flatnonzero(np.hypot(nx - xs, nz - zs) <= VISIBILITY_DISTANCE + 1e-6)  # generous: exact below
        points = np.array(footprint_points(box))  # `_seen_columns` tries the nearest point, then these
        px.append(np.concatenate([nx[m, None], np.broadcast_to(points[:, 0], (len(m), len(points)))], axis=1).ravel())
        pz.append(np.concatenate([nz[m, None], np.broadcast_to(points[:, 1], (len(m), len(points)))], axis=1).ravel())
        pair_of.append(np.repeat(np.arange(pairs, pairs + len(m)), len(points) + 1))
        box_of.append(np.full(len(m), b))
        at.append(m)
        pairs += len(m)
    if not boxes:
        return answers
    box_of, at, pair_of = np.concatenate(box_of), np.concatenate(at), np.concatenate(pair_of)
    lo, hi = np.array([b.lo for b in boxes])[box_of], np.array([b.hi for b in boxes])[box_of]
    ax, az = xs[at], zs[at]
    t0, t1 = lo[:, 1] - camera_height, hi[:, 1] - camera_height
    seen = _columns_seen(np.concatenate(px) - ax[pair_of], np.concatenate(pz) - az[pair_of], pair_of, t0, t1)
    answers[box_of, at] = seen & ~_surely_unseen(lo, hi, ax, az, camera_height)
    return answers


def _columns_seen(dx, dz, pair_of, t0, t1) -> np.ndarray:
    """Whether `frustum._seen_columns` finds a column, per (box, position) pair -> bool (pairs, 4, 7), from
    the columns at (dx, dz) from the agent (pair_of: whose they are, in order) and the pairs' bottom and
    top heights relative to the camera (t0, t1)."""
    seen = np.zeros((len(t0), len(YAWS), len(HORIZONS)), dtype=bool)
    inside = ~(dx * dx + dz * dz > VISIBILITY_DISTANCE**2)
    dx, dz, pair_of = dx[inside], dz[inside], pair_of[inside]
    ahead_ = dx * _SIN[:, None] + dz * _COS[:, None]  # (4 yaws, columns)
    # Only the columns a yaw could see at some horizon are tested from it (about half): a point behind
    # the camera is in view only when it looks down past the vertical, and then just behind its feet.
    yaw, column = np.nonzero(ahead_ >= -BEHIND * np.maximum(-t0[pair_of], 0) - 1e-6)
    if not len(column):
        return seen
    ahead_, dx, dz, pair_of = ahead_[yaw, column], dx[column], dz[column], pair_of[column]
    right = np.abs(dx * _COS[yaw] - dz * _SIN[yaw])
    group = yaw * len(t0) + pair_of  # (yaw, pair), in order
    starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
    pairs, yaws = pair_of[starts], yaw[starts]
    t0, t1 = t0[pair_of], t1[pair_of]
    for j, horizon in enumerate(HORIZONS):
        upper, lower, conditions = view_limits(horizon)
        lo, hi = t0, t1
        for row in upper:
            hi = np.minimum(hi, _row(row, ahead_, right))
        for row in lower:
            lo = np.maximum(lo, _row(row, ahead_, right))
        hit = lo <= hi
        for row in conditions:
            hit &= ~(_row(row, ahead_, right) < 0)
        seen[pairs, yaws, j] = np.logical_or.reduceat(hit, starts)
    return seen


def _row(row: tuple[float, float, float], a: np.ndarray, r: np.ndarray):
    """p * a + q * r + w as `frustum` computes it, without the terms that are zero (which change no
    comparison's outcome: at most the sign of a zero)."""
    p, q, w = row
    value = p * a if p else 0.0
    if q:
        value = value + q * r
    return value + w if w else value


def _surely_unseen(lo: np.ndarray, hi: np.ndarray, ax: np.ndarray, az: np.ndarray, camera_height: float) -> np.ndarray:
    """`frustum._surely_unseen` per (box, position) pair (the boxes' corners lo, hi (P, 3), the agent at
    ax, az (P,)) -> bool (P, 4 yaws, 7 horizons)."""
    nx, nz = np.minimum(np.maximum(ax, lo[:, 0]), hi[:, 0]), np.minimum(np.maximum(az, lo[:, 2]), hi[:, 2])
    cx, cz = (lo[:, 0] + hi[:, 0]) / 2 - ax, (lo[:, 2] + hi[:, 2]) / 2 - az
    near = _each(math.hypot, nx - ax, nz - az)
    radius = _each(math.hypot, hi[:, 0] - lo[:, 0], hi[:, 2] - lo[:, 2]) / 2
    far, close = _each(math.hypot, cx, cz) + radius, np.maximum(near, 1e-3)
    t0, t1 = lo[:, 1] - camera_height, hi[:, 1] - camera_height
    top = _each(_elevation, t1, np.where(hi[:, 1] > camera_height, close, far))[:, None, None]
    bottom = _each(_elevation, t0, np.where(lo[:, 1] < camera_height, close, far))[:, None, None]
    ahead_, right = cx[:, None] * _SIN + cz[:, None] * _COS, cx[:, None] * _COS - cz[:, None] * _SIN  # (P, 4 yaws)
    s, c = _PITCH_SIN, _PITCH_COS  # (7 horizons,)
    t = np.where(s >= 0, t0[:, None], t1[:, None])[:, None, :]
    radius = radius[:, None, None]
    beside = np.abs(right)[..., None] - radius > TAN_HALF_FOV * (c * (ahead_[..., None] + radius) - s * t) + 1e-9
    above = bottom > np.array([-h + HALF_FOV + 1e-6 for h in HORIZONS])
    below = top < np.array([-h - HALF_FOV - 1e-6 for h in HORIZONS])
    return (near > VISIBILITY_DISTANCE)[:, None, None] | beside | above | below


def _elevation(height: float, distance: float) -> float:
    return math.degrees(math.atan2(height, distance))


def _each(function, *arrays: np.ndarray) -> np.ndarray:
    """`function` applied element by element in Python floats, as the scalar code does."""
    return np.array(list(map(function, *(a.tolist() for a in arrays))), dtype=float)


class PoseViews:
    """A scene's answers per pose, numbered (cell * 4 + yaw) * 7 + horizon over its reachable cells in
    order: `fixed(pose)` (the fixed objects in view), and per movable (class, position) the poses it is
    in view from and the poses `visible_objects` lists it from (in view and past its prefilter,
    `frustum.near_the_view`), as bool arrays over poses. A class's size is taken from the catalog the
    object is first met with, as if every catalog used with a scene agreed on it."""

    def __init__(self, scene: Scene):
        self.positions = standing_points(scene.reachable)
        self.cells = {(x, z): i for i, (x, z) in enumerate(self.positions.tolist())}
        self.camera_height = scene.camera_height
        self.fixed_ids = list(scene.fixed)
        poses = len(self.positions) * POSES_PER_CELL
        packed = scene_cache.load(scene, "views", version(), (poses, -(-len(self.fixed_ids) // 8)), np.dtype(np.uint8))
        if packed is not None:  # kept as bits
            self._fixed_by_pose = np.unpackbits(packed, axis=1, count=len(self.fixed_ids)).astype(bool)
        else:
            seen = in_view_poses([scene.fixed[i].box for i in self.fixed_ids], self.positions, self.camera_height)
            self._fixed_by_pose = seen.reshape(len(self.fixed_ids), poses).T.copy()  # (poses, fixed objects)
            scene_cache.store(scene, "views", version(), np.packbits(self._fixed_by_pose, axis=1))
        self.fixed_seen = dict(zip(self.fixed_ids, self._fixed_by_pose.T))  # fixed id -> in view from each pose
        self._fixed_at: dict[int, frozenset[str]] = {}
        # The cells (grid indices) in the order the scene's set of them iterates, as planning lists them.
        self.set_cells = np.array(list(scene.reachable), dtype=np.int64).reshape(-1, 2)
        self.set_order = np.array([self.cells[x * GRID_SIZE, z * GRID_SIZE] for x, z in scene.reachable], dtype=int)
        self.movable: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # (class, position) -> (in view, listed)
        self._state: tuple = ()  # the objects mapping and held objects `visible` last answered for
        self._placed: tuple[list[str], np.ndarray] = ([], np.zeros((0, 0), dtype=bool))
        self._hidden: dict[str, bool] = {}

    def pose(self, agent: AgentState) -> int | None:
        """The agent's pose number, or None off the grid (between cells, another yaw or horizon)."""
        cell = self.cells.get((agent.x, agent.z))
        yaw, horizon = _YAW_INDEX.get(agent.yaw), _HORIZON_INDEX.get(agent.horizon)
        if cell is None or yaw is None or horizon is None:
            return None
        return (cell * len(YAWS) + yaw) * len(HORIZONS) + horizon

    def fixed(self, pose: int) -> frozenset[str]:
        """The fixed objects in view from `pose`."""
        seen = self._fixed_at.get(pose)
        if seen is None:
            ids = self.fixed_ids
            seen = self._fixed_at[pose] = frozenset(ids[f] for f in self._fixed_by_pose[pose].nonzero()[0].tolist())
        return seen

    def in_view(self, pose: int, cls: str, position: tuple[float, float, float], catalog: Catalog) -> bool:
        """Whether a movable object of class `cls` at `position` is in view from `pose`: looked up once the
        object's poses are known, else tested from this pose alone (`frustum.in_view`, the same answer), as
        a command asks of its target where the agent stands, at a fraction of the cost of every pose."""
        known = self.movable.get((cls, position))
        if known is not None:
            return bool(known[0][pose])
        cell, rest = divmod(pose, POSES_PER_CELL)
        x, z = self.positions[cell].tolist()
        agent = AgentState(x, z, YAWS[rest // len(HORIZONS)], HORIZONS[rest % len(HORIZONS)])
        return frustum.in_view(Box.around(position, catalog[cls].size), agent, self.camera_height)

    def movable_seen(self, cls: str, position: tuple[float, float, float], catalog: Catalog) -> np.ndarray:
        """Whether a movable object of class `cls` at `position` is in view, from each pose."""
        if (cls, position) not in self.movable:
            self.learn([(cls, position)], catalog)
        return self.movable[cls, position][0]

    def visible(self, pose: int, state: State, catalog: Catalog) -> list[str]:
        """`geometry.visible_objects` from `pose`. What it takes from the state (the placed objects, which
        objects are enclosed) is kept while only the agents' poses change, as when walking."""
        held = tuple(a.held for a in state.agents)
        if not self._state or state.objects is not self._state[0] or held != self._state[1]:
            placed = [o for o in state.objects.values() if o.position is not None]
            self.learn([(o.cls, o.position) for o in placed], catalog)
            listed = np.array([self.movable[o.cls, o.position][1] for o in placed]).reshape(len(placed), -1)
            self._state, self._placed, self._hidden = (state.objects, held), ([o.id for o in placed], listed), {}
        ids, listed = self._placed
        found, hidden = [], self._hidden
        for o in [*self.fixed(pose), *(ids[i] for i in listed[:, pose].nonzero()[0].tolist())]:
            if o not in hidden:
                hidden[o] = enclosed(state, catalog, o) is not None
            if not hidden[o]:
                found.append(o)
        return sorted(found)

    def learn(self, keys: list[tuple], catalog: Catalog) -> None:
        """Looks at movable objects, given as (class, position), from every pose at once."""
        keys = list(dict.fromkeys(keys))
        if (len(self.movable) + len(keys)) * 2 * len(self.positions) * POSES_PER_CELL > MOVABLE_BYTES:
            self.movable.clear()  # a long run puts things in ever new places
        keys = [key for key in keys if key not in self.movable]
        if not keys:
            return
        boxes = [Box.around(position, catalog[cls].size) for cls, position in keys]
        in_view = in_view_poses(boxes, self.positions, self.camera_height)
        listed = in_view & self._near_the_view(np.array([position for _, position in keys]))
        poses = len(self.positions) * POSES_PER_CELL
        for key, seen, shown in zip(keys, in_view.reshape(len(keys), poses), listed.reshape(len(keys), poses)):
            self.movable[key] = seen, shown

    def _near_the_view(self, positions: np.ndarray) -> np.ndarray:
        """`frustum.near_the_view` for objects at `positions` (K, 3) from every pose -> bool (K, cells, 4, 7)."""
        x, y, z = (positions[:, i, None] for i in range(3))
        r, height = MOVABLE_RADIUS, self.camera_height
        dx, dz = x - self.positions[:, 0], z - self.positions[:, 1]  # (K, cells)
        within = ~(dx * dx + dz * dz > (VISIBILITY_DISTANCE + MOVABLE_RADIUS) ** 2)
        ahead_, right = dx[..., None] * _SIN + dz[..., None] * _COS, dx[..., None] * _COS - dz[..., None] * _SIN
        t = np.where(_PITCH_SIN >= 0, y - r - height, y + r - height)[:, None, None, :]  # (K, 1, 1, 7)
        s, c = _PITCH_SIN, _PITCH_COS
        beside = np.abs(right)[..., None] - r > TAN_HALF_FOV * (c * (ahead_[..., None] + r) - s * t) + 1e-9
        return within[..., None, None] & ~beside


@functools.cache
def version() -> str:
    """The code the fixed objects' answers come from, as the disk cache (`scene_cache`) tells them apart."""
    return scene_cache.code_version(frustum.__file__, inspect.getfile(Scene), __file__)


def pose_views(scene: Scene) -> PoseViews:
    """The scene's `PoseViews`: made the first time they are asked for, then kept with the scene."""
    views = scene.pose_visibility.get(PoseViews)
    if views is None:
        views = scene.pose_visibility[PoseViews] = PoseViews(scene)
    return views
