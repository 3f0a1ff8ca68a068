"""The FF heuristic of HandMeThat's human (planning.handmethat.ff), the goal's relevant things
(tasks.handmethat.relevance), A(g) by their rule, and the end-to-end agreement with the authors' 24
samples."""

from __future__ import annotations

import importlib.util
import json
import math
import random
from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
from handmethat_fixtures import small_object_dict, small_world, thing

from homesim.datasets.handmethat.episode import replay
from homesim.datasets.handmethat.files import read_handmethat_file, state_from_object_dict
from homesim.language.handmethat.pragmatics import help_values, useful_objects
from homesim.planning.handmethat.ff import RelaxedTask
from homesim.tasks.handmethat.relevance import Relevance, named_kinds, relevance
from homesim.world.handmethat import HmtAction, applicable_actions, step
from homesim.world.handmethat.sampling import sample_scene

PADS_ON = "(forall (?x - phyobj) (or (not (type-pad ?x)) (ontop ?x {})))"


def test_relevant_things_follow_their_generator() -> None:
    state = small_world()
    goal = PADS_ON.format("table")
    assert named_kinds(goal) == ([("type", "pad")], [("name", "table")])
    r = relevance(goal, state)
    # the pads, where they lie (pad#0 in package#0 in the cabinet), the table, and the floor
    assert r.things == {"pad#0", "pad#1", "package#0", "cabinet", "sofa", "table", "floor"}
    assert r.movable_targets == {"pad#0", "pad#1"} and r.positions == {"table"}
    sliced = relevance("(exists (?x - phyobj) (and (type-apple ?x) (sliced ?x)))", state)
    assert "knife#0" in sliced.things and "knife#0" in sliced.movable_targets  # slicing brings the knives in


def test_their_order_of_the_relevant_things() -> None:
    """Their operators range over each class's `list(set(...))` (locations, receptacles, food, tools,
    things), with the floor appended last when no relevant thing lies on it."""
    state = small_world()
    r = relevance(PADS_ON.format("table"), state)
    assert r.floor_added and r.candidates(state) == ("sofa", "table", "cabinet", "floor", "package#0", "pad#0", "pad#1")
    drawn = {r.candidates(state, random.Random(k)) for k in range(40)}
    assert {c[:3] for c in drawn} == set(permutations(("sofa", "table", "cabinet")))
    assert {c[3] for c in drawn} == {"floor"}
    assert r.candidates(state, random.Random(3)) == r.candidates(state, random.Random(3))
    on_floor = relevance("(forall (?x - phyobj) (or (not (type-box ?x)) (ontop ?x floor)))", state)
    assert not on_floor.floor_added  # named by the goal: in their set, in its place
    assert {on_floor.candidates(state, random.Random(k)).index("floor") for k in range(20)} == {0, 1}


def test_the_order_decides_where_the_relaxed_plan_fills_the_box() -> None:
    """pad#1 into the closed box#0, the human at the table where the box stands, pad#1 on the sofa. By hand:
    layer 0 open the box, pick the box up, walk to the sofa; layer 1 pick up pad#1, put the box on the
    sofa or the floor; layer 2 put pad#1 into the box where it stands at that layer: at the table (open,
    walk, pick, put: 4), on the sofa (+ pick the box up, put it on the sofa: 6) or the floor (+ walk there:
    7). Their plan takes the first of these operators in their order of the locations."""
    state, _ = step(small_world(), HmtAction.known("human-move", ("floor", "table")))
    goal, things = "(inside pad#1 box#0)", ("box#0", "pad#1")
    by_hand = {("table", "sofa", "floor"): 4, ("sofa", "table", "floor"): 6, ("floor", "sofa", "table"): 7}
    for locations, h in by_hand.items():
        plan = RelaxedTask(goal, state, locations + things).relaxed_plan(state)
        assert len(plan) == h and str(plan[-1]).endswith(f"box#0, {locations[0]})")
    r = relevance(goal, state)  # the floor is appended last: their generator's runs give 4 or 6, as often
    runs = Counter(RelaxedTask(goal, state, r.candidates(state, g), g).h(state) for g in map(random.Random, range(60)))
    assert set(runs) == {4, 6} and min(runs.values()) > 20


