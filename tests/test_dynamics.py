"""The world's dynamics: ALFRED's 12 actions and Stop, each one's preconditions and effects, and the
state ALFRED tracks (cleaned / heated / cooled), on the hand-built kitchen of `world_fixtures`."""

from __future__ import annotations

import math

import pytest
from world_fixtures import (
    APPLE,
    BOOK,
    BOWL,
    BUTTER_KNIFE,
    CABINET,
    CELLPHONE,
    COUNTER,
    DESK_LAMP,
    DINING_TABLE,
    FAUCET,
    FRIDGE,
    KNIFE,
    LETTUCE,
    MICROWAVE,
    MUG,
    PLATE,
    POT,
    POTATO,
    ROOM_CELLS,
    SINK_BASIN,
    STATIONS,
    TOMATO,
    WATCH,
    add,
    agent_at,
    at,
    do,
    fixed,
    holding,
    kitchen,
    kitchen_scene,
    kitchen_state,
    make_scene,
    make_state,
    of_class,
    put_in,
    run,
    with_flags,
    with_history,
)

from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import HORIZON_MAX, HORIZON_MIN, step
from homesim.world.geometry import visible_objects, why_not_visible
from homesim.world.scene import Box, Pose
from homesim.world.state import State

CATALOG = alfred_catalog()


def assert_fails(scene, state: State, name: str, target: str | None, why: str, agent: int = 0) -> None:
    """A failed action: success False, a message saying why, and the very same state back."""
    new, event = do(scene, state, name, target, agent)
    assert not event.success
    assert event.action == Action.parse(name, target)
    assert why in event.message, event.message
    assert new is state


def inside(box, position) -> bool:
    return all(lo - 1e-9 <= p <= hi + 1e-9 for lo, p, hi in zip(box.lo, position, box.hi))


# --- the action type ------------------------------------------------------------------------------


def test_alfred_has_five_navigation_actions_seven_interactions_and_stop():
    assert A.NAVIGATION_ACTIONS == ("MoveAhead_25", "RotateLeft_90", "RotateRight_90", "LookUp_15", "LookDown_15")
    assert set(A.INTERACT_ACTIONS) == {
        "PickupObject",
        "PutObject",
        "OpenObject",
        "CloseObject",
        "ToggleObjectOn",
        "ToggleObjectOff",
        "SliceObject",
    }
    assert A.ACTIONS[-1] == "Stop" and len(A.ACTIONS) == 13


@pytest.mark.parametrize("name", ["Jump", "MoveAhead_50", "pickupobject", "", "<<stop>>"])
def test_action_rejects_unknown_names(name):
    with pytest.raises(ValueError, match="unknown action"):
        Action(name)


@pytest.mark.parametrize("name", A.INTERACT_ACTIONS)
def test_an_interaction_needs_a_target(name):
    with pytest.raises(ValueError, match="needs a target"):
        Action(name)
    assert Action(name, APPLE).target == APPLE


@pytest.mark.parametrize("name", A.NAVIGATION_ACTIONS + (A.STOP,))
def test_navigation_and_stop_take_no_target(name):
    with pytest.raises(ValueError, match="takes no target"):
        Action(name, APPLE)
    assert Action(name).target is None


@pytest.mark.parametrize(
    "given, expected",
    [
        ("MoveAhead", A.MOVE_AHEAD),
        ("RotateLeft", A.ROTATE_LEFT),
        ("RotateRight", A.ROTATE_RIGHT),
        ("LookUp", A.LOOK_UP),
        ("LookDown", A.LOOK_DOWN),
        ("<<stop>>", A.STOP),
        ("MoveAhead_25", A.MOVE_AHEAD),
        ("Stop", A.STOP),
    ],
)
def test_parse_accepts_ai2thor_and_alfred_names(given, expected):
    assert Action.parse(given) == Action(expected)


def test_parse_keeps_interaction_names_and_their_target():
    assert Action.parse("PickupObject", APPLE) == Action(A.PICKUP, APPLE)
    with pytest.raises(ValueError):
        Action.parse("PickupObject")
    with pytest.raises(ValueError):
        Action.parse("MoveAhead", APPLE)
    with pytest.raises(ValueError):
        Action.parse("Teleport")


