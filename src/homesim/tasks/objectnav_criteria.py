"""ObjectNav's success criteria as the working group lists them (`objectnav-revisited.txt`, section 2), and
habitat's, each switchable per evaluation. An agent succeeds iff every required criterion holds where it ends:

* `intentionality`: it called STOP (an episode cut short by the step limit fails);
* `validity`: it stands on a navigable point for its body (`NavGrid.is_navigable`);
* `proximity`: a goal instance lies within `success_distance` (default r = 1 m) of its position, measured on
  the floor plan to the object's box (`navgrid.surface_distance`, the measure view points are made with);
* `visibility` (strict): at least one pixel of a goal instance is in its final frame, by the geometric
  visibility of `homesim.world.objectnav.sight` (the renderer's frame agrees with it: `bench/objectnav_agreement.py`);
* `oracle_visibility`: a goal instance would be in frame after turning and pitching the camera in place;
* `distance_to_goal` (habitat-lab's Success): the geodesic distance to the nearest view point, d_T, is under
  `view_point_distance` (habitat's success_distance, 0.1 m).

When proximity is required, the visibility criteria look only at the instances within the success
distance: the object the agent is near must be the one it sees. Every criterion is computed for every
episode, so a record says which failed, whichever were required; and each is a function of the inputs a
record keeps (`criteria_inputs`: whether the end is navigable, each instance's floor distance, the
instances seen), so anyone can judge a record again (`criteria_from`) with other thresholds.

SPL and SoftSPL, where habitat's formulas divide by zero or infinity (a goal no path reaches: d_0 infinite;
a start on a view point that never moves: 0 / 0), read as `undefined_spl` says: `limit` (homesim's: the
limit of the formula, S for an unreachable goal), `zero` (AllenAct's RoboTHOR: 0 where no path reaches the
goal) or `undefined` (habitat's NaN: no value, left out of the mean).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from homesim.world.objectnav.navgrid import NavGrid, surface_distance
from homesim.world.objectnav.sight import sights_many
from homesim.world.scene import Box
from homesim.world.state import AgentState

CRITERIA = ("intentionality", "validity", "proximity", "visibility", "oracle_visibility", "distance_to_goal")
DEFAULT_CRITERIA = ("intentionality", "validity", "proximity", "visibility")
SUCCESS_DISTANCE = 1.0  # metres: the paper's r
VIEW_POINT_DISTANCE = 0.1  # metres: habitat's success_distance, to the nearest view point
UNDEFINED_SPL = ("limit", "zero", "undefined")


def parse_criteria(names: str | Iterable[str]) -> tuple[str, ...]:
    """Criteria named in a comma-separated string or a sequence, checked, in CRITERIA's order."""
    chosen = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in chosen if n not in CRITERIA]
    if unknown:
        raise ValueError(f"unknown success criterion {unknown[0]!r}; known: {', '.join(CRITERIA)}")
    if not chosen:
        raise ValueError(f"no success criterion chosen; known: {', '.join(CRITERIA)}")
    return tuple(n for n in CRITERIA if n in chosen)


def criteria_inputs(
    grid: NavGrid, goals: Mapping[str, Box], agent: AgentState, oracle_seen: list[str] | None = None
) -> dict:
    """What the criteria read where the agent ended, as JSON values: `navigable`, each goal instance's floor
    distance (`surface_distances`, metres, to 1 um), and the instances in its frame (`seen`) and in frame after
    turning in place (`oracle_seen`: given, when known from another end at the same position)."""
    return criteria_inputs_many(grid, [(goals, agent, oracle_seen)])[0]


def criteria_inputs_many(
    grid: NavGrid, ends: Sequence[tuple[Mapping[str, Box], AgentState, list[str] | None]]
) -> list[dict]:
    """`criteria_inputs` at many ends in one grid ((goals, agent, oracle_seen) each), their lines of sight
    traced at once (`sight.sights_many`): the same inputs."""
    ids = [list(goals) for goals, _, _ in ends]
    found = sights_many(grid, [([g[i] for i in k], agent, o is None) for k, (g, agent, o) in zip(ids, ends)])
    inputs = []
    for names, (goals, agent, oracle_seen), (seen, oracle) in zip(ids, ends, found):
        inputs.append(
            {
                "navigable": grid.is_navigable(agent.x, agent.z),
                "surface_distances": {
                    i: round(surface_distance(b, agent.x, agent.z), 6) for i, b in sorted(goals.items())
                },
                "seen": sorted(i for i, s in zip(names, seen) if s),
                "oracle_seen": sorted(i for i, s in zip(names, oracle) if s)
                if oracle_seen is None
                else list(oracle_seen),
            }
        )
    return inputs


