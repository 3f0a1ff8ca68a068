"""`homesim render-episode PATH --out FILE.mp4|.gif`: a video of an episode, one frame per action.

PATH is one of:
* an ALFRED `traj_data.json`, played by its expert's low-level actions (its floor plan is rebuilt from
  `--layouts` and the trajectory itself);
* a homesim ALFRED episode JSON (`AlfredEpisode.to_dict()`), played by its `expert_actions`; its scene
  comes from `--scene`, a file `homesim alfred import-scenes` writes;
* a `records.jsonl` that `homesim evaluate` wrote: its `--record N`-th record is played as recorded
  (failed steps fail again, and say so); its episode is looked up in `--episodes`, the source the
  evaluation read (a dataset folder, or ALFRED trajectories with `--layouts`; none: the built-in episodes).
  An ObjectNav record plays as the robot's view beside the navigation map (goals, view points, shortest
  path, the path so far); with `--out MAP.png`, the final map alone (`cli.objectnav_render`).

Registered by `homesim.cli`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import app
from homesim.tasks.alfred import AlfredGoal, goal_conditions
from homesim.world.actions import Action
from homesim.world.scene import Scene
from homesim.world.state import State


def _fail(message: str) -> typer.Exit:
    """Says what is wrong in one line; the caller raises the returned Exit."""
    typer.echo(message if message.startswith("homesim") else f"homesim render-episode: {message}", err=True)
    return typer.Exit(1)


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


@app.command("render-episode")
def render_episode(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="PATH",
            exists=True,
            dir_okay=False,
            help="an ALFRED traj_data.json, a homesim ALFRED episode JSON, or a records.jsonl from homesim evaluate",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="the video to write: .mp4 or .gif (an ObjectNav record: or a .png map)")
    ],
    layouts: Annotated[
        Path | None,
        typer.Option(
            "--layouts",
            exists=True,
            file_okay=False,
            help="folder of ALFRED's layout files (FloorPlanN-layout.npy, -objects.json, -openable.json) (for ALFRED trajectories)",
        ),
    ] = None,
    scene: Annotated[
        Path | None,
        typer.Option(
            "--scene", exists=True, dir_okay=False, help="the episode's scene file, as `alfred import-scenes` writes"
        ),
    ] = None,
    episodes: Annotated[
        Path | None,
        typer.Option(
            "--episodes",
            exists=True,
            help="for a record: the episodes the evaluation read (a homesim dataset folder, or ALFRED trajectories"
            " with --layouts); default: the built-in episodes",
        ),
    ] = None,
    record: Annotated[int, typer.Option("--record", min=1, help="for a records.jsonl: which record (1-based)")] = 1,
    fps: Annotated[float, typer.Option(help="video frames per second (one frame per action)")] = 4.0,
) -> None:
    """Render an episode played by its expert, or as an evaluation recorded it: egocentric view and top-down
    map, with the instruction and each action's outcome."""
    from homesim.errors import DataError
    from homesim.render.context import RenderingUnavailable
    from homesim.cli.record_playback import NotPlayable, is_records_file, read_record
    from homesim.render.renderer import Renderer
    from homesim.render.video import FORMATS, episode_frames, write_video

    try:
        if is_records_file(path) and read_record(path, record).suite == "objectnav":
            return _render_objectnav(path, record, episodes, out, fps)
    except NotPlayable as e:
        raise _fail(str(e)) from e
    except (DataError, KeyError, TypeError, ValueError) as e:
        raise _fail(f"{path}: {e}") from e
    if out.suffix.lower() not in FORMATS:
        raise _fail(f"--out {out}: the video must end in {' or '.join(FORMATS)}")
    try:
        if is_records_file(path):
            playback = _record_playback(path, record, episodes, layouts)
        else:
            playback = _episode_playback(path, layouts, scene)
    except NotPlayable as e:
        raise _fail(str(e)) from e
    except (DataError, KeyError, TypeError, ValueError) as e:
        raise _fail(f"{path}: {e}") from e

    try:
        renderer = Renderer()
    except RenderingUnavailable as e:
        raise _fail(str(e)) from e
    with renderer:
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
    typer.echo(f"{count} frames of {playback.name} in {playback.scene.id} written to {out}")


