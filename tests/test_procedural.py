"""Procedural rooms: deterministic, serializable, walkable, and usable by ALFRED's actions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache

import pytest

from homesim.scenes.alfred import object_id, parse_object_id
from homesim.scenes.procedural import ROOM_TYPES, generate_room
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import visible_point
from homesim.world.scene import GRID_SIZE, Box, Pose, Scene
from homesim.world.state import AgentState, State

SEEDS = (0, 1, 7)
ROOMS = [(room_type, seed) for room_type in ROOM_TYPES for seed in SEEDS]
YAWS = (0, 90, 180, 270)
CATALOG = alfred_catalog()
EXPECTED_CLASSES = {
    "Kitchen": {
        "CounterTop",
        "Cabinet",
        "Drawer",
        "Fridge",
        "Microwave",
        "Sink",
        "SinkBasin",
        "Faucet",
        "StoveBurner",
        "CoffeeMachine",
        "GarbageCan",
    },
    "Bathroom": {
        "Toilet",
        "Sink",
        "SinkBasin",
        "Faucet",
        "Bathtub",
        "BathtubBasin",
        "Cabinet",
        "CounterTop",
        "TowelHolder",
        "ToiletPaperHanger",
        "GarbageCan",
    },
    "Bedroom": {"Bed", "Dresser", "Desk", "DeskLamp", "SideTable", "Shelf", "Drawer", "GarbageCan"},
    "LivingRoom": {"Sofa", "ArmChair", "CoffeeTable", "SideTable", "FloorLamp", "TVStand", "Shelf", "GarbageCan"},
}
SLICEABLES = {"Apple", "Bread", "Lettuce", "Potato", "Tomato"}


@cache
def room(room_type: str, seed: int) -> tuple[Scene, State]:
    return generate_room(room_type, seed)


def movables(scene: Scene, state: State) -> list:
    return [o for o in state.objects.values() if o.id not in scene.fixed]


def at(state: State, pose: Pose, held: str | None = None) -> State:
    """The state with agent 0 teleported to a pose."""
    return state.with_agent(0, AgentState(pose.x, pose.z, pose.yaw, pose.horizon, held))


def act(scene: Scene, state: State, name: str, target: str) -> State:
    state, event = step(scene, state, Action(name, target))
    assert event.success, f"{name} {target}: {event.message}"
    return state


def pick_up(scene: Scene, state: State, object_id_: str) -> State:
    """Goes to the object's receptacle, opens it if it is shut, and picks the object up."""
    parent = state.objects[object_id_].parent
    state = at(state, scene.fixed[parent].use_poses[0])
    if CATALOG[state.objects[parent].cls].openable and not state.objects[parent].is_open:
        state = act(scene, state, A.OPEN, parent)
    state = act(scene, state, A.PICKUP, object_id_)
    assert state.agents[0].held == object_id_
    return state


def only(scene: Scene, cls: str) -> str:
    ids = [f.id for f in scene.fixed.values() if f.cls == cls]
    assert len(ids) == 1, f"expected one {cls}, found {ids}"
    return ids[0]


# --- construction -------------------------------------------------------------------------------


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_same_seed_same_room(room_type: str, seed: int) -> None:
    (scene_a, state_a), (scene_b, state_b) = generate_room(room_type, seed), generate_room(room_type, seed)
    assert scene_a.to_dict() == scene_b.to_dict()
    assert state_a.stable_hash() == state_b.stable_hash()


def test_same_seed_same_room_in_another_process() -> None:
    """Nothing depends on Python's per-process hash seed (set iteration order)."""
    code = "from homesim.scenes.procedural import generate_room; print(generate_room('Kitchen', 1)[1].stable_hash())"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == room("Kitchen", 1)[1].stable_hash()


@pytest.mark.parametrize("room_type", ROOM_TYPES)
def test_different_seeds_different_rooms(room_type: str) -> None:
    scenes = [json.dumps(room(room_type, seed)[0].to_dict()) for seed in SEEDS]
    states = [room(room_type, seed)[1].stable_hash() for seed in SEEDS]
    assert len(set(scenes)) == len(SEEDS) and len(set(states)) == len(SEEDS)


