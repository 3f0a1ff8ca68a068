"""ALFRED's sub-goal evaluation (the paper's Table 4): the expert's actions are teacher-forced up to the
start of one sub-goal, then the agent acts until that sub-goal is done, it stops, or a limit is hit.

A sub-goal is done (ALFRED's per-type checks) when: GotoLocation, the agent stands fewer than 3
MoveAhead steps from the planner's destination on the grid; PickupObject, it holds the object;
PutObject, the object is in the receptacle; SliceObject, the object has been cut; ToggleObject, the
object is on; CleanObject / HeatObject / CoolObject, the object is in the cleaned / heated / cooled set.
The record's `goal_satisfied` is the sub-goal's success, so task success and PLW apply unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from homesim.agents.protocol import Agent
from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.metrics import BOOTSTRAP_SAMPLES, figures
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.runner import agent_measures, play, record, task_spec
from homesim.planning.navigation import grid_distance
from homesim.tasks.alfred import Subgoal
from homesim.world.scene import Scene, to_cell
from homesim.world.state import State

GOTO_TOLERANCE = 3  # MoveAhead steps (ALFRED: A* path to the planner's location shorter than 3)
SUBGOAL_TYPES = (
    "GotoLocation",
    "PickupObject",
    "PutObject",
    "CoolObject",
    "HeatObject",
    "CleanObject",
    "SliceObject",
    "ToggleObject",
)


def subgoal_done(scene: Scene, state: State, subgoal: Subgoal) -> bool:
    agent, target = state.agents[0], subgoal.object_id
    match subgoal.action:
        case "GotoLocation":
            here, there = to_cell(agent.x, agent.z), to_cell(*subgoal.location)
            return grid_distance(scene, here, there, limit=GOTO_TOLERANCE - 1) is not None
        case "PickupObject":
            return agent.held == target
        case "PutObject":
            return target in state.objects and subgoal.receptacle_id in state.ancestors(target)
        case "SliceObject":
            return target not in state.objects and any(o.startswith(f"{target}|") for o in state.objects)
        case "ToggleObject":
            return target in state.objects and state.objects[target].is_on
        case "CleanObject":
            return target in state.cleaned
        case "HeatObject":
            return target in state.heated
        case "CoolObject":
            return target in state.cooled
    raise ValueError(f"unknown ALFRED sub-goal {subgoal.action!r}")


def run_subgoal(
    env: AlfredEnv,
    agent: Agent,
    episode: AlfredEpisode,
    index: int,
    annotation: int = 0,
    split: str = "",
    observation_filter: str = "none",
) -> EpisodeRecord:
    subgoal = episode.subgoals[index]
    prefix = [a for a, k in zip(episode.expert_actions, episode.expert_subgoal_index, strict=True) if k < index]
    reference = sum(k == index for k in episode.expert_subgoal_index)
    env.reset(options={"episode": episode, "annotation": annotation})
    history: list | None = [] if hasattr(agent, "follow") else None  # frames only for agents that use them
    observation, info = env.teacher_force(prefix, history)
    played = play(
        env,
        agent,
        task_spec(episode, annotation, start_step=len(prefix)),
        observation,
        info,
        observation_filter,
        finished=lambda: subgoal_done(env.scene, env.state, subgoal),
        prefix=history or (),
    )
    success = {"index": index, "action": subgoal.action, "success": played.done}
    return record(env, episode, annotation, split, played, reference, success, agent_measures(agent))


def summarize_subgoals(records: Sequence[EpisodeRecord], samples: int = BOOTSTRAP_SAMPLES) -> dict:
    """Success and PLW success per sub-goal type, per split."""
    grouped: dict[str, dict[str, list[EpisodeRecord]]] = defaultdict(lambda: defaultdict(list))
    for r in sorted((r for r in records if r.subgoal is not None), key=lambda r: r.key):
        grouped[r.split][r.subgoal["action"]].append(r)
    return {
        split: {kind: figures(rs, samples) for kind, rs in sorted(by_kind.items())}
        for split, by_kind in sorted(grouped.items())
    }