# --- navigation --------------------------------------------------------------------------------------


@pytest.mark.parametrize("yaw, dx, dz", [(0, 0.0, 0.25), (90, 0.25, 0.0), (180, 0.0, -0.25), (270, -0.25, 0.0)])
def test_move_ahead_moves_one_cell_the_way_the_agent_faces(yaw, dx, dz):
    scene, state = kitchen(Pose(0.5, 0.5, yaw, 30))
    new, event = do(scene, state, "MoveAhead")
    assert event.success and event.message == ""
    me = new.agents[0]
    assert (me.x, me.z, me.yaw, me.horizon) == (0.5 + dx, 0.5 + dz, yaw, 30)
    assert new.objects == state.objects


@pytest.mark.parametrize("pose", [Pose(0.0, 1.25, 0, 30), Pose(0.0, 1.25, 270, 30), Pose(1.25, 0.0, 180, 0)])
def test_move_ahead_into_a_wall_fails_without_sliding(pose):
    scene, state = kitchen(pose)
    assert_fails(scene, state, "MoveAhead", None, "not reachable")


def test_move_ahead_into_an_unreachable_cell_inside_the_room_fails():
    scene = kitchen_scene(ROOM_CELLS - {(2, 3)})  # a pillar in front of the start pose
    state = kitchen_state()
    assert_fails(scene, state, "MoveAhead", None, "blocked")
    moved = run(scene, state, "RotateRight", "MoveAhead", "RotateLeft", "MoveAhead")  # around it
    assert (moved.agents[0].x, moved.agents[0].z) == (0.75, 0.75)


@pytest.mark.parametrize(
    "yaw, name, expected",
    [(0, "RotateLeft", 270), (270, "RotateRight", 0), (90, "RotateRight", 180), (180, "RotateLeft", 90)],
)
def test_rotation_turns_90_degrees_and_wraps(yaw, name, expected):
    scene, state = kitchen(Pose(0.5, 0.5, yaw, 15))
    new, event = do(scene, state, name)
    assert event.success
    assert new.agents[0] == agent_at(Pose(0.5, 0.5, expected, 15))


def test_four_turns_bring_the_agent_back():
    scene, state = kitchen()
    assert run(scene, state, *["RotateRight"] * 4) == state
    assert run(scene, state, *["RotateLeft"] * 4) == state


def test_look_up_and_down_move_15_degrees_within_minus_30_to_60():
    assert (HORIZON_MIN, HORIZON_MAX) == (-30, 60)
    scene, state = kitchen(Pose(0.5, 0.5, 0, 0))
    horizons = []
    for _ in range(4):
        state = run(scene, state, "LookDown")
        horizons.append(state.agents[0].horizon)
    assert horizons == [15, 30, 45, 60]
    assert_fails(scene, state, "LookDown", None, "outside [-30, 60]")
    state = run(scene, state, *["LookUp"] * 6)
    assert state.agents[0].horizon == -30
    assert_fails(scene, state, "LookUp", None, "outside [-30, 60]")


# --- several agents ------------------------------------------------------------------------------------


def test_a_second_agent_blocks_the_cell_it_stands_on():
    scene, state = kitchen(Pose(0.5, 0.5, 0, 30), Pose(0.5, 0.75, 0, 30))
    assert_fails(scene, state, "MoveAhead", None, "another agent", agent=0)
    state = run(scene, state, "MoveAhead", agent=1)  # agent 1 steps away to (0.5, 1.0)
    state = run(scene, state, "MoveAhead", agent=0)
    assert [(a.x, a.z) for a in state.agents] == [(0.5, 0.75), (0.5, 1.0)]
    state = run(scene, state, "RotateLeft", "RotateLeft", agent=1)  # agent 1 now faces agent 0
    assert_fails(scene, state, "MoveAhead", None, "another agent", agent=1)


