"""What a robot's camera sees of an object, from geometry alone: ObjectNav's visibility.

An object is seen when some point of its box is inside the camera's pinhole frame (the embodiment's
horizontal field of view, the vertical one its image's aspect ratio gives, any distance: the renderer
draws everything and only clips depth readings) and the line of sight to that point reaches the box's
footprint without passing through an obstacle column of the nav grid's height map (walls and fixed
objects, each from its bottom to its top). Such a ray then hits the box itself, so "at least one pixel of
the object in the frame" holds. Small movable objects do not occlude. Unlike ALFRED's interaction
visibility (`geometry`), there is no 1.5 m reach and walls hide what is behind them.

Lines of sight are traced in rounds of samples, each dropping the lines found blocked (most end at a wall
early) and skipping the samples too far from any obstacle column to meet one (`_skips`); an episode's end asks
about every goal instance at once (`sights`, what the criteria read), and the batched env about every end of a
step (`sights_many`): the same lines in the same groups, the same answers as asking box by box (`sees`,
`oracle_sees`), for fewer passes.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Sequence

import numpy as np

from homesim.world.objectnav.navgrid import LATTICE, NavGrid
from homesim.world.scene import Box
from homesim.world.state import AgentState

COARSE_SPACING = 0.2  # metres between the box's surface points that finding view points tests; the
# points `sees` tests are these and the midpoints between them, so whatever the coarse test finds, it finds
NEAR = 0.02  # metres: the renderer's near plane
MARGIN = 1e-6  # the oracle's frame is this much narrower, so rounding never makes it accept what `sees` rejects
BATCH = 64  # camera positions per block when many are tested at once
PAIRS = 8192  # lines of sight traced at once
FIRST_PASS = 6  # the oracle's first pass tries every FIRST_PASS-th point
SAMPLES, WIDEST = 8192, 32  # samples taken a round (a few lines take up to WIDEST in a row; many, one each)
SKIP_MARGIN = 1.5  # lattice steps: two samples' cells are at most their distance apart plus sqrt(2) (rounding)
# heights (metres) of the obstacle columns a line of sight whose samples are all above one can meet: lower
# columns cannot block it; HEIGHT_MARGIN covers a sample's rounding below the line's lower end
LEVELS = np.array([-np.inf, 0.25, 0.5, 0.75])
HEIGHT_MARGIN = 1e-6
_SKIPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # `_skips` per grid


@functools.lru_cache(maxsize=4096)
def surface_points(box: Box, fine: bool = True) -> np.ndarray:
    """(K, 3) points on the box's six faces, at most COARSE_SPACING apart (half that when `fine`)."""
    axes = []
    for lo, hi in zip(box.lo, box.hi):
        n = max(2, math.ceil((hi - lo) / COARSE_SPACING) + 1)
        axes.append(np.linspace(lo, hi, 2 * n - 1 if fine else n))
    x, y, z = np.meshgrid(*axes, indexing="ij")
    on_face = np.zeros(x.shape, dtype=bool)
    for axis in range(3):
        index = [slice(None)] * 3
        for end in (0, -1):
            index[axis] = end
            on_face[tuple(index)] = True
    points = np.stack([x[on_face], y[on_face], z[on_face]], axis=1)
    points.setflags(write=False)
    return points


def _skips(grid: NavGrid) -> np.ndarray:
    """Per level of LEVELS and lattice point (flat, level by level), how many samples a line of sight whose
    samples are all at least that high may move on from a sample there: the samples between land at most
    m + sqrt(2) lattice steps from it (m samples on, one lattice step apart on the floor, each rounded to its
    nearest point), so they are nearer no obstacle column of that height than it is and none blocks them.
    1 on or beside such a column: every sample there is tested. Fewer is as true: 16 bits each (2 bytes per
    level and lattice point, 1.8 MB for a generated house's 228,000), made once per grid and kept while it is."""
    if grid in _SKIPS:
        return _SKIPS[grid]
    from scipy import ndimage

    most = np.iinfo(np.int16).max
    tables = []
    for level in LEVELS:
        obstacle = np.isfinite(grid.high) & (grid.high >= level - HEIGHT_MARGIN)  # high is -inf where there is none
        if obstacle.any():
            distance = ndimage.distance_transform_edt(~obstacle)  # lattice steps to the nearest such column
            tables.append(np.clip(np.ceil(distance - SKIP_MARGIN), 1, most).astype(np.int16).ravel())
        else:
            tables.append(np.full(obstacle.size, most, dtype=np.int16))
    skips = _SKIPS[grid] = np.concatenate(tables)
    return skips


