"""ObjectNav's metrics with habitat's names, as measures over episode records (`homesim.evaluation.measures`).

What an ObjectNav record holds in `measures` (written by `envs.objectnav.env.episode_measures`):
`category`, `difficulty` (easy/medium/hard), `geodesic_distance` (d_0: habitat's continuous geodesic distance
from the start to the nearest view point of any goal instance, measured at reset; null if none is reachable),
`distance_to_goal` (d_T: the same from where the agent ended), `agent_path_length` (p: the sum of its step
displacements, metres), `collisions` (forward steps the walls or furniture blocked), `criteria` (each
success criterion, met or not, see `homesim.tasks.objectnav_criteria`), `required` (the criteria this
evaluation asked for), their distances (`success_distance`, `view_point_distance`), `undefined_spl`, the
criteria's `inputs` and the `poses` (start, the lattice points stood on, end), so that
`evaluation.objectnav.verify` can judge and score the episode again from the record alone.

* `success` S: every required criterion is met;
* `spl` = S * d_0 / max(d_0, p) (the paper's ObjectNav-SPL: the shortest path to the closest instance);
* `soft_spl` = max(0, 1 - d_T / d_0) * d_0 / max(d_0, p) (habitat's);
  (the formulas are `tasks.objectnav_criteria`'s, which the env's `info` reports with too)
* `distance_to_goal` d_T, `num_steps` (actions before STOP), `collisions`.

Edge cases, where habitat divides by zero or infinity, as the record's `undefined_spl` says (`limit` below,
the objectnav-2020 protocol's; `zero`, AllenAct's, scores an unreachable goal 0; `undefined`, habitat's,
leaves SPL and SoftSPL out of their means there and at d_0 = 0):
* start inside the success zone (d_0 = 0): the weight d_0 / max(d_0, p) is 1 when the agent did not move
  (p = 0: no path is shorter) and 0 when it did; its progress term is 1 if it ends on a view point;
* a zero-length path (p = 0) with d_0 > 0: the weight is 1, the progress 0;
* a goal no path reaches from the start (d_0 undefined): d_0 -> infinity makes the weight 1, so SPL and
  soft SPL are S (with no reachable goal, 0 unless the criteria say otherwise);
* an end from which no view point is reachable: d_T is undefined and left out of the mean distance.
Every figure is finite; a NaN or infinite number in a record reads as undefined. Records written before
these fields existed read as objectnav-2020's (`limit`).
"""

from __future__ import annotations

from collections.abc import Mapping

from homesim.evaluation.measures import Measure, Measures, Value, finite
from homesim.evaluation.metrics import MetricSet
from homesim.evaluation.records import EpisodeRecord
from homesim.tasks.objectnav_criteria import soft_spl, spl, succeeded


def _start_distance(r: EpisodeRecord) -> float | None:
    return finite(r.measures.get("geodesic_distance"))


def _path(r: EpisodeRecord) -> float:
    return finite(r.measures.get("agent_path_length")) or 0.0


def _success(r: EpisodeRecord, read: Mapping[str, Value]) -> float:
    return succeeded(r.measures.get("criteria", {}), r.measures.get("required", ()))


def _distance_to_goal(r: EpisodeRecord, read: Mapping[str, Value]) -> float | None:
    return finite(r.measures.get("distance_to_goal"))


def _undefined(r: EpisodeRecord) -> str:
    return str(r.measures.get("undefined_spl", "limit"))


def _spl(r: EpisodeRecord, read: Mapping[str, Value]) -> float | None:
    return spl(read["success"], _start_distance(r), _path(r), _undefined(r))


def _soft_spl(r: EpisodeRecord, read: Mapping[str, Value]) -> float | None:
    return soft_spl(read["success"], _start_distance(r), read["distance_to_goal"], _path(r), _undefined(r))


OBJECTNAV_MEASURES = Measures(
    (
        Measure("success", (), _success),
        Measure("spl", ("success",), _spl),
        Measure("soft_spl", ("success", "distance_to_goal"), _soft_spl),
        Measure("distance_to_goal", (), _distance_to_goal),
        Measure("num_steps", (), lambda r, read: float(r.path_length)),
        Measure("collisions", (), lambda r, read: finite(r.measures.get("collisions")) or 0.0),
    )
)


OBJECTNAV_METRICS = MetricSet(
    terms=OBJECTNAV_MEASURES.terms(),
    reads={m.name: m.reads for m in OBJECTNAV_MEASURES.ordered},
    means={},
    breakdowns={
        "by_difficulty": lambda r: str(r.measures.get("difficulty", "?")),
        "by_category": lambda r: str(r.measures.get("category", r.task_type)),
    },
)