def test_each_agent_acts_on_its_own_pose_and_hand():
    scene, state = kitchen(STATIONS["counter"], STATIONS["counter"])
    new = run(scene, state, ("PickupObject", APPLE), "RotateLeft", agent=1)
    assert new.agents[0] == state.agents[0]
    assert (new.agents[1].yaw, new.agents[1].held) == (270, APPLE)
    assert new.holder_of(APPLE) == 1


def test_an_agent_cannot_take_what_another_agent_holds_or_what_is_in_it():
    scene, state = kitchen(STATIONS["table"], STATIONS["table"])
    state = run(scene, state, ("PickupObject", BOWL), agent=0)
    assert_fails(scene, state, "PickupObject", BOWL, "held by another agent", agent=1)
    assert_fails(scene, state, "PickupObject", WATCH, f"inside {BOWL}", agent=1)


# --- PickupObject ---------------------------------------------------------------------------------------


def test_pickup_takes_a_visible_object_into_the_empty_hand():
    scene, state = kitchen(STATIONS["counter"])
    new, event = do(scene, state, "PickupObject", APPLE)
    assert event.success
    assert new.agents[0].held == APPLE
    assert (new.objects[APPLE].parent, new.objects[APPLE].position) == (None, None)
    assert APPLE not in new.children(COUNTER)
    assert APPLE in state.children(COUNTER)  # the input state is untouched


def test_pickup_needs_an_empty_hand():
    scene, state = kitchen(STATIONS["counter"])
    state = run(scene, state, ("PickupObject", APPLE))
    assert_fails(scene, state, "PickupObject", POTATO, f"already holding {APPLE}")


@pytest.mark.parametrize("target", [COUNTER, FRIDGE, DESK_LAMP])
def test_pickup_fails_for_what_is_not_pickupable(target):
    scene, state = kitchen(STATIONS["counter"])
    assert_fails(scene, state, "PickupObject", target, f"{target} is not pickupable")


def test_pickup_fails_for_an_unknown_object():
    scene, state = kitchen(STATIONS["counter"])
    assert_fails(scene, state, "PickupObject", "Apple|+9.00|+9.00|+9.00", "no object")


def test_pickup_fails_beyond_1_5_m_and_works_one_step_closer():
    scene, state = kitchen(Pose(0.25, 0.0, 0, 30))  # the apple's nearest side is 1.55 m away
    assert_fails(scene, state, "PickupObject", APPLE, "not in view within 1.5 m")
    state = run(scene, state, "MoveAhead")  # now 1.30 m away
    assert run(scene, state, ("PickupObject", APPLE)).agents[0].held == APPLE


@pytest.mark.parametrize("yaw", [90, 180])
def test_pickup_fails_for_an_object_not_in_front(yaw):
    scene, state = kitchen(Pose(0.25, 1.25, yaw, 30))  # the counter station, turned away
    assert_fails(scene, state, "PickupObject", APPLE, "not in view")


def test_a_lowered_view_reaches_wide_at_its_bottom_corners():
    """Turned 90 degrees left of the counter, the apple lies 67 degrees to the right: outside a 45 degree
    wedge, but inside the bottom-right corner of the camera's image when it looks 30 degrees down."""
    scene, state = kitchen(Pose(0.25, 1.25, 270, 30))
    assert run(scene, state, ("PickupObject", APPLE)).agents[0].held == APPLE
    level = run(scene, state, "LookUp", "LookUp")
    assert_fails(scene, level, "PickupObject", APPLE, "not in view")


def test_pickup_fails_when_looking_too_far_up():
    scene, state = kitchen(Pose(0.25, 1.25, 0, -30))  # the apple is 0.6 m below the camera, 0.3 m ahead
    assert_fails(scene, state, "PickupObject", APPLE, "not in view")


def test_pickup_from_a_closed_fridge_fails_until_it_is_opened():
    scene, state = kitchen(STATIONS["fridge"])
    assert_fails(scene, state, "PickupObject", TOMATO, f"{TOMATO} is inside {FRIDGE}")
    state = run(scene, state, ("OpenObject", FRIDGE), ("PickupObject", TOMATO))
    assert state.agents[0].held == TOMATO


