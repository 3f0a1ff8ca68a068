"""ObjectNav as an evaluation suite: one work item per episode, played in `homesim/ObjectNav-v0` under the
working group's protocol (500 actions, the success criteria chosen in `config.options`), each into an
episode record whose `measures` the ObjectNav metrics read (`evaluation.objectnav.metrics`).

Options (`EvaluationConfig.options`): `criteria` (names, default all four of
`tasks.objectnav_criteria.DEFAULT_CRITERIA`) and `success_distance` (metres, default 1). An agent gets the
images it declares in its `observations` attribute (the frontier agent: depth and semantic), and the
expert's next action when it sets `needs_expert_hints`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from homesim.agents.objectnav.frontier import FrontierAgent
from homesim.agents.objectnav.simple import ObjectNavExpertAgent, ObjectNavRandomAgent
from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.agents.registry import make_agent
from homesim.envs.objectnav.env import CATEGORY_NAMES, ObjectNavEnv, episode_measures
from homesim.evaluation.objectnav.metrics import OBJECTNAV_METRICS
from homesim.evaluation.objectnav.report import objectnav_table
from homesim.evaluation.records import EpisodeRecord, unplayed_record
from homesim.evaluation.runner import ask_agent, reset_agent
from homesim.evaluation.suite import OptionError, RecordDrawing, Suite
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.tasks.objectnav_criteria import CRITERIA, DEFAULT_CRITERIA, SUCCESS_DISTANCE, parse_criteria
from homesim.world.scene import Scene

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple[str, int]  # split, episode index


def objectnav_options(
    criteria: str | Sequence[str] = DEFAULT_CRITERIA, success_distance: float = SUCCESS_DISTANCE
) -> dict:
    """An evaluation's ObjectNav options, checked (`EvaluationConfig.options`)."""
    if not success_distance > 0:
        raise ValueError(f"success distance {success_distance!r}: a positive number of metres")
    return {"criteria": list(parse_criteria(criteria)), "success_distance": float(success_distance)}


def work_items(splits: Mapping[str, Sequence[ObjectNavEpisode]], config: EvaluationConfig) -> list[WorkItem]:
    return [(split, i) for split, episodes in sorted(splits.items()) for i in range(len(episodes))]


def task_spec(episode: ObjectNavEpisode) -> TaskSpec:
    return TaskSpec(
        episode_id=episode.episode_id,
        goal=f"find a {episode.object_category}",
        instructions=(),
        expert_actions=tuple(episode.reference_actions),
    )


class ObjectNavRunner:
    """Plays ObjectNav work items with one env and one agent (one per process)."""

    def __init__(
        self, splits: Mapping[str, Sequence[ObjectNavEpisode]], scenes: Mapping[str, Scene], config: EvaluationConfig
    ):
        self.splits, self.config = splits, config
        options = objectnav_options(**config.options)
        self.agent = make_agent(config.agent, config.seed, OBJECTNAV.agents, OBJECTNAV.name, OBJECTNAV.stop_action)
        pixels = tuple(dict.fromkeys((*config.pixels, *getattr(self.agent, "observations", ()))))
        self.hints = bool(getattr(self.agent, "needs_expert_hints", False))
        episodes = [e for split in splits.values() for e in split]
        self.env = ObjectNavEnv(
            episodes,
            scenes,
            pixels=pixels,
            criteria=options["criteria"],
            success_distance=options["success_distance"],
            max_steps=config.max_steps,
            expert_hints=self.hints,
        )

    def run(self, item: WorkItem) -> EpisodeRecord:
        split, index = item
        episode = self.splits[split][index]
        observation, info = self.env.reset(options={"episode": episode})
        broken = reset_agent(self.agent, lambda: task_spec(episode))
        actions, success, failures = [], [], []
        terminated = truncated = False
        while not (terminated or truncated):
            answer, problem = None, broken
            if broken is None:
                shown = observation | ({"expert_action": info["expert_action"]} if self.hints else {})
                reply, problem = ask_agent(self.agent, lambda: shown)
                if problem is None:
                    answer = reply.action if isinstance(reply, AgentAction) else reply
            observation, _, terminated, truncated, info = self.env.step(answer)
            if terminated:
                break
            actions.append([info["last_action"], None])
            success.append(info["last_action_success"])
            if not info["last_action_success"]:
                failures.append([len(actions) - 1, problem or info["last_action_message"]])
        return EpisodeRecord(
            episode_id=episode.episode_id,
            annotation=0,
            split=split,
            task_type=episode.object_category,
            actions=actions,
            action_success=success,
            failures=failures,
            conditions_met=int(info["success"]),
            conditions_total=1,
            goal_satisfied=info["success"],
            path_length=len(actions),
            reference_length=len(episode.reference_actions),
            stopped=terminated,
            end_reason="stop" if terminated else "max_steps",
            suite="objectnav",
            measures=info["measures"],
        )


