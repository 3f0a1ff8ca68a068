"""Shared pieces of the render tests: renderers that skip (with EGL's reason) where no headless OpenGL
context can be made, and the real ALFRED valid_seen scenes with the states met along their demonstrations."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from homesim.cli.render import render_episode
from homesim.datasets.alfred.episode import AlfredEpisode, episode_from_trajectory
from homesim.datasets.alfred.trajectories import RawTrajectory, read_trajectories
from homesim.render import Renderer, RenderingUnavailable
from homesim.render.renderer import IMAGES
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State


def make_renderer(
    width: int = 300, height: int = 300, fov: float = 90.0, depth_range=None, images=IMAGES, views: int = 1
) -> Renderer:
    try:
        return Renderer(width, height, fov, depth_range, images=images, views=views)
    except RenderingUnavailable as e:
        pytest.skip(str(e))


_CLI = typer.Typer()
_CLI.command("render-episode")(render_episode)
_CLI.command("unused")(lambda: None)  # two commands, so typer keeps the command name as in the real CLI


def run_render_episode(*args) -> Result:
    """`homesim render-episode ARGS...`, through a typer app holding that command as the CLI registers it."""
    return CliRunner().invoke(_CLI, ["render-episode", *map(str, args)], env={"COLUMNS": "300"})


@cache
def valid_seen(trajectories: Path, layouts: Path) -> tuple[dict[str, Scene], tuple[RawTrajectory, ...]]:
    """The 88 floor plans of valid_seen (rebuilt from its trajectories) and its 251 trajectories."""
    good = tuple(t for t in read_trajectories(trajectories / "valid_seen.jsonl.gz") if isinstance(t, RawTrajectory))
    evidence = gather_evidence(t.data for t in good)
    return {fp: build_scene(fp, layouts, e) for fp, e in evidence.items()}, good


def episode_of(scenes: dict[str, Scene], trajectory: RawTrajectory) -> tuple[Scene, AlfredEpisode]:
    scene = scenes[trajectory.data["scene"]["floor_plan"]]
    return scene, episode_from_trajectory(trajectory.source, trajectory.data, scene)


def oracle_final_state(scene: Scene, episode: AlfredEpisode) -> State:
    state = episode.initial_state
    for action in episode.expert_actions:
        state, _ = step(scene, state, action)
    return state


@cache
def demo_states(trajectories: Path, layouts: Path) -> dict[str, list[State]]:
    """Per floor plan, every state met along its valid_seen demonstrations."""
    scenes, good = valid_seen(trajectories, layouts)
    states: dict[str, list[State]] = {}
    for t in good:
        scene, episode = episode_of(scenes, t)
        state = episode.initial_state
        found = states.setdefault(scene.id, [])
        found.append(state)
        for action in episode.expert_actions:
            state, _ = step(scene, state, action)
            found.append(state)
    return states
