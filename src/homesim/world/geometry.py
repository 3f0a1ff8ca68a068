"""Where things are and what an agent can see, computed from geometry alone (no renderer).

ALFRED's rule: an object can be interacted with when it is visible: within 1.5 m of the agent and in
the camera's view at the current yaw and horizon (90 degree field of view both ways), and not shut
inside a closed receptacle. We test it against the object's extent, not its centre: a counter top
or a bed is usable from anywhere along it, and a floor lamp's switch is far above its pivot.
"""

from __future__ import annotations

import math

import numpy as np

from homesim.world.catalog import Catalog
from homesim.world.scene import GRID_SIZE, Box, Scene
from homesim.world.state import AgentState, State

YAW_STEP = {0: (0, 1), 90: (1, 0), 180: (0, -1), 270: (-1, 0)}
VISIBILITY_DISTANCE = 1.5
HALF_FOV = 45.0
MOVABLE_RADIUS = 0.5  # no movable object reaches farther than this from its position
SAMPLE_SPACING = 0.1  # metres between the points of an extent's footprint that visibility tests


def ahead(agent: AgentState) -> tuple[float, float]:
    dx, dz = YAW_STEP[agent.yaw]
    return agent.x + dx * GRID_SIZE, agent.z + dz * GRID_SIZE


def object_box(scene: Scene, state: State, catalog: Catalog, object_id: str) -> Box | None:
    """The extent of an object now, or None while it is held."""
    fixed = scene.fixed.get(object_id)
    if fixed is not None:
        return fixed.box
    position = state.objects[object_id].position
    if position is None:
        return None
    return Box.around(position, catalog[state.objects[object_id].cls].size)


def enclosed(state: State, catalog: Catalog, object_id: str) -> str | None:
    """The closed receptacle (or the holding agent's hand) that hides an object, if any."""
    for ancestor in state.ancestors(object_id):
        o = state.objects[ancestor]
        if catalog[o.cls].openable and not o.is_open:
            return ancestor
        if state.holder_of(ancestor) is not None:
            return ancestor
    return None


def _footprint_points(box: Box) -> list[tuple[float, float]]:
    """Points covering a box's floor footprint, at most SAMPLE_SPACING apart."""
    (x0, _, z0), (x1, _, z1) = box.lo, box.hi
    nx = max(1, math.ceil((x1 - x0) / SAMPLE_SPACING))
    nz = max(1, math.ceil((z1 - z0) / SAMPLE_SPACING))
    return [(x0 + (x1 - x0) * i / nx, z0 + (z1 - z0) * j / nz) for i in range(nx + 1) for j in range(nz + 1)]


def _sees(px: float, pz: float, y0: float, y1: float, agent: AgentState, camera_height: float) -> bool:
    """Whether the vertical segment (px, y0..y1, pz) is within reach and inside the camera's view."""
    dx, dz = px - agent.x, pz - agent.z
    distance = math.hypot(dx, dz)
    if distance > VISIBILITY_DISTANCE:
        return False
    if distance > 1e-6:
        bearing = (math.degrees(math.atan2(dx, dz)) - agent.yaw + 180.0) % 360.0 - 180.0
        if abs(bearing) > HALF_FOV:
            return False
    d = max(distance, 0.05)
    top = math.degrees(math.atan2(y1 - camera_height, d))
    bottom = math.degrees(math.atan2(y0 - camera_height, d))
    return bottom <= -agent.horizon + HALF_FOV and top >= -agent.horizon - HALF_FOV


def _nearest_footprint_point(box: Box, agent: AgentState) -> tuple[float, float]:
    return min(max(agent.x, box.lo[0]), box.hi[0]), min(max(agent.z, box.lo[2]), box.hi[2])


def in_view(box: Box, agent: AgentState, camera_height: float) -> bool:
    """Whether any part of `box` is within reach and inside the camera's view."""
    nx, nz = _nearest_footprint_point(box, agent)
    if math.hypot(nx - agent.x, nz - agent.z) > VISIBILITY_DISTANCE:
        return False
    # Quick reject: the whole footprint lies outside the view's wedge.
    cx, cz = (box.lo[0] + box.hi[0]) / 2 - agent.x, (box.lo[2] + box.hi[2]) / 2 - agent.z
    radius, distance = math.hypot(box.hi[0] - box.lo[0], box.hi[2] - box.lo[2]) / 2, math.hypot(cx, cz)
    if distance > radius:
        bearing = (math.degrees(math.atan2(cx, cz)) - agent.yaw + 180.0) % 360.0 - 180.0
        if abs(bearing) > HALF_FOV + math.degrees(math.asin(radius / distance)) + 1e-6:
            return False
    # Quick reject: even the box's steepest top or bottom edge is above or below the view.
    y0, y1 = box.lo[1], box.hi[1]
    near, far = max(math.hypot(nx - agent.x, nz - agent.z), 0.05), distance + radius
    top = math.degrees(math.atan2(y1 - camera_height, near if y1 > camera_height else far))
    bottom = math.degrees(math.atan2(y0 - camera_height, near if y0 < camera_height else far))
    if bottom > -agent.horizon + HALF_FOV + 1e-6 or top < -agent.horizon - HALF_FOV - 1e-6:
        return False
    return _sees(nx, nz, y0, y1, agent, camera_height) or any(
        _sees(px, pz, y0, y1, agent, camera_height) for px, pz in _footprint_points(box)
    )


