"""What the human says in HandMeThat's text game, in the wording of the authors' text env: the sentences
for its past actions, its request, and its answers to the robot's clarification questions (their
supplement D, Table 23), read off the hidden meaning.

A meaning or an utterance (`tasks.handmethat.task.Meaning`) is their triple (quest type, object description,
target): the description a mapping of specifiers (`type`/`subclass`/`class`, `color`, `size`, Boolean
states, `inside`/`ontop` a location or receptacle), the target a location (move_to) or a verb
(change_state).

Deliberate differences from their code, where it contradicts their paper: a description asking for a
toggled one says "toggled-on" (theirs says "toggled-off", and the reverse); "do you want a dusty one"
reads the word after "do you want a" (theirs reads the fifth word of the question, "a", and so never
answers it).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from homesim.language.handmethat.text import Names, label
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat.actions import HmtAction

# Their human actions' sentences (domain_human_and_robot_abstract's human-* actions; arguments after the
# human, by position, written by their labels).
HUMAN_ACTIONS = {
    "human-move": "Human moves to the {1}.",
    "human-pick-up-at-location": "Human picks up the {0} at the {1}.",
    "human-pick-up-from-receptacle-at-location": "Human picks up the {0} from the {1} at the {2}.",
    "human-put-inside-location": "Human puts the {0} into the {1}.",
    "human-put-ontop-location": "Human puts the {0} on the {1}.",
    "human-put-inside-receptacle-at-location": "Human puts the {0} into the {1}.",
    "human-put-ontop-receptacle-at-location": "Human puts the {0} on the {1}.",
    "human-open-location": "Human opens the {0}.",
    "human-close-location": "Human closes the {0}.",
    "human-open-receptacle-at-location": "Human opens the {0} at the {1}.",
    "human-close-receptacle-at-location": "Human closes the {0} at the {1}.",
    "human-toggle-on-location": "Human toggles the {0} on.",
    "human-toggle-off-location": "Human toggles the {0} off.",
    "human-toggle-on-movable-at-location": "Human toggles the {0} on at the {1}.",
    "human-toggle-off-movable-at-location": "Human toggles the {0} off at the {1}.",
    "human-heat-obj": "Human heats the {0} up with the {1}.",
    "human-cool-obj": "Human cools the {0} down in the {1}.",
    "human-slice-obj": "Human slices up the {0} with the {1} at the {2}.",
    "human-soak-obj": "Human makes the {0} soaked in the {1}.",
    "human-clean-obj-at-location": "Human cleans up the {0} with the {1} at the {2}.",
    "human-clean-location": "Human cleans up the {0} with the {1}.",
}
POSITION = ("inside", "ontop")
NAMING = ("type", "subclass", "class")
UNDONE = {"cooked": "uncooked", "frozen": "unfrozen", "sliced": "unsliced", "open": "closed", "toggled": "toggled-off"}
VERB_PARTICLE = {"toggle": " on", "clean": " up", "cool": " down", "heat": " up", "slice": " up"}  # soak, open: none
OPENERS, ASKS = ("", "please ", "can you "), ("hand me ", "bring me ", "give me ")
QUESTION_STATES = ("dusty", "cooked", "frozen", "sliced", "toggled", "soaked", "open")
SAY_IT_CLEARLY = "can you say it clearly"


def human_action(action: HmtAction) -> str:
    """ "Human picks up the pad 1 at the bed." """
    return HUMAN_ACTIONS[action.name].format(*(label(a) for a in action.args))


def description(specifiers: Mapping, names: Names) -> str:
    """ "the clean one in the large red package (package 2)", "the red, large receptacle"."""
    words = []
    for key, value in specifiers.items():
        if key in POSITION or key in NAMING:
            continue
        if key in ("color", "size"):
            words.append(value)
        elif value:
            words.append("toggled-on" if key == "toggled" else key)
        else:
            words.append(UNDONE.get(key, "clean" if key in ("dusty", "stained") else f"not {key}"))
    text = "the " + (", ".join(words) + " " if words else "")
    text += next((_name(specifiers[k], names) for k in NAMING if k in specifiers), "one")
    for key, preposition in zip(POSITION, ("in", "on")):
        if key in specifiers:
            return f"{text} {preposition} the {_name(specifiers[key], names)}"
    return text


def _name(word: str, names: Names) -> str:
    return names.sentence.get(word, word)


def request(utterance: Meaning, names: Names, rng: random.Random) -> str:
    """The request, with their random opener ("", "please ", "can you ") and, for bring_me, verb; like
    theirs, only its first letter is upper case ("Please bring me the red, large receptacle.")."""
    quest, specifiers, target = utterance.quest, utterance.details, utterance.target
    said = "it" if not specifiers else description(specifiers, names)
    opener = rng.choice(OPENERS)
    if quest == "bring_me":
        text = opener + rng.choice(ASKS) + ("that" if not specifiers else said) + "."
    elif quest == "move_to":
        if target is None:
            text = f"{opener}put {said} over there."
        else:
            text = f"{opener}{rng.choice(('move ', 'put '))}{said} to the {_name(target, names)}."
    else:  # change_state: the particle goes after a short description, before a long one
        particle = VERB_PARTICLE.get(target, "")
        text = opener + (f"{target}{particle} {said}." if len(said) >= 20 else f"{target} {said}{particle}.")
    return text.capitalize()


def task_description(actions: Sequence[HmtAction], request_sentence: str) -> str:
    """The human's past actions and its request, as the game states them before the robot's turn."""
    if actions:
        text = "\nThe human agent has taken a list of actions towards a goal, which includes:\n"
        text += "".join(human_action(a) + "\n" for a in actions)
    else:
        text = "\nYou cannot see whether the human agent has taken any actions towards the goal.\n"
    return text + f"Human stops and says, '{request_sentence}'\n"


def answer(question: str, meaning: Meaning, names: Names) -> str:
    """The human's answer to "question: ..." from the hidden meaning ("I cannot understand." if no question)."""
    asked = question.lower()
    quest, specifiers, target = meaning.quest, meaning.details, meaning.target
    if SAY_IT_CLEARLY in asked:
        return f"I mean {description(specifiers, names)}."
    if "which type do you mean" in asked:
        if "type" in specifiers:
            return f"I mean the {specifiers['type']}."
        if "subclass" in specifiers:
            return f"I just want a {specifiers['subclass']}."
        if "class" in specifiers:
            return f"I just want a {specifiers['class'].lower()}."
        return "Not any specific type."
    for attribute in ("color", "size"):
        if f"which {attribute} do you like" in asked:
            return f"The {specifiers[attribute]} one." if attribute in specifiers else f"Not any specific {attribute}."
    if "where is the object you want" in asked:
        if "inside" in specifiers:
            return f"Inside the {_name(specifiers['inside'], names)}."
        if "ontop" in specifiers:
            return f"On top of the {_name(specifiers['ontop'], names)}."
        return "Not any specific position."
    if "do you want a " in asked:
        state = asked.split("do you want a ", 1)[1].split(" ")[0]
        if state in QUESTION_STATES:
            if state not in specifiers:
                return "I don't care."
            return f"Yes, I mean the {state} one." if specifiers[state] else f"No, I mean the not {state} one."
    if "where do you want to place it" in asked and quest == "move_to":
        return f"Put it at the {_name(target, names)}."
    return "I cannot understand."
