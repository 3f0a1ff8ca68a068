"""Runs an agent through episodes under ALFRED's protocol and writes one record per (episode, annotation).

An episode ends when the agent stops, at 1000 steps, or after 10 failed actions (failed actions count
as steps). Whatever an agent does wrong (raises, returns something that is not an action, a mask of
the wrong shape) is one failed step with the reason in the record; the run goes on.
"""

from __future__ import annotations

import traceback

import numpy as np

from homesim.agents.protocol import Agent, AgentAction, TaskSpec, filter_observation
from homesim.datasets.alfred import AlfredEpisode
from homesim.envs.alfred import AlfredEnv
from homesim.evaluation.records import EpisodeRecord


def task_spec(episode: AlfredEpisode, annotation: int, start_step: int = 0) -> TaskSpec:
    ann = episode.annotations[annotation] if episode.annotations else None
    return TaskSpec(
        episode_id=episode.id,
        goal=ann.task_desc if ann else "",
        instructions=ann.high_descs if ann else (),
        expert_actions=episode.expert_actions,
        start_step=start_step,
    )


def _as_env_action(answer: object) -> dict:
    """An agent's answer as the env's action dict (anything malformed passes through to fail there)."""
    if isinstance(answer, AgentAction):
        return {"action": answer.action, "target": answer.target}
    return answer  # type: ignore[return-value]


def _written(target: object) -> object:
    return f"mask:{int(np.count_nonzero(target))}" if isinstance(target, np.ndarray) else target


def ask(agent: Agent, observation: dict, observation_filter: str) -> tuple[dict, str | None]:
    """The agent's action for this observation, or a failing placeholder and why."""
    try:
        return _as_env_action(agent.act(filter_observation(observation_filter, observation))), None
    except Exception as e:  # an agent's bug must not end the evaluation
        frame = traceback.extract_tb(e.__traceback__)[-1]
        return {"action": None}, f"agent raised {type(e).__name__}: {e} ({frame.filename}:{frame.lineno})"


def run_episode(
    env: AlfredEnv,
    agent: Agent,
    episode: AlfredEpisode,
    annotation: int = 0,
    split: str = "",
    observation_filter: str = "none",
) -> EpisodeRecord:
    agent.reset(task_spec(episode, annotation))
    observation, info = env.reset(options={"episode": episode, "annotation": annotation})
    actions, success, failures = [], [], []
    stopped = truncated = False
    while not (stopped or truncated):
        action, problem = ask(agent, observation, observation_filter)
        observation, _, stopped, truncated, info = env.step(action)
        if stopped:
            break
        actions.append([info["last_action"], _written(action.get("target") if isinstance(action, dict) else None)])
        success.append(info["last_action_success"])
        if not info["last_action_success"]:
            failures.append([len(actions) - 1, problem or info["last_action_message"]])
    return EpisodeRecord(
        episode_id=episode.id,
        annotation=annotation,
        split=split,
        task_type=episode.goal.task_type,
        actions=actions,
        action_success=success,
        failures=failures,
        conditions_met=info["goal_conditions_met"],
        conditions_total=info["goal_conditions_total"],
        goal_satisfied=info["goal_satisfied"],
        path_length=info["steps"],
        reference_length=len(episode.expert_actions),
        stopped=stopped,
        end_reason=end_reason(env, info, stopped),
    )


def end_reason(env: AlfredEnv, info: dict, stopped: bool) -> str:
    if stopped:
        return "stop"
    return "max_steps" if info["steps"] >= env.max_steps else "max_fails"
