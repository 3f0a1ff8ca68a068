"""HandMeThat's world: the catalog (Table 8), both agents' actions with their preconditions, effects and
failure messages (Table 10), applicable actions against every grounding, and the state's files."""

from __future__ import annotations

import itertools
import random

import pytest
from handmethat_fixtures import small_world

from homesim.world.handmethat import (
    HELPS,
    HUMAN,
    SCHEMAS,
    Help,
    HmtAction,
    HmtState,
    applicable_actions,
    handmethat_catalog,
    help_step,
    step,
    why_not,
)


def R(name: str, *args: str) -> HmtAction:
    return HmtAction(f"robot-{name}", args)


def H(name: str, *args: str) -> HmtAction:
    return HmtAction(f"human-{name}", args)


def run(state: HmtState, *actions: HmtAction) -> HmtState:
    for a in actions:
        state, event = step(state, a)
        assert event.success, f"{a}: {event.message}"
    return state


def fails(state: HmtState, action: HmtAction, reason: str) -> None:
    after, event = step(state, action)
    assert not event.success and reason in event.message, event.message
    assert after is state  # a failed action changes nothing


def test_the_catalog_is_their_hierarchy_with_table_8s_abilities():
    c = handmethat_catalog()
    assert len(c.categories) == 155
    assert {k.cls for k in c.categories.values()} == {"LOCATION", "RECEPTACLE", "FOOD", "TOOL", "THING"}
    assert len(c.locations) == 16 and c.locations[0] == "floor"
    assert c["cabinet"].holds_inside and c["cabinet"].can("openable") and not c["cabinet"].movable
    assert c["table"].holds_ontop and c["stove"].can("toggleable")
    assert {"has-inside", "openable", "has-size", "has-color"} <= c["box"].abilities and c["box"].receptacle
    assert c["tray"].holds_ontop and c["tray"].can("has-size") and not c["tray"].can("has-color")
    assert all(k.can("cookable") and k.can("freezable") for k in c.categories.values() if k.cls == "FOOD")
    assert c["apple"].can("sliceable") and not c["bread"].can("sliceable")
    assert c["rag"].can("soakable") and c["shirt"].can("soakable") and c["printer"].can("toggleable")
    assert c["pad"].cleaned_by("rag") and not c["pad"].cleaned_by("broom")
    assert c.heats == {"microwave", "oven", "stove"} and c.slices == {"knife"} and len(c.cleaning_tools) == 6


# The paper's Table 8: each meta-property and the categories (classes, subclasses, types) that have it.
TABLE_8 = {
    "has-inside": "cabinet bathtub microwave oven dishwasher refrigerator sink pool vessel tableware utensil bag "
    "basket box package ashcan bucket xmas_stocking",
    "has-ontop": "floor countertop sofa bed stove table shelf toilet furniture tray xmas_tree",
    "has-size": "tableware tray box package ashcan",
    "has-color": "furniture vessel bag basket box package",
    "openable": "cabinet microwave oven dishwasher refrigerator vessel bag box package",
    "toggleable": "microwave oven dishwasher refrigerator stove sink electric_equipment",
    "cookable": "FOOD",
    "freezable": "FOOD",
    "sliceable": "fruit vegetable protein",
    "dustyable": "LOCATION RECEPTACLE THING",
    "stainable": "LOCATION",
    "soakable": "piece_of_cloth clothing",
}


@pytest.mark.parametrize("ability", TABLE_8)
def test_each_meta_property_belongs_to_exactly_table_8s_categories(ability):
    c = handmethat_catalog()
    listed = set(TABLE_8[ability].split())
    assert {t for t, k in c.categories.items() if k.can(ability)} == {
        t for t, k in c.categories.items() if {t, k.subclass, k.cls} & listed
    }


