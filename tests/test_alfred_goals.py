"""ALFRED's goal conditions, (met, total) at several stages of every task type, sliced and not.

The counts follow ALFRED's `env/tasks.py`:
  pick_and_place_simple        1: a target in a parent receptacle
  pick_two_obj_and_place       2: min(most targets in any one parent receptacle, 2)
  look_at_obj_in_light         2: holding a target; a lamp of the toggle class on and visible
  clean / heat / cool          3: a target in a parent; a target cleaned/heated/cooled; one target both
  pick_and_place_with_movable_recep
                               3: a target in an mrecep; an mrecep in a parent; a target in an mrecep in a parent
  sliced tasks add 1 (pick_two adds 2, met by min(number of pieces, 2)): a piece of the sliced class exists.
"""

from __future__ import annotations

import pytest
from world_fixtures import (
    APPLE,
    BOOK,
    BOWL,
    CELLPHONE,
    COUNTER,
    COUNTER_2,
    DESK_LAMP,
    DINING_TABLE,
    FAUCET,
    FLOOR_LAMP,
    FRIDGE,
    KNIFE,
    MICROWAVE,
    MUG,
    POT,
    POTATO,
    SINK_BASIN,
    STATIONS,
    WATCH,
    add,
    add_piece,
    at,
    holding,
    kitchen,
    of_class,
    put_in,
    run,
    with_flags,
    with_history,
)

from homesim.tasks.alfred import TASK_TYPES, AlfredGoal, goal_conditions, goal_satisfied

SIMPLE, TWO, LOOK, CLEAN, HEAT, COOL, MOVABLE = TASK_TYPES
HISTORY = {CLEAN: "cleaned", HEAT: "heated", COOL: "cooled"}


def counts(scene, state, goal: AlfredGoal) -> tuple[int, int]:
    met, total = goal_conditions(scene, state, goal)
    assert goal_satisfied(scene, state, goal) == (met == total)
    return met, total


def slice_(scene, state, whole: str) -> object:
    """Slices `whole` with the counter's knife for real, then puts the knife back: the hand is empty."""
    return run(scene, at(state, "counter"), ("PickupObject", KNIFE), ("SliceObject", whole), ("PutObject", COUNTER))


# --- the goal type ------------------------------------------------------------------------------------


def test_alfred_has_seven_task_types():
    assert TASK_TYPES == (
        "pick_and_place_simple",
        "pick_two_obj_and_place",
        "look_at_obj_in_light",
        "pick_clean_then_place_in_recep",
        "pick_heat_then_place_in_recep",
        "pick_cool_then_place_in_recep",
        "pick_and_place_with_movable_recep",
    )


@pytest.mark.parametrize("task_type", ["pick_and_place", "PICK_AND_PLACE_SIMPLE", "", "pick_heat_then_place"])
def test_goal_rejects_an_unknown_task_type(task_type):
    with pytest.raises(ValueError, match="unknown ALFRED task type"):
        AlfredGoal(task_type, "Apple", parent_target="DiningTable")


@pytest.mark.parametrize("field", ["object_target", "parent_target", "toggle_target", "mrecep_target"])
@pytest.mark.parametrize("name", ["Banana", "apple", "Apple|+00.10|+00.95|+01.60"])
def test_goal_rejects_an_unknown_class(field, name):
    params = {"object_target": "Apple", field: name}
    with pytest.raises(ValueError, match=field):
        AlfredGoal(SIMPLE, **params)


def test_goal_from_pddl_params_reads_alfreds_fields():
    params = {
        "object_target": "Potato",
        "parent_target": "CounterTop",
        "toggle_target": "",
        "mrecep_target": None,
        "object_sliced": True,
    }
    goal = AlfredGoal.from_pddl_params(HEAT, params)
    assert goal == AlfredGoal(HEAT, "Potato", parent_target="CounterTop", object_sliced=True)
    assert goal.target_class == "PotatoSliced"
    assert AlfredGoal.from_pddl_params(goal.task_type, goal.to_dict()) == goal
    assert AlfredGoal(HEAT, "Potato", parent_target="CounterTop").target_class == "Potato"


