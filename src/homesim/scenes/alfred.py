"""Rebuilds ALFRED's 120 AI2-THOR floor plans as homesim scenes from ALFRED's own files.

Sources, per floor plan (each one's contribution is counted in `Scene.provenance`):
* `FloorPlanN-layout.npy`: reachable agent positions. They are conservative (many expert paths leave
  them), so the cells that ALFRED's trajectories start on and walk through are added.
* `FloorPlanN-openable.json`: receptacle ids (AI2-THOR ids encode positions: `Class|x|y|z`) with the
  pose each was verified usable from. Fixed objects only named by trajectories (faucets, lamps,
  some drawers) are added from the trajectories' actions.
* Extents: a class-sized box around each fixed object's position, grown to cover the initial
  positions of objects ALFRED's planner picked up from it (`coordinateReceptacleObjectId`), which is
  how a 3 m counter top gets its length. Floor furniture whose position is on its top (some dining
  tables) reaches from the floor up to it instead; a cabinet's box starts at its door.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np

from homesim.errors import DataError
from homesim.files import read_json, regular_file
from homesim.world.catalog import DOOR_AT_POSITION, Catalog, alfred_catalog
from homesim.world.scene import Box, FixedObject, Pose, Scene, front_of, standing_points, to_cell

Position = tuple[float, float, float]

MAX_LAYOUT_METRES = 1000.0  # no floor plan reaches farther from its origin
CAMERA_ABOVE_AGENT = 0.675  # AI2-THOR's camera sits this far above the agent's reported y
MIN_DEPTH = 0.1  # metres: a cabinet cut back to its door keeps at least this much
# Furniture standing on the floor, things rest on its top. Its AI2-THOR position is at its foot in most
# floor plans, but near its top in some: in train and valid_seen, what the planner picks up from a piece
# whose position is more than a third of its class's height above the floor starts -0.04 to +0.28 m
# from that position (5th to 95th percentile, 771 objects), from the others +0.37 to +1.0 m (2,425).
FLOOR_FURNITURE = frozenset(
    {"ArmChair", "Bed", "CoffeeTable", "Desk", "DiningTable", "Dresser", "Ottoman", "SideTable", "Sofa"}
)


def parse_object_id(object_id: str) -> tuple[str, Position]:
    """An AI2-THOR id `Class|x|y|z[|...]` -> (class, position). Sliced pieces and sink basins carry a suffix."""
    parts = object_id.split("|")
    if len(parts) < 4:
        raise ValueError(f"{object_id!r} is not an AI2-THOR object id (Class|x|y|z)")
    cls = parts[4].rsplit("_", 1)[0] if len(parts) > 4 else parts[0]
    return cls, (float(parts[1]), float(parts[2]), float(parts[3]))


def format_coordinate(v: float) -> str:
    """AI2-THOR's id number format: sign, two digits, two decimals. Unity formats a float32, so the
    value is first cut to 7 significant digits, then rounded half away from zero (-1.96499991 ->
    -01.97); a negative value that rounds to zero loses its sign (-0.0015 -> 00.00)."""
    rounded = Decimal(f"{v:.7g}").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if rounded == 0 and v < 0:
        return "00.00"
    return f"{'-' if rounded < 0 else '+'}{abs(rounded):05.2f}"


def object_id(cls: str, position: dict | tuple) -> str:
    x, y, z = (position["x"], position["y"], position["z"]) if isinstance(position, dict) else position
    return f"{cls}|{format_coordinate(x)}|{format_coordinate(y)}|{format_coordinate(z)}"


def floor_plan_number(floor_plan: str) -> int:
    return int(floor_plan.removeprefix("FloorPlan"))


def walked_cells(scene: dict, low_actions: list[dict]) -> list[tuple[int, int]]:
    """The cells a trajectory stands on: its start and every MoveAhead's destination (dead reckoning)."""
    init = scene["init_action"]
    x, z, yaw = to_cell(init["x"], init["z"]) + (int(round(init["rotation"])) % 360,)
    cells = [(x, z)]
    for low in low_actions:
        name = low["api_action"]["action"]
        if name == "MoveAhead":
            x += round(math.sin(math.radians(yaw)))
            z += round(math.cos(math.radians(yaw)))
            cells.append((x, z))
        elif name in ("RotateLeft", "RotateRight"):
            yaw = (yaw + (90 if name == "RotateRight" else -90)) % 360
    return cells


def fixed_box(cls: str, position: Position, catalog: Catalog) -> Box:
    """A class-sized box placed on a fixed object's AI2-THOR position, which sits at the bottom of
    most classes (fridges, lamps, tables), mid-height of cabinets and drawers, at the top of counters."""
    (x, y, z), (w, h, d) = position, catalog[cls].size
    below = {"bottom": 0.0, "centre": h / 2, "top": h}[catalog[cls].pivot]
    return Box((x - w / 2, y - below, z - d / 2), (x + w / 2, y - below + h, z + d / 2))


