"""HandMeThat's symbolic world state: every object of the scene (the 16 locations and the movable things),
its Boolean states, static attributes and direct parent, and the two agents, human and robot, of one state.

Every fact is stored once: a thing's place is its `parent` and `relation` (direct parents only, as the
paper's Table 8 says: an apple in a bowl on the table is in the bowl, not on the table), what an agent
holds is its `held` (a held thing has no parent; things in it keep it as their parent). `contents` is
an index of the parents, derived and cached, never stored.

The robot stands at a location or at the human (`HUMAN`, their text env's "move to human"); the human
stands at a location. The robot holds at most one thing; the human, given things, may hold several.
"""

from __future__ import annotations

import hashlib
import json
from bisect import insort
from dataclasses import dataclass, field

from homesim.world.handmethat.catalog import Category, HmtCatalog, handmethat_catalog

HUMAN = "human"  # where the robot stands when it is in front of the human
INSIDE, ONTOP = "inside", "ontop"
AGENTS = ("robot", "human")


@dataclass(frozen=True, slots=True)
class Thing:
    """One object: a location (`floor`) or a movable thing (`pad#1`)."""

    name: str
    category: Category
    states: frozenset[str] = frozenset()  # the Boolean states that hold (of those its abilities allow)
    size: str | None = None
    color: str | None = None
    parent: str | None = None  # what it is directly in or on: None for a location and for a held thing
    relation: str | None = None  # INSIDE or ONTOP, with `parent`

    @property
    def type(self) -> str:
        return self.category.type

    @property
    def has_states(self) -> tuple[str, ...]:
        """The Boolean states it can have, in their files' order."""
        return self.category.boolean_states

    def is_(self, state: str) -> bool:
        return state in self.states


@dataclass(frozen=True, slots=True)
class Agent:
    at: str  # a location's name, or HUMAN (the robot in front of the human)
    held: tuple[str, ...] = ()

    @property
    def hand_empty(self) -> bool:
        return not self.held


@dataclass(frozen=True, eq=False)
class HmtState:
    """The whole world: things by name (in their file's order, which their text lists things in) and the
    two agents. Immutable; a step builds a new state sharing every unchanged thing."""

    things: dict[str, Thing]
    robot: Agent
    human: Agent
    _index: dict[str, tuple[str, ...]] | None = field(default=None, repr=False)
    _shared: dict | None = field(default=None, repr=False)  # what never changes in an episode, cached

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HmtState):
            return NotImplemented
        return self.robot == other.robot and self.human == other.human and self.things == other.things

    def __hash__(self) -> int:
        return hash((self.robot, self.human, frozenset(self.things.values())))

    def __getitem__(self, name: str) -> Thing:
        return self.things[name]

    def agent(self, name: str) -> Agent:
        return self.robot if name == "robot" else self.human

    def _static(self) -> dict:
        if self._shared is None:
            shared = {
                "rank": {n: i for i, n in enumerate(self.things)},
                "locations": tuple(n for n, t in self.things.items() if not t.category.movable),
            }
            object.__setattr__(self, "_shared", shared)
        return self._shared

    @property
    def rank(self) -> dict[str, int]:
        """Each thing's place in the file's order (the same in every state of an episode)."""
        return self._static()["rank"]

    @property
    def locations(self) -> tuple[str, ...]:
        """The locations' names, in file order."""
        return self._static()["locations"]

    @property
    def index(self) -> dict[str, tuple[str, ...]]:
        """parent -> what is directly in or on it, in file order (derived from the parents, cached)."""
        if self._index is None:
            index: dict[str, list[str]] = {}
            for t in self.things.values():
                if t.parent is not None:
                    index.setdefault(t.parent, []).append(t.name)
            object.__setattr__(self, "_index", {k: tuple(v) for k, v in index.items()})
        return self._index

    def of_kind(self, key: str, value: str) -> tuple[str, ...]:
        """The things whose category's `key` ("type" or "subclass") is `value`, in file order (cached with
        what never changes in an episode: a thing keeps its kind)."""
        kinds = self._static().setdefault("kinds", {})
        found = kinds.get((key, value))
        if found is None:
            found = kinds[key, value] = tuple(n for n, t in self.things.items() if getattr(t.category, key) == value)
        return found

    def contents(self, parent: str) -> tuple[str, ...]:
        return self.index.get(parent, ())

    def holder(self, name: str) -> str | None:
        """The agent holding the thing, or something it is in or on, if any."""
        top = self.top(name)
        for agent in AGENTS:
            if top in self.agent(agent).held:
                return agent
        return None

    def top(self, name: str) -> str:
        """The outermost thing it is in or on: a location, or a held thing."""
        parent = self.things[name].parent
        while parent is not None:
            name, parent = parent, self.things[parent].parent
        return name

    def location_of(self, name: str) -> str | None:
        """The location it is at (itself for a location), None when it is held or in something held."""
        top = self.top(name)
        return top if self.things[top].category.cls == "LOCATION" else None

    # --- building the next state ------------------------------------------------------------------

    def moved(self, name: str, parent: str | None, relation: str | None, **agents: Agent) -> HmtState:
        """This state with one thing put in or on `parent` (None: into a hand) and agents replaced; the
        parent index is carried over, updated, when it was already built."""
        old = self.things[name]
        things = dict(self.things)
        things[name] = Thing(old.name, old.category, old.states, old.size, old.color, parent, relation)
        index = None
        if self._index is not None:
            index = dict(self._index)
            if old.parent is not None:
                kept = tuple(n for n in index[old.parent] if n != name)
                if kept:
                    index[old.parent] = kept
                else:
                    del index[old.parent]
            if parent is not None:
                kids = list(index.get(parent, ()))
                rank = self.rank
                insort(kids, name, key=rank.__getitem__)
                index[parent] = tuple(kids)
        return HmtState(things, agents.get("robot", self.robot), agents.get("human", self.human), index, self._shared)

    def with_states(self, changes: dict[str, frozenset[str]]) -> HmtState:
        """This state with the Boolean states of some things replaced."""
        things = dict(self.things)
        for name, states in changes.items():
            t = things[name]
            things[name] = Thing(t.name, t.category, states, t.size, t.color, t.parent, t.relation)
        return HmtState(things, self.robot, self.human, self._index, self._shared)

    def with_agents(self, **agents: Agent) -> HmtState:
        return HmtState(
            self.things, agents.get("robot", self.robot), agents.get("human", self.human), self._index, self._shared
        )

    # --- files --------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        things = []
        for t in self.things.values():
            d: dict = {"name": t.name, "type": t.type}
            if t.has_states:
                d["states"] = [s for s in t.has_states if s in t.states]
            for key in ("size", "color", "parent", "relation"):
                if getattr(t, key) is not None:
                    d[key] = getattr(t, key)
            things.append(d)
        agents = {a: {"at": self.agent(a).at, "held": list(self.agent(a).held)} for a in AGENTS}
        return {"things": things, **agents}

    @staticmethod
    def from_dict(d: dict, catalog: HmtCatalog | None = None) -> HmtState:
        catalog = catalog or handmethat_catalog()
        things = {}
        for t in d["things"]:
            things[t["name"]] = Thing(
                t["name"],
                catalog[t["type"]],
                frozenset(t.get("states", ())),
                t.get("size"),
                t.get("color"),
                t.get("parent"),
                t.get("relation"),
            )
        robot, human = (Agent(d[a]["at"], tuple(d[a]["held"])) for a in AGENTS)
        return HmtState(things, robot, human)

    def stable_hash(self) -> str:
        """A digest that is the same for equal states in every process and on every machine."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]