# --- pick_and_place_simple -------------------------------------------------------------------------------


def test_pick_and_place_simple():
    scene, state = kitchen()
    goal = AlfredGoal(SIMPLE, "Apple", parent_target="DiningTable")
    assert counts(scene, state, goal) == (0, 1)  # the apple is on the counter
    assert counts(scene, holding(state, APPLE), goal) == (0, 1)
    assert counts(scene, put_in(state, APPLE, FRIDGE), goal) == (0, 1)
    assert counts(scene, put_in(state, APPLE, DINING_TABLE), goal) == (1, 1)
    assert counts(scene, put_in(state, APPLE, BOWL), goal) == (1, 1)  # in the bowl on the table counts (any depth)


def test_pick_and_place_simple_by_real_actions():
    scene, state = kitchen()
    goal = AlfredGoal(SIMPLE, "Apple", parent_target="DiningTable")
    state = run(scene, state, "counter", ("PickupObject", APPLE), "table")
    assert counts(scene, state, goal) == (0, 1)
    state = run(scene, state, ("PutObject", DINING_TABLE))
    assert counts(scene, state, goal) == (1, 1)


def test_pick_and_place_simple_any_receptacle_of_the_parent_class_counts():
    scene, state = kitchen()
    goal = AlfredGoal(SIMPLE, "Apple", parent_target="CounterTop")
    assert counts(scene, state, goal) == (1, 1)
    assert counts(scene, put_in(state, APPLE, COUNTER_2), goal) == (1, 1)
    assert counts(scene, put_in(state, APPLE, MICROWAVE), goal) == (0, 1)  # a microwave is not a counter


def test_pick_and_place_simple_sliced():
    scene, state = kitchen()
    goal = AlfredGoal(SIMPLE, "Apple", parent_target="DiningTable", object_sliced=True)
    assert counts(scene, state, goal) == (0, 2)
    assert counts(scene, put_in(state, APPLE, DINING_TABLE), goal) == (0, 2)  # a whole apple is no slice
    state = slice_(scene, state, APPLE)
    assert counts(scene, state, goal) == (1, 2)  # pieces exist, on the counter
    piece = f"{APPLE}|AppleSliced_1"
    state = run(scene, state, ("PickupObject", piece), "table")
    assert counts(scene, state, goal) == (1, 2)
    state = run(scene, state, ("PutObject", DINING_TABLE))
    assert counts(scene, state, goal) == (2, 2)


# --- pick_two_obj_and_place ------------------------------------------------------------------------------


def two_apples():
    scene, state = kitchen()
    state, apple_2 = add(state, "Apple", (0.5, 0.8, -0.8), DINING_TABLE)
    return scene, put_in(state, APPLE, COUNTER), apple_2


def test_pick_two_obj_and_place_counts_the_best_receptacle_up_to_two():
    scene, state, apple_2 = two_apples()
    goal = AlfredGoal(TWO, "Apple", parent_target="CounterTop")
    assert counts(scene, put_in(state, apple_2, FRIDGE), goal) == (1, 2)
    assert counts(scene, put_in(state, apple_2, COUNTER_2), goal) == (1, 2)  # one on each counter: max is 1
    assert counts(scene, put_in(state, apple_2, COUNTER), goal) == (2, 2)
    state, apple_3 = add(put_in(state, apple_2, COUNTER), "Apple", (0.6, 0.95, 1.9), COUNTER)
    assert counts(scene, state, goal) == (2, 2)  # three apples still count 2
    assert counts(scene, put_in(put_in(state, APPLE, FRIDGE), apple_2, FRIDGE), goal) == (1, 2)
    assert counts(scene, put_in(put_in(put_in(state, APPLE, FRIDGE), apple_2, FRIDGE), apple_3, FRIDGE), goal) == (0, 2)