def test_pickup_from_a_closed_cabinet_fails_until_it_is_opened():
    scene, state = kitchen(STATIONS["cabinet"])
    assert_fails(scene, state, "PickupObject", PLATE, f"inside {CABINET}")
    state = run(scene, state, ("OpenObject", CABINET), ("PickupObject", PLATE))
    assert state.agents[0].held == PLATE


# --- PutObject ------------------------------------------------------------------------------------------


def test_put_places_the_held_object_on_a_visible_receptacle():
    scene, state = kitchen(STATIONS["counter"])
    state = run(scene, state, ("PickupObject", APPLE), "table")
    new, event = do(scene, state, "PutObject", DINING_TABLE)
    assert event.success
    assert new.agents[0].held is None
    assert new.objects[APPLE].parent == DINING_TABLE
    assert inside(scene.fixed[DINING_TABLE].box, new.objects[APPLE].position)


LOOKING_AT_THE_TABLE = Pose(0.5, 0.0, 180, 60)  # the centre ray meets the table's top 0.48 m ahead


def test_put_lands_where_the_agent_looks():
    scene, state = kitchen(LOOKING_AT_THE_TABLE)
    state = holding(state.with_objects({}, removed=(BOWL, WATCH, MUG, BUTTER_KNIFE)), APPLE)  # a bare table
    new = run(scene, state, ("PutObject", DINING_TABLE))
    top = scene.fixed[DINING_TABLE].box.hi[1]
    ahead = (scene.camera_height - top) / math.tan(math.radians(60))
    assert new.objects[APPLE].position == pytest.approx((0.5, top, 0.0 - ahead))


def test_put_lands_on_the_free_spot_nearest_where_the_agent_looks():
    scene, state = kitchen(LOOKING_AT_THE_TABLE)
    state = holding(state.with_objects({}, removed=(BOWL, WATCH, MUG, BUTTER_KNIFE)), APPLE)
    state = run(scene, state, ("PutObject", DINING_TABLE))
    new = run(scene, holding(state, POTATO), ("PutObject", DINING_TABLE))
    apple, potato = (Box.around(new.objects[o].position, CATALOG[new.objects[o].cls].size) for o in (APPLE, POTATO))
    assert not apple.overlaps(potato)
    assert inside(scene.fixed[DINING_TABLE].box, new.objects[POTATO].position)
    assert POTATO in visible_objects(scene, new, CATALOG, 0)
    (ax, _, az), (px, _, pz) = new.objects[APPLE].position, new.objects[POTATO].position
    assert math.hypot(px - ax, pz - az) <= 0.1 + 0.1 + 1e-9  # beside it: the next column over at most


def test_put_needs_something_in_hand():
    scene, state = kitchen(STATIONS["table"])
    assert_fails(scene, state, "PutObject", DINING_TABLE, "nothing in hand")


@pytest.mark.parametrize("station, target", [("sink", FAUCET), ("counter", KNIFE)])
def test_put_needs_a_receptacle(station, target):
    scene, state = kitchen(STATIONS[station])
    assert_fails(scene, holding(state, POTATO), "PutObject", target, f"{target} is not receptacle")


def test_put_needs_an_existing_receptacle():
    scene, state = kitchen(STATIONS["counter"])
    assert_fails(scene, holding(state, POTATO), "PutObject", "Bowl|+0.40|+0.95|+1.60", "no object")


def test_put_needs_the_receptacle_in_view():
    scene, state = kitchen(STATIONS["counter"])
    state = run(scene, state, ("PickupObject", APPLE))
    assert_fails(scene, state, "PutObject", DINING_TABLE, "not in view")  # it is behind the agent


def test_put_into_a_closed_fridge_fails_until_it_is_opened():
    scene, state = kitchen(STATIONS["fridge"])
    state = holding(state, APPLE)
    assert_fails(scene, state, "PutObject", FRIDGE, f"{FRIDGE} is closed")
    state = run(scene, state, ("OpenObject", FRIDGE), ("PutObject", FRIDGE))
    assert state.objects[APPLE].parent == FRIDGE
    assert set(state.children(FRIDGE)) == {APPLE, TOMATO, LETTUCE}


