"""HandMeThat episodes written in the authors' JSON: the 24 samples read and written again give back their
fields (the human's plan, A(u), A(m), A(g), the level, the listener's reading and A(r), ...) in their order;
a malformed set is a one-line error naming the field."""

from __future__ import annotations

import json

import pytest

from homesim.datasets.handmethat.export import episode_to_json
from homesim.datasets.handmethat.files import episode_from_json, read_handmethat_file
from homesim.errors import DataError


def test_the_samples_come_back_field_for_field(handmethat_samples) -> None:
    files = sorted(handmethat_samples.glob("*.json"))
    assert len(files) == 24
    for file in files:
        theirs = json.loads(file.read_text())
        ours = json.loads(json.dumps(episode_to_json(read_handmethat_file(file))))
        assert list(ours) == [k for k in theirs if k in ours], file.name  # their order
        assert {"_rsa_meaning", "_objects_in_utterance", "_useful_objects", "_possible_solution"} <= set(ours)
        for key, value in ours.items():
            if key.endswith("object_dict"):  # (abilities are listed sorted, theirs in their hierarchy's order)
                for name, thing in value.items():
                    assert thing | {"ability": None} == theirs[key][name] | {"ability": None}
                    assert thing["ability"] == sorted(theirs[key][name]["ability"])
            else:
                assert value == theirs[key], (file.name, key)


@pytest.mark.parametrize(
    ("key", "bad", "message"),
    [
        ("_useful_objects", [["no_such#9", None]], "_useful_objects.0: 'no_such#9' is not a thing's name"),
        ("_rsa_meaning", ["bring_me"], "_rsa_meaning: expected [quest type, description object, target]"),
        ("_possible_solution", [{"name": "robot-move"}], "_possible_solution.0.arguments: Field required"),
    ],
)
def test_a_malformed_reading_is_a_one_line_error(handmethat_samples, key, bad, message) -> None:
    data = json.loads(next(iter(sorted(handmethat_samples.glob("*.json")))).read_text())
    with pytest.raises(DataError) as error:
        episode_from_json("sample.json", data | {key: bad}, "sample")
    assert message in str(error.value) and "\n" not in str(error.value)