def test_pick_two_obj_and_place_by_real_actions():
    scene, state, apple_2 = two_apples()
    goal = AlfredGoal(TWO, "Apple", parent_target="DiningTable")
    assert counts(scene, state, goal) == (1, 2)
    state = run(scene, state, "counter", ("PickupObject", APPLE), "table")
    assert counts(scene, state, goal) == (1, 2)
    state = run(scene, state, ("PutObject", DINING_TABLE))
    assert counts(scene, state, goal) == (2, 2)
    state = run(scene, state, ("PickupObject", apple_2))
    assert counts(scene, state, goal) == (1, 2)


def test_pick_two_obj_and_place_counts_targets_inside_a_container_on_the_parent():
    scene, state, apple_2 = two_apples()
    goal = AlfredGoal(TWO, "Apple", parent_target="DiningTable")
    assert counts(scene, put_in(state, APPLE, BOWL), goal) == (2, 2)


def test_pick_two_obj_and_place_sliced():
    scene, state = kitchen()
    goal = AlfredGoal(TWO, "Apple", parent_target="DiningTable", object_sliced=True)
    assert counts(scene, put_in(state, APPLE, DINING_TABLE), goal) == (0, 4)
    state = slice_(scene, state, APPLE)
    pieces = of_class(state, "AppleSliced")
    assert len(pieces) == 3
    assert counts(scene, state, goal) == (2, 4)  # slicing: min(3 pieces, 2)
    state = put_in(state, pieces[0], DINING_TABLE)
    assert counts(scene, state, goal) == (3, 4)
    state = put_in(state, pieces[1], DINING_TABLE)
    assert counts(scene, state, goal) == (4, 4)
    assert counts(scene, put_in(state, pieces[2], DINING_TABLE), goal) == (4, 4)


def test_pick_two_obj_and_place_sliced_with_a_single_piece():
    scene, state = kitchen()
    goal = AlfredGoal(TWO, "Apple", parent_target="DiningTable", object_sliced=True)
    state, _ = add_piece(state, APPLE, "AppleSliced", 0, DINING_TABLE)
    assert counts(scene, state, goal) == (2, 4)  # one piece: 1 for slicing, 1 placed


# --- look_at_obj_in_light --------------------------------------------------------------------------------


def test_look_at_obj_in_light():
    scene, state = kitchen()
    goal = AlfredGoal(LOOK, "CellPhone", toggle_target="DeskLamp")
    near_lamp = at(state, "lamp")
    lamp_on = with_flags(near_lamp, DESK_LAMP, is_on=True)
    assert counts(scene, near_lamp, goal) == (0, 2)
    assert counts(scene, holding(near_lamp, CELLPHONE), goal) == (1, 2)  # the lamp is off
    assert counts(scene, lamp_on, goal) == (1, 2)  # nothing in hand
    assert counts(scene, holding(lamp_on, CELLPHONE), goal) == (2, 2)
    assert counts(scene, holding(lamp_on, BOOK), goal) == (1, 2)  # the wrong object
    assert counts(scene, at(holding(lamp_on, CELLPHONE), "counter"), goal) == (1, 2)  # lamp out of view
    assert counts(scene, at(holding(lamp_on, CELLPHONE), "start"), goal) == (1, 2)  # lamp behind the agent


def test_look_at_obj_in_light_needs_a_lamp_of_the_goal_class():
    scene, state = kitchen(STATIONS["lamp"])
    state = holding(with_flags(state, DESK_LAMP, is_on=True), CELLPHONE)
    assert counts(scene, state, AlfredGoal(LOOK, "CellPhone", toggle_target="FloorLamp")) == (1, 2)
    state = at(with_flags(state, FLOOR_LAMP, is_on=True), "bed")
    assert counts(scene, state, AlfredGoal(LOOK, "CellPhone", toggle_target="FloorLamp")) == (2, 2)


def test_look_at_obj_in_light_by_real_actions():
    scene, state = kitchen()
    goal = AlfredGoal(LOOK, "CellPhone", toggle_target="DeskLamp")
    state = run(scene, state, "bed", ("PickupObject", CELLPHONE))
    assert counts(scene, state, goal) == (1, 2)
    state = run(scene, state, "lamp", ("ToggleObjectOn", DESK_LAMP))
    assert counts(scene, state, goal) == (2, 2)
    state = run(scene, state, "RotateRight", "RotateRight")  # the lamp behind the agent
    assert counts(scene, state, goal) == (1, 2)


