"""homesim/ALFRED-v0 with pixels: images in the observations, and interactions aimed by masks."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import homesim.envs  # noqa: F401  (registers the env)
from homesim.render import RenderingUnavailable

try:
    PIXEL_ENV = gymnasium.make("homesim/ALFRED-v0", pixels=("rgb", "depth", "segmentation"), interaction="mask").unwrapped
except RenderingUnavailable as e:  # no EGL on this machine: nothing here can run
    pytest.skip(str(e), allow_module_level=True)


def test_the_pixel_env_passes_gymnasiums_checker():
    check_env(PIXEL_ENV, skip_render_check=True)


def test_observations_hold_the_images_and_no_object_ids():
    observation, _ = PIXEL_ENV.reset(seed=0)
    assert observation["rgb"].shape == (300, 300, 3) and observation["rgb"].dtype == np.uint8
    assert observation["depth"].shape == (300, 300) and observation["segmentation"].shape == (300, 300)
    assert "visible_objects" not in observation  # mask mode: agents see pixels, as ALFRED's do


def test_a_ground_truth_mask_aims_at_its_object_and_a_bad_mask_fails():
    PIXEL_ENV.reset(seed=0)
    frame = PIXEL_ENV.frame
    target = next(iter(frame.visible_ids()))
    info = PIXEL_ENV.step({"action": "OpenObject", "target": frame.mask(target)})[-1]
    assert info["last_action_target"] == target  # resolved by IoU to the object the mask covers
    info = PIXEL_ENV.step({"action": "PickupObject", "target": np.zeros((300, 300), dtype=bool)})[-1]
    assert not info["last_action_success"]
    info = PIXEL_ENV.step({"action": "PickupObject", "target": np.ones((5, 5), dtype=bool)})[-1]
    assert not info["last_action_success"] and "300x300 mask" in info["last_action_message"]