def test_an_action_is_a_schema_of_their_domains_with_its_arguments():
    assert len([n for n in SCHEMAS if n.startswith("robot-")]) == 23
    assert len([n for n in SCHEMAS if n.startswith("human-")]) == 21
    a = R("pick-up-from-receptacle-at-location", "pad#0", "package#0", "cabinet")
    assert (a.agent, a.verb) == ("robot", "pick-up-from-receptacle-at-location")
    with pytest.raises(ValueError, match="unknown HandMeThat action"):
        HmtAction("robot-fly", ())
    with pytest.raises(ValueError, match="takes 2 arguments"):
        R("move", "floor")
    with pytest.raises(ValueError, match="unknown"):
        HmtAction("human-bring-to-human", ("pad#0", HUMAN))  # only the robot gives


def test_picking_from_a_closed_place_needs_it_opened_first():
    s = run(small_world(), R("move", "floor", "cabinet"))
    fails(s, R("pick-up-at-location", "package#0", "cabinet"), "cabinet is closed")
    fails(s, R("open-receptacle-at-location", "package#0", "cabinet"), "cabinet is closed")
    s = run(s, R("open-location", "cabinet"))
    fails(s, R("open-location", "cabinet"), "already open")
    fails(s, R("pick-up-from-receptacle-at-location", "pad#0", "package#0", "cabinet"), "package#0 is closed")
    s = run(s, R("open-receptacle-at-location", "package#0", "cabinet"))
    s2 = run(s, R("pick-up-from-receptacle-at-location", "pad#0", "package#0", "cabinet"))
    assert s2.robot.held == ("pad#0",) and s2["pad#0"].parent is None and s2.contents("package#0") == ()
    fails(s2, R("pick-up-at-location", "package#0", "cabinet"), "hand is not empty")
    # a receptacle is picked up with what is in it, which keeps it as its parent
    s3 = run(s, R("pick-up-at-location", "package#0", "cabinet"))
    assert s3["pad#0"].parent == "package#0" and s3.holder("pad#0") == "robot" and s3.location_of("pad#0") is None


def test_putting_follows_how_a_place_holds_things():
    s = run(small_world(), R("move", "floor", "sofa"), R("pick-up-at-location", "pad#1", "sofa"))
    fails(s, R("put-inside-location", "pad#1", "sofa"), "nothing can be put inside sofa")
    fails(s, R("put-ontop-location", "pad#1", "table"), "is at sofa, not at table")
    s = run(s, R("move", "sofa", "table"))
    fails(s, R("put-inside-receptacle-at-location", "pad#1", "box#0", "table"), "box#0 is closed")
    fails(s, R("put-ontop-receptacle-at-location", "pad#1", "box#0", "table"), "nothing can be put ontop box#0")
    s = run(s, R("open-receptacle-at-location", "box#0", "table"))  # opening needs no free hand
    s = run(s, R("put-inside-receptacle-at-location", "pad#1", "box#0", "table"))
    assert (s["pad#1"].parent, s["pad#1"].relation) == ("box#0", "inside") and s.robot.held == ()
    s = run(s, R("pick-up-at-location", "box#0", "table"))
    fails(s, R("put-ontop-receptacle-at-location", "box#0", "tray#0", "table"), "box#0 is a receptacle")
    s = run(s, R("put-ontop-location", "box#0", "table"))
    assert s.contents("table") == ("box#0", "tray#0")  # in file order, whatever the order of arrival


def test_giving_and_taking_back_happen_in_front_of_the_human():
    s = run(small_world(), R("move", "floor", "sofa"), R("pick-up-at-location", "pad#1", "sofa"))
    fails(s, R("bring-to-human", "pad#1", HUMAN), "not at human")
    s = run(s, R("move", "sofa", HUMAN), R("bring-to-human", "pad#1", HUMAN))
    assert s.human.held == ("pad#1",) and s.robot.held == () and s.holder("pad#1") == "human"
    fails(s, R("take-from-human", "pad#0", HUMAN), "the human is not holding pad#0")
    fails(s, R("pick-up-at-location", "pad#0", "cabinet"), "is at human, not at cabinet")
    s = run(s, R("take-from-human", "pad#1", HUMAN))
    assert s.robot.held == ("pad#1",) and s.human.held == ()


