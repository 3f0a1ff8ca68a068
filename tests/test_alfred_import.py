"""Importing ALFRED: AI2-THOR object ids, reading trajectory files, rebuilding floor plans and
building episodes (initial state, expert actions) from the real data in ../shared/data/alfred.

Expensive imports (reading valid_seen, building its 80-odd floor plans) happen once per module.
"""

from __future__ import annotations

import copy
import json
import shutil

import numpy as np
import pytest
from replay_expectations import SCENE_SOURCE_KEYS

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.errors import DataError
from homesim.scenes.alfred import (
    build_scene,
    format_coordinate,
    gather_evidence,
    initial_pickups,
    object_id,
    parse_object_id,
    walked_cells,
)
from homesim.world.catalog import alfred_catalog
from homesim.world.scene import to_cell

# --- shared, module-scoped data ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def valid_seen(alfred_trajectories) -> list[RawTrajectory]:
    items = list(read_trajectories(alfred_trajectories / "valid_seen.jsonl.gz"))
    assert all(isinstance(t, RawTrajectory) for t in items)
    return items


@pytest.fixture(scope="module")
def scenes(valid_seen, alfred_layouts) -> dict:
    """Every floor plan valid_seen uses, built from the layouts and all of valid_seen."""
    evidence = gather_evidence(t.data for t in valid_seen)
    return {fp: build_scene(fp, alfred_layouts, e) for fp, e in evidence.items()}


@pytest.fixture(scope="module")
def episodes(valid_seen, scenes) -> list[tuple[RawTrajectory, object]]:
    catalog = alfred_catalog()
    return [
        (t, episode_from_trajectory(t.source, t.data, scenes[t.data["scene"]["floor_plan"]], catalog))
        for t in valid_seen
    ]


def first_of(valid_seen, floor_plan: str = "FloorPlan1") -> dict:
    """A deep copy of the first valid_seen trajectory of a floor plan, safe to edit."""
    return copy.deepcopy(next(t.data for t in valid_seen if t.data["scene"]["floor_plan"] == floor_plan))


# --- AI2-THOR object ids ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, formatted",
    [
        (3.445, "+03.45"),  # half rounds away from zero
        (-1.96499991, "-01.97"),  # a float32 printed to 7 significant digits first: -1.965
        (0.404999971, "+00.41"),
        (1.765, "+01.77"),
        (0.0, "+00.00"),
        (-0.0015, "00.00"),  # a negative value that rounds to zero loses its sign
        (-2.1, "-02.10"),
        (12.345, "+12.35"),
    ],
)
def test_format_coordinate_reproduces_ai2thor(value, formatted):
    assert format_coordinate(value) == formatted


def test_object_id_from_a_position_dict_or_tuple():
    position = {"x": -1.96499991, "y": 0.404999971, "z": 3.445}
    assert object_id("Apple", position) == "Apple|-01.97|+00.41|+03.45"
    assert object_id("Apple", (position["x"], position["y"], position["z"])) == "Apple|-01.97|+00.41|+03.45"


def test_every_expert_object_id_is_rebuilt_from_the_object_poses(valid_seen):
    """Every id the expert names, of a class ALFRED poses, is one built from those poses (sliced
    pieces and basins carry a suffix: their first four fields count)."""
    checked = 0
    for t in valid_seen:
        built: dict[str, set[str]] = {}
        for pose in t.data["scene"]["object_poses"]:
            cls = pose["objectName"].split("_")[0]
            built.setdefault(cls, set()).add(object_id(cls, pose["position"]))
        for i, low in enumerate(t.data["plan"]["low_actions"]):
            for key in ("objectId", "receptacleObjectId"):
                oid = low["api_action"].get(key)
                cls = oid.split("|")[0] if oid else None
                if cls in built:
                    assert "|".join(oid.split("|")[:4]) in built[cls], f"{t.source} low_actions[{i}] {key}"
                    checked += 1
    assert checked > 900  # 986 today: the check is not vacuous


def test_parse_object_id():
    assert parse_object_id("Sink|-01.33|+00.92|-01.23|SinkBasin") == ("SinkBasin", (-1.33, 0.92, -1.23))
    assert parse_object_id("Apple|-01.05|+01.07|+01.31|AppleSliced_1") == ("AppleSliced", (-1.05, 1.07, 1.31))
    assert parse_object_id("Fridge|-02.10|+00.00|+01.09") == ("Fridge", (-2.1, 0.0, 1.09))
    with pytest.raises(ValueError, match="not an AI2-THOR object id"):
        parse_object_id("Apple|+01.00|+02.00")


