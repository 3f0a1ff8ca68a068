"""A small hand-built house for the world and task tests: one 6x6-cell room with a kitchen along two
walls and a bed corner, every object id in AI2-THOR's `Class|+x.xx|+y.yy|+z.zz` form.

Top view (x to the right, z up; the agent walks on the 36 cells x, z in {0, 0.25, ..., 1.25}):

    z 2.0        FloorLamp   CounterTop (0..0.9)      Sink + SinkBasin, Faucet behind it
    z 1.25  Bed  +-------------------------------+
            (w)  |                               |   Fridge (x 1.5..2.2, z 0.6..1.35)
                 |      reachable 6 x 6 cells    |
    z 0     Side |                               |   CounterTop 2 with the Microwave on it
            Table+-------------------------------+
            +Lamp       DiningTable (south)          Cabinet (south-west)

Movable objects start as in a real ALFRED kitchen: apple, potato, knife and pot on the counter, a
bowl holding a watch, a mug and a butter knife on the dining table, a tomato and a lettuce in the
(closed) fridge, a plate in the (closed) cabinet, a cell phone and a book on the bed, a credit card
on the side table. The agent starts in the middle of the room, facing north, looking 30 degrees down.

`STATIONS` are poses from which each piece of furniture (and what lies on it) is in view; tests
teleport the agent there with `at(...)` and use `run(...)` / `do(...)` for real actions.
"""

from __future__ import annotations

from dataclasses import replace

from homesim.scenes.alfred import object_id
from homesim.world.actions import Action, Event
from homesim.world.dynamics import step
from homesim.world.scene import Box, FixedObject, Pose, Scene
from homesim.world.state import AgentState, ObjectState, State

Vec = tuple[float, float, float]

ROOM_CELLS = frozenset((i, j) for i in range(6) for j in range(6))


def fixed(cls: str, position: Vec, lo: Vec, hi: Vec) -> FixedObject:
    """A fixed object with its AI2-THOR id, the position that id encodes and an explicit extent."""
    return FixedObject(id=object_id(cls, position), cls=cls, position=position, box=Box(lo, hi))


# --- furniture and appliances (fixed) -------------------------------------------------------------

_FIXED = [
    fixed("CounterTop", (0.4, 0.9, 1.75), (-0.1, 0.85, 1.45), (0.9, 0.9, 2.05)),
    fixed("Sink", (1.2, 0.75, 1.7), (0.95, 0.6, 1.45), (1.45, 0.9, 1.95)),
    fixed("SinkBasin", (1.2, 0.8, 1.7), (1.0, 0.7, 1.5), (1.4, 0.88, 1.9)),
    fixed("Faucet", (1.2, 0.9, 2.0), (1.15, 0.9, 1.95), (1.25, 1.2, 2.05)),
    fixed("Fridge", (1.85, 0.0, 0.975), (1.5, 0.0, 0.6), (2.2, 1.8, 1.35)),
    fixed("CounterTop", (1.8, 0.9, 0.1), (1.5, 0.85, -0.3), (2.1, 0.9, 0.5)),
    fixed("Microwave", (1.8, 0.9, 0.15), (1.6, 0.9, -0.05), (2.0, 1.2, 0.35)),
    fixed("DiningTable", (0.5, 0.0, -0.65), (0.0, 0.0, -1.0), (1.0, 0.75, -0.3)),
    fixed("Cabinet", (-0.45, 0.35, -0.65), (-0.7, 0.0, -0.9), (-0.2, 0.7, -0.4)),
    fixed("SideTable", (-0.5, 0.0, 0.05), (-0.7, 0.0, -0.2), (-0.3, 0.7, 0.3)),
    fixed("DeskLamp", (-0.5, 0.7, 0.05), (-0.6, 0.7, -0.05), (-0.4, 1.2, 0.15)),
    fixed("FloorLamp", (-0.4, 0.0, 1.8), (-0.6, 0.0, 1.6), (-0.2, 1.7, 2.0)),
    fixed("Bed", (-1.2, 0.0, 1.0), (-2.0, 0.0, 0.5), (-0.4, 0.6, 1.5)),
]
FIXED = {f.id: f for f in _FIXED}
_BY_CLASS = {}
for _f in _FIXED:
    _BY_CLASS.setdefault(_f.cls, []).append(_f.id)

