"""Where things are and what an agent can see, computed from geometry alone (no renderer).

ALFRED's rule: an object can be interacted with when it is visible: within 1.5 m of the agent and in
the camera's view at the current yaw and horizon, and not shut inside a closed receptacle. The view is
the camera's own pinhole frustum (90 degree field of view both ways), as AI2-THOR tests it, not a wedge
of bearings: pitched down, the image's bottom corners reach wider than 45 degrees to either side. We
test the object's extent, not its centre: a counter top or a bed is usable from anywhere along it, and
a floor lamp's switch is far above its pivot. Occlusion is not modelled.
"""

from __future__ import annotations

import math

import numpy as np

from homesim.world.catalog import Catalog
from homesim.world.scene import GRID_SIZE, Box, Scene
from homesim.world.state import AgentState, State

YAW_STEP = {0: (0, 1), 90: (1, 0), 180: (0, -1), 270: (-1, 0)}
VISIBILITY_DISTANCE = 1.5
HALF_FOV = 45.0  # the camera's field of view is 90 degrees, horizontally and vertically
_T = math.tan(math.radians(HALF_FOV))
NEAR_PLANE = 0.02  # metres: the camera sees nothing closer
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


def _heading_frame(dx, dz, yaw: float):
    """Offsets on the floor plan as (ahead, right) of an agent facing `yaw` (0 faces +z, 90 faces +x)."""
    sin, cos = math.sin(math.radians(yaw)), math.cos(math.radians(yaw))
    return dx * sin + dz * cos, dx * cos - dz * sin


def _visible_heights(ahead_, right, horizon: float) -> tuple[np.ndarray, np.ndarray]:
    """For vertical lines at (ahead, right) from the camera, the heights relative to the camera where each
    line is inside the view: the pinhole camera's frustum (HALF_FOV both ways), pitched down by `horizon`.

    In camera coordinates a point at height t is forward f = c*ahead - s*t, up u = s*ahead + c*t (s, c the
    sine and cosine of the pitch), right = right; it is in view when |right| <= T*f and |u| <= T*f
    (T = tan HALF_FOV), in front of the near plane. Each bound is linear in t, so a line meets the frustum
    on one interval [lo, hi] (empty when lo > hi)."""
    ahead_, right = np.asarray(ahead_, dtype=np.float64), np.asarray(right, dtype=np.float64)
    s, c = math.sin(math.radians(horizon)), math.cos(math.radians(horizon))
    lo, hi = np.full(ahead_.shape, -np.inf), np.full(ahead_.shape, np.inf)
    bounds = (  # k * t <= m
        (s, c * ahead_ - NEAR_PLANE),  # f >= near
        (_T * s, _T * c * ahead_ - np.abs(right)),  # |right| <= T f
        (c + _T * s, (_T * c - s) * ahead_),  # u <= T f
        (_T * s - c, (_T * c + s) * ahead_),  # -u <= T f
    )
    for k, m in bounds:
        if abs(k) < 1e-12:
            hi = np.where(m >= 0, hi, -np.inf)
        elif k > 0:
            hi = np.minimum(hi, m / k)
        else:
            lo = np.maximum(lo, m / k)
    return lo, hi


def _wedge_tan(horizon: float) -> float | None:
    """tan of the widest bearing (on the floor plan) the view reaches at this pitch, or None when it
    reaches behind the agent's shoulders (looking steeply down or up, the image's corners lean back)."""
    s, c = math.sin(math.radians(horizon)), math.cos(math.radians(horizon))
    along = c - _T * abs(s)  # the corner rays' component along the heading
    return _T / along if along > 1e-9 else None


def _segments_seen(px, pz, y0: float, y1: float, agent: AgentState, camera_height: float) -> np.ndarray:
    """Per vertical segment (px, y0..y1, pz): within reach and meeting the camera's view."""
    dx, dz = np.asarray(px, dtype=np.float64) - agent.x, np.asarray(pz, dtype=np.float64) - agent.z
    ahead_, right = _heading_frame(dx, dz, agent.yaw)
    lo, hi = _visible_heights(ahead_, right, agent.horizon)
    t0, t1 = y0 - camera_height, y1 - camera_height
    return (np.hypot(dx, dz) <= VISIBILITY_DISTANCE) & (np.maximum(lo, t0) <= np.minimum(hi, t1))


def _nearest_footprint_point(box: Box, agent: AgentState) -> tuple[float, float]:
    return min(max(agent.x, box.lo[0]), box.hi[0]), min(max(agent.z, box.lo[2]), box.hi[2])


