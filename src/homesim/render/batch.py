"""Many views drawn together: one context, every view into its own layer of a layered framebuffer (texture
arrays; the vertex shader's `gl_Layer` picks the layer), a handful of instanced draw calls per PASS views, and
one read-back per image kind for the whole batch.

    renderer = BatchRenderer(batch=64, width=128, height=128, fov=79.0, depth_range=(0.5, 5.0))
    frames = renderer.render_many([(scene, state), (other_scene, other_state), ...])
    frames.depth  # (B, 128, 128) float32; frames.rgb (B, 128, 128, 3); frames.segmentation; frames[k]: a Frame

Each view's instances are the single renderer's rows (`drawables`), tagged with the view, and each view's camera
is a row of a small texture the vertex shader reads: one draw call per shape draws that shape in every view,
in the single renderer's order (closed shapes, the room, open shapes), so within a layer the triangles come in
the same order and are computed alike, and each frame is the single renderer's frame of that view to the bit
(`tests/test_render_batch.py` checks them against the golden frames). Instances that cannot show in a view
(wholly outside one side of its view volume, see `seen`) are left out of it: a view of a house sees a fraction
of its furniture, and llvmpipe pays per vertex and per triangle set up, before any pixel.

Where the time goes (128x128, RGB + depth + segmentation, about 0.33 ms of CPU a frame on this machine's cores):
llvmpipe rasterising about two thirds (some 2.1 fragments a pixel, nearly all of them the room's floor, walls and
ceiling, drawn in the single renderer's order, which decides ties, so not sorted front to back), clearing and
reading back the images a sixth, setting up the triangles and this module's Python the rest. Each PASS is flushed
on its own, so llvmpipe's rasterising threads (LP_NUM_THREADS, by default one per core: left so) draw it while
the next one is set up on the calling thread; with no threads (LP_NUM_THREADS=0) a frame costs the same CPU.

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
from homesim.render.drawables import INDEX, ROW, SceneDrawables, held_row
from homesim.render.meshes import BOX, SHAPES
from homesim.render.camera import Camera
from homesim.render.renderer import ATTACHMENTS, IMAGES, SCENES_KEPT, Frame, Renderer
from homesim.render.shaders import BATCH_VERTEX_SHADER
from homesim.world.scene import Scene
from homesim.world.state import State

EXTENSION = "GL_ARB_shader_viewport_layer_array"  # gl_Layer in a vertex shader
GL_TEXTURE_2D_ARRAY, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT = 0x8C1A, 0x1902, 0x1405
# the single renderer's depth buffer (moderngl's depth renderbuffer): depth tests round alike, ties included
GL_DEPTH_COMPONENT24 = 0x81A6
GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER, GL_NEAREST = 0x2801, 0x2800, 0x2600
GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_DEPTH_ATTACHMENT = 0x8D40, 0x8CE0, 0x8D00
GL_FRAMEBUFFER_COMPLETE = 0x8CD5
STRUCTURE = "structure"  # the floor, walls and ceiling: boxes, drawn after the closed shapes
CAMERA_TEXELS = 5  # a view's row of the cameras texture: the view-projection's four columns, then the eye
# Clip-space slack in `seen`: float32 rounding on the way to clip coordinates (metres-sized terms) is below
# 1e-4, so an instance left out lies wholly outside its view volume on the GPU as well.
MARGIN = 1e-3
PASS = 16  # views drawn per flush (fewer cost more CPU per view; more overlap less)


def seen(rows: np.ndarray, view_projections: np.ndarray) -> np.ndarray:
    """(views, instances): False where an instance's box lies wholly outside its view volume, beyond the left,
    right, top or bottom side or behind the camera (clip x or y beyond w, or w below 0). Such an instance makes
    no fragment (depth clamping drops only the near and far sides), so leaving it out changes no pixel.
    Meshes lie within their unit box, so the box's farthest corner along each side's normal decides."""
    x, y, w = view_projections[:, 0], view_projections[:, 1], view_projections[:, 3]
    planes = np.stack((w - x, w + x, w - y, w + y, w), axis=1)  # (views, 5, 4): inside where >= 0
    centre, half = rows[:, 0:3].astype(np.float64), rows[:, 3:6].astype(np.float64)
    farthest = planes[..., :3] @ centre.T + np.abs(planes[..., :3]) @ half.T + planes[..., 3:]
    return (farthest > -MARGIN).all(axis=1)


def tagged(rows: np.ndarray, visible: np.ndarray, layers: np.ndarray) -> np.ndarray:
    """The rows each view sees, view after view (each in the given order), with their view's layer appended."""
    view, instance = np.nonzero(visible)
    out = np.empty((len(instance), ROW + 1), np.float32)
    out[:, :ROW] = rows[instance]
    out[:, ROW] = layers[view]
    return out


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
            "glFlush": (None,),
        }
        for name, (result, *arguments) in signatures.items():
            address = egl.eglGetProcAddress(name.encode())
            if not address:
                raise RenderingUnavailable(f"homesim: this OpenGL has no {name}; batched rendering is off")
            setattr(self, name, ctypes.CFUNCTYPE(result, *arguments)(address))


