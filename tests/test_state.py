"""State and Scene as data: JSON round trips, `stable_hash`, and `step` never changing its input."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from world_fixtures import (
    APPLE,
    BOWL,
    COUNTER,
    DESK_LAMP,
    DINING_TABLE,
    FAUCET,
    FRIDGE,
    KNIFE,
    MICROWAVE,
    POTATO,
    SINK_BASIN,
    STATIONS,
    TOMATO,
    WATCH,
    add_piece,
    at,
    do,
    holding,
    kitchen,
    kitchen_scene,
    run,
    with_flags,
    with_history,
)

from homesim.world.scene import Pose, Scene
from homesim.world.state import AgentState, State


def busy_state() -> State:
    """A state using every field: held objects, nested containers, open/on/dirty/hot/cold, history, 2 agents."""
    scene, state = kitchen(STATIONS["counter"], Pose(1.0, 0.25, 90, -15))
    state = holding(state, KNIFE)
    state = with_flags(state, FRIDGE, is_open=True)
    state = with_flags(state, DESK_LAMP, is_on=True)
    state = with_flags(state, APPLE, is_dirty=True, is_cold=True)
    state = with_flags(state, POTATO, is_hot=True)
    state = holding(state, BOWL, agent=1)
    state, _ = add_piece(state, "Tomato|+01.85|+01.00|+00.98", "TomatoSliced", 3, COUNTER)
    return with_history(state, cleaned=(APPLE,), heated=(POTATO, WATCH), cooled=(TOMATO,))


def json_round_trip(d: dict) -> dict:
    return json.loads(json.dumps(d))


# --- JSON round trips -------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: kitchen()[1], busy_state])
def test_state_json_round_trip(make):
    state = make()
    d = state.to_dict()
    back = State.from_dict(json_round_trip(d))
    assert back == state
    assert back.to_dict() == d
    assert back.stable_hash() == state.stable_hash()
    assert back.agents == state.agents and back.objects == state.objects


def test_a_pickled_state_comes_back_field_for_field_and_still_frozen():
    state = busy_state()
    back = pickle.loads(pickle.dumps(state, protocol=5))
    assert back == state and back.stable_hash() == state.stable_hash()
    fields_of = lambda s: [dataclasses.astuple(o) for o in s.objects.values()]  # noqa: E731
    assert fields_of(back) == fields_of(state)
    assert back.agents == state.agents and back.agents[1].held == BOWL
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.agents[0].x = 3.0  # type: ignore[misc]


def test_state_dict_is_plain_json_sorted_by_id():
    d = busy_state().to_dict()
    assert json.dumps(json_round_trip(d), sort_keys=True) == json.dumps(d, sort_keys=True)
    ids = [o["id"] for o in d["objects"]]
    assert ids == sorted(ids)
    assert set(d) == {"objects", "agents", "cleaned", "heated", "cooled"}
    assert d["cleaned"] == [APPLE] and d["heated"] == sorted([POTATO, WATCH])


def test_scene_json_round_trip():
    scene = kitchen_scene()
    scene = replace(scene, provenance={"cells_from_layout": 36})
    counter = replace(scene.fixed[COUNTER], use_poses=(Pose(0.25, 1.25, 0, 30), Pose(0.5, 1.25, 0, 15)))
    scene = replace(scene, fixed={**scene.fixed, COUNTER: counter})
    d = scene.to_dict()
    back = Scene.from_dict(json_round_trip(d))
    assert back == scene
    assert back.to_dict() == d
    assert back.fixed[COUNTER].use_poses == counter.use_poses
    assert back.provenance == {"cells_from_layout": 36}
    assert back.reachable == scene.reachable and back.camera_height == scene.camera_height


# --- stable_hash ----------------------------------------------------------------------------------------


def test_equal_states_have_equal_hashes_whatever_the_insertion_order():
    state = busy_state()
    reordered = State(
        objects=dict(reversed(list(state.objects.items()))),
        agents=state.agents,
        cleaned=frozenset(sorted(state.cleaned, reverse=True)),
        heated=state.heated,
        cooled=state.cooled,
    )
    assert reordered == state
    assert reordered.stable_hash() == state.stable_hash()
    assert busy_state().stable_hash() == state.stable_hash()


def _object(state: State, oid: str, **change) -> State:
    return state.with_objects({oid: replace(state.objects[oid], **change)})


def _agent(state: State, index: int, **change) -> State:
    return state.with_agent(index, replace(state.agents[index], **change))


SINGLE_CHANGES = {
    "object position": lambda s: _object(s, APPLE, position=(0.1, 0.95, 1.6000001)),
    "object parent": lambda s: _object(s, APPLE, parent=FRIDGE),
    "object is_open": lambda s: _object(s, MICROWAVE, is_open=True),
    "object is_on": lambda s: _object(s, FAUCET, is_on=True),
    "object is_dirty": lambda s: _object(s, POTATO, is_dirty=True),
    "object is_hot": lambda s: _object(s, APPLE, is_hot=True),
    "object is_cold": lambda s: _object(s, POTATO, is_cold=True),
    "object class": lambda s: _object(s, APPLE, cls="Tomato"),
    "object removed": lambda s: s.with_objects({}, removed=(WATCH,)),
    "object added": lambda s: add_piece(s, APPLE, "AppleSliced", 0, COUNTER)[0],
    "agent x": lambda s: _agent(s, 0, x=0.5),
    "agent z": lambda s: _agent(s, 0, z=1.0),
    "agent yaw": lambda s: _agent(s, 0, yaw=90),
    "agent horizon": lambda s: _agent(s, 0, horizon=45),
    "agent held": lambda s: _agent(s, 0, held=APPLE),
    "second agent": lambda s: replace(s, agents=s.agents + (AgentState(0.0, 0.0, 0, 0),)),
    "agents swapped": lambda s: replace(s, agents=s.agents[::-1]),
    "cleaned": lambda s: with_history(s, cleaned=(APPLE,)),
    "heated": lambda s: with_history(s, heated=(APPLE,)),
    "cooled": lambda s: with_history(s, cooled=(APPLE,)),
}


@pytest.mark.parametrize("change", SINGLE_CHANGES.values(), ids=SINGLE_CHANGES.keys())
def test_any_single_change_changes_the_hash(change):
    _, base = kitchen(STATIONS["counter"], STATIONS["table"])
    changed = change(base)
    assert changed != base
    assert changed.stable_hash() != base.stable_hash()
    assert len({changed.stable_hash(), base.stable_hash(), busy_state().stable_hash()}) == 3


def test_the_same_history_id_in_different_sets_hashes_differently():
    _, state = kitchen()
    hashes = {with_history(state, **{name: (APPLE,)}).stable_hash() for name in ("cleaned", "heated", "cooled")}
    assert len(hashes) == 3


def test_stable_hash_is_the_same_in_another_process():
    """Independent of PYTHONHASHSEED and of set/dict iteration order."""
    state = busy_state()
    code = (
        "import json, sys; from homesim.world.state import State; "
        "print(State.from_dict(json.load(sys.stdin)).stable_hash())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(state.to_dict()),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=Path(__file__).parent,
    )
    assert out.stdout.strip() == state.stable_hash()
    assert len(state.stable_hash()) == 16


def test_walking_away_and_back_gives_an_equal_state_with_the_same_hash():
    scene, state = kitchen()
    state = state.with_agent(0, AgentState(x=1, z=1, yaw=0, horizon=30))  # whole metres, given as ints
    back = run(scene, state, "RotateLeft", "MoveAhead", "RotateLeft", "RotateLeft", "MoveAhead", "RotateLeft")
    assert back == state
    assert back.stable_hash() == state.stable_hash()


def test_state_is_hashable_as_its_docstring_says():
    _, state = kitchen()
    assert len({state, State.from_dict(state.to_dict())}) == 1


# --- immutability ---------------------------------------------------------------------------------------


def test_states_and_their_parts_are_frozen():
    state = busy_state()
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.cleaned = frozenset()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.agents[0].x = 3.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.objects[APPLE].parent = None  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        kitchen_scene().fixed[COUNTER].box = None  # type: ignore[misc]


def test_with_objects_and_with_agent_copy_instead_of_changing():
    state = busy_state()
    before = state.to_dict()
    changed = state.with_objects({APPLE: replace(state.objects[APPLE], parent=FRIDGE)}, removed=(WATCH,))
    moved = state.with_agent(0, replace(state.agents[0], x=0.0))
    assert state.to_dict() == before
    assert changed.objects is not state.objects and moved.agents is not state.agents
    assert WATCH in state.objects and WATCH not in changed.objects


# Every action, successful or not, from states where it applies.
EPISODE = [
    ("counter", None),
    ("PickupObject", KNIFE),
    ("SliceObject", APPLE),
    ("SliceObject", POTATO),
    ("PutObject", COUNTER),
    ("PickupObject", f"{APPLE}|AppleSliced_0"),
    ("PickupObject", POTATO),
    ("sink", None),
    ("PutObject", SINK_BASIN),
    ("ToggleObjectOn", FAUCET),
    ("ToggleObjectOff", FAUCET),
    ("PickupObject", f"{APPLE}|AppleSliced_0"),
    ("fridge", None),
    ("OpenObject", FRIDGE),
    ("PutObject", FRIDGE),
    ("CloseObject", FRIDGE),
    ("CloseObject", FRIDGE),
    ("microwave", None),
    ("OpenObject", MICROWAVE),
    ("PickupObject", TOMATO),
    ("CloseObject", MICROWAVE),
    ("ToggleObjectOn", MICROWAVE),
    ("table", None),
    ("PickupObject", BOWL),
    ("PutObject", DINING_TABLE),
    ("MoveAhead", None),
    ("RotateLeft", None),
    ("RotateRight", None),
    ("LookUp", None),
    ("LookDown", None),
    ("LookDown", None),
    ("LookDown", None),
    ("lamp", None),
    ("ToggleObjectOn", DESK_LAMP),
    ("Stop", None),
]


def test_step_never_changes_its_input_state():
    scene, state = kitchen()
    scene_before = scene.to_dict()
    outcomes = []
    for name, target in EPISODE:
        if name in STATIONS:
            state = at(state, name)
            continue
        before, objects_before = state.to_dict(), dict(state.objects)
        new, event = do(scene, state, name, target)
        assert state.to_dict() == before, f"{name} {target} changed its input state"
        assert state.objects == objects_before
        outcomes.append(event.success)
        state = new
    assert scene.to_dict() == scene_before
    assert True in outcomes and False in outcomes  # both kinds of step were exercised


def test_an_object_inside_itself_is_an_error_not_an_endless_loop():
    """Issue 33, item 5: a malformed episode's object that is its own parent made `ancestors` loop for ever."""
    from homesim.world.state import AgentState, ObjectState, State

    state = State({"a": ObjectState("a", "Bowl", (0, 0, 0), "b"), "b": ObjectState("b", "Box", (0, 0, 0), "a")},
                  (AgentState(0, 0, 0, 0),))  # fmt: skip
    with pytest.raises(ValueError, match="its parents loop"):
        state.ancestors("a")
    with pytest.raises(ValueError, match="the objects' parents loop"):
        state.descendants("a")
