"""ALFRED as an evaluation suite: its work items, one per (episode, human annotation[, sub-goal]), and
its runner, which plays them in the embodied env (ALFRED's protocol, sub-goal evaluation included) or in
the ALFWorld-style text game.

Two protocols (`PROTOCOLS`), both with ALFRED's limits (1000 steps, the 10th failed action ending the
episode uncounted, as `models/eval/eval_task.py` has them):

* `alfred` (the default): homesim's reading of the goal conditions (exact classes, containment at any
  depth, history sets that only grow; `tasks.alfred`), every episode counted;
* `alfred-code`: ALFRED's evaluation code quirk for quirk, so a figure compares with its leaderboard: class
  names matched by substring of the object id, a receptacle's direct contents only, the cleaned / heated /
  cooled sets kept as `thor_env.update_states` keeps them (emptied by an empty receptacle), and the
  episodes that stop at step 0 dropped from every figure (its PLW divides by the path length, raises, and
  the episode is never logged). The embodied interface only: the text game has its own goal test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from homesim.agents.expert_agent import ExpertAgent
from homesim.agents.protocol import Agent
from homesim.agents.random_agent import RandomAgent
from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.envs.alfred.text import AlfredTextEnv
from homesim.evaluation.alfred.baselines import compare_runs
from homesim.evaluation.alfred.subgoals import run_subgoal, summarize_subgoals
from homesim.evaluation.alfred.text_play import BREAKDOWN, TEXT_PLAY, observation_text
from homesim.evaluation.alfred.text_runner import run_text_episode
from homesim.evaluation.alfred.verify import check_record
from homesim.evaluation.metrics import ALFRED_METRICS
from homesim.evaluation.records import EpisodeRecord, unplayed_record
from homesim.evaluation.runner import run_episode
from homesim.evaluation.suite import Comparison, OptionError, PersonPlay, Protocol, RecordDrawing, Suite
from homesim.tasks.alfred import RULES, goal_conditions
from homesim.world.actions import INTERACT_ACTIONS, LOOK_DOWN, LOOK_UP, MOVE_AHEAD, ROTATE_LEFT, ROTATE_RIGHT, STOP
from homesim.world.scene import Scene

INTERFACES = ("embodied", "text")
PERSON_KEYS = {
    "ArrowUp": MOVE_AHEAD, "w": MOVE_AHEAD, "ArrowLeft": ROTATE_LEFT, "a": ROTATE_LEFT,
    "ArrowRight": ROTATE_RIGHT, "d": ROTATE_RIGHT, "q": LOOK_UP, "e": LOOK_DOWN, "Enter": STOP,
}  # fmt: skip  # ALFRED's actions, or ALFWorld's text game over the same episodes

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple[str, int, int, int | None]  # split, episode index, annotation, sub-goal index


def work_items(splits: Mapping[str, Sequence[AlfredEpisode]], subgoals: bool) -> list[WorkItem]:
    items = []
    for split, episodes in sorted(splits.items()):
        for i, episode in enumerate(episodes):
            for annotation in range(max(1, len(episode.annotations))):
                if subgoals:
                    items += [(split, i, annotation, k) for k in range(len(episode.subgoals))]
                else:
                    items.append((split, i, annotation, None))
    return items


class AlfredRunner:
    """Runs ALFRED work items with one env and one agent (one per process)."""

    def __init__(
        self,
        splits: Mapping[str, Sequence[AlfredEpisode]],
        scenes: Mapping[str, Scene],
        config: EvaluationConfig,
        agent: Agent | None = None,
    ):
        self.splits, self.config = splits, config
        self.agent = agent or ALFRED.agent(config)
        episodes = [e for split in splits.values() for e in split]
        # Sub-goal evaluation scores ALFRED's own sub-goals: there the expert replays the demonstration's
        # segment; the live expert would head for the whole task by its own route.
        hints = getattr(self.agent, "needs_expert_hints", False) and not config.subgoals
        if config.interface == "text":
            self.env = AlfredTextEnv(episodes, scenes, max_steps=config.max_steps)
        else:
            rules = {k: v for k, v in config.options.items() if k in RULES}
            self.env = AlfredEnv(
                episodes,
                scenes,
                config.max_steps,
                config.max_fails,
                hints,
                config.pixels,
                config.interaction,
                rules=rules,
            )

    def run(self, item: WorkItem) -> EpisodeRecord:
        split, index, annotation, subgoal = item
        episode = self.splits[split][index]
        if self.config.interface == "text":
            return run_text_episode(self.env, self.agent, episode, annotation, split, self.config.observation_filter)
        if subgoal is None:
            return run_episode(self.env, self.agent, episode, annotation, split, self.config.observation_filter)
        return run_subgoal(self.env, self.agent, episode, subgoal, annotation, split, self.config.observation_filter)


def failed_record(
    splits: Mapping[str, Sequence[AlfredEpisode]], scenes: Mapping[str, Scene], item: WorkItem, reason: str
) -> EpisodeRecord:
    """The record of a work item no worker could play (end reason "worker_failed"): kept in the records as
    a failed episode with the reason, so the run's figures still count it."""
    split, index, annotation, subgoal = item
    episode = splits[split][index]
    _, total = goal_conditions(scenes[episode.scene_id], episode.initial_state, episode.goal)
    return unplayed_record(
        episode.id,
        split,
        episode.goal.task_type,
        reason,
        len(episode.expert_actions),
        "alfred",
        annotation=annotation,
        conditions_total=1 if subgoal is not None else total,
        subgoal=None
        if subgoal is None
        else {"index": subgoal, "action": episode.subgoals[subgoal].action, "success": False},
    )