class BatchRenderer(Renderer):
    """Draws up to `batch` views per pass (more are drawn in several), keeping the drawables of up to `scenes`
    scenes (a batch's views should not need more); the other arguments are `Renderer`'s.
    Raises `RenderingUnavailable` (one line) where the OpenGL cannot draw into layers from a vertex shader."""

    vertex_shader = BATCH_VERTEX_SHADER
    instance_layout = (Renderer.instance_layout[0].replace("/i", " 1f/i"), *Renderer.instance_layout[1:], "i_view")

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
            self.gl = _GL()
            self.layers, self.layered = self._layered_framebuffer()
            self.cameras = self.ctx.texture((CAMERA_TEXELS, batch), 4, dtype="f4")
            self.cameras.filter = (moderngl.NEAREST, moderngl.NEAREST)
            self.instances[STRUCTURE] = self.ctx.buffer(reserve=64 * (ROW + 1) * 4)
            self.vaos[STRUCTURE] = self._vertex_array(BOX, self.instances[STRUCTURE])

    def _structure(self, drawables: SceneDrawables) -> None:
        return None  # a batch uploads the rooms' boxes each view sees with its other instances

    def _layered_framebuffer(self) -> tuple[list[moderngl.TextureArray], moderngl.Framebuffer]:
        w, h, gl = self.camera.width, self.camera.height, self.gl
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
            GL_TEXTURE_2D_ARRAY, 0, GL_DEPTH_COMPONENT24, w, h, self.batch, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, None
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
        object_ids: list[tuple[str, ...]] = []
        with self.ctx:
            for start in range(0, count, self.batch):
                chunk = views[start : start + self.batch]
                object_ids += self._draw_views(chunk, agent, only)
                for image, texture in zip(self.images, self.layers):
                    self._read_layers(texture, images[image][start : start + len(chunk)])
        finished = self._finished({image: images.get(image) for image in IMAGES})
        return FrameBatch(*finished, tuple(object_ids))

    def _draw_views(
        self, chunk: Sequence[tuple[Scene, State]], agent: int, only: Collection[str] | None
    ) -> list[tuple[str, ...]]:
        """Draw each view into its layer (view k into layer k), PASS views at a time; each view's object ids."""
        agents = [state.agents[agent] for _, state in chunk]
        eyes = [(me.x, scene.camera_height, me.z) for (scene, _), me in zip(chunk, agents)]
        matrices = self.camera.view_projections(eyes, [me.yaw for me in agents], [me.horizon for me in agents])
        cameras = np.zeros((self.batch, CAMERA_TEXELS, 4), np.float32)
        cameras[: len(chunk), :4] = matrices.transpose(0, 2, 1)  # a matrix's columns, as OpenGL's mat4
        cameras[: len(chunk), 4, :3] = eyes
        self.cameras.write(cameras)
        self.cameras.use(0)
        self.layered.use()
        self.layered.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)  # every layer, as the single renderer's clear
        object_ids = []
        for first in range(0, len(chunk), PASS):
            layers = range(first, min(first + PASS, len(chunk)))
            object_ids += self._upload_views([chunk[k] for k in layers], layers, matrices, agent, only)
            self._draw_shapes(self.vaos[STRUCTURE], self.counts[STRUCTURE])
            self.gl.glFlush()  # llvmpipe rasterises this pass on its threads while the next one is prepared
        return object_ids

    def _upload_views(
        self,
        views: Sequence[tuple[Scene, State]],
        layers: Sequence[int],
        matrices: np.ndarray,
        agent: int,
        only: Collection[str] | None,
    ) -> list[tuple[str, ...]]:
        """Upload the instances each view sees, tagged with its layer, by shape; each view's object ids."""
        groups: dict[int, tuple] = {}  # views of the same drawn objects: (scene, objects, layers)
        hands, object_ids = [], []
        for layer, (scene, state) in zip(layers, views):
            me, drawn = state.agents[agent], self._drawn(scene, state)
            if me.held is not None and (only is None or me.held in only):  # after the view's boxes, as alone
                eye, axes = (me.x, scene.camera_height, me.z), Camera.axes(me.yaw, me.horizon)
                hands.append(
                    (*held_row(state.objects[me.held].cls, drawn.index[me.held], eye, axes, self.catalog), layer)
                )
            groups.setdefault(id(drawn), (scene, drawn, []))[2].append(layer)
            object_ids.append(drawn.object_ids)
        pieces: dict[str, list[np.ndarray]] = {shape: [] for shape in (*SHAPES, STRUCTURE)}
        for scene, drawn, tags in groups.values():
            rows = dict(drawn.rows)
            if only is None:
                rows[STRUCTURE] = self._scene(scene)[0].structure
            else:
                keep = np.array([drawn.index[o] for o in only if o in drawn.index], dtype=np.float32)
                rows = {shape: r[np.isin(r[:, INDEX], keep)] for shape, r in rows.items()}
            every = np.concatenate(list(rows.values()))
            visible = seen(every, matrices[tags].astype(np.float64))
            ends = np.cumsum([len(r) for r in rows.values()])
            for shape, end, r in zip(rows, ends, rows.values()):
                pieces[shape].append(tagged(r, visible[:, end - len(r) : end], np.array(tags, np.float32)))
        pieces[BOX].append(np.array(hands, np.float32).reshape(-1, ROW + 1))
        for shape, parts in pieces.items():
            rows = np.concatenate(parts) if parts else None
            if rows is not None and len(rows):
                self._upload(shape, rows)
            else:  # nothing of this shape in the pass: nothing to write
                self.counts[shape] = 0
        return object_ids

    def _read_layers(self, texture: moderngl.TextureArray, out: np.ndarray) -> None:
        """The first len(out) layers of a texture array into out (the whole array is read back)."""
        if len(out) == self.batch:
            texture.read_into(out)
            return
        every = np.empty((self.batch, *out.shape[1:]), out.dtype)
        texture.read_into(every)
        out[:] = every[: len(out)]
