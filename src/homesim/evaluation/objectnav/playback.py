"""ObjectNav's `Suite.drawing` (`homesim render-episode` on its records): the record's actions played again in its episode, each
frame the robot's view beside the navigation map (the goal instances, their view points, the shortest
path from the start, the path so far), the last frame with the record's verdict; or, for an `--out`
ending in .png, the final map alone. The viewer's replay (`objectnav_replay`, its `Suite.replay`) keeps every
pose and draws any step on demand."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from homesim.evaluation.records import EpisodeRecord, find_recorded_episode, read_record
from homesim.evaluation.suite import Replay
from homesim.render.pictures import depth_picture, segmentation_picture
from homesim.render.renderer import Renderer
from homesim.render.topdown import (
    AGENT_COLOUR,
    GOAL_COLOUR,
    PATH_COLOUR,
    SHORTEST_COLOUR,
    START_COLOUR,
    VIEW_POINT_COLOUR,
    navigation_map,
    save_map,
)
from homesim.render.video import compose, legend, write_video
from homesim.tasks.objectnav import ObjectNavEpisode, embodied_scene, goal_field
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import ACTIONS, nav_grid, nav_step
from homesim.world.scene import Scene
from homesim.world.state import AgentState, State

LEGEND = (
    ("goal", GOAL_COLOUR),
    ("view points", VIEW_POINT_COLOUR),
    ("shortest path", SHORTEST_COLOUR),
    ("path", PATH_COLOUR),
    ("start", START_COLOUR),
    ("agent and its view", AGENT_COLOUR),
)


def _poses(scene: Scene, episode: ObjectNavEpisode, actions: list[str | None]) -> list[tuple[AgentState, str, bool]]:
    """The start pose, then the pose after each action, the action and whether it succeeded."""
    grid = nav_grid(scene, LOCOBOT)
    agent = AgentState(*episode.start_position, episode.start_rotation, 0)
    poses = [(agent, "start", True)]
    for action in actions:
        if action is None or action not in ACTIONS:
            poses.append((agent, str(action), False))
            continue
        agent, event = nav_step(grid, agent, action)
        poses.append((agent, action, event.success))
    return poses


def _trail(poses: list[tuple[AgentState, str, bool]]) -> list[tuple[float, float]]:
    """The positions the poses pass, each kept once per visit."""
    trail: list[tuple[float, float]] = []
    for agent, _, _ in poses:
        if not trail or trail[-1] != (agent.x, agent.z):
            trail.append((agent.x, agent.z))
    return trail


def _map(scene: Scene, episode: ObjectNavEpisode, shortest: list, path: list, agent: AgentState) -> np.ndarray:
    points = [tuple(p) for p in episode.view_points]
    return navigation_map(scene, State({}, (agent,)), [g.box for g in episode.goals], points, shortest, path)


def objectnav_frames(
    scene: Scene, episode: ObjectNavEpisode, record: EpisodeRecord, renderer: Renderer
) -> Iterator[np.ndarray]:
    actions = [name for name, _ in record.actions] + (["STOP"] if record.stopped else [])
    poses = _poses(scene, episode, actions)
    shortest = _trail(_poses(scene, episode, list(episode.reference_actions)))
    view = embodied_scene(scene, LOCOBOT)
    goal = f"find a {episode.object_category} ({episode.difficulty}, {episode.geodesic_distance:.2f} m away)"
    failed = [name for name in record.measures.get("required", ()) if not record.measures["criteria"].get(name)]
    verdict = "success" if record.goal_satisfied else f"failure: {', '.join(failed)} failed"
    for i, (agent, action, success) in enumerate(poses):
        path = _trail(poses[: i + 1])
        lines = [goal, f"{i}/{len(poses) - 1} {action}" + ("" if success else "  FAILED")]
        if i == len(poses) - 1:
            lines.append(f"END ({record.end_reason}): {verdict}")
        rgb = renderer.render(view, State({}, (agent,))).rgb
        yield compose(rgb, _map(scene, episode, shortest, path, agent), lines, LEGEND)


def write_objectnav_map(out: Path, scene: Scene, episode: ObjectNavEpisode, record: EpisodeRecord) -> None:
    actions = [name for name, _ in record.actions]
    poses = _poses(scene, episode, actions)
    shortest = _trail(_poses(scene, episode, list(episode.reference_actions)))
    image = _map(scene, episode, shortest, _trail(poses), poses[-1][0])
    save_map(out, np.concatenate([image, legend(image.shape[1], LEGEND)]))  # the map with its key


def draw_record(path: Path, number: int, episodes: Path | None, out: Path, fps: float) -> str:
    """The `number`-th record of a records.jsonl as a video of the robot's view and the navigation map, or
    (`out` ending in .png) the final map; what was written, in one line."""
    from homesim.datasets.objectnav.builtin import builtin_objectnav
    from homesim.datasets.sources import read_episodes

    played = read_record(path, number)
    if episodes is None:
        built, scenes = builtin_objectnav()
        splits, source = {played.split: built}, "the built-in episodes (give --episodes, the source evaluate read)"
    else:
        read = read_episodes(episodes, None, None, "objectnav")
        splits, scenes, source = read.splits, read.scenes, str(episodes)
    episode = find_recorded_episode(played, splits, source, lambda e: e.episode_id)
    world = scenes[episode.scene_id]
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".png":
        write_objectnav_map(out, world, episode, played)
        return f"the map of {episode.episode_id} (record {number} of {path}) written to {out}"
    with Renderer(**LOCOBOT.renderer_settings()) as renderer:
        count = write_video(out, objectnav_frames(world, episode, played, renderer), fps)
    return f"{count} frames of {episode.episode_id} (record {number} of {path}) in {world.id} written to {out}"


def objectnav_replay(
    episode: ObjectNavEpisode, scenes: Mapping[str, Scene], record: EpisodeRecord | None, options: Mapping[str, object]
) -> Replay:
    """ObjectNav's `Suite.replay`: a record's actions (or, with no record, the episode's shortest-path reference)
    played again as poses; any step's view (RGB, depth, instance segmentation) drawn on demand from the
    robot's camera, the navigation map with the path so far, and the geodesic distance to the nearest view
    point after each step."""
    scene = scenes[episode.scene_id]
    if record is None:
        actions, reasons = list(episode.reference_actions), {}
    else:
        actions, reasons = (
            [name for name, _ in record.actions] + (["STOP"] if record.stopped else []),
            dict(record.failures),
        )
    poses = _poses(scene, episode, actions)
    shortest = _trail(_poses(scene, episode, list(episode.reference_actions)))
    grid = nav_grid(scene, LOCOBOT)
    field = goal_field(grid, episode.goals)
    distances = [grid.geodesic(field, agent.x, agent.z) for agent, _, _ in poses]
    view = embodied_scene(scene, LOCOBOT)
    nothing: dict = {}  # one objects dict for every frame: the renderer keeps its instances

    def image(at: int, picture: str, renderer: Renderer) -> np.ndarray:
        frame = renderer.render(view, State(nothing, (poses[at][0],)))
        if picture == "depth":
            return depth_picture(frame.depth, LOCOBOT.depth_range[1])
        if picture == "segmentation":
            return segmentation_picture(frame.segmentation, frame.object_ids)
        return frame.rgb

    if record is None:
        ending = "the shortest path's reference"
    else:
        failed = [
            name for name in record.measures.get("required", ()) if not record.measures.get("criteria", {}).get(name)
        ]
        ending = f"{record.end_reason}: " + (
            "success" if record.goal_satisfied else f"failure ({', '.join(failed)} failed)"
        )
    return Replay(
        title=f"find a {episode.object_category}",
        notes=(f"{episode.difficulty}: {episode.geodesic_distance:.2f} m from the start to the nearest view point",),
        actions=[action for _, action, _ in poses],
        success=[ok for _, _, ok in poses],
        messages=[reasons.get(k - 1, "" if ok else "blocked") if not ok else "" for k, (_, _, ok) in enumerate(poses)],
        ending=ending,
        images=("rgb", "depth", "segmentation"),
        camera=LOCOBOT.renderer_settings(),
        image=image,
        top_down=lambda at: _map(scene, episode, shortest, _trail(poses[: at + 1]), poses[at][0]),
        series={"distance to goal (m)": [float(d) if math.isfinite(d) else None for d in distances]},
    )
