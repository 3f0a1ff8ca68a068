"""Where things are and what an agent can see, computed from geometry alone (no renderer).

ALFRED's rule: an object can be interacted with when it is visible: within 1.5 m of the agent and in
the camera's view at the current yaw and horizon (90 degree field of view both ways), and not shut
inside a closed receptacle. We test it against the object's extent, not its centre: a counter top
or a bed is usable from anywhere along it, and a floor lamp's switch is far above its pivot.
"""

from __future__ import annotations

import math

from homesim.world.catalog import Catalog
from homesim.world.scene import GRID_SIZE, Box, Scene
from homesim.world.state import AgentState, State

YAW_STEP = {0: (0, 1), 90: (1, 0), 180: (0, -1), 270: (-1, 0)}
VISIBILITY_DISTANCE = 1.5
HALF_FOV = 45.0
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


def _footprint_points(box: Box, x: float, z: float) -> list[tuple[float, float]]:
    """Sample points covering a box's floor footprint, nearest-to-agent first."""
    (x0, _, z0), (x1, _, z1) = box.lo, box.hi
    nx = max(1, math.ceil((x1 - x0) / SAMPLE_SPACING))
    nz = max(1, math.ceil((z1 - z0) / SAMPLE_SPACING))
    points = [(x0 + (x1 - x0) * i / nx, z0 + (z1 - z0) * j / nz) for i in range(nx + 1) for j in range(nz + 1)]
    points.append((min(max(x, x0), x1), min(max(z, z0), z1)))  # the nearest point of the footprint
    points.sort(key=lambda p: (p[0] - x) ** 2 + (p[1] - z) ** 2)
    return points


def visible_point(box: Box, agent: AgentState, camera_height: float) -> tuple[float, float, float] | None:
    """The nearest point of `box` the agent sees (within reach and in view), or None.

    The returned height is where the camera's centre ray meets that point's distance, clamped to the box,
    so an object put there lies where the agent was looking.
    """
    (x0, y0, z0), (x1, y1, z1) = box.lo, box.hi
    nearest = math.hypot(min(max(agent.x, x0), x1) - agent.x, min(max(agent.z, z0), z1) - agent.z)
    if nearest > VISIBILITY_DISTANCE:
        return None
    for px, pz in _footprint_points(box, agent.x, agent.z):
        dx, dz = px - agent.x, pz - agent.z
        distance = math.hypot(dx, dz)
        if distance > VISIBILITY_DISTANCE:
            return None  # points are sorted by distance: the rest are farther
        if distance > 1e-6:
            bearing = (math.degrees(math.atan2(dx, dz)) - agent.yaw + 180.0) % 360.0 - 180.0
            if abs(bearing) > HALF_FOV:
                continue
        d = max(distance, 0.05)
        top = math.degrees(math.atan2(y1 - camera_height, d))
        bottom = math.degrees(math.atan2(y0 - camera_height, d))
        if bottom <= -agent.horizon + HALF_FOV and top >= -agent.horizon - HALF_FOV:
            look_y = camera_height - d * math.tan(math.radians(agent.horizon))
            return px, min(max(look_y, y0), y1), pz
    return None


def why_not_visible(scene: Scene, state: State, catalog: Catalog, agent_index: int, object_id: str) -> str | None:
    """None if the agent can interact with the object, else the reason it cannot."""
    agent = state.agents[agent_index]
    if agent.held == object_id:
        return f"{object_id} is in the agent's hand"
    hider = enclosed(state, catalog, object_id)
    if hider is not None:
        return f"{object_id} is inside {hider}"
    box = object_box(scene, state, catalog, object_id)
    if box is None:
        return f"{object_id} is held by another agent"
    if visible_point(box, agent, scene.camera_height) is None:
        return f"{object_id} is not in view within {VISIBILITY_DISTANCE} m"
    return None
