"""ObjectNav as an evaluation suite: one work item per episode, played in `homesim/ObjectNav-v0` (500
actions) under the rules of a protocol, each into an episode record whose `measures` the ObjectNav metrics
read (`evaluation.objectnav.metrics`).

Options (`EvaluationConfig.options`, `envs.objectnav.env.objectnav_rules`): `criteria` (names, of
`tasks.objectnav_criteria.CRITERIA`), `success_distance` (metres, proximity's), `view_point_distance` (metres,
habitat's distance to goal) and `undefined_spl`. The protocols (`PROTOCOLS`) set all four, as data:

* `objectnav-2020` (the default): the working group's (`objectnav-revisited.txt`): STOP on a navigable point
  within 1 m of a goal instance that is in the frame; SPL at its limit where habitat's formula has no value;
* `habitat`: habitat-lab's `Success` (STOP and the geodesic distance to a view point under 0.1 m) and its SPL,
  which has no value where it divides by zero or infinity;
* `robothor`: AllenAct's RoboTHOR ObjectNav (`_is_goal_in_range`: END with a goal instance visible, THOR's
  visibility reaching 1 m; no navigability test) and its `spl_metric`, 0 where no path reaches the goal.
All three measure distances as habitat does (continuous geodesic distances to the nearest view point, d_0
at reset); AllenAct's distance to target runs to the object itself, ours to its view points.

An agent gets the images it declares in its `observations` attribute (the frontier agent: depth and
semantic), and the expert's next action when it sets `needs_expert_hints`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from homesim.agents.objectnav.frontier import FrontierAgent
from homesim.agents.objectnav.simple import ObjectNavExpertAgent, ObjectNavRandomAgent
from homesim.agents.protocol import Agent, AgentAction, TaskSpec
from homesim.envs.objectnav.env import ObjectNavEnv, episode_measures, lattice_pose, objectnav_rules
from homesim.evaluation.objectnav.metrics import OBJECTNAV_METRICS
from homesim.evaluation.objectnav.report import compare_runs, objectnav_table
from homesim.evaluation.objectnav.text_play import TEXT_PLAY, observation_text
from homesim.evaluation.objectnav.verify import check_record
from homesim.evaluation.records import EpisodeRecord, unplayed_record
from homesim.evaluation.runner import AGENT_ERROR, Play, agent_measures, ask_agent, reset_agent
from homesim.evaluation.suite import Comparison, OptionError, PersonPlay, Protocol, RecordDrawing, Suite
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.tasks.objectnav_criteria import CRITERIA, DEFAULT_CRITERIA, SUCCESS_DISTANCE, VIEW_POINT_DISTANCE
from homesim.world.scene import Scene
from homesim.world.state import AgentState

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple[str, int]  # split, episode index


def _rules(criteria: Sequence[str], undefined_spl: str) -> dict:
    return objectnav_rules(criteria, SUCCESS_DISTANCE, VIEW_POINT_DISTANCE, undefined_spl)


PROTOCOLS = (
    Protocol(
        "objectnav-2020",
        "the ObjectNav working group's: STOP on a navigable point within 1 m of a goal in view",
        _rules(DEFAULT_CRITERIA, "limit"),
    ),
    Protocol(
        "habitat",
        "habitat-lab's: STOP within 0.1 m (geodesic) of a view point; no SPL where it divides by 0 or infinity",
        _rules(("intentionality", "distance_to_goal"), "undefined"),
    ),
    Protocol(
        "robothor",
        "AllenAct's RoboTHOR: END with a goal in view within 1 m; SPL 0 where no path reaches the goal",
        _rules(("intentionality", "proximity", "visibility"), "zero"),
    ),
)


def objectnav_options(**settings: object) -> dict:
    """An evaluation's ObjectNav options, checked (`EvaluationConfig.options`): the default protocol's,
    with the settings given."""
    return objectnav_rules(**{**PROTOCOLS[0].settings, **settings})


def work_items(splits: Mapping[str, Sequence[ObjectNavEpisode]], config: EvaluationConfig) -> list[WorkItem]:
    return [(split, i) for split, episodes in sorted(splits.items()) for i in range(len(episodes))]


def task_spec(episode: ObjectNavEpisode) -> TaskSpec:
    return TaskSpec(
        episode_id=episode.episode_id,
        goal=f"find a {episode.object_category}",
        instructions=(),
        expert_actions=tuple(episode.reference_actions),
        task_type=episode.object_category,
    )


class ObjectNavRunner:
    """Plays ObjectNav work items with one env and one agent (one per process)."""

    def __init__(
        self,
        splits: Mapping[str, Sequence[ObjectNavEpisode]],
        scenes: Mapping[str, Scene],
        config: EvaluationConfig,
        agent: Agent | None = None,
    ):
        self.splits, self.config = splits, config
        options = objectnav_options(**config.options)
        self.agent = agent or OBJECTNAV.agent(config)
        pixels = tuple(dict.fromkeys((*config.pixels, *getattr(self.agent, "observations", ()))))
        self.hints = bool(getattr(self.agent, "needs_expert_hints", False))
        episodes = [e for split in splits.values() for e in split]
        self.env = ObjectNavEnv(
            episodes,
            scenes,
            pixels=pixels,
            **options,
            max_steps=config.max_steps,
            expert_hints=self.hints,
        )

    def run(self, item: WorkItem) -> EpisodeRecord:
        split, index = item
        episode = self.splits[split][index]
        observation, info = self.env.reset(options={"episode": episode})
        broken = reset_agent(self.agent, lambda: task_spec(episode))
        played = Play()
        terminated = truncated = raised = False
        while not (terminated or truncated):
            problem = broken
            if problem is None:
                told = {k: info[k] for k in ("last_action_success", "last_action_message")}  # a blocked move
                shown = observation | told | ({"expert_action": info["expert_action"]} if self.hints else {})
                reply, problem = ask_agent(self.agent, lambda: shown)
            if problem is not None:  # the agent raised: the episode ends there, judged where the robot stands
                played.failures.append([len(played.actions), problem])
                info, raised = info | self.env.verdict(), True
                break
            answer = reply.action if isinstance(reply, AgentAction) else reply
            observation, _, terminated, truncated, info = self.env.step(answer)
            if terminated:
                break
            played.keep(info["last_action"], None, info["last_action_success"], info["last_action_message"])
        return objectnav_record(episode, split, played, info, terminated, agent_measures(self.agent), raised)


def objectnav_record(
    episode: ObjectNavEpisode,
    split: str,
    played: Play,
    info: dict,
    stopped: bool,
    agent: dict | None = None,
    raised: bool = False,
) -> EpisodeRecord:
    """An episode's record from its steps (the STOP left out), the env's last `info` (its verdict), the
    agent's own figures (`runner.agent_measures`), and whether the agent's exception ended it."""
    return EpisodeRecord(
        episode_id=episode.episode_id,
        annotation=0,
        split=split,
        task_type=episode.object_category,
        actions=played.actions,
        action_success=played.success,
        failures=played.failures,
        conditions_met=int(info["success"]),
        conditions_total=1,
        goal_satisfied=info["success"],
        path_length=len(played.actions),
        reference_length=len(episode.reference_actions),
        stopped=stopped,
        end_reason=AGENT_ERROR if raised else "stop" if stopped else "max_steps",
        suite="objectnav",
        measures=info["measures"] | (agent or {}),
    )


def failed_record(
    splits: Mapping[str, Sequence[ObjectNavEpisode]], scenes: Mapping[str, Scene], item: WorkItem, reason: str
) -> EpisodeRecord:
    """The record of an episode no worker could play: a failure that still counts (end reason worker_failed),
    scored by the default protocol's rules with the dataset's d_0, from its start pose."""
    split, index = item
    episode = splits[split][index]
    criteria = dict.fromkeys(CRITERIA, False)
    start = lattice_pose(AgentState(*episode.start_position, episode.start_rotation, 0))
    poses = {"start": start, "positions": [start[:2]], "end": start}
    inputs = {"navigable": False, "surface_distances": {}, "seen": [], "oracle_seen": []}
    d0 = episode.geodesic_distance
    measures = episode_measures(episode, PROTOCOLS[0].settings, d0, d0, 0.0, 0, criteria, inputs, poses)
    return unplayed_record(
        episode.episode_id,
        split,
        episode.object_category,
        reason,
        len(episode.reference_actions),
        "objectnav",
        measures=measures,
    )


def options(given: Mapping[str, object], own: Mapping[str, object]) -> dict:
    """The rules given (a protocol's settings, `--criteria`, `--success-distance`), checked, each error naming
    its own option."""
    chosen = {k: v for k, v in given.items() if v is not None}
    for name, value in chosen.items():
        try:
            objectnav_options(**{name: value})
        except (TypeError, ValueError) as e:
            raise OptionError(name, str(e)) from e
    try:
        return objectnav_options(**chosen)
    except (TypeError, ValueError) as e:
        raise OptionError("criteria", str(e)) from e


def warm(splits: Mapping[str, Sequence[ObjectNavEpisode]], scenes: Mapping[str, Scene]) -> None:
    """Resets an env to each episode once: the resets build the scenes' lattices and the goals' distance
    tables, kept on the scenes (the first run of a split read anew spends as long on them as on playing)."""
    episodes = [e for split in splits.values() for e in split]
    env = ObjectNavEnv(episodes, scenes)
    for episode in episodes:
        env.reset(options={"episode": episode})


def _draw(path, number, episodes, layouts, out, fps) -> str:
    from homesim.evaluation.objectnav.playback import draw_record

    return draw_record(path, number, episodes, out, fps)


def _replay(episode, scenes, record, options):
    from homesim.evaluation.objectnav.playback import objectnav_replay

    return objectnav_replay(episode, scenes, record, options)


def _game(episode, scenes, split, options):
    from homesim.evaluation.objectnav.person import ObjectNavGame

    return ObjectNavGame(episode, scenes, split, options)


PERSON_KEYS = {
    "ArrowUp": "MOVE_FORWARD", "w": "MOVE_FORWARD", "ArrowLeft": "TURN_LEFT", "a": "TURN_LEFT",
    "ArrowRight": "TURN_RIGHT", "d": "TURN_RIGHT", "q": "LOOK_UP", "e": "LOOK_DOWN", "Enter": "STOP",
}  # fmt: skip

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
    comparisons=(Comparison("objectnav", "Success, SPL, SoftSPL and DTG, a row per run", compare_runs),),
    pixels=("rgb", "depth", "semantic"),
    options=options,
    option_names=("criteria", "success_distance", "view_point_distance", "undefined_spl"),
    # a challenge's agents get the start and the category only: where the goals are and how far is its secret
    hidden=("goals", "geodesic_distance", "euclidean_distance", "difficulty", "reference_actions"),
    observation_text=observation_text,
    drawing=RecordDrawing((".mp4", ".gif", ".png"), _draw),
    template="homesim.agents.templates.objectnav",
    text_play=TEXT_PLAY,
    warm=warm,
    task_type=lambda episode: episode.object_category,
    episode_id=lambda episode: episode.episode_id,
    replay=_replay,
    success="success",
    person=PersonPlay(keys=PERSON_KEYS, aimed=(), typed=False, game=_game, settings={"pixels": ["rgb"]}),
    protocols=PROTOCOLS,
    check_record=check_record,
)