def _sample_points(box: Box, agent: AgentState) -> np.ndarray:
    """The footprint points visibility tests (N, 2), the one nearest the agent first."""
    return np.array([_nearest_footprint_point(box, agent), *_footprint_points(box)], dtype=np.float64)


def in_view(box: Box, agent: AgentState, camera_height: float) -> bool:
    """Whether any part of `box` is within reach and inside the camera's view."""
    nx, nz = _nearest_footprint_point(box, agent)
    if math.hypot(nx - agent.x, nz - agent.z) > VISIBILITY_DISTANCE:
        return False
    points = _sample_points(box, agent)
    return bool(_segments_seen(points[:, 0], points[:, 1], box.lo[1], box.hi[1], agent, camera_height).any())


def visible_point(box: Box, agent: AgentState, camera_height: float) -> tuple[float, float, float] | None:
    """The nearest point of `box` the agent sees, or None. Its height is where the camera's centre
    ray meets that point's distance, clamped to the part of the box in view there, so an object put
    there lies where the agent was looking."""
    nx, nz = _nearest_footprint_point(box, agent)
    if math.hypot(nx - agent.x, nz - agent.z) > VISIBILITY_DISTANCE:
        return None
    points = _sample_points(box, agent)
    seen = _segments_seen(points[:, 0], points[:, 1], box.lo[1], box.hi[1], agent, camera_height)
    if not seen.any():
        return None
    points = points[seen]
    distances = np.hypot(points[:, 0] - agent.x, points[:, 1] - agent.z)
    px, pz = points[int(np.argmin(distances))]
    ahead_, right = _heading_frame(px - agent.x, pz - agent.z, agent.yaw)
    lo, hi = _visible_heights(ahead_, right, agent.horizon)
    bottom, top = max(box.lo[1], camera_height + float(lo)), min(box.hi[1], camera_height + float(hi))
    look_y = camera_height - max(ahead_, 0.05) * math.tan(math.radians(agent.horizon))
    return float(px), min(max(look_y, bottom), top), float(pz)


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
    wedge = _wedge_tan(agent.horizon)
    found = list(visible_fixed(scene, agent))
    for o in state.objects.values():
        if o.position is None:
            continue
        # Cheap prefilter, generous by MOVABLE_RADIUS: within reach and inside the view's widest wedge.
        dx, dz = o.position[0] - agent.x, o.position[2] - agent.z
        if dx * dx + dz * dz > (VISIBILITY_DISTANCE + MOVABLE_RADIUS) ** 2:
            continue
        ahead_, aside = dx * fx + dz * fz, abs(dx * fz - dz * fx)
        if wedge is not None and aside > ahead_ * wedge + (1 + wedge) * MOVABLE_RADIUS:
            continue
        if _in_view(scene, state, catalog, agent, o.id):
            found.append(o.id)
    return sorted(o for o in found if enclosed(state, catalog, o) is None)


YAWS = (0, 90, 180, 270)
HORIZONS = tuple(range(-30, 61, 15))
_MARGIN = 1e-6  # the vectorised test is this much stricter, so it never accepts what `in_view` rejects


def in_view_from(box: Box, cells: np.ndarray, camera_height: float) -> np.ndarray:
    """`in_view` for one box from many poses at once: cells (M, 2) of grid indices -> bool (M, 4 yaws,
    7 horizons). The same rule (reach, the camera's frustum at each yaw and horizon), vectorised."""
    (x0, y0, z0), (x1, y1, z1) = box.lo, box.hi
    agents = cells.astype(np.float64) * GRID_SIZE
    points = np.array(_footprint_points(box), dtype=np.float64).reshape(1, -1, 2)
    nearest = np.stack([np.clip(agents[:, 0], x0, x1), np.clip(agents[:, 1], z0, z1)], axis=1)[:, None, :]
    points = np.concatenate([np.broadcast_to(points, (len(agents), points.shape[1], 2)), nearest], axis=1)
    dx, dz = points[..., 0] - agents[:, None, 0], points[..., 1] - agents[:, None, 1]
    reach = np.hypot(dx, dz) <= VISIBILITY_DISTANCE - _MARGIN
    t0, t1 = y0 - camera_height, y1 - camera_height
    result = np.zeros((len(agents), len(YAWS), len(HORIZONS)), dtype=bool)
    for i, yaw in enumerate(YAWS):
        ahead_, right = _heading_frame(dx, dz, yaw)
        for j, horizon in enumerate(HORIZONS):
            lo, hi = _visible_heights(ahead_, right, horizon)
            result[:, i, j] = (reach & (np.maximum(lo, t0) + _MARGIN <= np.minimum(hi, t1))).any(axis=1)
    return result
