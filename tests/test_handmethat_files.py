"""The authors' HandMeThat episode files: the 24 samples load, the human's actions replay from
`initial_object_dict` to `current_object_dict`, the goal of their text env is false where the robot
starts and true after their expert's demonstration; bad files are one clear error naming file and field."""

from __future__ import annotations

import copy
import json

import pytest

from homesim.datasets.folder import read_dataset, write_dataset
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.datasets.handmethat.files import (
    is_handmethat_file,
    read_handmethat_file,
    read_handmethat_files,
)
from homesim.errors import DataError
from homesim.tasks.handmethat.formula import holds
from homesim.world.handmethat import HUMAN, HmtAction, HmtState, step


@pytest.fixture(scope="module")
def episodes(handmethat_samples):
    read = list(read_handmethat_files(handmethat_samples))
    assert not [e for e in read if isinstance(e, DataError)]
    return read


@pytest.fixture(scope="module")
def raw(handmethat_samples):
    return json.loads((handmethat_samples / "task-bring_me-25-1-2.json").read_text())


def demo_action(state: HmtState, command: str) -> HmtAction:
    """Their demonstrations' four commands as robot actions (the text game's parser does all of them)."""
    words = command.split()

    def thing(label: list[str]) -> str:
        if len(label) == 2:
            return f"{label[0]}#{label[1]}"
        (only,) = [n for n, t in state.things.items() if t.type == label[0]]  # a unique type goes unnumbered
        return only

    here = state.robot.at
    if words[:2] == ["move", "to"]:
        return HmtAction("robot-move", (here, HUMAN if words[2] == "human" else words[2]))
    if words[0] == "give":
        return HmtAction("robot-bring-to-human", (thing(words[1:-2]), HUMAN))
    if words[0] == "open":
        target = thing(words[1:]) if len(words) > 2 or words[1] not in state.things else words[1]
        if target == here:
            return HmtAction("robot-open-location", (here,))
        return HmtAction("robot-open-receptacle-at-location", (target, here))
    if "from" in words:
        k = words.index("from")
        return HmtAction("robot-pick-up-from-receptacle-at-location", (thing(words[2:k]), thing(words[k + 1 :]), here))
    return HmtAction("robot-pick-up-at-location", (thing(words[2:]), here))


def test_every_sample_loads_with_its_request_meaning_and_level(episodes):
    assert len(episodes) == 24
    assert sorted({e.level for e in episodes}) == [1, 2, 3] and {e.quest_type for e in episodes} == {"bring_me"}
    e = next(e for e in episodes if e.id == "task-bring_me-25-1-2")
    assert e.meaning.details == {"inside": "package#2", "dusty": False, "type": "pad"}
    assert e.utterance.details == {"inside": "package#2", "dusty": False}
    assert e.objects_in_meaning == (("pad#1", None),) and e.level == 2 and len(e.human_actions) == 16
    assert e.human_actions[0] == HmtAction("human-move", ("floor", "sofa"))
    assert 200 <= min(len(e.initial_state.things) for e in episodes)


def test_the_human_actions_replay_to_the_current_object_dict(episodes, handmethat_samples):
    # the reader checks it for every file (else a DataError names current_object_dict); here, in full
    for e in episodes:
        state = e.initial_state
        for action in e.human_actions:
            state, event = step(state, action)
            assert event.success, f"{e.id}: {action}: {event.message}"
        assert state == e.start_state
        assert e.start_state.robot.at == "floor" and not e.start_state.robot.held and not e.start_state.human.held
        current = json.loads((handmethat_samples / f"{e.id}.json").read_text())["current_object_dict"]
        for name, o in current.items():
            t = state[name]
            place = next(((k, o[k]) for k in ("inside", "ontop") if k in o), (None, None))
            assert (t.relation, t.parent) == place
            assert t.states == {k for k, v in o["states"].items() if v is True}


def test_the_goal_is_false_at_the_start_and_true_after_their_expert_demonstration(episodes):
    for e in episodes:
        assert not holds(e.success, e.start_state)
        state = e.start_state
        for command in e.demo_actions:
            state, event = step(state, demo_action(state, command))
            assert event.success, f"{e.id}: {command}: {event.message}"
        assert holds(e.success, state), e.id


def test_their_hidden_goal_is_false_where_the_robot_starts(episodes):
    assert not any(holds(e.goal, e.start_state) for e in episodes)


