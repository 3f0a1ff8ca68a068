"""The FF heuristic of HandMeThat's human (planning.handmethat.ff), the goal's relevant things
(planning.handmethat.relevance), A(g) by their rule, and the end-to-end agreement with the authors' 24
samples."""

from __future__ import annotations

import importlib.util
import json
import math
import random
from pathlib import Path

import pytest
from handmethat_fixtures import small_world

from homesim.language.handmethat.pragmatics import help_values, useful_objects
from homesim.planning.handmethat.ff import RelaxedTask
from homesim.planning.handmethat.relevance import named_kinds, relevance
from homesim.world.handmethat import applicable_actions, step
from homesim.world.handmethat.sampling import sample_scene

PADS_ON = "(forall (?x - phyobj) (or (not (type-pad ?x)) (ontop ?x {})))"


def test_relevant_things_follow_their_generator() -> None:
    state = small_world()
    goal = PADS_ON.format("table")
    assert named_kinds(goal) == ([("type", "pad")], [("name", "table")])
    r = relevance(goal, state)
    # the pads, where they lie (pad#0 in package#0 in the cabinet), the table, and the floor
    assert r.things == {"pad#0", "pad#1", "package#0", "cabinet", "sofa", "table", "floor"}
    assert r.movable_targets == {"pad#0", "pad#1"}
    sliced = relevance("(exists (?x - phyobj) (and (type-apple ?x) (sliced ?x)))", state)
    assert "knife#0" in sliced.things and "knife#0" in sliced.movable_targets  # slicing brings the knives in


def test_h_ff_of_a_hand_built_problem_is_the_hand_computed_relaxed_plan() -> None:
    """Both pads onto the table, the human on the floor: pad#1 lies on the sofa, pad#0 in the closed
    package#0 in the closed cabinet. By hand: layer 0 the three moves; layer 1 open the cabinet, pick up
    pad#1; layer 2 open the package, put pad#1 on the table; layer 3 pick pad#0 out of the package; layer
    4 put it on the table: 9 (a real plan needs 10: the human walks back from the table)."""
    state = small_world()
    goal = PADS_ON.format("table")
    task = RelaxedTask(goal, state, relevance(goal, state).things)
    plan = [str(a) for a in task.relaxed_plan(state)]
    assert sorted(plan[:3]) == ["human-move(floor, cabinet)", "human-move(floor, sofa)", "human-move(floor, table)"]
    assert set(plan[3:]) == {
        "human-open-location(cabinet)",
        "human-pick-up-at-location(pad#1, sofa)",
        "human-open-receptacle-at-location(package#0, cabinet)",
        "human-put-ontop-location(pad#1, table)",
        "human-pick-up-from-receptacle-at-location(pad#0, package#0, cabinet)",
        "human-put-ontop-location(pad#0, table)",
    }
    assert task.h(state) == 9 == len(plan)
    done, _ = step(state, task.relaxed_plan(state)[0])  # any state of the task can be asked
    assert task.h(done) == 8
    # things outside the task stay as they are: pad#1 is on the sofa already; pad#0 cannot be moved
    assert RelaxedTask(PADS_ON.format("sofa"), state, {"pad#0", "sofa"}).h(state) == 6
    assert RelaxedTask(goal, state, {"pad#1"}).h(state) == math.inf


def test_relaxed_goal_out_of_reach_without_a_knife() -> None:
    state = small_world()
    goal = "(exists (?x - phyobj) (and (type-apple ?x) (sliced ?x)))"
    assert RelaxedTask(goal, state, {"apple#0"}).h(state) == math.inf
    plan = RelaxedTask(goal, state, relevance(goal, state).things).relaxed_plan(state)
    assert [str(a) for a in plan] == [
        "human-move(floor, countertop)",
        "human-pick-up-at-location(knife#0, countertop)",
        "human-slice-obj(apple#0, knife#0, countertop)",
    ]


@pytest.mark.parametrize("seed", [None, 0])
def test_operators_are_the_engines_human_actions(seed) -> None:
    """Over a random walk of the human, the task's operators whose preconditions hold are exactly the
    engine's applicable human actions (moving to where it stands aside)."""
    state = small_world() if seed is None else sample_scene(random.Random(seed))
    things = state.things if seed is None else relevance(PADS_ON.format("table"), state).things | {"knife#0"}
    task = RelaxedTask(PADS_ON.format("table"), state, things)
    rng = random.Random(1)
    for _ in range(120):
        engine = {
            str(a)
            for a in applicable_actions(state, "human")
            if not (a.verb == "move" and a.args[0] == a.args[1])
            and all(x in task.things for x in a.args)
        }
        assert {str(a) for a in task.applicable(state)} == engine
        options = [a for a in applicable_actions(state, "human") if all(x in task.things for x in a.args)]
        state, _ = step(state, rng.choice(options))


def test_useful_objects_are_the_helps_that_improve_h_ff() -> None:
    """Both pads wanted on the sofa, where pad#1 already is. h_FF now: to the cabinet and sofa, open the
    cabinet and the package, take pad#0 out and put it on the sofa: 6. Handed pad#0, the human walks to
    the sofa and puts it down: 2, so -2 + 1 = -1 > -6. Handed pad#1, it must free its hand and put pad#1
    back too: 8, -7: no help. A(g) = {pad#0}; things the goal does not name get the steps left."""
    state = small_world()
    goal = PADS_ON.format("sofa")
    r = relevance(goal, state)
    distance = RelaxedTask(goal, state, r.things).h
    assert distance(state) == 6
    values = help_values(state, "bring_me", distance, 10, relevant=r.movable_targets)
    assert values[("pad#0", None)] == -1 and values[("pad#1", None)] == -7 and values[("apple#0", None)] == -10
    assert useful_objects(values, distance(state)) == (("pad#0", None),)


def test_the_authors_samples_end_to_end(handmethat_samples) -> None:
    """bench/handmethat_rsa_agreement.py's measurement: A(g) by h_FF agrees with their `_useful_objects`
    on 23 of 24 (task-bring_me-26-0-2 lists two helps whose h_FF value does not beat h_FF(s_T)), and the
    hardness level end to end (A(g), P(m|g) by h_FF values, our listener) on all 24."""
    path = Path(__file__).resolve().parents[1] / "bench" / "handmethat_rsa_agreement.py"
    spec = importlib.util.spec_from_file_location("handmethat_rsa_agreement", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = [bench.compare(p) for p in sorted(handmethat_samples.glob("*.json"))]
    assert len(rows) == 24
    differing = [r["file"] for r in rows if not r["useful_equal"]]
    assert differing == ["task-bring_me-26-0-2.json"]
    assert sum(r["level_end_to_end"] == r["their_level"] for r in rows) == 24
    assert json.dumps(rows)  # the bench's rows are what it writes as JSON
