"""The camera's view of one box from one agent pose, computed from geometry alone (no renderer).

ALFRED's rule: an object can be interacted with when it is visible: within 1.5 m of the agent and in
the camera's view at the current yaw and horizon, and not shut inside a closed receptacle. The view is
the camera's own pinhole frustum (90 degree field of view both ways), as AI2-THOR tests it, not a wedge
of bearings: pitched down, the image's bottom corners reach wider than 45 degrees to either side. We
test the object's extent, not its centre: a counter top or a bed is usable from anywhere along it, and
a floor lamp's switch is far above its pivot. Occlusion is not modelled. This module is the frustum's
arithmetic; `views` answers it for every discrete pose at once, `geometry` for the objects of a state.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

from homesim.world.scene import Box
from homesim.world.state import AgentState

VISIBILITY_DISTANCE = 1.5
HALF_FOV = 45.0  # the camera's field of view is 90 degrees, horizontally and vertically
TAN_HALF_FOV = math.tan(math.radians(HALF_FOV))
NEAR_PLANE = 0.02  # metres: the camera sees nothing closer
MOVABLE_RADIUS = 0.5  # no movable object reaches farther than this from its position, any way
SAMPLE_SPACING = 0.1  # metres between the points of an extent's footprint that visibility tests
YAWS = (0, 90, 180, 270)
HORIZONS = tuple(range(-30, 61, 15))


@functools.lru_cache(maxsize=65536)  # boxes recur: fixed ones always, movable ones per (class, position)
def footprint_points(box: Box) -> tuple[tuple[float, float], ...]:
    """Points covering a box's floor footprint, at most SAMPLE_SPACING apart: the grid of `footprint_axes`,
    x by x."""
    xs, zs = footprint_axes(box)
    return tuple((x, z) for x in xs for z in zs)


def footprint_axes(box: Box) -> tuple[list[float], list[float]]:
    """The x and the z coordinates of a box's footprint points."""
    (x0, _, z0), (x1, _, z1) = box.lo, box.hi
    nx = max(1, math.ceil((x1 - x0) / SAMPLE_SPACING))
    nz = max(1, math.ceil((z1 - z0) / SAMPLE_SPACING))
    return [x0 + (x1 - x0) * i / nx for i in range(nx + 1)], [z0 + (z1 - z0) * j / nz for j in range(nz + 1)]


@functools.lru_cache(maxsize=64)
def sin_cos(degrees: float) -> tuple[float, float]:
    return math.sin(math.radians(degrees)), math.cos(math.radians(degrees))


def heading_frame(dx, dz, yaw: float):
    """Offsets on the floor plan as (ahead, right) of an agent facing `yaw` (0 faces +z, 90 faces +x)."""
    sin, cos = sin_cos(yaw)
    return dx * sin + dz * cos, dx * cos - dz * sin


Row = tuple[float, float, float]  # (p, q, w): the value p * ahead + q * |right| + w


@functools.lru_cache(maxsize=64)
def view_limits(horizon: float) -> tuple[tuple[Row, ...], tuple[Row, ...], tuple[Row, ...]]:
    """The camera's view, pitched down by `horizon`, as limits on the height t (relative to the camera)
    of the points of a vertical line at (ahead, right) from it: t <= row for each upper row, t >= row
    for each lower row, and row >= 0 for each condition on the line itself.

    In camera coordinates a point at height t is forward f = c*ahead - s*t, up u = s*ahead + c*t (s, c the
    sine and cosine of the pitch), right = right; it is in view when |right| <= T*f and |u| <= T*f
    (T = tan HALF_FOV: the pinhole frustum), in front of the near plane. Each is linear in t, k*t <= m,
    so a line meets the frustum on one interval of heights."""
    s, c = math.sin(math.radians(horizon)), math.cos(math.radians(horizon))
    bounds = (  # k, and m as a row
        (s, (c, 0.0, -NEAR_PLANE)),  # f >= near
        (TAN_HALF_FOV * s, (TAN_HALF_FOV * c, -1.0, 0.0)),  # |right| <= T f
        (c + TAN_HALF_FOV * s, (TAN_HALF_FOV * c - s, 0.0, 0.0)),  # u <= T f
        (TAN_HALF_FOV * s - c, (TAN_HALF_FOV * c + s, 0.0, 0.0)),  # -u <= T f
    )
    upper, lower, conditions = [], [], []
    for k, (p, q, w) in bounds:
        if abs(k) < 1e-12:
            conditions.append((p, q, w))
        else:
            (upper if k > 0 else lower).append((p / k, q / k, w / k))
    return tuple(upper), tuple(lower), tuple(conditions)


