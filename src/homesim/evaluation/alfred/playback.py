"""An episode played again: an episode record (a line of the `records.jsonl` that `homesim evaluate` writes)
turned back into what it played (its episode, found in the source the evaluation read, the state it started
from, its actions as recorded) and drawn as a video, as ALFRED's `Suite.drawing`; an episode file played by its
expert (`Playback`) draws the same way. Mask-aimed interactions are not played again (a record keeps a mask,
but what it hit depends on the frame of its step); the text game's commands are, in the text game, for the viewer (`alfred_replay`,
ALFRED's `Suite.replay`), which keeps every state and draws any step on demand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.evaluation.alfred.subgoals import subgoal_done
from homesim.evaluation.records import MASK_PREFIX, EpisodeRecord, NotPlayable, find_recorded_episode, read_record
from homesim.evaluation.suite import IMAGES, Replay
from homesim.render.pictures import depth_picture, mask_picture, segmentation_picture
from homesim.render.renderer import ALFRED, Renderer
from homesim.render.topdown import top_down_map
from homesim.render.video import FORMATS, episode_frames, write_video
from homesim.tasks.alfred import AlfredGoal, Subgoal, goal_conditions
from homesim.world.actions import INTERACT_ACTIONS, Action
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.dynamics import step
from homesim.world.scene import Box, Scene
from homesim.world.state import State


def recorded_actions(record: EpisodeRecord, where: str) -> tuple[list[Action | None], dict[int, str]]:
    """The record's steps as actions (None: the agent's answer was no action), and the recorded reason
    of each failed step."""
    if record.commands is not None:
        raise NotPlayable(f"{where} is from the text game: it holds commands, not the actions a video plays")
    for i, (_, target) in enumerate(record.actions):
        if isinstance(target, str) and target.startswith(MASK_PREFIX):
            raise NotPlayable(
                f"{where} aims its interactions by masks (step {i + 1}: {target[:40]!r}), which cannot be played"
                " again in a video (evaluate with --interaction oracle to render one)"
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


# --- the viewer's replay (ALFRED's `Suite.replay`) ---------------------------------------------------------


def _goal_boxes(scene: Scene, state: State, goal: AlfredGoal, catalog: Catalog) -> list[Box]:
    """Where the objects of the goal's classes are (target, receptacles, lamp); held ones are not drawn."""
    classes = {goal.object_target, goal.target_class, goal.parent_target, goal.mrecep_target, goal.toggle_target}
    boxes = []
    for obj in state.objects.values():
        if obj.cls in classes:
            if obj.id in scene.fixed:
                boxes.append(scene.fixed[obj.id].box)
            elif obj.position is not None:
                boxes.append(Box.around(obj.position, catalog[obj.cls].size))
    return boxes


def _progress(scene: Scene, states: list[State], subgoals: tuple[Subgoal, ...]) -> list[int]:
    """Per state, the first sub-goal of ALFRED's plan not done yet, taking them in order (how far along the
    plan an agent is; the last index once all are done)."""
    reached, current = [], 0
    for state in states:
        while current < len(subgoals) - 1 and subgoal_done(scene, state, subgoals[current]):
            current += 1
        reached.append(current)
    return reached


def segment_kinds(episode: AlfredEpisode) -> list[str]:
    """What each sub-goal segment of the demonstration does: ALFRED's sub-goal (GotoLocation, HeatObject, ...),
    or, for a demonstration without a plan (a person's), its interactions, or "navigation"."""
    count = max(len(episode.subgoals), max(episode.expert_subgoal_index, default=-1) + 1)
    kinds = []
    for k in range(count):
        if k < len(episode.subgoals):
            kinds.append(episode.subgoals[k].action)
            continue
        done = [
            a.name for a, high in zip(episode.expert_actions, episode.expert_subgoal_index, strict=True) if high == k
        ]
        used = [name for name in dict.fromkeys(done) if name in INTERACT_ACTIONS]
        kinds.append(", ".join(used) or "navigation")
    return kinds


def _text_replay(episode: AlfredEpisode, scene: Scene, record: EpisodeRecord) -> Replay:
    """A text-game record: its commands said again in the ALFWorld-style game, the game's answers kept."""
    from homesim.envs.alfred.text import AlfredTextEnv

    env = AlfredTextEnv([episode], {episode.scene_id: scene})
    text, info = env.reset(options={"episode": 0, "annotation": record.annotation if episode.annotations else 0})
    transcript, actions, success, messages = [text], ["start"], [True], [""]
    for command, _ in record.actions:
        if env.over:
            break
        text, _, _, _, info = env.step(str(command))
        transcript.append(f"> {command}\n{text}")
        actions.append(str(command))
        success.append(info["last_command_success"])
        messages.append(info.get("problem", "") if not info["last_command_success"] else "")
    return Replay(
        title=env.task,
        notes=(),
        actions=actions,
        success=success,
        messages=messages,
        ending=f"{record.end_reason}: goal {'met' if record.goal_satisfied else 'not met'}",
        transcript=transcript,
    )


