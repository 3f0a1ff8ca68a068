"""Seeded multi-room houses: determinism, rooms and doorways, walls, the scene file, the renderer's walls."""

from __future__ import annotations

import json

import numpy as np
import pytest

from homesim.render.drawables import scene_drawables
from homesim.scenes.houses import HOUSE_PLANS, WALL, generate_house
from homesim.scenes.procedural import generate_room
from homesim.world.catalog import alfred_catalog
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import nav_grid
from homesim.world.scene import Scene


@pytest.fixture(scope="module")
def house():
    return generate_house(3)


def test_the_same_seed_gives_the_same_house_and_another_seed_another():
    scene, state = generate_house(7)
    again, again_state = generate_house(7)
    assert json.dumps(scene.to_dict(), sort_keys=True) == json.dumps(again.to_dict(), sort_keys=True)
    assert state.stable_hash() == again_state.stable_hash()
    other, _ = generate_house(8)
    assert other.to_dict() != scene.to_dict()


@pytest.mark.parametrize("rooms", [2, 5, 8])
def test_room_count_and_types(rooms):
    scene, _ = generate_house(11, rooms=rooms)
    assert len(scene.rooms) == rooms
    assert {r.room_type for r in scene.rooms} <= set(HOUSE_PLANS)
    assert {"LivingRoom", "Kitchen"} <= {r.room_type for r in scene.rooms}
    assert scene.room_type == "House"


def test_a_house_of_one_room_or_nine_is_refused():
    for rooms in (1, 9):
        with pytest.raises(ValueError, match="2 to 8 rooms"):
            generate_house(0, rooms=rooms)


def test_rooms_do_not_overlap_and_walls_stand_between_them(house):
    scene, _ = house
    rooms = scene.rooms
    for a in range(len(rooms)):
        for b in range(a + 1, len(rooms)):
            ra, rb = rooms[a], rooms[b]
            assert (
                ra.x1 <= rb.x0 - WALL + 1e-9
                or rb.x1 <= ra.x0 - WALL + 1e-9
                or ra.z1 <= rb.z0 - WALL + 1e-9
                or rb.z1 <= ra.z0 - WALL + 1e-9
            )
    for wall in scene.walls:  # no wall reaches into a room
        for r in rooms:
            inside_x = min(wall.hi[0], r.x1) - max(wall.lo[0], r.x0)
            inside_z = min(wall.hi[2], r.z1) - max(wall.lo[2], r.z0)
            assert inside_x <= 1e-9 or inside_z <= 1e-9


def test_furniture_stays_in_its_room(house):
    scene, _ = house
    for f in scene.fixed.values():
        (x0, _, z0), (x1, _, z1) = f.box.lo, f.box.hi
        assert any(
            r.x0 - 1e-6 <= x0 and x1 <= r.x1 + 1e-6 and r.z0 - 1e-6 <= z0 and z1 <= r.z1 + 1e-6 for r in scene.rooms
        ), f.id


def test_the_doorways_join_every_room_for_the_robot(house):
    scene, _ = house
    grid = nav_grid(scene, LOCOBOT)  # one component: every navigable point reaches every other
    points = grid.navigable_points()
    for r in scene.rooms:
        inside = (points[:, 0] > r.x0) & (points[:, 0] < r.x1) & (points[:, 1] > r.z0) & (points[:, 1] < r.z1)
        assert inside.sum() > 100, f"the robot cannot get into the {r.room_type}"
    assert len(scene.doorways) >= len(scene.rooms) - 1


def test_objectnav_targets_are_furnished():
    classes = {f.cls for seed in range(3) for f in generate_house(seed)[0].fixed.values()}
    assert {"Chair", "Sofa", "Bed", "Toilet", "Television", "HousePlant"} <= classes


def test_movable_objects_sit_in_fixed_receptacles_of_the_house(house):
    scene, state = house
    movable = [o for o in state.objects.values() if o.id not in scene.fixed]
    assert len(movable) > 20
    assert all(o.parent in scene.fixed for o in movable)


def test_the_scene_file_round_trips_and_single_rooms_keep_their_bytes(house):
    scene, _ = house
    again = Scene.from_dict(json.loads(json.dumps(scene.to_dict())))
    assert again == scene and again.walls == scene.walls and again.rooms == scene.rooms
    room, _ = generate_room("Kitchen", 0)
    assert not {"rooms", "walls", "doorways"} & set(room.to_dict())
    assert Scene.from_dict(room.to_dict()).walls == ()


def test_the_renderer_draws_the_walls(house):
    scene, _ = house
    centres = scene_drawables(scene, alfred_catalog()).structure[:, :3]
    for wall in scene.walls:
        centre = (np.array(wall.lo) + np.array(wall.hi)) / 2
        assert np.isclose(centres, centre).all(axis=1).any(), wall


def _room_of(scene, x, z):
    return next((r for r in scene.rooms if r.x0 < x < r.x1 and r.z0 < z < r.z1), None)


def test_alfreds_tasks_work_in_a_house():
    from homesim.planning.alfred.expert import plan
    from homesim.tasks.alfred import AlfredGoal, goal_satisfied
    from homesim.world import step

    scene, state = generate_house(4)
    catalog = alfred_catalog()
    # an object of a class found in one room only, to be put on a receptacle class that room lacks
    where = {}
    for o in state.objects.values():
        if o.position is not None:
            where.setdefault(o.cls, set()).add(_room_of(scene, o.position[0], o.position[2]))
    fixed_in = {}
    for f in scene.fixed.values():
        fixed_in.setdefault(f.cls, set()).add(_room_of(scene, f.position[0], f.position[2]))
    cls, receptacle = next(
        (c, r)
        for c, rooms in sorted(where.items(), key=lambda item: item[0])
        if len(rooms) == 1
        for r, holders in sorted(fixed_in.items(), key=lambda item: item[0])
        if catalog.can_contain(r, c) and not holders & rooms and r not in ("Drawer", "Cabinet")
    )
    goal = AlfredGoal("pick_and_place_simple", cls, parent_target=receptacle)
    visited = set()
    for action in plan(scene, state, goal).actions:
        state, event = step(scene, state, action)
        assert event.success, event.message
        visited.add(_room_of(scene, state.agents[0].x, state.agents[0].z))
    assert goal_satisfied(scene, state, goal)
    assert len(visited - {None}) >= 2  # the expert walked through the house's doorways
