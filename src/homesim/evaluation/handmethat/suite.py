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
count, hardness level and quest type that the metrics (`handmethat_metrics`) read, and each command's reward
(`rewards`), from which `check_record` recomputes them (`homesim verify`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from homesim.agents.expert_agent import ExpertAgent
from homesim.agents.handmethat_heuristic import HandMeThatHeuristicAgent
from homesim.agents.protocol import Agent, AgentAction, TaskSpec
from homesim.agents.random_agent import RandomAgent
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import MAX_STEPS, OBSERVABILITY, SUCCESS_REWARD, Costs, HandMeThatEnv
from homesim.language.handmethat.commands import QUESTION
from homesim.language.handmethat.speech import SAY_IT_CLEARLY
from homesim.evaluation.handmethat.metrics import HANDMETHAT_METRICS
from homesim.evaluation.handmethat.playback import handmethat_replay
from homesim.evaluation.handmethat.report import compare_runs, handmethat_table
from homesim.evaluation.records import EpisodeRecord, unplayed_record
from homesim.evaluation.runner import AGENT_ERROR, Play, agent_measures, ask_agent, reset_agent
from homesim.evaluation.suite import Breakdown, Comparison, OptionError, PersonPlay, Protocol, Suite, TextPlay
from homesim.language.handmethat import speech
from homesim.language.handmethat.text import HELP

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


def _measures(episode: HandMeThatEpisode, info: dict, rewards: list[float]) -> dict:
    return {
        "score": info["score"],
        "moves": info["moves"],
        "question_cost": info["question_cost"],
        "questions": info["questions"],
        "level": episode.level,
        "quest_type": episode.quest_type,
        "rewards": rewards,
    }


def _cost(command: str, costs: Costs = Costs()) -> tuple[float, bool]:
    """What saying a command costs in their env, and whether it is a question (`envs.handmethat`)."""
    said = command.strip().lower()
    if said.startswith(QUESTION):
        return (costs.say_it_clearly if SAY_IT_CLEARLY in said else costs.question), True
    return (costs.observe if said in ("look", "examine") else costs.action), False


def check_record(record: EpisodeRecord, config: object, splits: object = None, scenes: object = None) -> list[str]:
    """Where a HandMeThat record disagrees with its own commands and rewards: each reward is the command's
    cost (plus 100 on the one that reached the goal), the score their sum, the question cost and count, the
    moves and success as the rewards say."""
    m = record.measures
    if record.end_reason == "worker_failed":
        return []
    if "rewards" not in m:
        return ["no per-command rewards (a record written before homesim kept them): its score cannot be checked"]
    problems, question_cost, questions = [], 0.0, 0
    commands = [said for said, _ in record.actions]
    if len(m["rewards"]) != len(commands):
        return [f"{len(m['rewards'])} rewards for {len(commands)} commands"]
    for k, (said, reward) in enumerate(zip(commands, m["rewards"])):
        cost, question = _cost(said) if isinstance(said, str) else (Costs().action, False)
        won = record.goal_satisfied and k == len(commands) - 1
        if reward != SUCCESS_REWARD * won - cost:
            problems.append(
                f"command {k + 1} ({said!r}) earned {reward}, but costs {cost}" + (" and won" if won else "")
            )
        question_cost += cost * question
        questions += question
    for name, value in (
        ("score", sum(m["rewards"])),
        ("question_cost", question_cost),
        ("questions", questions),
        ("moves", len(commands)),
    ):
        if m[name] != value:
            problems.append(f"{name} is {m[name]}, but its commands give {value}")
    if record.path_length != len(commands) or record.commands != len(commands):
        problems.append(f"path length {record.path_length} and commands {record.commands} for {len(commands)} commands")
    return problems


def run_handmethat_episode(env: HandMeThatEnv, agent: Agent, episode: HandMeThatEpisode, split: str) -> EpisodeRecord:
    text, info = env.reset(options={"episode": episode})
    task = TaskSpec(episode_id=episode.id, goal=env.task, instructions=(), task_type=episode.quest_type)
    hints = getattr(agent, "needs_expert_hints", False)
    oracle = getattr(agent, "needs_oracle", None)
    told = {"oracle": ORACLES[oracle](episode)} if oracle else {}
    played, rewards = Play(), []
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
            played.failures.append([len(played.actions), problem])
            raised = True
            break
        command = reply.action if isinstance(reply, AgentAction) else reply
        text, reward, terminated, truncated, info = env.step(command)
        rewards.append(reward)
        said = command if isinstance(command, str) else repr(command)
        played.keep(said, None, info["last_command_success"], info["problem"])
    stopped = terminated and not info["won"]
    return handmethat_record(episode, split, played, info, stopped, agent_measures(agent), rewards, raised)


def handmethat_record(
    episode: HandMeThatEpisode,
    split: str,
    played: Play,
    info: dict,
    stopped: bool,
    agent: dict | None = None,
    rewards: Sequence[float] = (),
    raised: bool = False,
) -> EpisodeRecord:
    """An episode's record from the commands said, the env's last `info` (won, score, moves, questions), the
    agent's own figures (`runner.agent_measures`), each command's reward, and whether the agent's exception
    ended it."""
    return EpisodeRecord(
        episode_id=episode.id,
        annotation=0,
        split=split,
        task_type=episode.quest_type,
        actions=played.actions,
        action_success=played.success,
        failures=played.failures,
        conditions_met=int(info["won"]),
        conditions_total=1,
        goal_satisfied=info["won"],
        path_length=info["moves"],
        reference_length=len(episode.demo_actions),
        stopped=stopped,
        end_reason=AGENT_ERROR if raised else "goal_satisfied" if info["won"] else "stop" if stopped else "max_steps",
        commands=info["moves"],
        suite="handmethat",
        measures=_measures(episode, info, rewards) | (agent or {}),
    )


class HandMeThatRunner:
    """Runs HandMeThat work items with one env and one agent (one per process)."""

    def __init__(
        self,
        splits: Mapping[str, Sequence[HandMeThatEpisode]],
        scenes: Mapping,
        config: EvaluationConfig,
        agent: Agent | None = None,
    ) -> None:
        self.splits = splits
        self.agent = agent or HANDMETHAT.agent(config)
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
        measures=_measures(episode, info, []),
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


RULES = (
    "You are a robot in a house. A human has been working towards a goal; they stopped and asked you for"
    " something. Work out what they want and do it. Each turn, say one command.\n" + HELP + "look, examine and"
    " inventory cost nothing; any other command costs 1, a question 10 (\"question: can you say it clearly\" 30);"
    f" reaching the human's goal scores 100. You have {MAX_STEPS} commands; say stop to give up."
)
QUESTIONS = tuple(
    f"question: {q}"
    for q in (
        speech.SAY_IT_CLEARLY, "which type do you mean", "which color do you like", "which size do you like",
        "where is the object you want", *(f"do you want a {s} one" for s in speech.QUESTION_STATES),
        "where do you want to place it",
    )
)  # fmt: skip
GOALS = {"move": "go to the {}", "pick": "get the {}", "give": "hand the {} to the human", "open": "open the {}"}


def _thought(command: str) -> str:
    """What the expert is about, from its command (example games' thoughts)."""
    verb, _, rest = command.partition(" ")
    rest = rest.removeprefix("to ").removeprefix("up ").removesuffix(" to human")
    return GOALS.get(verb, "{}").format(rest if verb in GOALS else command)


TEXT_PLAY = TextPlay(
    rules=lambda observation: RULES,
    commands=lambda observation: [*observation["admissible_commands"], "look", "inventory", *QUESTIONS, "stop"],
    action=lambda command: command,
    expert=lambda observation: (observation["expert_command"] or "stop", _thought(observation["expert_command"] or "")),
    stop="stop",
)
LEVELS = Breakdown("level", lambda record: f"level {record.measures.get('level')}", ("level 1", "level 2", "level 3", "level 4"))


def _game(episode, scenes, split, options):
    from homesim.evaluation.handmethat.person import HandMeThatGame

    return HandMeThatGame(episode, scenes, split, options)


HANDMETHAT = Suite(
    name=HandMeThatEpisode.suite,
    title="HandMeThat",
    env_ids=("homesim/HandMeThat-v0",),
    episode_type=HandMeThatEpisode,
    work_items=work_items,
    runner=HandMeThatRunner,
    failed=failed_record,
    metrics=HANDMETHAT_METRICS,
    leaderboard=("score", "success_rate", "moves_in_success"),
    breakdowns=("by_level", "by_quest_type"),
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
    template="homesim.agents.templates.handmethat",
    text_play=TEXT_PLAY,
    task_type=lambda episode: episode.quest_type,
    breakdown=LEVELS,
    replay=handmethat_replay,
    success="success_rate",
    person=PersonPlay(keys={}, aimed=(), typed=True, game=_game),
    # their evaluation (scripts/eval_seq.py over data_generation/text_interface/env.py), the only one there is
    protocols=(Protocol("handmethat", "HandMeThat's evaluation: their env's costs, 40 commands, success = score > 0"),),
    check_record=check_record,
)
