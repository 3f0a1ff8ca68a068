"""Do the pixels agree with the engine? The engine decides visibility geometrically (ALFRED's rule:
within 1.5 m, inside the camera's frustum, not shut inside anything; no occlusion) from the objects'
extents; the renderer draws (and draws rough fixed extents as what they are, see `furniture`).

Per (pose, object) pair the engine says visible or not (`visible_objects`), and the frame *shows the
object within reach* when at least one of its pixels lies within the visibility distance of the agent,
measured on the floor plan as the engine measures it. The pair agrees when both say the same. The
object in the agent's hand is left out: the engine calls it not visible by rule, the frame shows it in
the hand.

A disagreement gets a cause:
* `occluded`: the engine sees it; the object drawn alone (`Renderer.render(only=...)`) has pixels
  within reach, but in the full frame other things cover them all (the engine ignores occlusion);
* `beyond reach`: the engine sees it; drawn alone, its pixels all lie farther than the visibility
  distance (the engine tests whole vertical columns of the extent, the camera sees surfaces; and a
  cabinet is drawn from its door back, where its extent reaches 0.3 m into the room);
* `outside the image`: the engine sees it; drawn alone it is not in the image at all (the part of the
  extent in view is not drawn: a cabinet's in front of its door, a box's cut clear of standing places);
* `outside the engine's view`: the frame shows it within reach and the engine does not see it (the
  engine samples an extent's footprint at points, the frame sees every surface).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from homesim.render.renderer import Frame, Renderer
from homesim.world.catalog import Catalog
from homesim.world.geometry import VISIBILITY_DISTANCE, object_box, visible_objects
from homesim.world.scene import GRID_SIZE, Scene
from homesim.world.state import State

HORIZONS = (-30, -15, 0, 15, 30, 45, 60)  # the camera pitches ALFRED's agent can take
VisibilityRule = Callable[[Scene, State, Catalog, int], Iterable[str]]

CAUSES = ("occluded", "beyond reach", "outside the image", "outside the engine's view")


def shown_within_reach(frame: Frame, renderer: Renderer, horizon: float) -> set[str]:
    """The objects with at least one pixel within the visibility distance of the agent (on the floor plan)."""
    near = (frame.depth > 0) & (frame.depth * renderer.camera.horizontal_factor(horizon) <= VISIBILITY_DISTANCE)
    return {frame.object_ids[i] for i in np.unique(frame.segmentation[near]) if i >= 0}


def within_reach(scene: Scene, state: State, renderer: Renderer, agent: int, object_id: str) -> bool:
    """Whether any part of the object's extent is within the visibility distance (whatever the view)."""
    box = object_box(scene, state, renderer.catalog, object_id)
    if box is None:
        return False
    me = state.agents[agent]
    nx, nz = min(max(me.x, box.lo[0]), box.hi[0]), min(max(me.z, box.lo[2]), box.hi[2])
    return math.hypot(nx - me.x, nz - me.z) <= VISIBILITY_DISTANCE


@dataclass
class Agreement:
    """Counts over (pose, object) pairs; `reach_*` counts only objects whose extent is within reach."""

    poses: int = 0
    pairs: int = 0
    agree: int = 0
    reach_pairs: int = 0
    reach_agree: int = 0
    either_visible: int = 0  # pairs that the engine or the frame calls visible
    both_visible: int = 0
    causes: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)  # cause -> a few (scene id, pose, object id)

    @property
    def rate(self) -> float:
        return self.agree / self.pairs if self.pairs else 1.0

    @property
    def reach_rate(self) -> float:
        return self.reach_agree / self.reach_pairs if self.reach_pairs else 1.0

    @property
    def visible_rate(self) -> float:
        """Agreement among the pairs either side calls visible (the hard ones)."""
        return self.both_visible / self.either_visible if self.either_visible else 1.0

    def summary(self) -> dict:
        return {
            "poses": self.poses,
            "pairs": self.pairs,
            "agreement": self.rate,
            "pairs_within_reach": self.reach_pairs,
            "agreement_within_reach": self.reach_rate,
            "pairs_either_visible": self.either_visible,
            "agreement_either_visible": self.visible_rate,
            "disagreements_by_cause": {cause: self.causes[cause] for cause in CAUSES},
            "examples": self.examples,
        }

    def add(
        self, scene: Scene, state: State, renderer: Renderer, agent: int = 0, rule: VisibilityRule = visible_objects
    ) -> None:
        """Renders the agent's view of `state` and counts its pairs against `rule` (the engine's by default)."""
        me = state.agents[agent]
        frame = renderer.render(scene, state, agent)
        engine = set(rule(scene, state, renderer.catalog, agent))
        shown = shown_within_reach(frame, renderer, me.horizon)
        self.poses += 1
        for object_id in frame.object_ids:
            if object_id == me.held:
                continue
            seen, drawn = object_id in engine, object_id in shown
            reach = seen or drawn or within_reach(scene, state, renderer, agent, object_id)
            self.pairs += 1
            self.agree += seen == drawn
            self.reach_pairs += reach
            self.reach_agree += reach and seen == drawn
            self.either_visible += seen or drawn
            self.both_visible += seen and drawn
            if seen != drawn:
                cause = self._cause(scene, state, renderer, agent, object_id) if seen else CAUSES[3]
                self.causes[cause] += 1
                pose = (me.x, me.z, me.yaw, me.horizon)
                self.examples.setdefault(cause, [])
                if len(self.examples[cause]) < 5:
                    self.examples[cause].append((scene.id, pose, object_id))

    @staticmethod
    def _cause(scene: Scene, state: State, renderer: Renderer, agent: int, object_id: str) -> str:
        alone = renderer.render(scene, state, agent, only=(object_id,))
        if object_id in shown_within_reach(alone, renderer, state.agents[agent].horizon):
            return CAUSES[0]
        return CAUSES[1] if (alone.segmentation >= 0).any() else CAUSES[2]


def random_poses(
    scenes: dict[str, Scene], states: dict[str, list[State]], count: int, seed: int
) -> Iterator[tuple[Scene, State]]:
    """`count` seeded (scene, state) pairs: a random floor plan, one of its `states` (met along real
    episodes: objects moved, held, opened, sliced), agent 0 moved to a random reachable cell, yaw and horizon."""
    rng = random.Random(seed)
    floor_plans = sorted(states)
    cells = {fp: sorted(scenes[fp].reachable) for fp in floor_plans}
    for _ in range(count):
        fp = rng.choice(floor_plans)
        state = rng.choice(states[fp])
        ix, iz = rng.choice(cells[fp])
        pose = {"x": ix * GRID_SIZE, "z": iz * GRID_SIZE, "yaw": rng.choice((0, 90, 180, 270))}
        agent = replace(state.agents[0], horizon=rng.choice(HORIZONS), **pose)
        yield scenes[fp], replace(state, agents=(agent,) + state.agents[1:])
