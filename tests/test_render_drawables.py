"""What the renderer draws, before any OpenGL: rough fixed extents cut clear of where the agent stands,
neighbours sharing their overlap, counter tops flush with the doors under them, basins sunk into counters
and the floor, surfaces drawn under what rests on them, slices side by side, and what a closed container
hides."""

from __future__ import annotations

import numpy as np
from world_fixtures import FRIDGE, STATIONS, TOMATO, add, fixed, kitchen, make_scene, with_flags

from homesim.render.drawables import INDEX, ROW, Room, object_drawables, scene_drawables, structure_rows
from homesim.render.furniture import STANDING_CLEARANCE, around_points, clear_of, with_hole
from homesim.render.meshes import SHELLS, TRAY
from homesim.world.catalog import alfred_catalog
from homesim.world.scene import Box
from homesim.world.state import ObjectState

CATALOG = alfred_catalog()


def rows_of(drawn, object_id: str) -> list[tuple[str, np.ndarray]]:
    i = drawn.index[object_id]
    return [(shape, r) for shape, rows in drawn.rows.items() for r in rows if r[INDEX] == i]


def test_a_box_holding_standing_points_is_cut_back_round_its_own_position():
    table = fixed("DiningTable", (1.5, 0.0, 0.5), (0.0, 0.0, 0.0), (2.0, 0.75, 1.0))
    standing = around_points(np.array([[0.25, 0.5], [1.5, 0.0], [5.0, 5.0]]), STANDING_CLEARANCE)
    cut = clear_of(table.box, table.position, standing, camera_height=1.5)
    assert cut.lo == (0.35, 0.0, 0.1) and cut.hi == (2.0, 0.75, 1.0)  # still round (1.5, 0.5)
    cabinet = fixed("Cabinet", (1.0, 2.0, 0.5), (0.0, 1.7, 0.0), (2.0, 2.4, 1.0))  # above the agent's head
    assert clear_of(cabinet.box, cabinet.position, standing, camera_height=1.5) == cabinet.box


def test_a_hole_leaves_the_part_below_and_four_parts_around():
    counter = Box((0.0, 0.8, 0.0), (2.0, 0.9, 1.0))
    basin = Box((0.5, 0.7, 0.25), (1.0, 0.95, 0.75))
    parts = with_hole(counter, basin)
    assert len(parts) == 4  # nothing below: the basin reaches under the counter
    area = sum((p.hi[0] - p.lo[0]) * (p.hi[2] - p.lo[2]) for p in parts)
    assert abs(area - (2.0 - 0.25)) < 1e-9
    for p in parts:  # none over the hole
        assert p.hi[0] <= 0.5 or p.lo[0] >= 1.0 or p.hi[2] <= 0.25 or p.lo[2] >= 0.75


def test_a_hole_that_misses_a_box_leaves_it_whole():
    beside = Box((0.0, 0.8, 0.0), (0.5, 0.9, 1.0))  # a counter's part left of one basin, another basin right
    assert with_hole(beside, Box((1.0, 0.7, 0.25), (1.5, 0.95, 0.75))) == (beside,)


ALONG_A_WALL = frozenset((i, j) for i in range(-4, 8) for j in range(3))  # the agent stands at z <= 0.5


def parts_of(furniture: list, object_id: str) -> tuple[Box, ...]:
    drawables = scene_drawables(make_scene(furniture, ALONG_A_WALL), CATALOG)
    return dict(zip(drawables.fixed_ids, drawables.looks))[object_id].parts


def test_neighbouring_cabinets_share_their_overlap_and_twins_split_along_their_row():
    left = fixed("Cabinet", (0.3, 0.4, 1.5), (0.0, 0.05, 1.2), (0.6, 0.75, 1.8))
    right = fixed("Cabinet", (0.7, 0.4, 1.5), (0.4, 0.05, 1.2), (1.0, 0.75, 1.8))
    ((a,),), ((b,),) = [parts_of([left, right], left.id)], [parts_of([left, right], right.id)]
    assert abs(a.hi[0] - 0.5) < 0.01 and abs(b.lo[0] - 0.5) < 0.01 and a.hi[0] < b.lo[0]
    one = fixed("Cabinet", (0.5, 0.40, 1.5), (0.2, 0.05, 1.2), (0.8, 0.75, 1.8))
    other = fixed("Cabinet", (0.51, 0.43, 1.49), (0.21, 0.08, 1.19), (0.81, 0.78, 1.79))  # a double door's half
    ((a,),), ((b,),) = [parts_of([one, other], one.id)], [parts_of([one, other], other.id)]
    assert a.hi[0] < b.lo[0] and a.lo[1] == 0.05 and b.hi[1] == 0.78  # side by side, each its full height


def test_a_counter_top_and_a_drawer_are_flush_with_the_cabinet_doors_under_them():
    counter = fixed("CounterTop", (0.0, 0.9, 1.55), (-0.6, 0.8, 1.2), (0.6, 0.9, 1.9))
    drawer = fixed("Drawer", (0.5, 0.7, 1.5), (0.25, 0.6, 1.25), (0.75, 0.8, 1.75))
    cabinets = [fixed("Cabinet", (x, 0.3, 1.3), (x - 0.3, 0.05, 1.0), (x + 0.3, 0.55, 1.6)) for x in (0.0, 0.6)]
    furniture = [counter, drawer, *cabinets]
    ((top,),), ((front,),) = [parts_of(furniture, counter.id)], [parts_of(furniture, drawer.id)]
    assert top.lo[2] == 1.3 and top.hi == counter.box.hi
    assert front.lo[2] == 1.3 and front.hi[2] == drawer.box.hi[2]


