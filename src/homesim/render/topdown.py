"""A top-down map of a scene for people: the floor, the reachable cells, a house's walls, furniture and
objects in their class colours, the agent's trajectory, and the agent with its view (the engine's 1.5 m,
90 degree wedge); ObjectNav's map adds the goals, their view points, and the shortest path. Drawn with
numpy alone, so it works without OpenGL.

North (+z) is up and +x to the right, as in AI2-THOR's top views.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path

import imageio.v3 as iio
import numpy as np

from homesim.files import replacing
from homesim.render.drawables import room_of
from homesim.render.meshes import FLOOR_COLOUR, WALL_COLOUR, class_colour
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.geometry import HALF_FOV, VISIBILITY_DISTANCE, enclosed
from homesim.world.scene import GRID_SIZE, Box, Scene
from homesim.world.state import State

REACHABLE_COLOUR = (0.80, 0.74, 0.64)
PATH_COLOUR = (0.85, 0.1, 0.1)
START_COLOUR = (0.1, 0.6, 0.2)
AGENT_COLOUR = (0.1, 0.2, 0.85)
OUTLINE = 0.55  # outlines are the fill colour this much darker
VIEW_POINT_COLOUR = (0.2, 0.75, 0.3)  # ObjectNav's success zone
GOAL_COLOUR = (1.0, 0.8, 0.1)
SHORTEST_COLOUR = (0.55, 0.1, 0.65)
NAVIGATION_HALF_FOV, NAVIGATION_VIEW = 39.5, 1.0  # LoCoBot's horizontal field of view, drawn 1 m long


class Canvas:
    """An RGB float image with floor-plan coordinates: (x, z) in metres -> (row, column)."""

    def __init__(self, x0: float, z0: float, x1: float, z1: float, pixels_per_metre: float) -> None:
        self.x0, self.z1, self.scale = x0, z1, pixels_per_metre
        shape = (math.ceil((z1 - z0) * pixels_per_metre), math.ceil((x1 - x0) * pixels_per_metre), 3)
        self.image = np.empty(shape, dtype=np.float32)
        self.image[:] = WALL_COLOUR

    def pixel(self, x: float, z: float) -> tuple[float, float]:
        return (self.z1 - z) * self.scale, (x - self.x0) * self.scale

    def rectangle(self, x0: float, z0: float, x1: float, z1: float, colour, outline=None) -> None:
        r0, c0 = self.pixel(x0, z1)
        r1, c1 = self.pixel(x1, z0)
        height, width = self.image.shape[:2]
        r0, c0 = min(max(int(r0), 0), height - 1), min(max(int(c0), 0), width - 1)
        r1, c1 = min(max(math.ceil(r1), r0 + 1), height), min(max(math.ceil(c1), c0 + 1), width)
        self.image[r0:r1, c0:c1] = colour
        if outline is not None:
            self.image[r0:r1, [c0, c1 - 1]] = outline
            self.image[[r0, r1 - 1], c0:c1] = outline

    def line(self, points: Sequence[tuple[float, float]], colour, width: int = 2) -> None:
        for (xa, za), (xb, zb) in itertools.pairwise(points):
            steps = max(2, int(math.hypot(xb - xa, zb - za) * self.scale * 2))
            for t in np.linspace(0.0, 1.0, steps):
                self.dot(xa + (xb - xa) * t, za + (zb - za) * t, colour, width / 2)

    def dot(self, x: float, z: float, colour, radius: float) -> None:
        r, c = self.pixel(x, z)
        rows = slice(max(int(r - radius), 0), max(math.ceil(r + radius), 0))
        cols = slice(max(int(c - radius), 0), max(math.ceil(c + radius), 0))
        self.image[rows, cols] = colour

    def triangle(self, corners: Sequence[tuple[float, float]], colour) -> None:
        (ra, ca), (rb, cb), (rc, cc) = (self.pixel(x, z) for x, z in corners)
        # within the image: a corner past its edge (an agent standing off the map) would index from the other end
        height, width = self.image.shape[:2]
        r0, c0 = min(int(max(min(ra, rb, rc), 0)), height), min(int(max(min(ca, cb, cc), 0)), width)
        r1, c1 = min(max(math.ceil(max(ra, rb, rc)), r0), height), min(max(math.ceil(max(ca, cb, cc)), c0), width)
        rows, cols = np.mgrid[r0:r1, c0:c1] + 0.5

        def side(r1_, c1_, r2_, c2_):
            return (cols - c1_) * (r2_ - r1_) - (rows - r1_) * (c2_ - c1_)

        s1, s2, s3 = side(ra, ca, rb, cb), side(rb, cb, rc, cc), side(rc, cc, ra, ca)
        inside = ((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0))
        self.image[r0:r1, c0:c1][inside] = colour

    def to_uint8(self) -> np.ndarray:
        return (np.clip(self.image, 0.0, 1.0) * 255).astype(np.uint8)


def _floor_plan(scene: Scene, state: State, pixels_per_metre: float, catalog: Catalog) -> Canvas:
    """The floor, the reachable cells, a house's walls, and the furniture and objects in their colours."""
    room = room_of(scene)
    canvas = Canvas(room.x0, room.z0, room.x1, room.z1, pixels_per_metre)
    canvas.rectangle(room.x0, room.z0, room.x1, room.z1, FLOOR_COLOUR)
    half = GRID_SIZE / 2
    for ix, iz in scene.reachable:
        x, z = ix * GRID_SIZE, iz * GRID_SIZE
        canvas.rectangle(x - half, z - half, x + half, z + half, REACHABLE_COLOUR)
    for wall in scene.walls:
        canvas.rectangle(wall.lo[0], wall.lo[2], wall.hi[0], wall.hi[2], WALL_COLOUR)

    def footprint(box: Box) -> float:
        return (box.hi[0] - box.lo[0]) * (box.hi[2] - box.lo[2])

    for fixed in sorted(scene.fixed.values(), key=lambda f: -footprint(f.box)):  # small ones stay on top
        colour = np.array(class_colour(fixed.cls))
        _draw_box(canvas, fixed.box, colour)
    for obj in state.objects.values():
        if obj.position is not None and obj.id not in scene.fixed and enclosed(state, catalog, obj.id) is None:
            colour = np.array(class_colour(obj.cls))
            _draw_box(canvas, Box.around(obj.position, catalog[obj.cls].size), colour)
    return canvas