def _beside_the_view(ahead_: float, right: float, radius: float, t_low: float, t_high: float, horizon: float) -> bool:
    """A cheap rejection that holds for every point within `radius` (on the floor plan) of (ahead, right)
    from the camera, at heights t_low..t_high relative to it: all lie beyond the frustum's side planes,
    |right| > T*f. Looking down, f = c*ahead - s*t is largest at the lowest point, looking up at the highest."""
    s, c = sin_cos(horizon)
    t = t_low if s >= 0 else t_high
    return abs(right) - radius > TAN_HALF_FOV * (c * (ahead_ + radius) - s * t) + 1e-9


def _nearest_footprint_point(box: Box, agent: AgentState) -> tuple[float, float]:
    return min(max(agent.x, box.lo[0]), box.hi[0]), min(max(agent.z, box.lo[2]), box.hi[2])


def _surely_unseen(box: Box, agent: AgentState, camera_height: float) -> bool:
    """Cheap rejections that hold for every point of the box: beyond reach, beside the view, or above or
    below every ray (pitch +- HALF_FOV)."""
    nx, nz = _nearest_footprint_point(box, agent)
    near = math.hypot(nx - agent.x, nz - agent.z)
    if near > VISIBILITY_DISTANCE:
        return True
    cx, cz = (box.lo[0] + box.hi[0]) / 2 - agent.x, (box.lo[2] + box.hi[2]) / 2 - agent.z
    radius, distance = math.hypot(box.hi[0] - box.lo[0], box.hi[2] - box.lo[2]) / 2, math.hypot(cx, cz)
    y0, y1 = box.lo[1], box.hi[1]
    ahead_, right = heading_frame(cx, cz, agent.yaw)
    if _beside_the_view(ahead_, right, radius, y0 - camera_height, y1 - camera_height, agent.horizon):
        return True
    near, far = max(near, 1e-3), distance + radius
    top = math.degrees(math.atan2(y1 - camera_height, near if y1 > camera_height else far))
    bottom = math.degrees(math.atan2(y0 - camera_height, near if y0 < camera_height else far))
    return bottom > -agent.horizon + HALF_FOV + 1e-6 or top < -agent.horizon - HALF_FOV - 1e-6


def _seen_columns(box: Box, agent: AgentState, camera_height: float):
    """The footprint points of `box` whose vertical segment is within reach and in view (the box's point
    nearest the agent first), each as (x, z, its distance ahead, its lowest and highest visible height
    relative to the camera). The hot loop of visibility: `view_limits` read inline, point by point."""
    upper, lower, conditions = view_limits(agent.horizon)
    sin, cos = sin_cos(agent.yaw)
    t0, t1 = box.lo[1] - camera_height, box.hi[1] - camera_height
    reach = VISIBILITY_DISTANCE**2
    for px, pz in (_nearest_footprint_point(box, agent), *footprint_points(box)):
        dx, dz = px - agent.x, pz - agent.z
        if dx * dx + dz * dz > reach:
            continue
        ahead_, right = dx * sin + dz * cos, abs(dx * cos - dz * sin)
        if any(p * ahead_ + q * right + w < 0 for p, q, w in conditions):
            continue
        lo, hi = t0, t1
        for p, q, w in upper:
            hi = min(hi, p * ahead_ + q * right + w)
        for p, q, w in lower:
            lo = max(lo, p * ahead_ + q * right + w)
        if lo <= hi:
            yield px, pz, ahead_, lo, hi


