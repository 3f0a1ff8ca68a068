"""`homesim render-episode PATH --out FILE.mp4|.gif`: a video of an episode, one frame per action.

PATH is one of:
* an ALFRED `traj_data.json`, played by its expert's low-level actions (its floor plan is rebuilt from
  `--layouts` and the trajectory itself);
* a homesim ALFRED episode JSON (`AlfredEpisode.to_dict()`), played by its `expert_actions`; its scene
  comes from `--scene`, a file `homesim alfred import-scenes` writes;
* a `records.jsonl` that `homesim evaluate` wrote: its `--record N`-th record is played as recorded
  (failed steps fail again, and say so); its episode is looked up in `--episodes`, the source the
  evaluation read (a dataset folder, or ALFRED trajectories with `--layouts`; none: the built-in episodes).
  It is drawn as its suite draws a record (`Suite.drawing`): ALFRED's as above (`evaluation.alfred.playback`);
  ObjectNav's as the robot's view beside the navigation map (goals, view points, shortest path, the path so
  far), with `--out MAP.png` the final map alone (`evaluation.objectnav.playback`).

Registered by `homesim.cli`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import app
from homesim.evaluation.alfred.playback import Playback
from homesim.world.scene import Scene


def _fail(message: str) -> typer.Exit:
    """Says what is wrong in one line; the caller raises the returned Exit."""
    typer.echo(message if message.startswith("homesim") else f"homesim render-episode: {message}", err=True)
    return typer.Exit(1)


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
    fps: Annotated[
        float, typer.Option(min=0.1, max=240.0, help="video frames per second (one frame per action)")
    ] = 4.0,
) -> None:
    """Render an episode played by its expert, or as an evaluation recorded it: egocentric view and top-down
    map, with the instruction and each action's outcome."""
    from homesim.errors import DataError
    from homesim.evaluation.alfred.playback import check_video, write_playback
    from homesim.evaluation.records import NotPlayable, is_records_file, read_record
    from homesim.evaluation.suites import suite_named
    from homesim.render.context import RenderingUnavailable

    try:
        if is_records_file(path):  # drawn as its suite draws a record
            suite = suite_named(read_record(path, record).suite)
            if suite.drawing is None:
                raise NotPlayable(f"{path}: {suite.title}'s episodes are text, with nothing to draw")
            if out.suffix.lower() not in suite.drawing.formats:
                *first, last = suite.drawing.formats
                formats = f"{', '.join(first)} or {last}" if first else last
                raise NotPlayable(f"--out {out}: a record of {suite.title} renders to {formats}")
            message = suite.drawing.draw(path, record, episodes, layouts, out, fps)
        else:
            check_video(out)
            message = write_playback(_episode_playback(path, layouts, scene), out, fps)
    except (NotPlayable, RenderingUnavailable) as e:
        raise _fail(str(e)) from e
    except (DataError, KeyError, TypeError, ValueError) as e:
        raise _fail(f"{path}: {e}") from e
    typer.echo(message)


def _episode_playback(path: Path, layouts: Path | None, scene: Path | None) -> Playback:
    """An ALFRED trajectory or a homesim episode, played by its expert."""
    from homesim.datasets.alfred.episode import AlfredEpisode, episode_from_trajectory
    from homesim.datasets.formats import AlfredEpisodeModel, SceneModel, checked_in_scene
    from homesim.files import read_json, validated
    from homesim.scenes.alfred import build_scene, gather_evidence

    data = read_json(path)
    if isinstance(data, dict) and {"plan", "scene", "task_type"} <= data.keys():
        if layouts is None:
            raise _fail(f"{path} is an ALFRED trajectory: give --layouts, the folder of ALFRED's layout files")
        floor_plan = data["scene"]["floor_plan"]
        world = build_scene(floor_plan, layouts, gather_evidence([data])[floor_plan])
        episode = episode_from_trajectory(str(path), data, world)
    elif isinstance(data, dict) and {"expert_actions", "initial_state", "scene_id"} <= data.keys():
        if scene is None:
            raise _fail(f"{path} is a homesim episode: give --scene, its scene file (from `alfred import-scenes`)")
        scene_data = read_json(scene)
        validated(SceneModel, scene_data, str(scene))
        checked_in_scene(validated(AlfredEpisodeModel, data, str(path)), scene_data, str(path))
        world = Scene.from_dict(scene_data)
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
