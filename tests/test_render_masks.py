"""Interaction masks: ALFRED's run-length encoding, and resolving a mask to an object as ALFRED's
`va_interact` does (IoU ranking, the held object skipped, only interactable objects, none -> failure).
Resolution runs on hand-made frames, so none of this needs OpenGL."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from world_fixtures import APPLE, BOWL, COUNTER, POTATO, STATIONS, holding, kitchen

from homesim.render import Frame
from homesim.render.masks import (
    BAD_MASK,
    NO_TARGET,
    decode,
    encode,
    interactable,
    ranked_candidates,
    resolve_mask,
    step_with_mask,
)
from homesim.world.catalog import alfred_catalog

# --- ALFRED's run-length encoding ---------------------------------------------------------------------


def test_runs_are_starts_and_lengths_over_the_row_major_flattening():
    mask = np.zeros((3, 4), dtype=bool)
    mask[0, 1:3] = True  # flat 1, 2
    mask[0, 3] = mask[1, 0] = True  # flat 3, 4: one run across the row break
    mask[2, 3] = True  # flat 11, the last pixel
    assert encode(mask) == [[1, 4], [11, 1]]
    assert np.array_equal(decode([[1, 4], [11, 1]], (3, 4)), mask)


@pytest.mark.parametrize("seed", range(5))
def test_random_masks_round_trip_at_alfreds_size(seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((300, 300)) < rng.uniform(0.01, 0.9)
    runs = encode(mask)
    assert all(length > 0 for _, length in runs)
    assert np.array_equal(decode(runs), mask)  # 300x300 is the default, as in ALFRED


def test_empty_and_full_masks():
    assert encode(np.zeros((300, 300), bool)) == []
    assert encode(np.ones((300, 300), bool)) == [[0, 90000]]
    assert not decode([]).any()


def test_a_run_outside_the_image_is_refused():
    with pytest.raises(ValueError, match="outside a 300x300 mask"):
        decode([[89990, 20]])


# --- resolution ------------------------------------------------------------------------------------


@pytest.fixture
def scene_state():
    return kitchen(STATIONS["counter"])


def frame_of(layout: dict[str, tuple[slice, slice]], shape=(300, 300)) -> Frame:
    """A frame whose segmentation paints each object id's (rows, columns) slice, in order."""
    ids = tuple(layout)
    segmentation = np.full(shape, -1, dtype=np.int32)
    for i, (rows, cols) in enumerate(layout.values()):
        segmentation[rows, cols] = i
    return Frame(np.zeros((*shape, 3), np.uint8), np.ones(shape, np.float32), segmentation, ids)


def box_mask(rows: slice, cols: slice, shape=(300, 300)) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    mask[rows, cols] = True
    return mask


def test_the_instance_with_the_highest_iou_wins(scene_state):
    _, state = scene_state
    frame = frame_of({COUNTER: (slice(150, 300), slice(0, 300)), APPLE: (slice(100, 140), slice(100, 140))})
    # a mask on the apple spilling onto the counter: more counter pixels, but the apple's IoU is higher
    mask = box_mask(slice(100, 160), slice(100, 140))
    ranked = ranked_candidates(mask, frame)
    assert [oid for oid, _ in ranked] == [APPLE, COUNTER]
    assert ranked[0][1] == pytest.approx(1600 / 2400)
    assert resolve_mask(mask, frame, state) == APPLE


def test_the_held_object_is_skipped(scene_state):
    _, state = scene_state
    state = holding(state, APPLE)
    frame = frame_of({COUNTER: (slice(150, 300), slice(0, 300)), APPLE: (slice(200, 300), slice(200, 300))})
    mask = box_mask(slice(190, 300), slice(190, 300))  # the apple in the hand, and a rim of counter
    assert [oid for oid, _ in ranked_candidates(mask, frame)] == [APPLE, COUNTER]
    assert resolve_mask(mask, frame, state) == COUNTER  # the next best


def test_only_interactable_objects_count(scene_state):
    _, state = scene_state
    catalog = alfred_catalog()
    assert interactable(catalog, "Apple") and interactable(catalog, "CounterTop")
    assert not interactable(catalog, "Chair") and not interactable(catalog, "Window")
    chair = "Chair|+00.50|+00.00|+00.50"
    state = state.with_objects({chair: replace(state.objects[POTATO], id=chair, cls="Chair", parent=None)})
    frame = frame_of({chair: (slice(0, 100), slice(0, 100)), BOWL: (slice(90, 110), slice(90, 110))})
    assert resolve_mask(box_mask(slice(0, 100), slice(0, 100)), frame, state) == BOWL
    assert resolve_mask(box_mask(slice(0, 50), slice(0, 50)), frame, state) is None  # only the chair


def test_an_empty_mask_or_one_on_the_floor_fails_and_changes_nothing(scene_state):
    scene, state = scene_state
    frame = frame_of({APPLE: (slice(100, 140), slice(100, 140))})
    assert resolve_mask(np.zeros((300, 300), bool), frame, state) is None
    floor = box_mask(slice(250, 300), slice(0, 300))
    after, event = step_with_mask(scene, state, "PickupObject", floor, frame)
    assert after is state and not event.success
    assert event.message == BAD_MASK and event.action.target == NO_TARGET


def test_a_resolved_mask_steps_the_world(scene_state):
    scene, state = scene_state
    frame = frame_of({COUNTER: (slice(150, 300), slice(0, 300)), APPLE: (slice(100, 140), slice(100, 140))})
    after, event = step_with_mask(scene, state, "PickupObject", box_mask(slice(100, 140), slice(100, 140)), frame)
    assert event.success and event.action.target == APPLE and after.agents[0].held == APPLE


def test_a_mask_of_the_wrong_size_is_refused(scene_state):
    _, state = scene_state
    frame = frame_of({APPLE: (slice(0, 10), slice(0, 10))})
    with pytest.raises(ValueError, match="the mask is"):
        resolve_mask(np.ones((10, 10), bool), frame, state)
