"""Built-in ALFRED-style episodes on procedural rooms, so the env and the evaluator run with no data.

Each is a pick_and_place_simple task: a movable object in the room, to be put in or on a different
receptacle that can hold it. They carry no expert demonstration (the task generator and its expert
live elsewhere); they exist so that a fresh install has something to play.
"""

from __future__ import annotations

import random

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.scenes.procedural import ROOM_TYPES, generate_room
from homesim.tasks.alfred import AlfredGoal, Annotation
from homesim.world.catalog import alfred_catalog
from homesim.world.scene import Scene


def builtin_episodes(count: int = 4, seed: int = 0) -> tuple[list[AlfredEpisode], dict[str, Scene]]:
    catalog, rng = alfred_catalog(), random.Random(seed)
    episodes, scenes = [], {}
    for i in range(count):
        scene, state = generate_room(ROOM_TYPES[i % len(ROOM_TYPES)], seed * 1000 + i)
        scenes[scene.id] = scene
        movable = sorted(o.id for o in state.objects.values() if o.position is not None and catalog[o.cls].pickupable)
        obj = state.objects[rng.choice(movable)]
        receptacles = sorted(
            {f.cls for f in scene.fixed.values() if catalog[f.cls].receptacle and catalog.can_contain(f.cls, obj.cls)}
            - {state.objects[obj.parent].cls if obj.parent else ""}
        )
        if not receptacles:
            continue
        parent = rng.choice(receptacles)
        goal = AlfredGoal("pick_and_place_simple", obj.cls, parent_target=parent)
        sentence = f"Put a {_words(obj.cls)} in the {_words(parent)}."
        episodes.append(
            AlfredEpisode(
                id=f"builtin-{seed}-{i}",
                scene_id=scene.id,
                initial_state=state,
                goal=goal,
                expert_actions=(),
                expert_subgoal_index=(),
                annotations=(Annotation(sentence, (f"Find the {_words(obj.cls)}.", sentence)),),
            )
        )
    return episodes, scenes


def _words(cls: str) -> str:
    """AI2-THOR class name as people write it: CounterTop -> counter top."""
    return "".join(" " + c.lower() if c.isupper() else c for c in cls).strip()