def test_look_at_obj_in_light_sliced():
    scene, state = kitchen(STATIONS["lamp"])
    goal = AlfredGoal(LOOK, "Apple", toggle_target="DeskLamp", object_sliced=True)
    lamp_on = with_flags(state, DESK_LAMP, is_on=True)
    assert counts(scene, holding(lamp_on, APPLE), goal) == (1, 3)  # a whole apple is not a target
    lamp_on, piece = add_piece(lamp_on, APPLE, "AppleSliced", 0, COUNTER)
    assert counts(scene, lamp_on, goal) == (2, 3)
    assert counts(scene, holding(lamp_on, piece), goal) == (3, 3)


# --- clean / heat / cool, then place ---------------------------------------------------------------------


@pytest.mark.parametrize("task_type", [CLEAN, HEAT, COOL])
def test_treat_then_place(task_type):
    scene, state = kitchen()
    state, potato_2 = add(state, "Potato", (0.5, 0.8, -0.8), DINING_TABLE)
    goal = AlfredGoal(task_type, "Potato", parent_target="CounterTop")
    other = {CLEAN: "heated", HEAT: "cooled", COOL: "cleaned"}[task_type]
    set_name = HISTORY[task_type]
    unplaced = put_in(state, POTATO, FRIDGE)  # one potato in the fridge, the other on the table
    assert counts(scene, unplaced, goal) == (0, 3)
    assert counts(scene, with_history(unplaced, **{set_name: (POTATO,)}), goal) == (1, 3)  # treated, not placed
    assert counts(scene, state, goal) == (1, 3)  # placed, not treated
    assert counts(scene, with_history(state, **{other: (POTATO,)}), goal) == (1, 3)  # treated the wrong way
    assert counts(scene, with_history(state, **{set_name: (potato_2,)}), goal) == (2, 3)  # different potatoes
    assert counts(scene, with_history(state, **{set_name: (POTATO,)}), goal) == (3, 3)
    assert counts(scene, holding(with_history(state, **{set_name: (POTATO,)}), POTATO), goal) == (1, 3)


@pytest.mark.parametrize("task_type", [CLEAN, HEAT, COOL])
def test_treat_then_place_sliced_has_four_conditions(task_type):
    scene, state = kitchen()
    goal = AlfredGoal(task_type, "Potato", parent_target="DiningTable", object_sliced=True)
    set_name = HISTORY[task_type]
    assert counts(scene, put_in(state, POTATO, DINING_TABLE), goal) == (0, 4)
    assert counts(scene, with_history(put_in(state, POTATO, DINING_TABLE), **{set_name: (POTATO,)}), goal) == (0, 4)
    state = slice_(scene, state, POTATO)
    first, second = of_class(state, "PotatoSliced")[:2]
    assert counts(scene, state, goal) == (1, 4)
    assert counts(scene, with_history(state, **{set_name: (first,)}), goal) == (2, 4)
    state = put_in(state, second, DINING_TABLE)
    assert counts(scene, state, goal) == (2, 4)
    assert counts(scene, with_history(state, **{set_name: (first,)}), goal) == (3, 4)
    assert counts(scene, with_history(state, **{set_name: (second,)}), goal) == (4, 4)


def test_clean_then_place_by_alfreds_clean_macro():
    """Clean = Put(sink) ToggleOn(faucet) ToggleOff Pickup, then place."""
    scene, state = kitchen()
    goal = AlfredGoal(CLEAN, "Apple", parent_target="DiningTable")
    state = run(scene, state, "counter", ("PickupObject", APPLE), "sink", ("PutObject", SINK_BASIN))
    assert counts(scene, state, goal) == (0, 3)
    state = run(scene, state, ("ToggleObjectOn", FAUCET))
    assert counts(scene, state, goal) == (1, 3)
    state = run(
        scene, state, ("ToggleObjectOff", FAUCET), ("PickupObject", APPLE), "table", ("PutObject", DINING_TABLE)
    )
    assert counts(scene, state, goal) == (3, 3)


