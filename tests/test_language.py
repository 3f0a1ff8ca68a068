"""ALFRED-style directives written from expert demonstrations of the real sample tasks: one sentence
per sub-goal, several wordings, directions that agree with the path walked, nothing left unfilled."""

from __future__ import annotations

import random
import re

import pytest

from homesim.datasets.alfred.importer import import_alfred
from homesim.language import annotate
from homesim.language.alfred.directives import read_steps
from homesim.language.alfred.lexicon import fill, lexicon, plural, with_articles
from homesim.language.alfred.mining import mine_synonyms, read_jsonl
from homesim.language.alfred.routes import route
from homesim.planning.alfred.expert import ExpertPlan, plan
from homesim.tasks.alfred import TASK_TYPES, AlfredGoal
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import alfred_catalog
from homesim.world.state import AgentState

TREATMENT_WORDS = {  # what a clean / heat / cool step or goal must say, in some form
    "CleanObject": ("wash", "rins", "clean"),
    "HeatObject": ("heat", "microwav", "cook", "warm", "hot"),
    "CoolObject": ("cool", "chill", "cold", "refrigerat"),
}
GOAL_TREATMENT = {
    "pick_clean_then_place_in_recep": TREATMENT_WORDS["CleanObject"],
    "pick_heat_then_place_in_recep": TREATMENT_WORDS["HeatObject"],
    "pick_cool_then_place_in_recep": TREATMENT_WORDS["CoolObject"],
}


@pytest.fixture(scope="module")
def demos(alfred_samples, alfred_layouts):
    """(scene, demonstration, goal) for each of the 70 sample tasks."""
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts)
    assert not errors
    episodes = [e for split in sorted(splits) for e in splits[split]]
    return [(scenes[e.scene_id], plan(scenes[e.scene_id], e.initial_state, e.goal), e.goal) for e in episodes]


@pytest.fixture(scope="module")
def annotated(demos):
    """Each demonstration with its steps and three annotations (seed 0)."""
    return [
        (scene, demo, goal, read_steps(scene, demo), annotate(scene, demo, goal, random.Random(0)))
        for scene, demo, goal in demos
    ]


def names(cls: str) -> set[str]:
    return set(lexicon().names.get(cls) or [lexicon().name(cls, random.Random(0))])


def mentions(sentence: str, cls: str) -> bool:
    """Whether the sentence names the class by one of its names, or their plural."""
    text = f" {' '.join(re.findall(r'[a-z]+', sentence.lower()))} "
    return any(f" {n} " in text or f" {plural(n)} " in text for n in names(cls))


# --- shape ---------------------------------------------------------------------------------------


def test_the_samples_cover_every_task_type(demos):
    assert {goal.task_type for _, _, goal in demos} == set(TASK_TYPES)


def test_one_sentence_per_subgoal_in_each_of_count_annotations(demos):
    for scene, demo, goal in demos:
        for count in (1, 3, 5):
            anns = annotate(scene, demo, goal, random.Random(count), count=count)
            assert len(anns) == count
            for a in anns:
                assert len(a.high_descs) == len(demo.subgoals)
                assert a.task_desc and all(a.high_descs)


def test_same_seed_same_annotations(demos):
    for scene, demo, goal in demos[::7]:
        assert annotate(scene, demo, goal, random.Random(11)) == annotate(scene, demo, goal, random.Random(11))


def test_annotations_of_one_demonstration_differ(annotated):
    for *_, anns in annotated:
        assert len(set(anns)) == len(anns)
        assert len({a.task_desc for a in anns}) >= 2


def test_different_seeds_give_different_wordings(demos):
    differ = sum(
        annotate(scene, demo, goal, random.Random(1)) != annotate(scene, demo, goal, random.Random(2))
        for scene, demo, goal in demos
    )
    assert differ == len(demos)


def test_no_template_placeholder_is_ever_left(demos):
    for seed in range(4):
        for scene, demo, goal in demos:
            for a in annotate(scene, demo, goal, random.Random(seed)):
                for sentence in (a.task_desc, *a.high_descs):
                    assert not re.search(r"[{}\[\]|]", sentence), sentence
                    assert "  " not in sentence and sentence == sentence.strip(), sentence
                    assert not re.search(r"\b[Aa] [aeiou]", sentence), sentence  # "an apple"


