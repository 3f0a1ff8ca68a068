"""What the robot reads in HandMeThat's text game, in the wording of the authors' text env (their paper's
Table 19; the samples' `demo_observations_*` are the reference text): the room, what it sees at a
location, what it holds, and what each of its actions did.

Their text is kept to the character, quirks included, because their models were trained on it:

* a thing is written with its states first, each after one space (" red small closed box 0"), so a
  list reads "you can see  pad 0,  sock 1" with two spaces; colour comes before size there, while a
  receptacle's name in a sentence puts size first ("the large red package (package 2)");
* in a sentence a thing goes by its type when it is the only one of its type in the scene ("the pad"),
  else by type and label ("the pad (pad 0)"); labels are their names with "#" read as a space;
* a location lists what is directly in or on it, then, for each receptacle there, what that holds; a
  closed container (location or receptacle) hides its contents in the partially observable setting;
  in the fully observable setting every other location is listed too, but the robot's own location is
  listed as in the partial one (their env's behaviour, kept).

Their recorder of demonstrations removed the commas from the env's messages; `without_commas` does that.

Where homesim differs, on purpose: the view is written from the world's state, while their env keeps a
copy of the objects that some actions forget to update (after heating, the appliance still shows
toggled-on; after cleaning a thing, it still shows stained); and failures say what their code says
("You are not able to do so.", "I cannot understand."), not their paper's Table 19 ("You can't do
that.", "I can't understand.").
"""

from __future__ import annotations

import operator

from homesim.world.handmethat.state import HUMAN, HmtState, Thing

NOT_ABLE = "You are not able to do so."
NOT_UNDERSTOOD = "I cannot understand."
GOAL_REACHED = "\nYou reach the goal!\n"
STOPPED = "You stop the game.\n"
TURN = "Now it is your turn to help human to achieve the goal!\n"

# What each robot action says it did: a template over its arguments' sentence names (their robot_domain's
# actions; the robot, the first argument, is left out).
FEEDBACK = {
    "robot-move": "You move from the {0} to the {1}.",
    "robot-pick-up-at-location": "You pick up the {0} from the {1}.",
    "robot-pick-up-from-receptacle-at-location": "You pick up the {0} from the {1} at the {2}.",
    "robot-put-inside-location": "You put the {0} into the {1}.",
    "robot-put-ontop-location": "You put the {0} on the {1}.",
    "robot-put-inside-receptacle-at-location": "You put the {0} into the {1} at the {2}.",
    "robot-put-ontop-receptacle-at-location": "You put the {0} on the {1} at the {2}.",
    "robot-bring-to-human": "You give the {0} to human.",
    "robot-take-from-human": "You take the {0} from human.",
    "robot-open-location": "You open the {0}.",
    "robot-close-location": "You close the {0}.",
    "robot-open-receptacle-at-location": "You open the {0}.",
    "robot-close-receptacle-at-location": "You close the {0}.",
    "robot-toggle-on-location": "You toggle the {0} on.",
    "robot-toggle-off-location": "You toggle the {0} off.",
    "robot-toggle-on-movable-at-location": "You toggle the {0} on.",
    "robot-toggle-off-movable-at-location": "You toggle the {0} off.",
    "robot-heat-obj": "You heat the {0} up with the {1}.",
    "robot-cool-obj": "You cool the {0} down with the {1}.",
    "robot-slice-obj": "You slice up the {0} with the {1}.",
    "robot-soak-obj": "You make the {0} soaked in the {1}.",
    "robot-clean-obj-at-location": "You clean up the {0} with the {1}.",
    "robot-clean-location": "You clean up the {1} with the {0}.",  # (tool, location)
}


def label(name: str) -> str:
    """A thing's label in the text: "pad#1" -> "pad 1" (a location's name is its label)."""
    return name.replace("#", " ")


def without_commas(text: str) -> str:
    return text.replace(",", "")


