"""How the fixed objects of a scene are drawn from their extents.

Imported extents are rough (class-sized boxes, grown to cover what the planner took from them), and the
engine's visibility has no occlusion, so drawing them as plain solid boxes would hide what the engine
sees: a wall cabinet's box can hold the camera, a counter top's box covers its sink basin. So:

* every box is cut back clear of the places the agent stands (below its head), keeping the object's
  own position;
* a box that houses another (a dresser round its drawers) is a shell;
* a counter top (or sink) a basin is sunk into has a hole there;
* each object's front (where shells open) is the side its use pose, or the nearest standing place, is on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from homesim.render.meshes import BOX, CLASS_SHAPES, SHELLS
from homesim.world.catalog import Catalog
from homesim.world.scene import GRID_SIZE, Box, FixedObject, Scene

STANDING_CLEARANCE = 0.1  # metres kept free of fixed boxes around each place the agent can stand
MIN_PART = 0.02  # metres: thinner parts of a cut box are left out
BASIN_RIM = 0.1  # metres a basin's rim may be off the extent of what it is sunk into


@dataclass(frozen=True)
class FixedLook:
    """What a fixed object looks like: the boxes it is drawn as, its shape shut and open."""

    parts: tuple[Box, ...]
    shut_shape: str
    open_shape: str


def standing_points(scene: Scene) -> np.ndarray:
    """(N, 2) x, z of the reachable cells: where the agent, and its camera, can be."""
    return np.array(sorted(scene.reachable), dtype=float).reshape(-1, 2) * GRID_SIZE


def volume(box: Box) -> float:
    return float(np.prod([hi - lo for lo, hi in zip(box.lo, box.hi)]))


def holds_point(box: Box, point) -> bool:
    """Inside or on the box (the engine puts things on their receptacle's boundary)."""
    return all(lo <= p <= hi for lo, p, hi in zip(box.lo, point, box.hi))


def centre(box: Box) -> tuple[float, float, float]:
    return tuple((lo + hi) / 2 for lo, hi in zip(box.lo, box.hi))


def clear_of_standing_points(fixed: FixedObject, standing: np.ndarray, camera_height: float) -> Box:
    """The object's box cut back, keeping the object's own position (the one its id encodes), until no
    standing point lies within STANDING_CLEARANCE of its footprint: each point, nearest the position
    first, is cut off on the side that keeps more floor. Unchanged above the agent's head."""
    (x0, y0, z0), (x1, y1, z1) = fixed.box.lo, fixed.box.hi
    m = STANDING_CLEARANCE
    if y0 > camera_height + m:
        return fixed.box
    px, pz = min(max(fixed.position[0], x0), x1), min(max(fixed.position[2], z0), z1)
    near = standing[(x0 - m < standing[:, 0]) & (standing[:, 0] < x1 + m)]
    near = near[(z0 - m < near[:, 1]) & (near[:, 1] < z1 + m)]
    for sx, sz in sorted(near.tolist(), key=lambda p: (p[0] - px) ** 2 + (p[1] - pz) ** 2):
        if not (x0 - m < sx < x1 + m and z0 - m < sz < z1 + m):
            continue  # an earlier cut took it out
        along_x = (sx + m, z0, x1, z1) if sx < px else (x0, z0, sx - m, z1)
        along_z = (x0, sz + m, x1, z1) if sz < pz else (x0, z0, x1, sz - m)
        options = [c for c in (along_x, along_z) if c[0] <= px <= c[2] and c[1] <= pz <= c[3]]
        if not options:
            continue  # the point is on the object's own position: the data says it stands there
        x0, z0, x1, z1 = max(options, key=lambda c: (c[2] - c[0]) * (c[3] - c[1]))
    if x1 - x0 < 2 * MIN_PART or z1 - z0 < 2 * MIN_PART:
        return fixed.box
    return Box((float(x0), y0, float(z0)), (float(x1), y1, float(z1)))


def with_hole(box: Box, hole: Box) -> tuple[Box, ...]:
    """`box` with `hole`'s footprint taken out above the hole's bottom: the part below, and up to four
    parts around the hole."""
    (x0, y0, z0), (x1, y1, z1) = box.lo, box.hi
    hx0, hz0 = max(hole.lo[0], x0), max(hole.lo[2], z0)
    hx1, hz1 = min(hole.hi[0], x1), min(hole.hi[2], z1)
    cut = min(max(hole.lo[1], y0), y1)
    parts = [
        Box((x0, y0, z0), (x1, cut, z1)),  # below the hole
        Box((x0, cut, z0), (hx0, y1, z1)),  # the four sides round it
        Box((hx1, cut, z0), (x1, y1, z1)),
        Box((hx0, cut, z0), (hx1, y1, hz0)),
        Box((hx0, cut, hz1), (hx1, y1, z1)),
    ]
    return tuple(p for p in parts if all(hi - lo >= MIN_PART for lo, hi in zip(p.lo, p.hi)))


def front_of(box: Box, fixed: FixedObject, standing: np.ndarray) -> tuple[int, int]:
    """The side the agent uses an object from: towards its use pose, else the nearest standing point."""
    cx, _, cz = centre(box)
    if fixed.use_poses:
        tx, tz = fixed.use_poses[0].x, fixed.use_poses[0].z
    else:
        tx, tz = standing[np.argmin((standing[:, 0] - cx) ** 2 + (standing[:, 1] - cz) ** 2)]
    dx, dz = tx - cx, tz - cz
    if abs(dx) >= abs(dz):
        return (1 if dx >= 0 else -1), 0
    return 0, (1 if dz >= 0 else -1)


def fixed_looks(scene: Scene, fixed: list[FixedObject], catalog: Catalog) -> tuple[FixedLook, ...]:
    """The look of each of `fixed` (in that order), by the rules above."""
    standing = standing_points(scene)
    boxes = [clear_of_standing_points(f, standing, scene.camera_height) for f in fixed]
    basins = [j for j, f in enumerate(fixed) if catalog[f.cls].basin]
    houses = {
        i
        for i, outer in enumerate(boxes)
        for j, inner in enumerate(boxes)
        if i != j and j not in basins and volume(inner) < volume(outer) and holds_point(outer, centre(inner))
    }
    parts = [(box,) for box in boxes]
    for j in basins:
        basin = boxes[j]
        cx, _, cz = centre(basin)
        for i, outer in enumerate(boxes):
            sunk = outer.lo[0] < cx < outer.hi[0] and outer.lo[2] < cz < outer.hi[2]
            rim_level = outer.lo[1] - BASIN_RIM < basin.hi[1] < outer.hi[1] + BASIN_RIM
            if i != j and volume(outer) > volume(basin) and sunk and rim_level:
                parts[i] = tuple(p for part in parts[i] for p in with_hole(part, basin))
    looks = []
    for i, f in enumerate(fixed):
        shell = SHELLS[front_of(boxes[i], f, standing)]
        shut = shell if i in houses else CLASS_SHAPES.get(f.cls, BOX)
        looks.append(FixedLook(parts[i], shut, shell))
    return tuple(looks)
