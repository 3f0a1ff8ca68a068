"""The dynamic world state: small, immutable, cheap to copy, hashable (in sets, and by a digest
that is stable across processes) and JSON round-trippable.

Every fact is stored once: a fixed object's place is in the `Scene`, a movable object's place is its
`position` and `parent` here, and what an agent holds is `AgentState.held` (a held object has no
parent and no position of its own; things inside it keep it as their parent).
"""

from __future__ import annotations

import hashlib
import json
import operator
from dataclasses import asdict, dataclass, field, fields

HISTORY_SETS = ("cleaned", "heated", "cooled")


def _number(v: float) -> float:
    """One spelling per value in files and digests: 1 and 1.0 are both 1.0, and -0.0 is 0.0."""
    return float(v) + 0.0


def _pickled_by_constructor(cls: type) -> type:
    """Pickles a frozen slots dataclass as a call of its constructor. dataclasses' own pickling of slots
    runs in Python field by field (its `fields()` looked up for every object): sending ALFRED's valid_seen
    episodes (13,000 object states) to worker processes took 1.5 times as long to pickle, 1.9 to unpickle."""
    values = operator.attrgetter(*(f.name for f in fields(cls)))
    cls.__reduce__ = lambda self: (cls, values(self))
    return cls


@_pickled_by_constructor
@dataclass(frozen=True, slots=True)
class ObjectState:
    id: str
    cls: str
    position: tuple[float, float, float] | None = None  # None for fixed objects (see Scene) and held ones
    parent: str | None = None  # the receptacle it is in or on
    is_open: bool = False
    is_on: bool = False
    is_dirty: bool = False
    is_hot: bool = False
    is_cold: bool = False


@_pickled_by_constructor
@dataclass(frozen=True, slots=True)
class AgentState:
    x: float
    z: float
    yaw: int  # degrees, one of 0, 90, 180, 270 (0 faces +z, 90 faces +x)
    horizon: int  # camera pitch in degrees, positive looks down
    held: str | None = None


@dataclass(frozen=True)
class State:
    """Objects by id, agents (agent 0 is the one ALFRED drives), and ALFRED's history sets."""

    objects: dict[str, ObjectState]
    agents: tuple[AgentState, ...]
    cleaned: frozenset[str] = field(default_factory=frozenset)
    heated: frozenset[str] = field(default_factory=frozenset)
    cooled: frozenset[str] = field(default_factory=frozenset)

    def holder_of(self, object_id: str) -> int | None:
        for i, agent in enumerate(self.agents):
            if agent.held == object_id:
                return i
        return None

    def children(self, receptacle_id: str) -> list[str]:
        return [o.id for o in self.objects.values() if o.parent == receptacle_id]

    def descendants(self, receptacle_id: str) -> list[str]:
        """Everything in or on a receptacle, also inside things that are in it (an apple in a bowl in the fridge)."""
        found, frontier = [], [receptacle_id]
        while frontier:
            kids = [o.id for o in self.objects.values() if o.parent in frontier]
            found += kids
            frontier = kids
            if len(found) > len(self.objects):
                raise ValueError(f"{receptacle_id} is inside itself: the objects' parents loop")
        return found

    def ancestors(self, object_id: str) -> list[str]:
        """What an object is in, innermost first (a ValueError where the parents loop: files read are checked
        for it, `homesim.datasets.formats`, but a state made in code is not)."""
        chain, parent = [], self.objects[object_id].parent
        while parent is not None:
            chain.append(parent)
            if len(chain) > len(self.objects):
                raise ValueError(f"{object_id} is inside itself: its parents loop")
            parent = self.objects[parent].parent
        return chain

    def with_objects(self, changed: dict[str, ObjectState], removed: tuple[str, ...] = ()) -> State:
        objects = {k: v for k, v in self.objects.items() if k not in removed} if removed else dict(self.objects)
        objects.update(changed)
        return State(objects, self.agents, self.cleaned, self.heated, self.cooled)

    def with_agent(self, index: int, agent: AgentState) -> State:
        # Built directly, not with dataclasses.replace: this is on every navigation step's path.
        agents = self.agents[:index] + (agent,) + self.agents[index + 1 :]
        return State(self.objects, agents, self.cleaned, self.heated, self.cooled)

    def __hash__(self) -> int:
        return hash((frozenset(self.objects.values()), self.agents, self.cleaned, self.heated, self.cooled))

    def to_dict(self) -> dict:
        objects = [asdict(o) for o in sorted(self.objects.values(), key=lambda o: o.id)]
        for o in objects:
            if o["position"] is not None:
                o["position"] = [_number(v) for v in o["position"]]
        agents = [{**asdict(a), "x": _number(a.x), "z": _number(a.z)} for a in self.agents]
        return {
            "objects": objects,
            "agents": agents,
            **{name: sorted(getattr(self, name)) for name in HISTORY_SETS},
        }

    @staticmethod
    def from_dict(d: dict) -> State:
        objects = {}
        for o in d["objects"]:
            position = tuple(o["position"]) if o["position"] is not None else None
            objects[o["id"]] = ObjectState(**{**o, "position": position})
        return State(
            objects=objects,
            agents=tuple(AgentState(**a) for a in d["agents"]),
            **{name: frozenset(d[name]) for name in HISTORY_SETS},
        )

    def stable_hash(self) -> str:
        """A digest that is the same for equal states in every process and on every machine."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]