def visible_point(box: Box, agent: AgentState, camera_height: float) -> tuple[float, float, float] | None:
    """The nearest point of `box` the agent sees, or None. Its height is where the camera's centre
    ray meets that point's distance, clamped to the box, so an object put there lies where the agent
    was looking."""
    if not in_view(box, agent, camera_height):
        return None
    points = [_nearest_footprint_point(box, agent)] + _footprint_points(box)
    points.sort(key=lambda p: (p[0] - agent.x) ** 2 + (p[1] - agent.z) ** 2)
    y0, y1 = box.lo[1], box.hi[1]
    for px, pz in points:
        if _sees(px, pz, y0, y1, agent, camera_height):
            d = max(math.hypot(px - agent.x, pz - agent.z), 0.05)
            look_y = camera_height - d * math.tan(math.radians(agent.horizon))
            return px, min(max(look_y, y0), y1), pz
    return None


def visible_fixed(scene: Scene, agent: AgentState) -> frozenset[str]:
    """The fixed objects in view from the agent's pose, ignoring doors. Poses are discrete (cell, yaw,
    horizon), so each scene computes this once per pose and then looks it up."""
    key = (agent.x, agent.z, agent.yaw, agent.horizon)
    seen = scene.pose_visibility.get(key)
    if seen is None:
        seen = frozenset(f.id for f in scene.fixed.values() if in_view(f.box, agent, scene.camera_height))
        scene.pose_visibility[key] = seen
    return seen


def _in_view(scene: Scene, state: State, catalog: Catalog, agent: AgentState, object_id: str) -> bool:
    if object_id in scene.fixed:
        return object_id in visible_fixed(scene, agent)
    obj = state.objects[object_id]
    # Movable objects only move when put down, so (pose, class, position) recurs and is cached too.
    key = (agent.x, agent.z, agent.yaw, agent.horizon, obj.cls, obj.position)
    seen = scene.pose_visibility.get(key)
    if seen is None:
        seen = in_view(Box.around(obj.position, catalog[obj.cls].size), agent, scene.camera_height)
        scene.pose_visibility[key] = seen
    return seen


def why_not_visible(scene: Scene, state: State, catalog: Catalog, agent_index: int, object_id: str) -> str | None:
    """None if the agent can interact with the object, else the reason it cannot."""
    agent = state.agents[agent_index]
    if agent.held == object_id:
        return f"{object_id} is in the agent's hand"
    hider = enclosed(state, catalog, object_id)
    if hider is not None:
        return f"{object_id} is inside {hider}"
    if object_id not in scene.fixed and state.objects[object_id].position is None:
        return f"{object_id} is held by another agent"
    if not _in_view(scene, state, catalog, agent, object_id):
        return f"{object_id} is not in view within {VISIBILITY_DISTANCE} m"
    return None


def visible_objects(scene: Scene, state: State, catalog: Catalog, agent_index: int) -> list[str]:
    """Every object the agent can interact with now (what ALFRED calls visible), in id order."""
    agent = state.agents[agent_index]
    fx, fz = YAW_STEP[agent.yaw]
    found = list(visible_fixed(scene, agent))
    for o in state.objects.values():
        if o.position is None:
            continue
        # Cheap prefilter, generous by MOVABLE_RADIUS: within reach and inside the 90 degree wedge.
        dx, dz = o.position[0] - agent.x, o.position[2] - agent.z
        ahead_, aside = dx * fx + dz * fz, abs(dx * fz - dz * fx)
        if dx * dx + dz * dz > (VISIBILITY_DISTANCE + MOVABLE_RADIUS) ** 2 or aside > ahead_ + 1.5 * MOVABLE_RADIUS:
            continue
        if _in_view(scene, state, catalog, agent, o.id):
            found.append(o.id)
    return sorted(o for o in found if enclosed(state, catalog, o) is None)


YAWS = (0, 90, 180, 270)
HORIZONS = tuple(range(-30, 61, 15))
_MARGIN = 1e-6  # the vectorised test is this much stricter, so it never accepts what `in_view` rejects


def in_view_from(box: Box, cells: np.ndarray, camera_height: float) -> np.ndarray:
    """`in_view` for one box from many poses at once: cells (M, 2) of grid indices -> bool (M, 4 yaws,
    7 horizons). The same rule (reach, 90 degree view, vertical view at each horizon), vectorised."""
    (x0, y0, z0), (x1, y1, z1) = box.lo, box.hi
    agents = cells.astype(np.float64) * GRID_SIZE
    points = np.array(_footprint_points(box), dtype=np.float64).reshape(1, -1, 2)
    nearest = np.stack([np.clip(agents[:, 0], x0, x1), np.clip(agents[:, 1], z0, z1)], axis=1)[:, None, :]
    points = np.concatenate([np.broadcast_to(points, (len(agents), points.shape[1], 2)), nearest], axis=1)
    dx, dz = points[..., 0] - agents[:, None, 0], points[..., 1] - agents[:, None, 1]
    distance = np.hypot(dx, dz)
    reach = distance <= VISIBILITY_DISTANCE - _MARGIN
    bearing = np.degrees(np.arctan2(dx, dz))
    d = np.maximum(distance, 0.05)
    top, bottom = np.degrees(np.arctan2(y1 - camera_height, d)), np.degrees(np.arctan2(y0 - camera_height, d))
    result = np.zeros((len(agents), len(YAWS), len(HORIZONS)), dtype=bool)
    for i, yaw in enumerate(YAWS):
        relative = (bearing - yaw + 180.0) % 360.0 - 180.0
        ahead = reach & ((distance <= 1e-6) | (np.abs(relative) <= HALF_FOV - _MARGIN))
        for j, horizon in enumerate(HORIZONS):
            seen = (bottom <= -horizon + HALF_FOV - _MARGIN) & (top >= -horizon - HALF_FOV + _MARGIN)
            result[:, i, j] = (ahead & seen).any(axis=1)
    return result