def _nearest_of_class(ids: Iterable[str], cls: str, position: Position) -> str | None:
    candidates = [oid for oid in ids if parse_object_id(oid)[0] == cls]
    if not candidates:
        return None
    return min(candidates, key=lambda oid: sum((a - b) ** 2 for a, b in zip(parse_object_id(oid)[1], position)))


def _near(a: Position, b: Position, tolerance: float = 0.05) -> bool:
    return all(abs(p - q) <= tolerance for p, q in zip(a, b))


@dataclass
class FloorPlanEvidence:
    """What the trajectories of one floor plan say about it."""

    cells_start: set[tuple[int, int]] = field(default_factory=set)
    cells_walked: set[tuple[int, int]] = field(default_factory=set)
    object_ids: set[str] = field(default_factory=set)  # fixed objects the trajectories' actions name
    support: list[tuple[str, Position, Position]] = field(
        default_factory=list
    )  # receptacle class, its and an object's position
    planner_receptacles: set[tuple[str, Position]] = field(default_factory=set)  # receptacles the planner used
    used_unopened: list[tuple[str, Position | None, frozenset[str]]] = field(
        default_factory=list
    )  # see _used_before_opening
    camera_heights: list[float] = field(default_factory=list)


def planner_position(coordinates: list[float]) -> Position:
    """ALFRED's planner coordinates ([x, x, z, z, y, y] in quarter metres) -> (x, y, z) in metres."""
    return coordinates[0] / 4, coordinates[4] / 4, coordinates[2] / 4


def initial_pickups(trajectory: dict) -> list[tuple[str, str, Position]]:
    """(object id, receptacle class, receptacle position) for each object ALFRED's planner picked up
    from where the episode starts it (before the plan moved it)."""
    moved, found = set(), []
    for high in trajectory["plan"].get("high_pddl", []):
        p = high.get("planner_action", {})
        oid = p.get("objectId")
        if p.get("action") == "PickupObject" and oid not in moved and "coordinateReceptacleObjectId" in p:
            cls, coords = p["coordinateReceptacleObjectId"]
            found.append((oid, cls, planner_position(coords)))
        if oid:
            moved.add(oid)
    return found


def _used_before_opening(trajectory: dict) -> list[tuple[str, Position | None, frozenset[str]]]:
    """Receptacles the expert puts into, or takes an object from, before any OpenObject on them:
    (receptacle id, None, opened ids) for puts, (class, planner position, opened ids) for pickups."""
    start = {oid: (rcls, rpos) for oid, rcls, rpos in initial_pickups(trajectory)}
    opened: set[str] = set()
    moved: set[str] = set()
    found = []
    for low in trajectory["plan"]["low_actions"]:
        api = low["api_action"]
        if api["action"] == "OpenObject":
            opened.add(api["objectId"])
        elif api["action"] == "PutObject":
            found.append((api["receptacleObjectId"], None, frozenset(opened)))
            moved.add(api.get("objectId"))
        elif api["action"] == "PickupObject":
            if api["objectId"] in start and api["objectId"] not in moved:
                found.append((*start[api["objectId"]], frozenset(opened)))
            moved.add(api["objectId"])
    return found


def gather_evidence(trajectories: Iterable[dict]) -> dict[str, FloorPlanEvidence]:
    evidence: dict[str, FloorPlanEvidence] = defaultdict(FloorPlanEvidence)
    for t in trajectories:
        e = evidence[t["scene"]["floor_plan"]]
        cells = walked_cells(t["scene"], t["plan"]["low_actions"])
        e.cells_start.add(cells[0])
        e.cells_walked.update(cells[1:])
        e.camera_heights.append(t["scene"]["init_action"].get("y", 0.9) + CAMERA_ABOVE_AGENT)
        posed = {o["objectName"].split("_")[0] for o in t["scene"].get("object_poses", [])}
        for low in t["plan"]["low_actions"]:
            api = low["api_action"]
            for key in ("objectId", "receptacleObjectId"):
                oid = api.get(key)
                if oid and oid.split("|")[0] not in posed:
                    e.object_ids.add(oid)
        for oid, rcls, rpos in initial_pickups(t):
            _, opos = parse_object_id(oid)
            e.support.append((rcls, rpos, opos))
        for high in t["plan"].get("high_pddl", []):
            p = high.get("planner_action", {})
            if "coordinateReceptacleObjectId" in p:
                rcls, coords = p["coordinateReceptacleObjectId"]
                e.planner_receptacles.add((rcls, planner_position(coords)))
        e.used_unopened.extend(_used_before_opening(t))
    return evidence


