"""Pictures for people: the top-down map, episode videos, and `homesim render-episode` (run through a
typer app holding just that command, as the CLI registers it)."""

from __future__ import annotations

import json

import imageio.v3 as iio
import numpy as np
import pytest
from render_support import make_renderer, run_render_episode
from world_fixtures import STATIONS, kitchen

from homesim.datasets.alfred.episode import episode_from_trajectory
from homesim.render.topdown import AGENT_COLOUR, PATH_COLOUR, save_map, top_down_map
from homesim.render.video import compose, episode_frames, write_video
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.world.actions import Action

SHORT_TRAJECTORY = "train/look_at_obj_in_light-Pillow-None-DeskLamp-303/trial_T20190907_034918_885162"  # 13 actions


@pytest.fixture(scope="module")
def short_trajectory(alfred_samples):
    return alfred_samples / SHORT_TRAJECTORY / "traj_data.json"


def has_colour(image: np.ndarray, colour) -> bool:
    return bool((np.abs(image.astype(int) - np.round(np.array(colour) * 255)).sum(axis=-1) <= 3).any())


# --- the map -------------------------------------------------------------------------------------------


def test_the_map_shows_the_room_the_path_and_the_agent(tmp_path):
    scene, state = kitchen(STATIONS["start"])
    path = [(0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]
    image = top_down_map(scene, state, path)
    assert image.dtype == np.uint8 and image.ndim == 3 and min(image.shape[:2]) > 100
    assert has_colour(image, PATH_COLOUR) and has_colour(image, AGENT_COLOUR)
    assert not has_colour(top_down_map(scene, state), PATH_COLOUR)
    save_map(tmp_path / "map.png", image)
    assert np.array_equal(iio.imread(tmp_path / "map.png"), image)


# --- videos ------------------------------------------------------------------------------------------


def test_a_video_frame_is_the_view_and_the_map_with_a_caption():
    view = np.zeros((300, 300, 3), np.uint8)
    frame = compose(view, np.full((100, 80, 3), 200, np.uint8), ["Put an apple in the fridge.", "1/3 MoveAhead_25"])
    assert frame.shape[0] % 16 == 0 and frame.shape[1] % 16 == 0
    assert frame.shape[0] > 300 and frame.shape[1] >= 300 + 240  # the map scaled to the view's height
    assert (frame[310:, :, :] > 200).any()  # text


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_episode_videos_have_a_frame_per_action(tmp_path, suffix):
    renderer = make_renderer()
    scene, state = kitchen(STATIONS["counter"])
    actions = [Action("RotateLeft_90"), Action("MoveAhead_25"), Action("LookDown_15")]
    frames = list(episode_frames(scene, state, actions, renderer, instruction="Look around."))
    assert len(frames) == 4 and len({f.shape for f in frames}) == 1
    assert write_video(tmp_path / f"walk{suffix}", frames, fps=2) == 4
    assert len(iio.imread(tmp_path / f"walk{suffix}", index=None)) == 4
    renderer.close()


def test_videos_are_mp4_or_gif_only(tmp_path):
    with pytest.raises(ValueError, match=".mp4 or .gif"):
        write_video(tmp_path / "walk.avi", [])


# --- homesim render-episode ------------------------------------------------------------------------------


def test_render_an_alfred_trajectory(short_trajectory, alfred_layouts, tmp_path):
    make_renderer().close()  # skips where there is no EGL
    out = tmp_path / "videos" / "pillow.mp4"
    result = run_render_episode(short_trajectory, "--layouts", alfred_layouts, "--out", out)
    assert result.exit_code == 0, result.output
    assert "14 frames" in result.output and "FloorPlan303" in result.output
    assert len(iio.imread(out, index=None)) == 14  # the start and one per action


def test_render_a_homesim_episode_with_its_scene_file(short_trajectory, alfred_layouts, tmp_path):
    make_renderer().close()
    data = json.loads(short_trajectory.read_text())
    floor_plan = data["scene"]["floor_plan"]
    scene = build_scene(floor_plan, alfred_layouts, gather_evidence([data])[floor_plan])
    episode = episode_from_trajectory(str(short_trajectory), data, scene)
    (tmp_path / "episode.json").write_text(json.dumps(episode.to_dict()))
    (tmp_path / f"{floor_plan}.json").write_text(json.dumps(scene.to_dict()))
    out = tmp_path / "pillow.gif"
    result = run_render_episode(tmp_path / "episode.json", "--scene", tmp_path / f"{floor_plan}.json", "--out", out)
    assert result.exit_code == 0, result.output
    assert len(iio.imread(out, index=None)) == 14


def test_render_episode_says_what_is_missing_in_one_line(short_trajectory, alfred_layouts, tmp_path):
    cases = [
        ((short_trajectory, "--out", tmp_path / "v.mp4"), "give --layouts"),
        ((short_trajectory, "--layouts", alfred_layouts, "--out", tmp_path / "v.avi"), "must end in .mp4 or .gif"),
    ]
    episode = tmp_path / "episode.json"
    episode.write_text(json.dumps({"expert_actions": [], "initial_state": {}, "scene_id": "FloorPlan1"}))
    cases.append(((episode, "--out", tmp_path / "v.gif"), "give --scene"))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    cases.append(((other, "--out", tmp_path / "v.gif"), "is neither an ALFRED traj_data.json"))
    for args, message in cases:
        result = run_render_episode(*args)
        assert result.exit_code == 1
        assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_render_episode_refuses_a_scene_file_of_another_floor_plan(short_trajectory, alfred_layouts, tmp_path):
    data = json.loads(short_trajectory.read_text())
    scene = build_scene("FloorPlan303", alfred_layouts, gather_evidence([data])["FloorPlan303"])
    episode = episode_from_trajectory(str(short_trajectory), data, scene)
    (tmp_path / "episode.json").write_text(json.dumps({**episode.to_dict(), "scene_id": "FloorPlan1"}))
    (tmp_path / "scene.json").write_text(json.dumps(scene.to_dict()))
    result = run_render_episode(
        tmp_path / "episode.json", "--scene", tmp_path / "scene.json", "--out", tmp_path / "v.gif"
    )
    assert result.exit_code == 1 and "plays in FloorPlan1, but --scene" in result.output
