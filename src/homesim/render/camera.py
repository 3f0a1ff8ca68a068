"""The agent's pinhole camera in AI2-THOR's frame: y up, the camera at (agent x, camera height, agent z),
yaw 0 facing +z and 90 facing +x (so +x is on the right when facing +z), horizon positive looking down.

`fov` is the horizontal field of view (habitat's HFOV); the vertical one follows from the aspect ratio.
Depth is the distance along the optical axis (AI2-THOR's and habitat's convention).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Camera:
    width: int = 300
    height: int = 300
    fov: float = 90.0  # horizontal, degrees
    near: float = 0.02  # metres: close enough for a camera right above a counter
    far: float = 50.0
    _factors: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @cached_property
    def tan_half(self) -> tuple[float, float]:
        """tan of half the horizontal and vertical fields of view."""
        tx = math.tan(math.radians(self.fov) / 2)
        return tx, tx / self.aspect

    @property
    def vfov(self) -> float:
        return math.degrees(2 * math.atan(self.tan_half[1]))

    @staticmethod
    def axes(yaw: float, horizon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The camera's right, up and forward unit vectors in the world."""
        right, up, forward = Camera.rotations([yaw], [horizon])[0]
        return right, up, forward

    @staticmethod
    def rotations(yaws: Sequence[float], horizons: Sequence[float]) -> np.ndarray:
        """(n, 3, 3): each camera's right, up and forward unit vectors (rows) in the world."""
        y, h = [math.radians(a) for a in yaws], [math.radians(a) for a in horizons]
        cy, sy = np.array([math.cos(a) for a in y]), np.array([math.sin(a) for a in y])
        ch, sh = np.array([math.cos(a) for a in h]), np.array([math.sin(a) for a in h])
        rows = np.empty((len(y), 3, 3))
        rows[:, 0, 0], rows[:, 0, 1], rows[:, 0, 2] = cy, 0.0, -sy
        rows[:, 1, 0], rows[:, 1, 1], rows[:, 1, 2] = sy * sh, ch, cy * sh
        rows[:, 2, 0], rows[:, 2, 1], rows[:, 2, 2] = sy * ch, -sh, cy * ch
        return rows

    def view_projection(self, eye: tuple[float, float, float], yaw: float, horizon: float) -> np.ndarray:
        """The 4x4 world -> clip matrix. Its w is the depth along the optical axis, and image rows
        run top to bottom (y is flipped), so what OpenGL reads back needs no flip."""
        return self.view_projections([eye], [yaw], [horizon])[0]

    def view_projections(
        self, eyes: Sequence[tuple[float, float, float]], yaws: Sequence[float], horizons: Sequence[float]
    ) -> np.ndarray:
        """(n, 4, 4) float32: `view_projection` of many cameras at once. Every entry is summed term by term in a
        fixed order (no BLAS), so a camera's matrix has the same bits whichever batch computes it."""
        view = np.zeros((len(yaws), 4, 4))
        view[:, :3, :3] = self.rotations(yaws, horizons)
        view[:, 3, 3] = 1.0
        eye, turn = np.asarray(eyes, dtype=float), -view[:, :3, :3]
        view[:, :3, 3] = (
            turn[:, :, 0] * eye[:, None, 0] + turn[:, :, 1] * eye[:, None, 1] + turn[:, :, 2] * eye[:, None, 2]
        )
        n, f = self.near, self.far
        tx, ty = self.tan_half
        projection = np.array(
            [
                [1 / tx, 0, 0, 0],
                [0, -1 / ty, 0, 0],
                [0, 0, (f + n) / (f - n), -2 * f * n / (f - n)],
                [0, 0, 1, 0],
            ]
        )
        terms = projection.T[:, None, :, None] * view.transpose(1, 0, 2)[:, :, None, :]  # (k, n, 4, 4)
        return (terms[0] + terms[1] + terms[2] + terms[3]).astype(np.float32)

    @property
    def depth_terms(self) -> tuple[float, float]:
        """near, and B of the projection's depth mapping z_ndc = A + B / depth (for the shaders)."""
        n, f = self.near, self.far
        return n, -2 * f * n / (f - n)

    def horizontal_factor(self, horizon: float) -> np.ndarray:
        """Per pixel, the horizontal distance from the camera per metre of depth (independent of yaw), so
        `depth * factor` is how far a pixel's surface point lies from the agent on the floor plan."""
        key = float(horizon)
        factor = self._factors.get(key)
        if factor is None:
            tx, ty = self.tan_half
            u = ((np.arange(self.width) + 0.5) / self.width * 2 - 1) * tx
            v = (1 - (np.arange(self.height) + 0.5) / self.height * 2) * ty
            h = math.radians(horizon)
            # ray = u*right + v*up + forward; right is level, and up and forward lean along the heading
            along = v[:, None] * math.sin(h) + math.cos(h)
            factor = np.sqrt(u[None, :] ** 2 + along**2).astype(np.float32)
            self._factors[key] = factor
        return factor