def failed_record(
    splits: Mapping[str, Sequence[ObjectNavEpisode]], scenes: Mapping[str, Scene], item: WorkItem, reason: str
) -> EpisodeRecord:
    """The record of an episode no worker could play: a failure that still counts (end reason worker_failed)."""
    split, index = item
    episode = splits[split][index]
    criteria = dict.fromkeys(CRITERIA, False)
    return unplayed_record(
        episode.episode_id,
        split,
        episode.object_category,
        reason,
        len(episode.reference_actions),
        "objectnav",
        measures=episode_measures(episode, criteria, DEFAULT_CRITERIA, episode.geodesic_distance, 0.0, 0),
    )


def options(given: Mapping[str, object], own: Mapping[str, object]) -> dict:
    """`--criteria` and `--success-distance`, checked."""
    try:
        return objectnav_options(
            given.get("criteria") or DEFAULT_CRITERIA, given.get("success_distance") or SUCCESS_DISTANCE
        )
    except ValueError as e:
        raise OptionError("criteria", str(e)) from e


def observation_text(observation: dict) -> str:
    """What the robot perceives, as text: its goal and where GPS+Compass put it (x ahead and y right of its
    start, metres; its heading, degrees left of its start's)."""
    ahead, right = (float(v) for v in observation["gps"])
    heading = math.degrees(float(observation["compass"][0]))
    return (
        f"Find a {CATEGORY_NAMES[int(observation['objectgoal'])]}.\n"
        f"You are {ahead:.2f} m ahead of and {right:.2f} m right of where you started, facing {heading:.0f} degrees"
        " from your start's heading."
    )


def _draw(path, number, episodes, layouts, out, fps) -> str:
    from homesim.evaluation.objectnav.playback import draw_record

    return draw_record(path, number, episodes, out, fps)


OBJECTNAV = Suite(
    name=ObjectNavEpisode.suite,
    title="ObjectNav",
    env_ids=("homesim/ObjectNav-v0",),
    episode_type=ObjectNavEpisode,
    work_items=work_items,
    runner=ObjectNavRunner,
    failed=failed_record,
    metrics=OBJECTNAV_METRICS,
    leaderboard=("spl", "success", "soft_spl", "distance_to_goal"),
    breakdowns=("by_difficulty", "by_category"),
    max_steps=500,
    max_fails=None,
    stop_action="STOP",
    agents={"expert": ObjectNavExpertAgent, "random": ObjectNavRandomAgent, "frontier": FrontierAgent},
    table=objectnav_table,
    pixels=("rgb", "depth", "semantic"),
    options=options,
    option_names=("criteria", "success_distance"),
    # a challenge's agents get the start and the category only: where the goals are and how far is its secret
    hidden=("goals", "geodesic_distance", "euclidean_distance", "difficulty", "reference_actions"),
    observation_text=observation_text,
    drawing=RecordDrawing((".mp4", ".gif", ".png"), _draw),
)
