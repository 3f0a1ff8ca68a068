"""What a walk in a demonstration looks like to the person describing it: which way the agent first
turns, roughly how far it walks, where it turns on the way and at the end, and what stands next to
where it stops ("turn left, walk across the room, then turn right to the counter left of the sink").
Computed from the navigation actions of one GotoLocation step and the poses they lead to.
"""

from __future__ import annotations

from dataclasses import dataclass

from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.geometry import YAW_STEP, visible_fixed, visible_point
from homesim.world.scene import GRID_SIZE, Box, Scene
from homesim.world.state import AgentState

SHORT_WALK = 3  # steps of 0.25 m that people call "a step" or "a few steps"
FAR_WALK = 0.6  # of the room's extent: a walk that covers more is "across the room"
SIDEWAYS = 0.3  # metres a landmark must lie to one side to be "left of" / "right of" a place
STACKED = 0.15  # metres apart in height that make same-class objects "top" and "bottom" ones
RESTS_ON = 0.15  # metres a place's bottom may sink below a landmark's top and still stand on it
_TURNS = {1: "right", 2: "around", 3: "left"}  # net quarter turns to the right (mod 4) -> word


@dataclass(frozen=True)
class Route:
    """The shape of one walk: turns are "left", "right", "around" or None."""

    first_turn: str | None  # before the first step
    legs: tuple[int, ...]  # steps walked between turns
    middle_turns: tuple[str, ...]  # the turns between legs
    final_turn: str | None  # after the last step
    distance: str | None  # "short", "medium", "far"; None when the agent only turns or looks
    look: str | None  # "down" or "up": where the agent ends looking, if it changed

    @property
    def walks(self) -> bool:
        return bool(self.legs)


def _turn(quarters: int) -> str | None:
    return _TURNS.get(quarters % 4)


def route(actions: list[Action], start: AgentState, scene: Scene) -> Route:
    """The shape of the walk `actions` make from `start` (their interactions are ignored)."""
    groups: list[tuple[str, int]] = []  # ("turn", net quarters right) and ("walk", steps), in order
    look, x, z, yaw = 0, start.x, start.z, start.yaw
    for action in actions:
        if action.name == A.MOVE_AHEAD:
            dx, dz = YAW_STEP[yaw]
            x, z = x + dx * GRID_SIZE, z + dz * GRID_SIZE
        elif action.name in (A.ROTATE_LEFT, A.ROTATE_RIGHT):
            yaw = (yaw + (90 if action.name == A.ROTATE_RIGHT else -90)) % 360
        elif action.name in (A.LOOK_UP, A.LOOK_DOWN):
            look += 1 if action.name == A.LOOK_DOWN else -1
            continue
        else:
            continue
        kind, amount = (
            ("walk", 1) if action.name == A.MOVE_AHEAD else ("turn", 1 if action.name == A.ROTATE_RIGHT else -1)
        )
        if groups and groups[-1][0] == kind:
            groups[-1] = (kind, groups[-1][1] + amount)
        else:
            groups.append((kind, amount))
    legs = tuple(n for kind, n in groups if kind == "walk")
    first = _turn(groups[0][1]) if groups and groups[0][0] == "turn" else None
    final = _turn(groups[-1][1]) if legs and groups[-1][0] == "turn" else None
    inner = groups[1:-1] if final else groups[1:]
    middle = tuple(t for kind, n in inner if kind == "turn" and (t := _turn(n)))
    travelled = abs(x - start.x) + abs(z - start.z)
    return Route(
        first_turn=first,
        legs=legs,
        middle_turns=middle if legs else (),
        final_turn=final,
        distance=_distance(sum(legs), travelled, scene) if legs else None,
        look={1: "down", -1: "up"}.get((look > 0) - (look < 0)),
    )


def _distance(steps: int, travelled: float, scene: Scene) -> str:
    xs = [x for x, _ in scene.reachable]
    zs = [z for _, z in scene.reachable]
    extent = max(max(xs) - min(xs), max(zs) - min(zs)) * GRID_SIZE
    if steps <= SHORT_WALK:
        return "short"
    return "far" if travelled >= FAR_WALK * extent else "medium"


def landmark(scene: Scene, agent: AgentState, place: Box, kinds: set[str], exclude: set[str]) -> tuple[str, str] | None:
    """A fixed object of one of `kinds` the agent sees from where it stopped, nearest the place it
    walked to, and where the place is from it: ("left" | "right" | "near" | "on", landmark id)."""
    here = visible_point(place, agent, scene.camera_height)
    if here is None:
        return None
    candidates = []
    for fixed_id in sorted(visible_fixed(scene, agent)):
        fixed = scene.fixed[fixed_id]
        if fixed.cls not in kinds or fixed.cls in exclude:
            continue
        there = visible_point(fixed.box, agent, scene.camera_height)
        if there is not None:
            candidates.append(((there[0] - here[0]) ** 2 + (there[2] - here[2]) ** 2, fixed_id, there))
    if not candidates:
        return None
    _, fixed_id, there = min(candidates)
    if _stands_on(place, scene.fixed[fixed_id].box):
        return "on", fixed_id
    rx, rz = YAW_STEP[(agent.yaw + 90) % 360]
    sideways = (there[0] - here[0]) * rx + (there[2] - here[2]) * rz  # > 0: the landmark is to the right
    side = "left" if sideways > SIDEWAYS else "right" if sideways < -SIDEWAYS else "near"
    return side, fixed_id


def rank(scene: Scene, agent: AgentState, place: str) -> str | None:
    """Which one of the same-class objects in view the place is, as people single one out: "left",
    "right" or "middle" when they stand side by side, "top", "bottom" or "middle" when stacked
    (drawers, shelves); None when it is the only one in view."""
    cls = scene.fixed[place].cls
    rx, rz = YAW_STEP[(agent.yaw + 90) % 360]
    seen = {}
    for fixed_id in visible_fixed(scene, agent):
        box = scene.fixed[fixed_id].box
        point = visible_point(box, agent, scene.camera_height) if scene.fixed[fixed_id].cls == cls else None
        if point is not None:
            seen[fixed_id] = (point[0] * rx + point[2] * rz, (box.lo[1] + box.hi[1]) / 2)
    if len(seen) < 2 or place not in seen:
        return None
    for axis, low, high, apart in ((0, "left", "right", SIDEWAYS), (1, "bottom", "top", STACKED)):
        values = sorted(v[axis] for v in seen.values())
        if values[-1] - values[0] >= apart:
            mine = seen[place][axis]
            return low if mine == values[0] else high if mine == values[-1] else "middle"
    return None


def _stands_on(box: Box, base: Box) -> bool:
    """Whether `box` stands on top of `base` (a lamp on a desk)."""
    cx, cz = (box.lo[0] + box.hi[0]) / 2, (box.lo[2] + box.hi[2]) / 2
    inside = base.lo[0] <= cx <= base.hi[0] and base.lo[2] <= cz <= base.hi[2]
    return inside and box.lo[1] >= base.hi[1] - RESTS_ON
