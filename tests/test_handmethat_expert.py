"""HandMeThat's expert: it succeeds on the 24 samples in as many actions as the authors' expert, and from
any state (after random robot actions) on every quest type and change_state verb."""

from __future__ import annotations

import random

import pytest
from handmethat_fixtures import small_world

from homesim.datasets.handmethat.files import read_handmethat_files
from homesim.planning.alfred.expert import Unrecoverable
from homesim.planning.handmethat.expert import next_action, plan
from homesim.tasks.handmethat.task import Meaning, meaning_satisfied
from homesim.world.handmethat import HUMAN, HmtAction, HmtState, applicable_actions, step


@pytest.fixture(scope="module")
def episodes(handmethat_samples):
    return list(read_handmethat_files(handmethat_samples))


def names(episode) -> list[str]:
    return [o for o, _ in episode.objects_in_meaning]


def execute(state: HmtState, actions) -> HmtState:
    for a in actions:
        state, event = step(state, a)
        assert event.success, f"{a}: {event.message}"
    return state


def wander(state: HmtState, steps: int, rng: random.Random) -> HmtState:
    for _ in range(steps):
        state, _ = step(state, rng.choice(applicable_actions(state)))
    return state


def test_the_expert_solves_every_sample_as_briefly_as_theirs(episodes):
    for e in episodes:
        actions = plan(e.meaning, names(e), e.start_state)
        assert meaning_satisfied(e.meaning, names(e), execute(e.start_state, actions)), e.id
        assert len(actions) == len(e.demo_actions), e.id


def test_the_expert_solves_every_sample_from_states_off_the_demonstration(episodes):
    rng = random.Random(0)
    for e in episodes:
        for _ in range(3):
            state = wander(e.start_state, rng.randrange(1, 25), rng)
            end = execute(state, plan(e.meaning, names(e), state))
            assert meaning_satisfied(e.meaning, names(e), end), e.id


def test_next_action_replans_each_step_and_is_none_once_achieved(episodes):
    e = episodes[1]
    state, taken = e.start_state, 0
    while (action := next_action(e.meaning, names(e), state)) is not None:
        state, event = step(state, action)
        assert event.success
        taken += 1
    assert taken == len(e.demo_actions) and meaning_satisfied(e.meaning, names(e), state)


QUESTS = [
    (Meaning("bring_me", (("type", "pad"),)), ["pad#0"]),  # in a closed package in a closed cabinet
    (Meaning("move_to", (("type", "pad"),), "box#0"), ["pad#0"]),  # into a closed box on the table
    (Meaning("move_to", (("type", "cookie"),), "refrigerator"), ["cookie#0"]),
    (Meaning("change_state", (("type", "apple"),), "heat"), ["apple#0"]),
    (Meaning("change_state", (("type", "beef"),), "cool"), ["beef#0"]),
    (Meaning("change_state", (("type", "rag"),), "soak"), ["rag#0"]),
    (Meaning("change_state", (("type", "apple"),), "slice"), ["apple#0"]),
    (Meaning("change_state", (("type", "pad"),), "clean"), ["pad#0"]),  # with a rag, soaked first
    (Meaning("change_state", (("type", "floor"),), "clean"), ["floor"]),
    (Meaning("change_state", (("type", "package"),), "open"), ["package#0"]),
    (Meaning("change_state", (("type", "cabinet"),), "open"), ["cabinet"]),
    (Meaning("change_state", (("type", "printer"),), "toggle"), ["printer#0"]),
    (Meaning("change_state", (("type", "stove"),), "toggle"), ["stove"]),
]


@pytest.mark.parametrize("meaning, objects", QUESTS, ids=[f"{m.quest}-{m.target}-{o[0]}" for m, o in QUESTS])
def test_every_quest_and_verb_from_the_start_and_from_wandering(meaning, objects):
    rng = random.Random(1)
    start = small_world()
    for state in [start, *(wander(start, rng.randrange(5, 40), rng) for _ in range(8))]:
        if meaning_satisfied(meaning, objects, state):
            assert plan(meaning, objects, state) == []
            continue
        end = execute(state, plan(meaning, objects, state))
        assert meaning_satisfied(meaning, objects, end)


@pytest.mark.parametrize("meaning, objects", QUESTS, ids=[f"{m.quest}-{m.target}-{o[0]}" for m, o in QUESTS])
def test_every_quest_is_finished_when_the_plan_is_made_again_after_each_action(meaning, objects):
    """As the live expert plays: a plan made midway goes on (soaking a rag already in the sink does not
    take it out and put it back)."""
    state = small_world()
    for _ in range(30):
        action = next_action(meaning, objects, state)
        if action is None:
            break
        state, event = step(state, action)
        assert event.success
    assert meaning_satisfied(meaning, objects, state)

def test_a_target_in_a_hand_is_set_down_first():
    start = small_world()
    for steps in (
        [("move", "floor", "table"), ("pick-up-at-location", "box#0", "table")],  # the robot holds the target
        [("move", "floor", "table"), ("pick-up-at-location", "box#0", "table"), ("move", "table", HUMAN),
         ("bring-to-human", "box#0", HUMAN)],  # the human does
    ):  # fmt: skip
        state = execute(start, [HmtAction(f"robot-{verb}", args) for verb, *args in steps])
        meaning = Meaning("move_to", (("type", "pad"),), "box#0")
        end = execute(state, plan(meaning, ["pad#1"], state))
        assert meaning_satisfied(meaning, ["pad#1"], end)


def test_the_shortest_of_several_fitting_objects_is_chosen():
    pads = plan(Meaning("bring_me", (("type", "pad"),)), ["pad#0", "pad#1"], small_world())
    assert [str(a) for a in pads][:2] == ["robot-move(floor, sofa)", "robot-pick-up-at-location(pad#1, sofa)"]


def test_an_impossible_meaning_is_unrecoverable_with_the_reason():
    with pytest.raises(Unrecoverable, match="pad#1 is not cookable"):
        plan(Meaning("change_state", (), "heat"), ["pad#1"], small_world())
    with pytest.raises(Unrecoverable, match="pad#0 is not toggleable"):
        plan(Meaning("change_state", (), "toggle"), ["pad#0"], small_world())
    assert plan(Meaning("change_state", (), "clean"), ["knife#0"], small_world()) == []  # never dirty
    with pytest.raises(Unrecoverable, match="there is no ghost#0"):
        plan(Meaning("bring_me", ()), ["ghost#0"], small_world())