def states_phrase(thing: Thing) -> str:
    """Its colour and size, then its states, each after a space: " red small closed dusty" ("" if none).
    A state that is false is written only for open ("closed") and toggled ("toggled-off")."""
    words = [a for a in (thing.color, thing.size) if a is not None]
    for state in thing.has_states:
        if state in thing.states:
            words.append("toggled-on" if state == "toggled" else state)
        elif state == "open":
            words.append("closed")
        elif state == "toggled":
            words.append("toggled-off")
    return "".join(" " + w for w in words)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


class Names:
    """How one scene's things are named in sentences (the names do not change during an episode)."""

    def __init__(self, state: HmtState) -> None:
        counts: dict[str, int] = {}
        for thing in state.things.values():
            counts[thing.type] = counts.get(thing.type, 0) + 1
        self.sentence: dict[str, str] = {HUMAN: "human"}
        self.unique: dict[str, str] = {}  # type -> the one thing of that type
        for name, thing in state.things.items():
            if counts[thing.type] == 1:
                self.unique[thing.type] = name
                text = thing.type
            else:
                text = f"{thing.type} ({label(name)})"
            if thing.category.cls == "RECEPTACLE":
                text = "".join(f"{a} " for a in (thing.size, thing.color) if a is not None) + text
            self.sentence[name] = text
        self.by_label = {label(name): name for name in state.things} | {HUMAN: HUMAN}
        self.receptacles = frozenset(n for n, t in state.things.items() if t.category.cls == "RECEPTACLE")

    def __getitem__(self, name: str) -> str:
        return self.sentence[name]

    def command_label(self, name: str) -> str:
        """How a command names a thing: its bare type when it is the only one ("ball"), else its label."""
        thing_type = name.split("#")[0]
        return thing_type if self.unique.get(thing_type) == name else label(name)


def _hidden(thing: Thing, fully: bool) -> bool:
    return not fully and thing.category.can("openable") and "open" not in thing.states


def human_holding(state: HmtState, names: Names) -> str:
    return ", ".join(f"the {names[n]}" for n in state.human.held) or "nothing"