def test_an_empty_demonstration_has_a_goal_and_no_steps():
    goal = AlfredGoal("pick_and_place_simple", "Apple", "Fridge")
    (a,) = annotate(None, ExpertPlan(), goal, random.Random(0), count=1)
    assert mentions(a.task_desc, "Apple") and mentions(a.task_desc, "Fridge") and a.high_descs == ()


# --- content -------------------------------------------------------------------------------------


def test_goal_sentences_name_the_object_and_where_it_goes(annotated):
    for *_, goal, _, anns in annotated:
        for a in anns:
            assert mentions(a.task_desc, goal.object_target), (goal, a.task_desc)
            for cls in (goal.parent_target, goal.toggle_target, goal.mrecep_target):
                if cls:
                    assert mentions(a.task_desc, cls), (goal, a.task_desc)
            if goal.task_type == "pick_two_obj_and_place":
                assert re.search(r"\b(two|pair)\b", a.task_desc.lower()) or " the " in a.task_desc.lower()


def test_goals_and_steps_say_the_treatment(annotated):
    for _, demo, goal, steps, anns in annotated:
        for a in anns:
            if goal.task_type in GOAL_TREATMENT:
                assert any(w in a.task_desc.lower() for w in GOAL_TREATMENT[goal.task_type]), a.task_desc
            for step, sentence in zip(steps, a.high_descs):
                if step.kind in TREATMENT_WORDS:
                    assert any(w in sentence.lower() for w in TREATMENT_WORDS[step.kind]), sentence
                    assert mentions(sentence, demo.states[0].objects.get(step.receptacle).cls), sentence


def test_interaction_steps_name_their_object(annotated):
    verbs = {
        "PickupObject": ("pick", "grab", "take", "get", "retrieve", "lift", "collect"),
        "PutObject": ("put", "place", "set", "drop", "leave"),
        "SliceObject": ("slice", "cut"),
        "ToggleObject": ("turn on", "switch on", " on"),
    }
    for _, demo, _, steps, anns in annotated:
        classes = {o.id: o.cls for o in demo.states[0].objects.values()}
        for a in anns:
            for step, sentence in zip(steps, a.high_descs):
                if step.kind in verbs:
                    cls = classes.get(step.object) or step.object.rsplit("|", 1)[-1].rsplit("_", 1)[0]
                    assert any(v in sentence.lower() for v in verbs[step.kind]), sentence
                    assert mentions(sentence, cls), (cls, sentence)


def test_pick_ups_usually_say_where_the_object_was(annotated):
    said, total = 0, 0
    for _, demo, _, steps, anns in annotated:
        for a in anns:
            for step, sentence in zip(steps, a.high_descs):
                if step.kind == "PickupObject" and step.source in demo.states[0].objects:
                    total += 1
                    said += mentions(sentence, demo.states[0].objects[step.source].cls)
    assert total > 50 and said / total > 0.5


# --- directions ----------------------------------------------------------------------------------


def test_walks_tell_their_first_and_last_turn(annotated):
    told = {"left": ("left",), "right": ("right",), "around": ("around", "180")}
    walks = 0
    for *_, steps, anns in annotated:
        for a in anns:
            for step, sentence in zip(steps, a.high_descs):
                if step.kind != "GotoLocation":
                    continue
                walks += 1
                for turn in (step.route.first_turn, step.route.final_turn):
                    if turn:
                        assert any(w in sentence.lower() for w in told[turn]), (step.route, sentence)
                plain = not (step.route.first_turn or step.route.middle_turns or step.route.final_turn)
                if plain and step.landmark is None and step.rank is None:
                    assert not re.search(r"\b(left|right|around)\b", sentence.lower()), (step.route, sentence)
    assert walks > 100


def test_a_walk_starting_with_rotate_left_says_left(annotated):
    checked = 0
    for _, demo, _, _, anns in annotated:
        for i, subgoal in enumerate(demo.subgoals):
            walk = [a.name for a, k in zip(demo.actions, demo.subgoal_index) if k == i]
            if subgoal.action == "GotoLocation" and walk[0] == A.ROTATE_LEFT and walk[:2] != [A.ROTATE_LEFT] * 2:
                checked += 1  # (two lefts are "around")
                assert all("left" in a.high_descs[i].lower() for a in anns), [a.high_descs[i] for a in anns]
    assert checked >= 5