def test_heat_sliced_potato_then_place_by_real_actions():
    scene, state = kitchen()
    goal = AlfredGoal(HEAT, "Potato", parent_target="DiningTable", object_sliced=True)
    assert counts(scene, state, goal) == (0, 4)
    state = slice_(scene, state, POTATO)
    assert counts(scene, state, goal) == (1, 4)
    piece = f"{POTATO}|PotatoSliced_0"
    state = run(
        scene,
        state,
        ("PickupObject", piece),
        "microwave",
        ("OpenObject", MICROWAVE),
        ("PutObject", MICROWAVE),
        ("CloseObject", MICROWAVE),
        ("ToggleObjectOn", MICROWAVE),
    )
    assert counts(scene, state, goal) == (2, 4)
    state = run(
        scene,
        state,
        ("ToggleObjectOff", MICROWAVE),
        ("OpenObject", MICROWAVE),
        ("PickupObject", piece),
        ("CloseObject", MICROWAVE),
        "table",
    )
    assert counts(scene, state, goal) == (2, 4)
    state = run(scene, state, ("PutObject", DINING_TABLE))
    assert counts(scene, state, goal) == (4, 4)


def test_heating_the_whole_potato_does_not_heat_the_pieces_cut_later():
    """Pieces are new objects (as in AI2-THOR): they are not in the heated set."""
    scene, state = kitchen()
    goal = AlfredGoal(HEAT, "Potato", parent_target="CounterTop", object_sliced=True)
    state = with_history(state, heated=(POTATO,))
    state = slice_(scene, state, POTATO)
    assert POTATO in state.heated
    assert counts(scene, state, goal) == (2, 4)  # sliced, and pieces lie on the counter; none heated


def test_cool_then_place_by_alfreds_cool_macro():
    scene, state = kitchen()
    goal = AlfredGoal(COOL, "Apple", parent_target="DiningTable")
    state = run(
        scene, state, "counter", ("PickupObject", APPLE), "fridge", ("OpenObject", FRIDGE), ("PutObject", FRIDGE)
    )
    assert counts(scene, state, goal) == (0, 3)
    state = run(scene, state, ("CloseObject", FRIDGE))
    assert counts(scene, state, goal) == (1, 3)
    state = run(
        scene,
        state,
        ("OpenObject", FRIDGE),
        ("PickupObject", APPLE),
        ("CloseObject", FRIDGE),
        "table",
        ("PutObject", DINING_TABLE),
    )
    assert counts(scene, state, goal) == (3, 3)


# --- pick_and_place_with_movable_recep ---------------------------------------------------------------------


def test_pick_and_place_with_movable_recep():
    scene, state = kitchen()  # the watch is in the bowl on the dining table
    goal = AlfredGoal(MOVABLE, "Watch", parent_target="CounterTop", mrecep_target="Bowl")
    assert counts(scene, state, goal) == (1, 3)
    assert counts(scene, put_in(state, WATCH, DINING_TABLE), goal) == (0, 3)
    assert counts(scene, put_in(state, BOWL, COUNTER), goal) == (3, 3)
    bowl_on_counter = put_in(put_in(state, WATCH, DINING_TABLE), BOWL, COUNTER)
    assert counts(scene, bowl_on_counter, goal) == (1, 3)  # only the bowl is placed
    assert counts(scene, put_in(bowl_on_counter, WATCH, COUNTER), goal) == (1, 3)  # next to the bowl, not in it
    assert counts(scene, put_in(bowl_on_counter, WATCH, MUG), goal) == (1, 3)  # in a mug: not the mrecep class
    assert counts(scene, holding(put_in(state, BOWL, COUNTER), BOWL), goal) == (1, 3)


def test_pick_and_place_with_movable_recep_needs_the_same_mrecep_for_both():
    scene, state = kitchen()
    state, bowl_2 = add(state, "Bowl", (0.6, 0.95, 1.9), COUNTER)  # an empty bowl on the counter
    goal = AlfredGoal(MOVABLE, "Watch", parent_target="CounterTop", mrecep_target="Bowl")
    assert counts(scene, state, goal) == (2, 3)  # watch in a bowl; a bowl on the counter; not the same bowl
    assert counts(scene, put_in(state, WATCH, bowl_2), goal) == (3, 3)


