"""Videos of episodes for people: the egocentric view and the top-down map side by side, with the
instruction and the current action written underneath; written as .mp4 (ffmpeg) or .gif."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import imageio.v2 as imageio
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from homesim.files import replacing
from homesim.render.renderer import Renderer
from homesim.render.topdown import AGENT_COLOUR, PATH_COLOUR, REACHABLE_COLOUR, START_COLOUR, top_down_map
from homesim.world.actions import Action
from homesim.world.dynamics import step
from homesim.world.scene import Scene
from homesim.world.state import State

FORMATS = (".mp4", ".gif")
MIN_FPS, MAX_FPS = 0.1, 240.0  # frames per second a video may play at
BACKGROUND = (24, 24, 24)
TEXT_COLOUR = (235, 235, 235)
FONT_SIZE = 13
LINE_HEIGHT = 17
CAPTION_LINES = 5
MACRO_BLOCK = 16  # video encoders want frame sizes in multiples of 16


def _fit_height(image: np.ndarray, height: int) -> np.ndarray:
    if image.shape[0] == height:
        return image
    width = max(1, round(image.shape[1] * height / image.shape[0]))
    return np.asarray(Image.fromarray(image).resize((width, height), Image.NEAREST))


def caption(lines: Sequence[str], width: int) -> np.ndarray:
    """Lines of text, wrapped to `width` pixels, on a dark strip of CAPTION_LINES lines."""
    font = ImageFont.load_default(size=FONT_SIZE)
    chars = max(10, int(width / (0.6 * FONT_SIZE)))
    wrapped = [part for line in lines for part in textwrap.wrap(line, chars) or [""]][:CAPTION_LINES]
    strip = Image.new("RGB", (width, CAPTION_LINES * LINE_HEIGHT + 6), BACKGROUND)
    draw = ImageDraw.Draw(strip)
    for i, line in enumerate(wrapped):
        draw.text((6, 3 + i * LINE_HEIGHT), line, fill=TEXT_COLOUR, font=font)
    return np.asarray(strip)


MAP_LEGEND = (
    ("path", PATH_COLOUR),
    ("start", START_COLOUR),
    ("agent and its view", AGENT_COLOUR),
    ("reachable floor", REACHABLE_COLOUR),
)


def legend(width: int, entries: Sequence[tuple[str, tuple]] = MAP_LEGEND) -> np.ndarray:
    """The map's key on a dark strip: a swatch per colour; furniture and objects have one colour per class.
    Entries that do not fit on a line go on the next (a narrow map alone gets a taller key)."""
    font = ImageFont.load_default(size=FONT_SIZE)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    items = [(label, colour) for label, colour in entries] + [("objects: a colour per class", None)]
    places, x, row = [], 6, 0
    for label, colour in items:
        size = (14 if colour is not None else 0) + int(measure.textlength(label, font=font))
        if x > 6 and x + size > width:
            x, row = 6, row + 1
        places.append((label, colour, x, row))
        x += size + 10
    strip = Image.new("RGB", (width, (row + 1) * LINE_HEIGHT + 6), BACKGROUND)
    draw = ImageDraw.Draw(strip)
    for label, colour, x, row in places:
        y = row * LINE_HEIGHT
        if colour is not None:
            draw.rectangle((x, y + 5, x + 10, y + 15), fill=tuple(int(255 * c) for c in colour))
            x += 14
        draw.text((x, y + 3), label, fill=TEXT_COLOUR, font=font)
    return np.asarray(strip)


def compose(
    view: np.ndarray, map_image: np.ndarray, lines: Sequence[str], entries: Sequence[tuple[str, tuple]] = MAP_LEGEND
) -> np.ndarray:
    """One video frame: the view, the map scaled to the view's height, the map's legend and the caption
    below both; padded to a multiple of MACRO_BLOCK on each side."""
    top = np.concatenate([view, _fit_height(map_image, view.shape[0])], axis=1)
    frame = np.concatenate([top, legend(top.shape[1], entries), caption(lines, top.shape[1])], axis=0)
    pad_rows, pad_cols = (-frame.shape[0]) % MACRO_BLOCK, (-frame.shape[1]) % MACRO_BLOCK
    return np.pad(frame, ((0, pad_rows), (0, pad_cols), (0, 0)), constant_values=BACKGROUND[0])


def write_video(path: str | Path, frames: Iterable[np.ndarray], fps: float = 4.0) -> int:
    """Writes frames of one size to an .mp4 or .gif, whole or not at all; returns how many were written."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"{path}: a video must end in {' or '.join(FORMATS)}")
    if not (math.isfinite(fps) and MIN_FPS <= fps <= MAX_FPS):
        raise ValueError(f"{fps} frames per second: give a number from {MIN_FPS} to {MAX_FPS}")
    with replacing(path) as temporary:
        if path.suffix.lower() == ".gif":
            writer = imageio.get_writer(temporary, mode="I", duration=1000 / fps, loop=0)
        else:
            writer = imageio.get_writer(temporary, fps=fps, codec="libx264", macro_block_size=MACRO_BLOCK)
        count = 0
        with writer:
            for frame in frames:
                writer.append_data(frame)
                count += 1
    return count


def episode_frames(
    scene: Scene,
    state: State,
    actions: Sequence[Action | None],
    renderer: Renderer,
    instruction: str = "",
    directives: Sequence[str] = (),
    subgoal_index: Sequence[int] = (),
    recorded: Sequence[bool] = (),
    reasons: Mapping[int, str] | None = None,
    verdict: Callable[[State], str] | None = None,
) -> Iterator[np.ndarray]:
    """Plays `actions` from `state` and yields a video frame for the start and after each action: the
    view, the map with the path so far, the instruction, the current step's directive (`directives`
    indexed by `subgoal_index`, ALFRED's high_idx) and the action with its outcome.

    For an episode record: None stands for an agent's answer that was no action (a failed step that
    changes nothing; `reasons` by step index says why), and `recorded` holds whether each step succeeded
    when it was recorded, so a step the engine now plays otherwise says so. `verdict` says of the final
    state whether the goal is met; the last frame shows it."""
    me = state.agents[0]
    path = [(me.x, me.z)]
    reasons = reasons or {}

    def frame(action_line: str, directive: str, last: bool = False) -> np.ndarray:
        view = renderer.render(scene, state).rgb
        lines = [line for line in (instruction, directive) if line] + [action_line]
        if last and verdict is not None:
            lines.append(f"END: {verdict(state)}")
        return compose(view, top_down_map(scene, state, path, catalog=renderer.catalog), lines)

    yield frame(f"start (0/{len(actions)})", directives[0] if directives else "", last=not actions)
    for i, action in enumerate(actions):
        if action is None:
            success, what, message = False, "(no action)", reasons.get(i, "")
        else:
            state, event = step(scene, state, action, catalog=renderer.catalog)
            success, what, message = event.success, f"{action.name} {action.target or ''}", event.message
        me = state.agents[0]
        if (me.x, me.z) != path[-1]:
            path.append((me.x, me.z))
        high = subgoal_index[i] if i < len(subgoal_index) else -1
        directive = directives[high] if 0 <= high < len(directives) else ""
        outcome = "" if success else f"  FAILED: {message}"
        if i < len(recorded) and recorded[i] != success:
            outcome += f"  (recorded as {'succeeded' if recorded[i] else 'failed'})"
        yield frame(f"{i + 1}/{len(actions)} {what}{outcome}", directive, last=i == len(actions) - 1)
