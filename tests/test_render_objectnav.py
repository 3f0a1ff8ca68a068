"""ObjectNav pictures: `homesim render-episode` on an ObjectNav record (a video of the robot's view beside
the navigation map, or the final map as a PNG), and the map itself: goals, view points, paths."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest
from render_support import make_renderer, run_render_episode

from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.objectnav.playback import LEGEND
from homesim.evaluation.objectnav.suite import objectnav_options
from homesim.render.video import BACKGROUND, LINE_HEIGHT, legend
from homesim.render.topdown import GOAL_COLOUR, PATH_COLOUR, SHORTEST_COLOUR, VIEW_POINT_COLOUR, navigation_map
from homesim.world.state import AgentState, State


@pytest.fixture(scope="module")
def expert_records(tmp_path_factory):
    episodes, scenes = builtin_objectnav()
    out = tmp_path_factory.mktemp("expert")
    config = EvaluationConfig(agent="expert", suite="objectnav", options=objectnav_options())
    evaluate({"val": episodes[:2]}, scenes, config, out)
    return out / "records.jsonl"


def colour(c) -> np.ndarray:
    return (np.clip(np.array(c), 0, 1) * 255).astype(np.uint8)


def has(image: np.ndarray, c) -> bool:
    return bool((image == colour(c)).all(axis=-1).any())


def test_the_navigation_map_draws_goals_view_points_and_both_paths():
    episodes, scenes = builtin_objectnav()
    episode = episodes[0]
    scene = scenes[episode.scene_id]
    start = episode.start_position
    image = navigation_map(
        scene,
        State({}, (AgentState(*start, 0, 0),)),
        [g.box for g in episode.goals],
        [tuple(p) for p in episode.view_points],
        shortest_path=[start, (start[0] + 1.0, start[1])],
        trajectory=[start, (start[0], start[1] + 1.0)],
    )
    assert all(has(image, c) for c in (GOAL_COLOUR, VIEW_POINT_COLOUR, SHORTEST_COLOUR, PATH_COLOUR))


def test_a_record_renders_as_a_map(expert_records, tmp_path):
    result = run_render_episode(expert_records, "--record", 2, "--out", tmp_path / "map.png")
    assert result.exit_code == 0, result.output
    image = iio.imread(tmp_path / "map.png")
    assert "the map of" in result.output and has(image, PATH_COLOUR)
    key = image[-legend(image.shape[1], LEGEND).shape[0] :]  # the map's key under it, a swatch per colour
    assert all(has(key, c) for _, c in LEGEND) and (key[0] == BACKGROUND).all()


def test_the_key_wraps_onto_more_lines_for_a_narrow_map():
    wide, narrow = legend(2000, LEGEND), legend(200, LEGEND)
    assert wide.shape == (LINE_HEIGHT + 6, 2000, 3) and narrow.shape[0] > 2 * LINE_HEIGHT
    assert all(has(narrow, c) for _, c in LEGEND)


def test_a_record_renders_as_a_video_ending_with_its_verdict(expert_records, tmp_path):
    make_renderer()  # skips without EGL
    result = run_render_episode(expert_records, "--record", 1, "--out", tmp_path / "episode.gif")
    assert result.exit_code == 0, result.output
    frames = iio.imread(tmp_path / "episode.gif", index=None)
    steps = len(builtin_objectnav()[0][0].reference_actions)  # the expert's actions, STOP included
    assert f"{steps + 1} frames" in result.output and len(frames) == steps + 1


def test_bad_output_and_unknown_records_are_one_line_errors(expert_records, tmp_path):
    result = run_render_episode(expert_records, "--out", tmp_path / "x.txt")
    assert result.exit_code == 1 and "renders to .mp4, .gif or .png" in result.output
    result = run_render_episode(expert_records, "--record", 9, "--out", tmp_path / "x.png")
    assert result.exit_code == 1 and "holds 2 record(s)" in result.output
