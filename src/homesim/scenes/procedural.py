"""Procedural single rooms of ALFRED's four room types, so homesim runs with no downloaded data.

A room is a rectangle (x from 0 to its width, z from 0 to its depth) furnished from a table per room
type (`room_plans`). Furniture comes in *units*: pieces that stand together against a wall (a counter top with the
sink, basin, faucet and the cabinet under it) or free on the floor (a dining table). Units never
overlap; the agent may stand on every 0.25 m cell inside the room that no unit covers (the largest
connected part of them). Each fixed object gets a use pose like those in ALFRED's `openable.json`: the
reachable cell nearest a spot half a metre in front of it, facing it, from which it is visible; a unit
with an object no cell sees is dropped. Movable objects go in or on fixed receptacles that ALFRED's
compatibility table allows, where the receptacle's use pose sees them.

Pieces against an east or west wall are turned a quarter: their box is the class-sized `fixed_box`
with its x and z extents swapped (the importer never turns boxes, as AI2-THOR ids carry no rotation).

Everything random comes from one `random.Random`, seeded from the room type and seed, so
`generate_room(t, s)` is the same room in every process.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from homesim.scenes.alfred import fixed_box, object_id
from homesim.scenes.room_plans import ROOM_PLANS, RoomPlan, Unit
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.geometry import VISIBILITY_DISTANCE, visible_point
from homesim.world.scene import GRID_SIZE, Box, FixedObject, Pose, Scene
from homesim.world.state import AgentState, ObjectState, State

ROOM_TYPES = ("Kitchen", "Bathroom", "Bedroom", "LivingRoom")

START_HORIZON = 30  # ALFRED starts every episode looking 30 degrees down
HORIZONS = (30, 0, 45, 60, 15, -15, -30)  # a use pose's camera pitch, most ALFRED-like first
YAWS = (0, 90, 180, 270)
STAND_OFF = 0.5  # metres between a use pose and the front of the object it uses
FLOOR_CLEARANCE = 0.5  # metres kept free around a free-standing unit, so the agent can walk round it
PLACEMENT_TRIES = 40  # random spots tried per unit, and per movable object
ROOM_ATTEMPTS = 30  # rooms tried before giving up (a required unit did not fit)
SURFACE_PER_OBJECT = 0.06  # square metres of a receptacle's footprint each object it holds takes
TWIN_CHANCE = 0.3  # chance a movable class gets a second instance (ALFRED's pick-two tasks need two)
EPS = 1e-6

Rect = tuple[float, float, float, float]  # a floor rectangle (x0, z0, x1, z1)


# --- placing furniture --------------------------------------------------------------------------


@dataclass(frozen=True)
class PlacedUnit:
    """A unit's fixed objects in the room, and the floor rectangle (x0, z0, x1, z1) it takes up."""

    unit: Unit
    objects: tuple[FixedObject, ...]
    footprint: Rect
    out: tuple[int, int] | None  # the way its fronts face (into the room); None for a free-standing unit


@dataclass(frozen=True)
class Frame:
    """Where a unit's offsets are measured from: a point, the `along` direction and the `out` direction."""

    origin: tuple[float, float]
    along: tuple[int, int]
    out: tuple[int, int]

    def point(self, along: float, out: float) -> tuple[float, float]:
        x = self.origin[0] + along * self.along[0] + out * self.out[0]
        z = self.origin[1] + along * self.along[1] + out * self.out[1]
        return round(x, 2), round(z, 2)

    def moved(self, along: float) -> Frame:
        return Frame(self.point(along, 0.0), self.along, self.out)


def wall_frames(width: float, depth: float) -> list[tuple[Frame, float]]:
    """Each wall as a frame (`along` runs along the wall, `out` into the room) and its length."""
    return [
        (Frame((0.0, 0.0), (1, 0), (0, 1)), width),  # south wall, facing +z
        (Frame((width, depth), (-1, 0), (0, -1)), width),  # north
        (Frame((0.0, depth), (0, -1), (1, 0)), depth),  # west, facing +x
        (Frame((width, 0.0), (0, 1), (-1, 0)), depth),  # east
    ]