def test_the_goals_single_facts_come_before_its_conjunctions() -> None:
    """Their classifier of an `or` puts its single facts first: with the pad on the bed and the pad and
    the box on the table reached in the same layer, the relaxed plan puts the pad on the bed."""
    state, _ = step(small_world(), HmtAction.known("human-move", ("floor", "sofa")))
    goal = "(or (and (ontop pad#1 table) (ontop box#0 table)) (ontop pad#1 bed))"
    plan = RelaxedTask(goal, state, ("sofa", "table", "bed", "box#0", "pad#1")).relaxed_plan(state)
    assert [str(a) for a in plan][-1] == "human-put-ontop-location(pad#1, bed)"


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
    back too: 8, -7: no help. A(g) = {pad#0}. package#0 is relevant but no target: minus the steps left,
    useful only when they are fewer than h_FF now (their rule); the apple is no relevant thing: no help."""
    state = small_world()
    goal = PADS_ON.format("sofa")
    r = relevance(goal, state)
    distance = RelaxedTask(goal, state, r.candidates(state)).h
    assert distance(state) == 6
    values = help_values(state, "bring_me", distance, 10, r)
    assert values == {("package#0", None): -10, ("pad#0", None): -1, ("pad#1", None): -7}
    assert useful_objects(values, distance(state)) == (("pad#0", None),)
    values = help_values(state, "bring_me", distance, 5, r)
    assert values[("package#0", None)] == -5 and useful_objects(values, 6) == (("package#0", None), ("pad#0", None))


def test_which_helps_their_generator_values_by_h_ff() -> None:
    """Their `obj_name.find(target)`: a target's name anywhere in the thing's name (a position's in a
    location's); the others, and helps to a destination that names no position, get the steps left; a
    help after which the relaxed goal is out of reach is worth their -1e9 (+1 for bring_me)."""
    r = Relevance(frozenset(), frozenset({"pan#0", "pad#1"}), frozenset({"chair", "box#0"}))
    assert [r.valued(n) for n in ("saucepan#0", "pad#10", "pad#2", "pan#1", "highchair", "table")] == [
        True, True, False, False, True, False,
    ]  # fmt: skip
    assert r.names_position("box#0") and not r.names_position("box#1")
    state = small_world()
    relevant = Relevance(frozenset(state.things), frozenset({"pad#1"}), frozenset({"table"}))
    stuck = help_values(state, "bring_me", lambda s: math.inf, 3, relevant)
    assert stuck[("pad#1", None)] == -1e9 + 1 and stuck[("pad#0", None)] == -3
    moves = help_values(state, "move_to", lambda s: 1.0, 3, relevant)
    assert moves[("pad#1", "table")] == -1 and moves[("pad#1", "sofa")] == -3 and moves[("pad#0", "table")] == -3


def test_their_human_soaks_only_tools() -> None:
    """Their `human-soak-obj` takes a tool: a rag in the running sink gets soaked, a shirt never does."""
    objects = small_object_dict()
    objects["sink"]["states"]["toggled"] = True
    objects["shirt#0"] = thing("shirt", {"dusty": False, "soaked": False}, inside="sink")
    state = state_from_object_dict("soaking", "objects", objects)
    assert RelaxedTask("(soaked rag#0)", state, ("floor", "sink", "rag#0")).h(state) == 2  # walk, soak
    assert RelaxedTask("(soaked shirt#0)", state, ("floor", "sink", "shirt#0")).h(state) == math.inf


def test_at_other_cuts_of_their_plans_the_next_thing_picked_up_is_useful(handmethat_samples) -> None:
    """Their human's plans cut at every other step with its hand empty: handing it the thing it picks up
    next saves the walk and the pick, so the help beats h_FF now: in 110 of the 111 such states (at step
    9 of task-bring_me-46-1-2 handing the ashcan it will carry leaves it to put the ashcan down: -7 = -7)."""
    missed = []
    for path in sorted(handmethat_samples.glob("*.json")):
        e = read_handmethat_file(path)
        plan, r = e.reading.possible_solution, relevance(e.goal, e.initial_state)
        for cut, action in enumerate(plan[1:-1], start=1):
            state = replay(e.initial_state, plan[:cut])
            if state.human.hand_empty and action.name.startswith("human-pick-up"):
                distance = RelaxedTask(e.goal, state, r.candidates(state)).h
                values = help_values(state, "bring_me", distance, len(plan) - cut, r)
                if (action.args[0], None) not in useful_objects(values, distance(state)):
                    missed.append((path.name, cut))
    assert missed == [("task-bring_me-46-1-2.json", 9)]


def agreement_bench():
    """bench/handmethat_rsa_agreement.py as a module."""
    path = Path(__file__).resolve().parents[1] / "bench" / "handmethat_rsa_agreement.py"
    spec = importlib.util.spec_from_file_location("handmethat_rsa_agreement", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_authors_samples_end_to_end(handmethat_samples) -> None:
    """bench/handmethat_rsa_agreement.py's measurement. Their A(g) depends on their process's set order:
    homesim gives theirs in every draw on 20 samples, in some on the other 4 (in the scene's order on all
    but task-bring_me-26-0-2, whose A(g) came from a run that put the beer can on the table); the level
    end to end, and our listener's reading with their A(g), agree on all 24."""
    bench = agreement_bench()
    files = sorted(handmethat_samples.glob("*.json"))
    rows = [bench.compare(p, draws=0) for p in files]
    assert len(rows) == 24
    assert [r["file"] for r in rows if not r["useful_equal"]] == ["task-bring_me-26-0-2.json"]
    assert sum(r["level_end_to_end"] == r["their_level"] for r in rows) == 24
    assert sum(r["level_with_our_reading"] == r["their_level"] for r in rows) == 24
    drawn = {r["file"]: r["p_useful_theirs"] for r in (bench.compare(p, draws=8) for p in files)}
    sensitive = {f"task-bring_me-{n}.json" for n in ("26-0-2", "35-1-3", "54-0-3", "66-0-2")}
    assert {f for f, p in drawn.items() if p < 1} == sensitive and min(drawn.values()) > 0.3
    assert json.dumps(rows)  # the bench's rows are what it writes as JSON


def test_the_agreement_bench_compares_generated_episodes(tmp_path) -> None:
    """`--generated N` hands the comparison N files in their layout (it once looked in the wrong folder and
    compared none)."""
    bench = agreement_bench()
    files = sorted(bench.generated(2, 11, tmp_path).glob("*.json"))
    assert len(files) == 2
    rows = [bench.compare(p, draws=0) for p in files]
    assert all(r["sets_equal"] for r in rows)
