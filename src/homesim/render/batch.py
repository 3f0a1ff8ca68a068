"""Many views drawn in one pass: one context, the scenes uploaded once, every view into its own layer of a
layered framebuffer (texture arrays; the vertex shader's `gl_Layer` picks the layer), and one read-back
per image kind for the whole batch.

    renderer = BatchRenderer(batch=64, width=128, height=128, fov=79.0, depth_range=(0.5, 5.0))
    frames = renderer.render_many([(scene, state), (other_scene, other_state), ...])
    frames.depth  # (B, 128, 128) float32; frames.rgb (B, 128, 128, 3); frames.segmentation; frames[k]: a Frame

A view is drawn by the single renderer's own code (`Renderer._draw`: the same instances, camera and draw
calls) into a layer whose viewport is the single renderer's, so each frame is the single renderer's frame
of that view to the bit (`tests/test_render_batch.py` checks them against the golden frames). What is
saved is the rest: one framebuffer cleared once, llvmpipe rasterising the whole batch's triangles in one
go (its threads share the layers), and B views read back in one call per image kind.

moderngl makes colour texture arrays but no depth texture array; that one, and the framebuffer holding
them all, are made here through the OpenGL functions EGL hands out (`eglGetProcAddress`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import moderngl
import numpy as np

from homesim.render.context import RenderingUnavailable
from homesim.render.renderer import ATTACHMENTS, IMAGES, SCENES_KEPT, Frame, Renderer
from homesim.render.shaders import LAYERED_VERTEX_SHADER
from homesim.world.scene import Scene
from homesim.world.state import State

EXTENSION = "GL_ARB_shader_viewport_layer_array"  # gl_Layer in a vertex shader
GL_TEXTURE_2D_ARRAY, GL_DEPTH_COMPONENT32F, GL_DEPTH_COMPONENT, GL_FLOAT = 0x8C1A, 0x8CAC, 0x1902, 0x1406
GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER, GL_NEAREST = 0x2801, 0x2800, 0x2600
GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_DEPTH_ATTACHMENT = 0x8D40, 0x8CE0, 0x8D00
GL_FRAMEBUFFER_COMPLETE = 0x8CD5


@dataclass(frozen=True)
class FrameBatch:
    """B views' images stacked (None for an image not drawn) and each view's object ids; `batch[k]` is view
    k's `Frame` (views into these arrays)."""

    rgb: np.ndarray | None  # (B, H, W, 3) uint8
    depth: np.ndarray | None  # (B, H, W) float32
    segmentation: np.ndarray | None  # (B, H, W) int32, indices into object_ids[k] (-1: nothing)
    object_ids: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.object_ids)

    def __getitem__(self, k: int) -> Frame:
        images = (None if a is None else a[k] for a in (self.rgb, self.depth, self.segmentation))
        return Frame(*images, self.object_ids[k])


class _GL:
    """The few OpenGL functions moderngl does not wrap, from the current EGL context."""

    def __init__(self) -> None:
        egl = ctypes.CDLL("libEGL.so.1")
        egl.eglGetProcAddress.restype, egl.eglGetProcAddress.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
        u, i, p = ctypes.c_uint, ctypes.c_int, ctypes.c_void_p
        signatures = {
            "glGenTextures": (None, i, ctypes.POINTER(u)),
            "glBindTexture": (None, u, u),
            "glTexParameteri": (None, u, u, i),
            "glTexImage3D": (None, u, i, i, i, i, i, i, u, u, p),
            "glGenFramebuffers": (None, i, ctypes.POINTER(u)),
            "glBindFramebuffer": (None, u, u),
            "glFramebufferTexture": (None, u, u, u, i),
            "glDrawBuffers": (None, i, ctypes.POINTER(u)),
            "glCheckFramebufferStatus": (u, u),
        }
        for name, (result, *arguments) in signatures.items():
            address = egl.eglGetProcAddress(name.encode())
            if not address:
                raise RenderingUnavailable(f"homesim: this OpenGL has no {name}; batched rendering is off")
            setattr(self, name, ctypes.CFUNCTYPE(result, *arguments)(address))


