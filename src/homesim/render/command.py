"""`homesim render-episode PATH --out FILE.mp4|.gif`: a video of an episode played by its expert.

PATH is an ALFRED `traj_data.json` (its expert low-level actions; its floor plan is rebuilt from
`--layouts` and the trajectory itself) or a homesim ALFRED episode JSON (`AlfredEpisode.to_dict()`,
played by its `expert_actions`; its scene comes from `--scene`, a file `homesim alfred import-scenes`
writes). The CLI registers it with `app.command("render-episode")(render_episode)`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def _fail(message: str) -> typer.Exit:
    """Says what is wrong in one line; the caller raises the returned Exit."""
    typer.echo(message if message.startswith("homesim") else f"homesim render-episode: {message}", err=True)
    return typer.Exit(1)


def render_episode(
    path: Annotated[
        Path,
        typer.Argument(exists=True, dir_okay=False, help="an ALFRED traj_data.json, or a homesim ALFRED episode JSON"),
    ],
    out: Annotated[Path, typer.Option("--out", help="the video to write: .mp4 or .gif")],
    layouts: Annotated[
        Path | None,
        typer.Option(
            "--layouts",
            exists=True,
            file_okay=False,
            help="folder of ALFRED's FloorPlanN-{layout.npy,objects.json,openable.json} (for a traj_data.json)",
        ),
    ] = None,
    scene: Annotated[
        Path | None,
        typer.Option(
            "--scene", exists=True, dir_okay=False, help="the episode's scene file, as `alfred import-scenes` writes"
        ),
    ] = None,
    fps: Annotated[float, typer.Option(help="video frames per second (one frame per action)")] = 4.0,
) -> None:
    """Render an episode played by its expert: egocentric view and top-down map, with the instruction and action."""
    from homesim.datasets.alfred import AlfredEpisode, episode_from_trajectory
    from homesim.errors import DataError
    from homesim.render.context import RenderingUnavailable
    from homesim.render.renderer import Renderer
    from homesim.render.video import FORMATS, episode_frames, write_video
    from homesim.scenes.alfred import build_scene, gather_evidence
    from homesim.world.scene import Scene

    if out.suffix.lower() not in FORMATS:
        raise _fail(f"--out {out}: the video must end in {' or '.join(FORMATS)}")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise _fail(f"{path}: not valid JSON: {e}") from e
    try:
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
            raise _fail(f"{path} is neither an ALFRED traj_data.json nor a homesim ALFRED episode")
    except (DataError, KeyError, TypeError, ValueError) as e:
        raise _fail(f"{path}: {e}") from e

    try:
        renderer = Renderer()
    except RenderingUnavailable as e:
        raise _fail(str(e)) from e
    with renderer:
        annotation = episode.annotations[0] if episode.annotations else None
        frames = episode_frames(
            world,
            episode.initial_state,
            episode.expert_actions,
            renderer,
            instruction=annotation.task_desc if annotation else episode.goal.task_type,
            directives=annotation.high_descs if annotation else (),
            subgoal_index=episode.expert_subgoal_index,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        count = write_video(out, frames, fps)
    typer.echo(f"{count} frames of {episode.id} ({world.id}) written to {out}")
