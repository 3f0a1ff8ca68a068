"""The egocentric renderer: RGB, depth and instance segmentation of a scene and state from an agent's camera.

    renderer = Renderer()                      # ALFRED: 300x300, 90 degrees
    renderer = Renderer(**OBJECTNAV)           # 640x480, 79 degrees, depth clipped to [0.5, 5] m
    frame = renderer.render(scene, state, agent=0)
    frame.rgb, frame.depth, frame.segmentation, frame.object_ids

Every shape of one kind is drawn in one instanced call. A scene's floor, walls and ceiling are uploaded
once; the objects' instances are rebuilt only when the state's objects change (a navigation step keeps
them), so a frame costs little more than rasterising and reading back three images.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
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
from homesim.render.shaders import VERTEX_SHADER, fragment_shader
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.scene import Scene
from homesim.world.state import State

ALFRED = {"width": 300, "height": 300, "fov": 90.0}
OBJECTNAV = {"width": 640, "height": 480, "fov": 79.0, "depth_range": (0.5, 5.0)}
SCENES_KEPT = 8  # scenes whose static geometry stays uploaded
GL_DEPTH_CLAMP = 0x864F


@dataclass(frozen=True)
class Frame:
    """One egocentric observation. `segmentation` holds, per pixel, an index into `object_ids` (-1: floor,
    walls, ceiling); the indices of a state's objects are the same in every frame of that state."""

    rgb: np.ndarray  # (H, W, 3) uint8
    depth: np.ndarray  # (H, W) float32, metres along the optical axis
    segmentation: np.ndarray  # (H, W) int32
    object_ids: tuple[str, ...]

    def index_of(self, object_id: str) -> int:
        return self.object_ids.index(object_id)

    def id_at(self, row: int, column: int) -> str | None:
        """The object seen at a pixel, or None (floor, walls, ceiling)."""
        index = int(self.segmentation[row, column])
        return self.object_ids[index] if index >= 0 else None

    def mask(self, object_id: str) -> np.ndarray:
        """The object's pixels (its ground-truth interaction mask); all False if it is not in view."""
        return self.segmentation == self.index_of(object_id)

    def visible_ids(self) -> list[str]:
        return [self.object_ids[i] for i in np.unique(self.segmentation) if i >= 0]


class Renderer:
    """Renders scenes from agents' cameras; one OpenGL context per renderer. Raises
    `RenderingUnavailable` (one line) when no EGL context can be made."""

    def __init__(
        self,
        width: int = 300,
        height: int = 300,
        fov: float = 90.0,
        depth_range: tuple[float, float] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.camera = Camera(width, height, fov)
        self.depth_range = depth_range
        self.catalog = catalog or alfred_catalog()
        self.ctx = create_context()
        # Depth clamping instead of near-plane clipping: a lifted object (see drawables.LIFT) close to
        # the camera would otherwise lose the part its lift brings nearer than the near plane.
        self.ctx.enable_direct(GL_DEPTH_CLAMP)
        self.programs = {
            open_: self.ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=fragment_shader(open_))
            for open_ in (False, True)
        }
        for program in self.programs.values():
            program["depth_terms"].value = self.camera.depth_terms
        self.meshes = {shape: self.ctx.buffer(mesh(shape).tobytes()) for shape in SHAPES}
        self.instances = {shape: self.ctx.buffer(reserve=64 * ROW * 4) for shape in SHAPES}
        self.vaos = {shape: self._vertex_array(shape, self.instances[shape]) for shape in SHAPES}
        self.counts = dict.fromkeys(SHAPES, 0)
        size = (width, height)
        self.fbo = self.ctx.framebuffer(
            [
                self.ctx.renderbuffer(size, 4, dtype="f1"),
                self.ctx.renderbuffer(size, 1, dtype="f4"),
                self.ctx.renderbuffer(size, 1, dtype="i4"),
            ],
            self.ctx.depth_renderbuffer(size),
        )
        self._scenes: OrderedDict[int, tuple[Scene, SceneDrawables, moderngl.VertexArray]] = OrderedDict()
        self._objects: tuple | None = None  # (objects dict, held ids, scene drawables, ObjectDrawables)
        self._uploaded: dict[str, np.ndarray] = {}

    def _vertex_array(self, shape: str, instances: moderngl.Buffer) -> moderngl.VertexArray:
        return self.ctx.vertex_array(
            self.programs[shape in OPEN_SHAPES],
            [
                (self.meshes[shape], "3f 3f", "in_position", "in_normal"),
                (instances, "3f 3f 3f 1f 1f 1f/i", "i_centre", "i_half", "i_colour", "i_index", "i_glows", "i_lift"),
            ],
        )

    # --- per scene and per state ---------------------------------------------------------------------

    def _scene(self, scene: Scene) -> tuple[SceneDrawables, moderngl.VertexArray]:
        """The scene's drawables and its uploaded floor, walls and ceiling (a few scenes are kept)."""
        entry = self._scenes.get(id(scene))
        if entry is None or entry[0] is not scene:
            drawables = scene_drawables(scene, self.catalog)
            structure = self.ctx.buffer(drawables.structure.tobytes())
            entry = (scene, drawables, self._vertex_array(BOX, structure))
            self._scenes[id(scene)] = entry
            if len(self._scenes) > SCENES_KEPT:
                _, (_, _, old) = self._scenes.popitem(last=False)
                old.release()
        self._scenes.move_to_end(id(scene))
        return entry[1], entry[2]

    def objects(self, scene: Scene, state: State) -> ObjectDrawables:
        """The state's object instances, rebuilt only when its objects or what the agents hold change."""
        drawables, _ = self._scene(scene)
        held = tuple(a.held for a in state.agents)
        cached = self._objects
        if cached is None or cached[0] is not state.objects or cached[1] != held or cached[2] is not drawables:
            cached = (state.objects, held, drawables, object_drawables(drawables, state, self.catalog))
            self._objects = cached
        return cached[3]

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
        me = state.agents[agent]
        eye = (me.x, scene.camera_height, me.z)
        drawables, structure = self._scene(scene)
        drawn = self.objects(scene, state)
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
        self.fbo.use()
        self.fbo.clear(0.0, 0.0, 0.0, 1.0, depth=1.0)  # depth 0 and index 0 (= -1) where nothing is drawn
        self.ctx.enable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        for shape in SHAPES:
            if self.counts[shape] and shape not in OPEN_SHAPES:
                self.vaos[shape].render(moderngl.TRIANGLES, instances=self.counts[shape])
        if only is None:
            structure.render(moderngl.TRIANGLES, instances=len(drawables.structure))
        self.ctx.disable(moderngl.CULL_FACE)  # open shapes show their inside through the opening
        for shape in OPEN_SHAPES:
            if self.counts[shape]:
                self.vaos[shape].render(moderngl.TRIANGLES, instances=self.counts[shape])
        return self._read(drawn.object_ids)

    def _read(self, object_ids: tuple[str, ...]) -> Frame:
        w, h = self.camera.width, self.camera.height
        rgb = np.empty((h, w, 3), dtype=np.uint8)
        depth = np.empty((h, w), dtype=np.float32)
        segmentation = np.empty((h, w), dtype=np.int32)
        self.fbo.read_into(rgb, components=3, attachment=0)
        self.fbo.read_into(depth, components=1, attachment=1, dtype="f4")
        self.fbo.read_into(segmentation, components=1, attachment=2, dtype="i4")
        segmentation -= 1
        if self.depth_range is not None:
            np.clip(depth, *self.depth_range, out=depth)
        return Frame(rgb, depth, segmentation, object_ids)

    def close(self) -> None:
        self.ctx.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
