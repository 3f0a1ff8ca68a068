"""What things look like: one primitive shape per object class, a stable colour per class, and the
cheap state cues (open containers, a dirty tint, a lit lamp, hot and cold tints).

Every shape is drawn inside the object's axis-aligned box (the extent the engine's visibility rule
uses; sliced pieces inside their whole's), so a shape never shows where the engine has nothing. Meshes are triangle lists in
unit coordinates ([-1, 1] on each axis) with outward normals; the renderer scales each instance by
the object's half extents.
"""

from __future__ import annotations

import colorsys
import itertools
import math
import zlib
from functools import cache

import numpy as np

# Shapes. A *shell* is a box with its top and one side (its front, +x/-x/+z/-z) missing: an open
# fridge, cabinet or drawer, or a dresser housing its drawers. A *tray* has only its top missing and a
# *cup* is a cylinder with no top cap: containers that hold things from above.
BOX, TRAY, CYLINDER, CUP, SPHERE = "box", "tray", "cylinder", "cup", "sphere"
SHELLS = {(1, 0): "shell+x", (-1, 0): "shell-x", (0, 1): "shell+z", (0, -1): "shell-z"}
OPEN_SHAPES = frozenset({TRAY, CUP, *SHELLS.values()})  # seen from inside too: drawn double-sided
SHAPES = (BOX, CYLINDER, SPHERE, TRAY, CUP, *SHELLS.values())

CLASS_SHAPES = {
    **dict.fromkeys(("Apple", "Tomato", "Potato", "Egg", "Lettuce", "BasketBall"), SPHERE),
    **dict.fromkeys(("Bowl", "Cup", "Mug", "Pot", "Pan", "GarbageCan", "LaundryHamper"), CUP),
    **dict.fromkeys(("SinkBasin", "BathtubBasin"), TRAY),
    **dict.fromkeys(
        (
            "Plate",
            "Candle",
            "Vase",
            "WineBottle",
            "Glassbottle",
            "SoapBottle",
            "SprayBottle",
            "PepperShaker",
            "SaltShaker",
            "ToiletPaper",
            "ToiletPaperRoll",
            "PaperTowelRoll",
            "Plunger",
            "Kettle",
            "FloorLamp",
            "DeskLamp",
            "StoveBurner",
            "StoveKnob",
            "HousePlant",
        ),
        CYLINDER,
    ),
}

FLOOR_COLOUR = (0.55, 0.47, 0.38)
WALL_COLOUR = (0.82, 0.80, 0.74)
CEILING_COLOUR = (0.92, 0.92, 0.90)
LIT_COLOUR = np.array((1.0, 0.95, 0.7))
DIRT_COLOUR = np.array((0.35, 0.25, 0.12))
HOT_COLOUR = np.array((0.95, 0.25, 0.1))
COLD_COLOUR = np.array((0.35, 0.6, 1.0))


@cache
def class_colour(cls: str) -> tuple[float, float, float]:
    """A colour per class that is the same in every process (crc32, not Python's salted hash), so a
    vision model can learn classes from it. Sliced pieces take a lighter shade of their whole."""
    whole, sliced = (cls.removesuffix("Sliced"), True) if cls.endswith("Sliced") else (cls, False)
    h = zlib.crc32(whole.encode())
    hue, saturation, value = (h & 0xFFFF) / 0xFFFF, 0.45 + 0.35 * ((h >> 16) & 0xFF) / 255, 0.5 + 0.4 * (h >> 24) / 255
    if sliced:
        saturation, value = saturation * 0.5, min(1.0, value + 0.25)
    return colorsys.hsv_to_rgb(hue, saturation, value)


def state_colour(base: tuple[float, float, float], dirty: bool, hot: bool, cold: bool) -> np.ndarray:
    """The class colour with the cues of an object's state blended in."""
    colour = np.asarray(base, dtype=np.float32)
    if dirty:
        colour = 0.45 * colour + 0.55 * DIRT_COLOUR
    if hot:
        colour = 0.6 * colour + 0.4 * HOT_COLOUR
    elif cold:
        colour = 0.6 * colour + 0.4 * COLD_COLOUR
    return colour


def lit_colour(base: np.ndarray) -> np.ndarray:
    """A switched-on appliance or lamp glows (drawn unshaded, towards warm white)."""
    return 0.4 * base + 0.6 * LIT_COLOUR


