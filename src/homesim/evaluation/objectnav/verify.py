"""Checks an ObjectNav record against itself and, given its episode and scene, against the engine
(`homesim verify`).

From the record alone (anyone can redo these with a JSON reader): the poses follow from the start, the
actions and their outcomes (a successful move is the next recorded position, turns and looks by the
embodiment's angles); the path length is the sum of the distances between the positions; the collisions
are the failed moves; each criterion follows from its inputs (`tasks.objectnav_criteria.criteria_from`)
and success from the criteria the run required, under the rules the run names. Given the episode and its
scene: the start is the episode's, d_0 and d_T are the geodesic distances from the start and the end
(`tasks.objectnav.goal_distance`), and the criteria's inputs are what the engine sees from the end.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from homesim.envs.objectnav.env import lattice_pose
from homesim.evaluation.records import NotPlayable, find_recorded_episode, EpisodeRecord
from homesim.tasks.objectnav import goal_distance
from homesim.tasks.objectnav_criteria import criteria_from, criteria_inputs, succeeded
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import LATTICE, nav_grid
from homesim.world.state import AgentState

RULES = ("success_distance", "view_point_distance", "undefined_spl")
CLOSE = 1e-6  # metres: what a record's rounding leaves


def check_record(
    record: EpisodeRecord, config, splits: Mapping | None = None, scenes: Mapping | None = None
) -> list[str]:
    """What in an ObjectNav record disagrees with itself (or with the engine), one line each."""
    if record.end_reason == "worker_failed":
        return []
    m = record.measures
    if "poses" not in m or "inputs" not in m:
        return ["no poses or criteria inputs (a record written before homesim kept them): it cannot be checked"]
    problems = _path(record, m["poses"])
    if abs(m["agent_path_length"] - _length(m["poses"]["positions"])) > CLOSE:
        problems.append(
            f"agent_path_length {m['agent_path_length']}, but its positions add up to {_length(m['poses']['positions']):.6f}"
        )
    again = criteria_from(
        m["inputs"],
        record.stopped,
        m["distance_to_goal"],
        m["required"],
        m["success_distance"],
        m["view_point_distance"],
    )
    if again != m["criteria"]:
        wrong = [name for name in again if again[name] != m["criteria"].get(name)]
        problems.append(f"criteria {', '.join(wrong)} do not follow from their inputs")
    if record.goal_satisfied != bool(succeeded(again, m["required"])):
        problems.append(f"success is {record.goal_satisfied}, but the required criteria say otherwise")
    ruled = {"required": config.options.get("criteria"), **{k: config.options.get(k) for k in RULES}}
    for name, value in ruled.items():
        if value is not None and m.get(name) != value:
            problems.append(f"{name} is {m.get(name)!r}, but the run's rules say {value!r}")
    if splits is not None:
        try:
            episode = find_recorded_episode(record, splits, "the episodes given", lambda e: e.episode_id)
        except NotPlayable as e:
            return [*problems, str(e)]
        problems += _against_engine(m, episode, scenes[episode.scene_id])
    return problems


def _length(positions: list) -> float:
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(positions, positions[1:])) * LATTICE


def _path(record: EpisodeRecord, poses: Mapping) -> list[str]:
    """The poses the actions lead to from the start, against the recorded ones."""
    e = LOCOBOT
    x, z, yaw, horizon = poses["start"]
    moves = collisions = 0
    for (action, _), success in zip(record.actions, record.action_success):
        if action == "MOVE_FORWARD":
            moves += success
            collisions += not success
        elif success and action in ("TURN_LEFT", "TURN_RIGHT"):
            yaw = (yaw + (e.turn if action == "TURN_RIGHT" else -e.turn)) % 360
        elif success and action in ("LOOK_UP", "LOOK_DOWN"):
            horizon += e.look if action == "LOOK_DOWN" else -e.look
    problems = []
    positions = poses["positions"]
    if positions[0] != [x, z] or moves != len(positions) - 1:
        problems.append(
            f"{moves} successful moves from {[x, z]}, but positions {positions[0]} and {len(positions) - 1} more"
        )
    if [*positions[-1], yaw, horizon] != poses["end"]:
        problems.append(f"the actions end at {[*positions[-1], yaw, horizon]}, but the end pose is {poses['end']}")
    if collisions != record.measures["collisions"]:
        problems.append(f"{record.measures['collisions']} collisions, but {collisions} moves failed")
    if record.path_length != len(record.actions):
        problems.append(f"path length {record.path_length} for {len(record.actions)} actions")
    return problems


def _against_engine(m: Mapping, episode, scene) -> list[str]:
    grid = nav_grid(scene, LOCOBOT)
    goal = goal_distance(grid, episode.goals)
    start = lattice_pose(AgentState(*episode.start_position, episode.start_rotation, 0))
    problems = [] if m["poses"]["start"] == start else [f"starts at {m['poses']['start']}, the episode at {start}"]
    i, j, yaw, horizon = m["poses"]["end"]
    end = AgentState(i * LATTICE, j * LATTICE, yaw, horizon)
    for name, (a, b) in (("geodesic_distance", start[:2]), ("distance_to_goal", (i, j))):
        d = goal.distance(a * LATTICE, b * LATTICE)
        d = d if math.isfinite(d) else None
        if (d is None) != (m[name] is None) or (d is not None and abs(d - m[name]) > CLOSE):
            problems.append(f"{name} {m[name]}, the scene's distance {d}")
    inputs = criteria_inputs(grid, {g.object_id: g.box for g in episode.goals}, end)
    if inputs != m["inputs"]:
        wrong = [k for k in inputs if inputs[k] != m["inputs"].get(k)]
        problems.append(f"criteria inputs {', '.join(wrong)} differ from what the scene shows at the end")
    return problems
