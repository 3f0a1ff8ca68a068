"""Navigation read off per-scene tables (`planning.use_routes.UseRoutes`) and walks made at once
(`planning.poses.walk`) give exactly what searching (`path_to_use`) and stepping each action give."""

import random

import pytest

from homesim.datasets.alfred_episodes import import_alfred
from homesim.planning.poses import path_to_use, walk
from homesim.planning.use_routes import UseRoutes
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import HORIZONS, YAWS
from homesim.world.scene import GRID_SIZE
from homesim.world.state import AgentState


@pytest.fixture(scope="module")
def samples(alfred_samples, alfred_layouts):
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts)
    assert not errors
    return sorted((e for es in splits.values() for e in es), key=lambda e: e.id), scenes


def test_routes_off_tables_are_the_searched_ones(samples):
    episodes, scenes = samples
    catalog, rng = alfred_catalog(), random.Random(1)
    for e in episodes[::12]:
        scene, state = scenes[e.scene_id], e.initial_state
        routes, cells = UseRoutes(scene, catalog), sorted(scene.reachable)
        basins = [f for f in scene.fixed if catalog[scene.fixed[f].cls].basin]
        faucets = [f for f in scene.fixed if scene.fixed[f].cls == "Faucet"]
        targets = [(t, None) for t in rng.sample(sorted(state.objects), 10)] + [(b, f) for b in basins for f in faucets]
        for target, also in targets:
            for _ in range(8):
                x, z = rng.choice(cells)
                agent = AgentState(x * GRID_SIZE, z * GRID_SIZE, rng.choice(YAWS), rng.choice(HORIZONS))
                here = state.with_agent(0, agent)
                assert routes.path(here, target, also) == path_to_use(scene, here, catalog, 0, target, also)


def test_a_walk_made_at_once_is_the_steps_one_by_one(samples):
    episodes, scenes = samples
    rng = random.Random(2)
    for e in episodes[::10]:
        scene, state = scenes[e.scene_id], e.initial_state
        for _ in range(20):
            path = rng.choices(A.NAVIGATION_ACTIONS, k=rng.randrange(1, 12))
            stepped = state
            for name in path:
                stepped, event = step(scene, stepped, Action(name))
                if not event.success:
                    stepped = None
                    break
            assert walk(scene, state, 0, path) == stepped
