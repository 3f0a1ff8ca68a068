"""What a robot's camera sees of an object, from geometry alone: ObjectNav's visibility.

An object is seen when some point of its box is inside the camera's pinhole frame (the embodiment's
horizontal field of view, the vertical one its image's aspect ratio gives, any distance: the renderer
draws everything and only clips depth readings) and the line of sight to that point reaches the box's
footprint without passing through an obstacle column of the nav grid's height map (walls and fixed
objects, each from its bottom to its top). Such a ray then hits the box itself, so "at least one pixel of
the object in the frame" holds. Small movable objects do not occlude. Unlike ALFRED's interaction
visibility (`geometry`), there is no 1.5 m reach and walls hide what is behind them.

Lines of sight are traced in rounds of samples, each dropping the lines found blocked (most end at a wall
early); an episode's end asks about every goal instance at once (`sights`, what the criteria read): the same
lines, the same answers as asking box by box (`sees`, `oracle_sees`), for fewer passes.
"""

from __future__ import annotations

import functools
import math

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
FIRST_SAMPLES = 32  # samples per line in a line of sight's first round; each next round takes twice as many


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


def _camera_frame(d: np.ndarray, yaw, horizon) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets from the camera (..., 3) as forward, right and up of a camera turned to yaw and pitched down
    by horizon (degrees, scalars or arrays broadcasting with the offsets' leading shape)."""
    sy, cy = np.sin(np.radians(yaw)), np.cos(np.radians(yaw))
    sh, ch = np.sin(np.radians(horizon)), np.cos(np.radians(horizon))
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
    # group's longest line needs: the same for a line whatever other groups are tested with it. Taken in
    # rounds of growing length, each dropping the lines found blocked or past their last sample: most lines
    # end at a wall long before the longest one.
    length = np.hypot(dx, dz)
    counts = np.maximum(1, np.maximum.reduceat(np.ceil(length * enter / LATTICE), starts))
    limit = np.repeat(counts, np.diff(np.append(starts, len(points))))
    low, high, width = grid.low.ravel(), grid.high.ravel(), grid.shape[1]
    clear = np.zeros(len(points), dtype=bool)

    def trace(live: np.ndarray) -> None:
        clear[live] = True
        start, size = 0, FIRST_SAMPLES
        while len(live):
            k = np.arange(start, start + size)
            reach = length[live, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(reach > 0, k * LATTICE / reach, 0.0)
            wanted = ((t < enter[live, None]) | (k == 0)) & (k < limit[live, None])
            i = np.rint((x[live, None] + t * dx[live, None]) / LATTICE).astype(np.int64) - grid.i0
            j = np.rint((z[live, None] + t * dz[live, None]) / LATTICE).astype(np.int64) - grid.j0
            sy = h + t * dy[live, None]
            inside = wanted & (i >= 0) & (i < grid.shape[0]) & (j >= 0) & (j < grid.shape[1])
            cell = np.where(inside, i * width + j, 0)
            blocked = (inside & (low[cell] <= sy) & (sy <= high[cell])).any(axis=1)
            clear[live[blocked]] = False
            live = live[~blocked & wanted[:, -1]]  # `wanted` is a prefix of each line's samples
            start, size = start + size, 2 * size

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


def sights(grid: NavGrid, boxes: list[Box], agent: AgentState, oracle: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """For each box, whether the agent `sees` it and whether it `oracle_sees` it from where it stands: the
    same answers (the same lines of sight in the same groups), every box's lines traced at once. Without
    `oracle`, only the first (the second all False)."""
    if not boxes:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    fine = [surface_points(b) for b in boxes]
    coarse = [surface_points(b, fine=False) for b in boxes]
    framed = _split(in_frame(np.concatenate(fine), agent.x, agent.z, agent.yaw, agent.horizon, grid), fine)
    every = np.concatenate(coarse)
    if oracle:
        oracle_framed = _split(_oracle_framed(grid, np.array([[agent.x, agent.z]]), every)[0], coarse)
    else:
        oracle_framed = _split(np.zeros(len(every), dtype=bool), coarse)
    lines, owners = [], []  # sees' lines, then the oracle's two passes, of each box
    for b, (points, seen, coarse_points, oracle_seen) in enumerate(zip(fine, framed, coarse, oracle_framed)):
        few = np.zeros(len(coarse_points), dtype=bool)
        few[::FIRST_PASS] = True
        lines += [points[seen], coarse_points[few & oracle_seen], coarse_points[~few & oracle_seen]]
        owners += [(b, 0), (b, 1), (b, 1)]
    sizes = [len(p) for p in lines]
    points = np.concatenate(lines)
    footprints = _footprints([boxes[b] for b, _ in owners], sizes)
    owner = np.repeat([2 * b + kind for b, kind in owners], sizes)  # sees and oracle_sees of each box
    clear = _clear(grid, footprints, _from(agent.x, agent.z, len(points)), points, _groups(sizes), owner)
    found = np.zeros(2 * len(boxes), dtype=bool)
    found[owner[clear]] = True
    return found[0::2], found[1::2]


def _split(values: np.ndarray, parts: list[np.ndarray]) -> list[np.ndarray]:
    """values cut into pieces as long as each of parts."""
    return np.split(values, np.cumsum([len(p) for p in parts])[:-1])


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
    yaw = (np.rint(np.degrees(np.arctan2(d[..., 0], d[..., 2])) / e.turn) * e.turn) % 360
    framed = np.zeros(d.shape[:2], dtype=bool)
    for horizon in e.horizons:
        framed |= _framed(grid, *_camera_frame(d, yaw, horizon), margin=MARGIN)
    return framed


def oracle_sees(grid: NavGrid, box: Box, x: float, z: float) -> bool:
    """Oracle visibility from one position (see `oracle_sees_from`)."""
    return bool(oracle_sees_from(grid, box, np.array([[x, z]]))[0])