def test_heating_cooling_soaking_slicing_and_cleaning_where_table_10_allows():
    s = run(small_world(), R("move", "floor", "countertop"))
    fails(s, R("heat-obj", "apple#0", "countertop"), "only heat things at the microwave, oven, stove")
    fails(s, R("slice-obj", "apple#0", "knife#0", "countertop"), "not holding knife#0")
    s = run(s, R("pick-up-at-location", "knife#0", "countertop"), R("slice-obj", "apple#0", "knife#0", "countertop"))
    assert s["apple#0"].is_("sliced")
    s = run(s, R("put-ontop-location", "knife#0", "countertop"), R("pick-up-at-location", "apple#0", "countertop"))
    s = run(s, R("move", "countertop", "stove"), R("put-ontop-location", "apple#0", "stove"))
    fails(s, R("heat-obj", "apple#0", "stove"), "stove is not on")
    s = run(s, R("toggle-on-location", "stove"), R("heat-obj", "apple#0", "stove"))
    assert s["apple#0"].is_("cooked") and not s["stove"].is_("toggled")  # heating turns it off
    # cooling: in the fridge, switched on; it stays on, and cooked food is no longer cooked
    s = run(s, R("pick-up-at-location", "apple#0", "stove"), R("move", "stove", "refrigerator"))
    fails(s, R("put-inside-location", "apple#0", "refrigerator"), "refrigerator is closed")
    s = run(s, R("open-location", "refrigerator"), R("put-inside-location", "apple#0", "refrigerator"))
    fails(s, R("cool-obj", "apple#0", "refrigerator"), "refrigerator is not on")
    s = run(s, R("toggle-on-location", "refrigerator"), R("cool-obj", "apple#0", "refrigerator"))
    assert s["apple#0"].is_("frozen") and not s["apple#0"].is_("cooked") and s["refrigerator"].is_("toggled")
    # cleaning: a rag must be soaked first; soaking turns the sink off
    s = run(s, R("move", "refrigerator", "sink"), R("pick-up-at-location", "rag#0", "sink"))
    s = run(s, R("move", "sink", "floor"))
    fails(s, R("clean-location", "rag#0", "floor"), "rag#0 must be soaked first")
    s = run(s, R("move", "floor", "sink"), R("put-inside-location", "rag#0", "sink"), R("toggle-on-location", "sink"))
    s = run(s, R("soak-obj", "rag#0", "sink"), R("pick-up-at-location", "rag#0", "sink"))
    assert s["rag#0"].is_("soaked") and not s["sink"].is_("toggled")
    s = run(s, R("move", "sink", "floor"), R("clean-location", "rag#0", "floor"))
    assert not s["floor"].is_("dusty")
    s = run(s, R("move", "floor", "shelf"), R("toggle-on-movable-at-location", "printer#0", "shelf"))
    assert s["printer#0"].is_("toggled")
    fails(s, R("toggle-on-movable-at-location", "pad#1", "shelf"), "pad#1 cannot be toggled")


def test_the_human_acts_on_the_same_state_with_the_same_rules():
    s = run(small_world(), H("move", "floor", "sofa"), H("pick-up-at-location", "pad#1", "sofa"))
    assert s.human.held == ("pad#1",) and s.robot.at == "floor" and s.human.at == "sofa"
    fails(s, H("move", "sofa", HUMAN), "cannot move to itself")
    fails(s, H("pick-up-at-location", "apple#0", "countertop"), "is at sofa, not at countertop")
    s = run(s, H("move", "sofa", "table"), H("put-ontop-receptacle-at-location", "pad#1", "tray#0", "table"))
    assert s["pad#1"].parent == "tray#0"
    assert all(a.agent == "human" for a in applicable_actions(s, "human"))


def test_unknown_things_are_named_in_the_failure():
    s = small_world()
    fails(s, R("move", "floor", "garage"), "there is no garage")
    fails(s, R("pick-up-at-location", "unicorn#0", "floor"), "there is no unicorn#0")
    fails(s, R("move", "floor", "pad#1"), "pad#1 is not a location")


