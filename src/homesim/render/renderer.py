"""The egocentric renderer: RGB, depth and instance segmentation of a scene and state from an agent's camera.

    renderer = Renderer()                      # ALFRED: 300x300, 90 degrees
    renderer = Renderer(**OBJECTNAV)           # 640x480, 79 degrees, depth clipped to [0.5, 5] m
    renderer = Renderer(**OBJECTNAV, images=("rgb", "depth"))  # only what the sensors use
    frame = renderer.render(scene, state, agent=0)
    frame.rgb, frame.depth, frame.segmentation, frame.object_ids
    renderer.reused  # how many frames were read back without drawing (a view seen again)

Every shape of one kind is drawn in one instanced call. A scene's floor, walls and ceiling are uploaded
once; the objects' instances are rebuilt only when the state's objects change (a navigation step keeps
them), so a frame costs little more than rasterising and reading back its images. Each image is a colour
attachment that llvmpipe fills pixel by pixel, so a renderer draws only the `images` it was asked for;
an image it draws is the same, to the bit, whichever others are drawn with it.

Drawing is nearly all of a frame's cost (llvmpipe rasterising and clearing 640x480 images: about 2.6 of
3.2 ms of CPU; bench/objectnav_speed.py), and agents often see a view again: a blocked move, a look up
at the limit, a turn and back. So the last `views` views stay drawn, each in a framebuffer of its own,
and a view seen again is only read back: the same bits as drawing it, in new arrays. One (the default)
costs nothing; more cost their images' memory and, at 300x300, about 1.5% per new view (its images are
no longer in the cache): ObjectNav's env keeps 4.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Self

import moderngl
import numpy as np

from homesim.render.camera import Camera
from homesim.render.context import create_context
from homesim.render.drawables import (
    INDEX,
    ROW,
    ObjectDrawables,
    SceneDrawables,
    held_row,
    object_drawables,
    scene_drawables,
)
from homesim.render.meshes import BOX, OPEN_SHAPES, SHAPES, mesh
from homesim.render.shaders import OUTPUTS, VERTEX_SHADER, fragment_shader
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.scene import Scene
from homesim.world.state import State

ALFRED = {"width": 300, "height": 300, "fov": 90.0}
OBJECTNAV = {"width": 640, "height": 480, "fov": 79.0, "depth_range": (0.5, 5.0)}
IMAGES = tuple(OUTPUTS)  # rgb, depth, segmentation
# image -> its colour attachment's components, its OpenGL data type, and the numpy type read back
ATTACHMENTS = {"rgb": (4, "f1", np.uint8), "depth": (1, "f4", np.float32), "segmentation": (1, "i4", np.int32)}
SCENES_KEPT = 8  # scenes whose static geometry stays uploaded
GL_DEPTH_CLAMP = 0x864F


@dataclass(frozen=True)
class Frame:
    """One egocentric observation. `segmentation` holds, per pixel, an index into `object_ids` (-1: floor,
    walls, ceiling); the indices of a state's objects are the same in every frame of that state. An image
    the renderer was not asked for is None."""

    rgb: np.ndarray | None  # (H, W, 3) uint8 (a view of the RGBA read back: no copy)
    depth: np.ndarray | None  # (H, W) float32, metres along the optical axis
    segmentation: np.ndarray | None  # (H, W) int32
    object_ids: tuple[str, ...]

    @property
    def _segmentation(self) -> np.ndarray:
        if self.segmentation is None:
            raise ValueError("this frame has no segmentation: make the Renderer with images including it")
        return self.segmentation

    def index_of(self, object_id: str) -> int:
        return self.object_ids.index(object_id)

    def id_at(self, row: int, column: int) -> str | None:
        """The object seen at a pixel, or None (floor, walls, ceiling)."""
        index = int(self._segmentation[row, column])
        return self.object_ids[index] if index >= 0 else None

    def mask(self, object_id: str) -> np.ndarray:
        """The object's pixels (its ground-truth interaction mask); all False if it is not in view."""
        return self._segmentation == self.index_of(object_id)

    def visible_ids(self) -> list[str]:
        return [self.object_ids[i] for i in np.unique(self._segmentation) if i >= 0]

    def labels(self, label_of: Callable[[str], int], nothing: int = -1, dtype=np.int32) -> np.ndarray:
        """A semantic image: per pixel, `label_of(the object drawn there)`, or `nothing` (floor, walls)."""
        lookup = np.array([label_of(o) for o in self.object_ids] + [nothing], dtype=dtype)
        return lookup[self._segmentation]  # -1 (nothing drawn) indexes the last entry