def test_route_shapes(demos):
    scene = demos[0][0]
    x, z = min(scene.reachable)
    start = AgentState(x * 0.25, z * 0.25, 0, 30)
    left, right, ahead = Action(A.ROTATE_LEFT), Action(A.ROTATE_RIGHT), Action(A.MOVE_AHEAD)
    r = route([left, ahead, ahead, right, ahead, left], start, scene)
    assert (r.first_turn, r.middle_turns, r.final_turn, r.legs, r.distance) == (
        "left",
        ("right",),
        "left",
        (2, 1),
        "short",
    )
    r = route([left, left, Action(A.LOOK_DOWN)], start, scene)
    assert (r.first_turn, r.walks, r.distance, r.look) == ("around", False, None, "down")
    assert route([ahead] * 6, start, scene).distance == "medium"
    assert route([right, right, right], start, scene).first_turn == "left"


# --- words ---------------------------------------------------------------------------------------


def test_names_come_from_annotators_and_class_names():
    lex = lexicon()
    assert {"fridge", "refrigerator"} <= set(lex.names["Fridge"])
    assert lex.name("HousePlant", random.Random(0)) == "house plant"
    assert lex.name("TVStand", random.Random(0)) == "tv stand"
    assert (lex.preposition("Fridge"), lex.preposition("CounterTop"), lex.preposition("Toaster")) == ("in", "on", "on")


def test_plurals_articles_and_templates():
    assert [plural(n) for n in ("apple", "knife", "slice of apple", "glass", "tomato", "keys", "credit card")] == [
        "apples",
        "knives",
        "slices of apple",
        "glasses",
        "tomatoes",
        "keys",
        "credit cards",
    ]
    assert (
        with_articles("Put a apple in a bowl, a egg on A ottoman.") == "Put an apple in a bowl, an egg on An ottoman."
    )
    rng = random.Random(0)
    assert {fill("[Pick up|Grab] the {object}[ now|].", {"object": "cd"}, rng) for _ in range(50)} == {
        "Pick up the cd.",
        "Pick up the cd now.",
        "Grab the cd.",
        "Grab the cd now.",
    }
    with pytest.raises(KeyError):
        fill("Put the {object} in the {recep}.", {"object": "cd"}, rng)


def test_mining_reads_names_from_aligned_steps():
    def trajectory(pickup: str, put: str) -> dict:
        return {
            "plan": {
                "high_pddl": [
                    {"planner_action": {"action": "PickupObject", "objectId": "Mug|1|1|1"}},
                    {
                        "planner_action": {
                            "action": "PutObject",
                            "objectId": "Mug|1|1|1",
                            "receptacleObjectId": "Fridge|2|0|2",
                        }
                    },
                ]
            },
            "turk_annotations": {"anns": [{"high_descs": [pickup, put]}]},
        }

    data = [trajectory("Pick up the white mug from the counter.", "Put the mug in the fridge.")] * 6
    data += [trajectory("Grab the coffee cup.", "Place the coffee cup on the top shelf of the refrigerator.")] * 5
    table = mine_synonyms(data, ["Mug", "Fridge"])
    assert table["Mug"]["names"] == {"mug": 12, "coffee cup": 10}
    assert table["Fridge"] == {"names": {"fridge": 6, "refrigerator": 5}, "prepositions": {"in": 6, "on": 5}}


def test_templates_leave_no_double_space_when_an_alternative_is_empty():
    def strings(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for v in node.values():
                yield from strings(v)
        elif isinstance(node, list):
            for v in node:
                yield from strings(v)

    for template in strings(lexicon().templates):
        for m in re.finditer(r"\[([^\[\]]*)\]", template):
            if "" in m.group(1).split("|"):
                before, after = template[m.start() - 1 : m.start()], template[m.end() : m.end() + 1]
                assert not (before == " " and after == " "), template


@pytest.mark.slow
def test_the_shipped_names_are_what_mining_alfred_train_gives(alfred_trajectories):
    mined = mine_synonyms(read_jsonl(alfred_trajectories / "train.jsonl.gz"), alfred_catalog().classes)
    assert {cls: entry["names"] for cls, entry in mined.items()} == lexicon().names


def test_a_name_written_two_ways_is_one_name_in_its_commonest_spelling():
    from homesim.language.alfred.lexicon import lexicon, spelled_one_way

    assert spelled_one_way({"laptop": 194, "computer": 50, "lap top": 41, "lap-top": 2}) == {
        "laptop": 237,
        "computer": 50,
    }
    assert "lap top" not in lexicon().names["Laptop"] and "laptop" in lexicon().names["Laptop"]