def test_put_into_a_closed_box_fails_until_it_is_opened():
    scene, state = kitchen(STATIONS["table"])
    state, box = add(state, "Box", (0.7, 0.8, -0.8), DINING_TABLE, is_open=False)
    state = holding(state, WATCH)
    assert_fails(scene, state, "PutObject", box, f"{box} is closed")
    state = run(scene, state, ("OpenObject", box), ("PutObject", box))
    assert state.ancestors(WATCH) == [box, DINING_TABLE]


@pytest.mark.parametrize(
    "held, receptacle, fits",
    [
        (WATCH, MUG, True),  # Mug takes small things: pens, spoons, watches
        (APPLE, MUG, False),
        (APPLE, BOWL, True),
        (POT, BOWL, False),
        (BUTTER_KNIFE, BOWL, True),
        (BOOK, BOWL, False),
    ],
)
def test_a_small_movable_receptacle_takes_only_what_the_catalog_allows(held, receptacle, fits):
    scene, state = kitchen(STATIONS["table"])
    state = holding(state, held)
    assert CATALOG.can_contain(state.objects[receptacle].cls, state.objects[held].cls) == fits
    if fits:
        state = run(scene, state, ("PutObject", receptacle))
        assert state.objects[held].parent == receptacle
        assert state.ancestors(held) == [receptacle, DINING_TABLE]
    else:
        assert_fails(scene, state, "PutObject", receptacle, "cannot be put in/on a")


def test_a_fixed_receptacle_takes_anything_as_alfreds_forced_put_does():
    scene, state = kitchen(STATIONS["microwave"])
    assert not CATALOG.can_contain("Microwave", "Pot")
    state = holding(with_flags(state, MICROWAVE, is_open=True), POT)
    state = run(scene, state, ("PutObject", MICROWAVE))
    assert state.objects[POT].parent == MICROWAVE


def test_a_held_receptacle_cannot_be_put_into_itself_or_into_what_it_holds():
    scene, state = kitchen(STATIONS["table"])
    state = put_in(state, MUG, BOWL)
    state = run(scene, state, ("PickupObject", BOWL))
    assert_fails(scene, state, "PutObject", BOWL, "in the agent's hand")
    assert_fails(scene, state, "PutObject", MUG, f"inside {BOWL}")


def test_moving_a_bowl_carries_the_watch_inside_it():
    scene, state = kitchen(STATIONS["table"])
    assert state.ancestors(WATCH) == [BOWL, DINING_TABLE]
    state = run(scene, state, ("PickupObject", BOWL))
    assert state.objects[WATCH].parent == BOWL
    assert state.ancestors(WATCH) == [BOWL]
    assert_fails(scene, state, "PickupObject", WATCH, "already holding")
    state = run(scene, state, "counter", ("PutObject", COUNTER))
    assert state.ancestors(WATCH) == [BOWL, COUNTER]
    assert state.objects[WATCH].position == state.objects[BOWL].position
    assert inside(scene.fixed[COUNTER].box, state.objects[WATCH].position)
    assert WATCH in state.descendants(COUNTER) and WATCH not in state.descendants(DINING_TABLE)
    # and the watch can be taken out of the bowl again where it now is
    state = run(scene, state, ("PickupObject", WATCH))
    assert state.agents[0].held == WATCH and state.objects[BOWL].parent == COUNTER


# --- OpenObject / CloseObject ----------------------------------------------------------------------------


def test_open_and_close_toggle_is_open_and_fail_when_already_so():
    scene, state = kitchen(STATIONS["fridge"])
    assert_fails(scene, state, "CloseObject", FRIDGE, "already closed")
    opened = run(scene, state, ("OpenObject", FRIDGE))
    assert opened.objects[FRIDGE].is_open
    assert_fails(scene, opened, "OpenObject", FRIDGE, "already open")
    closed = run(scene, opened, ("CloseObject", FRIDGE))
    assert not closed.objects[FRIDGE].is_open


