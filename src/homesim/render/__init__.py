"""Egocentric pixels (RGB, depth, instance segmentation), interaction masks, top-down maps and videos.

Only `Renderer` needs OpenGL (EGL, headless); masks and maps are numpy and work without it.
"""

from homesim.render.context import RenderingUnavailable
from homesim.render.renderer import ALFRED, OBJECTNAV, Frame, Renderer

__all__ = ["ALFRED", "OBJECTNAV", "Frame", "Renderer", "RenderingUnavailable"]