def _camera_frame(d: np.ndarray, yaw, horizon) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets from the camera (..., 3) as forward, right and up of a camera turned to yaw and pitched down
    by horizon (degrees, scalars or arrays broadcasting with the offsets' leading shape)."""
    return _rotated(d, _sin_cos(yaw), _sin_cos(horizon))


def _sin_cos(degrees) -> tuple:
    return np.sin(np.radians(degrees)), np.cos(np.radians(degrees))


def _rotated(d: np.ndarray, yaw: tuple, horizon: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_camera_frame` from the sines and cosines of yaw and horizon."""
    (sy, cy), (sh, ch) = yaw, horizon
    dx, dy, dz = d[..., 0], d[..., 1], d[..., 2]
    forward = ch * sy * dx - sh * dy + ch * cy * dz
    right = cy * dx - sy * dz
    up = sh * sy * dx + ch * dy + sh * cy * dz
    return forward, right, up


def _framed(grid: NavGrid, forward, right, up, margin: float = 0.0) -> np.ndarray:
    """In the frame; `margin` (metres per metre ahead) narrows it, for tests that must never accept more
    than the plain one does."""
    e = grid.embodiment
    tx, ty = math.tan(math.radians(e.hfov / 2)) - margin, math.tan(math.radians(e.vfov / 2)) - margin
    return (forward > NEAR + margin) & (np.abs(right) <= tx * forward) & (np.abs(up) <= ty * forward)


def in_frame(points: np.ndarray, x: float, z: float, yaw: float, horizon: float, grid: NavGrid) -> np.ndarray:
    """Which points the camera at (x, z), turned to yaw and pitched by horizon (+ down), has in its frame."""
    d = points - np.array([x, grid.embodiment.camera_height, z])
    return _framed(grid, *_camera_frame(d, yaw, horizon))


def clear_lines(grid: NavGrid, box: Box, cameras: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(M,): whether each camera ((M, 2) x, z) has a free line of sight to its point ((M, 3)), up to where
    the line enters the box's footprint (the object never hides itself, and a ray that gets there hits it)."""
    return _clear(grid, _footprints([box], [len(points)]), cameras, points, _groups([len(points)]))


def _footprints(boxes: list[Box], counts: list[int]) -> np.ndarray:
    """(M, 4): each line's box footprint (x lo, x hi, z lo, z hi), counts[b] lines to boxes[b]."""
    corners = np.array([(b.lo[0], b.hi[0], b.lo[2], b.hi[2]) for b in boxes]).reshape(-1, 4)
    return np.repeat(corners, counts, axis=0)


def _groups(sizes: list[int]) -> np.ndarray:
    """Where each group of lines traced together starts: a group's longest line sets how far its lines are
    sampled (what `_clear` did for each call of PAIRS lines at most), kept so any batching gives the same bits."""
    starts, at = [], 0
    for size in sizes:
        starts += range(at, at + size, PAIRS)
        at += size
    return np.array(starts, dtype=np.int64)


def _clear(grid: NavGrid, footprints: np.ndarray, cameras: np.ndarray, points: np.ndarray, starts, owners=None):
    """Whether each line is clear (`clear_lines`). With `owners` (an int per line), what matters is whether
    each owner has a clear line: every FIRST_PASS-th line is traced first, the others only for the owners
    none of those showed, and a line not traced reads False."""
    if len(points) == 0:
        return np.zeros(0, dtype=bool)
    h = grid.embodiment.camera_height
    x, z = cameras[:, 0], cameras[:, 1]
    dx, dz, dy = points[:, 0] - x, points[:, 2] - z, points[:, 1] - h
    # Where each line enters the footprint (slab method on x and z), as a fraction of the way to its point.
    enter = np.zeros(len(points))
    for delta, origin, lo, hi in (
        (dx, x, footprints[:, 0], footprints[:, 1]),
        (dz, z, footprints[:, 2], footprints[:, 3]),
    ):
        with np.errstate(divide="ignore", invalid="ignore"):
            t0, t1 = (lo - origin) / delta, (hi - origin) / delta
        inside = (lo <= origin) & (origin <= hi)
        near = np.where(delta == 0, np.where(inside, -np.inf, np.inf), np.minimum(t0, t1))
        enter = np.maximum(enter, near)
    enter = np.clip(enter, 0.0, 1.0)
    # Samples every LATTICE along each line (on the floor plan) before its entry point, as many as its
    # group's longest line needs: the same for a line whatever other groups are tested with it. Every line
    # takes a few samples in a row a round, and skips the samples after them that land too far from any
    # obstacle column to meet one (`_skips`); a line leaves when blocked or past its last sample: most end at
    # a wall after a few rounds.
    length = np.hypot(dx, dz)
    counts = np.maximum(1, np.maximum.reduceat(np.ceil(length * enter / LATTICE), starts))
    limit = np.repeat(counts, np.diff(np.append(starts, len(points))))
    low, high, columns, skips = grid.low.ravel(), grid.high.ravel(), grid.shape[1], _skips(grid)
    # each line's table of skips (`_skips`): that of the columns at least as tall as its lowest sample
    reach = np.where(length > 0, length, np.inf)  # a sample's t: k * LATTICE / reach, 0 on a line of no length
    # in lattice steps, exactly (LATTICE is a power of 2): (x + t * dx) / LATTICE = x' + t * dx'
    lines = np.stack([reach, _stops(reach, enter, limit), x / LATTICE, z / LATTICE, dx / LATTICE, dz / LATTICE, dy])
    tables = (np.searchsorted(LEVELS, np.minimum(h, points[:, 1]), side="right") - 1) * low.size
    # lines between points of the grid's interior have every sample inside it, rounded
    ends = np.concatenate([cameras, points[:, [0, 2]]]) / LATTICE - (grid.i0, grid.j0)
    contained = ends.min() >= 1 and (ends.max(axis=0) <= np.array(grid.shape) - 2).all()
    clear = np.zeros(len(points), dtype=bool)

    def trace(live: np.ndarray) -> None:
        clear[live] = True
        k = np.zeros(len(live), dtype=np.int64)  # each line's next sample
        traced, table = lines[:, live], tables[live, None]
        while len(live):
            reaches, stops, xs, zs, dxs, dzs, dys = traced[:, :, None]
            width = min(WIDEST, max(1, SAMPLES // len(live)))
            ks = k[:, None] + np.arange(width)  # the next samples in a row
            t = ks * LATTICE / reaches
            wanted = ks < stops  # a prefix of each line's samples
            i = np.rint(xs + t * dxs).astype(np.int64) - grid.i0
            j = np.rint(zs + t * dzs).astype(np.int64) - grid.j0
            sy = h + t * dys
            if not contained:
                wanted &= (i >= 0) & (i < grid.shape[0]) & (j >= 0) & (j < grid.shape[1])
            cell = np.where(wanted, i * columns + j, 0)
            hit = wanted & (low[cell] <= sy) & (sy <= high[cell])
            # the farthest any sample's skip reaches: the samples before it are those taken or skipped
            after = ks + np.where(wanted, skips[table + cell], 1)
            blocked, after = (hit[:, 0], after[:, 0]) if width == 1 else (hit.any(axis=1), after.max(axis=1))
            clear[live[blocked]] = False
            going = (ks[:, -1] < stops[:, 0]) & ~blocked
            live, k, traced, table = live[going], after[going], traced[:, going], table[going]

    if owners is None:
        trace(np.arange(len(points)))
        return clear
    first = np.zeros(len(points), dtype=bool)
    first[::FIRST_PASS] = True
    trace(np.flatnonzero(first))
    shown = np.zeros(owners.max() + 1, dtype=bool)
    shown[owners[clear]] = True
    trace(np.flatnonzero(~first & ~shown[owners]))
    return clear


def _stops(reach: np.ndarray, enter: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Each line's first sample not taken: samples k < limit are taken where k = 0 or their t (k * LATTICE /
    reach, growing with k) is short of the entry point; the first k >= 1 whose t is not lies within 2 of
    enter * reach / LATTICE (the quotient's rounding), so the few candidates there are tried, the same way."""
    stop = np.full(len(reach), np.inf)
    with np.errstate(invalid="ignore"):
        # on a line of no length (reach inf) every t is 0: k = 1 stops it where enter is 0, none where it is not
        estimate = np.floor(enter * reach / LATTICE)
        estimate[np.isnan(estimate)] = 0.0
        for offset in (3, 2, 1, 0, -1, -2):  # the smallest candidate that stops wins
            k = np.maximum(1, estimate + offset)
            stop = np.where(k * LATTICE / reach >= enter, k, stop)
    return np.minimum(stop, limit)


def sights(grid: NavGrid, boxes: list[Box], agent: AgentState, oracle: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """For each box, whether the agent `sees` it and whether it `oracle_sees` it from where it stands: the
    same answers (the same lines of sight in the same groups), every box's lines traced at once. Without
    `oracle`, only the first (the second all False)."""
    return sights_many(grid, [(boxes, agent, oracle)])[0]


def sights_many(
    grid: NavGrid, ends: Sequence[tuple[Sequence[Box], AgentState, bool]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`sights` at many ends in one grid ((boxes, agent, oracle) each), every end's lines traced at once: each
    end's lines in the same groups as alone (a group's longest line sets how far its lines are sampled), so
    the same answers, for one pass over all of them."""
    keys, points, cameras, footprints = [], [], [], []
    widest = max([len(boxes) for boxes, _, _ in ends], default=0)
    by_set: dict[tuple[Box, ...], list[int]] = {}
    for end, (boxes, _, _) in enumerate(ends):
        by_set.setdefault(tuple(boxes), []).append(end)
    for boxes, members in by_set.items():
        if not boxes:
            continue
        fine, fine_box, coarse, coarse_box, coarse_kind, corners = _goal_points(boxes)
        poses = np.array([(a.x, a.z, a.yaw, a.horizon) for a in (ends[end][1] for end in members)])
        seen = _frames(grid, fine, poses)  # (ends, points)
        oracle = np.array([ends[end][2] for end in members])
        oracle_seen = np.zeros((len(members), len(coarse)), dtype=bool)
        if oracle.any():
            oracle_seen[oracle] = _oracle_framed(grid, poses[oracle, :2], coarse)
        at = np.array(members)
        for framed, table, box, kind in ((seen, fine, fine_box, None), (oracle_seen, coarse, coarse_box, coarse_kind)):
            end, point = np.nonzero(framed)
            box_of = box[point]
            keys.append((at[end] * widest + box_of) * 3 + (0 if kind is None else kind[point]))
            points.append(table[point])
            cameras.append(poses[end, :2])
            footprints.append(corners[box_of])
    if not keys:
        return [(np.zeros(len(b), dtype=bool), np.zeros(len(b), dtype=bool)) for b, _, _ in ends]
    key = np.concatenate(keys)
    order = np.argsort(key, kind="stable")  # each end's box's sees, first oracle and other oracle lines together
    key = key[order]
    segment = np.flatnonzero(np.diff(key, prepend=-1))  # where each (end, box, kind) starts
    rank = np.arange(len(key)) - np.repeat(segment, np.diff(np.append(segment, len(key))))
    starts = np.flatnonzero((rank % PAIRS) == 0)  # _groups' groups: PAIRS lines at most
    owner = key // 3 * 2 + (key % 3 > 0)  # sees and oracle_sees of each end's box
    lines = [np.concatenate(part)[order] for part in (footprints, cameras, points)]
    clear = _clear(grid, *lines, starts, owner)
    found = np.zeros(2 * widest * len(ends), dtype=bool)
    found[owner[clear]] = True
    found = found.reshape(len(ends), widest, 2)
    return [(found[e, : len(b), 0], found[e, : len(b), 1]) for e, (b, _, _) in enumerate(ends)]


@functools.lru_cache(maxsize=1024)
def _goal_points(boxes: tuple[Box, ...]) -> tuple[np.ndarray, ...]:
    """A goal set's fine points and each one's box, its coarse points, each one's box and line kind (1: the
    first pass's, every FIRST_PASS-th of its box; 2: the others), and the boxes' footprints (`_footprints`)."""
    fine = [surface_points(b) for b in boxes]
    coarse = [surface_points(b, fine=False) for b in boxes]
    few = [np.arange(len(c)) % FIRST_PASS == 0 for c in coarse]
    fine_box = np.repeat(np.arange(len(boxes)), [len(f) for f in fine])
    coarse_box = np.repeat(np.arange(len(boxes)), [len(c) for c in coarse])
    coarse_kind = np.where(np.concatenate(few), 1, 2)
    corners = _footprints(list(boxes), [1] * len(boxes))
    return np.concatenate(fine), fine_box, np.concatenate(coarse), coarse_box, coarse_kind, corners


def _frames(grid: NavGrid, points: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """(poses, points): `in_frame` for each pose ((N, 4) x, z, yaw, horizon)."""
    eyes = np.column_stack([poses[:, 0], np.full(len(poses), grid.embodiment.camera_height), poses[:, 1]])
    yaw, horizon = poses[:, 2:3], poses[:, 3:4]
    return _framed(grid, *_camera_frame(points[None, :, :] - eyes[:, None, :], yaw, horizon))


def _from(x: float, z: float, count: int) -> np.ndarray:
    return np.broadcast_to(np.array([x, z]), (count, 2))


def sees(grid: NavGrid, box: Box, agent: AgentState) -> bool:
    """Whether any pixel of the object is in the frame the agent's camera takes now (strict visibility)."""
    points = surface_points(box)
    framed = points[in_frame(points, agent.x, agent.z, agent.yaw, agent.horizon, grid)]
    return bool(clear_lines(grid, box, _from(agent.x, agent.z, len(framed)), framed).any())


def seeing_orientations(grid: NavGrid, box: Box, x: float, z: float) -> dict[tuple[int, int], int]:
    """Every (yaw, horizon) the embodiment can take at (x, z) from which it sees the object, with how many
    of the box's points it sees from there (more: the object fuller in the frame)."""
    e = grid.embodiment
    points = surface_points(box)
    points = points[clear_lines(grid, box, _from(x, z, len(points)), points)]
    if len(points) == 0:
        return {}
    counts = {
        (yaw, horizon): int(in_frame(points, x, z, yaw, horizon, grid).sum())
        for yaw in e.yaws
        for horizon in e.horizons
    }
    return {o: n for o, n in counts.items() if n > 0}


def oracle_sees_from(grid: NavGrid, box: Box, cameras: np.ndarray) -> np.ndarray:
    """Oracle visibility from many positions ((N, 2) x, z) at once: the object is seen after turning and
    pitching the camera in place. Tests the box's coarse points, each with the yaw nearest its bearing and
    every horizon, so whatever it accepts `seeing_orientations` (all yaws, fine points) accepts too.
    A first pass tries a few of the points, the second the rest from the positions still unseen: the
    same answer, for a fraction of the lines of sight."""
    points = surface_points(box, fine=False)
    seen = np.zeros(len(cameras), dtype=bool)
    few = np.zeros(len(points), dtype=bool)
    few[::FIRST_PASS] = True
    for subset in (few, ~few):
        unseen = np.flatnonzero(~seen)
        for start in range(0, len(unseen), BATCH):
            block = unseen[start : start + BATCH]
            camera, point = np.nonzero(_oracle_framed(grid, cameras[block], points[subset]))
            clear = clear_lines(grid, box, cameras[block][camera], points[subset][point])
            seen[block[np.unique(camera[clear])]] = True
    return seen


def _oracle_framed(grid: NavGrid, cameras: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(N, K): whether each point is in the frame of some horizon, the camera turned to the yaw nearest it."""
    e = grid.embodiment
    eyes = np.stack([cameras[:, 0], np.full(len(cameras), e.camera_height), cameras[:, 1]], axis=1)
    d = points[None, :, :] - eyes[:, None, :]
    yaw = _sin_cos((np.rint(np.degrees(np.arctan2(d[..., 0], d[..., 2])) / e.turn) * e.turn) % 360)
    framed = np.zeros(d.shape[:2], dtype=bool)
    for horizon in e.horizons:
        framed |= _framed(grid, *_rotated(d, yaw, _sin_cos(horizon)), margin=MARGIN)
    return framed


def oracle_sees(grid: NavGrid, box: Box, x: float, z: float) -> bool:
    """Oracle visibility from one position (see `oracle_sees_from`)."""
    return bool(oracle_sees_from(grid, box, np.array([[x, z]]))[0])