def floor_plans_in(layouts: str | Path) -> list[str]:
    """The floor plans whose layout files are in a folder, in ALFRED's numeric order."""
    names = [p.name.removesuffix("-layout.npy") for p in Path(layouts).glob("FloorPlan*-layout.npy")]
    return sorted(names, key=floor_plan_number)


def load_layout(layouts: str | Path, floor_plan: str) -> tuple[np.ndarray, list[str], dict]:
    layouts = Path(layouts)
    files = {kind: layouts / f"{floor_plan}-{kind}" for kind in ("layout.npy", "objects.json", "openable.json")}
    for kind, file in files.items():
        if not file.exists():
            raise DataError(str(file), kind, f"missing: the layout files of {floor_plan} are not in {layouts}")
    try:
        points = np.load(regular_file(files["layout.npy"]), allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise DataError(str(files["layout.npy"]), "(file)", f"unreadable: {e}") from e
    classes, openable = read_json(files["objects.json"]), read_json(files["openable.json"])
    if points.ndim != 2 or points.shape[1] != 2 or not np.issubdtype(points.dtype, np.number):
        raise DataError(str(files["layout.npy"]), "layout.npy", f"expected an (N, 2) array, got shape {points.shape}")
    if not np.isfinite(points).all() or np.abs(points).max(initial=0) > MAX_LAYOUT_METRES:
        problem = f"positions must be finite, within {MAX_LAYOUT_METRES} m"
        raise DataError(str(files["layout.npy"]), "layout.npy", problem)
    if not (isinstance(classes, list) and all(isinstance(c, str) for c in classes)):
        raise DataError(str(files["objects.json"]), "(file)", "expected a list of object class names")
    if not isinstance(openable, dict):
        problem = "expected an object: object id -> [x, z, rotation, horizon]"
        raise DataError(str(files["openable.json"]), "(file)", problem)
    for object_id, pose in openable.items():
        if not (isinstance(pose, list) and len(pose) == 4 and all(_finite(v) for v in pose)):
            raise DataError(str(files["openable.json"]), object_id, f"expected [x, z, rotation, horizon], got {pose!r}")
    return points, classes, openable


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) <= MAX_LAYOUT_METRES * 100


def _class_sized_boxes(
    floor_plan: str, ids: list[str], poses: dict[str, tuple[Pose, ...]], catalog: Catalog
) -> dict[str, Box]:
    boxes = {}
    for oid in ids:
        cls, position = parse_object_id(oid)
        if cls not in catalog.classes:
            raise DataError(floor_plan, "object id", f"{oid!r} has unknown class {cls!r}")
        boxes[oid] = fixed_box(cls, position, catalog)
        # Furniture faces the room: used from a pose looking along x, its width runs along z.
        if poses.get(oid) and poses[oid][0].yaw in (90, 270):
            boxes[oid] = boxes[oid].turned()
    return boxes


def _standing_under_their_positions(boxes: dict[str, Box], catalog: Catalog) -> int:
    """Floor furniture whose position is high above the floor reaches from the floor up to it, rather
    than a class height up from it (a dining table's box at eye level)."""
    moved = 0
    for oid, box in boxes.items():
        cls, (_, y, _) = parse_object_id(oid)
        if cls in FLOOR_FURNITURE and y > catalog[cls].size[1] / 3:
            boxes[oid] = Box((box.lo[0], 0.0, box.lo[2]), (box.hi[0], y, box.hi[2]))
            moved += 1
    return moved


def _add_planner_receptacles(boxes: dict[str, Box], planner: set[tuple[str, Position]], catalog: Catalog) -> int:
    """Receptacles only ALFRED's planner names (a stove burner objects start on), with ids rebuilt from
    its coordinates. A basin's id carries its sink's position (often on the floor), not its own: it
    matches loosely, and on the floor plane only."""
    added = 0
    for rcls, rpos in sorted(planner):
        known = [(oid.count("|") > 3, parse_object_id(oid)[1]) for oid in boxes if parse_object_id(oid)[0] == rcls]
        if any(
            _near((p[0], 0.0, p[2]), (rpos[0], 0.0, rpos[2]), 0.6) if suffixed else _near(p, rpos)
            for suffixed, p in known
        ):
            continue
        if rcls in catalog.classes and not catalog[rcls].pickupable:
            boxes[object_id(rcls, rpos)] = fixed_box(rcls, rpos, catalog)
            added += 1
    return added