def _render_objectnav(path: Path, number: int, episodes: Path | None, out: Path, fps: float) -> None:
    """An ObjectNav record as a video of the robot's view and the navigation map, or (.png) the final map."""
    from homesim.cli.objectnav_render import find_objectnav_episode, objectnav_frames, write_objectnav_map
    from homesim.cli.record_playback import read_record
    from homesim.datasets.objectnav.builtin import builtin_objectnav
    from homesim.datasets.sources import read_episodes
    from homesim.render.context import RenderingUnavailable
    from homesim.render.renderer import Renderer
    from homesim.render.video import FORMATS, write_video
    from homesim.world.objectnav.embodiment import LOCOBOT

    if out.suffix.lower() not in (*FORMATS, ".png"):
        raise _fail(f"--out {out}: an ObjectNav record renders to {', '.join(FORMATS)} or .png (the map)")
    played = read_record(path, number)
    if episodes is None:
        built, scenes = builtin_objectnav()
        splits, source = {played.split: built}, "the built-in episodes (give --episodes, the source evaluate read)"
    else:
        read = read_episodes(episodes, None, None, "objectnav")
        splits, scenes, source = read.splits, read.scenes, str(episodes)
    episode, world = find_objectnav_episode(played, splits, scenes, source)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".png":
        write_objectnav_map(out, world, episode, played)
        typer.echo(f"the map of {episode.episode_id} (record {number} of {path}) written to {out}")
        return
    try:
        renderer = Renderer(**LOCOBOT.renderer_settings())
    except RenderingUnavailable as e:
        raise _fail(str(e)) from e
    with renderer:
        count = write_video(out, objectnav_frames(world, episode, played, renderer), fps)
    typer.echo(f"{count} frames of {episode.episode_id} (record {number} of {path}) in {world.id} written to {out}")


def _episode_playback(path: Path, layouts: Path | None, scene: Path | None) -> Playback:
    """An ALFRED trajectory or a homesim episode, played by its expert."""
    from homesim.datasets.alfred.episode import AlfredEpisode, episode_from_trajectory
    from homesim.scenes.alfred import build_scene, gather_evidence

    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise _fail(f"{path}: not valid JSON: {e}") from e
    if isinstance(data, dict) and {"plan", "scene", "task_type"} <= data.keys():
        if layouts is None:
            raise _fail(f"{path} is an ALFRED trajectory: give --layouts, the folder of ALFRED's layout files")
        floor_plan = data["scene"]["floor_plan"]
        world = build_scene(floor_plan, layouts, gather_evidence([data])[floor_plan])
        episode = episode_from_trajectory(str(path), data, world)
    elif isinstance(data, dict) and {"expert_actions", "initial_state", "scene_id"} <= data.keys():
        if scene is None:
            raise _fail(f"{path} is a homesim episode: give --scene, its scene file (from `alfred import-scenes`)")
        world = Scene.from_dict(json.loads(scene.read_text()))
        episode = AlfredEpisode.from_dict(data)
        if world.id != episode.scene_id:
            raise _fail(f"{path} plays in {episode.scene_id}, but --scene {scene} is {world.id}")
    else:
        raise _fail(f"{path} is neither an ALFRED traj_data.json, a homesim ALFRED episode nor a records.jsonl")
    annotation = episode.annotations[0] if episode.annotations else None
    return Playback(
        name=episode.id,
        scene=world,
        state=episode.initial_state,
        actions=list(episode.expert_actions),
        instruction=annotation.task_desc if annotation else episode.goal.task_type,
        directives=annotation.high_descs if annotation else (),
        subgoal_index=episode.expert_subgoal_index,
        goal=episode.goal,
    )


def _record_playback(path: Path, number: int, episodes: Path | None, layouts: Path | None) -> Playback:
    """The `number`-th record of a records.jsonl, its episode read from `episodes` as `homesim evaluate`
    reads it."""
    from homesim.cli.record_playback import find_episode, read_record, record_start, recorded_actions
    from homesim.datasets.sources import read_episodes

    played = read_record(path, number)
    where = f"record {number} of {path}"
    actions, reasons = recorded_actions(played, where)
    read = read_episodes(episodes, layouts, played.split if episodes else None)
    splits, scenes = read.splits, read.scenes
    source = str(episodes) if episodes else "the built-in episodes (give --episodes, the source evaluate read)"
    episode, world = find_episode(played, splits, scenes, source)
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
