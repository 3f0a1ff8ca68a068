"""A renderer draws only the images it is asked for (each is a colour attachment llvmpipe fills pixel by
pixel), and an image it draws is bit-identical to the same image drawn with all three."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from render_support import make_renderer

from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.envs.objectnav.env import ObjectNavEnv
from homesim.render import OBJECTNAV, Renderer
from homesim.render.renderer import IMAGES
from homesim.scenes.procedural import generate_room
from homesim.world.catalog import alfred_catalog
from homesim.world.objectnav.navgrid import ACTIONS

SUBSETS = [*((image,) for image in IMAGES), ("rgb", "depth")]  # each alone, and what ObjectNav asks for


def kitchen_views():
    """A procedural kitchen with every openable thing open (shells, trays, cups: the double-sided program)
    and something in the hand, from several yaws and horizons."""
    catalog = alfred_catalog()
    scene, state = generate_room("Kitchen", seed=0)
    opened = {o.id: replace(o, is_open=True) for o in state.objects.values() if catalog[o.cls].openable}
    state = state.with_objects(opened)
    held = next(o.id for o in state.objects.values() if catalog[o.cls].pickupable and o.position is not None)
    state = state.with_objects({held: replace(state.objects[held], parent=None, position=None)})
    agent = replace(state.agents[0], held=held)
    return scene, [state.with_agent(0, replace(agent, yaw=y, horizon=h)) for y in (0, 90, 180, 270) for h in (-30, 30)]


def house_walk():
    """ObjectNav's view of a generated house along 15 random LoCoBot steps."""
    episodes, scenes = builtin_objectnav()
    env = ObjectNavEnv(episodes[:1], scenes)
    env.reset(options={"episode": 0})
    rng, states = random.Random(0), [env.render_state()]
    for _ in range(15):
        env.step(rng.choice(ACTIONS[1:]))
        states.append(env.render_state())
    return env.view_scene(), states


@pytest.mark.parametrize(
    "views, settings", [(kitchen_views, {}), (house_walk, OBJECTNAV)], ids=["alfred kitchen", "objectnav house"]
)
def test_each_image_is_the_same_whichever_others_are_drawn(views, settings):
    scene, states = views()
    full = make_renderer(**settings)
    reference = [full.render(scene, s) for s in states]
    full.close()
    assert any((f.segmentation >= 0).any() for f in reference)  # objects are in view
    for images in SUBSETS:
        with make_renderer(**settings, images=images) as renderer:
            for state, expected in zip(states, reference, strict=True):
                frame = renderer.render(scene, state)
                for image in IMAGES:
                    if image in images:
                        assert np.array_equal(getattr(frame, image), getattr(expected, image)), (images, image)
                    else:
                        assert getattr(frame, image) is None
                assert frame.object_ids == expected.object_ids


def test_the_env_draws_only_its_sensors_images():
    make_renderer().close()  # skips without EGL
    episodes, scenes = builtin_objectnav()
    env = ObjectNavEnv(episodes[:1], scenes, pixels=("rgb", "depth"))
    assert env.renderer.images == ("rgb", "depth")
    obs, _ = env.reset(options={"episode": 0})
    assert obs["rgb"].shape == (480, 640, 3) and obs["depth"].shape == (480, 640) and "semantic" not in obs


@pytest.mark.parametrize("images", ["rgb", (), ("rgb", "normals")])
def test_bad_images_are_one_line_errors(images):
    with pytest.raises(ValueError, match="images="):
        Renderer(images=images)


def test_a_frame_without_segmentation_says_so():
    scene, states = kitchen_views()
    with make_renderer(images=("rgb",)) as renderer:
        frame = renderer.render(scene, states[0])
    with pytest.raises(ValueError, match="no segmentation"):
        frame.visible_ids()


def test_renderers_in_one_process_each_draw_in_their_own_context():
    """A renderer made later makes its OpenGL context current; one made earlier still draws its own images."""
    scene, states = kitchen_views()
    first = make_renderer(images=("rgb", "depth", "segmentation"))
    alone = first.render(scene, states[0])
    second = make_renderer(width=64, height=48, images=("depth",))
    second.render(scene, states[1])
    again = first.render(scene, states[0])
    second.close()
    after_close = first.render(scene, states[0])
    first.close()
    for frame in (again, after_close):
        assert all(np.array_equal(getattr(frame, i), getattr(alone, i)) for i in IMAGES)


def test_a_renderer_uploads_a_scene_in_its_own_context():
    """`objects` (outside `render`) uploads the scene's room in the renderer's context, whichever is current."""
    scene, states = kitchen_views()
    first = make_renderer(images=("rgb",))
    make_renderer(images=("depth",)).close()  # made current, then released: no context is current
    assert first.objects(scene, states[0]).object_ids
    assert first.render(scene, states[0]).rgb.any()
    first.close()
