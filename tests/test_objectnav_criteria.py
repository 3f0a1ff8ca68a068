"""ObjectNav's success criteria (the working group's four, oracle visibility and habitat's distance to goal)
where an agent stops beside a house plant in a generated house: 0.99 m from its surface passes proximity and
1.01 m fails; facing away fails strict visibility but passes oracle visibility; ending without STOP fails;
the criteria follow from the inputs a record keeps, each protocol judges a hand-built stop by its own rule, and
SPL's undefined cases read as each protocol has them."""

from __future__ import annotations

import pytest

from homesim.evaluation.objectnav.suite import PROTOCOLS
from homesim.scenes.houses import generate_house
from homesim.tasks.objectnav_criteria import (
    CRITERIA,
    DEFAULT_CRITERIA,
    criteria_from,
    criteria_inputs,
    failed,
    judge,
    parse_criteria,
    soft_spl,
    spl,
    succeeded,
)
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import nav_grid, surface_distance
from homesim.world.objectnav.sight import sees
from homesim.world.state import AgentState

SIDES = {"east": (1, 0, 270), "west": (-1, 0, 90), "north": (0, 1, 180), "south": (0, -1, 0)}  # yaw faces the box


@pytest.fixture(scope="module")
def plant():
    """A house plant with navigable floor 0.99 and 1.01 m from one side, and the yaw that faces it."""
    scene, _ = generate_house(0)
    grid = nav_grid(scene, LOCOBOT)
    for f in sorted(scene.fixed.values(), key=lambda f: f.id):
        if f.cls != "HousePlant":
            continue
        b = f.box
        cx, cz = (b.lo[0] + b.hi[0]) / 2, (b.lo[2] + b.hi[2]) / 2
        for dx, dz, yaw in SIDES.values():

            def at(gap, dx=dx, dz=dz, b=b, cx=cx, cz=cz):
                x = (b.hi[0] + gap if dx > 0 else b.lo[0] - gap) if dx else cx
                z = (b.hi[2] + gap if dz > 0 else b.lo[2] - gap) if dz else cz
                return x, z

            if all(grid.is_navigable(*at(gap)) for gap in (0.99, 1.01)) and sees(
                grid, b, AgentState(*at(1.01), yaw, 0)
            ):
                return grid, b, at, yaw
    pytest.fail("no house plant with free floor beside it in house 0")


def test_within_the_success_distance_passes_and_just_beyond_fails_proximity(plant):
    grid, box, at, yaw = plant
    near, far = AgentState(*at(0.99), yaw, 0), AgentState(*at(1.01), yaw, 0)
    assert surface_distance(box, near.x, near.z) == pytest.approx(0.99)
    assert surface_distance(box, far.x, far.z) == pytest.approx(1.01)
    assert judge(grid, {"plant": box}, near, stopped=True, distance_to_goal=0.0) == dict.fromkeys(CRITERIA, True)
    verdict = judge(grid, {"plant": box}, far, stopped=True)
    assert failed(verdict, DEFAULT_CRITERIA) == ["proximity", "visibility"]  # the far plant is not a candidate
    assert verdict["intentionality"] and verdict["validity"] and not verdict["proximity"]
    # a larger shell takes it in
    assert failed(judge(grid, {"plant": box}, far, stopped=True, success_distance=1.05), DEFAULT_CRITERIA) == []


def test_facing_away_fails_strict_visibility_and_passes_oracle_visibility(plant):
    grid, box, at, yaw = plant
    away = AgentState(*at(0.99), (yaw + 180) % 360, 0)
    verdict = judge(grid, {"plant": box}, away, stopped=True)
    assert verdict["proximity"] and not verdict["visibility"] and verdict["oracle_visibility"]
    assert failed(verdict, DEFAULT_CRITERIA) == ["visibility"]
    oracle = ("intentionality", "validity", "proximity", "oracle_visibility")
    assert failed(verdict, oracle) == []


def test_ending_without_stop_fails_intentionality(plant):
    grid, box, at, yaw = plant
    verdict = judge(grid, {"plant": box}, AgentState(*at(0.99), yaw, 0), stopped=False)
    assert failed(verdict, DEFAULT_CRITERIA) == ["intentionality"]


def test_a_pose_off_the_navigable_area_fails_validity(plant):
    grid, box, at, yaw = plant
    centre = ((box.lo[0] + box.hi[0]) / 2, (box.lo[2] + box.hi[2]) / 2)
    verdict = judge(grid, {"plant": box}, AgentState(*centre, yaw, 0), stopped=True)
    assert not verdict["validity"] and verdict["proximity"]


def test_no_goal_instance_fails_proximity_and_visibility(plant):
    grid, _, at, yaw = plant
    verdict = judge(grid, {}, AgentState(*at(0.99), yaw, 0), stopped=True)
    assert failed(verdict, CRITERIA) == ["proximity", "visibility", "oracle_visibility", "distance_to_goal"]