@pytest.mark.parametrize("target", [COUNTER, POTATO])
def test_open_needs_an_openable_object(target):
    scene, state = kitchen(STATIONS["counter"])
    assert_fails(scene, state, "OpenObject", target, "is not openable")
    assert_fails(scene, state, "CloseObject", target, "is not openable")


def test_open_needs_the_object_in_view():
    scene, state = kitchen(STATIONS["counter"])
    assert_fails(scene, state, "OpenObject", FRIDGE, "not in view")


def test_open_works_with_something_in_hand():
    scene, state = kitchen(STATIONS["fridge"])
    state = run(scene, holding(state, APPLE), ("OpenObject", FRIDGE))
    assert state.objects[FRIDGE].is_open and state.agents[0].held == APPLE


# --- ToggleObjectOn / ToggleObjectOff --------------------------------------------------------------------


def test_toggle_turns_a_lamp_on_and_off_and_fails_when_already_so():
    scene, state = kitchen(STATIONS["lamp"])
    assert_fails(scene, state, "ToggleObjectOff", DESK_LAMP, "already off")
    on = run(scene, state, ("ToggleObjectOn", DESK_LAMP))
    assert on.objects[DESK_LAMP].is_on
    assert_fails(scene, on, "ToggleObjectOn", DESK_LAMP, "already on")
    off = run(scene, on, ("ToggleObjectOff", DESK_LAMP))
    assert not off.objects[DESK_LAMP].is_on
    assert (on.cleaned, on.heated, on.cooled) == (frozenset(), frozenset(), frozenset())


@pytest.mark.parametrize("target", [FRIDGE, CELLPHONE])
def test_toggle_needs_a_toggleable_object(target):
    scene, state = kitchen(STATIONS["fridge"] if target == FRIDGE else STATIONS["bed"])
    assert_fails(scene, state, "ToggleObjectOn", target, "is not toggleable")


def test_toggle_needs_the_object_in_view():
    scene, state = kitchen(STATIONS["counter"])
    assert_fails(scene, state, "ToggleObjectOn", DESK_LAMP, "not in view")


# --- SliceObject -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", [KNIFE, BUTTER_KNIFE])
@pytest.mark.parametrize("whole, sliced", [(APPLE, "AppleSliced"), (POTATO, "PotatoSliced")])
def test_slicing_with_a_knife_replaces_the_object_by_its_pieces(tool, whole, sliced):
    scene, state = kitchen(STATIONS["counter"])
    state = holding(state, tool)
    new, event = do(scene, state, "SliceObject", whole)
    assert event.success
    count = CATALOG[state.objects[whole].cls].slice_count
    assert count > 0
    expected = sorted(f"{whole}|{sliced}_{i}" for i in range(count))
    assert of_class(new, sliced) == expected
    assert whole not in new.objects
    assert all(new.objects[p].parent == COUNTER for p in expected)
    assert new.agents[0].held == tool
    assert len(new.objects) == len(state.objects) - 1 + count


@pytest.mark.parametrize("held", [None, APPLE, POT])
def test_slicing_needs_a_knife_in_hand(held):
    scene, state = kitchen(STATIONS["counter"])
    if held:
        state = holding(state, held)
    assert_fails(scene, state, "SliceObject", POTATO, "needs a knife in hand")


def test_slicing_needs_a_sliceable_visible_object():
    scene, state = kitchen(STATIONS["counter"])
    state = holding(state, KNIFE)
    assert_fails(scene, state, "SliceObject", POT, "is not sliceable")
    assert_fails(scene, at(state, "fridge"), "SliceObject", TOMATO, f"inside {FRIDGE}")
    sliced = run(scene, state, ("SliceObject", APPLE))
    assert_fails(scene, sliced, "SliceObject", APPLE, "no object")
    assert_fails(scene, sliced, "SliceObject", f"{APPLE}|AppleSliced_0", "is not sliceable")


# --- Stop ------------------------------------------------------------------------------------------------


def test_stop_succeeds_and_changes_nothing():
    scene, state = kitchen()
    new, event = step(scene, state, Action(A.STOP))
    assert event.success and new is state