def test_walked_cells_dead_reckons_moves_and_turns():
    scene = {"init_action": {"x": 0.5, "y": 0.9, "z": -0.25, "rotation": 90, "horizon": 30}}
    act = lambda name: {"api_action": {"action": name}}
    low = [
        act("MoveAhead"),  # facing +x: (2, -1) -> (3, -1)
        act("LookDown"),
        act("RotateLeft"),  # now facing +z
        act("MoveAhead"),  # (3, 0)
        act("PickupObject"),
        act("RotateRight"),
        act("RotateRight"),  # facing -z
        act("MoveAhead"),  # (3, -1)
        act("RotateRight"),  # facing -x
        act("MoveAhead"),  # (2, -1)
        act("MoveAhead"),  # (1, -1)
    ]
    assert walked_cells(scene, low) == [(2, -1), (3, -1), (3, 0), (3, -1), (2, -1), (1, -1)]
    assert walked_cells(scene, []) == [(2, -1)]


# --- reading trajectory files ----------------------------------------------------------------------------


def test_read_the_samples_tree(alfred_samples):
    items = list(read_trajectories(alfred_samples))
    assert len(items) == 70
    assert all(isinstance(t, RawTrajectory) for t in items)
    assert all(t.source.endswith("traj_data.json") for t in items)
    assert len({t.source for t in items}) == 70


def test_read_valid_seen_jsonl_gz(alfred_trajectories, valid_seen):
    path = alfred_trajectories / "valid_seen.jsonl.gz"
    assert len(valid_seen) == 251
    assert [t.source for t in valid_seen] == [f"{path}:{n}" for n in range(1, 252)]
    assert {t.data["split"] for t in valid_seen} == {"valid_seen"}


def test_read_a_single_traj_data_json(alfred_samples):
    file = next(alfred_samples.rglob("traj_data.json"))
    (item,) = list(read_trajectories(file))
    assert isinstance(item, RawTrajectory)
    assert item.source == str(file)
    assert item.data == json.loads(file.read_text())


def test_an_invalid_jsonl_line_is_an_error_naming_file_and_line_and_the_rest_come_through(tmp_path, valid_seen):
    file = tmp_path / "mixed.jsonl"
    good = [json.dumps(t.data) for t in valid_seen[:2]]
    file.write_text("\n".join([good[0], "", '{"task_type": "pick_and_place_simple", ', good[1]]) + "\n")
    items = list(read_trajectories(file))
    errors = [i for i in items if isinstance(i, DataError)]
    goods = [i for i in items if isinstance(i, RawTrajectory)]
    assert len(errors) == 1 and f"{file}:3" in str(errors[0]) and "not valid JSON" in str(errors[0])
    assert [t.source for t in goods] == [f"{file}:1", f"{file}:4"]
    assert [t.data for t in goods] == [valid_seen[0].data, valid_seen[1].data]


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda t: t.pop("plan"), "plan"),
        (lambda t: t.pop("task_type"), "task_type"),
        (lambda t: t["plan"].pop("low_actions"), "plan.low_actions"),
        (lambda t: t["scene"].pop("init_action"), "scene.init_action"),
    ],
)
def test_a_trajectory_missing_a_required_field_is_an_error_naming_it(tmp_path, valid_seen, edit, field):
    data = copy.deepcopy(valid_seen[0].data)
    edit(data)
    file = tmp_path / "traj_data.json"
    file.write_text(json.dumps(data))
    (error,) = list(read_trajectories(file))
    assert isinstance(error, DataError)
    assert error.field == field and error.where == str(file)
    assert str(error).startswith(f"{file}: {field}:")