def _every_grounding(state: HmtState, agent: str) -> list[HmtAction]:
    names = [*state.things, HUMAN]
    return [
        HmtAction(schema, args)
        for schema, params in SCHEMAS.items()
        if schema.startswith(f"{agent}-")
        for args in itertools.product(names, repeat=len(params))
    ]


def _random_walk(state: HmtState, steps: int, seed: int, agents: tuple[str, ...] = ("robot",)) -> list[HmtState]:
    rng, seen = random.Random(seed), [state]
    for _ in range(steps):
        state, _ = step(state, rng.choice(applicable_actions(state, rng.choice(agents))))
        seen.append(state)
    return seen


def _check_against_every_grounding(states: list[HmtState], agent: str = "robot") -> None:
    for state in states:
        expected = {a for a in _every_grounding(state, agent) if why_not(state, a) is None}
        assert set(applicable_actions(state, agent)) == expected


def test_applicable_actions_are_exactly_the_groundings_whose_preconditions_hold():
    walk = _random_walk(small_world(), 300, seed=3, agents=("robot", "human"))
    holding = next(s for s in walk if s.robot.held and s.robot.at != HUMAN)
    empty_handed = next(s for s in walk[1:] if not s.robot.held and s.robot.at != HUMAN)
    _check_against_every_grounding([holding, empty_handed])
    _check_against_every_grounding([next(s for s in walk if s.human.held and s.human.at != "floor")], "human")


@pytest.mark.slow
def test_applicable_actions_are_exactly_the_groundings_whose_preconditions_hold_along_long_walks():
    for seed in range(4):
        walk = _random_walk(small_world(), 100, seed, agents=("robot", "human"))[::10]
        _check_against_every_grounding(walk)
        _check_against_every_grounding(walk, "human")


def test_the_parent_index_kept_along_steps_equals_one_built_afresh_and_files_round_trip():
    for state in _random_walk(small_world(), 200, seed=5)[::20]:
        fresh = HmtState(dict(state.things), state.robot, state.human)
        assert fresh.index == state.index
        again = HmtState.from_dict(state.to_dict())
        assert again == state and again.stable_hash() == state.stable_hash() and hash(again) == hash(state)


def test_the_robots_one_shot_helps_of_their_abstract_domain():
    s = small_world()
    assert len(HELPS) == 9
    after, event = help_step(s, Help("move-obj-to-human", ("pad#0", "package#0")))  # no walking, no doors
    assert event.success and after.human.held == ("pad#0",) and after["pad#0"].parent is None
    refused, event = help_step(after, Help("heat-obj", ("apple#0",)))
    assert not event.success and "human's hand is not empty" in event.message and refused is after
    after, _ = help_step(s, Help("move-obj-from-rec-into-rec", ("pad#1", "sofa", "box#0")))
    assert (after["pad#1"].parent, after["pad#1"].relation) == ("box#0", "inside")
    _, event = help_step(s, Help("move-obj-from-rec-onto-rec", ("box#0", "table", "tray#0")))
    assert "box#0 is a receptacle" in event.message
    _, event = help_step(s, Help("move-obj-from-rec-onto-rec", ("pad#1", "sofa", "box#0")))
    assert "nothing can be put onto box#0" in event.message
    after, _ = help_step(s, Help("heat-obj", ("beef#0",)))
    assert after["beef#0"].is_("cooked")
    after, _ = help_step(after, Help("cool-obj", ("beef#0",)))
    assert after["beef#0"].is_("frozen") and not after["beef#0"].is_("cooked")
    after, _ = help_step(s, Help("clean-obj", ("pad#0",)))
    assert not after["pad#0"].is_("dusty")
    _, event = help_step(s, Help("slice-obj", ("pad#0",)))
    assert event.message == "pad#0 is not sliceable"
    with pytest.raises(ValueError, match="unknown help"):
        Help("fly", ("pad#0",))