def place_unit(unit: Unit, frame: Frame, catalog: Catalog) -> PlacedUnit:
    """The unit's fixed objects with the frame's origin at the unit's centre on the wall (or floor)."""
    objects = []
    for part in unit.parts:
        x, z = frame.point(part.along, part.out)
        position = (x, part.y, z)
        box = fixed_box(part.cls, position, catalog)
        if frame.along[0] == 0:  # along runs in z: the piece stands against an east or west wall
            box = box.turned()
        objects.append(FixedObject(object_id(part.cls, position), part.cls, position, box))
    footprint = (
        min(o.box.lo[0] for o in objects),
        min(o.box.lo[2] for o in objects),
        max(o.box.hi[0] for o in objects),
        max(o.box.hi[2] for o in objects),
    )
    return PlacedUnit(unit, tuple(objects), footprint, None if unit.free_standing else frame.out)


def overlaps(a: Rect, b: Rect) -> bool:
    """Whether two floor rectangles share area (touching edges do not count)."""
    return a[0] < b[2] - EPS and b[0] < a[2] - EPS and a[1] < b[3] - EPS and b[1] < a[3] - EPS


def grown(rect: Rect, margin: float) -> Rect:
    return rect[0] - margin, rect[1] - margin, rect[2] + margin, rect[3] + margin


def fits(rect: Rect, width: float, depth: float, placed: list[PlacedUnit]) -> bool:
    """Whether a rectangle lies in the room clear of the units placed so far."""
    inside = rect[0] >= -EPS and rect[1] >= -EPS and rect[2] <= width + EPS and rect[3] <= depth + EPS
    return inside and not any(overlaps(rect, p.footprint) for p in placed)


def snap(v: float) -> float:
    """Unit positions on a 5 cm raster, so ids (two decimals) decode back to the exact position."""
    return round(round(v / 0.05) * 0.05, 2)


def place_on_wall(
    rng: random.Random, unit: Unit, width: float, depth: float, placed: list[PlacedUnit], catalog: Catalog
) -> PlacedUnit | None:
    walls = wall_frames(width, depth)
    # The unit's extent along a wall, measured from its centre (the south wall at x = 0 shows it).
    x0, _, x1, _ = place_unit(unit, walls[0][0], catalog).footprint
    for _ in range(PLACEMENT_TRIES):
        frame, length = rng.choice(walls)
        if x1 - x0 > length:
            continue
        candidate = place_unit(unit, frame.moved(snap(rng.uniform(-x0, length - x1))), catalog)
        if fits(candidate.footprint, width, depth, placed):
            return candidate
    return None


def place_on_floor(
    rng: random.Random, unit: Unit, width: float, depth: float, placed: list[PlacedUnit], catalog: Catalog
) -> PlacedUnit | None:
    for _ in range(PLACEMENT_TRIES):
        origin = (snap(rng.uniform(0.0, width)), snap(rng.uniform(0.0, depth)))
        candidate = place_unit(unit, Frame(origin, (1, 0), (0, 1)), catalog)
        if fits(grown(candidate.footprint, FLOOR_CLEARANCE), width, depth, placed):
            return candidate
    return None


def furnish(
    rng: random.Random,
    plan: RoomPlan,
    width: float,
    depth: float,
    catalog: Catalog,
    keep_free: Sequence[PlacedUnit] = (),
) -> list[PlacedUnit]:
    """Needed units first (so optional ones never take their space), then the optional ones; a unit
    that finds no free spot is left out (`check_needs` rejects the room if a needed one is missing).
    `keep_free`: what already takes floor space (a house's doorways); it is not returned."""
    orders = [(unit, needed) for unit, needed, _ in plan.furniture]
    orders += [(unit, wanted - needed) for unit, needed, wanted in plan.furniture]
    placed: list[PlacedUnit] = list(keep_free)
    for unit, count in orders:
        for _ in range(count):
            place = place_on_floor if unit.free_standing else place_on_wall
            spot = place(rng, unit, width, depth, placed, catalog)
            if spot is not None:
                placed.append(spot)
    return placed[len(keep_free) :]


