"""HandMeThat as an evaluation suite: one work item per episode, played in the text game
(`homesim/HandMeThat-v0`) under their evaluation's protocol (40 commands, their costs and score), in the
partially or fully observable setting (`config.options["observability"]`).

Each step the agent sees `text` (the game's answer; at the start the welcome, the human's actions and
request, and what the robot sees), `task` (the human's actions and request), `admissible_commands`,
`step`, `score`, and whether its last command worked; it answers with a command (`AgentAction("move to
cabinet")`, or the bare string); `Stop` (or "stop") gives up. An agent that asks for hints
(`needs_expert_hints`) also sees `expert_command`, the live expert's next command from the current state
(None when it has no way to the goal). An oracle variant of a learned baseline (`needs_oracle`: "goal" or
"subgoal", a key of `ORACLES`) also sees `oracle`, that hidden formula of the episode, as the paper's
Seq2Seq+goal and +subgoal are told it; no other agent sees it. A record's `measures` hold the score, moves, question cost and
count, hardness level and quest type that the metrics (`handmethat_metrics`) read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from homesim.agents.expert_agent import ExpertAgent
from homesim.agents.handmethat_heuristic import HandMeThatHeuristicAgent
from homesim.agents.protocol import Agent, AgentAction, TaskSpec
from homesim.agents.random_agent import RandomAgent
from homesim.agents.registry import make_agent
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import OBSERVABILITY, HandMeThatEnv
from homesim.evaluation.handmethat.metrics import HANDMETHAT_METRICS
from homesim.evaluation.handmethat.report import compare_runs, handmethat_table
from homesim.evaluation.records import EpisodeRecord, unplayed_record
from homesim.evaluation.runner import AGENT_ERROR, ask_agent, reset_agent
from homesim.evaluation.suite import Comparison, OptionError, Suite

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple[str, int]  # split, episode index

# what the oracle variants are told, in HandMeThat's goal language: the human's hidden goal, or the part of
# it the request serves (their episode files' `_goal` and `_subgoal`)
ORACLES: dict[str, Callable[[HandMeThatEpisode], str]] = {
    "goal": lambda episode: episode.goal,
    "subgoal": lambda episode: episode.subgoal,
}


def work_items(splits: Mapping[str, Sequence[HandMeThatEpisode]], config: EvaluationConfig) -> list[WorkItem]:
    return [(split, i) for split, episodes in sorted(splits.items()) for i in range(len(episodes))]


def _measures(episode: HandMeThatEpisode, info: dict) -> dict:
    return {
        "score": info["score"],
        "moves": info["moves"],
        "question_cost": info["question_cost"],
        "questions": info["questions"],
        "level": episode.level,
        "quest_type": episode.quest_type,
    }


def run_handmethat_episode(env: HandMeThatEnv, agent: Agent, episode: HandMeThatEpisode, split: str) -> EpisodeRecord:
    text, info = env.reset(options={"episode": episode})
    task = TaskSpec(episode_id=episode.id, goal=env.task, instructions=())
    hints = getattr(agent, "needs_expert_hints", False)
    oracle = getattr(agent, "needs_oracle", None)
    told = {"oracle": ORACLES[oracle](episode)} if oracle else {}
    commands, success, failures = [], [], []
    terminated = truncated = False
    broken = reset_agent(agent, lambda: task)

    def seen() -> dict:
        observation = {
            "text": text,
            "task": env.task,
            "admissible_commands": info["admissible_commands"],
            "step": info["moves"],
            "score": info["score"],
            "last_action_success": info["last_command_success"],
            "last_action_message": info["problem"],
        }
        return observation | told | ({"expert_command": env.expert_command()} if hints else {})

    raised = False
    while not (terminated or truncated):
        problem = broken
        if problem is None:
            reply, problem = ask_agent(agent, seen)
        if problem is not None:  # the agent raised: the episode ends there
            failures.append([len(commands), problem])
            raised = True
            break
        command = reply.action if isinstance(reply, AgentAction) else reply
        text, _, terminated, truncated, info = env.step(command)
        commands.append([command if isinstance(command, str) else repr(command), None])
        success.append(info["last_command_success"])
        if not info["last_command_success"]:
            failures.append([len(commands) - 1, info["problem"]])
    stopped = terminated and not info["won"]
    return EpisodeRecord(
        episode_id=episode.id,
        annotation=0,
        split=split,
        task_type=episode.quest_type,
        actions=commands,
        action_success=success,
        failures=failures,
        conditions_met=int(info["won"]),
        conditions_total=1,
        goal_satisfied=info["won"],
        path_length=info["moves"],
        reference_length=len(episode.demo_actions),
        stopped=stopped,
        end_reason=AGENT_ERROR if raised else "goal_satisfied" if info["won"] else "stop" if stopped else "max_steps",
        commands=info["moves"],
        suite="handmethat",
        measures=_measures(episode, info),
    )


class HandMeThatRunner:
    """Runs HandMeThat work items with one env and one agent (one per process)."""

    def __init__(
        self, splits: Mapping[str, Sequence[HandMeThatEpisode]], scenes: Mapping, config: EvaluationConfig
    ) -> None:
        self.splits = splits
        self.agent = make_agent(config.agent, config.seed, HANDMETHAT.agents, HANDMETHAT.name)
        episodes = [e for split in splits.values() for e in split]
        observability = config.options.get("observability", "partial")
        self.env = HandMeThatEnv(episodes, observability=observability, max_steps=config.max_steps)

    def run(self, item: WorkItem) -> EpisodeRecord:
        split, index = item
        return run_handmethat_episode(self.env, self.agent, self.splits[split][index], split)


def failed_record(
    splits: Mapping[str, Sequence[HandMeThatEpisode]], scenes: Mapping, item: WorkItem, reason: str
) -> EpisodeRecord:
    """The record of an episode no worker could play: a failure scored as their env would score doing
    nothing (0), with the reason."""
    split, index = item
    episode = splits[split][index]
    info = {"score": 0, "moves": 0, "question_cost": 0, "questions": 0}
    return unplayed_record(
        episode.id,
        split,
        episode.quest_type,
        reason,
        len(episode.demo_actions),
        "handmethat",
        commands=0,
        measures=_measures(episode, info),
    )


def options(given: Mapping[str, object], own: Mapping[str, object]) -> dict:
    """`--observability`: partial (the robot sees its location only; the default) or full; a checkpoint plays
    in the game it learned."""
    trained = own.get("observability")
    if trained is not None and given.get("observability") not in (None, trained):
        raise OptionError(
            "observability", f"trained in the {trained} game, it plays there: give {trained} or leave it out"
        )
    observability = given.get("observability") or trained or "partial"
    if observability not in OBSERVABILITY:
        raise OptionError("observability", f"{observability!r}: use partial or full")
    return {"observability": observability}


HANDMETHAT = Suite(
    name=HandMeThatEpisode.suite,
    title="HandMeThat",
    env_ids=("homesim/HandMeThat-v0",),
    episode_type=HandMeThatEpisode,
    work_items=work_items,
    runner=HandMeThatRunner,
    failed=failed_record,
    metrics=HANDMETHAT_METRICS,
    max_steps=40,
    max_fails=None,
    # the random baseline: a random admissible command; the expert: the live planner's next command; the
    # heuristic: their paper's (ground the request, prefer the kinds the human handled, one trial)
    agents={"random": RandomAgent, "expert": ExpertAgent, "heuristic": HandMeThatHeuristicAgent},
    table=handmethat_table,
    comparisons=(Comparison("handmethat", "the paper's Tables 2 and 3", compare_runs),),
    interfaces=("text",),
    options=options,
    option_names=("observability",),
    # the human's hidden goal and what the request means are what the robot must work out
    hidden=("goal", "subgoal", "meaning", "objects_in_meaning", "level", "demo_actions", "reading"),
    observation_text=lambda observation: str(observation["text"]),
)
