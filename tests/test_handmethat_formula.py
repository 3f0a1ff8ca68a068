"""HandMeThat's goal language: the parser and the evaluator on hand-written formulas, the meaning's success
condition, and their generator's hidden goals against the human's full plans."""

from __future__ import annotations

import json

import pytest
from handmethat_fixtures import small_world

from homesim.datasets.handmethat.episode import replay
from homesim.datasets.handmethat.files import read_handmethat_file
from homesim.tasks.handmethat.formula import FormulaError, holds, parse
from homesim.tasks.handmethat.task import Meaning, meaning_satisfied, success_formula
from homesim.world.handmethat import HUMAN, HmtAction, step


@pytest.fixture(scope="module")
def world():
    return small_world()


@pytest.mark.parametrize(
    "formula, expected",
    [
        ("(inside pad#0 package#0)", True),
        ("(ontop pad#0 cabinet)", False),  # direct parents only: the pad is in the package in the cabinet
        ("(inside package#0 cabinet)", True),
        ("(type-pad pad#1)", True),
        ("(subclass-paper_product pad#1)", True),
        ("(class-THING pad#1)", True),
        ("(class-thing pad#1)", True),
        ("(dusty pad#0)", True),
        ("(not (dusty pad#1))", True),
        ("(open cabinet)", False),
        ("(color-red box#0)", True),
        ("(size-large box#0)", False),
        ("(openable box#0)", True),
        ("(has-ontop tray#0)", True),
        ("(movable floor)", False),
        ("(receptacle floor)", True),
        ("(= pad#0 pad#0)", True),
        ("(and (type-pad pad#1) (ontop pad#1 sofa))", True),
        ("(or (ontop pad#1 table) (ontop pad#1 bed))", False),
        ("(exists (?x - phyobj) (and (type-pad ?x) (ontop ?x sofa)))", True),
        ("(forall (?x - phyobj) (or (not (type-pad ?x)) (ontop ?x sofa)))", False),
        (
            "(exists (?y - phyobj) (and (type-package ?y)"
            " (forall (?x - phyobj) (or (not (type-pad ?x)) (inside ?x ?y)))))",
            False,
        ),
        ("(exists (?y - phyobj) (and (type-tray ?y) (exists (?x - phyobj) (and (ontop ?x ?y)(not (frozen ?x)) ))))", True),
        ("(exists (?x - phyobj ?y - phyobj) (and (type-cookie ?x) (ontop ?x ?y) (type-tray ?y)))", True),
        ("(human-holding pad#1)", False),
        ("(hand-empty)", True),
    ],
)
def test_a_formula_holds_as_its_words_say(world, formula, expected):
    assert holds(formula, world) is expected


def test_holding_follows_the_hands(world):
    s = world
    for a in [("robot-move", ("floor", "sofa")), ("robot-pick-up-at-location", ("pad#1", "sofa"))]:
        s, _ = step(s, HmtAction(*a))
    assert holds("(robot-holding pad#1)", s) and not holds("(hand-empty)", s)
    for a in [("robot-move", ("sofa", HUMAN)), ("robot-bring-to-human", ("pad#1", HUMAN))]:
        s, _ = step(s, HmtAction(*a))
    assert holds("(human-holding pad#1)", s) and not holds("(ontop pad#1 sofa)", s)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "empty"),
        ("(and (type-pad ?x)", "never closed"),
        ("(type-pad pad#1))", "text after"),
        ("(flies pad#1)", "unknown predicate"),
        ("(inside pad#1)", "inside takes 2"),
        ("(not (type-pad pad#1) (type-pad pad#0))", "not takes one"),
        ("(forall () (type-pad ?x))", "binds no variable"),
    ],
)
def test_bad_text_is_a_formula_error_saying_what(world, text, problem):
    with pytest.raises(FormulaError, match=problem):
        holds(parse(text), world)


def test_a_formula_prints_back_to_text_that_parses_to_it():
    text = "(exists (?y - phyobj) (and (type-box ?y) (forall (?x - phyobj) (or (not (type-pad ?x)) (inside ?x ?y)))))"
    assert str(parse(text)) == text and parse(str(parse(text))) == parse(text)


def test_the_meaning_is_met_when_any_fitting_object_is_brought_moved_or_changed(world):
    bring = Meaning("bring_me", (("type", "pad"),))
    assert str(success_formula(bring, ["pad#0", "pad#1"])) == "(or (human-holding pad#0) (human-holding pad#1))"
    move = Meaning("move_to", (("type", "pad"),), "sofa")
    assert meaning_satisfied(move, ["pad#0", "pad#1"], world)  # pad#1 already lies on the sofa
    assert not meaning_satisfied(Meaning("change_state", (), "heat"), ["apple#0"], world)
    clean = Meaning("change_state", (), "clean")
    assert meaning_satisfied(clean, ["pad#1"], world) and not meaning_satisfied(clean, ["pad#0"], world)
    with pytest.raises(ValueError, match="verb 'paint'"):
        Meaning("change_state", (), "paint")
    with pytest.raises(ValueError, match="no object"):
        success_formula(bring, [])


def test_their_hidden_goals_hold_after_the_humans_full_plans(handmethat_samples):
    """Their `_possible_solution` is the human's plan towards `_goal`, of which `action_list` is the start.
    In one sample (30) the plan lists the human's steps only, leaving two of the three earphone places to the
    robot's help, so there the goal stays unmet; everywhere else the plan reaches it."""
    unmet = []
    for file in sorted(handmethat_samples.glob("*.json")):
        e, data = read_handmethat_file(file), json.loads(file.read_text())
        plan = [HmtAction(a["name"], tuple(a["arguments"][1:])) for a in data["_possible_solution"]]
        end = replay(e.initial_state, plan)
        assert not holds(e.goal, e.initial_state) and not holds(e.goal, e.start_state)
        if not holds(e.goal, end):
            unmet.append(e.id)
        else:
            assert holds(e.subgoal, end)
    assert unmet == ["task-bring_me-30-0-2"]