# --- what ALFRED tracks: cleaned, heated, cooled ------------------------------------------------------


def test_turning_the_faucet_on_cleans_what_is_in_the_sink_basin():
    scene, state = kitchen(STATIONS["sink"])
    state = with_flags(put_in(state, APPLE, SINK_BASIN), APPLE, is_dirty=True)
    state = with_flags(state, POT, is_dirty=True)  # on the counter, not in the basin
    new = run(scene, state, ("ToggleObjectOn", FAUCET))
    assert new.objects[FAUCET].is_on
    assert new.cleaned == {APPLE}
    assert not new.objects[APPLE].is_dirty
    assert new.objects[POT].is_dirty
    off = run(scene, new, ("ToggleObjectOff", FAUCET))
    assert off.cleaned == {APPLE}  # turning it off undoes nothing


def test_only_turning_the_faucet_on_cleans():
    """As in ALFRED, what is put under an already running faucet is not added to the cleaned set."""
    scene, state = kitchen(STATIONS["sink"])
    state = run(scene, holding(state, APPLE), ("ToggleObjectOn", FAUCET), ("PutObject", SINK_BASIN))
    assert state.cleaned == frozenset()
    state = run(scene, state, ("ToggleObjectOff", FAUCET), ("ToggleObjectOn", FAUCET))
    assert state.cleaned == {APPLE}


def test_the_faucet_cleans_the_basin_closest_to_it_only():
    left_basin = fixed("SinkBasin", (0.25, 0.8, 1.7), (0.05, 0.7, 1.5), (0.45, 0.88, 1.9))
    left_faucet = fixed("Faucet", (0.25, 0.9, 2.0), (0.2, 0.9, 1.95), (0.3, 1.2, 2.05))
    right_basin = fixed("SinkBasin", (1.0, 0.8, 1.7), (0.8, 0.7, 1.5), (1.2, 0.88, 1.9))
    right_faucet = fixed("Faucet", (1.0, 0.9, 2.0), (0.95, 0.9, 1.95), (1.05, 1.2, 2.05))
    scene = make_scene([left_basin, left_faucet, right_basin, right_faucet])
    state = make_state(scene, Pose(0.5, 1.25, 0, 30))
    state, mug = add(state, "Mug", (0.25, 0.8, 1.7), left_basin.id)
    state, cup = add(state, "Cup", (1.0, 0.8, 1.7), right_basin.id)
    assert run(scene, state, ("ToggleObjectOn", right_faucet.id)).cleaned == {cup}
    assert run(scene, state, ("ToggleObjectOn", left_faucet.id)).cleaned == {mug}


def test_the_faucet_cleans_the_closest_visible_basin_as_alfred_does():
    faucet = fixed("Faucet", (0.0, 0.9, 0.8), (-0.05, 0.9, 0.75), (0.05, 1.2, 0.85))
    far_basin = fixed("SinkBasin", (0.0, 0.8, 1.8), (-0.2, 0.7, 1.6), (0.2, 0.88, 2.0))  # 1.0 m from the faucet
    seen_basin = fixed("SinkBasin", (1.1, 0.8, 0.8), (0.9, 0.7, 0.6), (1.3, 0.88, 1.0))  # 1.1 m from the faucet
    scene = make_scene([faucet, far_basin, seen_basin])
    state = make_state(scene, Pose(0.0, 0.0, 0, 30))
    state, apple = add(state, "Apple", (0.0, 0.8, 1.8), far_basin.id)
    state, potato = add(state, "Potato", (1.1, 0.8, 0.8), seen_basin.id)
    assert why_not_visible(scene, state, CATALOG, 0, far_basin.id) is not None
    assert why_not_visible(scene, state, CATALOG, 0, seen_basin.id) is None
    assert run(scene, state, ("ToggleObjectOn", faucet.id)).cleaned == {potato}


def test_turning_the_microwave_on_heats_its_contents():
    scene, state = kitchen(STATIONS["microwave"])
    state = with_flags(put_in(state, POTATO, MICROWAVE), POTATO, is_cold=True)
    new = run(scene, state, ("ToggleObjectOn", MICROWAVE))
    assert new.heated == {POTATO}
    assert new.objects[POTATO].is_hot and not new.objects[POTATO].is_cold
    assert not new.objects[TOMATO].is_hot and new.cooled == frozenset()