class Renderer:
    """Renders scenes from agents' cameras; one OpenGL context per renderer. `images`: which of rgb, depth
    and segmentation to draw (all by default). Raises `RenderingUnavailable` (one line) when no EGL context
    can be made."""

    vertex_shader = VERTEX_SHADER
    # an instance row's columns (drawables.ROW) as the vertex shader reads them
    instance_layout: tuple[str, ...] = (
        "3f 3f 3f 1f 1f 1f/i", "i_centre", "i_half", "i_colour", "i_index", "i_glows", "i_lift"
    )  # fmt: skip

    def __init__(
        self,
        width: int = 300,
        height: int = 300,
        fov: float = 90.0,
        depth_range: tuple[float, float] | None = None,
        catalog: Catalog | None = None,
        images: Collection[str] = IMAGES,
        views: int = 1,
    ) -> None:
        if isinstance(images, str) or not images or set(images) - set(IMAGES):
            raise ValueError(f"images={images!r}: give a non-empty collection of some of {', '.join(IMAGES)}")
        if isinstance(views, bool) or not isinstance(views, int) or views < 0:
            raise ValueError(f"views={views!r}: how many recent views stay drawn, 0 or more")
        self.images = tuple(image for image in IMAGES if image in images)
        self.camera = Camera(width, height, fov)
        self.depth_range = depth_range
        self.catalog = catalog or alfred_catalog()
        self.ctx = create_context()
        # Depth clamping instead of near-plane clipping: a lifted object (see drawables.LIFT) close to
        # the camera would otherwise lose the part its lift brings nearer than the near plane.
        self.ctx.enable_direct(GL_DEPTH_CLAMP)
        self.programs = {
            open_: self.ctx.program(
                vertex_shader=self.vertex_shader, fragment_shader=fragment_shader(open_, self.images)
            )
            for open_ in (False, True)
        }
        for program in self.programs.values():
            program["depth_terms"].value = self.camera.depth_terms
        self.meshes = {shape: self.ctx.buffer(mesh(shape).tobytes()) for shape in SHAPES}
        self.instances = {shape: self.ctx.buffer(reserve=64 * ROW * 4) for shape in SHAPES}
        self.vaos = {shape: self._vertex_array(shape, self.instances[shape]) for shape in SHAPES}
        self.counts = dict.fromkeys(SHAPES, 0)
        self.views, self.reused = views, 0
        self.scenes_kept = SCENES_KEPT
        self._depth_buffer = self.ctx.depth_renderbuffer((width, height))  # only needed while drawing: shared
        # a view (see `_view_key`) -> the objects it was drawn with and the framebuffer holding its images
        self._views: OrderedDict[tuple, tuple[ObjectDrawables, moderngl.Framebuffer]] = OrderedDict()
        self._scenes: OrderedDict[int, tuple[Scene, SceneDrawables, moderngl.VertexArray]] = OrderedDict()
        # (objects dict, held ids, scene drawables) ids -> (objects dict, scene drawables, ObjectDrawables)
        self._objects: OrderedDict[tuple, tuple] = OrderedDict()
        self._uploaded: dict[str, np.ndarray] = {}

    @property
    def fbo(self) -> moderngl.Framebuffer:
        """The framebuffer holding the images of the view drawn or read back last."""
        if not self._views:
            raise ValueError("no view drawn yet: render one first")
        return next(reversed(self._views.values()))[1]

    def _framebuffer(self) -> moderngl.Framebuffer:
        """A framebuffer to draw a new view into: a new one, or that of the view seen longest ago."""
        if len(self._views) < max(self.views, 1):
            size = (self.camera.width, self.camera.height)
            return self.ctx.framebuffer(
                [self.ctx.renderbuffer(size, ATTACHMENTS[i][0], dtype=ATTACHMENTS[i][1]) for i in self.images],
                self._depth_buffer,
            )
        return self._views.popitem(last=False)[1][1]

    def _vertex_array(self, shape: str, instances: moderngl.Buffer) -> moderngl.VertexArray:
        # skip_errors: an attribute the images drawn do not need (i_index without segmentation) is
        # compiled away, and its column is stepped over
        return self.ctx.vertex_array(
            self.programs[shape in OPEN_SHAPES],
            [(self.meshes[shape], "3f 3f", "in_position", "in_normal"), (instances, *self.instance_layout)],
            skip_errors=True,
        )

    def _structure(self, drawables: SceneDrawables) -> moderngl.VertexArray | None:
        """The scene's floor, walls and ceiling uploaded, to be drawn in every view of it."""
        return self._vertex_array(BOX, self.ctx.buffer(drawables.structure.tobytes()))

    # --- per scene and per state ---------------------------------------------------------------------

    def _scene(self, scene: Scene) -> tuple[SceneDrawables, moderngl.VertexArray | None]:
        """The scene's drawables and its uploaded floor, walls and ceiling (a few scenes are kept)."""
        entry = self._scenes.get(id(scene))
        if entry is None or entry[0] is not scene:
            drawables = scene_drawables(scene, self.catalog)
            entry = (scene, drawables, self._structure(drawables))
            self._scenes[id(scene)] = entry
            if len(self._scenes) > self.scenes_kept:
                _, (_, _, old) = self._scenes.popitem(last=False)
                if old is not None:
                    old.release()
        self._scenes.move_to_end(id(scene))
        return entry[1], entry[2]

    def objects(self, scene: Scene, state: State) -> ObjectDrawables:
        """The state's object instances, rebuilt only when its objects or what the agents hold change."""
        with self.ctx:  # a new scene may be uploaded (see `render`); never nested: nesting it broke frames here
            return self._drawn(scene, state)

    def _drawn(self, scene: Scene, state: State) -> ObjectDrawables:
        drawables, _ = self._scene(scene)
        held = tuple(a.held for a in state.agents)
        key = (id(state.objects), held, id(drawables))  # an entry keeps both, so no other takes their ids
        cached = self._objects.get(key)
        if cached is None:
            cached = self._objects[key] = (state.objects, drawables, object_drawables(drawables, state, self.catalog))
            if len(self._objects) > self.scenes_kept:  # as many as scenes kept: views of several houses in turn
                self._objects.popitem(last=False)
        self._objects.move_to_end(key)
        return cached[2]

    def _upload(self, shape: str, rows: np.ndarray) -> None:
        if self._uploaded.get(shape) is rows:
            return
        data = rows.tobytes()
        if len(data) > self.instances[shape].size:
            self.instances[shape].orphan(2 * len(data))
        self.instances[shape].write(data)
        self._uploaded[shape] = rows
        self.counts[shape] = len(rows)

    # --- a frame -------------------------------------------------------------------------------------

    def render(self, scene: Scene, state: State, agent: int = 0, only: Collection[str] | None = None) -> Frame:
        """The agent's view. With `only`, just those objects are drawn (no room, nothing in front of them):
        their amodal masks, as if nothing else were there."""
        # OpenGL draws in whichever context is current, and a renderer made later made its own current: the
        # two number their objects alike, so the wrong one would draw silently (and read back garbage where
        # their attachments differ). The previous context is current again afterwards.
        with self.ctx:
            return self._render(scene, state, agent, only)

    def _render(self, scene: Scene, state: State, agent: int, only: Collection[str] | None) -> Frame:
        me = state.agents[agent]
        drawn = self._drawn(scene, state)
        # Everything a frame depends on: the objects drawn (they stand for the scene and its state's objects,
        # see `_drawn`; an entry keeps them, so no other takes their id), the agent's pose and held object,
        # and which objects are drawn.
        key = (id(drawn), me.x, me.z, me.yaw, me.horizon, me.held, None if only is None else frozenset(only))
        if self.views and key in self._views:
            self._views.move_to_end(key)
            self.reused += 1
            return self._read(self._views[key][1], drawn.object_ids)
        fbo = self._framebuffer()
        fbo.use()
        fbo.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)  # depth 0 and index 0 (= -1) where nothing is drawn
        self._draw(scene, state, agent, only)
        self._views[key] = (drawn, fbo)
        return self._read(fbo, drawn.object_ids)

    def _draw(self, scene: Scene, state: State, agent: int, only: Collection[str] | None) -> ObjectDrawables:
        """Draw the agent's view into the framebuffer in use (its instances uploaded, its camera set)."""
        me = state.agents[agent]
        drawables, structure = self._scene(scene)
        drawn = self._drawn(scene, state)
        eye = (me.x, scene.camera_height, me.z)
        hand = None
        if me.held is not None:
            axes = Camera.axes(me.yaw, me.horizon)
            hand = held_row(state.objects[me.held].cls, drawn.index[me.held], eye, axes, self.catalog)
        keep = None if only is None else np.array([drawn.index[o] for o in only if o in drawn.index], dtype=np.float32)
        empty = np.zeros((0, ROW), dtype=np.float32)
        for shape in SHAPES:
            rows = drawn.rows.get(shape, empty)
            if hand is not None and shape == BOX:  # a held object is drawn as a box, whatever its shape
                rows = np.vstack((rows, hand))
            if keep is not None:
                rows = rows[np.isin(rows[:, INDEX], keep)]
            self._upload(shape, rows)

        view_projection = self.camera.view_projection(eye, me.yaw, me.horizon).T.tobytes()
        for program in self.programs.values():
            program["view_projection"].write(view_projection)
        self.programs[True]["eye"].value = eye
        self._draw_shapes(structure if only is None else None, len(drawables.structure))
        return drawn

    def _draw_shapes(self, structure: moderngl.VertexArray | None, structure_count: int) -> None:
        """The uploaded instances drawn in the order that decides a view's pixels (ties in depth go to what is
        drawn first): closed shapes, the floor, walls and ceiling (`structure`; None: not drawn), open shapes."""
        self.ctx.enable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        for shape in SHAPES:
            if self.counts[shape] and shape not in OPEN_SHAPES:
                self.vaos[shape].render(moderngl.TRIANGLES, instances=self.counts[shape])
        if structure is not None and structure_count:
            structure.render(moderngl.TRIANGLES, instances=structure_count)
        self.ctx.disable(moderngl.CULL_FACE)  # open shapes show their inside through the opening
        for shape in OPEN_SHAPES:
            if self.counts[shape]:
                self.vaos[shape].render(moderngl.TRIANGLES, instances=self.counts[shape])

    def _read(self, fbo: moderngl.Framebuffer, object_ids: tuple[str, ...]) -> Frame:
        w, h = self.camera.width, self.camera.height
        images = dict.fromkeys(IMAGES)
        for attachment, image in enumerate(self.images):
            components, dtype, numpy_type = ATTACHMENTS[image]
            pixels = np.empty((h, w, components)[: 2 + (components > 1)], dtype=numpy_type)
            fbo.read_into(pixels, components=components, attachment=attachment, dtype=dtype)
            images[image] = pixels
        return Frame(*self._finished(images), object_ids)

    def _finished(self, images: dict[str, np.ndarray | None]) -> tuple:
        """rgb, depth and segmentation as a frame holds them, from the images read back (one or many)."""
        if images["rgb"] is not None:
            # RGBA is read as it is stored (Mesa converts to RGB at 4x the cost) and the alpha left out
            images["rgb"] = images["rgb"][..., :3]
        if images["segmentation"] is not None:
            images["segmentation"] -= 1
        if images["depth"] is not None and self.depth_range is not None:
            np.clip(images["depth"], *self.depth_range, out=images["depth"])
        return images["rgb"], images["depth"], images["segmentation"]

    def close(self) -> None:
        self.ctx.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