def alfred_replay(
    episode: AlfredEpisode, scenes: Mapping[str, Scene], record: EpisodeRecord | None, options: Mapping[str, object]
) -> Replay:
    """ALFRED's `Suite.replay`: a record's actions (or, with no record, the expert's demonstration) played
    again from where they began, each state kept, so any step's frame is drawn on demand: the view, its
    depth and instance segmentation, the next action's target mask; the map with the path so far and the
    goal's objects outlined; the goal conditions met after each step; and the sub-goal worked on (the
    demonstration's own segments; for a record, the first sub-goal of ALFRED's plan not done yet)."""
    scene, catalog = scenes[episode.scene_id], alfred_catalog()
    if record is not None and record.commands is not None:
        return _text_replay(episode, scene, record)
    if record is None:
        start = RecordStart(episode.initial_state, "", ())
        actions, reasons, recorded = list(episode.expert_actions), {}, ()
        annotation = episode.annotations[0] if episode.annotations else None
    else:
        actions, reasons = recorded_actions(record, f"record of {episode.id}")
        start, recorded = record_start(record, episode, scene), record.action_success
        annotation = episode.annotations[record.annotation] if record.annotation < len(episode.annotations) else None
    states, success, messages = [start.state], [True], [""]
    for i, action in enumerate(actions):
        if action is None:
            states.append(states[-1])
            success.append(False)
            messages.append(reasons.get(i, "no action"))
            continue
        state, event = step(scene, states[-1], action, catalog=catalog)
        states.append(state)
        success.append(event.success)
        message = reasons.get(i, event.message) if not event.success else ""
        if i < len(recorded) and recorded[i] != event.success:
            message += f" (recorded as {'succeeded' if recorded[i] else 'failed'})"
        messages.append(message)
    positions = [(s.agents[0].x, s.agents[0].z) for s in states]
    met = [goal_conditions(scene, s, episode.goal) for s in states]
    directives = annotation.high_descs if annotation else ()
    names = [
        f"{kind}: {directives[k]}" if k < len(directives) else kind for k, kind in enumerate(segment_kinds(episode))
    ]
    if record is None:
        indices = list(episode.expert_subgoal_index)
        segments = indices[:1] + indices
    elif record.subgoal is not None:
        segments = [record.subgoal["index"]] * len(states)
    else:
        segments = _progress(scene, states, episode.subgoals) if episode.subgoals else []

    def image(at: int, picture: str, renderer: Renderer) -> np.ndarray:
        frame = renderer.render(scene, states[at])
        if picture == "depth":
            return depth_picture(frame.depth)
        if picture == "segmentation":
            return segmentation_picture(frame.segmentation, frame.object_ids)
        if picture == "mask":  # the object the next action aims at, in this frame
            target = actions[at].target if at < len(actions) and actions[at] is not None else None
            return mask_picture(frame.rgb, frame.mask(target) if target in frame.object_ids else None)
        return frame.rgb

    def top_down(at: int) -> np.ndarray:
        path = [p for k, p in enumerate(positions[: at + 1]) if k == 0 or p != positions[k - 1]]
        goals = _goal_boxes(scene, states[at], episode.goal, catalog)
        return top_down_map(scene, states[at], path, catalog=catalog, goals=goals)

    ending = "the expert's demonstration" if record is None else record.end_reason
    final = met[-1]
    return Replay(
        title=(annotation.task_desc if annotation else "") or episode.goal.task_type,
        notes=tuple(f"{k + 1}. {d}" for k, d in enumerate(start.directives or directives)),
        actions=["start"] + ["(no action)" if a is None else f"{a.name} {a.target or ''}".strip() for a in actions],
        success=success,
        messages=messages,
        ending=f"{ending}: goal {'met' if final[0] == final[1] else 'not met'} ({final[0]}/{final[1]} goal conditions)",
        images=IMAGES,
        camera=dict(ALFRED),
        image=image,
        top_down=top_down,
        series={f"goal conditions met (of {final[1]})": [float(m) for m, _ in met]},
        segments=segments,
        segment_names=names,
    )
