"""The batch renderer (`render.batch`) draws the single renderer's frames to the bit: the golden frames
(`test_render_golden`: ObjectNav's camera in three houses, ALFRED's in the four room types, open
containers, a held object, amodal renders) drawn in batches give the recorded digests, whatever the batch
size, and views of several scenes mixed in one batch are each their own frame."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_render_golden import GOLDEN, alfred_frames, digest, objectnav_frames, rasteriser  # noqa: E402

from homesim.render import OBJECTNAV, Renderer, RenderingUnavailable  # noqa: E402
from homesim.render.batch import BatchRenderer  # noqa: E402
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


def test_views_of_several_houses_in_one_batch_are_each_their_own_frame():
    settings = {"width": 64, "height": 48, "fov": LOCOBOT.hfov, "depth_range": LOCOBOT.depth_range}
    views = []
    for seed in (1, 2):
        scene = embodied_scene(generate_house(seed)[0], LOCOBOT)
        for x, z in sorted(scene.reachable)[::40][:5]:
            views.append(
                (scene, State(objects={}, agents=(AgentState(x * GRID_SIZE, z * GRID_SIZE, 30 * x % 360, 0),)))
            )
    views = views[::2] + views[1::2]  # the houses interleaved
    frames = batch_renderer(4, **settings).render_many(views, agent=0)
    single = Renderer(**settings, views=0)
    assert len(frames) == len(views) and frames.depth.shape == (len(views), 48, 64)
    for k, (scene, state) in enumerate(views):
        alone = single.render(scene, state)
        for image in IMAGES:
            assert np.array_equal(getattr(frames[k], image), getattr(alone, image)), (k, image)


def test_a_bad_batch_is_a_one_line_error():
    with pytest.raises(ValueError, match="batch=0"):
        BatchRenderer(0)
    with pytest.raises(ValueError, match="no views"):
        batch_renderer(2, width=8, height=8).render_many([])
