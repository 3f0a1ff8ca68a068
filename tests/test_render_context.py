"""Without EGL: asking for pixels says so in one clear line, and everything that needs no pixels keeps
working. The failure is real: moderngl is pointed at an EGL library that does not exist."""

from __future__ import annotations

import moderngl
import numpy as np
import pytest
from render_support import run_render_episode
from world_fixtures import STATIONS, kitchen

from homesim.render import Renderer, RenderingUnavailable, context
from homesim.render.masks import decode, encode
from homesim.render.topdown import top_down_map
from homesim.world.actions import Action
from homesim.world.dynamics import step


@pytest.fixture
def no_egl(monkeypatch):
    real = moderngl.create_context

    def missing_egl(**settings):
        return real(**settings, libegl="libEGL-missing.so.1")

    monkeypatch.setattr(context.moderngl, "create_context", missing_egl)


def test_the_renderer_says_egl_is_missing_in_one_line(no_egl):
    with pytest.raises(RenderingUnavailable) as failure:
        Renderer()
    message = str(failure.value)
    assert "\n" not in message
    assert message.startswith("homesim: no headless OpenGL (EGL) context")
    assert "libEGL-missing.so.1" in message and "everything else works" in message


def test_render_episode_prints_that_line_and_exits(no_egl, alfred_samples, alfred_layouts, tmp_path):
    trajectory = next(alfred_samples.rglob("traj_data.json"))
    result = run_render_episode(trajectory, "--layouts", alfred_layouts, "--out", tmp_path / "v.mp4")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [result.output.strip()]
    assert result.output.startswith("homesim: no headless OpenGL (EGL) context")
    assert not (tmp_path / "v.mp4").exists()


def test_everything_without_pixels_keeps_working(no_egl):
    scene, state = kitchen(STATIONS["start"])
    state, event = step(scene, state, Action("MoveAhead_25"))
    assert event.success
    assert top_down_map(scene, state, [(0.5, 0.5), (0.5, 0.75)]).ndim == 3
    mask = np.zeros((300, 300), bool)
    mask[10, 20:30] = True
    assert np.array_equal(decode(encode(mask)), mask)
