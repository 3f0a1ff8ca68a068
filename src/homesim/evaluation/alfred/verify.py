"""Checks an ALFRED record against itself and, given its episode, against the engine (`homesim verify`).

From the record alone: one success flag per action, the failures where the flags say, the path length
ALFRED's `eval_task.py` counts (every action but the stop, and but the failure that ended the episode at
`max_fails`), an end reason the limits allow, and success exactly when every goal condition is met. Given
the episode (oracle-mode embodied records, whose targets are object ids): the actions played again from
its start under the run's rules give the same success flags and goal conditions.
"""

from __future__ import annotations

from collections.abc import Mapping

from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.records import NotPlayable, find_recorded_episode, MASK_PREFIX, EpisodeRecord
from homesim.tasks.alfred import RULES


def check_record(
    record: EpisodeRecord, config, splits: Mapping | None = None, scenes: Mapping | None = None
) -> list[str]:
    """What in an ALFRED record disagrees with itself (or with its episode played again), one line each."""
    if record.end_reason == "worker_failed":
        return []
    problems = []
    steps = len(record.actions)
    if len(record.action_success) != steps:
        return [f"{len(record.action_success)} success flags for {steps} actions"]
    failed = [k for k, ok in enumerate(record.action_success) if not ok]
    if [k for k, _ in record.failures] != failed:
        problems.append(f"failures at steps {[k for k, _ in record.failures]}, but the flags say {failed}")
    if record.commands is None:  # embodied: the path length is ALFRED's t
        counted = steps - (record.end_reason == "max_fails")
        if record.path_length != counted:
            problems.append(
                f"path length {record.path_length}, but {steps} actions ending {record.end_reason} count {counted}"
            )
        if record.end_reason == "max_fails" and len(failed) != config.max_fails:
            problems.append(f"ended at {config.max_fails} failures with {len(failed)}")
        if record.end_reason == "max_steps" and record.path_length != config.max_steps:
            problems.append(f"ended at {config.max_steps} steps after {record.path_length}")
    elif record.commands != steps:
        problems.append(f"{record.commands} commands, but {steps} recorded")
    if record.stopped != (record.end_reason == "stop"):
        problems.append(f"stopped is {record.stopped} but the end reason is {record.end_reason}")
    if record.subgoal is None and record.goal_satisfied != (record.conditions_met == record.conditions_total):
        problems.append(
            f"goal satisfied {record.goal_satisfied} with {record.conditions_met}/{record.conditions_total} conditions"
        )
    if splits is not None and record.commands is None and record.subgoal is None:
        try:
            episode = find_recorded_episode(record, splits, "the episodes given", lambda e: e.id)
        except NotPlayable as e:
            return [*problems, str(e)]
        problems += _played_again(record, config, episode, scenes)
    return problems


def _played_again(record: EpisodeRecord, config, episode, scenes: Mapping) -> list[str]:
    """The record's actions played again from the episode's start: the same outcomes and goal conditions."""
    if any(isinstance(target, str) and target.startswith(MASK_PREFIX) for _, target in record.actions):
        return []  # masks are kept by size only: they cannot be aimed again
    rules = {k: v for k, v in config.options.items() if k in RULES}
    env = AlfredEnv([episode], scenes, config.max_steps, config.max_fails, rules=rules)
    env.reset(options={"episode": 0, "annotation": record.annotation})
    info: dict = {}
    for k, ((action, target), recorded) in enumerate(zip(record.actions, record.action_success)):
        if action is None:  # what the agent answered was no action: a failed step either way
            _, _, _, _, info = env.step({"action": None})
        else:
            _, _, _, _, info = env.step({"action": action, "target": target})
        if info["last_action_success"] != recorded:
            return [
                f"step {k + 1} ({action} {target}): recorded {'success' if recorded else 'failure'}, played again the other"
            ]
    if not info:
        info = env.reset(options={"episode": 0, "annotation": record.annotation})[1]
    again = (info["goal_conditions_met"], info["goal_conditions_total"], info["steps"])
    if again != (record.conditions_met, record.conditions_total, record.path_length):
        return [
            f"conditions {record.conditions_met}/{record.conditions_total} after {record.path_length} steps, played again {again[0]}/{again[1]} after {again[2]}"
        ]
    return []
