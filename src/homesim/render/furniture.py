"""How the fixed objects of a scene are drawn from their extents.

Imported extents are rough (class-sized boxes, grown to cover what the planner took from them), and the
engine's visibility has no occlusion, so drawing them as plain solid boxes would hide what the engine
sees: a wall cabinet's box can hold the camera, a counter top's box covers its sink basin. So:

* a counter top is drawn as the slab under its position (which is on its top); a cabinet's extent
  already starts at its door (`scenes.alfred`);
* every box is cut back clear of the places the agent stands (below its head), and of the objects
  standing on the floor beside it, keeping the object's own position;
* neighbouring built-ins (cabinets in a row, a drawer over a cabinet) share the overlap of their boxes;
* a counter top, and a drawer in a run of cabinets, is flush with the cabinet doors;
* a box that houses another (a dresser round its drawers) is a shell;
* a counter top (or sink) a basin is sunk into has a hole there (and so has the floor, see `drawables`);
* each object's front (where shells open) is the side its use pose, or the nearest standing place, is on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from homesim.render.meshes import BOX, CLASS_SHAPES, SHELLS
from homesim.world.catalog import DOOR_AT_POSITION, Catalog
from homesim.world.scene import Box, FixedObject, Scene, front_of, standing_points

STANDING_CLEARANCE = 0.1  # metres kept free of fixed boxes around each place the agent can stand
MIN_PART = 0.02  # metres: thinner parts of a cut box are left out
SEAM = 0.002  # metres between boxes cut apart, so that their faces never fight over depth
BASIN_RIM = 0.1  # metres a basin's rim may be off the extent of what it is sunk into
FLOOR_LEVEL = 0.05  # metres: a fixed object whose position is this near the floor stands on it
TWINS_APART = 0.05  # metres: built-ins whose positions are closer on every axis are a double door's halves
MAX_OVERHANG = 0.5  # metres: on train, counters overhang doors by up to 0.5 m, or by more than 0.6 (another run)
BUILT_IN = frozenset({"Cabinet", "Drawer"})
COUNTER_TOPS = frozenset({"CounterTop"})
DRAWERS = frozenset({"Drawer"})


@dataclass(frozen=True)
class FixedLook:
    """What a fixed object looks like: the boxes it is drawn as, its shape shut and open."""

    parts: tuple[Box, ...]
    shut_shape: str
    open_shape: str


def volume(box: Box) -> float:
    return float(np.prod([hi - lo for lo, hi in zip(box.lo, box.hi)]))


def holds_point(box: Box, point) -> bool:
    """Inside or on the box (the engine puts things on their receptacle's boundary)."""
    return all(lo <= p <= hi for lo, p, hi in zip(box.lo, point, box.hi))


def centre(box: Box) -> tuple[float, float, float]:
    return tuple((lo + hi) / 2 for lo, hi in zip(box.lo, box.hi))


def clear_of(box: Box, position, keep_out: np.ndarray, camera_height: float) -> Box:
    """An object's box cut back, keeping the object's own position (the one its id encodes), until its
    footprint meets none of the `keep_out` rectangles ((N, 4): x0, z0, x1, z1): each, nearest the position
    first, is cut off on the side that keeps more floor. Unchanged above the agent's head."""
    (x0, y0, z0), (x1, y1, z1) = box.lo, box.hi
    if y0 > camera_height + STANDING_CLEARANCE:
        return box
    px, pz = min(max(position[0], x0), x1), min(max(position[2], z0), z1)
    near = keep_out[(keep_out[:, 0] < x1) & (x0 < keep_out[:, 2]) & (keep_out[:, 1] < z1) & (z0 < keep_out[:, 3])]
    middles = (near[:, :2] + near[:, 2:]) / 2
    for k in np.argsort((middles[:, 0] - px) ** 2 + (middles[:, 1] - pz) ** 2, kind="stable"):
        (rx0, rz0, rx1, rz1), (sx, sz) = near[k], middles[k]
        if not (rx0 < x1 and x0 < rx1 and rz0 < z1 and z0 < rz1):
            continue  # an earlier cut took it out
        along_x = (rx1, z0, x1, z1) if sx < px else (x0, z0, rx0, z1)
        along_z = (x0, rz1, x1, z1) if sz < pz else (x0, z0, x1, rz0)
        options = [c for c in (along_x, along_z) if c[0] <= px <= c[2] and c[1] <= pz <= c[3]]
        if not options:
            continue  # the rectangle is on the object's own position: the data says it is there
        x0, z0, x1, z1 = max(options, key=lambda c: (c[2] - c[0]) * (c[3] - c[1]))
    if x1 - x0 < 2 * MIN_PART or z1 - z0 < 2 * MIN_PART:
        return box
    return Box((float(x0), y0, float(z0)), (float(x1), y1, float(z1)))


def around_points(points: np.ndarray, margin: float) -> np.ndarray:
    """(N, 2) x, z -> (N, 4) squares of half side `margin` round them."""
    return np.hstack([points - margin, points + margin])


def footprint(box: Box) -> tuple[float, float, float, float]:
    return box.lo[0], box.lo[2], box.hi[0], box.hi[2]


def with_hole(box: Box, hole: Box) -> tuple[Box, ...]:
    """`box` with `hole`'s footprint taken out above the hole's bottom: the part below, and up to four
    parts around the hole."""
    (x0, y0, z0), (x1, y1, z1) = box.lo, box.hi
    hx0, hz0 = max(hole.lo[0], x0), max(hole.lo[2], z0)
    hx1, hz1 = min(hole.hi[0], x1), min(hole.hi[2], z1)
    if hx0 >= hx1 or hz0 >= hz1:
        return (box,)  # the hole misses it (a counter's part beside another basin)
    cut = min(max(hole.lo[1], y0), y1)
    parts = [
        Box((x0, y0, z0), (x1, cut, z1)),  # below the hole
        Box((x0, cut, z0), (hx0, y1, z1)),  # the four sides round it
        Box((hx1, cut, z0), (x1, y1, z1)),
        Box((hx0, cut, z0), (hx1, y1, hz0)),
        Box((hx0, cut, hz1), (hx1, y1, z1)),
    ]
    return tuple(p for p in parts if all(hi - lo >= MIN_PART for lo, hi in zip(p.lo, p.hi)))


def overlap(a: Box, b: Box) -> tuple[float, float, float]:
    return tuple(min(ah, bh) - max(al, bl) for al, ah, bl, bh in zip(a.lo, a.hi, b.lo, b.hi))


def split_between(a: Box, fa: FixedObject, b: Box, fb: FixedObject, front: tuple[int, int]) -> tuple[Box, Box]:
    """Two overlapping built-in boxes (cabinets in a row, a drawer over a cabinet) each drawn on its own
    side of a plane through their overlap, across the axis their positions differ most along: class-sized
    boxes of neighbours overlap, and the overlap would show the closed one inside the open one. Twins (a
    double door's two halves, at one position) are split side by side along their row, across `front`.
    The plane keeps each position in its own box."""
    pa, pb = fa.position, fb.position
    apart = [abs(p - q) for p, q in zip(pa, pb)]
    axis = int(np.argmax(apart)) if max(apart) >= TWINS_APART else (2 if front[0] else 0)
    if (pa[axis], fa.id) > (pb[axis], fb.id):
        b, a = split_between(b, fb, a, fa, front)
        return a, b
    middle = (max(a.lo[axis], b.lo[axis]) + min(a.hi[axis], b.hi[axis])) / 2
    plane = min(max(middle, pa[axis]), pb[axis])
    a_hi, b_lo = list(a.hi), list(b.lo)
    a_hi[axis], b_lo[axis] = min(a_hi[axis], plane - SEAM / 2), max(b_lo[axis], plane + SEAM / 2)
    return Box(a.lo, tuple(a_hi)), Box(tuple(b_lo), b.hi)


def stacked(lower: Box, upper: Box) -> bool:
    """`lower` under `upper` (its middle below upper's bottom: rough boxes overlap), their footprints
    overlapping by half the narrower on both axes."""
    if centre(lower)[1] > upper.lo[1]:
        return False
    return all(
        min(lower.hi[a], upper.hi[a]) - max(lower.lo[a], upper.lo[a])
        >= min(lower.hi[a] - lower.lo[a], upper.hi[a] - upper.lo[a]) / 2
        for a in (0, 2)
    )


def front_plane(box: Box, front: tuple[int, int]) -> float:
    axis, sign = (0, front[0]) if front[0] else (2, front[1])
    return box.hi[axis] if sign > 0 else box.lo[axis]


def flush_with(box: Box, position, planes: list[tuple[tuple[int, int], float]]) -> Box:
    """`box` cut back to each (front side, plane) it sticks out beyond by less than MAX_OVERHANG, keeping
    `position`: class-sized depths, and boxes grown up to the clearance of the standing places, reach
    further than AI2-THOR's, and that lip hides what is in an open cabinet from the agent in front of it."""
    lo, hi = list(box.lo), list(box.hi)
    for (fx, fz), plane in planes:
        axis, sign = (0, fx) if fx else (2, fz)
        if sign > 0 and 0 < hi[axis] - plane < MAX_OVERHANG and plane >= position[axis]:
            hi[axis] = plane
        elif sign < 0 and 0 < plane - lo[axis] < MAX_OVERHANG and plane <= position[axis]:
            lo[axis] = plane
    return Box(tuple(lo), tuple(hi))


def flush_with_doors(boxes: list[Box], fixed: list[FixedObject], fronts: list[tuple[int, int]]) -> list[Box]:
    """Counter tops flush with the cabinet doors under them, then drawers with the doors under them and
    the counter tops over them: a run of kitchen furniture has one front."""
    boxes = list(boxes)
    cabinets = [j for j, f in enumerate(fixed) if f.cls in DOOR_AT_POSITION]
    doors = {j: fixed[j].position[0 if fronts[j][0] else 2] for j in cabinets}
    counters = [i for i, f in enumerate(fixed) if f.cls in COUNTER_TOPS]
    for i in counters:
        planes = [(fronts[j], doors[j]) for j in cabinets if stacked(boxes[j], boxes[i])]
        boxes[i] = flush_with(boxes[i], fixed[i].position, planes)
    for i in (i for i, f in enumerate(fixed) if f.cls in DRAWERS):
        planes = [(fronts[j], doors[j]) for j in cabinets if stacked(boxes[j], boxes[i])]
        planes += [(fronts[i], front_plane(boxes[k], fronts[i])) for k in counters if stacked(boxes[i], boxes[k])]
        boxes[i] = flush_with(boxes[i], fixed[i].position, planes)
    return boxes


def as_slab(box: Box, fixed: FixedObject, thickness: float) -> Box:
    """A counter top as the slab under its position (AI2-THOR's position of a counter top is on its top):
    a box grown down over what the planner took from lower down would stand round the cabinets below."""
    bottom = fixed.position[1] - thickness
    if box.lo[1] >= bottom or box.hi[1] - bottom < MIN_PART:
        return box
    return Box((box.lo[0], bottom, box.lo[2]), box.hi)


def as_built(fixed: FixedObject, catalog: Catalog) -> Box:
    """The part of an object's box it is built as: a counter top's slab."""
    if fixed.cls in COUNTER_TOPS:
        return as_slab(fixed.box, fixed, catalog[fixed.cls].size[1])
    return fixed.box


def drawn_boxes(scene: Scene, fixed: list[FixedObject], fronts: list[tuple[int, int]], catalog: Catalog) -> list[Box]:
    """Each object's box cut back by the first five rules above."""
    standing = standing_points(scene.reachable)
    boxes = [as_built(f, catalog) for f in fixed]
    around_agent = around_points(standing, STANDING_CLEARANCE)
    on_floor = [j for j, f in enumerate(fixed) if abs(f.position[1]) <= FLOOR_LEVEL]
    for i, f in enumerate(fixed):
        beside = [
            footprint(boxes[j])
            for j in on_floor
            if j != i and not holds_point(boxes[i], centre(boxes[j])) and not holds_point(boxes[j], centre(boxes[i]))
        ]
        keep_out = np.vstack([around_agent, np.array(beside).reshape(-1, 4)])
        boxes[i] = clear_of(boxes[i], f.position, keep_out, scene.camera_height)
    built_in = [i for i, f in enumerate(fixed) if f.cls in BUILT_IN]
    for k, i in enumerate(built_in):
        for j in built_in[k + 1 :]:
            if min(overlap(boxes[i], boxes[j])) > 0:
                boxes[i], boxes[j] = split_between(boxes[i], fixed[i], boxes[j], fixed[j], fronts[i])
    return flush_with_doors(boxes, fixed, fronts)


def fixed_looks(scene: Scene, fixed: list[FixedObject], catalog: Catalog) -> tuple[FixedLook, ...]:
    """The look of each of `fixed` (in that order), by the rules above."""
    standing = standing_points(scene.reachable)
    fronts = [front_of(f.box, f.use_poses, standing) for f in fixed]
    boxes = drawn_boxes(scene, fixed, fronts, catalog)
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
        shell = SHELLS[fronts[i]]
        shut = shell if i in houses else CLASS_SHAPES.get(f.cls, BOX)
        looks.append(FixedLook(parts[i], shut, shell))
    return tuple(looks)