def test_criteria_are_parsed_checked_and_ordered():
    assert parse_criteria("visibility, proximity") == ("proximity", "visibility")
    assert parse_criteria(["oracle_visibility", "intentionality"]) == ("intentionality", "oracle_visibility")
    with pytest.raises(ValueError, match="unknown success criterion 'nearby'; known: intentionality"):
        parse_criteria("proximity,nearby")
    with pytest.raises(ValueError, match="no success criterion chosen"):
        parse_criteria(" , ")


def test_habitats_success_is_the_distance_to_a_view_point_under_a_tenth_of_a_metre(plant):
    grid, box, at, yaw = plant
    agent = AgentState(*at(0.99), yaw, 0)
    habitat = ("intentionality", "distance_to_goal")
    assert failed(judge(grid, {"plant": box}, agent, True, habitat, distance_to_goal=0.099), habitat) == []
    assert failed(judge(grid, {"plant": box}, agent, True, habitat, distance_to_goal=0.1), habitat) == [
        "distance_to_goal"
    ]
    assert failed(judge(grid, {"plant": box}, agent, True, habitat, distance_to_goal=None), habitat) == [
        "distance_to_goal"
    ]


def test_the_criteria_follow_from_the_inputs_a_record_keeps(plant):
    grid, box, at, yaw = plant
    agent = AgentState(*at(1.01), yaw, 0)
    inputs = criteria_inputs(grid, {"plant": box}, agent)
    assert inputs == {
        "navigable": True,
        "surface_distances": {"plant": 1.01},
        "seen": ["plant"],
        "oracle_seen": ["plant"],
    }
    assert criteria_from(inputs, True, 0.5) == judge(grid, {"plant": box}, agent, True, distance_to_goal=0.5)
    # judged again with another shell, from the record alone
    assert failed(criteria_from(inputs, True, 0.5, success_distance=1.05), DEFAULT_CRITERIA) == []


def test_spl_where_habitats_formula_has_no_value_reads_as_each_protocol_says():
    # a goal no path reaches: homesim's limit (S), AllenAct's 0, habitat's NaN (no value)
    assert [spl(1.0, None, 3.0, u) for u in ("limit", "zero", "undefined")] == [1.0, 0.0, None]
    assert [soft_spl(1.0, None, None, 3.0, u) for u in ("limit", "zero", "undefined")] == [1.0, 0.0, None]
    # a start on a view point, never moving: 1 (homesim, AllenAct), 0 / 0 (habitat)
    assert [spl(1.0, 0.0, 0.0, u) for u in ("limit", "zero", "undefined")] == [1.0, 1.0, None]
    assert spl(1.0, 2.0, 4.0, "undefined") == 0.5 and soft_spl(0.0, 2.0, 1.0, 2.0, "undefined") == 0.5


IN_VIEW, FACING_AWAY = {"seen": ["plant"], "oracle_seen": ["plant"]}, {"seen": [], "oracle_seen": ["plant"]}


@pytest.mark.parametrize(
    "stopped, inputs, d_t, succeeds",
    [  # success under objectnav-2020, habitat, robothor
        (True, {"navigable": True, "surface_distances": {"plant": 0.9}, **IN_VIEW}, 0.3, (1, 0, 1)),
        (True, {"navigable": True, "surface_distances": {"plant": 0.5}, **IN_VIEW}, 0.05, (1, 1, 1)),
        # off the navigable area (no view point reachable): only AllenAct's rule does not ask
        (True, {"navigable": False, "surface_distances": {"plant": 0.5}, **IN_VIEW}, None, (0, 0, 1)),
        # on a view point, facing away: habitat asks only for d_T
        (True, {"navigable": True, "surface_distances": {"plant": 0.5}, **FACING_AWAY}, 0.0, (0, 1, 0)),
        (True, {"navigable": True, "surface_distances": {"plant": 1.2}, **IN_VIEW}, 0.3, (0, 0, 0)),
        (False, {"navigable": True, "surface_distances": {"plant": 0.5}, **IN_VIEW}, 0.0, (0, 0, 0)),
    ],
)
def test_each_protocol_judges_a_hand_built_stop_by_its_own_rule(stopped, inputs, d_t, succeeds):
    assert [p.name for p in PROTOCOLS] == ["objectnav-2020", "habitat", "robothor"]
    for protocol, expected in zip(PROTOCOLS, succeeds, strict=True):
        rules = protocol.settings
        criteria = criteria_from(
            inputs, stopped, d_t, rules["criteria"], rules["success_distance"], rules["view_point_distance"]
        )
        assert succeeded(criteria, rules["criteria"]) == expected, protocol.name
