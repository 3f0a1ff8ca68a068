"""HandMeThat's heuristic baseline (their paper, section 4.1; supplement E): the robot grounds the request to
the things it can mean, guesses among them by the heuristic that the human wants things of the kinds
it has been handling (the types it picked up, not the things themselves), and plans to the guess: one
trial, no second guess.

Unlike theirs, which reads the game's state and the utterance's formula (so it was run fully observable
only), this one plays through the text alone (`homesim.language.handmethat.reading`): it reads the
things from the views, the human's actions and request from the task, and says commands. Fully
observable, it sees everything at the start but what closed things hold at its own place; partially
observable, it first looks around: it visits the locations (those the request and the human's actions
name first), opening closed ones, until it has seen a thing of a handled type that fits the request, or
every location. Closed receptacles it has not seen inside it opens when the request names one as the
thing's place, or, while nothing of a handled type fits, any (until step `LOOK_INTO_UNTIL`). Like theirs
it plans for bring_me and move_to (pick up, then give, or put on the target the request names or, for
"over there", where the human put a thing of the same type, else any thing) and gives up (`stop`) on
change_state.
"""

from __future__ import annotations

import random

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.language.handmethat import reading as reading
from homesim.language.handmethat.text import label
from homesim.language.handmethat.utterances import fits
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat.catalog import handmethat_catalog
from homesim.world.handmethat.state import HUMAN, Thing

STOP = "stop"
LOOK_INTO_UNTIL = 25  # partially observable: closed receptacles are opened to look for a thing until this step


