"""What an agent sees from each discrete pose of a scene, answered for every pose at once.

An agent on the grid stands on a reachable cell, faces one of YAWS and pitches its camera to one of
HORIZONS, so a scene has (cells x 4 x 7) poses. Checking one new (pose, object) pair with `frustum.in_view`
costs as much as a hundred lookups, and a random walk meets thousands of new pairs, so `PoseViews`
checks each object from every pose at once with numpy and then only looks answers up: the fixed
objects when the views are made (or read from the disk cache, `scene_cache`, where an earlier run left
them), a movable object the first time a route to it is asked for (a single question is answered from
its pose alone) or it is met at a (class, position).
The vectorised test does the same floating-point operations as `in_view`, elementwise (distances and
angles, where numpy's functions may round differently from `math`'s, are redone with `math` wherever a
comparison is close), and skips only work that cannot change an answer, so its answers are `in_view`'s,
bit for bit; tests compare the two on every pose of several floor plans.
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
    footprint_axes,
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
COARSE = 3  # every this many footprint points (and the last), each way, are tried first
ROUNDS_FROM = 5000  # columns: below, one round without the planes' test (whose cost the rounds repay)


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
    bool (boxes, N, 4 yaws, 7 horizons).

    A (box, position) pair within reach is rejected per (yaw, horizon) by `in_view`'s own rejections and by
    the frustum's planes (`_beyond_the_planes`); where it is not, its columns are tested in two rounds: the
    nearest point and a coarse grid of the footprint's points first (which find most boxes in view), then,
    only where those found none, the other points. Which columns find one changes no answer."""
    answers = np.zeros((len(boxes), len(positions), len(YAWS), len(HORIZONS)), dtype=bool)
    if not boxes:
        return answers
    lo, hi = np.array([b.lo for b in boxes]), np.array([b.hi for b in boxes])
    xs, zs = positions[:, 0], positions[:, 1]
    nx = np.minimum(np.maximum(xs, lo[:, 0, None]), hi[:, 0, None])  # (boxes, positions): the nearest points
    nz = np.minimum(np.maximum(zs, lo[:, 2, None]), hi[:, 2, None])
    box_of, at = np.nonzero(np.hypot(nx - xs, nz - zs) <= VISIBILITY_DISTANCE + 1e-6)  # generous: exact below
    lo, hi, ax, az = lo[box_of], hi[box_of], xs[at], zs[at]
    t0, t1 = lo[:, 1] - camera_height, hi[:, 1] - camera_height
    open_ = ~_surely_unseen(lo, hi, ax, az, camera_height)
    x, z, box, first = _footprints(boxes)
    rounds = np.bincount(box, minlength=len(boxes))[box_of].sum() > ROUNDS_FROM
    if rounds:
        open_ &= ~_beyond_the_planes(lo, hi, ax, az, camera_height)
    pair, yaw = np.nonzero(open_.any(axis=2))  # (pair, yaw) groups, in order
    points = _ragged(
        _packed(x, z, box, first | (not rounds), len(boxes)), box_of[pair], (nx[box_of, at], nz[box_of, at]), pair
    )
    seen = np.zeros(open_.shape, dtype=bool)
    seen[pair, yaw] = _columns_seen(*_offsets(points, ax, az, pair), yaw, t0[pair], t1[pair])
    if rounds:
        pair, yaw = np.nonzero((open_ & ~seen).any(axis=2))
        points = _ragged(_packed(x, z, box, ~first, len(boxes)), box_of[pair])
        seen[pair, yaw] |= _columns_seen(*_offsets(points, ax, az, pair), yaw, t0[pair], t1[pair])
    answers[box_of, at] = seen & open_
    return answers


