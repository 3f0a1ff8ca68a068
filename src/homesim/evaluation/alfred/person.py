"""ALFRED played by a person in the browser (its `Suite.person`), as ALFRED's people played it in AI2-THOR for
the paper's human baseline: the embodied env under ALFRED's limits, in mask mode. Keys move, turn, look and
stop; a click on the view aims the interaction chosen at what is under the cursor: the pixels of the thing
drawn there are the mask that ALFRED's mask interface resolves (`render.masks`: IoU with each instance).

The record names the object each mask resolved to (an agent's mask-mode record keeps the mask, not what it hit), so
a person's episode plays again in the viewer; a won episode is also a demonstration, the person's actions
that worked cut into sub-goal segments where navigation gives way to interaction and back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.runner import Play, record
from homesim.evaluation.suite import GameView
from homesim.evaluation.records import EpisodeRecord
from homesim.tasks.alfred import Annotation
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, Action
from homesim.world.scene import Scene


def segments(actions: Sequence[Action]) -> tuple[int, ...]:
    """ALFRED's high_idx for a person's actions: one sub-goal per run of navigation, one per run of
    interactions (a Clean, Heat or Cool is several interactions in a row, as in ALFRED's plans)."""
    index, interacting, found = -1, None, []
    for action in actions:
        if (action.name in INTERACT_ACTIONS) != interacting:
            index, interacting = index + 1, action.name in INTERACT_ACTIONS
        found.append(index)
    return tuple(found)


class AlfredGame:
    """One ALFRED episode a person plays (its first annotation's goal and directives)."""

    def __init__(self, episode: AlfredEpisode, scenes: Mapping[str, Scene], split: str, options: Mapping) -> None:
        self.episode, self.split = episode, split
        world = {episode.scene_id: scenes[episode.scene_id]}
        self.env = AlfredEnv([episode], world, pixels=("rgb", "segmentation"), interaction="mask")
        self.observation, info = self.env.reset(options={"episode": 0})
        self.played = Play(info=info)
        self.over = False

    def view(self) -> GameView:
        annotation = self.episode.annotations[0] if self.episode.annotations else None
        lines = [f"Your task: {annotation.task_desc if annotation else self.episode.goal.task_type}"]
        lines += [f"{k + 1}. {d}" for k, d in enumerate(annotation.high_descs if annotation else ())]
        info = self.played.info
        if info.get("last_action"):
            outcome = "done" if info["last_action_success"] else f"failed: {info['last_action_message']}"
            lines.append(f"{info['last_action']} {info['last_action_target'] or ''}: {outcome}".replace("  ", " "))
        message = "" if info["last_action_success"] else info["last_action_message"]
        return GameView("\n".join(lines), self.observation["rgb"], step=info["steps"], message=message)

    def act(self, action: str, pixel: tuple[int, int] | None = None) -> None:
        if self.over:
            raise ValueError(f"episode {self.episode.id} is over")
        if action not in ACTIONS:
            raise ValueError(f"{action!r} is not one of ALFRED's actions ({', '.join(ACTIONS)})")
        target = None
        if action in INTERACT_ACTIONS:
            segmentation = self.observation["segmentation"]
            if pixel is None or not (0 <= pixel[0] < segmentation.shape[0] and 0 <= pixel[1] < segmentation.shape[1]):
                raise ValueError(f"{action} is aimed: click on the view (got {pixel})")
            target = segmentation == segmentation[pixel]  # the thing drawn under the cursor
        self.observation, _, stopped, truncated, info = self.env.step({"action": action, "target": target})
        self.played.info, self.played.stopped = info, stopped
        if not stopped:  # ALFRED's stop is no step
            self.played.keep(
                info["last_action"],
                info["last_action_target"],
                info["last_action_success"],
                info["last_action_message"],
            )
        self.over = stopped or truncated

    def record(self) -> EpisodeRecord:
        return record(self.env, self.episode, 0, self.split, self.played, len(self.episode.expert_actions))

    def demonstration(self) -> AlfredEpisode | None:
        """A won episode with the person's actions that worked as its demonstration (failed ones change nothing);
        its goal sentence kept, its directives left to be written (`homesim annotate`)."""
        if not (self.over and self.played.info["goal_satisfied"]):
            return None
        worked = [Action(name, target if name in INTERACT_ACTIONS else None)
                  for (name, target), ok in zip(self.played.actions, self.played.success, strict=True) if ok]  # fmt: skip
        goals = tuple(Annotation(a.task_desc, ()) for a in self.episode.annotations[:1])
        return replace(self.episode, expert_actions=tuple(worked), expert_subgoal_index=segments(worked),
                       annotations=goals, subgoals=())  # fmt: skip

    def close(self) -> None:
        self.env.renderer.close()
