"""An episode played again: an episode record (a line of the `records.jsonl` that `homesim evaluate` writes)
turned back into what it played (its episode, found in the source the evaluation read, the state it started
from, its actions as recorded) and drawn as a video, as ALFRED's `Suite.drawing`; an episode file played by its
expert (`Playback`) draws the same way. A record keeps only the size of a mask, so mask-aimed interactions
cannot be played again; nor can the text game's commands."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.evaluation.records import MASK_PREFIX, EpisodeRecord, NotPlayable, find_recorded_episode, read_record
from homesim.render.renderer import Renderer
from homesim.render.video import FORMATS, episode_frames, write_video
from homesim.tasks.alfred import AlfredGoal, goal_conditions
from homesim.world.actions import Action
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State


def recorded_actions(record: EpisodeRecord, where: str) -> tuple[list[Action | None], dict[int, str]]:
    """The record's steps as actions (None: the agent's answer was no action), and the recorded reason
    of each failed step."""
    if record.commands is not None:
        raise NotPlayable(f"{where} is from the text game: it holds commands, not the actions a video plays")
    for i, (_, target) in enumerate(record.actions):
        if isinstance(target, str) and target.startswith(MASK_PREFIX):
            raise NotPlayable(
                f"{where} aims its interactions by masks (step {i + 1}: {target!r}), and a record keeps only a"
                " mask's size, so it cannot be played again (evaluate with --interaction oracle to render one)"
            )
    actions = [None if name is None else Action(name, target) for name, target in record.actions]
    return actions, {int(i): str(why) for i, why in record.failures}


@dataclass(frozen=True)
class RecordStart:
    state: State
    instruction: str
    directives: tuple[str, ...]


def record_start(record: EpisodeRecord, episode: AlfredEpisode, scene: Scene) -> RecordStart:
    """Where the record's actions begin: the episode's start, or, for a sub-goal evaluation, after the
    expert's actions up to that sub-goal (as the evaluation teacher-forced them); and the record's
    annotation (its instruction, and the sub-goal's directive)."""
    state = episode.initial_state
    annotation = episode.annotations[record.annotation] if record.annotation < len(episode.annotations) else None
    instruction = annotation.task_desc if annotation else episode.goal.task_type
    if record.subgoal is None:
        return RecordStart(state, instruction, ())
    index = record.subgoal["index"]
    for action, high in zip(episode.expert_actions, episode.expert_subgoal_index, strict=True):
        if high < index:
            state, _ = step(scene, state, action)
    directive = annotation.high_descs[index] if annotation and index < len(annotation.high_descs) else ""
    return RecordStart(state, instruction, (directive,) if directive else ())


@dataclass(frozen=True)
class Playback:
    """What a video plays: where, from which state, which actions, and what its captions say."""

    name: str
    scene: Scene
    state: State
    actions: list[Action | None]
    instruction: str
    directives: tuple[str, ...] = ()
    subgoal_index: tuple[int, ...] = ()
    recorded: tuple[bool, ...] = ()
    reasons: dict[int, str] = field(default_factory=dict)
    goal: AlfredGoal | None = None  # the last frame says whether it is met (None: a sub-goal's record)

    def verdict(self, state: State) -> str:
        met, total = goal_conditions(self.scene, state, self.goal)
        return f"goal {'met' if met == total else 'not met'} ({met}/{total} goal conditions)"


def record_playback(path: Path, number: int, episodes: Path | None, layouts: Path | None) -> Playback:
    """The `number`-th record of a records.jsonl, its episode read from `episodes` as `homesim evaluate`
    reads it."""
    from homesim.datasets.sources import read_episodes

    played = read_record(path, number)
    where = f"record {number} of {path}"
    actions, reasons = recorded_actions(played, where)
    read = read_episodes(episodes, layouts, played.split if episodes else None)
    splits, scenes = read.splits, read.scenes
    source = str(episodes) if episodes else "the built-in episodes (give --episodes, the source evaluate read)"
    episode = find_recorded_episode(played, splits, source, lambda e: e.id)
    world = scenes[episode.scene_id]
    start = record_start(played, episode, world)
    return Playback(
        name=f"{episode.id} ({where})",
        scene=world,
        state=start.state,
        actions=actions,
        instruction=start.instruction,
        directives=start.directives,
        subgoal_index=(0,) * len(actions) if start.directives else (),
        recorded=tuple(played.action_success),
        reasons=reasons,
        goal=None if played.subgoal else episode.goal,
    )


def check_video(out: Path) -> None:
    if out.suffix.lower() not in FORMATS:
        raise NotPlayable(f"--out {out}: the video must end in {' or '.join(FORMATS)}")


def write_playback(playback: Playback, out: Path, fps: float) -> str:
    """The playback as a video (egocentric view and top-down map, with the instruction and each action's
    outcome); what was written, in one line. Without EGL, `RenderingUnavailable` says so."""
    check_video(out)
    with Renderer() as renderer:
        frames = episode_frames(
            playback.scene,
            playback.state,
            playback.actions,
            renderer,
            instruction=playback.instruction,
            directives=playback.directives,
            subgoal_index=playback.subgoal_index,
            recorded=playback.recorded,
            reasons=playback.reasons,
            verdict=playback.verdict if playback.goal is not None else None,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        count = write_video(out, frames, fps)
    return f"{count} frames of {playback.name} in {playback.scene.id} written to {out}"


def draw_record(path: Path, number: int, episodes: Path | None, layouts: Path | None, out: Path, fps: float) -> str:
    """ALFRED's `Suite.drawing`: the `number`-th record of a records.jsonl as a video."""
    check_video(out)
    return write_playback(record_playback(path, number, episodes, layouts), out, fps)
