"""HandMeThat's PDDL: the shipped domain, problems of any state, and DESIGN's rule that a real planner's
(pyperplan's) plans execute in the engine and reach the goal."""

from __future__ import annotations

import random

import pytest
from handmethat_fixtures import small_world
from pyperplan import grounding
from pyperplan.pddl.parser import Parser

from homesim.datasets.handmethat.files import read_handmethat_file
from homesim.planning.handmethat.pddl import (
    domain_text,
    engine_name,
    export_problem,
    pddl_name,
    solve_with_planner,
    to_action,
)
from homesim.tasks.handmethat.formula import holds
from homesim.world.handmethat import HUMAN, SCHEMAS, HmtAction, HmtState, applicable_actions, step


def parse(tmp_path, problem: str | None = None):
    (tmp_path / "domain.pddl").write_text(domain_text())
    (tmp_path / "problem.pddl").write_text(problem or "")
    parser = Parser(str(tmp_path / "domain.pddl"), str(tmp_path / "problem.pddl"))
    domain = parser.parse_domain()
    return domain, (parser.parse_problem(domain) if problem else None)


def execute(state: HmtState, actions: list[HmtAction]) -> HmtState:
    for a in actions:
        state, event = step(state, a)
        assert event.success, f"the engine refuses the planner's {a}: {event.message}"
    return state


def test_the_domain_has_a_variant_of_every_schema_and_a_small_planner_reads_it(tmp_path):
    domain, _ = parse(tmp_path)
    verbs = {name.split("--")[0] for name in domain.actions}
    assert verbs == {n.split("-", 1)[1] for n in SCHEMAS}
    assert len(domain.actions) == domain_text().count("(:action ")


@pytest.fixture(scope="module")
def sample(handmethat_samples):
    return read_handmethat_file(handmethat_samples / "task-bring_me-2-0-2.json")


def test_any_state_exports_as_a_problem_with_every_thing(tmp_path, sample):
    e = sample
    state = e.start_state
    _, problem = parse(tmp_path, export_problem(state, "(and (human-holding pad#0) (not (open cabinet)))"))
    assert len(problem.objects) >= len(state.things)  # things, labels (types, subclasses, ...)
    assert "pad-1" in problem.objects and "box-0" in problem.objects
    text = export_problem(state, e.goal)  # their quantified goal, for a planner beyond STRIPS
    assert "(:goal (and (exists (?y - object) (and (is ?y k-box) (forall (?x - object)" in text
    assert "(inside pad-1 box-0)" in text and "(stands-at h cabinet)" in text and "(hand-empty robot)" in text
    kept = export_problem(state, keep=["pad#1"])
    assert "pad-1 box-0" in kept and "pad-0" not in kept  # pad#1 with what it lies in, and the locations


def test_names_map_both_ways():
    for name in ("pad#0", "vegetable_oil#2", "tea_bag#1", "floor", HUMAN):
        assert engine_name(pddl_name(name)) == name
    step_ = to_action("pick-up-from-receptacle-at-location--inside-ontop", ("robot", "pad-1", "box-0", "table"))
    assert step_ == HmtAction("robot-pick-up-from-receptacle-at-location", ("pad#1", "box#0", "table"))
    assert to_action("bring-to-human", ("robot", "pad-1")) == HmtAction("robot-bring-to-human", ("pad#1", HUMAN))


GOALS = ["(human-holding pad#0)", "(cooked apple#0)"]  # in a closed package in a closed cabinet; on the stove
MORE_GOALS = [
    "(or (human-holding pad#0) (human-holding pad#1))",
    "(inside pad#0 box#0)",
    "(not (dusty pad#0))",  # a rag, soaked in the sink first
    "(sliced apple#0)",
    "(and (frozen beef#0) (toggled printer#0))",
    "(not (dusty floor))",
]


def cross_check(state: HmtState, goal: str) -> None:
    assert not holds(goal, state)
    plan = solve_with_planner(state, goal, timeout=60)
    assert holds(goal, execute(state, plan))


@pytest.mark.parametrize("goal", GOALS)
def test_a_planners_plan_executes_in_the_engine_and_reaches_the_goal(goal):
    cross_check(small_world(), goal)


def test_a_planners_plan_for_a_sample_meaning_executes_in_the_engine(sample):
    e = sample
    plan = solve_with_planner(e.start_state, e.success)
    assert holds(e.success, execute(e.start_state, plan)) and len(plan) == len(e.demo_actions)


@pytest.mark.slow
@pytest.mark.parametrize("goal", MORE_GOALS)
def test_more_planners_plans_execute_in_the_engine(goal):
    cross_check(small_world(), goal)


@pytest.mark.slow
@pytest.mark.parametrize("goal", GOALS + MORE_GOALS)
def test_planners_plans_execute_from_states_off_the_start(goal):
    rng = random.Random(7)
    for _ in range(4):
        state = small_world()
        for _ in range(rng.randrange(5, 30)):
            state, _ = step(state, rng.choice(applicable_actions(state)))
        if not holds(goal, state):
            cross_check(state, goal)


def test_the_planner_takes_ground_goals_only():
    with pytest.raises(ValueError, match="ground goals only"):
        solve_with_planner(small_world(), "(exists (?x - phyobj) (human-holding ?x))")


def _init_facts(problem: str) -> set[str]:
    init = problem.split("(:init", 1)[1].split("(:goal", 1)[0]
    return {line.strip().rstrip(")") + ")" for line in init.splitlines() if line.strip().startswith("(")}


def replay_in_pddl(tmp_path, episode) -> None:
    """The human's actions, taken in the PDDL domain (pyperplan's grounding) beside the engine: each is one
    applicable grounded operator, and the facts they end in are the engine's final state exported."""
    keep = {a for action in episode.human_actions for a in action.args}
    _, problem = parse(tmp_path, export_problem(episode.initial_state, keep=keep, working=("human",)))
    task = grounding.ground(problem, remove_statics_from_initial_state=False, remove_irrelevant_operators=False)
    operators: dict[tuple[str, tuple[str, ...]], list] = {}
    for op in task.operators:
        name, *args = op.name.strip("()").split()
        operators.setdefault((name.split("--")[0], tuple(args)), []).append(op)
    facts = task.initial_state
    for action in episode.human_actions:
        key = (action.verb, ("h", *(pddl_name(a) for a in action.args)))
        (operator,) = [op for op in operators.get(key, []) if op.applicable(facts)]
        facts = operator.apply(facts)
    end = export_problem(episode.start_state, keep=keep, working=("human",))
    assert set(facts) == _init_facts(end)


@pytest.mark.parametrize("name", ["task-bring_me-25-1-2", "task-bring_me-52-0-2"])
def test_the_humans_actions_run_in_the_pddl_domain_as_in_the_engine(tmp_path, handmethat_samples, name):
    replay_in_pddl(tmp_path, read_handmethat_file(handmethat_samples / f"{name}.json"))


@pytest.mark.slow
def test_every_samples_human_actions_run_in_the_pddl_domain_as_in_the_engine(tmp_path, handmethat_samples):
    for file in sorted(handmethat_samples.glob("*.json")):
        replay_in_pddl(tmp_path, read_handmethat_file(file))
