"""What the renderer draws, before any OpenGL: rough fixed extents cut clear of where the agent stands,
basins sunk into counters, surfaces drawn under what rests on them, slices side by side, and what a
closed container hides."""

from __future__ import annotations

import numpy as np
from world_fixtures import FRIDGE, STATIONS, TOMATO, add, fixed, kitchen, make_scene, with_flags

from homesim.render.drawables import INDEX, object_drawables, scene_drawables
from homesim.render.furniture import clear_of_standing_points, with_hole
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
    standing = np.array([[0.25, 0.5], [1.5, 0.0], [5.0, 5.0]])
    cut = clear_of_standing_points(table, standing, camera_height=1.5)
    assert cut.lo == (0.35, 0.0, 0.1) and cut.hi == (2.0, 0.75, 1.0)  # still round (1.5, 0.5)
    cabinet = fixed("Cabinet", (1.0, 2.0, 0.5), (0.0, 1.7, 0.0), (2.0, 2.4, 1.0))  # above the agent's head
    assert clear_of_standing_points(cabinet, standing, camera_height=1.5) == cabinet.box


def test_a_hole_leaves_the_part_below_and_four_parts_around():
    counter = Box((0.0, 0.8, 0.0), (2.0, 0.9, 1.0))
    basin = Box((0.5, 0.7, 0.25), (1.0, 0.95, 0.75))
    parts = with_hole(counter, basin)
    assert len(parts) == 4  # nothing below: the basin reaches under the counter
    area = sum((p.hi[0] - p.lo[0]) * (p.hi[2] - p.lo[2]) for p in parts)
    assert abs(area - (2.0 - 0.25)) < 1e-9
    for p in parts:  # none over the hole
        assert p.hi[0] <= 0.5 or p.lo[0] >= 1.0 or p.hi[2] <= 0.25 or p.lo[2] >= 0.75


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