def _footprints(boxes: list[Box]) -> tuple[np.ndarray, ...]:
    """The boxes' footprint points (`footprint_points`, box by box in their order) -> x, z, the index of
    the box of each, and whether each lies on the coarse grid (every COARSE-th point each way, and the last)."""
    axes = [footprint_axes(box) for box in boxes]
    sizes = np.array([(len(xs), len(zs)) for xs, zs in axes])
    x = np.fromiter((v for xs, _ in axes for v in xs), dtype=float, count=sizes[:, 0].sum())
    z = np.fromiter((v for _, zs in axes for v in zs), dtype=float, count=sizes[:, 1].sum())
    counts = sizes[:, 0] * sizes[:, 1]
    box = np.repeat(np.arange(len(boxes)), counts)
    i, j = np.divmod(np.arange(counts.sum()) - (np.cumsum(counts) - counts)[box], sizes[box, 1])  # x by x
    x, z = x[(np.cumsum(sizes[:, 0]) - sizes[:, 0])[box] + i], z[(np.cumsum(sizes[:, 1]) - sizes[:, 1])[box] + j]
    last = sizes[box] - 1
    return x, z, box, ((i % COARSE == 0) | (i == last[:, 0])) & ((j % COARSE == 0) | (j == last[:, 1]))


def _packed(x: np.ndarray, z: np.ndarray, box: np.ndarray, chosen: np.ndarray, boxes: int) -> tuple:
    """The chosen points as `_ragged` reads them: x, z, the offset of each box's first point, how many."""
    counts = np.bincount(box[chosen], minlength=boxes)
    return x[chosen], z[chosen], np.cumsum(counts) - counts, counts


def _ragged(points: tuple, boxes: np.ndarray, first: tuple | None = None, of: np.ndarray | None = None) -> tuple:
    """The points of each group's box (`boxes`: the box of each group) in turn, after `first`'s point of the
    group's pair (`of`) if given -> x, z, and the group each point belongs to."""
    x, z, offsets, counts = points
    n = counts[boxes] + (first is not None)
    group = np.repeat(np.arange(len(boxes)), n)
    k = np.arange(len(group)) - np.repeat(np.cumsum(n) - n, n)  # the point's rank in its group
    if first is None:
        index = offsets[boxes][group] + k
        return x[index], z[index], group
    index = offsets[boxes][group] + k - 1
    lead = k == 0
    index[lead] = 0
    px, pz = x[index], z[index]
    px[lead], pz[lead] = first[0][of], first[1][of]
    return px, pz, group


def _offsets(points: tuple, ax: np.ndarray, az: np.ndarray, pair: np.ndarray) -> tuple:
    """The points' offsets from the agent of their group's pair -> dx, dz, group."""
    px, pz, group = points
    return px - ax[pair][group], pz - az[pair][group], group


