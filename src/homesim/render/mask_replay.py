"""Playing actions with interactions aimed by pixel masks instead of object ids.

Each interaction of the plan is turned into the ground-truth mask of its target in the agent's current
view, and that mask goes through ALFRED's resolution (`masks.step_with_mask`). If the plan then reaches
what it reaches with object ids, masks lose nothing: the renderer shows every target from where the
plan uses it, and the IoU resolution picks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from homesim.render.masks import step_with_mask
from homesim.render.renderer import Renderer
from homesim.world.actions import Action, Event
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State


@dataclass(frozen=True)
class MaskReplay:
    state: State  # after the last action
    events: tuple[Event, ...]
    unseen: tuple[int, ...]  # indices of interactions whose target had no pixels in view
    redirected: tuple[int, ...]  # indices of interactions whose mask resolved to another object


def replay_through_masks(
    scene: Scene, state: State, actions: Sequence[Action], renderer: Renderer, agent: int = 0
) -> MaskReplay:
    """Plays `actions` from `state`, every interaction through the ground-truth mask of its target."""
    events, unseen, redirected = [], [], []
    for i, action in enumerate(actions):
        if action.target is None:
            state, event = step(scene, state, action, agent=agent, catalog=renderer.catalog)
        else:
            frame = renderer.render(scene, state, agent)
            if action.target in frame.object_ids:
                mask = frame.mask(action.target)
            else:
                mask = np.zeros(frame.segmentation.shape, dtype=bool)
            if not mask.any():
                unseen.append(i)
            state, event = step_with_mask(scene, state, action.name, mask, frame, agent, renderer.catalog)
            if mask.any() and event.action.target != action.target:
                redirected.append(i)
        events.append(event)
    return MaskReplay(state, tuple(events), tuple(unseen), tuple(redirected))