def test_missing_paths_raise_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        list(read_trajectories(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="no traj_data.json"):
        list(read_trajectories(tmp_path))  # an existing folder without any trajectory


# --- rebuilding a floor plan -------------------------------------------------------------------------------


def test_floor_plan_1_from_layout_and_valid_seen(valid_seen, scenes, alfred_layouts):
    fp1 = [t.data for t in valid_seen if t.data["scene"]["floor_plan"] == "FloorPlan1"]
    scene = scenes["FloorPlan1"]
    p = scene.provenance
    assert set(p) == SCENE_SOURCE_KEYS
    assert p["cells_from_layout"] + p["cells_from_start_poses"] + p["cells_from_expert_paths"] == len(scene.reachable)
    assert p["cells_from_layout"] == len({to_cell(x, z) for x, z in np.load(alfred_layouts / "FloorPlan1-layout.npy")})
    # every cell a trajectory starts on or walks through is reachable
    for t in fp1:
        assert set(walked_cells(t["scene"], t["plan"]["low_actions"])) <= scene.reachable
    # every receptacle of the openable file is a fixed object, with the pose it is used from
    openable = json.loads((alfred_layouts / "FloorPlan1-openable.json").read_text())
    assert p["fixed_from_openable"] == len(openable)
    for oid, (x, z, yaw, horizon) in openable.items():
        assert [(u.x, u.z, u.yaw, u.horizon) for u in scene.fixed[oid].use_poses] == [(x, z, yaw % 360, horizon)]
    assert scene.room_type == "Kitchen" and scene.id == "FloorPlan1"


def test_a_cabinet_extends_from_its_door_back_away_from_where_it_is_used(scenes):
    """AI2-THOR's position of a cabinet is on its door: the box starts there and reaches away from the
    agent standing at its use pose (unless that would leave it under MIN_DEPTH deep)."""
    cabinets = [f for scene in scenes.values() for f in scene.fixed.values() if f.cls == "Cabinet" and f.use_poses]
    on_the_door = 0
    for f in cabinets:
        pose, (x, _, z) = f.use_poses[0], f.position
        faces = [(f.box.lo[0], x, pose.x), (f.box.hi[0], x, pose.x), (f.box.lo[2], z, pose.z), (f.box.hi[2], z, pose.z)]
        door_faces = [(face, agent) for face, door, agent in faces if abs(face - door) < 1e-9]
        assert len(door_faces) <= 1, f.id
        if door_faces:
            on_the_door += 1
            (face, agent), lo, hi = door_faces[0], f.box.lo, f.box.hi
            centre = (lo[0] + hi[0]) / 2 if face in (lo[0], hi[0]) else (lo[2] + hi[2]) / 2
            assert abs(agent - face) < abs(agent - centre), f.id  # the door faces the agent
    assert len(cabinets) > 200 and on_the_door >= 0.9 * len(cabinets)


def test_a_dining_table_whose_position_is_on_its_top_stands_under_it(scenes):
    """Some floor plans put a table's position on its top (objects start just above it): its box stands
    on the floor below that, not a table's height above it."""
    tables = [f for s in scenes.values() for f in s.fixed.values() if f.cls == "DiningTable" and f.position[1] > 0.5]
    assert tables and sum(s.provenance["extents_under_their_position"] for s in scenes.values()) >= len(tables)
    for f in tables:
        assert f.box.lo[1] == 0.0 and f.position[1] <= f.box.hi[1] < f.position[1] + 0.5, f.id
    low = [f for s in scenes.values() for f in s.fixed.values() if f.cls == "DiningTable" and f.position[1] < 0.05]
    assert low and all(f.box.lo[1] == f.position[1] for f in low)  # at their foot, as the class says


def test_build_scene_with_a_missing_layout_file_names_it(tmp_path, valid_seen, alfred_layouts):
    for kind in ("layout.npy", "objects.json"):
        shutil.copy(alfred_layouts / f"FloorPlan1-{kind}", tmp_path)
    evidence = gather_evidence(t.data for t in valid_seen if t.data["scene"]["floor_plan"] == "FloorPlan1")
    with pytest.raises(DataError, match="FloorPlan1-openable.json") as info:
        build_scene("FloorPlan1", tmp_path, evidence["FloorPlan1"])
    assert info.value.field == "openable.json"


def test_build_scene_with_a_malformed_layout_names_it(tmp_path, valid_seen, alfred_layouts):
    for kind in ("objects.json", "openable.json"):
        shutil.copy(alfred_layouts / f"FloorPlan1-{kind}", tmp_path)
    np.save(tmp_path / "FloorPlan1-layout.npy", np.zeros(5))
    evidence = gather_evidence(t.data for t in valid_seen if t.data["scene"]["floor_plan"] == "FloorPlan1")
    with pytest.raises(DataError, match="FloorPlan1-layout.npy") as info:
        build_scene("FloorPlan1", tmp_path, evidence["FloorPlan1"])
    assert info.value.field == "layout.npy"


# --- episodes ------------------------------------------------------------------------------------------------


def test_an_unknown_action_names_its_index(valid_seen, scenes):
    data = first_of(valid_seen)
    data["plan"]["low_actions"][2]["api_action"]["action"] = "Teleport"
    with pytest.raises(DataError) as info:
        episode_from_trajectory("somewhere.json", data, scenes["FloorPlan1"])
    assert info.value.field == "plan.low_actions[2].api_action.action"
    assert info.value.where == "somewhere.json" and "Teleport" in str(info.value)


def test_an_object_not_in_the_scene_names_the_action(valid_seen, scenes):
    data = first_of(valid_seen)
    lows = data["plan"]["low_actions"]
    i = next(i for i, low in enumerate(lows) if low["api_action"]["action"] == "PickupObject")
    cls = lows[i]["api_action"]["objectId"].split("|")[0]
    lows[i]["api_action"]["objectId"] = f"{cls}|+09.99|+09.99|+09.99"
    with pytest.raises(DataError) as info:
        episode_from_trajectory("somewhere.json", data, scenes["FloorPlan1"])
    assert info.value.field.startswith(f"plan.low_actions[{i}].api_action")
    assert f"{cls}|+09.99|+09.99|+09.99" in str(info.value) and "not in the scene" in str(info.value)


def test_a_put_without_a_receptacle_names_the_field(valid_seen, scenes):
    data = first_of(valid_seen)
    lows = data["plan"]["low_actions"]
    i = next(i for i, low in enumerate(lows) if low["api_action"]["action"] == "PutObject")
    del lows[i]["api_action"]["receptacleObjectId"]
    with pytest.raises(DataError) as info:
        episode_from_trajectory("somewhere.json", data, scenes["FloorPlan1"])
    assert info.value.field == f"plan.low_actions[{i}].api_action.receptacleObjectId"


def test_the_agent_starts_at_init_action(episodes):
    for t, episode in episodes:
        init = t.data["scene"]["init_action"]
        (agent,) = episode.initial_state.agents
        assert (agent.x, agent.z) == (init["x"], init["z"])
        assert agent.yaw == round(init["rotation"]) % 360 and agent.horizon == round(init["horizon"])
        assert agent.held is None


def test_every_expert_target_exists_or_is_a_piece_of_an_object_that_does(episodes):
    catalog = alfred_catalog()
    pieces = 0
    for t, episode in episodes:
        objects = episode.initial_state.objects
        assert len(episode.expert_actions) == len(t.data["plan"]["low_actions"])
        for action in episode.expert_actions:
            if action.target is None or action.target in objects:
                continue
            whole, _, piece = action.target.rpartition("|")
            assert whole in objects, f"{t.source}: {action}"
            assert piece.startswith(f"{catalog[objects[whole].cls].sliced_class}_"), f"{t.source}: {action}"
            pieces += 1
    assert pieces > 0  # sliced tasks are in valid_seen


def test_objects_the_planner_picks_up_start_in_the_receptacle_it_names(episodes):
    checked = 0
    for t, episode in episodes:
        objects = episode.initial_state.objects
        for oid, rcls, rpos in initial_pickups(t.data):
            if oid not in objects:  # a sliced piece: made during the episode
                assert oid.rpartition("|")[0] in objects
                continue
            parent = objects[oid].parent
            assert parent is not None and objects[parent].cls == rcls, f"{t.source}: {oid} is in {parent}, not a {rcls}"
            holders = [o for o in objects.values() if o.cls == rcls and o.id != oid]
            nearest = min(holders, key=lambda h: sum((a - b) ** 2 for a, b in zip(parse_object_id(h.id)[1], rpos)))
            assert parent == nearest.id
            checked += 1
    assert checked > 250  # 296 today


def test_episode_carries_goal_and_annotations(episodes):
    for t, episode in episodes:
        assert episode.goal.task_type == t.data["task_type"]
        assert episode.id == t.data["task_id"]
        assert len(episode.annotations) == len(t.data["turk_annotations"]["anns"]) > 0
        assert len(episode.expert_subgoal_index) == len(episode.expert_actions)