def _columns_seen(dx, dz, group, yaw, t0, t1) -> np.ndarray:
    """Whether `frustum._seen_columns` finds a column, per (pair, yaw) group -> bool (groups, 7 horizons),
    from the columns at (dx, dz) from the agent (group: whose they are, in order), the groups' yaws and
    their box's bottom and top heights relative to the camera (t0, t1)."""
    seen = np.zeros((len(t0), len(HORIZONS)), dtype=bool)
    sin, cos = _SIN[yaw][group], _COS[yaw][group]
    ahead_ = dx * sin + dz * cos
    # A point behind the camera is in view only when it looks down past the vertical, and then just behind
    # its feet; and none beyond reach.
    keep = ~(dx * dx + dz * dz > VISIBILITY_DISTANCE**2) & (ahead_ >= -BEHIND * np.maximum(-t0[group], 0) - 1e-6)
    (column,) = np.nonzero(keep)
    if not len(column):
        return seen
    ahead_, dx, dz, group = ahead_[column], dx[column], dz[column], group[column]
    right = np.abs(dx * cos[column] - dz * sin[column])
    starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
    groups = group[starts]
    t0, t1 = t0[group], t1[group]
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
        seen[groups, j] = np.logical_or.reduceat(hit, starts)
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
    ax, az (P,)) -> bool (P, 4 yaws, 7 horizons). Computed with numpy's distances and angles, which may
    differ from `math`'s in the last bits; the pairs whose any comparison is that close are done again
    with `math`, element by element, as the scalar code does."""
    unseen, close = _rejections(lo, hi, ax, az, camera_height, np.hypot, _elevations)
    (again,) = np.nonzero(close)
    if len(again):
        exact, _ = _rejections(lo[again], hi[again], ax[again], az[again], camera_height, _hypot, _elevation_each)
        unseen[again] = exact
    return unseen


DOUBT = 1e-9  # a comparison this close may go the other way with `math`'s rounding
_ABOVE = np.array([-h + HALF_FOV + 1e-6 for h in HORIZONS])  # per horizon: elevations wholly above the view
_BELOW = np.array([-h - HALF_FOV - 1e-6 for h in HORIZONS])  # and wholly below it


def _rejections(lo, hi, ax, az, camera_height, hypot, elevation) -> tuple[np.ndarray, np.ndarray]:
    """`_surely_unseen` with these distance and elevation functions, and whether any of a pair's
    comparisons is within DOUBT of going the other way -> bool (P, 4, 7), bool (P,)."""
    nx, nz = np.minimum(np.maximum(ax, lo[:, 0]), hi[:, 0]), np.minimum(np.maximum(az, lo[:, 2]), hi[:, 2])
    cx, cz = (lo[:, 0] + hi[:, 0]) / 2 - ax, (lo[:, 2] + hi[:, 2]) / 2 - az
    near = hypot(nx - ax, nz - az)
    radius = hypot(hi[:, 0] - lo[:, 0], hi[:, 2] - lo[:, 2]) / 2
    far, close = hypot(cx, cz) + radius, np.maximum(near, 1e-3)
    t0, t1 = lo[:, 1] - camera_height, hi[:, 1] - camera_height
    top = elevation(t1, np.where(hi[:, 1] > camera_height, close, far))[:, None, None]
    bottom = elevation(t0, np.where(lo[:, 1] < camera_height, close, far))[:, None, None]
    ahead_, right = cx[:, None] * _SIN + cz[:, None] * _COS, cx[:, None] * _COS - cz[:, None] * _SIN  # (P, 4 yaws)
    s, c = _PITCH_SIN, _PITCH_COS  # (7 horizons,)
    t = np.where(s >= 0, t0[:, None], t1[:, None])[:, None, :]
    radius = radius[:, None, None]
    side, limit = np.abs(right)[..., None] - radius, TAN_HALF_FOV * (c * (ahead_[..., None] + radius) - s * t) + 1e-9
    unseen = (near > VISIBILITY_DISTANCE)[:, None, None] | (side > limit) | (bottom > _ABOVE) | (top < _BELOW)
    doubt = np.minimum(np.abs(side - limit), np.minimum(np.abs(bottom - _ABOVE), np.abs(top - _BELOW)))
    return unseen, (doubt.min(axis=(1, 2)) < DOUBT) | (np.abs(near - VISIBILITY_DISTANCE) < DOUBT)


def _elevations(height: np.ndarray, distance: np.ndarray) -> np.ndarray:
    return np.degrees(np.arctan2(height, distance))


def _hypot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _each(math.hypot, a, b)


def _elevation_each(height: np.ndarray, distance: np.ndarray) -> np.ndarray:
    return _each(_elevation, height, distance)


def _planes() -> tuple[np.ndarray, ...]:
    """Three of the frustum's planes, |right| <= T f and -u <= T f (`view_limits`: the sides and the bottom
    of the view, which reject most of what `_surely_unseen` leaves; the near and top planes add almost
    nothing), at each yaw and horizon, as g = cx X + cz Z + ct t >= 0 over a point's offset (X, Z) from
    the agent and height t relative to the camera: coefficients (4 yaws, 7 horizons, 3 planes) each."""
    sy, cy = _SIN[:, None, None], _COS[:, None, None]
    s, c, t = _PITCH_SIN[None, :, None], _PITCH_COS[None, :, None], TAN_HALF_FOV
    one = np.ones((1, 1, 1))
    alpha = np.concatenate([t * c, t * c, t * c + s], axis=2)  # g = alpha * ahead + beta * right + gamma * t
    beta = np.concatenate([-one, one, 0 * one], axis=2)
    gamma = np.concatenate([-t * s, -t * s, c - t * s], axis=2)
    shape = (len(YAWS), len(HORIZONS), 3)
    return tuple(np.broadcast_to(a, shape).ravel() for a in (alpha * sy + beta * cy, alpha * cy - beta * sy, gamma))


_PLANES = _planes()
PLANE_MARGIN = 1e-6  # far above the rounding of any column's test, so a rejected box has no column in view


def _beyond_the_planes(lo: np.ndarray, hi: np.ndarray, ax: np.ndarray, az: np.ndarray, camera_height: float):
    """Per (box, position) pair (corners lo, hi (P, 3), the agent at ax, az (P,)): whether the part of the
    box within reach lies wholly outside one of `_planes`, at each yaw and horizon -> bool (P, 4, 7). A
    plane is linear, so its largest value over the box is at the corner its coefficients' signs pick."""
    reach = VISIBILITY_DISTANCE + PLANE_MARGIN
    x = np.stack([np.maximum(lo[:, 0] - ax, -reach), np.minimum(hi[:, 0] - ax, reach)], axis=1)
    z = np.stack([np.maximum(lo[:, 2] - az, -reach), np.minimum(hi[:, 2] - az, reach)], axis=1)
    t = np.stack([lo[:, 1] - camera_height, hi[:, 1] - camera_height], axis=1)
    cx, cz, ct = _PLANES
    largest = cx * x[:, (cx > 0).astype(int)] + cz * z[:, (cz > 0).astype(int)] + ct * t[:, (ct > 0).astype(int)]
    return (largest < -PLANE_MARGIN).reshape(len(lo), len(YAWS), len(HORIZONS), 3).any(axis=3)


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
        # (class, position) -> (in view, listed: None until `visible` asks)
        self.movable: dict[tuple, tuple[np.ndarray, np.ndarray | None]] = {}
        self.movable_bytes = MOVABLE_BYTES  # a batched env, whose many agents put things in many places, raises it
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
            ids, rows = self.placed(state, catalog)
            listed = np.array(rows).reshape(len(ids), -1)
            self._state, self._placed, self._hidden = (state.objects, held), (ids, listed), {}
        ids, listed = self._placed
        return self.unhidden(
            [*self.fixed(pose), *(ids[i] for i in listed[:, pose].nonzero()[0].tolist())], state, catalog, self._hidden
        )

    def placed(self, state: State, catalog: Catalog) -> tuple[list[str], list[np.ndarray]]:
        """The objects placed in the state (not held) and, for each, the poses `visible_objects` lists it from
        (in view and past its prefilter), as bool arrays over poses."""
        placed = [o for o in state.objects.values() if o.position is not None]
        self.learn([(o.cls, o.position) for o in placed], catalog, listed=True)
        return [o.id for o in placed], [self.movable[o.cls, o.position][1] for o in placed]

    @staticmethod
    def unhidden(found: list[str], state: State, catalog: Catalog, hidden: dict[str, bool]) -> list[str]:
        """`found` without what is enclosed in the state (each object's answer kept in `hidden`, which holds one
        state's), sorted: what `visible_objects` lists."""
        seen = []
        for o in found:
            if o not in hidden:
                hidden[o] = enclosed(state, catalog, o) is not None
            if not hidden[o]:
                seen.append(o)
        return sorted(seen)

    def learn(self, keys: list[tuple], catalog: Catalog, listed: bool = False) -> None:
        """Looks at movable objects, given as (class, position), from every pose at once; with `listed`, also
        works out where `visible_objects` lists them (which only `visible` asks)."""
        keys = list(dict.fromkeys(keys))
        if (len(self.movable) + len(keys)) * 2 * len(self.positions) * POSES_PER_CELL > self.movable_bytes:
            self.movable.clear()  # a long run puts things in ever new places
        poses = len(self.positions) * POSES_PER_CELL
        new = [key for key in keys if key not in self.movable]
        if new:
            boxes = [Box.around(position, catalog[cls].size) for cls, position in new]
            in_view = in_view_poses(boxes, self.positions, self.camera_height).reshape(len(new), poses)
            self.movable.update((key, (seen, None)) for key, seen in zip(new, in_view))
        unlisted = [key for key in keys if self.movable[key][1] is None] if listed else []
        if unlisted:
            near = self._near_the_view(np.array([position for _, position in unlisted])).reshape(len(unlisted), poses)
            for key, shown in zip(unlisted, near):
                seen = self.movable[key][0]
                self.movable[key] = seen, seen & shown

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
