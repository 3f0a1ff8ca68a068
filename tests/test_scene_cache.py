"""The disk cache of scene tables (`world.scene_cache`): what a later run reads is exactly what it would
have made (pose views, route tables), an unreadable or misshapen file is made again, and a cache that is
off or cannot be written changes nothing but speed."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from homesim.planning.alfred.use_routes import UseRoutes
from homesim.scenes.procedural import generate_room
from homesim.world import scene_cache, views
from homesim.world.catalog import alfred_catalog


@pytest.fixture
def room():
    return generate_room("Kitchen", 3)


def fresh(scene):
    """The same scene as a later run meets it: nothing worked out yet (pickling drops the memos)."""
    return pickle.loads(pickle.dumps(scene))


def made(scene) -> np.ndarray:
    return views.PoseViews(scene)._fixed_by_pose


def no_making(monkeypatch):
    def refuse(*args):
        raise AssertionError("made again, not read from the cache")

    monkeypatch.setattr(views, "in_view_poses", refuse)


def route_tables(scene, state) -> dict:
    routes = UseRoutes(scene, alfred_catalog())
    routes.prepare(state)
    return {key: (table.wanted.copy(), table.choices.copy()) for key, table in routes.tables.items()}


def same_tables(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(x, y) for k in a for x, y in zip(a[k], b[k]))


def test_a_later_run_reads_what_it_would_have_made(room, tmp_path, monkeypatch):
    scene, state = room
    monkeypatch.setenv("HOMESIM_CACHE", "off")
    expected_views, expected_routes = made(fresh(scene)), route_tables(fresh(scene), state)
    monkeypatch.setenv("HOMESIM_CACHE", str(tmp_path))
    first = fresh(scene)
    assert np.array_equal(made(first), expected_views) and same_tables(route_tables(first, state), expected_routes)
    assert sorted(p.name.split("-")[-2] for p in tmp_path.iterdir()) == ["routes", "views"]
    no_making(monkeypatch)
    later = fresh(scene)
    assert np.array_equal(made(later), expected_views)
    assert same_tables(route_tables(later, state), expected_routes)


def test_another_scene_or_order_of_fixed_objects_is_another_file(room, tmp_path, monkeypatch):
    scene, _ = room
    monkeypatch.setenv("HOMESIM_CACHE", str(tmp_path))
    made(fresh(scene))
    made(fresh(generate_room("Kitchen", 4)[0]))
    reordered = fresh(scene)
    object.__setattr__(reordered, "fixed", dict(reversed(scene.fixed.items())))
    made(reordered)
    assert len(list(tmp_path.iterdir())) == 3


@pytest.mark.parametrize("damage", ["garbage", "shape"])
def test_an_unreadable_or_misshapen_file_is_made_again(room, tmp_path, monkeypatch, damage):
    scene, _ = room
    monkeypatch.setenv("HOMESIM_CACHE", str(tmp_path))
    expected = made(fresh(scene))
    (path,) = tmp_path.iterdir()
    if damage == "garbage":
        path.write_bytes(b"not a table")
    else:
        np.save(path, expected[:-1])
    assert np.array_equal(made(fresh(scene)), expected)
    no_making(monkeypatch)
    assert np.array_equal(made(fresh(scene)), expected)  # and kept right for the next run


def test_off_or_unwritable_changes_nothing_but_speed(room, tmp_path, monkeypatch):
    scene, _ = room
    expected = made(fresh(scene))
    monkeypatch.setenv("HOMESIM_CACHE", "off")
    assert scene_cache.folder() is None
    assert np.array_equal(made(fresh(scene)), expected)
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("HOMESIM_CACHE", str(blocker / "cache"))  # a folder that cannot be made
    assert np.array_equal(made(fresh(scene)), expected)
    assert list(tmp_path.iterdir()) == [blocker]


def test_the_default_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("HOMESIM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert scene_cache.folder() == tmp_path / "homesim"


def test_a_full_folder_keeps_no_more(room, tmp_path, monkeypatch):
    monkeypatch.setenv("HOMESIM_CACHE", str(tmp_path))
    monkeypatch.setattr(scene_cache, "MAX_FILES", 2)
    monkeypatch.setattr(scene_cache, "_listed", {})
    scene, state = room
    route_tables(fresh(scene), state)
    expected = made(fresh(generate_room("Kitchen", 4)[0]))
    assert len(list(tmp_path.iterdir())) == 2
    assert np.array_equal(made(fresh(generate_room("Kitchen", 4)[0])), expected)


def test_a_table_made_by_other_code_is_replaced(room, tmp_path, monkeypatch):
    monkeypatch.setenv("HOMESIM_CACHE", str(tmp_path))
    scene, _ = room
    made(fresh(scene))
    (older,) = tmp_path.iterdir()
    monkeypatch.setattr(views, "version", lambda: "edited")
    made(fresh(scene))
    (newer,) = tmp_path.iterdir()
    assert newer != older and newer.name.endswith("-views-edited.npy")
