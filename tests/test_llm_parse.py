"""The lenient parser on what language models write in ALFWorld (0.3's `put X in/on Y`, 0.4's `move X to Y`)
and HandMeThat: ReAct's "Action:" lines, ALFWorld's ">" prompts, articles, plurals, number words, quotes,
markdown, commands without their numbers; and what it refuses (an object that is not there, prose)."""

from __future__ import annotations

import pytest

from homesim.llm.parse import REPLY_READ, Parser, action_text

V04 = ["go to countertop 1", "go to countertop 2", "go to fridge 1", "go to microwave 1", "open fridge 1",
       "take apple 1 from countertop 1", "take mug 2 from countertop 1", "move apple 1 to countertop 1",
       "heat apple 1 with microwave 1", "examine apple 1", "inventory", "look", "use desklamp 1"]  # fmt: skip
V03 = [c.replace("move apple 1 to countertop 1", "put apple 1 in/on countertop 1") for c in V04]
HANDMETHAT = ["move to cabinet", "move to human", "pick up pad 1", "give pad 1 to human", "open box 0", "look",
              "question: which color do you like", "stop"]  # fmt: skip

PHRASINGS = [  # (commands, reply, the command it is, how)
    (V04, "go to fridge 1", "go to fridge 1", "exact"),
    (V04, "> go to fridge 1", "go to fridge 1", "exact"),
    (V04, "Go to the fridge 1.", "go to fridge 1", "normalised"),
    (
        V04,
        "Thought: the apple is hot now.\nAction: move apple 1 to countertop 1",
        "move apple 1 to countertop 1",
        "exact",
    ),
    (V04, "think: I should heat it.\n> heat apple 1 with microwave 1", "heat apple 1 with microwave 1", "exact"),
    (V04, "put apple 1 in/on countertop 1", "move apple 1 to countertop 1", "normalised"),  # 0.3's words in 0.4
    (V03, "move apple 1 to countertop 1", "put apple 1 in/on countertop 1", "normalised"),  # and the other way
    (V03, "put apple 1 on countertop 1", "put apple 1 in/on countertop 1", "normalised"),
    (V04, "Place the apple 1 on the countertop 1", "move apple 1 to countertop 1", "normalised"),
    (V04, "pick up apple 1 from countertop 1", "take apple 1 from countertop 1", "normalised"),
    (V04, "take the mugs 2 from the countertop 1", "take mug 2 from countertop 1", "normalised"),
    (V04, "take apple one from countertop one", "take apple 1 from countertop 1", "normalised"),
    (V04, "take apple1 from countertop1", "take apple 1 from countertop 1", "normalised"),
    (V04, "Action: `open fridge 1`", "open fridge 1", "normalised"),
    (V04, "**Action:** examine apple 1", "examine apple 1", "exact"),
    (V04, 'ACTION: "inventory"', "inventory", "normalised"),
    (V04, "go to fridge", "go to fridge 1", "unnumbered"),  # one fridge: its number left out
    (V04, "turn on desklamp 1", "use desklamp 1", "normalised"),
    (HANDMETHAT, "Action: move to the cabinet", "move to cabinet", "normalised"),
    (HANDMETHAT, "give the pad 1 to the human.", "give pad 1 to human", "normalised"),
    (HANDMETHAT, "Question: which color do you like?", "question: which color do you like", "normalised"),
]
REFUSED = [  # (commands, reply, why)
    (V04, "go to countertop", "not_admissible"),  # two countertops: which?
    (V04, "go to fridge 2", "not_admissible"),  # no such fridge
    (V04, "take banana 1 from countertop 1", "not_admissible"),
    (V04, "I am not sure what to do here, sorry.", "unparseable"),
    (V04, "", "unparseable"),
    (V04, "Thought: hmm.", "unparseable"),
]


@pytest.mark.parametrize(("commands", "reply", "command", "how"), PHRASINGS)
def test_a_phrasing_maps_to_its_command(commands, reply, command, how):
    parsed = Parser().parse(reply, commands, "stop")
    assert (parsed.command, parsed.how) == (command, how)


@pytest.mark.parametrize(("commands", "reply", "why"), REFUSED)
def test_what_names_no_possible_command_is_an_invalid_action_with_its_text(commands, reply, why):
    parsed = Parser().parse(reply, commands, "stop")
    assert parsed.command is None and parsed.how == why
    assert parsed.said == action_text(reply)


def test_stop_is_understood_and_a_megabyte_is_read_only_so_far():
    assert Parser().parse("Action: Stop.", V04, "Stop").command == "Stop"
    huge = "go to fridge 1 " + "blah " * 200_000
    parsed = Parser().parse(huge, V04, "Stop")
    assert parsed.command is None and len(parsed.said) <= REPLY_READ
    assert Parser().parse("x" * 10 + "\nAction: look\n" + "y" * 2_000_000, V04, "Stop").command == "look"