ZERO_STEP = ("counted", "dropped")  # episodes that stop at step 0: in every figure, or in none (ALFRED's code)
PROTOCOLS = (
    Protocol(
        "alfred",
        "homesim's: exact classes, containment at any depth, every episode counted",
        {"class_matching": "exact", "containment": "any_depth", "history_sets": "growing", "zero_step": "counted"},
    ),
    Protocol(
        "alfred-code",
        "ALFRED's evaluation code quirk for quirk: substring classes, direct contents, step-0 stops dropped",
        {"class_matching": "substring", "containment": "direct", "history_sets": "code", "zero_step": "dropped"},
        interfaces=("embodied",),
    ),
)


def options(given: Mapping[str, object], own: Mapping[str, object]) -> dict:
    """The rules given (a protocol's settings), checked; the default protocol's where none is given."""
    chosen = {**PROTOCOLS[0].settings, **{k: v for k, v in given.items() if v is not None}}
    for name, value in chosen.items():
        known = {**RULES, "zero_step": ZERO_STEP}.get(name)
        if known is None:
            raise OptionError(name, f"ALFRED has no setting {name!r}")
        if value not in known:
            raise OptionError(name, f"{value!r}: one of {', '.join(known)}")
    return chosen


def counted(records: Sequence[EpisodeRecord], options: Mapping[str, object]) -> list[EpisodeRecord]:
    """The records a run's figures count: all, or (ALFRED's code) those that took a step."""
    if options.get("zero_step") == "dropped":
        return [r for r in records if r.path_length > 0 or r.subgoal is not None]
    return list(records)


def _draw(path, number, episodes, layouts, out, fps) -> str:
    from homesim.evaluation.alfred.playback import draw_record

    return draw_record(path, number, episodes, layouts, out, fps)


def _replay(episode, scenes, record, options):
    from homesim.evaluation.alfred.playback import alfred_replay

    return alfred_replay(episode, scenes, record, options)


def _game(episode, scenes, split, options):
    from homesim.evaluation.alfred.person import AlfredGame

    return AlfredGame(episode, scenes, split, options)


ALFRED = Suite(
    name=AlfredEpisode.suite,
    title="ALFRED",
    env_ids=("homesim/ALFRED-v0", "homesim/ALFRED-Text-v0"),
    episode_type=AlfredEpisode,
    work_items=lambda splits, config: work_items(splits, config.subgoals),
    runner=AlfredRunner,
    failed=failed_record,
    metrics=ALFRED_METRICS,
    leaderboard=("task_success", "plw_task_success", "goal_condition_success", "plw_goal_condition_success"),
    breakdowns=("by_task_type",),
    max_steps=1000,
    max_fails=10,
    agents={"random": RandomAgent, "expert": ExpertAgent},
    summary_extras=lambda records: {"subgoals": summarize_subgoals(records)},
    comparisons=(Comparison("baselines", "ALFRED's Tables 1, 3, 4 and A1", compare_runs),),
    interfaces=INTERFACES,
    pixels=("rgb", "depth", "segmentation", "semantic"),
    interactions=("oracle", "mask"),
    subgoals=True,
    ablations=True,
    # ALFRED's test files carry no goal, task type or plan ("we don't provide metadata for test scenes")
    hidden=("goal", "expert_actions", "expert_subgoal_index", "subgoals"),
    observation_text=observation_text,
    drawing=RecordDrawing((".mp4", ".gif"), _draw),
    template="homesim.agents.templates.alfred",
    text_play=TEXT_PLAY,
    task_type=lambda episode: episode.goal.task_type,
    breakdown=BREAKDOWN,
    replay=_replay,
    annotatable=True,
    person=PersonPlay(
        keys=PERSON_KEYS,
        aimed=INTERACT_ACTIONS,
        typed=False,
        game=_game,
        settings={"interaction": "mask", "pixels": ["rgb"]},
    ),
    options=options,
    option_names=(*RULES, "zero_step"),
    protocols=PROTOCOLS,
    counted=counted,
    check_record=check_record,
)
