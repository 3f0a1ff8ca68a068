"""Training curves (`homesim report --plot`): the figures a training log holds (`loop`'s `<checkpoint>.log.jsonl`:
per logged step, the mean of each loss term and of each figure the model reports since the last line, and
validation figures where a trainer records them) drawn against the optimisation step as a PNG, one panel per
figure, one line per run, with the epochs marked. Drawn with Pillow, so nothing beyond homesim's own
dependencies is needed."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from homesim.errors import DataError

LOG_SUFFIX = ".log.jsonl"
WIDTH, PANEL_HEIGHT, MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 900, 230, 80, 30, 46, 44
FONT_SIZE = 13
BACKGROUND, INK, GRID, EPOCH = (255, 255, 255), (30, 30, 30), (225, 225, 225), (200, 200, 235)
COLOURS = ((31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14), (148, 103, 189), (140, 86, 75))
Log = list[dict]


def log_of(path: str | Path) -> Path:
    """The training log of a checkpoint (`m.pt` -> `m.pt.log.jsonl`), or the log itself."""
    path = Path(path)
    return path if path.name.endswith(LOG_SUFFIX) else path.with_name(path.name + LOG_SUFFIX)


def read_log(path: str | Path) -> Log:
    """A training log's lines, each with its `step`; a DataError names the file and line at fault."""
    path = log_of(path)
    if not path.is_file():
        raise DataError(str(path), "(file)", "no training log (homesim train writes <checkpoint>.log.jsonl)")
    lines = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except json.JSONDecodeError as e:
            raise DataError(f"{path}:{number}", "(line)", f"not valid JSON ({e})") from None
        if not isinstance(line, dict) or not isinstance(line.get("step"), int):
            raise DataError(f"{path}:{number}", "step", "missing: each line needs its optimisation step")
        lines.append(line)
    if not lines:
        raise DataError(str(path), "(file)", "empty: the run logged nothing yet")
    return lines


def series_of(logs: Mapping[str, Log]) -> list[str]:
    """The figures to draw: every number a log holds but its step and epoch, the loss first."""
    names = {k for log in logs.values() for line in log for k, v in line.items() if _number(v)} - {"step", "epoch"}
    return sorted(names, key=lambda name: (name != "loss", name))


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _tick(value: float) -> str:
    return f"{value:.3g}"


def plot_curves(logs: Mapping[str, Log], out: str | Path) -> list[str]:
    """Draws each figure of the `logs` (by run name) in its own panel and writes the PNG `out`; returns the
    figures drawn."""
    names = series_of(logs)
    if not names:
        raise DataError(", ".join(logs), "(lines)", "no figure to draw: the logs hold steps only")
    font = ImageFont.load_default(size=FONT_SIZE)
    image = Image.new("RGB", (WIDTH, PANEL_HEIGHT * len(names) + 24), BACKGROUND)
    draw = ImageDraw.Draw(image)
    x = MARGIN_LEFT
    for k, run in enumerate(logs):  # the key: a colour per run
        draw.rectangle((x, 8, x + 12, 18), fill=COLOURS[k % len(COLOURS)])
        draw.text((x + 16, 6), run, fill=INK, font=font)
        x += 36 + int(draw.textlength(run, font=font))
    last_step = max(line["step"] for log in logs.values() for line in log)
    for i, name in enumerate(names):
        _panel(draw, font, logs, name, 24 + i * PANEL_HEIGHT, max(1, last_step))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, format="PNG")
    return names


def _panel(draw: ImageDraw.ImageDraw, font, logs: Mapping[str, Log], name: str, top: int, last_step: int) -> None:
    """One figure against the step: its axes, ticks, the epochs' starts and a line (or a dot) per run."""
    left, right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    upper, lower = top + MARGIN_TOP, top + PANEL_HEIGHT - MARGIN_BOTTOM
    values = [line[name] for log in logs.values() for line in log if _number(line.get(name))]
    low, high = min(values), max(values)
    if high == low:
        low, high = low - (abs(low) or 1) * 0.05, high + (abs(high) or 1) * 0.05

    def at(step: float, value: float) -> tuple[float, float]:
        return (left + (right - left) * step / last_step, lower - (lower - upper) * (value - low) / (high - low))

    draw.text((left, top + 22), name, fill=INK, font=font)
    for k in range(5):  # the grid, with the value and step at each line
        y = upper + (lower - upper) * k / 4
        draw.line((left, y, right, y), fill=GRID)
        draw.text((6, y - 7), _tick(high - (high - low) * k / 4), fill=INK, font=font)
        step = round(last_step * k / 4)
        x = at(step, low)[0]
        draw.line((x, lower, x, lower + 4), fill=INK)
        label = str(step)
        draw.text((x - draw.textlength(label, font=font) / 2, lower + 6), label, fill=INK, font=font)
    for log in logs.values():  # the epochs, as logged: a faint line where the epoch of the lines changes
        for before, line in zip(log, log[1:]):
            if line.get("epoch") != before.get("epoch"):
                x = at(before["step"], low)[0]
                draw.line((x, upper, x, lower), fill=EPOCH)
    draw.rectangle((left, upper, right, lower), outline=INK)
    label = "optimisation step (faint lines: where the logged epoch changes)"
    draw.text(((left + right - draw.textlength(label, font=font)) / 2, lower + 24), label, fill=INK, font=font)
    for k, log in enumerate(logs.values()):
        colour = COLOURS[k % len(COLOURS)]
        points = [at(line["step"], line[name]) for line in log if _number(line.get(name))]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        else:  # a run that logged once: a dot
            x, y = points[0] if points else (None, None)
            if x is not None:
                draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=colour)


def run_names(paths: Sequence[Path]) -> list[str]:
    """Each log's name in the key: its checkpoint's file name, with its folder where two share one."""
    names = [log_of(p).name.removesuffix(LOG_SUFFIX) for p in paths]
    return [n if names.count(n) == 1 else str(log_of(p)).removesuffix(LOG_SUFFIX) for n, p in zip(names, paths)]
