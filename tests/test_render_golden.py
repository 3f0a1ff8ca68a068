"""The renderer's frames are the bits they were when `render_golden.json` was written: every image kind
(rgb, depth, segmentation) of 120 frames, drawn by ObjectNav's camera in three generated houses (with and
without their movable objects) and by ALFRED's in the four procedural room types (containers open, an
object in the hand, amodal `only=` renders). A change meant to make rendering faster must leave them all
alone.

The digests are llvmpipe's bits at the version recorded with them; another rasteriser (a GPU, another
Mesa) draws other bits, so the test skips there. To record them again after a deliberate change of what
frames show: `PYTHONPATH=src python3 tests/test_render_golden.py --write`.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import moderngl
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # render_support, when run as a script
from render_support import make_renderer  # noqa: E402

from homesim.render import OBJECTNAV, Renderer  # noqa: E402
from homesim.render.renderer import IMAGES  # noqa: E402
from homesim.scenes.houses import generate_house  # noqa: E402
from homesim.scenes.procedural import ROOM_TYPES, generate_room  # noqa: E402
from homesim.tasks.objectnav import embodied_scene  # noqa: E402
from homesim.world.catalog import alfred_catalog  # noqa: E402
from homesim.world.objectnav.embodiment import LOCOBOT  # noqa: E402
from homesim.world.scene import GRID_SIZE, Scene  # noqa: E402
from homesim.world.state import AgentState, State  # noqa: E402

GOLDEN = Path(__file__).with_name("render_golden.json")
HOUSES = (1, 2, 3)
POSES = 8  # per scene


def posed(scene: Scene, state: State, rng: random.Random, yaws, horizons) -> Iterator[State]:
    cells = sorted(scene.reachable)
    for _ in range(POSES):
        x, z = rng.choice(cells)
        agent = replace(state.agents[0], x=x * GRID_SIZE, z=z * GRID_SIZE, yaw=rng.choice(yaws))
        yield state.with_agent(0, replace(agent, horizon=rng.choice(horizons)))


def objectnav_frames(renderer: Renderer) -> Iterator[tuple[str, object]]:
    """LoCoBot's camera in three houses: ObjectNav's view (fixed objects only) and the full state's."""
    rng = random.Random(12)
    for seed in HOUSES:
        scene, state = generate_house(seed)
        view = embodied_scene(scene, LOCOBOT)
        bare = State(objects={}, agents=(AgentState(0.0, 0.0, 0, 0),))
        for i, s in enumerate(posed(view, bare, rng, range(0, 360, 30), (-30, 0, 30))):
            yield f"house {seed} pose {i}", renderer.render(view, s)
        for i, s in enumerate(posed(view, state, rng, range(0, 360, 30), (0, 30))):
            yield f"house {seed} with objects, pose {i}", renderer.render(view, s)


def alfred_frames(renderer: Renderer) -> Iterator[tuple[str, object]]:
    """ALFRED's camera in the procedural rooms: as generated, with every openable thing open and something
    in the hand, and amodal renders of a few objects."""
    catalog, rng = alfred_catalog(), random.Random(7)
    for room_type in ROOM_TYPES:
        scene, state = generate_room(room_type, seed=0)
        for i, s in enumerate(posed(scene, state, rng, (0, 90, 180, 270), (-30, 0, 30, 60))):
            yield f"{room_type} pose {i}", renderer.render(scene, s)
        opened = {o.id: replace(o, is_open=True) for o in state.objects.values() if catalog[o.cls].openable}
        state = state.with_objects(opened)
        held = next(o.id for o in state.objects.values() if catalog[o.cls].pickupable and o.position is not None)
        state = state.with_objects({held: replace(state.objects[held], parent=None, position=None)})
        state = state.with_agent(0, replace(state.agents[0], held=held))
        for i, s in enumerate(posed(scene, state, rng, (0, 90, 180, 270), (0, 30))):
            yield f"{room_type} open, holding, pose {i}", renderer.render(scene, s)
            if i < 2:
                only = rng.sample(sorted(state.objects), 3)
                yield f"{room_type} open, holding, pose {i}, only 3", renderer.render(scene, s, only=only)


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(f"{array.dtype} {array.shape}".encode() + array.tobytes()).hexdigest()[:16]


def frame_digests() -> dict[str, dict[str, str]]:
    found = {}
    for frames, settings in ((objectnav_frames, OBJECTNAV), (alfred_frames, {})):
        with make_renderer(**settings) as renderer:
            for name, frame in frames(renderer):
                found[name] = {image: digest(getattr(frame, image)) for image in IMAGES}
    return found


def rasteriser() -> str:
    with make_renderer(width=8, height=8) as renderer:
        info = renderer.ctx.info
        return f"{info['GL_RENDERER']}; {info['GL_VERSION']}"


def test_frames_are_the_recorded_bits():
    golden = json.loads(GOLDEN.read_text())
    if rasteriser() != golden["rasteriser"]:
        pytest.skip(f"the digests are {golden['rasteriser']}'s bits; this is {rasteriser()}")
    found = frame_digests()
    assert found.keys() == golden["frames"].keys()
    changed = [f"{name}: {image}" for name, images in golden["frames"].items() for image, d in images.items()
               if found[name][image] != d]
    assert not changed, f"{len(changed)} images changed, e.g. {changed[:5]}"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps({"rasteriser": rasteriser(), "frames": frame_digests()}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
elif __name__ == "__main__":
    sys.exit(f"usage: {sys.argv[0]} --write")
