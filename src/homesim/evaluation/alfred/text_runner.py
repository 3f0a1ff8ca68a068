"""Runs an agent through ALFRED episodes in the text game (`homesim/ALFRED-Text-v0`), ALFWorld's way,
and writes the same records as the embodied runner, so the same metrics apply.

Each step the agent sees `text` (the game's feedback; at the start the room and "Your task is to: ..."),
`goal`, `instructions`, `admissible_commands`, `step` and whether its last command worked; it answers
with a command (`AgentAction(action="go to fridge 1")`, or the bare string). As in ALFWorld the episode
ends when the goal is met; the agent may also answer `Stop` to give up (ALFRED's STOP). The text env's
budgets cut it short: 50 commands or 1000 low-level steps. A record's `path_length` is the low-level
steps the commands ran (so PLW compares text and embodied agents on one scale), `commands` the text
commands said; its `actions` are the commands, `[text, None]` each.
"""

from __future__ import annotations

from homesim.agents.protocol import Agent, AgentAction, filter_observation, filter_task
from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.text import AlfredTextEnv
from homesim.envs.alfred.text_expert import expert_step
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.runner import AGENT_ERROR, agent_measures, ask_agent, reset_agent, task_spec
from homesim.planning.alfred.expert import Unrecoverable
from homesim.world.actions import STOP

TASK_LINE = "Your task is to:"


def _observation(env: AlfredTextEnv, text: str, info: dict, task, hints: bool) -> dict:
    observation = {
        "text": text,
        "goal": task.goal,
        "instructions": "\n".join(task.instructions),
        "admissible_commands": info["admissible_commands"],
        "step": info["commands"],
        "last_action_success": info["last_command_success"],
        "last_action_message": info["problem"],
    }
    if hints:  # privileged, for agents that ask for them (the expert): its command and the sub-goal it serves
        try:
            step = expert_step(env)
        except Unrecoverable:
            step = None
        observation["expert_command"] = None if step is None else step[0]
        observation["expert_subgoal"] = "" if step is None else step[1].words(env.name_of)
    return observation


def _without_task(observation: dict) -> dict:
    """An ablation that hides the goal hides it from the game's opening text too."""
    lines = observation["text"].split("\n")
    return observation | {"text": "\n".join(line for line in lines if not line.startswith(TASK_LINE)).rstrip()}


def _command(reply: object) -> object:
    return reply.action if isinstance(reply, AgentAction) else reply


def run_text_episode(
    env: AlfredTextEnv,
    agent: Agent,
    episode: AlfredEpisode,
    annotation: int = 0,
    split: str = "",
    observation_filter: str = "none",
) -> EpisodeRecord:
    text, info = env.reset(options={"episode": episode, "annotation": annotation})
    task = task_spec(episode, annotation)
    hints = getattr(agent, "needs_expert_hints", False)
    hides_goal = filter_task(observation_filter, task).goal != task.goal
    commands, success, failures = [], [], []
    stopped = truncated = False
    won = info["won"]
    broken = reset_agent(agent, lambda: filter_task(observation_filter, task))

    def seen() -> dict:
        shown = filter_observation(observation_filter, _observation(env, text, info, task, hints))
        return _without_task(shown) if hides_goal else shown

    raised = False
    while not (won or truncated):
        problem = broken
        if problem is None:
            reply, problem = ask_agent(agent, seen)
        if problem is not None:  # the agent raised: the episode ends there
            failures.append([len(commands), problem])
            raised = True
            break
        command = _command(reply)
        if command == STOP:
            stopped = True
            break
        text, _, won, truncated, info = env.step(command)
        commands.append([command if isinstance(command, str) else repr(command), None])
        success.append(info["last_command_success"])
        if not info["last_command_success"]:
            failures.append([len(commands) - 1, info["problem"]])
    return EpisodeRecord(
        episode_id=episode.id,
        annotation=annotation,
        split=split,
        task_type=episode.goal.task_type,
        actions=commands,
        action_success=success,
        failures=failures,
        conditions_met=info["goal_conditions_met"],
        conditions_total=info["goal_conditions_total"],
        goal_satisfied=info["goal_satisfied"],
        path_length=info["low_level_steps"],
        reference_length=len(episode.expert_actions),
        stopped=stopped,
        end_reason=AGENT_ERROR if raised else "goal_satisfied" if won else "stop" if stopped else _budget(env, info),
        commands=len(commands),
        measures=agent_measures(agent),
    )


def _budget(env: AlfredTextEnv, info: dict) -> str:
    return "max_commands" if info["commands"] >= env.max_commands else "max_steps"