def criteria_from(
    inputs: Mapping,
    stopped: bool,
    distance_to_goal: float | None,
    required: Sequence[str] = DEFAULT_CRITERIA,
    success_distance: float = SUCCESS_DISTANCE,
    view_point_distance: float = VIEW_POINT_DISTANCE,
) -> dict[str, bool]:
    """Every criterion, met or not, from a record's inputs (`criteria_inputs`), whether the agent called STOP,
    and d_T (None: no view point reachable)."""
    near = [i for i, d in inputs["surface_distances"].items() if d <= success_distance]
    candidates = near if "proximity" in required else list(inputs["surface_distances"])
    return {
        "intentionality": bool(stopped),
        "validity": bool(inputs["navigable"]),
        "proximity": bool(near),
        "visibility": any(i in inputs["seen"] for i in candidates),
        "oracle_visibility": any(i in inputs["oracle_seen"] for i in candidates),
        "distance_to_goal": distance_to_goal is not None and distance_to_goal < view_point_distance,
    }


def judge(
    grid: NavGrid,
    goals: Mapping[str, Box],
    agent: AgentState,
    stopped: bool,
    required: Sequence[str] = DEFAULT_CRITERIA,
    success_distance: float = SUCCESS_DISTANCE,
    distance_to_goal: float | None = None,
    view_point_distance: float = VIEW_POINT_DISTANCE,
) -> dict[str, bool]:
    """Every criterion, met or not, for an agent that ended at `agent` (having called STOP or not), with
    `goals` the boxes of the target category's instances by id, and d_T."""
    inputs = criteria_inputs(grid, goals, agent)
    return criteria_from(inputs, stopped, distance_to_goal, required, success_distance, view_point_distance)


def failed(criteria: dict[str, bool], required: Sequence[str]) -> list[str]:
    """The required criteria that did not hold."""
    return [name for name in required if not criteria[name]]


def succeeded(criteria: Mapping[str, object], required: Sequence[str]) -> float:
    """Success S: 1 where every required criterion (at least one) holds, else 0."""
    return float(bool(required) and all(criteria.get(name) is True for name in required))


def path_weight(shortest: float, taken: float) -> float:
    """SPL's path weight l / max(l, p), 1 where both are 0 (the agent stayed where the shortest path ends)."""
    longest = max(shortest, taken)
    return 1.0 if longest == 0 else shortest / longest


def spl(success: float, d0: float | None, path: float, undefined: str = "limit") -> float | None:
    """S * d_0 / max(d_0, p), the paper's ObjectNav-SPL; where that has no value (d_0 None: no path reaches
    the goal; d_0 = p = 0), as `undefined` says (the module's docstring)."""
    if d0 is None:
        return {"limit": success, "zero": 0.0, "undefined": None}[undefined]
    if d0 == 0 and path == 0 and undefined == "undefined":
        return None
    return success * path_weight(d0, path)


def soft_spl(
    success: float, d0: float | None, d_t: float | None, path: float, undefined: str = "limit"
) -> float | None:
    """habitat's max(0, 1 - d_T / d_0) * d_0 / max(d_0, p): progress where d_T is defined; where d_0 is not,
    as `undefined` says; from a start on a view point (d_0 = 0), full progress only if it ends on one (habitat:
    no value)."""
    if d0 is None:
        return {"limit": success, "zero": 0.0, "undefined": None}[undefined]
    if d0 == 0 and undefined == "undefined":
        return None
    if d_t is None:
        progress = 0.0
    elif d0 == 0:
        progress = float(d_t == 0)
    else:
        progress = max(0.0, 1.0 - d_t / d0)
    return progress * path_weight(d0, path)