def test_a_counter_top_grown_down_is_drawn_as_its_slab():
    counter = fixed("CounterTop", (0.0, 0.9, 1.55), (-0.6, 0.25, 1.2), (0.6, 0.95, 1.9))  # grown over a pan below
    cabinet = fixed("Cabinet", (0.0, 0.4, 1.2), (-0.3, 0.05, 0.9), (0.3, 0.75, 1.5))
    drawables = scene_drawables(make_scene([counter, cabinet], ALONG_A_WALL), CATALOG)
    looks = dict(zip(drawables.fixed_ids, drawables.looks))
    ((top,),) = [looks[counter.id].parts]
    assert abs(top.lo[1] - (0.9 - CATALOG["CounterTop"].size[1])) < 1e-9 and top.hi[1] == 0.95
    assert looks[counter.id].shut_shape == "box"  # not a shell round the cabinet


def test_a_box_is_cut_clear_of_what_stands_on_the_floor_beside_it():
    can = fixed("GarbageCan", (-0.15, 0.0, 1.5), (-0.325, 0.0, 1.325), (0.025, 0.4, 1.675))
    cabinet = fixed("Cabinet", (0.3, 0.4, 1.4), (0.0, 0.05, 1.1), (0.6, 0.75, 1.7))
    ((part,),) = [parts_of([can, cabinet], cabinet.id)]
    assert part.lo[0] == 0.025 and part.hi[0] == 0.6  # beside the can, still round its own position
    ((part,),) = [parts_of([can, cabinet], can.id)]
    assert part == can.box


def test_the_floor_has_a_lined_hole_over_a_basin_below_it():
    room = Room(-2.0, -2.0, 2.0, 2.0, 2.6)
    basin = Box((0.0, -0.9, 0.0), (1.4, -0.5, 0.7))  # AI2-THOR puts one bathtub basin under the floor
    plain, pitted = structure_rows(room, []), structure_rows(room, [basin])
    assert plain.shape == (6, ROW) and len(pitted) == 6 - 1 + 4 + 4  # the floor in four parts, four sides
    floor = pitted[:4]
    centre, half = floor[:, 0:3], floor[:, 3:6]
    assert not any(  # no floor part over the basin's middle
        abs(c[0] - 0.7) < h[0] and abs(c[2] - 0.35) < h[2] for c, h in zip(centre, half)
    )
    assert np.all(pitted[:, INDEX] == -1)  # the pit is the room's, not an object


def test_a_counter_top_gets_a_hole_where_its_basin_is():
    counter = fixed("CounterTop", (1.0, 0.9, 2.0), (0.0, 0.8, 1.7), (2.0, 0.9, 2.3))
    basin = fixed("SinkBasin", (1.0, 0.85, 2.0), (0.8, 0.75, 1.8), (1.2, 0.88, 2.2))
    scene = make_scene([counter, basin])
    drawables = scene_drawables(scene, CATALOG)
    looks = dict(zip(drawables.fixed_ids, drawables.looks))
    assert len(looks[counter.id].parts) == 4
    assert looks[basin.id].shut_shape == TRAY


def test_a_surface_is_drawn_under_what_rests_in_its_box():
    scene, state = kitchen(STATIONS["table"])
    table = next(f for f in scene.fixed.values() if f.cls == "DiningTable")  # top at 0.75
    state, _ = add(state, "Mug", (0.2, 0.7, -0.6), parent=table.id)  # sunk in the table's box
    drawn = object_drawables(scene_drawables(scene, CATALOG), state, CATALOG)
    ((_, row),) = rows_of(drawn, table.id)
    assert abs(row[1] + row[4] - (0.7 - 0.06)) < 1e-6  # the table's top is the mug's bottom


def test_sliced_pieces_lie_side_by_side_within_the_whole():
    scene, state = kitchen(STATIONS["counter"])
    apple = next(o for o in state.objects.values() if o.cls == "Apple")
    pieces = {}
    for i in range(3):
        piece = f"{apple.id}|AppleSliced_{i}"
        pieces[piece] = ObjectState(piece, "AppleSliced", apple.position, apple.parent)
    state = state.with_objects(pieces, removed=(apple.id,))
    drawn = object_drawables(scene_drawables(scene, CATALOG), state, CATALOG)
    xs = sorted(rows_of(drawn, p)[0][1][0] for p in pieces)
    assert xs[0] < xs[1] < xs[2] and xs[2] - xs[0] < CATALOG["Apple"].size[0]


def test_a_closed_fridge_hides_its_contents_and_opens_towards_where_the_agent_stands():
    scene, state = kitchen(STATIONS["fridge"])
    drawables = scene_drawables(scene, CATALOG)
    assert rows_of(object_drawables(drawables, state, CATALOG), TOMATO) == []
    opened = object_drawables(drawables, with_flags(state, FRIDGE, is_open=True), CATALOG)
    assert rows_of(opened, TOMATO)
    ((shape, _),) = rows_of(opened, FRIDGE)
    assert shape == SHELLS[(-1, 0)]  # the fridge (x 1.5 to 2.2) opens towards the room, at lower x