def test_pick_and_place_with_movable_recep_by_real_actions():
    scene, state = kitchen()
    goal = AlfredGoal(MOVABLE, "Watch", parent_target="CounterTop", mrecep_target="Bowl")
    state = run(scene, state, "table", ("PickupObject", BOWL))
    assert counts(scene, state, goal) == (1, 3)
    state = run(scene, state, "counter", ("PutObject", COUNTER))
    assert counts(scene, state, goal) == (3, 3)


def test_pick_and_place_with_movable_recep_sliced():
    scene, state = kitchen()
    goal = AlfredGoal(MOVABLE, "Apple", parent_target="DiningTable", mrecep_target="Bowl", object_sliced=True)
    assert counts(scene, put_in(state, APPLE, BOWL), goal) == (1, 4)  # whole apple in the bowl on the table
    state = slice_(scene, state, APPLE)
    piece = of_class(state, "AppleSliced")[0]
    assert counts(scene, state, goal) == (2, 4)  # sliced; the bowl is on the table
    assert counts(scene, put_in(state, piece, DINING_TABLE), goal) == (2, 4)
    assert counts(scene, put_in(state, piece, BOWL), goal) == (4, 4)
    assert counts(scene, put_in(put_in(state, piece, BOWL), BOWL, FRIDGE), goal) == (2, 4)


# --- where we deliberately differ from ALFRED's substring matching ----------------------------------------


def test_a_potato_does_not_count_as_a_pot():
    """ALFRED's `"Pot" in objectId` makes a Potato a Pot; we match classes exactly."""
    scene, state = kitchen()
    goal = AlfredGoal(CLEAN, "Pot", parent_target="CounterTop")
    state = put_in(put_in(state, POT, DINING_TABLE), POTATO, COUNTER)
    assert counts(scene, with_history(state, cleaned=(POTATO,)), goal) == (0, 3)
    assert counts(scene, with_history(state, cleaned=(POT,)), goal) == (1, 3)
    assert counts(scene, with_history(put_in(state, POT, COUNTER), cleaned=(POT,)), goal) == (3, 3)


def test_a_potato_does_not_count_as_a_pot_as_movable_receptacle():
    scene, state = kitchen()
    goal = AlfredGoal(MOVABLE, "Apple", parent_target="DiningTable", mrecep_target="Pot")
    state = put_in(state, POTATO, DINING_TABLE)
    assert counts(scene, state, goal) == (0, 3)
    assert counts(scene, put_in(state, POT, DINING_TABLE), goal) == (1, 3)
    assert counts(scene, put_in(put_in(state, POT, DINING_TABLE), APPLE, POT), goal) == (3, 3)


def test_an_apple_slice_does_not_count_as_an_apple_for_an_unsliced_task():
    scene, state = kitchen()
    state = slice_(scene, state, APPLE)
    piece = of_class(state, "AppleSliced")[0]
    state = put_in(state, piece, DINING_TABLE)
    assert counts(scene, state, AlfredGoal(SIMPLE, "Apple", parent_target="DiningTable")) == (0, 1)
    heat_apple = AlfredGoal(HEAT, "Apple", parent_target="DiningTable")
    assert counts(scene, with_history(state, heated=(piece,)), heat_apple) == (0, 3)
    assert counts(scene, state, AlfredGoal(SIMPLE, "Apple", parent_target="DiningTable", object_sliced=True)) == (2, 2)


def test_a_sliced_goal_on_a_class_without_pieces_is_not_met_by_the_whole_object():
    scene, state = kitchen()
    state, egg = add(state, "Egg", (0.5, 0.8, -0.8), DINING_TABLE)
    try:
        goal = AlfredGoal(SIMPLE, "Egg", parent_target="DiningTable", object_sliced=True)
    except ValueError:
        return  # refusing such a goal is a fix too
    assert counts(scene, state, goal) == (0, 2)