def _grow_to_cover_what_they_hold(boxes: dict[str, Box], support: list[tuple[str, Position, Position]]) -> int:
    """Grows each receptacle's box over the start positions of objects the planner picked up from it."""
    grown = 0
    for rcls, rpos, opos in support:
        rid = _nearest_of_class(boxes, rcls, rpos)
        if rid is not None and not all(lo <= p <= hi for lo, p, hi in zip(boxes[rid].lo, opos, boxes[rid].hi)):
            boxes[rid] = boxes[rid].union_point(opos)
            grown += 1
    return grown


def _behind_door(box: Box, door: float, front: tuple[int, int]) -> Box:
    """A cabinet's box from its door back. AI2-THOR puts a cabinet's position on its door (under train's
    counter tops, base cabinets' positions lie 0.06 m behind the counter's front edge, wall cabinets'
    0.37 m in front of its back; what ALFRED's planner took from cabinets lay 0.07 to 0.27 m behind them),
    while a class-sized box is centred there, half of it sticking out into the room (and over the
    places the agent stands in front of it)."""
    axis, sign = (0, front[0]) if front[0] else (2, front[1])
    lo, hi = list(box.lo), list(box.hi)
    if sign > 0 and door - lo[axis] >= MIN_DEPTH:
        hi[axis] = min(hi[axis], door)
    elif sign < 0 and hi[axis] - door >= MIN_DEPTH:
        lo[axis] = max(lo[axis], door)
    return Box(tuple(lo), tuple(hi))


def _cut_at_doors(boxes: dict[str, Box], poses: dict[str, tuple[Pose, ...]], standing: np.ndarray) -> None:
    for oid, box in boxes.items():
        cls, position = parse_object_id(oid)
        if cls in DOOR_AT_POSITION:
            front = front_of(box, poses.get(oid, ()), standing)
            boxes[oid] = _behind_door(box, position[0 if front[0] else 2], front)


def _open_at_start(
    boxes: dict[str, Box], used_unopened: list[tuple[str, Position | None, frozenset[str]]], catalog: Catalog
) -> set[str]:
    """ALFRED's expert only opens what is closed: an openable receptacle it takes from or puts into
    without opening it first is open in that scene (AI2-THOR has door-less cabinets and open drawers)."""
    starts_open = set()
    for what, where, opened in used_unopened:
        match = what if where is None else _nearest_of_class(boxes, what, where)
        if match in boxes and match not in opened and catalog[parse_object_id(match)[0]].openable:
            starts_open.add(match)
    return starts_open


def build_scene(
    floor_plan: str, layouts: str | Path, evidence: FloorPlanEvidence, catalog: Catalog | None = None
) -> Scene:
    catalog = catalog or alfred_catalog()
    points, _, openable = load_layout(layouts, floor_plan)
    layout_cells = {to_cell(x, z) for x, z in points}
    start_cells = evidence.cells_start - layout_cells
    walked_cells_ = evidence.cells_walked - layout_cells - start_cells
    reachable = frozenset(layout_cells | start_cells | walked_cells_)

    poses = {
        oid: (Pose(float(x), float(z), int(yaw) % 360, int(horizon)),) for oid, (x, z, yaw, horizon) in openable.items()
    }
    from_trajectories = {oid for oid in evidence.object_ids if oid not in poses}
    boxes = _class_sized_boxes(floor_plan, list(poses) + sorted(from_trajectories), poses, catalog)
    from_planner = _add_planner_receptacles(boxes, evidence.planner_receptacles, catalog)
    topped = _standing_under_their_positions(boxes, catalog)
    grown = _grow_to_cover_what_they_hold(boxes, evidence.support)
    _cut_at_doors(boxes, poses, standing_points(reachable))
    starts_open = _open_at_start(boxes, evidence.used_unopened, catalog)
    fixed = {
        oid: FixedObject(
            oid, parse_object_id(oid)[0], parse_object_id(oid)[1], box, poses.get(oid, ()), oid in starts_open
        )
        for oid, box in boxes.items()
    }
    heights = evidence.camera_heights
    return Scene(
        id=floor_plan,
        room_type=catalog.room_type_of_floor_plan(floor_plan_number(floor_plan)),
        reachable=reachable,
        fixed=fixed,
        camera_height=float(np.median(heights)) if heights else catalog.agent["camera_height"],
        provenance={
            "cells_from_layout": len(layout_cells),
            "cells_from_start_poses": len(start_cells),
            "cells_from_expert_paths": len(walked_cells_),
            "fixed_from_openable": len(poses),
            "fixed_from_trajectories": len(from_trajectories),
            "fixed_from_planner": from_planner,
            "extents_under_their_position": topped,
            "extents_grown_by_pickups": grown,
            "open_at_start_from_expert": len(starts_open),
        },
    )
