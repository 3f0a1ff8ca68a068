"""The batch renderer (`render.batch`) draws the single renderer's frames to the bit: the golden frames
(`test_render_golden`: ObjectNav's camera in three houses, ALFRED's in the four room types, open
containers, a held object, amodal renders) drawn in batches give the recorded digests, whatever the batch
size, and views of several scenes mixed in one batch, drawn in several passes, are each their own frame. What
the batch leaves out of a view (`seen`) is only what cannot show, and its cameras are the single renderer's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_render_golden import GOLDEN, alfred_frames, digest, objectnav_frames, rasteriser  # noqa: E402

from homesim.render import OBJECTNAV, Renderer, RenderingUnavailable  # noqa: E402
from homesim.render.batch import PASS, BatchRenderer, seen  # noqa: E402
from homesim.render.camera import Camera  # noqa: E402
from homesim.render.drawables import row  # noqa: E402
from homesim.render.renderer import IMAGES  # noqa: E402
from homesim.scenes.houses import generate_house  # noqa: E402
from homesim.tasks.objectnav import embodied_scene  # noqa: E402
from homesim.world.objectnav.embodiment import LOCOBOT  # noqa: E402
from homesim.world.scene import GRID_SIZE  # noqa: E402
from homesim.world.state import AgentState, State  # noqa: E402


class Requests:
    """Stands in for a renderer: keeps what the golden frames' makers ask for, in order."""

    def __init__(self) -> None:
        self.asked: list[tuple] = []

    def render(self, scene, state, agent: int = 0, only=None) -> int:
        self.asked.append((scene, state, only))
        return len(self.asked) - 1


def batch_renderer(batch: int, **settings) -> BatchRenderer:
    try:
        return BatchRenderer(batch, **settings)
    except RenderingUnavailable as e:
        pytest.skip(str(e))


def batched_digests(frames, settings: dict, batch: int) -> dict[str, dict[str, str]]:
    """The golden frames' digests, the whole views drawn together in batches, each amodal one on its own."""
    requests = Requests()
    names = dict(frames(requests))
    renderer = batch_renderer(batch, **settings)
    whole = iter(renderer.render_many([(scene, state) for scene, state, only in requests.asked if only is None]))
    drawn = [
        next(whole) if only is None else renderer.render_many([(scene, state)], only=only)[0]
        for scene, state, only in requests.asked
    ]
    return {name: {image: digest(getattr(drawn[i], image)) for image in IMAGES} for name, i in names.items()}


@pytest.mark.parametrize("frames, settings, batch", [(objectnav_frames, OBJECTNAV, 5), (alfred_frames, {}, 16)])
def test_batched_frames_are_the_golden_frames(frames, settings, batch):
    golden = json.loads(GOLDEN.read_text())
    if rasteriser() != golden["rasteriser"]:
        pytest.skip(f"the digests are {golden['rasteriser']}'s bits; this is {rasteriser()}")
    found = batched_digests(frames, settings, batch)
    changed = [f"{name}: {image}" for name, images in found.items() for image, d in images.items()
               if golden["frames"][name][image] != d]  # fmt: skip
    assert found and not changed, f"{len(changed)} of {len(found)} frames differ, e.g. {changed[:5]}"


def random_views(houses: tuple[int, ...], count: int, seed: int = 0) -> list[tuple]:
    """Views from random reachable cells of generated houses (any heading and camera pitch), houses interleaved."""
    rng, scenes = np.random.default_rng(seed), [embodied_scene(generate_house(h)[0], LOCOBOT) for h in houses]
    views = []
    for k in range(count):
        scene = scenes[k % len(scenes)]
        x, z = sorted(scene.reachable)[rng.integers(len(scene.reachable))]
        agent = AgentState(
            x * GRID_SIZE, z * GRID_SIZE, int(rng.choice(LOCOBOT.yaws)), int(rng.choice(LOCOBOT.horizons))
        )
        views.append((scene, State(objects={}, agents=(agent,))))
    return views


def assert_single_frames(views: list[tuple], batch: int, settings: dict) -> None:
    frames = batch_renderer(batch, **settings).render_many(views, agent=0)
    single = Renderer(**settings, views=0)
    assert len(frames) == len(views) and frames.depth.shape == (len(views), settings["height"], settings["width"])
    for k, (scene, state) in enumerate(views):
        alone = single.render(scene, state)
        for image in IMAGES:
            assert np.array_equal(getattr(frames[k], image), getattr(alone, image)), (k, image)


def test_views_of_several_houses_in_one_batch_are_each_their_own_frame():
    # a first batch drawn in two passes, then a batch not full
    settings = {"width": 64, "height": 48, "fov": LOCOBOT.hfov, "depth_range": LOCOBOT.depth_range}
    assert_single_frames(random_views((1, 2), PASS + 12), PASS + 4, settings)


@pytest.mark.slow
def test_many_random_views_are_the_single_renderers_frames():
    settings = {"width": 128, "height": 128, "fov": LOCOBOT.hfov, "depth_range": LOCOBOT.depth_range}
    assert_single_frames(random_views((0, 1, 2, 3), 512, seed=7), 64, settings)


def test_a_batch_leaves_out_only_instances_wholly_outside_a_view():
    camera = Camera(128, 128, LOCOBOT.hfov)  # at (0, 1, 0) facing +z; x is on the right
    view_projection = camera.view_projections([(0.0, 1.0, 0.0)], [0], [0]).astype(np.float64)
    half, grey = (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)
    edge = 5 * camera.tan_half[0]  # where the right side of the view is, 5 m ahead
    centres = {"ahead": (0, 1, 5), "behind": (0, 1, -5), "right of the view": (edge + 2, 1, 5),
               "across its right side": (edge + 0.4, 1, 5), "around the camera": (0, 1, 0.2)}  # fmt: skip
    rows = np.stack([row(centre, half, grey, k) for k, centre in enumerate(centres.values())])
    kept = dict(zip(centres, seen(rows, view_projection)[0]))
    assert kept == {"ahead": True, "behind": False, "right of the view": False, "across its right side": True,
                    "around the camera": True}  # fmt: skip


def test_a_batchs_cameras_are_the_single_renderers():
    camera, rng = Camera(640, 480, 79.0), np.random.default_rng(3)
    eyes = [tuple(p) for p in rng.uniform(-10, 20, (50, 3)).round(2).tolist()]
    yaws, horizons = rng.choice(np.arange(0, 360, 30), 50).tolist(), rng.choice([-30, 0, 30, 60], 50).tolist()
    many = camera.view_projections(eyes, yaws, horizons)
    for k in range(50):
        assert many[k].tobytes() == camera.view_projection(eyes[k], yaws[k], horizons[k]).tobytes()


def test_a_bad_batch_is_a_one_line_error():
    with pytest.raises(ValueError, match="batch=0"):
        BatchRenderer(0)
    with pytest.raises(ValueError, match="no views"):
        batch_renderer(2, width=8, height=8).render_many([])
