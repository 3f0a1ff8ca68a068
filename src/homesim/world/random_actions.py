"""Random play: an action drawn uniformly among navigation actions, or, one time in three, an
interaction with a random object the agent can see. Used to exercise scenes and to benchmark."""

from __future__ import annotations

import random

from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import Catalog
from homesim.world.geometry import visible_objects
from homesim.world.scene import Scene
from homesim.world.state import State

INTERACT_SHARE = 1 / 3


def random_action(scene: Scene, state: State, catalog: Catalog, rng: random.Random, agent: int = 0) -> Action:
    if rng.random() < INTERACT_SHARE:
        visible = visible_objects(scene, state, catalog, agent)
        if visible:
            return Action(rng.choice(A.INTERACT_ACTIONS), rng.choice(visible))
    return Action(rng.choice(A.NAVIGATION_ACTIONS))