class Viewer:
    """What the robot sees in one episode's scene (`look`).

    The robot looks every step in the partially observable setting, and a location's view changes only
    when something it shows does; so each view is remembered with the things it shows (the location, what
    is in or on it, and what is in or on the receptacles there) and reused while they are the same objects
    (things are immutable: a changed thing is a new object). Entries keep those things alive, so an
    identity cannot be reused while it is remembered. Each thing's listing is remembered the same way."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self._views: dict[tuple[str, bool], tuple[list, str]] = {}
        self._listed: dict[int, tuple[Thing, str]] = {}

    def _listing(self, shown: list[Thing]) -> str:
        written = []
        for thing in shown:
            entry = self._listed.get(id(thing))
            if entry is None or entry[0] is not thing:
                entry = self._listed[id(thing)] = (thing, f"{states_phrase(thing)} {label(thing.name)}")
            written.append(entry[1])
        return ", ".join(written)

    def _shown(self, state: HmtState, location: str, fully: bool) -> list:
        """What a location's view shows, in its order: the location, what is in or on it, and for each
        receptacle there the tuple of its contents (contents tuples are rebuilt when they change) and
        the things in it (a receptacle's own thing tells whether it is open)."""
        things, receptacles = state.things, self.names.receptacles
        shown: list = [things[location]]
        if _hidden(shown[0], fully):
            return shown
        inside = state.contents(location)
        shown += map(things.__getitem__, inside)
        for n in inside:
            if n in receptacles:
                held = state.contents(n)
                shown.append(held)  # where one receptacle's contents end and the next one's begin
                shown += map(things.__getitem__, held)
        return shown

    def location(self, state: HmtState, location: str, fully: bool) -> str:
        """ "\nYou see dusty floor.\nOn floor you can see  blue highchair 0, ... In bucket 0 you can see  soap 1. " """
        shown = self._shown(state, location, fully)
        entry = self._views.get((location, fully))
        if entry is not None and len(entry[0]) == len(shown) and all(map(operator.is_, entry[0], shown)):
            return entry[1]
        thing = shown[0]
        text = f"\nYou see{states_phrase(thing)} {location}.\n"
        if not _hidden(thing, fully):
            inside = state.contents(location)
            text += f"{'In' if thing.category.holds_inside else 'On'} {location} you can see "
            text += self._listing(shown[1 : 1 + len(inside)]) if inside else "nothing"
            text += ". " + "".join([self._receptacle(state, n, fully) for n in inside if n in self.names.receptacles])
        self._views[location, fully] = (shown, text)
        return text

    def _receptacle(self, state: HmtState, name: str, fully: bool) -> str:
        thing, inside = state.things[name], state.contents(name)
        if _hidden(thing, fully) or not inside:
            return ""
        where = "In" if thing.category.holds_inside else "On"
        return f"{where} {label(name)} you can see {self._listing([state.things[n] for n in inside])}. "

    def look(self, state: HmtState, fully: bool) -> str:
        """What `look` shows: where the robot is and what it sees there; in the fully observable setting
        then every other location (in the scene's order) and what the human holds. The robot's own
        location is shown as in the partial setting, closed containers hidden (their env's behaviour)."""
        at, names = state.robot.at, self.names
        if at == HUMAN:
            text = f"\nYou are in front of the human, who is currently holding {human_holding(state, names)}.\n"
        else:
            text = f"\nYou are at the {at}.\n" + self.location(state, at, False)
        if fully:
            text += "".join([self.location(state, loc, True) for loc in state.locations if loc != at])
            if at != HUMAN:
                text += f"\nHuman is currently holding {human_holding(state, names)}.\n"
        return text


def inventory(state: HmtState, task_description: str) -> str:
    held = state.robot.held
    if held:
        thing = state.things[held[0]]
        text = f"You are holding {states_phrase(thing)} {label(held[0])}.\n"
    else:
        text = "You are holding nothing.\n"
    return text + "Recall your task:\n" + task_description


def room(state: HmtState) -> str:
    """ "In the room, there is the human, a countertop, ..., an oven, ..., a pool.\\n" (the floor left out)."""
    parts = ["the human"] + [f"{article(loc)} {loc}" for loc in state.locations if loc != "floor"]
    return "In the room, there is " + ", ".join(parts) + ".\n"


def feedback(action: str, args: tuple[str, ...], names: Names) -> str:
    """What a robot action that worked says (`args` without the robot)."""
    return FEEDBACK[action].format(*(names[a] for a in args))


HELP = (
    "The valid actions you can perform:\n"
    "move to [LOCATION];\n"
    "pick up [MOVABLE];\n"
    "pick up [MOVABLE] from [RECEPTACLE];\n"
    "put [MOVABLE] into [RECEPTACLE/LOCATION];\n"
    "put [MOVABLE] onto [RECEPTACLE/LOCATION];\n"
    "take [MOVABLE] from human;\n"
    "give [MOVABLE] to human;\n"
    "open [RECEPTACLE/LOCATION];\n"
    "close [RECEPTACLE/LOCATION];\n"
    "toggle on [TOGGLEABLE];\n"
    "toggle off [TOGGLEABLE];\n"
    "heat [COOKABLE];\n"
    "cool [FREEZABLE];\n"
    "soak [SOAKABLE];\n"
    "slice [SLICEABLE] with [TOOL];\n"
    "clean [CLEANABLE] with [TOOL].\n"
    "\nThe valid questions you can ask:\n"
    "question: can you say it clearly;\n"
    "question: which type do you mean;\n"
    "question: which [color/size] do you like;\n"
    "question: where is the object you want;\n"
    "question: do you want a [dusty/cooked/frozen/sliced/toggled/soaked/open] one;\n"
    "question: where do you want to place it.\n"
)
