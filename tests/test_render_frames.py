"""The renderer's pixels on scenes whose answer is known: what lies straight ahead, how far it is, which
side +x is on, what closed containers and the hand show, ObjectNav's camera, and that every pixel is drawn."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from render_support import make_renderer
from world_fixtures import (
    FRIDGE,
    LETTUCE,
    STATIONS,
    TOMATO,
    fixed,
    holding,
    kitchen,
    make_scene,
    make_state,
    with_flags,
)

from homesim.render import OBJECTNAV
from homesim.render.meshes import class_colour
from homesim.scenes.procedural import ROOM_TYPES, generate_room
from homesim.world.scene import Pose

CAMERA_HEIGHT = 1.576  # Scene's default
FRIDGE_AHEAD = fixed("Fridge", (0.5, 0.0, 2.0), (0.1, 0.0, 2.0), (0.9, 1.8, 2.6))  # near face 1.5 m ahead of (0.5, 0.5)
TABLE_RIGHT = fixed("DiningTable", (1.25, 0.0, 1.0), (1.1, 0.0, 0.9), (1.4, 0.75, 1.1))  # ahead and to +x


@pytest.fixture(scope="module")
def renderer():
    r = make_renderer()
    yield r
    r.close()


def centre(image: np.ndarray):
    h, w = image.shape[:2]
    return image[h // 2, w // 2]


def centre_id(frame) -> str | None:
    return frame.id_at(frame.rgb.shape[0] // 2, frame.rgb.shape[1] // 2)


def open_room(furniture):
    """A 6 x 6 m room (x and z from -3 to 3) the agent may stand anywhere in but under the furniture."""

    def free(ix, iz):
        x, z = ix * 0.25, iz * 0.25
        return not any(
            f.box.lo[0] - 0.2 < x < f.box.hi[0] + 0.2 and f.box.lo[2] - 0.2 < z < f.box.hi[2] + 0.2 for f in furniture
        )

    return make_scene(furniture, frozenset((i, j) for i in range(-12, 13) for j in range(-12, 13) if free(i, j)))


def one_fridge(pose: Pose):
    scene = open_room([FRIDGE_AHEAD, TABLE_RIGHT])
    return scene, make_state(scene, pose)


def test_the_object_straight_ahead_is_at_the_centre_at_its_distance(renderer):
    scene, state = one_fridge(Pose(0.5, 0.5, 0, 0))
    frame = renderer.render(scene, state)
    assert frame.rgb.shape == (300, 300, 3) and frame.rgb.dtype == np.uint8
    assert frame.depth.shape == (300, 300) and frame.depth.dtype == np.float32
    assert frame.segmentation.shape == (300, 300) and frame.segmentation.dtype == np.int32
    assert centre_id(frame) == FRIDGE_AHEAD.id
    assert abs(centre(frame.depth) - 1.5) <= 0.02  # its near face, square to the optical axis


def test_looking_down_the_centre_sees_the_floor_at_its_distance(renderer):
    scene, state = one_fridge(Pose(0.5, 0.5, 180, 30))  # facing away from the furniture, 30 degrees down
    frame = renderer.render(scene, state)
    assert centre_id(frame) is None  # the floor is not an object
    assert abs(centre(frame.depth) - CAMERA_HEIGHT / math.sin(math.radians(30))) <= 0.02


def test_yaw_90_faces_plus_x_and_plus_x_is_on_the_right_facing_plus_z(renderer):
    scene, state = one_fridge(Pose(0.5, 1.0, 90, 45))
    assert centre_id(renderer.render(scene, state)) == TABLE_RIGHT.id  # the table is due +x
    scene, state = one_fridge(Pose(0.5, 0.5, 0, 30))
    ahead = renderer.render(scene, state)
    columns = np.nonzero((ahead.segmentation == ahead.index_of(TABLE_RIGHT.id)).any(axis=0))[0]
    assert columns.size and columns.min() > 150  # right half of the image


def test_contents_of_a_closed_fridge_are_hidden_and_show_once_it_is_open(renderer):
    scene, state = kitchen(STATIONS["fridge"])
    closed = renderer.render(scene, state)
    assert FRIDGE in closed.visible_ids()
    assert TOMATO not in closed.visible_ids() and LETTUCE not in closed.visible_ids()
    opened = renderer.render(scene, with_flags(state, FRIDGE, is_open=True))
    assert TOMATO in opened.visible_ids()
    assert not np.array_equal(closed.rgb, opened.rgb)  # the open fridge looks different


def test_the_held_object_is_drawn_in_the_hand_with_its_own_index(renderer):
    scene, state = kitchen(STATIONS["start"])
    state = holding(state, TOMATO)
    frame = renderer.render(scene, state)
    rows, cols = np.nonzero(frame.mask(TOMATO))
    assert rows.size and rows.mean() > 150 and cols.mean() > 150  # lower right
    assert frame.object_ids == renderer.render(scene, state).object_ids  # stable indices


def test_state_cues_change_colours_not_ids(renderer):
    scene, state = kitchen(STATIONS["counter"])
    apple = next(o for o in state.objects.values() if o.cls == "Apple")
    plain = renderer.render(scene, state)
    dirty = renderer.render(scene, with_flags(state, apple.id, is_dirty=True))
    assert np.array_equal(plain.segmentation, dirty.segmentation)
    assert not np.array_equal(plain.rgb[plain.mask(apple.id)], dirty.rgb[dirty.mask(apple.id)])


def test_a_navigation_step_reuses_the_objects_geometry(renderer):
    scene, state = kitchen(STATIONS["start"])
    first = renderer.objects(scene, state)
    turned = state.with_agent(0, replace(state.agents[0], yaw=90))
    renderer.render(scene, turned)
    assert renderer.objects(scene, turned) is first


def test_objectnav_camera_is_640_by_480_with_depth_clipped():
    renderer = make_renderer(**OBJECTNAV)
    scene, state = one_fridge(Pose(0.5, 0.5, 180, 0))
    frame = renderer.render(scene, state)
    assert frame.rgb.shape == (480, 640, 3) and frame.segmentation.shape == (480, 640)
    assert frame.depth.min() >= 0.5 and frame.depth.max() <= 5.0
    assert renderer.camera.vfov == pytest.approx(2 * math.degrees(math.atan(math.tan(math.radians(39.5)) * 0.75)))
    renderer.close()


@pytest.mark.parametrize("room_type", ROOM_TYPES)
def test_procedural_rooms_are_drawn_everywhere(renderer, room_type):
    """Every pixel gets something (floor, walls, ceiling or an object) from every yaw and horizon."""
    scene, state = generate_room(room_type, seed=0)
    for yaw in (0, 90, 180, 270):
        for horizon in (-30, 0, 60):
            frame = renderer.render(scene, state.with_agent(0, replace(state.agents[0], yaw=yaw, horizon=horizon)))
            assert (frame.depth > 0).all()


def test_class_colours_are_stable_and_tell_classes_apart():
    assert class_colour("Apple") == class_colour("Apple")
    names = ["Apple", "Tomato", "Potato", "Mug", "Cup", "Fridge", "Cabinet", "Drawer", "CounterTop"]
    colours = {tuple(round(c, 3) for c in class_colour(n)) for n in names}
    assert len(colours) == len(names)


def test_the_nearer_of_two_objects_on_the_same_ray_wins(renderer):
    """A shelf 0.5 m ahead at eye height hides the fridge 1.5 m ahead."""
    shelf = fixed("Shelf", (0.5, 1.55, 1.1), (0.3, 1.45, 1.0), (0.7, 1.65, 1.2))
    scene = open_room([shelf, FRIDGE_AHEAD])
    frame = renderer.render(scene, make_state(scene, Pose(0.5, 0.5, 0, 0)))
    assert centre_id(frame) == shelf.id
    assert abs(centre(frame.depth) - 0.5) <= 0.02