def test_an_episode_round_trips_through_a_dataset_folder(episodes, tmp_path):
    write_dataset(tmp_path, {"test": episodes[:3]}, {}, {"from": "samples"}, suite="handmethat")
    splits, scenes = read_dataset(tmp_path, suite="handmethat")
    assert splits["test"] == episodes[:3] and scenes == {}
    assert [e.start_state for e in splits["test"]] == [e.start_state for e in episodes[:3]]
    assert HandMeThatEpisode.from_dict(json.loads(json.dumps(episodes[0].to_dict()))) == episodes[0]


def _without(objects: dict, name: str) -> None:
    """Takes a thing out of an object dict with everything in or on it."""
    for kid in [k for k, o in objects.items() if name in (o.get("inside"), o.get("ontop"))]:
        _without(objects, kid)
    del objects[name]


def _write(tmp_path, data, name="bad.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(
    "break_it, field, problem",
    [
        (lambda d: d.pop("_goal"), "_goal", "Field required"),
        (lambda d: d.update(level="two"), "level", "Input should be a valid integer"),
        (
            lambda d: d["initial_object_dict"]["pad#1"].update(type="unicorn"),
            "initial_object_dict.pad#1.type",
            "unknown object type",
        ),
        (
            lambda d: d["initial_object_dict"]["pad#1"].update(inside="nowhere"),
            "initial_object_dict.pad#1.inside",
            "one existing",
        ),
        (lambda d: d["initial_object_dict"]["pad#1"]["states"].update(open=True), "states.open", "no such state"),
        (lambda d: _without(d["initial_object_dict"], "sink"), "initial_object_dict", "no sink"),
        (lambda d: d["action_list"][0].update(name="human-fly"), "action_list.0.name", "not a human action"),
        (lambda d: d.update(_meaning=["fetch", {}, None]), "_meaning", "quest type 'fetch'"),
        (lambda d: d.update(_goal="(and (type-pad ?x)"), "_goal", "unbalanced"),
        (lambda d: d["_objects_in_meaning"].append(["ghost#9", None]), "_objects_in_meaning.1", "a thing's name"),
        # issue 33: checked by input models, so that these no longer end in a TypeError or pass unseen
        (lambda d: d["_objects_in_meaning"].append([["x"], None]), "_objects_in_meaning.1.0", "a valid string"),
        (lambda d: d["_useful_objects"].append([{}, 1]), "_useful_objects.1.0", "a valid string"),
        (lambda d: d.update(task_description=[1]), "task_description", "a valid string"),
        (lambda d: d["initial_object_dict"]["pad#1"]["states"].update(size={}), "states.size", "not a pad's size"),
        (lambda d: d["_possible_solution"].insert(0, 5), "_possible_solution.0", "a valid dictionary"),
    ],
)
def test_a_malformed_file_is_one_error_naming_the_file_and_field(raw, tmp_path, break_it, field, problem):
    data = copy.deepcopy(raw)
    break_it(data)
    path = _write(tmp_path, data)
    with pytest.raises(DataError) as error:
        read_handmethat_file(path)
    message = str(error.value)
    assert message.startswith(str(path)) and field in message and problem in message, message
    assert "\n" not in message


def test_a_file_that_is_not_json_is_named(tmp_path):
    path = _write(tmp_path, "{ not json")
    with pytest.raises(DataError, match=r"bad.json: \(file\): not valid JSON"):
        read_handmethat_file(path)
    assert not is_handmethat_file(path)


def test_an_episode_whose_human_actions_fail_names_the_action_and_why(raw, tmp_path):
    data = copy.deepcopy(raw)
    del data["action_list"][0]  # the human never went to the sofa, so cannot pick the ribbon up there
    with pytest.raises(DataError) as error:
        read_handmethat_file(_write(tmp_path, data))
    assert "action_list.0" in str(error.value)
    assert "human-pick-up-at-location(ribbon#0, sofa) fails: the human is at floor, not at sofa" in str(error.value)


def test_an_action_list_that_ends_elsewhere_than_the_current_state_is_refused(raw, tmp_path):
    data = copy.deepcopy(raw)
    data["current_object_dict"]["pad#0"]["ontop"] = "sofa"
    with pytest.raises(DataError, match="current_object_dict: the human's actions replay to another state: pad#0"):
        read_handmethat_file(_write(tmp_path, data))


def test_a_folder_streams_good_episodes_and_errors(raw, tmp_path):
    _write(tmp_path, raw, "a.json")
    _write(tmp_path, {"initial_object_dict": {}}, "b.json")
    read = list(read_handmethat_files(tmp_path))
    assert isinstance(read[0], HandMeThatEpisode) and isinstance(read[1], DataError)
    assert is_handmethat_file(tmp_path / "a.json")