def top_down_map(
    scene: Scene,
    state: State,
    trajectory: Sequence[tuple[float, float]] = (),
    agent: int = 0,
    pixels_per_metre: float = 48.0,
    catalog: Catalog | None = None,
    goals: Sequence[Box] = (),
) -> np.ndarray:
    """The map as an (H, W, 3) uint8 image; `trajectory` is the agent's (x, z) positions so far; `goals`
    are outlined (the objects a task names)."""
    canvas = _floor_plan(scene, state, pixels_per_metre, catalog or alfred_catalog())
    for box in goals:
        (x0, _, z0), (x1, _, z1) = box.lo, box.hi
        canvas.line([(x0, z0), (x1, z0), (x1, z1), (x0, z1), (x0, z0)], GOAL_COLOUR, 3)
    if trajectory:
        canvas.line(list(trajectory), PATH_COLOUR)
        canvas.dot(*trajectory[0], START_COLOUR, radius=4)
    me = state.agents[agent]
    _draw_agent(canvas, me.x, me.z, me.yaw)
    return canvas.to_uint8()


def navigation_map(
    scene: Scene,
    state: State,
    goals: Sequence[Box],
    view_points: Sequence[tuple[float, float]],
    shortest_path: Sequence[tuple[float, float]] = (),
    trajectory: Sequence[tuple[float, float]] = (),
    pixels_per_metre: float = 40.0,
    catalog: Catalog | None = None,
) -> np.ndarray:
    """ObjectNav's map: the house, the goal instances outlined, their success zone (the view points), the
    shortest path from the start to the nearest view point (dashed), the agent's path and its final pose
    (facing its yaw, with the camera's horizontal field of view)."""
    canvas = _floor_plan(scene, state, pixels_per_metre, catalog or alfred_catalog())
    for x, z in view_points:
        canvas.dot(x, z, VIEW_POINT_COLOUR, radius=1.5)
    for box in goals:
        canvas.rectangle(
            box.lo[0], box.lo[2], box.hi[0], box.hi[2], np.array(GOAL_COLOUR), np.array(GOAL_COLOUR) * OUTLINE
        )
    for i, (a, b) in enumerate(itertools.pairwise(shortest_path)):
        if i % 2 == 0:  # dashed
            canvas.line([a, b], SHORTEST_COLOUR)
    if trajectory:
        canvas.line(list(trajectory), PATH_COLOUR)
        canvas.dot(*trajectory[0], START_COLOUR, radius=4)
    me = state.agents[0]
    _draw_agent(canvas, me.x, me.z, me.yaw, NAVIGATION_HALF_FOV, NAVIGATION_VIEW)
    return canvas.to_uint8()


def _draw_box(canvas: Canvas, box: Box, colour: np.ndarray) -> None:
    canvas.rectangle(box.lo[0], box.lo[2], box.hi[0], box.hi[2], colour, OUTLINE * colour)


def _draw_agent(
    canvas: Canvas, x: float, z: float, yaw: int, half_fov: float = HALF_FOV, reach: float = VISIBILITY_DISTANCE
) -> None:
    """The view wedge's edges, and a triangle pointing where the agent faces."""
    for side in (-half_fov, half_fov):
        a = math.radians(yaw + side)
        canvas.line([(x, z), (x + reach * math.sin(a), z + reach * math.cos(a))], AGENT_COLOUR, 1)
    a, size = math.radians(yaw), 0.18
    tip = (x + size * math.sin(a), z + size * math.cos(a))
    left = (x + 0.6 * size * math.sin(a - 2.4), z + 0.6 * size * math.cos(a - 2.4))
    right = (x + 0.6 * size * math.sin(a + 2.4), z + 0.6 * size * math.cos(a + 2.4))
    canvas.triangle((tip, left, right), AGENT_COLOUR)


def save_map(path: str | Path, image: np.ndarray) -> None:
    """Writes a map (or any RGB image) as a PNG, whole or not at all."""
    with replacing(path) as temporary:
        iio.imwrite(temporary, image)
