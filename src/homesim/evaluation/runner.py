"""Runs an agent through episodes under ALFRED's protocol and writes one record per (episode, annotation).

An episode ends when the agent stops, at 1000 steps, or after 10 failed actions (failed actions count
as steps). An answer that is no action (not an action, a mask of the wrong shape) is a failed step with the
reason in the record; an agent that raises (in `reset`, `follow` or `act`) ends its episode there, with end
reason "agent_error" and the exception in the record's failures. Either way the run goes on.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from homesim.agents.protocol import Agent, AgentAction, TaskSpec, filter_observation, filter_task
from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.records import EpisodeRecord, written_mask

AGENT_ERROR = "agent_error"  # the end reason of an episode the agent's exception ended


def task_spec(episode: AlfredEpisode, annotation: int, start_step: int = 0) -> TaskSpec:
    ann = episode.annotations[annotation] if episode.annotations else None
    return TaskSpec(
        episode_id=episode.id,
        goal=ann.task_desc if ann else "",
        instructions=ann.high_descs if ann else (),
        expert_actions=episode.expert_actions,
        start_step=start_step,
        annotation=annotation,
        task_type=episode.goal.task_type,
    )


def _problem(e: Exception, where: str) -> str:
    """Why a step failed when the agent raised: the exception and where in the agent's code."""
    frame = traceback.extract_tb(e.__traceback__)[-1]
    return f"agent raised {type(e).__name__} in {where}: {e} ({frame.filename}:{frame.lineno})"


def reset_agent(agent: Agent, told: Callable[[], TaskSpec]) -> str | None:
    """Starts the agent on the task `told()` gives it; None, or why that broke (then the episode ends there).
    Anything raised on the way, the ablation's filter included, is the agent's failure, not the run's."""
    try:
        agent.reset(told())
    except Exception as e:  # an agent's bug must not end the evaluation
        return _problem(e, "reset")
    return None


def follow_prefix(agent: Agent, prefix: Sequence[tuple[dict, str]], observation_filter: str) -> str | None:
    """Shows the agent the teacher-forced steps; None, or why that broke (then the episode ends there)."""
    try:
        for observation, action in prefix:
            agent.follow(filter_observation(observation_filter, observation), action)
    except Exception as e:  # an agent's bug must not end the evaluation
        return _problem(e, "follow")
    return None


def ask_agent(agent: Agent, seen: Callable[[], dict]) -> tuple[object, str | None]:
    """The agent's reply to the observation `seen()` gives it, or None and why that raised."""
    try:
        return agent.act(seen()), None
    except Exception as e:
        return None, _problem(e, "act")


def agent_measures(agent: Agent) -> dict:
    """What the agent reports of the episode it just played (its `measures()`), as a record keeps it: under
    "agent" ({} when it reports nothing; why, when that raised)."""
    report = getattr(agent, "measures", None)
    if report is None:
        return {}
    try:
        return {"agent": report()}
    except Exception as e:  # an agent's bug must not end the evaluation
        return {"agent": {"error": _problem(e, "measures")}}


def _written(target: object) -> object:
    """A target as a record holds it: an object id, or a mask (an array, or ALFRED's runs) as `written_mask`
    writes it."""
    if isinstance(target, np.ndarray | list):
        return written_mask(target)
    return target if target is None or isinstance(target, str | int | float) else repr(target)


@dataclass
class Play:
    """What happened while an agent acted: the record's step lists and how it ended."""

    actions: list = field(default_factory=list)
    success: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    stopped: bool = False
    done: bool = False
    raised: bool = False  # the agent raised: the episode ended there
    info: dict = field(default_factory=dict)

    def keep(self, action: object, target: object, success: bool, why: str) -> None:
        """One step as the record holds it: the action and its target, whether it worked, and if not, why."""
        self.actions.append([action, target])
        self.success.append(success)
        if not success:
            self.failures.append([len(self.actions) - 1, why])

    def end_reason(self, env: AlfredEnv) -> str:
        if self.raised:
            return AGENT_ERROR
        if self.done:
            return "subgoal_done"
        if self.stopped:
            return "stop"
        return "max_steps" if self.info["steps"] >= env.max_steps else "max_fails"


def play(
    env: AlfredEnv,
    agent: Agent,
    task: TaskSpec,
    observation: dict,
    info: dict,
    observation_filter: str = "none",
    finished: Callable[[], bool] = lambda: False,
    prefix: Sequence[tuple[dict, str]] = (),
) -> Play:
    """Lets the agent act from the env's current state until it stops, a limit ends the episode, or
    `finished()` holds (sub-goal evaluation). An agent with a `follow(observation, action)` method is
    first shown the `prefix`: the steps the expert was teacher-forced through (sub-goal evaluation)."""
    result = Play(info=info)
    broken = reset_agent(agent, lambda: filter_task(observation_filter, task))
    if broken is None and prefix and hasattr(agent, "follow"):
        broken = follow_prefix(agent, prefix, observation_filter)

    def seen() -> dict:
        shown = filter_observation(observation_filter, observation)
        # the last action's outcome (AI2-THOR's lastActionSuccess), and privileged hints for agents that asked
        told = ("last_action_success", "last_action_message", "expert_action", "expert_subgoal", "expert_mask")
        return shown | {k: result.info[k] for k in told if k in result.info}

    truncated = False
    while not (result.stopped or truncated or result.done):
        problem = broken
        if problem is None:
            reply, problem = ask_agent(agent, seen)
        if problem is not None:
            result.failures.append([len(result.actions), problem])
            result.raised = True
            break
        answer = {"action": reply.action, "target": reply.target} if isinstance(reply, AgentAction) else reply
        observation, _, result.stopped, truncated, result.info = env.step(answer)
        if result.stopped:
            break
        target = answer.get("target") if isinstance(answer, dict) else None
        info = result.info
        result.keep(info["last_action"], _written(target), info["last_action_success"], info["last_action_message"])
        result.done = finished()
    return result


def record(
    env: AlfredEnv,
    episode: AlfredEpisode,
    annotation: int,
    split: str,
    played: Play,
    reference: int,
    subgoal: dict | None = None,
    measures: dict | None = None,
) -> EpisodeRecord:
    info = played.info
    met, total = (int(played.done), 1) if subgoal else (info["goal_conditions_met"], info["goal_conditions_total"])
    return EpisodeRecord(
        episode_id=episode.id,
        annotation=annotation,
        split=split,
        task_type=episode.goal.task_type,
        actions=played.actions,
        action_success=played.success,
        failures=played.failures,
        conditions_met=met,
        conditions_total=total,
        goal_satisfied=played.done if subgoal else info["goal_satisfied"],
        path_length=info["steps"],
        reference_length=reference,
        stopped=played.stopped,
        end_reason=played.end_reason(env),
        subgoal=subgoal,
        measures=measures or {},
    )


def run_episode(
    env: AlfredEnv,
    agent: Agent,
    episode: AlfredEpisode,
    annotation: int = 0,
    split: str = "",
    observation_filter: str = "none",
) -> EpisodeRecord:
    observation, info = env.reset(options={"episode": episode, "annotation": annotation})
    played = play(env, agent, task_spec(episode, annotation), observation, info, observation_filter)
    return record(env, episode, annotation, split, played, len(episode.expert_actions), None, agent_measures(agent))
