"""ObjectNav's success criteria as the working group lists them (`objectnav-revisited.txt`, section 2),
each switchable per evaluation. An agent succeeds iff every required criterion holds where it ends:

* `intentionality`: it called STOP (an episode cut short by the step limit fails);
* `validity`: it stands on a navigable point for its body (`NavGrid.is_navigable`);
* `proximity`: a goal instance lies within `success_distance` (default r = 1 m) of its position, measured on
  the floor plan to the object's box (`navgrid.surface_distance`, the measure view points are made with);
* `visibility` (strict): at least one pixel of a goal instance is in its final frame, by the geometric
  visibility of `homesim.world.objectnav.sight` (the renderer's frame agrees with it: `bench/objectnav_agreement.py`);
* `oracle_visibility`: a goal instance would be in frame after turning and pitching the camera in place.

When proximity is required, the visibility criteria look only at the instances within the success
distance: the object the agent is near must be the one it sees. Every criterion is computed for every
episode, so a record says which failed, whichever were required.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from homesim.world.objectnav.navgrid import NavGrid, surface_distance
from homesim.world.objectnav.sight import oracle_sees, sees
from homesim.world.scene import Box
from homesim.world.state import AgentState

CRITERIA = ("intentionality", "validity", "proximity", "visibility", "oracle_visibility")
DEFAULT_CRITERIA = ("intentionality", "validity", "proximity", "visibility")
SUCCESS_DISTANCE = 1.0  # metres: the paper's r


def parse_criteria(names: str | Iterable[str]) -> tuple[str, ...]:
    """Criteria named in a comma-separated string or a sequence, checked, in CRITERIA's order."""
    chosen = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in chosen if n not in CRITERIA]
    if unknown:
        raise ValueError(f"unknown success criterion {unknown[0]!r}; known: {', '.join(CRITERIA)}")
    if not chosen:
        raise ValueError(f"no success criterion chosen; known: {', '.join(CRITERIA)}")
    return tuple(n for n in CRITERIA if n in chosen)


def judge(
    grid: NavGrid,
    goals: Sequence[Box],
    agent: AgentState,
    stopped: bool,
    required: Sequence[str] = DEFAULT_CRITERIA,
    success_distance: float = SUCCESS_DISTANCE,
) -> dict[str, bool]:
    """Every criterion, met or not, for an agent that ended at `agent` (having called STOP or not), with
    `goals` the boxes of the target category's instances."""
    near = [b for b in goals if surface_distance(b, agent.x, agent.z) <= success_distance]
    candidates = near if "proximity" in required else list(goals)
    return {
        "intentionality": bool(stopped),
        "validity": grid.is_navigable(agent.x, agent.z),
        "proximity": bool(near),
        "visibility": any(sees(grid, b, agent) for b in candidates),
        "oracle_visibility": any(oracle_sees(grid, b, agent.x, agent.z) for b in candidates),
    }


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


def spl(success: float, d0: float | None, path: float) -> float:
    """S * d_0 / max(d_0, p), the paper's ObjectNav-SPL; a goal no path reaches (d_0 None, the limit d_0 ->
    infinity) weighs 1."""
    return success * (1.0 if d0 is None else path_weight(d0, path))


def soft_spl(success: float, d0: float | None, d_t: float | None, path: float) -> float:
    """habitat's max(0, 1 - d_T / d_0) * d_0 / max(d_0, p): progress where d_T is defined, only success where
    d_0 is not (the limit d_0 -> infinity), full progress from a start on a view point only if it ends on one."""
    if d0 is None:
        return success
    if d_t is None:
        progress = 0.0
    elif d0 == 0:
        progress = float(d_t == 0)
    else:
        progress = max(0.0, 1.0 - d_t / d0)
    return progress * path_weight(d0, path)
