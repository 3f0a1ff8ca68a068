"""Interaction masks, as ALFRED uses them: its run-length encoding, and resolving a mask to an object.

ALFRED's encoding lists the runs of 1s of a mask flattened row by row: `[[start, length], ...]`.

Resolution (ALFRED's `va_interact`): every instance the mask touches is scored by the IoU of its pixels
with the mask, highest first (ties: more shared pixels, then the one met first in row order); the
object in the agent's hand is skipped, and so is anything no action can use (floor, walls, a chair);
the first one left is the target, and if none is left the action fails.
"""

from __future__ import annotations

import numpy as np

from homesim.render.renderer import Frame
from homesim.world.actions import Action, Event
from homesim.world.catalog import Catalog, alfred_catalog
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State

ALFRED_SHAPE = (300, 300)
BAD_MASK = "bad interaction mask: it covers no object the agent could interact with"
NO_TARGET = ""  # the target id of a failed mask action: the mask named no object


def encode(mask: np.ndarray) -> list[list[int]]:
    """A boolean (H, W) mask as ALFRED's runs `[[start, length], ...]` over its row-major flattening."""
    flat = np.concatenate(([False], np.asarray(mask, dtype=bool).ravel(), [False]))
    edges = np.flatnonzero(flat[1:] != flat[:-1])
    starts, ends = edges[0::2], edges[1::2]
    return [[int(s), int(e - s)] for s, e in zip(starts, ends)]


def decode(runs: list[list[int]], shape: tuple[int, int] = ALFRED_SHAPE) -> np.ndarray:
    """ALFRED's runs back to a boolean mask of `shape` (ALFRED's frames are 300x300)."""
    flat = np.zeros(shape[0] * shape[1] + 1, dtype=np.int32)
    for start, length in runs:
        if start < 0 or length < 0 or start + length > shape[0] * shape[1]:
            raise ValueError(f"run [{start}, {length}] lies outside a {shape[0]}x{shape[1]} mask")
        flat[start] += 1
        flat[start + length] -= 1
    return (np.cumsum(flat[:-1]) > 0).reshape(shape)


def read_runs(runs: object, shape: tuple[int, int] = ALFRED_SHAPE) -> tuple[np.ndarray | None, str | None]:
    """ALFRED's runs as a boolean mask of `shape`, or None and why they are not runs of such a mask (a run past
    the frame's last pixel is the mark of a mask of another size)."""
    pixels = shape[0] * shape[1]
    if not isinstance(runs, list) or len(runs) > pixels:
        return None, f"bad run-length mask: expected ALFRED's runs [[start, length], ...], got {str(runs)[:40]}"
    for i, run in enumerate(runs):
        if not (isinstance(run, list) and len(run) == 2 and all(type(v) is int for v in run)) or min(run) < 0:
            return None, f"bad run-length mask: run {i} is {str(run)[:40]}, not [start, length] of whole numbers >= 0"
        if run[0] + run[1] > pixels:
            return None, (
                f"bad run-length mask: run {i} {run} ends past pixel {pixels} of a {shape[0]}x{shape[1]} frame"
                " (a mask of another size?)"
            )
    return decode(runs, shape), None


def interactable(catalog: Catalog, cls: str) -> bool:
    """ALFRED's `prune_by_any_interaction`: something some action can use."""
    c = catalog[cls]
    return c.pickupable or c.receptacle or c.openable or c.toggleable or c.sliceable


def ranked_candidates(mask: np.ndarray, frame: Frame) -> list[tuple[str, float]]:
    """(object id, IoU) of every instance the mask touches, in ALFRED's order (before any pruning)."""
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != frame.segmentation.shape:
        raise ValueError(f"the mask is {mask.shape} but the frame is {frame.segmentation.shape}")
    touched = frame.segmentation[mask]
    touched = touched[touched >= 0]
    if touched.size == 0:
        return []
    indices, first, shared = np.unique(touched, return_index=True, return_counts=True)
    areas = np.bincount(frame.segmentation.ravel() + 1, minlength=len(frame.object_ids) + 1)[indices + 1]
    iou = shared / (areas + mask.sum() - shared)
    order = sorted(range(len(indices)), key=lambda k: (-iou[k], -shared[k], first[k]))
    return [(frame.object_ids[indices[k]], float(iou[k])) for k in order]


def resolve_mask(
    mask: np.ndarray, frame: Frame, state: State, agent: int = 0, catalog: Catalog | None = None
) -> str | None:
    """The object an interaction mask points at, as ALFRED decides it, or None (the action fails)."""
    catalog = catalog or alfred_catalog()
    held = state.agents[agent].held
    for object_id, _ in ranked_candidates(mask, frame):
        obj = state.objects.get(object_id)
        if object_id != held and obj is not None and interactable(catalog, obj.cls):
            return object_id
    return None


def step_with_mask(
    scene: Scene,
    state: State,
    action_name: str,
    mask: np.ndarray,
    frame: Frame,
    agent: int = 0,
    catalog: Catalog | None = None,
) -> tuple[State, Event]:
    """An interaction aimed by a mask on `frame` (the agent's current view): resolved, then stepped. A mask
    that resolves to nothing fails with BAD_MASK and the target NO_TARGET, changing nothing."""
    catalog = catalog or alfred_catalog()
    target = resolve_mask(mask, frame, state, agent, catalog)
    if target is None:
        return state, Event(Action(action_name, NO_TARGET), False, BAD_MASK)
    return step(scene, state, Action(action_name, target), agent=agent, catalog=catalog)