def in_view(box: Box, agent: AgentState, camera_height: float) -> bool:
    """Whether any part of `box` is within reach and inside the camera's view."""
    if _surely_unseen(box, agent, camera_height):
        return False
    return next(_seen_columns(box, agent, camera_height), None) is not None


def visible_point(box: Box, agent: AgentState, camera_height: float) -> tuple[float, float, float] | None:
    """The nearest point of `box` the agent sees, or None. Its height is where the camera's centre
    ray meets that point's distance, clamped to the part of the box in view there, so an object put
    there lies where the agent was looking."""
    if _surely_unseen(box, agent, camera_height):
        return None
    nearest = min(
        _seen_columns(box, agent, camera_height),
        key=lambda column: (column[0] - agent.x) ** 2 + (column[1] - agent.z) ** 2,
        default=None,
    )
    if nearest is None:
        return None
    px, pz, ahead_, lo, hi = nearest
    bottom, top = camera_height + lo, camera_height + hi
    look_y = camera_height - max(ahead_, 0.05) * math.tan(math.radians(agent.horizon))
    return px, min(max(look_y, bottom), top), pz


def centre_ray_hit(box: Box, agent: AgentState, camera_height: float) -> tuple[float, float, float] | None:
    """Where the camera's centre ray first enters `box`, if it does within reach (and the camera is not
    inside it), else None."""
    s, c = sin_cos(agent.horizon)
    sy, cy = sin_cos(agent.yaw)
    origin, direction = (agent.x, camera_height, agent.z), (c * sy, -s, c * cy)
    enter, leave = -math.inf, math.inf
    for o, d, lo, hi in zip(origin, direction, box.lo, box.hi):
        if abs(d) < 1e-12:
            if not lo <= o <= hi:
                return None
            continue
        t0, t1 = sorted(((lo - o) / d, (hi - o) / d))
        enter, leave = max(enter, t0), min(leave, t1)
    if enter > leave or enter < NEAR_PLANE or enter * c > VISIBILITY_DISTANCE:
        return None
    return tuple(o + enter * d for o, d in zip(origin, direction))


def put_spots(box: Box, agent: AgentState, camera_height: float) -> Iterator[tuple[float, float, float]]:
    """Where an object put on `box` may land, best first: where the agent looks (the centre ray's first
    point on the box, or where the ray misses it, the nearest point of the box in view), then the box's
    other points in view, nearest that one first, each at its height clamped into view. Nothing if no
    part of the box is in view."""
    first = centre_ray_hit(box, agent, camera_height) or visible_point(box, agent, camera_height)
    if first is None:
        return
    yield first
    fx, fy, fz = first
    others = sorted(
        ((px - fx) ** 2 + (pz - fz) ** 2, px, min(max(fy, camera_height + lo), camera_height + hi), pz)
        for px, pz, _, lo, hi in _seen_columns(box, agent, camera_height)
    )
    yield from ((x, y, z) for _, x, y, z in others)


def near_the_view(position: tuple[float, float, float], agent: AgentState, camera_height: float) -> bool:
    """The cheap prefilter of `visible_objects`, generous by MOVABLE_RADIUS (each way): within reach and
    not beside the view."""
    (x, y, z), r = position, MOVABLE_RADIUS
    dx, dz = x - agent.x, z - agent.z
    if dx * dx + dz * dz > (VISIBILITY_DISTANCE + MOVABLE_RADIUS) ** 2:
        return False
    ahead_, right = heading_frame(dx, dz, agent.yaw)
    return not _beside_the_view(ahead_, right, r, y - r - camera_height, y + r - camera_height, agent.horizon)
