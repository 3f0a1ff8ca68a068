"""Egocentric images as pictures for people (the viewer's frames): depth in grey, near bright; instance
segmentation with a colour per object (the same object keeps its colour from frame to frame); an interaction
mask shown over the RGB view; and any picture as PNG bytes."""

from __future__ import annotations

import io
import zlib
from collections.abc import Sequence

import numpy as np
from PIL import Image

NOTHING_COLOUR = (40, 40, 40)  # floor, walls and ceiling in a segmentation picture; where depth is unknown
MASK_COLOUR = np.array((255, 40, 40), dtype=np.float32)


def depth_picture(depth: np.ndarray, far: float | None = None) -> np.ndarray:
    """Metres as grey levels, 0 m white to `far` (default: the farthest pixel) black."""
    seen = np.isfinite(depth) & (depth > 0)
    far = far or (float(depth[seen].max()) if seen.any() else 1.0)
    grey = np.clip(1.0 - depth / far, 0.0, 1.0) * 255
    picture = np.repeat(grey.astype(np.uint8)[:, :, None], 3, axis=2)
    picture[~seen] = NOTHING_COLOUR
    return picture


def object_colour(object_id: str) -> tuple[int, int, int]:
    """A bright colour made from the id alone (crc32: the same in every process and run)."""
    code = zlib.crc32(object_id.encode())
    return 64 + code % 192, 64 + (code >> 8) % 192, 64 + (code >> 16) % 192


def segmentation_picture(segmentation: np.ndarray, object_ids: Sequence[str]) -> np.ndarray:
    """Instance segmentation (indices into `object_ids`, -1 for nothing) with a colour per object."""
    palette = np.array([object_colour(o) for o in object_ids] + [NOTHING_COLOUR], dtype=np.uint8)
    return palette[segmentation]  # -1 indexes the last entry


def mask_picture(rgb: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """The view dimmed, the mask's pixels tinted red (no mask: the view dimmed, nothing is aimed at)."""
    picture = rgb.astype(np.float32) * 0.45
    if mask is not None:
        picture[mask] = 0.35 * rgb[mask] + 0.65 * MASK_COLOUR
    return picture.astype(np.uint8)


def png(picture: np.ndarray) -> bytes:
    """A picture as PNG bytes (fast compression: these are served on demand)."""
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(picture)).save(out, format="PNG", compress_level=1)
    return out.getvalue()