COUNTER, COUNTER_2 = _BY_CLASS["CounterTop"]
(SINK,) = _BY_CLASS["Sink"]
(SINK_BASIN,) = _BY_CLASS["SinkBasin"]
(FAUCET,) = _BY_CLASS["Faucet"]
(FRIDGE,) = _BY_CLASS["Fridge"]
(MICROWAVE,) = _BY_CLASS["Microwave"]
(DINING_TABLE,) = _BY_CLASS["DiningTable"]
(CABINET,) = _BY_CLASS["Cabinet"]
(SIDE_TABLE,) = _BY_CLASS["SideTable"]
(DESK_LAMP,) = _BY_CLASS["DeskLamp"]
(FLOOR_LAMP,) = _BY_CLASS["FloorLamp"]
(BED,) = _BY_CLASS["Bed"]

# --- movable objects: (class, position, parent) -----------------------------------------------------

_MOVABLE = [
    ("Apple", (0.1, 0.95, 1.6), COUNTER),
    ("Potato", (0.3, 0.95, 1.6), COUNTER),
    ("Knife", (0.5, 0.95, 1.6), COUNTER),
    ("Pot", (0.7, 1.0, 1.75), COUNTER),
    ("Bowl", (0.3, 0.8, -0.5), DINING_TABLE),
    ("Watch", (0.3, 0.82, -0.5), "Bowl"),  # in the bowl
    ("Mug", (0.7, 0.8, -0.5), DINING_TABLE),
    ("ButterKnife", (0.5, 0.8, -0.6), DINING_TABLE),
    ("Tomato", (1.85, 1.0, 0.975), FRIDGE),
    ("Lettuce", (1.85, 0.6, 0.975), FRIDGE),
    ("Plate", (-0.45, 0.3, -0.65), CABINET),
    ("CellPhone", (-0.6, 0.65, 1.0), BED),
    ("Book", (-0.8, 0.65, 1.2), BED),
    ("CreditCard", (-0.4, 0.75, 0.2), SIDE_TABLE),
]
_MOVABLE_IDS = {cls: object_id(cls, position) for cls, position, _ in _MOVABLE}
APPLE = _MOVABLE_IDS["Apple"]
POTATO = _MOVABLE_IDS["Potato"]
KNIFE = _MOVABLE_IDS["Knife"]
POT = _MOVABLE_IDS["Pot"]
BOWL = _MOVABLE_IDS["Bowl"]
WATCH = _MOVABLE_IDS["Watch"]
MUG = _MOVABLE_IDS["Mug"]
BUTTER_KNIFE = _MOVABLE_IDS["ButterKnife"]
TOMATO = _MOVABLE_IDS["Tomato"]
LETTUCE = _MOVABLE_IDS["Lettuce"]
PLATE = _MOVABLE_IDS["Plate"]
CELLPHONE = _MOVABLE_IDS["CellPhone"]
BOOK = _MOVABLE_IDS["Book"]
CREDIT_CARD = _MOVABLE_IDS["CreditCard"]

# --- agent poses -------------------------------------------------------------------------------------

START = Pose(0.5, 0.5, 0, 30)
STATIONS = {
    "start": START,
    "counter": Pose(0.25, 1.25, 0, 30),  # CounterTop, the apple, potato, knife and pot on it
    "sink": Pose(1.25, 1.25, 0, 30),  # SinkBasin and Faucet
    "fridge": Pose(1.25, 1.0, 90, 30),  # Fridge (and, once it is open, what is inside)
    "microwave": Pose(1.25, 0.0, 90, 30),  # Microwave and CounterTop 2
    "table": Pose(0.5, 0.0, 180, 30),  # DiningTable, the bowl (with the watch), mug and butter knife
    "bed": Pose(0.0, 1.0, 270, 30),  # Bed, the cell phone and the book
    "lamp": Pose(0.0, 0.0, 270, 30),  # SideTable, DeskLamp and the credit card
    "cabinet": Pose(0.0, 0.0, 180, 30),  # Cabinet
}


def agent_at(pose: Pose, held: str | None = None) -> AgentState:
    return AgentState(x=pose.x, z=pose.z, yaw=pose.yaw, horizon=pose.horizon, held=held)


def kitchen_scene(cells: frozenset[tuple[int, int]] = ROOM_CELLS) -> Scene:
    return Scene(id="TestKitchen", room_type="Kitchen", reachable=cells, fixed=dict(FIXED))


def kitchen_state(*agents: Pose) -> State:
    """The starting state; one agent at START unless poses are given (one agent per pose)."""
    objects = {f.id: ObjectState(f.id, f.cls) for f in _FIXED}
    for cls, position, parent in _MOVABLE:
        oid = object_id(cls, position)
        objects[oid] = ObjectState(oid, cls, position=position, parent=_MOVABLE_IDS.get(parent, parent))
    return State(objects=objects, agents=tuple(agent_at(p) for p in (agents or (START,))))


