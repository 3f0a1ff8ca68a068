"""Where a robot of a given radius can be, how it moves, and how far it is from anywhere: ObjectNav's
motion on a fine lattice.

The choice: positions lie on a lattice of LATTICE = 1/32 m (exact binary fractions, so poses and files
are exact), yaw is a multiple of the embodiment's turn (30 degrees), and MOVE_FORWARD moves by the lattice
vector nearest `forward` along the yaw: (0, 8) lattice steps = 0.25 m along the axes, (4, 7) = 0.2519 m at
29.74 degrees on the diagonals (0.8 % long, 0.26 degrees off). Navigable is measured on the same lattice
(obstacles known to half a lattice step, 1.6 cm). A move is allowed when its start, its end and the lattice
points along it (every 2 lattice steps at most) are navigable; otherwise nothing moves (no sliding).

Everything a step needs is precomputed per (scene, embodiment), so a step is a few array look-ups.
`distance_field` gives the shortest path along the agent's own moves (Dijkstra on the 12-neighbour lattice
graph, exact move lengths): what the expert walks by, as an optimal agent's path length equals it. On open
floor it exceeds the straight line by up to 1/cos(15 deg) - 1 = 3.5 %, and near a goal by up to a few moves
(a point 3 cm from a view point may be 0.25-0.75 m from it by moves), so the measures use habitat's continuous
geodesic distance instead (`geodesic`, which reads its obstacles off `free`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from homesim.world.objectnav.embodiment import Embodiment
from homesim.world.scene import GRID_SIZE, Box, Scene
from homesim.world.state import AgentState

LATTICE = 1 / 32  # metres between lattice points
ACTIONS = ("STOP", "MOVE_FORWARD", "TURN_LEFT", "TURN_RIGHT", "LOOK_UP", "LOOK_DOWN")  # habitat's, in its order
MARGIN = 1.0  # metres of lattice kept round the scene's extent


@dataclass(frozen=True)
class NavEvent:
    """What an ObjectNav action did; a failed action (a blocked move, a look past the limit) changes nothing."""

    action: str
    success: bool
    message: str = ""
    collided: bool = False


def _extent(scene: Scene) -> tuple[float, float, float, float]:
    xs, zs = [], []
    for box in (*scene.walls, *(f.box for f in scene.fixed.values())):
        xs += [box.lo[0], box.hi[0]]
        zs += [box.lo[2], box.hi[2]]
    for r in scene.rooms:
        xs += [r.x0, r.x1]
        zs += [r.z0, r.z1]
    for ix, iz in scene.reachable:
        xs.append(ix * GRID_SIZE)
        zs.append(iz * GRID_SIZE)
    return min(xs) - MARGIN, min(zs) - MARGIN, max(xs) + MARGIN, max(zs) + MARGIN


class NavGrid:
    """The lattice of one scene for one embodiment: navigable points, allowed moves, an obstacle height map
    (for lines of sight) and the move graph for distances. Build with `nav_grid(scene, embodiment)`."""

    def __init__(self, scene: Scene, embodiment: Embodiment) -> None:
        self.scene, self.embodiment = scene, embodiment
        x0, z0, x1, z1 = _extent(scene)
        self.i0, self.j0 = math.floor(x0 / LATTICE), math.floor(z0 / LATTICE)
        self.shape = (math.ceil(x1 / LATTICE) - self.i0 + 1, math.ceil(z1 / LATTICE) - self.j0 + 1)
        xs = (np.arange(self.shape[0]) + self.i0) * LATTICE
        zs = (np.arange(self.shape[1]) + self.j0) * LATTICE
        self.xs, self.zs = xs, zs
        self.low, self.high = self._height_map()
        from scipy import ndimage  # scipy is imported where used: 0.3-0.7 s that processes without grids skip

        # free: on the floor and under no obstacle the body meets (`geodesic` reads the obstacles off it)
        self.free = self._floor() & ~(self.low < embodiment.body_height)
        clearance = ndimage.distance_transform_edt(self.free) * LATTICE
        navigable = self.free & (clearance > embodiment.radius)
        self.steps = tuple(self._step_vector(yaw) for yaw in embodiment.yaws)
        self.step_length = tuple(math.hypot(*v) * LATTICE for v in self.steps)
        self.navigable = self._largest_component(navigable)
        self.can_move = np.stack([self._moves(v, self.navigable) for v in self.steps])
        self._graph = None  # the move graph, built at the first distance query
        self._nodes = None  # the move table, built when many poses are stepped at once

    # --- building ----------------------------------------------------------------------------------------

    def _cells(self, box_lo_x: float, box_lo_z: float, box_hi_x: float, box_hi_z: float) -> tuple[slice, slice]:
        """The lattice points inside a floor rectangle (edges included)."""
        i = slice(
            max(0, math.ceil(box_lo_x / LATTICE - 1e-9) - self.i0), math.floor(box_hi_x / LATTICE + 1e-9) - self.i0 + 1
        )
        j = slice(
            max(0, math.ceil(box_lo_z / LATTICE - 1e-9) - self.j0), math.floor(box_hi_z / LATTICE + 1e-9) - self.j0 + 1
        )
        return i, j

    def _floor(self) -> np.ndarray:
        """A house's rooms and doorways, or a single room's reachable 0.25 m cells (whose data already
        keeps the walls at the original agent's distance)."""
        floor = np.zeros(self.shape, dtype=bool)
        if self.scene.rooms:
            for r in self.scene.rooms:
                floor[self._cells(r.x0, r.z0, r.x1, r.z1)] = True
            for d in self.scene.doorways:
                floor[self._cells(d.lo[0], d.lo[2], d.hi[0], d.hi[2])] = True
        else:
            h = GRID_SIZE / 2
            for ix, iz in self.scene.reachable:
                x, z = ix * GRID_SIZE, iz * GRID_SIZE
                floor[self._cells(x - h, z - h, x + h, z + h)] = True
        return floor

    def _height_map(self) -> tuple[np.ndarray, np.ndarray]:
        """Per lattice point, the lowest bottom and highest top of the walls and fixed objects over it
        (inf / -inf where there are none): an obstacle column, for the body and for lines of sight."""
        low = np.full(self.shape, np.inf)
        high = np.full(self.shape, -np.inf)
        for box in (*self.scene.walls, *(f.box for f in self.scene.fixed.values())):
            cells = self._cells(box.lo[0], box.lo[2], box.hi[0], box.hi[2])
            np.minimum(low[cells], box.lo[1], out=low[cells])
            np.maximum(high[cells], box.hi[1], out=high[cells])
        return low, high

    def _step_vector(self, yaw: int) -> tuple[int, int]:
        n = self.embodiment.forward / LATTICE
        return round(n * math.sin(math.radians(yaw))), round(n * math.cos(math.radians(yaw)))

    @staticmethod
    def _samples(v: tuple[int, int]) -> list[tuple[int, int]]:
        """The lattice points a move by v passes (both roundings of each point along it, so a move and
        its reverse test the same points), start excluded."""
        count = max(2, math.ceil(max(abs(v[0]), abs(v[1])) / 2))
        points = set()
        for k in range(1, count + 1):
            fx, fz = v[0] * k / count, v[1] * k / count
            points |= {(a, b) for a in {math.floor(fx), math.ceil(fx)} for b in {math.floor(fz), math.ceil(fz)}}
        return sorted(points)

    @staticmethod
    def _shifted(a: np.ndarray, di: int, dj: int) -> np.ndarray:
        """b[i, j] = a[i + di, j + dj], False outside."""
        b = np.zeros_like(a)
        n, m = a.shape
        b[max(0, -di) : n - max(0, di), max(0, -dj) : m - max(0, dj)] = a[
            max(0, di) : n - max(0, -di), max(0, dj) : m - max(0, -dj)
        ]
        return b

    def _moves(self, v: tuple[int, int], navigable: np.ndarray) -> np.ndarray:
        ok = navigable.copy()
        for di, dj in self._samples(v):
            ok &= self._shifted(navigable, di, dj)
        return ok

    def _edges(self, navigable: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The moves between navigable points, each once (half the headings; the graph is undirected)."""
        index = np.full(self.shape, -1, dtype=np.int64)
        index[navigable] = np.arange(int(navigable.sum()))
        src, dst, weight = [], [], []
        for v, length in list(zip(self.steps, self.step_length))[: len(self.steps) // 2]:
            ok = self._moves(v, navigable)
            i, j = np.nonzero(ok)
            src.append(index[i, j])
            dst.append(index[i + v[0], j + v[1]])
            weight.append(np.full(len(i), length))
        return np.concatenate(src), np.concatenate(dst), np.concatenate(weight)

    def _largest_component(self, navigable: np.ndarray) -> np.ndarray:
        """Only the biggest part the robot can move around in: every navigable point reaches every other."""
        n = int(navigable.sum())
        if n == 0:
            raise ValueError(f"scene {self.scene.id}: no point is navigable for {self.embodiment.name}")
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        src, dst, _ = self._edges(navigable)
        graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
        _, labels = connected_components(graph, directed=False)
        keep = labels == np.bincount(labels).argmax()
        out = np.zeros(self.shape, dtype=bool)
        out[navigable] = keep
        return out

    def _move_graph(self):
        if self._graph is None:
            from scipy.sparse import coo_matrix

            n = int(self.navigable.sum())
            self._index = np.full(self.shape, -1, dtype=np.int64)
            self._index[self.navigable] = np.arange(n)
            src, dst, weight = self._edges(self.navigable)
            self._graph = coo_matrix((weight, (src, dst)), shape=(n, n)).tocsr()
        return self._graph

    # --- queries -----------------------------------------------------------------------------------------

    def index(self, x: float, z: float) -> tuple[int, int]:
        return round(x / LATTICE) - self.i0, round(z / LATTICE) - self.j0

    def point(self, i: int, j: int) -> tuple[float, float]:
        return (i + self.i0) * LATTICE, (j + self.j0) * LATTICE

    def inside(self, i: int, j: int) -> bool:
        return 0 <= i < self.shape[0] and 0 <= j < self.shape[1]

    def is_navigable(self, x: float, z: float) -> bool:
        i, j = self.index(x, z)
        return self.inside(i, j) and bool(self.navigable[i, j])

    def navigable_points(self, stride: int = 1) -> np.ndarray:
        """(N, 2) x, z of the navigable lattice points whose indices (from x = z = 0) are multiples of `stride`."""
        i, j = np.nonzero(self.navigable)
        keep = ((i + self.i0) % stride == 0) & ((j + self.j0) % stride == 0)
        return np.stack([(i[keep] + self.i0) * LATTICE, (j[keep] + self.j0) * LATTICE], axis=1)

    def distance_field(self, points: np.ndarray) -> np.ndarray:
        """Metres from every lattice point to the nearest of `points` ((N, 2) x, z on navigable lattice
        points) along the agent's moves; inf where none can be reached (and off the navigable area)."""
        field = np.full(self.shape, np.inf)
        if len(points) == 0:
            return field
        graph = self._move_graph()
        i = np.rint(points[:, 0] / LATTICE).astype(np.int64) - self.i0
        j = np.rint(points[:, 1] / LATTICE).astype(np.int64) - self.j0
        nodes = self._index[i, j]
        if (nodes < 0).any():
            bad = points[np.argmax(nodes < 0)]
            raise ValueError(f"({bad[0]:.3f}, {bad[1]:.3f}) is not a navigable lattice point of {self.scene.id}")
        from scipy.sparse.csgraph import dijkstra

        field[self.navigable] = dijkstra(graph, directed=False, indices=np.unique(nodes), min_only=True)
        return field

    def node_moves(self) -> tuple[np.ndarray, np.ndarray]:
        """The navigable points as nodes, (n, 2) lattice indices in row-major order, and (n, headings) the
        node MOVE_FORWARD reaches from each at each heading slot, the node itself where the move is blocked:
        `can_move` and `steps` as one table, for stepping many poses with array look-ups. Built once."""
        if self._nodes is None:
            i, j = np.nonzero(self.navigable)
            index = self._node_index = np.full(self.shape, -1, dtype=np.int64)
            own = index[i, j] = np.arange(len(i))
            targets = np.empty((len(i), len(self.steps)), dtype=np.int64)
            for k, (di, dj) in enumerate(self.steps):
                ok = self.can_move[k, i, j]  # the end of an allowed move is navigable, so it is a node
                targets[:, k] = np.where(ok, index[np.where(ok, i + di, i), np.where(ok, j + dj, j)], own)
            self._nodes = (np.stack([i, j], axis=1), targets)
        return self._nodes

    def node_at(self, x: float, z: float) -> int:
        """The node (`node_moves`) at exactly (x, z), -1 where that is no navigable lattice point."""
        self.node_moves()
        i, j = self.index(x, z)
        if not self.inside(i, j) or self.point(i, j) != (x, z):
            return -1
        return int(self._node_index[i, j])

    def geodesic(self, field: np.ndarray, x: float, z: float) -> float:
        """The distance field's value at a pose (inf off the lattice's navigable points)."""
        i, j = self.index(x, z)
        return float(field[i, j]) if self.inside(i, j) else math.inf


def nav_grid(scene: Scene, embodiment: Embodiment) -> NavGrid:
    """The scene's lattice for the embodiment, built once and kept with the scene's other lazy caches."""
    key = ("nav_grid", embodiment)
    grid = scene.pose_visibility.get(key)
    if grid is None:
        grid = scene.pose_visibility[key] = NavGrid(scene, embodiment)
    return grid


# The rules of a pose's motion, each a small function of plain numbers that works on numpy arrays too, so
# `nav_step` and the batched env (`envs.objectnav.vector`) share them; MOVE_FORWARD is `NavGrid.can_move`
# (one pose) or `NavGrid.node_moves` (its table, for arrays of poses).
TURN_SIGN = {"TURN_LEFT": -1, "TURN_RIGHT": 1}
LOOK_SIGN = {"LOOK_UP": -1, "LOOK_DOWN": 1}  # + looks down


def heading(embodiment: Embodiment, yaw):
    """The heading slot of a yaw (degrees): which of `NavGrid.steps` MOVE_FORWARD takes."""
    return (yaw // embodiment.turn) % len(embodiment.yaws)


def turned(embodiment: Embodiment, yaw, sign):
    """The yaw after a turn right (sign 1), left (-1) or none (0), in [0, 360)."""
    return (yaw + sign * embodiment.turn) % 360


def pitched(embodiment: Embodiment, horizon, sign):
    """The camera pitch after a look down (sign 1), up (-1) or none (0), and whether the camera allows it."""
    after = horizon + sign * embodiment.look
    return after, (embodiment.horizon_min <= after) & (after <= embodiment.horizon_max)


def pitch_limit_message(embodiment: Embodiment) -> str:
    return f"the camera pitch stays in [{embodiment.horizon_min}, {embodiment.horizon_max}]"


def blocked_message(yaw: int) -> str:
    return f"blocked: no room to move at yaw {yaw}"


def nav_step(grid: NavGrid, agent: AgentState, action: str) -> tuple[AgentState, NavEvent]:
    """One ObjectNav action from a pose: pure and O(1). STOP changes nothing (the task ends the episode)."""
    e = grid.embodiment
    if action == "MOVE_FORWARD":
        k = heading(e, agent.yaw)
        i, j = grid.index(agent.x, agent.z)
        if not (grid.inside(i, j) and grid.can_move[k, i, j]):
            return agent, NavEvent(action, False, blocked_message(agent.yaw), collided=True)
        di, dj = grid.steps[k]
        x, z = grid.point(i + di, j + dj)
        return AgentState(x, z, agent.yaw, agent.horizon, agent.held), NavEvent(action, True)
    if action in TURN_SIGN:
        yaw = turned(e, agent.yaw, TURN_SIGN[action])
        return AgentState(agent.x, agent.z, yaw, agent.horizon, agent.held), NavEvent(action, True)
    if action in LOOK_SIGN:
        horizon, allowed = pitched(e, agent.horizon, LOOK_SIGN[action])
        if not allowed:
            return agent, NavEvent(action, False, pitch_limit_message(e))
        return AgentState(agent.x, agent.z, agent.yaw, horizon, agent.held), NavEvent(action, True)
    if action == "STOP":
        return agent, NavEvent(action, True)
    raise ValueError(f"unknown ObjectNav action {action!r}; the actions are {', '.join(ACTIONS)}")


def surface_distance(box: Box, x: float, z: float) -> float:
    """Metres on the floor plan from (x, z) to the box (0 over it): how close the robot is to an object,
    whatever its height (habitat measures from the agent's floor position too, in 3D)."""
    dx = max(box.lo[0] - x, 0.0, x - box.hi[0])
    dz = max(box.lo[2] - z, 0.0, z - box.hi[2])
    return math.hypot(dx, dz)
