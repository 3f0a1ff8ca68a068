"""Seeded multi-room houses: 2 to 8 rooms (kitchen, living room, bedroom, bathroom, hallway) joined by
doorways, with walls between them, furnished and filled per room type from the catalog.

The plan: rooms stand in two rows along x (one row for a small house); the rooms of a row share its depth
and are split by 0.25 m walls; outer walls close the house. Doorways (1 m wide) join the rooms of a row in
a chain and the rows through one or two doorways where rooms face each other, so the house is connected
and paths wind through doors. Doorway positions are chosen first and the furniture keeps a clearance in
front of them. Each room is furnished as `procedural` furnishes a single room of its type (the same
units, use poses and movable objects, so ALFRED's tasks work in a room of a house), plus what ObjectNav
looks for: chairs, house plants, a television in a bedroom. Hallways are narrow rooms with a few pieces.

All positions are multiples of 0.25 m at room corners, so a house's rooms keep ALFRED's 0.25 m grid:
`Scene.reachable` is the union of the rooms' cells and the doorways' cells. Everything random comes from
one `random.Random(f"house/{seed}")`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from homesim.scenes.alfred import object_id
from homesim.scenes.procedural import (
    START_HORIZON,
    YAWS,
    PlacedUnit,
    fill_room,
    furnish,
    largest_component,
    pick_classes,
    with_use_poses,
)
from homesim.scenes.room_plans import ROOM_PLANS, SHELVES, SIDE_TABLE, Part, RoomPlan, Unit
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.scene import GRID_SIZE, Box, FixedObject, Pose, RoomArea, Scene
from homesim.world.state import AgentState, ObjectState, State

WALL = 0.25  # thickness of every wall, metres (one grid cell, so rooms stay on the grid)
WALL_HEIGHT = 2.5
DOOR = 1.0  # doorway width
DOOR_CLEARANCE = 1.0  # metres kept free of furniture in front of a doorway, on both sides
DOOR_SIDE = 0.2  # and beside it, along the wall
CORNER = 0.5  # least distance between a doorway and a room's corner
HOUSE_ATTEMPTS = 20

PLANT = Unit("house plant", (Part("HousePlant", 0.0, 0.25, 0.0),))
CHAIR = Unit("chair", (Part("Chair", 0.0, 0.3, 0.0),))
BEDROOM_TV = Unit("tv stand", (Part("TVStand", 0.0, 0.2, 0.0), Part("Television", 0.0, 0.15, 0.5)))

HALLWAY = RoomPlan(
    side=(1.5, 2.0),
    furniture=((PLANT, 0, 2), (SHELVES, 0, 1), (SIDE_TABLE, 0, 1)),
    always=(),
    objects=("Vase", "Statue", "KeyChain", "Box", "Book", "Candle"),
    object_classes=(0, 4),
)


def _with(plan: RoomPlan, *extra: tuple[Unit, int, int]) -> RoomPlan:
    return replace(plan, furniture=plan.furniture + extra)


HOUSE_PLANS: dict[str, RoomPlan] = {
    "Kitchen": _with(ROOM_PLANS["Kitchen"], (CHAIR, 1, 2), (PLANT, 0, 1)),
    "LivingRoom": _with(ROOM_PLANS["LivingRoom"], (PLANT, 1, 2), (CHAIR, 0, 2)),
    "Bedroom": _with(ROOM_PLANS["Bedroom"], (CHAIR, 0, 1), (PLANT, 0, 1), (BEDROOM_TV, 0, 1)),
    "Bathroom": _with(ROOM_PLANS["Bathroom"], (PLANT, 0, 1)),
    "Hallway": HALLWAY,
}
# Room types by house size: the first n, each house has a living room and a kitchen.
ROOM_ORDER = ("LivingRoom", "Kitchen", "Bedroom", "Bathroom", "Hallway", "Bedroom", "Bathroom", "Bedroom")
MIN_ROOMS, MAX_ROOMS = 2, 8


@dataclass(frozen=True)
class Doorway:
    """A gap through the wall between two rooms (by index)."""

    rect: tuple[float, float, float, float]  # x0, z0, x1, z1: the gap through the wall
    rooms: tuple[int, int]


def _snap(v: float) -> float:
    return round(v / GRID_SIZE) * GRID_SIZE


def _sizes(rng: random.Random, types: list[str]) -> tuple[list[float], float]:
    """Each room's width (along x) and the row's depth (along z), multiples of 0.25 m. The depth suits
    every room of the row but hallways, which run its whole depth (their plan's side is their width)."""
    sides = [HOUSE_PLANS[t].side for t in types if t != "Hallway"] or [(3.0, 4.0)]
    lo = max(side[0] for side in sides)
    depth = _snap(rng.uniform(lo, max(lo, min(side[1] for side in sides))))
    return [_snap(rng.uniform(*HOUSE_PLANS[t].side)) for t in types], depth


def _layout(rng: random.Random, types: list[str]) -> list[RoomArea]:
    """Rooms in one row (up to 3) or two, their rectangles with WALL between neighbours."""
    rows = [types] if len(types) <= 3 else [types[: (len(types) + 1) // 2], types[(len(types) + 1) // 2 :]]
    rooms, z = [], 0.0
    for row in rows:
        widths, depth = _sizes(rng, row)
        x = 0.0
        for room_type, width in zip(row, widths):
            rooms.append(RoomArea(room_type, x, z, x + width, z + depth))
            x += width + WALL
        z += depth + WALL
    return rooms


def _door_spot(rng: random.Random, lo: float, hi: float) -> float | None:
    """Where a doorway starts along a shared stretch of wall [lo, hi], clear of the corners."""
    first, last = lo + CORNER, hi - CORNER - DOOR
    if last < first:
        return None
    return _snap(rng.uniform(first, last))


def _doorways(rng: random.Random, rooms: list[RoomArea]) -> list[Doorway]:
    """A chain of doorways along each row, and doorways between the rows where rooms face each other."""
    doors = []
    pairs_x = [
        (a, b)
        for a in range(len(rooms))
        for b in range(len(rooms))
        if abs(rooms[b].x0 - rooms[a].x1 - WALL) < 1e-9 and rooms[a].z0 == rooms[b].z0
    ]
    for a, b in pairs_x:
        z = _door_spot(rng, rooms[a].z0, rooms[a].z1)
        if z is None:
            continue
        doors.append(Doorway((rooms[a].x1, z, rooms[b].x0, z + DOOR), (a, b)))
    facing = [
        (a, b)
        for a in range(len(rooms))
        for b in range(len(rooms))
        if abs(rooms[b].z0 - rooms[a].z1 - WALL) < 1e-9
        and min(rooms[a].x1, rooms[b].x1) - max(rooms[a].x0, rooms[b].x0) >= DOOR + 2 * CORNER
    ]
    rng.shuffle(facing)
    for a, b in facing[: 1 + (len(facing) > 2 and rng.random() < 0.5)]:
        x = _door_spot(rng, max(rooms[a].x0, rooms[b].x0), min(rooms[a].x1, rooms[b].x1))
        if x is None:
            continue
        doors.append(Doorway((x, rooms[a].z1, x + DOOR, rooms[b].z0), (a, b)))
    return doors


def _walls(rooms: list[RoomArea], doors: list[Doorway]) -> list[Box]:
    """Full-height wall boxes: the ring round each room's rectangle, less the doorways' gaps. Walls
    between two rooms are the same band seen from both sides, so each band is written once."""
    bands: set[tuple[float, float, float, float]] = set()
    for r in rooms:
        bands |= {
            (r.x0 - WALL, r.z0 - WALL, r.x1 + WALL, r.z0),
            (r.x0 - WALL, r.z1, r.x1 + WALL, r.z1 + WALL),
            (r.x0 - WALL, r.z0, r.x0, r.z1),
            (r.x1, r.z0, r.x1 + WALL, r.z1),
        }
    pieces = sorted(bands)
    for d in doors:
        pieces = [p for piece in pieces for p in _cut(piece, d.rect)]
    return [Box((x0, 0.0, z0), (x1, WALL_HEIGHT, z1)) for x0, z0, x1, z1 in _merged(pieces)]


def _cut(piece: tuple, hole: tuple) -> list[tuple]:
    """A wall rectangle less a doorway's rectangle (the doorway crosses the wall's whole thickness)."""
    x0, z0, x1, z1 = piece
    hx0, hz0, hx1, hz1 = hole
    if hx1 <= x0 or x1 <= hx0 or hz1 <= z0 or z1 <= hz0:
        return [piece]
    if x1 - x0 >= z1 - z0:  # a wall along x: keep what lies left and right of the gap
        parts = [(x0, z0, hx0, z1), (hx1, z0, x1, z1)]
    else:
        parts = [(x0, z0, x1, hz0), (x0, hz1, x1, z1)]
    return [p for p in parts if p[2] - p[0] > 1e-9 and p[3] - p[1] > 1e-9]


def _merged(pieces: list[tuple]) -> list[tuple]:
    """The wall rectangles without those another one covers (the overlap of two rooms' rings)."""
    unique = sorted(set(pieces))

    def covered(p, q) -> bool:
        return p != q and q[0] <= p[0] and q[1] <= p[1] and p[2] <= q[2] and p[3] <= q[3]

    return [p for p in unique if not any(covered(p, q) for q in unique)]


# --- furnishing one room ------------------------------------------------------------------------------


def _clearances(room: RoomArea, doors: list[Doorway]) -> list[PlacedUnit]:
    """The floor in front of each of the room's doorways, in room coordinates, as placeholders furniture avoids."""
    keep = []
    for d in doors:
        x0, z0, x1, z1 = d.rect
        across, along = DOOR_CLEARANCE, DOOR_SIDE
        gx, gz = (across, along) if (x1 - x0) < (z1 - z0) else (along, across)  # a gap in a wall along z: x is across
        rect = (x0 - gx - room.x0, z0 - gz - room.z0, x1 + gx - room.x0, z1 + gz - room.z0)
        keep.append(PlacedUnit(Unit("doorway", ()), (), rect, None))
    return keep


def _moved_fixed(f: FixedObject, dx: float, dz: float) -> FixedObject:
    x, y, z = f.position
    position = (round(x + dx, 2), y, round(z + dz, 2))
    box = Box((f.box.lo[0] + dx, f.box.lo[1], f.box.lo[2] + dz), (f.box.hi[0] + dx, f.box.hi[1], f.box.hi[2] + dz))
    poses = tuple(Pose(p.x + dx, p.z + dz, p.yaw, p.horizon) for p in f.use_poses)
    return FixedObject(object_id(f.cls, position), f.cls, position, box, poses, f.starts_open)


def _room(
    rng: random.Random, area: RoomArea, doors: list[Doorway], camera_height: float, catalog: Catalog
) -> tuple[dict[str, FixedObject], dict[str, ObjectState], set[tuple[int, int]]]:
    """One room furnished and filled, moved to its place in the house: fixed objects, movable objects (by
    their new ids) and its reachable cells."""
    plan = HOUSE_PLANS[area.room_type]
    width, depth = area.x1 - area.x0, area.z1 - area.z0
    placed = furnish(rng, plan, width, depth, catalog, keep_free=_clearances(area, doors))
    placed, reachable = with_use_poses(placed, width, depth, camera_height)
    local = {o.id: o for p in placed for o in p.objects}
    room_scene = Scene(f"room-{area.room_type}", area.room_type, reachable, local, camera_height)
    movable = fill_room(rng, pick_classes(rng, plan), room_scene, catalog)
    dx, dz = area.x0, area.z0
    ids = {}
    fixed = {}
    for f in local.values():
        moved = _moved_fixed(f, dx, dz)
        ids[f.id], fixed[moved.id] = moved.id, moved
    objects = {}
    for o in movable.values():
        x, y, z = o.position
        position = (round(x + dx, 2), y, round(z + dz, 2))
        oid = object_id(o.cls, position)
        objects[oid] = replace(o, id=oid, position=position, parent=ids[o.parent])
    shift = (round(dx / GRID_SIZE), round(dz / GRID_SIZE))
    return fixed, objects, {(ix + shift[0], iz + shift[1]) for ix, iz in reachable}


def _door_cells(d: Doorway) -> set[tuple[int, int]]:
    x0, z0, x1, z1 = d.rect
    xs = range(round(x0 / GRID_SIZE), round(x1 / GRID_SIZE) + 1)
    zs = range(round(z0 / GRID_SIZE), round(z1 / GRID_SIZE) + 1)
    # The cells through the gap, not those on its edges (a wall stands there).
    if x1 - x0 < z1 - z0:
        return {(ix, iz) for ix in xs for iz in zs[1:-1]}
    return {(ix, iz) for ix in xs[1:-1] for iz in zs}


def generate_house(seed: int, rooms: int | None = None, catalog: Catalog | None = None) -> tuple[Scene, State]:
    """A furnished, filled house of `rooms` rooms (2 to 8; drawn from the seed when None) and its initial
    state; the same seed gives the same house."""
    if rooms is not None and not MIN_ROOMS <= rooms <= MAX_ROOMS:
        raise ValueError(f"a house has {MIN_ROOMS} to {MAX_ROOMS} rooms, not {rooms}")
    catalog = catalog or alfred_catalog()
    camera_height = catalog.agent["camera_height"]
    rng = random.Random(f"house/{seed}")
    count = rooms or rng.randint(MIN_ROOMS, MAX_ROOMS)
    types = list(ROOM_ORDER[:count])
    rng.shuffle(types)
    for _ in range(HOUSE_ATTEMPTS):
        areas = _layout(rng, types)
        doors = _doorways(rng, areas)
        if _connected(len(areas), doors):
            break
    else:
        raise RuntimeError(f"no connected house of {count} rooms after {HOUSE_ATTEMPTS} tries (seed {seed})")
    fixed: dict[str, FixedObject] = {}
    objects: dict[str, ObjectState] = {}
    cells: set[tuple[int, int]] = set()
    for k, area in enumerate(areas):
        mine = [d for d in doors if k in d.rooms]
        room_fixed, room_objects, room_cells = _room(rng, area, mine, camera_height, catalog)
        fixed.update(room_fixed)
        objects.update(room_objects)
        cells |= room_cells
    for d in doors:
        cells |= _door_cells(d)
    reachable = largest_component(cells)
    scene = Scene(
        id=f"house-{seed}",
        room_type="House",
        reachable=reachable,
        fixed=fixed,
        camera_height=camera_height,
        provenance={"rooms": len(areas), "doorways": len(doors), "fixed_objects": len(fixed)},
        rooms=tuple(areas),
        walls=tuple(_walls(areas, doors)),
        doorways=tuple(Box((d.rect[0], 0.0, d.rect[1]), (d.rect[2], WALL_HEIGHT, d.rect[3])) for d in doors),
    )
    state_objects = {f.id: ObjectState(f.id, f.cls, is_open=catalog[f.cls].starts_open) for f in fixed.values()}
    state_objects.update(objects)
    ix, iz = rng.choice(sorted(reachable))
    agent = AgentState(ix * GRID_SIZE, iz * GRID_SIZE, rng.choice(YAWS), START_HORIZON)
    return scene, State(objects=state_objects, agents=(agent,))


def _connected(n: int, doors: list[Doorway]) -> bool:
    """Whether the doorways join all n rooms (a door spot may be missing where a wall is too short)."""
    seen, frontier = {0}, [0]
    while frontier:
        a = frontier.pop()
        for d in doors:
            if a in d.rooms:
                b = d.rooms[1] if d.rooms[0] == a else d.rooms[0]
                if b not in seen:
                    seen.add(b)
                    frontier.append(b)
    return len(seen) == n
