"""Continuous geodesic distances on the navigable area, as habitat's `geodesic_distance` measures them:
the length of the shortest path a point-sized walker may take between two points of the navigable area,
whatever the robot's own moves (those stay on the lattice of `navgrid`, the motion model).

The navigable area is the floor minus the obstacles, shrunk by the robot's radius. Obstacles are read off
the lattice exactly as navigability is: each rectangle of non-free lattice points (off the floor, or under
a wall or fixed object lower than the body) is the rectangle spanned by its lattice points, so the distance
from a lattice point to their union is the lattice's own clearance (`NavGrid`'s distance transform). Each
rectangle is grown by the radius, round its corners by a regular SIDES-gon inscribed in the body's disk
(its straight sides are exactly `radius` away; its corner arcs are cut by chords at most
radius * (1 - cos(pi / SIDES)) = 3.5 mm short for LoCoBot's 0.18 m). The navigable area is the plane minus
these convex polygons: polygonal, so shortest paths bend only at the polygons' corners, and every
navigable lattice point lies in it (a point more than `radius` from every obstacle is outside every grown
polygon).

Distances are exact for this polygonal area: a visibility graph over the polygons' corners, edges only
between corners whose segment is tangent to both corners' polygons (a shortest path bends round a corner
only so) and crosses no polygon's interior; to a set of goal points (view points), a Dijkstra from all of
them at once gives every corner its distance, and a query point's distance is the least of
|p - a| + distance(a) over the corners and goal points `a` it sees. A segment may touch a polygon's
boundary: interiors are shrunk by EPS (1e-9 m), so rounding never blocks a path that grazes a corner.

What differs from an agent's own shortest walk: the lattice's moves are 0.25 m and 30 degrees apart, so
an agent's path is longer (`navgrid`'s move distances exceed these by up to 3.5 % on open floor, and by
up to a move's length near a goal); navigability is the lattice's largest component, and a gap the
lattice's moves cannot pass (narrower than the body plus a lattice step) may be passable here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from homesim.world.objectnav.navgrid import LATTICE, NavGrid

SIDES = 16  # corners of the polygon that stands in for the body's disk at an obstacle's corner
EPS = 1e-9  # metres: how far inside a polygon a segment must pass to be blocked
CHUNK = 4096  # segments tested at once
BATCHES = (16, 128, 1024)  # candidate anchors a query tests at once, then all the rest
QUERY_CELLS = 1 << 19  # queries times anchors a distance computation holds at once


def obstacle_rectangles(blocked: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Rectangles (i0, i1, j0, j1) of lattice indices, bounds included, whose union is exactly the True
    points of `blocked`: each grown first along j, then along i, from the first point not yet covered (they
    may overlap)."""
    todo = blocked.copy()
    flat = todo.reshape(-1)
    width = blocked.shape[1]
    rectangles, start = [], 0
    while True:
        found = int(np.argmax(flat[start:])) + start
        if not flat[found]:
            return rectangles
        start = found
        i, j = divmod(found, width)
        row = blocked[i, j:]
        j1 = j + (int(np.argmin(row)) if not row.all() else len(row)) - 1
        rows = blocked[i:, j : j1 + 1].all(axis=1)
        i1 = i + (int(np.argmin(rows)) if not rows.all() else len(rows)) - 1
        rectangles.append((i, i1, j, j1))
        todo[i : i1 + 1, j : j1 + 1] = False