def test_alfreds_heat_macro_heats_the_object():
    """Heat = Open, Put, Close, ToggleOn, ToggleOff, Open, Pickup, Close."""
    scene, state = kitchen(STATIONS["counter"])
    state = run(
        scene,
        state,
        ("PickupObject", POTATO),
        "microwave",
        ("OpenObject", MICROWAVE),
        ("PutObject", MICROWAVE),
        ("CloseObject", MICROWAVE),
    )
    assert state.heated == frozenset()
    state = run(
        scene,
        state,
        ("ToggleObjectOn", MICROWAVE),
        ("ToggleObjectOff", MICROWAVE),
        ("OpenObject", MICROWAVE),
        ("PickupObject", POTATO),
        ("CloseObject", MICROWAVE),
    )
    assert state.heated == {POTATO} and state.agents[0].held == POTATO
    assert state.cooled == frozenset()


def test_closing_the_fridge_cools_everything_in_it_and_opening_does_not():
    scene, state = kitchen(STATIONS["fridge"])
    state = with_flags(holding(state, APPLE), APPLE, is_hot=True)
    opened = run(scene, state, ("OpenObject", FRIDGE), ("PutObject", FRIDGE))
    assert opened.cooled == frozenset()
    closed = run(scene, opened, ("CloseObject", FRIDGE))
    assert closed.cooled == {APPLE, TOMATO, LETTUCE}
    assert closed.objects[APPLE].is_cold and not closed.objects[APPLE].is_hot
    assert closed.heated == frozenset() and closed.cleaned == frozenset()


def test_alfreds_cool_macro_cools_the_object():
    """Cool = Open, Put, Close, Open, Pickup, Close."""
    scene, state = kitchen(STATIONS["counter"])
    state = run(
        scene,
        state,
        ("PickupObject", APPLE),
        "fridge",
        ("OpenObject", FRIDGE),
        ("PutObject", FRIDGE),
        ("CloseObject", FRIDGE),
        ("OpenObject", FRIDGE),
        ("PickupObject", APPLE),
        ("CloseObject", FRIDGE),
    )
    assert APPLE in state.cooled and state.agents[0].held == APPLE


def test_the_history_sets_never_shrink():
    """ALFRED replaces a set by an empty one when the basin / microwave / fridge is empty; ours keep growing."""
    scene, state = kitchen(STATIONS["sink"])
    state = with_history(state, cleaned=(BOOK,), heated=(BOOK,), cooled=(BOOK,))
    state = run(scene, state, ("ToggleObjectOn", FAUCET), ("ToggleObjectOff", FAUCET))  # empty basin
    state = run(scene, state, "microwave", ("ToggleObjectOn", MICROWAVE), ("ToggleObjectOff", MICROWAVE))
    state = run(scene, state, "fridge", ("OpenObject", FRIDGE), ("PickupObject", TOMATO), ("CloseObject", FRIDGE))
    assert state.cleaned == {BOOK}
    assert state.heated == {BOOK}
    assert state.cooled == {BOOK, LETTUCE}  # the tomato was out when the door closed
    state = run(scene, state, ("OpenObject", FRIDGE), ("PutObject", FRIDGE), ("CloseObject", FRIDGE))
    assert state.cooled == {BOOK, LETTUCE, TOMATO}
    state = run(scene, state, ("OpenObject", FRIDGE), ("PickupObject", TOMATO), ("CloseObject", FRIDGE))
    assert state.cooled == {BOOK, LETTUCE, TOMATO}  # taking it out again does not un-cool it


def test_the_microwave_heats_what_is_inside_a_container_in_it():
    scene, state = kitchen(STATIONS["microwave"])
    state = put_in(state, BOWL, MICROWAVE)  # the watch rides along in the bowl
    state = run(scene, state, ("ToggleObjectOn", MICROWAVE))
    assert state.heated == {BOWL, WATCH}
