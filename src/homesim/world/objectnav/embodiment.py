"""An agent's body and sensors as configuration: one engine, many robots, no code forks.

`LOCOBOT` is the robot of the 2020 Habitat and RoboTHOR ObjectNav challenges, as the ObjectNav working
group specifies it (`objectnav-revisited.txt`, and habitat-lab's challenge config).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Embodiment:
    """A navigating robot: body, camera, action sizes and the episode's step limit (metres, degrees)."""

    name: str
    radius: float  # the body's footprint; navigability keeps this far from every obstacle
    body_height: float
    camera_height: float  # above the floor
    hfov: float  # horizontal field of view
    width: int  # image size in pixels
    height: int
    depth_range: tuple[float, float]  # depth readings are clipped to this
    forward: float  # MOVE_FORWARD
    turn: int  # TURN_LEFT / TURN_RIGHT
    look: int  # LOOK_UP / LOOK_DOWN
    horizon_min: int  # camera pitch limits, + looks down
    horizon_max: int
    max_steps: int  # actions per episode, STOP included
    sliding: bool = False  # whether a blocked move slides along the obstacle (never, for LoCoBot)

    @property
    def vfov(self) -> float:
        """The vertical field of view that the image's aspect ratio gives a pinhole camera."""
        return math.degrees(2 * math.atan(math.tan(math.radians(self.hfov / 2)) * self.height / self.width))

    @property
    def horizons(self) -> tuple[int, ...]:
        return tuple(range(self.horizon_min, self.horizon_max + 1, self.look))

    @property
    def yaws(self) -> tuple[int, ...]:
        return tuple(range(0, 360, self.turn))

    def renderer_settings(self) -> dict:
        """Keyword arguments for `homesim.render.Renderer` that give this robot's camera."""
        return {"width": self.width, "height": self.height, "fov": self.hfov, "depth_range": self.depth_range}


LOCOBOT = Embodiment(
    name="locobot",
    radius=0.18,
    body_height=0.88,
    camera_height=0.88,
    hfov=79.0,
    width=640,
    height=480,
    depth_range=(0.5, 5.0),
    forward=0.25,
    turn=30,
    look=30,
    horizon_min=-30,
    horizon_max=60,
    max_steps=500,
)