def grown_rectangle(x0: float, z0: float, x1: float, z1: float, radius: float, sides: int = SIDES) -> np.ndarray:
    """(K, 2) the corners, counter-clockwise in (x, z), of the rectangle grown by a regular `sides`-gon of
    circumradius `radius` whose corners lie on the axes (so the grown sides are `radius` from the rectangle)."""
    if sides % 4:
        raise ValueError(f"sides={sides}: a multiple of 4, so the polygon has corners on both axes")
    angles = 2 * math.pi * np.arange(sides + 1) / sides
    offsets = radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    quarter = sides // 4
    corners = ((x1, z1), (x0, z1), (x0, z0), (x1, z0))  # the rectangle's corner each quarter turn grows from
    points = [np.array(c) + offsets[q * quarter : (q + 1) * quarter + 1] for q, c in enumerate(corners)]
    polygon = np.concatenate(points)
    keep = np.any(np.abs(polygon - np.roll(polygon, 1, axis=0)) > 1e-12, axis=1)  # a flat rectangle's repeats
    return polygon[keep]


class NavArea:
    """The polygonal navigable area of one scene for one embodiment and its visibility graph. Build with
    `nav_area(grid)`; distances to a set of points with `GoalDistance`."""

    def __init__(self, grid: NavGrid, sides: int = SIDES) -> None:
        self.grid = grid
        radius = grid.embodiment.radius
        self.radius = radius
        rectangles, polygons = [], []
        for i0, i1, j0, j1 in obstacle_rectangles(~grid.free):
            (x0, z0), (x1, z1) = grid.point(i0, j0), grid.point(i1, j1)
            rectangles.append((x0, z0, x1, z1))
            polygons.append(grown_rectangle(x0, z0, x1, z1, radius, sides))
        self.rectangles = np.array(rectangles, dtype=float)
        self.polygons = polygons
        most = max(len(p) for p in polygons)
        # each polygon as half-planes n . p <= c (outward unit normals), padded by repeating its first edge
        self.normals = np.zeros((len(polygons), most, 2))
        self.offsets = np.zeros((len(polygons), most))
        for k, p in enumerate(polygons):
            edge = np.roll(p, -1, axis=0) - p
            normal = np.stack([edge[:, 1], -edge[:, 0]], axis=1) / np.hypot(edge[:, 0], edge[:, 1])[:, None]
            pad = most - len(p)
            self.normals[k] = np.concatenate([normal, np.repeat(normal[:1], pad, axis=0)])
            self.offsets[k] = np.concatenate([(normal * p).sum(axis=1), np.repeat((normal[0] * p[0]).sum(), pad)])
        corners = np.concatenate(polygons)
        before = np.concatenate([np.roll(p, 1, axis=0) for p in polygons])
        after = np.concatenate([np.roll(p, -1, axis=0) for p in polygons])
        keep = self._in_free_space(corners)
        self.corners, self._before, self._after = corners[keep], before[keep], after[keep]
        self.graph = self._corner_graph()

    # --- geometry ------------------------------------------------------------------------------------------

    def _in_free_space(self, points: np.ndarray) -> np.ndarray:
        """Whether each point is on the navigable area's closure: its nearest lattice point is free (all
        else lies off the floor or outside the house) and it is inside no polygon."""
        i = np.rint(points[:, 0] / LATTICE).astype(np.int64) - self.grid.i0
        j = np.rint(points[:, 1] / LATTICE).astype(np.int64) - self.grid.j0
        inside_grid = (i >= 0) & (i < self.grid.shape[0]) & (j >= 0) & (j < self.grid.shape[1])
        ok = np.zeros(len(points), dtype=bool)
        ok[inside_grid] = self.grid.free[i[inside_grid], j[inside_grid]]
        for start in range(0, len(points), CHUNK):
            part = slice(start, start + CHUNK)
            depth = np.einsum("pmd,kd->kpm", self.normals, points[part]) - self.offsets[None]
            ok[part] &= ~(depth.max(axis=2) < -EPS).any(axis=1)
        return ok

    def blocked(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per segment a[k] -> b[k] ((K, 2) each), whether it passes through some polygon's interior."""
        result = np.zeros(len(a), dtype=bool)
        for start in range(0, len(a), CHUNK):
            part = slice(start, start + CHUNK)
            result[part] = self._blocked(a[part], b[part])
        return result

    def _blocked(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Four tests, cheapest first: the segment's bounding box against the rectangle grown by the radius as
        a square (which holds the polygon: a miss is a miss), then the segment itself against that square, then
        against the rectangle grown along one axis only (which the polygon holds: a hit is a hit), then, for
        what is left, the polygon's own edges."""
        (x0, z0, x1, z1), r = self.rectangles.T, self.radius
        low, high = np.minimum(a, b), np.maximum(a, b)
        near = (low[:, None, 0] <= x1 + r) & (high[:, None, 0] >= x0 - r)
        near &= (low[:, None, 1] <= z1 + r) & (high[:, None, 1] >= z0 - r)
        k, p = np.nonzero(near)
        square = _crosses(a[k], b[k], x0[p] - r, z0[p] - r, x1[p] + r, z1[p] + r, True)
        k, p = k[square], p[square]
        ak, bk = a[k], b[k]
        x0, z0, x1, z1 = x0[p], z0[p], x1[p], z1[p]
        sure = _crosses(ak, bk, x0 - r, z0, x1 + r, z1, True) | _crosses(ak, bk, x0, z0 - r, x1, z1 + r, True)
        hit = sure.copy()
        k_left, p_left = np.nonzero(~sure)[0], p[~sure]
        normals = self.normals[p_left]
        start = np.einsum("pmd,pd->pm", normals, ak[k_left]) - self.offsets[p_left] + EPS  # < 0: inside, shrunk
        rate = np.einsum("pmd,pd->pm", normals, bk[k_left] - ak[k_left])
        with np.errstate(divide="ignore", invalid="ignore"):
            t = -start / rate
        enter = np.maximum(np.where(rate < 0, t, -np.inf).max(axis=1), 0.0)
        leave = np.minimum(np.where(rate > 0, t, np.inf).min(axis=1), 1.0)
        never = ((rate == 0) & (start >= 0)).any(axis=1)
        hit[k_left] = (enter < leave) & ~never
        return np.bincount(k[hit], minlength=len(a)) > 0

    def tangent(self, corner: np.ndarray, toward: np.ndarray) -> np.ndarray:
        """Per pair (corner index, point), whether the line from the corner to the point leaves the corner's
        polygon on one side (both its neighbours on one side, or on the line): only then can a shortest path
        bend there."""
        c = self.corners[corner]
        d = toward - c
        side_before = _cross(d, self._before[corner] - c)
        side_after = _cross(d, self._after[corner] - c)
        return side_before * side_after >= -1e-15

    def _corner_graph(self):
        """The visibility graph between corners (CSR, metres), edges tangent at both ends."""
        from scipy.sparse import coo_matrix

        n = len(self.corners)
        src, dst = [], []
        for u, w in self._pairs(np.arange(n), self.corners, lambda u, w: w > u):
            ok = self.tangent(u, self.corners[w]) & self.tangent(w, self.corners[u])
            u, w = u[ok], w[ok]
            free = ~self.blocked(self.corners[u], self.corners[w])
            src.append(u[free])
            dst.append(w[free])
        src, dst = (np.concatenate(x) if x else np.zeros(0, dtype=np.int64) for x in (src, dst))
        length = np.hypot(*(self.corners[src] - self.corners[dst]).T)
        return coo_matrix((length, (src, dst)), shape=(n, n)).tocsr()

    @staticmethod
    def _pairs(corners: np.ndarray, points: np.ndarray, wanted=None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(corner, point index) pairs in blocks of about CHUNK * 64."""
        rows = max(1, CHUNK * 64 // max(1, len(points)))
        for start in range(0, len(corners), rows):
            u, w = np.meshgrid(corners[start : start + rows], np.arange(len(points)), indexing="ij")
            u, w = u.ravel(), w.ravel()
            if wanted is not None:
                keep = wanted(u, w)
                u, w = u[keep], w[keep]
            yield u, w


class GoalDistance:
    """The geodesic distance from any point of the navigable area to the nearest of `points` ((N, 2) x, z,
    on the navigable area): `distance(x, z)`, inf where none can be reached."""

    def __init__(self, area: NavArea, points: np.ndarray) -> None:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import dijkstra

        self.area, self.points = area, np.asarray(points, dtype=float).reshape(-1, 2)
        n = len(area.corners)
        first = np.full(n, np.inf)  # each corner's straight-line distance to the nearest goal point it sees
        for u, g in area._pairs(np.arange(n), self.points):
            ok = area.tangent(u, self.points[g])
            u, g = u[ok], g[ok]
            free = ~area.blocked(area.corners[u], self.points[g])
            length = np.hypot(*(area.corners[u[free]] - self.points[g[free]]).T)
            np.minimum.at(first, u[free], length)
        # one more node, the goal set, joined to every corner that sees a point of it
        reached = np.nonzero(np.isfinite(first))[0]
        corners = area.graph.tocoo()
        graph = coo_matrix(
            (
                np.concatenate([corners.data, np.maximum(first[reached], 1e-12)]),
                (np.concatenate([corners.row, np.full(len(reached), n)]), np.concatenate([corners.col, reached])),
            ),
            shape=(n + 1, n + 1),
        ).tocsr()
        self.corner_distance = dijkstra(graph, directed=False, indices=n)[:n]
        # what a query may go straight to: a goal point (0 further) or a corner a path leaves from
        self._reached = np.nonzero(np.isfinite(self.corner_distance))[0]
        self._anchors = np.concatenate([self.points, area.corners[self._reached]])
        self._via = np.concatenate([np.zeros(len(self.points)), self.corner_distance[self._reached]])
        self._known: dict[tuple[float, float], float] = {}  # off the lattice's nodes
        self._at_nodes: np.ndarray | None = None  # at each node of the grid (NaN: not yet computed)

    def distance(self, x: float, z: float) -> float:
        """Metres from (x, z) to the nearest goal point along the navigable area (inf: none is reachable);
        kept per point, as agents come back to where they were (at a lattice node, in `node_distances`'s
        table, which the batched env fills too)."""
        node = self.area.grid.node_at(x, z)
        if node >= 0:
            known = self.at_nodes()[node]
            return float(known if known == known else self.node_distances(np.array([node]))[0])  # NaN: unknown
        known = self._known.get((x, z))
        if known is None:
            known = self._known[(x, z)] = float(self.distances(np.array([[x, z]], dtype=float))[0])
        return known

    def at_nodes(self) -> np.ndarray:
        """The table of distances at the grid's nodes (`NavGrid.node_moves`), NaN where none was asked yet."""
        if self._at_nodes is None:
            self._at_nodes = np.full(len(self.area.grid.node_moves()[0]), np.nan)
        return self._at_nodes

    def node_distances(self, nodes: np.ndarray) -> np.ndarray:
        """`distance` at the grid's `nodes`, those not yet in the table computed at once (`distances`) and kept."""
        table = self.at_nodes()
        values = table[nodes]
        unknown = np.isnan(values)
        if unknown.any():
            todo = np.unique(nodes[unknown])
            grid = self.area.grid
            lattice = grid.node_moves()[0][todo] + (grid.i0, grid.j0)
            table[todo] = self.distances(lattice * LATTICE)
            values = table[nodes]
        return values

    def distances(self, queries: np.ndarray) -> np.ndarray:
        """`distance` at each of (Q, 2) points (not kept), many at once: each query's value is computed by the
        same operations whatever the others, so it is `distance`'s to the bit."""
        queries = np.asarray(queries, dtype=float).reshape(-1, 2)
        result = np.empty(len(queries))
        rows = max(1, QUERY_CELLS // max(1, len(self._anchors)))
        for start in range(0, len(queries), rows):
            result[start : start + rows] = self._many(queries[start : start + rows])
        return result

    def _many(self, p: np.ndarray) -> np.ndarray:
        """The least |p - a| + distance(a) over the anchors `a` each query sees, tried nearest total first
        (a few segment tests settle most queries); a corner counts only where the line to it is tangent."""
        area, anchors, first = self.area, self._anchors, len(self.points)
        total = np.hypot(anchors[None, :, 0] - p[:, 0:1], anchors[None, :, 1] - p[:, 1:2]) + self._via
        shape = (len(p), len(self._reached))
        tangent = area.tangent(np.broadcast_to(self._reached, shape), np.broadcast_to(p[:, None, :], (*shape, 2)))
        total[:, first:][~tangent] = math.inf
        result, rows, cut = np.full(len(p), math.inf), np.arange(len(p)), BATCHES[0]
        if cut < len(anchors):  # each query's `cut` least totals, in any order: most queries see one of them
            candidates = np.argpartition(total, cut - 1, axis=1)[:, :cut]
            rows = rows[self._settle(p, rows, candidates, np.take_along_axis(total, candidates, axis=1), result)]
        if len(rows):  # the others in order of total, from the first (ties at the cut are tried again)
            order = np.argsort(total[rows], axis=1, kind="stable")
            ranked = np.take_along_axis(total[rows], order, axis=1)
            left, start = np.arange(len(rows)), 0
            for size in (*BATCHES, len(anchors)):
                if not len(left) or start >= len(anchors):
                    break
                batch = slice(start, start + size)
                left = left[self._settle(p, rows[left], order[left, batch], ranked[left, batch], result)]
                start += size
        return result

    def _settle(
        self, p: np.ndarray, rows: np.ndarray, candidates: np.ndarray, totals: np.ndarray, result: np.ndarray
    ) -> np.ndarray:
        """Tests the queries' candidate anchors ((R, C) indices, their totals): where some are seen, the least
        of their totals is the query's result (no other candidate has less). Which rows are left unsettled (none
        seen, and anchors of finite total may remain)."""
        i, j = np.nonzero(np.isfinite(totals))
        free = np.zeros(totals.shape, dtype=bool)
        free[i, j] = ~self.area.blocked(p[rows[i]], self._anchors[candidates[i, j]])
        found = free.any(axis=1)
        result[rows[found]] = np.where(free[found], totals[found], math.inf).min(axis=1)
        return ~found & np.isfinite(totals.max(axis=1, initial=-math.inf))


def _crosses(a, b, x0, z0, x1, z1, paired: bool = False) -> np.ndarray:
    """Whether segments a -> b pass through the open boxes [x0, x1] x [z0, z1] shrunk by EPS (Liang and
    Barsky's clipping): (K, P) for every segment and box, or (K,) for segment k and box k when `paired`."""
    if not paired:
        a, b = a[:, None, :], b[:, None, :]
    enter = np.zeros(np.broadcast_shapes(a.shape[:-1], np.shape(x0)))
    leave = np.ones_like(enter)
    for axis, lo, hi in ((0, x0 + EPS, x1 - EPS), (1, z0 + EPS, z1 - EPS)):
        start, rate = a[..., axis], b[..., axis] - a[..., axis]
        with np.errstate(divide="ignore", invalid="ignore"):
            t1, t2 = (lo - start) / rate, (hi - start) / rate
        still = rate == 0
        inside = (lo < start) & (start < hi)
        near = np.where(still, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
        far = np.where(still, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
        enter, leave = np.maximum(enter, near), np.minimum(leave, far)
    return enter < leave


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def nav_area(grid: NavGrid) -> NavArea:
    """The grid's navigable area as polygons with its visibility graph, built once per scene and embodiment."""
    key = ("nav_area", grid.embodiment)
    area = grid.scene.pose_visibility.get(key)
    if area is None:
        area = grid.scene.pose_visibility[key] = NavArea(grid)
    return area