class BatchRenderer(Renderer):
    """Draws up to `batch` views per pass (more are drawn in several), keeping the geometry of up to `scenes`
    scenes uploaded (a batch's views should not need more); the other arguments are `Renderer`'s.
    Raises `RenderingUnavailable` (one line) where the OpenGL cannot draw into layers from a vertex shader."""

    vertex_shader = LAYERED_VERTEX_SHADER

    def __init__(
        self,
        batch: int,
        width: int = 300,
        height: int = 300,
        fov: float = 90.0,
        depth_range: tuple[float, float] | None = None,
        images: Collection[str] = IMAGES,
        scenes: int = SCENES_KEPT,
    ) -> None:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch={batch!r}: how many views a pass draws, 1 or more")
        try:
            super().__init__(width, height, fov, depth_range, images=images, views=0)
        except moderngl.Error as e:  # the layered shader did not compile
            reason = " ".join(str(e).split())[:200]
            raise RenderingUnavailable(f"homesim: batched rendering needs {EXTENSION} ({reason})") from e
        self.batch, self.scenes_kept = batch, max(scenes, SCENES_KEPT)
        with self.ctx:
            self.layers, self.layered = self._layered_framebuffer()

    def _layered_framebuffer(self) -> tuple[list[moderngl.TextureArray], moderngl.Framebuffer]:
        w, h, gl = self.camera.width, self.camera.height, _GL()
        layers = []
        for image in self.images:
            components, dtype, _ = ATTACHMENTS[image]
            layers.append(self.ctx.texture_array((w, h, self.batch), components, dtype=dtype))
            layers[-1].filter = (moderngl.NEAREST, moderngl.NEAREST)
        depth, framebuffer = ctypes.c_uint(), ctypes.c_uint()
        gl.glGenTextures(1, ctypes.byref(depth))
        gl.glBindTexture(GL_TEXTURE_2D_ARRAY, depth)
        for parameter in (GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER):
            gl.glTexParameteri(GL_TEXTURE_2D_ARRAY, parameter, GL_NEAREST)
        gl.glTexImage3D(
            GL_TEXTURE_2D_ARRAY, 0, GL_DEPTH_COMPONENT32F, w, h, self.batch, 0, GL_DEPTH_COMPONENT, GL_FLOAT, None
        )
        gl.glGenFramebuffers(1, ctypes.byref(framebuffer))
        gl.glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        for k, layer in enumerate(layers):
            gl.glFramebufferTexture(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + k, layer.glo, 0)
        gl.glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, depth.value, 0)
        targets = (ctypes.c_uint * len(layers))(*(GL_COLOR_ATTACHMENT0 + k for k in range(len(layers))))
        gl.glDrawBuffers(len(layers), targets)
        status = gl.glCheckFramebufferStatus(GL_FRAMEBUFFER)
        if status != GL_FRAMEBUFFER_COMPLETE:
            raise RenderingUnavailable(f"homesim: a layered framebuffer is incomplete here ({status:#x})")
        layered = self.ctx.detect_framebuffer(framebuffer.value)
        layered.viewport = (0, 0, w, h)
        return layers, layered

    def render_many(
        self, views: Sequence[tuple[Scene, State]], agent: int = 0, only: Collection[str] | None = None
    ) -> FrameBatch:
        """Each (scene, state)'s view from agent `agent`'s camera (with `only`: just those objects, as
        `Renderer.render` draws them), stacked in the order given."""
        if not views:
            raise ValueError("render_many: no views given")
        w, h, count = self.camera.width, self.camera.height, len(views)
        shapes = {image: (count, h, w, ATTACHMENTS[image][0])[: 3 + (ATTACHMENTS[image][0] > 1)] for image in IMAGES}
        images = {image: np.empty(shapes[image], ATTACHMENTS[image][2]) for image in self.images}
        object_ids = []
        with self.ctx:
            for start in range(0, count, self.batch):
                chunk = views[start : start + self.batch]
                self.layered.use()
                self.layered.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)  # every layer, as the single renderer's clear
                ids: list = [None] * len(chunk)
                # drawn scene by scene, each view into its own layer: a scene's instances are uploaded once
                for layer in sorted(range(len(chunk)), key=lambda k: (id(chunk[k][0]), id(chunk[k][1].objects))):
                    for program in self.programs.values():
                        program["layer"].value = layer
                    ids[layer] = self._draw(*chunk[layer], agent, only).object_ids
                object_ids += ids
                for image, texture in zip(self.images, self.layers):
                    self._read_layers(texture, images[image][start : start + len(chunk)])
        finished = self._finished({image: images.get(image) for image in IMAGES})
        return FrameBatch(*finished, tuple(object_ids))

    def _read_layers(self, texture: moderngl.TextureArray, out: np.ndarray) -> None:
        """The first len(out) layers of a texture array into out (the whole array is read back)."""
        if len(out) == self.batch:
            texture.read_into(out)
            return
        every = np.empty((self.batch, *out.shape[1:]), out.dtype)
        texture.read_into(every)
        out[:] = every[: len(out)]