class HandMeThatHeuristicAgent:
    """The paper's heuristic over the text game (`homesim evaluate --suite handmethat --agent heuristic`)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.reset(TaskSpec(episode_id="", goal="", instructions=()))

    def reset(self, task: TaskSpec) -> None:
        self.rng = random.Random(f"{self.seed}/{task.episode_id}")
        self.task = task.goal
        self.things: dict[str, Thing] = {}  # every thing seen, as last seen
        self.where: dict[str, str] = {}  # thing -> the location it was last seen at
        self.locations: list[str] = []
        self.visited: set[str] = set()
        self.hidden: set[str] = set()  # locations last seen closed
        self.unseen_inside: set[str] = set()  # closed receptacles seen only from outside
        self.at, self.holding, self.said = "floor", "", ""
        self.guess: tuple[str, str | None] | None = None  # (thing, place), once made; ("", None): nothing fits
        self.done = False
        self.step = 0

    # --- reading -----------------------------------------------------------------------------------

    def _read(self, observation: dict) -> None:
        text = observation.get("text", "")
        if not self.locations:
            self.task = self.task or observation.get("task", "")
            self.locations = reading.room_locations(text)
        if self.said and observation.get("last_action_success"):
            if self.said.startswith("move to "):
                self.at = self.said[len("move to ") :]
            elif self.said.startswith("pick up ") and self.guess:
                self.holding = self.guess[0]
        here = reading.robot_at(text)
        for view in reading.read_views(text):
            self.visited.add(view.name)
            for thing in view.things:  # the robot's own place hides what closed things hold (both settings)
                if thing.category.can("openable") and not thing.is_("open") and view.name == here:
                    self.unseen_inside.add(thing.name)
                else:
                    self.unseen_inside.discard(thing.name)
            if view.hidden:
                self.hidden.add(view.name)
                continue
            self.hidden.discard(view.name)
            for name in [n for n, loc in self.where.items() if loc == view.name]:
                del self.where[name]
            for thing in view.things:
                self.things[thing.name] = thing
                self.where[thing.name] = view.name

    def _request(self) -> list[Meaning]:
        return reading.read_request(reading.request_sentence(self.task), self.things)

    # --- the heuristic -----------------------------------------------------------------------------

    def _candidates(self, request: list[Meaning]) -> tuple[list[str], list[str]]:
        """The seen things the request can mean (A(u) as far as seen), and those of them of a type the
        human picked up that it did not pick up itself."""
        seen = [t for n, t in self.things.items() if n in self.where]
        fitting = sorted(t.name for t in seen if any(fits(t, m.details) for m in request))
        picked = reading.human_picked(self.task)
        handled = {n.split("#")[0] for n in picked}
        return fitting, [n for n in fitting if n.split("#")[0] in handled and n not in picked]

    def _places(self, request: list[Meaning], thing: str) -> list[str | None]:
        """Where the thing goes, as far as seen: [None] for bring_me (the human); for move_to the request's
        target or, for "over there", where the human put things of the thing's type, else where it put
        anything, else what it opened."""
        if request[0].quest == "bring_me":
            return [None]
        put = reading.human_put(self.task)
        kind = thing.split("#")[0]
        for targets in (
            [m.target for m in request if m.target is not None],
            [p for t, p in put if t.split("#")[0] == kind],
            [p for _, p in put],
            reading.human_opened(self.task),
        ):
            seen = sorted({p for p in targets if p in self.locations or p in self.where})
            if seen:
                return seen
        return []

    def _guess(self, request: list[Meaning]) -> tuple[str, str | None] | None:
        """The one guess (thing, place), or None to look around first."""
        fitting, preferred = self._candidates(request)
        if not preferred and not self._explored(request):
            return None
        pool = preferred or fitting
        if not pool:
            return ("", None)
        thing = self.rng.choice(pool)
        places = self._places(request, thing)
        if not places and not self._explored(request):
            return None
        return (thing, self.rng.choice(places)) if places else ("", None)

    def _explored(self, request: list[Meaning]) -> bool:
        return all(loc in self.visited for loc in self.locations) and not self._closed(request)

    def _closed(self, request: list[Meaning]) -> list[str]:
        """The closed receptacles seen, with nothing seen in them, to look into: those the request names as
        the thing's place and, while no thing of a handled type fits and the steps allow, any."""
        named = {v for m in request for k, v in m.description if k in ("inside", "ontop")}
        if self.step < LOOK_INTO_UNTIL and not self._candidates(request)[1]:
            named |= {n for n, t in self.things.items() if t.category.can("openable")}
        closed = [n for n in named & self.unseen_inside if n in self.where]
        return sorted(closed, key=lambda n: (self.where[n] != self.at, self.locations.index(self.where[n]), n))

    def _explore(self, request: list[Meaning], admissible: set[str]) -> str:
        """The next location to look at: those the request names, where the human went, then the rest."""
        named = [p for m in request for p in (m.target, *(v for _, v in m.description)) if isinstance(p, str)]
        went = [line[19:-1] for line in self.task.splitlines() if line.startswith("Human moves to the ")]
        for loc in dict.fromkeys([*named, *reversed(went), *self.locations]):
            if loc in self.locations and loc not in self.visited:
                return f"move to {loc}"
        for receptacle in self._closed(request):  # (fully observable: the robot's own place hides them)
            if self.at != self.where[receptacle]:
                return f"move to {self.where[receptacle]}"
            command = _first([f"open {self.at}", *(f"open {a}" for a in _forms(receptacle))], admissible)
            if command != f"open {self.at}":
                self.unseen_inside.discard(receptacle)  # (one try)
            return command
        return STOP

    # --- acting ------------------------------------------------------------------------------------

    def act(self, observation: dict) -> AgentAction:
        self.step = observation.get("step", 0)
        self._read(observation)
        self.said = self._next(observation.get("text", ""), set(observation.get("admissible_commands", ())))
        return AgentAction(self.said)

    def _next(self, text: str, admissible: set[str]) -> str:
        if self.done:
            return STOP
        request = self._request()
        if not request or request[0].quest == "change_state":
            return STOP
        if self.guess is None:
            if self.at in self.hidden:  # looking around: see inside
                return f"open {self.at}"
            if self.said.startswith("open ") and not reading.read_views(text):
                return "look"  # (fully observable: an answer shows no view)
            self.guess = self._guess(request)
            if self.guess is None:
                return self._explore(request, admissible)
        thing, place = self.guess
        if not thing:
            return STOP
        if self.holding != thing:
            return self._fetch(thing, admissible)
        command = self._deliver(thing, place, admissible)
        self.done = command.startswith(("give ", "put "))
        return command

    def _fetch(self, thing: str, admissible: set[str]) -> str:
        """The next command towards holding `thing`: go where it was seen, open what hides it, pick it up."""
        loc = self.where[thing]
        if self.at != loc:
            return f"move to {loc}"
        parent = self.things[thing].parent
        picks = [f"pick up {a}" for a in _forms(thing)]
        if parent != loc:
            picks = [f"{p} from {b}" for p in picks for b in _forms(parent)]
        return _first([*picks, f"open {loc}", *(f"open {b}" for b in _forms(parent))], admissible)

    def _deliver(self, thing: str, place: str | None, admissible: set[str]) -> str:
        """The next command towards giving `thing` to the human (bring_me) or putting it at `place`."""
        if place is None:
            if self.at != HUMAN:
                return f"move to {HUMAN}"
            return _first([f"give {a} to {HUMAN}" for a in _forms(thing)], admissible)
        loc = place if place in self.locations else self.where[place]
        if self.at != loc:
            return f"move to {loc}"
        preposition = "into" if handmethat_catalog()[place.split("#")[0]].holds_inside else "onto"
        puts = [f"put {a} {preposition} {b}" for a in _forms(thing) for b in _forms(place)]
        return _first([*puts, f"open {loc}", *(f"open {b}" for b in _forms(place))], admissible)


def _forms(name: str) -> list[str]:
    """How a command may name a thing: its label, or its bare type when it is the only one of its type."""
    return [label(name), name.split("#")[0]] if "#" in name else [name]


def _first(commands: list[str], admissible: set[str]) -> str:
    """The first of the commands that can be done now; stop when none can (one trial)."""
    return next((c for c in commands if c in admissible), STOP)
