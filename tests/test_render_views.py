"""A renderer keeps its last views drawn: a view seen again (a blocked move, a turn and back) is read back
without drawing, and is the same bits, in new arrays, as drawing it; anything else a frame depends on (the
state's objects, what is held, `only`) draws it anew."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from render_support import make_renderer

from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.envs.objectnav.env import ObjectNavEnv
from homesim.render import Renderer
from homesim.render.renderer import IMAGES
from homesim.scenes.procedural import generate_room
from homesim.world.catalog import alfred_catalog


@pytest.fixture(scope="module")
def room():
    scene, state = generate_room("Kitchen", seed=0)
    return scene, state


def posed(state, yaw=0, horizon=0, x=None):
    agent = state.agents[0]
    return state.with_agent(0, replace(agent, yaw=yaw, horizon=horizon, x=agent.x if x is None else x))


def same(a, b) -> bool:
    return a.object_ids == b.object_ids and all(np.array_equal(getattr(a, i), getattr(b, i)) for i in IMAGES)


def test_a_view_seen_again_is_read_back_with_the_bits_of_drawing_it(room):
    scene, state = room
    walk = [posed(state, yaw) for yaw in (0, 90, 0, 90, 90, 180, 270, 0)]  # turns and back, a blocked step
    with make_renderer(views=0) as drawing, make_renderer(views=4) as keeping:
        drawn = [drawing.render(scene, s) for s in walk]
        kept = [keeping.render(scene, s) for s in walk]
        assert drawing.reused == 0 and keeping.reused == 4
    for a, b in zip(drawn, kept, strict=True):
        assert same(a, b)
    again = kept[2]  # yaw 0 seen again: new arrays, so changing one frame leaves the others alone
    assert not any(np.shares_memory(getattr(again, i), getattr(kept[0], i)) for i in IMAGES)


def test_the_view_seen_longest_ago_is_drawn_anew(room):
    scene, state = room
    with make_renderer(views=2) as renderer:
        first = renderer.render(scene, posed(state, 0))
        renderer.render(scene, posed(state, 90))
        renderer.render(scene, posed(state, 180))
        assert same(renderer.render(scene, posed(state, 0)), first) and renderer.reused == 0
        renderer.render(scene, posed(state, 180))
        assert renderer.reused == 1


def test_new_objects_what_is_held_and_only_are_new_views(room):
    scene, state = room
    catalog = alfred_catalog()
    opened = state.with_objects(
        {o.id: replace(o, is_open=True) for o in state.objects.values() if catalog[o.cls].openable}
    )
    held = next(o.id for o in state.objects.values() if catalog[o.cls].pickupable and o.position is not None)
    holding = state.with_objects({held: replace(state.objects[held], parent=None, position=None)})
    holding = holding.with_agent(0, replace(holding.agents[0], held=held))
    views = [
        (posed(state, horizon=30), None),
        (posed(opened, horizon=30), None),
        (posed(holding, horizon=30), None),
        (posed(state, horizon=30), [held]),
        (posed(state, horizon=30), None),
    ]
    with make_renderer(views=0) as drawing, make_renderer(views=8) as keeping:
        for s, only in views:
            assert same(keeping.render(scene, s, only=only), drawing.render(scene, s, only=only))
        # only the last is read back: the first view again (its objects' instances are still kept, so it is
        # the same view although other objects were drawn since); the others differ in objects, hand or only=
        assert keeping.reused == 1


@pytest.mark.parametrize("views", [-1, 1.5, True, "4"])
def test_bad_views_are_one_line_errors(views):
    with pytest.raises(ValueError, match="views="):
        Renderer(views=views)


def test_fbo_holds_the_images_of_the_view_drawn_or_read_back_last(room):
    scene, state = room
    with make_renderer(views=2, images=("depth",)) as renderer:
        with pytest.raises(ValueError, match="no view drawn yet"):
            renderer.fbo
        first = renderer.render(scene, posed(state, 0))
        renderer.render(scene, posed(state, 90))
        renderer.render(scene, posed(state, 0))  # read back
        depth = np.empty_like(first.depth)
        with renderer.ctx:  # render() leaves the context it found current
            renderer.fbo.read_into(depth, components=1, attachment=0, dtype="f4")
    assert np.array_equal(depth, first.depth)


def test_objectnav_reads_a_turn_and_back_without_drawing():
    make_renderer().close()  # skips without EGL
    episodes, scenes = builtin_objectnav()
    env = ObjectNavEnv(episodes[:1], scenes, pixels=("rgb", "depth"))
    start, _ = env.reset(options={"episode": 0})
    for action in ("TURN_LEFT", "LOOK_DOWN", "LOOK_UP"):
        env.step(action)
    back = env.step("TURN_RIGHT")[0]
    assert env.renderer.reused == 2  # the turn and back; looking down and up again
    assert all(np.array_equal(start[k], back[k]) for k in ("rgb", "depth"))