def kitchen(*agents: Pose) -> tuple[Scene, State]:
    return kitchen_scene(), kitchen_state(*agents)


def make_scene(fixed_objects: list[FixedObject], cells: frozenset[tuple[int, int]] = ROOM_CELLS) -> Scene:
    """Any other small scene (for a geometry a test needs that the kitchen lacks)."""
    return Scene(id="TestScene", room_type="Kitchen", reachable=cells, fixed={f.id: f for f in fixed_objects})


def make_state(scene: Scene, *agents: Pose) -> State:
    """A state holding the scene's fixed objects and no movable ones."""
    objects = {f.id: ObjectState(f.id, f.cls) for f in scene.fixed.values()}
    return State(objects=objects, agents=tuple(agent_at(p) for p in agents))


# --- building states by hand -------------------------------------------------------------------------


def at(state: State, pose: Pose | str, agent: int = 0) -> State:
    """Teleports an agent (keeping what it holds) to a pose or a named station."""
    pose = STATIONS[pose] if isinstance(pose, str) else pose
    me = state.agents[agent]
    return state.with_agent(agent, replace(me, x=pose.x, z=pose.z, yaw=pose.yaw, horizon=pose.horizon))


def add(state: State, cls: str, position: Vec, parent: str | None = None, **flags: bool) -> tuple[State, str]:
    """Adds a movable object (id from its class and position); returns the new state and the id."""
    oid = object_id(cls, position)
    assert oid not in state.objects, f"{oid} already exists"
    return state.with_objects({oid: ObjectState(oid, cls, position=position, parent=parent, **flags)}), oid


def add_piece(state: State, whole_id: str, sliced_class: str, index: int, parent: str) -> tuple[State, str]:
    """Adds a sliced piece with AI2-THOR's id `<whole id>|<SlicedClass>_<i>` in a receptacle."""
    oid = f"{whole_id}|{sliced_class}_{index}"
    state = state.with_objects({oid: ObjectState(oid, sliced_class, position=_spot(state, parent), parent=parent)})
    return state, oid


def _spot(state: State, parent: str) -> Vec:
    if parent in FIXED:
        (x0, y0, z0), (x1, y1, z1) = FIXED[parent].box.lo, FIXED[parent].box.hi
        return ((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2)
    position = state.objects[parent].position
    assert position is not None, f"{parent} has no position (held?)"
    return position


def put_in(state: State, object_id_: str, parent: str, position: Vec | None = None) -> State:
    """Moves an object (and what is inside it) into or onto a receptacle, out of any hand."""
    spot = position or _spot(state, parent)
    changed = {object_id_: replace(state.objects[object_id_], parent=parent, position=spot)}
    changed.update({d: replace(state.objects[d], position=spot) for d in state.descendants(object_id_)})
    state = state.with_objects(changed)
    holder = state.holder_of(object_id_)
    if holder is not None:
        state = state.with_agent(holder, replace(state.agents[holder], held=None))
    return state


def holding(state: State, object_id_: str, agent: int = 0) -> State:
    """Puts an object in an agent's hand (what is inside it stays inside it)."""
    state = state.with_objects({object_id_: replace(state.objects[object_id_], parent=None, position=None)})
    return state.with_agent(agent, replace(state.agents[agent], held=object_id_))


def with_flags(state: State, object_id_: str, **flags: bool) -> State:
    return state.with_objects({object_id_: replace(state.objects[object_id_], **flags)})


def with_history(state: State, **sets: tuple[str, ...]) -> State:
    """Adds ids to the `cleaned` / `heated` / `cooled` sets."""
    return replace(state, **{name: getattr(state, name) | frozenset(ids) for name, ids in sets.items()})


def of_class(state: State, cls: str) -> list[str]:
    return sorted(o.id for o in state.objects.values() if o.cls == cls)


# --- acting --------------------------------------------------------------------------------------------


def do(scene: Scene, state: State, name: str, target: str | None = None, agent: int = 0) -> tuple[State, Event]:
    """One action by name (ours or AI2-THOR's)."""
    return step(scene, state, Action.parse(name, target), agent=agent)


def run(scene: Scene, state: State, *actions: str | tuple[str, str], agent: int = 0) -> State:
    """Runs actions (a name, or (name, target)), each of which must succeed; a str station teleports."""
    for a in actions:
        if isinstance(a, str) and a in STATIONS:
            state = at(state, a, agent)
            continue
        name, target = (a, None) if isinstance(a, str) else a
        state, event = do(scene, state, name, target, agent)
        assert event.success, f"{name} {target} failed: {event.message}"
    return state
