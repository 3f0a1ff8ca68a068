"""Result plots for people: a share of episodes (a suite's success figure, `Suite.success`) per group of a
breakdown (ALFRED's task types, ObjectNav's categories, HandMeThat's levels, ...), each bar with its 95%
bootstrap interval, drawn from a summary (`evaluation.metrics.summarize`) with PIL alone. The viewer shows
them on a run's page and `homesim report --figures DIR` writes them as PNG."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from homesim.render.pictures import png

LABEL_WIDTH, BAR_WIDTH, ROW, MARGIN = 250, 300, 22, 8
BAR_COLOUR, INTERVAL_COLOUR, TEXT_COLOUR, GRID_COLOUR = (70, 110, 170), (20, 20, 20), (30, 30, 30), (215, 215, 215)


def share_chart(groups: Mapping[str, Mapping], figure: str, title: str) -> np.ndarray:
    """A horizontal bar per group: `groups[name][figure]` is {"value", "ci95"} (a share, 0 to 1); a group
    without a value gets no bar and says "-"."""
    font = ImageFont.load_default(size=12)
    height = MARGIN * 2 + ROW * (len(groups) + 2)
    width = LABEL_WIDTH + BAR_WIDTH + 90
    image = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN), title, fill=TEXT_COLOUR, font=font)
    top = MARGIN + ROW

    def x_of(share: float) -> float:
        return LABEL_WIDTH + BAR_WIDTH * min(max(share, 0.0), 1.0)

    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        draw.line((x_of(tick), top, x_of(tick), height - MARGIN - ROW), fill=GRID_COLOUR)
        draw.text((x_of(tick) - 8, height - MARGIN - ROW + 4), f"{100 * tick:.0f}%", fill=TEXT_COLOUR, font=font)
    for row, (name, figures) in enumerate(groups.items()):
        y = top + row * ROW
        shown = figures.get(figure) or {}
        value, interval = shown.get("value"), shown.get("ci95")
        label = f"{name} ({figures.get('episodes', '?')})"
        draw.text((MARGIN, y + 4), label[:40], fill=TEXT_COLOUR, font=font)
        if value is None:
            draw.text((LABEL_WIDTH + 4, y + 4), "-", fill=TEXT_COLOUR, font=font)
            continue
        draw.rectangle((LABEL_WIDTH, y + 4, x_of(value), y + ROW - 4), fill=BAR_COLOUR)
        if interval:
            low, high, middle = x_of(interval[0]), x_of(interval[1]), y + ROW // 2
            draw.line((low, middle, high, middle), fill=INTERVAL_COLOUR, width=2)
            draw.line((low, y + 5, low, y + ROW - 5), fill=INTERVAL_COLOUR, width=2)
            draw.line((high, y + 5, high, y + ROW - 5), fill=INTERVAL_COLOUR, width=2)
        draw.text((LABEL_WIDTH + BAR_WIDTH + 10, y + 4), f"{100 * value:.1f}%", fill=TEXT_COLOUR, font=font)
    return np.asarray(image)


def breakdown_charts(splits: Mapping[str, Mapping], figure: str, breakdowns: list[str]) -> dict[str, np.ndarray]:
    """Every split's chart of each breakdown, and of its splits side by side: `<split>-<breakdown>` ->
    picture (the breakdown "splits" compares the splits' overall figures)."""
    charts = {}
    if len(splits) > 1:
        charts["all-splits"] = share_chart({s: f["all"] for s, f in splits.items()}, figure, f"{figure} by split")
    for split, figures in splits.items():
        for breakdown in breakdowns:
            if figures.get(breakdown):
                title = f"{split}: {figure} {breakdown.replace('_', ' ')} (95% CI)"
                charts[f"{split}-{breakdown}"] = share_chart(figures[breakdown], figure, title)
    return charts


def write_charts(charts: Mapping[str, np.ndarray], out: Path) -> list[Path]:
    """The charts as `out/<name>.png`; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, picture in charts.items():
        path = out / f"{name}.png"
        path.write_bytes(png(picture))
        written.append(path)
    return written