def test_unknown_room_type_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="Kitchen, Bathroom, Bedroom, LivingRoom"):
        generate_room("Garage", 0)


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_json_round_trip(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    scene_back = Scene.from_dict(json.loads(json.dumps(scene.to_dict())))
    state_back = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert scene_back == scene and scene_back.to_dict() == scene.to_dict()
    assert state_back == state and state_back.stable_hash() == state.stable_hash()


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_scene_identity_and_furniture(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    assert scene.id == f"procedural-{room_type.lower()}-{seed}" and scene.room_type == room_type
    assert EXPECTED_CLASSES[room_type] <= {f.cls for f in scene.fixed.values()}
    for f in scene.fixed.values():
        cls, position = parse_object_id(f.id)
        assert cls == f.cls and position == pytest.approx(f.position, abs=1e-9)
        assert f.id == object_id(f.cls, f.position)
        assert all(lo < hi for lo, hi in zip(f.box.lo, f.box.hi))
        o = state.objects[f.id]  # every fixed object has its state, and no place of its own there
        assert (o.cls, o.position, o.parent, o.is_open) == (f.cls, None, None, CATALOG[f.cls].starts_open)


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_agent_starts_on_a_reachable_cell(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    (agent,) = state.agents
    assert scene.is_reachable(agent.x, agent.z)
    assert agent.yaw in YAWS and agent.horizon == 30 and agent.held is None


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_reachable_grid_is_connected_and_clear_of_furniture(room_type: str, seed: int) -> None:
    scene, _ = room(room_type, seed)
    start = min(scene.reachable)
    seen, frontier = {start}, [start]
    while frontier:
        ix, iz = frontier.pop()
        for cell in ((ix + 1, iz), (ix - 1, iz), (ix, iz + 1), (ix, iz - 1)):
            if cell in scene.reachable and cell not in seen:
                seen.add(cell)
                frontier.append(cell)
    assert seen == scene.reachable
    half = GRID_SIZE / 2
    for ix, iz in scene.reachable:
        x, z = ix * GRID_SIZE, iz * GRID_SIZE
        for f in scene.fixed.values():
            clear = x + half <= f.box.lo[0] + 1e-9 or f.box.hi[0] <= x - half + 1e-9
            clear = clear or z + half <= f.box.lo[2] + 1e-9 or f.box.hi[2] <= z - half + 1e-9
            assert clear, f"cell {(ix, iz)} overlaps {f.id}"


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_every_fixed_object_is_visible_from_its_use_pose(room_type: str, seed: int) -> None:
    scene, _ = room(room_type, seed)
    for f in scene.fixed.values():
        assert f.use_poses, f"{f.id} has no use pose"
        for pose in f.use_poses:
            assert scene.is_reachable(pose.x, pose.z) and pose.yaw in YAWS
            agent = AgentState(pose.x, pose.z, pose.yaw, pose.horizon)
            assert visible_point(f.box, agent, scene.camera_height) is not None, f"{f.id} unseen from {pose}"


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_movable_objects_sit_in_compatible_receptacles(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    objects = movables(scene, state)
    assert 10 <= len({o.cls for o in objects}) <= 25
    for o in objects:
        assert CATALOG[o.cls].pickupable and o.id == object_id(o.cls, o.position)
        assert o.parent in scene.fixed, f"{o.id} is not on a fixed receptacle"
        parent = scene.fixed[o.parent]
        assert CATALOG[parent.cls].receptacle and CATALOG.can_contain(parent.cls, o.cls)
        assert all(lo - 1e-9 <= p <= hi + 1e-9 for lo, p, hi in zip(parent.box.lo, o.position, parent.box.hi))
        assert o.is_open == CATALOG[o.cls].starts_open


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_movable_objects_do_not_run_into_each_other(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    boxes = [(o.id, Box.around(o.position, CATALOG[o.cls].size)) for o in movables(scene, state)]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            apart = any(box_a.hi[k] <= box_b.lo[k] + 1e-9 or box_b.hi[k] <= box_a.lo[k] + 1e-9 for k in range(3))
            assert apart, f"{a} and {b} overlap"


def test_kitchens_hold_the_sliceables_a_knife_and_movable_receptacles() -> None:
    for seed in SEEDS:
        classes = {o.cls for o in movables(*room("Kitchen", seed))}
        assert SLICEABLES | {"Mug", "Bowl", "Plate", "Pot", "Pan"} <= classes
        assert classes & {"Knife", "ButterKnife"}


@pytest.mark.parametrize("room_type,seed", [r for r in ROOMS if r[0] in ("Kitchen", "Bathroom")])
def test_faucet_is_next_to_its_sink_basin(room_type: str, seed: int) -> None:
    scene, _ = room(room_type, seed)
    faucet, basin = scene.fixed[only(scene, "Faucet")], scene.fixed[only(scene, "SinkBasin")]
    assert abs(faucet.position[0] - basin.position[0]) + abs(faucet.position[2] - basin.position[2]) < 0.5


# --- behaviour under ALFRED's actions -----------------------------------------------------------


@pytest.mark.parametrize("room_type,seed", ROOMS)
def test_everything_can_be_picked_up_from_its_receptacles_use_pose(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    picked = 0
    for o in movables(scene, state):
        held = pick_up(scene, state, o.id)
        assert held.objects[o.id].parent is None and held.objects[o.id].position is None
        picked += not CATALOG[scene.fixed[o.parent].cls].openable
    assert picked > 0, "no object lies on an open surface"


@pytest.mark.parametrize("seed", SEEDS)
def test_fridge_cools_what_is_put_in_it(seed: int) -> None:
    scene, state = room("Kitchen", seed)
    fridge = only(scene, "Fridge")
    food = next(o.id for o in movables(scene, state) if CATALOG[o.cls].coolable and o.parent != fridge)
    state = pick_up(scene, state, food)
    state = at(state, scene.fixed[fridge].use_poses[0], held=food)
    for name in (A.OPEN, A.PUT, A.CLOSE):
        state = act(scene, state, name, fridge)
    assert food in state.cooled and state.objects[food].parent == fridge and state.objects[food].is_cold


@pytest.mark.parametrize("room_type,seed", [r for r in ROOMS if r[0] in ("Kitchen", "Bathroom")])
def test_faucet_cleans_what_is_in_the_sink_basin(room_type: str, seed: int) -> None:
    scene, state = room(room_type, seed)
    basin, faucet = only(scene, "SinkBasin"), only(scene, "Faucet")
    dish = next(
        o.id
        for o in movables(scene, state)
        if CATALOG[o.cls].cleanable and CATALOG.can_contain("SinkBasin", o.cls) and o.parent != basin
    )
    state = pick_up(scene, state, dish)
    state = act(scene, at(state, scene.fixed[basin].use_poses[0], held=dish), A.PUT, basin)
    state = act(scene, at(state, scene.fixed[faucet].use_poses[0]), A.TOGGLE_ON, faucet)
    assert dish in state.cleaned and state.objects[dish].parent == basin


@pytest.mark.parametrize("seed", SEEDS)
def test_microwave_heats_what_is_put_in_it(seed: int) -> None:
    scene, state = room("Kitchen", seed)
    microwave = only(scene, "Microwave")
    food = next(
        o.id
        for o in movables(scene, state)
        if CATALOG[o.cls].heatable and o.parent != microwave and CATALOG.can_contain("Microwave", o.cls)
    )
    state = at(pick_up(scene, state, food), scene.fixed[microwave].use_poses[0], held=food)
    for name in (A.OPEN, A.PUT, A.CLOSE, A.TOGGLE_ON):
        state = act(scene, state, name, microwave)
    assert food in state.heated and state.objects[food].is_hot