def check_needs(plan: RoomPlan, placed: list[PlacedUnit]) -> bool:
    have = Counter(p.unit.name for p in placed)
    return all(have[unit.name] >= needed for unit, needed, _ in plan.furniture)


# --- the reachable grid and use poses -----------------------------------------------------------


def free_cells(width: float, depth: float, placed: list[PlacedUnit]) -> set[tuple[int, int]]:
    """Cells inside the room (walls excluded) whose 0.25 m square no unit covers."""
    half = GRID_SIZE / 2
    cells = set()
    for ix in range(1, round(width / GRID_SIZE)):
        for iz in range(1, round(depth / GRID_SIZE)):
            x, z = ix * GRID_SIZE, iz * GRID_SIZE
            if not any(overlaps((x - half, z - half, x + half, z + half), p.footprint) for p in placed):
                cells.add((ix, iz))
    return cells


def largest_component(cells: set[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """The biggest 4-connected group of cells: the agent must be able to walk between any two cells."""
    best: set[tuple[int, int]] = set()
    unseen = set(cells)
    for start in sorted(cells):
        if start not in unseen:
            continue
        group, frontier = {start}, [start]
        unseen.discard(start)
        while frontier:
            ix, iz = frontier.pop()
            for step in ((ix + 1, iz), (ix - 1, iz), (ix, iz + 1), (ix, iz - 1)):
                if step in unseen:
                    unseen.discard(step)
                    group.add(step)
                    frontier.append(step)
        if len(group) > len(best):
            best = group
    return frozenset(best)


def facing(dx: float, dz: float) -> int:
    """The yaw (0 = +z, 90 = +x) that looks most directly along (dx, dz)."""
    if abs(dz) >= abs(dx):
        return 0 if dz >= 0 else 180
    return 90 if dx > 0 else 270


def stand_point(box: Box, out: tuple[int, int] | None) -> tuple[float, float]:
    """Where one would stand to use an object: STAND_OFF in front of its front face (its centre if free-standing)."""
    cx, cz = (box.lo[0] + box.hi[0]) / 2, (box.lo[2] + box.hi[2]) / 2
    if out is None:
        return cx, cz
    reach = abs(out[0]) * (box.hi[0] - box.lo[0]) / 2 + abs(out[1]) * (box.hi[2] - box.lo[2]) / 2 + STAND_OFF
    return cx + out[0] * reach, cz + out[1] * reach


def use_pose(
    box: Box, out: tuple[int, int] | None, reachable: frozenset[tuple[int, int]], camera_height: float
) -> Pose | None:
    """The reachable cell nearest the object's stand point, facing the object, with the first camera
    pitch that sees it (in ALFRED's visibility terms); None if no cell sees it."""
    cx, cz = (box.lo[0] + box.hi[0]) / 2, (box.lo[2] + box.hi[2]) / 2
    sx, sz = stand_point(box, out)

    def distance(cell: tuple[int, int]) -> tuple[float, tuple[int, int]]:
        return math.hypot(cell[0] * GRID_SIZE - sx, cell[1] * GRID_SIZE - sz), cell

    for cell in sorted(reachable, key=distance):
        x, z = cell[0] * GRID_SIZE, cell[1] * GRID_SIZE
        near_x, near_z = min(max(x, box.lo[0]), box.hi[0]), min(max(z, box.lo[2]), box.hi[2])
        if math.hypot(near_x - x, near_z - z) > VISIBILITY_DISTANCE:
            continue
        yaw = facing(cx - x, cz - z)
        for horizon in HORIZONS:
            if visible_point(box, AgentState(x, z, yaw, horizon), camera_height) is not None:
                return Pose(x, z, yaw, horizon)
    return None


def with_use_poses(
    placed: list[PlacedUnit], width: float, depth: float, camera_height: float
) -> tuple[list[PlacedUnit], frozenset[tuple[int, int]]]:
    """Gives every fixed object its use pose; a unit with an object no reachable cell sees is dropped
    (which frees floor, so the grid and the poses are worked out again)."""
    while True:
        reachable = largest_component(free_cells(width, depth, placed))
        posed = [unit_with_poses(p, reachable, camera_height) for p in placed]
        if all(p is not None for p in posed):
            return [p for p in posed if p is not None], reachable
        placed = [p for p, q in zip(placed, posed) if q is not None]


def unit_with_poses(p: PlacedUnit, reachable: frozenset[tuple[int, int]], camera_height: float) -> PlacedUnit | None:
    poses = [use_pose(o.box, p.out, reachable, camera_height) for o in p.objects]
    if any(pose is None for pose in poses):
        return None
    objects = tuple(FixedObject(o.id, o.cls, o.position, o.box, (pose,)) for o, pose in zip(p.objects, poses))
    return PlacedUnit(p.unit, objects, p.footprint, p.out)


# --- movable objects ----------------------------------------------------------------------------


def pick_classes(rng: random.Random, plan: RoomPlan) -> list[str]:
    lo, hi = plan.object_classes
    extra = sorted(plan.objects)
    rng.shuffle(extra)
    count = rng.randint(lo, min(hi, len(plan.always) + len(extra)))
    return list(plan.always) + extra[: max(0, count - len(plan.always))]


def capacity(box: Box) -> int:
    return max(1, int((box.hi[0] - box.lo[0]) * (box.hi[2] - box.lo[2]) / SURFACE_PER_OBJECT))


def spot_in(
    rng: random.Random, receptacle: FixedObject, size: tuple[float, float, float], inside: bool
) -> tuple[float, float, float]:
    """A random position in a receptacle's extent: on its top, or low `inside` one (one that opens)."""
    (x0, y0, z0), (x1, y1, z1) = receptacle.box.lo, receptacle.box.hi
    mx, mz = min(size[0], x1 - x0) / 2, min(size[2], z1 - z0) / 2  # keep the object over the receptacle
    x, z = rng.uniform(x0 + mx, x1 - mx), rng.uniform(z0 + mz, z1 - mz)
    y = y0 + (y1 - y0) / 4 if inside else y1
    return round(x, 2), round(y, 2), round(z, 2)


def in_the_way(receptacle: FixedObject, fixed: list[FixedObject]) -> list[Box]:
    """The fixed objects a thing put in or on the receptacle must not run into: all but the receptacle,
    what houses it (the sink round a basin, the dresser round a drawer) and its like (the next burner)."""
    (x0, _, z0), (x1, _, z1) = receptacle.box.lo, receptacle.box.hi

    def houses(f: FixedObject) -> bool:
        (fx0, _, fz0), (fx1, _, fz1) = f.box.lo, f.box.hi
        return fx0 <= x0 + EPS and fz0 <= z0 + EPS and x1 <= fx1 + EPS and z1 <= fz1 + EPS

    return [f.box for f in fixed if f.cls != receptacle.cls and not houses(f)]


def place_object(
    rng: random.Random,
    cls: str,
    receptacle: FixedObject,
    obstacles: list[Box],
    catalog: Catalog,
    camera_height: float,
) -> tuple[float, float, float] | None:
    """A spot in or on the receptacle, clear of the obstacles, that the receptacle's use pose sees (so an
    expert can pick the object up from there); None if random tries find none."""
    pose = receptacle.use_poses[0]
    agent = AgentState(pose.x, pose.z, pose.yaw, pose.horizon)
    size = catalog[cls].size
    for _ in range(PLACEMENT_TRIES):
        position = spot_in(rng, receptacle, size, inside=catalog[receptacle.cls].openable)
        box = Box.around(position, size)
        if any(box.overlaps(other, EPS) for other in obstacles):
            continue
        if visible_point(box, agent, camera_height) is not None:
            return position
    return None


def fill_room(rng: random.Random, classes: list[str], scene: Scene, catalog: Catalog) -> dict[str, ObjectState]:
    """Movable objects of the given classes (some twice), each in or on a fixed receptacle ALFRED allows
    it in and the receptacle's use pose sees, none running into furniture or into each other. Works for
    any scene whose receptacles have use poses: procedural rooms and ALFRED's floor plans."""
    fixed = sorted(scene.fixed.values(), key=lambda f: f.id)
    receptacles = [f for f in fixed if catalog[f.cls].receptacle and f.use_poses]
    blocked = {r.id: in_the_way(r, fixed) for r in receptacles}
    room = {r.id: capacity(r.box) for r in receptacles}
    objects: dict[str, ObjectState] = {}
    for cls in classes:
        for _ in range(2 if rng.random() < TWIN_CHANCE else 1):
            options = [r for r in receptacles if room[r.id] > 0 and catalog.can_contain(r.cls, cls)]
            rng.shuffle(options)
            for receptacle in options:
                others = [Box.around(o.position, catalog[o.cls].size) for o in objects.values()]
                obstacles = blocked[receptacle.id] + others
                position = place_object(rng, cls, receptacle, obstacles, catalog, scene.camera_height)
                if position is not None:
                    oid = object_id(cls, position)
                    is_open = catalog[cls].starts_open
                    objects[oid] = ObjectState(oid, cls, position, parent=receptacle.id, is_open=is_open)
                    room[receptacle.id] -= 1
                    break
    return objects


# --- the room -----------------------------------------------------------------------------------


def generate_room(room_type: str, seed: int, catalog: Catalog | None = None) -> tuple[Scene, State]:
    """A furnished, filled room of an ALFRED room type and its initial state; the same seed gives the same room."""
    if room_type not in ROOM_PLANS:
        raise ValueError(f"unknown room type {room_type!r}; the room types are {', '.join(ROOM_TYPES)}")
    catalog = catalog or alfred_catalog()
    plan = ROOM_PLANS[room_type]
    camera_height = catalog.agent["camera_height"]
    rng = random.Random(f"{room_type}/{seed}")  # a string seed is hashed the same way in every process
    for attempt in range(1, ROOM_ATTEMPTS + 1):
        cells = [round(side / GRID_SIZE) for side in plan.side]
        width, depth = (rng.randint(*cells) * GRID_SIZE for _ in range(2))
        placed = furnish(rng, plan, width, depth, catalog)
        if not check_needs(plan, placed):
            continue
        placed, reachable = with_use_poses(placed, width, depth, camera_height)
        if check_needs(plan, placed):
            break
    else:
        raise RuntimeError(f"no {room_type} with all its furniture after {ROOM_ATTEMPTS} rooms (seed {seed})")

    fixed = {o.id: o for p in placed for o in p.objects}
    assert len(fixed) == sum(len(p.objects) for p in placed), "two fixed objects share an id"
    scene = Scene(
        id=f"procedural-{room_type.lower()}-{seed}",
        room_type=room_type,
        reachable=reachable,
        fixed=fixed,
        camera_height=camera_height,
        provenance={
            "rooms_tried": attempt,
            "furniture_units": len(placed),
            "width_cells": round(width / GRID_SIZE),
            "depth_cells": round(depth / GRID_SIZE),
        },
    )
    objects = {f.id: ObjectState(f.id, f.cls, is_open=catalog[f.cls].starts_open) for f in fixed.values()}
    objects.update(fill_room(rng, pick_classes(rng, plan), scene, catalog))
    ix, iz = rng.choice(sorted(reachable))
    agent = AgentState(ix * GRID_SIZE, iz * GRID_SIZE, rng.choice(YAWS), START_HORIZON)
    return scene, State(objects=objects, agents=(agent,))