# --- meshes --------------------------------------------------------------------------------------

FACES = {  # outward normal -> the face's two in-plane axes, ordered so the triangles wind counter-clockwise
    (1, 0, 0): ((0, 1, 0), (0, 0, 1)),
    (-1, 0, 0): ((0, 0, 1), (0, 1, 0)),
    (0, 1, 0): ((0, 0, 1), (1, 0, 0)),
    (0, -1, 0): ((1, 0, 0), (0, 0, 1)),
    (0, 0, 1): ((1, 0, 0), (0, 1, 0)),
    (0, 0, -1): ((0, 1, 0), (1, 0, 0)),
}


def _box(missing: tuple[tuple[int, int, int], ...] = ()) -> np.ndarray:
    rows = []
    for normal, (a, b) in FACES.items():
        if normal in missing:
            continue
        n, a, b = np.array(normal, float), np.array(a, float), np.array(b, float)
        corners = [n - a - b, n + a - b, n + a + b, n - a + b]
        for i in (0, 1, 2, 0, 2, 3):
            rows.append((*corners[i], *n))
    return np.array(rows, dtype=np.float32)


def _cylinder(segments: int = 12, top: bool = True) -> np.ndarray:
    rows = []
    ring = [(math.sin(2 * math.pi * i / segments), math.cos(2 * math.pi * i / segments)) for i in range(segments + 1)]
    for (x0, z0), (x1, z1) in itertools.pairwise(ring):
        n0, n1 = (x0, 0.0, z0), (x1, 0.0, z1)
        quad = [((x0, -1, z0), n0), ((x1, -1, z1), n1), ((x1, 1, z1), n1), ((x0, 1, z0), n0)]
        rows += [(*quad[i][0], *quad[i][1]) for i in (0, 1, 2, 0, 2, 3)]
        rows += [(0, -1, 0, 0, -1, 0), (x0, -1, z0, 0, -1, 0), (x1, -1, z1, 0, -1, 0)]
        if top:
            rows += [(0, 1, 0, 0, 1, 0), (x0, 1, z0, 0, 1, 0), (x1, 1, z1, 0, 1, 0)]
    return _outward(np.array(rows, dtype=np.float32))


def _sphere(segments: int = 10, rings: int = 6) -> np.ndarray:
    def point(i: int, j: int) -> tuple[float, float, float]:
        theta, phi = math.pi * j / rings, 2 * math.pi * i / segments
        return math.sin(theta) * math.sin(phi), math.cos(theta), math.sin(theta) * math.cos(phi)

    rows = []
    for j in range(rings):
        for i in range(segments):
            quad = [point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)]
            rows += [(*quad[k], *quad[k]) for k in (0, 1, 2, 0, 2, 3)]  # on a unit sphere, normal = position
    return _outward(np.array(rows, dtype=np.float32))


def _outward(rows: np.ndarray) -> np.ndarray:
    """Drops degenerate triangles (at a sphere's poles) and turns each triangle to wind counter-clockwise
    seen from outside, so that back-face culling keeps the outside of closed shapes."""
    triangles = rows.reshape(-1, 3, 6)
    p = triangles[:, :, :3]
    facing = np.einsum("ij,ij->i", np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), triangles[:, :, 3:].sum(axis=1))
    triangles = triangles[np.abs(facing) > 1e-9]
    flip = facing[np.abs(facing) > 1e-9] < 0
    triangles[flip] = triangles[flip][:, [0, 2, 1]]
    return np.ascontiguousarray(triangles.reshape(-1, 6))


@cache
def mesh(shape: str) -> np.ndarray:
    """(N, 6) float32 rows of position and normal, three rows per triangle."""
    if shape == BOX:
        return _box()
    if shape == TRAY:
        return _box(missing=((0, 1, 0),))
    if shape in SHELLS.values():
        (fx, fz) = next(front for front, name in SHELLS.items() if name == shape)
        return _box(missing=((0, 1, 0), (fx, 0, fz)))
    if shape == CYLINDER:
        return _cylinder()
    if shape == CUP:
        return _cylinder(top=False)
    if shape == SPHERE:
        return _sphere()
    raise ValueError(f"unknown shape {shape!r}; the shapes are {', '.join(SHAPES)}")
