"""HandMeThat's heuristic baseline on hand-built episodes (the small world of `handmethat_fixtures`): it reads
the request and the things from the text alone, prefers the type the human picked up, plays one trial;
and the text reader it plays through reads back what the game writes."""

from __future__ import annotations

import pytest
from handmethat_fixtures import small_world

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import HandMeThatEnv
from homesim.evaluation.handmethat.suite import run_handmethat_episode
from homesim.evaluation.suites import load_agent
from homesim.language.handmethat import reading as reading
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat import HmtAction

GOAL = "(exists (?x - phyobj) (and (type-pad ?x) (ontop ?x table)))"  # any goal the parser reads


def episode(utterance: Meaning, meaning: Meaning, objects: tuple, task: str = "") -> HandMeThatEpisode:
    """The human took a pad from the sofa to the table, then asks."""
    human = (
        HmtAction("human-move", ("floor", "sofa")),
        HmtAction("human-pick-up-at-location", ("pad#1", "sofa")),
        HmtAction("human-move", ("sofa", "table")),
        HmtAction("human-put-ontop-location", ("pad#1", "table")),
    )
    return HandMeThatEpisode(
        id=f"hand-built-{utterance.quest}",
        initial_state=small_world(),
        human_actions=human,
        goal=GOAL,
        subgoal=GOAL,
        meaning=meaning,
        utterance=utterance,
        objects_in_meaning=objects,
        level=2,
        task_description=task,
    )


BRING_ME = episode(
    Meaning("bring_me", ()),  # "give me that": any thing in the scene
    Meaning("bring_me", (("type", "pad"),)),
    (("pad#0", None),),
)
MOVE_TO = episode(
    Meaning("move_to", ()),  # "put it over there": where the human put the pad
    Meaning("move_to", (("type", "pad"),), "table"),
    (("pad#0", "table"),),
)


@pytest.mark.parametrize("observability", ["full", "partial"])
@pytest.mark.parametrize("case", [BRING_ME, MOVE_TO], ids=["bring_me", "move_to"])
def test_the_heuristic_takes_the_type_the_human_handled(case, observability) -> None:
    # the only other pad is in a closed package in the closed cabinet: the heuristic finds it among the
    # scene's 8 things, opens its way to it and brings it (or puts it where the human put the first)
    env = HandMeThatEnv([case], observability=observability)
    record = run_handmethat_episode(env, load_agent("heuristic", suite="handmethat"), case, "test")
    said = [command for command, _ in record.actions]
    assert record.goal_satisfied and record.measures["score"] > 0, said
    assert "pick up pad 0 from package" in said  # (the only package goes by its type)
    assert all(record.action_success)
    if observability == "full":  # it goes straight there
        assert said[:3] == ["move to cabinet", "open cabinet", "open package"]


def test_one_trial_then_stop() -> None:
    # the human meant the apple, but said "give me that" after handling a pad: the guess is the pad, and
    # after giving it the heuristic stops rather than guessing again
    wrong = episode(Meaning("bring_me", ()), Meaning("bring_me", (("type", "apple"),)), (("apple#0", None),))
    env = HandMeThatEnv([wrong], observability="full")
    record = run_handmethat_episode(env, load_agent("heuristic", suite="handmethat"), wrong, "test")
    said = [command for command, _ in record.actions]
    assert not record.goal_satisfied
    assert said[-2:] == ["give pad 0 to human", "stop"] and record.end_reason == "stop"


def test_change_state_is_given_up_as_theirs_does() -> None:
    soak = episode(
        Meaning("change_state", (("type", "rag"),), "soak"), Meaning("change_state", (("type", "rag"),), "soak"),
        (("rag#0", "soak"),),
    )
    env = HandMeThatEnv([soak], observability="full")
    record = run_handmethat_episode(env, load_agent("heuristic", suite="handmethat"), soak, "test")
    assert [c for c, _ in record.actions] == ["stop"]


def test_the_reader_reads_back_the_things_and_the_request() -> None:
    env = HandMeThatEnv([BRING_ME], observability="full")
    text, _ = env.reset(options={"episode": 0})
    seen = {t.name: t for view in reading.read_views(text) for t in view.things}
    truth = {n: t for n, t in BRING_ME.start_state.things.items() if t.category.movable}
    assert seen == truth  # states, colour, size, parent and relation, from the text alone
    assert reading.room_locations(text)[:3] == ["floor", "countertop", "sofa"]
    assert reading.human_picked(env.task) == ["pad#1"]
    assert reading.human_put(env.task) == [("pad#1", "table")]


def bring(*description) -> Meaning:
    return Meaning("bring_me", description)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Give me that.", [bring()]),
        ("Please hand me the red, small box.", [bring(("color", "red"), ("size", "small"), ("type", "box"))]),
        (
            "Can you put the one in the large blue package (package 0) over there.",
            [Meaning("move_to", (("inside", "package#0"),))],
        ),
        (
            "Move the uncooked food to the refrigerator.",
            [Meaning("move_to", (("cooked", False), ("class", "FOOD")), "refrigerator")],
        ),
        ("Soak the rag.", [Meaning("change_state", (("type", "rag"),), "soak")]),
        (
            "Heat up the uncooked, not soaked one on the tray.",  # the only tray: tray#0, among the things known
            [Meaning("change_state", (("ontop", "tray#0"), ("cooked", False), ("soaked", False)), "heat")],
        ),
        ("Bring me the clean pad.",
         [bring(("dusty", False), ("type", "pad")), bring(("stained", False), ("type", "pad"))]),
        ("Sing me a song.", []),
    ],
)
def test_requests_read_back_as_utterances(sentence, expected) -> None:
    assert reading.read_request(sentence, ["tray#0", "pad#1"]) == expected
